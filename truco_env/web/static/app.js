// Truco in the browser: the page of truco_env.web.  Vanilla JS, no build step, no network
// beyond this server.  Cards are drawn here as SVG (no borrowed art).
"use strict";

// ------------------------------------------------------------------------------ cards (SVG)
const SUITS = {
  e: {name: "espada", color: "#2c4f86"},
  b: {name: "basto", color: "#3f6b1f"},
  o: {name: "oro", color: "#a8780c"},
  c: {name: "copa", color: "#a5262d"},
};
const FIGURES = {10: "sota", 11: "caballo", 12: "rey"};
// Pip places (x, y) on a 100 x 150 card, by rank.
const PIPS = {
  2: [[50, 42], [50, 102]],
  3: [[50, 38], [50, 71], [50, 104]],
  4: [[33, 42], [67, 42], [33, 102], [67, 102]],
  5: [[33, 40], [67, 40], [50, 72], [33, 104], [67, 104]],
  6: [[33, 38], [67, 38], [33, 71], [67, 71], [33, 104], [67, 104]],
  7: [[33, 36], [67, 36], [50, 53], [33, 70], [67, 70], [33, 104], [67, 104]],
};

// A suit symbol centred on (0, 0), about 52 units tall, drawn from simple shapes.
function suitShape(suit) {
  switch (suit) {
    case "o":   // a gold coin
      return `<circle r="21" fill="#e9c13b" stroke="#8a650c" stroke-width="2.5"/>
        <circle r="14" fill="none" stroke="#8a650c" stroke-width="1.6"/>
        <circle r="5" fill="#c9971a" stroke="#8a650c" stroke-width="1.2"/>`;
    case "c":   // a cup: bowl, stem and foot
      return `<path d="M-17 -19 H17 Q17 1 0 4 Q-17 1 -17 -19 Z" fill="#c8383f" stroke="#6e1419" stroke-width="2"/>
        <ellipse cx="0" cy="-19" rx="17" ry="4.5" fill="#e8a23a" stroke="#6e1419" stroke-width="1.6"/>
        <rect x="-3" y="4" width="6" height="11" fill="#e8a23a" stroke="#6e1419" stroke-width="1.4"/>
        <ellipse cx="0" cy="18" rx="12" ry="4.5" fill="#c8383f" stroke="#6e1419" stroke-width="1.6"/>`;
    case "e":   // a sword: blade, guard, grip and pommel
      return `<path d="M0 -27 L4.5 -19 L4.5 9 L-4.5 9 L-4.5 -19 Z" fill="#cfd9e4" stroke="#23426f" stroke-width="1.8"/>
        <line x1="0" y1="-19" x2="0" y2="7" stroke="#8ea2ba" stroke-width="1.2"/>
        <rect x="-14" y="9" width="28" height="4.5" rx="2.2" fill="#2c4f86"/>
        <rect x="-2.6" y="13.5" width="5.2" height="9" fill="#7a4a22"/>
        <circle cx="0" cy="24.5" r="3.6" fill="#2c4f86"/>`;
    default:    // "b": a club, a knotty stick that widens to the top
      return `<path d="M-4 25 L4 25 L10 -17 Q0 -31 -10 -17 Z" fill="#7aa03a" stroke="#34561a" stroke-width="2"/>
        <circle cx="-5" cy="-9" r="2.6" fill="#34561a"/><circle cx="5" cy="1" r="2.4" fill="#34561a"/>
        <circle cx="-3" cy="12" r="2.2" fill="#34561a"/><circle cx="2" cy="-20" r="2.2" fill="#34561a"/>`;
  }
}

function parseCard(card) {
  const m = /^(\d+)([ebco])$/.exec(card || "");
  return m ? {rank: Number(m[1]), suit: m[2]} : null;
}

