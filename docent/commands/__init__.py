"""The ``docent`` commands that belong to the composition root: each builds the services
it needs (``docent.wiring``) and calls a stage. Part of the root, not of the shared leaf."""
