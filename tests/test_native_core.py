"""The native core (native/, `evalrun_native`) against the Python reference (issue 31).

Each ported function gets the same generated values as its Python reference, and the results
must be equal by `==` and of the same types all the way down (keys from both cores are dict keys
and are sorted together), key order and the sign of -0.0 included; an exception must be of the
same type. The reference runs with pure-Python leaves (`_reference`), whichever core the process
chose. Then the example corpus and a generated distinct-run corpus are scored by the command line
under `EVALRUN_CORE=python` and `EVALRUN_CORE=native`: the output bytes must be identical in
every format.

Skipped when the extension is not built, unless `EVALRUN_CORE=native` asks for it (as `make
test` does where cargo is): then a missing extension fails here.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalrunner import core, jsonvalue
from evalrunner.grade import compare, norms, validity
from evalrunner.grade.compare import ToolPlan
from evalrunner.grade.norms import BUILTINS
from evalrunner.read.tools import parse_tool
from tests.conftest import EXPENSIVE

from .strategies import norm_inputs

if os.environ.get(core.ENV) == "native":
    import evalrun_native as native
else:
    native = pytest.importorskip("evalrun_native", reason="the native core is not built")

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------------------- comparing


def same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down (dict key order and -0.0 included)."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return (a == b and math.copysign(1, a) == math.copysign(1, b)) or (a != a and b != b)
    if type(a) in (tuple, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return (
            list(a) == list(b)
            and all(same(k, j) for k, j in zip(a, b))
            and all(same(a[k], b[k]) for k in a)
        )
    return bool(a == b)


def outcome(f: Callable[..., Any], *args: Any) -> tuple[str, Any]:
    try:
        return "value", f(*args)
    except Exception as e:
        return "raised", type(e)


def assert_same(reference: tuple[str, Any], got: tuple[str, Any]) -> None:
    if reference[0] == "raised" or got[0] == "raised":
        assert reference == got
        return
    assert reference[1] == got[1]
    assert same(reference[1], got[1]), (reference[1], got[1])


@contextlib.contextmanager
def _reference() -> Iterator[None]:
    """The Python core's leaves in the modules the reference functions read them from."""
    patched = [
        (compare, "canon_key", jsonvalue.py_canon_key),
        (compare, "json_eq", jsonvalue.py_json_eq),
        (norms, "canon_key", jsonvalue.py_canon_key),
        (validity, "canon_key", jsonvalue.py_canon_key),
        (validity, "json_eq", jsonvalue.py_json_eq),
    ]
    saved = [(m, name, getattr(m, name)) for m, name, _ in patched]
    try:
        for m, name, f in patched:
            setattr(m, name, f)
        yield
    finally:
        for m, name, f in saved:
            setattr(m, name, f)


def reference(f: Callable[..., Any], *args: Any) -> tuple[str, Any]:
    with _reference():
        return outcome(f, *args)


@pytest.fixture(autouse=True)
def _native_nodes(monkeypatch):
    """`compare.native_node` builds with the extension even when the process runs the Python
    core (`EVALRUN_CORE=python`, where the reference is Python all through)."""
    monkeypatch.setattr(core, "NATIVE", native)
    monkeypatch.setattr(compare, "_native_nodes", {})


# -------------------------------------------------------------------------------- values


class Odd:
    """Not JSON (a plugin's output): keyed by type name and repr."""

    def __repr__(self) -> str:
        return "Odd()"


class Text(str):
    pass


SPECIAL_NUMBERS = [
    0,
    -0.0,
    0.0,
    1,
    1.0,
    -1,
    True,
    False,
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) - 1,
    2**64,
    2**64 + 1,
    10**30,
    -(10**40),
    1e308,
    -1e308,
    5e-324,
    2.0**53,
    2**53 + 1,
    float(2**63),
    0.1,
    1e16,
    float("inf"),
    float("-inf"),
]
SPECIAL_TEXT = [
    "",
    " ",
    "a",
    "A",
    " MiXed \t",
    "\x1c x \x1f",
    "\x85x\xa0",
    "\u3000Ab\u2028",
    "Straße",
    "STRASSE",
    "İstanbul",
    "ΣΑΣ",
    "ﬁ",
    "ǅ",
    "\u00e9",
    "e\u0301",
    "日本",
    "🙂",
    "\ud800",
    "a\udfffb",
    "\x00",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),  # beyond 64 bits too
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(SPECIAL_NUMBERS),
    st.text(max_size=8),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=6),
    st.sampled_from(SPECIAL_TEXT),
)


