"""Reading traces: a stream of runs; every unreadable line is an error record with file:line."""

from __future__ import annotations

import gzip
import io
import json

import pytest

from evalrunner import MISSING, InputError, Reading, Run, TraceError, read_runs
from evalrunner.traces.lines import stream_lines
from evalrunner.traces.pretty import STRAY, Parsed


def run(**kw):
    return json.dumps({"run_id": "r", "case_id": "c", "calls": [], **kw})


def write(tmp_path, name, lines):
    d = tmp_path / "traces"
    d.mkdir(exist_ok=True)
    data = ("\n".join(lines) + "\n").encode()
    path = d / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return d


def test_native_record(tmp_path):
    d = write(
        tmp_path,
        "a.jsonl",
        [
            json.dumps(
                {
                    "run_id": "r-1",
                    "case_id": "c-1",
                    "calls": [
                        {"tool": "a", "args": {"x": 1}, "result": {"ok": True}},
                        {"name": "b", "arguments": '{"y": [1, 2]}'},
                        {"tool": "c"},
                        {"tool": "d", "args": ""},
                    ],
                    "world": {"refunds": []},
                    "meta": {"commit": "3f2c1aa"},
                }
            )
        ],
    )
    (r,) = read_runs([d])
    assert isinstance(r, Run)
    assert (r.run_id, r.case_id, r.source) == ("r-1", "c-1", f"{d}/a.jsonl:1")
    assert [(c.tool, c.args) for c in r.calls] == [
        ("a", {"x": 1}),
        ("b", {"y": [1, 2]}),
        ("c", {}),
        ("d", {}),
    ]
    assert r.calls[0].result == {"ok": True} and r.calls[1].result is MISSING
    assert r.world == {"refunds": []} and r.meta == {"commit": "3f2c1aa"}


def test_directory_sorted_recursive_gzip_and_blank_lines(tmp_path):
    write(tmp_path, "b.jsonl", [run(run_id="b1"), "", "   ", run(run_id="b2")])
    write(tmp_path, "a.jsonl.gz", [run(run_id="a1")])
    (tmp_path / "traces" / "sub").mkdir()
    (tmp_path / "traces" / "sub" / "c.jsonl").write_text(run(run_id="c1") + "\n")
    (tmp_path / "traces" / "notes.txt").write_text("not a trace")
    items = list(read_runs([tmp_path / "traces"]))
    assert [(r.run_id, r.source.rsplit("/", 1)[1]) for r in items] == [
        ("a1", "a.jsonl.gz:1"),
        ("b1", "b.jsonl:1"),
        ("b2", "b.jsonl:4"),
        ("c1", "c.jsonl:1"),
    ]


def test_stdin():
    data = io.BytesIO((run(run_id="s1") + "\nnope\n").encode())
    items = list(read_runs(["-"], stdin=data))
    assert items[0].source == "<stdin>:1"
    assert items[1] == TraceError("<stdin>:2", items[1].error)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("{not json", "line is not valid JSON: "),
        ("[1, 2]", "native: the line is a list, not an object"),
        (json.dumps({"run_id": "r", "case_id": "c"}), 'the record has no "calls" list'),
        (json.dumps({"case_id": "c", "calls": {"tool": "a"}}), 'the record has no "calls" list'),
        (json.dumps({"case_id": "c", "calls": ["a"]}), "call 0 is not an object"),
        (
            json.dumps({"case_id": "c", "calls": [{"tool": "a"}, {"args": {}}]}),
            "call 1 has no tool name",
        ),
        (json.dumps({"case_id": "c", "calls": [{"tool": ""}]}), "call 0 has no tool name"),
    ],
)
def test_unreadable_lines_are_error_records(tmp_path, line, reason):
    d = write(tmp_path, "a.jsonl", [run(run_id="ok"), line, run(run_id="after")])
    items = list(read_runs([d], reading=Reading("native")))
    assert [type(i).__name__ for i in items] == ["Run", "TraceError", "Run"]
    assert items[1].source == f"{d}/a.jsonl:2"
    assert items[1].error.startswith(reason)


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ("{bad", "args is not valid JSON: "),
        ("[1, 2]", "args encodes a list, not an object"),
        ("null", "args encodes null, not an object"),
        (None, "args is null, not an object"),
        (42, "args is a number, not an object"),
    ],
)
def test_malformed_args_are_the_agents_failure_not_the_traces(tmp_path, args, reason):
    d = write(tmp_path, "a.jsonl", [run(calls=[{"tool": "t", "args": args}])])
    (r,) = read_runs([d])
    assert isinstance(r, Run)
    assert r.calls[0].malformed.startswith(reason)


