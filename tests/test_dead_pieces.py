"""The pieces a game never fills (``truco_env.observe.dead_pieces``) and the network that skips
them (``PolicyNet(skip=...)``): a dead piece is zero in every observation of random matches
of its game, under every encoder; the skipping network computes what a whole-width network
computes with the same weights on the live columns, and ignores the dead ones; ``train.py``
builds it and its checkpoint records the skip."""
import numpy as np
import pytest
import torch

from truco_env import VectorTrucoEnv
from truco_env.observe import Encoder, dead_pieces, live_columns

from agents.ppo_policy import CheckpointError, PolicyAgent, PolicyNet, net_from_checkpoint

GAMES = [
    dict(players=2),
    dict(players=2, flor=True),
    dict(players=4, rules="uruguayo"),
    dict(players=4, senas="traditional"),
    dict(players=6, rules="trucoshi"),
    dict(players=4, pica_pica=True),
    dict(players=3, mode="pata_de_gallo"),
    dict(players=3, mode="destantado"),
]


def random_observations(venv, steps, rng):
    obs, _ = venv.reset(seed=int(rng.integers(1 << 30)))
    seen = [obs["observation"].copy()]
    for _ in range(steps):
        mask = obs["action_mask"]
        obs, *_ = venv.step((rng.random(mask.shape) + mask).argmax(1))
        seen.append(obs["observation"].copy())
    return np.concatenate(seen)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: "-".join(f"{k}{v}" for k, v in g.items()))
@pytest.mark.parametrize("kind", ["compact", "recall"])
def test_dead_pieces_are_zero_in_every_observation_of_their_game(game, kind):
    rng = np.random.default_rng(0)
    venv = VectorTrucoEnv(32, observation=kind, seed=1, **game)
    obs = random_observations(venv, 400, rng)
    enc = Encoder(kind)
    dead = dead_pieces(venv.rules, venv.players)
    for name in dead:
        assert not enc.piece(obs, name).any(), f"{name} is dead in {game} but was filled"
    # and the rule is not vacuous: each piece a game could fill is dead somewhere else
    live = set(enc.offsets) - set(dead)
    if game.get("players") == 3:
        assert {"seat_scores", "in_hand"} <= live or {"seat_scores", "gallo"} <= live
        assert enc.piece(obs, "seat_scores").any()
    if game.get("senas"):
        assert "senas" in live and enc.piece(obs, "senas").any()
    if game.get("rules") == "uruguayo":
        assert "muestra" in live and enc.piece(obs, "muestra").any()


def test_dead_pieces_of_a_plain_1v1_match():
    venv = VectorTrucoEnv(1)
    assert dead_pieces(venv.rules, 2) == ("muestra", "pica_pica", "seat_scores",
                                          "gallo", "fourth_card", "in_hand", "answers", "senas")
    cols = live_columns("compact", dead_pieces(venv.rules, 2))
    assert len(cols) == Encoder("compact").size - 431 and np.all(np.diff(cols) > 0)
    with pytest.raises(ValueError, match="'sena'"):
        live_columns("compact", ("sena",))


def test_a_skipping_network_computes_the_whole_networks_function_on_live_columns():
    torch.manual_seed(0)
    venv = VectorTrucoEnv(64, seed=2)
    obs = random_observations(venv, 50, np.random.default_rng(1))
    skip = dead_pieces(venv.rules, venv.players)
    cols = torch.as_tensor(live_columns("compact", skip))
    whole = PolicyNet(obs.shape[1], venv.num_actions, (32, 16))
    narrow = PolicyNet(obs.shape[1], venv.num_actions, (32, 16), skip=skip)
    state = whole.state_dict()
    state["trunk.0.weight"] = state["trunk.0.weight"][:, cols]
    narrow.load_state_dict(state)
    assert narrow.trunk[0].in_features == len(cols) < obs.shape[1]
    x = torch.as_tensor(obs)
    mask = torch.ones((len(x), venv.num_actions), dtype=torch.bool)
    with torch.no_grad():
        lw, vw = whole(x, mask)
        ln, vn = narrow(x, mask)
        torch.testing.assert_close(ln, lw)
        torch.testing.assert_close(vn, vw)
        noisy = x.clone()
        dead = np.setdiff1d(np.arange(obs.shape[1]), cols.numpy())
        noisy[:, dead] = torch.rand(len(x), len(dead))
        torch.testing.assert_close(narrow(noisy, mask)[0], ln)   # what it skips, it ignores
        assert not torch.allclose(whole(noisy, mask)[0], lw)


def test_a_checkpoint_rebuilds_its_skipping_network_and_a_bad_skip_is_named(tmp_path):
    venv = VectorTrucoEnv(4, seed=0)
    skip = dead_pieces(venv.rules, 2)
    net = PolicyNet(venv.observation_size, venv.num_actions, (8,), skip=skip)
    ckpt = {"model": net.state_dict(), "obs_size": venv.observation_size,
            "num_actions": venv.num_actions, "hidden": [8], "skip": list(skip)}
    again = net_from_checkpoint(ckpt)
    assert again.skip == skip and again.trunk[0].in_features == net.trunk[0].in_features
    obs, _ = venv.reset(seed=0)
    agent = PolicyAgent(again, greedy=True, seed=0)
    assert agent.act_batch(obs["observation"], obs["action_mask"]).shape == (4,)
    with pytest.raises(CheckpointError, match="unknown pieces"):
        net_from_checkpoint({**ckpt, "skip": ["no_such_piece"]})
    with pytest.raises(CheckpointError, match="do not fit"):
        net_from_checkpoint({**ckpt, "skip": []})
