"""What the report writers (`html`, `markdown`, `junit`) share: they render the results-JSON
layout (SPEC "Results JSON"), from a live scoring or from a saved results file alike.

A live scoring's results are put into that layout where they were graded (`live_encoder`, in a
worker process under `--jobs`), then rendered there by the writer's `render_runs`; a saved results
document (`evalrun score --format json` or `jsonl`, read by `read_saved`) is already in it, and
goes through the same `render_runs`. Both reach the same `write`, then `finish` with the same
summary view (`summary.view.SummaryView`, what every score renderer reads), so
`evalrun report results.json --format html` and `evalrun score --format html` render one page.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable, Iterator
from functools import cache, partial
from importlib import resources
from pathlib import Path
from typing import IO, Any

from jsonschema import Draft202012Validator

from .._version import __version__
from ..grade.grader import RunResult
from ..jsonvalue import loads
from ..model import InputError, TraceError
from ..summary import Summary
from ..summary.view import SummaryView
from . import Encoder, Item, Output, Writer
from .results import error_to_json, run_to_json

RunJson = dict[str, Any]
"""A run in the results-JSON layout (`results.run_to_json`)."""
RenderRuns = Callable[[list[RunJson]], Any]
"""A writer's rendering of a batch of runs (a module-level function: it runs in workers)."""

MAX_ERRORS_LISTED = 100
"""Unscoreable lines a report lists (the earliest); all of them are counted."""
SAVED_BATCH = 2000
"""Runs of a saved results file rendered at a time."""


def live_encoder(
    render: RenderRuns, verdicts: frozenset[str] | None, items: list[Item]
) -> tuple[Any, list[dict[str, Any]]]:
    """A batch of live results in the results-JSON layout, rendered by `render`: only the runs
    of `verdicts` (every run when None), and the unscoreable lines."""
    runs = [
        run_to_json(r)
        for r in items
        if isinstance(r, RunResult) and (verdicts is None or r.verdict in verdicts)
    ]
    errors = [error_to_json(e) for e in items if isinstance(e, TraceError)]
    return render(runs), errors


class ReportWriter(Writer):
    """A `Writer` (the one protocol every output format implements) that renders the
    results-JSON layout, and so renders a saved results file too (`render_saved`, which feeds
    it the file's batches through `write_saved` and ends with `finish` where a live scoring
    ends with `close`). A format subclasses it with its `render_runs` (run where the batch was
    graded), `take` (keeps what it rendered, in input order) and `finish` (writes the report,
    given the summary's view)."""

    def __init__(
        self, output: Output, render: RenderRuns, verdicts: frozenset[str] | None = None
    ) -> None:
        self.output = output
        self.render = render
        self.verdicts = verdicts
        """The verdicts of the runs it renders; None for every run."""
        self._encoder = partial(live_encoder, render, verdicts)
        self.errors: list[dict[str, Any]] = []
        """The earliest unscoreable lines, as the results JSON lists them (beside its summary,
        so not in the summary's view)."""

    @property
    def encoder(self) -> Encoder:
        """The results-JSON layout of a batch, rendered by `render_runs` (`live_encoder`)."""
        return self._encoder

    def write(self, encoded: tuple[Any, list[dict[str, Any]]]) -> None:
        rendered, errors = encoded
        self.take(rendered)
        room = MAX_ERRORS_LISTED - len(self.errors)
        if room > 0:
            self.errors.extend(errors[:room])

    def write_saved(self, runs: list[RunJson], errors: list[dict[str, Any]]) -> None:
        """A batch of a saved results file's runs and unscoreable lines, in its order."""
        wanted = [r for r in runs if self.verdicts is None or r.get("verdict") in self.verdicts]
        self.write((self.render(wanted), errors))

    def close(self, summary: Summary) -> None:
        self.finish(SummaryView.of(summary))

    # --------------------------------------------------------------------- for each format

    def take(self, rendered: Any) -> None:
        """Keep one batch, as `render_runs` rendered it."""
        raise NotImplementedError

    def finish(self, summary: SummaryView) -> None:
        """Write the report of `summary`, a live scoring's view or a saved file's (with the
        warnings to show: files in a traces folder not read, unknown tools in case steps)."""
        raise NotImplementedError


# ------------------------------------------------------------------------ saved results


def render_saved(path: Path, writer: ReportWriter) -> dict[str, Any]:
    """Render a saved results file (`--format json` or `jsonl`, optionally gzipped) with
    `writer`, as a live scoring would be; returns its summary. InputError, naming the file, for
    anything that is not such a file."""
    summary: dict[str, Any] = {}
    warnings: list[str] = []
    for runs, errors in _batches(path, summary, warnings):
        writer.write_saved(runs, errors)
    writer.finish(SummaryView.from_json(summary, warnings=warnings))
    return summary


