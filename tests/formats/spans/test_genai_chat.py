"""GenAI chat messages on spans (`formats/spans/genai_chat.py`)."""

from __future__ import annotations

import json

from tests.conftest import FRAMEWORKS, score_fixture
from tests.formats.common import labels


def test_genai_chat_messages_as_an_array_of_json_strings(tmp_path):
    """OTel attributes cannot hold objects, so some instrumentations record
    `gen_ai.input.messages`/`gen_ai.output.messages` as an array of strings, each message's JSON.
    The committed GenAI chat spans rewritten that way read the same (they read 0 calls before)."""
    rewritten = []
    for line in (FRAMEWORKS / "genai-chat-spans.jsonl").read_text().splitlines():
        span = json.loads(line)
        for key in ("gen_ai.input.messages", "gen_ai.output.messages"):
            value = span["attributes"].get(key)
            if isinstance(value, str):
                span["attributes"][key] = [json.dumps(m) for m in json.loads(value)]
        rewritten.append(json.dumps(span))
    path = tmp_path / "spans.jsonl"
    path.write_text("\n".join(rewritten) + "\n")
    args = ("--error-pattern", "not found", "--error-pattern", "^customer service")
    original = score_fixture(FRAMEWORKS / "genai-chat-spans.jsonl", *args)
    doc = score_fixture(path, *args)
    assert labels(doc) == labels(original)
    assert sum(len(r["calls"]) for r in doc["runs"]) == 6
