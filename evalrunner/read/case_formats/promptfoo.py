"""promptfoo test files (YAML): `tests:` with `vars` and tool-call assertions.

`tool-call-f1` (its `value`: the expected tool names, a list or a comma-separated string) becomes
the case: those tools, in any order (`unordered`), their arguments not judged (promptfoo's F1
compares names). `is-valid-openai-tools-call` checks a call against the tool schema, which
evalrun's lint and grading already do; it is noted, not a case of its own. Every other assertion
(`javascript`, `python`, `llm-rubric`, model-graded ones, `contains`, …) is listed in a warning,
never dropped silently; a test with no tool-call assertion is left out, with a warning, and so are
a `defaultTest` kept in another file and `scenarios` (each named in a warning). A test's
id is its `description`; promptfoo does not ask descriptions to be unique, so one that several
tests of a file share is followed by a digest of the test's content (`weather-3f2a…`), and a test
without one gets an id made from its content alone: the same on every read.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ._steps import text_of
from .format import CaseFormat, Native, Source, stable_id

F1 = "tool-call-f1"
VALID = "is-valid-openai-tools-call"


def _tests(data: Any) -> list[Any] | None:
    if isinstance(data, dict) and isinstance(data.get("tests"), str):
        return []  # `tests: file://tests.yaml`: the tests are in another file (a warning says so)
    if isinstance(data, dict) and isinstance(data.get("tests"), list):
        tests: list[Any] = data["tests"]
        return tests
    if (
        isinstance(data, list)
        and data
        and all(isinstance(t, dict) and ("vars" in t or "assert" in t) for t in data)
    ):
        return data
    return None


def _detect(source: Source) -> bool:
    return _tests(source.data) is not None


def _file_ref(source: Source, ref: str) -> bool:
    source.warn("tests", f"the tests in {ref!r} are in another file: put that file under --cases")
    return False


def _names(value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [n.strip() for n in value.split(",") if n.strip()]
    if isinstance(value, list) and all(isinstance(n, str) for n in value):
        return list(value)
    return None


def _read(source: Source) -> list[Native]:
    tests = _tests(source.data) or []
    if isinstance(source.data, dict) and isinstance(source.data.get("tests"), str):
        _file_ref(source, source.data["tests"])
    # a test given as a file reference (`- file://more.yaml`) is read where it is, not here
    tests = [t for t in tests if not isinstance(t, str) or _file_ref(source, t)]
    default = source.data.get("defaultTest") if isinstance(source.data, dict) else None
    shared: list[Any] = []
    if isinstance(default, dict) and isinstance(default.get("assert"), list):
        shared = default["assert"]
    elif isinstance(default, str):
        source.warn(
            "defaultTest",
            f"the default test in {default!r} is in another file: its assertions are not read",
        )
    if isinstance(source.data, dict) and source.data.get("scenarios"):
        source.warn(
            "scenarios",
            "scenarios (tests crossed with configurations) are not read: write them as tests",
        )
    out: list[Native] = []
    labels = Counter(t.get("description") for t in tests if isinstance(t, dict))
    for i, test in enumerate(tests):
        at = f"tests[{i}]"
        if not isinstance(test, dict):
            source.warn(at, "a test must be a mapping; left out")
            continue
        asserts: list[Any] = test["assert"] if isinstance(test.get("assert"), list) else []
        steps: list[dict[str, Any]] | None = None
        for where, a in [
            *((f"{at}.assert[{k}]", a) for k, a in enumerate(asserts)),
            *((f"defaultTest.assert[{k}]", a) for k, a in enumerate(shared)),
        ]:
            kind = a.get("type") if isinstance(a, dict) else None
            if kind == F1:
                names = _names(a.get("value"))
                if names is None:
                    source.warn(where, "tool-call-f1 without a list of tool names; not read")
                    continue
                threshold = a.get("threshold", 1)
                if isinstance(threshold, (int, float)) and threshold < 1:
                    source.warn(
                        f"{where}.threshold",
                        f"an F1 of {threshold} passes partial sets; evalrun asks for the whole set",
                    )
                steps = [{"tool": n, "args": {}, "judge": {"": "any"}} for n in names]
            elif kind == VALID:
                continue  # the schema check evalrun does on every call
            else:
                source.warn(
                    where,
                    f"assertion {kind!r} is not a tool-call assertion evalrun can read; not graded",
                )
        if steps is None:
            source.warn(
                at, "no tool-call-f1 assertion: no expected tool calls; this test is left out"
            )
            continue
        desc = test.get("description")
        content = {k: test[k] for k in sorted(test) if k != "description"}
        if not (isinstance(desc, str) and desc):
            case_id = stable_id(source.file.name.split(".")[0], content)
        elif labels[desc] > 1:  # a label several tests share: made unique by the test's content
            case_id = stable_id(desc, content)
        else:
            case_id = desc
        case = {
            "id": case_id,
            "input": text_of(test.get("vars")),
            "accept": [steps],
            "match": "unordered",
        }
        out.append((case, f"{source.file} {at}"))
    return out


FORMAT = CaseFormat(
    name="promptfoo",
    summary="promptfoo test YAML: `tests:` with `vars`; `tool-call-f1`'s tool names, in any order, their "
    "arguments not judged; `is-valid-openai-tools-call` noted; other assertions listed in warnings",
    looks_like='YAML with "tests:" (each with "vars" and "assert")',
    version="promptfoo 0.11x",
    suffixes=(".yaml", ".yml"),
    detect=_detect,
    read=_read,
    order=40,
)
