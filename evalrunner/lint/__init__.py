"""`evalrun lint`: hold the user's schemas, rules and cases to account before they bend the numbers.

Every equivalence rule is a hypothesis about a tool, and every case is a claim about what the tool
accepts. `lint` checks both, and reports each problem as a `Finding`: a stable code (see
`docs/lint.md`), a severity, the file and the JSON path of the offending node, a one-line message and
the fix. Problems with the user's tools, rules or cases are data, never exceptions; only unusable
input (a file that is not JSON, an invalid schema, a duplicate name) raises `InputError`.

Lint reads tools and cases only through `load_tools` and `load_cases`, which record where each
tool, parameter, case and step is written: what lint checks is what `evalrun score` reads.

- `findings`: the codes, `Finding`, `Coverage`, `LintReport`;
- `schema`: the tools as lint sees them, and the checks on their schemas;
- `validate`: validating values against a schema, with nothing fetched and nothing that hangs;
- `cases`: the checks on cases;
- `laws`: the laws every rule must keep on the values present;
- `traces`: what lint reads from traces.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ..grade.norms import Normalizer, load_registry
from ..read.case_formats import CaseWarning
from ..read.cases import load_cases
from ..read.tools import load_tools
from ..traces import Reading
from .case_keys import check_case_keys
from .cases import check_case, look_alike_ids
from .findings import CODES, Code, Coverage, Finding, LintReport, json_path, order
from .laws import law_findings
from .schema import check_schema, quantity, tool_sites
from .traces import read_traces

__all__ = ["CODES", "Code", "Coverage", "Finding", "LintReport", "json_path", "lint", "quantity"]


def lint(
    tools_dir: str | Path,
    cases_dir: str | Path,
    traces: Iterable[str | Path] | None = None,
    registry: Mapping[str, Normalizer] | None = None,
    *,
    reading: Reading | None = None,
    case_format: str = "auto",
    case_warnings: list[CaseWarning] | None = None,
) -> LintReport:
    """Check the tools, rules and cases (and, with traces, the rules on recorded arguments).

    Cases are read in `case_format` (by default each file's own); what a source holds that
    evalrun cannot express is appended to `case_warnings`.
    Traces are read as `evalrun score` reads them, in every format (`reading` says how: format,
    where the ids live; by default each line's format is detected).

    Raises InputError only for unusable input: what `evalrun score` would also refuse to read,
    except unknown normalizers and bad rule options, which are findings here.
    """
    registry = dict(registry) if registry is not None else load_registry()
    out: list[Finding] = []
    sites = tool_sites(load_tools(tools_dir), registry, out)
    cases = load_cases(cases_dir, case_format=case_format, warnings=case_warnings)
    for site in sites.values():
        check_schema(site, registry, out)
    for case in cases.values():
        check_case(case, sites, out)
        check_case_keys(case, sites, registry, out)
    look_alike_ids(cases, out)
    coverage = Coverage(
        tools=len(sites), tools_with_norms=sum(1 for s in sites.values() if s.tool.norm_params)
    )
    if traces is not None:
        coverage = read_traces(traces, sites, coverage, out, reading)
    for site in sites.values():
        law_findings(site, traces is not None, out)
    unique = dict.fromkeys(out)  # the same finding twice (one node reached twice) is one
    return LintReport(findings=tuple(sorted(unique, key=order)), coverage=coverage)