function cardSVG(card) {
  const c = parseCard(card);
  if (!c) return cardBackSVG();
  const {rank, suit} = c, col = SUITS[suit].color;
  let body = "";
  if (FIGURES[rank]) {
    body = `<rect x="19" y="27" width="62" height="90" rx="5" fill="${col}" fill-opacity="0.08"
              stroke="${col}" stroke-width="1.6"/>
      <g transform="translate(50 66) scale(0.95)">${suitShape(suit)}</g>
      <text x="50" y="110" text-anchor="middle" font-size="11" font-style="italic" fill="${col}">${FIGURES[rank]}</text>`;
  } else if (rank === 1) {
    body = `<g transform="translate(50 72) scale(1.45)">${suitShape(suit)}</g>`;
  } else {
    body = PIPS[rank].map(([x, y]) =>
      `<g transform="translate(${x} ${y}) scale(0.5)">${suitShape(suit)}</g>`).join("");
  }
  return `<svg class="card-svg" viewBox="0 0 100 150" role="img" aria-label="${rank} de ${SUITS[suit].name}">
    <rect x="1.5" y="1.5" width="97" height="147" rx="9" fill="#fffdf6" stroke="#9c907a" stroke-width="2"/>
    <rect x="6" y="6" width="88" height="138" rx="6" fill="none" stroke="${col}" stroke-opacity="0.35"/>
    <text x="9" y="23" font-size="17" font-weight="700" fill="${col}">${rank}</text>
    <text x="91" y="128" font-size="17" font-weight="700" fill="${col}" text-anchor="end">${rank}</text>
    ${body}
    <text x="50" y="140" text-anchor="middle" font-size="10" letter-spacing="1" fill="${col}">${SUITS[suit].name.toUpperCase()}</text>
  </svg>`;
}

function cardBackSVG() {
  let dots = "";
  for (let x = 17; x <= 83; x += 11) {
    for (let y = 17; y <= 133; y += 11.6) {
      dots += `<path d="M${x} ${(y - 3.5).toFixed(1)} l3.5 3.5 l-3.5 3.5 l-3.5 -3.5 Z" fill="#b8485a"/>`;
    }
  }
  return `<svg class="card-svg back" viewBox="0 0 100 150" role="img" aria-label="a card face down">
    <rect x="1.5" y="1.5" width="97" height="147" rx="9" fill="#7d1d2b" stroke="#4a0f18" stroke-width="2"/>
    ${dots}
    <rect x="8" y="8" width="84" height="134" rx="5" fill="none" stroke="#f0d9a0" stroke-width="2"/>
    <circle cx="50" cy="75" r="15" fill="#7d1d2b" stroke="#f0d9a0" stroke-width="2"/>
    <text x="50" y="80" text-anchor="middle" font-size="14" font-weight="700" fill="#f0d9a0">T</text>
  </svg>`;
}

// ------------------------------------------------------------------------------ helpers
const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"']/g, (ch) =>
  ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[ch]));

const LABELS = {
  envido: "Envido", real_envido: "Real envido", falta_envido: "Falta envido", flor: "Flor",
  contraflor: "Contraflor", contraflor_al_resto: "Contraflor al resto",
  con_flor_me_achico: "Con flor me achico", truco: "¡Truco!", retruco: "¡Retruco!",
  vale_cuatro: "¡Vale cuatro!", quiero: "Quiero", no_quiero: "No quiero", mazo: "Me voy al mazo",
};
function actionLabel(name, text) {
  if (LABELS[name]) return LABELS[name];
  const sena = /^sena_\d+ \((.*)\)$/.exec(text || "");
  if (sena) return "Seña: " + sena[1].replace(/_/g, " ");
  const play = /^(play|discard)_\d \((.*)\)$/.exec(text || "");
  if (play) return (play[1] === "play" ? "Play " : "Discard ") + play[2];
  return (text || name).replace(/_/g, " ");
}

// The envido chain is letters (E envido, R real envido, F falta envido), e.g. "EER".
function pendingText(p) {
  if (/^[ERF]+$/.test(p)) return p.split("").map((x) => LABELS[{E: "envido", R: "real_envido", F: "falta_envido"}[x]]).join(" + ");
  return LABELS[p] || p;
}

async function api(method, path, body) {
  const opts = {method, headers: {}};
  if (body !== undefined) {
    if (body instanceof Blob || typeof body === "string") {
      opts.body = body;
    } else {
      opts.body = JSON.stringify(body);
    }
    opts.headers["Content-Type"] = "application/json";
  }
  const r = await fetch(path, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = {detail: r.statusText}; }
  if (!r.ok) throw new Error((data && data.detail) || `HTTP ${r.status}`);
  return data;
}

function showError(msg) {
  const box = $("error");
  box.textContent = msg;
  box.hidden = !msg;
  if (msg) setTimeout(() => { if (box.textContent === msg) box.hidden = true; }, 8000);
}

