"""The results JSON (SPEC "Results JSON"): the layout of a run, its calls and an unscoreable line,
rendered to bytes, and the spool the JSON writers stream through.

JSON is written with sorted keys, so the same inputs give the same bytes. Run results go to a
spool (a temporary file once large) and never accumulate in memory.
"""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections.abc import Iterable
from typing import IO, Any

import orjson

from ..grade.compare import Comparison, Diff
from ..grade.grader import CallResult, RunResult
from ..jsonvalue import dumps as json_dumps
from ..jsonvalue import json_eq, kept
from ..model import MISSING, TraceError
from ..shapes import PARAM_SHAPES

JSON_OPTIONS = orjson.OPT_SORT_KEYS
SPOOL_BYTES = 8 * 1024 * 1024


def dumps(value: Any) -> bytes:
    """Deterministic JSON bytes; values that are not JSON (a plugin's output) are written as text,
    integers beyond 64 bits as the numbers they are."""
    return json_dumps(value, option=JSON_OPTIONS, default=_fallback)


def _fallback(value: Any) -> Any:
    if value is MISSING:
        return None
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return repr(value)


# --------------------------------------------------------------------------------- run results


def run_to_json(r: RunResult, *, calls: Any = None) -> dict[str, Any]:
    """One run result in the SPEC "Results JSON" layout (`calls`: its calls, already rendered);
    under `--group-by`, with its `group`."""
    out = {
        "run_id": r.run_id,
        "case_id": r.case_id,
        "source": r.source,
        "verdict": r.verdict,
        "shape": r.shape,
        "shapes": list(r.shapes),
        "reported": {"pass": r.reported_pass},
        "true": {"pass": r.true_pass, "accepted": r.accepted, "aligned_to": r.aligned_to},
        "calls": [call_to_json(c) for c in r.calls] if calls is None else calls,
        "missing": [{"step": j, "tool": s.tool, "args": s.args} for j, s in r.missing],
        "effects": [
            {"at": e.at, "op": e.op, "ok": e.ok, "status": e.status, "detail": e.detail}
            for e in r.effects
        ],
        "suspects": [{"tool": t, "param": p, "norm": n} for t, p, n in r.suspects],
    }
    if r.group is not None:
        out["group"] = r.group if type(r.group) is str else list(r.group)
    return out


def call_to_json(c: CallResult) -> dict[str, Any]:
    out: dict[str, Any] = {
        "index": c.index,
        "tool": c.tool,
        "label": c.label,
        "reported_failed": c.reported_failed,
    }
    if c.step is not None:
        out["step"] = c.step
    if c.repeats is not None:
        out["repeats"] = c.repeats
    if c.reason is not None:
        out["reason"] = c.reason
    if c.shapes:
        out["shapes"] = list(c.shapes)
    if c.comparison is not None and c.comparison.diffs:
        out["params"] = params_to_json(c.comparison)
    return out


def params_to_json(comparison: Comparison) -> dict[str, Any]:
    """Per path: the shapes and rule that explain the difference, raw and normalized values."""
    by_path: dict[str, list[Diff]] = {}
    for d in comparison.diffs:
        by_path.setdefault(d.path, []).append(d)
    out = {}
    for path, diffs in by_path.items():
        shapes = [s for s in PARAM_SHAPES if any(d.shape == s for d in diffs)]
        first = diffs[0]
        entry: dict[str, Any] = {
            "kind": "mismatch" if any(d.kind == "mismatch" for d in diffs) else "equivalent",
            "shape": shapes[0] if shapes else None,
            "shapes": shapes,
            "norm": next((d.norm for d in diffs if d.norm), None),
        }
        for key in ("actual", "expected"):
            raw = getattr(first, key)
            if raw is not MISSING:
                entry[key] = raw
        for d in diffs:
            for key, raw_key in (("actual_norm", "actual"), ("expected_norm", "expected")):
                value = getattr(d, key)
                if (
                    value is not MISSING
                    and key not in entry
                    and not json_eq(value, getattr(d, raw_key))
                ):
                    entry[key] = value
        notes = [d.note for d in diffs if d.note]
        if notes:
            entry["note"] = "; ".join(notes)
        breaks = next((d.breaks for d in diffs if d.breaks), None)
        if breaks is not None:  # the schema keyword the run's value breaks: no rule applied
            entry["breaks"] = breaks
        out[path] = entry
    return out


def error_to_json(e: TraceError) -> dict[str, Any]:
    return {"source": e.source, "error": e.error}


def encode_item(item: RunResult | TraceError) -> tuple[bool, bytes]:
    """(is it an unscoreable line, its JSON bytes): what the writers write, rendered anywhere.

    `evalrun score --jobs N` renders in the worker processes and sends back only these bytes:
    unpickling a RunResult would cost the parent more than grading it cost the worker.
    """
    if isinstance(item, TraceError):
        return True, dumps(error_to_json(item))
    return False, dumps(run_to_json(item, calls=_calls_json(item.calls)))


Encoded = tuple[list[bytes], list[bytes]]
"""A batch of results rendered: (the runs' JSON, the unscoreable lines' JSON), each in input order."""


def encode_items(items: Iterable[RunResult | TraceError]) -> Encoded:
    """A batch rendered as `encode_item` renders each: (runs, unscoreable lines), each in input
    order. `--jobs` renders a worker's batch with it: two lists of bytes cross back, and the
    writers write each batch's runs at once."""
    runs: list[bytes] = []
    errors: list[bytes] = []
    for item in items:
        is_error, data = encode_item(item)
        (errors if is_error else runs).append(data)
    return runs, errors


# Runs graded alike share one tuple of call results (the grader's memo), and the labels with
# their explanations are most of a run's JSON: render each such tuple once. The entry holds the
# tuple itself, so its id cannot be reused while the entry lives.
_RENDERED: dict[int, tuple[tuple[CallResult, ...], orjson.Fragment]] = {}
_RENDERED_SIZE = 8_192


def _calls_json(calls: tuple[CallResult, ...]) -> orjson.Fragment:
    found = _RENDERED.get(id(calls))
    if found is not None and found[0] is calls:
        return found[1]
    rendered = orjson.Fragment(kept(dumps([call_to_json(c) for c in calls])))
    if len(_RENDERED) >= _RENDERED_SIZE:
        _RENDERED.clear()  # a module-level cache: cleared, not halved (rebinding would not reach)
    _RENDERED[id(calls)] = (calls, rendered)
    return rendered


# ----------------------------------------------------------------------------------- writers


class Elements:
    """The elements of a JSON array, spooled (to a temporary file once large) until written."""

    def __init__(self) -> None:
        self.spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115 (closed by copy_to)
        self.n = 0
        # A scoring that fails before the writer closes (an input error, an interrupt) lets the
        # spool go with the writer, its temporary file removed.
        weakref.finalize(self, self.spool.close)

    def add(self, *elements: bytes) -> None:
        if elements:
            self.spool.write((b"," if self.n else b"") + b",".join(elements))
            self.n += len(elements)

    def copy_to(self, out: IO[bytes]) -> None:
        """Write the elements (without brackets) to `out`, and let the spool go."""
        self.spool.seek(0)
        shutil.copyfileobj(self.spool, out)
        self.spool.close()
