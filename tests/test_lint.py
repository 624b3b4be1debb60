"""`evalrun lint`: one test per finding code on a small schema or case that triggers exactly it,
the CLI's exit codes and options, and the repo's own example corpus."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app
from evalrunner.grade.norms import BUILTINS, Normalizer, NormError
from evalrunner.lint import CODES, Finding, LintReport, json_path, lint, quantity
from evalrunner.model import InputError
from tests.conftest import one_line

ROOT = Path(__file__).resolve().parent.parent


CLI_DATA = Path(__file__).parent / "data" / "cli"


def corpus(
    tmp_path: Path,
    tools: dict[str, Any],
    cases: list[dict[str, Any]],
    traces: list[dict[str, Any]] | None = None,
) -> Path:
    """tools/<name>.json (one bare tool a file), cases/cases.json (a list), traces/t.jsonl."""
    (tmp_path / "tools").mkdir()
    (tmp_path / "cases").mkdir()
    for name, parameters in tools.items():
        tool = {"name": name, "parameters": parameters}
        (tmp_path / "tools" / f"{name}.json").write_text(json.dumps(tool))
    (tmp_path / "cases" / "cases.json").write_text(json.dumps(cases))
    if traces is not None:
        (tmp_path / "traces").mkdir()
        lines = "".join(json.dumps(t) + "\n" for t in traces)
        (tmp_path / "traces" / "t.jsonl").write_text(lines)
    return tmp_path


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def case(tool: str, args: dict[str, Any], case_id: str = "c1") -> dict[str, Any]:
    return {"id": case_id, "accept": [[{"tool": tool, "args": args}]]}


def run_lint(root: Path, registry: dict[str, Normalizer] | None = None, traces: bool = False):
    return lint(
        root / "tools",
        root / "cases",
        [root / "traces"] if traces else None,
        registry=registry,
    )


def only(report: LintReport) -> Finding:
    """The report's single finding (fails, listing them, when there is not exactly one)."""
    assert len(report.findings) == 1, [(f.code, f.path, f.message) for f in report.findings]
    return report.findings[0]


def assert_finding(f: Finding, code: str, file: str, path: str) -> None:
    assert (f.code, f.severity, f.file, f.path) == (code, CODES[code].severity, file, path)


# ------------------------------------------------------------------------------ error codes


def test_unknown_normalizer_is_a_finding_not_an_abort(tmp_path):
    root = corpus(
        tmp_path,
        {
            "search": obj(
                month={"type": "string", "x-eval-norm": "monht"},
                status={"type": "array", "items": {"type": "string"}, "x-eval-norm": "set"},
            )
        },
        [case("search", {"month": "2026-03", "status": ["open"]})],
    )
    f = only(run_lint(root))
    assert_finding(
        f,
        "unknown-normalizer",
        str(root / "tools" / "search.json"),
        "$.parameters.properties.month['x-eval-norm']",
    )
    assert "'monht'" in f.message and "did you mean 'month'?" in f.fix


def test_unknown_normalizer_in_defs_points_at_the_definition(tmp_path):
    # pydantic writes Optional[Model] as anyOf [$ref, null]: the rule lives in $defs.
    params = {
        "type": "object",
        "$defs": {"Month": {"type": "string", "x-eval-norm": "monht"}},
        "properties": {"month": {"anyOf": [{"$ref": "#/$defs/Month"}, {"type": "null"}]}},
    }
    root = corpus(tmp_path, {"search": params}, [case("search", {"month": "2026-03"})])
    f = only(run_lint(root))
    assert_finding(
        f,
        "unknown-normalizer",
        str(root / "tools" / "search.json"),
        "$.parameters['$defs'].Month['x-eval-norm']",
    )


def test_bad_norm_option(tmp_path):
    param = {"type": "string", "x-eval-norm": {"name": "month", "tz": "Mars/Olympus"}}
    root = corpus(tmp_path, {"search": obj(month=param)}, [case("search", {"month": "2026-03"})])
    f = only(run_lint(root))
    assert_finding(
        f,
        "bad-norm-option",
        str(root / "tools" / "search.json"),
        "$.parameters.properties.month['x-eval-norm']",
    )
    assert "Mars/Olympus" in f.message


def test_norm_type_mismatch(tmp_path):
    param = {"type": "string", "x-eval-norm": "unordered_list"}
    root = corpus(
        tmp_path, {"lookup": obj(customer_id=param)}, [case("lookup", {"customer_id": "C-1"})]
    )
    f = only(run_lint(root))
    assert_finding(
        f,
        "norm-type-mismatch",
        str(root / "tools" / "lookup.json"),
        "$.parameters.properties.customer_id['x-eval-norm']",
    )


@pytest.mark.parametrize(
    "param",
    [
        {"type": ["string", "null"], "x-eval-norm": "month"},  # null is absence, not a type
        {"type": "integer", "x-eval-norm": "number"},  # an integer is a number
        {"type": "number", "x-eval-norm": "money_cents"},
        {"x-eval-norm": "month"},  # no type: anything
    ],
)
def test_rules_that_can_apply_are_no_type_mismatch(tmp_path, param):
    root = corpus(tmp_path, {"t": obj(x=param)}, [])
    assert "norm-type-mismatch" not in {f.code for f in run_lint(root).findings}


