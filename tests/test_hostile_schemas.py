"""Tool files and case files are data: nothing is fetched or opened because of a schema, nothing
recurses without end, nothing hangs (issue 14, items 3, 4, 6 and 7).

Each test runs `evalrun lint` and `evalrun score` the way a user would, on a schema or case that
used to fetch a URL, read a local file into a finding, crash with a RecursionError, or hang.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app
from evalrunner.lint import lint
from evalrunner.lint.validate import SchemaValidator
from evalrunner.model import InputError

SECRET = "TOPSECRET-7d1e"


class Server:
    """An HTTP server on 127.0.0.1 that serves a schema and remembers every request it gets."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        seen = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                seen.append(self.path)
                body = json.dumps({"const": SECRET}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/schema.json"


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    thread = threading.Thread(target=s.httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield s
    finally:
        s.httpd.shutdown()
        s.httpd.server_close()
        thread.join(timeout=5)


def corpus(tmp_path: Path, parameters: Any, args: Any, *, name: str = "t") -> Path:
    """tools/t.json, cases/c.json with one case calling it with `args`, traces/r.jsonl."""
    for d in ("tools", "cases", "traces"):
        (tmp_path / d).mkdir(exist_ok=True)
    (tmp_path / "tools" / f"{name}.json").write_text(
        json.dumps({"name": name, "parameters": parameters})
    )
    case = {"id": "c1", "accept": [[{"tool": name, "args": args}]]}
    (tmp_path / "cases" / "c.json").write_text(json.dumps(case))
    run = {"run_id": "r1", "case_id": "c1", "calls": [{"tool": name, "args": args}]}
    (tmp_path / "traces" / "r.jsonl").write_text(json.dumps(run) + "\n")
    return tmp_path


def invoke(command: str, root: Path) -> Any:
    args = [command, "--tools", str(root / "tools"), "--cases", str(root / "cases")]
    if command == "score":
        args.append(str(root / "traces"))
    else:
        args += ["--traces", str(root / "traces")]
    return CliRunner().invoke(app, args, env={"COLUMNS": "200", "NO_COLOR": "1"})


def refused(root: Path, message: str) -> None:
    """lint and score both exit 2 with `message`, and no traceback."""
    for command in ("lint", "score"):
        result = invoke(command, root)
        assert result.exit_code == 2, (command, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert message in " ".join(result.stderr.split()), (command, result.stderr)
        assert result.stdout == ""


# --------------------------------------------------------------------------- 3: nothing fetched


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


# Keywords the tool reader never walked to collect rules, but a validator follows.
PLACES = [
    ("not", lambda ref: {**obj(x={"type": "string"}), "not": {"$ref": ref}}),
    ("additionalProperties", lambda ref: {**obj(), "additionalProperties": {"$ref": ref}}),
    ("if", lambda ref: {**obj(x={}), "if": {"$ref": ref}, "then": {"required": ["x"]}}),
    ("$dynamicRef", lambda ref: obj(x={"$dynamicRef": ref})),
    ("patternProperties", lambda ref: {**obj(), "patternProperties": {"^x": {"$ref": ref}}}),
    ("propertyNames", lambda ref: {**obj(), "propertyNames": {"$ref": ref}}),
    ("unused $defs", lambda ref: {**obj(x={}), "$defs": {"Remote": {"$ref": ref}}}),
]


@pytest.mark.parametrize(("place", "schema"), PLACES, ids=[p for p, _ in PLACES])
@pytest.mark.parametrize("target", ["url", "file"])
def test_no_schema_fetches_a_url_or_reads_a_file(tmp_path, server, place, schema, target):
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"const": SECRET}))
    ref = server.url if target == "url" else secret.as_uri()
    root = corpus(tmp_path, schema(ref), {"x": "a"})
    key = "$dynamicRef" if place == "$dynamicRef" else "$ref"
    refused(root, f"(t): only local $ref ('#/$defs/...') are supported, not {ref!r} ({key} at")
    for command in ("lint", "score"):
        assert SECRET not in invoke(command, root).output
    assert server.requests == []


def test_validators_hold_only_the_schema_itself(tmp_path, server):
    # Even a schema that reached a validator without the reader's check fetches nothing.
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"const": SECRET}))
    for ref in (server.url, secret.as_uri()):
        validator = SchemaValidator({**obj(), "not": {"$ref": ref}}, "tools/t.json (t)")
        with pytest.raises(InputError, match="cannot be resolved") as e:
            validator.check({"x": 1})
        assert SECRET not in str(e.value)
    assert server.requests == []


def test_a_local_ref_that_resolves_nowhere_is_refused(tmp_path):
    root = corpus(tmp_path, {**obj(x={}), "not": {"$ref": "#/$defs/Missing"}}, {"x": 1})
    refused(
        root,
        "(t): $ref '#/$defs/Missing' does not resolve to a schema in this tool (at $.parameters.not['$ref'])",
    )


# --------------------------------------------------------------------------- 7: $ref cycles


def test_a_ref_cycle_is_refused_naming_the_chain(tmp_path):
    schema = {
        **obj(x={"$ref": "#/$defs/a"}),
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
    }
    root = corpus(tmp_path, schema, {"x": 1})
    refused(root, "(t): $ref cycle #/$defs/a -> #/$defs/b -> #/$defs/a:")