@pytest.mark.parametrize(
    ("call", "errored"),
    [
        ({"error": "boom"}, True),
        ({"error": {"code": 1}}, True),
        ({"error": None}, False),
        ({"error": False}, False),
        ({"is_error": True}, True),
        ({"isError": True}, True),
        ({"isError": "yes"}, False),
        ({"status": "error"}, True),
        ({"result": {"error": "not found"}}, True),
        ({"result": {"isError": True, "content": []}}, True),
        ({"result": {"status": "error"}}, False),  # a result's status is the tool's own data
        ({"result": "error"}, False),
        ({"result": {"error": None}}, False),
    ],
)
def test_errored_attempts(tmp_path, call, errored):
    d = write(tmp_path, "a.jsonl", [run(calls=[{"tool": "t", "args": {}, **call}])])
    (r,) = read_runs([d])
    assert r.calls[0].errored is errored


def test_world_null_is_no_world_and_ids_default(tmp_path):
    d = write(tmp_path, "a.jsonl", [json.dumps({"case_id": "7", "calls": [], "world": None})])
    (r,) = read_runs([d])
    assert r.world is MISSING
    assert r.run_id == f"{d}/a.jsonl:1"  # no run_id: the record's place stands in for it
    assert r.case_id == "7"


def test_a_case_id_that_is_a_number_is_not_the_case_of_that_name(tmp_path):
    """Case ids are strings: `7` does not match the case "7", and the line says why."""
    d = write(tmp_path, "a.jsonl", [json.dumps({"case_id": 7, "calls": []})])
    (r,) = read_runs([d])
    assert isinstance(r, TraceError)
    assert r.error == 'case_id 7 is a number; case ids are strings (write "7")'


def test_a_truncated_gzip_is_reported_not_fatal(tmp_path):
    d = tmp_path / "traces"
    d.mkdir()
    whole = gzip.compress(("\n".join(run(run_id=f"r{i}") for i in range(2000)) + "\n").encode())
    (d / "a.jsonl.gz").write_bytes(whole[: len(whole) // 2])
    items = list(read_runs([d]))
    assert isinstance(items[-1], TraceError)
    assert "cannot be read past this point" in items[-1].error
    assert all(isinstance(i, Run) for i in items[:-1]) and len(items) > 1


def test_missing_path_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match=r"trace file or directory '.*nope' does not exist"):
        list(read_runs([tmp_path / "nope"]))


def test_the_reader_is_a_stream(tmp_path):
    d = write(tmp_path, "a.jsonl", [run(run_id=str(i)) for i in range(3)])
    it = read_runs([d])
    assert next(it).run_id == "0"  # nothing forces the whole file to be read first


# ------------------------------------------------------------------- arrays and pretty-printing


def test_a_one_line_array_of_runs_is_read_record_by_record(tmp_path):
    """As the same array pretty-printed is; only an array of messages is a bare list."""
    native = {"case_id": "a", "calls": [{"tool": "t", "args": {"x": 1}}]}
    chat = {
        "case_id": "b",
        "run_id": "b-1",
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "1", "type": "function", "function": {"name": "t", "arguments": "{}"}}
                ],
            },
        ],
    }
    messages = chat["messages"]
    spans = [{"name": "s", "context": {"trace_id": "0x1", "span_id": f"0x{i}"}} for i in (1, 2)]
    lines = [json.dumps([native, chat]), json.dumps(messages), json.dumps(spans)]
    items = list(read_runs([write(tmp_path, "a.jsonl", lines)]))
    assert [(type(i).__name__, i.source.rpartition("/")[2]) for i in items] == [
        ("Run", "a.jsonl:1"),
        ("Run", "a.jsonl:1"),
        ("TraceError", "a.jsonl:2"),
        ("TraceError", "a.jsonl:3"),
    ]
    a, b, bare, one_line_spans = items
    assert (a.case_id, [c.tool for c in a.calls]) == ("a", ["t"])
    assert (b.case_id, b.run_id, [c.tool for c in b.calls]) == ("b", "b-1", ["t"])
    assert '{"case_id": ..., "messages": [...]}' in bare.error
    # a trace ends on its last span's line: spans all on one line cannot be grouped
    assert "a JSON array of 2 otel records on one line" in one_line_spans.error


