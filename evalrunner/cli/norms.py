"""`evalrun norms`: the normalizers available to `x-eval-norm`, built-ins and plugins alike."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.table import Table

from ..grade.norms import load_registry
from ..write.results import dumps
from .common import Format, FormatOpt, data_console, input_errors, output_stream


def norms(format: FormatOpt = Format.table) -> None:
    """List the normalizers a parameter can name in x-eval-norm, with class and meaning."""
    with input_errors():
        registry = load_registry()
    rows: list[dict[str, Any]] = [
        {
            "name": n.name,
            "class": n.cls,
            "meaning": n.summary,
            "options": sorted(n.options) if n.options is not None else None,
            "origin": n.origin,
        }
        for n in sorted(registry.values(), key=lambda n: n.name)
    ]
    with output_stream(None) as out:
        if format is not Format.table:
            lines = [dumps(r) for r in rows] if format is Format.jsonl else [dumps(rows)]
            out.write(b"\n".join(lines) + b"\n")
            return
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        for col in ("name", "class", "meaning", "options"):
            table.add_column(col, overflow="fold")
        for r in rows:
            options = "any" if r["options"] is None else ", ".join(r["options"])
            origin = "" if r["origin"] == "built-in" else f" ({r['origin']})"
            table.add_row(r["name"] + origin, r["class"], r["meaning"], options)
        data_console(out, to_file=False).print(table)
