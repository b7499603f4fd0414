// The lobby: lists the games (/api/games) and bots (/api/bots), opens a table
// (POST /api/tables) and shows its links. Text from the server is set as text, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
let games = [];
let bots = [];

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c !== null && c !== undefined) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function selected() {
  return games.find((g) => g.name === $("game").value);
}

// The variants of `g` ticked now, in the order they are listed.
function chosenVariants(g) {
  const ticked = [...$("variants").querySelectorAll("input:checked")].map((box) => box.value);
  return g.variants.filter((v) => ticked.includes(v.name));
}

// The seats a game may be played with, its variants' included ("2–4" for a game of 3–4 with a
// two-player variant).
function seatRange(g) {
  const all = [g, ...g.variants];
  const min = Math.min(...all.map((v) => v.min_players));
  const max = Math.max(...all.map((v) => v.max_players));
  return min === max ? `${min}` : `${min}–${max}`;
}

// The seats a table may have: the game's, or those of the last chosen variant that says
// otherwise (a two-player variant of a game for more).
function showPlayers(g) {
  let [min, max] = [g.min_players, g.max_players];
  for (const v of chosenVariants(g)) {
    if (v.min_players !== g.min_players || v.max_players !== g.max_players) [min, max] = [v.min_players, v.max_players];
  }
  const players = $("players");
  players.min = min;
  players.max = max;
  const n = Number(players.value);
  if (!(n >= min && n <= max)) {
    players.value = Math.max(min, Math.min(2, max));
    showSeats();
  }
}

function showGame() {
  const g = selected();
  if (!g) return;
  $("about").textContent = g.error ? `This game does not load: ${g.error}` : g.description;
  $("variants").replaceChildren(
    ...g.variants.map((v) =>
      el("label", { class: "check", title: v.description }, el("input", { type: "checkbox", value: v.name, onchange: showVariant }),
        ` ${v.name}`, el("small", {}, v.description)),
    ),
  );
  $("variants-box").hidden = g.variants.length === 0;
  $("params").replaceChildren();
  showParams();
  showPlayers(g);
  showSeats();
}

// A variant chosen or dropped: its parameters and its seats.
function showVariant() {
  const g = selected();
  if (!g) return;
  showParams();
  showPlayers(g);
}

// The parameters a table of the chosen game may set: the game's, then what each chosen
// variant declares or changes, in the order the variants are listed.
function chosenParams(g) {
  const list = [...g.params];
  for (const v of chosenVariants(g)) {
    for (const p of v.params) {
      const at = list.findIndex((x) => x.name === p.name);
      if (at >= 0) list[at] = p;
      else list.push(p);
    }
  }
  return list;
}

// Draws the parameters' inputs; a value someone typed stays while its parameter is offered.
function showParams() {
  const g = selected();
  if (!g) return;
  const typed = {};
  for (const input of $("params").querySelectorAll("[data-param]")) {
    if (String(input.value) !== input.dataset.default) typed[input.dataset.param] = input.value;
  }
  const params = chosenParams(g);
  $("params").replaceChildren(
    ...params.map((p) => {
      let input;
      if (p.choices) {
        input = el("select", { "data-param": p.name },
          ...p.choices.map((c) => el("option", { value: String(c), selected: c === p.default }, String(c))));
      } else if (typeof p.default === "number") {
        input = el("input", { type: "number", "data-param": p.name, value: p.default, min: p.min, max: p.max });
      } else if (typeof p.default === "boolean") {
        input = el("select", { "data-param": p.name },
          el("option", { value: "true", selected: p.default }, "true"),
          el("option", { value: "false", selected: !p.default }, "false"));
      } else {
        input = el("input", { type: "text", "data-param": p.name, value: String(p.default ?? "") });
      }
      input.dataset.default = String(p.default ?? "");
      if (p.name in typed) input.value = typed[p.name];
      return el("label", { title: p.description }, `${p.name} `, input, el("small", {}, p.description));
    }),
  );
  $("params-box").hidden = params.length === 0;
}

function showSeats() {
  const n = Math.max(0, Math.min(Number($("players").value) || 0, 16));
  const old = [...$("seats").querySelectorAll(".seat")].map((s) => [s.querySelector("select").value, s.querySelector("input").value]);
  const rows = [];
  for (let i = 0; i < n; i++) {
    const [kind, opts] = old[i] || [i === 0 ? "person" : "person", ""];
    const select = el("select", { "aria-label": `P${i + 1}` },
      el("option", { value: "person", selected: kind === "person" }, "a person (private link)"),
      ...bots.map((b) => el("option", { value: b.name, selected: kind === b.name, title: b.about }, `bot: ${b.name}`)));
    const options = el("input", { type: "text", placeholder: "bot options, e.g. iterations=200", value: opts });
    const sync = () => { options.hidden = select.value === "person"; };
    select.addEventListener("change", sync);
    sync();
    rows.push(el("div", { class: "seat" }, el("span", { class: "seat-name" }, `P${i + 1}`), select, options));
  }
  $("seats").replaceChildren(...rows);
}

async function open(event) {
  event.preventDefault();
  const g = selected();
  const request = { game: g.name, players: Number($("players").value), variants: [], options: {}, bot: [] };
  for (const box of $("variants").querySelectorAll("input:checked")) request.variants.push(box.value);
  for (const input of $("params").querySelectorAll("[data-param]")) {
    if (String(input.value) !== input.dataset.default) request.options[input.dataset.param] = input.value;
  }
  [...$("seats").querySelectorAll(".seat")].forEach((row, i) => {
    const kind = row.querySelector("select").value;
    const opts = row.querySelector("input").value.trim();
    if (kind !== "person") request.bot.push(`P${i + 1}=${kind}${opts ? ":" + opts : ""}`);
  });
  $("error").hidden = true;
  $("open").disabled = true;
  try {
    const answer = await fetch("/api/tables", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(request) });
    const body = await answer.json();
    if (!answer.ok) throw new Error(body.error || answer.statusText);
    showLinks(body);
  } catch (e) {
    $("error").textContent = e.message;
    $("error").hidden = false;
  } finally {
    $("open").disabled = false;
  }
}

function showLinks(created) {
  const absolute = (path) => new URL(path, location.href).href;
  const row = (who, path, note) => {
    if (!path) return el("li", {}, el("strong", {}, who), ` ${note}`);
    const url = absolute(path);
    const copy = el("button", { type: "button", class: "small", onclick: () => navigator.clipboard?.writeText(url) }, "copy");
    return el("li", {}, el("strong", {}, who), " ", el("a", { href: url, target: "_blank", rel: "noopener", class: "seat-link" }, url), " ", copy);
  };
  $("result-title").textContent = `${created.title}: table ${created.table}`;
  $("links").replaceChildren(
    ...created.seats.map((s) => row(s.name, s.link, `is played by the bot ${s.bot}`)),
    row("Spectators", created.spectator),
  );
  $("form").hidden = true;
  $("result").hidden = false;
}

async function start() {
  const [g, b] = await Promise.all([fetch("/api/games").then((r) => r.json()), fetch("/api/bots").then((r) => r.json())]);
  games = g;
  bots = b;
  $("game").replaceChildren(...games.map((x) => el("option", { value: x.name, disabled: !!x.error }, `${x.title} (${seatRange(x)})`)));
  $("game").addEventListener("change", showGame);
  $("players").addEventListener("input", showSeats);
  $("form").addEventListener("submit", open);
  showGame();
}

start().catch((e) => {
  $("error").textContent = `The lobby cannot load: ${e.message}`;
  $("error").hidden = false;
});
