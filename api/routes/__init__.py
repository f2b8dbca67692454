"""HTTP routes, one module per area; each route declares its role (see ``api.deps``)."""
