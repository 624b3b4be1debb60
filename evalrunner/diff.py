"""Compare two scorings: what moved, why, and whether the move is more than noise.

Each side of a diff is a results file (`evalrun score --format json` or `jsonl`), a trace file or
directory scored with the current tools and cases, or a git revision whose own tools, cases and
traces are read with `git archive` (the user's working tree is never touched). A path that exists
wins over a revision of the same name.

Pairing: by `run_id` when both sides hold the same runs (same ids, each of the same case and
calling the same tools in the same order: the rules or the cases changed); otherwise by `case_id`
(new traces, from a changed agent), where a case's trials compare as pass fractions. The paired
test is on the true verdicts: exact McNemar over runs, an exact sign test over cases. Both are the
two-sided binomial test of "improved" against "regressed" with p = 1/2, computed exactly with
integers.

Everything is read into one small view per run (`RunView`), built from the results-JSON layout, so a
results file and a freshly scored trace set are compared by the same code.
"""

from __future__ import annotations

import gzip
import re
import subprocess
import tarfile
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path, PurePosixPath
from typing import Any, Literal

import orjson

from .model import FALSE_FAILURE_SHAPES, FALSE_PASS_SHAPES, VERDICTS, InputError, TraceError
from .scoring import Config, load_config, score
from .traces import TRACE_SUFFIXES
from .write.results import run_to_json

Pairing = Literal["run_id", "case_id"]
PAIRINGS: tuple[str, ...] = ("auto", "run_id", "case_id")
MAX_SUSPECT_KEYS = 20
"""How many run (or case) keys a suspect rule lists as examples; all are counted."""

RESULTS_HELP = (
    "expected the output of `evalrun score --format json` (one object with "
    '"evalrun", "runs" and "summary"), of `--format jsonl` (one run a line, then a '
    '"summary" line), or a trace file (one run a line, with "calls")'
)


# ------------------------------------------------------------------------------------ views


@dataclass(frozen=True, slots=True)
class ParamView:
    """One parameter difference of a call, as the results JSON explains it."""

    path: str
    kind: str
    """`equivalent` (absorbed by a rule or a default) or `mismatch`."""
    shapes: tuple[str, ...]
    norm: str | None


@dataclass(frozen=True, slots=True)
class CallView:
    index: int
    tool: str
    label: str
    reported_failed: bool
    repeats: int | None
    params: tuple[ParamView, ...]

    def param(self, path: str) -> ParamView | None:
        return next((p for p in self.params if p.path == path), None)


@dataclass(frozen=True, slots=True)
class EffectView:
    at: str
    op: str
    ok: bool | None
    """True held, False failed, None unverified (no world recorded)."""


@dataclass(frozen=True, slots=True)
class RunView:
    """What a diff needs of one scored run: its verdicts and their explanation."""

    run_id: str
    case_id: str
    source: str
    verdict: str
    reported_pass: bool
    true_pass: bool
    accepted: int | None
    aligned_to: int | None
    calls: tuple[CallView, ...]
    missing: tuple[tuple[int, str], ...]
    effects: tuple[EffectView, ...]
    suspects: tuple[tuple[str, str, str], ...]

    @property
    def fingerprint(self) -> tuple[str, tuple[str, ...]]:
        """What stays fixed when only the rules change: the case and the tools called, in order."""
        return self.case_id, tuple(c.tool for c in self.calls)

    @classmethod
    def from_json(cls, d: Any, where: str) -> RunView:
        """A run in the results-JSON layout; InputError (naming `where`) when it is not one."""

        def bad(why: str) -> InputError:
            return InputError(f"{where}: not an evalrun run result ({why}); {RESULTS_HELP}")

        if type(d) is not dict:
            raise bad("not a JSON object")
        for key in ("run_id", "case_id", "verdict"):
            if type(d.get(key)) is not str:
                raise bad(f'no "{key}" string')
        if d["verdict"] not in VERDICTS:
            raise bad(f"unknown verdict {d['verdict']!r}")
        reported, true = d.get("reported"), d.get("true")
        if type(reported) is not dict or type(reported.get("pass")) is not bool:
            raise bad('no "reported": {"pass": true|false}')
        if type(true) is not dict or type(true.get("pass")) is not bool:
            raise bad('no "true": {"pass": true|false}')
        try:
            calls = tuple(_call_view(c) for c in d.get("calls") or ())
            missing = tuple((int(m["step"]), str(m["tool"])) for m in d.get("missing") or ())
            effects = tuple(
                EffectView(str(e.get("at", "")), str(e.get("op", "")), e.get("ok"))
                for e in d.get("effects") or ()
            )
            suspects = tuple(
                (str(s["tool"]), str(s["param"]), str(s["norm"])) for s in d.get("suspects") or ()
            )
        except (TypeError, KeyError, ValueError, AttributeError) as e:
            raise bad(f"unreadable calls, missing steps, effects or suspects: {e!r}") from None
        accepted = true.get("accepted")
        aligned = true.get("aligned_to")
        return cls(
            run_id=d["run_id"],
            case_id=d["case_id"],
            source=str(d.get("source", "")),
            verdict=d["verdict"],
            reported_pass=reported["pass"],
            true_pass=true["pass"],
            accepted=accepted if type(accepted) is int else None,
            aligned_to=aligned if type(aligned) is int else None,
            calls=calls,
            missing=missing,
            effects=effects,
            suspects=suspects,
        )


