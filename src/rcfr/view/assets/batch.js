// rcfr batch report: plain DOM, no library, no build step.  The data are one JSON element
// (#rcfr-data: meta, columns, boards, textures, all).  The state (sort column, direction,
// texture filter) lives in the URL's hash: #sort=ev_oop&dir=desc&texture=paired.
(function () {
  "use strict";
  var site = JSON.parse(document.getElementById("rcfr-data").textContent);
  var meta = site.meta, cols = site.columns, TEX = cols.length;  // boards[i][TEX]: textures
  var PALETTE = ["#2563eb", "#16a34a", "#dc2626", "#d97706", "#9333ea", "#0891b2", "#db2777",
    "#65a30d", "#7c3aed", "#ea580c", "#0d9488", "#be123c"];
  var rootFreq = site.freq.filter(function (c) { return c.indexOf("root: ") === 0; });

  var el = rcfrElement;  // (dom.js)

  function show(v, kind) {
    if (v === null || v === undefined) return "";
    if (typeof v !== "number") return String(v);
    if (kind === "pct" || kind === "freq") return (100 * v).toFixed(1) + "%";
    if (kind === "num2") return v.toFixed(2);
    if (kind === "num3") return v.toFixed(3);
    if (kind === "weight") return Math.abs(v - Math.round(v)) < 1e-9
      ? Math.round(v).toLocaleString("en-US") : v.toFixed(2);
    return v.toLocaleString("en-US");
  }

  function cell(v, kind) {
    var attrs = {text: show(v, kind), "class": kind === "text" ? "text" : kind};
    if (typeof v === "number") { attrs["data-v"] = String(v); attrs.title = String(v); }
    return el("td", attrs);
  }

  function stack(r) {
    var bar = el("div", {"class": "stack"});
    rootFreq.forEach(function (c, a) {
      var f = r[c] || 0;
      bar.appendChild(el("span", {style: "width:" + (100 * f) + "%;background:" +
        PALETTE[a % PALETTE.length], title: c.slice(6) + " " + show(f, "freq")}));
    });
    return bar;
  }

  function state() {
    var s = {sort: "board", dir: "asc", texture: ""};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var i = part.indexOf("=");
      if (i > 0) s[decodeURIComponent(part.slice(0, i))] = decodeURIComponent(part.slice(i + 1));
    });
    return s;
  }

  function go(s) {
    var parts = ["sort=" + encodeURIComponent(s.sort), "dir=" + s.dir];
    if (s.texture) parts.push("texture=" + encodeURIComponent(s.texture));
    location.hash = parts.join("&");
  }

  function textureTable() {
    var heads = ["texture", "", "boards", "weight", "EV oop", "EV ip", "equity oop",
      "equity ip"].concat(site.freq, rootFreq.length ? ["root"] : []);
    var keys = ["ev_oop", "ev_ip", "equity_oop", "equity_ip"];
    var kinds = ["num2", "num2", "pct", "pct"];
    var body = el("tbody");
    [["all boards", "", site.all]].concat(site.textures.map(function (t) {
      return [t.texture, t.value, t];
    })).forEach(function (x, i) {
      var r = x[2], tr = el("tr", {"class": i === 0 ? "total" : "", "data-value": x[1]});
      tr.appendChild(cell(x[0], "text"));
      tr.appendChild(cell(x[1], "text"));
      tr.appendChild(cell(r.boards, "count"));
      tr.appendChild(cell(r.weight, "weight"));
      keys.forEach(function (k, j) { tr.appendChild(cell(r[k], kinds[j])); });
      site.freq.forEach(function (c) { tr.appendChild(cell(r[c], "freq")); });
      if (rootFreq.length) tr.appendChild(el("td", null, [stack(r)]));
      body.appendChild(tr);
    });
    var legend = el("div", {"class": "legend"}, rootFreq.map(function (c, a) {
      return el("span", {"class": "item"}, [el("span", {"class": "sw",
        style: "background:" + PALETTE[a % PALETTE.length]}), c.slice(6)]);
    }));
    return [el("h2", {text: "By texture"}), legend,
      el("div", {"class": "wide"}, [el("table", {"class": "strat textures", id: "textures"}, [
        el("thead", null, [el("tr", null, heads.map(function (h) { return el("th", {text: h}); }))]),
        body])])];
  }

  function boardsTable(s) {
    var k = -1;
    cols.forEach(function (c, i) { if (c.key === s.sort) k = i; });
    if (k < 0) { k = 0; s.sort = cols[0].key; }
    var sign = s.dir === "desc" ? -1 : 1;
    var rows = site.boards.map(function (r, i) { return [r, i]; }).filter(function (x) {
      return !s.texture || x[0][TEX].indexOf(s.texture) >= 0;
    });
    rows.sort(function (x, y) {
      var a = x[0][k], b = y[0][k];
      if (a === null || b === null) {  // empty cells last, either way
        if (a === b) return x[1] - y[1];
        return a === null ? 1 : -1;
      }
      var c = typeof a === "number" ? (a - b) : String(a).localeCompare(String(b));
      return c ? sign * c : x[1] - y[1];
    });
    var select = el("select", {id: "texture"}, [el("option", {value: "", text: "all boards"})]);
    var groups = {};
    site.textures.forEach(function (t) {
      if (!groups[t.texture]) {
        groups[t.texture] = el("optgroup", {label: t.texture});
        select.appendChild(groups[t.texture]);
      }
      groups[t.texture].appendChild(el("option", {value: t.value, text: t.value}));
    });
    select.value = s.texture;
    select.addEventListener("change", function () {
      go({sort: s.sort, dir: s.dir, texture: select.value});
    });
    var head = el("tr", null, cols.map(function (c) {
      var th = el("th", {"class": "sort" + (c.kind === "text" ? " text" : ""),
        "data-key": c.key, title: "sort by " + c.label},
        [c.label]);
      if (c.key === s.sort) th.appendChild(el("span", {"class": "arrow",
        text: s.dir === "desc" ? "\u25bc" : "\u25b2"}));
      th.addEventListener("click", function () {
        var dir = c.key === s.sort ? (s.dir === "asc" ? "desc" : "asc")
          : (c.kind === "text" ? "asc" : "desc");
        go({sort: c.key, dir: dir, texture: s.texture});
      });
      return th;
    }));
    var body = el("tbody", null, rows.map(function (x) {
      return el("tr", {"data-board": x[0][0]}, cols.map(function (c, i) {
        return cell(x[0][i], c.kind);
      }));
    }));
    return [el("h2", {text: "Boards"}),
      el("div", {"class": "controls"}, [el("label", null, ["texture ", select]),
        el("span", {id: "count", text: "  " + rows.length + " of " + site.boards.length +
          " boards"})]),
      el("div", {"class": "wide"}, [el("table", {"class": "strat boards", id: "boards"},
        [el("thead", null, [head]), body])])];
  }

  function render() {
    var main = document.getElementById("main");
    try {
      var s = state();
      document.getElementById("title").textContent = meta.title;
      var summary = document.getElementById("summary");
      summary.textContent = "";
      [meta.solved + " of " + meta.boards + " boards solved",
        "standing for " + show(meta.weight, "weight") + " boards", "pot " + meta.pot,
        meta.source].forEach(function (t) { if (t) summary.appendChild(el("span", {text: t})); });
      main.textContent = "";
      textureTable().concat(boardsTable(s)).forEach(function (e) { main.appendChild(e); });
      document.body.setAttribute("data-ready", location.hash || "#");
    } catch (e) {
      main.textContent = "";
      main.appendChild(el("p", {"class": "err", text: String(e)}));
      document.body.setAttribute("data-ready", "error");
      throw e;
    }
  }

  window.addEventListener("hashchange", function () {
    document.body.removeAttribute("data-ready");
    render();
  });
  render();
})();
