// The site's only script, optional: every page works fully without it. It sorts a
// table.sortable by a column, opens a comparison from a chooser's two lists, and filters the
// search page's list. Sorting: each header gets a
// button (reachable by keyboard, announced by screen readers). A column is read as dates
// (2024-02-06, with or without a time), as kernel versions when every cell is one (6.10.3 after
// 6.9, 6.8-rc1 before 6.8, build suffixes after), as numbers with units, thousands separators,
// signs or intervals ("2,986 [2,834, 3,080]", "−1.3 %", "▲ +4.2"), or else as text.
(function () {
  var DATE = /^\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?$/;
  var VERSION = /^(\d+)\.(\d+)(?:\.(\d+))?(?:-rc(\d+))?([-+~][\w.+~-]*)?$/;
  var NUMBER = /^[▲▼]?\s*([+\-\u2212]?[\d,]*\.?\d+(?:e[+\-]?\d+)?)(?:\s*(ns|µs|us|ms|s)(?![a-z]))?/i;
  // Times from 10,000 ns up are written in µs, ms or s: compare them in ns.
  var SCALE = { ns: 1, "µs": 1e3, us: 1e3, ms: 1e6, s: 1e9 };
  function text(cell) { return cell ? cell.textContent.trim() : ""; }
  function version(t) {
    var v = VERSION.exec(t);
    if (!v) return null;
    var rc = v[4] === undefined ? 999 : +v[4];
    var n = ((+v[1] * 1000 + +v[2]) * 1000 + (v[3] === undefined ? 0 : +v[3] + 1)) * 1000 + rc;
    return [n, v[5] || ""];
  }
  // Versions only when every cell is one and the column is not plain decimals.
  function isVersions(cells, header) {
    var any = false;
    for (var i = 0; i < cells.length; i++) {
      var t = cells[i];
      if (t === "") continue;
      if (!VERSION.test(t)) return false;
      if (!/^\d+\.\d+$/.test(t)) any = true;
    }
    return any || /kernel|version/i.test(header);
  }
  function key(t, versions) {
    if (t === "") return [4, ""];
    if (versions) { var v = version(t); return [0, v[0], v[1]]; }
    if (DATE.test(t)) return [1, t, ""];
    var n = NUMBER.exec(t);
    if (n) return [2, parseFloat(n[1].replace(/,/g, "").replace("\u2212", "-")) * (n[2] ? SCALE[n[2].toLowerCase()] : 1), ""];
    return [3, t.toLowerCase(), ""];
  }
  function cmp(a, b) {
    for (var i = 0; i < 3; i++) {
      if (a[i] < b[i]) return -1;
      if (a[i] > b[i]) return 1;
    }
    return 0;
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (th, col) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "sort";
      while (th.firstChild) b.appendChild(th.firstChild);
      th.appendChild(b);
      b.addEventListener("click", function () {
        var asc = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var texts = rows.map(function (r) { return text(r.cells[col]); });
        var versions = isVersions(texts, text(th));
        var keyed = rows.map(function (r, i) { return { r: r, k: key(texts[i], versions), i: i }; });
        // Empty cells last either way; ties keep their order.
        keyed.sort(function (x, y) {
          if ((x.k[0] === 4) !== (y.k[0] === 4)) return x.k[0] === 4 ? 1 : -1;
          return cmp(x.k, y.k) * (asc ? 1 : -1) || x.i - y.i;
        });
        keyed.forEach(function (x) { body.appendChild(x.r); });
      });
    });
  });
})();
// Optional too: a comparison chooser (compare/<arch>/index.html) picks, from two lists of
// versions, the page of that pair among those its list of links names.
(function () {
  var f = document.getElementById("chooser");
  if (!f) return;
  var pages = {};
  Array.prototype.forEach.call(document.querySelectorAll("ul.pairs a"), function (a) {
    pages[a.textContent] = a.href;
  });
  f.hidden = false;
  f.addEventListener("submit", function (e) {
    e.preventDefault();
    var key = document.getElementById("from").value + " \u2192 " + document.getElementById("to").value;
    document.getElementById("none").hidden = !!pages[key];
    if (pages[key]) location.href = pages[key];
  });
})();
// Optional too: the search page's filter keeps the rows of table.filterable that hold every
// word typed (the page lists them all without it).
(function () {
  var input = document.getElementById("filter");
  var table = document.querySelector("table.filterable");
  if (!input || !table) return;
  document.getElementById("filter-form").hidden = false;
  var rows = Array.prototype.slice.call(table.tBodies[0].rows);
  var texts = rows.map(function (r) { return r.textContent.toLowerCase(); });
  var count = document.getElementById("filter-count");
  input.addEventListener("input", function () {
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    rows.forEach(function (r, i) {
      var hit = words.every(function (w) { return texts[i].indexOf(w) >= 0; });
      r.hidden = !hit;
      if (hit) shown++;
    });
    count.textContent = words.length ? shown + " of " + rows.length + " series" : "";
  });
})();
