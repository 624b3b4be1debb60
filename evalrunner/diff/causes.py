"""Why a run's verdict, or a case's pass fraction, changed: read from the two explanations."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from ..jsonvalue import short_json
from ..model import MISSING, PREDICATES
from .views import CallView, ParamView, RunDetail, RunView, same_value

ALIGNED = ("exact", "equivalent")


def run_cause(o: RunDetail, n: RunDetail) -> str:
    """Why one run's verdict changed, as specifically as the two explanations allow."""
    parts: list[str] = []
    if o.true_pass != n.true_pass:
        parts += _true_causes(o, n)
        if not parts:
            parts.append(f"the true check now {'passes' if n.true_pass else 'fails'}")
    if o.reported_pass != n.reported_pass:
        reported = _reported_causes(o, n)
        parts += reported or [f"exact-match now {'passes' if n.reported_pass else 'fails'}"]
    return "; ".join(dict.fromkeys(parts))


def _true_causes(o: RunDetail, n: RunDetail) -> list[str]:
    parts: list[str] = []
    if n.accepted != o.accepted:
        was = "none" if o.accepted is None else f"#{o.accepted}"
        if n.accepted is None:
            parts.append(f"the calls no longer match any accepted sequence (was {was})")
        elif n.accepted != 0:
            parts.append(f"now matches accepted sequence #{n.accepted} (was {was})")
        elif o.accepted is not None:
            parts.append(f"now matches the canonical sequence (#0) (was {was})")
    same_sequence = o.aligned_to == n.aligned_to
    calls = _call_causes(o, n, same_sequence)
    parts += calls
    if not calls and same_sequence:
        before = set(o.missing)
        parts += [
            f"step {j} ({tool}) now missing" for j, tool in n.missing if (j, tool) not in before
        ]
        after = set(n.missing)
        parts += [
            f"step {j} ({tool}) no longer missing"
            for j, tool in o.missing
            if (j, tool) not in after
        ]
    if n.accepted == 0 and o.accepted is None and not parts:
        parts.append("now matches accepted sequence #0 (was none)")
    parts += _effect_causes(o, n)
    return parts


def _call_causes(o: RunDetail, n: RunDetail, same_sequence: bool) -> list[str]:
    if len(o.calls) != len(n.calls) or any(x.tool != y.tool for x, y in zip(o.calls, n.calls)):
        return [f"the calls differ ({len(o.calls)} → {len(n.calls)} calls)"]
    parts: list[str] = []
    for before, after in zip(o.calls, n.calls):
        if before.label == after.label and before.params == after.params:
            continue
        parts += _one_call(before, after, same_sequence)
    return parts


def _one_call(before: CallView, after: CallView, same_sequence: bool) -> list[str]:
    i, tool = after.index, after.tool
    was, now = before.label, after.label
    if now == "redundant" and was != "redundant":
        return [f"call {i} now redundant (repeats call {after.repeats})"]
    if was == "redundant" and now != "redundant":
        if now == "repeat":
            return [f"call {i} no longer redundant: {tool} is now repeatable"]
        return [f"call {i} no longer redundant"]
    if now == "forbidden" and was != "forbidden":
        return [f"call {i} ({tool}) now forbidden by the case (was {was})"]
    if was == "forbidden" and now != "forbidden":
        return [f"call {i} ({tool}) no longer forbidden (now {now})"]
    if now == "read" and was != "read":
        return [f"call {i} ({tool}) now a read the case does not judge (grade: writes; was {was})"]
    if was == "read" and now != "read":
        return [f"call {i} ({tool}) now judged (was a read left out under grade: writes)"]
    if now in ("errored", "malformed") and was != now:
        return [f"call {i} ({tool}) now {now} (was {was})"]
    if was in ("errored", "malformed") and was != now:
        return [f"call {i} ({tool}) no longer {was} (now {now})"]
    if now == "equivalent":
        found = []
        for p in after.params:
            if p.kind != "equivalent" or before.param(p.path) == p:
                continue
            if p.norm in PREDICATES:
                found.append(
                    f"now accepted by the step's judge `{p.norm}` on {tool}.{p.path}: "
                    f"{_pair(p, '~')}"
                )
            elif p.norm:
                found.append(
                    f"now equivalent through `{p.norm}` on {tool}.{p.path}: {_pair(p, '~')}"
                )
            else:
                stated = p.actual if p.actual is not MISSING else p.expected
                found.append(
                    f"now equivalent: {tool}.{p.path} = {short_json(stated)} is the declared "
                    "default"
                )
        if found or was == "exact":
            return found
        return [f"call {i} ({tool}) now equivalent (was {was})"]
    if now == "exact":
        if was in ALIGNED or not same_sequence:
            return []  # an alternate path is named by the accepted sequence
        differed = [
            f"{tool}.{p.path} {_pair(p, '≠')}" for p in before.params if p.kind == "mismatch"
        ]
        how = f"{was}: {', '.join(differed)}" if differed else was
        return [f"call {i} ({tool}) now matches exactly (was {how})"]
    if now == "mismatch":
        found = []
        for p in after.params:
            if p.kind != "mismatch":
                continue
            old = before.param(p.path)
            if old is not None and old.kind == "equivalent" and old.norm:
                found.append(
                    f"no longer equivalent: {tool}.{p.path} (was through `{old.norm}`): "
                    f"{_pair(p, '≠')}"
                )
            elif old is None or old.kind != "mismatch":
                found.append(f"{tool}.{p.path} now differs from the case: {_pair(p, '≠')}")
            else:
                continue
            if old is not None and not same_value(old.expected, p.expected):
                found[-1] += f" (the case had {short_json(old.expected)})"
        return found or [f"call {i} ({tool}) no longer matches (was {was})"]
    if now == "unexpected" and was != "unexpected":
        return [f"call {i} ({tool}) now unexpected (was {was})"]
    if now == "extra" and was == "unexpected":
        return [f"call {i} ({tool}) now allowed outside the sequence"]
    return []


