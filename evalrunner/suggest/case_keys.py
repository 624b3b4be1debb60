"""What a case could say about itself, from its runs: a step's `judge`, its `match` and `grade`,
the tools it should take as `repeatable`.

Each proposal is made from evidence, as alternates are: runs whose recorded world was checked and
held every effect assertion of the case (without a checked world, nothing says the run was right),
or, for `repeatable`, runs whose every repeated call stopped once its reply changed (a state
being polled).
Each is then scored as a what-if: the case changed alone, every group of its runs regraded, the
runs whose calls would newly pass counted as gains, and among them those whose world fails an
effect (`risk.effects_failed`) or was not recorded (`risk.unverified`).

- `judge`: one parameter of one step is all that differs in runs that hold every effect, and it
  differs across those runs (two or more values): the step does not judge it. Free text (every
  value a string with a space in it) gets `"any"`; other values `{"one_of": [...]}`, the step's
  value and the values seen.
- `match`: runs that hold every effect match the sequence under a wider mode; the narrowest mode
  that passes any is proposed, the others listed with their gains.
- `grade`: under `"grade": "writes"` such runs would match (the case calls read-only tools).
- `repeatable`: the case's loops were all polling: in every run with a loop, each repeated call
  stopped once its reply changed (`running`, `running`, `done`); a run whose last copy got the
  reply the one before it got (`done`, `done`) is a loop.

These are case lines to change by hand, never written by `--write`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from ..grade.grader import Grader, RunResult
from ..grade.norms import Normalizer
from ..jsonvalue import MISSING, canon_key
from ..model import Case, InputError, MatchMode, NormSpec, OneOf, Run, Step, Tool
from ..read.cases import judge_to_json
from .collect import Group
from .model import Evidence, Example, Risk

WIDER: Final[dict[str, tuple[MatchMode, ...]]] = {
    "exact": ("prefix", "unordered", "contains", "contains_unordered"),
    "prefix": ("contains", "contains_unordered"),
    "unordered": ("contains_unordered",),
    "contains": ("contains_unordered",),
    "contains_unordered": (),
}
"""For each match mode, the modes that accept more, narrowest first."""
EXAMPLES: Final = 3
ONE_OF_MOST: Final = 5
"""The most values a `one_of` proposal lists; more distinct values than that are no answer set."""


@dataclass(frozen=True)
class CaseKeySuggestion:
    """A change to one case: `key` (`judge`, `match`, `grade`, `repeatable`) set to `value`."""

    case_id: str
    key: str
    value: Any
    """As the case file writes it: for `judge`, the rule or predicate of one parameter."""
    evidence: Evidence
    gains: int
    risk: Risk
    step: tuple[int, int] | None = None
    """`judge`: (accepted sequence, step) of the judged step."""
    param: str | None = None
    """`judge`: the parameter's path."""
    others: tuple[tuple[Any, int], ...] = ()
    """`match`: the wider modes that pass evidence too, with their gains."""

    @property
    def kind(self) -> str:
        return "case"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": "case", "case_id": self.case_id, "key": self.key}
        if self.step is not None:
            out["step"] = list(self.step)
            out["param"] = self.param
        out[self.key] = self.value
        if self.others:
            out["others"] = [{self.key: v, "gains": g} for v, g in self.others]
        out["evidence"] = {
            "runs": self.evidence.runs,
            "examples": [{"run_id": x.run_id, "source": x.source} for x in self.evidence.examples],
        }
        out["gains"] = self.gains
        out["risk"] = {
            "effects_failed": self.risk.effects_failed,
            "unverified": self.risk.unverified,
        }
        return out


