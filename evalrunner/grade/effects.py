"""Effect assertions on the world a run recorded, addressed by JSON Pointer (RFC 6901).

Case files are data: an assertion is one of four fixed checks, never code. Without a recorded world
an assertion is `unverified`: it does not fail the run, and it is counted and shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..jsonvalue import json_eq, short_json
from ..model import MISSING, Effect
from ..pointer import resolve


@dataclass(frozen=True, slots=True)
class EffectResult:
    at: str
    op: str
    ok: bool | None
    """True held, False failed, None unverified (no world recorded)."""
    detail: str

    @property
    def status(self) -> str:
        return {True: "ok", False: "failed", None: "unverified"}[self.ok]


def includes(element: Any, wanted: Any) -> bool:
    """Every key of `wanted` is in `element` with an equal value; a non-object must equal it."""
    if type(wanted) is dict:
        return type(element) is dict and all(
            k in element and json_eq(element[k], v) for k, v in wanted.items()
        )
    return json_eq(element, wanted)


def check(effect: Effect, world: Any) -> EffectResult:
    """One assertion against the world (MISSING when none was recorded)."""
    if world is MISSING:
        return EffectResult(effect.at, effect.op, None, "no world recorded")
    found = resolve(world, effect.tokens)
    op = effect.op
    if op == "absent":
        present = found is not MISSING
        ok = present != effect.value
        what = "something" if present else "nothing"
        return EffectResult(effect.at, op, ok, f"{what} at {effect.at or '/'}")
    if found is MISSING:
        return EffectResult(effect.at, op, False, f"nothing at {effect.at or '/'}")
    if op == "equals":
        ok = json_eq(found, effect.value)
        # as `count` does: what was found and what was expected, so the failure can be read
        detail = (
            "equal" if ok else f"{short_json(found)} found, {short_json(effect.value)} expected"
        )
        return EffectResult(effect.at, op, ok, detail)
    if type(found) is not list:
        return EffectResult(effect.at, op, False, f"{effect.at or '/'} is not a list")
    if op == "contains":
        ok = any(includes(x, effect.value) for x in found)
        return EffectResult(effect.at, op, ok, "found" if ok else "no element includes it")
    # count
    if effect.where is MISSING:
        n = len(found)
    else:
        n = sum(1 for x in found if includes(x, effect.where))
    ok = n == effect.value
    return EffectResult(effect.at, op, ok, f"{n} found, {effect.value} expected")


def check_all(effects: Sequence[Effect], world: Any) -> tuple[EffectResult, ...]:
    return tuple(check(e, world) for e in effects)
