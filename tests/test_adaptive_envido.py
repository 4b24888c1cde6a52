"""The adaptive envido (agents.solved_envido: opponent_class, edge_table, random_response_for,
adaptive_for, the ``adaptive_envido:`` spec and ``envido=adaptive``): the robust response
against the heuristic family, a response of its own against an opponent read as random."""
import numpy as np
import pytest

import agents
from agents.solved_envido import (ADAPTIVE_DEFAULTS, OPPONENT_CLASSES, ROBUST_DEFAULTS,
                                  PLAIN_PRIOR, EnvidoSolver, EnvidoSubgame, Solution, _offsets,
                                  adaptive_for,
                                  edge_table, opponent_class, robust_for, robust_solve,
                                  settings_name, solve, subgame_for)
from truco_env import core as C
from truco_env.game import Matches
from truco_env.loop import play
from truco_env.observe import COMPACT_SIZE, READ_SIZE, Encoder
from truco_env.rules import get_rules
from truco_env.winprob import hand_points_distribution, win_probability_table

FAMILY, RANDOM = OPPONENT_CLASSES.index("family"), OPPONENT_CLASSES.index("random")
PLAIN = OPPONENT_CLASSES.index("plain")


def _obs_with_mazos(rates):
    """Compact observations whose opponent (relative seat 1) went to the mazo ``rates`` a hand."""
    o = np.zeros((len(rates), COMPACT_SIZE), np.float32)
    o[:, _offsets(COMPACT_SIZE)["reads"][0] + READ_SIZE + 4] = rates
    return o


def test_the_class_rule():
    obs = _obs_with_mazos([0.0, 0.1, 0.149, 0.15, 0.5])
    assert opponent_class(obs, 0.15).tolist() == [FAMILY] * 3 + [RANDOM] * 2
    assert opponent_class(obs, 0.6).tolist() == [FAMILY] * 5
    mine = obs.copy()                               # my own mazos (relative seat 0) do not count
    mine[:, _offsets(COMPACT_SIZE)["reads"][0] + 4] = 1.0
    assert opponent_class(mine, 0.15).tolist() == opponent_class(obs, 0.15).tolist()


def test_the_plain_class_rule():
    """``plain``: at most ``calls`` envido songs a hand (with :data:`PLAIN_PRIOR`'s hands) and
    ``shown`` points shown on average; the random read comes first, and without ``calls``
    nobody is plain."""
    reads = _offsets(COMPACT_SIZE)["reads"][0]
    off = reads + READ_SIZE
    obs = _obs_with_mazos([0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0])
    obs[:, off] = [0.2, 0.49, 0.5, 0.2, 0.2, 0.0, 1.0]          # envido songs a hand
    obs[:, off + 5] = np.array([27.0, 27.0, 27.0, 24.9, 27.0, 27.0, 27.0]) / 50.0  # shown
    obs[:, reads + C.P_MAX * READ_SIZE] = np.array([10, 10, 10, 10, 10, 0, 1]) / 20.0  # hands
    h0, r0 = PLAIN_PRIOR                      # 10 hands at 0.49 a hand: (4.9 + 0.5) / 12 = 0.45
    assert (0.49 * 10 + h0 * r0) / (10 + h0) == pytest.approx(0.45)
    assert opponent_class(obs, 0.15, 0.45, 25.0).tolist() == [
        PLAIN, PLAIN, FAMILY, FAMILY, RANDOM, PLAIN, FAMILY]   # no hands yet: the prior; one
    assert opponent_class(obs, 0.15).tolist() == [FAMILY] * 4 + [RANDOM] + [FAMILY] * 2
    assert opponent_class(obs, 0.15, 0.1, 25.0).tolist() == [FAMILY] * 4 + [RANDOM] + \
        [FAMILY] * 2                                            # song in hand one: 0.5 a hand


def test_the_plain_class_is_off_by_default_and_spelled_out_when_on():
    assert ADAPTIVE_DEFAULTS["bold"] == 0
    assert settings_name("adaptive", ADAPTIVE_DEFAULTS) == \
        "adaptive:p=1.0,n0=20.0,matches=2000,mazo=0.15"
    on = {**ADAPTIVE_DEFAULTS, "bold": 2.0, "matches": 48}
    name = settings_name("adaptive", on)
    assert name == "adaptive:p=1.0,n0=20.0,matches=48,mazo=0.15,bold=2.0,calls=0.45,shown=25.0"
    sols = adaptive_for(9, on)
    assert len(sols) == len(OPPONENT_CLASSES) == 3
    assert sols[PLAIN] is robust_for(9, iterations=300, p=1.0, n0=2.0, matches=48)
    assert sols[FAMILY] is robust_for(9, iterations=300, p=1.0, n0=20.0, matches=48)
    assert len(adaptive_for(9, {**on, "bold": 0.0})) == 2