def propose_case_keys(
    tools: Mapping[str, Tool],
    cases: Mapping[str, Case],
    registry: Mapping[str, Normalizer],
    groups: Iterable[Group],
) -> tuple[CaseKeySuggestion, ...]:
    """The case keys the graded runs' groups support, by gains (then case, key)."""
    by_case: dict[str, list[Group]] = {}
    for g in groups:
        if g.case_id in cases:
            by_case.setdefault(g.case_id, []).append(g)
    base = Grader(tools, {}, registry=registry)  # the tools compiled once, for every what-if
    found: list[CaseKeySuggestion] = []
    for case_id in sorted(by_case):
        case, mine = cases[case_id], by_case[case_id]
        found.extend(_judges(case, mine, tools, base))
        found.extend(_match(case, mine, tools, base))
        found.extend(_grade(case, mine, tools, base))
        found.extend(_repeatable(case, mine, tools, base))
    return tuple(sorted(found, key=lambda s: (-s.gains, s.case_id, s.key, str(s.param))))


def _held(g: Group) -> bool:
    """Every run of the group recorded a world that held every effect the case asserts."""
    return not g.calls_ok and g.runs > 0 and g.checked == g.runs


def _passes(r: RunResult) -> bool:
    """The run's calls pass the true check: matched, no loop, nothing forbidden."""
    return r.accepted is not None and not any(
        c.label in ("redundant", "forbidden") for c in r.calls
    )


def _grader(case: Case, base: Grader) -> Grader:
    """A grader of this case alone, on the tools compiled once (`Grader.derive`)."""
    return base.derive(cases={case.id: case})


def _grade_group(grader: Grader, case: Case, g: Group) -> RunResult:
    result = grader.grade(Run(f"{case.id}:group", case.id, g.calls))
    assert isinstance(result, RunResult)
    return result


def _what_if(
    changed: Case,
    groups: list[Group],
    tools: Mapping[str, Tool],
    base: Grader,
    evidence: list[Group],
) -> tuple[int, Risk, Evidence] | None:
    """(gains, risk, evidence) of the changed case over its groups; None when no evidence group
    would pass (or the change is not a case evalrun can grade)."""
    try:
        grader = _grader(changed, base)
    except InputError:  # a change that is no valid case (a judge on a tool without the path)
        return None
    # The evidence groups first: when none of them passes the change has no evidence, and the
    # other groups need no grading at all (most what-ifs end here).
    held = [g for g in evidence if not g.calls_ok and _passes(_grade_group(grader, changed, g))]
    if not held:
        return None
    passed, graded = {id(g) for g in held}, {id(g) for g in evidence}
    gains = failed = unverified = 0
    for g in groups:
        if id(g) in passed or (
            id(g) not in graded and not g.calls_ok and _passes(_grade_group(grader, changed, g))
        ):
            gains += g.runs
            failed += g.effects_failed
            unverified += g.unverified
    examples = tuple(
        Example(run_id, source) for g in held for run_id, source in g.checked_examples
    )[:EXAMPLES]
    evidence_runs = sum(g.runs for g in held)
    return gains, Risk(failed, unverified), Evidence(evidence_runs, examples)


def _judges(
    case: Case,
    groups: list[Group],
    tools: Mapping[str, Tool],
    base: Grader,
) -> Iterable[CaseKeySuggestion]:
    if not any(_held(g) and g.mismatched for g in groups):
        return
    grader = _grader(case, base)
    sites: dict[tuple[int, int, str], list[tuple[Group, Any]]] = {}
    for g in groups:
        if not _held(g) or not g.mismatched:
            continue
        result = _grade_group(grader, case, g)
        differing = set()
        values = []
        for c in result.calls:
            if c.label == "mismatch" and c.step is not None and c.comparison is not None:
                for d in c.comparison.mismatches:
                    differing.add((result.aligned_to, c.step, d.param))
                    values.append(d.actual)
        # A run that leaves the parameter out is no value to judge by: neither `any` nor
        # `one_of` passes an absence the tool declares no default for.
        if len(differing) == 1 and values[0] is not MISSING:
            site = next(iter(differing))
            sites.setdefault(site, []).append((g, values[0]))
    for (k, j, path), found in sorted(sites.items()):
        distinct = {canon_key(v): v for _, v in found}
        if len(distinct) < 2:
            continue  # one other value is an answer, not a parameter the task leaves open
        step = case.accept[k][j]
        value = _judge_for(step, path, list(distinct.values()))
        if value is None:
            continue
        judged = dataclasses.replace(step, judge={**step.judge, path: value})
        accept = list(case.accept)
        accept[k] = (*accept[k][:j], judged, *accept[k][j + 1 :])
        changed = dataclasses.replace(case, accept=tuple(accept))
        scored = _what_if(changed, groups, tools, base, [g for g, _ in found])
        if scored is None:
            continue
        gains, risk, evidence = scored
        yield CaseKeySuggestion(
            case.id, "judge", judge_to_json(value), evidence, gains, risk, (k, j), path
        )


