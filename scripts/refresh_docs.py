#!/usr/bin/env python3
"""Write the parts of the docs that the code declares, from the code: nothing listed here is typed
by hand. Each part sits between `<!-- generated: NAME -->` and `<!-- /generated: NAME -->` in its
Markdown file (invisible when rendered), or is a whole file, or (the results schema) a set of
enums in a JSON file. `--check` writes nothing and exits 1 naming every stale part
(tests/test_docs_generated.py runs it in `make test`, as `cog --check` would).

    python scripts/refresh_docs.py [--check]

The parts:

- `trace-formats`, docs/trace-formats.md: the trace formats in detection order (the registry,
  `evalrunner.traces.registry`);
- `writers`, README.md and docs/reports.md: the output formats of `score --format`, and which of
  them `report` renders (the writer registry, `evalrunner.write.WRITERS`);
- `corpus`, README.md: what the example corpus holds (its tools, their schema formats, its cases
  and runs, counted by reading them as `score` does);
- docs/case-formats.md, whole: the case-format registry (`scripts/case_formats_doc.py`);
- evalrunner/results.schema.json: the shape enums and the false-failure counts' keys (the shapes),
  the call labels and the verdicts (the grader's `Label` and `Verdict`).

README's `console` blocks are `scripts/refresh_readme.py`'s (they are command output, not
declarations).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import get_args

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
TRACE_FORMATS = ROOT / "docs" / "trace-formats.md"
REPORTS = ROOT / "docs" / "reports.md"
CASE_FORMATS = ROOT / "docs" / "case-formats.md"
SCHEMA = ROOT / "evalrunner" / "results.schema.json"

NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def trace_formats() -> str:
    from evalrunner.traces.registry import formats_table

    return formats_table()


def writers() -> str:
    from evalrunner.write import WRITERS

    rows = ["| `--format` | what it writes | `evalrun report` renders it |", "| --- | --- | --- |"]
    for w in WRITERS.values():
        rows.append(f"| `{w.name}` | {w.summary} | {'yes' if w.renders_results else ''} |")
    return "\n".join(rows)


def corpus() -> str:
    from evalrunner.model import Run
    from evalrunner.read.cases import load_cases
    from evalrunner.read.tools import load_tools
    from evalrunner.traces import read_runs

    tools = load_tools(ROOT / "tools")
    formats = len({t.format for t in tools.values()})
    cases = load_cases(ROOT / "cases")
    read = list(read_runs([str(ROOT / "traces")]))
    runs = sum(1 for r in read if isinstance(r, Run) and r.case_id in cases)
    words = NUMBER_WORDS[formats] if formats < len(NUMBER_WORDS) else f"{formats:,}"
    return (
        f"{len(tools):,} tools in {words} schema formats, {len(cases):,} cases, "
        f"{runs:,} recorded runs and {len(read) - runs:,} records that cannot be scored"
    )


MARKED: tuple[tuple[Path, str, Callable[[], str]], ...] = (
    (TRACE_FORMATS, "trace-formats", trace_formats),
    (README, "writers", writers),
    (REPORTS, "writers", writers),
    (README, "corpus", corpus),
)


def _block(name: str) -> re.Pattern[str]:
    n = re.escape(name)
    return re.compile(rf"(<!-- generated: {n} -->)(\n?)(.*?)(<!-- /generated: {n} -->)", re.S)


def put(text: str, name: str, content: str, where: Path) -> str:
    """`text` with the part `name` replaced by `content`: on lines of its own where the opening
    marker ends its line (a table), else inline (a phrase in a paragraph)."""
    found = list(_block(name).finditer(text))
    if len(found) != 1:
        raise SystemExit(f"{where}: {len(found)} '<!-- generated: {name} -->' parts, want one")
    m = found[0]
    inner = f"\n{content}\n" if m.group(2) else content
    return text[: m.start()] + m.group(1) + inner + m.group(4) + text[m.end() :]


def case_formats() -> str:
    spec = importlib.util.spec_from_file_location(
        "case_formats_doc", ROOT / "scripts" / "case_formats_doc.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rendered: str = module.render()
    return rendered


def schema(text: str) -> str:
    """The results schema with its shape enums the registry's and its label and verdict enums
    the grader's types (each on its one line)."""
    from evalrunner.grade.grader import Label, Verdict
    from evalrunner.shapes import FALSE_FAILURE_SHAPES, FALSE_PASS_SHAPES, PARAM_SHAPES

    def enum(name: str, values: tuple[str, ...], text: str) -> str:
        line = re.compile(rf'("{name}": \{{"enum": )\[[^\]]*\]')
        if len(line.findall(text)) != 1:
            raise SystemExit(f'{SCHEMA}: no one \'"{name}": {{"enum": [...]\' line')
        return line.sub(lambda m: m.group(1) + json.dumps(list(values)), text)

    text = enum("ff_shape", FALSE_FAILURE_SHAPES, text)
    text = enum("fp_shape", FALSE_PASS_SHAPES, text)
    text = enum("param_shape", PARAM_SHAPES, text)
    text = enum("label", get_args(Label), text)
    text = enum("verdict", get_args(Verdict), text)
    doc = json.loads(text)
    counts = doc["$defs"]["ff_counts"]
    if counts["required"] != list(FALSE_FAILURE_SHAPES) or set(counts["properties"]) != set(
        FALSE_FAILURE_SHAPES
    ):
        raise SystemExit(f"{SCHEMA}: ff_counts must list the false-failure shapes; edit it by hand")
    return text


def refreshed() -> dict[Path, str]:
    """Every generated file's text as it should be."""
    out: dict[Path, str] = {}
    for path, name, make in MARKED:
        text = out.get(path) or path.read_text()
        out[path] = put(text, name, make(), path)
    out[CASE_FORMATS] = case_formats()
    out[SCHEMA] = schema(SCHEMA.read_text())
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a part is stale")
    args = ap.parse_args()
    stale = []
    for path, text in refreshed().items():
        if path.read_text() != text:
            stale.append(path.relative_to(ROOT))
            if not args.check:
                path.write_text(text)
    if args.check and stale:
        names = ", ".join(str(p) for p in stale)
        print(f"stale: {names} (run python scripts/refresh_docs.py)", file=sys.stderr)
        return 1
    for p in stale:
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
