"""`--format junit`: JUnit XML, which CI systems read as they read pytest's (`--junitxml`).

One test case per run: class name its case id, name its run id. The true verdict decides: a true
failure (`fail`, `false_pass`) is a `<failure>` whose message is the first thing that went wrong
and whose text is the run's explanation; a `false_failure` passes, and its `<system-out>` says
that exact-match would have failed it, and why it is correct. Under `--group-by` each group is
a test suite (named `KEY=VALUE`), so CI shows two models side by side; each suite's
`<properties>` carry its summary's numbers (failure rates, shapes, pass^k). Unscoreable lines
are errors, in a suite of their own: the line could not be tested.

The file validates against the Jenkins JUnit schema (`tests/data/junit/jenkins-junit.xsd`, the
one CI plugins validate with). Test cases are rendered in the workers and spooled (to a
temporary file once large) until the counts the suites open with are known.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import weakref
from typing import IO, Any
from xml.sax.saxutils import escape, quoteattr

from ..shapes import FALSE_FAILURE_SHAPES, FALSE_PASS_SHAPES
from ..summary.view import SummaryView
from . import Output, WriterFormat, wording
from .explain import explain, headline
from .report import ReportWriter, RunJson

SPOOL_BYTES = 4 * 2**20
SUITE = "evalrun"
"""The suite's name without `--group-by`."""
UNSCOREABLE = "unscoreable lines"

# XML 1.0 cannot hold these characters at all, even escaped: a trace may.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def text(value: Any) -> str:
    """Element text from the inputs: escaped, and characters XML cannot hold replaced."""
    return escape(_NOT_XML.sub("\ufffd", str(value)))


