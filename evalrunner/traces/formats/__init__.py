"""The built-in trace formats, one module each. A new format is a new module here that defines
`FORMAT` (a `TraceFormat`): the package is scanned for them, so nothing else names it; the
registry (`..registry`) orders them for detection. Modules whose name starts with `_` are shared
helpers, not formats. OpenTelemetry instrumentations are span conventions inside `otel`
(`spans/`), one module each."""

from __future__ import annotations

import pkgutil
from importlib import import_module

from ..format import TraceFormat


def _scan() -> tuple[TraceFormat, ...]:
    found: list[TraceFormat] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.ispkg:
            continue
        module = import_module(f"{__name__}.{info.name}")
        fmt = getattr(module, "FORMAT", None)
        if not isinstance(fmt, TraceFormat):
            raise TypeError(f"{module.__name__} defines no FORMAT = TraceFormat(...)")
        found.append(fmt)
    return tuple(found)


BUILTIN = _scan()
"""Every built-in format, one per module (the registry sorts them by `order`)."""
