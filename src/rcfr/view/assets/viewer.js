// rcfr strategy viewer: plain DOM, no library, no build step.  The data are a JSON element
// (#rcfr-data: meta, the public tree, inline chunks) and, for large games, data/c<N>.js chunks
// loaded with <script> tags (JSONP: rcfrChunk(N, {...})), which also load from file:// pages.
(function () {
  "use strict";
  var site = JSON.parse(document.getElementById("rcfr-data").textContent);
  var meta = site.meta, tree = site.tree;
  var chunks = {}, pending = {};
  site.chunks.forEach(function (c, i) { chunks[i] = c; });
  var PALETTE = ["#2563eb", "#16a34a", "#dc2626", "#d97706", "#9333ea", "#0891b2", "#db2777",
    "#65a30d", "#7c3aed", "#ea580c", "#0d9488", "#be123c"];
  var PAGE = 200;  // information sets per page of the table

  window.rcfrChunk = function (c, data) {
    chunks[c] = data;
    if (pending[c]) { var p = pending[c]; delete pending[c]; p.resolve(data); }
  };

  function loadChunk(c) {
    if (c in chunks) return Promise.resolve(chunks[c]);
    if (pending[c]) return pending[c].promise;
    var entry = {};
    entry.promise = new Promise(function (res, rej) { entry.resolve = res; entry.reject = rej; });
    pending[c] = entry;
    var s = document.createElement("script");
    s.src = "data/c" + c + ".js";
    s.onerror = function () {
      delete pending[c];
      entry.reject(new Error("cannot load data/c" + c + ".js (is it beside index.html?)"));
    };
    document.head.appendChild(s);
    return entry.promise;
  }

  function chunkOf(id) {  // the last chunk whose first id is <= id
    var b = meta.chunks, lo = 0, hi = b.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (b[mid] <= id) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  var el = rcfrElement;  // (dom.js)

  function hexRgb(hex) {
    return [parseInt(hex.slice(1, 3), 16), parseInt(hex.slice(3, 5), 16),
      parseInt(hex.slice(5, 7), 16)];
  }
  // white blended with the action's colour by the probability (the test recomputes this)
  function shade(hex, p) {
    var c = hexRgb(hex), t = Math.max(0, Math.min(1, p));
    return "rgb(" + c.map(function (x) { return Math.round(255 + (x - 255) * t); }).join(",") + ")";
  }
  function diffShade(d) {
    return shade(d >= 0 ? "#16a34a" : "#dc2626", Math.min(1, Math.abs(d)));
  }
  function color(a) { return PALETTE[a % PALETTE.length]; }
  function fmtP(p) { return p.toFixed(3); }
  function fmtV(v) { return v === 0 ? "0" : Math.abs(v) >= 1e-3 && Math.abs(v) < 1e4 ?
    v.toFixed(4) : v.toExponential(3); }
  function fmtR(r) { return r === 0 ? "0" : r >= 1e-3 ? r.toFixed(3) : r.toExponential(2); }
  function fmtD(d) { return (d >= 0 ? "+" : "\u2212") + Math.abs(d).toFixed(3); }

  function header() {
    document.getElementById("title").textContent = meta.title;
    var s = document.getElementById("summary"), parts = [
      meta.game, meta.sequences.toLocaleString("en") + " sequences",
      meta.infosets.toLocaleString("en") + " information sets"];
    if (meta.summary) {
      var ev = meta.summary;
      parts.push("value to player 0: " + fmtV(ev.value));
      parts.push("exploitability: " + fmtV(ev.exploitability) +
        (ev.exploitability_mbb !== undefined ? " (" + ev.exploitability_mbb.toFixed(1) + " mbb/g)" : ""));
    }
    if (meta.compare) parts.push("differences: " + meta.strategies[0] + " \u2212 " + meta.strategies[1]);
    parts.forEach(function (t) { s.appendChild(el("span", { text: t })); });
  }

  // -- the public tree ---------------------------------------------------------------------
  function kindOf(u) { return tree.kind.charAt(u); }
  function children(u) {
    var out = [];
    for (var v = tree.cs[u]; v < tree.cs[u + 1]; v++) out.push(v);
    return out;
  }
  function edgeName(v) { return tree.names[tree.edge[v]]; }
  function who(u) {
    var k = kindOf(u);
    return k === "c" ? "chance" : k === "t" ? "terminal" : "P" + k;
  }

  function crumbs(u) {
    var path = [];
    for (var v = u; v > 0; v = tree.parent[v]) path.push(v);
    path.reverse();
    var nav = document.getElementById("crumbs");
    nav.textContent = "";
    nav.appendChild(u === 0 ? el("span", { "class": "here", text: "root" })
      : el("a", { href: "#node=0", "data-node": "0", text: "root" }));
    path.forEach(function (v) {
      nav.appendChild(el("span", { "class": "sep", text: "\u203a" }));
      var w = el("span", { "class": "who", text: who(tree.parent[v]) });
      nav.appendChild(w);
      nav.appendChild(v === u ? el("span", { "class": "here", "data-node": String(v), text: edgeName(v) })
        : el("a", { href: "#node=" + v, "data-node": String(v), text: edgeName(v) }));
    });
  }

  function actionLinks(u, kids) {
    var box = el("div", { "class": "acts" });
    kids.forEach(function (v, a) {
      var sw = el("span", { "class": "sw", style: "background:" + (kindOf(u) === "c" ? "#9ca3af" : color(a)) });
      box.appendChild(el("a", { href: "#node=" + v, "data-node": String(v), "class": "act" },
        [sw, edgeName(v)]));
    });
    return box;
  }

  function probCell(rec, k, a, A) {
    var p = rec.pr[k * A + a];
    var td;
    if (meta.compare) {
      var q = rec.pr2[k * A + a], d = p - q;
      td = el("td", { "class": "prob", "data-p": String(p), "data-p2": String(q),
        title: p + " vs " + q, style: "background:" + diffShade(d) },
      [fmtD(d), el("small", { text: fmtP(p) + " | " + fmtP(q) })]);
    } else {
      td = el("td", { "class": "prob", "data-p": String(p), title: String(p),
        style: "background:" + shade(color(a), p) }, [fmtP(p)]);
    }
    td.setAttribute("data-a", String(a));
    return td;
  }

  function stateTable(u, rec, labels, names) {
    var A = names.length, tbl = el("table", { "class": "strat", id: "strategy" });
    var head = [el("th", { "class": "state", text: "state" })];
    head.push(el("th", { text: meta.compare ? "reach 1" : "reach" }));
    if (meta.compare) head.push(el("th", { text: "reach 2" }));
    names.forEach(function (n, a) {
      head.push(el("th", {}, [el("span", { "class": "sw", style: "display:inline-block;width:9px;height:9px;margin-right:4px;background:" + color(a) }), n]));
    });
    if (rec.cv) { head.push(el("th", { text: "cf. value" })); head.push(el("th", { text: "BR gain" })); }
    tbl.appendChild(el("thead", {}, [el("tr", {}, head)]));
    var body = el("tbody");
    labels.forEach(function (lab, k) {
      var tds = [el("td", { "class": "state", text: lab })];
      tds.push(el("td", { "class": "reach", "data-v": String(rec.re[k]), text: fmtR(rec.re[k]) }));
      if (meta.compare) tds.push(el("td", { "class": "reach2", text: fmtR(rec.re2[k]) }));
      for (var a = 0; a < A; a++) tds.push(probCell(rec, k, a, A));
      if (rec.cv) {
        tds.push(el("td", { "class": "cv", "data-v": String(rec.cv[k]), text: fmtV(rec.cv[k]) }));
        tds.push(el("td", { "class": "gain", "data-v": String(rec.g[k]), text: fmtV(rec.g[k]) }));
      }
      body.appendChild(el("tr", { "data-row": String(k), "data-state": lab }, tds));
    });
    tbl.appendChild(body);
    return tbl;
  }

  function bar(probs, cls) {
    var b = el("div", { "class": "bar " + cls });
    probs.forEach(function (p, a) {
      if (p > 0) b.appendChild(el("span", { style: "width:" + (100 * p) + "%;background:" + color(a) }));
    });
    return b;
  }

  // the grid of private states (the 13 x 13 hand grid, or two-part labels): each cell shows
  // its states' action probabilities as a stacked bar (several states of a cell: averaged,
  // weighted by reach)
  function stateGrid(rec, labels, lay, names) {
    var A = names.length, R = lay.rows.length, C = lay.cols.length;
    var grid = el("div", { "class": "grid", id: "grid",
      style: "grid-template-columns: 28px repeat(" + C + ", 58px)" });
    var cells = {};
    labels.forEach(function (lab, k) {
      var key = lay.cell[k][0] + "," + lay.cell[k][1];
      (cells[key] = cells[key] || []).push(k);
    });
    function mean(pr, re, ks) {
      var w = 0, out = new Array(A).fill(0);
      ks.forEach(function (k) { w += re[k]; });
      ks.forEach(function (k) {
        var wk = w > 0 ? re[k] / w : 1 / ks.length;
        for (var a = 0; a < A; a++) out[a] += wk * pr[k * A + a];
      });
      return out;
    }
    grid.appendChild(el("div", { "class": "hdr" }));
    lay.cols.forEach(function (c) { grid.appendChild(el("div", { "class": "hdr", text: c })); });
    for (var r = 0; r < R; r++) {
      grid.appendChild(el("div", { "class": "hdr", text: lay.rows[r] }));
      for (var c = 0; c < C; c++) {
        var ks = cells[r + "," + c];
        if (!ks) { grid.appendChild(el("div", { "class": "cell empty" })); continue; }
        var p = mean(rec.pr, rec.re, ks);
        var name = lay.type === "holdem" ? (r === c ? lay.rows[r] + lay.cols[c] :
          r < c ? lay.rows[r] + lay.cols[c] + "s" : lay.cols[c] + lay.rows[r] + "o")
          : ks.map(function (k) { return labels[k]; }).join(" ");
        var tip = name + "\n" + names.map(function (n, a) { return n + ": " + fmtP(p[a]); }).join("\n");
        if (rec.hc && lay.type === "holdem" && rec.hc.ev[13 * r + c] !== null) {
          var j = 13 * r + c, eqr = rec.hc.eqr[j];
          tip += "\nEV " + rec.hc.ev[j].toFixed(2) + ", equity " + (100 * rec.hc.eq[j]).toFixed(1)
            + "%" + (eqr === null ? "" : ", EQR " + eqr.toFixed(2));
        }
        var cell = el("div", { "class": "cell" + (meta.compare ? " two" : ""), title: tip });
        cell.appendChild(bar(p, "bar1"));
        if (meta.compare) {
          cell.appendChild(bar(mean(rec.pr2, rec.re2, ks), "bar2"));
          cell.title += "\n(top: strategy 1, bottom: strategy 2)";
        }
        cell.appendChild(el("span", { "class": "lab", text: name }));
        grid.appendChild(cell);
      }
    }
    return grid;
  }

  function legend(names) {
    var box = el("div", { "class": "legend" });
    names.forEach(function (n, a) {
      box.appendChild(el("span", { "class": "item" }, [
        el("span", { "class": "sw", style: "background:" + color(a) }), n]));
    });
    return box;
  }

  // a distilled strategy's text rules (rcfr distill -o) for this node's player and round
  function rulesPanel(u, kind) {
    var d = meta.distilled;
    if (!d) return null;
    var player = +kind, round = d.node_round[u], part = null;
    d.parts.forEach(function (p) {
      if (p.player === player && (p.round === null || p.round === round)) part = p;
    });
    if (!part) return null;
    var title = "Distilled rules (" + d.model + (d.max_depth ? ", depth " + d.max_depth : "")
      + (part.round === null ? "" : ", round " + (part.round + 1)) + ")";
    return el("div", { "class": "rules", id: "rules" }, [el("h3", { text: title }),
      el("ol", {}, part.rules.map(function (r) { return el("li", { text: r }); }))]);
  }

  function showNode(u) {
    var main = document.getElementById("main");
    if (!(u >= 0 && u < tree.kind.length)) u = 0;
    crumbs(u);
    var kind = kindOf(u), kids = children(u);
    if (kind === "t") {
      main.replaceChildren(el("h2", { text: "Terminal" }),
        el("p", {}, ["The hand is over. ", el("a", { href: "#node=" + tree.parent[u], text: "back" })]));
      return Promise.resolve();
    }
    if (kind === "c") {
      main.replaceChildren(el("h2", { text: "Chance: " + kids.length + " public outcomes" }),
        actionLinks(u, kids));
      return Promise.resolve();
    }
    var names = kids.map(edgeName);
    main.replaceChildren(el("h2", { text: "Player " + kind + " to act" }), actionLinks(u, kids),
      el("p", { id: "status", text: "loading..." }));
    return loadChunk(chunkOf(u)).then(function (chunk) {
      var rec = chunk[String(u)];
      if (!rec) throw new Error("node " + u + " is missing from its chunk");
      var rs = tree.rowsets[rec.rs], lay = rs.layout;
      var parts = [el("h2", { text: "Player " + kind + " to act: " + rs.labels.length + " private states" }),
        actionLinks(u, kids), legend(names)];
      var grid = lay.type !== "list" ? stateGrid(rec, rs.labels, lay, names) : null;
      var panel = rulesPanel(u, kind);
      if (panel) parts.push(el("div", { "class": "withrules" }, [grid || stateTable(u, rec, rs.labels, names), panel]));
      else if (grid) parts.push(grid);
      if (!panel || grid) parts.push(stateTable(u, rec, rs.labels, names));
      main.replaceChildren.apply(main, parts);
      main.setAttribute("data-node", String(u));
    });
  }

  // -- the information-set table (forms without public nodes) ---------------------------
  function showPage(page, query) {
    var main = document.getElementById("main");
    document.getElementById("crumbs").textContent = "Information sets (no public tree): page " + (page + 1);
    var n = meta.infosets, pages = Math.max(1, Math.ceil(n / PAGE));
    page = Math.max(0, Math.min(pages - 1, page || 0));
    var lo = page * PAGE, hi = Math.min(n, lo + PAGE), want = {};
    for (var i = lo; i < hi; i++) want[chunkOf(i)] = true;
    if (query && !meta.lazy) { lo = 0; hi = n; }
    var cs = query && !meta.lazy ? Object.keys(chunks) : Object.keys(want);
    return Promise.all(cs.map(function (c) { return loadChunk(+c); })).then(function () {
      var rows = [];
      for (var i = lo; i < hi; i++) {
        var c = chunkOf(i), r = chunks[c][i - meta.chunks[c]];
        if (!query || r.k.indexOf(query) >= 0) rows.push(r);
      }
      var tbl = el("table", { "class": "strat", id: "strategy" });
      var head = ["player", "information state", "reach", "actions"];
      if (meta.values) head.push("cf. value", "BR gain");
      tbl.appendChild(el("thead", {}, [el("tr", {}, head.map(function (h) { return el("th", { text: h }); }))]));
      var body = el("tbody");
      rows.slice(0, 2000).forEach(function (r) {
        var acts = el("td", { style: "text-align:left" });
        r.a.forEach(function (name, a) {
          var p = r.pr[a], bg = meta.compare ? diffShade(p - r.pr2[a]) : shade(color(a), p);
          var txt = meta.compare ? name + " " + fmtP(p) + " | " + fmtP(r.pr2[a]) : name + " " + fmtP(p);
          acts.appendChild(el("span", { "class": "chip", "data-p": String(p),
            style: "display:inline-block;margin:1px 3px;padding:0 5px;border-radius:3px;background:" + bg,
            text: txt }));
        });
        var tds = [el("td", { text: String(r.p) }), el("td", { "class": "key", text: r.k }),
          el("td", { text: fmtR(r.re) }), acts];
        if (meta.values) tds.push(el("td", { text: fmtV(r.cv) }), el("td", { text: fmtV(r.g) }));
        body.appendChild(el("tr", { "data-infoset": String(r.i) }, tds));
      });
      tbl.appendChild(body);
      var pager = el("div", { "class": "pager" });
      if (page > 0) pager.appendChild(el("a", { href: "#page=" + (page - 1), text: "\u2039 previous" }));
      pager.appendChild(el("span", { text: "infosets " + (lo + 1) + "\u2013" + hi + " of " + n }));
      if (page < pages - 1) pager.appendChild(el("a", { href: "#page=" + (page + 1), text: "next \u203a" }));
      var filter = el("input", { id: "filter", placeholder: meta.lazy ? "filter this page" : "filter all information sets", value: query || "" });
      filter.addEventListener("change", function () {
        location.hash = "page=" + page + (filter.value ? "&q=" + encodeURIComponent(filter.value) : "");
      });
      main.replaceChildren(el("h2", { text: "Information sets" }), filter, pager, tbl);
    });
  }

  function route() {
    var h = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i > 0) h[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
    });
    var done = meta.mode === "public" ? showNode(parseInt(h.node || "0", 10))
      : showPage(parseInt(h.page || "0", 10), h.q || "");
    return done.then(function () { document.body.setAttribute("data-ready", location.hash || "#"); },
      function (e) {
        document.getElementById("main").replaceChildren(el("p", { "class": "err", text: String(e.message || e) }));
        document.body.setAttribute("data-ready", "error");
      });
  }

  header();
  window.addEventListener("hashchange", function () { document.body.removeAttribute("data-ready"); route(); });
  route();
}());