def values(max_leaves: int = 16, keys: st.SearchStrategy[Any] | None = None):
    keys = (
        keys if keys is not None else st.one_of(st.text(max_size=4), st.sampled_from(SPECIAL_TEXT))
    )
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=5),
            st.dictionaries(keys, children, max_size=5),
        ),
        max_leaves=max_leaves,
    )


not_json = st.one_of(
    st.builds(Odd),
    st.tuples(st.integers(), st.text(max_size=2)),
    st.text(max_size=3).map(Text),
    st.dictionaries(st.integers(-3, 3), st.integers(), max_size=3),  # keys that are not strings
    st.dictionaries(st.one_of(st.integers(0, 2), st.text(max_size=1)), st.none(), max_size=3),
)
anything = st.one_of(values(), st.lists(st.one_of(values(4), not_json), max_size=3), not_json)


def respelled(value: Any, rnd: Any) -> Any:
    """A value JSON-equal to `value`, or nearly: ints as floats, keys reordered, a leaf changed."""
    if type(value) is dict:
        items = list(value.items())
        rnd.shuffle(items)
        return {k: respelled(v, rnd) for k, v in items}
    if type(value) is list:
        return [respelled(v, rnd) for v in value]
    if type(value) is int and abs(value) < 2**60 and rnd.random() < 0.5:
        return float(value)
    if type(value) is float and value.is_integer() and abs(value) < 2**60 and rnd.random() < 0.5:
        return int(value)
    if rnd.random() < 0.05:
        return rnd.choice([None, True, 0, 1.0, "x", [], {}])
    return value


# ------------------------------------------------------------------------- canon_key, json_eq


@given(anything)
def test_canon_key_agrees(value):
    want, got = outcome(jsonvalue.py_canon_key, value), outcome(native.canon_key, value)
    assert_same(want, got)
    if want[0] == "value":
        assert hash(want[1]) == hash(got[1])


@given(st.lists(values(8), max_size=8))
def test_native_and_python_keys_sort_together(items):
    """Keys from both cores in one list sort as the Python keys alone do, pair by pair."""
    mixed = []
    for i, x in enumerate(items):
        mixed.append((native.canon_key(x) if i % 2 else jsonvalue.py_canon_key(x), i))
    pure = [(jsonvalue.py_canon_key(x), i) for i, x in enumerate(items)]
    assert [i for _, i in sorted(mixed)] == [i for _, i in sorted(pure)]


@given(values(), st.randoms(use_true_random=False))
def test_json_eq_agrees(value, rnd):
    other = respelled(value, rnd)
    for a, b in ((value, other), (other, value), (value, value)):
        assert_same(outcome(jsonvalue.py_json_eq, a, b), outcome(native.json_eq, a, b))
        # and canon_key's promise, on both cores
        assert (native.canon_key(a) == native.canon_key(b)) == jsonvalue.py_json_eq(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [(1, 1.0), (True, 1), (0, False), (-0.0, 0), (2**64, float(2**64)), (2**64 + 1, float(2**64))],
)
def test_json_eq_on_numbers(a, b):
    assert native.json_eq(a, b) is jsonvalue.py_json_eq(a, b)
    assert native.json_eq(b, a) is jsonvalue.py_json_eq(b, a)


def test_too_deep_raises_recursion_error_not_a_crash():
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(RecursionError):
        native.canon_key(deep)
    with pytest.raises(RecursionError):
        native.json_eq(deep, deep)


# ----------------------------------------------------------------------------------- scan


lines = st.one_of(
    st.binary(max_size=60),
    st.lists(
        st.sampled_from(
            [b"-", b"0", b"7", b"9" * 18, b"9" * 19, b"1" * 20, b"[", b"{", b"(", b'"', b" ", b"e"]
        ),
        max_size=12,
    ).map(b"".join),
)


