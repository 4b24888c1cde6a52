"""The learning machinery of train.py, on cases with known answers: per-seat credit and GAE
across a rollout boundary and an auto-reset, the shaping telescoping per match, the pool's
sampling frequencies and its population, a resume after ``kill -9`` that continues exactly as
the uninterrupted run, and the saved policy's inputs (never a hidden card)."""
from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from training.config import ConfigError, make_config  # noqa: E402
from training.pool import Opponent, Pool  # noqa: E402
from training.rollout import SeatBuffer  # noqa: E402
from training.shaping import Shaper  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
G0 = np.array([0])


def add(buf: SeatBuffer, seat: int, value: float) -> int:
    return int(buf.add(G0, np.array([seat]), np.array([value], np.float32),
                       x=np.array([value], np.float32))[0])


def test_credit_and_gae_across_a_rollout_boundary_and_an_auto_reset():
    """A hand-built 1v1 trajectory (gamma 0.5, lambda 1: the returns are discounted sums)."""
    buf = SeatBuffer(1, 2, {"x": ((), np.float32)}, capacity=16)
    gamma = 0.5
    # ---- rollout 1: seat 0, seat 1, seat 0; the hand ends (+1 / -1) after the third decision
    buf.begin()
    t0, t1, t2 = add(buf, 0, 0.1), add(buf, 1, 0.2), add(buf, 0, 0.3)
    buf.reward(np.array([[1.0, -1.0]]))
    idx, adv, ret = buf.finish(gamma, 1.0)
    # Only t0 is complete: its successor t2 is seat 0's next decision (value 0.3), and t2's
    # own advantage is not known yet, so the GAE sum stops there.
    assert idx.tolist() == [t0]
    assert ret[0] == pytest.approx(0.5 * 0.3)
    assert adv[0] == pytest.approx(0.5 * 0.3 - 0.1)
    # ---- rollout 2: t1 and t2 are carried; a reward arrives before seat 0 acts again
    buf.begin()
    assert buf.carried == 2 and buf.data["x"][:2].tolist() == pytest.approx([0.2, 0.3])
    buf.reward(np.array([[0.5, 0.0]]))          # e.g. shaping, reaching seat 0's pending t2
    t3 = add(buf, 1, 0.4)
    t4 = add(buf, 0, 0.5)
    buf.reward(np.array([[2.0, -2.0]]))         # the match ends
    buf.end(G0)
    t5 = add(buf, 1, 0.6)                       # the auto-reset's new match
    idx, adv, ret = buf.finish(gamma, 1.0)
    got = dict(zip(idx.tolist(), ret.tolist()))
    c1, c2 = 0, 1                               # where t1 and t2 went
    assert sorted(got) == [c1, c2, t3, t4] and t5 not in got
    assert got[t4] == pytest.approx(2.0) and got[t3] == pytest.approx(-2.0)   # terminal
    assert got[c2] == pytest.approx(1.0 + 0.5 + gamma * 2.0)   # no reward lost at the cut
    assert got[c1] == pytest.approx(-1.0 + gamma * -2.0)
    # The new match's transition does not link back into the old one.
    assert buf.next[t3] == -1 and buf.next[t4] == -1 and buf.done[t3] and buf.done[t4]
    # lambda < 1 mixes in the successor's value: t2 with lambda 0 is one-step TD.
    idx, adv, ret = buf.finish(gamma, 0.0)
    got = dict(zip(idx.tolist(), ret.tolist()))
    assert got[c2] == pytest.approx(1.5 + gamma * 0.5)


def test_buffer_state_round_trips_the_pending_transitions():
    buf = SeatBuffer(2, 2, {"x": ((), np.float32)}, capacity=8)
    buf.begin()
    buf.add(np.array([0, 1]), np.array([0, 1]), np.array([0.1, 0.2], np.float32),
            x=np.array([1.0, 2.0], np.float32))
    buf.reward(np.array([[0.0, 0.0], [0.0, 3.0]]))
    other = SeatBuffer(2, 2, {"x": ((), np.float32)}, capacity=8)
    other.load_state(buf.state())
    buf.begin()
    other.begin()
    for b in (buf, other):
        assert b.carried == 2
    assert other.reward_[:2].tolist() == buf.reward_[:2].tolist() == [0.0, 3.0]
    assert (other.last == buf.last).all()


