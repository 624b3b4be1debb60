"""`evalrunner.testing.assert_calls`: a run's calls in any call shape, graded against a case;
an AssertionError carrying the explanation only when the run truly fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalrunner.model import InputError
from evalrunner.testing import assert_calls, grade_calls, native_call

DATA = Path(__file__).parent / "data" / "case_formats"
TOOLS = DATA / "tools"
CASE = {"id": "w", "accept": [[{"tool": "get_weather", "args": {"city": "Paris"}}]]}


@pytest.mark.parametrize(
    "call",
    [
        {"tool": "get_weather", "args": {"city": "paris"}},
        {
            "id": "c",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "PARIS"}'},
        },
        {"type": "tool_use", "id": "t", "name": "get_weather", "input": {"city": "Paris "}},
        {"functionCall": {"name": "get_weather", "args": {"city": "paris"}}},
        {"toolUse": {"toolUseId": "x", "name": "get_weather", "input": {"city": "paris"}}},
        {
            "type": "function_call",
            "call_id": "c",
            "name": "get_weather",
            "arguments": '{"city":"paris"}',
        },
        {"name": "get_weather", "args": {"city": "paris"}, "id": "lc-1"},
    ],
)
def test_every_call_shape_passes_when_truly_equivalent(call: dict) -> None:
    result = assert_calls([call], CASE, tools=TOOLS)
    assert result.true_pass
    assert result.verdict in ("pass", "false_failure")


def test_a_false_failure_passes_and_says_why() -> None:
    result = assert_calls(
        [{"tool": "get_weather", "args": {"city": "paris", "unit": "celsius"}}], CASE, tools=TOOLS
    )
    assert (result.reported_pass, result.true_pass) == (False, True)
    assert set(result.shapes) == {"encoding", "default"}


def test_a_true_failure_raises_with_the_explanation() -> None:
    with pytest.raises(AssertionError) as e:
        assert_calls([{"tool": "get_weather", "args": {"city": "Rome"}}], CASE, tools=TOOLS)
    text = str(e.value)
    assert "case 'w': fail" in text
    assert 'city: "Rome" → "rome" ≠ "Paris" → "paris" (rule casefold)' in text
    assert 'missing step 0: get_weather {"city":"Paris"}' in text


def test_a_chat_transcript_and_a_case_by_id_from_another_harness() -> None:
    messages = [
        {"role": "user", "content": "weather, then book"},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "a",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"PARIS"}'},
                },
                {
                    "id": "b",
                    "type": "function",
                    "function": {
                        "name": "book_flight",
                        "arguments": '{"origin":"Paris","destination":"Rome","date":"2026-03-01"}',
                    },
                },
            ],
        },
    ]
    assert assert_calls(messages, "adk-paris", tools=TOOLS, cases=DATA / "adk").true_pass


def test_errors_say_what_is_wrong() -> None:
    with pytest.raises(InputError, match="give cases="):
        grade_calls([], "w", tools=TOOLS)
    with pytest.raises(InputError, match="unknown case 'nope'"):
        grade_calls([], "nope", tools=TOOLS, cases=DATA / "adk")
    with pytest.raises(InputError, match="cannot read these calls"):
        grade_calls([{"args": {}}], CASE, tools=TOOLS)


def test_native_call_keeps_the_error_flag() -> None:
    assert native_call({"name": "t", "arguments": "{}", "is_error": True}) == {
        "tool": "t",
        "args": "{}",
        "is_error": True,
    }
