"""Tool errors written as text: the frameworks' own default replies, and the user's patterns.

Many agent frameworks hand a failed tool's error to the model as the tool's reply, in plain
text, with no flag a log keeps: read as data, those attempts would count as calls that
succeeded. A reply (a call's `result`: a string, or text parts) that matches one of these makes
the call an errored attempt. The built-in list applies to every format but the native one (whose
records say so themselves, SPEC "Traces"); `--error-pattern` applies to every format.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final

import orjson

from ..jsonvalue import dumps as json_dumps
from ..model import InputError
from ..patterns import DOTALL, TIMEOUT, PatternError, compiled, search

if TYPE_CHECKING:
    import regex


@dataclass(frozen=True)
class ErrorText:
    """A framework's default text for a tool that failed."""

    framework: str
    pattern: str
    """Searched in the reply (`patterns.search`, DOTALL). Written without two `.*` in a row
    of the text: each is a single pass (a lookahead checks what stands in the middle), so a
    1 MB reply takes milliseconds, not a minute."""
    source: str
    """Where the framework writes it."""
    example: str


FRAMEWORK_ERRORS: tuple[ErrorText, ...] = (
    ErrorText(
        "OpenAI Agents SDK",
        r"\AAn error occurred while running the tool\. Please try again\.",
        "agents/tool.py, default_tool_error_function (a function tool that raised)",
        "An error occurred while running the tool. Please try again.",
    ),
    ErrorText(
        "OpenAI Agents SDK",
        r"\ATool '[^'\n]*' timed out after [0-9.e+-]+ seconds\.\Z",
        "agents/tool.py, default_tool_timeout_error_message",
        "Tool 'get_customer' timed out after 30 seconds.",
    ),
    ErrorText(
        "LangGraph ToolNode",
        r"\AError: .*\n Please fix your mistakes\.\Z",
        "langgraph/prebuilt/tool_node.py, TOOL_CALL_ERROR_TEMPLATE (handle_tool_errors=True)",
        "Error: NotFound('customer C-9 not found')\\n Please fix your mistakes.",
    ),
    ErrorText(
        "LangGraph ToolNode",
        r"\AError (?:invoking|executing) tool '[^'\n]*' with kwargs (?=.* with error:\n )"
        r".*\n Please fix the error and try again\.\Z",
        "langgraph/prebuilt/tool_node.py, TOOL_INVOCATION_ERROR_TEMPLATE (arguments that fail "
        "the tool's schema) and TOOL_EXECUTION_ERROR_TEMPLATE",
        "Error invoking tool 'get_customer' with kwargs {'id': 1} with error:\\n customer_id: "
        "Field required\\n Please fix the error and try again.",
    ),
    ErrorText(
        "LangGraph ToolNode",
        r"\AError: (?=.* is not a valid tool, try one of \[).*\]\.\Z",
        "langgraph/prebuilt/tool_node.py, INVALID_TOOL_NAME_ERROR_TEMPLATE",
        "Error: get_client is not a valid tool, try one of [get_customer].",
    ),
    ErrorText(
        "Semantic Kernel",
        r"\AAn error occurred while invoking the function [^\n:]{1,300}: ",
        "semantic_kernel/kernel.py, invoke_function_call (a function that raised, under auto "
        "function calling)",
        "An error occurred while invoking the function Billing-get_customer: customer C-9 not "
        "found",
    ),
    ErrorText(
        "CrewAI",
        r"\AError executing tool: ",
        "crewai/agents/agent_executor.py, execute_native_tool and crewai/utilities/"
        "agent_utils.py (a tool that raised, under native function calling)",
        "Error executing tool: customer C-9 not found",
    ),
    ErrorText(
        "pydantic-ai",
        r"\n\nFix the errors and try again\.\Z",
        "pydantic_ai/messages.py, RetryPromptPart.model_response (ModelRetry, invalid arguments)",
        "customer C-9 not found\\n\\nFix the errors and try again.",
    ),
)


GIVE_UP: Final = 3
"""Timeouts after which a pattern is no longer searched in a reading (each costs the limit)."""


class ErrorPatterns:
    """The patterns one reading applies: the built-in list, and the user's (`--error-pattern`).

    Each search has a time limit (`patterns.TIMEOUT`): a reply a pattern cannot be searched in
    within it is taken as no match, and `timeouts` says where (`file:line`, the pattern), for
    the scoring to warn about; after `GIVE_UP` of them a pattern is not searched again."""

    def __init__(self, user: Iterable[str] = ()) -> None:
        self.user = tuple(_compile(p) for p in user)
        self.timeouts: list[tuple[str, str]] = []
        """(`file:line`, pattern) for each search that ran out of time, not yet taken."""
        self._slow: Counter[str] = Counter()

    @cached_property
    def builtin(self) -> tuple[regex.Pattern[str], ...]:
        """The built-in patterns (`FRAMEWORK_ERRORS`), compiled when first searched: a reading
        of native runs, to which they do not apply, compiles none (nor imports regex)."""
        return tuple(compiled(e.pattern, DOTALL) for e in FRAMEWORK_ERRORS)

    def mark(self, calls: Any, *, builtin: bool, source: str = "") -> None:
        """Flag each native call (a dict) whose text reply matches a pattern: `is_error`."""
        if type(calls) is not list:
            return
        patterns = (*self.builtin, *self.user) if builtin else self.user
        if not patterns:
            return
        for call in calls:
            if type(call) is not dict or "result" not in call:
                continue
            result = call["result"]
            text = reply_text(result)
            if text is not None:
                if any(self._search(p, text, source) for p in patterns):
                    call["is_error"] = True
            elif self.user and type(result) in (dict, list):
                # an object reply (ADK's {"status": "error", ...}, a tool's own error object):
                # the user's patterns search its JSON text, keys sorted
                text = json_dumps(result, option=orjson.OPT_SORT_KEYS).decode()
                if any(self._search(p, text, source) for p in self.user):
                    call["is_error"] = True

    def _search(self, pattern: regex.Pattern[str], text: str, source: str) -> bool:
        if self._slow[pattern.pattern] >= GIVE_UP:
            return False
        found = search(pattern, text)
        if found is None:
            self._slow[pattern.pattern] += 1
            self.timeouts.append((source, pattern.pattern))
        return found is True

    def take_timeouts(self) -> list[str]:
        """What ran out of time since the last call, as warnings naming `file:line`."""
        out = []
        for source, pattern in self.timeouts:
            given_up = self._slow[pattern] >= GIVE_UP
            out.append(
                f"{source}: the error pattern {pattern!r} took over {TIMEOUT:g} s on a reply "
                "and was taken as no match"
                + (f" (after {GIVE_UP} such replies it is no longer searched)" if given_up else "")
            )
        self.timeouts = []
        return out


def reply_text(result: Any) -> str | None:
    """A reply's text: a string, or a list of text parts joined; None for anything else."""
    if type(result) is str:
        return result
    if type(result) is list and result:
        texts = [p.get("text") for p in result if type(p) is dict]
        if len(texts) == len(result) and all(type(t) is str for t in texts):
            return "".join(t for t in texts if type(t) is str)
    return None


def _compile(pattern: str) -> regex.Pattern[str]:
    try:
        return compiled(pattern, DOTALL)
    except PatternError as e:
        raise InputError(f"--error-pattern {pattern!r} is not a regular expression: {e}") from None


def check(patterns: Sequence[str]) -> None:
    """InputError for a pattern that does not compile."""
    for p in patterns:
        _compile(p)