def test_norm_no_fields(tmp_path):
    param = {"type": "object", "x-eval-norm": "known_fields"}
    root = corpus(
        tmp_path, {"book": obj(options=param)}, [case("book", {"options": {"seat": "1A"}})]
    )
    f = only(run_lint(root))
    assert_finding(
        f,
        "norm-no-fields",
        str(root / "tools" / "book.json"),
        "$.parameters.properties.options['x-eval-norm']",
    )


def _plugin(name: str, fn) -> dict[str, Normalizer]:
    return {**BUILTINS, name: Normalizer(name, "encoding", fn, "test rule", applies_to=("string",))}


def test_norm_raised_on_a_case_value(tmp_path):
    def first_word(value):
        if type(value) is not str:
            raise NormError("not a string")
        return value.split()[0]  # IndexError on a blank string: a bug, not "cannot read"

    root = corpus(
        tmp_path,
        {"greet": obj(name={"type": "string", "x-eval-norm": "first_word"})},
        [case("greet", {"name": "Dana Whitfield"}), case("greet", {"name": "  "}, "c2")],
    )
    f = only(run_lint(root, _plugin("first_word", first_word)))
    assert_finding(
        f,
        "norm-raised",
        str(root / "tools" / "greet.json"),
        "$.parameters.properties.name['x-eval-norm']",
    )
    assert "IndexError" in f.message and "case 'c2'" in f.message


def test_norm_not_idempotent_on_a_trace_value(tmp_path):
    # Idempotent on "Dana" ("dana!" -> "dana!"), not on "Dana!" ("dana!!" after twice).
    def shout(value):
        if type(value) is not str:
            raise NormError("not a string")
        return value.lower() if value.endswith("!") and value[:-1].islower() else value + "!"

    tools = {"greet": obj(name={"type": "string", "x-eval-norm": "shout"})}
    run = {"run_id": "r1", "case_id": "c1", "calls": [{"tool": "greet", "args": {"name": "Dana"}}]}
    root = corpus(tmp_path, tools, [case("greet", {"name": "dana!"})], [run])
    registry = _plugin("shout", shout)
    assert run_lint(root, registry).findings == ()  # the case's value alone breaks no law
    f = only(run_lint(root, registry, traces=True))
    assert_finding(
        f,
        "norm-not-idempotent",
        str(root / "tools" / "greet.json"),
        "$.parameters.properties.name['x-eval-norm']",
    )
    assert "t.jsonl:1" in f.message and '"Dana"' in f.message


def test_unknown_tool(tmp_path):
    root = corpus(tmp_path, {"get_customer": obj()}, [case("get_custmer", {})])
    f = only(run_lint(root))
    assert_finding(f, "unknown-tool", str(root / "cases" / "cases.json"), "$[0].accept[0][0].tool")
    assert "did you mean 'get_customer'?" in f.fix


def test_case_args_invalid(tmp_path):
    root = corpus(
        tmp_path,
        {"search": obj(limit={"type": "integer", "minimum": 1})},
        [case("search", {"limit": 10}), case("search", {"limit": "ten"}, "c2")],
    )
    f = only(run_lint(root))
    assert_finding(
        f, "case-args-invalid", str(root / "cases" / "cases.json"), "$[1].accept[0][0].args.limit"
    )
    assert "'ten' is not of type 'integer'" in f.message


def test_case_args_invalid_in_a_legacy_jsonl_case(tmp_path):
    root = corpus(
        tmp_path, {"search": {**obj(limit={"type": "integer"}), "required": ["limit"]}}, []
    )
    legacy = {"id": "old", "expected_tool": "search", "expected_args": {}}
    (root / "cases" / "legacy.jsonl").write_text("\n" + json.dumps(legacy) + "\n")
    f = only(run_lint(root))
    assert_finding(f, "case-args-invalid", str(root / "cases" / "legacy.jsonl"), "$.expected_args")
    assert f.line == 2 and "'limit' is a required property" in f.message


