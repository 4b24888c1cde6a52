"""The browser player's HTTP API (truco_env.web) through FastAPI's test client."""
from __future__ import annotations

import json
import re
from importlib.metadata import entry_points

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
from fastapi.testclient import TestClient  # noqa: E402

import agents  # noqa: E402
import truco_env  # noqa: E402
from truco_env import core as C  # noqa: E402
from truco_env.cards import card_str  # noqa: E402
from truco_env.game import Matches  # noqa: E402
from truco_env.web import ENTRY_POINT_GROUP, find_agent_factory  # noqa: E402
from truco_env.web.app import create_app  # noqa: E402

CARD = re.compile(r"(?<![A-Za-z0-9])(1[0-2]|[1-7])[ebco](?![A-Za-z0-9])")


@pytest.fixture
def client():
    return TestClient(create_app(agent_factory=agents.load))


def new_game(client, **body):
    r = client.post("/api/games", json={"opponent": "random", "seed": 1, **body})
    assert r.status_code == 200, r.text
    return r.json()


# ------------------------------------------------------------------ what a seat may know
def known_cards(S: np.ndarray, me: int) -> set[str]:
    """Every card ``me`` may know in the hand of state row ``S``: his own (dealt, the gallo's
    fourth and discard), every card played, the muestra."""
    P = int(S[C.NPLAYERS])
    out = {card_str(S[C.HAND + 3 * me + k]) for k in range(3)}
    out |= {card_str(S[C.HAND + 3 * p + k]) for p in range(P) for k in range(3)
            if S[C.PLAYED + 3 * p + k] >= 0}
    if S[C.GALLO] == me:
        out |= {card_str(S[x]) for x in (C.FOURTH, C.DISCARD) if S[x] >= 0}
    if S[C.MUESTRA] >= 0:
        out.add(card_str(S[C.MUESTRA]))
    return out


def cards_in(obj) -> set[str]:
    """The card names in every string (and key) of a JSON value, the game id left out."""
    if isinstance(obj, dict):
        return set().union(*(cards_in(k) | cards_in(v) for k, v in obj.items() if k != "id"))
    if isinstance(obj, (list, tuple)):
        return set().union(set(), *(cards_in(x) for x in obj))
    if isinstance(obj, str):
        return {m.group(0) for m in CARD.finditer(obj)}
    return set()


@pytest.fixture
def hand_ends(monkeypatch):
    """The state of each game at each hand's end (the driver's next_hand, watched)."""
    seen: dict[tuple[int, int], np.ndarray] = {}
    deal = Matches.next_hand

    def watched(self, games=None):
        seen[(id(self), int(self.S[0, C.HAND_NO]))] = self.S[0].copy()
        return deal(self, games)

    monkeypatch.setattr(Matches, "next_hand", watched)
    return seen


def pick(rng: np.random.Generator, legal: list[dict]) -> int:
    """A random legal action, mostly a card (the matches last longer than with uniform
    choices, which sing and accept falta envido: pica-pica hands come after a few hands)."""
    plays = [a["id"] for a in legal if a["name"].startswith("play_")]
    if plays and rng.random() < 0.8:
        return int(rng.choice(plays))
    refuse = [a["id"] for a in legal if a["name"] == "no_quiero"]
    if refuse and rng.random() < 0.7:
        return refuse[0]
    return int(rng.choice([a["id"] for a in legal]))


MODES = [
    dict(rules="argentino", players=2),
    dict(rules="argentino", players=4, senas="traditional"),
    dict(rules="argentino", players=4, pica_pica=True),
    dict(rules="trucoshi", players=6, pica_pica=True),
    dict(rules="uruguayo", players=6, senas="traditional"),
    dict(rules="pata_de_gallo"),
    dict(rules="destantado"),
]


