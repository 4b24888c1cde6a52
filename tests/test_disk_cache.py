"""The on-disk cache of computed arrays (agents.disk_cache) and the solved envido's use of it."""
import numpy as np
import pytest

from agents import disk_cache
from agents import solved_envido as se
from agents.disk_cache import cache_dir, cache_path, cached_arrays
from truco_env import winprob


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("TRUCO_ENV_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


class Counter:
    def __init__(self):
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return {"a": np.arange(6.0).reshape(2, 3) * self.calls, "b": np.array([7], np.int64)}


def test_computed_once_then_read(folder):
    f = Counter()
    first = cached_arrays("thing", {"n": 1}, f)
    second = cached_arrays("thing", {"n": 1}, f)
    assert f.calls == 1
    assert set(second) == {"a", "b"}
    np.testing.assert_array_equal(first["a"], second["a"])
    assert second["b"].dtype == np.int64
    assert [p.name for p in folder.iterdir()] == [cache_path("thing", {"n": 1}).name]


def test_key_name_and_code_make_distinct_files(folder, monkeypatch):
    f = Counter()
    cached_arrays("thing", {"n": 1}, f)
    cached_arrays("thing", {"n": 2}, f)
    cached_arrays("other", {"n": 1}, f)
    assert f.calls == 3
    before = cache_path("thing", {"n": 1})
    monkeypatch.setattr(disk_cache, "code_digest", lambda: "edited")
    assert cache_path("thing", {"n": 1}) != before                   # an edit: a new key
    cached_arrays("thing", {"n": 1}, f)
    assert f.calls == 4


def test_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("TRUCO_ENV_CACHE", "off")
    assert cache_dir() is None and cache_path("thing", {}) is None
    f = Counter()
    cached_arrays("thing", {}, f)
    cached_arrays("thing", {}, f)
    assert f.calls == 2


def test_default_folder_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("TRUCO_ENV_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "truco_env"


def test_a_corrupt_file_is_recomputed_with_a_warning(folder):
    f = Counter()
    cached_arrays("thing", {}, f)
    path = cache_path("thing", {})
    path.write_bytes(b"not a zip file")
    with pytest.warns(RuntimeWarning, match="unreadable.*recomputing"):
        again = cached_arrays("thing", {}, f)
    assert f.calls == 2
    np.testing.assert_array_equal(again["a"], np.arange(6.0).reshape(2, 3) * 2)
    assert cached_arrays("thing", {}, f)["a"][1, 2] == 10.0 and f.calls == 2   # replaced


def test_an_unwritable_folder_warns_and_still_returns(tmp_path, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    monkeypatch.setenv("TRUCO_ENV_CACHE", str(blocker / "cache"))
    monkeypatch.setattr(disk_cache, "_warned", set())
    with pytest.warns(RuntimeWarning, match="cannot write"):
        out = cached_arrays("thing", {}, Counter())
    assert out["b"][0] == 7
    assert not list(tmp_path.glob("**/*.tmp"))


def test_solution_read_back_is_the_solution(folder, monkeypatch):
    se.subgame_for.cache_clear()
    se.solution_for.cache_clear()
    computed = se.solution_for(9, 40)
    se.subgame_for.cache_clear()
    se.solution_for.cache_clear()

    def no_solve(*a, **k):
        raise AssertionError("solved again: the disk cache was not read")

    monkeypatch.setattr(se, "solve", no_solve)
    monkeypatch.setattr(winprob, "played_win_table", no_solve)      # W comes from the disk too
    read = se.solution_for(9, 40)
    se.solution_for.cache_clear()
    assert read is not computed
    np.testing.assert_array_equal(read.game.W, computed.game.W)
    np.testing.assert_array_equal(read.nash_conv, computed.nash_conv)
    assert len(read.strategy) == len(computed.strategy)
    for x, y in zip(read.strategy, computed.strategy):
        np.testing.assert_array_equal(x, y)
    assert read.iterations == 40


def test_a_file_that_does_not_fit_the_game_is_solved_again(folder):
    game = se.subgame_for(9)
    calls = []

    def compute():
        calls.append(1)
        return se.solve(game, 5)

    key = {"target": 9, "iterations": 5}
    cached_arrays("solved_envido_test", key, lambda: {"nash_conv": np.zeros(3)})  # wrong shapes
    sol = se._kept("solved_envido_test", key, game, compute)
    assert calls == [1] and sol.nash_conv.shape == (len(game.scores),)
