"""From the graded traces to the suggestions: evidence, choice, what-if, order.

1. The failing calls' differences from their steps (`sites`), counted in calls.
2. Per parameter, the narrowest rule that absorbs them (`rules`), deepest parameters first, and
   the default the one-sided ones point to (`defaults`).
3. Evidence is kept only from calls these rules and defaults, applied together, make equivalent:
   a call that also differs in a fact (another customer) is a real failure, whatever else about
   it a rule would absorb. A rule or default no such call needs is not proposed.
4. Alternates among the runs that still fail with every rule and default applied: a run a rule
   explains is not another path.
5. Each rule, default and alternate alone as a what-if (`whatif`); then all of them at once, and
   all those without risk, as full regrades of the runs they can move.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model import NormSpec
from ..scoring import Config
from .alternates import alternates
from .case_keys import propose_case_keys
from .collect import Corpus, Group
from .defaults import DefaultChoice, choose_default
from .encodings import TIGHTEN_RULES
from .model import (
    KINDS,
    AlternateSuggestion,
    DefaultSuggestion,
    Evidence,
    Example,
    Narrower,
    Report,
    Risk,
    RuleSuggestion,
    Scored,
    Suggestion,
    TightenSuggestion,
)
from .params import Change, Steps, param_at
from .replies import judge
from .rules import Choice, Entry, choose_rules, description_says_otherwise
from .sites import Mismatch, Site, mismatches
from .whatif import Outcome, WhatIf

EXAMPLES = 3


@dataclass
class _SiteStats:
    site: Site
    calls: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)


def propose(
    config: Config,
    corpus: Corpus,
    *,
    tool: str | None = None,
    kinds: Collection[str] | None = None,
) -> Report:
    """The suggestions the graded traces support, narrowed to `tool` and `kinds` when given
    (the figures of the summary are for the suggestions listed)."""
    groups, registry = corpus.groups, config.registry
    whatif = WhatIf(config.tools, config.cases, registry, groups)

    found = mismatches(groups, config.cases, config.tools, registry)
    stats = _site_stats(found, groups)
    rules: dict[str, dict[Steps, Choice]] = {}
    defaults: dict[str, dict[Steps, DefaultChoice]] = {}
    for name in sorted(stats):
        t = config.tools[name]
        params = {}
        for steps, by_key in stats[name].items():
            param = param_at(t.params, steps)
            if param is not None:
                params[steps] = (param, [Entry(s.site, s.calls) for s in by_key.values()])
        rules[name] = choose_rules(t, params, registry)
        chosen = {s: c.rule for s, c in rules[name].items()}
        for steps, (param, entries) in params.items():
            if _under_any(t, steps):
                continue  # SPEC: never a default for a parameter whose values are not judged
            d = choose_default(t, steps, param, entries, chosen, registry)
            # A default is a documented fact of the tool, not one case's wording (SPEC): the
            # value must be stated, where the other side leaves it out, in two cases at least.
            if d is not None and len(_cases_of(d.absorbed, stats[name][steps], groups)) >= 2:
                defaults.setdefault(name, {})[steps] = d

    all_changes = [
        Change(name, steps, norm=c.rule) for name, by in rules.items() for steps, c in by.items()
    ] + [
        Change(name, steps, default=d.value)
        for name, by in defaults.items()
        for steps, d in by.items()
    ]
    together = whatif.grader(all_changes, ())
    explained = {
        id(m)
        for m in found
        if together.plan(m.tool).key(m.actual)
        == together.plan(m.tool).key(dict(m.expected), checked=False)
    }

    scored: list[Scored] = []
    for name, by in rules.items():
        for steps, c in by.items():
            evidence = _evidence(c.absorbed, stats[name][steps], explained, groups)
            if evidence is None:
                continue
            # the other rules, counted on the same evidence (the calls proposed for)
            counted = [
                (spec, _calls(keys & c.absorbed, stats[name][steps], explained, groups))
                for spec, keys in c.others
            ]
            # most first; among as many, narrowest first (the order `counted` is in)
            others = tuple(sorted(((spec, n) for spec, n in counted if n), key=lambda o: -o[1]))
            change = Change(name, steps, norm=c.rule)
            # Runs whose only way to pass is values a narrower rule reads apart are the rule's
            # risk, never its gains (SPEC `risk.narrower_differs`).
            narrower, tainted = _narrower(c.narrower_differs, stats[name][steps], groups)
            merges, _ = _narrower(
                tuple((spec.name, keys) for spec, keys in c.wider_merges),
                stats[name][steps],
                groups,
            )
            param = param_at(config.tools[name].params, steps)
            said = description_says_otherwise(c.rule.name, param) if param is not None else None
            replies = judge(corpus.replies, config.tools[name], change, registry)
            gains, risk, checked = _gains(whatif, [change], tainted)
            risk = dataclasses.replace(
                risk, narrower_differs=narrower, description=said, replies_differ=replies.differ
            )
            evidence = dataclasses.replace(evidence, replies=replies, checked_worlds=checked)
            scored.append(
                RuleSuggestion(
                    name, steps, c.rule, others, evidence.calls or 0, evidence, gains, risk, merges
                )
            )
    for name, by_steps in defaults.items():
        for steps, d in by_steps.items():
            evidence = _evidence(d.absorbed, stats[name][steps], explained, groups)
            if evidence is None:
                continue
            change = Change(name, steps, default=d.value)
            replies = judge(corpus.replies, config.tools[name], change, registry)
            gains, risk, checked = _gains(whatif, [change], set())
            risk = dataclasses.replace(risk, replies_differ=replies.differ)
            evidence = dataclasses.replace(evidence, replies=replies, checked_worlds=checked)
            scored.append(DefaultSuggestion(name, steps, d.value, evidence, gains, risk, d.others))

    # Alternates among the runs the rules and defaults proposed leave failing, grouped by
    # their calls as a grader with those rules sees them.
    proposed = [s.change for s in scored if not isinstance(s, AlternateSuggestion)]
    _, now = whatif.regrade(proposed)
    failing = [i for i, g in enumerate(groups) if not now.get(i, g.calls_ok)]
    for alt in alternates(groups, failing, whatif.grader(proposed, ()), config.cases):
        examples = tuple(Example(run_id, source) for run_id, source in alt.examples)
        suggestion = AlternateSuggestion(
            alt.case_id, alt.steps, Evidence(alt.runs, examples), 0, Risk()
        )
        o = whatif.outcome((), [suggestion.accepted])
        # of the runs it would pass (all of its case, which has effect assertions), those that
        # recorded a world: the others are unverified
        checked = o.gains - o.unverified
        evidence = dataclasses.replace(suggestion.evidence, checked_worlds=checked)
        scored.append(AlternateSuggestion(alt.case_id, alt.steps, evidence, o.gains, _risk(o)))

    tighten = _tighten(config, corpus, [s for s in scored if isinstance(s, RuleSuggestion)])
    listed: list[Suggestion] = [*_ordered(scored), *tighten]
    listed = [s for s in listed if _wanted(s, tool, kinds)]

    shown = [s for s in listed if not isinstance(s, TightenSuggestion)]
    everything = whatif.outcome(*_applied(shown))
    safe = whatif.outcome(*_applied([s for s in shown if not s.risk.risky]))
    summary = corpus.summary
    return Report(
        suggestions=tuple(listed),
        summary=summary,
        gains_if_all_applied=everything.gains,
        true_failed_if_safe_applied=summary.true_failed_runs
        - safe.gained_passes
        + safe.lost_passes,
        errors=corpus.errors,
        kinds=tuple(k for k in KINDS if not kinds or k in kinds),
        tool=tool,
        case_keys=()
        if tool or kinds
        else propose_case_keys(config.tools, config.cases, registry, groups),
    )


def _under_any(tool: Any, steps: Steps) -> bool:
    """Whether the parameter at `steps`, or one holding it, declares the rule `any`."""
    for n in range(len(steps) + 1):
        p = param_at(tool.params, steps[:n])
        if p is not None and p.norm is not None and p.norm.name == "any":
            return True
    return False


def _cases_of(
    keys: Collection[Any], stats: Mapping[Any, _SiteStats], groups: Sequence[Group]
) -> set[str]:
    """The cases whose runs show one of the sites `keys` names."""
    return {
        groups[i].case_id
        for key in keys
        if key in stats
        for m in stats[key].mismatches
        for i in m.occurrences
    }


def _site_stats(
    found: Iterable[Mismatch], groups: Sequence[Group]
) -> dict[str, dict[Steps, dict[Any, _SiteStats]]]:
    """Per tool and parameter, each distinct site with the calls that show it."""
    out: dict[str, dict[Steps, dict[Any, _SiteStats]]] = {}
    for m in found:
        calls = sum(n * groups[i].runs for i, n in m.occurrences.items())
        for site in m.sites:
            by_key = out.setdefault(m.tool, {}).setdefault(site.steps, {})
            s = by_key.get(site.key)
            if s is None:
                s = by_key[site.key] = _SiteStats(site)
            s.calls += calls
            s.mismatches.append(m)
    return out


def _touched(
    keys: Collection[Any], stats: Mapping[Any, _SiteStats], explained: Collection[int]
) -> dict[int, tuple[Mismatch, Site]]:
    """The explained mismatches that show one of the sites `keys` names, each with the first
    such site, in the order they were met (input order)."""
    found: dict[int, tuple[Mismatch, Site]] = {}
    for key, s in stats.items():
        if key in keys:
            for m in s.mismatches:
                if id(m) in explained and id(m) not in found:
                    found[id(m)] = (m, s.site)
    return found


def _calls(
    keys: Collection[Any],
    stats: Mapping[Any, _SiteStats],
    explained: Collection[int],
    groups: Sequence[Group],
) -> int:
    """How many explained calls show one of the sites `keys` names."""
    touched = _touched(keys, stats, explained).values()
    return sum(n * groups[i].runs for m, _ in touched for i, n in m.occurrences.items())


def _evidence(
    absorbed: Collection[Any],
    stats: Mapping[Any, _SiteStats],
    explained: Collection[int],
    groups: Sequence[Group],
) -> Evidence | None:
    """The calls and runs whose difference the suggestion absorbs, among calls the suggestions
    together make equivalent, with the earliest runs as examples; None when there are none."""
    calls = 0
    first: dict[int, Site] = {}
    for m, site in _touched(absorbed, stats, explained).values():
        for i, n in m.occurrences.items():
            calls += n * groups[i].runs
            first.setdefault(i, site)
    if not calls:
        return None
    order = sorted(first)
    examples = []
    for i in order[:EXAMPLES]:
        run_id, source = groups[i].examples[0]
        examples.append(Example(run_id, source, first[i].actual, first[i].expected))
    return Evidence(sum(groups[i].runs for i in order), tuple(examples), calls)


def _risk(o: Outcome) -> Risk:
    return Risk(o.effects_failed, o.unverified)


def _narrower(
    by_rule: Sequence[tuple[str, frozenset[Any]]],
    stats: Mapping[Any, _SiteStats],
    groups: Sequence[Group],
) -> tuple[tuple[Narrower, ...], set[int]]:
    """Per rule, the sites it names (values one rule reads apart that another would equate),
    counted in calls with examples; and the groups that show one of them (their passing would
    be a wider rule's risk, never its gain)."""
    found = []
    tainted: set[int] = set()
    for name, keys in by_rule:
        calls = 0
        first: dict[int, Site] = {}
        for key in keys:
            s = stats.get(key)
            if s is None:
                continue
            for m in s.mismatches:
                for i, n in m.occurrences.items():
                    calls += n * groups[i].runs
                    tainted.add(i)
                    first.setdefault(i, s.site)
        examples = []
        for i in sorted(first)[:EXAMPLES]:
            run_id, source = groups[i].examples[0]
            examples.append(Example(run_id, source, first[i].actual, first[i].expected))
        if calls:
            found.append(Narrower(name, calls, tuple(examples)))
    return tuple(found), tainted


def _gains(
    whatif: WhatIf, changes: Sequence[Change], tainted: Collection[int]
) -> tuple[int, Risk, int]:
    """(gains, risk from the worlds, runs gained whose world was checked) of the changes, the
    `tainted` groups left out."""
    _, now = whatif.regrade(changes)
    gains = effects_failed = unverified = checked = 0
    for i, ok in now.items():
        g = whatif.groups[i]
        if ok and not g.calls_ok and i not in tainted:
            gains += g.runs
            effects_failed += g.effects_failed
            unverified += g.unverified
            checked += g.checked + g.effects_failed
    return gains, Risk(effects_failed, unverified), checked


def _applied(suggestions: Iterable[Suggestion]) -> tuple[list[Change], list[Any]]:
    changes: list[Change] = []
    sequences: list[Any] = []
    for s in suggestions:
        if isinstance(s, (RuleSuggestion, DefaultSuggestion)):
            changes.append(s.change)
        elif isinstance(s, AlternateSuggestion):
            sequences.append(s.accepted)
    return changes, sequences


def _ordered(scored: list[Scored]) -> list[Scored]:
    def key(s: Scored) -> tuple[Any, ...]:
        where = (s.case_id, "") if isinstance(s, AlternateSuggestion) else (s.tool, s.param)
        return (-s.gains, KINDS.index(s.kind), -s.evidence.runs, where)

    return sorted(scored, key=key)


def _tighten(
    config: Config, corpus: Corpus, rules: Iterable[RuleSuggestion]
) -> list[TightenSuggestion]:
    """Parameters under an encoding rule (declared or suggested) that received several
    encodings, most mixed first."""
    suggested = {(r.tool, r.steps): r.rule for r in rules}
    by_param: dict[tuple[str, Steps], dict[str, int]] = {}
    for (tool, steps, encoding), n in corpus.census.items():
        by_param.setdefault((tool, steps), {})[encoding] = n
    out = []
    for (tool, steps), counts in by_param.items():
        if len(counts) < 2:
            continue
        rule = suggested.get((tool, steps)) or _declared(config, tool, steps)
        if rule is None or rule.name not in TIGHTEN_RULES:
            continue
        encodings = tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
        out.append(TightenSuggestion(tool, steps, rule.name, encodings))
    minority = {id(t): sum(n for _, n in t.encodings[1:]) for t in out}
    return sorted(out, key=lambda t: (-minority[id(t)], t.tool, t.param))


def _declared(config: Config, tool: str, steps: Steps) -> NormSpec | None:
    t = config.tools.get(tool)
    param = param_at(t.params, steps) if t is not None else None
    return param.norm if param is not None else None


def _wanted(s: Suggestion, tool: str | None, kinds: Collection[str] | None) -> bool:
    if kinds and s.kind not in kinds:
        return False
    if tool is None:
        return True
    if isinstance(s, AlternateSuggestion):
        return any(step.tool == tool for step in s.sequence)
    return s.tool == tool
