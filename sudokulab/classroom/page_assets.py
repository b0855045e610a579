"""The step-through viewer's markup, style and script, inlined into every page.

Kept as Python strings (not package data files) so a plain install carries them. The
script runs inside a function that defines ``DATA`` (see ``viewer.viewer_data``) and
``ROOT`` (the viewer's element); it touches nothing outside ``ROOT`` but, on a page of its
own, the keyboard.
"""

MARKUP = """\
<div class="slv-title" data-role="title"></div>
<div class="slv-main">
  <div class="slv-left">
    <div class="slv-grid" data-role="grid"></div>
    <div class="slv-caption" data-role="caption"></div>
    <div class="slv-controls">
      <button type="button" data-role="first" title="first step (Home)">|&#x25C0;</button>
      <button type="button" data-role="prev" title="previous step (Left)">&#x25C0;</button>
      <button type="button" data-role="play" title="play / pause (Space)">play</button>
      <button type="button" data-role="next" title="next step (Right)">&#x25B6;</button>
      <button type="button" data-role="last" title="last step (End)">&#x25B6;|</button>
      <span class="slv-counter" data-role="counter" data-step="-1"></span>
    </div>
    <div class="slv-now" data-role="current"></div>
    <div class="slv-removed" data-role="removed"></div>
    <div class="slv-graph" data-role="graph"></div>
  </div>
  <div class="slv-right">
    <ol class="slv-list" data-role="list"></ol>
    <table class="slv-summary" data-role="summary"></table>
    <details class="slv-proof" data-role="proof" hidden>
      <summary data-role="proof-claim"></summary>
      <div class="slv-proof-verdict" data-role="proof-verdict"></div>
      <div class="slv-proof-note" data-role="proof-note"></div>
      <ol class="slv-lemmas" data-role="proof-lemmas"></ol>
      <div class="slv-proof-then" data-role="proof-then" hidden>then unit propagation:</div>
      <ol class="slv-lemmas" data-role="proof-propagation"></ol>
    </details>
  </div>
</div>
"""

