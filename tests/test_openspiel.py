"""python_truco in OpenSpiel (issue 14): registration, OpenSpiel's consistency checks for 2, 4
and 6 players, the deal's chance nodes, observers without leaks, small Truco's exact
equilibrium (CFR+) and exploitability."""
import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
O = pytest.importorskip("truco_env.openspiel")

from truco_env import ACTIONS, core as C  # noqa: E402


def play_random(game, rng, stop=None):
    state = game.new_initial_state()
    while not state.is_terminal() and (stop is None or not stop(state)):
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=np.array(probs) / sum(probs))))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_registered_and_loads():
    game = pyspiel.load_game("python_truco(players=2,rules=argentino)")
    assert game.get_type().short_name in pyspiel.registered_names()
    assert game.num_distinct_actions() == 16 and game.max_chance_outcomes() == 40
    assert [game.new_initial_state().action_to_string(1, a) for a in range(16)] == \
        list(ACTIONS[:16])
    with pytest.raises((pyspiel.SpielError, ValueError)):
        pyspiel.load_game("python_truco(players=3)")


@pytest.mark.parametrize("params", [
    "players=2", "players=4", "players=6", "players=2,rules=uruguayo",
    "players=4,rules=trucoshi,flor=on", "players=2,episode=match,target=9",
])
def test_openspiel_random_sim(params):
    """OpenSpiel's own checks: random simulations with serialisation round trips, tensors and
    strings at every state, returns within the utility range, zero sum."""
    game = pyspiel.load_game(f"python_truco({params})")
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_serialize_and_infostate_consistency(players):
    """Deserialised states equal the originals; every player's information state string and
    tensor are the same in states that differ only in the other players' hidden cards."""
    game = pyspiel.load_game(f"python_truco(players={players})")
    rng = np.random.default_rng(players)
    checked = 0
    for _ in range(6):
        state = play_random(game, rng, stop=lambda s: len(s.history()) > 3 * players + 2)
        if state.is_terminal():
            continue
        copy = game.deserialize_state(state.serialize())
        assert str(copy) == str(state) and copy.history() == state.history()
        assert copy.legal_actions() == state.legal_actions()
        # Swap two other players' hands in the deal and replay: what p sees is unchanged.
        P, h = players, state.history()
        for p in range(P):
            q, r = [(p + 1) % P, (p + 2) % P] if P > 2 else [(p + 1) % P] * 2
            if q == r:
                continue
            deal = list(h[:3 * P])
            deal[3 * q:3 * q + 3], deal[3 * r:3 * r + 3] = deal[3 * r:3 * r + 3], deal[3 * q:3 * q + 3]
            other = game.new_initial_state()
            try:
                for a in deal + list(h[3 * P:]):
                    other.apply_action(a)
            except pyspiel.SpielError:
                continue        # the swapped deal makes another action illegal: skip it
            if (other.pos.S[0, C.PLAYED + 3 * q:C.PLAYED + 3 * q + 3] >= 0).any() or \
                    (other.pos.S[0, C.PLAYED + 3 * r:C.PLAYED + 3 * r + 3] >= 0).any():
                continue        # a played card is public: only unplayed hands may differ
            checked += 1
            assert other.information_state_string(p) == state.information_state_string(p)
            assert other.information_state_tensor(p) == state.information_state_tensor(p)
            assert other.observation_tensor(p) == state.observation_tensor(p)
            assert other.observation_string(p) == state.observation_string(p)
    assert players == 2 or checked > 0


def test_deal_is_uniform_over_hands():
    """Chance deals each hand as a set in ascending order, every set equally likely."""
    game = O.small_truco("7", calls=())
    probs = {}

    def walk(state, p, cards):
        if not state.is_chance_node():
            probs[tuple(cards)] = probs.get(tuple(cards), 0.0) + p
            return
        for a, q in state.chance_outcomes():
            walk(state.child(a), p * q, cards + [a])
    walk(game.new_initial_state(), 1.0, [])
    assert len(probs) == 35 * 4
    assert np.allclose(list(probs.values()), 1 / 140)
    assert all(list(k[:3]) == sorted(k[:3]) and list(k[3:]) == sorted(k[3:]) for k in probs)