// Who is who, from the perspective of seat `me` (null: a spectator).
function sideOf(view, seat) {
  return view.teams ? view.teams[seat] : seat % 2;
}
function seatName(view, seat, me, agents) {
  const agent = agents && agents[seat] ? ` · ${agents[seat]}` : "";
  if (me !== null && seat === me) return "You";
  const partner = me !== null && view.players > 2 && view.mode !== "destantado" &&
    sideOf(view, seat) === sideOf(view, me);
  return `${partner ? (view.players > 4 ? "Partner P" + seat : "Partner") : "Player " + seat}${agent}`;
}
function sideName(view, side, me) {
  if (view.mode === "destantado") return seatName(view, side, me, null);
  if (me === null) return view.mode === "pata_de_gallo" ?
    (view.gallo !== null && sideOf(view, view.gallo) === side ? "the gallo" : "the pair") : `team ${side}`;
  return side === sideOf(view, me) ? "yours" : "theirs";
}
function scoreText(view, pts) {
  if (!view.buenas) return {main: String(pts), sub: ""};
  const half = Math.floor(view.target / 2);
  return pts <= half ? {main: String(pts), sub: "malas"} : {main: String(pts - half), sub: "buenas"};
}

// ------------------------------------------------------------------------------ the table
// Renders view (a decode_view dict) on `el` from seat `me` (null: spectator, seat 0 at the
// bottom).  `hands`: every seat's cards (replays), `agents`: a label by seat.
function renderTable(el, view, me, opts) {
  const P = view.players, bottom = me === null ? 0 : me;
  const agents = opts.agents || [];
  const played = {};
  for (const e of view.events || []) {
    if (e.event === "action" && e.card) played[e.seat] = (played[e.seat] || 0) + 1;
  }
  const lastCall = {};
  for (const [seat, name] of view.calls) lastCall[seat] = name;
  let html = "";
  for (let s = 0; s < P; s++) {
    const i = (s - bottom + P) % P;
    const theta = Math.PI / 2 - (2 * Math.PI * i) / P;   // play order runs to your right
    const x = 50 + 41 * Math.cos(theta), y = 50 + 40 * Math.sin(theta);
    const classes = ["seat", `side-${sideOf(view, s) % 2}`];
    if (view.to_act === s) classes.push("turn");
    if (s === me) classes.push("me");
    if (view.out && view.out.includes(s)) classes.push("out");
    const duel = view.pica_pica && view.duel !== null ? view.duels[view.duel] : null;
    if (duel && !view.hand_over && !duel.seats.includes(s)) classes.push("out");   // not in this duel
    const badges = [];
    if (view.mano === s) badges.push('<span class="badge">mano</span>');
    if (view.gallo === s) badges.push('<span class="badge">gallo</span>');
    if (view.to_act === s) badges.push('<span class="badge turn-badge">to play</span>');
    let cards = "";
    if (opts.hands) {
      const h = opts.hands[s];
      cards = h.cards.map((c, k) => h.played[k] ? "" : `<span class="mini">${cardSVG(c)}</span>`).join("");
    } else if (s === me && opts.showMine) {
      cards = view.hand.filter((c) => c).map((c) => `<span class="mini">${cardSVG(c)}</span>`).join("");
    } else if (s !== me) {
      const left = Math.max(0, 3 - (played[s] || 0)) + (view.discarding && view.gallo === s ? 1 : 0);
      cards = Array.from({length: view.hand_over ? 0 : left}, () => `<span class="mini">${cardBackSVG()}</span>`).join("");
    }
    const call = lastCall[s] ? `<div class="bubble">${esc(LABELS[lastCall[s]] || lastCall[s])}</div>` : "";
    const pts = view.envido_points && view.envido_points[s] !== undefined ?
      `<span class="badge pts">${view.envido_points[s]} pts</span>` : "";
    html += `<div class="${classes.join(" ")}" style="left:${x}%;top:${y}%" data-seat="${s}">
      ${call}<div class="seat-name">${esc(seatName(view, s, me, agents))}</div>
      <div class="badges">${badges.join("")}${pts}</div><div class="minis">${cards}</div></div>`;
  }
  // The bazas of the hand (the duel in progress in pica-pica), one row each.
  let rows = "";
  view.table.forEach((row, b) => {
    const r = view.baza_results[b];
    const res = r === null || r === undefined ? "" : r === "parda" ? "parda" :
      sideName(view, r, me);
    rows += `<div class="baza"><div class="baza-label">Baza ${b + 1}<br><small>${esc(res)}</small></div>
      ${row.map(([seat, card]) => `<figure class="played side-${sideOf(view, seat) % 2}">${cardSVG(card)}
        <figcaption>${esc(seat === me ? "you" : seatName(view, seat, me, null).replace("Player ", "P"))}</figcaption></figure>`).join("")}</div>`;
  });
  html += `<div class="center">${rows || '<div class="empty">no cards played yet</div>'}</div>`;
  el.innerHTML = html;
}

