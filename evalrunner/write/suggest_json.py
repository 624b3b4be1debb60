"""`evalrun suggest --format json`: the suggestions for a program (SPEC's JSON document, keys in
its order); `suggest_table.py` prints them for a person from the same `Report`.
"""

from __future__ import annotations

from typing import IO, Any

import orjson

from .._version import __version__
from ..jsonvalue import MISSING
from ..jsonvalue import dumps as json_dumps
from ..model import NormSpec
from ..suggest.model import (
    AlternateSuggestion,
    DefaultSuggestion,
    Evidence,
    Example,
    Report,
    RuleSuggestion,
    Scored,
    Suggestion,
)


def rule_json(spec: NormSpec) -> dict[str, Any]:
    return {"name": spec.name, **spec.options}


def to_json(report: Report) -> dict[str, Any]:
    """The document of SPEC "`evalrun suggest`", keys in its order. The summary adds to SPEC's
    keys the line accounting `score` gives (`lines`, `unscoreable`) and the true failures left
    with every suggestion without risk applied (`true_failed_runs_if_safe_applied`)."""
    s = report.summary
    return {
        "evalrun": __version__,
        "suggestions": [suggestion_json(x) for x in report.suggestions],
        "summary": {
            "runs": s.runs,
            "true_failed_runs": s.true_failed_runs,
            "gains_if_all_applied": report.gains_if_all_applied,
            "risky": report.risky,
            "true_failed_runs_if_safe_applied": report.true_failed_if_safe_applied,
            "lines": s.lines,
            "unscoreable": s.unscoreable,
        },
        "errors": [{"source": source, "error": error} for source, error in report.errors],
    } | ({"case_suggestions": [x.to_json() for x in report.case_keys]} if report.case_keys else {})


def suggestion_json(s: Suggestion) -> dict[str, Any]:
    if isinstance(s, RuleSuggestion):
        return {
            "kind": s.kind,
            "tool": s.tool,
            "param": s.param,
            "rule": rule_json(s.rule),
            "others": [rule_json(o) for o, _ in s.others],
            "evidence": _evidence_json(s.evidence),
            "gains": s.gains,
            "risk": _risk_json(s),
            # after SPEC's keys: what a wider rule of the family would also merge
            "wider_merges": [
                {
                    "rule": w.rule,
                    "calls": w.calls,
                    "examples": [_example_json(x) for x in w.examples],
                }
                for w in s.wider_merges
            ],
        }
    if isinstance(s, DefaultSuggestion):
        return {
            "kind": s.kind,
            "tool": s.tool,
            "param": s.param,
            "default": s.default,
            "evidence": _evidence_json(s.evidence),
            "gains": s.gains,
            "risk": _risk_json(s),
            **({"others": [{"default": v, "calls": k} for v, k in s.others]} if s.others else {}),
        }
    if isinstance(s, AlternateSuggestion):
        return {
            "kind": s.kind,
            "case_id": s.case_id,
            "sequence": steps_json(s),
            "evidence": _evidence_json(s.evidence),
            "gains": s.gains,
            "risk": _risk_json(s),
        }
    return {
        "kind": s.kind,
        "tool": s.tool,
        "param": s.param,
        "encodings": [{"encoding": name, "calls": k} for name, k in s.encodings],
    }


def steps_json(s: AlternateSuggestion) -> list[dict[str, Any]]:
    return [{"tool": step.tool, "args": dict(step.args)} for step in s.sequence]


def _evidence_json(e: Evidence) -> dict[str, Any]:
    out: dict[str, Any] = {} if e.calls is None else {"calls": e.calls}
    out["runs"] = e.runs
    out["examples"] = [_example_json(x) for x in e.examples]
    if e.replies is not None:
        out["replies_agree"] = e.replies.agree
    out["checked_by"] = list(e.checked_by)
    return out


def _example_json(x: Example) -> dict[str, Any]:
    out: dict[str, Any] = {"run_id": x.run_id, "source": x.source}
    if x.actual is not MISSING:
        out["actual"] = x.actual
    if x.expected is not MISSING:
        out["expected"] = x.expected
    return out


def _risk_json(s: Scored) -> dict[str, Any]:
    r = s.risk
    out: dict[str, Any] = {"effects_failed": r.effects_failed, "unverified": r.unverified}
    if isinstance(s, AlternateSuggestion):
        return out
    if isinstance(s, RuleSuggestion):
        out["narrower_differs"] = [
            {"rule": w.rule, "calls": w.calls, "examples": [_example_json(x) for x in w.examples]}
            for w in r.narrower_differs
        ]
        out["description"] = r.description
    out["replies_differ"] = r.replies_differ
    replies = s.evidence.replies
    if replies is not None and replies.examples:
        out["replies_differ_examples"] = [
            {
                "case_id": p.case_id,
                "calls": [
                    {
                        "run_id": c.run_id,
                        "source": c.source,
                        "value": json_value(c.value),
                        "reply": c.reply,
                    }
                    for c in (p.first, p.second)
                ],
            }
            for p in replies.examples
        ]
    if replies is not None and replies.sampled:
        out["replies_sampled"] = True
    out["risky"] = list(r.reasons)
    return out


def json_value(value: Any) -> Any:
    """A value as JSON writes it: a missing one is null."""
    return None if value is MISSING else value


def write_json(report: Report, out: IO[bytes]) -> None:
    out.write(json_dumps(to_json(report), option=orjson.OPT_INDENT_2) + b"\n")
