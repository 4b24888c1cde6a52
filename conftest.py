"""pytest: modules that need an optional extra are not collected (doctests) without it; one
cache folder for the run (below)."""
import importlib.util
import os
from pathlib import Path

# The solved envido's strategies (agents.disk_cache) are kept in one folder for the whole run,
# shared by the xdist workers and the train.py subprocesses, and not in the user's own cache.
os.environ.setdefault("TRUCO_ENV_CACHE", str(Path(__file__).parent / ".pytest_cache" / "truco_env"))

collect_ignore = []
if importlib.util.find_spec("pyspiel") is None:   # the openspiel extra (issue 14)
    collect_ignore += ["truco_env/openspiel.py", "evaluation/nashconv.py"]
if importlib.util.find_spec("fastapi") is None:   # the web extra (issue 16)
    collect_ignore += ["truco_env/web/app.py", "truco_env/web/__main__.py"]
