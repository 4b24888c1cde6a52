"""Issue 12's tooling for the three-player modes and pica-pica: the Gymnasium single-agent
wrapper, rendering (the gallo's fourth card, per-player scores), the evaluation commands
(bluff, probe, exploit) and the migration of shipped policies."""
from __future__ import annotations

import numpy as np
import pytest

import truco_env
from agents.single_agent import SingleAgentEnv
from truco_env.env import _BACK, _FELT, _CARD_H, _CARD_W, _ROW_H

GALLO_HANDS = [["7c", "6c", "4b"], ["1e", "2o", "5o"], ["12b", "11b", "4o", "3e"]]


def _play_out(env, rng) -> tuple[float, dict]:
    total, done, info = 0.0, False, {}
    while not done:
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, r, done, _, info = env.step(a)
        total += r
    return total, info


# ---------------------------------------------------------------------------- SingleAgentEnv
@pytest.mark.parametrize("rules", ["pata_de_gallo", "destantado"])
def test_single_agent_env_three_players(rules):
    """The learner holds one seat (drawn per reset), the other two are opponent bots; the
    reward is the learner's match result (+1, or -1/2 when another player wins)."""
    from gymnasium.utils.env_checker import check_env
    env = SingleAgentEnv("random", players=3, rules=rules, target=9 if rules != "destantado"
                         else None)
    check_env(env, skip_render_check=True)
    rng = np.random.default_rng(0)
    seats, results = set(), []
    for ep in range(24):
        obs, info = env.reset(seed=ep)
        assert obs.shape == env.observation_space.shape and len(info["score"]) == 3
        seats.add(info["seat"])
        assert sorted(env.bots) == sorted(f"player_{s}" for s in range(3) if s != info["seat"])
        assert all(b.name == "random" for b in env.bots.values())
        assert len({id(b) for b in env.bots.values()}) == 2        # two independent copies
        total, info = _play_out(env, rng)
        S = env.aec.game.S
        assert total == (1.0 if int(S[0, truco_env.core.WINNER]) == info["seat"] else -0.5)
        results.append(total)
    assert seats == {0, 1, 2}
    assert set(results) == {1.0, -0.5}


def test_single_agent_env_three_players_refuses_a_partner():
    with pytest.raises(ValueError, match="partner='heuristic'.*no fixed partner"):
        SingleAgentEnv("random", partner="heuristic", players=3, rules="pata_de_gallo")


def test_single_agent_env_gallo_discards_through_the_wrapper():
    """As the gallo the learner's first decision is the discard, with its own mask."""
    env = SingleAgentEnv("random", seat=2, players=3, rules="pata_de_gallo")
    obs, info = env.reset(seed=0, options={"hands": GALLO_HANDS, "mano": 0})
    legal = {truco_env.ACTIONS[a] for a in np.flatnonzero(info["action_mask"])}
    assert legal == {f"discard_{k}" for k in range(4)}
    obs, r, done, _, info = env.step(truco_env.ACTIONS.index("discard_1"))
    assert env.aec.view("player_2")["discarded"] == "11b" and not done


@pytest.mark.parametrize("kw", [dict(players=4, rules="argentino", pica_pica=True),
                                dict(players=6, rules="trucoshi")], ids=["4", "6"])
def test_single_agent_env_pica_pica(kw):
    """Pica-pica: the bots play the duels the learner is not in; the rewards add up to the
    learner's team result."""
    env = SingleAgentEnv("random", **kw)
    rng = np.random.default_rng(1)
    duels = 0
    for ep in range(6):
        env.reset(seed=ep)
        done = False
        while not done:
            v = env.aec.view(env.agent)
            if v.get("pica_pica"):
                duels += 1
                assert env.seat in v["duels"][v["duel"]]["seats"]   # the learner acts in its duel
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, r, done, _, info = env.step(a)
        winner = int(env.aec.game.S[0, truco_env.core.WINNER])
        assert r == (1.0 if winner == info["seat"] % 2 else -1.0)
    assert duels > 0


# ---------------------------------------------------------------------------- rendering
def _fourth_card_pixel(img: np.ndarray, row: int) -> tuple[int, ...]:
    """The fill colour of the fourth card's place in a seat's row of the picture."""
    x = 140 + 3 * (_CARD_W + 8) + _CARD_W // 2
    y = 64 + row * _ROW_H + 4 + _CARD_H - 6
    return tuple(int(c) for c in img[y, x])


