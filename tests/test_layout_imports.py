"""The packages import one way (issue 32): no module of `evalrunner` imports, however
indirectly, a module that imports it back.

The graph is read from the source with `ast`, so it sees what an import at run time would:
imports inside functions count (a function-level import is a cycle put off until the call),
imports under `if TYPE_CHECKING:` do not (they never run), and the root package's lazy exports
(`_EXPORTS`, imported by its PEP 562 `__getattr__` on first use) do. An import of `a.b.c` also runs the
packages `a` and `a.b`; those edges are not drawn, since a package's `__init__` importing its own
modules is how a package is built, and drawing them would make every package a cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "evalrunner"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def import_nodes(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, at any depth, but those under `if TYPE_CHECKING:`."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and is_type_checking(node):
            for child in node.orelse:
                yield from import_nodes(ast.Module(body=[child], type_ignores=[]))
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        yield from import_nodes(node)


def imported(name: str, path: Path) -> set[str]:
    """The modules of `evalrunner` that module `name` imports: `from . import x` is the module
    `x` when there is one, else the package it is read from."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in import_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            targets = [
                f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in MODULES else origin
                for alias in node.names
            ]
        found.update(t for t in targets if t in MODULES and t != name)
    return found


def lazy_exports(path: Path) -> set[str]:
    """The modules a package's `_EXPORTS` table (`{"Run": ".model"}`) imports on first use."""
    found: set[str] = set()
    for node in ast.parse(path.read_text(), str(path)).body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        if not (isinstance(target, ast.Name) and target.id == "_EXPORTS"):
            continue
        assert isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Dict)
        for value in node.value.values:
            assert isinstance(value, ast.Constant) and isinstance(value.value, str)
            found.add("evalrunner" + value.value)
    return found


GRAPH = {name: imported(name, path) for name, path in MODULES.items()}
GRAPH["evalrunner"] |= lazy_exports(MODULES["evalrunner"])


def cycle_through(start: str) -> list[str] | None:
    """A shortest path of imports from `start` back to itself, if there is one."""
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for node in frontier:
            for target in sorted(GRAPH[node]):
                if target == start:
                    return [*paths[node], start]
                if target not in paths:
                    paths[target] = [*paths[node], target]
                    nxt.append(target)
        frontier = nxt
    return None


def test_the_graph_sees_the_imports_that_run():
    """The reader of the graph itself: a function-level import is an edge, a TYPE_CHECKING one
    is not, and `from . import x` names the module `x`."""
    assert "evalrunner.jsonvalue" in GRAPH["evalrunner.model"]
    assert "evalrunner.traces.format" in GRAPH["evalrunner.traces"]
    eager = imported("evalrunner", MODULES["evalrunner"])  # grader: under TYPE_CHECKING, and lazy
    assert "evalrunner.grade.grader" not in eager
    assert "evalrunner.grade.grader" in GRAPH["evalrunner"]
    tree = ast.parse("def f():\n    from .model import Run\n")
    assert [type(n) for n in import_nodes(tree)] == [ast.ImportFrom]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_imports_itself_back(name):
    cycle = cycle_through(name)
    assert cycle is None, " -> ".join(cycle or [])
