"""evalrun under the third adversarial pass (issue 28): nothing skipped, nothing run, nothing
printed raw.

Each test failed before its fix: a trace whose first record held the words of a results record
was dropped whole, a revision's `.gitattributes` hid files from `diff`, `--jobs` forked without
bound, control sequences from the data reached the terminal, a pattern over a reply ran for
minutes, unordered matching was cubic, a tampered audit sheet was accepted, and a few inputs gave
a traceback with the threshold's exit code.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalrunner import TraceError, read_runs
from evalrunner.cli import app

DATA = Path(__file__).parent / "data" / "cli"
BASE = ["--tools", str(DATA / "tools"), "--cases", str(DATA / "cases")]
LINES = (DATA / "traces" / "a.jsonl").read_bytes().splitlines(keepends=True)[:6]
"""Runs that are all scored (the file's later lines are broken on purpose)."""


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "100", "NO_COLOR": "1"})


def score(*args: str):
    return invoke("score", *BASE, *args)


# ------------------------------------------------------------------- results told by structure


def _with_meta(line: bytes, meta: object) -> bytes:
    record = json.loads(line)
    record["meta"] = meta
    return json.dumps(record).encode() + b"\n"


def test_a_trace_whose_first_record_speaks_of_verdicts_is_scored(tmp_path):
    traces = tmp_path / "traces"
    traces.mkdir()
    first = _with_meta(LINES[0], {"verdict": "pass", "reported": {"pass": True}, "true": 1})
    (traces / "a.jsonl").write_bytes(first + b"".join(LINES[1:]))
    # and one that starts like a results line: a call list whose calls have an index
    record = json.loads(LINES[1])
    record = {"calls": [{"index": 0, **record["calls"][0]}], **record}
    (traces / "b.jsonl").write_bytes(json.dumps(record).encode() + b"\n")
    result = score(str(traces), "-f", "json", "--strict")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["summary"]["runs"] == len(LINES) + 1 and doc["summary"]["unscoreable"] == 0
    assert "own results" not in result.stderr


def test_a_results_file_among_traces_is_counted_unscoreable(tmp_path):
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "a.jsonl").write_bytes(b"".join(LINES))
    results = score(str(traces), "-f", "jsonl").stdout
    (traces / "old.jsonl").write_text(results)
    n = len(results.splitlines())
    again = score(str(traces), "-f", "json")
    assert again.exit_code == 0, again.output
    summary = json.loads(again.stdout)["summary"]
    assert summary["runs"] == len(LINES) and summary["unscoreable"] == n
    assert "old.jsonl: evalrun's own results" in " ".join(again.stderr.split())
    assert score(str(traces), "--strict").exit_code == 2
    items = list(read_runs([traces / "old.jsonl"]))
    assert len(items) == n and all(isinstance(i, TraceError) for i in items)


def test_the_output_written_into_the_traces_folder_is_still_not_read(tmp_path):
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "a.jsonl").write_bytes(b"".join(LINES))
    out = traces / "results.jsonl"
    for _ in range(2):
        result = score(str(traces), "-f", "jsonl", "-o", str(out), "--strict")
        assert result.exit_code == 0, result.output
        assert len(out.read_text().splitlines()) == len(LINES) + 1


# ------------------------------------------------------------------------------ --jobs bounds


def test_jobs_out_of_bounds_are_refused_not_forked(tmp_path, monkeypatch):
    trace = tmp_path / "a.jsonl"
    trace.write_bytes(b"".join(LINES))
    for value, says in (
        ("²", "whole number"),
        ("99999999999999999999", "more processes than evalrun starts"),
        ("2000", "at most 1024"),
        ("00", "whole number"),
        ("0" * 5000 + "2000", "at most 1024"),  # int() refuses 5,000 digits
        ("9" * 5000, "more processes than evalrun starts"),
    ):
        result = score(str(trace), "--jobs", value)
        assert result.exit_code == 2, result.output
        assert says in " ".join(result.stderr.split()) and "Traceback" not in result.output
    # leading zeros are still the number they spell
    assert score(str(trace), "--jobs", "0" * 5000 + "1").exit_code in (0, 1)
    assert score(str(trace), "--jobs", "0000001").exit_code in (0, 1)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "evalrun.toml").write_text("jobs = 100000\n")
    result = score(str(trace))
    assert result.exit_code == 2 and "jobs must be a whole number" in result.stderr
    # the value quoted as the file writes it, not as Python prints it
    for written in ("true", '"4"', "1.5"):
        (tmp_path / "evalrun.toml").write_text(f"jobs = {written}\n")
        result = score(str(trace))
        assert result.exit_code == 2 and result.stderr.rstrip().endswith(f"not {written}")


