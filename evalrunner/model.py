"""The data model: what evalrun reads (tools, cases, runs) as frozen dataclasses.

Everything here is plain data. Readers build it (`read/tools.py`, `read/cases.py`, `traces/`); the
grading code (`grade/`) only reads it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, NamedTuple

# Re-exported: the model speaks of it, though it is declared where it belongs.
from .jsonvalue import MISSING as MISSING


class InputError(Exception):
    """Unusable configuration or input. The message names the file and says what to fix.

    The CLI turns it into exit code 2. A problem with a single trace line is never an InputError:
    it becomes a `TraceError` record and the stream goes on.
    """


MatchMode = Literal["exact", "prefix", "contains", "unordered", "contains_unordered"]
MATCH_MODES: Final = ("exact", "prefix", "contains", "unordered", "contains_unordered")

ShapeClass = str
"""A normalizer's class: the false-failure shape of the differences it absorbs (`shapes.RULE_CLASSES`)."""

VERDICTS: Final = ("pass", "fail", "false_failure", "false_pass")


# ---------------------------------------------------------------------------------------- tools


@dataclass(frozen=True, slots=True)
class NormSpec:
    """An `x-eval-norm` annotation: the rule's name and its options (`{"tz": "Europe/Berlin"}`)."""

    name: str
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter schema, `$ref`s resolved, with the rule and default evalrun reads from it.

    The root of a tool is a `Param` too: an object whose `properties` are the tool's parameters.
    """

    path: str
    """Where the parameter sits in the arguments: `month`, `filters.status`, `flights[].date`."""
    schema: Mapping[str, Any]
    """The resolved schema node (with `anyOf [X, null]` and `allOf` merged in)."""
    norm: NormSpec | None = None
    default: Any = MISSING
    properties: Mapping[str, Param] = field(default_factory=dict)
    items: Param | None = None
    types: tuple[str, ...] = ()
    """JSON types the schema accepts (from `type`, or the branches of `anyOf`/`oneOf`)."""
    loc: tuple[str | int, ...] = field(default=(), compare=False)
    """Where the parameter's schema node is written in its tool file (keys and list indexes)."""
    raw: Mapping[str, Any] | bool = field(default_factory=dict, compare=False)
    """The schema node as written at `loc`, before `$ref`s are resolved and branches merged."""
    norm_loc: tuple[str | int, ...] | None = field(default=None, compare=False)
    """Where the `x-eval-norm` that won is written (in `$defs`, say, when reached by `$ref`)."""
    default_loc: tuple[str | int, ...] | None = field(default=None, compare=False)
    """Where the `default` that won is written."""

    def walk(self) -> Iterator[Param]:
        """This parameter and every parameter below it, depth first, properties in name order."""
        yield self
        for name in sorted(self.properties):
            yield from self.properties[name].walk()
        if self.items is not None:
            yield from self.items.walk()


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    params: Param
    """The root parameter: an object whose properties are the tool's parameters."""
    repeatable: bool = False
    """`x-eval-repeatable`: repeating an equivalent call is not redundant (polling, say)."""
    readonly: bool = False
    """`x-eval-readonly` (or MCP's `annotations.readOnlyHint`): the tool only reads. Cases graded
    on writes leave its calls out of rule 1."""
    description: str = ""
    format: str = "bare"
    """Which format the tool was written in, named as its trace format: openai-chat,
    openai-responses, anthropic, mcp, bedrock, gemini, bare (`read.tool_formats.TOOL_FORMATS`)."""
    source: str = ""
    """The file (and position in it) the tool was read from."""
    file: str = field(default="", compare=False)
    """The file the tool was read from."""
    loc: tuple[str | int, ...] = field(default=(), compare=False)
    """Where the tool's entry is in its file: `()`, `(2,)` in a list, `("tools", 2)` in MCP's."""
    schema_loc: tuple[str | int, ...] = field(default=(), compare=False)
    """Where its parameter schema is in the file: `(2, "function", "parameters")`."""
    schema: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """The parameter schema as written (what arguments are validated against)."""

    @property
    def norm_params(self) -> tuple[Param, ...]:
        """The parameters, at any depth, that declare an equivalence rule."""
        return tuple(p for p in self.params.walk() if p.norm is not None)


# ---------------------------------------------------------------------------------------- cases


@dataclass(frozen=True, slots=True)
class Matches:
    """A step's predicate `{"matches": REGEX}`: a string the expression finds a match in."""

    pattern: str