STYLE = """\
.slv { --cell: calc(26em / var(--n, 9)); font-family: system-ui, sans-serif; color: #111;
  font-size: 16px; outline: none; }
.slv-page { margin: 0.6em; background: #fff; }
.slv-page .slv { font-size: 22px;
  --cell: min(calc(80vh / var(--n, 9) - 4px), calc(52vw / var(--n, 9))); }
.slv-title { font-weight: 600; margin-bottom: 0.4em; font-size: 0.8em; color: #444;
  word-break: break-all; }
.slv-main { display: flex; gap: 1em; align-items: flex-start; flex-wrap: wrap; }
.slv-grid { position: relative; display: grid;
  grid-template-columns: repeat(var(--n, 9), var(--cell)); grid-auto-rows: var(--cell);
  border: 3px solid #222; width: max-content; }
.slv-cell { position: relative; border: 1px solid #bbb; box-sizing: border-box;
  display: flex; align-items: center; justify-content: center; background: #fff; }
.slv-cell.bl { border-left: 3px solid #222; } .slv-cell.bt { border-top: 3px solid #222; }
.slv-cands { display: grid; width: 100%; height: 100%;
  grid-template-columns: repeat(var(--bc, 3), 1fr); }
.slv-cands span { display: flex; align-items: center; justify-content: center;
  font-size: calc(var(--cell) / var(--bc, 3) * 0.75); color: #555; line-height: 1; }
.slv-cands span.off { visibility: hidden; }
.slv-cands span.removed { visibility: visible; color: #d00; text-decoration: line-through;
  font-weight: 700; background: #ffd6d6; }
.slv-val { font-size: calc(var(--cell) * 0.62); line-height: 1; }
.slv-cell.cage::before { content: ""; position: absolute; inset: 2px; border: 0 dashed #555;
  pointer-events: none; }
.slv-cell.ct::before { border-top-width: 1px; } .slv-cell.cb::before { border-bottom-width: 1px; }
.slv-cell.cl::before { border-left-width: 1px; } .slv-cell.cr::before { border-right-width: 1px; }
.slv-sum { position: absolute; top: 1px; left: 3px; font-size: calc(var(--cell) * 0.2);
  line-height: 1; color: #333; background: rgba(255, 255, 255, 0.8); pointer-events: none; }
.slv-marks { position: absolute; left: 0; top: 0; width: 100%; height: 100%;
  overflow: visible; pointer-events: none; font-family: system-ui, sans-serif; }
.slv-caption { font-size: 0.8em; color: #333; max-width: calc(var(--cell) * var(--n, 9)); }
.slv-caption p { margin: 0.3em 0 0; }
.slv-cell.given .slv-val { font-weight: 700; color: #111; }
.slv-cell.deduced .slv-val { color: #1f5fbf; }
.slv-cell.guessed .slv-val { color: #c25e00; font-style: italic; }
.slv-cell.unit { background: #fff6c9; }
.slv-cell.dead { background: #ffc4c4; }
.slv-cell.pattern { background: #d6e8ff; box-shadow: inset 0 0 0 2px #2f6fd0; }
.slv-cell.skipped { background: #e4e4e4; box-shadow: inset 0 0 0 2px #888;
  opacity: 0.7; }
.slv-graph svg { max-width: calc(var(--cell) * var(--n, 9)); height: auto; }
.slv-cell.current { background: #ffe066; box-shadow: inset 0 0 0 3px #e08a00; }
.slv-cell.current.dead { background: #ffb0b0; box-shadow: inset 0 0 0 3px #c00; }
.slv-controls { margin: 0.5em 0; display: flex; gap: 0.3em; align-items: center; }
.slv-controls button { font-size: 1em; min-width: 2.4em; padding: 0.15em 0.4em;
  cursor: pointer; }
.slv-counter { margin-left: 0.5em; font-variant-numeric: tabular-nums; }
.slv-now { font-size: 1.1em; font-weight: 600; min-height: 2.6em;
  max-width: calc(var(--cell) * var(--n, 9)); }
.slv-removed { color: #a00; font-size: 0.85em; max-width: calc(var(--cell) * var(--n, 9)); }
.slv-right { flex: 1; min-width: 16em; }
.slv-list { position: relative; max-height: calc(var(--cell) * var(--n, 9) - 8em);
  min-height: 10em; overflow-y: auto; margin: 0; padding-left: 3.2em; font-size: 0.8em;
  border: 1px solid #ddd; }
.slv-list li { cursor: pointer; padding: 0.1em 0.3em; }
.slv-list li:hover { background: #eef; }
.slv-list li.cur { background: #ffe066; font-weight: 600; }
.slv-list li.k-guess { color: #c25e00; } .slv-list li.k-contradiction { color: #c00; }
.slv-list li.k-backtrack { color: #777; }
.slv-list li.k-backjump { color: #6a3d9a; } .slv-list li.k-solution { color: #080; }
.slv-summary { margin-top: 0.6em; font-size: 0.8em; border-collapse: collapse; }
.slv-summary td { padding: 0.05em 0.6em 0.05em 0; }
.slv-summary td:last-child { font-weight: 600; }
.slv-proof { margin-top: 0.6em; font-size: 0.8em; max-width: 40em; }
.slv-proof summary { cursor: pointer; font-weight: 600; }
.slv-proof-verdict { margin: 0.3em 0; }
.slv-proof[data-outcome="accepted"] .slv-proof-verdict { color: #080; }
.slv-proof[data-outcome="rejected"] .slv-proof-verdict,
.slv-proof[data-outcome="refuted"] .slv-proof-verdict { color: #c00; }
.slv-lemmas { margin: 0.3em 0; padding-left: 0; list-style: none; }
.slv-proof-note { color: #555; }
.slv-proof-then { margin-top: 0.3em; }
"""

