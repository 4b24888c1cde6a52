"""What a seat may know, decoded, and the one text formatter of the package.

* :func:`decode_view`: the plain dict of ``env.unwrapped.view(agent)`` (never another player's
  hidden cards); bots, the human player, the probe and tests read it;
* :func:`hand_events`: the events of the hand (from the core's LOG) as dicts; every event is
  public (cards played, songs, answers, points said aloud, points scored);
* :func:`format_view`: the text of a view, used by ``render()``, the terminal player and the
  probe; :func:`hand_summary` the text of a finished hand.

>>> import truco_env
>>> env = truco_env.env(); env.reset(seed=1, options={"hands": ["1e 7e 4c", "1b 7o 5c"]})
>>> decode_view(env.unwrapped.game, 0, 0)["hand"]
['1e', '7e', '4c']
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from . import core as C
from .cards import card_str
from .rules import ACTIONS, ENVIDO_CHAIN, sena_vocabulary

_TRUCO_LEVEL = ("no truco (1 point)", "truco accepted (2)", "retruco accepted (3)",
                "vale cuatro accepted (4)")
_PENDING_FLOR = ("flor", "contraflor", "contraflor_al_resto")
_PENDING_TRUCO = ("truco", "retruco", "vale_cuatro")


def hand_events(S: np.ndarray, g: int, start: int = 0, viewer: int | None = None
                ) -> list[dict[str, Any]]:
    """The events of game ``g``'s hand from index ``start`` (see ``core.EV_*``), as dicts:

    ``{"event": "action", "seat", "action", "card"}``, ``{"event": "baza", "baza", "seat",
    "team"}`` (seat/team ``None`` for a parda), ``{"event": "declare", "seat", "what",
    "points"}`` (points ``None``: "son buenas"), ``{"event": "points", "team", "points",
    "source"}``, ``{"event": "hand_end", "reason", "team"}``, ``{"event": "match_end", "team",
    "score"}``.  In the three-player modes "points" also has ``"seat"`` (who scored; team is
    his side), ``{"event": "pass", "seat", "to", "points", "source"}`` is destantado's passing
    of tantos, ``{"event": "discard", "seat"}`` the gallo's discard (the card is not shown);
    in destantado "team" is a seat.

    Señas (issue 13) are not public: ``viewer=None`` (a spectator, analyses) lists every one as
    ``{"event": "sena", "seat", "baza", "sena": its number, "caught": [opponents who caught
    it]}``; with ``viewer`` a seat, only those he saw (``core.sees_sena``), ``"caught"`` then
    being whether he caught it (always ``False`` for his own team's: a signer never learns it).
    """
    out = []
    baza = 0
    for i in range(start, int(S[g, C.LOG_LEN])):
        kind, seat, team, value, detail = (int(x) for x in C.unpack_event(int(S[g, C.LOG + i])))
        if kind == C.EV_SENA:
            if viewer is None:
                out.append({"event": "sena", "seat": seat, "baza": baza, "sena": value,
                            "caught": [q for q in range(C.P_MAX) if (detail >> q) & 1]})
            elif C.sees_sena(S, g, viewer, seat, detail):
                out.append({"event": "sena", "seat": seat, "baza": baza, "sena": value,
                            "caught": bool((detail >> viewer) & 1)})
            continue
        if kind == C.EV_BAZA:
            baza = min(value + 1, 2)
        if kind == C.EV_ACTION:
            out.append({"event": "action", "seat": seat, "action": ACTIONS[value],
                        "card": card_str(detail) if detail >= 0 else None})
        elif kind == C.EV_BAZA:
            out.append({"event": "baza", "baza": value, "seat": seat if seat >= 0 else None,
                        "team": team if team >= 0 else None})
        elif kind == C.EV_DECLARE:
            out.append({"event": "declare", "seat": seat, "what": ("envido", "flor")[detail],
                        "points": value if value >= 0 else None})
        elif kind == C.EV_POINTS:
            e = {"event": "points", "team": team, "points": value,
                 "source": C.SOURCE_NAMES[detail]}
            if seat >= 0:          # three-player modes: the player who scored
                e["seat"] = seat
            out.append(e)
        elif kind == C.EV_PASS:
            out.append({"event": "pass", "seat": seat, "to": team, "points": value,
                        "source": C.SOURCE_NAMES[detail]})
        elif kind == C.EV_DISCARD:
            out.append({"event": "discard", "seat": seat})
        elif kind == C.EV_HAND_END:
            out.append({"event": "hand_end", "reason": C.END_NAMES[value],
                        "team": team if team >= 0 else None})
        elif kind == C.EV_MATCH_END:
            out.append({"event": "match_end", "team": team, "score": value})
        elif kind == C.EV_DUEL:      # pica-pica: a duel starts (reason None) or ends
            out.append({"event": "duel", "duel": detail, "mano": seat,
                        "reason": C.END_NAMES[value] if value > 0 else None,
                        "team": team if team >= 0 else None})
    return out


def duels(S: np.ndarray, g: int, events: list[dict] | None = None) -> list[dict]:
    """Pica-pica: the duels of game ``g``'s hand (``[]`` in a normal hand), each ``{"duel",
    "seats": [mano, rival], "table": its bazas as lists of (seat, card), "calls": its songs
    and answers as (seat, action), "winner": team or
    None, "end_reason": None while it goes on}``; everything in it is on the table."""
    if S[g, C.PICA] != 1:
        return []
    out = [{"duel": d, "seats": [int(S[g, C.DUEL_SEAT + 2 * d]),
                                 int(S[g, C.DUEL_SEAT + 2 * d + 1])],
            "table": [], "calls": [], "winner": None, "end_reason": None}
           for d in range(int(S[g, C.NDUELS]))]
    cur, open_baza = -1, False
    for e in (hand_events(S, g) if events is None else events):
        if e["event"] == "duel":
            cur = e["duel"]
            open_baza = False
            if e["reason"] is not None:
                out[cur]["winner"], out[cur]["end_reason"] = e["team"], e["reason"]
        elif e["event"] == "action" and e["card"] is not None and cur >= 0:
            if not open_baza:
                out[cur]["table"].append([])
                open_baza = True
            out[cur]["table"][-1].append((e["seat"], e["card"]))
        elif e["event"] == "action" and cur >= 0:
            out[cur]["calls"].append((e["seat"], e["action"]))
        elif e["event"] == "baza":
            open_baza = False
    return out


def hand_points_by_source(S: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Points each team scored in the hand of each game of ``games`` (whose hand is over, or in
    progress), by source: ``int64[len(games), T_MAX, 3]``, sources in ``core.SOURCE_NAMES``
    order (envido, flor, truco), read from the hand's ``EV_POINTS`` events.

    >>> from truco_env.game import Matches
    >>> from truco_env.rules import get_rules
    >>> m = Matches(1, 2, get_rules("argentino")); m.reset(seed=0)
    >>> _ = m.step(np.array([C.A_MAZO]))             # the mano goes to the mazo: 1 truco point
    >>> hand_points_by_source(m.S, np.array([0]))[0, :2].tolist()
    [[0, 0, 0], [0, 0, 1]]
    """
    games = np.asarray(games, dtype=np.int64)
    out = np.zeros((len(games), C.T_MAX, len(C.SOURCE_NAMES)), dtype=np.int64)
    if len(games) == 0:
        return out
    n = S[games, C.LOG_LEN].astype(np.int64)
    log = S[games, C.LOG:C.LOG + C.LOG_MAX].astype(np.int64)
    kind, _, team, value, detail = C.unpack_event.py_func(log)
    hit = (kind == C.EV_POINTS) & (np.arange(C.LOG_MAX)[None, :] < n[:, None]) & (team >= 0)
    rows, cols = np.nonzero(hit)
    np.add.at(out, (rows, team[rows, cols], detail[rows, cols]), value[rows, cols])
    return out