def test_workers_are_no_more_than_the_batches_and_cpus(tmp_path, monkeypatch):
    import multiprocessing

    from evalrunner import scoring

    started: list[int] = []
    real = multiprocessing.get_context

    class Context:
        def __init__(self) -> None:
            self.ctx = real()

        def Pool(self, n, *args):
            started.append(n)
            return self.ctx.Pool(n, *args)

    monkeypatch.setattr(multiprocessing, "get_context", Context)
    monkeypatch.setattr(scoring, "available_cpus", lambda: 2)
    trace = tmp_path / "a.jsonl"
    trace.write_bytes(LINES[0])
    one = score(str(trace), "-f", "json", "--jobs", "200")
    assert one.exit_code == 0, one.output
    assert started in ([], [1])  # one line: one batch, one worker at most
    trace.write_bytes(b"".join(LINES) * 2000)
    many = score(str(trace), "-f", "json", "--jobs", "200")
    assert many.exit_code == 0 and started[-1] == 2
    assert json.loads(many.stdout)["summary"]["runs"] == len(LINES) * 2000


# ------------------------------------------------------------------- control sequences in data

OSC8 = "\x1b]8;;https://evil.example/\x07evalrun · 1 run · all passed\x1b]8;;\x07"
PAYLOADS = (
    "\x1b[2J\x1b[H",
    "\x1b]0;owned\x07",
    OSC8,
    "\u202efail\u202c",
    "\u2066x\u2069",
    "\x9b31m",
)
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u202c", "\u2066", "\u2069")


def _hostile_traces(folder: Path) -> Path:
    """Runs whose ids, unknown tools and meta.model carry every payload, in a file whose name
    holds one too."""
    folder.mkdir()
    lines = []
    for k, payload in enumerate(PAYLOADS):
        record = json.loads(LINES[2 + k % 3])
        record["run_id"] = f"r{k}{payload}"
        record["meta"] = {"model": f"m{payload}"}
        record["calls"].append({"tool": f"t{payload}", "args": {"x": payload}})
        lines.append(json.dumps(record, ensure_ascii=False))
    trace = folder / "a\x1b[2J.jsonl"
    trace.write_text("\n".join(lines) + "\nnot json \x1b[2J\n")
    return trace


def test_no_control_sequence_from_the_data_reaches_the_terminal(tmp_path):
    trace = _hostile_traces(tmp_path / "traces")
    outputs = [
        score(str(tmp_path / "traces"), "--show", "failures", "--group-by", "meta.model"),
        score(str(trace), "--show", "false-passes"),
        invoke("lint", *BASE, "--traces", str(tmp_path / "traces")),
        invoke("diff", *BASE, str(DATA / "traces" / "a.jsonl"), str(trace)),
        invoke("suggest", *BASE, str(trace)),
        score(str(tmp_path / "traces"), "-f", "markdown", "--group-by", "meta.model"),
    ]
    for result in outputs:
        assert result.exit_code in (0, 1), result.output
        text = result.stdout + result.stderr
        assert not any(c in text for c in RAW), [c for c in RAW if c in text]
    table = outputs[0].stdout
    assert "\\x1b[2J" in table and "\\u202e" in table  # shown, as error messages show them
    # a message shows BEL (and BS, VT, FF, CR) too, where rich's Text would drop it unsaid
    assert "t\\x1b]0;owned\\x07" in " ".join(outputs[0].stderr.split())
    markdown = outputs[-1].stdout.replace("\\\\", "\\")  # a backslash is escaped there
    assert "m\\x1b\\[2J\\x1b\\[H" in markdown and "\\u202efail\\u202c" in markdown