def test_shaping_telescopes_to_a_constant_per_match():
    """Potential-based: a team's shaped rewards over a whole match sum to Phi(end) - Phi(start)
    = 0 - Phi(0, 0), whatever happened in the match."""
    from truco_env import VectorTrucoEnv
    cfg = make_config({"winprob_reward": 1.0, "score_reward": 0.0, "target": 15})
    rng = np.random.default_rng(0)
    a = rng.random((15, 15))
    potential = np.tanh(a - a.T)                 # any antisymmetric table: Phi(0, 0) = 0
    venv = VectorTrucoEnv(64, target=15, seed=1)
    shaper = Shaper(cfg, 64, 15, potential)
    obs, info = venv.reset()
    total = np.zeros((64, 2))
    sums = []
    while len(sums) < 100:
        act = (rng.random(obs["action_mask"].shape) + obs["action_mask"]).argmax(1)
        obs, _, dones, info = venv.step(act)
        total += shaper(info["score"], dones)
        for g in np.flatnonzero(dones):
            sums.append(total[g].copy())
            total[g] = 0
    sums = np.array(sums)
    assert np.abs(sums).max() < 1e-9, sums[:5]
    # The shaping is not trivially zero along the way.
    assert np.abs(potential).max() > 0.1


def _pool(**values) -> Pool:
    cfg = make_config({"pool_weight": 0.4, "heuristic_weight": 0.3, "styles_weight": 0.2,
                       "random_weight": 0.1, "self_play_frac": 0.25, "pool_size": 6,
                       "pool_recent": 2, **values})
    baselines = {"heuristic": object(), "random": object()}
    return Pool(cfg, baselines, np.random.default_rng(0), {"s1": object(), "s2": object()})


def test_pool_draws_each_kind_at_its_weight_and_pfsp_prefers_hard_snapshots():
    pool = _pool()
    easy = Opponent("easy", None, "pool", wins=95, games=100)
    hard = Opponent("hard", None, "pool", wins=5, games=100)
    pool.recent = [easy, hard]
    draws = pool.sample(20000)
    kinds = np.array(["self" if d is None else d.kind for d in draws])
    freq = {k: float((kinds == k).mean()) for k in ("self", "pool", "heuristic", "styles",
                                                     "random")}
    expect = {"self": 0.25, "pool": 0.75 * 0.4, "heuristic": 0.75 * 0.3, "styles": 0.75 * 0.2,
              "random": 0.75 * 0.1}
    for k, p in expect.items():
        assert abs(freq[k] - p) < 4 * np.sqrt(p * (1 - p) / 20000), (k, freq[k], p)
    snaps = [d.name for d in draws if d is not None and d.kind == "pool"]
    share_hard = snaps.count("hard") / len(snaps)
    w_hard, w_easy = (1 - 6 / 102) + 1e-3, (1 - 96 / 102) + 1e-3   # (1 - p)^1 + 0.001
    assert share_hard == pytest.approx(w_hard / (w_hard + w_easy), abs=0.02)
    styles = [d.name for d in draws if d is not None and d.kind == "styles"]
    assert abs(styles.count("s1") / len(styles) - 0.5) < 0.03
    # Decay: old results fade towards the prior.
    for _ in range(1000):
        pool.decay()
    assert hard.win_rate == pytest.approx(0.5, abs=0.01)


