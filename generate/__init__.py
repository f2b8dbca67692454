"""generate package."""