def _call_view(c: dict[str, Any]) -> CallView:
    params = tuple(
        ParamView(
            path=str(path),
            kind=str(p.get("kind", "")),
            shapes=tuple(p.get("shapes") or ()),
            norm=p.get("norm"),
        )
        for path, p in sorted((c.get("params") or {}).items())
    )
    repeats = c.get("repeats")
    return CallView(
        index=int(c["index"]),
        tool=str(c["tool"]),
        label=str(c["label"]),
        reported_failed=bool(c.get("reported_failed", False)),
        repeats=repeats if type(repeats) is int else None,
        params=params,
    )


# ------------------------------------------------------------------------------------ sides


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


class _Loader:
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
            if _is_revision(spec, self.base):
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
                summary, runs = _score(config, traces, _relabeller(spec, traces, self.traces))
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
    views = _Views(relabel)
    summary = score(config, [traces], writer=views).to_json()
    runs = views.runs
    for example in summary.get("examples", {}).values():
        if isinstance(example, dict) and "source" in example:
            example.update(relabel({"source": example["source"], "run_id": example.get("run_id")}))
    return summary, tuple(runs)


class _Views:
    """A writer that keeps each scored run as a `RunView`."""

    encoder = staticmethod(list)

    def __init__(self, relabel: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        self.relabel = relabel
        self.runs: list[RunView] = []

    def write(self, items: list[Any]) -> None:
        for item in items:
            if not isinstance(item, TraceError):
                d = self.relabel(run_to_json(item))
                self.runs.append(RunView.from_json(d, d["source"]))

    def close(self, summary: Any) -> None:
        pass


def _relabeller(
    rev: str, extracted: Path, traces: Path
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Sources under the temporary extraction read as `REV:traces/a.jsonl:3`, as git names blobs.

    A run without a `run_id` is known by its source; it gets the plain `traces/a.jsonl:3`, so the
    same line at two revisions is the same run.
    """
    prefix = str(extracted)

    def relabel(d: dict[str, Any]) -> dict[str, Any]:
        source = d.get("source")
        if not isinstance(source, str) or not source.startswith(prefix):
            return d
        rest = source[len(prefix) :].lstrip("/\\")
        plain = (PurePosixPath(traces.as_posix()) / rest).as_posix() if rest else traces.as_posix()
        if rest.startswith(":"):  # a single trace file: `file:line`
            plain = traces.as_posix() + rest
        d = dict(d)
        if d.get("run_id") == source:
            d["run_id"] = plain
        d["source"] = f"{rev}:{plain}"
        return d

    return relabel


# ---------------------------------------------------------------------------- results files


def _first_line(path: Path) -> bytes | None:
    with _open(path) as f:
        for line in f:
            if line.strip():
                return line
    return None


def _open(path: Path):
    try:
        if path.name.endswith(".gz"):
            return gzip.open(path, "rb")
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
        runs = tuple(RunView.from_json(r, f"{spec}: run {i}") for i, r in enumerate(doc["runs"]))
        return _check_summary(doc["summary"], spec), runs
    runs_list: list[RunView] = []
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
                runs_list.append(RunView.from_json(value, where))
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
    return summary


# ------------------------------------------------------------------------------ git revisions


def _git(args: list[str], cwd: Path | None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise InputError("git is not installed, so a git revision cannot be read") from None


def _repo_root(base: Path | None) -> Path | None:
    done = _git(["rev-parse", "--show-toplevel"], base)
    return Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else None


def _is_revision(spec: str, base: Path | None) -> bool:
    """Whether `spec` also names a commit (to say that a path of the same name won)."""
    if spec.startswith("-"):
        return False
    try:
        done = _git(["rev-parse", "--verify", "--quiet", f"{spec}^{{commit}}"], base)
    except InputError:
        return False
    return done.returncode == 0


@contextmanager
def checkout(
    rev: str, paths: list[Path], base: Path | None = None
) -> Iterator[tuple[str, Path, list[Path]]]:
    """`paths` (relative to `base`, default the current directory) as of revision `rev`.

    Yields the commit, a temporary directory standing for the repository's root, and the paths
    inside it, read with `git archive`: the working tree, the index and HEAD are left as they are.
    """
    here = (base or Path.cwd()).resolve()
    root = _repo_root(here)
    if root is None:
        raise InputError(
            f"{rev!r} is not a file or directory, and {here} is not in a git repository, so it "
            "cannot be read as a git revision either"
        )
    if rev.startswith("-"):
        raise InputError(f"{rev!r} is not a file or directory, nor a git revision")
    found = _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], root)
    if found.returncode != 0:
        raise InputError(
            f"{rev!r} is neither a file or directory nor a revision of the git repository at "
            f"{root} (unknown revision)"
        )
    sha = found.stdout.strip()
    root = root.resolve()
    rels = []
    for p in paths:
        full = (here / p).resolve()
        try:
            rel = full.relative_to(root).as_posix()
        except ValueError:
            raise InputError(
                f"{p} is outside the git repository at {root}, so it cannot be read at "
                f"revision {rev}"
            ) from None
        exists = _git(["cat-file", "-e", f"{sha}:{'' if rel == '.' else rel}"], root)
        if exists.returncode != 0:
            raise InputError(
                f"git revision {rev} ({sha[:12]}) has no {rel}: nothing to read there "
                "(was it committed?)"
            )
        rels.append(rel)
    with tempfile.TemporaryDirectory(prefix="evalrun-diff-") as tmp:
        _archive(root, sha, sorted(set(rels)), Path(tmp))
        yield sha, Path(tmp), [Path(tmp) / rel for rel in rels]


def _archive(root: Path, sha: str, rels: list[str], dest: Path) -> None:
    """Extract `rels` of commit `sha` into `dest`: regular files and directories only."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            ["git", "archive", "--format=tar", sha, "--", *rels],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=err,
        )
        try:
            assert proc.stdout is not None
            with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
                for member in tar:
                    target = _safe_target(dest, member.name)
                    if target is None:
                        continue
                    if member.isdir():
                        target.mkdir(parents=True, exist_ok=True)
                    elif member.isreg():
                        target.parent.mkdir(parents=True, exist_ok=True)
                        source = tar.extractfile(member)
                        assert source is not None
                        with open(target, "wb") as out:
                            while chunk := source.read(1 << 20):
                                out.write(chunk)
                    # Symbolic links and anything else are skipped: the extraction stays inside
                    # `dest` whatever the commit holds.
        except tarfile.TarError as e:
            proc.kill()
            proc.wait()
            err.seek(0)
            message = err.read().decode(errors="replace").strip() or str(e)
            raise InputError(f"git archive {sha[:12]} failed: {message}") from None
        finally:
            if proc.stdout is not None:
                proc.stdout.close()
        if proc.wait() != 0:
            err.seek(0)
            message = err.read().decode(errors="replace").strip()
            raise InputError(f"git archive {sha[:12]} failed: {message}")


def _safe_target(dest: Path, name: str) -> Path | None:
    parts = PurePosixPath(name).parts
    if not parts or PurePosixPath(name).is_absolute() or ".." in parts:
        return None
    return dest.joinpath(*parts)


# ------------------------------------------------------------------------------------ tests


def binomial_two_sided(improved: int, regressed: int) -> Fraction:
    """Exact two-sided binomial test of `improved` against `regressed` with p = 1/2.

    p = min(1, 2 · P(X ≤ min(improved, regressed))) for X ~ Binomial(improved + regressed, 1/2);
    1 when nothing changed.
    """
    n = improved + regressed
    if n == 0:
        return Fraction(1)
    k = min(improved, regressed)
    tail, term = 0, 1  # term = C(n, i), updated in place: cheaper than comb() per i for large n
    for i in range(k + 1):
        if i:
            term = term * (n - i + 1) // i
        tail += term
    return min(Fraction(1), Fraction(2 * tail, 2**n))


def mcnemar_exact(improved: int, regressed: int) -> Fraction:
    """Exact McNemar test on paired runs: the binomial test on the discordant pairs only."""
    return binomial_two_sided(improved, regressed)


def sign_test(improved: int, regressed: int) -> Fraction:
    """Exact two-sided sign test over cases; ties (unchanged cases) are left out before."""
    return binomial_two_sided(improved, regressed)


# ------------------------------------------------------------------------------------ result


@dataclass(frozen=True)
class Flip:
    key: str
    old: str | float
    """The verdict (run pairing) or the true pass fraction (case pairing)."""
    new: str | float
    cause: str
    trials: tuple[int, int] | None = None
    """Case pairing: the number of runs of the case on each side."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "key": self.key,
            "old": self.old,
            "new": self.new,
            "cause": self.cause,
        }
        if self.trials is not None:
            out["trials"] = {"old": self.trials[0], "new": self.trials[1]}
        return out


@dataclass(frozen=True)
class TestResult:
    name: Literal["exact_mcnemar", "exact_sign"]
    improved: int
    regressed: int
    p_value: Fraction

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "improved": self.improved,
            "regressed": self.regressed,
            "p_value": float(self.p_value),
        }


@dataclass(frozen=True)
class SuspectRule:
    """A rule through which calls newly match while the recorded world says the run failed."""

    tool: str
    param: str
    norm: str
    keys: tuple[str, ...]
    """The runs (or cases) where it newly happens."""
    runs: int
    unverified_passes: int
    """Runs that the same rule turned into true passes with no world to check them against."""

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "param": self.param,
            "norm": self.norm,
            "runs": self.runs,
            "keys": list(self.keys[:MAX_SUSPECT_KEYS]),
            "unverified_passes": self.unverified_passes,
        }


@dataclass(frozen=True)
class DiffResult:
    pairing: Pairing
    pairing_reason: str
    old: Side
    new: Side
    flips: tuple[Flip, ...]
    test: TestResult
    unpaired: tuple[int, int]
    """Keys (runs or cases) found on the old side only, and on the new side only."""
    suspect_rules: tuple[SuspectRule, ...]

    @property
    def unit(self) -> str:
        return "run" if self.pairing == "run_id" else "case"

    def delta(self) -> dict[str, float]:
        return {
            f"{check}_run_failure_rate": round(
                _rate(self.new.failed(check), self.new.n_runs)
                - _rate(self.old.failed(check), self.old.n_runs),
                4,
            )
            for check in ("reported", "true")
        }

    def regressed(self, alpha: float) -> bool:
        """The true verdicts got worse, and the paired test says it is unlikely to be noise."""
        t = self.test
        return t.regressed > t.improved and t.p_value < Fraction(alpha)

    def to_json(self) -> dict[str, Any]:
        return {
            "pairing": self.pairing,
            "pairing_reason": self.pairing_reason,
            "old": self.old.to_json(),
            "new": self.new.to_json(),
            "delta": self.delta(),
            "flips": [f.to_json() for f in self.flips],
            "test": self.test.to_json(),
            "unpaired": {"old": self.unpaired[0], "new": self.unpaired[1]},
            "suspect_rules": [s.to_json() for s in self.suspect_rules],
        }


def _rate(failed: int, total: int) -> float:
    return failed / total if total else 0.0


def describe_test(result: DiffResult, alpha: float) -> str:
    """The test in words a reader can act on."""
    t, unit = result.test, result.unit
    if t.improved + t.regressed == 0:
        return f"No {unit} changed its true verdict: nothing moved, nothing to test."
    counts = f"{_count(t.improved, unit)} improved, {t.regressed} regressed"
    p = float(t.p_value)
    shown = _p_text(p, alpha)
    if p < alpha:
        way = "an improvement" if t.improved > t.regressed else "a regression"
        return f"{counts}; {shown}: unlikely to be noise at alpha {alpha:g} ({way})."
    return f"{counts}; {shown}: could well be noise at alpha {alpha:g}."


def _count(n: int, unit: str) -> str:
    return f"{n} {unit}" + ("" if n == 1 else "s")


def _p_text(p: float, alpha: float) -> str:
    if p < 0.001:
        return "p < 0.001"
    for digits in (2, 3, 4, 6):
        text = f"{p:.{digits}g}"
        if (float(text) < alpha) == (p < alpha):
            return f"p = {text}"
    return f"p = {p!r}"


# ---------------------------------------------------------------------------------- diffing


def diff(
    old: str,
    new: str,
    *,
    tools: str | Path = "tools",
    cases: str | Path = "cases",
    traces: str | Path = "traces",
    pairing: str = "auto",
    cwd: str | Path | None = None,
) -> DiffResult:
    """Read both sides, pair them, and explain every flip.

    `tools`, `cases` and `traces` (relative to `cwd`, default the current directory) are where the
    trace sides' rules live and where a revision's own tools, cases and traces are read from.
    """
    if pairing not in PAIRINGS:
        raise InputError(f"pairing must be one of {', '.join(PAIRINGS)}, not {pairing!r}")
    loader = _Loader(Path(tools), Path(cases), Path(traces), Path(cwd) if cwd is not None else None)
    a = loader.load(old, "OLD")
    b = loader.load(new, "NEW")
    chosen, reason = choose_pairing(a, b, pairing)
    if chosen == "run_id":
        return _by_run(a, b, reason)
    return _by_case(a, b, reason)


def _ids(side: Side) -> tuple[dict[str, RunView], str | None]:
    """Runs by id, and the first duplicated id (None when ids are unique)."""
    found: dict[str, RunView] = {}
    for r in side.runs:
        if r.run_id in found:
            return found, r.run_id
        found[r.run_id] = r
    return found, None


def choose_pairing(old: Side, new: Side, requested: str = "auto") -> tuple[Pairing, str]:
    """`run_id` when both sides hold the same runs; else `case_id`. With the reason, in words."""
    if requested == "case_id":
        return "case_id", "pairing by case_id was asked for"
    a, dup_a = _ids(old)
    b, dup_b = _ids(new)
    dup = ("OLD", dup_a) if dup_a is not None else ("NEW", dup_b) if dup_b is not None else None
    if requested == "run_id":
        if dup is not None:
            raise InputError(
                f"cannot pair by run_id: run id {dup[1]!r} occurs twice on the {dup[0]} side"
            )
        return "run_id", "pairing by run_id was asked for"
    if dup is not None:
        return "case_id", f"run id {dup[1]!r} occurs twice on the {dup[0]} side"
    if a.keys() != b.keys():
        only_a, only_b = len(a.keys() - b.keys()), len(b.keys() - a.keys())
        return "case_id", (
            f"the sides hold different runs ({only_a} run ids only in OLD, {only_b} only in NEW)"
        )
    for key in sorted(a):
        if a[key].fingerprint != b[key].fingerprint:
            what = "another case" if a[key].case_id != b[key].case_id else "other tool calls"
            return "case_id", (
                f"run {key!r} has {what} on each side: the same ids name different recordings"
            )
    return "run_id", f"both sides hold the same {_count(len(a), 'run')} (same ids, cases, calls)"


def _by_run(old: Side, new: Side, reason: str) -> DiffResult:
    a, _ = _ids(old)
    b, _ = _ids(new)
    common = sorted(a.keys() & b.keys())
    flips, improved, regressed = [], 0, 0
    for key in common:
        o, n = a[key], b[key]
        improved += not o.true_pass and n.true_pass
        regressed += o.true_pass and not n.true_pass
        if o.verdict != n.verdict:
            flips.append(Flip(key, o.verdict, n.verdict, run_cause(o, n)))
    test = TestResult("exact_mcnemar", improved, regressed, mcnemar_exact(improved, regressed))
    suspects = _suspect_rules([(key, [a[key]], [b[key]]) for key in common])
    unpaired = (len(a.keys() - b.keys()), len(b.keys() - a.keys()))
    return DiffResult("run_id", reason, old, new, tuple(flips), test, unpaired, suspects)


def _by_case(old: Side, new: Side, reason: str) -> DiffResult:
    a, b = _group(old.runs), _group(new.runs)
    common = sorted(a.keys() & b.keys())
    flips, improved, regressed = [], 0, 0
    for key in common:
        o, n = a[key], b[key]
        fo, fn = _fraction(o, "true"), _fraction(n, "true")
        improved += fn > fo
        regressed += fn < fo
        if fo != fn or _fraction(o, "reported") != _fraction(n, "reported"):
            flips.append(
                Flip(
                    key,
                    round(float(fo), 4),
                    round(float(fn), 4),
                    case_cause(o, n),
                    (len(o), len(n)),
                )
            )
    test = TestResult("exact_sign", improved, regressed, sign_test(improved, regressed))
    suspects = _suspect_rules([(key, a[key], b[key]) for key in common])
    unpaired = (len(a.keys() - b.keys()), len(b.keys() - a.keys()))
    return DiffResult("case_id", reason, old, new, tuple(flips), test, unpaired, suspects)


def _group(runs: tuple[RunView, ...]) -> dict[str, list[RunView]]:
    out: dict[str, list[RunView]] = {}
    for r in runs:
        out.setdefault(r.case_id, []).append(r)
    return out


def _fraction(runs: list[RunView], check: Literal["reported", "true"]) -> Fraction:
    passed = sum(r.true_pass if check == "true" else r.reported_pass for r in runs)
    return Fraction(passed, len(runs))


def _suspect_rules(
    groups: list[tuple[str, list[RunView], list[RunView]]],
) -> tuple[SuspectRule, ...]:
    """Rules through which calls newly match while their effects fail, per run (or case).

    A normalizer that turns failing runs into passes is only as good as its rule: where a world was
    recorded and disagrees, the rule is the first thing to doubt, and the runs it passed with no
    world to check are counted alongside.
    """
    keys: dict[tuple[str, str, str], list[str]] = {}
    runs: Counter = Counter()
    for key, olds, news in groups:
        before = {s for r in olds for s in r.suspects}
        fresh = Counter(s for r in news for s in r.suspects if s not in before)
        for s, k in fresh.items():
            keys.setdefault(s, []).append(key)
            runs[s] += k
    if not keys:
        return ()
    unverified: Counter = Counter()
    for _, olds, news in groups:
        was_passing = any(r.true_pass for r in olds)
        for r in news:
            if not r.true_pass or was_passing or not any(e.ok is None for e in r.effects):
                continue
            for rule in _absorbing_rules(r):
                if rule in keys:
                    unverified[rule] += 1
    return tuple(
        SuspectRule(t, p, n, tuple(keys[(t, p, n)]), runs[(t, p, n)], unverified[(t, p, n)])
        for t, p, n in sorted(keys)
    )


_INDEX = re.compile(r"\[\d+\]")
"""A list index in a difference's path (`flights[1].date`); suspects name the parameter
(`flights[].date`)."""


def _absorbing_rules(r: RunView) -> set[tuple[str, str, str]]:
    """(tool, parameter path, normalizer) for each difference a rule absorbed in a matched call."""
    return {
        (c.tool, _INDEX.sub("[]", p.path), p.norm)
        for c in r.calls
        if c.label == "equivalent"
        for p in c.params
        if p.kind == "equivalent" and p.norm
    }


# ---------------------------------------------------------------------------------- causes

ALIGNED = ("exact", "equivalent")
FAILED_LABELS = ("mismatch", "unexpected", "redundant", "malformed")


def run_cause(o: RunView, n: RunView) -> str:
    """Why one run's verdict changed, as specifically as the two explanations allow."""
    parts: list[str] = []
    if o.true_pass != n.true_pass:
        parts += _true_causes(o, n)
        if not parts:
            parts.append(f"the true check now {'passes' if n.true_pass else 'fails'}")
    if o.reported_pass != n.reported_pass:
        reported = _reported_causes(o, n)
        parts += reported or [f"exact-match now {'passes' if n.reported_pass else 'fails'}"]
    return "; ".join(dict.fromkeys(parts))


def _true_causes(o: RunView, n: RunView) -> list[str]:
    parts: list[str] = []
    if n.accepted != o.accepted:
        if n.accepted is None:
            parts.append("the calls no longer match any accepted sequence")
        elif n.accepted != 0:
            parts.append(f"now matches accepted sequence #{n.accepted}")
        elif o.accepted is not None:
            parts.append("now matches the canonical sequence (#0)")
    same_sequence = o.aligned_to == n.aligned_to
    calls = _call_causes(o, n, same_sequence)
    parts += calls
    if not calls and same_sequence:
        before = set(o.missing)
        parts += [
            f"step {j} ({tool}) now missing" for j, tool in n.missing if (j, tool) not in before
        ]
        after = set(n.missing)
        parts += [
            f"step {j} ({tool}) no longer missing"
            for j, tool in o.missing
            if (j, tool) not in after
        ]
    if n.accepted == 0 and o.accepted is None and not parts:
        parts.append("now matches accepted sequence #0")
    parts += _effect_causes(o, n)
    return parts


def _call_causes(o: RunView, n: RunView, same_sequence: bool) -> list[str]:
    if len(o.calls) != len(n.calls) or any(x.tool != y.tool for x, y in zip(o.calls, n.calls)):
        return [f"the calls differ ({len(o.calls)} → {len(n.calls)} calls)"]
    parts: list[str] = []
    for before, after in zip(o.calls, n.calls):
        if before.label == after.label and before.params == after.params:
            continue
        parts += _one_call(before, after, same_sequence)
    return parts


def _one_call(before: CallView, after: CallView, same_sequence: bool) -> list[str]:
    i, tool = after.index, after.tool
    was, now = before.label, after.label
    if now == "redundant" and was != "redundant":
        return [f"call {i} now redundant (repeats call {after.repeats})"]
    if was == "redundant" and now != "redundant":
        if now == "repeat":
            return [f"call {i} no longer redundant: {tool} is now repeatable"]
        return [f"call {i} no longer redundant"]
    if now in ("errored", "malformed") and was != now:
        return [f"call {i} ({tool}) now {now}"]
    if was in ("errored", "malformed") and was != now:
        return [f"call {i} ({tool}) no longer {was}"]
    if now == "equivalent":
        found = []
        for p in after.params:
            if p.kind != "equivalent" or before.param(p.path) == p:
                continue
            if p.norm:
                found.append(f"now equivalent through `{p.norm}` on {tool}.{p.path}")
            else:
                found.append(f"now equivalent: {tool}.{p.path} is the declared default")
        if found or was == "exact":
            return found
        return [f"call {i} ({tool}) now equivalent"]
    if now == "exact":
        if was in ALIGNED or not same_sequence:
            return []  # an alternate path is named by the accepted sequence
        return [f"call {i} ({tool}) now matches exactly"]
    if now == "mismatch":
        found = []
        for p in after.params:
            if p.kind != "mismatch":
                continue
            old = before.param(p.path)
            if old is not None and old.kind == "equivalent" and old.norm:
                found.append(f"no longer equivalent: {tool}.{p.path} (was through `{old.norm}`)")
            elif old is None or old.kind != "mismatch":
                found.append(f"{tool}.{p.path} now differs from the case")
        return found or [f"call {i} ({tool}) no longer matches"]
    if now == "unexpected" and was != "unexpected":
        return [f"call {i} ({tool}) now unexpected"]
    if now == "extra" and was == "unexpected":
        return [f"call {i} ({tool}) now allowed outside the sequence"]
    return []


def _effect_causes(o: RunView, n: RunView) -> list[str]:
    parts = []
    for k, e in enumerate(n.effects):
        before = o.effects[k] if k < len(o.effects) else None
        if before is not None and (before.at, before.op) != (e.at, e.op):
            before = None
        where = f"{e.op} at {e.at or '/'}"
        if e.ok is False and (before is None or before.ok is not False):
            parts.append(f"effect now fails: {where}")
        elif e.ok is not False and before is not None and before.ok is False:
            parts.append(f"effect now holds: {where}")
    removed = o.effects[len(n.effects) :]
    if any(e.ok is False for e in removed):
        parts.append("a failing effect assertion was removed")
    return parts


def _reported_causes(o: RunView, n: RunView) -> list[str]:
    if len(o.calls) != len(n.calls):
        return []
    parts = []
    for before, after in zip(o.calls, n.calls):
        if before.reported_failed != after.reported_failed:
            now = "fails" if after.reported_failed else "passes"
            parts.append(f"exact-match now {now} call {after.index} ({after.tool})")
    return parts


def case_cause(o: list[RunView], n: list[RunView]) -> str:
    """Why a case's pass fraction moved: the failures that appeared or went away, by reason."""
    parts = []
    to, tn = _passes(o, "true"), _passes(n, "true")
    if Fraction(to, len(o)) != Fraction(tn, len(n)):
        parts.append(f"{tn}/{len(n)} trials pass (was {to}/{len(o)})")
        old_reasons = Counter(failure_reason(r) for r in o if not r.true_pass)
        new_reasons = Counter(failure_reason(r) for r in n if not r.true_pass)
        gone, came = old_reasons - new_reasons, new_reasons - old_reasons
        if came:
            parts.append("new failures: " + _top(came))
        if gone:
            parts.append("fewer failures: " + _top(gone))
    ro, rn = _passes(o, "reported"), _passes(n, "reported")
    if Fraction(ro, len(o)) != Fraction(rn, len(n)):
        parts.append(f"exact-match passes {rn}/{len(n)} (was {ro}/{len(o)})")
    return "; ".join(parts)


def _passes(runs: list[RunView], check: str) -> int:
    return sum(r.true_pass if check == "true" else r.reported_pass for r in runs)


def _top(reasons: Counter, n: int = 2) -> str:
    ranked = sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    text = ", ".join(f"{reason} ({k})" for reason, k in ranked[:n])
    if len(ranked) > n:
        text += f", and {len(ranked) - n} more"
    return text


def failure_reason(r: RunView) -> str:
    """The first thing to read about a failing run, in a few words."""
    for c in r.calls:
        if c.label == "redundant":
            return f"redundant call to {c.tool}"
    if r.accepted is None:
        for c in r.calls:
            if c.label == "mismatch":
                paths = [p.path for p in c.params if p.kind == "mismatch"]
                if paths:
                    return f"{c.tool}.{paths[0]} differs"
                return f"{c.tool} call differs"
        for c in r.calls:
            if c.label in ("unexpected", "malformed"):
                return f"{c.label} call to {c.tool}"
        if r.missing:
            return f"{r.missing[0][1]} never called"
        if any(c.label == "errored" for c in r.calls):
            return "only errored attempts"
        return "no accepted sequence matched"
    for e in r.effects:
        if e.ok is False:
            return f"effect fails: {e.op} at {e.at or '/'}"
    return "fails"


SHAPES = (("false_failures", FALSE_FAILURE_SHAPES), ("false_passes", FALSE_PASS_SHAPES))
"""The shape counts a diff shows side by side, by summary key."""