def test_text_of_the_data_is_escaped_before_the_layout():
    """diff's, lint's, suggest's and audit's renderers build rich Texts of the data: rich dropped
    BEL, BS, VT, FF and CR unsaid, and wrapped the rest before the console's escapes widened it,
    so audit's unscoreable lines lost words ("line is not valid JSON: invalid literal" printed
    as "line is not ... literal")."""
    import io

    from rich.table import Table

    from evalrunner.terminal import SafeConsole, SafeText

    out = io.StringIO()
    console = SafeConsole(file=out, width=40, color_system=None)
    error = "line is not valid JSON: invalid literal, expected 'null' \x1b[2J\x07\r"
    console.print(SafeText(f"  a\x1b]8;;x\x07.jsonl:7  {error}"))
    table = Table()
    table.add_column("id")
    table.add_row(SafeText.assemble(("r\x08\x0c", "bold"), "\u202e"))
    console.print(table)
    said = " ".join(out.getvalue().split())
    assert "a\\x1b]8;;x\\x07.jsonl:7" in said and "\\x1b[2J\\x07\\r" in said
    assert "line is not valid JSON: invalid literal, expected 'null'" in said
    assert "r\\x08\\x0c\\u202e" in said


def test_the_terminal_escapes_are_the_same_characters_in_re_as_in_regex():
    """terminal.py writes its classes for `re` (the regex module is left out of score's table);
    they must match exactly the code points the regex module's spelling, `\\p{Cs}` for the
    surrogates, matched, every one of them."""
    import re

    import regex

    from evalrunner import patterns, terminal

    assert patterns.DOTALL == regex.DOTALL  # patterns.py spells it without importing regex

    others = terminal._OTHERS.replace("\\ud800-\\udfff", "\\p{Cs}")
    assert others != terminal._OTHERS
    for ours, spelled in (
        (terminal._ANY, f"[\\x00-\\x1f{others}]"),
        (terminal._BUT_LAYOUT, f"[\\x00-\\x08\\x0b-\\x1f{others}]"),
    ):
        assert isinstance(ours, re.Pattern)
        theirs = regex.compile(spelled)
        every = "".join(map(chr, range(0x110000)))
        assert ours.findall(every) == theirs.findall(every)


# ---------------------------------------------------------------- no traceback, no exit 1


@pytest.mark.parametrize("fmt", ["table", "json", "jsonl", "html", "markdown", "junit"])
def test_a_trace_file_name_that_is_not_utf8_is_shown_escaped(tmp_path, fmt):
    folder = tmp_path / "t"
    folder.mkdir()
    name = os.fsdecode(b"b\xff.jsonl")
    (folder / name).write_bytes(b"".join(LINES) + b"not json\n")  # named where it is listed
    out = tmp_path / f"out.{fmt}"
    for target in (str(folder), str(folder / name)):
        result = score(target, "-f", fmt, "-o", str(out))
        assert result.exit_code == 0, result.output
        assert "b\\xff.jsonl" in out.read_text().replace("\\\\", "\\")