def test_random_styles_join_the_training_styles_and_are_checked():
    from agents import zoo
    from training.pool import make_styles
    styles = make_styles(make_config({"styles_weight": 0.2, "random_styles": 3, "seed": 5}))
    assert list(styles) == [*zoo.TRAIN_STYLES, *zoo.random_styles(3, 5)]
    assert make_styles(make_config({"styles_weight": 0.0})) == {}
    # A worker samples with its own seed but meets the run's styles.
    from training.worker import RolloutWorker
    cfg = make_config({"styles_weight": 0.2, "random_styles": 2, "seed": 5, "num_envs": 4})
    for slot in (0, 1):
        worker = RolloutWorker(cfg, 4, slot=slot)
        assert sorted(worker.pool.styles) == sorted(make_styles(cfg))
    with pytest.raises(ConfigError, match="random_styles=2"):
        make_config({"styles_weight": 0.0, "random_styles": 2})


def test_the_population_spans_the_whole_run():
    """100 snapshots into a pool of 6 (2 newest + a reservoir of 4): the newest are always
    there, and the reservoir is a uniform sample of the older 98 (Algorithm R)."""
    kept = []
    for seed in range(200):
        pool = _pool()
        pool.rng = np.random.default_rng(seed)
        for i in range(100):
            pool.recent.append(Opponent(f"snapshot_{i + 1}", None, "pool"))
            pool.count += 1
            while len(pool.recent) > 2:
                pool._age(pool.recent.pop(0))
        names = [int(s.name.split("_")[1]) for s in pool.snapshots]
        assert len(names) == 6 and names[-2:] == [99, 100]
        kept.extend(names[:4])
    kept = np.array(kept)
    # Uniform over 1..98: mean 49.5, and every quarter of the run is represented.
    assert abs(kept.mean() - 49.5) < 3
    quarters = np.histogram(kept, bins=[1, 25, 50, 75, 99])[0] / len(kept)
    assert quarters.min() > 0.2, quarters


# ------------------------------------------------------------------ train.py end to end
TINY = {"num_envs": 64, "num_steps": 16, "hidden": [32], "critic_hidden": [32],
        "minibatch_size": 256, "eval_every": 3, "eval_games": 8, "final_eval_games": 0,
        "progress": False, "tensorboard": False, "checkpoint_every": 4, "snapshot_every": 1,
        "pool_size": 3, "pool_recent": 1, "threads": 1, "device": "cpu",
        "styles_weight": 0.2, "total_steps": 12288, "observation": "recall",
        "critic": "privileged", "exploiter_weight": 0.3, "exploiter_reset_every": 3,
        "magnet_coef": 0.2, "magnet_every": 3}


def test_the_magnet_term_is_the_kl_to_the_magnet_over_legal_actions():
    """training.ppo.magnet_divergence: KL(pi || magnet) by hand on two rows with different
    legal actions; zero against itself; its gradient moves the policy toward the magnet."""
    import torch
    from agents.ppo_policy import PolicyNet
    from training.ppo import magnet_divergence
    torch.manual_seed(0)
    net, magnet = PolicyNet(6, 4, (8,)), PolicyNet(6, 4, (8,))
    obs = torch.randn(2, 6)
    mask = torch.tensor([[True, True, False, True], [False, True, True, False]])
    logp = torch.log_softmax(net(obs, mask)[0], 1)
    with torch.no_grad():
        q = torch.softmax(magnet(obs, mask)[0], 1)
    p = logp.exp().detach()
    by_hand = sum(p[r, a] * torch.log(p[r, a] / q[r, a]) for r in range(2) for a in range(4)
                  if mask[r, a]) / 2
    kl = magnet_divergence(logp, magnet, obs, mask)
    assert kl.item() > 0.0 and abs(kl.item() - by_hand.item()) < 1e-5
    assert abs(magnet_divergence(logp, net, obs, mask).item()) < 1e-6
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    for _ in range(50):
        opt.zero_grad()
        magnet_divergence(torch.log_softmax(net(obs, mask)[0], 1), magnet, obs, mask).backward()
        opt.step()
    after = magnet_divergence(torch.log_softmax(net(obs, mask)[0], 1), magnet, obs, mask)
    assert after.item() < 0.2 * kl.item()