function renderScore(el, view, me) {
  const rows = [];
  const n = view.score.length;
  const order = Array.from({length: n}, (_, k) => k);
  if (!view.mode && me !== null && me % 2 === 1) order.reverse();      // your side first
  for (const k of order) {
    const label = view.mode ? (me === k ? "You" : `Player ${k}`) : (me === null ? `Team ${k}` :
      k === me % 2 ? "Us" : "Them");
    const t = scoreText(view, view.score[k]);
    const frac = Math.min(1, view.score[k] / view.target);
    rows.push(`<div class="score-row side-${k % 2}" data-side="${k}" data-score="${view.score[k]}">
      <span class="who">${esc(label)}</span>
      <span class="bar"><span style="width:${(100 * frac).toFixed(1)}%"></span>${view.buenas ? '<i class="half"></i>' : ""}</span>
      <span class="pts">${esc(t.main)}</span><span class="sub">${esc(t.sub)}</span></div>`);
  }
  const goal = view.mode === "destantado" ? `tantos left, first to 0 wins` :
    `to ${view.target}${view.buenas ? " · malas y buenas" : ""}`;
  el.innerHTML = `<h3>Score <small>${esc(goal)}</small></h3>${rows.join("")}`;
}

const TRUCO = ["1 point (no truco)", "truco (2)", "retruco (3)", "vale cuatro (4)"];
function renderInfo(el, view, me, agents) {
  const nm = (s) => seatName(view, s, me, null);
  const parts = [view.muestra ? `<div class="muestra">${cardSVG(view.muestra)}<span>muestra</span></div>` : "",
    `<div><b>Hand ${view.hand_number}</b> · ${esc(view.rules)}${view.flor ? " · con flor" : ""}</div>`,
    `<div>Mano: ${esc(nm(view.mano))} · ${esc(TRUCO[view.truco_level])}</div>`];
  if (view.pending) parts.push(`<div class="pending">Waiting for an answer to <b>${esc(pendingText(view.pending))}</b></div>`);
  if (view.calls.length) {
    parts.push(`<div><b>Calls</b>: ${view.calls.map(([s, a]) => `${esc(nm(s))} ${esc(LABELS[a] || a)}`).join(", ")}</div>`);
  }
  const shown = Object.entries(view.envido_points || {});
  if (shown.length) parts.push(`<div><b>Points shown</b>: ${shown.map(([s, p]) => `${esc(nm(Number(s)))} ${p}`).join(", ")}</div>`);
  if (view.senas && view.senas.length) {
    parts.push(`<div><b>Señas</b>: ${view.senas.map((x) => `${esc(nm(x.seat))} ${esc(x.sena.replace(/_/g, " "))}` +
      ` (baza ${x.baza + 1}${x.caught === true ? ", caught" : ""}${Array.isArray(x.caught) && x.caught.length ? ", caught by " + x.caught.map(nm).join(", ") : ""})`).join("; ")}</div>`);
  }
  if (view.pica_pica && view.duels.length) {
    parts.push(`<div><b>Pica-pica</b>: ${view.duels.map((d) => `duel ${d.duel + 1} ${esc(nm(d.seats[0]))} vs ${esc(nm(d.seats[1]))}` +
      (d.end_reason ? ` → ${esc(sideName(view, d.winner, me))}` : d.duel === view.duel ? " (now)" : "")).join("; ")}</div>`);
  }
  if (view.discarding) parts.push(`<div>The gallo discards one of his four cards.</div>`);
  if (view.discarded && me !== null) parts.push(`<div>You discarded ${esc(view.discarded)}</div>`);
  el.innerHTML = parts.join("");
}

// ------------------------------------------------------------------------------ playing
const G = {id: null, state: null, log: [], clickAt: null};
window.trucoStats = {latencies: [], serverMs: [], updates: 0};

