"""Benchmarks: ``python -m benchmarks`` (or ``make bench``) prints one table.

Not timed tests: figures from a shared 2-core machine, to be read as orders of magnitude.
Each measurement runs in its own process so peak memory (max RSS) is per measurement.
"""