def _args(tmp_path: Path, name: str, **values) -> list[str]:
    values = {**TINY, "runs_dir": str(tmp_path), "run_name": name, **values}
    return [sys.executable, "train.py"] + [f"{k}={json.dumps(v)}" for k, v in values.items()]


def _rows(run_dir: Path) -> list[dict]:
    with open(run_dir / "metrics.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_resume_after_kill_9_continues_exactly_as_the_uninterrupted_run(tmp_path):
    """kill -9 between checkpoints, then --resume: the same metrics row for row (losses,
    evaluations, pool), no repeated or missing step, the matches in flight and every random
    stream restored; the checkpoint records what a policy needs."""
    hunt = {"exploiter_hunt": 1}     # hunts at iterations 4, 7 and 10: one is resumed from
    ref = subprocess.run(_args(tmp_path, "ref", **hunt), cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert ref.returncode == 0, ref.stderr
    proc = subprocess.Popen(_args(tmp_path, "cut", **hunt), cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    metrics = tmp_path / "cut" / "metrics.csv"
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        if metrics.exists() and len(metrics.read_text().splitlines()) >= 7:  # 6 rows: past ckpt 4
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.02)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    cut_rows = len(_rows(tmp_path / "cut"))
    assert 5 <= cut_rows < 12
    out = subprocess.run([sys.executable, "train.py", "--resume", str(tmp_path / "cut")],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "resuming" in out.stdout and "iteration 4" in out.stdout
    a, b = _rows(tmp_path / "ref"), _rows(tmp_path / "cut")
    assert [r["global_step"] for r in b] == [r["global_step"] for r in a] == \
        [str(1024 * i) for i in range(1, 13)]
    for ra, rb in zip(a, b):
        for col in ("losses/value_loss", "losses/policy_loss", "losses/approx_kl",
                    "charts/pool_size", "charts/carried", "charts/train_win_rate_pool",
                    "charts/train_win_rate_exploiter", "losses/magnet_kl",
                    "eval/win_rate_heuristic", "eval/win_rate_past"):
            assert ra[col] == rb[col], (ra["iteration"], col, ra[col], rb[col])


def test_a_failed_resume_leaves_the_run_folder_untouched(tmp_path):
    run = subprocess.run(_args(tmp_path, "r", total_steps=2048), cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    folder = tmp_path / "r"
    before = {p: p.read_bytes() for p in (folder / "config.yaml", folder / "metrics.csv")}
    ckpt = folder / "checkpoints" / "latest.pt"
    ckpt.write_bytes(ckpt.read_bytes()[:1000])          # a torn checkpoint
    out = subprocess.run([sys.executable, "train.py", "--resume", str(folder),
                          "total_steps=4096"], cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 2 and "corrupt" in out.stderr, out.stderr
    assert {p: p.read_bytes() for p in before} == before


@pytest.mark.parametrize("game", [{"players": 4}, {"rules": "uruguayo", "target": None}])
def test_training_runs_in_2v2_and_uruguayo(tmp_path, game):
    out = subprocess.run(_args(tmp_path, "g", total_steps=2048, eval_every=1,
                               final_eval_games=8, **game),
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    s = json.loads((tmp_path / "g" / "summary.json").read_text())
    assert s["global_step"] == 2048 and "heuristic" in s["win_rate"]


def test_the_saved_policy_never_sees_a_hidden_card(tmp_path):
    """The checkpoint's policy reads the recall encoder only (the critic's hidden features are
    not among its inputs), and its actions do not change when other hands are swapped."""
    from agents.ppo_policy import PolicyAgent, load_checkpoint
    from truco_env import VectorTrucoEnv
    from truco_env.observe import (HIDDEN_SIZE, LAYOUT_VERSION, RECALL_SIZE, Encoder,
                                   dead_pieces, live_columns)
    from truco_env.rules import get_rules
    run = subprocess.run(_args(tmp_path, "p", total_steps=2048), cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    ckpt = load_checkpoint(tmp_path / "p")
    assert ckpt["obs_size"] == RECALL_SIZE and ckpt["observation"] == "recall"
    assert ckpt["layout_version"] == LAYOUT_VERSION
    # its first layer reads the recall columns a 1v1 game fills (observe.dead_pieces), no more
    assert ckpt["skip"] == list(dead_pieces(get_rules("argentino"), 2))
    assert ckpt["model"]["trunk.0.weight"].shape[1] == len(live_columns("recall", ckpt["skip"]))
    assert ckpt["critic"]["net.0.weight"].shape[1] == Encoder("compact").size + HIDDEN_SIZE
    agent = PolicyAgent.load(tmp_path / "p", greedy=True)
    assert agent.observation == "recall"
    # Swap the other seat's unplayed cards with cards nobody holds: same inputs, same logits.
    venv = VectorTrucoEnv(32, observation="recall", seed=3)
    obs, info = venv.reset()
    from truco_env import core as C
    S = venv.state.copy()
    before = venv.encoder.encode(S, venv.game.tables, S[:, C.ACTOR])
    for g in range(32):
        other = 1 - S[g, C.ACTOR]
        held = set(S[g, C.HAND:C.HAND + 6].tolist())
        free = [c for c in range(40) if c not in held and c != S[g, C.MUESTRA]]
        for k in range(3):
            if S[g, C.PLAYED + 3 * other + k] < 0:
                S[g, C.HAND + 3 * other + k] = free[k]
    after = venv.encoder.encode(S, venv.game.tables, S[:, C.ACTOR])
    assert np.array_equal(before, after)
    with torch.no_grad():
        la, _ = agent.net(torch.from_numpy(before), torch.ones(32, agent.net.num_actions, dtype=torch.bool))
        lb, _ = agent.net(torch.from_numpy(after), torch.ones(32, agent.net.num_actions, dtype=torch.bool))
    assert torch.equal(la, lb)


def test_the_exploiter_learns_from_its_own_seats_and_retires_into_the_pool(tmp_path):
    """exploiter_weight: a second network plays the learner's rivals in some matches, is
    trained on those transitions only (its weights leave the learner's copy), and after
    exploiter_reset_every iterations joins the pool as a snapshot and restarts from the
    learner."""
    from agents.ppo_policy import load_checkpoint
    out = subprocess.run(_args(tmp_path, "x", total_steps=1024 * 5, eval_every=0,
                               exploiter_weight=5.0, exploiter_reset_every=2,
                               checkpoint_every=5, pool_size=8, snapshot_every=100),
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    rows = _rows(tmp_path / "x")
    played = [float(r["charts/train_win_rate_exploiter"]) for r in rows
              if r["charts/train_win_rate_exploiter"] not in ("", "nan")]
    assert played, "no match against the exploiter ended"
    ckpt = load_checkpoint(tmp_path / "x" / "checkpoints" / "latest.pt")
    names = [s["name"] for s in ckpt["pool"]["recent"] + ckpt["pool"]["reservoir"]]
    # Retired at iterations 2 and 4 (snapshot_1 is the learner's first snapshot).
    assert sorted(n for n in names if n.startswith("exploiter_")) == ["exploiter_2",
                                                                      "exploiter_3"]
    x, learner = ckpt["exploiter"], ckpt["model"]
    assert int(x["born"]) == 4
    # Born at iteration 4 as a copy of the learner, trained at iteration 5 on its own seats.
    assert any(not torch.equal(x["model"][k], learner[k]) for k in learner)
    from training.config import ConfigError
    with pytest.raises(ConfigError, match="exploiter_weight=-1"):
        make_config({"exploiter_weight": -1})


def test_an_exploiters_hunt_trains_it_alone_against_a_frozen_learner(tmp_path):
    """exploiter_hunt: in the first exploiter_hunt iterations of every exploiter but the
    first, the learner is not updated (its weights stay those of the iteration before, no
    loss is logged, no snapshot of it is taken) while the exploiter trains; every match the
    pool then draws is against the exploiter."""
    from agents.ppo_policy import load_checkpoint
    out = subprocess.run(_args(tmp_path, "h", total_steps=1024 * 8, eval_every=0,
                               exploiter_weight=1.0, exploiter_reset_every=3, exploiter_hunt=2,
                               checkpoint_every=1, keep_every=1, magnet_coef=0.0),
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    rows = {int(r["iteration"]): r for r in _rows(tmp_path / "h")}
    hunt = {4, 5, 7, 8}       # exploiters born at iterations 3 and 6 (the first, at 0, does not)
    assert {i for i, r in rows.items() if r["losses/policy_loss"] == ""} == hunt
    ck = {i: load_checkpoint(tmp_path / "h" / "checkpoints" / f"step_{1024 * i}.pt")
          for i in range(3, 9)}
    same = lambda a, b: all(torch.equal(a[k], b[k]) for k in a)  # noqa: E731
    assert same(ck[3]["model"], ck[4]["model"]) and same(ck[4]["model"], ck[5]["model"])
    assert not same(ck[5]["model"], ck[6]["model"])              # the learner trains again
    assert not same(ck[4]["exploiter"]["model"], ck[5]["exploiter"]["model"])
    assert int(ck[8]["exploiter"]["born"]) == 6
    # Snapshots (snapshot_every=1): the learner's at 1, 2, 3 and 6, the exploiters' at 3 and 6.
    assert ck[3]["pool"]["count"] == ck[5]["pool"]["count"] == 4
    assert ck[8]["pool"]["count"] == 6

    # exploiter_init=scratch: a new network at every birth, not the learner's copy.
    out = subprocess.run(_args(tmp_path, "s", total_steps=1024 * 4, eval_every=0,
                               exploiter_weight=1.0, exploiter_reset_every=3, exploiter_hunt=1,
                               exploiter_init="scratch", checkpoint_every=1, keep_every=1,
                               magnet_coef=0.0), cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    born = load_checkpoint(tmp_path / "s" / "checkpoints" / f"step_{1024 * 3}.pt")
    assert int(born["exploiter"]["born"]) == 3
    assert all(not torch.equal(born["exploiter"]["model"][k], born["model"][k])
               for k in born["model"] if k.endswith("weight"))

    # hunt_rollouts / hunt_epochs: a hunt iteration is cut into shorter rollouts, each followed
    # by an exploiter update of hunt_epochs (one minibatch each here); other iterations are not.
    out = subprocess.run(_args(tmp_path, "c", total_steps=1024 * 6, eval_every=0,
                               exploiter_weight=1.0, exploiter_reset_every=3, exploiter_hunt=1,
                               hunt_rollouts=4, hunt_epochs=3, update_epochs=2,
                               minibatch_size=10**6, checkpoint_every=1, keep_every=1,
                               magnet_coef=0.0), cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    rows = _rows(tmp_path / "c")
    assert [int(r["global_step"]) for r in rows] == [1024 * i for i in range(1, 7)]

    def adam_steps(run: str, i: int, which: str) -> int:  # gradient steps by iteration i's end
        ck = load_checkpoint(tmp_path / run / "checkpoints" / f"step_{1024 * i}.pt")
        opt = ck["optimizer"] if which == "learner" else ck["exploiter"]["optimizer"]
        return int(max((float(s["step"]) for s in opt["state"].values()), default=0))
    x = [adam_steps("c", i, "exploiter") for i in range(1, 7)]
    learner = [adam_steps("c", i, "learner") for i in range(1, 7)]
    # Iterations 1-3: the first exploiter, two epochs a plain iteration; it retires at 3 (a new
    # network with a new optimizer), which hunts in 4 (four cuts of three epochs each), plays
    # in 5 and retires at 6.
    assert x == [2, 4, 0, 12, 14, 0], x
    assert learner == [2, 4, 6, 6, 8, 10], learner

    # exploiter_init=continue: the first exploiter is new, the next goes on from it (its
    # weights and optimizer), though it is born again (a hunt) and joins the pool.
    out = subprocess.run(_args(tmp_path, "k", total_steps=1024 * 5, eval_every=0,
                               exploiter_weight=1.0, exploiter_reset_every=3, exploiter_hunt=1,
                               exploiter_init="continue", update_epochs=2, minibatch_size=10**6,
                               pool_size=8, checkpoint_every=1, keep_every=1, magnet_coef=0.0),
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    ck = {i: load_checkpoint(tmp_path / "k" / "checkpoints" / f"step_{1024 * i}.pt")
          for i in range(1, 6)}
    assert [int(ck[i]["exploiter"]["born"]) for i in range(1, 6)] == [0, 0, 3, 3, 3]
    assert all(not torch.equal(ck[1]["exploiter"]["model"][k], ck[1]["model"][k])
               for k in ck[1]["model"] if k.endswith("weight"))
    assert [adam_steps("k", i, "exploiter") for i in range(1, 6)] == [2, 4, 6, 8, 10]
    retired = [x for x in ck[3]["pool"]["recent"] + ck[3]["pool"]["reservoir"]
               if x["name"].startswith("exploiter")]
    assert len(retired) == 1 and all(torch.equal(retired[0]["model"][k],
                                                 ck[3]["exploiter"]["model"][k])
                                     for k in retired[0]["model"])

    from training.config import ConfigError
    from training.pool import Pool
    for bad, match in (({"hunt_rollouts": 5}, "hunt_rollouts=5: expected a divisor of "
                        "num_steps=32"), ({"hunt_epochs": 0}, "hunt_epochs=0")):
        with pytest.raises(ConfigError, match=match):
            make_config(bad)
    cfg = make_config({"exploiter_weight": 1.0, "exploiter_hunt": 2})
    pool = Pool(cfg, {"heuristic": object(), "random": object()}, np.random.default_rng(0))
    pool.exploiter = Opponent("exploiter", None, "exploiter")
    pool.hunting = True
    assert all(o is pool.exploiter for o in pool.sample(50))
    pool.hunting = False
    assert any(o is not pool.exploiter for o in pool.sample(50))
    with pytest.raises(ConfigError, match="exploiter_hunt=400"):
        make_config({"exploiter_weight": 1.0, "exploiter_hunt": 400})
    with pytest.raises(ConfigError, match="exploiter_hunt=5: a hunt needs an exploiter"):
        make_config({"exploiter_hunt": 5})


def test_init_starts_from_a_trained_network_and_a_fixed_magnet_stays_it(tmp_path):
    """init=pretrained:NAME loads the shipped network into the learner; magnet=init keeps the
    magnet that network through the run while the learner moves (a restricted Nash
    response); a network of other widths is a named error, and so are the bad combinations."""
    import torch
    from agents.pretrained import load_net
    out = subprocess.run(_args(tmp_path, "rnr", hidden=[256, 128], observation="compact",
                               total_steps=4096, init="pretrained:robust", magnet="init",
                               magnet_coef=0.5),
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    ckpt = torch.load(tmp_path / "rnr" / "checkpoints" / "latest.pt", weights_only=False)
    robust = load_net("robust")[0].state_dict()
    assert all(torch.equal(ckpt["magnet"][k].float(), robust[k]) for k in robust)
    moved = max((ckpt["model"][k].float() - robust[k]).abs().max().item() for k in robust)
    assert 0 < moved < 0.5          # trained from robust's weights, not from scratch
    bad = subprocess.run(_args(tmp_path, "bad", hidden=[64], observation="compact",
                               init="pretrained:robust"),
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert bad.returncode != 0 and "hidden=(256, 128)" in bad.stderr, bad.stderr
    with pytest.raises(ConfigError, match="magnet='init'"):
        make_config({"magnet": "init", "magnet_coef": 0.5})
    with pytest.raises(ConfigError, match="init='robust'"):
        make_config({"init": "robust"})
