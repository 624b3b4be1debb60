"""The case-format registry: every format in `case_formats/`, by name, in detection order.

See `format.py` for what a format declares. The CLI's `--case-format` choices, detection, the
"no known case format" message and the table in docs/case-formats.md all come from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from ...model import InputError
from .format import (
    AUTO,
    CaseFormat,
    CaseWarning,
    Native,
    Records,
    Source,
    decode,
    records,
    stable_id,
)

__all__ = [
    "AUTO",
    "CASE_FORMATS",
    "CONFIG_FILES",
    "SUFFIXES",
    "CaseFormat",
    "CaseWarning",
    "Native",
    "Records",
    "Source",
    "decode",
    "detect",
    "formats_table",
    "is_config",
    "not_in",
    "records",
    "resolve",
    "stable_id",
    "unknown_layout",
]


def _formats() -> dict[str, CaseFormat]:
    from . import adk, agentevals, bfcl, deepeval, mlflow, native, promptfoo, tau

    found = [m.FORMAT for m in (adk, agentevals, bfcl, deepeval, mlflow, native, promptfoo, tau)]
    return {f.name: f for f in sorted(found, key=lambda f: (f.order, f.name))}


CASE_FORMATS: Final[Mapping[str, CaseFormat]] = _formats()
"""Every case format by name, in detection order."""
SUFFIXES: Final = tuple(sorted({s for f in CASE_FORMATS.values() for s in f.suffixes}))
CONFIG_FILES: Final = frozenset(n for f in CASE_FORMATS.values() for n in f.config_files)


def is_config(source: Source) -> bool:
    """Whether a file is a format's configuration (ADK's `test_config.json` with `criteria`),
    read beside that format's cases rather than as cases."""
    return any(
        source.file.name in f.config_files and f.is_config is not None and f.is_config(source)
        for f in CASE_FORMATS.values()
    )


def resolve(name: str) -> CaseFormat | None:
    """The format `--case-format NAME` names (None for `auto`); InputError when none does."""
    if name == AUTO:
        return None
    found = CASE_FORMATS.get(name)
    if found is None:
        raise InputError(
            f"unknown case format {name!r} (one of: {', '.join((AUTO, *CASE_FORMATS))})"
        )
    return found


def detect(source: Source) -> CaseFormat | None:
    """The first format, in detection order, that reads this file; None when none does."""
    for fmt in CASE_FORMATS.values():
        if source.file.name.endswith(fmt.suffixes) and fmt.detect(source):
            return fmt
    return None


def not_in(file: object, fmt: CaseFormat) -> str:
    """Why a file cannot be read in the format `--case-format` (or `case_format`) forces."""
    return (
        f"{file}: this file is not in the case format {fmt.name!r} that --case-format (or the "
        f"case_format setting) names: {fmt.name} reads {fmt.looks_like}; give its own format, "
        f"or auto to detect each file's"
    )


def unknown_layout(file: object) -> str:
    tried = "; ".join(f"{f.name} ({f.looks_like})" for f in CASE_FORMATS.values())
    return f"{file}: this file is in no known case format (tried: {tried}); set --case-format"


def formats_table() -> str:
    """The formats as a Markdown table (docs/case-formats.md holds it; a test keeps them the same)."""
    rows = [
        "| `--case-format` | what becomes the case | recognised by | files | version read |",
        "| --- | --- | --- | --- | --- |",
    ]
    for f in CASE_FORMATS.values():
        cells = (
            f"`{f.name}`",
            f.summary,
            f.looks_like,
            ", ".join(f"`{s}`" for s in f.suffixes),
            f.version,
        )
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows)
