"""`evalrun cases`: print cases, from any case source, as evalrun's own case lines."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ..read.case_formats import CaseWarning
from ..read.cases import case_to_json, load_cases
from ..write.results import dumps
from .common import CaseFormatOpt, CasesOpt, OutputOpt, input_errors, output_stream, stderr


class CasesFormat(str, Enum):
    jsonl = "jsonl"
    json = "json"


def cases(
    cases: CasesOpt = Path("cases"),
    case_format: CaseFormatOpt = None,
    format: Annotated[
        CasesFormat,
        typer.Option("--format", "-f", help="jsonl (one case a line) or json (a list)."),
    ] = CasesFormat.jsonl,
    output: OutputOpt = None,
) -> None:
    """Print the cases as evalrun reads them, in evalrun's own case format.

    Reads any case source (ADK eval sets, BFCL possible answers, DeepEval goldens, MLflow
    records, promptfoo tests, agentevals trajectories, tau-bench tasks; docs/case-formats.md),
    so a suite can be migrated and then edited: the lines printed read back to the same cases
    and grade identically. What a source holds that evalrun cannot express is a warning on
    stderr naming the file and the field.
    """
    read: list[CaseWarning] = []
    with input_errors():
        found = load_cases(cases, case_format=case_format or "auto", warnings=read)
    err = stderr()
    for warning in read:
        err.print(f"warning: {warning}", markup=False, soft_wrap=True, highlight=False)
    with output_stream(output, inputs=(), config=[cases]) as out:
        records = [case_to_json(c) for c in found.values()]
        if format is CasesFormat.json:
            out.write(dumps(records) + b"\n")
        else:
            out.write(b"".join(dumps(r) + b"\n" for r in records))
