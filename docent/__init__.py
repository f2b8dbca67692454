"""Docent's shared leaf package: settings, data contracts, errors, the access rule and the CLI."""

__version__ = "0.1.0"
