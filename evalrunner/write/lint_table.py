"""`evalrun lint` (the default, `--format table`): the findings for a person, grouped by file,
then the counts and the coverage; readable at 80 columns. (`--format json` and `jsonl` are the
report's own JSON, `LintReport.to_json`, written by the command.)
"""

from __future__ import annotations

import textwrap

from rich.console import Console

from ..lint import Finding, LintReport
from ..terminal import SafeText as Text
from ..words import counted
from .wording import n, pct

INDENT = " " * 10
STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def render(report: LintReport, console: Console) -> None:
    """Findings grouped by file, then the counts and the coverage; readable at 80 columns.

    Each finding: severity, code and JSON path, then the message and the fix, wrapped under the
    code with a hanging indent (rich's tables would pad every line with trailing spaces).
    """
    width = max(console.width, 40)
    groups: dict[str, list[Finding]] = {}
    for f in report.findings:
        groups.setdefault(f"{f.file}:{f.line}" if f.line is not None else f.file, []).append(f)
    for where, findings in groups.items():
        # whole, however long: a file:line a terminal or an editor can open (a cut one opens nothing)
        console.print(Text(where, style="bold"), soft_wrap=True)
        for f in findings:
            head = Text(INDENT[:2])
            head.append(f"{f.severity:<7}", style=STYLE[f.severity])
            head.append(f" {f.code}", style="bold")
            if len(head) + 2 + len(f.path) <= width:
                head.append(f"  {f.path}", style="dim")
                console.print(head)
            else:
                console.print(head)
                for part in _wrap(f.path, width, breaks=False):
                    console.print(Text(part, style="dim"))
            for part in _wrap(f.message, width) + _wrap(f"fix: {f.fix}", width):
                console.print(Text(part))
        console.print()
    counts = [
        counted(report.count("error"), "error"),
        counted(report.count("warning"), "warning"),
        f"{report.count('info')} info",
    ]
    tail = f" ({report.ignored} ignored)" if report.ignored else ""
    console.print(Text(", ".join(counts) + tail, style="bold"))
    c = report.coverage
    console.print(f"tools with rules: {c.tools_with_norms} of {n(c.tools)}")
    if c.calls is not None:
        share = c.call_share_with_norms or 0.0
        text = (
            f"calls to them: {pct(share)} of {counted(c.calls, 'call')} recorded in "
            f"{counted(c.runs or 0, 'run')} of the traces"
        )
        console.print(text, overflow="fold")
        if c.unreadable_lines:
            console.print(
                f"unreadable trace lines: {n(c.unreadable_lines)} (evalrun score lists them)"
            )


def _wrap(text: str, width: int, *, breaks: bool = True) -> list[str]:
    """`text` in lines under the code column; a JSON path is cut anywhere (`breaks=False`)."""
    if breaks:
        return textwrap.wrap(text, width, initial_indent=INDENT, subsequent_indent=INDENT) or [""]
    room = width - len(INDENT)
    return [INDENT + text[i : i + room] for i in range(0, len(text), room)]
