// The page: shows the table's JSON (GET /api/state) and posts the buttons' actions.
// Every post names the hand and step it was shown at, so the server refuses one from a page
// that is out of date; the second click of a double click is not a second action.
"use strict";

const SUITS = { s: ["\u2660", false], h: ["\u2665", true], d: ["\u2666", true], c: ["\u2663", false] };
const RANKS = "23456789TJQKA";
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else if (k === "style") node.style.cssText = v; else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

// "Js", "KhAs", "Js Kh": a list of cards; anything else is shown as text.
function cardTokens(text) {
  const flat = (text || "").replace(/\s+/g, "");
  const tokens = flat.match(/[2-9TJQKA][shdc]?/g);
  return tokens && tokens.join("") === flat ? tokens : null;
}

function showCards(target, text, hiddenCount) {
  target.replaceChildren();
  if (hiddenCount) {
    for (let i = 0; i < hiddenCount; i++) target.append(el("span", { class: "card back" }, ""));
    return;
  }
  const tokens = cardTokens(text);
  if (!tokens) { target.append(text || ""); return; }
  for (const t of tokens) {
    const [symbol, red] = SUITS[t[1]] || ["", false];
    target.append(el("span", { class: "card" + (red ? " red" : ""), title: t }, t[0] + symbol));
  }
}

function actionColour(label, k) {
  const word = label.split(" ")[0];
  if (word === "fold") return "#5b7fb5";
  if (word === "check" || word === "call") return "#52a05a";
  return ["#e08a3c", "#d64541", "#a93226", "#6e1f17"][Math.min(k, 3)];
}

function colours(actions) {
  let raises = 0;
  return actions.map((a) => {
    const w = a.label.split(" ")[0];
    return actionColour(a.label, w === "fold" || w === "check" || w === "call" ? 0 : raises++);
  });
}

function stackedBar(probs, cols) {
  let at = 0;
  const stops = probs.map((p, k) => { const s = `${cols[k]} ${at * 100}% ${(at + p) * 100}%`; at += p; return s; });
  return `linear-gradient(to right, ${stops.join(", ")})`;
}

const pct = (x) => (100 * x).toFixed(1) + "%";
const duration = (s) => (s < 0.001 ? "under 1 ms" : s < 1 ? `${Math.round(1000 * s)} ms` : `${s.toFixed(1)} s`);

function strategyTable(d, cols) {
  const head = el("tr", {}, el("th", {}, "private state"), el("th", {}, "range"));
  d.actions.forEach((a, k) => head.append(el("th", { style: `color:${cols[k]}` }, a.label)));
  const table = el("table", { class: "strategy" }, el("thead", {}, head));
  const body = el("tbody");
  for (const r of d.rows) {
    const tr = el("tr", r.label === d.private ? { class: "held" } : {}, el("td", {}, r.label), el("td", {}, pct(r.range)));
    r.probs.forEach((p) => tr.append(el("td", {}, pct(p))));
    body.append(tr);
  }
  table.append(body);
  return table;
}

// Two-card hands of a deck with suits: a grid of ranks, pairs on the diagonal, suited above, offsuit below.
function handGrid(d, cols) {
  const parsed = d.rows.map((r) => cardTokens(r.label));
  if (parsed.some((t) => !t || t.length !== 2 || t.some((c) => c.length !== 2))) return null;
  const ranks = [...new Set(parsed.flat().map((c) => c[0]))].sort((a, b) => RANKS.indexOf(b) - RANKS.indexOf(a));
  const n = ranks.length;
  const cells = Array.from({ length: n * n }, () => ({ w: 0, n: 0, mix: d.actions.map(() => 0), held: false }));
  parsed.forEach(([a, b], i) => {
    let [x, y] = [ranks.indexOf(a[0]), ranks.indexOf(b[0])];
    if (x > y) [x, y] = [y, x];
    const cell = cells[a[1] === b[1] ? x * n + y : y * n + x];
    const r = d.rows[i];
    cell.w += r.range;
    cell.n += 1;
    r.probs.forEach((p, k) => { cell.mix[k] += r.range * p; });
    if (r.label === d.private) cell.held = true;
  });
  // shade by the range per combination, so that pairs (6), suited (4) and offsuit (12) hands compare
  const density = (c) => (c.n ? c.w / c.n : 0);
  const top = Math.max(...cells.map(density)) || 1;
  const grid = el("div", { class: "grid", style: `grid-template-columns: repeat(${n}, 2.6em)` });
  cells.forEach((c, i) => {
    const [x, y] = [Math.floor(i / n), i % n];
    const name = x === y ? ranks[x] + ranks[x] : x < y ? ranks[x] + ranks[y] + "s" : ranks[y] + ranks[x] + "o";
    const mix = c.w > 0 ? c.mix.map((m) => m / c.w) : null;
    const style = mix ? `background:${stackedBar(mix, cols)};opacity:${0.25 + 0.75 * density(c) / top}` : "background:#ddd";
    const tip = name + (mix ? ": range " + pct(c.w) + ", " + d.actions.map((a, k) => `${a.label} ${pct(mix[k])}`).join(", ") : "");
    grid.append(el("div", { style: style + (c.held ? ";outline:2px solid #000" : ""), title: tip }, name));
  });
  return grid;
}