def user_score(S: np.ndarray, g: int, rules: Any) -> list[int]:
    """Game ``g``'s score as players read it: by team; by player in pata de gallo; each
    player's pile (tantos left, 0 wins) in destantado."""
    mode = getattr(rules, "mode", "teams")
    if mode == "teams":
        return [int(x) for x in S[g, C.SCORE:C.SCORE + 2]]
    P = int(S[g, C.NPLAYERS])
    sc = [int(x) for x in S[g, C.SCORE:C.SCORE + P]]
    return [rules.target - x for x in sc] if mode == "destantado" else sc


def decode_view(game: Any, g: int, seat: int) -> dict:
    """What ``seat`` may know of game ``g`` of a :class:`truco_env.game.Matches`."""
    S = game.S
    P = int(S[g, C.NPLAYERS])
    mode = getattr(game.rules, "mode", "teams")
    per_seat = mode != "teams"
    pica = bool(S[g, C.PICA])
    duel = int(S[g, C.DUEL]) if pica else -1
    in_duel = ((int(S[g, C.DUEL_SEAT + 2 * duel]), int(S[g, C.DUEL_SEAT + 2 * duel + 1]))
               if pica else tuple(range(P)))
    hand = [card_str(S[g, C.HAND + 3 * seat + k]) if S[g, C.PLAYED + 3 * seat + k] < 0 else None
            for k in range(3)]
    if S[g, C.DISCARDING] == 1 and seat == S[g, C.GALLO]:
        hand.append(card_str(S[g, C.FOURTH]))     # the gallo's four cards, discard_k drops k
    table = []
    for b in range(int(S[g, C.BAZA]) + 1):
        lead = int(S[g, C.BAZA_LEAD + b])
        if lead < 0:
            break
        row = []
        for i in range(P):
            p = (lead + i) % P
            c = S[g, C.BAZA_CARD + b * C.P_MAX + p]
            if c >= 0 and p in in_duel:       # pica-pica: the duel in progress only
                row.append((p, card_str(c)))
        if row:
            table.append(row)
    events = hand_events(S, g, viewer=seat)
    vocab = sena_vocabulary(game.rules) if hasattr(game.rules, "senas") else ()
    senas = [{"seat": e["seat"], "baza": e["baza"], "sena": vocab[e["sena"]],
              "caught": e["caught"]} for e in events if e["event"] == "sena"]
    first = 0            # pica-pica: the calls of the duel in progress
    for i, e in enumerate(events):
        if e["event"] == "duel" and e["reason"] is None:
            first = i
    calls = [(e["seat"], e["action"]) for e in events[first:]
             if e["event"] == "action" and e["card"] is None]
    public = {p: int(S[g, C.PUBLIC + p]) for p in range(P) if S[g, C.PUBLIC + p] >= 0}
    results = []
    for b in range(3):
        r = int(S[g, C.RESULT + b])
        results.append(None if r == -2 else ("parda" if r == -1 else r))
    pending = None
    if S[g, C.FLOR_STATE] != C.FLOR_NONE:
        pending = _PENDING_FLOR[int(S[g, C.FLOR_STATE]) - 1]
    elif S[g, C.ENVIDO_PENDING]:
        pending = ENVIDO_CHAIN[int(S[g, C.ENVIDO_CHAIN_ID])][0]
    elif S[g, C.TRUCO_PENDING]:
        pending = _PENDING_TRUCO[int(S[g, C.TRUCO_PENDING]) - 1]
    over = bool(S[g, C.HAND_OVER])
    nsc = P if per_seat else 2
    extra = {}
    if per_seat:   # ---- three-player modes (issue 12)
        gallo = int(S[g, C.GALLO])
        extra = {
            "mode": mode,
            "teams": [int(S[g, C.TEAM + p]) for p in range(P)],
            "gallo": gallo if gallo >= 0 else None,
            "discarding": bool(S[g, C.DISCARDING]),
            "discarded": (card_str(S[g, C.DISCARD]) if seat == gallo and S[g, C.DISCARD] >= 0
                          else None),
            "out": [p for p in range(P) if S[g, C.OUT + p] == 1],
        }
    return {
        "seat": seat,
        "team": int(S[g, C.TEAM + seat]),
        "players": P,
        "mano": int(S[g, C.MANO]),
        "rules": game.rules.name,
        "target": game.rules.target,
        "buenas": game.rules.has_buenas,
        "flor": game.rules.flor,
        "score": user_score(S, g, game.rules),
        "hand": hand,
        "hand_number": int(S[g, C.HAND_NO]),
        "table": table,
        "baza_results": results,
        "calls": calls,
        "events": events,
        "envido_points": public,
        "my_envido": int(S[g, C.ENVIDO_PTS + seat]),
        "my_flor": int(S[g, C.FLOR_PTS + seat]) if S[g, C.FLOR_PTS + seat] >= 0 else None,
        "truco_level": int(S[g, C.TRUCO_LEVEL]),
        "truco_owner": int(S[g, C.TRUCO_OWNER]) if S[g, C.TRUCO_OWNER] >= 0 else None,
        "pending": pending,
        "envido_chain": ENVIDO_CHAIN[int(S[g, C.ENVIDO_CHAIN_ID])][0],
        "to_act": None if over else int(S[g, C.ACTOR]),
        "hand_over": over,
        "hand_points": [int(x) for x in S[g, C.HAND_PTS:C.HAND_PTS + nsc]],
        "end_reason": C.END_NAMES[int(S[g, C.END_REASON])] or None,
        "done": bool(S[g, C.DONE]),
        "winner": int(S[g, C.WINNER]) if S[g, C.WINNER] >= 0 else None,
        "muestra": card_str(S[g, C.MUESTRA]) if S[g, C.MUESTRA] >= 0 else None,
        # pica-pica (issue 12): table, calls... above are the duel in progress's
        "pica_pica": pica,
        "hand_mano": int(S[g, C.HAND_MANO]),
        "duel": duel if pica else None,
        "duels": duels(S, g, events),
        # señas (issue 13): the ones this seat saw, in order ("caught": he caught a rival's)
        "senas": senas,
        "sena_names": list(vocab),
        **extra,
    }