def test_a_ref_cycle_through_branches_is_refused(tmp_path):
    schema = {
        **obj(x={}),
        "$defs": {
            "a": {"allOf": [{"$ref": "#/$defs/b"}]},
            "b": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "null"}]},
        },
        "not": {"$ref": "#/$defs/a"},
    }
    root = corpus(tmp_path, schema, {"x": 1})
    refused(
        root,
        "(t): $ref cycle #/$defs/a -> #/$defs/a/allOf/0 -> #/$defs/b -> #/$defs/b/anyOf/0 "
        "-> #/$defs/a:",
    )


def test_recursive_data_stays_legal(tmp_path):
    # A tree node whose children are nodes: the cycle goes through an item, as the data does.
    node = obj(
        name={"type": "string", "x-eval-norm": "casefold"},
        children={"type": "array", "items": {"$ref": "#/$defs/Node"}},
    )
    schema = {**obj(root={"$ref": "#/$defs/Node"}), "$defs": {"Node": node}}
    args = {"root": {"name": "A", "children": [{"name": "b", "children": [{"name": 3}]}]}}
    root = corpus(tmp_path, schema, args)
    report = lint(root / "tools", root / "cases")
    assert [(f.code, f.path) for f in report.findings] == [
        ("case-args-invalid", "$.accept[0][0].args.root.children[0].children[0].name")
    ]
    assert invoke("score", root).exit_code == 0


# ------------------------------------------------------------------------- 4: too deep to read


def nested(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = {"a": leaf}
    return leaf


def test_a_schema_nested_100_levels_is_refused(tmp_path):
    schema = {"type": "string"}
    for _ in range(100):
        schema = {"not": schema}
    root = corpus(tmp_path, {**obj(x={}), "not": schema}, {"x": 1})
    refused(root, "(t): the parameters are nested more than 64 levels deep")


def test_a_schema_nested_through_refs_is_refused(tmp_path):
    defs = {f"d{i}": obj(x={"$ref": f"#/$defs/d{i + 1}"}) for i in range(300)}
    defs["d300"] = {"type": "string"}
    root = corpus(tmp_path, {**obj(x={"$ref": "#/$defs/d0"}), "$defs": defs}, {"x": {}})
    refused(root, "(t): parameter 'x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x")


def test_a_case_whose_args_nest_too_deep_is_refused(tmp_path):
    root = corpus(tmp_path, obj(a={}), nested(300, 1))
    refused(root, "(case 'c1'): accept[0][0] 'args' is nested more than 64 levels deep")


def test_a_case_whose_input_nests_too_deep_is_refused(tmp_path):
    root = corpus(tmp_path, obj(a={}), {"a": 1})
    case = {"id": "c1", "input": nested(300, "x"), "accept": [[{"tool": "t", "args": {}}]]}
    (root / "cases" / "c.json").write_text(json.dumps(case))
    refused(root, "(case 'c1'): 'input' is nested more than 64 levels deep")


# --------------------------------------------------------------------- 6: no pattern hangs lint


def timed_lint(root: Path) -> tuple[float, list[tuple[str, str, str]]]:
    start = time.monotonic()
    report = lint(root / "tools", root / "cases")
    return time.monotonic() - start, [(f.code, f.path, f.message) for f in report.findings]


def test_the_catastrophic_pattern_of_the_issue_finishes(tmp_path):
    # With Python's `re`, `^(a+)+$` takes over a minute on 30 a's and a '!' (doubling per a).
    root = corpus(tmp_path, obj(x={"type": "string", "pattern": "^(a+)+$"}), {"x": "a" * 30 + "!"})
    elapsed, findings = timed_lint(root)
    assert elapsed < 10
    assert findings == [
        (
            "case-args-invalid",
            "$.accept[0][0].args.x",
            "case 'c1': accept[0][0] t: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!' does not match '^(a+)+$'",
        )
    ]


@pytest.mark.parametrize(
    "schema",
    [
        obj(x={"type": "string", "pattern": "^(a|aa)+$"}),
        {**obj(), "patternProperties": {"^(a|aa)+$": {"type": "integer"}}},
        {**obj(), "patternProperties": {"^(a|aa)+$": {}}, "additionalProperties": False},
    ],
    ids=["pattern", "patternProperties", "additionalProperties"],
)
def test_a_pattern_that_backtracks_without_end_is_a_finding(tmp_path, schema):
    # `^(a|aa)+$` defeats the `regex` module's own optimisations too: it would run for hours.
    long = "a" * 40 + "!"
    args = {"x": long} if schema.get("properties") else {long: 1}
    root = corpus(tmp_path, schema, args)
    elapsed, findings = timed_lint(root)
    assert elapsed < 10
    assert [(code, path) for code, path, _ in findings] == [
        ("pattern-unchecked", "$.accept[0][0].args")
    ]
    assert findings[0][2] == (
        "case 'c1': accept[0][0] t: the args could not be checked against pattern "
        "'^(a|aa)+$' (it took over 1 s on 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa': "
        "catastrophic backtracking)"
    )
