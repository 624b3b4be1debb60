"""evalrun under hostile inputs (issue 14): nothing lost, nothing destroyed, nothing hangs.

Each test failed before its fix: the output destroyed the input, a results file in the traces
folder was read back forever, one deep line or one huge line took the run down, integers beyond
64 bits compared equal, a BOM made line 1 unscoreable, names were read as Rich markup, a write
error or a closed pipe gave a traceback or the threshold's exit code.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalrunner import Reading, TraceError, read_runs
from evalrunner.cli import app
from evalrunner.jsonvalue import RECORD_DEPTH

DATA = Path(__file__).parent / "data" / "cli"
BASE = ["--tools", str(DATA / "tools"), "--cases", str(DATA / "cases")]
LINES = (DATA / "traces" / "a.jsonl").read_bytes().splitlines(keepends=True)
EVALRUN = [sys.executable, "-m", "evalrunner"]


def score(*args: str):
    return CliRunner().invoke(app, ["score", *BASE, *args], env={"COLUMNS": "100"})


def run_cli(*args: str, stdout: object = subprocess.PIPE):
    return subprocess.run(
        [*EVALRUN, "score", *BASE, *args], stdout=stdout, stderr=subprocess.PIPE, timeout=120
    )


# ------------------------------------------------------------------------------ the output


def test_an_output_that_is_an_input_is_refused_and_the_input_kept(tmp_path):
    trace = tmp_path / "a.jsonl"
    trace.write_bytes(b"".join(LINES))
    link = tmp_path / "link.jsonl"
    link.symlink_to(trace)
    for out in (str(trace), str(tmp_path / "." / "a.jsonl"), str(link)):
        result = score(str(trace), "-f", "json", "-o", out)
        assert result.exit_code == 2
        assert "is one of the inputs" in result.stderr
    assert trace.read_bytes() == b"".join(LINES)


def test_jsonl_output_inside_the_scored_folder_is_never_read_back(tmp_path):
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "a.jsonl").write_bytes(b"".join(LINES))
    out = traces / "results.jsonl"
    first = score(str(traces), "-f", "jsonl", "-o", str(out))
    assert first.exit_code == 0, first.output
    size = out.stat().st_size
    second = score(str(traces), "-f", "jsonl", "-o", str(out))  # the results file is there now
    assert second.exit_code == 0, second.output
    assert out.stat().st_size == size  # the same runs, not the results scored as traces
    assert "warning" not in second.stderr  # the output being written is no input to speak of
    # Another results file in the folder is named and left out.
    out.rename(traces / "old-results.jsonl")
    third = score(str(traces), "-f", "jsonl", "-o", str(tmp_path / "new.jsonl"))
    assert third.exit_code == 0, third.output
    said = f"warning: {traces / 'old-results.jsonl'}: evalrun's own results"
    assert said in " ".join(third.stderr.split())


def test_results_lines_among_traces_are_named_not_scored(tmp_path):
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "a.jsonl").write_bytes(b"".join(LINES))
    results = score(str(traces), "-f", "jsonl").stdout.splitlines()
    mixed = traces / "b.jsonl"
    mixed.write_text(LINES[0].decode() + results[0] + "\n")  # a run, then a results record
    items = list(read_runs([mixed]))
    assert not isinstance(items[0], TraceError)
    assert isinstance(items[1], TraceError) and "evalrun results record" in items[1].error


def test_a_failed_scoring_leaves_the_previous_output_as_it_was(tmp_path):
    previous = tmp_path / "prev.json"
    previous.write_text("the previous results")
    result = score(str(tmp_path / "no_such_dir"), "-f", "json", "-o", str(previous))
    assert result.exit_code == 2
    assert previous.read_text() == "the previous results"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prev.json"]  # no temporary file left


@pytest.mark.parametrize(
    "command",
    [
        ["score", *BASE, "{traces}", "-f", "json"],
        ["lint", *BASE, "--traces", "{traces}", "--format", "json"],
        ["suggest", *BASE, "{traces}", "--format", "json"],
        ["audit", "sample", *BASE, "{traces}", "--failures", "1", "--passes", "1", "--seed", "1"],
        ["diff", *BASE, "{traces}", "{traces}", "--format", "json"],
    ],
    ids=["score", "lint", "suggest", "audit", "diff"],
)
def test_an_output_over_a_trace_file_of_an_input_folder_is_refused(tmp_path, command):
    """Any command that reads a traces folder refuses to write its output over a trace file in
    it (it was left out of the reading, then replaced by the results)."""
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "a.jsonl").write_bytes(b"".join(LINES[:2]))
    (traces / "b.jsonl").write_bytes(b"".join(LINES[2:]))
    args = [a.replace("{traces}", str(traces)) for a in command]
    result = CliRunner().invoke(app, [*args, "-o", str(traces / "b.jsonl")])
    assert result.exit_code == 2, result.output
    assert "is read as input (it is in the folder" in " ".join(result.stderr.split())
    assert (traces / "b.jsonl").read_bytes() == b"".join(LINES[2:])
    # a new file there is written; so is score's own results file again (it is never read),
    # while another command's output, read as a trace file the next time, is refused then
    out = traces / "results.jsonl"
    result = CliRunner().invoke(app, [*args, "-o", str(out)])
    assert result.exit_code == 0, result.output
    again = CliRunner().invoke(app, [*args, "-o", str(out)])
    assert again.exit_code == (0 if command[0] == "score" else 2), again.output


@pytest.mark.parametrize("command", ["score", "lint", "suggest"])
def test_an_output_over_or_among_the_tool_and_case_files_is_refused(tmp_path, command):
    """A tool or case file named as --output, or a new .json among them (read as a tool or a
    case the next time), is refused: the next run would fail on the results."""
    shutil.copytree(DATA, tmp_path / "d")
    tools, cases = tmp_path / "d" / "tools", tmp_path / "d" / "cases"
    before = {p: p.read_bytes() for p in (*tools.iterdir(), *cases.iterdir())}
    traces = str(tmp_path / "d" / "traces")
    for out in (tools / "billing.json", cases / "c.json", tools / "new.json", cases / "n.jsonl"):
        args = ["--tools", str(tools), "--cases", str(cases), "-o", str(out)]
        args += ["--traces", traces] if command == "lint" else [traces]
        result = CliRunner().invoke(app, [command, *args])
        assert result.exit_code == 2, result.output
        assert "tools and cases are read from" in " ".join(result.stderr.split())
    assert {p: p.read_bytes() for p in (*tools.iterdir(), *cases.iterdir())} == before


@pytest.mark.parametrize("strict", [False, True], ids=["nothing-scored", "strict"])
def test_an_exit_2_leaves_the_previous_output_as_it_was(tmp_path, strict):
    """No run scored, or --strict with an unreadable line: exit 2 after reading, and the last
    good results file is kept (a failure never replaces it with an empty or partial one)."""
    previous = tmp_path / "prev.json"
    previous.write_text("the previous results")
    trace = tmp_path / "t.jsonl"
    trace.write_bytes(b"".join(LINES) + b"not json\n" if strict else b"not json\n")
    args = [str(trace), "-f", "json", "-o", str(previous)] + (["--strict"] if strict else [])
    result = score(*args)
    assert result.exit_code == 2
    assert previous.read_text() == "the previous results"
    assert f"{previous} was not written (it is as it was)" in " ".join(result.stderr.split())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prev.json", "t.jsonl"]
    # to standard output the document is still written, for a pipe to read what went wrong
    assert json.loads(score(*args[:3], *args[5:]).stdout)["errors"]


def test_an_interrupt_leaves_the_previous_output_and_says_so(tmp_path):
    previous = tmp_path / "prev.json"
    previous.write_text("the previous results")
    fifo = tmp_path / "stdin-never-ends"
    os.mkfifo(fifo)
    proc = subprocess.Popen(
        [*EVALRUN, "score", *BASE, str(fifo), "-f", "json", "-o", str(previous)],
        stderr=subprocess.PIPE,
    )
    writer = _open_writer(fifo)  # the reader has it open: scoring has begun
    os.write(writer, LINES[0])
    proc.send_signal(2)  # Ctrl-C
    _, err = proc.communicate(timeout=60)
    os.close(writer)
    assert proc.returncode == 130
    assert b"interrupted" in err
    assert previous.read_text() == "the previous results"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["prev.json", fifo.name])


def test_an_interrupt_a_finalizer_dropped_still_stops_the_next_read(monkeypatch):
    """Python runs a signal handler wherever it is, finalizers too, and drops what one raises
    there: the handler notes the signal before it raises, and a read of a trace stream raises
    it again rather than wait on a pipe whose writer stays open."""
    import contextlib
    import io

    from evalrunner import cli, interrupts
    from evalrunner.traces.lines import read_blocks

    monkeypatch.setattr(interrupts, "PENDING", [])
    assert list(read_blocks("t.jsonl", io.BytesIO(LINES[0]))) == [(1, LINES[0])]
    with pytest.raises(KeyboardInterrupt):
        cli._on_interrupt(2, None)
    assert interrupts.PENDING == [2]

    class Dropped:  # what a finalizer makes of the KeyboardInterrupt: nothing
        def __del__(self):
            with contextlib.suppress(KeyboardInterrupt):
                cli._on_interrupt(2, None)

    monkeypatch.setattr(interrupts, "PENDING", [])
    Dropped()
    with pytest.raises(KeyboardInterrupt):
        list(read_blocks("t.jsonl", io.BytesIO(LINES[0])))


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no interval timer here")
def test_a_read_waiting_on_a_pipe_wakes_for_an_interrupt_that_came_before_it(monkeypatch):
    """A signal after `read_blocks`' check and before the read's system call begins is handled
    only once the call returns, and a pipe whose writer says nothing never lets it: the read is
    woken every `interrupts.TICK` seconds, and the interrupt noted then stops it."""
    import threading

    from evalrunner import interrupts

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers run in the main thread only")
    monkeypatch.setattr(interrupts, "PENDING", [])
    monkeypatch.setattr(interrupts, "_WATCHING", [])
    previous = signal.getsignal(signal.SIGALRM)
    r, w = os.pipe()
    # the writer says something after 10 s: without the wake-up the read returns it, and fails
    rescue = threading.Timer(10.0, os.write, (w, b"{}\n"))
    rescue.start()
    stream = os.fdopen(r, "rb")
    try:
        interrupts.watch()
        assert interrupts.may_block(stream)

        def read(n: int) -> bytes:
            interrupts.PENDING.append(2)  # the interrupt, come (and its handler dropped) just now
            return stream.read1(n)

        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            interrupts.woken(read, 1024)
        assert time.monotonic() - started < 5
    finally:
        rescue.cancel()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        stream.close()
        os.close(w)


def test_only_a_stream_that_can_wait_is_woken(tmp_path):
    import io

    from evalrunner import interrupts
    from evalrunner.traces.spool import spool_stdin

    (tmp_path / "t.jsonl").write_bytes(b"{}\n")
    r, w = os.pipe()
    os.write(w, b"{}\n")
    with open(tmp_path / "t.jsonl", "rb") as regular, os.fdopen(r, "rb") as pipe:
        assert not interrupts.may_block(regular)
        assert interrupts.may_block(pipe)
        assert not interrupts.may_block(io.BytesIO(b"{}\n"))
        with spool_stdin(pipe) as stdin:  # standard input, its first block read already
            assert interrupts.may_block(stdin)
    os.close(w)


def _open_writer(fifo: Path, wait: float = 60.0) -> int:
    deadline = time.monotonic() + wait
    while True:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # no reader yet
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def test_a_write_error_is_one_line_and_exit_2():
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    with open("/dev/full", "wb") as full:
        done = run_cli(str(DATA / "traces"), "-f", "json", stdout=full)
    assert done.returncode == 2
    assert done.stderr.decode().strip().splitlines()[-1] == (
        "error: cannot write the output: No space left on device"
    )
    assert b"Traceback" not in done.stderr


@pytest.mark.parametrize("fmt", ["table", "jsonl"])
def test_a_closed_pipe_is_quiet_and_never_exit_1_or_2(tmp_path, fmt):
    big = tmp_path / "big.jsonl"
    big.write_bytes(b"".join(LINES) * 3000)  # more than a pipe holds
    proc = subprocess.Popen(
        [*EVALRUN, "score", *BASE, str(big), "-f", fmt],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 141
    assert b"Traceback" not in err and b"Broken pipe" not in err


# ------------------------------------------------------------------------------ the lines


def test_a_bom_is_no_part_of_the_first_line(tmp_path):
    trace = tmp_path / "a.jsonl"
    trace.write_bytes(b"\xef\xbb\xbf" + b"".join(LINES))
    items = list(read_runs([trace]))
    assert not any(isinstance(i, TraceError) and i.source.endswith(":1") for i in items)


def test_a_line_longer_than_the_bound_is_reported_and_never_held(tmp_path):
    trace = tmp_path / "a.jsonl.gz"
    huge = b'{"case_id": "refund-dana-march", "calls": [], "pad": "' + b"x" * 5_000_000 + b'"}\n'
    trace.write_bytes(gzip.compress(LINES[0] + huge + LINES[1]))
    items = list(read_runs([trace], reading=Reading(max_line_bytes=1_000_000)))
    assert [type(i).__name__ for i in items] == ["Run", "TraceError", "Run"]
    assert items[1].source.endswith(":2")
    assert "the line is 5,000,056 bytes, longer than the 1,000,000 evalrun reads" in items[1].error
    result = score(str(trace), "-f", "json", "--max-line-bytes", "1000000")
    assert json.loads(result.stdout)["summary"]["unscoreable"] == 1


def test_a_deep_line_is_unscoreable_and_the_rest_scored(tmp_path):
    deep = {"run_id": "deep", "case_id": "refund-dana-march", "calls": []}
    value: object = "x"
    for _ in range(300):
        value = [value]
    deep["world"] = value
    trace = tmp_path / "a.jsonl"
    trace.write_bytes(LINES[0] + json.dumps(deep).encode() + b"\n" + LINES[1])
    result = score(str(trace), "-f", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [r["run_id"] for r in doc["runs"]] == ["r1", "r2"]
    [error] = doc["errors"]
    assert error["source"].endswith(":2")
    assert f"nested more than {RECORD_DEPTH} levels deep" in error["error"]


def test_integers_beyond_64_bits_are_compared_exactly(tmp_path):
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"name": "pay", "parameters": {"type": "object"}}))
    cases = tmp_path / "cases.json"
    expected = {"tool": "pay", "args": {"n": 18446744073709551616}}
    cases.write_text(json.dumps({"id": "c", "accept": [[expected]]}))
    trace = tmp_path / "a.jsonl"
    trace.write_text(
        '{"run_id": "same", "case_id": "c", "calls": [{"tool": "pay", "args": {"n": '
        "18446744073709551616}}]}\n"
        '{"run_id": "off-by-one", "case_id": "c", "calls": [{"tool": "pay", "args": {"n": '
        "18446744073709551617}}]}\n"
    )
    result = CliRunner().invoke(
        app, ["score", str(trace), "--tools", str(tools), "--cases", str(cases), "-f", "json"]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert {r["run_id"]: r["verdict"] for r in doc["runs"]} == {
        "same": "pass",
        "off-by-one": "fail",
    }
    # written as the numbers they are, not as floats or strings
    assert '"actual":18446744073709551617' in result.stdout


@pytest.mark.parametrize("big", [2**64 + 1, -(2**63) - 2], ids=["above", "below"])
@pytest.mark.parametrize("case_file", ["cases.json", "cases.jsonl"])
@pytest.mark.parametrize("as_text", [False, True], ids=["args-object", "args-string"])
def test_big_integers_are_exact_in_case_files_tool_files_and_argument_strings(
    tmp_path, case_file, as_text, big
):
    """Case and tool files and `arguments` strings are read as exactly as trace lines: 2**64 + 1
    is not 2**64 (orjson alone makes both the same float), nor -2**63 - 2 its neighbour."""
    tools = tmp_path / "tools.json"
    props = {"n": {"type": "integer"}, "m": {"type": "integer", "default": big}}
    tools.write_text(
        json.dumps({"name": "pay", "parameters": {"type": "object", "properties": props}})
    )
    cases = tmp_path / case_file
    cases.write_text(json.dumps({"id": "c", "accept": [[{"tool": "pay", "args": {"n": big}}]]}))

    def line(run_id: str, args: dict) -> str:
        payload = json.dumps(args) if as_text else args
        call = {"tool": "pay", "args": payload}
        return json.dumps({"run_id": run_id, "case_id": "c", "calls": [call]}) + "\n"

    trace = tmp_path / "a.jsonl"
    trace.write_text(
        line("same", {"n": big})
        + line("one-less", {"n": big - 1})
        + line("default-stated", {"n": big, "m": big})
        + line("default-one-less", {"n": big, "m": big - 1})
    )
    result = CliRunner().invoke(
        app, ["score", str(trace), "--tools", str(tools), "--cases", str(cases), "-f", "json"]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert {r["run_id"]: r["true"]["pass"] for r in doc["runs"]} == {
        "same": True,
        "one-less": False,
        "default-stated": True,
        "default-one-less": False,
    }


def test_links_to_nothing_under_a_traces_folder_are_named(tmp_path):
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "a.jsonl").write_bytes(b"".join(LINES))
    (traces / "gone.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    (traces / "loop.jsonl").symlink_to(traces / "loop.jsonl")
    result = score(str(traces), "-f", "json")
    assert result.exit_code == 0, result.output
    warnings = json.loads(result.stdout)["warnings"]
    assert any(w.startswith(f"{traces / 'gone.jsonl'}: a link to nothing") for w in warnings)
    assert any(w.startswith(f"{traces / 'loop.jsonl'}:") for w in warnings)


# ------------------------------------------------------------------------------ markup


def test_names_are_printed_as_written_never_as_markup(tmp_path):
    (tmp_path / "tools").mkdir()
    (tmp_path / "cases").mkdir()
    (tmp_path / "tools" / "t.json").write_text(
        json.dumps(
            [
                {
                    "name": "pay[/]",
                    "parameters": {
                        "type": "object",
                        "properties": {"amt[bold]": {"type": "string", "x-eval-norm": "casefold"}},
                    },
                },
                {"name": "get[v2]", "parameters": {"type": "object"}},
            ]
        )
    )
    case = "[link=http://evil]c"
    steps = [{"tool": "pay[/]", "args": {"amt[bold]": "A"}}, {"tool": "get[v2]", "args": {}}]
    (tmp_path / "cases" / "c.json").write_text(json.dumps({"id": case, "accept": [steps]}))
    runs = [
        {
            "run_id": "[/]r-1",
            "case_id": case,
            "calls": [
                {"tool": "pay[/]", "args": {"amt[bold]": "a"}},
                {"tool": "get[v2]", "args": {}},
            ],
        },
        {"run_id": "[red]r-2", "case_id": case, "calls": [{"tool": "get[v2]", "args": {}}]},
    ]
    trace = tmp_path / "a.jsonl"
    trace.write_text("".join(json.dumps(r) + "\n" for r in runs))
    args = [
        "score",
        str(trace),
        "--tools",
        str(tmp_path / "tools"),
        "--cases",
        str(tmp_path / "cases"),
    ]
    result = CliRunner().invoke(app, [*args, "--show", "failures"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for written in ("pay[/]", "amt[bold]", "get[v2]", "[red]r-2", "[link=http://evil]c"):
        assert written in result.stdout, written


@pytest.mark.parametrize(
    "value", [2**64, 2**64 + 1, -(2**63) - 1, {"a": [2**70, 1.5, "x"]}, [-(10**30), 10**30]]
)
def test_the_exact_reader_and_writer_keep_big_integers(value):
    from evalrunner.jsonvalue import dumps, loads

    text = dumps(value)
    assert loads(text) == value
    assert loads(text.decode()) == value
    assert type(loads(b"18446744073709551617")) is int


@pytest.mark.parametrize("text", [b"NaN", b"[Infinity, 100000000000000000000]", b"[1,"])
def test_the_exact_reader_refuses_what_is_not_json(text):
    from evalrunner.jsonvalue import loads

    with pytest.raises(ValueError):
        loads(text + b" 100000000000000000000")


def test_suggest_reads_integers_beyond_64_bits_exactly():
    """The case expects 18446744073709551617, the runs send ...616: a real difference, not two
    spellings of one value, so no rule is proposed (read as floats, both were 1.8446744073709552e19
    and suggest proposed `number` on evidence no trace holds)."""
    data = Path(__file__).parent / "data" / "review" / "suggest-big-int"
    base = ["--tools", str(data / "tools"), "--cases", str(data / "cases")]
    result = CliRunner().invoke(app, ["suggest", *base, str(data / "traces"), "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["summary"]["runs"] == 2 and doc["suggestions"] == []


@pytest.mark.parametrize("amount", ["4900", "123456789012345678901234567890"])
def test_a_lone_surrogate_is_not_json_whether_or_not_the_line_holds_a_big_integer(tmp_path, amount):
    """orjson refuses `"\\ud800"`; the exact reader (taken for lines with an integer beyond 64
    bits) let it through, and every writer then crashed on it. Both refuse it: one unscoreable
    line at its file:line, the next line scored."""
    traces = tmp_path / "t.jsonl"
    bad = (
        '{"run_id": "r1", "case_id": "tax-jp", "calls": [{"tool": "calculate_tax", "args": '
        f'{{"amount": {amount}, "country": "\\ud800", "tax_rate": 0.1}}}}]}}'
    )
    good = (
        '{"run_id": "r2", "case_id": "tax-jp", "calls": [{"tool": "calculate_tax", "args": '
        '{"amount": 4900, "country": "JP", "tax_rate": 0.1}}]}'
    )
    traces.write_text(bad + "\n" + good + "\n")
    root = Path(__file__).parent.parent  # the example suite's tools and cases
    dirs = ["--tools", str(root / "tools"), "--cases", str(root / "cases")]
    r = CliRunner().invoke(app, ["score", str(traces), *dirs, "--format", "json"])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    doc = json.loads(r.stdout)
    (error,) = doc["errors"]
    assert error["source"].endswith("t.jsonl:1") and "surrogate" in error["error"]
    assert [run["run_id"] for run in doc["runs"]] == ["r2"]
