"""Reply evidence: the tools' own replies as a check on the declared rules (SPEC "Normalizer
suspects").

A rule says two values mean the same to the tool. Where a run recorded no world, the tool's reply
is the only witness: two recorded calls of one case to one tool whose arguments differ only where
the rule equates them should get the same reply. Equal replies confirm the rule; different ones
put it in doubt (`date` on a log search's `since`: a window an hour off returns other log lines).

Per call, per declared rule of its tool whose parameter the call holds: the call's *group* (its
arguments with that one rule applied, nothing else: no other rule, no default), its *spelling*
(the arguments as JSON) and its reply, each as a 64-bit digest. (Where the parameter is absent the
rule changes nothing: the group holds one spelling, and no pair.) Two calls of one group with
different spellings are a pair. The evidence changes no verdict: it is collected beside grading,
from the calls' `result`s, which grading never reads.

Memory is bounded: per (case, tool, rule), the `MAX_GROUPS` groups with the smallest digests, in
each the `MAX_SPELLINGS` spellings with the smallest digests, in each up to `MAX_REPLIES` distinct
replies, are kept (a bottom-k sample, so the same runs keep the same sample in any order and
however `--jobs` splits them); `sampled` says when something was left out.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Protocol

import orjson

from ..jsonvalue import MISSING, dumps, short_json
from ..model import Param, Tool
from .compare import Node, compile_param, normalize
from .norms import Normalizer

MAX_GROUPS: Final = 64
"""Groups kept per (case, tool, rule)."""
MAX_SPELLINGS: Final = 16
"""Spellings kept per group."""
MAX_REPLIES: Final = 16
"""Distinct replies counted per spelling."""
REPLY_CHARS: Final = 80
"""A reply in an example is cut to this many characters of compact JSON."""
REPLY_AFTER: Final = 10
"""Characters an example's cut replies show past the first one where they differ, at least."""
_CACHE_SIZE: Final = 65_536
"""Distinct calls whose groups are kept (a few small ints each); the older half goes when full."""


def digest(value: Any) -> int:
    """A 64-bit digest of a JSON value, the same in every process (unlike `hash`): two 32-bit
    checksums of its sorted-key JSON. Not cryptographic: it tells replies and argument objects
    apart, and a collision (about one in 2**64 for a pair) would only merge two of them."""
    data = dumps(value, option=orjson.OPT_SORT_KEYS)
    return (zlib.crc32(data) << 32) | zlib.adler32(data)


def reply_excerpts(first: Any, second: Any, limit: int = REPLY_CHARS) -> tuple[str, str]:
    """Two different replies as compact JSON, each cut to `limit` characters so that both show
    where they differ: from the start when the first difference falls within the cut (as
    `short_json` cuts), else from `2 * REPLY_AFTER` characters before it, the cut ends marked `…`.
    Replies of a tool often share a long head (the same envelope, the same first lines), and two
    heads cut alike would show no difference at all."""
    a, b = short_json(first, 1 << 62), short_json(second, 1 << 62)
    if len(a) <= limit and len(b) <= limit:
        return a, b
    same = 0
    for x, y in zip(a, b):
        if x != y:
            break
        same += 1
    start = 0 if same + REPLY_AFTER < limit else same - 2 * REPLY_AFTER
    return _cut(a, start, limit), _cut(b, start, limit)


def _cut(text: str, start: int, limit: int) -> str:
    head = "…" if start else ""
    body = text[start:]
    room = limit - len(head)
    return head + (body if len(body) <= room else body[: room - 1] + "…")


def value_at(args: Any, path: str) -> Any:
    """The value(s) at a parameter path in `args`: `since`, `filters.status`, `flights[].date`
    (a list, one per item); MISSING when absent."""
    value = args
    parts = path.split(".") if path else []
    for i, part in enumerate(parts):
        if part.endswith("[]"):
            name = part[:-2]
            if name:
                value = value.get(name, MISSING) if type(value) is dict else MISSING
            if type(value) is not list:
                return MISSING
            rest = ".".join(parts[i + 1 :])
            return [value_at(x, rest) if rest else x for x in value]
        value = value.get(part, MISSING) if type(value) is dict else MISSING
        if value is MISSING:
            return MISSING
    return value