function sidesText(view, pts, me) {
  return pts.map((p, k) => `${view.mode ? (k === me ? "you" : "player " + k) : sideName(view, k, me)} +${p}`).join(", ");
}

function render() {
  const st = G.state, view = st.view, me = view.seat;
  const agents = st.seats.map((x) => x.agent === "you" ? "" : x.agent);
  renderTable($("table"), view, me, {agents});
  renderScore($("scoreboard"), view, me);
  renderInfo($("info"), view, me, agents);
  const legal = new Map(st.legal.map((a) => [a.name, a]));
  // Your cards: a card is a button when playing (or discarding) it is legal.
  $("hand").innerHTML = view.hand.map((card, k) => {
    if (card === null) return "";
    const a = legal.get(`play_${k}`) || legal.get(`discard_${k}`);
    return a ? `<button class="card-btn" type="button" data-action="${a.id}" title="${esc(actionLabel(a.name, a.text))}">${cardSVG(card)}</button>`
      : `<span class="card-btn disabled">${cardSVG(card)}</span>`;
  }).join("");
  $("hand-info").textContent = `envido ${view.my_envido}` + (view.flor && view.my_flor !== null ? ` · flor ${view.my_flor}` : "") +
    (view.done ? "" : view.to_act === me ? " · your turn" : "");
  const button = (a) => `<button type="button" class="act ${a.name}" data-action="${a.id}">${esc(actionLabel(a.name, a.text))}</button>`;
  $("actions").innerHTML = st.legal.filter((a) => !/^(play|discard|sena)_/.test(a.name)).map(button).join("");
  const senas = st.legal.filter((a) => /^sena_/.test(a.name));
  $("senas").innerHTML = senas.length ? `<span class="senas-label">Señas to your partners:</span>` +
    senas.map((a) => button(a).replace("Seña: ", "")).join("") : "";
  $("advice-box").hidden = !st.advice;
  $("advice-btn").disabled = !st.legal.length;
  $("log").innerHTML = G.log.slice(-60).map((x) => `<li class="${x.cls || ""}">${esc(x.text)}</li>`).join("");
  $("log").scrollTop = $("log").scrollHeight;
  $("status").textContent = view.done ? "match over" : view.to_act === me ? "your turn" : "";
}

function logMoves(moves, view) {
  const me = view.seat;
  for (const m of moves || []) {
    if (m.hand_end) {
      const v = m.hand_end;
      G.log.push({cls: "hand-end", text: `Hand ${v.hand_number} over (${v.end_reason}): ${sidesText(v, v.hand_points, me)}`});
      continue;
    }
    const who = m.seat === me ? "You" : seatName(view, m.seat, me, null);
    G.log.push({cls: m.seat === me ? "mine" : "bot", text: `${who}: ${actionLabel(m.name, m.text)}`});
    if (m.ms !== undefined) window.trucoStats.serverMs.push(m.ms);
  }
}

function showSummary(st) {
  const ends = (st.moves || []).filter((m) => m.hand_end);
  if (!ends.length && !st.view.done) return;
  const me = st.view.seat;
  let html = "";
  for (const m of ends) {
    const v = m.hand_end;
    html += `<h2>Hand ${v.hand_number} over <small>(${esc(v.end_reason)})</small></h2>`;
    html += v.table.map((row, b) => `<div class="sum-baza"><span>Baza ${b + 1}</span>${row.map(([s, c]) =>
      `<figure class="played side-${sideOf(v, s) % 2}">${cardSVG(c)}<figcaption>${esc(s === me ? "you" : "P" + s)}</figcaption></figure>`).join("")}
      <span class="res">${v.baza_results[b] === null ? "" : v.baza_results[b] === "parda" ? "parda" : esc(sideName(v, v.baza_results[b], me))}</span></div>`).join("");
    const shown = Object.entries(v.envido_points || {});
    if (shown.length) html += `<p>Points shown: ${shown.map(([s, p]) => `${esc(seatName(v, Number(s), me, null))} ${p}`).join(", ")}</p>`;
    html += `<p class="hand-points">Points: ${esc(sidesText(v, v.hand_points, me))}</p>`;
  }
  const view = st.view;
  if (view.done) {
    const won = view.mode ? view.winner === me : view.winner === me % 2;
    html += `<h2 class="result">${won ? "You win the match!" : "You lose the match"}</h2>`;
  }
  html += `<p class="score-now">Score: ${view.score.map((p, k) => `${view.mode ? (k === me ? "you" : "player " + k) : sideName(view, k, me)} ${p}`).join(" · ")}</p>`;
  html += `<button id="continue" type="button" class="primary">${view.done ? "New game" : "Next hand"}</button>`;
  $("summary").innerHTML = html;
  $("overlay").hidden = false;
  $("continue").onclick = () => {
    $("overlay").hidden = true;
    if (view.done) { $("game").hidden = true; $("setup").hidden = false; }
  };
}