def test_a_link_loop_in_a_traces_folder_is_named_with_any_output(tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(b"".join(LINES))
    (folder / "x.jsonl").symlink_to("y.jsonl")
    (folder / "y.jsonl").symlink_to("x.jsonl")
    os.mkfifo(folder / "pipe.jsonl")
    (folder / "null.jsonl").symlink_to("/dev/null")
    for out in (tmp_path / "o.json", folder / "o.json"):
        result = score(str(folder), "-f", "json", "-o", str(out))
        assert result.exit_code == 0, result.output
        said = " ".join(result.stderr.split())
        assert "x.jsonl: a link that loops" in said
        assert "pipe.jsonl: a named pipe (FIFO)" in said
        assert "null.jsonl: a link to a device" in said


def test_the_same_file_named_twice_is_read_once(tmp_path):
    trace = tmp_path / "a.jsonl"
    trace.write_bytes(b"".join(LINES))
    result = score(str(trace), str(tmp_path), str(tmp_path / "." / "a.jsonl"), "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["summary"]["runs"] == len(LINES)
    assert "named more than once: read once" in result.stderr


def _saved(tmp_path: Path) -> dict:
    trace = tmp_path / "a.jsonl"
    trace.write_bytes(b"".join(LINES))
    return json.loads(score(str(trace), "-f", "json").stdout)


@pytest.mark.parametrize(
    ("path", "value", "says"),
    [
        (("runs", 0, "calls", 0, "index"), "x", "runs[0].calls[0].index"),
        (("runs", 1, "verdict"), 7, "runs[1].verdict"),
        (("runs", 0, "reported"), [], "runs[0].reported"),
        (("summary", "verdicts"), None, "summary.verdicts"),
        (("summary", "by_tool"), {"a": 1}, "summary.by_tool"),
        (("runs", 2, "shapes"), "encoding", "runs[2].shapes"),
    ],
)
@pytest.mark.parametrize("fmt", ["html", "markdown", "junit"])
def test_report_on_results_of_wrong_types_exits_2_naming_the_key(tmp_path, path, value, says, fmt):
    doc = _saved(tmp_path)
    target = doc
    for p in path[:-1]:
        target = target[p]
    target[path[-1]] = value
    saved = tmp_path / "r.json"
    saved.write_text(json.dumps(doc))
    result = invoke("report", str(saved), "-f", fmt, "-o", str(tmp_path / "out"))
    assert result.exit_code == 2, result.output
    assert says in " ".join(result.stderr.split()) and "Traceback" not in result.output
    doc["evalrun"] = "99.0.0"
    saved.write_text(json.dumps(doc))
    result = invoke("report", str(saved), "-f", fmt, "-o", str(tmp_path / "out"))
    assert "written by evalrun 99.0.0, newer than this one" in " ".join(result.stderr.split())


# ------------------------------------------------------------------- patterns with a bound


def test_the_built_in_error_patterns_are_linear_on_a_large_reply():
    from evalrunner.traces.errors import FRAMEWORK_ERRORS, ErrorPatterns

    patterns = ErrorPatterns()
    for e in FRAMEWORK_ERRORS:  # each still knows its framework's text
        calls = [{"result": e.example.replace("\\n", "\n")}]
        patterns.mark(calls, builtin=True)
        assert calls[0].get("is_error") is True, e.framework
    for head in ("Error invoking tool 'x' with kwargs ", "Error: ", "Error: x"):
        reply = head + " with error:\n is not a valid tool, try one of [" * 20_000 + "a" * 960_000
        started = time.monotonic()
        patterns.mark([{"result": reply}], builtin=True, source="f:1")
        assert time.monotonic() - started < 0.5
    assert patterns.take_timeouts() == []


def test_a_catastrophic_user_pattern_is_bounded_and_named(tmp_path):
    record = json.loads(LINES[0])
    record["calls"][0]["result"] = "a" * 40 + "!"
    trace = tmp_path / "a.jsonl"
    trace.write_text((json.dumps(record) + "\n") * 5)
    started = time.monotonic()
    result = score(str(trace), "--error-pattern", "^(a|aa)+$", "-f", "json")
    assert time.monotonic() - started < 10
    assert result.exit_code == 0, result.output
    said = " ".join(result.stderr.split())
    assert f"{trace}:1: the error pattern '^(a|aa)+$' took over" in said
    assert "no longer searched" in said and f"{trace}:5" not in said
    doc = json.loads(result.stdout)
    assert doc["summary"]["runs"] == 5 and doc["runs"][0]["calls"][0]["label"] != "errored"


@pytest.mark.parametrize(
    "text",
    ["\n" * 20_000, " \n" * 10_000, "Calling tools:" + " " * 19_980, "Action:" * 2_857],
    ids=["newlines", "blank-lines", "calling-tools-spaces", "actions-on-one-line"],
)
def test_the_text_conventions_guard_is_linear_on_long_strings(tmp_path, text):
    """A record with no call is searched for calls written as text, in every string: 20 strings
    of 20,000 newlines took 30 s for an 800 KB line."""
    record = {"case_id": "retry", "messages": [{"role": "user", "content": text}] * 20}
    trace = tmp_path / "t.jsonl"
    trace.write_text(json.dumps(record) + "\n")
    started = time.monotonic()
    result = score(str(trace), "-f", "json")
    assert time.monotonic() - started < 5
    doc = json.loads(result.stdout)
    assert doc["summary"]["runs"] + doc["summary"]["unscoreable"] == 1, doc["errors"]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Thought: x\n\n  Action: get\n\n\n Action Input: {}", True),
        ("Action\n: get\nAction Input: {}", True),
        ("x Action: get\nAction Input: {}", False),
        ("Calling tools:\n\n [{}]", True),
    ],
)
def test_the_text_conventions_still_read_as_they_did(text, found):
    from evalrunner.traces.reader import _call_like

    said = _call_like({"messages": [{"role": "assistant", "content": text}]})
    assert (said is not None and "a call convention evalrun does not parse" in said) is found


