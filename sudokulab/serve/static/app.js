// The live classroom page: puzzle input, settings in the URL, the step-through viewer
// (the same script as the static pages, window.SudokulabViewer), the search tree and
// the backends' check. Everything it needs is served by sudokulab serve itself.
(function () {
  "use strict";
  var APP = document.getElementById("app");
  function q(role) { return APP.querySelector('[data-role="' + role + '"]'); }
  var OPTIONS = null, viewer = null, result = null, size = 9;
  var BOXES = { 4: [2, 2], 6: [2, 3], 8: [2, 4], 9: [3, 3], 12: [3, 4], 16: [4, 4], 25: [5, 5] };

  function symbol(v) { return v <= 9 ? String(v) : String.fromCharCode(55 + v); }
  function valueOf(ch, n) {
    ch = ch.toUpperCase();
    for (var v = 1; v <= n; v++) if (symbol(v) === ch) return v;
    return 0;
  }
  function fill(select, values, labels) {
    select.textContent = "";
    values.forEach(function (v, i) {
      var o = document.createElement("option");
      o.value = v;
      o.textContent = labels ? labels[i] : v;
      select.appendChild(o);
    });
  }
  function api(method, path, body) {
    var init = { method: method, headers: {} };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers["content-type"] = "application/json";
    }
    return fetch(path, init).then(function (r) {
      return r.json().then(function (data) {
        if (!r.ok) {
          var err = new Error(data.error || "the server answered " + r.status);
          err.column = data.column;
          throw err;
        }
        return data;
      });
    });
  }
  function showError(err) {
    q("error").textContent = err ? err.message : "";
    q("puzzle").classList.toggle("bad", !!err);
    APP.querySelectorAll(".editor input.bad").forEach(function (el) { el.classList.remove("bad"); });
    if (err && err.column) {
      var input = q("puzzle");
      input.focus();
      input.setSelectionRange(err.column - 1, err.column);
      var cell = q("editor").children[err.column - 1];
      if (cell && q("puzzle").value.length === size * size) cell.classList.add("bad");
    }
    if (err) APP.setAttribute("data-state", "error");
  }

  // --- the editor grid and the one-line text -------------------------------------------
  function buildEditor(n) {
    size = n;
    var editor = q("editor"), box = BOXES[n];
    editor.textContent = "";
    editor.style.setProperty("--n", n);
    for (var c = 0; c < n * n; c++) {
      var el = document.createElement("input");
      var r = Math.floor(c / n), col = c % n;
      el.maxLength = 1;
      el.setAttribute("data-cell", c);
      el.setAttribute("aria-label", "r" + (r + 1) + "c" + (col + 1));
      if (col && col % box[1] === 0) el.classList.add("bl");
      if (r && r % box[0] === 0) el.classList.add("bt");
      editor.appendChild(el);
    }
  }
  function gridToLine() {
    var line = "";
    Array.prototype.forEach.call(q("editor").children, function (el) {
      var v = valueOf(el.value || ".", size);
      line += v ? symbol(v) : ".";
    });
    q("puzzle").value = line;
  }
  // A puzzle document (JSON: killer cages, jigsaw regions, variant rules) or an f-puzzles
  // or SudokuPad link says more than a grid of digits: the grid then shows its givens,
  // read-only.
  function isDocument(text) {
    return /^\s*[{\[]/.test(text) || /^\s*(https?:|fpuz|N4Ig|scl|ctc)/.test(text);
  }
  function markDocument(doc) {
    q("editor").classList.toggle("doc", doc);
    q("doc-hint").hidden = !doc;
    Array.prototype.forEach.call(q("editor").children, function (el) { el.readOnly = doc; });
  }
  function fillEditor(line) {
    if (line.length !== size * size) buildEditor(Math.round(Math.sqrt(line.length)));
    var cells = q("editor").children;
    for (var c = 0; c < cells.length; c++) {
      var v = valueOf(line[c], size);
      cells[c].value = v ? symbol(v) : "";
    }
  }
  function lineToGrid() {
    var doc = isDocument(q("puzzle").value);
    markDocument(doc);
    if (doc) return;  // the grid is filled from the server's reading (show)
    var text = q("puzzle").value.replace(/\s+/g, ""), cells = q("editor").children;
    if (text.length !== size * size) {
      var fits = Object.keys(BOXES).map(Number).filter(function (n) {
        return n * n === text.length && OPTIONS && OPTIONS.sizes.indexOf(n) >= 0;
      });
      if (!fits.length) return;
      q("size").value = fits[0];
      buildEditor(fits[0]);
      cells = q("editor").children;
    }
    for (var c = 0; c < cells.length; c++) {
      var v = valueOf(text[c], size);
      cells[c].value = v ? symbol(v) : "";
    }
  }
  q("editor").addEventListener("input", function (e) {
    var el = e.target;
    if (el.value && !valueOf(el.value, size)) el.value = "";  // a blank: ".", "0", " "
    gridToLine();
    if (e.data && el.nextElementSibling) el.nextElementSibling.focus();
  });
  q("editor").addEventListener("paste", function (e) {
    var text = (e.clipboardData || window.clipboardData).getData("text");
    if (text.replace(/\s+/g, "").length > 1) {
      e.preventDefault();
      q("puzzle").value = text.trim();
      lineToGrid();
    }
  });
  q("editor").addEventListener("keydown", function (e) {
    var c = +e.target.getAttribute("data-cell"), moves = { ArrowLeft: -1, ArrowRight: 1,
      ArrowUp: -size, ArrowDown: size };
    if (e.key in moves) {
      var next = q("editor").children[c + moves[e.key]];
      if (next) next.focus();
      e.preventDefault();
    } else if (e.key === "Enter") solve();
  });
  q("puzzle").addEventListener("input", lineToGrid);
  q("puzzle").addEventListener("keydown", function (e) { if (e.key === "Enter") solve(); });
  q("size").addEventListener("change", function () {
    buildEditor(+q("size").value);
    gridToLine();
  });
  q("clear").addEventListener("click", function () {
    q("puzzle").value = "";
    buildEditor(size);
    showError(null);
  });

  // --- settings and the URL -------------------------------------------------------------
  function settings() {
    var s = { variant: q("variant").value, solver: q("solver").value };
    if (s.solver === "engine") {
      s.propagation = q("propagation").value;
      s.order = q("order").value;
    }
    if (q("certify").checked) s.certify = true;  // the proof of the verdict, on request
    return s;
  }
  function stateUrl() {
    var params = new URLSearchParams();
    var line = q("puzzle").value.trim();
    if (line) params.set("puzzle", line);
    var s = settings(), d = OPTIONS.defaults;
    Object.keys(s).forEach(function (k) { if (s[k] !== d[k]) params.set(k, s[k]); });
    var text = params.toString();
    return location.pathname + (text ? "?" + text : "");
  }
  function remember() {
    var url = stateUrl();
    history.replaceState(null, "", url);
    q("share").href = url;
  }
  function showSolverFields() {
    var engine = q("solver").value === "engine";
    APP.querySelectorAll(".engine-only").forEach(function (el) { el.hidden = !engine; });
  }
  ["variant", "solver", "propagation", "order", "certify"].forEach(function (role) {
    q(role).addEventListener("change", function () {
      showSolverFields();
      remember();
      if (q("puzzle").value.trim()) solve();
    });
  });

  // --- solving and the viewer -----------------------------------------------------------
  function solve() {
    var line = q("puzzle").value.trim();
    remember();
    if (!line) { showError(new Error("puzzle: type or paste a puzzle first")); return; }
    APP.setAttribute("data-state", "loading");
    var body = settings();
    body.puzzle = line;
    return api("POST", "/api/solve", body).then(show, function (err) {
      showError(err);
    });
  }
  function show(data) {
    showError(null);
    result = data;
    var live = q("live"), V = window.SudokulabViewer;
    live.textContent = "";
    var root = document.createElement("div");
    root.className = "slv";
    root.setAttribute("data-role", "viewer");
    root.innerHTML = V.markup;
    live.appendChild(root);
    viewer = V.mount(data.viewer, root);
    data.variantCells.forEach(function (c) {  // the diagonals or windows, shaded
      root.querySelector('[data-role="grid"] [data-cell="' + c + '"]').classList.add("extra");
    });
    APP.setAttribute("data-steps", data.viewer.steps.length);
    APP.setAttribute("data-puzzle", data.puzzle);
    if (isDocument(q("puzzle").value)) {
      q("size").value = data.size;
      fillEditor(data.puzzle);
      markDocument(true);
    }
    var c = data.counters, parts = Object.keys(c).filter(function (k) { return k !== "timedOut"; })
      .map(function (k) { return k + " " + c[k]; });
    if (c.timedOut) parts.push("stopped by the timeout");
    parts.push(data.viewer.steps.length + " steps shown");
    q("counters").textContent = parts.join(" · ");
    var r = data.rating;
    q("rating").textContent = r.error ? r.error : "grade " + r.grade + " · score " + r.score +
      " · hardest: " + r.hardest + (r.status === "solved" ? "" : " (" + r.status + ")");
    q("rating").setAttribute("data-grade", r.grade || "");
    ["prev-guess", "next-guess", "next-backtrack", "next-contradiction"].forEach(function (role) {
      q(role).disabled = data.settings.solver !== "engine";
    });
    new MutationObserver(markTree).observe(root, { attributes: true, attributeFilter: ["data-step"] });
    drawTree();
    root.focus();
    APP.setAttribute("data-state", "ready");
  }
  q("solve").addEventListener("click", solve);

  function jump(kind, direction) {
    if (!viewer) return;
    var steps = result.viewer.steps, pos = viewer.pos();
    for (var i = pos + direction; i >= 0 && i < steps.length; i += direction) {
      if (steps[i].k === kind) { viewer.go(i); return; }
    }
  }
  q("next-guess").addEventListener("click", function () { jump("guess", 1); });
  q("prev-guess").addEventListener("click", function () { jump("guess", -1); });
  q("next-backtrack").addEventListener("click", function () { jump("backtrack", 1); });
  q("next-contradiction").addEventListener("click", function () { jump("contradiction", 1); });

  // --- the search tree ------------------------------------------------------------------
  var SVG = "http://www.w3.org/2000/svg", circles = [], lines = [], measure = null;
  // The width of a text in an element's font, measured on a canvas: the tree is often
  // drawn while its panel is hidden, where SVG text has no length yet.
  function textWidth(text, element) {
    measure = measure || document.createElement("canvas").getContext("2d");
    var style = getComputedStyle(element);
    measure.font = style.fontSize + " " + style.fontFamily;
    return measure.measureText(text).width;
  }
  function drawTree() {
    var svg = q("tree-svg"), note = q("tree-note");
    svg.textContent = "";
    circles = [];
    lines = [];
    var tree = result && result.tree;
    if (!tree) {
      note.textContent = "The logic solver does not search: it has no tree.";
      svg.setAttribute("width", 0);
      svg.setAttribute("height", 0);
      return;
    }
    var nodes = tree.nodes, kids = nodes.map(function () { return []; }), x = [], leaves = 0;
    nodes.forEach(function (n) { if (n.parent >= 0) kids[n.parent].push(n.id); });
    (function place(id) {  // leaves left to right, a parent above the middle of its children
      if (!kids[id].length) { x[id] = leaves++; return; }
      kids[id].forEach(place);
      x[id] = (x[kids[id][0]] + x[kids[id][kids[id].length - 1]]) / 2;
    })(0);
    var depth = Math.max.apply(null, nodes.map(function (n) { return n.depth; }));
    var labels = nodes.length <= 80, widest = 0;
    if (labels) {  // a slot as wide as the widest label: none overlaps another or is cut
      nodes.forEach(function (n) { if (n.id) widest = Math.max(widest, textWidth(n.label, svg)); });
    }
    var dx = leaves > 200 ? 8 : Math.max(34, Math.ceil(widest) + 16), dy = 40, pad = 20;
    svg.setAttribute("width", pad * 2 + Math.max(1, leaves - 1) * dx + Math.ceil(widest) + 8);
    svg.setAttribute("height", pad * 2 + depth * dy + 10);
    function px(id) { return pad + x[id] * dx; }
    function py(id) { return pad + nodes[id].depth * dy; }
    nodes.forEach(function (n) {
      if (n.parent < 0) return;
      var line = document.createElementNS(SVG, "line");
      line.setAttribute("x1", px(n.parent)); line.setAttribute("y1", py(n.parent));
      line.setAttribute("x2", px(n.id)); line.setAttribute("y2", py(n.id));
      line.setAttribute("data-node", n.id);
      svg.appendChild(line);
      lines.push(line);
    });
    nodes.forEach(function (n) {
      var c = document.createElementNS(SVG, "circle");
      c.setAttribute("cx", px(n.id)); c.setAttribute("cy", py(n.id));
      c.setAttribute("r", leaves > 200 ? 3.5 : 6);
      c.setAttribute("data-node", n.id);
      c.setAttribute("data-end", n.end);
      c.setAttribute("data-step", n.step);
      if (n.forced) c.classList.add("forced");
      var title = document.createElementNS(SVG, "title");
      title.textContent = n.label + (n.forced ? " (the only candidate left: no guess)" : "") +
        (n.end ? " (" + (n.end === "dead" ? "contradiction" : "solution") + ")" : "");
      c.appendChild(title);
      c.addEventListener("click", function () { if (viewer) viewer.go(n.step); });
      svg.appendChild(c);
      circles.push(c);
      if (labels && n.id) {
        var t = document.createElementNS(SVG, "text");
        t.setAttribute("x", px(n.id) + 8); t.setAttribute("y", py(n.id) + 4);
        t.textContent = n.label;
        svg.appendChild(t);
      }
    });
    var forced = nodes.filter(function (n) { return n.forced; }).length;
    var guesses = nodes.length - 1 - forced;
    note.textContent = guesses + " guess" + (guesses === 1 ? "" : "es") +
      (forced ? " and " + forced + " forced placement" + (forced === 1 ? "" : "s") : "") + " drawn" +
      (tree.truncated ? " (the steps kept; the counters count all)" : "");
    q("tree").setAttribute("data-nodes", nodes.length);
    markTree();
  }
  // The tree grows with the steps: a guess appears at its step, its contradiction or
  // solution when the search reaches it (or all at once, "the whole tree").
  function markTree() {
    if (!viewer || !result || !result.tree) return;
    var whole = q("tree-whole").checked, pos = whole ? Infinity : viewer.pos();
    var nodes = result.tree.nodes, at = 0, found = false;
    for (var i = 1; i < nodes.length && nodes[i].step <= viewer.pos(); i++) at = i;
    nodes.forEach(function (n) { if (n.end === "solution" && n.endStep <= pos) found = true; });
    circles.forEach(function (c, i) {
      var n = nodes[i], ended = n.end && n.endStep <= pos;
      c.classList.toggle("future", n.step > pos);
      c.classList.toggle("dead", !!ended && n.end === "dead");
      c.classList.toggle("solution", !!ended && n.end === "solution");
      c.classList.toggle("path", found && !!n.path);
      c.classList.toggle("current", i === at && viewer.pos() >= 0);
    });
    lines.forEach(function (line) {
      var n = nodes[+line.getAttribute("data-node")];
      line.classList.toggle("future", n.step > pos);
      line.classList.toggle("path", found && !!n.path);
    });
    var box = APP.querySelector(".tree-box"), c = circles[at];
    if (!q("tree").hidden && c) {  // keep the current guess in sight
      var x = +c.getAttribute("cx"), y = +c.getAttribute("cy");
      if (x < box.scrollLeft || x > box.scrollLeft + box.clientWidth) {
        box.scrollLeft = x - box.clientWidth / 2;
      }
      if (y < box.scrollTop || y > box.scrollTop + box.clientHeight) {
        box.scrollTop = y - box.clientHeight / 2;
      }
    }
  }
  q("tree-whole").addEventListener("change", markTree);
  q("tree-toggle").addEventListener("click", function () {
    var tree = q("tree"), open = tree.hidden;
    tree.hidden = !open;
    q("tree-toggle").setAttribute("aria-expanded", open);
    q("tree-toggle").textContent = open ? "hide the search tree" : "show the search tree";
    markTree();
  });

  // --- sets, generation, check -----------------------------------------------------------
  q("load").addEventListener("click", function () {
    var name = q("set").value, n = +q("set-number").value || 1;
    api("GET", "/api/sets/" + encodeURIComponent(name) + "/" + n).then(function (d) {
      q("variant").value = "classic";  // a set's puzzle (or document) carries its rules
      q("puzzle").value = d.puzzle;
      lineToGrid();
      solve();
    }, showError);
  });
  q("generate").addEventListener("click", function () {
    APP.setAttribute("data-state", "loading");
    q("generate").disabled = true;
    var body = { grade: q("grade").value, size: size, variant: q("gen-variant").value };
    api("POST", "/api/generate", body).then(function (d) {
      q("generate").disabled = false;
      if (d.document) q("variant").value = "classic";  // the document carries its rules
      else if (OPTIONS.variants.indexOf(d.variant) >= 0) q("variant").value = d.variant;
      q("puzzle").value = d.puzzle;
      lineToGrid();
      solve();
    }, function (err) { q("generate").disabled = false; showError(err); });
  });
  q("check").addEventListener("click", function () {
    var chosen = Array.prototype.filter.call(
      q("backends").querySelectorAll("input"), function (el) { return el.checked; }
    ).map(function (el) { return el.value; });
    var table = q("check-results");
    table.textContent = "";
    table.setAttribute("data-state", "loading");
    var body = { puzzle: q("puzzle").value.trim(), variant: q("variant").value, backends: chosen };
    api("POST", "/api/check", body).then(function (d) {
      var head = document.createElement("tr");
      ["backend", "status", "count", "ms", "agrees"].forEach(function (h) {
        var th = document.createElement("th"); th.textContent = h; head.appendChild(th);
      });
      table.appendChild(head);
      d.rows.forEach(function (row) {
        var tr = document.createElement("tr");
        tr.setAttribute("data-backend", row.backend);
        if (row.agrees === false) tr.className = "bad";
        [row.backend, row.status, row.count, ((row.build + row.solve) * 1000).toFixed(1),
         row.agrees === null ? "-" : row.agrees ? "yes" : "NO"].forEach(function (v) {
          var td = document.createElement("td"); td.textContent = v; tr.appendChild(td);
        });
        if (row.message) tr.title = row.message;
        table.appendChild(tr);
      });
      table.setAttribute("data-state", "ready");
    }, function (err) { table.setAttribute("data-state", "error"); showError(err); });
  });

  // --- start: the options, then the URL's puzzle and settings ----------------------------
  api("GET", "/api/options").then(function (o) {
    OPTIONS = o;
    fill(q("size"), o.sizes);
    fill(q("propagation"), o.propagations);
    fill(q("order"), o.orders);
    fill(q("grade"), o.grades);
    fill(q("variant"), o.variants, o.variants.map(function (v) {
      return { classic: "classic", x: "x (diagonals)", hyper: "hyper (windows)" }[v] || v;
    }));
    fill(q("gen-variant"), o.generateVariants);
    fill(q("set"), o.sets.map(function (s) { return s[0]; }),
      o.sets.map(function (s) { return s[0] + " (" + s[1] + ")"; }));
    o.ladder.forEach(function (t) {
      var li = document.createElement("li");
      li.textContent = t[0] + " (" + t[1] + ", " + t[2] + ")";
      q("ladder").appendChild(li);
    });
    o.backends.forEach(function (b) {
      var label = document.createElement("label"), box = document.createElement("input");
      box.type = "checkbox";
      box.value = b.name;
      box.disabled = !b.available;
      box.checked = b.available && (b.name === "native" || b.name === "dlx" || b.name === "cpsat");
      label.appendChild(box);
      label.appendChild(document.createTextNode(" " + b.name));
      if (!b.available) { label.className = "off"; label.title = "not installed"; }
      q("backends").appendChild(label);
    });
    var params = new URLSearchParams(location.search), d = o.defaults;
    q("variant").value = params.get("variant") || d.variant;
    q("solver").value = params.get("solver") || d.solver;
    q("propagation").value = params.get("propagation") || d.propagation;
    q("order").value = params.get("order") || d.order;
    q("certify").checked = params.get("certify") === "true";
    showSolverFields();
    q("size").value = 9;
    buildEditor(9);
    APP.setAttribute("data-ready", "true");
    if (params.get("puzzle")) {
      q("puzzle").value = params.get("puzzle");
      lineToGrid();
      solve();
    } else {
      remember();
    }
  }, showError);
})();
