// The flips on an evalrun diff page: filter by how the verdict moved and by text. Every value
// from the traces is set as text (textContent), never as HTML.
(function () {
  "use strict";
  var el = function (id) { return document.getElementById(id); };
  var source = el("evalrun-flips");
  if (!source) { return; }
  var flips = JSON.parse(source.textContent);
  var PAGE = 200;
  var limit = PAGE;
  function value(v) { return typeof v === "number" ? Math.round(100 * v) + "%" : String(v); }
  function move(f) { return value(f.old) + " → " + value(f.new); }
  var moves = {};
  flips.forEach(function (f) { moves[move(f)] = (moves[move(f)] || 0) + 1; });
  Object.keys(moves).sort().forEach(function (m) {
    var o = document.createElement("option");
    o.value = m; o.textContent = m + " (" + moves[m] + ")"; el("f-move").appendChild(o);
  });
  function matches(f) {
    if (el("f-move").value && move(f) !== el("f-move").value) { return false; }
    var t = el("f-text").value.trim().toLowerCase();
    return !t || (String(f.key) + " " + String(f.cause)).toLowerCase().indexOf(t) >= 0;
  }
  function cell(text) { var td = document.createElement("td"); td.textContent = text; return td; }
  function render() {
    var body = el("flip-list");
    var found = flips.filter(matches);
    while (body.firstChild) { body.removeChild(body.firstChild); }
    found.slice(0, limit).forEach(function (f) {
      var tr = document.createElement("tr");
      tr.appendChild(cell(f.key)); tr.appendChild(cell(move(f))); tr.appendChild(cell(f.cause));
      body.appendChild(tr);
    });
    el("n-shown").textContent = Math.min(limit, found.length).toLocaleString("en-US");
    el("n-match").textContent = found.length.toLocaleString("en-US");
    el("more").hidden = found.length <= limit;
  }
  el("f-move").addEventListener("change", function () { limit = PAGE; render(); });
  el("f-text").addEventListener("input", function () { limit = PAGE; render(); });
  el("more").addEventListener("click", function () { limit += PAGE; render(); });
  el("reset").addEventListener("click", function () {
    el("f-move").value = ""; el("f-text").value = ""; limit = PAGE; render();
  });
  render();
}());
