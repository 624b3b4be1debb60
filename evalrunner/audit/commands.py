"""The two library calls behind `evalrun audit sample` and `evalrun audit score`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from ..grade.grader import PER_CALL, RunResult
from ..jsonvalue import json_eq
from ..model import InputError
from ..scoring import load_config
from ..traces import Reading
from .compare import Audit, ChangedRun, compare
from .digest import digest_inputs
from .population import (
    Inputs,
    Population,
    read_population,
    records_at,
    score_runs,
    seekable_stdin,
)
from .review import review, verdict
from .sampling import STRATA, shuffled, stratified
from .sheet import Entry, Header, Sheet, SheetError, read_sheet

Progress = Callable[[int], None]


def sample(
    inputs: Inputs,
    *,
    failures: int,
    passes: int,
    seed: int,
    show_verdict: bool = False,
    stdin: IO[bytes] | None = None,
    progress: Progress | None = None,
) -> Sheet:
    """Draw `failures` reported failures and `passes` reported passes (all of a stratum when it
    has fewer) and make their sheet: blind, unless `show_verdict`."""
    if failures < 0 or passes < 0:
        raise InputError("--failures and --passes take a number of runs, 0 or more")
    reported = inputs.reported or PER_CALL
    config = load_config(inputs.tools, inputs.cases, reported=reported)
    with seekable_stdin(inputs.traces, stdin) as copy:
        digest = digest_inputs(inputs.tools, inputs.cases, inputs.traces, copy)
        population = read_population(config, inputs, stdin=copy, progress=progress)
        sizes = {"reported_fail": failures, "reported_pass": passes}
        # Keys are unique (the occurrence tells repeated ids apart): (key, position) pairs sort
        # by key alone, so the canonical order is the keys'.
        drawn = stratified(population.strata, sizes, seed)
        picked = [(key, position, s) for s in STRATA for key, position in drawn[s]]
        records = records_at(inputs, {position for _, position, _ in picked}, stdin=copy)
    runs = []
    for (run_id, case_id, occurrence), position, stratum in shuffled(picked, seed):
        record = records[position]
        line: dict[str, Any] = {"run_id": run_id, "case_id": case_id}
        if occurrence:
            line["occurrence"] = occurrence
        line.update({"source": record.source, "stratum": stratum})
        line.update(review(record, config.cases[case_id], config.tools, blind=not show_verdict))
        if show_verdict:
            result = config.grader.grade_record(record.record, record.source)
            if isinstance(result, RunResult):  # it was scored once already: it is one
                line["evalrun"] = verdict(result)
        runs.append(line)
    header = Header(
        population=population.sizes(),
        drawn={s: len(drawn[s]) for s in STRATA},
        seed=seed,
        show_verdict=show_verdict,
        reading=inputs.reading or Reading(),
        reported=reported,
        digest=digest,
        errors=tuple(population.errors),
    )
    return Sheet(header, runs)


def score(
    sheet: str | Path,
    inputs: Inputs,
    *,
    stdin: IO[bytes] | None = None,
    progress: Progress | None = None,
) -> Audit:
    """Score a (labelled) sheet's runs as the traces are now, and compare with the labels."""
    header, entries = read_sheet(sheet)
    if inputs.reading is None:
        inputs = replace(inputs, reading=header.reading)
    if inputs.reported is not None and inputs.reported != header.reported:
        # the strata are the reported verdicts: read another way, a run sampled as a reported
        # failure may be a pass, and the estimate would mix two readings of exact-match
        raise InputError(
            f"{sheet} was sampled with --reported {header.reported}; score it with the same "
            f"reading (not --reported {inputs.reported}), or sample again"
        )
    config = load_config(inputs.tools, inputs.cases, reported=header.reported)
    with seekable_stdin(inputs.traces, stdin) as copy:
        now = digest_inputs(inputs.tools, inputs.cases, inputs.traces, copy)
        scored = score_runs(config, inputs, {e.key for e in entries}, stdin=copy, progress=progress)
        problems = []
        for e in entries:
            if e.key not in scored.found:
                occurrence = f", occurrence {e.key[2]}" if e.key[2] else ""
                problems.append(
                    f"{sheet}:{e.line}: run {e.run_id!r} (case {e.case_id!r}{occurrence}) is "
                    "not in the traces; score the traces it was sampled from, or remove the line"
                )
        for stratum in STRATA:
            labelled = sum(1 for e in entries if e.stratum == stratum and e.label is not None)
            if labelled > header.population[stratum]:
                problems.append(
                    f"{sheet}:1: {labelled} labelled runs of {stratum}, but its population has "
                    f"{header.population[stratum]}; the first line is not this sheet's"
                )
        if problems:
            raise SheetError(problems)
        changes = header.digest.changes(now)
        positions = {e.line: scored.found[e.key][1] for e in entries}
        changed_runs = _changed_runs(inputs, entries, positions, copy)
        if "traces" not in changes:
            # The traces are the ones sampled: everything the sheet says of them can be checked,
            # and a sheet that says otherwise was edited (a population that moves the estimate,
            # a stratum swapped, a run the seed never drew, a row's calls rewritten).
            problems = [
                f"{sheet}:{c.entry.line}: the {' and '.join(c.what)} on this line are not the "
                "run's as the traces record it: the line was edited; sample again"
                for c in changed_runs
            ]
            if "cases" not in changes:
                population = read_population(config, inputs, stdin=copy)
                problems = _tampered(str(sheet), header, entries, population) + problems
            if problems:
                raise SheetError(problems)
    return compare(
        str(sheet),
        header,
        entries,
        {e.line: scored.found[e.key][0] for e in entries},
        scored.summary,
        changes=changes,
        changed_runs=changed_runs,
        errors=scored.errors,
    )


