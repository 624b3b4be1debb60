"""LangChain messages (`formats/langchain.py`): model_dump(), messages_to_dict() and dumpd()."""

from __future__ import annotations

from tests.conftest import FRAMEWORKS, score_fixture
from tests.formats.common import labels


def test_langchain_dumpd_messages_read_as_model_dump_does():
    """`langchain_core.load.dumpd(state["messages"])`: each message a constructor with `kwargs`."""
    dumpd = labels(score_fixture(FRAMEWORKS / "langgraph-dumpd.jsonl"))
    assert dumpd == labels(score_fixture(FRAMEWORKS / "langgraph-model-dump.jsonl"))
    assert dumpd["retry"] == (
        "false_failure",
        [("get_customer", "errored"), ("get_customer", "exact")],
    )
    assert dumpd["raised"][0] == "false_pass"
