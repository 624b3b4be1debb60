"""`--format json`: one results document `{"errors", "evalrun", "runs", "summary", "warnings"}`,
keys sorted."""

from __future__ import annotations

from typing import IO

from .._version import __version__
from ..summary import Summary
from . import Output, WriterFormat
from .results import Elements, Encoded, dumps, encode_items


class JsonWriter:
    encoder = staticmethod(encode_items)

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.runs = Elements()
        self.errors = Elements()

    def write(self, encoded: Encoded) -> None:
        runs, errors = encoded
        self.runs.add(*runs)
        self.errors.add(*errors)

    def close(self, summary: Summary) -> None:
        self.out.write(b'{"errors":[')
        self.errors.copy_to(self.out)
        self.out.write(b'],"evalrun":' + dumps(__version__) + b',"runs":[')
        self.runs.copy_to(self.out)
        self.out.write(b'],"summary":' + dumps(summary.to_json()))
        self.out.write(b',"warnings":' + dumps(summary.warnings) + b"}\n")


def _make(output: Output) -> JsonWriter:
    return JsonWriter(output.stream)


WRITER = WriterFormat(
    name="json",
    summary='one results document (SPEC "Results JSON"), for jq or a program',
    make=_make,
)
