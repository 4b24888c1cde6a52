"""Evaluation of Truco agents: tournaments, ratings, bluff analytics, probes, exploitability.

Sits above :mod:`truco_env` (the game) and :mod:`agents` (the players); ``evaluate.py`` is its
command line.  Methods: ``docs/evaluation.md``.

* :mod:`evaluation.stats`: the one win-rate estimator (95% Wilson intervals) and mean intervals;
* :mod:`evaluation.tournament`: duplicate play through :func:`truco_env.loop.play`, pair
  summaries, round-robin tournaments, plain head-to-head matches;
* :mod:`evaluation.ratings`: Bradley-Terry ratings on the Elo scale, bootstrap intervals;
* :mod:`evaluation.bluff`: the decision log (loop hooks, or match records) and bluff analytics;
* :mod:`evaluation.probe`: an agent's action probabilities in a situation set up by hand;
* :mod:`evaluation.exploit`: approximate exploitability (a best response trained by train.py);
* :mod:`evaluation.report`: Markdown, CSV, JSON and PNG outputs.
"""