def test_case_args_are_validated_by_the_schemas_own_draft(tmp_path):
    # Draft 7 `items` as a list validates a tuple; in 2020-12 the keyword is `prefixItems`.
    params = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        **obj(pair={"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}),
    }
    root = corpus(tmp_path, {"t": params}, [case("t", {"pair": ["a", "b"]})])
    f = only(run_lint(root))
    assert_finding(
        f, "case-args-invalid", str(root / "cases" / "cases.json"), "$[0].accept[0][0].args.pair[1]"
    )


def test_default_invalid(tmp_path):
    root = corpus(tmp_path, {"search": obj(limit={"type": "integer", "default": "50"})}, [])
    f = only(run_lint(root))
    assert_finding(
        f,
        "default-invalid",
        str(root / "tools" / "search.json"),
        "$.parameters.properties.limit.default",
    )


def test_default_is_checked_against_the_referenced_schema(tmp_path):
    params = {
        "type": "object",
        "$defs": {"Status": {"type": "string", "enum": ["open", "paid"]}},
        "properties": {"status": {"$ref": "#/$defs/Status", "default": "closed"}},
    }
    root = corpus(tmp_path, {"search": params}, [])
    f = only(run_lint(root))
    assert_finding(
        f,
        "default-invalid",
        str(root / "tools" / "search.json"),
        "$.parameters.properties.status.default",
    )
    assert "'closed' is not one of ['open', 'paid']" in f.message


def test_pattern_unchecked_on_a_default(tmp_path):
    # `^(a|aa)+$` backtracks without end on a's and a '!', in `re` and in `regex` alike.
    param = {"type": "string", "pattern": "^(a|aa)+$", "default": "a" * 40 + "!"}
    root = corpus(tmp_path, {"t": obj(x=param)}, [])
    f = only(run_lint(root))
    assert_finding(
        f, "pattern-unchecked", str(root / "tools" / "t.json"), "$.parameters.properties.x.default"
    )
    a38, a40 = "a" * 38, "a" * 40
    assert f.message == (
        f"t.x: the default \"{a38}… could not be checked against pattern '^(a|aa)+$' (it took "
        f"over 1 s on '{a40}': catastrophic backtracking)"
    )


# ----------------------------------------------------------------------------- warning codes


def test_multi_encoding_no_rule(tmp_path):
    root = corpus(tmp_path, {"refund": obj(amount={"type": ["number", "string"]})}, [])
    f = only(run_lint(root))
    assert_finding(
        f,
        "multi-encoding-no-rule",
        str(root / "tools" / "refund.json"),
        "$.parameters.properties.amount",
    )
    assert f.fix.endswith("(money_cents, duration_secs, number)")  # the name says money


def test_multi_encoding_any_of_over_types(tmp_path):
    when = {"anyOf": [{"type": "integer"}, {"type": "string", "format": "date-time"}]}
    root = corpus(tmp_path, {"remind": obj(at=when)}, [])
    f = only(run_lint(root))
    assert_finding(
        f,
        "multi-encoding-no-rule",
        str(root / "tools" / "remind.json"),
        "$.parameters.properties.at",
    )


@pytest.mark.parametrize(
    "param",
    [
        {"type": ["integer", "number"]},
        {"type": ["string", "null"]},
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
        {"type": ["number", "string"], "x-eval-norm": "number"},
    ],
)
def test_one_encoding_is_no_multi_encoding(tmp_path, param):
    root = corpus(tmp_path, {"t": obj(x=param)}, [case("t", {"x": "1"})])
    assert "multi-encoding-no-rule" not in {f.code for f in run_lint(root).findings}


def test_aliased_keys(tmp_path):
    root = corpus(
        tmp_path, {"refund": obj(amount={"type": "number"}, amount_cents={"type": "integer"})}, []
    )
    f = only(run_lint(root))
    assert_finding(
        f,
        "aliased-keys",
        str(root / "tools" / "refund.json"),
        "$.parameters.properties.amount_cents",
    )
    assert "'amount' and 'amount_cents'" in f.message


@pytest.mark.parametrize(
    ("name", "stem"),
    [
        ("amount_cents", "amount"),
        ("amount_in_cents", "amount"),
        ("amountUsd", "amount"),
        ("timeout_ms", "timeout"),
        ("timeoutMs", "timeout"),
        ("ttl_seconds", "ttl"),
        ("delay_secs", "delay"),
        ("start_iso", "start"),
        ("iso_date", "date"),
        ("ms", "ms"),  # never stripped to nothing
        ("price_min", "price_min"),  # `min` is no unit: price_min and price_max are two bounds
        ("status", "status"),
    ],
)
def test_quantity_heuristic(name, stem):
    assert quantity(name) == stem


def test_default_unreadable(tmp_path):
    param = {"type": "string", "x-eval-norm": "month", "default": "this month"}
    root = corpus(tmp_path, {"search": obj(month=param)}, [case("search", {"month": "2026-03"})])
    f = only(run_lint(root))
    assert_finding(
        f,
        "default-unreadable",
        str(root / "tools" / "search.json"),
        "$.parameters.properties.month.default",
    )


def test_a_null_default_or_value_needs_no_rule_that_reads_it(tmp_path):
    # pydantic: `address: Optional[Address] = None`, with known_fields on the Address.
    address = {
        "anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}],
        "default": None,
        "x-eval-norm": "known_fields",
    }
    params = {
        "type": "object",
        "$defs": {"Address": obj(city={"type": "string"})},
        "properties": {"address": address},
    }
    cases = [case("update", {"address": {"city": "Oslo"}}), case("update", {"address": None}, "c2")]
    root = corpus(tmp_path, {"update": params}, cases)
    assert run_lint(root).findings == ()


def test_case_value_unreadable(tmp_path):
    param = {"type": "string", "x-eval-norm": "month"}
    root = corpus(tmp_path, {"search": obj(month=param)}, [case("search", {"month": "March"})])
    f = only(run_lint(root))
    assert_finding(
        f,
        "case-value-unreadable",
        str(root / "cases" / "cases.json"),
        "$[0].accept[0][0].args.month",
    )


def test_case_value_unreadable_at_depth(tmp_path):
    flights = {
        "type": "array",
        "items": obj(number={"type": "string"}, date={"type": "string", "x-eval-norm": "date"}),
    }
    args = {"flights": [{"number": "LH1", "date": "2026-03-01"}, {"number": "LH2", "date": "soon"}]}
    root = corpus(tmp_path, {"book": obj(flights=flights)}, [case("book", args)])
    f = only(run_lint(root))
    assert_finding(
        f,
        "case-value-unreadable",
        str(root / "cases" / "cases.json"),
        "$[0].accept[0][0].args.flights[1].date",
    )


def test_money_cents_int_float(tmp_path):
    param = {"type": "integer", "x-eval-norm": "money_cents"}
    root = corpus(tmp_path, {"refund": obj(cents=param)}, [case("refund", {"cents": 4200})])
    f = only(run_lint(root))
    assert_finding(
        f,
        "money-cents-int-float",
        str(root / "tools" / "refund.json"),
        "$.parameters.properties.cents['x-eval-norm']",
    )


def test_money_cents_on_decimal_strings_relies_on_nothing(tmp_path):
    param = {"type": "string", "x-eval-norm": "money_cents"}
    root = corpus(tmp_path, {"refund": obj(total=param)}, [case("refund", {"total": "42.00"})])
    assert run_lint(root).findings == ()


def test_tool_never_called(tmp_path):
    runs = [{"run_id": "r1", "calls": [{"tool": "get_customer", "args": {"customer_id": "C-1"}}]}]
    root = corpus(
        tmp_path,
        {"get_customer": obj(customer_id={"type": "string"}), "search": obj()},
        [case("get_customer", {"customer_id": "C-1"})],
        runs,
    )
    assert run_lint(root).findings == ()  # without traces nothing says the tool is unused
    f = only(run_lint(root, traces=True))
    assert_finding(f, "tool-never-called", str(root / "tools" / "search.json"), "$")


def test_a_file_in_the_traces_folder_that_score_leaves_out_is_named(tmp_path):
    runs = [{"run_id": "r1", "calls": [{"tool": "get_customer", "args": {"customer_id": "C-1"}}]}]
    root = corpus(
        tmp_path,
        {"get_customer": obj(customer_id={"type": "string"})},
        [case("get_customer", {"customer_id": "C-1"})],
        runs,
    )
    (root / "traces" / "more.json").write_text(json.dumps(runs))
    f = only(run_lint(root, traces=True))
    assert_finding(f, "trace-file-not-read", str(root / "traces" / "more.json"), "$")
    assert "a .json file" in f.message


# -------------------------------------------------------------------------------- info codes


def test_norm_unexercised(tmp_path):
    param = {"type": "string", "x-eval-norm": "casefold"}
    root = corpus(tmp_path, {"lookup": obj(email=param)}, [case("lookup", {})])
    f = only(run_lint(root))
    assert_finding(
        f,
        "norm-unexercised",
        str(root / "tools" / "lookup.json"),
        "$.parameters.properties.email['x-eval-norm']",
    )


def test_any_rule_is_listed_and_warned_on_identifiers(tmp_path):
    free = {"type": "string", "x-eval-norm": "any"}
    cases_ = [case("send_email", {"customer_id": "C-1", "body": "Hi", "kind": "a", "n": 1})]
    tools_ = {
        "send_email": obj(
            body=free,
            customer_id={**free},
            kind={"type": "string", "enum": ["a", "b"], "x-eval-norm": "any"},
            n={"type": "integer", "x-eval-norm": "any"},
        )
    }
    root = corpus(tmp_path, tools_, cases_)
    found = {(f.code, f.path.split(".")[-1]) for f in run_lint(root).findings}
    assert found == {
        ("any-rule", "body['x-eval-norm']"),
        ("any-rule", "customer_id['x-eval-norm']"),
        ("any-rule", "kind['x-eval-norm']"),
        ("any-rule", "n['x-eval-norm']"),
        ("any-on-identifier", "customer_id['x-eval-norm']"),
        ("any-on-identifier", "kind['x-eval-norm']"),
        ("any-on-identifier", "n['x-eval-norm']"),
    }
    why = {
        f.path.split(".")[-1]: f.message
        for f in run_lint(root).findings
        if f.code == "any-on-identifier"
    }
    assert "its name ends in id" in why["customer_id['x-eval-norm']"]
    assert "its values are enumerated" in why["kind['x-eval-norm']"]
    assert "it is an integer" in why["n['x-eval-norm']"]


def test_every_code_has_a_test_and_a_doc():
    source = Path(__file__).read_text()
    docs = (ROOT / "docs" / "lint.md").read_text()
    for code, meta in CODES.items():
        assert f'"{code}"' in source, f"no test triggers {code}"
        heading = re.search(rf"^### `{re.escape(code)}` \((\w+)\)$", docs, re.M)
        assert heading, f"docs/lint.md does not document {code}"
        assert heading.group(1) == meta.severity


# ------------------------------------------------------------------------- coverage, paths


def test_traces_in_any_format_are_read_as_score_reads_them(tmp_path):
    """An OpenAI Chat log is read (it was 0 runs, and lint advised removing called tools), and
    --case-key finds ids where the log keeps them."""
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "search", "arguments": '{"q": "x"}'},
    }
    log = {"request": {"task": "c1"}, "messages": [{"role": "assistant", "tool_calls": [call]}]}
    root = corpus(
        tmp_path, {"search": obj(q={"type": "string"})}, [case("search", {"q": "x"})], [log]
    )
    args = ["lint", "--tools", str(root / "tools"), "--cases", str(root / "cases")]
    args += ["--traces", str(root / "traces"), "--format", "json"]
    unkeyed = json.loads(CliRunner().invoke(app, args).stdout)
    assert unkeyed["coverage"]["unreadable_lines"] == 1  # no case id where the log keeps it
    keyed = json.loads(CliRunner().invoke(app, [*args, "--case-key", "request.task"]).stdout)
    assert (keyed["coverage"]["runs"], keyed["coverage"]["calls"]) == (1, 1)
    assert not [f for f in keyed["findings"] if f["code"] == "tool-never-called"]


