"""`evalrun audit sample --format html`: the reviewer's page, one self-contained HTML file that
shows one run at a time, its calls beside the accepted sequences, with the effects, the recorded
world and the tools; two buttons (correct, wrong) and a note; keyboard shortcuts; progress; and a button
that saves the labelled sheet, through the browser's download, as the JSONL `audit score` reads.

Self-contained: styles and script inline, nothing fetched. The sheet travels as JSON in a
`<script type="application/json">` block, with `<`, `>` and `&` written as JSON escapes so that
no trace content (a `</script>` in an argument, say) can end the block; the script puts every
string on the page as text (`textContent`), never as HTML.

Values are shown as Python renders them here (`42.0` stays `42.0`: JavaScript would print `42`,
and the money rule reads the two differently), and a saved line is the sampled line's text with
`label` and `note` appended (`sheet.line_bytes`), so nothing a reviewer did not touch changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from ..audit.sheet import Sheet, dumps, line_prefix
from ..jsonvalue import MISSING, loads
from ..jsonvalue import dumps as json_dumps
from ..traces import call_args, call_tool, is_errored

CALL_KEYS = frozenset({"tool", "name", "args", "arguments", "result"})


def render_page(sheet: Sheet, *, download: str) -> str:
    """The page for `sheet`; its save button downloads the labelled sheet as `download`."""
    data = {
        "download": download,
        "header": dumps(sheet.header.to_json()).decode(),
        "key": f"evalrun-audit:{sheet.header.digest.sha256}:{sheet.header.seed}:{len(sheet.runs)}",
        "blind": not sheet.header.show_verdict,
        "runs": [
            {"prefix": line_prefix(run).decode(), "label": None, "note": "", "view": view(run)}
            for run in sheet.runs
        ],
    }
    return PAGE.replace("/*DATA*/", script_json(data))


def script_json(value: Any) -> str:
    """JSON safe inside a `<script>` element: `<`, `>`, `&` and the two JavaScript line
    separators escaped (they only ever stand inside strings, where the escapes mean the same)."""
    text = json_dumps(value).decode()
    for char, escape in (
        ("&", "\\u0026"),
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escape)
    return text


COMPACT = 60
"""Values whose JSON is at most this long are shown on one line."""


def pretty(value: Any) -> str:
    """JSON for a person: on one line when short, else indented."""
    compact = json_dumps(value).decode()
    if len(compact) <= COMPACT:
        return compact
    return json_dumps(value, option=orjson.OPT_INDENT_2).decode()


def _reply(result: Any) -> str:
    """A tool's reply for a person: a text reply as its text, not as a JSON string literal (a
    reply `'{"ok": true}'` is shown `{"ok": true}`, never `"{\\"ok\\": true}"`); a text that
    holds a JSON object or list is shown as that JSON, laid out."""
    if type(result) is not str:
        return pretty(result)
    text = result.strip()
    if text[:1] in ("{", "["):
        try:
            return pretty(loads(text))
        except ValueError:
            pass
    return result


def view(run: Mapping[str, Any]) -> dict[str, Any]:
    """What the page shows of a run's line, every value already rendered as text."""
    evalrun = run.get("evalrun")
    return {
        "run_id": run["run_id"],
        "case_id": run["case_id"],
        "occurrence": run.get("occurrence", 0),
        "source": run.get("source", ""),
        "input": run.get("input", ""),
        "match": run.get("match", "exact"),
        "calls": [_call(raw) for raw in run.get("calls", [])],
        "accept": [
            [
                {
                    "tool": s["tool"],
                    "args": pretty(s["args"]),
                    "judge": pretty(s["judge"]) if s.get("judge") else None,
                }
                for s in seq
            ]
            for seq in run.get("accept", [])
        ],
        "forbid": [pretty(f) for f in run.get("forbid", [])],
        "grade": run.get("grade", "all"),
        "reads": [
            name for name, tool in run.get("tools", {}).items() if tool and tool.get("readonly")
        ],
        "repeatable": list(run.get("repeatable", [])),
        "effects": [pretty(e) for e in run.get("effects", [])],
        "world": None if run.get("world") is None else pretty(run["world"]),
        "meta": pretty(run["meta"]) if run.get("meta") else None,
        "tools": [
            {
                "name": name,
                "known": tool is not None,
                "description": tool.get("description", "") if tool else "",
                "parameters": pretty(tool.get("parameters", {})) if tool else "",
                "repeatable": tool.get("repeatable") if tool else None,
            }
            for name, tool in run.get("tools", {}).items()
        ],
        "verdict": evalrun if isinstance(evalrun, dict) else None,
    }


