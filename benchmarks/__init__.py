"""Benchmarks of dissensus against the libraries a user would otherwise pick.

``python -m benchmarks`` runs the whole suite (see :mod:`benchmarks.suite`);
each ``bench_*.py`` module is also a script of its own, and the suite reuses
their data generators and reference loops as its sections.
"""