@pytest.mark.parametrize("mode", MODES, ids=lambda m: "-".join(str(v) for v in m.values()))
def test_no_response_shows_a_card_the_seat_may_not_know(client, hand_ends, mode):
    rng = np.random.default_rng(7)
    state = new_game(client, seat=1, **mode)
    app_store = client.app.state.store
    session = app_store.items[state["id"]][0]
    S = session.game.S
    me = session.me

    def check(part, hand: int, what: str) -> None:
        if hand == int(S[0, C.HAND_NO]):
            known = known_cards(S[0], me)
        else:
            known = known_cards(hand_ends[(id(session.game), hand)], me)
        leaked = cards_in(part) - known
        assert not leaked, f"{what} of hand {hand} shows {sorted(leaked)} to seat {me}"

    def check_response(st) -> None:
        check({k: v for k, v in st.items() if k not in ("moves", "last_hand")},
              st["view"]["hand_number"], "the view")
        if st.get("last_hand"):
            check(st["last_hand"], st["last_hand"]["hand_number"], "the last hand")
        for m in st.get("moves", []):
            check(m, m["hand"], f"move {m}")

    check_response(state)
    pica = False
    for _ in range(60):
        if state["view"]["done"]:
            break
        legal = [a["id"] for a in state["legal"]]
        mask = session.game.legal_mask()[0]
        assert legal == np.flatnonzero(mask).tolist()       # the legal actions, only them
        state = client.post(f"/api/games/{state['id']}/act",
                            json={"action": pick(rng, state["legal"])}).json()
        check_response(state)
        check_response(client.get(f"/api/games/{state['id']}").json())
        pica |= state["view"]["pica_pica"]
        if state["legal"] and session.advisor is None:
            assert client.get(f"/api/games/{state['id']}/advice").status_code == 409
    if mode.get("pica_pica"):
        assert pica, "no pica-pica hand was reached"


# ------------------------------------------------------------------ the game
def test_a_game_and_its_moves(client):
    st = new_game(client)
    assert len(st["id"]) >= 32 and st["view"]["seat"] == 0
    assert st["view"]["to_act"] == 0 and st["legal"]
    assert [s["agent"] for s in st["seats"]] == ["you", "random"]
    r = client.post(f"/api/games/{st['id']}/act", json={"action": st["legal"][0]["id"]})
    after = r.json()
    assert r.status_code == 200 and after["moves"][0]["seat"] == 0
    assert after["moves"][0]["text"] == st["legal"][0]["text"]
    assert all("ms" in m for m in after["moves"][1:] if "seat" in m)   # bots' time


def test_each_tab_its_own_game(client):
    a, b = new_game(client), new_game(client, seed=2)
    assert a["id"] != b["id"]
    client.post(f"/api/games/{a['id']}/act", json={"action": a["legal"][0]["id"]})
    assert client.get(f"/api/games/{b['id']}").json()["view"] == b["view"]
    r = client.get(f"/api/games/{a['id'][:-1]}")
    assert r.status_code == 404 and "unknown game id" in r.json()["detail"]


@pytest.mark.parametrize("body,status,message", [
    ({"rules": "argentina"}, 400, "unknown rules 'argentina'"),
    ({"opponent": "nobody"}, 400, "unknown agent spec 'nobody'"),
    ({"opponent": "human"}, 400, "only human at the table"),
    ({"opponent": "checkpoint:/no/such/file.pt"}, 400, "does not exist"),
    ({"players": 3}, 400, "bad value players=3"),
    ({"seat": 5}, 400, "bad value seat=5"),
    ({"players": 2, "senas": "traditional"}, 400, "senas='traditional' with players=2"),
    ({"target": 17}, 400, "bad value target=17"),
    ({"players": "four"}, 422, "players"),
    ({"senas": "loud"}, 422, "senas"),
    ({"colour": "red"}, 422, "colour"),
    ({"advisor": "random"}, 400, "gives no advice"),
])
def test_bad_games_are_4xx_with_a_message(client, body, status, message):
    r = client.post("/api/games", json={"opponent": "random", **body})
    assert r.status_code == status, r.text
    assert message in r.json()["detail"]