def test_small_truco_size_and_recall_tensor():
    """The size command's numbers; the recall encoder tells apart the information states of
    a small Truco (it is perfect recall there)."""
    game = O.small_truco("7", calls=("truco",))
    size = O.tree_size(game)
    assert size["histories"] == 93419 and size["infostates"] == 42060
    seen = {}
    rng = np.random.default_rng(0)
    for _ in range(300):
        state = play_random(game, rng, stop=lambda s: rng.random() < 0.15)
        if state.is_terminal() or state.is_chance_node():
            continue
        p = state.current_player()
        key = tuple(state.information_state_tensor(p))
        assert seen.setdefault(key, state.information_state_string(p)) == \
            state.information_state_string(p)


@pytest.fixture(scope="module")
def tiny():
    """Small Truco on the smallest deck with truco calls only (93k histories), as a C++ EFG."""
    efg = O.export_efg(O.small_truco("7", calls=("truco",)))
    return efg, efg.load()


def test_efg_is_the_same_game():
    py = O.small_truco("7", calls=())
    efg = O.export_efg(py)
    game = efg.load()
    assert game.num_distinct_actions() == len(efg.actions)
    uniform_py = pyspiel.nash_conv(py, pyspiel.UniformRandomPolicy(py))
    uniform_efg = pyspiel.nash_conv(game, pyspiel.UniformRandomPolicy(game))
    assert uniform_py == pytest.approx(uniform_efg, abs=1e-9)


def test_nashconv_always_call_is_large_cfr_is_small(tiny):
    from evaluation.nashconv import always_call_policy, cfr
    efg, game = tiny
    big = pyspiel.nash_conv(game, always_call_policy(efg))
    curve, avg = cfr(efg, game, iterations=64, every=64)
    assert big > 1.0
    assert curve[-1][1] < 0.05 < big / 20


def test_agents_as_tabular_policies(tiny):
    """The random agent's table is the uniform policy; the trained policy's NashConv is a
    number between CFR's and always-call's orders of magnitude."""
    from agents import load
    from evaluation.nashconv import agent_policy
    efg, game = tiny
    py = O.small_truco("7", calls=("truco",))
    uniform = pyspiel.nash_conv(game, pyspiel.UniformRandomPolicy(game))
    assert pyspiel.nash_conv(game, agent_policy(efg, py, load("random"))) == \
        pytest.approx(uniform)
    assert pyspiel.nash_conv(game, agent_policy(efg, py, load("heuristic"))) > 0.1


def test_ppo_nashconv_curve_over_kept_checkpoints(tmp_path, tiny):
    """train.py keep_every keeps the points of a curve; evaluate.py nashconv --curve gives
    one exact NashConv per kept checkpoint, oldest first, and plots them next to CFR+."""
    import csv
    import subprocess
    import sys

    from evaluation.nashconv import checkpoint_curve, run
    cmd = [sys.executable, "train.py", "--config", "configs/small_truco.yaml", "calls=truco",
           "total_steps=3500", "num_envs=64", "num_steps=8", "minibatch_size=256",
           "checkpoint_every=2", "keep_every=2", "time_budget=0", "progress=false",
           f"runs_dir={tmp_path}", "run_name=st"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    kept = sorted((tmp_path / "st" / "checkpoints").glob("step_*.pt"))
    assert sorted(int(p.stem[5:]) for p in kept) == [1024, 2048, 3072]  # iterations 2, 4, 6
    efg, game = tiny
    curve = checkpoint_curve(efg, O.small_truco("7", calls=("truco",)), game, tmp_path / "st",
                             {})
    assert [c[0] for c in curve] == [1024, 2048, 3072, 3584]   # then latest.pt (iteration 7)
    assert all(0.0 < c[2] < 3.0 for c in curve) and curve[0][1] <= curve[-1][1]
    out = tmp_path / "nc"
    out.mkdir()
    run(["cfr"], out, calls=("truco",), iterations=2, every=1, curves=[tmp_path / "st"])
    rows = list(csv.DictReader(open(out / "ppo_curve.csv")))
    assert [int(r["global_step"]) for r in rows] == [1024, 2048, 3072, 3584]
    assert float(rows[0]["nashconv"]) == pytest.approx(curve[0][2])
    assert (out / "nashconv_curve.png").stat().st_size > 1000
    with pytest.raises(FileNotFoundError, match="no checkpoints"):
        checkpoint_curve(efg, O.small_truco("7", calls=("truco",)), game, tmp_path / "nc", {})


def test_keep_every_must_be_a_multiple_of_checkpoint_every():
    from training.config import ConfigError, make_config
    with pytest.raises(ConfigError, match="keep_every=3"):
        make_config({"keep_every": 3, "checkpoint_every": 2})