RuleKey = tuple[str, str, str]
"""(tool, parameter, rule name)."""


Seen = tuple[RuleKey, int, int, Any]
"""One rule of a call's tool seeing the call: (rule, group digest, spelling digest, the call's
value at the rule's parameter, for an example)."""

Replied = tuple[tuple[Seen, ...], int, Any]
"""A call with a recorded reply, as evidence: what each rule of its tool sees (one tuple per
distinct call and tool, kept by the plan), the reply's digest, and the reply as recorded (for an
example, written cut: `REPLY_CHARS`). One tuple a call, whatever the number of rules."""


def _only(param: Param, target: Param) -> Param:
    """`param`'s tree with the rule of `target` alone: every other rule and every default gone."""
    return replace(
        param,
        norm=param.norm if param is target else None,
        default=MISSING,
        properties={k: _only(p, target) for k, p in param.properties.items()},
        items=_only(param.items, target) if param.items is not None else None,
    )


class Interned(Protocol):
    """A call as the grader interned it (`Grader._intern`)."""

    @property
    def id(self) -> int: ...
    @property
    def args(self) -> Any: ...
    @property
    def malformed(self) -> str | None: ...


class ReplyPlan:
    """Per tool, one compiled tree per declared rule (that rule alone)."""

    def __init__(self, tools: Mapping[str, Tool], registry: Mapping[str, Normalizer]) -> None:
        self.rules: dict[str, tuple[tuple[str, RuleKey, Node], ...]] = {}
        for name, tool in tools.items():
            found = []
            for p in tool.norm_params:
                assert p.norm is not None
                try:
                    root = compile_param(_only(tool.params, p), registry, name)
                except Exception:  # an unusable rule is the grader's InputError, not ours
                    continue
                found.append((p.path, (name, p.path, p.norm.name), root))
            if found:
                self.rules[name] = tuple(found)
        self._cache: dict[int, tuple[Seen, ...]] = {}

    def observe(self, calls: Iterable[tuple[str, Any, Any]]) -> tuple[Replied, ...]:
        """The evidence of calls given as (tool, arguments, result): only well-formed, not
        errored calls with a recorded result, to tools with rules."""
        out: list[Replied] = []
        for tool, args, result in calls:
            rules = self.rules.get(tool)
            if rules is None or result is MISSING:
                continue
            seen = self._seen(rules, args, None)
            if not seen:
                continue
            try:
                out.append((seen, digest(result), result))
            except TypeError:  # not JSON orjson can write
                continue
        return tuple(out)

    def answered(self, tool: str, call: Interned, result: Any) -> Replied | None:
        """The evidence of one call as the grader reads it (`Grader._read_calls`): a call to
        `tool`, which has rules, not errored, with its interned spelling and its recorded
        `result`; None when it is malformed or not JSON orjson can write. What the rules see of
        a spelling is worked out once, kept by the grader's spelling id."""
        seen = self._cache.get(call.id)
        if seen is None:
            if call.malformed is not None:
                return None
            seen = self._seen(self.rules[tool], call.args, call.id)
            if seen is None:
                return None
        if not seen:
            return None
        try:
            return (seen, digest(result), result)
        except TypeError:  # not JSON orjson can write
            return None

    def _seen(
        self, rules: tuple[tuple[str, RuleKey, Node], ...], args: Any, ident: int | None
    ) -> tuple[Seen, ...] | None:
        """What each of a tool's `rules` sees of a call's arguments, kept by `ident` (the
        grader's spelling id, which names the tool too, and is never given to another spelling;
        None: not kept); None when the arguments are not JSON orjson can write."""
        found: list[Seen] = []
        spelling = None
        try:
            for path, rule, root in rules:
                value = value_at(args, path)
                if value is MISSING:
                    # In no pair: with its parameter absent, the rule changes nothing, so every
                    # call of the group is spelled alike. Neither observed nor counted.
                    continue
                if spelling is None:
                    spelling = digest(args)
                found.append((rule, digest(normalize(args, root, True)), spelling, value))
        except TypeError:
            return None
        seen = tuple(found)
        if ident is not None:
            if len(self._cache) >= _CACHE_SIZE:
                items = list(self._cache.items())
                self._cache = dict(items[len(items) // 2 :])
            self._cache[ident] = seen
        return seen


# ------------------------------------------------------------------------------------- evidence

Order = tuple[int, int]


@dataclass(slots=True)
class _Spelling:
    replies: dict[int, int] = field(default_factory=dict)
    """Reply digest -> calls."""
    example: tuple[Order, str, str, Any, int, Any] | None = None
    """The spelling's earliest call, its reply counted or left out: (order, run id, source,
    value, reply digest, reply). A spelling kept in the end met every one of its calls (a key
    once left out is never kept again: `make_room`), so this is the same in any order."""
    top: int | None = None
    """The largest reply digest kept, once known while `replies` is full (None: not known): a
    call repeated with replies that all differ (an id in each) is left out at one comparison."""


def make_room(table: dict[int, Any], key: int, top: int | None = None) -> tuple[bool, int | None]:
    """A full table of a bottom-k sample (it keeps its `limit` smallest keys) meets a key it does
    not hold: whether the key is kept, its largest key left out to make room. A key once left out
    is larger than every key kept from then on, so the same keys are kept in any order of
    arrival, and each is counted whole.

    `top`: the table's largest key when the caller knows it (else it is looked for). Also
    returned: the table's largest key afterwards where known (None once it has been left out),
    for the caller to keep: a table that keeps leaving keys out then costs one comparison each."""
    largest = max(table) if top is None else top
    if key > largest:
        return False, largest
    del table[largest]
    return True, None


@dataclass(slots=True)
class _Sample:
    """One (case, tool, rule)'s bounded sample: group digest -> spelling digest -> replies."""

    groups: dict[int, dict[int, _Spelling]] = field(default_factory=dict)
    calls: int = 0
    sampled: bool = False
    top: int | None = None
    """The largest group digest kept, once known while the group table is full (None: not
    known). Most calls of a long corpus are of a group left out: one comparison says so."""

    def _insert(
        self,
        g: int,
        s: int,
        reply: int,
        count: int,
        example: tuple[Order, str, str, Any, int, Any],
    ) -> None:
        """Count `count` calls of group `g`, spelling `s`, answered `reply`, in the bounded
        tables: each keeps its bound's smallest keys (`make_room`)."""
        groups = self.groups
        group = groups.get(g)
        if group is None:
            if len(groups) >= MAX_GROUPS:
                kept, self.top = self._room(groups, g, self.top)
                if not kept:
                    return
            group = groups[g] = {}
        entry = group.get(s)
        if entry is None:
            if len(group) >= MAX_SPELLINGS and not self._room(group, s)[0]:
                return
            entry = group[s] = _Spelling()
        if entry.example is None or example[0] < entry.example[0]:
            entry.example = example
        replies = entry.replies
        n = replies.get(reply)
        if n is None:
            if len(replies) >= MAX_REPLIES:
                kept, entry.top = self._room(replies, reply, entry.top)
                if not kept:
                    return
            n = 0
        replies[reply] = n + count

    def _room(
        self, table: dict[int, Any], key: int, top: int | None = None
    ) -> tuple[bool, int | None]:
        """A full table meets a key it does not hold: `make_room`; either way something is left
        out."""
        self.sampled = True
        return make_room(table, key, top)

    def merge(self, other: _Sample) -> None:
        """Add `other`'s calls (`other` is not used again: its tables may be adopted)."""
        self.calls += other.calls
        self.sampled = self.sampled or other.sampled
        if not self.groups:
            self.groups, self.top = other.groups, other.top
            return
        # Whole groups and spellings are adopted where there is room, counts added in place;
        # only what would overflow a bound goes through `_insert`. The kept keys are the
        # smallest whatever the order (`make_room`), so this is the same as inserting each.
        groups = self.groups
        for g, spellings in other.groups.items():
            mine_g = groups.get(g)
            if mine_g is None and len(groups) < MAX_GROUPS:
                groups[g] = spellings
                continue
            for sp, entry in spellings.items():
                mine = mine_g.get(sp) if mine_g is not None else None
                if mine_g is not None and mine is None and len(mine_g) < MAX_SPELLINGS:
                    mine_g[sp] = entry
                    continue
                example = entry.example
                assert example is not None
                for reply, n in entry.replies.items():
                    k = mine.replies.get(reply) if mine is not None else None
                    if mine is not None and k is not None:
                        mine.replies[reply] = k + n
                    else:
                        self._insert(g, sp, reply, n, example)
                        mine_g = groups.get(g)
                        mine = mine_g.get(sp) if mine_g is not None else None
                if mine is not None and mine.example is not None and example[0] < mine.example[0]:
                    mine.example = example

    def pairs(self) -> tuple[int, int]:
        """(pairs whose replies agree, pairs whose replies differ) among the kept calls."""
        agree = differ = 0
        for spellings in self.groups.values():
            a, d = pair_counts(entry.replies for entry in spellings.values())
            agree += a
            differ += d
        return agree, differ

    def differing_example(self) -> tuple[Order, tuple[Any, ...], tuple[Any, ...]] | None:
        """The earliest pair of calls (by the later of the two) whose replies differ."""
        best = None
        for spellings in self.groups.values():
            # By (order, run id, source), then the spelling's digest: two spellings of one run
            # share the first three, and their values may not compare ("PT30M" and 1800).
            keyed = [(e.example, k) for k, e in spellings.items() if e.example is not None]
            keyed.sort(key=lambda xk: (xk[0][:3], xk[1]))
            examples = [x for x, _ in keyed]
            for i, a in enumerate(examples):
                for b in examples[i + 1 :]:
                    if a[4] != b[4]:
                        if best is None or b[0] < best[0]:
                            best = (b[0], a, b)
                        break
        return best


def pair_counts(spellings: Iterable[Mapping[int, int]]) -> tuple[int, int]:
    """(pairs whose replies agree, pairs whose replies differ) among one group's calls, given each
    spelling's calls by reply digest: pairs of calls spelled apart, counted without listing them."""
    total: Counter[int] = Counter()
    n_all = same_spelling = same_reply_same_spelling = 0
    for replies in spellings:
        n = sum(replies.values())
        n_all += n
        same_spelling += n * n
        total.update(replies)
        same_reply_same_spelling += sum(k * k for k in replies.values())
    pairs = (n_all * n_all - same_spelling) // 2
    same = (sum(k * k for k in total.values()) - same_reply_same_spelling) // 2
    return same, pairs - same


_BATCH: Final = 2048
"""Runs whose replies wait to be counted together (`ReplyEvidence.add`)."""


@dataclass(eq=False)
class ReplyEvidence:
    """Reply evidence for every declared rule, mergeable exactly (see the module docstring).

    Runs are counted in batches: one loop over many runs finds the samples' tables in the
    processor's caches, where a run at a time between two gradings did not (timed inside the
    process at 200k calls, counting took half as long: 0.15 s to 0.07 s). The samples are the
    same in any order of counting, so a batch only has to be counted before they are read:
    `samples`, `merge` and `to_json` do it."""

    _samples: dict[str, dict[RuleKey, _Sample]] = field(default_factory=dict)
    _pending: list[tuple[str, Sequence[Replied], Order, str, str]] = field(default_factory=list)

    @property
    def samples(self) -> dict[str, dict[RuleKey, _Sample]]:
        """By case id, then (tool, parameter, rule)."""
        self._count()
        return self._samples

    def _count(self) -> None:
        """Count the batch waiting: each run's calls with replies in its case's samples. The
        common cases first, with no object made: a call spelled, grouped and answered as one
        seen before, or a reply its spelling's full table leaves out; else `_Sample._insert`
        with the call as a possible example."""
        pending, self._pending = self._pending, []
        samples = self._samples
        for case_id, replied, order, run_id, source in pending:
            by_rule = samples.get(case_id)
            if by_rule is None:
                by_rule = samples[case_id] = {}
            for seen, reply, result in replied:
                for rule, g, s, value in seen:
                    sample = by_rule.get(rule)
                    if sample is None:
                        sample = by_rule[rule] = _Sample()
                    sample.calls += 1
                    group = sample.groups.get(g)
                    entry = group.get(s) if group is not None else None
                    if entry is None:
                        example = (order, run_id, source, value, reply, result)
                        sample._insert(g, s, reply, 1, example)
                        continue
                    replies = entry.replies
                    n = replies.get(reply)
                    if n is not None:
                        replies[reply] = n + 1
                    else:
                        top = entry.top
                        if top is not None and reply > top:  # a reply left out (`_insert`)
                            sample.sampled = True
                        else:
                            example = (order, run_id, source, value, reply, result)
                            sample._insert(g, s, reply, 1, example)
                            continue
                    known = entry.example
                    if known is not None and order < known[0]:
                        entry.example = (order, run_id, source, value, reply, result)

    def add(
        self,
        case_id: str,
        replied: Sequence[Replied],
        order: Order,
        run_id: str,
        source: str,
    ) -> None:
        """A run's calls with replies (`ReplyPlan.answered`), counted with its batch."""
        pending = self._pending
        pending.append((case_id, replied, order, run_id, source))
        if len(pending) >= _BATCH:
            self._count()

    def merge(self, other: ReplyEvidence) -> None:
        samples = self.samples
        for case_id, theirs in other.samples.items():
            mine = samples.get(case_id)
            if mine is None:
                samples[case_id] = theirs  # `other` is not used again (Summary.merge)
                continue
            for rule, sample in theirs.items():
                kept = mine.get(rule)
                if kept is None:
                    mine[rule] = sample
                else:
                    kept.merge(sample)

    def to_json(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """(the rules in doubt: some pair's replies differ; the rules only confirmed), each entry
        with its pair counts over all cases, the calls seen, whether the sample was bounded, and
        for a rule in doubt the earliest pair whose replies differ."""
        by_rule: dict[RuleKey, list[tuple[str, _Sample]]] = {}
        for case_id, samples_of_case in self.samples.items():
            for rule, sample in samples_of_case.items():
                by_rule.setdefault(rule, []).append((case_id, sample))
        doubt: list[dict[str, Any]] = []
        confirmed: list[dict[str, Any]] = []
        for (tool, param, norm), samples in sorted(by_rule.items()):
            agree = differ = calls = cases = 0
            sampled = False
            example: tuple[Order, str, tuple[Any, ...], tuple[Any, ...]] | None = None
            for case_id, sample in sorted(samples, key=lambda cs: cs[0]):
                a, d = sample.pairs()
                agree, differ, calls = agree + a, differ + d, calls + sample.calls
                cases += (a + d) > 0
                sampled = sampled or sample.sampled
                found = sample.differing_example()
                if found is not None and (example is None or found[0] < example[0]):
                    example = (found[0], case_id, found[1], found[2])
            if agree + differ == 0:
                continue
            entry: dict[str, Any] = {
                "tool": tool,
                "param": param,
                "norm": norm,
                "pairs_agree": agree,
                "pairs_differ": differ,
                "cases": cases,
                "calls": calls,
                "sampled": sampled,
            }
            if differ == 0:
                confirmed.append(entry)
                continue
            if example is not None:
                _, ex_case, first, second = example
                shown = reply_excerpts(first[5], second[5])
                entry["example"] = {
                    "case_id": ex_case,
                    "calls": [
                        {"run_id": x[1], "source": x[2], "value": x[3], "reply": text}
                        for x, text in zip((first, second), shown)
                    ],
                }
            doubt.append(entry)
        doubt.sort(key=lambda e: (-e["pairs_differ"], e["tool"], e["param"], e["norm"]))
        return doubt, confirmed