def _warnings(record: dict[str, Any]) -> list[str]:
    found = record.get("warnings")
    return [w for w in found if isinstance(w, str)] if isinstance(found, list) else []


def _batches(
    path: Path, summary: dict[str, Any], warnings: list[str]
) -> Iterator[tuple[list[RunJson], list[dict[str, Any]]]]:
    def bad(why: str) -> InputError:
        return InputError(
            f"{path}: not an evalrun results file ({why}); expected the output of "
            "`evalrun score --format json` or `--format jsonl`"
        )

    with _open(path, bad) as f:
        first = f.readline()
        while first and not first.strip():
            first = f.readline()
        try:
            head = loads(first) if first.strip() else None
        except ValueError:
            head = None  # a document written over several lines (jq .): read it whole
            first += f.read()
            try:
                head = loads(first)
            except ValueError as e:
                raise bad(f"not JSON: {e}") from None
        if type(head) is not dict:
            raise bad("its first line is not a JSON object")
        if "runs" in head and "summary" in head:  # --format json: one document
            _check(head, bad)
            summary.update(head["summary"])
            warnings.extend(_warnings(head))
            runs, errors = head["runs"], head.get("errors") or []
            for at in range(0, max(len(runs), 1), SAVED_BATCH):
                yield runs[at : at + SAVED_BATCH], errors if at == 0 else []
            return
        batch: list[RunJson] = []
        record: Any = head
        number = 1
        while True:
            if "summary" in record:  # --format jsonl: the last line
                _check({"runs": [], **record}, bad)  # (the lines have no version to name)
                summary.update(record["summary"])
                warnings.extend(_warnings(record))
                yield batch, record.get("errors") or []
                return
            if "verdict" not in record or "run_id" not in record:
                raise bad(f"line {number} is neither a run result nor the summary")
            _valid(record, "run", f"line {number}", bad, None)
            batch.append(record)
            if len(batch) >= SAVED_BATCH:
                yield batch, []
                batch = []
            line = f.readline()
            number += 1
            while line and not line.strip():
                line = f.readline()
                number += 1
            if not line:
                raise bad("it ends before its summary line")
            try:
                record = loads(line)
            except ValueError as e:
                raise bad(f"line {number} is not JSON: {e}") from None
            if type(record) is not dict:
                raise bad(f"line {number} is not a JSON object")


def _check(doc: dict[str, Any], bad: Callable[[str], InputError]) -> None:
    if type(doc.get("summary")) is not dict or "runs" not in doc["summary"]:
        raise bad('its "summary" is not a score summary')
    if type(doc.get("runs")) is not list:
        raise bad('its "runs" is not a list')
    for key in ("errors", "warnings"):
        if doc.get(key) is not None and type(doc[key]) is not list:
            raise bad(f'its "{key}" is not a list')
    newer = _newer(doc.get("evalrun"))
    _valid(doc["summary"], "summary", "summary", bad, newer)
    for k, run in enumerate(doc["runs"]):
        _valid(run, "run", f"runs[{k}]", bad, newer)
    for k, error in enumerate(doc.get("errors") or []):
        _valid(error, "error", f"errors[{k}]", bad, newer)


@cache
def _validators() -> dict[str, Any]:
    """The shipped results schema's validators for a summary, a run and an unscoreable line."""
    schema = json.loads(resources.files("evalrunner").joinpath("results.schema.json").read_text())
    return {
        name: Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": schema["$defs"]})
        for name in ("summary", "run", "error")
    }


def _valid(
    value: Any, kind: str, where: str, bad: Callable[[str], InputError], newer: str | None
) -> None:
    """A record of a saved results file checked against the shipped results schema: a value of
    the wrong type is an InputError naming its key, never a traceback in a writer."""
    error = next(iter(_validators()[kind].iter_errors(value)), None)
    if error is None:
        return
    key = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    why = f"{where}{key}: {error.message}"
    if newer is not None:
        why += f"; it was written by evalrun {newer}, newer than this one ({__version__})"
    raise bad(why)


def _newer(version: Any) -> str | None:
    """The version that wrote a results document, when it is newer than this evalrun."""

    def parts(v: str) -> tuple[int, ...]:
        return tuple(int(p) for p in re.findall(r"\d+", v)[:3])

    if type(version) is str and parts(version) > parts(__version__):
        return version
    return None


def _open(path: Path, bad: Callable[[str], InputError]) -> IO[bytes]:
    try:
        if path.suffix == ".gz":
            return gzip.open(path, "rb")  # type: ignore[return-value]
        return open(path, "rb")
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror or e}") from None
