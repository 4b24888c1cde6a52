"""Arrays computed once per machine: an on-disk cache keyed by the code that computes them.

The solved envido's strategies (:mod:`agents.solved_envido`) take about a minute of CPU per
process and target (the equilibrium by CFR+, the training opponents' observed envido, the
data-biased responses); every process that loads ``adaptive_envido:...``, every tournament
worker and every best-response run paid it again.  :func:`cached_arrays` keeps such results in
``.npz`` files, so only the first process on a machine pays.

* **Key**: the caller's name for the result, its arguments (JSON), and a digest of the source
  of the two packages that can change it (``truco_env`` and ``agents``, every ``.py`` file):
  any edit to the rules, the heuristic or the solver is a new key, never a stale result.
* **Where**: ``$TRUCO_ENV_CACHE`` (a folder; ``off``, ``0`` or empty disables the cache), else
  ``$XDG_CACHE_HOME/truco_env``, else ``~/.cache/truco_env``.  Files are written atomically
  (a temporary file in the folder, then a rename), so concurrent processes at worst compute
  the same result twice; ``.npz`` is read without pickle.
* **Failures are not errors**: an unreadable file is recomputed and replaced, a folder that
  cannot be written is reported once; each with a warning that names the path.  Deleting the
  folder is always safe.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np

#: Bumped when the file format changes (part of every key).
FORMAT = 1
_PACKAGES = ("truco_env", "agents")
_warned: set[str] = set()


def cache_dir() -> Path | None:
    """The cache folder (see the module's docstring), ``None`` when disabled."""
    env = os.environ.get("TRUCO_ENV_CACHE")
    if env is not None:
        return None if env.strip().lower() in ("off", "0", "") else Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "truco_env"


@lru_cache(maxsize=None)
def code_digest() -> str:
    """SHA-256 of the source files of ``truco_env`` and ``agents`` (paths and contents)."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for pkg in _PACKAGES:
        for f in sorted((root / pkg).rglob("*.py")):
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def cache_path(name: str, key: dict) -> Path | None:
    """Where ``name``'s result for ``key`` is kept (``None``: the cache is off)."""
    folder = cache_dir()
    if folder is None:
        return None
    text = json.dumps({"format": FORMAT, "name": name, "key": key, "code": code_digest()},
                      sort_keys=True)
    return folder / f"{name}-{hashlib.sha256(text.encode()).hexdigest()[:24]}.npz"


def _warn(msg: str) -> None:
    if msg not in _warned:
        _warned.add(msg)
        warnings.warn(msg, RuntimeWarning, stacklevel=3)


def cached_arrays(name: str, key: dict, compute: Callable[[], dict[str, np.ndarray]]
                  ) -> dict[str, np.ndarray]:
    """``compute()`` (a dict of arrays), read from the cache when a file for ``(name, key)``
    and this code exists, else computed and written there."""
    path = cache_path(name, key)
    if path is not None and path.exists():
        try:
            with np.load(path, allow_pickle=False) as f:
                return {k: f[k] for k in f.files}
        except Exception as e:                               # noqa: BLE001 - any bad file
            _warn(f"truco_env cache: {str(path)!r} is unreadable ({type(e).__name__}: {e}); "
                  f"recomputing it")
    arrays = compute()
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.stem, suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as out:
                    np.savez_compressed(out, **arrays)
                os.replace(tmp, path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        except OSError as e:
            _warn(f"truco_env cache: cannot write {str(path.parent)!r} ({e}); results are "
                  f"recomputed in every process (set TRUCO_ENV_CACHE to a writable folder, or "
                  f"to 'off')")
    return arrays