def test_render_shows_the_fourth_card_to_the_gallo_only():
    env = truco_env.env(players=3, rules="pata_de_gallo", render_mode="rgb_array")
    env.reset(seed=0, options={"hands": GALLO_HANDS, "mano": 0})
    raw = env.unwrapped
    pictures = {}
    for seat in (None, 0, 1, 2):
        raw.render_seat = seat
        pictures[seat] = env.render()
    # The gallo (seat 2) and a spectator see the card face up; the pair see its back.
    assert _fourth_card_pixel(pictures[2], 2) == (250, 248, 240)
    assert _fourth_card_pixel(pictures[None], 2) == (250, 248, 240)
    for seat in (0, 1):
        assert _fourth_card_pixel(pictures[seat], 2) == _BACK
        assert _fourth_card_pixel(pictures[seat], seat) == _FELT       # nobody else has four
    # The text render: the gallo's four cards to him, four hidden ones to the others.
    text = truco_env.env(players=3, rules="pata_de_gallo", render_mode="ansi")
    text.reset(seed=0, options={"hands": GALLO_HANDS, "mano": 0})
    text.unwrapped.render_seat = 2
    assert "Cards of you: 12b 11b 4o 3e" in text.render()
    text.unwrapped.render_seat = 0
    shown = text.render()
    assert "3e" not in shown and "11b" not in shown
    # After the discard: three cards, and the discarded one is the gallo's alone.
    for e in (env, text):
        e.step(truco_env.ACTIONS.index("discard_1"))
    raw.render_seat = 2
    assert _fourth_card_pixel(env.render(), 2) == _FELT
    text.unwrapped.render_seat = 2
    assert "You discarded 11b" in text.render()
    text.unwrapped.render_seat = 1
    assert "11b" not in text.render()
    raw.render_seat = 1
    assert not np.array_equal(env.render(), pictures[1])        # the row changed: 3 cards


@pytest.mark.parametrize("rules,word", [("pata_de_gallo", None), ("destantado", "tantos left")])
def test_render_shows_the_three_player_scores(rules, word):
    hands = GALLO_HANDS if rules == "pata_de_gallo" else GALLO_HANDS[:2] + [GALLO_HANDS[2][:3]]
    score = [4, 7, 2] if rules == "pata_de_gallo" else [9, 6, 3]
    text = truco_env.env(players=3, rules=rules, render_mode="ansi")
    text.reset(seed=0, options={"hands": hands, "mano": 0, "score": score})
    out = text.render()
    for p, x in enumerate(score):
        assert f"player_{p} {x}" in out.replace(":", "")
    if word:
        assert word in out
    pic = truco_env.env(players=3, rules=rules, render_mode="rgb_array")
    pic.reset(seed=0, options={"hands": hands, "mano": 0, "score": score})
    img = pic.render()
    assert img.dtype == np.uint8 and img.shape[2] == 3 and img.shape[0] > 3 * _ROW_H
    other = truco_env.env(players=3, rules=rules, render_mode="rgb_array")
    other.reset(seed=0, options={"hands": hands, "mano": 0})
    # only the score line differs between the two pictures
    diff = np.flatnonzero((img != other.render()).any(axis=(1, 2)))
    assert len(diff) and 20 <= diff.min() and diff.max() < 64


# ---------------------------------------------------------------------------- migration
def _old_checkpoint(version: int, kind: str = "compact", hidden=(32, 16), seed: int = 0):
    """A checkpoint of layout ``version``: a random network over that layout's inputs and the
    16 actions before the discards."""
    torch = pytest.importorskip("torch")
    from agents.ppo_policy import PolicyNet
    from truco_env.observe import legacy_columns
    torch.manual_seed(seed)
    n = len(legacy_columns(kind, version))
    net = PolicyNet(n, 16, hidden)
    with torch.no_grad():          # the policy head's std 0.01 init is too small to compare
        net.policy.weight.normal_()
        net.policy.bias.normal_()
    return net, {"model": net.state_dict(), "obs_size": n, "num_actions": 16,
                 "hidden": list(hidden), "layout_version": version,
                 "game": {"players": 2, "rules": "argentino", "target": 30, "flor": False,
                          "observation": kind}}


