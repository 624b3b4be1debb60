"""The tools' replies as evidence for and against a suggestion (SPEC `evidence.replies_agree`,
`risk.replies_differ`).

Suggest's pass keeps, per (case, tool), a bounded sample of the distinct argument objects its
calls sent with a recorded reply, each with the digests of the replies it got. A proposed rule or
default is then judged on it: the calls whose arguments, with that one change applied (and no
other rule or default of the tool), are the same, but are not the same JSON, differ only where
the change equates them. Their replies should be equal; a pair whose replies differ counts
against it (a log search an hour off returns other lines), a pair whose replies agree for it.

The sample is a bottom-k by the digest of the arguments (`grade.replies` explains why): the same
traces keep the same sample however `--jobs` splits them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Final

from ..grade.compare import compile_param, normalize
from ..grade.norms import Normalizer
from ..grade.replies import digest, pair_counts, value_at
from ..jsonvalue import MISSING
from ..model import Param, Tool
from .model import Replies, ReplyCall, ReplyPair
from .params import Change, param_at, param_path, with_param_changes
from .sample import ReplySample, Sent

MAX_CALLS: Final = 256
"""Distinct argument objects kept per (case, tool)."""
MAX_REPLIES: Final = 16
"""Distinct replies counted per argument object."""
MAX_EXAMPLES: Final = 3


def _bare(param: Param) -> Param:
    """`param`'s tree with no rule and no default: the change alone decides."""
    return dataclasses.replace(
        param,
        norm=None,
        default=MISSING,
        properties={k: _bare(p) for k, p in param.properties.items()},
        items=_bare(param.items) if param.items is not None else None,
    )


def judge(
    sample: ReplySample, tool: Tool, change: Change, registry: Mapping[str, Normalizer]
) -> Replies:
    """What the sampled replies say of `change` (see the module docstring)."""
    if param_at(tool.params, change.steps) is None:
        return Replies()
    root = compile_param(with_param_changes(_bare(tool.params), [change]), registry, "suggest")
    agree = differ = 0
    sampled = False
    pairs: list[tuple[tuple[str, str], ReplyPair]] = []
    for (case_id, name), table in sorted(sample.calls.items()):
        if name != tool.name:
            continue
        sampled = sampled or (case_id, name) in sample.sampled
        groups: dict[int, list[Sent]] = {}
        for entry in table.values():
            args = entry.args
            try:
                key = digest(normalize(args, root, True))
            except TypeError:
                continue
            groups.setdefault(key, []).append(entry)
        for group in groups.values():
            if len(group) < 2:
                continue
            a, d = pair_counts(entry.replies for entry in group)
            agree += a
            differ += d
            pairs.extend(_differing(case_id, group, param_path(change.steps)))
    pairs.sort(key=lambda p: p[0])
    return Replies(agree, differ, tuple(p for _, p in pairs[:MAX_EXAMPLES]), sampled)


def _differing(
    case_id: str, group: list[Sent], path: str
) -> list[tuple[tuple[str, str], ReplyPair]]:
    """One pair of the group's calls whose replies differ (by their examples), if any."""
    found = sorted((e for e in group if e.example is not None), key=lambda e: e.example or ())
    for i, a in enumerate(found):
        for b in found[i + 1 :]:
            ea, eb = a.example, b.example
            assert ea is not None and eb is not None
            if ea[2] != eb[2]:
                first = ReplyCall(ea[0], ea[1], _value(a.args, path), ea[3])
                second = ReplyCall(eb[0], eb[1], _value(b.args, path), eb[3])
                return [((eb[1], ea[1]), ReplyPair(case_id, first, second))]
    return []


def _value(args: Any, path: str) -> Any:
    return value_at(args, path)