@given(lines)
def test_scan_agrees(data):
    assert native.scan_json(data) == jsonvalue.py_scan_json(data)


# ------------------------------------------------------------------------- normalizing nodes

RULE_SCHEMAS = {
    **{name: {"x-eval-norm": name} for name in BUILTINS},
    "known_fields": {
        "type": "object",
        "x-eval-norm": "known_fields",
        "properties": {"a": {}, "date": {}},
    },
    "number2": {"x-eval-norm": {"name": "number", "digits": 2}},
    "month_berlin": {"x-eval-norm": {"name": "month", "tz": "Europe/Berlin"}},
    "url_any": {"x-eval-norm": {"name": "url", "scheme": "any"}},
    "casefold_string": {"type": "string", "x-eval-norm": "casefold"},
    "set_of_strings": {
        "type": "array",
        "items": {"type": "string", "x-eval-norm": "casefold"},
        "x-eval-norm": "set",
    },
    "enum": {"enum": ["a", 1, None, [1]], "x-eval-norm": "casefold"},
    "const": {"const": {"k": 1}, "x-eval-norm": "known_fields"},
    "integer": {"type": "integer", "x-eval-norm": "number"},
    "nullable": {"type": ["string", "null"], "x-eval-norm": "casefold"},
    "pattern": {"type": "string", "pattern": "^[a-z ]+$", "x-eval-norm": "casefold"},
    "date_time": {"type": "string", "format": "date-time", "x-eval-norm": "instant"},
    "unordered_items": {
        "type": "array",
        "items": {"type": "number", "x-eval-norm": "money_cents"},
        "x-eval-norm": "unordered_list",
    },
}


def _plan(schema: dict) -> ToolPlan:
    props = {"p": schema, "q": {"type": "integer", "default": 3}, "r": {**schema, "default": "X"}}
    tool = parse_tool(
        {"name": "t", "parameters": {"type": "object", "properties": props}}, "test_native_core"
    )
    return ToolPlan.compile(tool, BUILTINS)


PLANS = {name: _plan(schema) for name, schema in RULE_SCHEMAS.items()}
# Without lone surrogates: no reader makes one (`jsonvalue.loads` refuses them, as orjson does;
# tests/test_hostile_inputs.py), and the schema check could not print one.
WRITABLE_TEXT = [t for t in SPECIAL_TEXT if not any(0xD800 <= ord(c) < 0xE000 for c in t)]
rule_values = st.one_of(
    norm_inputs(),
    values(8).filter(lambda v: _writable(v)),
    st.sampled_from(WRITABLE_TEXT),
    st.lists(st.sampled_from(WRITABLE_TEXT)),
)


def _writable(value: Any) -> bool:
    try:
        jsonvalue.dumps(value)
    except TypeError:
        return False
    return True


@EXPENSIVE
@pytest.mark.parametrize("name", sorted(PLANS))
@given(value=rule_values, other=st.one_of(st.none(), rule_values), checked=st.booleans())
def test_each_rule_normalizes_and_keys_alike(name, value, other, checked):
    """`normalize` at the rule's node and `ToolPlan.key` over a tool with it (a default beside
    it, a restated default): the same forms and keys, checked or not."""
    plan = PLANS[name]
    node = plan.root.props["p"]
    assert_same(
        reference(compare.py_normalize, value, node, checked),
        outcome(lambda: compare.native_node(node).normalize(value, checked)),
    )
    args = {"p": value, "q": 3 if other is None else other, "r": other}
    py_key = functools.partial(ToolPlan.key, plan, checked=checked)
    with _reference(), _core(None):
        want = outcome(py_key, args)
    assert_same(want, outcome(lambda: compare.native_node(plan.root).key(args, checked)))


@contextlib.contextmanager
def _core(module: Any) -> Iterator[None]:
    saved = core.NATIVE
    core.NATIVE = module
    try:
        yield
    finally:
        core.NATIVE = saved


def test_the_rejected_marker_is_the_python_cores():
    assert native.REJECTED == compare.REJECTED
    assert core.CORE_VERSION == native.CORE_VERSION