async function act(id) {
  if (G.busy) return;
  G.busy = true;
  const t0 = performance.now();
  try {
    const st = await api("POST", `/api/games/${G.id}/act`, {action: id});
    G.state = st;
    logMoves(st.moves, st.view);
    $("advice").innerHTML = "";
    render();
    showSummary(st);
    requestAnimationFrame(() => {
      window.trucoStats.latencies.push(performance.now() - t0);
      window.trucoStats.updates += 1;
      document.body.dataset.updates = String(window.trucoStats.updates);
    });
  } catch (e) {
    showError(e.message);
  } finally {
    G.busy = false;
  }
}

document.addEventListener("click", (ev) => {
  const b = ev.target.closest("[data-action]");
  if (b && !$("game").hidden && $("overlay").hidden) act(Number(b.dataset.action));
});

async function askAdvice() {
  try {
    const a = await api("GET", `/api/games/${G.id}/advice`);
    const rows = a.actions.slice().sort((x, y) => y.prob - x.prob).map((x) =>
      `<div class="adv-row"><span>${esc(actionLabel(x.name, x.text))}</span>
        <span class="bar"><span style="width:${(100 * x.prob).toFixed(1)}%"></span></span>
        <span class="pct">${(100 * x.prob).toFixed(1)}%</span></div>`).join("");
    const value = a.value === null || a.value === undefined ? "n/a" : a.value.toFixed(2);
    $("advice").innerHTML = `<div class="adv-head">${esc(a.advisor)} · value ${value}
      <small>(return it was trained on: +1 win, −1 loss)</small></div>${rows}`;
  } catch (e) {
    showError(e.message);
  }
}

// ------------------------------------------------------------------------------ setup form
let OPTIONS = null;
function fillSetup() {
  const p = OPTIONS.presets[$("rules").value];
  const keep = (sel, values, def) => {
    const old = sel.value;
    sel.innerHTML = values.map((v) => `<option value="${v}">${v}</option>`).join("");
    sel.value = values.map(String).includes(old) ? old : String(def);
  };
  keep($("players"), p.players, p.players[0]);
  keep($("target"), p.targets, p.target);
  const n = Number($("players").value);
  keep($("seat"), Array.from({length: n}, (_, k) => k), 0);
  for (const el of document.querySelectorAll(".teams-only")) el.hidden = n === 3 || n === 2;
}

async function initSetup() {
  OPTIONS = await api("GET", "/api/options");
  $("rules").innerHTML = Object.keys(OPTIONS.presets).map((r) => `<option>${r}</option>`).join("");
  $("specs").innerHTML = OPTIONS.specs.map((s) => `<option value="${esc(s)}">`).join("");
  fillSetup();
  $("rules").onchange = fillSetup;
  $("players").onchange = fillSetup;
}

function opt(id, kind) {
  const v = $(id).value.trim();
  if (v === "") return null;
  if (kind === "int") return Number(v);
  if (kind === "bool") return v === "true";
  return v;
}

$("setup").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const body = {rules: $("rules").value, players: opt("players", "int"), seat: opt("seat", "int"),
    opponent: opt("opponent") || "heuristic", partner: opt("partner"), target: opt("target", "int"),
    flor: opt("flor", "bool"), pica_pica: opt("pica_pica", "bool"), senas: opt("senas"),
    advisor: opt("advisor"), seed: opt("seed", "int")};
  if (Number(body.players) <= 3) { body.partner = null; body.pica_pica = null; body.senas = null; }
  $("start").disabled = true;
  $("status").textContent = "dealing…";
  try {
    const st = await api("POST", "/api/games", body);
    G.id = st.id; G.state = st; G.log = [{cls: "hand-end", text: `New match: ${body.rules}, ${st.view.players} players, you are seat ${st.view.seat}`}];
    sessionStorage.setItem("truco-game", st.id);     // this tab's game (a reload resumes it)
    logMoves(st.moves, st.view);
    $("setup").hidden = true; $("game").hidden = false; $("advice").innerHTML = "";
    render();
  } catch (e) {
    showError(e.message);
    $("status").textContent = "";
  } finally {
    $("start").disabled = false;
  }
});
$("advice-btn").onclick = askAdvice;
$("new-game").onclick = () => {
  tab("play");
  $("overlay").hidden = true; $("game").hidden = true; $("setup").hidden = false;
};