def _call(raw: Any) -> dict[str, Any]:
    if type(raw) is not dict:
        return {"tool": "?", "args": pretty(raw), "note": "not a call object"}
    args = call_args(raw)
    note = None
    if type(args) is str:
        try:
            parsed = loads(args) if args else {}
        except ValueError:
            parsed, note = MISSING, "arguments sent as text that is not JSON"
        if parsed is not MISSING:
            note = "arguments sent as JSON text"
            args = parsed if type(parsed) is dict else args
            if type(parsed) is not dict:
                note = "arguments sent as JSON text that is not an object"
    result = raw.get("result", MISSING)
    other = {k: v for k, v in raw.items() if k not in CALL_KEYS}
    return {
        "tool": call_tool(raw) or "?",
        "args": args if type(args) is str else pretty(args),
        "note": note,
        "result": None if result is MISSING else _reply(result),
        "errored": is_errored(raw, result),
        "other": pretty(other) if other else None,
    }


STYLE = """
:root { --fg: #1d2430; --muted: #5b6474; --line: #d9dee6; --bg: #f6f7f9; --card: #fff;
  --ok: #1f7a3f; --ok-bg: #e3f4e8; --bad: #b42318; --bad-bg: #fde8e6; --accent: #2f5bd3; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--fg); background: var(--bg); }
header.bar { position: sticky; top: 0; z-index: 2; display: flex; gap: 1rem; align-items: center;
  padding: .6rem 1rem; background: var(--card); border-bottom: 1px solid var(--line); }
header.bar h1 { font-size: 1rem; margin: 0; white-space: nowrap; }
.meter { flex: 1; height: .5rem; background: var(--line); border-radius: .25rem; overflow: hidden; }
.meter div { height: 100%; width: 0; background: var(--accent); }
#progress-text { white-space: nowrap; color: var(--muted); }
#strip { display: flex; flex-wrap: wrap; gap: 3px; padding: .5rem 1rem; }
#strip button { width: 14px; height: 14px; padding: 0; border: 1px solid #aab2bf;
  background: #fff; border-radius: 2px; cursor: pointer; }
#strip button.correct { background: var(--ok); border-color: var(--ok); }
#strip button.wrong { background: var(--bad); border-color: var(--bad); }
#strip button.current { outline: 2px solid var(--accent); outline-offset: 1px; }
main { padding: 0 1rem 1rem; }
.runhead { display: flex; flex-wrap: wrap; gap: .75rem; align-items: baseline; margin: .5rem 0; }
.runhead .ids code { font-size: 1rem; }
.runhead .spacer { flex: 1; }
.request { font-size: 1.05rem; background: var(--card); border: 1px solid var(--line);
  border-left: 4px solid var(--accent); padding: .6rem .8rem; margin: .5rem 0 1rem; }
.cols { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; margin-bottom: 1rem; }
@media (max-width: 900px) { .cols { grid-template-columns: 1fr; } }
.col { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem;
  min-width: 0; }
.col h2 { font-size: .95rem; margin: .2rem 0 .5rem; }
.col h2 small { font-weight: normal; color: var(--muted); }
ol.calls, ol.steps { margin: 0; padding-left: 1.6rem; }
ol.calls > li, ol.steps > li { margin-bottom: .6rem; }
.tool { font-weight: 600; font-family: ui-monospace, Menlo, Consolas, monospace; }
.badge { display: inline-block; font-size: .75rem; padding: 0 .4rem; border-radius: .6rem;
  margin-left: .4rem; vertical-align: middle; }
.badge.error { background: var(--bad-bg); color: var(--bad); }
.badge.canonical { background: #e8edfb; color: var(--accent); }
.label-small { color: var(--muted); font-size: .8rem; margin-top: .2rem; }
pre { margin: .2rem 0; padding: .4rem .5rem; background: #f3f5f8; border-radius: 4px;
  white-space: pre-wrap; word-break: break-word; max-height: 22rem; overflow: auto;
  font: 12.5px/1.4 ui-monospace, Menlo, Consolas, monospace; }
.seq { border-top: 1px dashed var(--line); padding-top: .4rem; margin-top: .4rem; }
.seq:first-of-type { border-top: 0; margin-top: 0; padding-top: 0; }
.none { color: var(--muted); font-style: italic; }
details summary { cursor: pointer; }
.verdict { background: #fff8e1; border: 1px solid #f0d48a; border-radius: 6px; padding: .5rem .8rem;
  margin-bottom: 1rem; }
aside.judge { position: sticky; bottom: 0; z-index: 2; display: flex; gap: .75rem;
  align-items: center; padding: .6rem 1rem; background: var(--card); border-top: 1px solid var(--line); }
aside.judge textarea { flex: 1; min-height: 2.6rem; max-height: 8rem; font: inherit; padding: .3rem; }
button, label.button { font: inherit; padding: .35rem .8rem; border: 1px solid #aab2bf;
  border-radius: 5px; background: #fff; cursor: pointer; white-space: nowrap; }
button:focus-visible { outline: 2px solid var(--accent); }
button.big { font-size: 1.05rem; padding: .5rem 1.2rem; font-weight: 600; }
button.correct { color: var(--ok); border-color: var(--ok); }
button.wrong { color: var(--bad); border-color: var(--bad); }
button.correct.on { background: var(--ok); color: #fff; }
button.wrong.on { background: var(--bad); color: #fff; }
button.primary { background: var(--accent); color: #fff; border-color: var(--accent); }
kbd { font: 11px ui-monospace, monospace; border: 1px solid currentColor; border-radius: 3px;
  padding: 0 .25rem; margin-left: .3rem; opacity: .8; }
#status { color: var(--muted); min-width: 12rem; }
.help { color: var(--muted); font-size: .85rem; margin: 1rem 0; }
"""

