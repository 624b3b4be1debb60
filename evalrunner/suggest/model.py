"""What `evalrun suggest` proposes: the four kinds of suggestion and the report that holds them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..jsonvalue import MISSING
from ..model import NormSpec, Step
from ..summary import Summary
from .params import Change, Steps, param_path
from .whatif import Accepted

KINDS = ("rule", "default", "alternate", "tighten")
"""The kinds of suggestion, in the order ties between equal gains are listed."""


@dataclass(frozen=True)
class Narrower:
    """Values a narrower rule of the family reads and finds different, which a wider rule would
    equate: the wider rule's risk (SPEC `risk.narrower_differs`)."""

    rule: str
    calls: int
    examples: tuple[Example, ...]


@dataclass(frozen=True)
class ReplyCall:
    run_id: str
    source: str
    value: Any
    """The call's value at the parameter (MISSING: the call leaves it out)."""
    reply: str
    """The reply as the trace recorded it, as compact JSON (cut)."""


@dataclass(frozen=True)
class ReplyPair:
    """Two recorded calls of one case that differ only where the suggestion equates them."""

    case_id: str
    first: ReplyCall
    second: ReplyCall


@dataclass(frozen=True)
class Replies:
    """What the tools' replies say of a suggestion: pairs of calls of one case to the tool whose
    arguments differ only where it equates them, by equal or different replies."""

    agree: int = 0
    differ: int = 0
    examples: tuple[ReplyPair, ...] = ()
    """Pairs whose replies differ, the earliest first."""
    sampled: bool = False
    """The bounded sample of calls per case and tool was full: some calls were not compared."""


@dataclass(frozen=True)
class Risk:
    """Among the runs a suggestion would pass: what the recorded worlds say against it; and,
    for a rule, what the narrower rules, the parameter's description and the replies say."""

    effects_failed: int = 0
    """Runs whose world fails an effect assertion: the suggestion would make false passes."""
    unverified: int = 0
    """Runs of a case with effect assertions that recorded no world: nothing says either way."""
    narrower_differs: tuple[Narrower, ...] = ()
    description: str | None = None
    """The words of the parameter's description that say otherwise (`case-sensitive`)."""
    replies_differ: int = 0
    """Pairs of calls whose replies differ (`Replies.differ`)."""

    @property
    def risky(self) -> bool:
        """Any risk at all: `--write` writes only suggestions without one."""
        return (
            self.effects_failed > 0
            or bool(self.narrower_differs)
            or self.description is not None
            or self.replies_differ > 0
        )

    @property
    def reasons(self) -> tuple[str, ...]:
        """Which risks: `effects_failed`, `narrower_differs`, `description`, `replies_differ`."""
        found = (
            ("effects_failed", self.effects_failed > 0),
            ("narrower_differs", bool(self.narrower_differs)),
            ("description", self.description is not None),
            ("replies_differ", self.replies_differ > 0),
        )
        return tuple(name for name, yes in found if yes)


@dataclass(frozen=True)
class Example:
    run_id: str
    source: str
    actual: Any = MISSING
    """The call's value at the parameter (MISSING: the call leaves it out)."""
    expected: Any = MISSING
    """The step's value (MISSING: the step leaves it out)."""


@dataclass(frozen=True)
class Evidence:
    runs: int
    examples: tuple[Example, ...]
    calls: int | None = None
    """Calls whose difference the suggestion absorbs (None for an alternate: whole runs)."""
    replies: Replies | None = None
    """What the tools' replies say (None for an alternate: its calls are other calls)."""

    @property
    def checked_by(self) -> tuple[str, ...]:
        """What checked the suggestion beyond the argument check: `effects` (a recorded world
        judged some run it would pass), `replies` (some pair of replies was compared)."""
        found = []
        if self.checked_worlds:
            found.append("effects")
        if self.replies is not None and (self.replies.agree or self.replies.differ):
            found.append("replies")
        return tuple(found)

    checked_worlds: int = 0
    """Of the runs it would pass, those whose recorded world was checked (held or failed)."""


@dataclass(frozen=True)
class RuleSuggestion:
    kind: ClassVar[str] = "rule"
    tool: str
    steps: Steps
    rule: NormSpec
    others: tuple[tuple[NormSpec, int], ...]
    """The other rules that absorb some of the same differences, with the calls each absorbs."""
    absorbed: int
    """The calls this rule absorbs, counted as `others` are (among every mismatched call)."""
    evidence: Evidence
    gains: int
    risk: Risk
    wider_merges: tuple[Narrower, ...] = ()
    """Per wider rule of the family: the values this rule reads apart that it would equate
    (`Narrower.rule` names the wider rule here)."""

    @property
    def param(self) -> str:
        return param_path(self.steps)

    @property
    def change(self) -> Change:
        return Change(self.tool, self.steps, norm=self.rule)


@dataclass(frozen=True)
class DefaultSuggestion:
    kind: ClassVar[str] = "default"
    tool: str
    steps: Steps
    default: Any
    evidence: Evidence
    gains: int
    risk: Risk
    others: tuple[tuple[Any, int], ...] = ()
    """Other values found where the parameter is left out, with their calls: a tie when as many."""

    @property
    def param(self) -> str:
        return param_path(self.steps)

    @property
    def change(self) -> Change:
        return Change(self.tool, self.steps, default=self.default)


@dataclass(frozen=True)
class AlternateSuggestion:
    kind: ClassVar[str] = "alternate"
    case_id: str
    sequence: tuple[Step, ...]
    evidence: Evidence
    gains: int
    risk: Risk

    @property
    def accepted(self) -> Accepted:
        return Accepted(self.case_id, self.sequence)


@dataclass(frozen=True)
class TightenSuggestion:
    kind: ClassVar[str] = "tighten"
    tool: str
    steps: Steps
    rule: str
    """The rule that absorbs the encodings now (declared, or suggested here)."""
    encodings: tuple[tuple[str, int], ...]
    """Each encoding's name and the calls that used it, most used first."""

    @property
    def param(self) -> str:
        return param_path(self.steps)


Suggestion = RuleSuggestion | DefaultSuggestion | AlternateSuggestion | TightenSuggestion
Scored = RuleSuggestion | DefaultSuggestion | AlternateSuggestion
"""The kinds scored as a what-if (tighten changes the schema, not the scoring)."""


@dataclass(frozen=True)
class Report:
    suggestions: tuple[Suggestion, ...]
    """Ordered: by gains (then kind, evidence, name); tighten proposals last."""
    summary: Summary
    """The scoring of the traces as they are (what `evalrun score` prints)."""
    gains_if_all_applied: int
    """Runs whose calls every rule, default and alternate listed, applied at once, would pass."""
    true_failed_if_safe_applied: int
    """True failures left with every listed suggestion without risk applied (a full regrade)."""
    errors: tuple[tuple[str, str], ...]
    """Every unscoreable line: (`file:line`, reason)."""
    kinds: tuple[str, ...] = KINDS
    """The kinds asked for (`--kind`; all of them by default)."""
    tool: str | None = None
    """The tool asked for (`--tool`), if any."""
    case_keys: tuple[Any, ...] = ()
    """Changes to cases the runs support (`case_keys.CaseKeySuggestion`): a step's `judge`, a
    case's `match`, `grade`, `repeatable`; listed when no `--tool` or `--kind` narrows the
    report, and never written."""

    @property
    def scored(self) -> tuple[Scored, ...]:
        return tuple(s for s in self.suggestions if not isinstance(s, TightenSuggestion))

    @property
    def risky(self) -> int:
        return sum(1 for s in self.scored if s.risk.risky)