def test_coverage_counts_tools_and_call_volume(tmp_path):
    calls = [
        {"tool": "search", "args": {"month": "2026-03-01"}},
        {"tool": "search", "args": {"month": "2026-03"}},
        {"tool": "get_customer", "args": {}},
        {"tool": "not_a_tool", "args": {}},
    ]
    root = corpus(
        tmp_path,
        {"search": obj(month={"type": "string", "x-eval-norm": "month"}), "get_customer": obj()},
        [case("search", {"month": "2026-03"})],
        [{"run_id": "r1", "calls": calls}, "not a run"],
    )
    c = run_lint(root, traces=True).coverage
    assert (c.tools, c.tools_with_norms, c.runs, c.calls, c.calls_with_norms) == (2, 1, 1, 4, 2)
    assert c.call_share_with_norms == 0.5 and c.unreadable_lines == 1


def test_json_path_quotes_keys_that_are_not_identifiers():
    assert json_path(()) == "$"
    assert (
        json_path(("tools", 0, "properties", "x-eval-norm"))
        == "$.tools[0].properties['x-eval-norm']"
    )
    assert json_path(("properties", "it's")) == "$.properties['it\\'s']"


def test_tool_in_an_mcp_list_is_located_in_the_list(tmp_path):
    root = corpus(tmp_path, {}, [])
    tools = {
        "tools": [
            {"name": "a", "inputSchema": obj()},
            {"name": "b", "inputSchema": obj(x={"type": "string", "x-eval-norm": "nope"})},
        ]
    }
    (root / "tools" / "mcp.json").write_text(json.dumps(tools))
    f = only(run_lint(root))
    assert f.path == "$.tools[1].inputSchema.properties.x['x-eval-norm']"


