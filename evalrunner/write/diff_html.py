"""`evalrun diff --format html`: a diff's page, drawn from the diff's JSON (`DiffResult.to_json()`,
what `--format json` prints), like the score page from the results JSON.

It shows both sides' reported and true run failure rates and the change, the shapes on each side,
each group's rates, flips and test under `--group-by`, rules newly suspect, the flips (each run
or case whose verdict moved, with its cause; filterable by how it moved and by text), and the
paired test in words. At most `MAX_FLIPS` flips are
embedded (the first ones, in the diff's order), and the page says how many there are.
"""

from __future__ import annotations

from typing import Any

from ..shapes import FALSE_FAILURE_SHAPES, FALSE_PASS_SHAPES
from .page import Pair, asset, document, embed_json, esc, legend, num, pairs, table
from .wording import change, n, pct, points, share

MAX_FLIPS = 5000
TEST_NAMES = {
    "exact_mcnemar": "exact McNemar test over runs",
    "exact_sign": "exact sign test over cases",
}


def render_diff(diff: dict[str, Any], *, alpha: float = 0.05) -> bytes:
    """The page of one diff (its JSON)."""
    old, new = diff.get("old") or {}, diff.get("new") or {}
    so, sn = old.get("summary") or {}, new.get("summary") or {}
    body = [
        _header(diff, old, new),
        _rates(diff, so, sn),
        _shapes(so, sn),
        _groups(diff),
        _suspects(diff),
        _test(diff, alpha),
        _flips(diff),
    ]
    return document(
        "evalrun diff", "\n".join(b for b in body if b), script=asset("flips.js")
    ).encode()


def _header(diff: dict[str, Any], old: dict[str, Any], new: dict[str, Any]) -> str:
    unpaired = diff.get("unpaired") or {}
    unit = "run" if diff.get("pairing") == "run_id" else "case"
    note = ""
    if unpaired.get("old") or unpaired.get("new"):
        note = (
            f"<p class=muted>Not paired: {n(unpaired.get('old'))} {unit}s only in OLD, "
            f"{n(unpaired.get('new'))} only in NEW (left out of the flips and the test).</p>"
        )
    return (
        "<h1>evalrun diff</h1>"
        f"<p class=sub>paired by <code>{esc(diff.get('pairing'))}</code>: "
        f"{esc(diff.get('pairing_reason'))}</p>"
        f"<table><tbody><tr><th>old</th><td>{esc(old.get('source'))}</td></tr>"
        f"<tr><th>new</th><td>{esc(new.get('source'))}</td></tr></tbody></table>{note}"
    )


def _rate(summary: dict[str, Any], check: str) -> Any:
    return (summary.get(check) or {}).get("run_failure_rate")


def _rates(diff: dict[str, Any], so: dict[str, Any], sn: dict[str, Any]) -> str:
    delta = diff.get("delta") or {}
    rows = []
    for check, label in (
        ("reported", "reported run failure rate"),
        ("true", "true run failure rate"),
    ):
        rows.append(
            [
                esc(label),
                num(("old", "summary", check, "run_failure_rate"), pct(_rate(so, check))),
                num(("new", "summary", check, "run_failure_rate"), pct(_rate(sn, check))),
                num(
                    ("delta", f"{check}_run_failure_rate"),
                    points(delta.get(f"{check}_run_failure_rate")),
                ),
            ]
        )
    rows.append(
        [
            "runs",
            num(("old", "summary", "runs"), n(so.get("runs"))),
            num(("new", "summary", "runs"), n(sn.get("runs"))),
            "",
        ]
    )
    chart = pairs(
        [
            Pair("old", _rate(so, "reported") or 0, _rate(so, "true") or 0),
            Pair("new", _rate(sn, "reported") or 0, _rate(sn, "true") or 0),
        ],
        title="run failure rate, old and new: reported vs true",
    )
    return (
        "<section id=rates><h2>Failure rates</h2>"
        f"{legend()}{chart}{table(['', 'old', 'new', 'change'], rows)}</section>"
    )


def _shapes(so: dict[str, Any], sn: dict[str, Any]) -> str:
    rows = []
    for group, names in (
        ("false_failures", FALSE_FAILURE_SHAPES),
        ("false_passes", FALSE_PASS_SHAPES),
    ):
        a, b = so.get(group) or {}, sn.get(group) or {}
        for shape in names:
            x, y = a.get(shape, 0), b.get(shape, 0)
            if not (x or y):
                continue
            rows.append(
                [
                    f"{esc(group.replace('_', ' '))}: <code>{esc(shape)}</code>",
                    num(("old", "summary", group, shape), n(x)),
                    num(("new", "summary", group, shape), n(y)),
                    change(x, y),
                ]
            )
    if not rows:
        return ""
    return f"<section id=shapes><h2>Shapes</h2>{table(['shape', 'old', 'new', 'change'], rows)}</section>"