def test_a_plain_opponent_gets_the_bold_response():
    """A real observation whose opponent has done nothing yet (the reads' priors) is plain."""
    game = Matches(2, 2, get_rules("argentino", target=9, flor=False))
    game.reset(seed=2)
    obs = Encoder("compact").encode(game.S, game.tables, game.S[:, C.ACTOR])
    on = EnvidoSolver(adaptive={**ADAPTIVE_DEFAULTS, "bold": 2.0})
    a = ADAPTIVE_DEFAULTS
    assert opponent_class(obs, a["mazo"], a["calls"], a["shown"]).tolist() == [PLAIN, PLAIN]
    (n, rows, p, ids), = _TwoWays(bold=2.0)._nodes(obs, game.legal_mask())
    assert p.argmax(axis=1).tolist() == [PLAIN, PLAIN]
    (n, rows, p, ids), = _TwoWays()._nodes(obs, game.legal_mask())
    assert p.argmax(axis=1).tolist() == [FAMILY, FAMILY]
    assert on.adaptive["bold"] == 2.0


def test_a_mazo_in_a_real_match_reads_as_random():
    """The pie goes to the mazo in hand one; in hand two the mano reads him as random, and he
    reads the mano (who did nothing) as one of the family."""
    game = Matches(1, 2, get_rules("argentino", target=30, flor=False))
    game.reset(seed=0)
    mano = int(game.S[0, C.ACTOR])
    game.step(np.array([C.A_PLAY0]))
    assert game.step(np.array([C.A_MAZO])).hand_ended[0]
    game.next_hand(np.array([0]))
    assert int(game.S[0, C.HAND_NO]) == 2
    enc = Encoder("compact")
    assert opponent_class(enc.encode(game.S, game.tables, np.array([mano])), 0.15)[0] == RANDOM
    assert opponent_class(enc.encode(game.S, game.tables, np.array([1 - mano])), 0.15)[0] \
        == FAMILY


def test_hand_points_keep_their_side_when_asked():
    points = np.array([[2, 0], [1, 0], [0, 1]])
    q = hand_points_distribution(points, symmetric=False)
    assert q[2, 0] == q[1, 0] == q[0, 1] == pytest.approx(1 / 3) and q[0, 2] == 0
    assert np.allclose(hand_points_distribution(points), hand_points_distribution(points).T)


def test_edge_table_favours_the_stronger_side():
    W = edge_table(9, "random", matches=200)
    assert W.shape == (9, 9)
    assert W[0, 0] > 0.8                                     # the heuristic against random
    assert (np.diff(W, axis=0) >= -1e-9).all()               # more of my points never hurt
    assert (np.diff(W, axis=1) <= 1e-9).all()


def test_the_pie_game_defaults_to_the_game():
    q = np.zeros((5, 5))
    q[1, 0] = q[0, 1] = 0.5
    g = EnvidoSubgame(get_rules("argentino", target=9, flor=False), win_probability_table(9, q))
    model = [np.moveaxis(x, 2, 0) for x in solve(g, 10).strategy]
    conf = [np.full((len(g.scores), g.K), 0.5) for _ in g.nodes]
    a = robust_solve(g, model, conf, 20)
    b = robust_solve(g, model, conf, 20, pie_game=g)
    for x, y in zip(a.strategy, b.strategy):
        assert np.array_equal(x, y)


def test_far_ahead_in_the_truco_the_envido_takes_less_risk():
    """With a win table of a much stronger player, the response to the same model calls the
    falta envido less often than with the symmetric table: it has a match to lose."""
    rules = get_rules("argentino", target=9, flor=False)
    even = np.zeros((5, 5))
    even[1, 0] = even[0, 1] = 0.5
    strong = np.zeros((5, 5))
    strong[1, 0], strong[0, 1] = 0.8, 0.2
    W_even, W_strong = win_probability_table(9, even), win_probability_table(9, strong)
    g_even = EnvidoSubgame(rules, W_even)
    g_strong, g_mirror = EnvidoSubgame(rules, W_strong), EnvidoSubgame(rules, 1.0 - W_strong.T)
    model = [np.full((len(n.actions), len(g_even.scores), g_even.K), 1.0 / len(n.actions))
             for n in g_even.nodes]
    conf = [np.ones((len(g_even.scores), g_even.K)) for _ in g_even.nodes]
    a = robust_solve(g_even, model, conf, 100)
    b = robust_solve(g_strong, model, conf, 100, pie_game=g_mirror)
    falta = 0.0
    for i, n in enumerate(g_even.nodes):
        if n.key[0] == "answer" and "quiero" in n.actions and n.key[2].endswith("F"):
            q = n.actions.index("quiero")
            falta += a.strategy[i][0, :, q].mean() - b.strategy[i][0, :, q].mean()
    assert falta > 0.1