def test_openai_tools_and_named_steps_are_located(tmp_path):
    root = corpus(tmp_path, {}, [])
    tools = [
        {"type": "function", "function": {"name": "a", "parameters": obj()}},
        {"type": "function", "name": "b", "parameters": obj(n={"type": "integer"})},
    ]
    (root / "tools" / "openai.json").write_text(json.dumps(tools))
    step = {"name": "b", "arguments": {"n": "one"}}  # `name`/`arguments` read as `tool`/`args`
    (root / "cases" / "cases.json").write_text(json.dumps({"id": "c", "accept": [[step]]}))
    f = only(run_lint(root))
    assert_finding(
        f, "case-args-invalid", str(root / "cases" / "cases.json"), "$.accept[0][0].arguments.n"
    )


def test_lint_reads_tools_and_cases_only_through_the_readers():
    # What lint checks must be what `evalrun score` reads: no second reader to drift from it.
    package = ROOT / "evalrunner" / "lint"
    source = "\n".join(p.read_text() for p in sorted(package.glob("*.py")))
    for name in ("list_files", "read_json_file", "read_tool_file", "read_bytes", "orjson"):
        assert name not in source, name


def test_unusable_input_raises(tmp_path):
    root = corpus(tmp_path, {"t": obj()}, [])
    (root / "tools" / "dup.json").write_text(json.dumps({"name": "t", "parameters": obj()}))
    with pytest.raises(InputError, match="defined twice"):
        run_lint(root)


# ------------------------------------------------------------------------------------- CLI


def invoke(*args: str):
    return CliRunner().invoke(app, ["lint", *args], env={"COLUMNS": "80", "NO_COLOR": "1"})


def dirs(root: Path) -> list[str]:
    return ["--tools", str(root / "tools"), "--cases", str(root / "cases")]


@pytest.fixture
def mixed(tmp_path) -> Path:
    """One error (case-args-invalid) and one warning (multi-encoding-no-rule)."""
    return corpus(
        tmp_path,
        {"refund": obj(amount={"type": ["number", "string"]}, reason={"type": "string"})},
        [case("refund", {"amount": 42, "reason": 7})],
    )


