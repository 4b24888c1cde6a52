"""evaluate.py --backend ray: the duplicate pairs played as Ray tasks on a local Ray with two
workers give the same tables, byte for byte, as the local process pool for the same seed and
workers (skipped without the ray extra)."""
from __future__ import annotations

import json

import pytest

from evaluation import backends, bluff, tournament
from evaluation.tournament import GameConfig

ray = pytest.importorskip("ray")

CFG = GameConfig(players=2, rules="argentino")


@pytest.fixture(scope="module")
def local_ray():
    backends.init_ray(num_cpus=2)      # the backend's own local instance, two workers
    yield
    ray.shutdown()


def _tables(res: dict) -> str:
    """The result as JSON without what may differ between runs: the time and the backend."""
    config = {k: v for k, v in res["config"].items() if k != "backend"}
    return json.dumps({**res, "config": config, "seconds": None}, sort_keys=True)


def test_tournament_on_ray_matches_the_local_pool(local_ray):
    entrants = [("random", "random"), ("heuristic", "heuristic")]
    kw = dict(matches=12, cfg=CFG, seed=5, workers=2, bluff=True, progress=False)
    local = tournament.run_tournament(entrants, **kw)
    on_ray = tournament.run_tournament(entrants, backend="ray", **kw)
    assert on_ray["config"]["backend"] == "ray" and local["config"]["backend"] == "local"
    assert on_ray["pairs"][0]["matches"] == 24 and on_ray["bluff"] is not None
    assert _tables(on_ray) == _tables(local)


def test_bluff_against_on_ray_matches_the_local_pool(local_ray):
    kw = dict(matches=8, cfg=CFG, seed=1, workers=2, progress=False)
    local = bluff.play_against("random", ["heuristic"], **kw)
    on_ray = bluff.play_against("random", ["heuristic"], backend="ray", **kw)
    assert on_ray["matches"][0]["matches"] == 16
    assert _tables(on_ray) == _tables(local)