def attr(value: Any) -> str:
    """A quoted attribute value from the inputs (newlines kept as character references)."""
    return quoteattr(
        _NOT_XML.sub("\ufffd", str(value)), {"\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}
    )


Rendered = list[tuple[str | None, bool, bytes]]
"""Per run: (its group, a true failure?, its `<testcase>`)."""


def render_runs(runs: list[RunJson]) -> Rendered:
    """Each run in its group's suite; under `--group-by case.tags`, in each of its tags'."""
    out: Rendered = []
    for r in runs:
        group, failed, case = r.get("group"), _failed(r), testcase(r).encode()
        for name in group if isinstance(group, list) else [group]:
            out.append((name, failed, case))
    return out


def _failed(run: RunJson) -> bool:
    return run.get("verdict") in ("fail", "false_pass")


def testcase(run: RunJson) -> str:
    head = f"<testcase classname={attr(run.get('case_id'))} name={attr(run.get('run_id'))}"
    verdict = run.get("verdict")
    if verdict == "pass":
        return head + "/>\n"
    body = "\n".join(line for _, line in explain(run))
    where = f"{run.get('source')}\n"
    if _failed(run):
        child = (
            f"<failure type={attr(verdict)} message={attr(headline(run))}>"
            f"{text(where + body)}</failure>"
        )
    else:
        shapes = ", ".join(run.get("shapes") or [])
        note = (
            f"false failure ({shapes}): exact-match fails this run, but it is correct.\n"
            f"{where}{body}"
        )
        child = f"<system-out>{text(note)}</system-out>"
    return f"{head}>{child}</testcase>\n"


class _Suite:
    def __init__(self) -> None:
        self.spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115 (closed in copy_to)
        # a rendering that fails before the end (a saved results file of wrong types) lets the
        # spool go with the suite
        weakref.finalize(self, self.spool.close)
        self.tests = 0
        self.failures = 0

    def add(self, failed: bool, data: bytes) -> None:
        self.spool.write(data)
        self.tests += 1
        self.failures += failed

    def copy_to(self, out: IO[bytes]) -> None:
        self.spool.seek(0)
        shutil.copyfileobj(self.spool, out)
        self.spool.close()


class JunitWriter(ReportWriter):
    def __init__(self, output: Output) -> None:
        super().__init__(output, render_runs)
        self.suites: dict[str | None, _Suite] = {}
        self.unscoreable = _Suite()

    def take(self, rendered: Rendered) -> None:
        for group, failed, data in rendered:
            suite = self.suites.get(group)
            if suite is None:
                suite = self.suites[group] = _Suite()
            suite.add(failed, data)

    def write(self, encoded: tuple[Any, list[dict[str, Any]]]) -> None:
        super().write(encoded)
        for e in encoded[1]:  # every one: each is a test that could not run
            self.unscoreable.add(
                False,
                (
                    f"<testcase classname={attr(UNSCOREABLE)} name={attr(e.get('source'))}>"
                    f'<error type="unscoreable" message={attr(e.get("error"))}/></testcase>\n'
                ).encode(),
            )

    def finish(self, summary: SummaryView) -> None:
        out = self.output.stream
        groups = summary.groups
        key = summary.group_by
        named = sorted(self.suites.items(), key=lambda kv: (kv[0] is None, kv[0] or ""))
        if groups is not None:  # a group with no run in this file still has a suite
            for group in groups:
                if group not in self.suites:
                    named.append((group, _Suite()))
            named.sort(key=lambda kv: (kv[0] is None, kv[0] or ""))
        elif not named:
            named = [(None, _Suite())]
        tests = sum(s.tests for _, s in named) + self.unscoreable.tests
        failures = sum(s.failures for _, s in named)
        out.write(
            (
                '<?xml version="1.0" encoding="UTF-8"?>\n'
                f'<testsuites name="{SUITE}" tests="{tests}" failures="{failures}" '
                f'errors="{self.unscoreable.tests}">\n'
            ).encode()
        )
        for n, (name, suite) in enumerate(named):
            if name is None:
                title, props = SUITE, _properties(summary)
            else:
                title = f"{key}={name}"
                # a run's group past the summary's bound (folded into "(other)") has no summary
                of = (groups or {}).get(name)
                props = _properties(of, [("group_by", key), ("group", name)])
            out.write(
                (
                    f'<testsuite name={attr(title)} tests="{suite.tests}" '
                    f'failures="{suite.failures}" errors="0" skipped="0">\n{props}'
                ).encode()
            )
            suite.copy_to(out)
            if n == 0 and summary.warnings:  # what was read but deserves a word, where CI shows it
                said = "\n".join(f"warning: {w}" for w in summary.warnings)
                out.write(f"<system-err>{text(said)}</system-err>\n".encode())
            out.write(b"</testsuite>\n")
        if self.unscoreable.tests:
            out.write(
                (
                    f'<testsuite name={attr(UNSCOREABLE)} tests="{self.unscoreable.tests}" '
                    f'failures="0" errors="{self.unscoreable.tests}" skipped="0">\n'
                ).encode()
            )
            self.unscoreable.copy_to(out)
            out.write(b"</testsuite>\n")
        else:
            self.unscoreable.spool.close()
        out.write(b"</testsuites>\n")


_FIGURES = (
    "runs",
    "calls",
    "unscoreable",
    "reported.run_failure_rate",
    "true.run_failure_rate",
    "reported.call_failure_rate",
    "true.call_failure_rate",
)


def _properties(s: SummaryView | None, extra: list[tuple[str, Any]] | None = None) -> str:
    """A summary's numbers as `<property>`s: what a CI job can read back or chart. Of no
    summary (a group past the summary's bound), the figures are empty and the counts 0."""
    props: list[tuple[str, Any]] = list(extra or [])
    figures = (
        {
            "runs": s.runs,
            "calls": s.calls,
            "unscoreable": s.unscoreable,
            "reported.run_failure_rate": s.reported.run_failure_rate,
            "true.run_failure_rate": s.true.run_failure_rate,
            "reported.call_failure_rate": s.reported.call_failure_rate,
            "true.call_failure_rate": s.true.call_failure_rate,
        }
        if s is not None
        else dict.fromkeys(_FIGURES)
    )
    props += figures.items()
    verdicts = s.verdicts if s is not None else {}
    props += [
        (f"verdicts.{v}", verdicts.get(v, 0))
        for v in ("pass", "fail", "false_failure", "false_pass")
    ]
    false_failures = s.false_failures if s is not None else {}
    props += [(f"false_failures.{x}", false_failures.get(x, 0)) for x in FALSE_FAILURE_SHAPES]
    false_passes = s.false_passes if s is not None else {}
    props += [(f"false_passes.{x}", false_passes.get(x, 0)) for x in FALSE_PASS_SHAPES]
    # the rules the tools' replies put in doubt, beside the suspects: one property each, and
    # one for its example pair (as the other reports word it)
    for x in s.reply_evidence if s is not None else ():
        name = f"reply_evidence.{x.tool}.{x.param}.{x.norm}"
        props.append((name, f"{x.pairs_differ} pairs differ, {x.pairs_agree} agree"))
        example = wording.reply_example(x)
        if example:
            props.append((f"{name}.example", example))
    if s is not None and s.trials is not None:
        for _, row in wording.shown_trials(s.trials):
            props += [(f"pass^{row.k}.reported", row.reported), (f"pass^{row.k}.true", row.true)]
    lines = "".join(
        f"<property name={attr(name)} value={attr('' if value is None else value)}/>\n"
        for name, value in props
    )
    return f"<properties>\n{lines}</properties>\n"


def _make(output: Output) -> JunitWriter:
    return JunitWriter(output)


WRITER = WriterFormat(
    name="junit",
    summary="JUnit XML, one test case per run, for CI test reports",
    make=_make,
    renders_results=True,
)
