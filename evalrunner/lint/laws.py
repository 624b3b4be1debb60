"""The laws every rule must keep on the values present: raise only ValueError, be idempotent.

The law checks run each rule on the values actually present — the cases' expected arguments, the
declared defaults and, when given, the traces' recorded arguments — exactly as the comparison feeds
them (after the rules inside the value): a rule must never raise anything but ValueError, and must
be idempotent, n(n(x)) == n(x). The evidence is gathered per parameter as the values are read, and
turned into findings once all of it is in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from ..grade.compare import Node, normalize
from ..grade.norms import Rule
from ..jsonvalue import canon_key, json_eq, short_json
from ..read.annotations import NORM
from .findings import Finding, cut, finding

if TYPE_CHECKING:
    from .schema import ToolSite


def raised(problem: str) -> bool:
    """The rule failed with something other than ValueError: a bug in the rule."""
    return getattr(problem, "raised", False)


@dataclass(eq=False, slots=True)
class Evidence:
    """What the values present say about one parameter's rule."""

    values: int = 0
    """Values from cases and traces (the declared default is checked, not counted)."""
    seen: set[Any] = field(default_factory=set)
    broken: dict[str, list[Any]] = field(default_factory=dict)
    """Law -> [how many values break it, the first (value, origin, detail)]."""

    SEEN_LIMIT: ClassVar[int] = (
        100_000  # distinct trace values remembered per parameter, to skip repeats
    )

    def check(
        self, rule: Rule, inner: Any, value: Any, origin: str, *, counted: bool = True
    ) -> None:
        if counted:
            self.values += 1
        broken = law(rule, inner)
        if broken is not None:
            name, detail = broken
            entry = self.broken.setdefault(name, [0, (value, origin, detail)])
            entry[0] += 1

    def check_once(self, rule: Rule, bare: Node, value: Any, origin: str) -> None:
        """`check` for a trace value, skipping values already checked."""
        key = canon_key(value)
        if key in self.seen:
            self.values += 1
            return
        if len(self.seen) < self.SEEN_LIMIT:
            self.seen.add(key)
        self.check(rule, normalize(value, bare), value, origin)


def law(rule: Rule, x: Any) -> tuple[str, str] | None:
    """("norm-raised" or "norm-not-idempotent", what happened), or None when the laws hold on x.

    A value the rule cannot read (ValueError) breaks no law: the rule does not apply to it.
    """
    once, problem = rule.apply(x)
    if problem is not None:
        return ("norm-raised", problem) if raised(problem) else None
    twice, problem = rule.apply(once)
    if problem is not None and raised(problem):
        return "norm-raised", f"on its own output {short_json(once)}: {problem}"
    if problem is not None:
        return "norm-not-idempotent", f"it cannot read its own output: {problem}"
    if not json_eq(twice, once):
        return "norm-not-idempotent", (
            f"n(x) = {short_json(once)} but n(n(x)) = {short_json(twice)}"
        )
    return None


def law_findings(site: ToolSite, traced: bool, out: list[Finding]) -> None:
    """The findings of the law checks on every rule of the tool, once all the evidence is in."""
    for p in site.params.values():
        rule = p.node.rule
        if rule is None:
            continue
        loc = p.key_loc(NORM)
        ev = p.evidence
        for broken, (count, (value, origin, detail)) in sorted(ev.broken.items()):
            what = "raised on" if broken == "norm-raised" else "is not idempotent on"
            fix = (
                "fix the normalizer: a value it cannot read must raise ValueError (NormError), "
                "never another exception"
                if broken == "norm-raised"
                else "fix the normalizer so that n(n(x)) == n(x): its output must be a value it "
                "maps to itself"
            )
            out.append(
                finding(
                    broken,
                    site.file,
                    loc,
                    f"{p.name}: rule {rule.name!r} {what} {count} value(s), e.g. "
                    f"{short_json(value)} from {origin}: {cut(detail)}",
                    fix,
                )
            )
        if ev.values == 0:
            where = "the cases or traces" if traced else "the cases"
            out.append(
                finding(
                    "norm-unexercised",
                    site.file,
                    loc,
                    f"{p.name}: no value in {where} reaches rule {rule.name!r}, so its laws were "
                    "checked on nothing",
                    f"add a case whose expected args set {p.param.path or 'the arguments'}"
                    + ("" if traced else ", or pass --traces"),
                )
            )