SCRIPT = """\
var n = DATA.size, steps = DATA.steps, EVERY = DATA.every, last = steps.length - 1;
var FULL = (1 << n) - 1, KINDS = ["open", "given", "deduced", "guessed"];
function q(role) { return ROOT.querySelector('[data-role="' + role + '"]'); }
ROOT.style.setProperty("--n", n);
ROOT.style.setProperty("--bc", DATA.boxCols);
ROOT.setAttribute("tabindex", "0");
q("title").textContent = DATA.title;
var grid = q("grid"), list = q("list"), cells = [], shown = [];
for (var c = 0; c < n * n; c++) {
  var el = document.createElement("div"), r = Math.floor(c / n), col = c % n;
  var reg = DATA.regionOf;  // jigsaw: thick lines between regions, not boxes
  var left = reg ? col && reg[c] !== reg[c - 1] : col % DATA.boxCols === 0 && col;
  var top = reg ? r && reg[c] !== reg[c - n] : r % DATA.boxRows === 0 && r;
  el.className = "slv-cell" + (left ? " bl" : "") + (top ? " bt" : "");
  el.setAttribute("data-cell", c);
  el.title = DATA.names[c];
  grid.appendChild(el);
  cells.push(el);
  shown.push(-1);
}
var cageOf = {}, sums = {};
DATA.cages.forEach(function (cage, k) {
  cage[1].forEach(function (c) { cageOf[c] = k; });
  sums[Math.min.apply(null, cage[1])] = cage[0];
});
Object.keys(cageOf).forEach(function (key) {
  var c = +key, k = cageOf[c], r = Math.floor(c / n), col = c % n, el = cells[c];
  el.classList.add("cage");
  el.setAttribute("data-cage", k);
  if (r === 0 || cageOf[c - n] !== k) el.classList.add("ct");
  if (r === n - 1 || cageOf[c + n] !== k) el.classList.add("cb");
  if (col === 0 || cageOf[c - 1] !== k) el.classList.add("cl");
  if (col === n - 1 || cageOf[c + 1] !== k) el.classList.add("cr");
});
// The variant marks (thermometers, arrows, lines, dots, XV, parity, outside clues): one
// SVG over the grid in cell units, so it scales with the grid and ignores the pointer.
var SVGNS = (function () {  // the SVG namespace, from the parser (the page names no URL)
  var holder = document.createElement("div");
  holder.innerHTML = "<svg></svg>";
  return holder.firstChild.namespaceURI;
})();
var LINE_STYLE = { renban: ["#a347dc", 0.3], whispers: ["#2fae45", 0.3],
  entropic: ["#e8902a", 0.3], "region sum": ["#2f7fe0", 0.14] };
function svgEl(tag, attrs, parent) {
  var e = document.createElementNS(SVGNS, tag);
  Object.keys(attrs).forEach(function (a) { e.setAttribute(a, attrs[a]); });
  if (parent) parent.appendChild(e);
  return e;
}
function centre(c) { return [c % n + 0.5, Math.floor(c / n) + 0.5]; }
function points(ps) { return ps.map(function (p) { return p[0] + "," + p[1]; }).join(" "); }
function unit(p, to) {
  var dx = to[0] - p[0], dy = to[1] - p[1], d = Math.sqrt(dx * dx + dy * dy) || 1;
  return [dx / d, dy / d];
}
function polyline(ps, attrs, g) {
  attrs.points = points(ps);
  attrs.fill = "none";
  attrs["stroke-linecap"] = attrs["stroke-linejoin"] = "round";
  return svgEl("polyline", attrs, g);
}
function arrowhead(end, u, size, attrs, g) {
  var back = [end[0] - size * u[0], end[1] - size * u[1]], w = size * 0.75;
  polyline([[back[0] - w * u[1], back[1] + w * u[0]], end,
    [back[0] + w * u[1], back[1] - w * u[0]]], attrs, g);
}
function text(x, y, words, size, g, attrs) {
  attrs = attrs || {};
  attrs.x = x; attrs.y = y; attrs["font-size"] = size;
  attrs["text-anchor"] = "middle"; attrs["dominant-baseline"] = "central";
  svgEl("text", attrs, g).textContent = words;
}
function edge(m) {
  var a = centre(m.a), b = centre(m.b);
  return [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
}
var DRAW = {
  thermometer: function (m, g) {
    g.setAttribute("opacity", "0.5");
    m.paths.forEach(function (path) {
      polyline(path.map(centre), { stroke: "#8a8a8a", "stroke-width": 0.28 }, g);
      if (m.slow) polyline(path.map(centre), { stroke: "#fff", "stroke-width": 0.05,
        "stroke-dasharray": "0.1 0.12" }, g);
    });
    var b = centre(m.bulb);
    svgEl("circle", { cx: b[0], cy: b[1], r: 0.38, fill: "#8a8a8a" }, g);
  },
  arrow: function (m, g) {
    var style = { stroke: "#666", "stroke-width": 0.05 }, rs = [], cs = [];
    m.circle.forEach(function (c) { rs.push(Math.floor(c / n)); cs.push(c % n); });
    var r0 = Math.min.apply(null, rs), r1 = Math.max.apply(null, rs);
    var c0 = Math.min.apply(null, cs), c1 = Math.max.apply(null, cs);
    var run = (r1 - r0 + 1) * (c1 - c0 + 1) === m.circle.length;  // one straight run: a pill
    (run ? [[r0, c0, r1, c1]] : rs.map(function (r, i) { return [r, cs[i], r, cs[i]]; }))
      .forEach(function (b) {
        svgEl("rect", { x: b[1] + 0.1, y: b[0] + 0.1, width: b[3] - b[1] + 0.8,
          height: b[2] - b[0] + 0.8, rx: 0.4, fill: "none", stroke: style.stroke,
          "stroke-width": style["stroke-width"] }, g);
      });
    var ps = m.path.map(centre), u = unit(ps[0], ps[1]), k = ps.length;
    ps[0] = [ps[0][0] + 0.4 * u[0], ps[0][1] + 0.4 * u[1]];
    polyline(ps, { stroke: style.stroke, "stroke-width": style["stroke-width"] }, g);
    arrowhead(ps[k - 1], unit(ps[k - 2], ps[k - 1]), 0.2,
      { stroke: style.stroke, "stroke-width": style["stroke-width"] }, g);
  },
  line: function (m, g) {
    var style = LINE_STYLE[m.line] || ["#888", 0.2];
    g.setAttribute("opacity", "0.55");
    g.setAttribute("data-line", m.line);
    m.paths.forEach(function (path) {
      var ps = path.map(centre);
      if (ps.length > 1) polyline(ps, { stroke: style[0], "stroke-width": style[1] }, g);
      else svgEl("circle", { cx: ps[0][0], cy: ps[0][1], r: style[1] / 2, fill: style[0] }, g);
    });
  },
  dot: function (m, g) {
    var p = edge(m), black = m.colour === "black";
    g.setAttribute("data-colour", m.colour);
    svgEl("circle", { cx: p[0], cy: p[1], r: 0.13, fill: black ? "#111" : "#fff",
      stroke: "#111", "stroke-width": 0.03 }, g);
    if (m.label) text(p[0], p[1], m.label, 0.16, g, { fill: black ? "#fff" : "#111" });
  },
  xv: function (m, g) {
    var p = edge(m), w = 0.14 * Math.max(2, m.text.length + 1);
    svgEl("rect", { x: p[0] - w / 2, y: p[1] - 0.16, width: w, height: 0.32, fill: "#fff" }, g);
    text(p[0], p[1], m.text, 0.3, g, { "font-weight": 700, fill: "#111" });
  },
  parity: function (m, g) {
    var p = centre(m.cell), attrs = { fill: "#9a9a9a", opacity: 0.45 };
    g.setAttribute("data-parity", m.parity);
    if (m.parity === "odd") Object.assign(attrs, { cx: p[0], cy: p[1], r: 0.38 });
    else Object.assign(attrs, { x: p[0] - 0.38, y: p[1] - 0.38, width: 0.76, height: 0.76 });
    svgEl(m.parity === "odd" ? "circle" : "rect", attrs, g);
  },
  clue: function (m, g) {
    var x = m.col + 0.5, y = m.row + 0.5, dx = m.step[1], dy = m.step[0];
    g.setAttribute("data-clue", m.clue);
    if (m.clue === "sandwich") { text(x, y, m.total, 0.42, g, { fill: "#111" }); return; }
    text(x - 0.14 * dx, y - 0.14 * dy, m.total, 0.34, g, { fill: "#111" });
    var from = [x + 0.2 * dx, y + 0.2 * dy], to = [x + 0.42 * dx, y + 0.42 * dy];
    var style = { stroke: "#111", "stroke-width": 0.04 };
    polyline([from, to], style, g);
    arrowhead(to, unit(from, to), 0.1, style, g);
  },
};
(function drawMarks() {
  var marks = DATA.marks || [], drawn = [], margin = {};
  var svg = svgEl("svg", { "class": "slv-marks", "data-role": "marks",
    viewBox: "0 0 " + n + " " + n, "aria-hidden": "true" });
  marks.forEach(function (m) {
    if (m.kind === "caption") {
      var p = document.createElement("p");
      p.textContent = m.text;
      p.setAttribute("data-mark", "caption");
      q("caption").appendChild(p);
      return;
    }
    if (!(m.kind in DRAW)) return;  // a mark this script does not know: not drawn
    var g = svgEl("g", { "data-mark": m.kind, "data-name": m.name }, svg);
    DRAW[m.kind](m, g);
    drawn.push(m);
    if (m.kind === "clue") {  // room beside the grid for the clues outside it
      if (m.row < 0) margin.Top = 1; if (m.row >= n) margin.Bottom = 1;
      if (m.col < 0) margin.Left = 1; if (m.col >= n) margin.Right = 1;
    }
  });
  if (!drawn.length) return;
  grid.appendChild(svg);
  Object.keys(margin).forEach(function (side) { grid.style["margin" + side] = "var(--cell)"; });
})();
var items = [];
steps.forEach(function (s, i) {
  var li = document.createElement("li");
  li.textContent = s.t;
  li.className = "k-" + s.k;
  li.setAttribute("data-step", i);
  li.setAttribute("data-cell", s.c);
  list.appendChild(li);
  items.push(li);
});
if (DATA.truncated) {
  var more = document.createElement("li");
  more.textContent = "... truncated (raise --max-steps); the summary counts every step";
  list.appendChild(more);
}
DATA.summary.forEach(function (row) {
  var tr = document.createElement("tr");
  row.forEach(function (v) {
    var td = document.createElement("td");
    td.textContent = v;
    tr.appendChild(td);
  });
  q("summary").appendChild(tr);
});
// The proof of the puzzle's verdict (a certificate), when the page was asked for one:
// the claim, the checker's verdict, and a small proof's lemmas in words.
if (DATA.proof) (function () {
  var p = DATA.proof, box = q("proof");
  box.hidden = false;
  box.setAttribute("data-outcome", p.outcome);
  q("proof-claim").textContent = "proof: " + (p.claim || "no claim to prove");
  q("proof-verdict").textContent = p.verdict;
  function lines(role, words, key) {
    (words || []).forEach(function (line, k) {
      var li = document.createElement("li");
      li.textContent = line;
      li.setAttribute(key, k + 1);
      q(role).appendChild(li);
    });
  }
  lines("proof-lemmas", p.lemmas, "data-lemma");
  lines("proof-propagation", p.propagation, "data-implied");
  q("proof-then").hidden = !(p.propagation && p.propagation.length);
  q("proof-note").textContent = p.note;
})();
var state = DATA.start.slice(), pos = -1, marked = [], timer = null;
function apply(d, which) {
  for (var i = 0; i < d.length; i += 3) state[d[i]] = d[i + which];
}
function label(c) {
  if (!(c in sums)) return;
  var tag = document.createElement("span");
  tag.className = "slv-sum";
  tag.textContent = sums[c];
  cells[c].appendChild(tag);
}
function drawCell(c, removed) {
  var st = state[c], kind = st >> n, mask = st & FULL, el = cells[c];
  var key = st + (removed ? "r" + removed : "");
  if (shown[c] === key) return;
  shown[c] = key;
  el.classList.remove("given", "deduced", "guessed");
  el.textContent = "";
  label(c);
  if (kind) {
    var v = 0;
    while (!(mask >> v & 1) && v < n) v++;
    el.classList.add(KINDS[kind]);
    el.setAttribute("data-value", DATA.symbols[v]);
    var span = document.createElement("span");
    span.className = "slv-val";
    span.textContent = DATA.symbols[v];
    el.appendChild(span);
    return;
  }
  el.setAttribute("data-value", "");
  var box = document.createElement("div");
  box.className = "slv-cands";
  for (var k = 0; k < n; k++) {
    var s = document.createElement("span");
    s.textContent = DATA.symbols[k];
    if (removed >> k & 1) s.className = "removed";
    else if (!(mask >> k & 1)) s.className = "off";
    box.appendChild(s);
  }
  el.appendChild(box);
}
function go(t) {
  t = Math.max(-1, Math.min(last, t));
  if (Math.abs(t - pos) > EVERY) {
    var k = Math.floor((t + 1) / EVERY) * EVERY - 1;
    var snap = k >= 0 ? DATA.snapshots[k] : null;
    state = (snap || DATA.start).slice();
    pos = snap ? k : -1;
  }
  while (pos < t) { pos++; apply(steps[pos].d, 2); }
  while (pos > t) { apply(steps[pos].d, 1); pos--; }
  render();
}
function render() {
  var s = pos >= 0 ? steps[pos] : null, removed = {};
  marked.forEach(function (c) {
    cells[c].classList.remove("current", "unit", "dead", "pattern", "skipped");
    cells[c].setAttribute("data-pattern", "false");
    cells[c].setAttribute("data-skipped", "false");
  });
  marked = [];
  if (s) s.r.forEach(function (c, i) { removed[c] = s.m[i]; });
  for (var c = 0; c < n * n; c++) drawCell(c, removed[c] || 0);
  var area = s && s.u >= 0 ? DATA.units[s.u][1] : s && s.g >= 0 ? DATA.cages[s.g][1] : [];
  if (s && s.us) area = [].concat.apply([], s.us.map(function (u) { return DATA.units[u][1]; }));
  area.forEach(function (c) { cells[c].classList.add("unit"); marked.push(c); });
  if (s && s.ps) s.ps.forEach(function (c) {
    cells[c].classList.add("pattern");
    cells[c].setAttribute("data-pattern", "true");
    marked.push(c);
  });
  if (s && s.sk) s.sk.forEach(function (c) {
    cells[c].classList.add("skipped");
    cells[c].setAttribute("data-skipped", "true");
    marked.push(c);
  });
  // the step's own drawing (a GAC step's variable-value graph), made by the page's writer
  q("graph").innerHTML = s && s.svg ? s.svg : "";
  if (s && s.c >= 0) {
    cells[s.c].classList.add("current");
    if (s.k === "contradiction") cells[s.c].classList.add("dead");
    marked.push(s.c);
  }
  cells.forEach(function (el, c) { el.setAttribute("data-current", s && s.c === c); });
  ROOT.setAttribute("data-step", pos);
  ROOT.setAttribute("data-cell", s ? s.c : -1);
  var counter = q("counter");
  counter.setAttribute("data-step", pos);
  counter.textContent = pos < 0 ? "start (" + steps.length + " steps)"
    : "step " + (pos + 1) + " / " + steps.length;
  q("current").textContent = s ? s.t : "the empty grid: every cell has every candidate";
  q("removed").textContent = s ? s.x : "";
  var cur = list.querySelector("li.cur");
  if (cur) cur.classList.remove("cur");
  if (s) {
    var li = items[pos];
    li.classList.add("cur");
    var top = li.offsetTop, h = list.clientHeight;
    if (top < list.scrollTop || top + li.offsetHeight > list.scrollTop + h) {
      list.scrollTop = Math.max(0, top - h / 2);
    }
  }
}
function play() {
  if (timer) { clearInterval(timer); timer = null; q("play").textContent = "play"; return; }
  if (pos >= last) go(-1);
  q("play").textContent = "pause";
  timer = setInterval(function () { if (pos >= last) play(); else go(pos + 1); }, 350);
}
q("first").addEventListener("click", function () { go(-1); });
q("prev").addEventListener("click", function () { go(pos - 1); });
q("next").addEventListener("click", function () { go(pos + 1); });
q("last").addEventListener("click", function () { go(last); });
q("play").addEventListener("click", play);
list.addEventListener("click", function (e) {
  var li = e.target.closest("li[data-step]");
  if (li) go(parseInt(li.getAttribute("data-step"), 10));
});
function key(e) {
  if (e.target.tagName === "BUTTON" && (e.key === " " || e.key === "Enter")) return;
  var moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  if (e.key in moves) go(pos + moves[e.key]);
  else if (e.key === "Home") go(-1);
  else if (e.key === "End") go(last);
  else if (e.key === " ") play();
  else return;
  e.preventDefault();
}
if (DATA.standalone) document.addEventListener("keydown", key);
else ROOT.addEventListener("keydown", key);
ROOT.addEventListener("click", function () { if (!DATA.standalone) ROOT.focus(); });
go(-1);
if (DATA.standalone) ROOT.focus();
"""
