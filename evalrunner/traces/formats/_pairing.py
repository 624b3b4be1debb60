"""What the message-log formats share: pairing replies with their calls, and OpenAI's replies."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

import orjson

from ...jsonvalue import dumps as json_dumps
from ...jsonvalue import loads


class Pairer:
    """Calls in order, each reply attached to its call: by id, the earliest unanswered call with
    that id (logs reuse ids within a run), else by position, the earliest unanswered call."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self._by_id: dict[Any, deque[int]] = {}
        self._open: deque[int] = deque()
        self._answered: set[int] = set()

    def call(self, raw: dict[str, Any], call_id: Any) -> None:
        index = len(self.calls)
        self.calls.append(raw)
        self._open.append(index)
        key = id_key(call_id)
        if key is not None:
            self._by_id.setdefault(key, deque()).append(index)

    def done(self, raw: dict[str, Any]) -> None:
        """A call recorded with its own result: no reply will come for it."""
        self._answered.add(len(self.calls))
        self.calls.append(raw)

    def has_open(self, call_id: Any) -> bool:
        queue = self._by_id.get(id_key(call_id))
        return queue is not None and any(i not in self._answered for i in queue)

    def reply(self, call_id: Any, fields: dict[str, Any]) -> None:
        index = None
        queue = self._by_id.get(id_key(call_id))
        while queue and index is None:
            i = queue.popleft()
            if i not in self._answered:
                index = i
        if index is None:  # no such id (or it was answered already): by position
            while self._open and self._open[0] in self._answered:
                self._open.popleft()
            if not self._open:
                return  # a reply to no call: nothing to score
            index = self._open[0]
        self._answered.add(index)
        self.calls[index].update(fields)


def id_key(call_id: Any) -> Any:
    if call_id is None or call_id == "":
        return None
    if type(call_id) in (str, int, float):
        return (type(call_id), call_id)  # JSON-RPC's 1 and "1" are different ids
    return json_dumps(call_id, option=orjson.OPT_SORT_KEYS)


def native_call(name: Any, source: dict[str, Any], args_key: str) -> dict[str, Any]:
    """A native call: args only when recorded (a call without args has `{}`; null is malformed)."""
    call = {"tool": name}
    if args_key in source:
        call["args"] = source[args_key]
    return call


def openai_reply(content: Any) -> Any:
    """A Chat Completions tool message's (or a Responses function_call_output's) result.

    OpenAI replies carry no error flag, so the rule is: a reply whose text parses as a JSON object
    is that object, and the native rule reads it (an `error` key not null or false, or
    `is_error`/`isError` true, makes an errored attempt). Text is the content string, or its
    text parts joined; anything else is kept as it is.
    """
    text = content
    if type(content) is list:
        parts = [p.get("text") for p in content if type(p) is dict]
        texts = [t for t in parts if isinstance(t, str)]
        if texts and len(texts) == len(parts):
            text = "".join(texts)
    if type(text) is str and text[:1] == "{":
        try:
            parsed = loads(text)
        except ValueError:
            return content
        if type(parsed) is dict:
            return parsed
    return content


def messages_kind(record: dict[str, Any]) -> str | None:
    """Which format a record's `messages` list is in, told by the first tool activity: the first
    message a format claims (`TraceFormat.claims_message`, formats in detection order) names
    it; None when the record has no `messages` list or it is in no format's.

    Without any tool activity, it is a conversation without tool calls, which reads the same (no
    calls) in every format; it is read as the format that says it reads those
    (`TraceFormat.plain_messages`: Chat Completions).
    """
    messages = record.get("messages")
    if type(messages) is not list:
        return None
    claims, plain = _claimers()
    for m in messages:
        for name, claims_message in claims:
            if claims_message(m):
                return name
        if type(m) is not dict:
            return None
    return plain if all(type(m) is dict and "role" in m for m in messages) else None


_CLAIMERS: list[tuple[tuple[tuple[str, Callable[[Any], bool]], ...], str | None]] = []


def _claimers() -> tuple[tuple[tuple[str, Callable[[Any], bool]], ...], str | None]:
    """The formats that claim `messages` lists, in detection order (found once: the registry
    imports this module, so it is asked on first use)."""
    if not _CLAIMERS:
        from ..registry import trace_formats

        formats = trace_formats().values()
        claims = tuple((f.name, f.claims_message) for f in formats if f.claims_message is not None)
        plain = next((f.name for f in formats if f.plain_messages), None)
        _CLAIMERS.append((claims, plain))
    return _CLAIMERS[0]


def has_messages(record: dict[str, Any]) -> bool:
    """A `messages` list decides the format on its own (`messages_kind`), whatever else is there."""
    return type(record.get("messages")) is list


ANTHROPIC_BLOCKS = frozenset({"tool_use", "tool_result", "mcp_tool_use", "mcp_tool_result"})


def is_str_in(value: Any, names: frozenset[str] | set[str]) -> bool:
    """`value in names` for a value read from a trace: a list or an object there (unhashable) is
    simply not one of the names, not a TypeError."""
    return type(value) is str and value in names


def message_parts(record: dict[str, Any], key: str) -> list[dict[str, Any]] | str:
    """The objects in each message's `key` list (Haystack's `content`, Semantic Kernel's
    `items`), in order, parts that are not objects skipped; why none, when the record has no
    `messages` list or a message is not an object."""
    messages = record.get("messages")
    if type(messages) is not list:
        return 'no "messages" list'
    out: list[dict[str, Any]] = []
    for i, m in enumerate(messages):
        if type(m) is not dict:
            return f"message {i} is not an object"
        parts = m.get(key)
        out.extend(p for p in (parts if type(parts) is list else ()) if type(p) is dict)
    return out


def has_part(message: Any, key: str, test: Callable[[dict[str, Any]], bool]) -> bool:
    """A message (an object) with an object in its `key` list that passes `test`."""
    if type(message) is not dict:
        return False
    parts = message.get(key)
    return type(parts) is list and any(type(p) is dict and test(p) for p in parts)
