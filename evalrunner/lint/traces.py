"""What lint reads from traces: the recorded arguments (for the law checks), and call coverage."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from ..grade.compare import breach
from ..model import TraceError
from ..traces import Reading, read_runs
from ..traces.files import Skipped, trace_files
from .findings import Coverage, Finding, finding
from .schema import ToolSite, values


def read_traces(
    paths: Iterable[str | Path],
    tools: Mapping[str, ToolSite],
    coverage: Coverage,
    out: list[Finding],
    reading: Reading | None = None,
) -> Coverage:
    """Hand the recorded arguments to the rules' law checks; count the calls the rules cover."""
    runs = calls = with_norms = unreadable = 0
    called = dict.fromkeys(tools, 0)
    skipped: list[Skipped] = []
    rejected: dict[tuple[str, str, str], list[str]] = {}
    """(tool, parameter, keyword) -> the sources of the run values that break it (counted all,
    the first few kept)."""
    files = trace_files(paths, skipped=skipped)  # as score lists them, and what it leaves out
    for s in skipped:
        out.append(
            finding(
                "trace-file-not-read",
                s.path,
                (),
                f"not read: {s.why}",
                "rename a trace file to .jsonl (or .jsonl.gz), or name it on the command line; "
                "move anything else out of the traces folder",
            )
        )
    for item in read_runs(files, reading=reading):
        if isinstance(item, TraceError):
            unreadable += 1
            continue
        runs += 1
        for call in item.calls:
            calls += 1
            tool = tools.get(call.tool)
            if tool is None:
                continue
            called[call.tool] += 1
            if tool.tool.norm_params:
                with_norms += 1
            if call.malformed is not None:
                continue
            for p, value, _path in values(call.args, tool):
                assert p.node.rule is not None
                found = breach(value, p.node)
                if found is not None:
                    seen = rejected.setdefault((call.tool, p.param.path, found.keyword), [])
                    seen.append(item.source if len(seen) < 3 else "")
                    continue  # the rule never reads it: no law to check on it
                p.evidence.check_once(p.node.rule, p.bare, value, item.source)
    for (tool_name, param, keyword), sources in sorted(rejected.items()):
        site = tools[tool_name]
        where = next(s for s in site.params.values() if s.param.path == param)
        shown = ", ".join(s for s in sources if s)
        out.append(
            finding(
                "run-value-rejected",
                site.file,
                where.loc,
                f"{tool_name}.{param}: {len(sources)} run value(s) break the schema's {keyword} "
                f"(e.g. {shown}); the rule does not read them, so each is compared as JSON only",
                f"if the tool really accepts such values, widen the schema's {keyword}; if not, "
                "these runs fail honestly (the agent sent what the tool should reject)",
            )
        )
    for name, site in tools.items():
        if called[name] == 0:
            out.append(
                finding(
                    "tool-never-called",
                    site.file,
                    site.loc,
                    f"{site.tool.name} is never called in the {runs} run(s) of the traces given",
                    "if the tool is retired, remove its schema; if not, the traces do not "
                    "exercise it (add cases that need it)",
                )
            )
    return replace(
        coverage, runs=runs, calls=calls, calls_with_norms=with_norms, unreadable_lines=unreadable
    )