def test_cli_table_output(mixed):
    result = invoke(*dirs(mixed))
    assert result.exit_code == 1
    cases_file, tools_file = mixed / "cases" / "cases.json", mixed / "tools" / "refund.json"
    assert result.stdout == (
        f"{cases_file}\n"
        "  error   case-args-invalid  $[0].accept[0][0].args.reason\n"
        "          case 'c1': accept[0][0] refund: 7 is not of type 'string'\n"
        "          fix: the case is wrong, not the agent: correct the expected args so\n"
        "          the tool would accept them (or the schema, if the tool really accepts\n"
        "          this)\n"
        "\n"
        f"{tools_file}\n"
        "  warning multi-encoding-no-rule  $.parameters.properties.amount\n"
        "          refund.amount: accepts number or string and declares no rule, so one\n"
        "          value written in two encodings compares unequal\n"
        "          fix: tighten the schema to one type first; if the tool really accepts\n"
        "          several, declare x-eval-norm (money_cents, duration_secs, number)\n"
        "\n"
        "1 error, 1 warning, 0 info\n"
        "tools with rules: 0 of 1\n"
    )
    # every line fits 80 columns but the file names, which are printed whole (a cut one opens
    # nothing), however long the checkout's path
    paths = {str(cases_file), str(tools_file)}
    assert all(len(line) <= 80 for line in result.stdout.splitlines() if line not in paths)


def test_cli_json_output(mixed):
    result = invoke(*dirs(mixed), "--format", "json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert [(f["severity"], f["code"], f["path"]) for f in doc["findings"]] == [
        ("error", "case-args-invalid", "$[0].accept[0][0].args.reason"),
        ("warning", "multi-encoding-no-rule", "$.parameters.properties.amount"),
    ]
    assert set(doc["findings"][0]) == {"severity", "code", "file", "line", "path", "message", "fix"}
    assert doc["counts"] == {"error": 1, "warning": 1, "info": 0, "ignored": 0}
    assert doc["coverage"]["tools"] == 1 and doc["coverage"]["calls"] is None


def test_cli_jsonl_output(mixed):
    result = invoke(*dirs(mixed), "--format", "jsonl")
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [x.get("code") for x in lines[:-1]] == ["case-args-invalid", "multi-encoding-no-rule"]
    assert lines[-1]["summary"]["counts"]["error"] == 1


def test_cli_ignore_and_strict(mixed):
    ignored = invoke(*dirs(mixed), "--ignore", "case-args-invalid", "--format", "json")
    assert ignored.exit_code == 0  # a warning alone passes
    doc = json.loads(ignored.stdout)
    assert [f["code"] for f in doc["findings"]] == ["multi-encoding-no-rule"]
    assert doc["counts"]["ignored"] == 1
    assert invoke(*dirs(mixed), "--ignore", "case-args-invalid", "--strict").exit_code == 1
    both = invoke(*dirs(mixed), "--ignore", "case-args-invalid,multi-encoding-no-rule", "--strict")
    assert both.exit_code == 0
    assert both.stdout.endswith(
        "0 errors, 0 warnings, 0 info (2 ignored)\ntools with rules: 0 of 1\n"
    )


def test_cli_unknown_ignore_code_is_usage_error(mixed):
    result = invoke(*dirs(mixed), "--ignore", "no-such-code")
    assert result.exit_code == 2
    assert "unknown lint code 'no-such-code'" in result.stderr


def test_cli_clean_corpus_exits_0(tmp_path):
    root = corpus(
        tmp_path,
        {"search": obj(month={"type": "string", "x-eval-norm": "month"})},
        [case("search", {"month": "2026-03"})],
    )
    result = invoke(*dirs(root))
    assert result.exit_code == 0
    assert result.stdout == "0 errors, 0 warnings, 0 info\ntools with rules: 1 of 1\n"


def test_cli_traces_coverage_line(tmp_path):
    calls = [{"tool": "search", "args": {"month": "2026-03-01"}}]
    root = corpus(
        tmp_path,
        {"search": obj(month={"type": "string", "x-eval-norm": "month"})},
        [case("search", {"month": "2026-03"})],
        [{"run_id": "r1", "calls": calls}, {"run_id": "r2"}],
    )
    result = invoke(*dirs(root), "--traces", str(root / "traces"))
    assert result.exit_code == 0
    assert result.stdout == (
        "0 errors, 0 warnings, 0 info\n"
        "tools with rules: 1 of 1\n"
        "calls to them: 100.0% of 1 call recorded in 1 run of the traces\n"
        "unreadable trace lines: 1 (evalrun score lists them)\n"
    )