# ---------------------------------------------------------------------- text
def score_text(score: int, target: int, buenas: bool) -> str:
    """``'12 (malas)'`` / ``'17 (buenas 2)'`` for a match with halves, else ``'7'``.

    >>> score_text(17, 30, True), score_text(7, 15, False)
    ('17 (buenas 2)', '7')
    """
    if not buenas:
        return f"{score}"
    half = target // 2
    return f"{score} (malas)" if score <= half else f"{score} (buenas {score - half})"


def seat_name(seat: int, me: int | None, players: int, teams: list[int] | None = None) -> str:
    """``'you'``, ``'player_2 (partner)'`` or ``'player_1'`` (no ``me``: ``'player_1'``);
    ``teams``: each seat's side in this hand (three-player modes), else seat % 2."""
    if me is None:
        return f"player_{seat}"
    if seat == me:
        return "you"
    if teams is not None:
        return f"player_{seat} (partner)" if teams[seat] == teams[me] else f"player_{seat}"
    if players > 2 and seat % 2 == me % 2:
        return f"player_{seat} (partner)"
    return f"player_{seat}"


def _side_name(view: Mapping, side: int, me: int | None) -> str:
    """A side of a three-player mode: a player (destantado), the gallo or the pair."""
    if view.get("mode") == "destantado":
        return seat_name(side, me, view["players"], view.get("teams"))
    gallo = view.get("gallo")
    if gallo is not None and view["teams"][gallo] == side:
        return "the gallo" + (" (you)" if me == gallo else "")
    return "the pair" + (" (yours)" if me is not None and me != gallo else "")


