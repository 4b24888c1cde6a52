"""Records written by earlier versions (before the core reported events) still replay exactly.

``tests/data/records_v0.json`` holds whole random matches recorded with commit e5c369c (2, 4 and
6 players; argentino with and without flor, trucoshi, uruguayo) and their final scores.
"""
import json
from pathlib import Path

import pytest

import truco_env
from truco_env.records import load_record

DATA = json.loads((Path(__file__).parent / "data" / "records_v0.json").read_text())


@pytest.mark.parametrize("case", DATA, ids=[f"{c['record']['players']}p-{c['record']['rules']['name']}"
                                            for c in DATA])
def test_old_records_replay(case):
    env = truco_env.replay(case["record"])
    view = env.unwrapped.view("player_0")
    assert view["score"] == case["final_score"]
    assert view["winner"] == case["winner"]
    assert view["done"]
    # Replaying writes the same record again (rules, deals, actions).
    again = env.unwrapped.record()
    assert again["hands"] == case["record"]["hands"]


def test_replay_rejects_a_wrong_mano():
    rec = json.loads(json.dumps(next(c for c in DATA if c["hands"] > 2)["record"]))
    rec["hands"][1]["mano"] = (rec["hands"][1]["mano"] + 1) % rec["players"]
    with pytest.raises(ValueError, match="record hand 1: mano"):
        truco_env.replay(rec)


def test_replay_rejects_an_illegal_action():
    rec = json.loads(json.dumps(DATA[0]["record"]))
    rec["hands"][0]["actions"].insert(0, "quiero")       # nothing is pending at the start
    with pytest.raises(truco_env.IllegalActionError, match="quiero"):
        truco_env.replay(rec)


def test_load_record_names_the_problem():
    with pytest.raises(ValueError, match="not JSON"):
        load_record("{oops")
    with pytest.raises(ValueError, match="format"):
        load_record({"format": "something/else"})
