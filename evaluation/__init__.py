"""Evaluation of Truco agents: tournaments, ratings, bluff analytics, probes, exploitability.

Sits above :mod:`truco_env` (the game) and :mod:`agents` (the players); ``evaluate.py`` is its
command line.
"""
