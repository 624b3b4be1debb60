"""What a diff reads of one scored run (`RunView` and its parts), built from the results-JSON layout.

A results file and a freshly scored trace set both reach the diff through these views, so both are
compared by the same code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import VERDICTS, InputError

RESULTS_HELP = (
    "expected the output of `evalrun score --format json` (one object with "
    '"evalrun", "runs" and "summary"), of `--format jsonl` (one run a line, then a '
    '"summary" line), or a trace file (one run a line, with "calls")'
)


@dataclass(frozen=True, slots=True)
class ParamView:
    """One parameter difference of a call, as the results JSON explains it."""

    path: str
    kind: str
    """`equivalent` (absorbed by a rule or a default) or `mismatch`."""
    shapes: tuple[str, ...]
    norm: str | None


@dataclass(frozen=True, slots=True)
class CallView:
    index: int
    tool: str
    label: str
    reported_failed: bool
    repeats: int | None
    params: tuple[ParamView, ...]

    def param(self, path: str) -> ParamView | None:
        return next((p for p in self.params if p.path == path), None)


@dataclass(frozen=True, slots=True)
class EffectView:
    at: str
    op: str
    ok: bool | None
    """True held, False failed, None unverified (no world recorded)."""


@dataclass(frozen=True, slots=True)
class RunView:
    """What a diff needs of one scored run: its verdicts and their explanation."""

    run_id: str
    case_id: str
    source: str
    verdict: str
    reported_pass: bool
    true_pass: bool
    accepted: int | None
    aligned_to: int | None
    calls: tuple[CallView, ...]
    missing: tuple[tuple[int, str], ...]
    effects: tuple[EffectView, ...]
    suspects: tuple[tuple[str, str, str], ...]

    @property
    def fingerprint(self) -> tuple[str, tuple[str, ...]]:
        """What stays fixed when only the rules change: the case and the tools called, in order."""
        return self.case_id, tuple(c.tool for c in self.calls)

    @classmethod
    def from_json(cls, d: Any, where: str) -> RunView:
        """A run in the results-JSON layout; InputError (naming `where`) when it is not one."""

        def bad(why: str) -> InputError:
            return InputError(f"{where}: not an evalrun run result ({why}); {RESULTS_HELP}")

        if type(d) is not dict:
            raise bad("not a JSON object")
        for key in ("run_id", "case_id", "verdict"):
            if type(d.get(key)) is not str:
                raise bad(f'no "{key}" string')
        if d["verdict"] not in VERDICTS:
            raise bad(f"unknown verdict {d['verdict']!r}")
        reported, true = d.get("reported"), d.get("true")
        if type(reported) is not dict or type(reported.get("pass")) is not bool:
            raise bad('no "reported": {"pass": true|false}')
        if type(true) is not dict or type(true.get("pass")) is not bool:
            raise bad('no "true": {"pass": true|false}')
        try:
            calls = tuple(_call_view(c) for c in d.get("calls") or ())
            missing = tuple((int(m["step"]), str(m["tool"])) for m in d.get("missing") or ())
            effects = tuple(
                EffectView(str(e.get("at", "")), str(e.get("op", "")), e.get("ok"))
                for e in d.get("effects") or ()
            )
            suspects = tuple(
                (str(s["tool"]), str(s["param"]), str(s["norm"])) for s in d.get("suspects") or ()
            )
        except (TypeError, KeyError, ValueError, AttributeError) as e:
            raise bad(f"unreadable calls, missing steps, effects or suspects: {e!r}") from None
        accepted = true.get("accepted")
        aligned = true.get("aligned_to")
        return cls(
            run_id=d["run_id"],
            case_id=d["case_id"],
            source=str(d.get("source", "")),
            verdict=d["verdict"],
            reported_pass=reported["pass"],
            true_pass=true["pass"],
            accepted=accepted if type(accepted) is int else None,
            aligned_to=aligned if type(aligned) is int else None,
            calls=calls,
            missing=missing,
            effects=effects,
            suspects=suspects,
        )


def _call_view(c: dict[str, Any]) -> CallView:
    params = tuple(
        ParamView(
            path=str(path),
            kind=str(p.get("kind", "")),
            shapes=tuple(p.get("shapes") or ()),
            norm=p.get("norm"),
        )
        for path, p in sorted((c.get("params") or {}).items())
    )
    repeats = c.get("repeats")
    return CallView(
        index=int(c["index"]),
        tool=str(c["tool"]),
        label=str(c["label"]),
        reported_failed=bool(c.get("reported_failed", False)),
        repeats=repeats if type(repeats) is int else None,
        params=params,
    )
