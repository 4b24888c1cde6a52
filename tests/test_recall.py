"""The recall encoder (issue 11): who played which card in which baza and the hand's calls, in
order, without a leak; the privileged features of ``encode_hidden`` (which do show every hand,
on purpose); ``encoder_for_size``."""
import numpy as np
import pytest

import truco_env
from truco_env import VectorTrucoEnv
from truco_env import core as C
from truco_env.cards import parse_card
from truco_env.observe import (CALL_ACTIONS, CALL_SIZE, CALLS_MAX, COMPACT_SIZE, HIDDEN_SIZE,
                               INFOSTATE_SIZE, KINDS, LAYOUT_VERSION, POINTS_SCALE, RECALL_SIZE,
                               Encoder, encode_hidden, encoder_for_size)
from truco_env.rules import ACTIONS, get_rules

from helpers_rules import make, run

REC = Encoder("recall")


def random_actions(rng, mask):
    return (rng.random(mask.shape) + mask).argmax(axis=1)


def recall_views(env, seat):
    return REC.views(env.observe(f"player_{seat}")["observation"])


# ---------------------------------------------------------------------- layout
def test_layout_sizes_and_views():
    assert REC.size == RECALL_SIZE == COMPACT_SIZE + 3 * 6 * 40 + CALLS_MAX * CALL_SIZE
    assert CALL_SIZE == 6 + len(CALL_ACTIONS) + 3 and CALL_ACTIONS == ACTIONS[3:16]  # not the discards
    assert [n for n, _, _ in REC.pieces[:len(Encoder("compact").pieces)]] == \
        [n for n, _, _ in Encoder("compact").pieces], "recall starts with the compact pieces"
    v = REC.views(np.zeros((5, 2, RECALL_SIZE), np.float32))
    assert v["bazas"].shape == (5, 2, 3, 6, 40)
    assert v["calls"].shape == (5, 2, CALLS_MAX, CALL_SIZE)
    assert v["calls.seat"].shape == (5, 2, CALLS_MAX, 6)
    assert v["calls.action"].shape == (5, 2, CALLS_MAX, len(CALL_ACTIONS))
    assert v["calls.baza"].shape == (5, 2, CALLS_MAX, 3)
    obs = np.zeros(RECALL_SIZE, np.float32)
    REC.views(obs)["calls.baza"][1, 2] = 1.0            # views, not copies
    assert obs[REC.offsets["calls"][0] + CALL_SIZE + 6 + len(CALL_ACTIONS) + 2] == 1.0
    assert isinstance(LAYOUT_VERSION, int) and LAYOUT_VERSION >= 2
    with pytest.raises(ValueError, match="recall"):
        Encoder("full")


