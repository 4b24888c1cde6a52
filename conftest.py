"""pytest: modules that need an optional extra are not collected (doctests) without it."""
import importlib.util

collect_ignore = []
if importlib.util.find_spec("pyspiel") is None:   # the openspiel extra (issue 14)
    collect_ignore += ["truco_env/openspiel.py", "evaluation/nashconv.py"]
if importlib.util.find_spec("fastapi") is None:   # the web extra (issue 16)
    collect_ignore += ["truco_env/web/app.py", "truco_env/web/__main__.py"]
