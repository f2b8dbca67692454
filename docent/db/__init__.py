"""The relational store: document registry, ingest jobs, traces, users, handoffs, content gaps."""