def test_bad_moves_are_4xx_and_the_server_goes_on(client):
    st = new_game(client)
    url = f"/api/games/{st['id']}/act"
    illegal = next(a for a in range(len(truco_env.ACTIONS))
                   if a not in {x["id"] for x in st["legal"]})
    r = client.post(url, json={"action": illegal})
    assert r.status_code == 400 and f"illegal action {illegal}" in r.json()["detail"]
    assert "legal actions" in r.json()["detail"]
    assert client.post(url, json={"action": 999}).status_code == 400
    assert client.post(url, json={"action": "truco"}).status_code == 422
    assert client.post(url, content=b"{not json", headers={
        "content-type": "application/json"}).status_code == 422
    assert client.post("/api/games/nope/act", json={"action": 0}).status_code == 404
    assert client.get(f"/api/games/{st['id']}").json()["view"] == st["view"]   # still there


def test_idle_games_are_dropped():
    now = [0.0]
    client = TestClient(create_app(agent_factory=agents.load, idle_minutes=1,
                                   clock=lambda: now[0]))
    st = new_game(client)
    now[0] = 50.0
    assert client.get(f"/api/games/{st['id']}").status_code == 200   # used: the clock restarts
    now[0] = 105.0
    assert client.get(f"/api/games/{st['id']}").status_code == 200
    now[0] = 166.0
    r = client.get(f"/api/games/{st['id']}")
    assert r.status_code == 404 and "1 idle minutes" in r.json()["detail"]
    assert not client.app.state.store.items


def test_advice_of_a_trained_policy(client):
    st = new_game(client, opponent="pretrained:default")
    assert st["advice"] and st["advisor"] == "pretrained:default"
    adv = client.get(f"/api/games/{st['id']}/advice").json()
    assert [a["id"] for a in adv["actions"]] == [a["id"] for a in st["legal"]]
    assert abs(sum(a["prob"] for a in adv["actions"]) - 1) < 1e-4
    assert isinstance(adv["value"], float) and -2 < adv["value"] < 2
    r = client.get(f"/api/games/{new_game(client)['id']}/advice")
    assert r.status_code == 409 and "no advice in this game" in r.json()["detail"]


def test_policy_advice_is_a_distribution_over_the_legal_actions():
    bot = agents.load("pretrained:default", seed=0)
    env = truco_env.env()
    env.reset(seed=2)
    obs = env.last()[0]
    adv = bot.advice(obs)
    assert sorted(adv["probs"]) == np.flatnonzero(obs["action_mask"]).tolist()
    assert abs(sum(adv["probs"].values()) - 1) < 1e-5
    assert bot.advice({**obs, "action_mask": np.zeros_like(obs["action_mask"])}) is None


# ------------------------------------------------------------------ replays
def a_record(seed: int = 3, players: int = 4, **kw) -> dict:
    env = truco_env.env(players=players, **kw)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(60):
        if any(env.terminations.values()):
            break
        env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    return env.unwrapped.record(agents=[f"bot{p}" for p in range(players)])


def test_replays_step_through_a_record(client):
    rec = a_record(senas="traditional")
    r = client.post("/api/replays", content=json.dumps(rec))
    assert r.status_code == 200, r.text
    rid, steps = r.json()["id"], r.json()["steps"]
    assert steps == len(rec["hands"]) + sum(len(h["actions"]) for h in rec["hands"])
    first = client.get(f"/api/replays/{rid}?step=0&show=all").json()
    assert [h["cards"] for h in first["hands"]] == rec["hands"][0]["deal"]
    assert first["agents"] == rec["agents"] and first["move"] is None
    # One seat's view shows only what that seat may know at every step.
    session = client.app.state.store.items[rid][0]
    for k in range(steps):
        p = client.get(f"/api/replays/{rid}?step={k}&show=2").json()
        assert p["hands"] is None
        leaked = cards_in(p) - known_cards(session.frames[k], 2)
        assert not leaked, f"step {k} shows {sorted(leaked)} to seat 2"
    last = client.get(f"/api/replays/{rid}?step={steps - 1}").json()
    assert last["move"]["name"] == rec["hands"][-1]["actions"][-1]


