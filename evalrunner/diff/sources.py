"""The two sides of a diff: results files, trace sets scored now, and git revisions.

A path that exists wins over a revision of the same name. Each side is read into a `Side`: which
reading was used, the score summary, and one `RunView` per run.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO, Literal

import orjson

from ..model import InputError, TraceError
from ..pipeline import Config, load_config, score
from ..report import run_to_json
from ..traces import TRACE_SUFFIXES
from .git import checkout, is_revision, relabeller
from .views import RESULTS_HELP, RunStore, RunView


@dataclass(frozen=True)
class Side:
    """One side of a diff, read and scored."""

    kind: Literal["results", "traces", "revision"]
    source: str
    """Which reading was used, in words: `results file old.json`, `git revision HEAD~1 (3f2c1aa)`."""
    summary: dict[str, Any] = field(repr=False)
    """The score summary (SPEC "Results JSON")."""
    runs: tuple[RunView, ...] = field(repr=False)
    commit: str | None = None
    """For a revision: the commit it resolved to."""

    @property
    def n_runs(self) -> int:
        return len(self.runs)

    def failed(self, check: Literal["reported", "true"]) -> int:
        if check == "reported":
            return sum(not r.reported_pass for r in self.runs)
        return sum(not r.true_pass for r in self.runs)

    def to_json(self) -> dict[str, Any]:
        out = {"kind": self.kind, "source": self.source, "summary": self.summary}
        if self.commit is not None:
            out["commit"] = self.commit
        return out


class Loader:
    """Reads sides; the current tools and cases are loaded once, when a trace side needs them."""

    def __init__(self, tools: Path, cases: Path, traces: Path, base: Path | None) -> None:
        self.tools, self.cases, self.traces, self.base = tools, cases, traces, base
        self._config: Config | None = None

    def _at(self, p: Path) -> Path:
        return p if self.base is None or p.is_absolute() else self.base / p

    def config(self) -> Config:
        if self._config is None:
            self._config = load_config(self._at(self.tools), self._at(self.cases))
        return self._config

    def load(self, spec: str, which: str) -> Side:
        if not spec:
            raise InputError(f"{which} is empty: give a results file, a trace path or a revision")
        path = self._at(Path(spec))
        if path.exists():
            side = self._load_path(spec, path)
            if is_revision(spec, self.base):
                note = "(a path; the git revision of the same name was not used)"
                side = replace(side, source=f"{side.source} {note}")
            return side
        return self._load_revision(spec)

    def _load_path(self, spec: str, path: Path) -> Side:
        if path.is_dir():
            return self._score_traces(spec, path)
        kind = _sniff(path, spec)
        if kind == "traces":
            return self._score_traces(spec, path)
        summary, runs = read_results(path, spec, jsonl=kind == "jsonl")
        what = "results file" if kind == "json" else "results file (jsonl)"
        return Side("results", f"{what} {spec}", summary, runs)

    def _score_traces(self, spec: str, path: Path) -> Side:
        config = self.config()
        summary, runs = _score(config, path, lambda d: d)
        what = "trace directory" if path.is_dir() else "trace file"
        source = (
            f"{what} {spec}, scored with the current tools ({self.tools}) and cases ({self.cases})"
        )
        return Side("traces", source, summary, runs)

    def _load_revision(self, spec: str) -> Side:
        wanted = [self.tools, self.cases, self.traces]
        with checkout(spec, wanted, self.base) as (sha, tmp, paths):
            tools, cases, traces = paths
            try:
                config = load_config(tools, cases)
                summary, runs = _score(config, traces, relabeller(spec, traces, self.traces))
            except InputError as e:
                # name the revision's files the way git does, not by the temporary extraction
                raise InputError(str(e).replace(f"{tmp}/", f"{spec}:")) from None
        source = (
            f"git revision {spec} ({sha[:12]}): its {self.tools}/, {self.cases}/ and "
            f"{self.traces}/ read with git archive"
        )
        return Side("revision", source, summary, runs, commit=sha)


def _score(
    config: Config, traces: Path, relabel: Callable[[dict[str, Any]], dict[str, Any]]
) -> tuple[dict[str, Any], tuple[RunView, ...]]:
    runs: list[RunView] = []
    store = RunStore()

    def sink(item: Any) -> None:
        if not isinstance(item, TraceError):
            d = relabel(run_to_json(item))
            runs.append(RunView.from_json(d, d["source"], store))

    summary = score(config, [traces], sink=sink).to_json()
    for example in summary.get("examples", {}).values():
        if isinstance(example, dict) and "source" in example:
            example.update(relabel({"source": example["source"], "run_id": example.get("run_id")}))
    return summary, tuple(runs)


def _first_line(path: Path) -> bytes | None:
    with _open(path) as f:
        for line in f:
            if line.strip():
                return bytes(line)
    return None


def _open(path: Path) -> BinaryIO:
    try:
        if path.name.endswith(".gz"):
            return gzip.open(path, "rb")  # type: ignore[return-value]
        return open(path, "rb")
    except OSError as e:
        raise InputError(f"{path}: cannot open: {e.strerror or e}") from None


def _sniff(path: Path, spec: str) -> Literal["json", "jsonl", "traces"]:
    """Which kind of file `path` is, from its first line; InputError when it is none of them.

    A results file is recognized by its keys. A `.jsonl` file that is not one is a trace file,
    whatever its lines hold: the trace reader reads it, or lists each line it cannot score.
    """
    trace_name = path.name.endswith(TRACE_SUFFIXES)

    def bad(why: str) -> InputError:
        return InputError(f"{spec}: not an evalrun results file ({why}); {RESULTS_HELP}")

    try:
        first = _first_line(path)
    except (OSError, EOFError) as e:
        raise InputError(f"{spec}: cannot read: {e}") from None
    if first is None:
        if trace_name:
            return "traces"  # an empty trace file: zero runs, as `evalrun score` reads it
        raise bad("the file is empty")
    try:
        value = orjson.loads(first)
    except orjson.JSONDecodeError:
        value = None if trace_name else _whole(path)  # a results document, pretty-printed
        if value is None:
            if trace_name:
                return "traces"
            raise bad("its first line is not JSON") from None
    if type(value) is not dict:
        if trace_name:
            return "traces"
        raise bad("it is not a JSON object")
    keys = value.keys()
    if {"evalrun", "runs", "summary"} <= keys:
        return "json"
    if "verdict" in keys and "run_id" in keys:
        return "jsonl"
    if {"errors", "summary"} <= keys and "calls" not in keys:
        return "jsonl"  # the summary line of a run-less jsonl results file
    if "calls" in keys or trace_name:
        return "traces"
    shown = ", ".join(sorted(map(str, keys))[:6]) or "none"
    raise bad(f"a JSON object with keys {shown}")


def _whole(path: Path) -> Any:
    try:
        with _open(path) as f:
            return orjson.loads(f.read())
    except (orjson.JSONDecodeError, OSError, EOFError):
        return None


def read_results(
    path: Path, spec: str, *, jsonl: bool
) -> tuple[dict[str, Any], tuple[RunView, ...]]:
    """The summary and runs of a results file written by `evalrun score`."""
    if not jsonl:
        doc = _whole(path)
        if type(doc) is not dict or not {"evalrun", "runs", "summary"} <= doc.keys():
            raise InputError(f"{spec}: not an evalrun results file; {RESULTS_HELP}")
        if type(doc["runs"]) is not list:
            raise InputError(f'{spec}: not an evalrun results file ("runs" is not a list)')
        store = RunStore()
        runs = tuple(
            RunView.from_json(r, f"{spec}: run {i}", store) for i, r in enumerate(doc["runs"])
        )
        return _check_summary(doc["summary"], spec), runs
    runs_list: list[RunView] = []
    store = RunStore()
    summary = None
    with _open(path) as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            where = f"{spec}:{number}"
            if summary is not None:
                raise InputError(f"{where}: a line after the summary line; {RESULTS_HELP}")
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError as e:
                raise InputError(f"{where}: not JSON ({e}); {RESULTS_HELP}") from None
            if type(value) is dict and "summary" in value and "run_id" not in value:
                summary = _check_summary(value["summary"], where)
            else:
                runs_list.append(RunView.from_json(value, where, store, raw=line))
    if summary is None:
        raise InputError(
            f"{spec}: this jsonl results file ends without its summary line (cut short?); "
            "write it again with `evalrun score --format jsonl`"
        )
    return summary, tuple(runs_list)


def _check_summary(summary: Any, where: str) -> dict[str, Any]:
    ok = (
        type(summary) is dict
        and type(summary.get("runs")) is int
        and all(
            type(summary.get(check)) is dict and type(summary[check].get("failed_runs")) is int
            for check in ("reported", "true")
        )
    )
    if not ok:
        raise InputError(
            f'{where}: not an evalrun results file (its "summary" lacks runs and failed_runs); '
            f"{RESULTS_HELP}"
        )
    checked: dict[str, Any] = summary
    return checked
