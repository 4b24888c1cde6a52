"""PettingZoo's own test utilities and its turn-based AEC-to-parallel conversion."""
from __future__ import annotations

import warnings

import pytest

pettingzoo_test = pytest.importorskip("pettingzoo.test")
from pettingzoo.utils.conversions import turn_based_aec_to_parallel  # noqa: E402

import truco_env  # noqa: E402


def _no_warnings_from_us(caught) -> None:
    ours = [w for w in caught if "truco_env" in str(w.filename)]
    assert not ours, [str(w.message) for w in ours]


@pytest.mark.parametrize("players", [2, 4])
def test_api_test_is_quiet(players):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pettingzoo_test.api_test(truco_env.env(players=players, flor=True), num_cycles=200)
    _no_warnings_from_us(caught)
    assert not [w for w in caught if "reset option" in str(w.message)]


def test_seed_test():
    pettingzoo_test.seed_test(lambda: truco_env.env(players=4), num_cycles=100)


def test_render_test(capsys):
    pytest.importorskip("PIL")
    pettingzoo_test.render_test(lambda render_mode=None: truco_env.env(render_mode=render_mode))
    assert "Score:" in capsys.readouterr().out   # the "human" mode printed the table


def test_performance_benchmark(capsys):
    pettingzoo_test.performance_benchmark(truco_env.env())   # runs for 5 seconds
    assert "turns per second" in capsys.readouterr().out


@pytest.mark.parametrize("players", [2, 4])
def test_turn_based_aec_to_parallel(players):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        par = turn_based_aec_to_parallel(truco_env.env(players=players))
        pettingzoo_test.parallel_api_test(par, num_cycles=200)
    _no_warnings_from_us(caught)