SCRIPT = r"""
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("sheet-data").textContent);
  const runs = data.runs;
  let at = 0;
  let dirty = false;

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  const $ = (id) => document.getElementById(id);
  const none = (text) => el("p", {class: "none"}, text);

  // Labels survive a closed tab: kept in this browser, per sheet, until saved and beyond.
  function store() {
    try {
      const kept = runs.map((r) => [r.label, r.note]);
      window.localStorage.setItem(data.key, JSON.stringify(kept));
    } catch (e) { /* storage may be off (private mode): the page works without it */ }
  }
  function restore() {
    try {
      const kept = JSON.parse(window.localStorage.getItem(data.key) || "null");
      if (!Array.isArray(kept) || kept.length !== runs.length) return 0;
      let n = 0;
      kept.forEach(([label, note], i) => {
        if (label === "correct" || label === "wrong") { runs[i].label = label; n++; }
        if (typeof note === "string") runs[i].note = note;
      });
      return n;
    } catch (e) { return 0; }
  }

  function line(r) {
    return r.prefix + ',"label":' + JSON.stringify(r.label) + ',"note":' + JSON.stringify(r.note) + "}";
  }
  function save() {
    const text = [data.header, ...runs.map(line)].join("\n") + "\n";
    const url = URL.createObjectURL(new Blob([text], {type: "application/x-ndjson"}));
    const a = el("a", {href: url, download: data.download});
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    dirty = false;
    const n = runs.filter((r) => r.label).length;
    $("status").textContent = "Saved " + data.download + " (" + n + " of " + runs.length + " labelled)";
  }

  function load(file) {
    file.text().then((text) => {
      const lines = text.split("\n").filter((l) => l.trim());
      const byKey = new Map(runs.map((r, i) => [key(r.view.run_id, r.view.case_id, r.view.occurrence), i]));
      let n = 0;
      for (const l of lines.slice(1)) {
        let v;
        try { v = JSON.parse(l); } catch (e) { continue; }
        const i = byKey.get(key(v.run_id, v.case_id, v.occurrence || 0));
        if (i === undefined) continue;
        if (v.label === "correct" || v.label === "wrong" || v.label === null) runs[i].label = v.label;
        if (typeof v.note === "string") runs[i].note = v.note;
        n++;
      }
      store();
      $("status").textContent = "Read " + n + " runs' labels from " + file.name;
      show(at);
    });
  }
  function key(run, kase, occurrence) { return JSON.stringify([run, kase, occurrence]); }

  function setLabel(label) {
    const r = runs[at];
    r.label = label;
    dirty = true;
    store();
    if (label && at < runs.length - 1) show(at + 1); else show(at);
  }

  function renderCalls(calls) {
    if (!calls.length) return none("no calls");
    return el("ol", {class: "calls", start: "0"}, ...calls.map((c) => el("li", {},
      el("span", {class: "tool"}, c.tool),
      c.errored ? el("span", {class: "badge error"}, "rejected by the tool") : null,
      el("pre", {class: "args"}, c.args),
      c.note ? el("div", {class: "label-small"}, c.note) : null,
      c.result !== null ? el("div", {class: "label-small"}, "result") : null,
      c.result !== null ? el("pre", {class: "result"}, c.result) : null,
      c.other ? el("div", {class: "label-small"}, "also recorded") : null,
      c.other ? el("pre", {}, c.other) : null)));
  }
  function renderAccept(accept) {
    return el("div", {}, ...accept.map((seq, j) => el("div", {class: "seq"},
      el("div", {}, "#" + j, j === 0
        ? el("span", {class: "badge canonical"}, "canonical: what exact-match expects") : null),
      seq.length ? el("ol", {class: "steps", start: "0"}, ...seq.map((s) => el("li", {},
        el("span", {class: "tool"}, s.tool), el("pre", {}, s.args),
        s.judge ? el("div", {class: "label-small"}, "judged by this step") : null,
        s.judge ? el("pre", {}, s.judge) : null))) : none("no calls"))));
  }
  function renderForbid(v) {
    const parts = [];
    if (v.grade !== "all") parts.push(el("p", {}, "graded on " + v.grade
      + ": calls to read-only tools" + (v.reads.length ? " (" + v.reads.join(", ") + ")" : "")
      + " are left out of the match"));
    if (v.repeatable.length) parts.push(el("p", {}, "repeatable here: " + v.repeatable.join(", ")));
    if (v.forbid.length) parts.push(el("div", {class: "label-small"}, "forbidden calls"),
      ...v.forbid.map((f) => el("pre", {}, f)));
    return el("div", {}, ...parts);
  }
  function renderTools(tools) {
    if (!tools.length) return none("no tools");
    return el("div", {}, ...tools.map((t) => el("details", {open: ""},
      el("summary", {}, el("span", {class: "tool"}, t.name),
        t.repeatable ? el("span", {class: "badge canonical"}, "repeatable") : null),
      t.known ? el("p", {}, t.description || "(no description)") : none("no tool file defines this tool"),
      t.known ? el("details", {}, el("summary", {}, "parameters"), el("pre", {}, t.parameters)) : null)));
  }

  function show(i) {
    at = Math.max(0, Math.min(runs.length - 1, i));
    const r = runs[at];
    const v = r.view;
    $("position").textContent = "Run " + (at + 1) + " of " + runs.length;
    $("run-id").textContent = v.run_id;
    $("case-id").textContent = v.case_id;
    $("source").textContent = v.source;
    $("input").textContent = v.input || "(the case states no request)";
    $("match").textContent = "match: " + v.match;
    $("calls").replaceChildren(renderCalls(v.calls));
    $("accept").replaceChildren(renderAccept(v.accept), renderForbid(v));
    $("effects").replaceChildren(v.effects.length
      ? el("div", {}, ...v.effects.map((e) => el("pre", {}, e))) : none("the case asserts no effect"));
    $("world").replaceChildren(v.world !== null ? el("pre", {}, v.world) : none("no world recorded"));
    $("meta").replaceChildren(v.meta ? el("pre", {}, v.meta) : none("none"));
    $("tools").replaceChildren(renderTools(v.tools));
    const verdict = $("verdict");
    verdict.hidden = !v.verdict;
    if (v.verdict) {
      verdict.replaceChildren(el("strong", {}, "evalrun: " + v.verdict.verdict),
        " (reported " + v.verdict.reported + ", true " + v.verdict.true + ")",
        el("pre", {}, v.verdict.explanation));
    }
    $("correct").classList.toggle("on", r.label === "correct");
    $("wrong").classList.toggle("on", r.label === "wrong");
    $("correct").setAttribute("aria-pressed", String(r.label === "correct"));
    $("wrong").setAttribute("aria-pressed", String(r.label === "wrong"));
    $("note").value = r.note;
    progress();
  }

  function progress() {
    const correct = runs.filter((r) => r.label === "correct").length;
    const wrong = runs.filter((r) => r.label === "wrong").length;
    const done = correct + wrong;
    $("progress-text").textContent =
      done + " of " + runs.length + " labelled · " + correct + " correct · " + wrong + " wrong";
    $("meter").style.width = (runs.length ? 100 * done / runs.length : 0) + "%";
    document.title = "evalrun audit · " + done + "/" + runs.length;
    const strip = $("strip");
    if (strip.children.length !== runs.length) {
      strip.replaceChildren(...runs.map((r, i) => el("button",
        {type: "button", title: "run " + (i + 1), "aria-label": "run " + (i + 1), onclick: () => show(i)})));
    }
    runs.forEach((r, i) => {
      const b = strip.children[i];
      b.className = (r.label || "") + (i === at ? " current" : "");
      b.title = "run " + (i + 1) + (r.label ? ": " + r.label : "");
    });
  }

  function nextUnlabelled() {
    for (let k = 1; k <= runs.length; k++) {
      const i = (at + k) % runs.length;
      if (!runs[i].label) { show(i); return; }
    }
    $("status").textContent = "Every run is labelled: save the sheet";
  }

  $("correct").addEventListener("click", () => setLabel("correct"));
  $("wrong").addEventListener("click", () => setLabel("wrong"));
  $("clear").addEventListener("click", () => setLabel(null));
  $("prev").addEventListener("click", () => show(at - 1));
  $("next").addEventListener("click", () => show(at + 1));
  $("next-unlabelled").addEventListener("click", nextUnlabelled);
  $("save").addEventListener("click", save);
  $("load").addEventListener("change", (e) => { if (e.target.files[0]) load(e.target.files[0]); });
  $("note").addEventListener("input", (e) => { runs[at].note = e.target.value; dirty = true; store(); });

  document.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === "s") { e.preventDefault(); save(); return; }
    if (e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLInputElement) {
      if (e.key === "Escape") e.target.blur();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const act = {
      c: () => setLabel("correct"), w: () => setLabel("wrong"), x: () => setLabel(null),
      ArrowLeft: () => show(at - 1), k: () => show(at - 1),
      ArrowRight: () => show(at + 1), j: () => show(at + 1),
      n: nextUnlabelled, e: () => $("note").focus(), s: save,
    }[e.key];
    if (act) { e.preventDefault(); act(); }
  });
  window.addEventListener("beforeunload", (e) => { if (dirty) { e.preventDefault(); e.returnValue = ""; } });

  const restored = restore();
  if (restored) $("status").textContent = "Restored " + restored + " labels kept in this browser";
  $("blind").textContent = data.blind
    ? "Blind: evalrun's verdict is not shown. Judge each run against its request, the accepted "
      + "sequences, the effects and the tools."
    : "Not blind: evalrun's verdict is shown with each run.";
  if (!runs.length) { $("progress-text").textContent = "The sheet has no runs"; return; }
  show(0);
})();
"""

