"""A run's explanation in words, from its results-JSON layout (`results.run_to_json`): what the
HTML page shows under each run and what a JUnit failure says.

It reads the JSON, not the live result, so that a saved results file (`evalrun report`) and a
fresh scoring explain a run in the same words. Each line has a kind, which the page styles:
`verdict`, `call`, `param` (raw → normalized, the rule, the shape), `missing`, `effect`,
`suspect`, `note`.
"""

from __future__ import annotations

from typing import Any

from ..jsonvalue import MISSING, short_json
from ..model import PREDICATES
from ..shapes import DEFAULT, UNJUDGED

Line = tuple[str, str]
"""(kind, text)."""

VALUE_CHARS = 80
"""A value in an explanation is cut to this many characters of compact JSON."""
MAX_CALLS = 40
"""Calls explained per run; a longer run (an agent in a loop) says how many more it made."""


def explain(run: dict[str, Any]) -> list[Line]:
    """The lines that explain one run's verdicts."""
    true = run.get("true") or {}
    reported = run.get("reported") or {}
    accepted, aligned = true.get("accepted"), true.get("aligned_to")
    if accepted is not None:
        seq = f"accepted sequence #{accepted}"
    else:
        seq = f"no accepted sequence matched; labelled against #{aligned}"
    lines: list[Line] = [
        (
            "verdict",
            f"reported {'pass' if reported.get('pass') else 'fail'} · "
            f"true {'pass' if true.get('pass') else 'fail'} · {seq}",
        )
    ]
    calls = run.get("calls") or []
    for c in calls[:MAX_CALLS]:
        lines.append(("call", call_text(c)))
        for path, p in (c.get("params") or {}).items():
            lines.append(("param", param_text(path, p)))
    if len(calls) > MAX_CALLS:
        lines.append(("note", f"… and {len(calls) - MAX_CALLS} more calls"))
    lines.extend(("missing", missing_text(m)) for m in run.get("missing") or [])
    lines.extend(
        ("effect", effect_text(e)) for e in run.get("effects") or [] if e.get("ok") is not True
    )
    lines.extend(
        ("suspect", f"suspect rule: {s.get('norm')} on {s.get('tool')}.{s.get('param')}")
        for s in run.get("suspects") or []
    )
    return lines


def headline(run: dict[str, Any]) -> str:
    """One line for a run: its verdict, its shapes and the first thing that went wrong (a call
    that is not exact, equivalent or extra; else a missing step; else an effect)."""
    shapes = run.get("shapes") or []
    text = str(run.get("verdict")) + (f" ({', '.join(shapes)})" if shapes else "")
    for c in run.get("calls") or []:
        if c.get("label") not in _FINE_LABELS:
            return f"{text}: {call_text(c)}"
    for m in run.get("missing") or []:
        return f"{text}: {missing_text(m)}"
    for e in run.get("effects") or []:
        if e.get("ok") is not True:
            return f"{text}: {effect_text(e)}"
    return text


_FINE_LABELS = frozenset({"exact", "equivalent", "extra", "read"})


def call_text(c: dict[str, Any]) -> str:
    text = f"[{c.get('index')}] {c.get('tool')}: {c.get('label')}"
    if c.get("step") is not None:
        text += f" (step {c['step']})"
    if c.get("repeats") is not None:
        text += f" (repeats call {c['repeats']})"
    if c.get("reason"):
        text += f" — {c['reason']}"
    return text


def missing_text(m: dict[str, Any]) -> str:
    args = short_json(m.get("args", {}), VALUE_CHARS)
    return f"missing step {m.get('step')}: {m.get('tool')} {args}"


def effect_text(e: dict[str, Any]) -> str:
    status = e.get("status") or ("unverified" if e.get("ok") is None else "failed")
    detail = f" ({e['detail']})" if e.get("detail") else ""
    return f"effect {e.get('op', '')} at {e.get('at') or '/'}: {status}{detail}"


def param_text(path: str, p: dict[str, Any]) -> str:
    """One parameter's difference: raw → normalized on each side, the rule, the shapes."""
    name = path or "(args)"
    actual, expected = p.get("actual", MISSING), p.get("expected", MISSING)
    shapes = ", ".join(p.get("shapes") or [])
    if p.get("kind") == "mismatch":
        text = f"{name}: {_side(p, 'actual')} ≠ {_side(p, 'expected')}"
        if p.get("norm"):
            text += f" (rule {p['norm']})"
    elif (actual is MISSING) != (expected is MISSING) and DEFAULT in (p.get("shapes") or []):
        side, value = ("actual", actual) if actual is not MISSING else ("expected", expected)
        text = f"{name}: {_value(value)} on the {side} side only is the declared default"
        if p.get("norm"):
            text += f"; rule {p['norm']}"
        text += f" ({shapes})"
    elif UNJUDGED in (p.get("shapes") or []) and actual is not MISSING and expected is not MISSING:
        # free text the rule does not judge: its normal form says nothing, the wordings do
        if p.get("norm") in PREDICATES:
            text = f"{name}: {_value(actual)} passes the step's {p.get('norm')} (for "
            text += f"{_value(expected)}; {shapes})"
        else:
            text = f"{name}: {_value(actual)} for {_value(expected)}: {p.get('norm')} absorbed it"
            text += f" ({shapes})"
    else:
        text = f"{name}: {_side(p, 'actual')} ~ {_side(p, 'expected')}"
        if p.get("norm"):
            text += f" by {p['norm']}"
        if shapes:
            text += f" ({shapes})"
    if p.get("note"):
        text += f" — {p['note']}"
    return text


def _side(p: dict[str, Any], key: str) -> str:
    """A side's value as recorded, and → its normalized form when the rule changed it."""
    text = _value(p.get(key, MISSING))
    if f"{key}_norm" in p:
        text += f" → {_value(p[f'{key}_norm'])}"
    return text


def _value(value: Any) -> str:
    return short_json(value, VALUE_CHARS)