class _TwoWays(EnvidoSolver):
    """Two solutions that differ at every node: class k always takes the node's action k."""

    def __init__(self, bold: float = 0.0):
        super().__init__(adaptive={**ADAPTIVE_DEFAULTS, "bold": bold})

    def solutions(self, target):
        base = solve(subgame_for(target), 2)
        out = []
        for k in range(len(OPPONENT_CLASSES)):
            strat = []
            for x in base.strategy:
                y = np.zeros_like(x)
                y[..., min(k, x.shape[-1] - 1)] = 1.0
                strat.append(y)
            out.append(Solution(base.game, strat, base.nash_conv, base.iterations))
        return tuple(out)


def test_each_row_plays_its_opponents_class():
    game = Matches(3, 2, get_rules("argentino", target=9, flor=False))
    game.reset(seed=2)
    obs = Encoder("compact").encode(game.S, game.tables, game.S[:, C.ACTOR])
    mask = game.legal_mask()
    obs[1, _offsets(COMPACT_SIZE)["reads"][0] + READ_SIZE + 4] = 0.5     # row 1: random
    solver = _TwoWays()
    nodes = solver._nodes(obs, mask)
    assert len(nodes) == 1                                       # the mano's opening, all rows
    n, rows, p, ids = nodes[0]
    assert rows.tolist() == [0, 1, 2]
    assert p.argmax(axis=1).tolist() == [FAMILY, RANDOM, FAMILY]
    with pytest.raises(ValueError, match="one strategy per opponent class"):
        solver.solution(9)


def test_the_adaptive_agent_plays_legally():
    bot = agents.load("adaptive_envido:n0=3,matches=48:random", seed=1)
    assert bot.name == "adaptive_envido(random)"
    assert bot.solver.adaptive == {**ADAPTIVE_DEFAULTS, "n0": 3.0, "matches": 48}
    game = Matches(24, 2, get_rules("argentino", target=9, flor=False), random_mano=True)
    game.reset(seed=4)
    result = play(game, [bot, agents.load("random", seed=3)])   # an illegal action raises
    assert (result.winner >= 0).all()
    family, random_ = adaptive_for(9, bot.solver.adaptive)
    assert family is robust_for(9, iterations=300, **{**ROBUST_DEFAULTS, "n0": 3.0,
                                                      "matches": 48})
    assert random_.nash_conv.shape == (81,)


@pytest.mark.parametrize("spec, match", [
    ("adaptive_envido:mazo=2:heuristic", "probability"),
    ("adaptive_envido:q=1:heuristic", "unknown parameter 'q'"),
    ("adaptive_envido:n0=0:heuristic", "positive"),
    ("adaptive_envido:bold=-1:heuristic", "expected a number >= 0, got -1"),
    ("adaptive_envido:calls=1.5:heuristic", "probability"),
    ("adaptive_envido:matches=0:heuristic", "expected a positive number, got 0"),
    ("adaptive_envido:shown=-2:heuristic", "expected a number >= 0, got -2.0"),
    ("adaptive_envido:", "expected a base agent"),
])
def test_bad_adaptive_specs_are_named_errors(spec, match):
    with pytest.raises(ValueError, match=match):
        agents.load(spec)


def test_envido_adaptive_is_a_policy_and_a_config_choice():
    from agents.ppo_policy import CheckpointError, envido_solver
    from training.config import ConfigError, make_config
    solver = envido_solver("adaptive")
    assert solver.adaptive == ADAPTIVE_DEFAULTS and solver.robust is None
    cfg = make_config({"envido": "adaptive:mazo=0.3", "flor": False})
    assert cfg.envido == settings_name("adaptive", {**ADAPTIVE_DEFAULTS, "mazo": 0.3})
    assert cfg.envido == "adaptive:p=1.0,n0=20.0,matches=2000,mazo=0.3"
    assert envido_solver(cfg.envido).adaptive == {**ADAPTIVE_DEFAULTS, "mazo": 0.3}
    assert make_config({"envido": cfg.envido, "flor": False}).envido == cfg.envido
    with pytest.raises(CheckpointError, match="unknown parameter 'x'"):
        envido_solver("adaptive:x=1")
    with pytest.raises(ConfigError, match="bad value envido='adaptive:mazo=3'"):
        make_config({"envido": "adaptive:mazo=3", "flor": False})
    with pytest.raises(ValueError, match="robust and adaptive"):
        EnvidoSolver(robust={}, adaptive={})
