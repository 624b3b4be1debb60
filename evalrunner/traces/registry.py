"""The trace formats evalrun reads: the built-ins (`formats/`) and plugins, in detection order.

A plugin is a `TraceFormat` exported through the `evalrunner.trace_formats` entry-point group
(as normalizers join through `evalrunner.normalizers`):

    [project.entry-points."evalrunner.trace_formats"]
    langfuse = "my_package.langfuse:FORMAT"
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib.metadata import entry_points
from typing import Any

from ..model import InputError
from .format import TraceFormat
from .formats import BUILTIN

ENTRY_POINT_GROUP = "evalrunner.trace_formats"
AUTO = "auto"
"""`--trace-format auto`: each line in whichever format it is in."""


def _ordered(formats: list[TraceFormat]) -> dict[str, TraceFormat]:
    return {f.name: f for f in sorted(formats, key=lambda f: (f.order, f.name))}


BUILTINS: Mapping[str, TraceFormat] = _ordered(list(BUILTIN))
"""The built-in formats by name, in detection order."""


@cache
def trace_formats() -> Mapping[str, TraceFormat]:
    """Every format, built-ins and plugins, by name in detection order.

    A plugin that fails to load, is not a `TraceFormat`, or whose name clashes with another
    format's is an InputError naming both.
    """
    found = list(BUILTINS.values())
    names = {f.name: "built-in" for f in found}
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: (e.name, e.value)):
        try:
            fmt = ep.load()
        except Exception as e:
            raise InputError(
                f"trace format plugin {ep.name!r} ({ep.value}) failed to load: "
                f"{type(e).__name__}: {e}"
            ) from None
        if not isinstance(fmt, TraceFormat):
            raise InputError(
                f"trace format plugin {ep.name!r} ({ep.value}) must be an "
                "evalrunner.traces.TraceFormat"
            )
        if fmt.name in names or fmt.name == AUTO:
            where = names.get(fmt.name, "a reserved name")
            raise InputError(
                f"trace format plugin {fmt.name!r} ({ep.value}) clashes with the format "
                f"{fmt.name!r} ({where}); give the plugin's format another name"
            )
        names[fmt.name] = ep.value
        found.append(fmt)
    return _ordered(found)


def resolve(name: str) -> TraceFormat | None:
    """The format `--trace-format NAME` names (None for `auto`); InputError when none does."""
    if name == AUTO:
        return None
    formats = trace_formats()
    found = formats.get(name)
    if found is None:
        choices = ", ".join((AUTO, *formats))
        raise InputError(f"unknown trace format {name!r} (one of: {choices})")
    return found


def detect(record: Any, formats: Mapping[str, TraceFormat] | None = None) -> TraceFormat | None:
    """The first format, in detection order, that recognises a decoded line; None if none does."""
    for fmt in (formats if formats is not None else trace_formats()).values():
        if fmt.detect(record):
            return fmt
    return None


def unknown_layout(formats: Mapping[str, TraceFormat] | None = None) -> str:
    """What a line in no known format is told: the formats tried, and how each is recognised."""
    tried = ", ".join(
        f"{f.name} ({f.looks_like})"
        for f in (formats if formats is not None else trace_formats()).values()
    )
    return f"the record is in no known trace format (tried: {tried})"


def formats_table(formats: Mapping[str, TraceFormat] | None = None) -> str:
    """The formats as a Markdown table, in detection order (docs/trace-formats.md holds it; a
    test keeps the two the same)."""
    rows = ["| `--trace-format` | what it reads | recognised by |", "| --- | --- | --- |"]
    for f in (formats if formats is not None else BUILTINS).values():
        cells = (f"`{f.name}`", f.summary, f.looks_like)
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows)