@pytest.mark.parametrize("problem", ["missing", "invalid-schema", "duplicate-case"])
def test_cli_unusable_input_exits_2(tmp_path, problem):
    root = corpus(tmp_path, {"t": obj()}, [case("t", {})])
    if problem == "missing":
        args = ["--tools", str(root / "nowhere"), "--cases", str(root / "cases")]
    else:
        if problem == "invalid-schema":
            (root / "tools" / "bad.json").write_text(
                json.dumps({"name": "u", "parameters": {"type": 5}})
            )
        else:
            (root / "cases" / "more.json").write_text(json.dumps(case("t", {})))
        args = dirs(root)
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.stdout == "" and "error:" in result.stderr


# --------------------------------------------------------------------------- the repo corpus


def test_repo_corpus_has_no_errors():
    if not any((ROOT / "tools").glob("**/*.json")):
        pytest.skip("the example corpus (tools/) is empty")
    report = lint(ROOT / "tools", ROOT / "cases")
    errors = [
        f"{f.file} {f.path}: {f.code}: {f.message}"
        for f in report.findings
        if f.severity == "error"
    ]
    assert errors == []


# --------------------------------------------------------------------- a case's own keys


def test_a_judge_path_naming_no_parameter_is_an_error_with_did_you_mean(tmp_path):
    step = {"tool": "mail", "args": {"body": "x"}, "judge": {"bdy": "any"}}
    root = corpus(
        tmp_path, {"mail": obj(body={"type": "string"})}, [{"id": "c1", "accept": [[step]]}]
    )
    f = only(run_lint(root))
    assert_finding(
        f, "judge-unknown-param", str(root / "cases" / "cases.json"), "$[0].accept[0][0].judge.bdy"
    )
    assert "did you mean 'body'?" in f.fix


def test_a_judge_naming_an_unknown_rule_is_an_error(tmp_path):
    step = {"tool": "mail", "args": {}, "judge": {"body": "anything"}}
    root = corpus(
        tmp_path, {"mail": obj(body={"type": "string"})}, [{"id": "c1", "accept": [[step]]}]
    )
    f = only(run_lint(root))
    assert_finding(
        f, "judge-invalid", str(root / "cases" / "cases.json"), "$[0].accept[0][0].judge"
    )
    assert "unknown normalizer 'anything'" in f.message


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("(unclosed", "does not compile"),
        ("(a|aa)+$", "backtracks"),
        # compiled as grading compiles it: flags the engine refuses (lint raised a traceback),
        # and the other regex version (grading's is VERSION0; lint's own compile accepted it)
        ("(?u)(?a)x", "does not compile"),
        ("(?V1)[[a]--[b]]", "does not compile"),
    ],
)
def test_a_pattern_that_cannot_compile_or_backtracks_is_an_error(tmp_path, pattern, why):
    step = {"tool": "mail", "args": {}, "judge": {"body": {"matches": pattern}}}
    root = corpus(
        tmp_path, {"mail": obj(body={"type": "string"})}, [{"id": "c1", "accept": [[step]]}]
    )
    f = only(run_lint(root))
    assert_finding(
        f,
        "judge-pattern-invalid",
        str(root / "cases" / "cases.json"),
        "$[0].accept[0][0].judge.body.matches",
    )
    assert why in f.message


@pytest.mark.parametrize(
    ("entry", "path"),
    [
        ({"tool": "send_mony"}, "$[0].forbid[0].tool"),
        ({"tool": "send_money", "args": {"recipent": "x"}}, "$[0].forbid[0].args.recipent"),
        ({"tool": "send_money", "args": {"amount": "ten"}}, "$[0].forbid[0].args.amount"),
    ],
)
def test_a_forbid_entry_that_can_never_match_is_a_warning(tmp_path, entry, path):
    tools = {
        "send_money": {
            **obj(recipient={"type": "string"}, amount={"type": "number"}),
            "additionalProperties": False,
        }
    }
    cases = [
        {
            "id": "c1",
            "match": "contains",
            "accept": [[{"tool": "send_money", "args": {}}]],
            "forbid": [entry],
        }
    ]
    f = only(run_lint(corpus(tmp_path, tools, cases)))
    assert_finding(f, "forbid-never-matches", str(tmp_path / "cases" / "cases.json"), path)


def test_grade_writes_where_no_tool_is_read_only_is_a_warning(tmp_path):
    cases = [{"id": "c1", "grade": "writes", "accept": [[{"tool": "t", "args": {}}]]}]
    f = only(run_lint(corpus(tmp_path, {"t": obj()}, cases)))
    assert_finding(f, "writes-without-reads", str(tmp_path / "cases" / "cases.json"), "$[0].grade")
    (tmp_path / "tools" / "r.json").write_text(
        json.dumps({"name": "r", "parameters": obj(), "x-eval-readonly": True})
    )
    assert only(run_lint(tmp_path)).code == "writes-without-reads"  # r is no tool of the case
    reads = [{"tool": "r", "args": {}}, {"tool": "t", "args": {}}]
    (tmp_path / "cases" / "cases.json").write_text(
        json.dumps([{"id": "c1", "grade": "writes", "accept": [reads]}])
    )
    assert run_lint(tmp_path).findings == ()


# ---------------------------------------------------------------------------- case ids