def _team_observations(kind: str, n: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of random 1v1 and 2v2 argentino play (games the old layouts
    could describe)."""
    obs, masks = [], []
    rng = np.random.default_rng(0)
    for players in (2, 4):
        env = truco_env.env(players=players, observation=kind)
        env.reset(seed=players)
        for agent in env.agent_iter():
            o, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            obs.append(o["observation"])
            masks.append(o["action_mask"].astype(bool))
            if len(obs) >= n * players // 2:
                break
            env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return np.array(obs), np.array(masks)


@pytest.mark.parametrize("version", [2, 3, 4])
@pytest.mark.parametrize("kind", ["compact", "recall"])
def test_widen_inputs_keeps_the_first_layer_and_the_logits(version, kind):
    torch = pytest.importorskip("torch")
    from agents.ppo_policy import net_from_checkpoint
    from agents.pretrained import widen_inputs
    from truco_env.observe import LAYOUT_VERSION, Encoder, legacy_columns
    old_net, ckpt = _old_checkpoint(version, kind)
    before = {k: v.clone() for k, v in ckpt["model"].items()}
    wide = widen_inputs(ckpt, "old")
    assert all(torch.equal(before[k], ckpt["model"][k]) for k in before)   # input untouched
    assert wide["layout_version"] == LAYOUT_VERSION and wide["migrated_from_layout"] == version
    assert wide["obs_size"] == Encoder(kind).size and wide["num_actions"] == len(truco_env.ACTIONS)
    new_net = net_from_checkpoint(wide)
    cols = legacy_columns(kind, version)
    obs, mask = _team_observations(kind)
    x_new = torch.as_tensor(obs)
    x_old = x_new[:, torch.as_tensor(cols)]
    # Identical up to the float32 rounding of a longer sum (the added terms are exact zeros;
    # BLAS may add the same products in another order): 1e-6 on values of order 1.
    same = dict(rtol=0.0, atol=1e-6)
    assert np.array_equal(new_net.trunk[0].weight.detach()[:, cols].numpy(),
                          old_net.trunk[0].weight.detach().numpy())
    with torch.no_grad():
        # first-layer outputs identical on the old columns, whatever the added inputs hold
        torch.testing.assert_close(old_net.trunk[0](x_old), new_net.trunk[0](x_new), **same)
        noise = x_new.clone()
        added = np.setdiff1d(np.arange(x_new.shape[1]), cols)
        noise[:, torch.as_tensor(added)] = torch.rand(len(obs), len(added))
        torch.testing.assert_close(new_net.trunk[0](noise), new_net.trunk[0](x_new), **same)
        # the logits of the old actions too; the discards get zero rows (illegal here)
        lo, _ = old_net(x_old, torch.as_tensor(mask[:, :16]))
        ln, _ = new_net(x_new, torch.as_tensor(mask))
        torch.testing.assert_close(lo, ln[:, :16], rtol=0.0, atol=1e-5)
        assert not new_net.trunk[0].weight[:, torch.as_tensor(added)].any()
        assert not mask[:, 16:].any()
    assert widen_inputs(wide) is wide                  # already of this layout: as it is


def test_widen_inputs_refuses_what_cannot_be_migrated():
    pytest.importorskip("torch")
    from agents.pretrained import MigrationError, widen_inputs
    from truco_env.observe import LAYOUT_VERSION
    _, ckpt = _old_checkpoint(3)
    with pytest.raises(MigrationError, match="x.pt: observation layout 1 cannot be migrated"):
        widen_inputs({**ckpt, "layout_version": 1}, "x.pt")
    with pytest.raises(MigrationError, match=f"layout {LAYOUT_VERSION + 1} cannot be migrated"):
        widen_inputs({**ckpt, "layout_version": LAYOUT_VERSION + 1}, "x.pt")
    with pytest.raises(MigrationError, match=r"x.pt: \d+ inputs, but layout 2 of 'compact' has"):
        widen_inputs({**ckpt, "layout_version": 2}, "x.pt")       # layout 3's size, said 2
    with pytest.raises(MigrationError, match="unknown observation kind 'pixels'"):
        widen_inputs({**ckpt, "game": {"observation": "pixels"}}, "x.pt")
    assert issubclass(MigrationError, ValueError)


def test_migrate_writes_a_loadable_shipped_policy(tmp_path, monkeypatch):
    """``migrate`` reads a shipped file of an older layout and writes one that loads."""
    torch = pytest.importorskip("torch")
    import agents
    import agents.pretrained as pretrained
    _, ckpt = _old_checkpoint(4)
    src = tmp_path / "src"
    src.mkdir()
    torch.save({"format": "truco_env.ppo/1", **ckpt}, src / "old.pt")
    monkeypatch.setattr(pretrained, "HERE", src)
    out = pretrained.migrate("old", out_dir=tmp_path)
    assert out == tmp_path / "old.pt"
    monkeypatch.setattr(pretrained, "HERE", tmp_path)
    bot = agents.load("pretrained:old", seed=0)
    env = truco_env.env(players=2)
    env.reset(seed=0)
    o, *_ = env.last()
    assert o["action_mask"][bot.act(o, env.unwrapped.view(env.agent_selection))]


# ---------------------------------------------------------------------------- evaluate.py
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from evaluation import bluff, probe  # noqa: E402
from evaluation.tournament import GameConfig, GameMismatchError, load_agent, resolve_game  # noqa: E402,E501

ROOT = Path(__file__).resolve().parents[1]


def _evaluate(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "evaluate.py", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def pata_checkpoint(tmp_path_factory) -> str:
    """A tiny policy trained for pata de gallo (configs/pata_de_gallo.yaml, target 15)."""
    pytest.importorskip("torch")
    runs = tmp_path_factory.mktemp("runs")
    values = {"num_envs": 16, "num_steps": 8, "hidden": [16], "minibatch_size": 64,
              "update_epochs": 1, "eval_every": 0, "final_eval_games": 0, "progress": False,
              "tensorboard": False, "threads": 1, "device": "cpu", "total_steps": 128,
              "runs_dir": str(runs), "run_name": "pata"}
    out = subprocess.run([sys.executable, "train.py", "--config", "configs/pata_de_gallo.yaml",
                          *(f"{k}={json.dumps(v)}" for k, v in values.items())], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return f"checkpoint:{runs / 'pata'}"


def test_net_points_of_a_call_in_the_three_player_modes():
    """A three-player hand's net points for the caller: his points minus the mean of the
    others' (reward="points"); a team game's: his team's minus the other's."""
    ev = {"gid": np.array([0, 1, 1]), "hand_no": np.array([1, 1, 1]),
          "seat": np.array([1, 1, 2]), "players": np.array([2, 3, 3])}
    hands = {"gid": np.array([0, 1]), "hand_no": np.array([1, 1]),
             "pts0": np.array([3, 2]), "pts1": np.array([1, 2]), "pts2": np.array([0, 0])}
    # pata de gallo: the pair (seats 0 and 1) won 2 each, the gallo (seat 2) nothing
    assert bluff._join_hand_points(ev, hands).tolist() == [-2.0, 1.0, -2.0]
    ev["agent"] = np.array([0, 0, 1])
    assert bluff._opponents(ev).tolist()[1:] == [1, 0]


@pytest.mark.parametrize("rules", ["pata_de_gallo", "destantado"])
def test_bluff_analytics_in_the_three_player_modes(rules):
    b = bluff.play_against("heuristic", ["random"], 4, GameConfig(players=3, rules=rules),
                           seed=1, workers=1, progress=False)
    row = b["matches"][0]
    assert row["matches"] == 12 and row["even"] == pytest.approx(1 / 3)
    assert row["win_lo"] <= row["win_rate"] <= row["win_hi"]
    assert b["config"]["mode"] == rules
    scope = b["claims"]["agents"]["heuristic"]["scopes"][0]
    assert scope["opponent"] == "random" and scope["decisions"] > 0
    truco = scope["truco_calls"]["truco"]
    assert sum(truco["n"]) > 0
    payoff = scope["payoff"]["honest"]["points"]
    assert payoff["n"] == 0 or np.isfinite(payoff["mean"])


def test_three_way_tournament_with_bluff_analytics(tmp_path):
    from evaluation import report
    from evaluation.tournament import run_tournament
    res = run_tournament([("h", "heuristic"), ("r", "random")], 2,
                         GameConfig(players=3, rules="pata_de_gallo", target=9), bluff=True,
                         progress=False)
    assert set(res["bluff"]["agents"]) == {"h", "r"}
    md = report.write_tournament(res, tmp_path)
    assert "## Bluff analytics" in md and (tmp_path / "bluff.csv").is_file()


def test_bluff_analytics_in_pica_pica_and_from_three_player_records(tmp_path):
    b = bluff.play_against("heuristic", ["random"], 4, GameConfig(players=4, pica_pica=True),
                           seed=1, workers=1, progress=False)
    assert b["matches"][0]["matches"] == 8 and "net_per_hand" in b["matches"][0]
    env = truco_env.env(players=3, rules="destantado")
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    for agent in env.agent_iter():
        o, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(o["action_mask"]))))
    (tmp_path / "r.json").write_text(json.dumps(env.unwrapped.record()))
    out, n = bluff.analyse_records([str(tmp_path / "r.json")])
    assert n == 1 and set(out["agents"]) == {"player_0", "player_1", "player_2"}


def test_evaluate_bluff_plays_a_checkpoint_in_its_game(pata_checkpoint, tmp_path):
    out = _evaluate("bluff", pata_checkpoint, "--vs", "heuristic", "--matches", "2",
                    "--workers", "1", "--no-progress", "--out", str(tmp_path / "b"))
    assert out.returncode == 0, out.stderr[-3000:]
    assert "3 players, pata_de_gallo, match to 15" in out.stdout
    assert "| 2 x heuristic | 6 |" in out.stdout
    bad = _evaluate("bluff", pata_checkpoint, "--vs", "random", "--rules", "argentino",
                    "--matches", "1", "--no-progress")
    assert bad.returncode == 2 and "was trained for rules='pata_de_gallo'" in bad.stderr
    with pytest.raises(GameMismatchError, match="different games"):
        resolve_game([pata_checkpoint, "pretrained:default"])
    with pytest.raises(GameMismatchError, match="mode 'destantado'.*mode 'pata_de_gallo'"):
        resolve_game([pata_checkpoint], {"rules": "destantado"})     # another three-player game
    assert resolve_game([pata_checkpoint], {"rules": "destantado"}, any_game=True).players == 3
    assert resolve_game([pata_checkpoint]) == GameConfig(players=3, rules="pata_de_gallo",
                                                         target=15, flor=False, pica_pica=None)


def test_probe_the_gallo_and_the_pair(pata_checkpoint):
    # The gallo (the seat before the mano) holds four cards: his discard is probed.
    sit = probe.ProbeSituation(hand=["1e", "7o", "3b", "4c"], players=3, rules="pata_de_gallo",
                               mano=1)
    r = probe.probe(load_agent("heuristic", 0), sit, samples=50)
    assert r["seat"] == 0 and r["view"]["gallo"] == 0
    assert {truco_env.ACTIONS[a] for a in np.flatnonzero(r["mask"])} == \
        {f"discard_{k}" for k in range(4)}
    assert r["probs"][truco_env.ACTIONS.index("discard_3")] == 1.0     # drops the 4c
    # A player of the pair after the gallo's discard, the score from his seat on.
    sit = probe.ProbeSituation(hand=["1e", "7o", "3b"], players=3, rules="pata_de_gallo",
                               mano=1, actions=["discard_0"], score=(3, 5, 7))
    e, seat = probe.setup_probe(sit)
    assert seat == 1 and e.unwrapped.view("player_1")["score"] == [7, 3, 5]
    with pytest.raises(ValueError, match="the gallo, player_2, holds four cards"):
        probe.setup_probe(probe.ProbeSituation(hand=["1e", "7o", "3b"], players=3,
                                               rules="pata_de_gallo"))
    with pytest.raises(ValueError, match="bad score"):
        probe.setup_probe(probe.ProbeSituation(hand=["1e", "7o", "3b"], players=3,
                                               rules="destantado", score=(3, 5)))
    # evaluate.py probes a checkpoint in its game (3 players, pata de gallo, to 15)
    out = _evaluate("probe", pata_checkpoint, "--hand", "1e 7o 3b 4c", "--mano", "1")
    assert out.returncode == 0, out.stderr[-3000:]
    assert "(each to 15)" in out.stdout and "discard_3" in out.stdout
    out = _evaluate("probe", "heuristic", "--hand", "1e 7o 3b", "--rules", "destantado",
                    "--score", "5,3")
    assert out.returncode == 2 and "expected MINE,NEXT,AFTER" in out.stderr


def test_exploit_in_a_three_player_mode(tmp_path):
    out = tmp_path / "x"
    p = _evaluate("exploit", "random", "--rules", "destantado", "--budget", "3s",
                  "--eval-matches", "3", "--eval-every", "1", "--eval-games", "6",
                  "--num-envs", "16", "--num-steps", "8", "--workers", "1", "--out", str(out),
                  "--no-progress")
    assert p.returncode == 0, p.stderr[-3000:]
    data = json.loads((out / "results.json").read_text())
    assert data["even"] == pytest.approx(1 / 3) and data["config"]["players"] == 3
    assert 0 <= data["win_lo"] <= data["best_response_win_rate"] <= data["win_hi"] <= 1
    assert data["best_response_net_points_per_hand"] is None
    report = (out / "report.md").read_text()
    assert "two copies of it" in report and "even share of 1/3" in report


@pytest.mark.parametrize("version", [5, 6])
def test_widen_inputs_carries_a_network_that_skips_pieces(version):
    """A network that reads the live columns only (``PolicyNet(skip=...)``, what train.py
    builds) keeps each old live column's weights; the added live pieces get zero columns."""
    torch = pytest.importorskip("torch")
    from agents.ppo_policy import PolicyNet, net_from_checkpoint
    from agents.pretrained import widen_inputs
    from truco_env.observe import ADDED_PIECES, Encoder, legacy_columns, live_columns
    skip = ("muestra", "pica_pica", "senas")
    added = [n for v, names in ADDED_PIECES.items() if v > version for n in names]
    cols = legacy_columns("compact", version)          # the old layout's columns, in the new
    new_live = live_columns("compact", skip)
    old_live = new_live[np.isin(new_live, cols)]       # its live columns, in the new layout
    torch.manual_seed(1)
    old_net = torch.nn.Linear(len(old_live), 32)
    ref = PolicyNet(Encoder("compact").size, len(truco_env.ACTIONS), (32, 16), skip=skip)
    model = {k: v.clone() for k, v in ref.state_dict().items()}
    model["trunk.0.weight"] = old_net.weight.detach().clone()
    model["trunk.0.bias"] = old_net.bias.detach().clone()
    ckpt = {"model": model, "obs_size": len(cols), "num_actions": len(truco_env.ACTIONS),
            "hidden": [32, 16], "skip": list(skip), "layout_version": version,
            "game": {"observation": "compact"}}
    wide = widen_inputs(ckpt, "old")
    net = net_from_checkpoint(wide)
    w = net.trunk[0].weight.detach()
    keep = np.isin(new_live, cols)
    assert torch.equal(w[:, torch.as_tensor(keep)], old_net.weight.detach())
    assert not w[:, torch.as_tensor(~keep)].any() and (~keep).sum() == sum(
        Encoder("compact").offsets[n][1] for n in added if n not in skip)
    obs, mask = _team_observations("compact", 50)
    x = torch.as_tensor(obs)
    with torch.no_grad():
        torch.testing.assert_close(net.trunk[0](x[:, torch.as_tensor(new_live)]),
                                   old_net(x[:, torch.as_tensor(old_live)]),
                                   rtol=0.0, atol=1e-6)
    bad = {**ckpt, "model": {**model, "trunk.0.weight": torch.zeros(32, len(old_live) + 1)}}
    from agents.pretrained import MigrationError
    with pytest.raises(MigrationError, match="first layer reads"):
        widen_inputs(bad, "old")


def test_migrate_a_run_checkpoint_to_play(tmp_path):
    """``python -m agents.pretrained migrate --checkpoint PATH --out FILE``: the run's policy
    and config (not its training state) at this layout; the source is kept."""
    torch = pytest.importorskip("torch")
    from agents.ppo_policy import load_checkpoint
    from agents.pretrained import main
    from truco_env.observe import LAYOUT_VERSION
    _, ckpt = _old_checkpoint(5)
    src = tmp_path / "old.pt"
    torch.save({**ckpt, "format": "truco_env.ppo/1", "config": {"envido": "adaptive"},
                "optimizer": {"state": {}}, "pool": []}, src)
    before = src.read_bytes()
    out = tmp_path / "new.pt"
    assert main(["migrate", "--checkpoint", str(src), "--out", str(out)]) == 0
    got = load_checkpoint(out)
    assert got["layout_version"] == LAYOUT_VERSION and got["migrated_from_layout"] == 5
    assert got["config"] == {"envido": "adaptive"} and "optimizer" not in got and "pool" not in got
    assert src.read_bytes() == before
    with pytest.raises(SystemExit):
        main(["migrate", "--checkpoint", str(src)])        # no --out
    with pytest.raises(SystemExit):
        main(["migrate", "default", "--checkpoint", str(src), "--out", str(out)])
