"""Self-play PPO support for ``train.py`` (the loop itself reads top to bottom there).

``config`` (the typed config, YAML, overrides, command line), ``pool`` (snapshots, PFSP,
baselines), ``shaping`` (win-potential reward shaping), ``win_rates`` (evaluation matches through
:func:`truco_env.loop.play`) and ``logger`` (metrics.csv, TensorBoard, summaries, printed lines).
"""
