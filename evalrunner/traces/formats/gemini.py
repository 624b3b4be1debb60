"""Google Gemini / Vertex AI conversations (google-genai): `functionCall` and `functionResponse`
parts of `Content` turns."""

from __future__ import annotations

from typing import Any

from ..format import TraceFormat
from ._pairing import Pairer, native_call

CALL_KEYS = ("functionCall", "function_call")
REPLY_KEYS = ("functionResponse", "function_response")
"""The REST (and `model_dump(by_alias=True)`) spelling, then the Python SDK's `model_dump()`."""
AFC_KEYS = ("automatic_function_calling_history", "automaticFunctionCallingHistory")
"""Where a `GenerateContentResponse` keeps the turns the SDK's automatic function calling ran:
the request's contents, then each call turn and its reply turn. Its `candidates` hold only the
final answer, so a response read without them would be a run of no call."""


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    """`contents` (or `messages`, or a response's automatic function calling history), then a
    GenerateContentResponse's `candidates[0].content`: `functionCall` parts (`name`, `args`, `id`)
    paired with `functionResponse` parts (`name`, `response`, `id`) by id, else by name, else by
    position.
    The `response` object is the call's result: `{"error": ...}` there is an errored attempt (the
    SDK's automatic function calling replies so when a tool raises)."""
    turns = _turns(record)
    if type(turns) is str:
        return turns
    pairer = Pairer()
    for i, content in enumerate(turns):
        if type(content) is not dict:
            return f"content {i} is not an object"
        parts = content.get("parts")
        if parts is None:
            continue  # a turn without parts: model_dump() of an empty Content
        if type(parts) is not list:
            return f'content {i}: "parts" is not a list'
        for part in parts:
            if type(part) is not dict:
                return f"content {i}: a part is not an object"
            call = _either(part, CALL_KEYS)
            if call is not None:
                if type(call) is not dict:
                    return f"content {i}: a functionCall is not an object"
                # model_dump() writes every unset field as null: `"args": null` is a call the
                # model made without arguments (a tool without parameters), not null arguments.
                source = call if call.get("args") is not None else {}
                pairer.call(native_call(call.get("name"), source, "args"), _key(call))
            reply = _either(part, REPLY_KEYS)
            if reply is not None:
                if type(reply) is not dict:
                    return f"content {i}: a functionResponse is not an object"
                fields = {} if reply.get("response") is None else {"result": reply["response"]}
                pairer.reply(_key(reply), fields)
    return pairer.calls


def _key(part: dict[str, Any]) -> Any:
    """What pairs a reply with its call: the `id` when the model gave one (the Gemini API only
    does on some models), else the function's name, as Gemini itself matches them: parallel
    calls answered in another order still pair right (then position, for a name answered
    twice)."""
    call_id = part.get("id")
    if call_id is not None and call_id != "":
        return call_id
    name = part.get("name")
    return f"\0name:{name}" if type(name) is str else None


def _turns(record: dict[str, Any]) -> list[Any] | str:
    turns: list[Any] | None = None
    for key in (*AFC_KEYS, "contents", "messages"):
        value = record.get(key)
        if key in AFC_KEYS and not value:
            continue  # null or [] when automatic function calling did not run
        if value is not None:
            if type(value) is not list:
                return f'"{key}" is not a list'
            turns = value
            break
    answer = _candidate(record)
    if answer is not None:
        turns = [*(turns or []), answer]
    if turns is None:
        return 'no "contents" or "messages" list (nor a response\'s "candidates")'
    return turns


def _candidate(record: dict[str, Any]) -> Any:
    """A GenerateContentResponse's first candidate's content (the one `response.text` reads)."""
    candidates = record.get("candidates")
    if type(candidates) is list and candidates and type(candidates[0]) is dict:
        return candidates[0].get("content")
    return None


def _either(part: dict[str, Any], keys: tuple[str, str]) -> Any:
    """A part's field in either spelling; model_dump() writes the ones a part is not as null."""
    found = part.get(keys[0])
    return found if found is not None else part.get(keys[1])


def _is_gemini(content: Any) -> bool:
    if type(content) is not dict or type(content.get("parts")) is not list:
        return False
    if content.get("role") == "model":
        return True
    return any(
        type(p) is dict and any(p.get(k) is not None for k in (*CALL_KEYS, *REPLY_KEYS))
        for p in content["parts"]
    )


def _detect(record: Any) -> bool:
    if type(record) is not dict:
        return False
    if _is_gemini(_candidate(record)):
        return True  # a GenerateContentResponse
    return any(
        _is_gemini(c)
        for key in ("contents", "messages", *AFC_KEYS)
        if type(record.get(key)) is list
        for c in record[key]
    )


def _exchange(
    request: dict[str, Any], response: dict[str, Any], rest: dict[str, Any]
) -> dict[str, Any] | None:
    """A generateContent request and its response, read as it is: its candidates, and the
    automatic function calling history (which holds the request's contents and every call
    made), after the request's `contents`."""
    candidates = response.get("candidates")
    if not (type(candidates) is list and candidates and type(candidates[0]) is dict):
        return None
    contents = request.get("contents")
    given = {"contents": contents} if type(contents) is list else {}
    answer = {k: response[k] for k in (*AFC_KEYS, "candidates") if k in response}
    return {**rest, **given, **answer}


FORMAT = TraceFormat(
    name="gemini",
    summary="Google Gemini / Vertex AI (google-genai): a request's contents, or a response",
    looks_like='parts with functionCall/functionResponse or role "model", in "contents", '
    '"messages" or "candidates"',
    detect=_detect,
    order=26,
    calls=calls,
    exchange=_exchange,
    call_keys=CALL_KEYS,
)