function showDecisions(s) {
  const box = $("decisions");
  box.replaceChildren();
  if (!s.over || !s.decisions.length) return;
  box.append(el("h2", {}, "The agent's decisions"));
  for (const d of s.decisions) {
    const cols = colours(d.actions);
    const chosen = d.actions.find((a) => a.id === d.chosen);
    const path = d.public.filter((p) => p).join(" ") || "the start";
    const div = el("div", { class: "decision" },
      el("h3", {}, `Holding ${d.private} after ${path}: played ${chosen ? chosen.label : d.chosen}`,
        el("span", { class: "seconds" }, ` (${duration(d.seconds)})`)));
    const mine = el("div");
    d.actions.forEach((a, k) => mine.append(el("span", { style: "margin-right:1em" }, `${a.label} ${pct(d.probs[k])}`,
      el("span", { class: "bar" }, el("span", { style: `width:${100 * d.probs[k]}%;background:${cols[k]}` })))));
    div.append(mine);
    if (d.rows.length) {
      const legend = el("div", { class: "legend" });
      d.actions.forEach((a, k) => legend.append(el("span", {}, el("i", { style: `background:${cols[k]}` }), a.label)));
      const grid = d.rows.length > 60 ? handGrid(d, cols) : null;
      div.append(el("p", {}, "Its range and strategy at every private state it could hold here:"), legend,
        grid || strategyTable(d, cols));
    }
    box.append(div);
  }
}

const amount = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(2));
const money = (x) => (x > 0 ? "+" : "") + amount(x);

function render(s) {
  $("agent-name").textContent = s.agent;
  $("game-name").textContent = s.game;
  $("hand-no").textContent = s.hand;
  $("your-seat-no").textContent = `(player ${s.seat})`;
  $("agent-seat-no").textContent = `(player ${1 - s.seat})`;
  showCards($("your-cards"), s.your_cards);
  const yours = cardTokens(s.your_cards);
  showCards($("agent-cards"), s.agent_cards || "", s.over ? 0 : yours ? yours.length : s.your_cards ? 1 : 0);
  showCards($("board"), s.board);
  $("pot").textContent = s.pot == null ? "" : `Pot ${s.pot}`;
  for (const [id, seat] of [["your-chips", s.seat], ["agent-chips", 1 - s.seat]]) {
    const parts = [];
    if (s.contributions) parts.push(`in the pot ${s.contributions[seat]}`);
    if (s.stacks) parts.push(`stack ${s.stacks[seat]}`);
    $(id).textContent = parts.join(" \u00b7 ");
  }
  const actions = $("actions");
  actions.replaceChildren();
  for (const a of s.legal) {
    const key = actions.childElementCount + 1;
    const b = el("button", { type: "button", class: "action", "data-action": String(a.id), title: `${a.name} (key ${key})` }, a.label);
    const shown = { action: a.id, hand: s.hand, step: s.steps.length };
    b.addEventListener("click", (event) => { if (event.detail <= 1) post("/api/act", shown); });
    actions.append(b);
  }
  $("outcome").hidden = !s.over;
  const result = $("result");
  result.dataset.result = s.over ? String(s.result) : "";
  result.textContent = !s.over ? "" : s.result > 0 ? `You won ${amount(s.result)}` : s.result < 0 ? `You lost ${amount(-s.result)}` : "Split pot: 0";
  const steps = $("steps");
  steps.replaceChildren(...s.steps.map((st) => el("li", { class: st.actor }, st.text)));
  $("total").dataset.total = String(s.total);
  $("total").textContent = money(s.total);
  $("hands-played").textContent = `${s.hands_played} hand${s.hands_played === 1 ? "" : "s"}` +
    (s.hands_played ? ` (${money(s.total / s.hands_played)} per hand)` : "");
  showDecisions(s);
  $("deal").onclick = (event) => { if (event.detail <= 1) post("/api/deal", { hand: s.hand }); };
  document.body.dataset.hand = String(s.hand);
  document.body.dataset.over = String(s.over);
}

function showError(message) {
  const e = $("error");
  e.textContent = message || "";
  e.hidden = !message;
}

async function call(method, url, body) {
  document.body.dataset.busy = "true";
  document.querySelectorAll("button").forEach((b) => { b.disabled = true; });
  try {
    const response = await fetch(url, {
      method, headers: body ? { "Content-Type": "application/json" } : {}, body: body ? JSON.stringify(body) : undefined,
    });
    const data = await response.json();
    // 409: the page was out of date and nothing was played; the answer has the table as it is now
    const state = response.ok ? data : response.status === 409 ? data.state : null;
    if (state) {
      render(state);
      document.body.dataset.shown = String(Number(document.body.dataset.shown || 0) + 1);
    }
    showError(response.ok ? "" : data.error || response.statusText);
  } catch (err) {
    showError("the server did not answer: " + err);
  } finally {
    document.querySelectorAll("button").forEach((b) => { b.disabled = false; });
    document.body.dataset.busy = "false";
  }
}

const post = (url, body) => call("POST", url, body || {});
// Keys: 1..9 press the action buttons in order; Enter or n deals the next hand.
document.addEventListener("keydown", (event) => {
  if (document.body.dataset.busy === "true" || event.ctrlKey || event.metaKey || event.altKey) return;
  const buttons = document.querySelectorAll("#actions button");
  const k = Number(event.key);
  if (k >= 1 && k <= buttons.length) buttons[k - 1].click();
  else if ((event.key === "Enter" || event.key === "n") && !$("outcome").hidden) $("deal").click();
});
call("GET", "/api/state");