PAGE = (
    """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy"
  content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>evalrun audit</title>
<style>"""
    + STYLE
    + """</style>
</head>
<body>
<header class="bar">
  <h1>evalrun audit</h1>
  <div class="meter"><div id="meter"></div></div>
  <span id="progress-text"></span>
  <input type="file" id="load" accept=".jsonl,application/x-ndjson" hidden>
  <label for="load" class="button" title="Read the labels of a sheet saved before, to go on"
    >Open labels…</label>
  <button type="button" id="save" class="primary">Save labelled sheet <kbd>s</kbd></button>
</header>
<nav id="strip" aria-label="runs"></nav>
<main>
  <p class="help" id="blind"></p>
  <p class="help keys">Keys: <kbd>c</kbd> correct, <kbd>w</kbd> wrong (each moves on to the next run),
  <kbd>x</kbd> clear, <kbd>j</kbd>/<kbd>→</kbd> next, <kbd>k</kbd>/<kbd>←</kbd> previous,
  <kbd>n</kbd> next unlabelled, <kbd>e</kbd> write a note (<kbd>Esc</kbd> leaves it),
  <kbd>s</kbd> save. Labels are kept in this browser as you go; the saved file is what
  <code>evalrun audit score</code> reads.</p>
  <div class="runhead">
    <strong id="position"></strong>
    <span class="ids"><code id="run-id"></code> · <code id="case-id"></code></span>
    <span id="source" class="label-small"></span>
    <span class="spacer"></span>
    <button type="button" id="prev">← Previous <kbd>k</kbd></button>
    <button type="button" id="next">Next → <kbd>j</kbd></button>
    <button type="button" id="next-unlabelled">Next unlabelled <kbd>n</kbd></button>
  </div>
  <p class="request" id="input"></p>
  <div class="verdict" id="verdict" hidden></div>
  <div class="cols">
    <section class="col"><h2>Calls as recorded</h2><div id="calls"></div></section>
    <section class="col"><h2>Accepted sequences <small id="match"></small></h2>
      <div id="accept"></div></section>
  </div>
  <div class="cols">
    <section class="col"><h2>Effects the case asserts</h2><div id="effects"></div>
      <h2>World recorded after the run</h2><div id="world"></div>
      <h2>Run metadata</h2><div id="meta"></div></section>
    <section class="col"><h2>Tools involved</h2><div id="tools"></div></section>
  </div>
</main>
<aside class="judge">
  <button type="button" id="correct" class="big correct" aria-pressed="false">Correct <kbd>c</kbd></button>
  <button type="button" id="wrong" class="big wrong" aria-pressed="false">Wrong <kbd>w</kbd></button>
  <button type="button" id="clear">Clear <kbd>x</kbd></button>
  <textarea id="note" placeholder="Note (optional): why, what differs, which rule… (e)"></textarea>
  <span id="status" role="status"></span>
</aside>
<script type="application/json" id="sheet-data">/*DATA*/</script>
<script>"""
    + SCRIPT
    + """</script>
</body>
</html>
"""
)