// ------------------------------------------------------------------------------ replays
const R = {id: null, steps: 0, players: 0, step: 0};

async function loadReplay() {
  const f = $("record-file").files[0];
  if (!f) return;
  try {
    const idx = Number($("record-index").value) || 0;
    const r = await api("POST", `/api/replays?match=${idx}`, f);
    Object.assign(R, {id: r.id, steps: r.steps, players: r.players, step: 0});
    $("rp-step").max = String(r.steps - 1);
    $("rp-show").innerHTML = '<option value="all">every hand</option>' +
      Array.from({length: r.players}, (_, k) => `<option value="${k}">player ${k} only</option>`).join("");
    $("replay-meta").textContent = `${r.records > 1 ? `record ${idx} of ${r.records} · ` : ""}${r.steps} positions`;
    $("replay-game").hidden = false;
    await showStep(0);
  } catch (e) {
    showError(e.message);
  }
}

async function showStep(k) {
  if (!R.id) return;
  R.step = Math.max(0, Math.min(R.steps - 1, k));
  const show = $("rp-show").value;
  try {
    const p = await api("GET", `/api/replays/${R.id}?step=${R.step}&show=${show}`);
    const me = show === "all" ? null : Number(show);
    const agents = p.agents || [];
    renderTable($("rp-table"), p.view, me, {hands: p.hands, agents, showMine: true});
    renderScore($("rp-score"), p.view, me);
    renderInfo($("rp-info"), p.view, me, agents);
    const mv = p.move ? (p.move.hidden ? `${seatName(p.view, p.move.seat, me, null)}: (a seña you did not see)` :
      `${seatName(p.view, p.move.seat, me, null)}: ${actionLabel(p.move.name, p.move.text)}`) : `hand ${p.view.hand_number} dealt`;
    $("rp-info").insertAdjacentHTML("afterbegin", `<div class="last-move">${esc(mv)}</div>`);
    $("rp-step").value = String(R.step);
    $("rp-pos").textContent = `${R.step + 1} / ${R.steps}`;
  } catch (e) {
    showError(e.message);
  }
}

$("record-file").onchange = loadReplay;
$("record-index").onchange = loadReplay;
$("rp-first").onclick = () => showStep(0);
$("rp-prev").onclick = () => showStep(R.step - 1);
$("rp-next").onclick = () => showStep(R.step + 1);
$("rp-last").onclick = () => showStep(R.steps - 1);
$("rp-step").oninput = () => showStep(Number($("rp-step").value));
$("rp-show").onchange = () => showStep(R.step);

function tab(which) {
  $("play-view").hidden = which !== "play";
  $("replay-view").hidden = which !== "replay";
  $("tab-play").classList.toggle("active", which === "play");
  $("tab-replay").classList.toggle("active", which === "replay");
}
$("tab-play").onclick = () => tab("play");
$("tab-replay").onclick = () => tab("replay");
document.addEventListener("keydown", (ev) => {
  if ($("replay-view").hidden || ev.target.tagName === "INPUT") return;
  if (ev.key === "ArrowRight") showStep(R.step + 1);
  if (ev.key === "ArrowLeft") showStep(R.step - 1);
});

async function resume() {
  const id = sessionStorage.getItem("truco-game");
  if (!id) return;
  try {
    const st = await api("GET", `/api/games/${id}`);
    if (st.view.done) return;
    G.id = id; G.state = st; G.log = [{cls: "hand-end", text: "Match resumed"}];
    $("setup").hidden = true; $("game").hidden = false;
    render();
  } catch (e) {
    sessionStorage.removeItem("truco-game");       // dropped after its idle time
  }
}

initSetup().then(resume).catch((e) => showError(e.message));
