"""``Agent.act_many``: several agents' rows of one batch in one call.  The heuristic family's
vectorized pass gives every agent exactly the actions, and draws exactly the random numbers,
of its own ``act_batch`` on its rows; the default does so for any agent; the training worker
plays its opponents through it."""
from __future__ import annotations

import copy

import numpy as np
import pytest

import agents
from agents import Agent, HeuristicAgent, RandomAgent
from truco_env import VectorTrucoEnv
from truco_env import core

#: Styles that draw at every site: random cards and raise bluffs (bluff_raiser), envido
#: bluffs (maniac), false señas (the liar), the card modes low (trapper) and high (card_dumper).
SPECS = ["heuristic", "heuristic:style=bluff_raiser", "heuristic:style=maniac",
         "heuristic:liar=0.3", "heuristic:style=trapper", "heuristic:style=card_dumper",
         "heuristic:style=envido_hunter,liar=0.5,cards=0.5"]
GAMES = {"1v1": dict(players=2), "2v2_flor": dict(players=4, flor=True),
         "uruguayo": dict(players=2, rules="uruguayo"),
         "2v2_senas": dict(players=4, senas="traditional"),
         "2v2_uruguayo_senas": dict(players=4, rules="uruguayo", senas="traditional")}


def _states(seed: int = 0, **game) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of 64 games, every move a bluffing, lying heuristic's or (three
    times in ten) a random one, so that weak hands meet trucos and envidos too."""
    venv = VectorTrucoEnv(64, seed=seed, **game)
    obs, _ = venv.reset()
    drivers = [HeuristicAgent(seed=seed, bluff=0.3, liar=0.2), RandomAgent(seed=seed)]
    rng = np.random.default_rng(seed)
    seen = []
    for t in range(60):
        if t % 3 == 0:
            seen.append((obs["observation"].copy(), obs["action_mask"].copy()))
        rand = rng.random(64) < 0.3
        parts = list(zip(drivers, (np.flatnonzero(~rand), np.flatnonzero(rand))))
        obs, *_ = venv.step(Agent.act_many(parts, obs["observation"], obs["action_mask"]))
    return tuple(np.concatenate(x) for x in zip(*seen))


@pytest.fixture(scope="module", params=sorted(GAMES))
def states(request):
    return _states(**GAMES[request.param])


def _split(rng: np.random.Generator, n: int, k: int) -> list[np.ndarray]:
    """``k`` disjoint, interleaved row sets in random order, some rows in none."""
    who = rng.integers(-1, k, n)
    return [rng.permutation(np.flatnonzero(who == i)) for i in range(k)]


def _check(cls, bots: list[Agent], parts_rows: list[np.ndarray], obs, mask) -> np.ndarray:
    """``cls.act_many`` equals each agent's ``act_batch`` on a copy of itself, and leaves
    every random stream where that copy's is."""
    twins = copy.deepcopy(bots)
    out = cls.act_many(list(zip(bots, parts_rows)), obs, mask)
    assert out.dtype == np.int64 and out.shape == (len(obs),)
    for bot, twin, idx in zip(bots, twins, parts_rows):
        assert np.array_equal(out[idx], twin.act_batch(obs[idx], mask[idx])), bot
        assert bot.rng.bit_generator.state == twin.rng.bit_generator.state, bot
    return out


def test_heuristic_act_many_is_each_agents_act_batch(states):
    obs, mask = states
    bots = [agents.load(s, seed=10 + i) for i, s in enumerate(SPECS)]
    rng = np.random.default_rng(1)
    for _ in range(3):          # the streams go on as they would
        rows = _split(rng, len(obs), len(bots))
        out = _check(HeuristicAgent, bots, rows, obs, mask)
        covered = np.concatenate(rows)
        assert mask[covered, out[covered]].all()
    # one part, two parts, a part of every row
    _check(HeuristicAgent, bots[1:2], [np.arange(len(obs))], obs, mask)
    _check(HeuristicAgent, bots[2:4], _split(rng, len(obs), 2), obs, mask)


def test_the_liar_draws_only_where_its_rows_can_make_a_sena():
    obs, mask = _states(**GAMES["2v2_senas"])
    can = mask[:, core.A_SENA0].astype(bool)
    assert can.any() and (~can).any()
    liar, other = agents.load("heuristic:liar=0.3", seed=1), agents.load("heuristic:liar=0.6",
                                                                        seed=2)
    before = copy.deepcopy(liar.rng.bit_generator.state)
    _check(HeuristicAgent, [liar, other], [np.flatnonzero(~can), np.flatnonzero(can)], obs, mask)
    # its rows could make no seña: only the bluff site drew (one number a row)
    twin = np.random.default_rng()
    twin.bit_generator.state = before
    twin.random(int((~can).sum()))
    assert liar.rng.bit_generator.state == twin.bit_generator.state