def _tampered(
    sheet: str, header: Header, entries: list[Entry], population: Population
) -> list[str]:
    """What the sheet says that the traces and cases it was sampled from do not: its header's
    population, each line's stratum, and whether the seed and sizes draw each line's run."""
    problems = []
    sizes = population.sizes()
    if dict(header.population) != sizes:
        said = ", ".join(f"{s} {header.population[s]}" for s in STRATA)
        now = ", ".join(f"{s} {sizes[s]}" for s in STRATA)
        problems.append(
            f"{sheet}:1: the population is {said}, but the traces it was sampled from hold "
            f"{now}: the first line was edited; sample again"
        )
    stratum_of_key = {key: name for name in STRATA for key, _ in population.strata[name]}
    drawn = stratified(population.strata, header.drawn, header.seed)
    drawn_keys = {key for name in STRATA for key, _ in drawn[name]}
    for e in entries:
        where = f"{sheet}:{e.line}: run {e.run_id!r} (case {e.case_id!r})"
        actual = stratum_of_key.get(e.key)
        if actual is not None and actual != e.stratum:
            problems.append(f"{where} is in stratum {actual}, not {e.stratum}: the line was edited")
        elif e.key not in drawn_keys:
            problems.append(
                f"{where} is not a run that seed {header.seed} draws with these sample sizes: "
                "the line was added or the first line's seed or sizes edited; sample again"
            )
    return problems


def _changed_runs(
    inputs: Inputs, entries: list[Entry], positions: dict[int, int], stdin: IO[bytes] | None
) -> list[ChangedRun]:
    """The sheet's runs whose calls or world are not what the sheet shows the reviewer."""
    records = records_at(inputs, set(positions.values()), stdin=stdin)
    out = []
    for e in entries:
        now = records[positions[e.line]].record
        what = tuple(
            part for part in ("calls", "world") if not json_eq(e.data.get(part), now.get(part))
        )
        if what:
            out.append(ChangedRun(e, what))
    return out