@pytest.mark.parametrize("cfg", [dict(players=2), dict(players=4, flor=True),
                                 dict(players=6, rules="uruguayo")],
                         ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
def test_recall_is_compact_plus_bazas_and_calls(cfg):
    """The compact part is the compact encoder's output; bazas hold every card on the table."""
    venv = VectorTrucoEnv(64, observation="recall", seed=1, **cfg)
    compact = Encoder("compact")
    obs, info = venv.reset()
    rng = np.random.default_rng(1)
    P = venv.players
    checked = 0
    for _ in range(150):
        S = venv.state
        for seats in (S[:, C.ACTOR], rng.integers(0, P, len(S))):
            rec = REC.encode(S, venv.game.tables, seats)
            assert np.array_equal(rec[:, :COMPACT_SIZE], compact.encode(S, venv.game.tables, seats))
            v = REC.views(rec)
            # Every card on the table is in bazas once, at its baza and relative seat.
            for g in range(len(S)):
                want = np.zeros((3, 6, 40), np.float32)
                for b in range(3):
                    for p in range(P):
                        c = S[g, C.BAZA_CARD + b * C.P_MAX + p]
                        if c >= 0:
                            want[b, (p - seats[g]) % P, c] = 1.0
                assert np.array_equal(v["bazas"][g], want)
                checked += 1
        obs, _, _, info = venv.step(random_actions(rng, obs["action_mask"]))
    assert np.array_equal(obs["observation"], REC.encode(venv.state, venv.game.tables,
                                                         info["actor"]))
    assert checked > 1000


# ---------------------------------------------------------------------- no leak
@pytest.mark.parametrize("players", [2, 4, 6])
def test_recall_and_hidden_swapping_hidden_cards(players):
    """Swap the other players' unplayed cards and private points: the observer's recall
    observation stays the same, and its hidden features change (they show every hand)."""
    venv = VectorTrucoEnv(256, players=players, observation="recall", flor=True, seed=7)
    obs, info = venv.reset()
    rng = np.random.default_rng(7)
    compared = changed = 0
    for step in range(12):
        S = venv.state
        tables = venv.game.tables
        for observer in range(players):
            seats = np.full(len(S), observer, np.int32)
            before = REC.encode(S, tables, seats)
            hid_before = encode_hidden(S, tables, seats)
            saved = S.copy()
            for g in range(len(S)):
                used = set(int(c) for c in S[g, C.HAND:C.HAND + 3 * players])
                unused = [c for c in range(40) if c not in used]
                rng.shuffle(unused)
                for p in range(players):
                    if p == observer:
                        continue
                    for k in range(3):
                        if S[g, C.PLAYED + 3 * p + k] < 0:
                            S[g, C.HAND + 3 * p + k] = unused.pop()
                            S[g, C.HRANK + 3 * p + k] = rng.integers(0, 14)
                    S[g, C.ENVIDO_PTS + p] = rng.integers(0, 34)
                    if S[g, C.SUNG + p] == 0 and S[g, C.PUBLIC + p] < 0:
                        S[g, C.FLOR_PTS + p] = -1 if rng.random() < .5 else rng.integers(20, 39)
            after = REC.encode(S, tables, seats)
            assert np.array_equal(before, after), "the recall encoder shows a hidden card"
            hid_after = encode_hidden(S, tables, seats)
            # Rows where some other seat still held a card: the hidden features saw the swap.
            unplayed = (S[:, C.PLAYED:C.PLAYED + 3 * players] < 0).reshape(-1, players, 3)
            others = np.delete(unplayed, observer, axis=1).any(axis=(1, 2))
            diff = (hid_before != hid_after).any(axis=1)
            assert diff[others].all(), "encode_hidden must show the others' unplayed cards"
            # The observer's own part never changes.
            assert np.array_equal(hid_before[:, :40], hid_after[:, :40])
            compared += len(S)
            changed += int(diff.sum())
            S[:] = saved
        obs, _, _, info = venv.step(random_actions(rng, obs["action_mask"]))
    assert compared == 12 * 256 * players and changed > compared // 2


# ---------------------------------------------------------------------- bazas
def check_bazas(env, plays, players):
    """Every seat's ``bazas`` holds exactly ``plays`` [(seat, card, baza)] at its relative
    seat."""
    for observer in range(players):
        bazas = recall_views(env, observer)["bazas"]
        want = np.zeros((3, 6, 40), np.float32)
        for seat, card, b in plays:
            want[b, (seat - observer) % players, parse_card(card)] = 1.0
        assert np.array_equal(bazas, want), (observer, plays)


def play_script(env, script, players):
    """Steps "<seat> <card> <baza>"; after each, check every seat's bazas."""
    plays = []
    check_bazas(env, plays, players)
    for step in script:
        seat, card, b = step.split()
        run(env, f"{seat} {card}")
        plays.append((int(seat), card, int(b)))
        check_bazas(env, plays, players)
    return plays


def test_bazas_attribute_cards_1v1():
    env = make(players=2, hands=[["1e", "4c", "5c"], ["7o", "6b", "4b"]], mano=0,
               observation="recall")
    plays = play_script(env, [
        "0 4c 0", "1 7o 0",          # 7o wins: seat 1 leads the second baza
        "1 4b 1", "0 1e 1",          # 1e wins: seat 0 leads the third
        "0 5c 2", "1 6b 2",          # 6b wins the hand for seat 1
    ], 2)
    assert env.terminations["player_0"], "three bazas ended the hand"
    v0, v1 = recall_views(env, 0), recall_views(env, 1)
    # From seat 1's point of view seat 0 is relative seat 1, and the other way round.
    assert v0["bazas"][1, 0, parse_card("1e")] == 1 and v1["bazas"][1, 1, parse_card("1e")] == 1
    assert v0["bazas"][0, 1, parse_card("7o")] == 1 and v1["bazas"][0, 0, parse_card("7o")] == 1
    assert len(plays) == 6 and v0["bazas"].sum() == v1["bazas"].sum() == 6


def test_bazas_attribute_cards_2v2():
    env = make(players=4, hands=[["1e", "4c", "5c"], ["7o", "6b", "4b"], ["3c", "12o", "5b"],
                                 ["2o", "11c", "6c"]], mano=1, observation="recall")
    play_script(env, [
        "1 4b 0", "2 3c 0", "3 2o 0", "0 4c 0",      # 3c: seat 2 leads the second baza
        "2 5b 1", "3 11c 1", "0 5c 1", "1 6b 1",     # 11c: seat 3 leads the third
        "3 6c 2", "0 1e 2", "1 7o 2", "2 12o 2",     # 1e: team 0 wins the hand
    ], 4)
    assert env.terminations["player_0"]
    v = recall_views(env, 1)
    assert v["bazas"][1, 2, parse_card("11c")] == 1, "seat 3 is two seats after seat 1"
    assert v["bazas"][2, 3, parse_card("1e")] == 1, "seat 0 is three seats after seat 1"


# ---------------------------------------------------------------------- calls
def decode_calls(v, players):
    """[(relative seat, action name, baza)] of a recall observation's calls, checking that
    each entry is three one-hots and that entries stop at the first empty one."""
    out, ended = [], False
    for i in range(CALLS_MAX):
        seat, act, baza = v["calls.seat"][i], v["calls.action"][i], v["calls.baza"][i]
        if not v["calls"][i].any():
            ended = True
            continue
        assert not ended, "a call after an empty entry"
        for part, n in ((seat, players), (act, len(CALL_ACTIONS)), (baza, 3)):
            assert part.sum() == 1 and part.max() == 1 and np.flatnonzero(part)[0] < n
        assert not seat[players:].any()
        out.append((int(np.flatnonzero(seat)[0]), CALL_ACTIONS[int(np.flatnonzero(act)[0])],
                    int(np.flatnonzero(baza)[0])))
    return out


def check_calls(env, calls, players):
    for observer in range(players):
        want = [((s - observer) % players, a, b) for s, a, b in calls]
        assert decode_calls(recall_views(env, observer), players) == want, observer


def test_calls_in_order_with_seat_and_baza():
    env = make(players=4, hands=[["1e", "4c", "5c"], ["7o", "6b", "4b"], ["3c", "12o", "5b"],
                                 ["2o", "11c", "6c"]], mano=0, observation="recall")
    calls = []

    def say(seat, action, baza):
        run(env, f"{seat} {action}")
        calls.append((seat, action, baza))
        check_calls(env, calls, 4)

    check_calls(env, calls, 4)
    say(0, "truco", 0)
    say(1, "envido", 0)             # el envido va primero: the truco's answerer
    say(2, "quiero", 0)             # the envido is answered, then the truco
    say(1, "quiero", 0)
    run(env, "0 4c", "1 4b", "2 5b", "3 2o")     # 2o: seat 3 leads the second baza
    check_calls(env, calls, 4)
    say(3, "retruco", 1)            # team 1 holds the quiero
    say(0, "quiero", 1)
    run(env, "3 6c")
    say(0, "vale_cuatro", 1)
    say(1, "no_quiero", 1)
    assert env.terminations["player_0"]
    assert len(calls) == 8 and calls[-1] == (1, "no_quiero", 1)
    # Seat 1's first call seen by seat 3: two seats on.
    assert decode_calls(recall_views(env, 3), 4)[1] == (2, "envido", 0)


def test_calls_keep_the_last_calls_max():
    """A hand cannot say more than CALLS_MAX calls; a log that does keeps the last ones."""
    venv = VectorTrucoEnv(1, players=2, observation="recall", seed=0)
    venv.reset()
    S = venv.state
    say = [(i % 2, ACTIONS.index(("truco", "quiero", "envido", "mazo")[i % 4])) for i in
           range(CALLS_MAX + 5)]
    for n in (CALLS_MAX - 1, CALLS_MAX, CALLS_MAX + 1, CALLS_MAX + 5):
        log, want, baza = [], [], 0
        for i, (seat, a) in enumerate(say[:n]):
            if i in (3, 9):                 # two bazas end along the way (with a card each)
                log.append(C.pack_event(C.EV_ACTION, seat, seat, C.A_PLAY0, 5))
                log.append(C.pack_event(C.EV_BAZA, seat, seat, baza, -1))
                baza += 1
            log.append(C.pack_event(C.EV_ACTION, seat, seat, a, -1))
            want.append((seat, ACTIONS[a], baza))
        S[0, C.LOG:C.LOG + len(log)] = log
        S[0, C.LOG_LEN] = len(log)
        for observer in (0, 1):
            got = decode_calls(REC.views(REC.encode(S, venv.game.tables, [observer])[0]), 2)
            assert got == [((s - observer) % 2, a, b) for s, a, b in want[-CALLS_MAX:]]
            assert len(got) == min(n, CALLS_MAX)


def test_calls_max_bounds_random_hands():
    """Random play with flor in 6 seats (the longest hands): never more than CALLS_MAX calls,
    and the calls piece lists them all."""
    venv = VectorTrucoEnv(128, players=6, observation="recall", flor=True, seed=3)
    obs, info = venv.reset()
    rng = np.random.default_rng(3)
    longest = 0
    for _ in range(300):
        obs, _, _, info = venv.step(random_actions(rng, obs["action_mask"]))
        for row in info["final_state"]:
            n = sum(1 for i in range(row[C.LOG_LEN])
                    if C.unpack_event(row[C.LOG + i])[0] == C.EV_ACTION
                    and C.unpack_event(row[C.LOG + i])[3] > C.A_PLAY2)
            longest = max(longest, n)
            calls = REC.views(REC.encode(row[None], venv.game.tables, [0]))["calls"][0]
            assert calls.any(axis=1).sum() == n
    assert 6 <= longest <= CALLS_MAX


# ---------------------------------------------------------------------- hidden
def test_encode_hidden_content():
    hands = [["7c", "6c", "4b"], ["7e", "6e", "5e"], ["1b", "12o", "3c"], ["2o", "11c", "10b"]]
    env = make(players=4, hands=hands, mano=0, flor=True)
    raw = env.unwrapped
    S, tables = raw.game.S, raw.game.tables
    envido = [33, 33, 3, 2]         # 7c 6c: 33; 7e 6e: 33 (with flor 38); 3c; 2o
    flor = [-1, 38, -1, -1]

    def check(played):
        for observer in range(4):
            h = encode_hidden(S, tables, [observer])[0]
            assert h.shape == (HIDDEN_SIZE,) and HIDDEN_SIZE == 6 * 40 + 12
            cards = h[:240].reshape(6, 40)
            for p in range(4):
                r = (p - observer) % 4
                want = np.zeros(40, np.float32)
                for c in hands[p]:
                    if c not in played:
                        want[parse_card(c)] = 1.0
                assert np.array_equal(cards[r], want), (observer, p)
                assert h[240 + r] == pytest.approx(envido[p] / POINTS_SCALE)
                assert h[246 + r] == pytest.approx(max(flor[p], 0) / POINTS_SCALE)
            assert not cards[4:].any() and not h[244:246].any() and not h[250:].any()

    check(set())
    run(env, "0 4b", "1 flor", "1 5e", "2 3c")
    check({"4b", "5e", "3c"})


def test_vector_hidden_defaults_to_the_actor():
    venv = VectorTrucoEnv(16, players=4, observation="recall", seed=2)
    obs, info = venv.reset()
    rng = np.random.default_rng(2)
    for _ in range(5):
        obs, _, _, info = venv.step(random_actions(rng, obs["action_mask"]))
    h = venv.hidden()
    assert h.shape == (16, HIDDEN_SIZE) and h.dtype == np.float32
    assert np.array_equal(h, encode_hidden(venv.state, venv.game.tables, info["actor"]))
    seats = np.arange(16) % 4
    assert np.array_equal(venv.hidden(seats), encode_hidden(venv.state, venv.game.tables, seats))
    assert venv.hidden() is not venv.hidden(), "a fresh array"
    # The actor's own cards (relative seat 0) are the ones its observation shows.
    hand = REC.views(obs["observation"])["hand"].sum(axis=1)
    assert np.array_equal(h[:, :40], hand)


# ---------------------------------------------------------------------- sizes
def test_encoder_for_size():
    assert [encoder_for_size(Encoder(k).size) for k in KINDS] == list(KINDS)
    assert encoder_for_size(INFOSTATE_SIZE) == "infostate"
    with pytest.raises(ValueError) as err:
        encoder_for_size(1234)
    msg = str(err.value)
    assert "1234" in msg and all(str(Encoder(k).size) in msg and k in msg for k in KINDS)


def test_policy_agent_guesses_the_encoder_from_its_input_size():
    torch = pytest.importorskip("torch")
    from agents.ppo_policy import PolicyAgent, PolicyNet
    for kind in KINDS:
        agent = PolicyAgent(PolicyNet(Encoder(kind).size, len(ACTIONS), (8,)), seed=0)
        assert agent.observation == kind
    with pytest.raises(ValueError, match="size 100"):
        PolicyAgent(PolicyNet(100, len(ACTIONS), (8,)))
    assert torch is not None


def test_recall_env_plays_through_the_loop():
    """A recall-reading batched agent plays in truco_env.loop alongside a compact one."""
    from truco_env.game import Matches
    from truco_env.loop import play

    class Uniform:
        batched = True
        observation = "recall"

        def __init__(self):
            self.rng = np.random.default_rng(0)
            self.sizes = set()

        def act_batch(self, obs, mask):
            self.sizes.add(obs.shape[1])
            return random_actions(self.rng, mask)

    class UniformCompact(Uniform):
        observation = "compact"

    a, b = Uniform(), UniformCompact()
    game = Matches(8, 2, get_rules("argentino", target=9))
    game.reset(seed=0)
    res = play(game, [a, b])
    assert (res.winner >= 0).all()
    assert a.sizes == {RECALL_SIZE} and b.sizes == {COMPACT_SIZE}


def test_aec_env_accepts_recall():
    env = truco_env.env(players=2, observation="recall")
    env.reset(seed=0)
    space = env.observation_space("player_0")["observation"]
    assert space.shape == (RECALL_SIZE,)
    assert env.observe("player_0")["observation"].shape == (RECALL_SIZE,)