@dataclass(frozen=True, slots=True)
class OneOf:
    """A step's predicate `{"one_of": [V, ...]}`: a value equivalent to one of these."""

    values: tuple[Any, ...]


PREDICATES: Final = ("matches", "one_of")
"""The predicates a step's `judge` may hold besides a rule, as cases write them (and as an
explanation's `norm` names the one that judged a difference)."""

Judge = NormSpec | Matches | OneOf
"""How one step judges one parameter: a rule (as `x-eval-norm` writes it) or a predicate."""


@dataclass(frozen=True, slots=True)
class Step:
    """One expected call of an accepted sequence."""

    tool: str
    args: Mapping[str, Any]
    judge: Mapping[str, Judge] = field(default_factory=dict)
    """Per parameter path (`body`, `items[].note`): how this step alone judges it (`judge`)."""
    tool_loc: tuple[str | int, ...] = field(default=(), compare=False)
    """Where the tool name is written in the case file (`expected_tool` in the legacy form)."""
    args_loc: tuple[str | int, ...] = field(default=(), compare=False)
    """Where the args are written (`expected_args` in the legacy form, even when omitted)."""


@dataclass(frozen=True, slots=True)
class Forbid:
    """A call the case forbids: to `tool`, with `args` equivalent where listed (others free)."""

    tool: str
    args: Mapping[str, Any] = field(default_factory=dict)
    loc: tuple[str | int, ...] = field(default=(), compare=False)
    """Where the entry is written in the case file."""


GradeMode = Literal["all", "writes"]
GRADE_MODES: Final = ("all", "writes")


EffectOp = Literal["equals", "contains", "count", "absent"]


@dataclass(frozen=True, slots=True)
class Effect:
    """An assertion on the recorded world, addressed by a JSON Pointer (RFC 6901)."""

    at: str
    op: EffectOp
    value: Any
    """`equals`: the value; `contains`: the object (or value) looked for; `count`: N; `absent`: bool."""
    where: Any = MISSING
    """`count` only: the object elements must include to be counted."""
    tokens: tuple[str, ...] = ()
    """The pointer's reference tokens, unescaped."""


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    accept: tuple[tuple[Step, ...], ...]
    """The acceptable call sequences; the first is canonical (what exact-match expects)."""
    match: MatchMode = "exact"
    effects: tuple[Effect, ...] = ()
    forbid: tuple[Forbid, ...] = ()
    """Calls that must not occur (true rule 4)."""
    repeatable: frozenset[str] = frozenset()
    """Tools whose repeated calls are not loops in this case, besides those marked repeatable."""
    grade: GradeMode = "all"
    """`writes`: calls to read-only tools, and steps naming them, are left out of rule 1."""
    input: str = ""
    tags: tuple[str, ...] = ()
    """Labels a user gives the case (`--group-by case.tags`: a group per tag)."""
    source: str = ""
    file: str = field(default="", compare=False)
    """The file the case was read from."""
    line: int | None = field(default=None, compare=False)
    """Its line in a JSONL file; None in a JSON file."""
    loc: tuple[str | int, ...] = field(default=(), compare=False)
    """Where the case is in its file: `()`, or `(i,)` in a list."""


# ----------------------------------------------------------------------------------------- runs


# Runs and calls are built once per trace line, millions of times: they are NamedTuples, as
# immutable and typed as a frozen dataclass but four times cheaper to construct (measured: 0.27 us
# against 0.97 us for a five-field record), which matters at a quarter-million calls a second.


class Call(NamedTuple):
    """One recorded tool call."""

    tool: str
    args: Any
    """The arguments as an object; when `malformed` is set, whatever was recorded instead."""
    errored: bool = False
    """The tool rejected the call (`error`, `is_error`, `isError`, or `status: "error"`)."""
    malformed: str | None = None
    """Why the arguments are unusable (not JSON, not an object); None when they are fine."""
    result: Any = MISSING


class Run(NamedTuple):
    """One recorded agent run: its calls and, when recorded, the world afterwards."""

    run_id: str
    case_id: str | None
    calls: tuple[Call, ...]
    world: Any = MISSING
    """The state after the run; MISSING when none was recorded (effects are then unverified)."""
    meta: Mapping[str, Any] = {}  # never mutated: readers pass their own
    source: str = ""
    """`file:line` of the record."""


@dataclass(frozen=True, slots=True)
class TraceError:
    """A trace line that cannot be scored: counted as unscoreable, never dropped silently."""

    source: str
    error: str
