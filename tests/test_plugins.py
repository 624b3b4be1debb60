"""Normalizer plugins: a real distribution on sys.path, found through its entry points."""

from __future__ import annotations

import importlib
import json
import sys

import pytest
from typer.testing import CliRunner

from evalrunner import InputError, ToolPlan, load_registry
from evalrunner.cli import app
from evalrunner.read.tools import parse_tool

PLUGIN = """
from evalrunner import Normalizer


def _phone(value, *, country="1"):
    if type(value) is not str:
        raise ValueError("not a phone number")
    digits = "".join(ch for ch in value if ch.isdigit())
    if not 7 <= len(digits) <= 15:
        raise ValueError("not a phone number")
    return digits if len(digits) > 10 else country + digits


phone = Normalizer("phone", "encoding", _phone, "a phone number compared by its digits",
                   options={"country": str})
clash = Normalizer("month", "encoding", _phone, "a second month")


def make_broken():
    raise RuntimeError("no phone book")
"""


def install(tmp_path, monkeypatch, entries: dict[str, str], name: str = "evalrun_phone") -> None:
    """A distribution `name` with a module and `evalrunner.normalizers` entry points."""
    (tmp_path / f"{name}.py").write_text(PLUGIN)
    dist = tmp_path / f"{name}-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    lines = "\n".join(f"{k} = {v}" for k, v in entries.items())
    (dist / "entry_points.txt").write_text(f"[evalrunner.normalizers]\n{lines}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    monkeypatch.delitem(sys.modules, name, raising=False)


def test_a_plugin_joins_the_registry_and_grades(tmp_path, monkeypatch):
    install(tmp_path, monkeypatch, {"phone": "evalrun_phone:phone"})
    registry = load_registry()
    assert registry["phone"].origin == "evalrun_phone:phone"
    tool = parse_tool(
        {
            "name": "call_back",
            "parameters": {
                "type": "object",
                "properties": {
                    "number": {"type": "string", "x-eval-norm": {"name": "phone", "country": "1"}}
                },
            },
        },
        "test",
    )
    plan = ToolPlan.compile(tool, registry)
    r = plan.compare({"number": "(555) 010-4477"}, {"number": "15550104477"})
    assert r.equal and r.shapes == ("encoding",)
    assert r.diffs[0].norm == "phone"


def test_norms_lists_plugins_with_their_origin(tmp_path, monkeypatch):
    install(tmp_path, monkeypatch, {"phone": "evalrun_phone:phone"})
    result = CliRunner().invoke(app, ["norms", "--format", "json"])
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    assert rows["phone"] == {
        "name": "phone",
        "class": "encoding",
        "origin": "evalrun_phone:phone",
        "meaning": "a phone number compared by its digits",
        "options": ["country"],
    }
    assert rows["month"]["origin"] == "built-in"


def test_a_clash_with_a_builtin_names_both(tmp_path, monkeypatch):
    install(tmp_path, monkeypatch, {"month": "evalrun_phone:clash"})
    with pytest.raises(InputError) as e:
        load_registry()
    assert str(e.value) == (
        "normalizer plugin 'month' (evalrun_phone:clash) clashes with the built-in normalizer "
        "'month'; give the plugin's normalizer another name"
    )
    result = CliRunner().invoke(app, ["norms"])
    assert result.exit_code == 2


def test_a_plugin_that_fails_to_load_is_named(tmp_path, monkeypatch):
    install(tmp_path, monkeypatch, {"broken": "evalrun_phone:make_broken"})
    with pytest.raises(InputError) as e:
        load_registry()
    assert str(e.value) == (
        "normalizer plugin 'broken' (evalrun_phone:make_broken) failed to load: "
        "RuntimeError: no phone book"
    )
