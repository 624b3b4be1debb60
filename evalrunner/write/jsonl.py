"""`--format jsonl`: one run result a line, then `{"errors": [...], "summary": {...}}`."""

from __future__ import annotations

from typing import IO

from ..summary import Summary
from . import Output, WriterFormat
from .results import Elements, Encoded, dumps, encode_items

_SEPARATORS = ((b"\xe2\x80\xa8", b"\\u2028"), (b"\xe2\x80\xa9", b"\\u2029"))
"""U+2028 and U+2029 are line breaks to many line readers (JavaScript's, Python's
`str.splitlines`): in JSON Lines they are written escaped. They can only stand inside strings,
where the escape means the same."""


def _one_line(data: bytes) -> bytes:
    for raw, escaped in _SEPARATORS:
        if raw in data:
            data = data.replace(raw, escaped)
    return data


class JsonlWriter:
    encoder = staticmethod(encode_items)

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.errors = Elements()

    def write(self, encoded: Encoded) -> None:
        runs, errors = encoded
        if runs:
            self.out.write(_one_line(b"\n".join(runs) + b"\n"))
        self.errors.add(*(_one_line(e) for e in errors))

    def close(self, summary: Summary) -> None:
        self.out.write(b'{"errors":[')
        self.errors.copy_to(self.out)
        self.out.write(_one_line(b'],"summary":' + dumps(summary.to_json())))
        self.out.write(_one_line(b',"warnings":' + dumps(summary.warnings) + b"}\n"))


def _make(output: Output) -> JsonlWriter:
    return JsonlWriter(output.stream)


WRITER = WriterFormat(
    name="jsonl",
    summary="one run result a line, then the summary: for streams, DuckDB, a dashboard",
    make=_make,
)