def score_line(view: Mapping, me: int | None) -> str:
    """``Score: ...`` by team, or by player in the three-player modes."""
    target, buenas = view["target"], view.get("buenas", False)
    if view.get("mode") in ("pata_de_gallo", "destantado"):
        P = view["players"]
        dest = view["mode"] == "destantado"
        return ("Score: " + " | ".join(f"{seat_name(p, me, P, view.get('teams'))} "
                                      f"{score_text(view['score'][p], target, buenas)}"
                                      for p in range(P))
                + (f"  (tantos left, from {target} down to 0)" if dest
                   else f"  (each to {target}" + (", malas y buenas)" if buenas else ")")))
    return ("Score: " + " | ".join(
        f"{team_name(t, me)} {score_text(view['score'][t], target, buenas)}" for t in range(2))
        + f"  (match to {target}" + (", malas y buenas)" if buenas else ")"))


def team_name(team: int, me: int | None) -> str:
    if me is None:
        return f"team {team}"
    return f"team {team} ({'yours' if team == me % 2 else 'theirs'})"


def baza_result_text(result: Any, me: int | None, view: Mapping | None = None) -> str:
    if result is None:
        return ""
    if result == "parda":
        return " -> parda"
    if view is not None and view.get("mode") in ("pata_de_gallo", "destantado"):
        return f" -> {_side_name(view, int(result), me)}"
    return f" -> {team_name(int(result), me)}"