def _pair(p: ParamView, relation: str) -> str:
    """The call's value and the case's: `"2026-03-01" ~ "2026-03"`, as `score --show` writes them."""
    return f"{short_json(p.actual)} {relation} {short_json(p.expected)}"


def _effect_causes(o: RunDetail, n: RunDetail) -> list[str]:
    parts = []
    for k, e in enumerate(n.effects):
        before = o.effects[k] if k < len(o.effects) else None
        if before is not None and (before.at, before.op) != (e.at, e.op):
            before = None
        where = f"{e.op} at {e.at or '/'}"
        if e.ok is False and (before is None or before.ok is not False):
            parts.append(f"effect now fails: {where}" + (f" ({e.detail})" if e.detail else ""))
        elif e.ok is not False and before is not None and before.ok is False:
            was = f" (was: {before.detail})" if before.detail else ""
            parts.append(f"effect now holds: {where}{was}")
    removed = o.effects[len(n.effects) :]
    if any(e.ok is False for e in removed):
        parts.append("a failing effect assertion was removed")
    return parts


def _reported_causes(o: RunDetail, n: RunDetail) -> list[str]:
    if len(o.calls) != len(n.calls):
        return []
    parts = []
    for before, after in zip(o.calls, n.calls):
        if before.reported_failed != after.reported_failed:
            now = "fails" if after.reported_failed else "passes"
            parts.append(f"exact-match now {now} call {after.index} ({after.tool})")
    return parts


def case_cause(o: list[RunView], n: list[RunView]) -> str:
    """Why a case's pass fraction moved: the failures that appeared or went away, by reason."""
    parts = []
    to, tn = _passes(o, "true"), _passes(n, "true")
    if Fraction(to, len(o)) != Fraction(tn, len(n)):
        parts.append(f"{tn}/{len(n)} trials pass (was {to}/{len(o)})")
        old_reasons = Counter(failure_reason(r.detail()) for r in o if not r.true_pass)
        new_reasons = Counter(failure_reason(r.detail()) for r in n if not r.true_pass)
        gone, came = old_reasons - new_reasons, new_reasons - old_reasons
        if came:
            parts.append("new failures: " + _top(came))
        if gone:
            parts.append("fewer failures: " + _top(gone))
    ro, rn = _passes(o, "reported"), _passes(n, "reported")
    if Fraction(ro, len(o)) != Fraction(rn, len(n)):
        parts.append(f"exact-match passes {rn}/{len(n)} (was {ro}/{len(o)})")
    return "; ".join(parts)


def _passes(runs: list[RunView], check: str) -> int:
    return sum(r.true_pass if check == "true" else r.reported_pass for r in runs)


def _top(reasons: Counter[str], n: int = 2) -> str:
    ranked = sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    text = ", ".join(f"{reason} ({k})" for reason, k in ranked[:n])
    if len(ranked) > n:
        text += f", and {len(ranked) - n} more"
    return text


def failure_reason(r: RunDetail) -> str:
    """The first thing to read about a failing run, in a few words."""
    for c in r.calls:
        if c.label == "forbidden":
            return f"forbidden call to {c.tool}"
    for c in r.calls:
        if c.label == "redundant":
            return f"redundant call to {c.tool}"
    if r.accepted is None:
        for c in r.calls:
            if c.label == "mismatch":
                paths = [p.path for p in c.params if p.kind == "mismatch"]
                if paths:
                    return f"{c.tool}.{paths[0]} differs"
                return f"{c.tool} call differs"
        for c in r.calls:
            if c.label in ("unexpected", "malformed"):
                return f"{c.label} call to {c.tool}"
        if r.missing:
            return f"{r.missing[0][1]} never called"
        if any(c.label == "errored" for c in r.calls):
            return "only errored attempts"
        return "no accepted sequence matched"
    for e in r.effects:
        if e.ok is False:
            return f"effect fails: {e.op} at {e.at or '/'}"
    return "fails"
