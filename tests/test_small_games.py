"""Small games (issue 14): the deck and calls knobs, one-hand episodes at 0-0, the config."""
import numpy as np
import pytest

import truco_env
from truco_env import core as C
from truco_env.game import Matches
from truco_env.rules import get_rules

DECK7 = "1e 7e 3e 12e 1b 3b 12b"


def test_deck_knob_deals_only_its_cards():
    rules = get_rules("argentino", deck=DECK7)
    assert rules.deck == ("1e", "3e", "7e", "12e", "1b", "3b", "12b")
    m = Matches(64, 2, rules, episode="deal")
    m.reset(seed=3)
    dealt = m.S[:, C.HAND:C.HAND + 6]
    assert set(dealt.ravel()) <= set(rules.deck_ids)
    assert all(len(set(row)) == 6 for row in dealt)
    with pytest.raises(ValueError, match="not in the deck"):
        m.reset(hands=[["1e", "7e", "3e"], ["12e", "1b", "4c"]])
    with pytest.raises(ValueError, match="a card is repeated"):
        get_rules("argentino", deck="1e 1e 7e 3e 12e 1b 3b")
    with pytest.raises(ValueError, match="a deal needs 12 cards"):
        Matches(1, 4, rules)


def test_calls_knob_filters_the_mask_and_keeps_answers():
    env = truco_env.env(calls="envido truco", deck=DECK7)
    env.reset(seed=1)
    allowed = {"play_0", "play_1", "play_2", "envido", "truco", "quiero", "no_quiero"}
    rng = np.random.default_rng(0)
    for _ in range(40):
        if all(env.terminations.values()):
            env.reset(seed=int(rng.integers(1 << 30)))
        mask = env.action_mask(env.agent_selection)
        legal = [truco_env.ACTIONS[a] for a in np.flatnonzero(mask)]
        assert legal and set(legal) <= allowed
        env.step(int(rng.choice(np.flatnonzero(mask))))
    with pytest.raises(ValueError, match="calls"):
        get_rules("argentino", calls="envido bluff")
    # flor must be sung where it is played: the knob keeps it
    assert "flor" in get_rules("argentino", flor=True, calls="truco").calls


def test_deal_episodes_start_every_hand_at_zero():
    m = Matches(8, 2, get_rules("argentino", deck=DECK7), episode="deal")
    m.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(200):
        mask = m.legal_mask()
        acts = np.array([rng.choice(np.flatnonzero(r)) for r in mask])
        res = m.step(acts)
        if res.done.any():
            ended += int(res.done.sum())
            m.restart(np.flatnonzero(res.done))
            assert (m.S[:, C.SCORE:C.SCORE + 2][res.done] == 0).all()
            assert (m.S[res.done, C.HAND_NO] == 1).all()
    assert ended > 8


def test_small_truco_config_loads():
    from training.config import make_config, read_yaml
    cfg = make_config(read_yaml("configs/small_truco.yaml"))
    assert cfg.episode == "deal" and cfg.calls == "envido truco"
    from training.config import ConfigError
    with pytest.raises(ConfigError, match="episode"):
        make_config({**read_yaml("configs/small_truco.yaml"), "eval_every": 5})