def test_the_encodings_suggest_reads_are_linear_on_long_values():
    from evalrunner.suggest.encodings import encoding_of

    started = time.monotonic()
    for value in ("1d" + " " * 20_000 + "x", "1d" + " " * 10_000 + "1h" + " " * 10_000 + "x"):
        assert encoding_of(value) == "other string"  # 36 s for 1,000 spaces before
    assert time.monotonic() - started < 1
    assert encoding_of("1d 2h  30m 5s") == "duration shorthand (1h30m)"
    assert encoding_of("1h ") == "duration shorthand (1h30m)"
    assert encoding_of("1s ") == "other string"  # no space after the last unit, as before


# ------------------------------------------------------- git revisions read raw, attributes off


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def attributes_repo(tmp_path, monkeypatch):
    """A repository whose second commit adds failing runs behind `export-ignore` and a filter
    that would run a program."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = tmp_path / "repo"
    root.mkdir()
    for name in ("tools", "cases"):
        shutil.copytree(DATA / name, root / name)
    (root / "traces").mkdir()
    (root / "traces" / "a.jsonl").write_bytes(b"".join(LINES[:2]))
    _git(root, "init", "-q")
    _git(root, "config", "user.name", "Test")
    _git(root, "config", "user.email", "test@example.com")
    _git(root, "config", "commit.gpgsign", "false")
    _git(root, "config", "filter.evil.smudge", f"touch {tmp_path / 'RAN'}; cat")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "one")
    (root / ".gitattributes").write_text("traces/b.jsonl export-ignore\n*.jsonl filter=evil\n")
    (root / "traces" / "b.jsonl").write_bytes(LINES[2] * 5)  # failing runs
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "two")
    monkeypatch.chdir(root)
    return root


GIT_EVALS = ["--tools", "tools", "--cases", "cases", "--traces", "traces"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git")
def test_a_revision_is_read_without_its_gitattributes(attributes_repo, tmp_path):
    result = invoke("diff", "HEAD~1", "HEAD", *GIT_EVALS, "--format", "json")
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    assert doc["new"]["summary"]["runs"] == 7  # b.jsonl is not hidden by export-ignore
    assert not (tmp_path / "RAN").exists()  # no smudge filter ran


@pytest.mark.skipif(shutil.which("git") is None, reason="git")
@pytest.mark.parametrize("kind", ["submodule", "lfs"])
def test_a_submodule_or_lfs_pointer_under_a_path_is_named(attributes_repo, kind):
    root = attributes_repo
    if kind == "submodule":
        head = _git(root, "rev-parse", "HEAD")
        _git(root, "update-index", "--add", "--cacheinfo", f"160000,{head},traces/sub")
        named = "traces/sub is a git submodule"
    else:
        pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:" + "0" * 64
        (root / "traces" / "c.jsonl").write_text(pointer + "\nsize 1234\n")
        _git(root, "add", "traces/c.jsonl")
        named = "traces/c.jsonl is a Git LFS pointer"
    _git(root, "commit", "-q", "-m", "three")
    result = invoke("diff", "HEAD~1", "HEAD", *GIT_EVALS, "--format", "json")
    assert result.exit_code == 2, result.output
    assert named in " ".join(result.stderr.split())


@pytest.mark.skipif(shutil.which("git") is None, reason="git")
def test_a_committed_link_under_a_path_is_named_not_left_out(attributes_repo):
    """A symbolic link in a revision is not followed (it may lead outside the revision); it was
    left out of the scoring without a word."""
    root = attributes_repo
    (root / "traces" / "c.jsonl").symlink_to("a.jsonl")
    _git(root, "add", "traces/c.jsonl")
    _git(root, "commit", "-q", "-m", "three")
    result = invoke("diff", "HEAD~1", "HEAD", *GIT_EVALS, "--format", "json")
    assert result.exit_code == 2, result.output
    assert "traces/c.jsonl is a symbolic link" in " ".join(result.stderr.split())


# ------------------------------------------------------------------------------ smaller ones


def test_a_gzip_of_blank_lines_is_counted_in_bulk(tmp_path):
    trace = tmp_path / "blank.jsonl.gz"
    with gzip.open(trace, "wb", compresslevel=9) as f:
        f.write(LINES[0])
        for _ in range(64):
            f.write(b"\n" * 2**20)
        f.write(LINES[1])
    for jobs in ("1", "2"):
        started = time.monotonic()
        result = score(str(trace), "-f", "json", "--jobs", jobs)
        assert time.monotonic() - started < 20
        assert result.exit_code == 0, result.output
        doc = json.loads(result.stdout)
        assert doc["summary"]["runs"] == 2
        assert doc["runs"][1]["source"] == f"{trace}:{64 * 2**20 + 2}"


def test_jsonl_output_escapes_the_unicode_line_separators(tmp_path):
    record = json.loads(LINES[0])
    record["run_id"] = "r\u2028x\u2029y"
    trace = tmp_path / "a.jsonl"
    trace.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    out = score(str(trace), "-f", "jsonl").stdout_bytes
    assert "\u2028".encode() not in out and "\u2029".encode() not in out
    lines = out.decode().splitlines()  # str.splitlines breaks at U+2028: none is left
    assert len(lines) == 2 and json.loads(lines[0])["run_id"] == "r\u2028x\u2029y"


def test_the_settings_search_stops_at_the_repository_root(tmp_path, monkeypatch):
    from evalrunner.read.settings import find

    project = tmp_path / "outer" / "project"
    (project / "src").mkdir(parents=True)
    (project / ".git").mkdir()
    (tmp_path / "outer" / "evalrun.toml").write_text('tools = "elsewhere"\n')
    (tmp_path / "outer" / "pyproject.toml").write_text("not toml [\n")
    assert find(project / "src") is None  # neither the settings nor the broken file above
    (project / "pyproject.toml").write_text('[tool.evalrun]\ncases = "c"\n')
    assert find(project / "src") == project / "pyproject.toml"
    # outside a repository, never from a folder others may write to (/tmp)
    shared = tmp_path / "shared"
    (shared / "p").mkdir(parents=True)
    shared.chmod(0o777)
    (shared / "evalrun.toml").write_text('tools = "t"\n')
    assert find(shared / "p") is None
    # a file used from above the current folder is said
    (project / "pyproject.toml").write_text(
        f'[tool.evalrun]\ntools = "{DATA / "tools"}"\ncases = "{DATA / "cases"}"\n'
    )
    trace = tmp_path / "a.jsonl"
    trace.write_bytes(b"".join(LINES))
    monkeypatch.chdir(project / "src")
    result = invoke("score", str(trace))
    assert result.exit_code == 0, result.output
    assert f"settings: {project / 'pyproject.toml'}" in " ".join(result.stderr.split())


@pytest.mark.parametrize(("signum", "code"), [(15, 143), (1, 129)], ids=["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_end_as_ctrl_c_does(tmp_path, signum, code):
    from tests.test_hostile_inputs import _open_writer

    previous = tmp_path / "prev.json"
    previous.write_text("the previous results")
    fifo = tmp_path / "stdin-never-ends"
    os.mkfifo(fifo)
    proc = subprocess.Popen(
        [sys.executable, "-m", "evalrunner", "score", *BASE, str(fifo), "-o", str(previous)],
        stderr=subprocess.PIPE,
    )
    writer = _open_writer(fifo)
    os.write(writer, LINES[0])
    time.sleep(0.5)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    os.close(writer)
    assert proc.returncode == code
    said = " ".join(err.decode().split())
    assert "interrupted" in said and "was not written (it is as it was)" in said
    assert previous.read_text() == "the previous results"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["prev.json", fifo.name])


# ------------------------------------------------------------------ unordered matching, bounded

SEARCH = {
    "tool": "search_invoices",
    "args": {"customer_id": "C-4471", "month": "2026-03", "status": ["open", "disputed"]},
}
EQUIVALENT = {
    "tool": "search_invoices",
    "args": {"customer_id": "C-4471", "month": "2026-03-01", "status": ["disputed", "open"]},
}


def _unordered(tmp_path: Path, steps: int, calls: int) -> tuple[Path, Path]:
    cases = tmp_path / "cases"
    cases.mkdir(exist_ok=True)
    case = {"id": "big", "input": "x", "match": "unordered", "accept": [[SEARCH] * steps]}
    (cases / "c.json").write_text(json.dumps([case]))
    trace = tmp_path / f"{calls}.jsonl"
    trace.write_text(json.dumps({"run_id": "r", "case_id": "big", "calls": [EQUIVALENT] * calls}))
    return cases, trace


@pytest.mark.parametrize(("calls", "steps"), [(1200, 400), (3000, 1000), (400, 400)])
def test_unordered_matching_of_many_equal_calls_is_fast(tmp_path, calls, steps):
    cases, trace = _unordered(tmp_path, steps, calls)
    started = time.monotonic()
    result = invoke("score", "--tools", str(DATA / "tools"), "--cases", str(cases), str(trace))
    assert time.monotonic() - started < 15
    result = invoke(
        "score", "--tools", str(DATA / "tools"), "--cases", str(cases), str(trace), "-f", "json"
    )
    assert result.exit_code == 0, result.output
    run = json.loads(result.stdout)["runs"][0]
    labels = [c["label"] for c in run["calls"]]
    assert labels.count("equivalent") == steps and labels.count("redundant") == calls - steps
    assert labels[:steps] == ["equivalent"] * steps  # the earliest calls fill the steps
    assert run["verdict"] == ("false_failure" if calls == steps else "fail")


def test_alignment_past_its_bound_is_unscoreable_and_said(tmp_path, monkeypatch):
    from evalrunner.grade import trajectory

    n = 400
    staircase = [[1 if j <= i else 0 for j in range(n)] for i in range(n)]  # nothing reduces
    with pytest.raises(trajectory.AlignmentTooLarge, match="too large to align"):
        trajectory.align(staircase, n, ordered=False)
    monkeypatch.setattr(trajectory, "_by_key", lambda sub, m: None)
    monkeypatch.setattr(trajectory, "ALIGN_WORK", 10)
    cases, trace = _unordered(tmp_path, 40, 50)
    result = invoke(
        "score", "--tools", str(DATA / "tools"), "--cases", str(cases), str(trace), "-f", "json"
    )
    doc = json.loads(result.stdout)
    assert doc["summary"]["unscoreable"] == 1 and doc["summary"]["runs"] == 0
    # 50 calls, 10 of them repeats: the labelling alignment holds every copy, since the repeat
    # drop keeps the copies a match needs (SPEC "Precise readings")
    assert "too large to align: 50 calls against 40 steps" in doc["errors"][0]["error"]


JUDGED = {**SEARCH, "judge": {"customer_id": {"matches": "C-"}}}
"""A judged step: its case is graded pairwise, every call against every step and earlier call."""


@pytest.mark.parametrize(("calls", "steps", "scored"), [(300, 100, False), (30, 10, True)])
def test_pairwise_grading_past_its_bound_is_unscoreable_and_said(tmp_path, calls, steps, scored):
    cases = tmp_path / "cases"
    cases.mkdir()
    case = {"id": "big", "input": "x", "match": "unordered", "accept": [[JUDGED] * steps]}
    (cases / "c.json").write_text(json.dumps([case]))
    trace = tmp_path / "t.jsonl"
    trace.write_text(json.dumps({"run_id": "r", "case_id": "big", "calls": [EQUIVALENT] * calls}))
    started = time.monotonic()
    result = invoke(
        "score", "--tools", str(DATA / "tools"), "--cases", str(cases), str(trace), "-f", "json"
    )
    assert time.monotonic() - started < 15  # 22 s for 300 x 100 before the bound
    doc = json.loads(result.stdout)
    if scored:
        assert result.exit_code == 0 and doc["summary"]["runs"] == 1
        labels = [c["label"] for c in doc["runs"][0]["calls"]]
        assert labels.count("equivalent") == steps and labels.count("redundant") == calls - steps
        return
    assert result.exit_code == 2 and doc["summary"]["unscoreable"] == 1
    assert doc["errors"][0]["error"] == (
        f"too large to align: {calls} calls against {steps} steps compared pair by pair (a judged "
        "step, or a rule that compares pairs) is more work than one run is given (1,000,000 "
        "comparisons)"
    )


# ------------------------------------------------------------------- tampered audit sheets


def _swap_stratum(header, runs):
    runs[0]["stratum"] = {"reported_fail": "reported_pass", "reported_pass": "reported_fail"}[
        runs[0]["stratum"]
    ]
    return 2


def _population(header, runs):
    header["population"]["reported_failures"] += 5
    header["population"]["runs"] += 5
    return 1


def _seed(header, runs):
    header["seed"] = 2
    return None  # some line is not drawn by seed 2


def _digest(header, runs):
    header["digest"] = "0" * 64
    return 1


def _calls(header, runs):
    runs[1]["calls"] = [{"tool": "get_customer", "args": {"customer_id": "C-1"}}]
    return 3


def _world(header, runs):
    runs[1]["world"] = {"refunds": [{"invoice": "X", "cents": 1}]}
    return 3


@pytest.mark.parametrize(
    "tamper",
    [_swap_stratum, _population, _seed, _digest, _calls, _world],
    ids=["stratum", "population", "seed", "digest", "calls", "world"],
)
def test_a_tampered_audit_sheet_is_refused_naming_its_line(audit_corpus, tamper):
    from tests.test_audit_cli import label, read, run, sample, write

    sample("--failures", "2", "--passes", "2", "--seed", "1")
    label({r: "correct" for r in ["r1", "r2", "r3", "r4", "r5", "r6", "r8"]})
    header, runs = read()
    assert run("score", "sheet.jsonl").exit_code == 0  # as sampled, it scores
    line = tamper(header, runs)
    write(header, runs)
    result = run("score", "sheet.jsonl", "--format", "json")
    assert result.exit_code == 2, result.output
    said = " ".join(result.stderr.split())
    assert "edited" in said and "Traceback" not in result.output
    if line is not None:
        assert f"sheet.jsonl:{line}:" in said


def test_a_run_the_seed_never_drew_is_refused(audit_corpus):
    from tests.test_audit_cli import read, run, sample, write

    sample("--failures", "4", "--passes", "3", "--seed", "1", output="all.jsonl")
    sample("--failures", "1", "--passes", "1", "--seed", "1")
    header, runs = read()
    _, everything = read("all.jsonl")
    extra = next(r for r in everything if r["run_id"] not in {x["run_id"] for x in runs})
    write(header, [*runs, extra])
    result = run("score", "sheet.jsonl")
    assert result.exit_code == 2, result.output
    assert "sheet.jsonl:4:" in result.stderr and "not a run that seed 1 draws" in " ".join(
        result.stderr.split()
    )


@pytest.fixture
def audit_corpus(tmp_path, monkeypatch):
    for name in ("tools", "cases", "traces"):
        shutil.copytree(DATA / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_gzip_that_expands_past_the_bound_is_reported_where_it_stops(tmp_path):
    trace = tmp_path / "bomb.jsonl.gz"
    with gzip.open(trace, "wb") as f:
        f.write(LINES[0] + b"\n" * 2**22 + LINES[1])
    for jobs in ("1", "2"):
        args = [str(trace), "-f", "json", "--max-expanded-bytes", str(2**20), "--jobs", jobs]
        result = score(*args)
        doc = json.loads(result.stdout)
        assert doc["summary"]["runs"] == 1 and doc["summary"]["unscoreable"] == 1
        assert "--max-expanded-bytes raises the bound" in doc["errors"][0]["error"]
    assert json.loads(score(str(trace), "-f", "json").stdout)["summary"]["runs"] == 2
