"""`--format jsonl`: one run result a line, then `{"errors": [...], "summary": {...}}`."""

from __future__ import annotations

from typing import IO

from ..summary import Summary
from . import Output, WriterFormat
from .results import Elements, Encoded, dumps, encode_items


class JsonlWriter:
    encoder = staticmethod(encode_items)

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.errors = Elements()

    def write(self, encoded: Encoded) -> None:
        runs, errors = encoded
        if runs:
            self.out.write(b"\n".join(runs) + b"\n")
        self.errors.add(*errors)

    def close(self, summary: Summary) -> None:
        self.out.write(b'{"errors":[')
        self.errors.copy_to(self.out)
        self.out.write(b'],"summary":' + dumps(summary.to_json()))
        self.out.write(b',"warnings":' + dumps(summary.warnings) + b"}\n")


def _make(output: Output) -> JsonlWriter:
    return JsonlWriter(output.stream)


WRITER = WriterFormat(
    name="jsonl",
    summary="one run result a line, then the summary: for streams, DuckDB, a dashboard",
    make=_make,
)