def test_the_records_of_a_one_line_array_have_run_ids_of_their_own(tmp_path):
    """Each record that names no run id gets the line's place and its rank (`file:line#k`):
    runs of one line never share an id; an element in no format is reported on its own."""
    native = {"case_id": "a", "calls": []}
    line = json.dumps([native, native, {"run_id": "mine", **native}, {"unknown": 1}])
    items = list(read_runs([write(tmp_path, "a.jsonl", [line])]))
    runs = [i for i in items if not isinstance(i, TraceError)]
    assert [r.run_id.rpartition("/")[2] for r in runs] == ["a.jsonl:1#1", "a.jsonl:1#2", "mine"]
    [error] = [i for i in items if isinstance(i, TraceError)]
    assert "no known trace format" in error.error


def _pretty(*records, indent=4):
    return [json.dumps(r, indent=indent) for r in records]


A, B = {"case_id": "a", "calls": []}, {"case_id": "b", "calls": [{"tool": "t", "args": {}}]}
# json.dumps(A, indent=4) is 4 lines, json.dumps(B, indent=4) 9
TRUNCATED_B = "\n".join(_pretty(B)[0].splitlines()[:5])


@pytest.mark.parametrize(
    ("pieces", "expected"),
    [
        # a program's output between two exporter objects, before them, after them
        ([*_pretty(A), "hello from the app", *_pretty(B)], ["1 a", "5 ~", "6 b"]),
        (["hello", "[INFO] starting", "", *_pretty(A, B)], ["1 ~", "2 ~", "4 a", "8 b"]),
        ([*_pretty(A, B), "bye", "bye"], ["1 a", "5 b", "14 ~", "15 ~"]),
        # the last object cut short; an object broken in the middle, then one whole
        (
            [*_pretty(A), TRUNCATED_B],
            ["1 a", "5 ! lines 5-9 that cannot be read as JSON (the file ends before it does)"],
        ),
        (
            [*_pretty(A), TRUNCATED_B, "oops", '        "x": 1', "}", *_pretty(A)],
            [
                "1 a",
                "5 ! lines 5-12 that cannot be read as JSON (Expecting property name enclosed "
                "in double quotes at line 10, column 1)",
                "13 a",
            ],
        ),
        # a line of JSON Lines among them, and one cut short
        (
            [*_pretty(A), json.dumps(B), '{"case_id": "c", "ca', *_pretty(A)],
            ["1 a", "5 b", "6 ~", "7 a"],
        ),
        # NaN is not JSON: the record it is in is skipped, whole
        ([*_pretty(A), "{", '    "x": NaN', "}", *_pretty(A)], ["1 a", "5 ! lines 5-7", "8 a"]),
        # in an array: a stray line between its elements, and one inside an element
        (
            ["[", _pretty(A, indent=2)[0] + ",", "print", _pretty(B, indent=2)[0], "]"],
            ["2 a", "6 ~", "7 b"],
        ),
        (
            ["[", "  {", '    "case_id": "a",', "junk", "  },", _pretty(B, indent=2)[0], "]"],
            ["2 ! lines 2-5 that cannot be read as JSON (Expecting property name", "6 b"],
        ),
    ],
)
@pytest.mark.parametrize("read_size", [7, 2**20])
def test_pretty_printed_json_loses_only_what_cannot_be_read(pieces, expected, read_size):
    """Text among pretty-printed records is reported line by line, a broken record once with its
    lines, and every record after either is read: no line vanishes. (`~`: a stray line; `!`: a
    record that cannot be read, with what its message says.)"""

    class Stream:
        def __init__(self, data):
            self.data, self.at = data, 0

        def read(self, n):
            chunk = self.data[self.at : self.at + min(n, read_size)]
            self.at += len(chunk)
            return chunk

    data = ("\n".join(pieces) + "\n").encode()
    got = []
    for (source, item), want in zip(stream_lines("f", Stream(data)), expected, strict=False):
        line = source.rpartition(":")[2]
        if isinstance(item, Parsed):
            got.append(f"{line} {item.value['case_id']}")
        elif item.error.startswith(STRAY):
            assert item.error.endswith("skipped, and the records after it read")
            got.append(f"{line} ~")
        else:
            detail = want.partition(" ! ")[2]
            assert detail in item.error, item.error
            assert item.error.endswith("skipped, and the records after it read")
            got.append(f"{line} ! {detail}")
    assert got == expected
    assert len(list(stream_lines("f", Stream(data)))) == len(expected)
