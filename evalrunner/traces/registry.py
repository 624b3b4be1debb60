"""The trace formats evalrun reads: the built-ins (`formats/`) and plugins, in detection order.

A plugin is a `TraceFormat` exported through the `evalrunner.trace_formats` entry-point group
(as normalizers join through `evalrunner.normalizers`):

    [project.entry-points."evalrunner.trace_formats"]
    langfuse = "my_package.langfuse:FORMAT"
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from importlib import import_module
from importlib.metadata import entry_points
from typing import Any

from ..model import InputError
from .format import TraceFormat
from .formats import TABLE

ENTRY_POINT_GROUP = "evalrunner.trace_formats"
AUTO = "auto"
"""`--trace-format auto`: each line in whichever format it is in."""


@cache
def _builtin(name: str, module: str, order: int) -> TraceFormat:
    """A built-in format, its module imported (once): the `FORMAT` it defines, which must say
    the name and order its row in `formats.TABLE` says."""
    found = getattr(import_module(f"{__package__}.formats.{module}"), "FORMAT", None)
    if not isinstance(found, TraceFormat):
        raise TypeError(f"evalrunner.traces.formats.{module} defines no FORMAT = TraceFormat(...)")
    if (found.name, found.order) != (name, order):
        raise TypeError(
            f"evalrunner.traces.formats.{module}: FORMAT is {found.name!r} (order {found.order}) "
            f"but formats.TABLE lists {name!r} (order {order})"
        )
    return found


class Formats(Mapping[str, TraceFormat]):
    """Trace formats by name, in detection order (`order`, then name). A built-in format's module
    is imported when the format is first asked for, so the names, and detection up to the first
    format that reads a line, import no other format's module."""

    __slots__ = ("_found", "_rows")

    def __init__(self, rows: Iterable[tuple[str, int, TraceFormat | str]]) -> None:
        ordered = sorted(rows, key=lambda row: (row[1], row[0]))
        self._rows = {name: (order, where) for name, order, where in ordered}
        """name -> (order, the format, or the module in `formats/` that defines it)."""
        self._found = {name: w for name, _, w in ordered if isinstance(w, TraceFormat)}

    def __getitem__(self, name: str) -> TraceFormat:
        found = self._found.get(name)
        if found is None:
            order, module = self._rows[name]  # KeyError for a name not listed
            assert isinstance(module, str)
            found = self._found[name] = _builtin(name, module, order)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, name: object) -> bool:
        return name in self._rows

    def rows(self) -> list[tuple[str, int, TraceFormat | str]]:
        """(name, order, format or module) for each format, in detection order."""
        return [(name, order, where) for name, (order, where) in self._rows.items()]


BUILTINS: Formats = Formats((name, order, module) for name, module, order in TABLE)
"""The built-in formats by name, in detection order (`formats.TABLE`), each module imported when
its format is first asked for."""


@cache
def trace_formats() -> Mapping[str, TraceFormat]:
    """Every format, built-ins and plugins, by name in detection order (a built-in's module is
    imported when it is first asked for; plugins are loaded here).

    A plugin that fails to load, is not a `TraceFormat`, or whose name clashes with another
    format's is an InputError naming both.
    """
    found = BUILTINS.rows()
    names = {name: "built-in" for name, _, _ in found}
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
        found.append((fmt.name, fmt.order, fmt))
    return Formats(found)


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