def test_act_batch_is_act_many_of_one_part(states):
    obs, mask = states
    a, b = (agents.load("heuristic:style=bluff_raiser", seed=3) for _ in range(2))
    assert np.array_equal(a.act_batch(obs, mask),
                          HeuristicAgent.act_many([(b, np.arange(len(obs)))], obs, mask))
    assert a.rng.bit_generator.state == b.rng.bit_generator.state
    assert not HeuristicAgent.act_many([], obs, mask).any()


def test_the_default_act_many_serves_random_agents(states):
    obs, mask = states
    bots = [RandomAgent(seed=i) for i in range(3)]
    rows = _split(np.random.default_rng(2), len(obs), 3)
    out = _check(Agent, bots, rows, obs, mask)
    assert not out[np.setdiff1d(np.arange(len(obs)), np.concatenate(rows))].any()


def test_subclasses_and_other_classes_are_not_merged(states):
    """A subclass keeps its own ``act_batch``; a part of another class makes the heuristic's
    ``act_many`` fall back to the default."""
    obs, mask = states

    class FirstLegal(HeuristicAgent):
        def act_batch(self, obs, mask):
            self.rng.random(len(obs))
            return np.asarray(mask).argmax(axis=1)

    rows = _split(np.random.default_rng(3), len(obs), 3)
    out = _check(FirstLegal, [FirstLegal(seed=1), FirstLegal(seed=2)], rows[:2], obs, mask)
    assert np.array_equal(out[rows[0]], mask[rows[0]].argmax(axis=1))
    _check(HeuristicAgent, [HeuristicAgent(seed=1), FirstLegal(seed=2), RandomAgent(seed=3)],
           rows, obs, mask)
    bot = HeuristicAgent(seed=1)
    with pytest.raises(ValueError, match="more than one part"):
        HeuristicAgent.act_many([(bot, rows[0]), (bot, rows[1])], obs, mask)


# ---------------------------------------------------------------------- the training worker
def _rollouts(monkeypatch, reference: bool) -> tuple[list, list]:
    """Two rollouts of a small seeded worker, with the heuristic family merged or (the
    reference) one ``act_batch`` per opponent; the batches and every ``act_many`` call's
    part count."""
    torch = pytest.importorskip("torch")
    from training.config import make_config
    from training.pool import Pool
    from training.worker import RolloutWorker

    calls: list[int] = []
    merged = HeuristicAgent.act_many.__func__
    base = Agent.act_many.__func__

    def spy(cls, parts, obs, mask):
        calls.append(len(parts))
        return (base if reference else merged)(cls, parts, obs, mask)

    monkeypatch.setattr(HeuristicAgent, "act_many", classmethod(spy))
    cfg = make_config({"num_envs": 64, "num_steps": 8, "hidden": [32], "winprob_reward": 0.0,
                       "heuristic_weight": 0.35, "styles_weight": 0.25, "random_weight": 0.1,
                       "exploiter_weight": 0.2, "seed": 4})
    worker = RolloutWorker(cfg, cfg.num_envs)
    torch.manual_seed(0)
    worker.set_models(worker.make_net(), None, worker.make_net())
    sync = {"pool": Pool(cfg, {}, np.random.default_rng(0)).sync_message(set()),
            "exploiter_born": 0}
    batches = []
    for _ in range(2):
        r = worker.rollout(sync)
        batches.append((r.batch.data, r.x_batch.data, r.match_len))
    return batches, calls


def test_the_worker_plays_the_heuristic_family_in_one_call_a_step(monkeypatch):
    got, calls = _rollouts(monkeypatch, reference=False)
    want, ref_calls = _rollouts(monkeypatch, reference=True)
    assert calls == ref_calls and len(calls) <= 2 * 8 and max(calls) > 1
    for (data, x_data, lens), (data_ref, x_ref, lens_ref) in zip(got, want):
        assert lens == lens_ref
        for d, r in ((data, data_ref), (x_data, x_ref)):
            assert d.keys() == r.keys()
            for k in d:
                assert np.array_equal(np.asarray(d[k]), np.asarray(r[k])), k
