// The table page: draws any game from the `view` messages of its link's WebSocket, and sends
// the seat's choices. Everything shown comes from the message (the seat's own view and log);
// text is always set as text, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const token = location.pathname.split("/").filter(Boolean)[1] || "";
let socket = null;
let current = null;
let waiting = false;
let retry = 500;
let logSeen = 0;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c !== null && c !== undefined && c !== false) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// A stable hue for a name (component kinds): the same name, the same colour.
function hue(name) {
  let h = 7;
  for (const ch of String(name)) h = (h * 131 + ch.codePointAt(0) * 17) % 360;
  return h;
}

// Seats get hues far apart, in seat order.
function seatHue(p) {
  return p === null || p === undefined ? 210 : (200 + p * 137) % 360;
}

function text(value) {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map(text).join(", ");
  if (typeof value === "object") return Object.entries(value).map(([k, v]) => `${k}: ${text(v)}`).join(", ");
  return String(value);
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${location.host}/ws/${token}`);
  socket.onopen = () => {
    retry = 500;
    setLink("live", "live");
  };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = () => {
    waiting = false;
    setLink("reconnecting…", "down");
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 8000);
  };
}

function setLink(words, state) {
  $("link").textContent = words;
  $("link").dataset.state = state;
}

function notice(message, kind) {
  const n = $("notice");
  n.textContent = message || "";
  n.dataset.kind = kind || "info";
  n.hidden = !message;
  if (message) {
    clearTimeout(notice.timer);
    notice.timer = setTimeout(() => { n.hidden = true; }, 6000);
  }
}

function receive(m) {
  if (m.type === "view") {
    if (current && m.version < current.version) return;
    current = m;
    render(m);
  } else if (m.type === "accepted") {
    waiting = false;
    notice("");
  } else if (m.type === "error") {
    waiting = false;
    notice(m.message, "error");
    if (current) render(current);
  }
}

function choose(id) {
  if (!current || waiting || !socket || socket.readyState !== WebSocket.OPEN) return;
  waiting = true;
  socket.send(JSON.stringify({ type: "choose", option: id, version: current.version }));
  render(current);
  document.body.classList.add("waiting");
}

function seatName(v, p) {
  return v.seats[p] ?? `seat ${p + 1}`;
}

function names(v, seats) {
  return seats.map((p) => seatName(v, p)).join(", ");
}

function render(m) {
  const v = m.view;
  const me = m.seat;
  document.body.classList.remove("waiting");
  document.title = `${v.game} · ${me === null ? "spectator" : seatName(v, me)}`;
  $("title").textContent = v.game;
  $("who").textContent = me === null ? "spectator (public view)" : `you are ${seatName(v, me)}`;
  $("who").style.setProperty("--seat", seatHue(me));
  $("problem").hidden = !m.problem;
  $("problem").textContent = m.problem || "";
  const options = v.pending && me !== null ? v.pending.options : [];
  const playable = new Map(options.map((o) => [o.id, o]));
  renderTurn(m, v, me, options);
  renderScores(v, me);
  renderBoard(v, me, playable);
  renderSetup(m);
  renderLog(m.log);
}

function renderTurn(m, v, me, options) {
  const parts = [];
  if (v.outcome) {
    const won = v.outcome.winners.length ? `${names(v, v.outcome.winners)} ${v.outcome.winners.length > 1 ? "win" : "wins"}` : "nobody wins";
    parts.push(el("h2", { class: "over" }, `Game over: ${won}`));
    if (v.outcome.scores.length) {
      parts.push(el("p", {}, v.outcome.scores.map((s, p) => `${seatName(v, p)} ${s}`).join(" · ")));
    }
    if (m.transcript) {
      parts.push(el("p", {}, el("a", { href: `/t/${token}/transcript`, download: "", class: "button" }, "Download the transcript"),
        " (replay it with ", el("code", {}, "rulebook replay FILE"), ")"));
    }
  } else if (v.pending) {
    const p = v.pending;
    const others = p.waiting_for.filter((x) => x !== me);
    if (options.length) {
      parts.push(el("h2", { class: "yours" }, `Your turn: ${p.prompt}`));
      if (p.my_set && p.my_set.length) parts.push(el("p", {}, "Your set so far: ", p.my_set.map((c) => c.label).join(", ")));
      parts.push(el("div", { class: "options" },
        options.map((o) => el("button", { type: "button", class: "option", title: o.id, "data-option": o.id, disabled: waiting, onclick: () => choose(o.id) }, o.label))));
      if (p.commit && others.length) parts.push(el("p", { class: "hint" }, `A hidden choice: nobody sees it before everyone has chosen (still to choose: ${names(v, others)}).`));
    } else if (p.commit) {
      const done = p.my_commit ? [el("strong", {}, "You chose "), el("span", { class: "mine" }, p.my_commit), ". "] : [];
      const n = p.waiting_for.length;
      parts.push(el("h2", {}, p.prompt));
      parts.push(el("p", { class: "waiting-for" }, ...done,
        `Waiting for ${n} player${n === 1 ? "" : "s"} (${names(v, p.waiting_for)}) to choose in secret.`));
    } else {
      parts.push(el("h2", {}, `${names(v, p.waiting_for)} to play: ${p.prompt}`));
    }
  }
  for (const e of v.errors || []) parts.push(el("p", { class: "error" }, e));
  $("turn").replaceChildren(...parts);
}

// Per-seat tracks and vars as one table (a row per seat); global ones as a list.
function renderScores(v, me) {
  const values = [...v.tracks, ...v.vars].filter((x) => {
    const shown = x.shown ?? x.value;
    return !(shown === null || shown === "" || (Array.isArray(shown) && shown.length === 0));
  });
  const show = (x) => (x.shown ?? text(x.value)) + (x.space ? ` (${x.space})` : "");
  const perSeat = [...new Set(values.filter((x) => x.owner !== null).map((x) => x.name))];
  const global = values.filter((x) => x.owner === null);
  const parts = [];
  if (global.length) {
    parts.push(el("dl", { class: "globals" }, global.map((x) => [el("dt", {}, x.name), el("dd", {}, show(x))])));
  }
  if (perSeat.length) {
    const current = v.pending ? v.pending.waiting_for : [];
    parts.push(el("table", { class: "seat-values" },
      el("thead", {}, el("tr", {}, el("th", {}, ""), perSeat.map((n) => el("th", {}, n)))),
      el("tbody", {}, v.seats.map((name, p) =>
        el("tr", { class: [p === me ? "me" : "", current.includes(p) ? "to-play" : ""].join(" ") },
          el("th", { style: `--seat:${seatHue(p)}` }, name),
          perSeat.map((n) => {
            const x = values.find((y) => y.name === n && y.owner === p);
            return el("td", {}, x ? show(x) : "–");
          }))))));
  }
  $("scores").replaceChildren(...parts);
}

function card(c, playable) {
  const option = playable.get(c.id);
  // Properties the label does not already say (a card labelled "7" need not add "value 7").
  const label = String(c.label).toLowerCase();
  const props = Object.entries(c.props || {}).filter(([k, val]) =>
    k !== "owner" && typeof val !== "object" && !label.includes(String(val).toLowerCase()));
  const node = el(option ? "button" : "div", {
    class: `card${option ? " playable" : ""}${String(c.label).length > 14 ? " long" : ""}`,
    style: `--kind:${hue(c.kind)}`,
    title: `${c.id} (${c.kind})${props.length ? "\n" + props.map(([k, val]) => `${k}: ${val}`).join("\n") : ""}`,
    "data-id": c.id,
    type: option ? "button" : null,
    disabled: option && waiting,
    onclick: option ? () => choose(option.id) : null,
  },
  el("span", { class: "kind" }, c.kind),
  el("span", { class: "label" }, c.label),
  props.length ? el("span", { class: "props" }, props.slice(0, 3).map(([k, val]) => `${k} ${val}`).join(" · ")) : null);
  return node;
}

function zone(z, playable) {
  const title = el("div", { class: "zone-title" }, el("span", {}, z.name),
    z.count === null ? el("span", { class: "count" }, "hidden") : el("span", { class: "count" }, String(z.count)));
  let body;
  if (z.places && z.places.length) {
    body = z.places.map((p) => el("div", { class: "place" }, el("span", { class: "place-label" }, p.label),
      p.card ? card(p.card, playable) : el("div", { class: "card empty" }, "empty")));
  } else if (z.cards.length) {
    body = z.cards.map((c) => card(c, playable));
    if (z.count !== null && z.count > z.cards.length) body.push(facedown(z.count - z.cards.length, "more"));
  } else if (z.count) {
    body = [facedown(z.count, "face down")];
  } else if (z.count === null) {
    body = [el("span", { class: "nothing" }, "not shown to you")];
  } else {
    body = [el("span", { class: "nothing" }, "empty")];
  }
  const cls = `zone${!z.count && !(z.places && z.places.length) ? " empty-zone" : ""}`;
  return el("div", { class: cls, "data-zone": z.name, "data-owner": z.owner === null ? "" : z.owner }, title, el("div", { class: "cards" }, body));
}

function facedown(n, words) {
  return el("div", { class: "card back", title: `${n} ${words}` }, el("span", { class: "label" }, String(n)), el("span", { class: "props" }, words));
}

function grid(g) {
  const cells = new Map(g.cells.map((c) => [`${c.row}:${c.col}`, c]));
  const small = g.rows.length * g.cols.length <= 900;
  const title = el("div", { class: "zone-title" }, el("span", {}, g.name), el("span", { class: "count" }, g.description));
  if (!small) {
    return el("div", { class: "zone grid-zone" }, title, el("ul", { class: "cell-list" },
      g.cells.map((c) => el("li", {}, `${c.row}:${c.col} `, c.label || "", " ", c.pieces.map((p) => p.label).join(" ")))));
  }
  const table = el("div", { class: "grid", style: `grid-template-columns: repeat(${g.cols.length}, minmax(3.2em, 7em))` });
  for (const r of g.rows) {
    for (const c of g.cols) {
      const cell = cells.get(`${r}:${c}`);
      table.append(el("div", { class: `cell${cell && cell.pieces.length ? " occupied" : ""}`, title: `row ${r}, column ${c}` },
        cell && cell.label ? el("span", { class: "cell-label" }, cell.label) : null,
        cell ? cell.pieces.map((p) => el("span", { class: "piece", style: `--kind:${hue(p.id.split("-")[0])}`, title: p.edges ? `${p.id}: ${p.edges.join(" ")}` : p.id }, p.label)) : null));
    }
  }
  return el("div", { class: "zone grid-zone" }, title, table);
}

function renderBoard(v, me, playable) {
  const sections = [];
  if (v.shown && v.shown.length) {
    sections.push(el("section", { class: "area shown" }, el("h3", {}, "Shown to the table"),
      v.shown.map((s) => el("div", { class: "zone" }, el("div", { class: "zone-title" }, s.caption), el("div", { class: "cards" }, s.cards.map((c) => card(c, playable)))))));
  }
  const global = v.zones.filter((z) => z.owner === null);
  const globalGrids = (v.grids || []).filter((g) => g.owner === null);
  if (global.length || globalGrids.length) {
    sections.push(el("section", { class: "area" }, el("h3", {}, "Table"), el("div", { class: "zones" }, global.map((z) => zone(z, playable)), globalGrids.map(grid))));
  }
  // One area per seat: yours first.
  const order = v.seats.map((_, p) => p).sort((a, b) => (b === me) - (a === me));
  for (const p of order) {
    const zones = v.zones.filter((z) => z.owner === p);
    const grids = (v.grids || []).filter((g) => g.owner === p);
    if (!zones.length && !grids.length) continue;
    const toPlay = v.pending && v.pending.waiting_for.includes(p);
    const committed = v.pending && v.pending.commit && v.pending.committed.includes(p);
    sections.push(el("section", { class: `area seat-area${p === me ? " me" : ""}`, style: `--seat:${seatHue(p)}`, "data-seat": p },
      el("h3", {}, p === me ? `${seatName(v, p)} (you)` : seatName(v, p),
        toPlay ? el("span", { class: "badge" }, v.pending.commit ? "choosing" : "to play") : null,
        committed ? el("span", { class: "badge done" }, "has chosen") : null),
      el("div", { class: "zones" }, zones.map((z) => zone(z, playable)), grids.map(grid))));
  }
  $("board").replaceChildren(...sections);
}

function renderSetup(m) {
  const t = m.table;
  const items = [el("li", {}, `table ${t.id}`)];
  if (t.variants.length) items.push(el("li", {}, `variants: ${t.variants.join(", ")}`));
  if (t.options.length) items.push(el("li", {}, `options: ${t.options.map(([k, v]) => `${k}=${v}`).join(", ")}`));
  const bots = t.seats.filter((s) => s.bot);
  if (bots.length) items.push(el("li", {}, `bots: ${bots.map((s) => `${s.name} ${s.bot}`).join(", ")}`));
  $("setup").replaceChildren(el("ul", {}, items));
}

function renderLog(lines) {
  const log = $("log");
  const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
  if (lines.length < logSeen) logSeen = 0;
  log.replaceChildren(...lines.map((l, i) => el("li", { class: i >= logSeen && logSeen > 0 ? "new" : "" }, l)));
  logSeen = lines.length;
  if (atEnd) log.scrollTop = log.scrollHeight;
}

if (token) connect();
