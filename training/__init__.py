"""Self-play PPO support for ``train.py``: config, opponent pool, logging (the loop itself reads
top to bottom in ``train.py``)."""
