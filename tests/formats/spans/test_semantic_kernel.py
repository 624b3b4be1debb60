"""Semantic Kernel's spans (`formats/spans/semantic_kernel.py`): GenAI `execute_tool` spans under
plugin-qualified names, read as the plugin's functions where `sk.available_functions` lists them.
The fixture was written by Semantic Kernel 1.45 itself (`scripts/framework_traces.py
semantic-kernel-spans`)."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import FRAMEWORKS, score_fixture
from tests.formats.common import SCENARIO, verdicts, write

LOOP = "AutoFunctionInvocationLoop"


def spans() -> list[dict[str, Any]]:
    path = FRAMEWORKS / "semantic-kernel-spans.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_semantic_kernel_tool_spans_are_plugin_qualified_and_read_as_the_function():
    tools = [s for s in spans() if s["attributes"].get("gen_ai.operation.name") == "execute_tool"]
    assert {s["attributes"]["gen_ai.tool.name"] for s in tools} == {
        "Billing-get_customer",
        "Billing-get_invoice",
    }
    doc = score_fixture(FRAMEWORKS / "semantic-kernel-spans.jsonl")
    assert doc["errors"] == [] and doc["warnings"] == [] and verdicts(doc) == SCENARIO


def test_without_the_loop_span_the_qualified_names_stay_and_are_warned_about(tmp_path):
    found = [s for s in spans() if s["name"] != LOOP]
    doc = score_fixture(write(tmp_path / "noloop.jsonl", found))
    assert verdicts(doc) != SCENARIO
    assert any('"Billing-get_customer"' in w for w in doc["warnings"])
    # a name the loop span does not list keeps its name
    found = spans()
    for span in found:
        if span["name"] == LOOP:
            span["attributes"]["sk.available_functions"] = "Billing-get_invoice"
    doc = score_fixture(write(tmp_path / "partial.jsonl", found))
    tools = {c["tool"] for r in doc["runs"] for c in r["calls"]}
    assert tools == {"Billing-get_customer", "get_invoice"}


def test_semantic_kernel_spans_without_sensitive_data_are_unscoreable(tmp_path):
    found = spans()
    for span in found:
        for key in ("gen_ai.tool.call.arguments", "gen_ai.tool.call.result"):
            span["attributes"].pop(key, None)
    doc = score_fixture(write(tmp_path / "nosensitive.jsonl", found), exit_code=2)
    assert doc["runs"] == [] and len(doc["errors"]) == 4
    assert all("did not record their arguments" in e["error"] for e in doc["errors"])
