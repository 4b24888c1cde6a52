"""examples/family_envelope.py: the family's envelope of opponent reads, and who leaves it."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

SCRIPT = Path(__file__).resolve().parents[1] / "examples" / "family_envelope.py"
spec = importlib.util.spec_from_file_location("family_envelope", SCRIPT)
fe = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fe)


def test_the_random_player_leaves_the_family_envelope_by_his_mazos():
    """The heuristic family never goes to the mazo, so its envelope of the mazo read is
    [0, 0]; the random player, who goes to the mazo, lies outside it once a few hands are
    dealt, and the family's own reads lie inside their envelope by construction."""
    fam = fe.opponent_reads("heuristic", ["heuristic", "heuristic:style=maniac"], 700, games=64)
    assert fam.shape[1] == len(fe.READS) + 1 and fam[:, -1].min() >= 1
    assert fam[:, :-1].min() >= 0 and fam[:, :-1].max() <= 1
    env = fe.envelope(fam)
    mazo = fe.READS.index("mazo/hand")
    for qlo, qhi in env.values():
        assert qlo[mazo] == qhi[mazo] == 0.0
    inside = fe.outside(fam, env)
    for share, per, n in inside.values():
        assert n > 0 and share <= 0.08        # 0.5%-99.5% per read, seven reads
    rnd = fe.outside(fe.opponent_reads("heuristic", ["random"], 500, games=64, seed=5), env)
    share, per, n = rnd[(6, 9)]
    assert n > 50 and per[mazo] > 0.5 and share >= per[mazo]
