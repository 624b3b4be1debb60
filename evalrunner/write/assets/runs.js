// The runs on an evalrun report: filter by verdict, shape, tool, case and group, and read each
// run's explanation. Every value from the traces is set as text (textContent), never as HTML.
(function () {
  "use strict";
  var el = function (id) { return document.getElementById(id); };
  var source = el("evalrun-runs");
  if (!source) { return; }
  var runs = JSON.parse(source.textContent);
  var PAGE = 100;
  var limit = PAGE;
  var f = { verdict: el("f-verdict"), shape: el("f-shape"), tool: el("f-tool"),
            kase: el("f-case"), group: el("f-group") };

  function uniq(values) {
    var seen = {}, out = [];
    values.forEach(function (v) {
      if (v !== null && v !== undefined && !Object.prototype.hasOwnProperty.call(seen, v)) {
        seen[v] = true; out.push(v);
      }
    });
    return out.sort();
  }
  function fill(select, values) {
    if (!select) { return; }
    values.forEach(function (v) {
      var o = document.createElement("option");
      o.value = v; o.textContent = v; select.appendChild(o);
    });
  }
  var flat = function (key) { return [].concat.apply([], runs.map(function (r) { return r[key] || []; })); };
  fill(f.verdict, uniq(runs.map(function (r) { return r.verdict; })));
  fill(f.shape, uniq(flat("shapes")));
  fill(f.tool, uniq(flat("tools")));
  fill(f.group, uniq(flat("group")));  // a string, or (--group-by case.tags) a list
  var cases = el("case-ids");
  uniq(runs.map(function (r) { return r.case_id; })).forEach(function (v) {
    var o = document.createElement("option"); o.value = v; cases.appendChild(o);
  });

  function matches(r) {
    if (f.verdict.value && r.verdict !== f.verdict.value) { return false; }
    if (f.shape.value && (r.shapes || []).indexOf(f.shape.value) < 0) { return false; }
    if (f.tool.value && (r.tools || []).indexOf(f.tool.value) < 0) { return false; }
    if (f.group && f.group.value && [].concat(r.group).indexOf(f.group.value) < 0) { return false; }
    var c = f.kase.value.trim().toLowerCase();
    if (c && String(r.case_id).toLowerCase().indexOf(c) < 0) { return false; }
    return true;
  }
  function span(cls, text) {
    var s = document.createElement("span"); s.className = cls; s.textContent = text; return s;
  }
  function card(r) {
    var div = document.createElement("div");
    div.className = "run v-" + r.verdict;
    div.setAttribute("data-verdict", r.verdict);
    var head = document.createElement("div"); head.className = "head";
    var label = r.verdict + ((r.shapes || []).length ? " (" + r.shapes.join(", ") + ")" : "");
    head.appendChild(span("badge v-" + r.verdict, label));
    head.appendChild(span("id", r.run_id));
    head.appendChild(span("case", r.case_id));
    if (r.group !== undefined) { head.appendChild(span("group muted", "group: " + [].concat(r.group).join(", "))); }
    head.appendChild(span("src", r.source));
    div.appendChild(head);
    (r.lines || []).forEach(function (line) {
      var d = document.createElement("div");
      d.className = "line k-" + line[0]; d.textContent = line[1]; div.appendChild(d);
    });
    return div;
  }
  function render() {
    var list = el("run-list");
    var found = runs.filter(matches);
    while (list.firstChild) { list.removeChild(list.firstChild); }
    var frag = document.createDocumentFragment();
    found.slice(0, limit).forEach(function (r) { frag.appendChild(card(r)); });
    list.appendChild(frag);
    el("n-shown").textContent = Math.min(limit, found.length).toLocaleString("en-US");
    el("n-match").textContent = found.length.toLocaleString("en-US");
    el("more").hidden = found.length <= limit;
  }
  ["verdict", "shape", "tool", "group"].forEach(function (k) {
    if (f[k]) { f[k].addEventListener("change", function () { limit = PAGE; render(); }); }
  });
  f.kase.addEventListener("input", function () { limit = PAGE; render(); });
  el("more").addEventListener("click", function () { limit += PAGE; render(); });
  el("reset").addEventListener("click", function () {
    ["verdict", "shape", "tool", "group"].forEach(function (k) { if (f[k]) { f[k].value = ""; } });
    f.kase.value = ""; limit = PAGE; render();
  });
  render();
}());
