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


# ------------------------------------------------------------- a local plugin module, by path

LOCAL = """
from evalrunner import Normalizer


def _digits(value):
    if type(value) is not str:
        raise ValueError("not text")
    return "".join(ch for ch in value if ch.isdigit())


digits = Normalizer("digits", "encoding", _digits, "a text compared by its digits")
"""


def local_project(tmp_path, monkeypatch, plugin: str = LOCAL) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "rules.py").write_text(plugin)
    (tmp_path / "pyproject.toml").write_text('[tool.evalrun]\nplugins = ["evals/rules.py"]\n')
    tool = {
        "name": "call_back",
        "parameters": {
            "type": "object",
            "properties": {"phone": {"type": "string", "x-eval-norm": "digits"}},
        },
    }
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "t.json").write_text(json.dumps([tool]))
    (tmp_path / "cases").mkdir()
    case = {"id": "c", "accept": [[{"tool": "call_back", "args": {"phone": "555-0100"}}]]}
    (tmp_path / "cases" / "c.json").write_text(json.dumps([case]))
    (tmp_path / "traces").mkdir()
    run = {
        "run_id": "r1",
        "case_id": "c",
        "calls": [{"tool": "call_back", "args": {"phone": "5550100"}}],
    }
    (tmp_path / "traces" / "t.jsonl").write_text(json.dumps(run) + "\n")


def test_a_local_plugin_module_named_in_the_settings_grades(tmp_path, monkeypatch):
    local_project(tmp_path, monkeypatch)
    result = CliRunner().invoke(app, ["score", "--format", "json"])
    assert result.exit_code == 0, result.output
    run = json.loads(result.stdout)["runs"][0]
    assert (run["verdict"], run["shape"]) == ("false_failure", "encoding")
    norms = CliRunner().invoke(app, ["norms", "--format", "json"])
    assert norms.exit_code == 0, norms.output
    assert "evals/rules.py:digits" in norms.stdout


def test_a_local_plugin_named_by_one_invocation_ends_with_it(tmp_path, monkeypatch):
    """A library call after a command (a test's, an embedder's, from another folder) loads no
    plugin the command's settings named: the relative path would be read from the wrong folder."""
    local_project(tmp_path, monkeypatch)
    result = CliRunner().invoke(app, ["score", "--format", "json"])
    assert result.exit_code == 0, result.output
    monkeypatch.chdir(tmp_path / "tools")
    assert "digits" not in load_registry()


def test_a_local_plugin_is_read_from_any_folder_below_the_settings(tmp_path, monkeypatch):
    local_project(tmp_path, monkeypatch)
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    result = CliRunner().invoke(
        app, ["score", "../traces", "--tools", "../tools", "--cases", "../cases"]
    )
    assert result.exit_code == 0, result.output


def test_a_local_plugin_that_clashes_with_a_built_in_is_refused(tmp_path, monkeypatch):
    local_project(tmp_path, monkeypatch, LOCAL.replace('Normalizer("digits"', 'Normalizer("month"'))
    result = CliRunner().invoke(app, ["score"])
    assert result.exit_code == 2
    assert (
        "normalizer plugin 'month' (evals/rules.py:digits) clashes with the built-in"
        in " ".join(result.stderr.split())
    )


@pytest.mark.parametrize(
    ("plugin", "plugins"),
    [
        (LOCAL + "\nDIGITS = digits\n", '"evals/rules.py"'),  # one rule under two names
        (LOCAL, '["evals/rules.py", "./evals/rules.py"]'),  # one file named twice
    ],
)
def test_one_normalizer_seen_twice_is_no_clash_with_itself(tmp_path, monkeypatch, plugin, plugins):
    # both said "normalizer plugin 'digits' (...) clashes with the plugin normalizer 'digits'"
    local_project(tmp_path, monkeypatch, plugin)
    (tmp_path / "pyproject.toml").write_text(f"[tool.evalrun]\nplugins = {plugins}\n")
    result = CliRunner().invoke(app, ["score", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["runs"][0]["verdict"] == "false_failure"
    norms = CliRunner().invoke(app, ["norms", "--format", "json"])
    assert [n["origin"] for n in json.loads(norms.stdout) if n["name"] == "digits"] == [
        "evals/rules.py:DIGITS" if "DIGITS" in plugin else "evals/rules.py:digits"
    ]


def test_two_normalizers_of_one_name_still_clash(tmp_path, monkeypatch):
    local_project(
        tmp_path, monkeypatch, LOCAL + '\nmore = Normalizer("digits", "encoding", _digits, "x")\n'
    )
    result = CliRunner().invoke(app, ["score"])
    assert result.exit_code == 2
    assert "clashes with the plugin normalizer 'digits'" in " ".join(result.stderr.split())


def test_an_unimportable_local_plugin_is_one_message_and_only_where_rules_are_needed(
    tmp_path, monkeypatch
):
    local_project(tmp_path, monkeypatch)
    assert (
        CliRunner().invoke(app, ["score", "--format", "json", "--output", "r.json"]).exit_code == 0
    )
    (tmp_path / "evals" / "rules.py").write_text("import no_such_module_here\n")
    result = CliRunner().invoke(app, ["score", "--format", "json", "--output", "r.json"])
    assert result.exit_code == 2
    said = " ".join(result.stderr.split())
    assert said == (
        "error: plugin module 'evals/rules.py' (the settings' plugins) cannot be imported: "
        "ModuleNotFoundError: No module named 'no_such_module_here'"
    )
    for command in (["lint"], ["norms"], ["suggest"]):
        assert CliRunner().invoke(app, command).exit_code == 2, command
    # report renders saved results: it needs no rule, so the broken plugin does not stop it
    report = CliRunner().invoke(app, ["report", "r.json", "--format", "markdown"])
    assert report.exit_code == 0, report.output


def test_a_missing_plugin_file_is_named(tmp_path, monkeypatch):
    local_project(tmp_path, monkeypatch)
    (tmp_path / "pyproject.toml").write_text('[tool.evalrun]\nplugins = "evals/nope.py"\n')
    result = CliRunner().invoke(app, ["score"])
    assert result.exit_code == 2
    assert "plugin module 'evals/nope.py' (the settings' plugins): no such file" in " ".join(
        result.stderr.split()
    )


def test_a_plugin_module_without_a_normalizer_is_named(tmp_path, monkeypatch):
    local_project(tmp_path, monkeypatch, "x = 1\n")
    result = CliRunner().invoke(app, ["score"])
    assert result.exit_code == 2
    assert "defines no evalrunner.Normalizer at its top level" in " ".join(result.stderr.split())
