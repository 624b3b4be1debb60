"""Everything declared once is found everywhere it should be (issue 15): the shapes in the results
schema, the table and the docs; the writers in score's choices; the trace formats in the CLI,
the docs and detection. A new shape, writer or format that is declared but not carried through
fails here, by name."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app
from evalrunner.grade.norms import BUILTINS as NORMS
from evalrunner.shapes import (
    FALSE_FAILURE_SHAPES,
    FALSE_PASS_SHAPES,
    PARAM_SHAPES,
    RULE_CLASSES,
    SHAPES,
)
from evalrunner.traces import BUILTINS as FORMATS
from evalrunner.traces.registry import formats_table
from evalrunner.write import WRITERS

ROOT = Path(__file__).parent.parent
SCHEMA = json.loads(resources.files("evalrunner").joinpath("results.schema.json").read_text())
DEFS = SCHEMA["$defs"]


def test_the_results_schema_enums_are_the_registry():
    assert DEFS["ff_shape"]["enum"] == list(FALSE_FAILURE_SHAPES)
    assert DEFS["fp_shape"]["enum"] == list(FALSE_PASS_SHAPES)
    assert DEFS["param_shape"]["enum"] == list(PARAM_SHAPES)
    assert DEFS["ff_counts"]["required"] == list(FALSE_FAILURE_SHAPES)
    assert sorted(DEFS["ff_counts"]["properties"]) == sorted(FALSE_FAILURE_SHAPES)


def test_every_shape_is_declared_whole():
    kinds = {s.kind for s in SHAPES.values()}
    assert kinds == {"false_failure", "false_pass"}
    for kind in kinds:
        precedences = [s.precedence for s in SHAPES.values() if s.kind == kind]
        assert len(set(precedences)) == len(precedences), f"two {kind} shapes share a precedence"
    for shape in SHAPES.values():
        assert shape.meaning and callable(shape.example)


def test_every_rule_class_is_a_shape_and_every_builtin_rule_has_one():
    assert set(RULE_CLASSES) <= set(FALSE_FAILURE_SHAPES)
    assert {n.cls for n in NORMS.values()} == set(RULE_CLASSES)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_shape_is_in_the_docs_and_spec_words(shape):
    semantics = (ROOT / "docs" / "semantics.md").read_text()
    readme = (ROOT / "README.md").read_text()
    assert f"`{shape}`" in semantics or f"`{shape}`" in readme, shape


def test_score_offers_exactly_the_registered_writers():
    help_text = CliRunner().invoke(app, ["score", "--help"], env={"COLUMNS": "200"}).stdout
    choices = help_text.split("--format <", 1)[1].split(">", 1)[0]
    assert choices.split("|") == list(WRITERS)


def test_listing_commands_offer_only_their_own_formats():
    """A writer added to score never shows up where it means nothing (`norms --format junit`)."""
    result = CliRunner().invoke(app, ["norms", "--format", "junit"])
    assert result.exit_code == 2


def test_every_trace_format_is_offered_documented_and_detected():
    help_text = " ".join(
        CliRunner().invoke(app, ["score", "--help"], env={"COLUMNS": "200"}).stdout.split()
    ).replace("- ", "-")  # the help wraps a long list at a name's hyphen (openai-|chat)
    docs = (ROOT / "docs" / "trace-formats.md").read_text()
    assert formats_table() in docs  # the docs' table is the registry's, row for row
    for name, fmt in FORMATS.items():
        assert name in help_text, name
        assert fmt.summary and fmt.looks_like
    orders = [f.order for f in FORMATS.values()]
    assert orders == sorted(orders)  # the registry is in detection order


def test_the_trace_format_table_is_the_modules():
    """The registry imports a built-in format's module only when the format is first asked for,
    so it knows the formats from `formats.TABLE`: the table must list every format module in
    `formats/`, under the name and detection order the module's FORMAT says, in that order."""
    import pkgutil
    from importlib import import_module

    from evalrunner.traces import formats

    modules = sorted(
        m.name
        for m in pkgutil.iter_modules(formats.__path__)
        if not m.name.startswith("_") and not m.ispkg
    )
    assert sorted(module for _, module, _ in formats.TABLE) == modules
    for name, module, order in formats.TABLE:
        fmt = import_module(f"evalrunner.traces.formats.{module}").FORMAT
        assert (fmt.name, fmt.order) == (name, order), module
    rows = [(order, name) for name, _, order in formats.TABLE]
    assert rows == sorted(rows)  # the table reads in detection order
    assert [name for name, _, _ in formats.TABLE] == list(FORMATS)