def test_the_ported_rules_are_the_builtins_by_identity():
    """A built-in the native core ports is recognized; every other rule runs as its Python fn."""
    kinds = {name: compare._native_rule(PLANS[name].root.props["p"].rule)[0] for name in PLANS}
    assert kinds["casefold"] == "casefold" and kinds["set"] == "set"
    assert kinds["unordered_list"] == "unordered_list" and kinds["known_fields"] == "known_fields"
    assert kinds["any"] == "constant"
    for name in ("month", "date", "instant", "money_cents", "number", "duration_secs", "url"):
        assert kinds[name] == "python", name


def test_a_python_rule_that_breaks_leaves_the_value_as_it_is():
    """As `Rule.apply`: any Exception keeps the value; KeyboardInterrupt goes through."""

    def boom(value):
        raise ZeroDivisionError("bug in a plugin")

    def stop(value):
        raise KeyboardInterrupt

    for fn, passes in ((boom, True), (stop, False)):
        node = native.Node(
            True, None, None, None, False, "python", fn, None, [], None, False, None, False
        )
        if passes:
            assert node.normalize("x") == "x"
        else:
            with pytest.raises(KeyboardInterrupt):
                node.normalize("x")


# ------------------------------------------------------------------------------ whole outputs

FORMATS = ["table", "json", "jsonl", "markdown", "junit", "html"]


def _score(core_name: str, traces: Path, tools: Path, cases: Path, fmt: str) -> bytes:
    env = {**os.environ, core.ENV: core_name, "COLUMNS": "120"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalrunner",
            "score",
            str(traces),
            "--tools",
            str(tools),
            "--cases",
            str(cases),
            "--format",
            fmt,
        ],
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert done.returncode in (0, 1), done.stderr.decode()
    return done.stdout + b"\n--- stderr ---\n" + done.stderr


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_example_corpus_scores_byte_identically_on_both_cores(fmt):
    args = (ROOT / "traces", ROOT / "tools", ROOT / "cases", fmt)
    python, native_out = _score("python", *args), _score("native", *args)
    assert len(python) > 200
    assert python == native_out


@pytest.fixture(scope="module")
def distinct_corpus(tmp_path_factory) -> Path:
    from scripts import bench_corpus as bench

    return bench.ensure_corpus(
        4000, tmp_path_factory.mktemp("native"), None, quiet=True, distinct=True
    )


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_a_distinct_run_corpus_scores_byte_identically_on_both_cores(distinct_corpus, fmt):
    c = distinct_corpus
    args = (c / "traces", c / "tools", c / "cases", fmt)
    python, native_out = _score("python", *args), _score("native", *args)
    assert python.count(b"\n") > 1000 if fmt == "jsonl" else len(python) > 1000
    assert python == native_out


# ---------------------------------------------------------------------------- choosing a core


def _cli(
    tmp_path: Path, env_core: str, shadow: str | None, *args: str
) -> subprocess.CompletedProcess:
    """The command line with `EVALRUN_CORE=env_core`, and `shadow` as the text of an
    `evalrun_native` module found before the built one (None: the built one)."""
    env = {**os.environ, core.ENV: env_core}
    if shadow is not None:
        (tmp_path / "evalrun_native.py").write_text(shadow)
        env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "evalrunner", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("shadow", "why"),
    [("raise ImportError('not built')", "cannot be imported"), ("CORE_VERSION = 0", "version 0")],
)
def test_native_required_but_unusable_is_an_input_error(tmp_path, shadow, why):
    score = (
        "score",
        str(ROOT / "traces"),
        "--tools",
        str(ROOT / "tools"),
        "--cases",
        str(ROOT / "cases"),
    )
    done = _cli(tmp_path, "native", shadow, *score)
    assert done.returncode == 2, done.stderr
    assert why in done.stderr and "make run" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    # unset, the same module means the Python core, said by --version
    assert _cli(tmp_path, "", shadow, "--version").stdout.strip().endswith("(core: python)")


def test_version_says_the_active_core(tmp_path):
    assert _cli(tmp_path, "", None, "--version").stdout.strip().endswith("(core: native)")
    assert _cli(tmp_path, "python", None, "--version").stdout.strip().endswith("(core: python)")
    bad = _cli(tmp_path, "fast", None, "score", "x")
    assert bad.returncode == 2 and "EVALRUN_CORE is 'fast'" in bad.stderr