def test_replays_of_a_list_and_bad_uploads():
    client = TestClient(create_app(agent_factory=agents.load, max_upload=60_000))
    recs = [a_record(1, 2), a_record(2, 2)]
    r = client.post("/api/replays?match=1", content=json.dumps(recs))
    assert r.status_code == 200 and r.json()["records"] == 2
    rid = r.json()["id"]
    assert client.get(f"/api/replays/{rid}?step=0").json()["hands"][0]["cards"] == \
        recs[1]["hands"][0]["deal"][0]
    lines = "\n".join(json.dumps(x) for x in recs)            # JSON lines, as evaluate.py reads
    assert client.post("/api/replays", content=lines).status_code == 200
    big = client.post("/api/replays", content=b"[" + b"0," * 40_000 + b"0]")
    assert big.status_code == 413 and "60000 bytes" in big.json()["detail"]
    for body, message in [(b"import os", "not JSON"), (b'{"format": "x"}', "not a truco_env record"),
                          (b"\xff\xfe", "not UTF-8"), (b"[]", "empty list"),
                          (b"[" * 5000 + b"]" * 5000, "nests too deeply")]:
        r = client.post("/api/replays", content=body)
        assert r.status_code == 400 and message in r.json()["detail"], (body[:20], r.text)
    bad = dict(recs[0], hands=[dict(recs[0]["hands"][0], actions=["vale_cuatro"])])
    r = client.post("/api/replays", content=json.dumps(bad))
    assert r.status_code == 400 and "record hand 0" in r.json()["detail"]
    assert client.post("/api/replays?match=5", content=json.dumps(recs)).status_code == 400
    assert client.get(f"/api/replays/{rid}?step=9999").status_code == 400
    assert client.get(f"/api/replays/{rid}?show=7").status_code == 400
    assert client.get("/api/replays/nope").status_code == 404


# ------------------------------------------------------------------ the page and the command
def test_the_page_is_served_offline(client):
    page = client.get("/")
    assert page.status_code == 200 and "app.js" in page.text
    for name in ("app.js", "style.css"):
        text = client.get(f"/static/{name}").text
        assert "http://" not in text and "https://" not in text     # no CDN, no remote asset
    assert "://" not in page.text.replace('href="data:,"', "")


def test_agent_factory_lookup():
    assert find_agent_factory("agents:load") is agents.load
    with pytest.raises(RuntimeError, match="module:attribute"):
        find_agent_factory("agents")
    with pytest.raises(RuntimeError, match="cannot load"):
        find_agent_factory("agents:nothing_here")


def test_the_entry_point_resolves_when_installed():
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == "agents"]
    if not found:
        pytest.skip(f"the project is installed without the {ENTRY_POINT_GROUP!r} entry point "
                    f"(reinstall: pip install -e .)")
    assert found[0].load() is agents.load
    assert find_agent_factory() is agents.load


def test_a_pata_de_gallo_replay_shows_the_gallos_fourth_card_while_he_discards(client):
    rec = a_record(5, 3, rules="pata_de_gallo")
    rid = client.post("/api/replays", content=json.dumps(rec)).json()["id"]
    session = client.app.state.store.items[rid][0]
    first = client.get(f"/api/replays/{rid}?step=0&show=all").json()
    gallo = int(session.frames[0][C.GALLO])
    assert session.frames[0][C.DISCARDING] == 1
    assert len(first["hands"][gallo]["cards"]) == 4
    assert first["hands"][gallo]["cards"][3] == card_str(session.frames[0][C.FOURTH])
    assert [len(h["cards"]) for p, h in enumerate(first["hands"]) if p != gallo] == [3, 3]
    after = client.get(f"/api/replays/{rid}?step=1&show=all").json()   # the discard is made
    assert [len(h["cards"]) for h in after["hands"]] == [3, 3, 3]