def action_text(action: int, view: Mapping) -> str:
    """``'play_1 (7o)'`` for a card of the view's hand, the action name otherwise."""
    name = ACTIONS[action]
    if name.startswith("play_"):
        card = view["hand"][int(name[-1])]
        return f"{name} ({card})" if card else name
    if name.startswith("sena_") and int(name[5:]) < len(view.get("sena_names", ())):
        return f"{name} ({view['sena_names'][int(name[5:])]})"
    return name


def sena_lines(view: Mapping, me: int | None) -> list[str]:
    """``Señas: ...``: the señas the view's seat saw (a rival's that he caught marked so)."""
    if not view.get("senas"):
        return []
    P, teams = view["players"], view.get("teams")
    return ["Señas: " + ", ".join(
        f"{seat_name(x['seat'], me, P, teams)} {x['sena']} (baza {x['baza'] + 1}"
        + (", caught" if x["caught"] is True else "")
        + (f", caught by {', '.join(seat_name(q, me, P, teams) for q in x['caught'])}"
           if isinstance(x["caught"], list) and x["caught"] else "") + ")"
        for x in view["senas"])]


def format_view(view: Mapping, me: int | None = None,
                hands: Mapping[int, list[str]] | None = None,
                mask: np.ndarray | None = None) -> str:
    """A view as text: score, hand, calls, points shown, bazas, cards, who acts.

    ``me``: the seat the text speaks to ("you", "partner"; ``None``: a spectator).
    ``hands``: cards to show by seat (a spectator's or the end of a hand), instead of the view's
    own hand only.  ``mask``: the legal actions of the seat to act, listed on the last line.
    """
    players = view["players"]
    P = players
    teams = view.get("teams")
    lines = [
        score_line(view, me),
        f"Hand {view['hand_number']} · mano: {seat_name(view['mano'], me, P, teams)} · "
        f"{_TRUCO_LEVEL[view['truco_level']]}"
        + (f" · muestra {view['muestra']}" if view.get("muestra") else "")
        + (f" · gallo: {seat_name(view['gallo'], me, P, teams)}"
           if view.get("gallo") is not None else "")
        + (" · out of the hand: " + ", ".join(seat_name(p, me, P, teams) for p in view["out"])
           if view.get("out") else ""),
    ]
    if view.get("pica_pica"):
        lines += pica_lines(view, me)
    if view["calls"]:
        lines.append("Calls: " + ", ".join(f"{seat_name(p, me, P, teams)} {a}"
                                           for p, a in view["calls"]))
    lines += sena_lines(view, me)
    if view["envido_points"]:
        lines.append("Points shown: " + ", ".join(f"{seat_name(p, me, P, teams)} {x}"
                                                  for p, x in view["envido_points"].items()))
    for b, row in enumerate(view["table"]):
        lines.append(f"Baza {b + 1}: " + ", ".join(f"{seat_name(p, me, P, teams)} {c}"
                                                   for p, c in row)
                     + baza_result_text(view["baza_results"][b], me, view))
    if hands is not None:
        for p, cards in hands.items():
            lines.append(f"Cards of {seat_name(p, me, P, teams)}: "
                         + " ".join(c if c else "--" for c in cards))
    elif me is not None:
        cards = "  ".join(f"[{k}] {c}" for k, c in enumerate(view["hand"]) if c is not None)
        extra = f"envido {view['my_envido']}"
        if view.get("my_flor") is not None:
            extra += f", flor {view['my_flor']}"
        lines.append(f"Your cards: {cards}   ({extra})")
    if me is not None and view.get("discarded"):      # the gallo's, shown to him alone
        lines.append(f"You discarded {view['discarded']}")
    if view["done"] and view.get("mode") in ("pata_de_gallo", "destantado"):
        lines.append(f"Match over: {seat_name(view['winner'], me, P)} wins")
    elif view["done"]:
        lines.append(f"Match over: {team_name(view['winner'], me)} wins")
    elif view["hand_over"]:
        lines.append(f"Hand over ({view['end_reason']})")
    elif view["to_act"] is not None:
        who = seat_name(view["to_act"], me, P, teams)
        line = f"To act: {who}" + (f" (answering {view['pending']})" if view["pending"] else "")
        if view.get("discarding"):
            line += " (the gallo discards one of his four cards)"
        if mask is not None:
            line += " · legal: " + ", ".join(action_text(int(i), view) if i >= C.A_SENA0
                                             else ACTIONS[i] for i in np.flatnonzero(mask))
        lines.append(line)
    return "\n".join(lines)