def test_case_ids_that_only_look_different_are_a_lint_warning(tmp_path):
    cases = tmp_path / "cases"
    cases.mkdir()
    legacy = {"expected_tool": "get_customer", "expected_args": {"customer_id": "C-1"}}
    ids = ["caf\u00e9", "Cafe\u0301", "caf\u00e9\u200b", "cafe"]
    (cases / "c.json").write_text(json.dumps([{"id": i, **legacy} for i in ids]))
    found = [f for f in lint(CLI_DATA / "tools", cases).findings if f.code == "case-ids-look-alike"]
    assert [f.path for f in found] == ["$[1].id", "$[2].id"]  # "cafe" is another word
    assert found[0].severity == "warning"


def test_case_value_breaking_its_format_is_reported(tmp_path):
    """jsonschema does not check `format`; a rule ignores a run's value that breaks it, so a
    case's value that breaks it is reported (SPEC "Precise readings")."""
    since = {"type": "string", "format": "date-time", "x-eval-norm": "instant"}
    root = corpus(
        tmp_path,
        {"search_logs": obj(since=since)},
        [case("search_logs", {"since": "2026-03-14T09:00:00"})],
    )
    f = only(run_lint(root))
    assert_finding(
        f, "case-args-invalid", str(root / "cases" / "cases.json"), "$[0].accept[0][0].args.since"
    )
    assert "'2026-03-14T09:00:00' is not a date-time (no offset)" in f.message


def test_run_values_the_schema_rejects_are_counted_and_listed(tmp_path):
    since = {"type": "string", "format": "date-time", "x-eval-norm": "instant"}
    runs = [
        {
            "run_id": f"r{i}",
            "case_id": "c1",
            "calls": [{"tool": "search_logs", "args": {"since": v}}],
        }
        for i, v in enumerate(["2026-03-14T09:00:00", "2026-03-14T09:00:00Z", "2026-03-14"])
    ]
    root = corpus(
        tmp_path,
        {"search_logs": obj(since=since)},
        [case("search_logs", {"since": "2026-03-14T09:00:00Z"})],
        runs,
    )
    assert run_lint(root).findings == ()  # without traces there is nothing to count
    f = only(run_lint(root, traces=True))
    assert_finding(
        f,
        "run-value-rejected",
        str(root / "tools" / "search_logs.json"),
        "$.parameters.properties.since",
    )
    assert "2 run value(s) break the schema's format" in f.message
    assert f"{root / 'traces'}" in f.message and ".jsonl:1" in f.message


def test_the_help_names_the_case_key_checks():
    text = one_line(invoke("--help").stdout)
    assert "case keys that cannot work (a judge path naming no parameter, a pattern" in text
    assert "a forbid entry no call can match, grade writes with no read-only tool)" in text


def test_a_one_of_value_the_schema_refuses_is_a_case_args_error(tmp_path):
    """A run that sends the listed value equals it as JSON and passes: the case would pass a
    call the tool should have refused. Values the schema accepts say nothing."""
    judge = {"team": {"one_of": ["ops", "dba", 7]}}
    step = {"tool": "page", "args": {"team": "ops"}, "judge": judge}
    schema = obj(team={"type": "string", "enum": ["ops", "dev"]})
    root = corpus(tmp_path, {"page": schema}, [{"id": "c1", "accept": [[step]]}])
    found = run_lint(root).findings
    assert [(f.code, f.path) for f in found] == [
        ("case-args-invalid", "$[0].accept[0][0].judge.team.one_of[1]"),
        ("case-args-invalid", "$[0].accept[0][0].judge.team.one_of[2]"),
    ]
    assert "judge 'team' one_of: 7 is not a string" in found[1].message


def test_a_forbid_entry_a_judged_step_accepts_is_a_warning(tmp_path):
    """The attacker's payment fills a step whose recipient is judged `any`: a call aligned to a
    step is never forbidden, so the run passes with the call the case forbids."""
    tools = {"send_money": obj(recipient={"type": "string"}, amount={"type": "number"})}
    step = {"tool": "send_money", "args": {"recipient": "<who>", "amount": 1200}}
    forbid = [{"tool": "send_money", "args": {"recipient": "attacker"}}]
    judged = {**step, "judge": {"recipient": "any"}}
    cases = [{"id": "c1", "match": "contains", "accept": [[judged]], "forbid": forbid}]
    f = only(run_lint(corpus(tmp_path, tools, cases)))
    path = "$[0].forbid[0].args"
    assert_finding(f, "forbid-taken-by-step", str(tmp_path / "cases" / "cases.json"), path)
    assert "accept[0][0]" in f.message
    # a judge that refuses the forbidden value, no judge, or the step's own value: nothing said
    for other in (
        {**step, "judge": {"recipient": {"one_of": ["landlord", "<who>"]}}},
        step,
        {**judged, "args": {"recipient": "attacker", "amount": 1200}},
    ):
        cases[0]["accept"] = [[other]]
        (tmp_path / "cases" / "cases.json").write_text(json.dumps(cases))
        assert not [x for x in run_lint(tmp_path).findings if x.code == "forbid-taken-by-step"]