def _judge_for(step: Step, path: str, values: list[Any]) -> NormSpec | OneOf | None:
    if all(type(v) is str and " " in v.strip() for v in values):
        return NormSpec("any")  # free text worded otherwise in every run
    if len(values) >= ONE_OF_MOST:
        return None
    own = _at_path(step.args, path)
    answers = ([own] if own is not MISSING else []) + values
    return OneOf(tuple({canon_key(v): v for v in answers}.values()))


def _at_path(args: Any, path: str) -> Any:
    """The step's value at a parameter path (`filters.status`); MISSING where the step leaves
    it out or the path goes through a list (`items[].note`: which item's is not one value)."""
    value = args
    for name in path.split("."):
        if "[]" in name or type(value) is not dict or name not in value:
            return MISSING
        value = value[name]
    return value


def _match(
    case: Case,
    groups: list[Group],
    tools: Mapping[str, Tool],
    base: Grader,
) -> Iterable[CaseKeySuggestion]:
    evidence = [g for g in groups if _held(g)]
    if not evidence:
        return
    scored = []
    for mode in WIDER[case.match]:
        found = _what_if(dataclasses.replace(case, match=mode), groups, tools, base, evidence)
        if found is not None:
            scored.append((mode, found))
    if not scored:
        return
    mode, (gains, risk, ev) = scored[0]
    others = tuple((m, s[0]) for m, s in scored[1:])
    yield CaseKeySuggestion(case.id, "match", mode, ev, gains, risk, others=others)


def _grade(
    case: Case,
    groups: list[Group],
    tools: Mapping[str, Tool],
    base: Grader,
) -> Iterable[CaseKeySuggestion]:
    if case.grade == "writes":
        return
    named = {s.tool for seq in case.accept for s in seq}
    named |= {c.tool for g in groups for c in g.calls}
    if not any(tools[n].readonly for n in named if n in tools):
        return  # nothing says which calls only read
    evidence = [g for g in groups if _held(g)]
    changed = dataclasses.replace(case, grade="writes")
    found = _what_if(changed, groups, tools, base, evidence)
    if found is not None:
        gains, risk, ev = found
        yield CaseKeySuggestion(case.id, "grade", "writes", ev, gains, risk)


def _repeatable(
    case: Case,
    groups: list[Group],
    tools: Mapping[str, Tool],
    base: Grader,
) -> Iterable[CaseKeySuggestion]:
    looped = [g for g in groups if g.replies_change or g.replies_same]
    if not looped or any(g.replies_same for g in looped):
        return  # no loop, or some loop went on after the same reply: a loop, not polling
    grader = _grader(case, base)
    names: set[str] = set()
    for g in looped:
        names |= {c.tool for c in _grade_group(grader, case, g).calls if c.label == "redundant"}
    if not names:
        return
    changed = dataclasses.replace(case, repeatable=case.repeatable | names)
    found = _what_if(changed, groups, tools, base, looped)
    if found is None:
        return
    gains, risk, _ = found
    examples = tuple(Example(r, s) for g in looped for r, s in g.examples)[:EXAMPLES]
    evidence = Evidence(sum(g.replies_change for g in looped), examples)
    yield CaseKeySuggestion(case.id, "repeatable", sorted(names), evidence, gains, risk)