def pica_lines(view: Mapping, me: int | None) -> list[str]:
    """Pica-pica: one line a duel (who plays whom, its cards, its result)."""
    P = view["players"]
    out = []
    for d in view["duels"]:
        a, b = d["seats"]
        state = ("in progress" if d["duel"] == view["duel"] and not view["hand_over"]
                 else "to come" if d["end_reason"] is None else
                 f"{team_name(d['winner'], me)} won it ({d['end_reason']})")
        cards = " | ".join(", ".join(f"{seat_name(p, me, P)} {c}" for p, c in row)
                           for row in d["table"])
        calls = ", ".join(f"{seat_name(p, me, P)} {x}" for p, x in d["calls"])
        out.append(f"Pica-pica duel {d['duel'] + 1}: {seat_name(a, me, P)} vs "
                   f"{seat_name(b, me, P)}, {state}" + (f": {cards}" if cards else "")
                   + (f" (calls: {calls})" if calls else ""))
    return out


def render_text(game: Any, g: int, seat: int | None = None) -> str:
    """The hand as text; with ``seat``, from that seat (other unplayed cards hidden)."""
    rules = game.rules
    S = game.S
    P = int(S[g, C.NPLAYERS])
    v = decode_view(game, g, 0 if seat is None else seat)
    hands = {}
    for p in range(P):
        shown = seat is None or p == seat
        hands[p] = [card_str(S[g, C.HAND + 3 * p + k]) + "*" if S[g, C.PLAYED + 3 * p + k] >= 0
                    else (card_str(S[g, C.HAND + 3 * p + k]) if shown else "??")
                    for k in range(3)]
        if S[g, C.DISCARDING] == 1 and p == S[g, C.GALLO]:     # pata de gallo: his fourth
            hands[p].append(card_str(S[g, C.FOURTH]) if shown else "??")
    to = (f"tantos from {rules.target} down to 0" if getattr(rules, "mode", "") == "destantado"
          else f"match to {rules.target}")
    head = (f"Truco {rules.name} · {P} players · {to}"
            + (" (malas y buenas)" if rules.has_buenas else "") + (" · con flor" if rules.flor
                                                                    else ""))
    mask = game.legal_mask()[g] if not v["hand_over"] else None
    if seat is None:        # a spectator sees every seña and who caught it
        vocab = v["sena_names"]
        v["senas"] = [{**e, "sena": vocab[e["sena"]]} for e in hand_events(S, g)
                      if e["event"] == "sena"]
    return head + "\n" + format_view(v, seat, hands=hands, mask=mask)


def hand_summary(view: Mapping, me: int | None) -> str:
    """What happened in a finished hand (a view taken before the next deal)."""
    P = view["players"]
    teams = view.get("teams")
    lines = [f"--- Hand {view['hand_number']} over ({view['end_reason']}) ---"]
    if view.get("pica_pica"):
        lines += ["  " + x for x in pica_lines(view, me)]
    for b, row in enumerate(view["table"]):
        lines.append(f"  baza {b + 1}: " + ", ".join(f"{seat_name(p, me, P, teams)} {c}" for p, c in row)
                     + baza_result_text(view["baza_results"][b], me, view))
    lines += ["  " + x for x in sena_lines(view, me)]
    if view["calls"]:
        lines.append("  calls: " + ", ".join(f"{seat_name(p, me, P, teams)} {a}" for p, a in view["calls"]))
    if view["envido_points"]:
        lines.append("  points shown: " + ", ".join(f"{seat_name(p, me, P, teams)} {x}"
                                                    for p, x in view["envido_points"].items()))
    pts = view["hand_points"]
    if view.get("mode") in ("pata_de_gallo", "destantado"):
        word = "shed" if view["mode"] == "destantado" else "points"
        lines.append(f"  {word}: " + ", ".join(f"{seat_name(p, me, P, teams)} {pts[p]:+d}"
                                             for p in range(P)))
    else:
        lines.append("  points: " + ", ".join(f"{team_name(t, me)} +{pts[t]}" for t in range(2)))
    return "\n".join(lines)
