"""Copy a tools directory with every `x-eval-norm` and `default` removed: a team's schemas before
anyone annotated them, for measuring what `evalrun suggest` finds again (tests/test_suggest.py)
and for timing it where it has most to do (BENCHMARKS.md).

    python scripts/strip_annotations.py tools/ /tmp/stripped-tools/
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

STRIPPED = ("x-eval-norm", "default")
NAME_MAPS = ("properties", "patternProperties", "$defs", "definitions")
"""Keywords whose value maps names to schemas: a property called `default` is not a keyword."""


def strip_schema(node: Any) -> Any:
    """`node` without the stripped keywords, at any depth."""
    if isinstance(node, list):
        return [strip_schema(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in STRIPPED:
            continue
        if key in NAME_MAPS and isinstance(value, dict):
            out[key] = {name: strip_schema(sub) for name, sub in value.items()}
        else:
            out[key] = strip_schema(value)
    return out


def strip(src: Path, dst: Path) -> list[Path]:
    """Every `*.json` under `src`, stripped, written to the same place under `dst`."""
    written = []
    for file in sorted(src.rglob("*.json")):
        target = dst / file.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = strip_schema(json.loads(file.read_text()))
        target.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        written.append(target)
    return written


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    strip(Path(sys.argv[1]), Path(sys.argv[2]))