def _groups(diff: dict[str, Any]) -> str:
    """`--group-by`: each group's runs and true failures on both sides, the change, its flips
    and its test, as the table prints them (the page had none of it)."""
    groups = diff.get("groups")
    if diff.get("group_by") is None or not isinstance(groups, dict):
        return ""
    rows = []
    for name, g in groups.items():
        sides = []
        for side in ("old", "new"):
            got = g.get(side) or {}
            runs, failed = got.get("runs") or 0, got.get("true_failed_runs") or 0
            k = ("groups", name, side)
            sides.append(
                (
                    num((*k, "runs"), n(runs)),
                    f"{share(failed, runs)} ({num((*k, 'true_failed_runs'), n(failed))})",
                )
            )
        t = g.get("test") or {}
        p = t.get("p_value")
        rows.append(
            [
                esc(name),
                sides[0][0],
                sides[1][0],
                sides[0][1],
                sides[1][1],
                esc(points((g.get("delta") or {}).get("true_run_failure_rate"))),
                esc(n(len(g.get("flips") or []))),
                num(("groups", name, "test", "improved"), n(t.get("improved"))),
                num(("groups", name, "test", "regressed"), n(t.get("regressed"))),
                esc(f"{p:.2g}" if isinstance(p, (int, float)) else "–"),
            ]
        )
    head = ["group", "old runs", "new runs", "old true", "new true", "change", "flips"]
    head += ["improved", "regressed", "p"]
    return (
        f"<section id=groups><h2>By {esc(diff['group_by'])}</h2>"
        "<p class=muted>Each group's true run failure rate on both sides, its flips and its "
        "paired test, on the group's runs alone under the whole diff's pairing.</p>"
        f"{table(head, rows)}</section>"
    )


def _suspects(diff: dict[str, Any]) -> str:
    rules = diff.get("suspect_rules") or []
    if not rules:
        return ""
    items = "".join(
        f"<li><code>{esc(s.get('norm'))}</code> on <code>{esc(s.get('tool'))}.{esc(s.get('param'))}"
        f"</code>: {n(s.get('runs'))} runs with failing effects"
        + (
            f" ({esc(', '.join(str(k) for k in (s.get('keys') or [])[:5]))})"
            if s.get("keys")
            else ""
        )
        + (
            f"; {n(s.get('unverified_passes'))} more it turned into passes had no world to check"
            if s.get("unverified_passes")
            else ""
        )
        + "</li>"
        for s in rules
    )
    return (
        "<section id=suspects><h2>Rules to doubt</h2><div class=warn><p><b>Calls now match "
        "through a rule while the recorded world says the run failed.</b> That is how a rule "
        f"change creates false passes: doubt the rule first.</p><ul>{items}</ul></div></section>"
    )


def _test(diff: dict[str, Any], alpha: float) -> str:
    t = diff.get("test") or {}
    improved, regressed, p = t.get("improved") or 0, t.get("regressed") or 0, t.get("p_value")
    unit = "run" if diff.get("pairing") == "run_id" else "case"
    if improved + regressed == 0:
        words = f"No {unit} changed its true verdict: nothing moved, nothing to test."
    else:
        shown = "p < 0.001" if isinstance(p, float) and p < 0.001 else f"p = {p:.3g}"
        if isinstance(p, float) and p < alpha:
            way = "an improvement" if improved > regressed else "a regression"
            verdict = f"unlikely to be noise at alpha {alpha:g} ({way})"
        else:
            verdict = f"could well be noise at alpha {alpha:g}"
        words = f"{shown}: {verdict}."
    return (
        f"<section id=test><h2>Is it more than noise?</h2><p>"
        f"{esc(TEST_NAMES.get(str(t.get('name')), str(t.get('name'))))} on the true verdicts: "
        f"{num(('test', 'improved'), n(improved))} improved, "
        f"{num(('test', 'regressed'), n(regressed))} regressed. {esc(words)}</p></section>"
    )


def _flips(diff: dict[str, Any]) -> str:
    flips = diff.get("flips") or []
    kept = flips[:MAX_FLIPS]
    unit = (
        "runs changed verdict" if diff.get("pairing") == "run_id" else "cases changed pass fraction"
    )
    more = (
        f"<p class=note>This page holds the first {n(len(kept))} of {n(len(flips))} flips; "
        "<code>evalrun diff --format json</code> lists them all.</p>"
        if len(flips) > len(kept)
        else ""
    )
    return (
        f"<section id=flips><h2>Flips: {num(('flips',), n(len(flips)))} {esc(unit)}</h2>{more}"
        '<div class="filters"><label>old → new<select id="f-move"><option value="">all</option>'
        '</select></label><label>key or cause<input id="f-text" placeholder="contains…"></label>'
        '<button id="reset" type="button">clear</button></div>'
        '<p id="shown">Showing <b id="n-shown">0</b> of <b id="n-match">0</b> matching flips.</p>'
        '<table id="flip-table"><thead><tr><th>key</th><th>old → new</th><th>cause</th></tr>'
        '</thead><tbody id="flip-list"></tbody></table>'
        '<button id="more" type="button" hidden>show more</button>'
        f'<script type="application/json" id="evalrun-flips">{embed_json(kept)}</script>'
        "</section>"
    )
