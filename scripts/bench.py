"""The benchmark: evalrun against the floor and its peers, side by side, in one run.

    python scripts/bench.py                  # 1M calls: floor, evalrun --jobs 1/2, peers, on
                                             # a distinct-run corpus, then a repeating one
    python scripts/bench.py --corpora distinct   # only the corpus where no run repeats another
    python scripts/bench.py --calls 200000   # a smaller corpus
    python scripts/bench.py --memory         # peak RSS at 1M vs 5M calls (table and jsonl)
    python scripts/bench.py --profile        # where evalrun's time goes (cProfile, one process)

`make bench` runs the first one in a virtualenv with the `bench` extra (the peers) installed.

The corpus is generated, deterministically, under bench-corpus/ (gitignored): runs are synthesized
from a tools/cases directory (the repository's example corpus when it is there, else a built-in tool
surface) by sampling cases and mutating their canonical call sequences into every shape evalrun
explains: encoding variants, reordered lists, restated defaults, alternate sequences, errored
attempts, loops, rejected calls, failed effects, real mismatches, malformed arguments, and a few
unscoreable lines. Each variant is checked against the parameter's own rule, so an "encoding
variant" really is equivalent. Two corpora: a distinct-run one (no run makes the same calls as an
earlier run of its case, so the grader's memo serves none) and a repeating one (as often as in
the example corpus at its size, more as it grows); each report says its corpus's repeat share.

Every measurement runs in its own process, so each has its own peak RSS. evalrun is timed end to
end (process start to exit, as a user sees it); the floor and the peers are timed around their
loop only, with the conversion to each peer's input format outside the timed region: every ratio
is therefore conservative for evalrun.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import hashlib
import inspect
import json
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson

from evalrunner.grade.norms import bind, load_registry
from evalrunner.jsonvalue import canon_key
from evalrunner.model import MISSING
from evalrunner.read.cases import load_cases
from evalrunner.read.tools import load_tools

ROOT = Path(__file__).resolve().parent.parent
GENERATOR_VERSION = 4
SEED = 20260301

# ============================================================================== corpus: surface


def builtin_surface(rng: random.Random) -> tuple[list[dict], list[dict]]:
    """A billing/support tool surface in every tool format, with every built-in rule, and cases."""
    s = {"type": "string"}
    tools: list[dict] = [
        _openai_chat(
            "search_invoices",
            {
                "customer_id": s,
                "month": {"type": "string", "x-eval-norm": "month"},
                "status": {"type": "array", "items": s, "x-eval-norm": "set"},
                "limit": {"type": "integer", "default": 50},
                "include_void": {"type": "boolean", "default": False},
            },
            ["customer_id"],
        ),
        {
            "name": "get_customer",
            "description": "Look a customer up",
            "input_schema": {"type": "object", "properties": {"customer_id": s}},
        },
        {
            "name": "issue_refund",
            "description": "Refund (part of) an invoice",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "invoice": s,
                    "amount": {"type": ["number", "string"], "x-eval-norm": "money_cents"},
                    "reason": {"type": "string", "x-eval-norm": "casefold"},
                    "notify": {"type": "boolean", "default": True},
                },
            },
            "annotations": {"destructiveHint": True},
        },
        {
            "type": "function",
            "name": "list_orders",
            "description": "List a customer's orders",
            "parameters": {
                "type": "object",
                "properties": {
                    "customer_id": s,
                    "since": {"type": "string", "x-eval-norm": "date"},
                    "statuses": {"type": "array", "items": s, "x-eval-norm": "unordered_list"},
                    "page_size": {"type": "integer", "default": 20},
                },
            },
        },
        {
            "name": "schedule_callback",
            "parameters": {
                "type": "object",
                "properties": {
                    "customer_id": s,
                    "at": {"type": "string", "x-eval-norm": "instant"},
                    "duration": {"type": ["integer", "string"], "x-eval-norm": "duration_secs"},
                    "channel": {"type": "string", "x-eval-norm": "casefold", "default": "phone"},
                },
            },
        },
        _openai_chat(
            "create_ticket",
            {
                "subject": {"type": "string", "x-eval-norm": "any"},  # free text, not judged
                "priority": {"type": "string", "x-eval-norm": "casefold", "default": "normal"},
                "tags": {"type": "array", "items": s, "x-eval-norm": "set"},
                "due": {"type": "string", "x-eval-norm": "date"},
            },
            ["subject"],
        ),
        {
            "type": "function",
            "name": "job_status",
            "description": "Poll an export job",
            "parameters": {"type": "object", "properties": {"job_id": s}},
            "x-eval-repeatable": True,
        },
        {
            "name": "start_export",
            "description": "Export a customer's data",
            "input_schema": {
                "type": "object",
                "properties": {
                    "customer_id": s,
                    "format": {"type": "string", "default": "csv"},
                    "range": {"$ref": "#/$defs/DateRange"},
                },
                "$defs": {
                    "DateRange": {
                        "type": "object",
                        "properties": {
                            "from": {"type": "string", "x-eval-norm": "date"},
                            "to": {"type": "string", "x-eval-norm": "date"},
                        },
                    }
                },
            },
        },
        {
            "name": "book_flights",
            "description": "Book flights for a passenger",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "passenger": s,
                    "flights": {
                        "type": "array",
                        "x-eval-norm": "unordered_list",
                        "items": {
                            "type": "object",
                            "x-eval-norm": "known_fields",
                            "properties": {
                                "flight_number": s,
                                "date": {"type": "string", "x-eval-norm": "date"},
                            },
                        },
                    },
                    "seats": {"type": ["integer", "string"], "x-eval-norm": "number"},
                },
            },
        },
        {
            "name": "convert_currency",
            "parameters": {
                "type": "object",
                "properties": {
                    "amount": {
                        "type": ["number", "string"],
                        "x-eval-norm": {"name": "number", "digits": 2},
                    },
                    "from": s,
                    "to": {"type": "string", "x-eval-norm": "casefold"},
                },
            },
        },
        _openai_chat(
            "update_address",
            {
                "customer_id": s,
                "address": {
                    "type": "object",
                    "properties": {
                        "street": s,
                        "city": {"type": "string", "x-eval-norm": "casefold"},
                        "postcode": s,
                    },
                },
            },
            ["customer_id", "address"],
        ),
        {
            "name": "send_email",
            "input_schema": {
                "type": "object",
                "properties": {
                    "to": {"type": "string", "x-eval-norm": "casefold"},
                    "subject": s,
                    "cc": {
                        "type": "array",
                        "items": s,
                        "x-eval-norm": "unordered_list",
                        "default": [],
                    },
                },
            },
        },
        _openai_chat("get_invoice", {"invoice": s}, ["invoice"]),
        {"name": "lookup_product", "parameters": {"type": "object", "properties": {"sku": s}}},
        {
            "name": "check_inventory",
            "inputSchema": {
                "type": "object",
                "properties": {"sku": s, "warehouse": {"type": "string", "default": "main"}},
            },
        },
    ]
    cases = []
    for i in range(40):
        for template in CASE_TEMPLATES:
            cases.append(template(rng, f"{template.__name__[5:]}-{i:03d}"))
    return tools, cases


def _openai_chat(name: str, properties: dict, required: list[str]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": name.replace("_", " "),
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


def _cust(rng: random.Random) -> str:
    return f"C-{rng.randrange(1000, 9999)}"


def _month(rng: random.Random) -> str:
    return f"{rng.randrange(2024, 2027)}-{rng.randrange(1, 13):02d}"


def _date(rng: random.Random) -> str:
    return f"{_month(rng)}-{rng.randrange(1, 29):02d}"


def _step(tool: str, **args: Any) -> dict:
    return {"tool": tool, "args": args}


def case_refund(rng: random.Random, cid: str) -> dict:
    c, inv, cents = _cust(rng), f"INV-{rng.randrange(10000, 99999)}", rng.randrange(500, 90000)
    search = _step("search_invoices", customer_id=c, month=_month(rng), status=["open", "disputed"])
    refund = _step("issue_refund", invoice=inv, amount=cents, reason="duplicate charge")
    return {
        "id": cid,
        "input": f"refund the duplicate charge on {c}'s invoice",
        "match": "exact",
        "accept": [[search, refund], [_step("get_customer", customer_id=c), refund]],
        "effect": [
            {"at": "/refunds", "contains": {"invoice": inv, "cents": cents}},
            {"at": "/refunds", "count": 1, "where": {"invoice": inv}},
        ],
    }


def case_orders(rng: random.Random, cid: str) -> dict:
    statuses = rng.sample(["open", "shipped", "returned", "cancelled"], 2)
    step = _step("list_orders", customer_id=_cust(rng), since=_date(rng), statuses=statuses)
    return {
        "id": cid,
        "input": "which orders are still open?",
        "match": "prefix",
        "accept": [[step]],
    }


def case_callback(rng: random.Random, cid: str) -> dict:
    c = _cust(rng)
    at = f"{_date(rng)}T{rng.randrange(8, 18):02d}:{rng.choice(['00', '30'])}:00Z"
    call = _step("schedule_callback", customer_id=c, at=at, duration=rng.choice([900, 1800, 3600]))
    return {
        "id": cid,
        "input": "call me back tomorrow",
        "match": "exact",
        "accept": [[_step("get_customer", customer_id=c), call]],
        "effect": [{"at": "/callbacks", "contains": {"customer_id": c}}],
    }


def case_ticket(rng: random.Random, cid: str) -> dict:
    tags = rng.sample(["billing", "refund", "urgent", "vip", "bug"], rng.randrange(1, 4))
    step = _step(
        "create_ticket", subject="cannot log in", priority="high", tags=tags, due=_date(rng)
    )
    return {
        "id": cid,
        "input": "open a ticket",
        "accept": [[step]],
        "effect": [{"at": "/tickets", "count": 1}],
    }


def case_export(rng: random.Random, cid: str) -> dict:
    c, job = _cust(rng), f"job-{rng.randrange(1000, 9999)}"
    start = _step("start_export", customer_id=c, range={"from": _date(rng), "to": _date(rng)})
    poll = _step("job_status", job_id=job)
    return {
        "id": cid,
        "input": "export my data",
        "accept": [[start, poll, poll]],
        "effect": [{"at": "/exports/0/status", "equals": "done"}],
    }


def case_flights(rng: random.Random, cid: str) -> dict:
    flights = [
        {"flight_number": f"LH{rng.randrange(100, 999)}", "date": _date(rng)}
        for _ in range(rng.randrange(1, 4))
    ]
    step = _step("book_flights", passenger="Dana Whitfield", flights=flights, seats=1)
    return {"id": cid, "input": "book these flights", "accept": [[step]]}


def case_currency(rng: random.Random, cid: str) -> dict:
    # The legacy form: graded as the start of the run.
    return {
        "id": cid,
        "input": "how much is that in euros?",
        "expected_tool": "convert_currency",
        "expected_args": {"amount": rng.randrange(100, 100000) / 100, "from": "usd", "to": "eur"},
    }


def case_address(rng: random.Random, cid: str) -> dict:
    city = rng.choice(["berlin", "lisbon", "oslo", "austin"])
    address = {"street": f"{rng.randrange(1, 200)} Main St", "city": city, "postcode": "10115"}
    return {
        "id": cid,
        "input": "I moved",
        "accept": [[_step("update_address", customer_id=_cust(rng), address=address)]],
        "effect": [{"at": "/customer/address/city", "equals": city}],
    }


def case_email(rng: random.Random, cid: str) -> dict:
    c = _cust(rng)
    mail = _step("send_email", to="dana@example.com", subject="your refund", cc=["ops@example.com"])
    return {
        "id": cid,
        "input": "email me the details",
        "match": "contains_unordered",
        "accept": [[_step("get_customer", customer_id=c), mail]],
        "effect": [{"at": "/outbox", "count": 1, "where": {"to": "dana@example.com"}}],
        # an injected mail to another address is no extra call: the case forbids it
        "forbid": [{"tool": "send_email", "args": {"to": "attacker@example.net"}}],
    }


def case_lookup(rng: random.Random, cid: str) -> dict:
    steps = [_step("get_invoice", invoice=f"INV-{rng.randrange(10000, 99999)}") for _ in range(2)]
    steps.append(_step("check_inventory", sku=f"SKU-{rng.randrange(100, 999)}"))
    return {"id": cid, "input": "look these up", "match": "unordered", "accept": [steps]}


CASE_TEMPLATES = (
    case_refund,
    case_orders,
    case_callback,
    case_ticket,
    case_export,
    case_flights,
    case_currency,
    case_address,
    case_email,
    case_lookup,
)

# ============================================================================= corpus: mutation

# How often each kind of run occurs, per 1000, after the example corpus's mix: about a fifth of
# the runs fail exact-match, four in five of those wrongly; one green run in ten is wrong, mostly
# by looping. `alternate` falls back to a plain pass for a case with one accepted sequence.
SCENARIOS = (
    ("pass", 580),
    ("encoding", 85),
    ("ordering", 65),
    ("default", 45),
    ("mixed", 15),
    ("unjudged", 10),
    ("alternate", 30),
    ("errored_attempt", 12),
    ("loop", 70),
    ("rejected", 5),
    ("effect_failed", 7),
    ("forbidden", 30),
    ("mismatch", 45),
    ("missing_step", 15),
    ("wrong_tool", 5),
    ("malformed", 11),
)


@dataclass
class Site:
    """Where a value sits in a call's arguments, with the parameter that describes it."""

    container: Any
    key: Any
    param: Any  # evalrunner.model.Param


class Mutator:
    """Turns a case's canonical sequence into a recorded run of a chosen shape."""

    def __init__(self, tools: dict, cases: dict, registry: dict) -> None:
        self.tools = tools
        self.cases = [cases[k] for k in sorted(cases)]
        self.tool_names = sorted(tools)
        self.rules: dict[int, Any] = {}
        for tool in tools.values():
            for p in tool.params.walk():
                if p.norm is not None:
                    try:
                        rule = bind(p.norm, registry, fields=frozenset(p.properties))
                    except ValueError:
                        continue
                    self.rules[id(p)] = (rule, p.norm.name)
        names, weights = zip(*SCENARIOS)
        self.scenarios, self.weights = list(names), list(weights)

    # ---------------------------------------------------------------------------- one run

    def run(self, rng: random.Random, run_no: int) -> dict:
        case = rng.choice(self.cases)
        scenario = rng.choices(self.scenarios, self.weights)[0]
        seq = case.accept[0]
        if scenario == "alternate" and len(case.accept) > 1:
            seq = rng.choice(case.accept[1:])
        calls = [{"tool": s.tool, "args": copy.deepcopy(dict(s.args))} for s in seq]
        world_ok = True
        if scenario in ("encoding", "ordering", "default", "mixed", "unjudged") and calls:
            kinds = {"mixed": ("encoding", "ordering", "default")}.get(scenario, (scenario,))
            for kind in kinds:
                c = rng.choice(calls)
                self.vary(rng, c, kind)
        elif scenario == "errored_attempt" and calls:
            i = rng.randrange(len(calls))
            bad = copy.deepcopy(calls[i])
            self.break_args(rng, bad)
            self.mark_errored(rng, bad)
            calls.insert(i, bad)
        elif scenario == "loop" and calls:
            i = rng.randrange(len(calls))
            calls.insert(i + 1, copy.deepcopy(calls[i]))
        elif scenario == "rejected" and calls:
            self.mark_errored(rng, rng.choice(calls))
            world_ok = False
        elif scenario == "effect_failed":
            world_ok = False
        elif scenario == "forbidden" and case.forbid:
            entry = case.forbid[0]  # an injected call, around a run that is otherwise right
            base = next((dict(s.args) for s in seq if s.tool == entry.tool), {})
            calls.insert(
                rng.randrange(len(calls) + 1), {"tool": entry.tool, "args": {**base, **entry.args}}
            )
        elif scenario == "mismatch" and calls:
            self.break_args(rng, rng.choice(calls))
            world_ok = rng.random() < 0.5
        elif scenario == "missing_step" and len(calls) > 1:
            del calls[rng.randrange(len(calls))]
            world_ok = False
        elif scenario == "wrong_tool" and calls:
            calls[rng.randrange(len(calls))]["tool"] = rng.choice(self.tool_names)
        if case.match in ("prefix", "contains", "contains_unordered") and rng.random() < 0.3:
            extra = {"tool": rng.choice(self.tool_names), "args": {}}
            calls.insert(0 if case.match != "prefix" and rng.random() < 0.5 else len(calls), extra)
        record_calls = [self.encode(rng, c) for c in calls]
        if scenario == "malformed" and record_calls:
            c = rng.choice(record_calls)
            c.pop("args", None)
            c.pop("arguments", None)
            c["arguments"] = '{"customer_id": "C-1'  # cut off mid-string, as a stream can be
        record: dict[str, Any] = {
            "run_id": f"r-{run_no:08d}",
            "case_id": case.id,
            "calls": record_calls,
            "meta": {
                "model": rng.choice(("model-a", "model-b", "model-c")),
                "commit": f"{rng.getrandbits(28):07x}",
                "latency_ms": rng.randrange(300, 9000),
            },
        }
        if case.effects and rng.random() < 0.9:
            record["world"] = self.world(case.effects, broken=not world_ok)
            if rng.random() < 0.4:  # state of its own, as a recorded world often has
                record["world"]["session"] = {"updated_at": 1_767_225_600 + rng.randrange(10**7)}
        return record

    # ------------------------------------------------------------------------- arguments

    def sites(self, tool_name: str, args: Any) -> list[Site]:
        tool = self.tools.get(tool_name)
        out: list[Site] = []
        if tool is None or type(args) is not dict:
            return out

        def walk(value: Any, param: Any) -> None:
            if type(value) is dict:
                for k, v in value.items():
                    child = param.properties.get(k)
                    if child is not None:
                        out.append(Site(value, k, child))
                        walk(v, child)
            elif type(value) is list and param.items is not None:
                for i, v in enumerate(value):
                    out.append(Site(value, i, param.items))
                    walk(v, param.items)

        walk(args, tool.params)
        return out

    def vary(self, rng: random.Random, call: dict, kind: str) -> bool:
        """Change one argument into an equivalent form of `kind`; False when none applies."""
        if kind == "default":
            return self.restate_default(rng, call)
        candidates = []
        for site in self.sites(call["tool"], call["args"]):
            found = self.rules.get(id(site.param))
            if found is None:
                continue
            rule, name = found
            if rule.cls != kind:  # the shape a rule's class explains: ordering, unjudged, encoding
                continue
            candidates.append((site, rule, name))
        rng.shuffle(candidates)
        for site, rule, name in candidates:
            value = site.container[site.key]
            for variant in variants(name, value, rng):
                if self.equivalent(rule, variant, value):
                    site.container[site.key] = variant
                    return True
        return False

    def equivalent(self, rule: Any, variant: Any, value: Any) -> bool:
        key = canon_key
        if key(variant) == key(value):
            return False
        try:
            return key(rule.fn(variant)) == key(rule.fn(value))
        except Exception:
            return False

    def restate_default(self, rng: random.Random, call: dict) -> bool:
        tool = self.tools.get(call["tool"])
        if tool is None:
            return False
        args = call["args"]
        options = [(k, p) for k, p in sorted(tool.params.properties.items()) if _has_default(p)]
        if not options:
            return False
        k, p = rng.choice(options)
        if k in args:
            if canon_key(args[k]) == canon_key(p.default):
                del args[k]
                return True
            return False
        args[k] = copy.deepcopy(p.default)
        return True

    def break_args(self, rng: random.Random, call: dict) -> None:
        """A real difference: one value the tool would read differently."""
        args = call["args"]
        keys = sorted(k for k in args if type(args[k]) in (str, int, float, bool))
        if not keys:
            args["unexpected"] = "x"
            return
        k = rng.choice(keys)
        v = args[k]
        if type(v) is str:
            args[k] = v + "-x" if not re.fullmatch(r"\d{4}-\d{2}.*", v) else _shift_date(v)
        elif type(v) is bool:
            args[k] = not v
        else:
            args[k] = v + 7

    def mark_errored(self, rng: random.Random, call: dict) -> None:
        how = rng.randrange(4)
        if how == 0:
            call["result"] = {"error": "invalid argument", "code": 400}
        elif how == 1:
            call["is_error"] = True
            call["result"] = "Error: upstream timeout"
        elif how == 2:
            call["status"] = "error"
        else:
            call["result"] = {"isError": True, "content": [{"type": "text", "text": "rejected"}]}

    def encode(self, rng: random.Random, call: dict) -> dict:
        """The call as a framework records it: native, OpenAI-style, or with args as a string."""
        out = {k: v for k, v in call.items() if k not in ("tool", "args")}
        r = rng.random()
        if r < 0.6:
            out = {"tool": call["tool"], "args": call["args"], **out}
        elif r < 0.8:
            args = orjson.dumps(call["args"]).decode()
            out = {
                "id": f"call_{rng.getrandbits(40):010x}",
                "name": call["tool"],
                "arguments": args,
                **out,
            }
        else:
            out = {"tool": call["tool"], "args": orjson.dumps(call["args"]).decode(), **out}
        if "result" not in out and "status" not in out and rng.random() < 0.15:
            out["result"] = {
                "ok": True,
                "id": f"obj-{rng.randrange(10**6)}",
                "items": rng.randrange(20),
            }
        return out

    # ----------------------------------------------------------------------------- world

    def world(self, effects: Any, *, broken: bool) -> Any:
        """A recorded world that satisfies the effects (or, `broken`, fails the first one)."""
        world: dict = {}
        for e in effects:
            if e.op == "equals":
                _put(world, e.tokens, copy.deepcopy(e.value))
            elif e.op in ("contains", "count"):
                arr = _array_at(world, e.tokens)
                if arr is None:
                    continue
                if e.op == "contains":
                    if not any(_includes(x, e.value) for x in arr):
                        arr.append(copy.deepcopy(e.value))
                else:
                    want = e.where if e.where is not MISSING else None
                    have = sum(1 for x in arr if want is None or _includes(x, want))
                    for _ in range(max(0, e.value - have)):
                        arr.append(copy.deepcopy(want) if want is not None else {"id": len(arr)})
        if broken and effects:
            e = effects[0]
            if e.op == "equals":
                _put(world, e.tokens, "something else")
            elif e.op in ("contains", "count"):
                arr = _array_at(world, e.tokens)
                if arr is not None:
                    arr.clear()
            elif e.op == "absent":
                _put(world, e.tokens, "present")
        return world


def _has_default(p: Any) -> bool:
    return p.default is not MISSING


def _put(world: dict, tokens: tuple, value: Any) -> None:
    node: Any = world
    for i, t in enumerate(tokens):
        last = i == len(tokens) - 1
        if type(node) is list:
            idx = int(t) if t.isdigit() else len(node)
            while len(node) <= idx:
                node.append({})
            if last:
                node[idx] = value
            else:
                node = node[idx]
        elif type(node) is dict:
            if last:
                node[t] = value
            else:
                nxt = tokens[i + 1]
                node = node.setdefault(t, [] if nxt.isdigit() else {})
        else:
            return
    if not tokens:
        world.clear()


def _array_at(world: dict, tokens: tuple) -> list | None:
    node: Any = world
    for i, t in enumerate(tokens):
        last = i == len(tokens) - 1
        if type(node) is dict:
            node = node.setdefault(t, [] if last else {})
        elif type(node) is list and t.isdigit():
            while len(node) <= int(t):
                node.append({})
            node = node[int(t)]
        else:
            return None
    return node if type(node) is list else None


def _includes(element: Any, wanted: Any) -> bool:
    if type(wanted) is dict:
        return type(element) is dict and all(element.get(k) == v for k, v in wanted.items())
    return element == wanted


def _shift_date(v: str) -> str:
    year = int(v[:4])
    return f"{year - 1}{v[4:]}"


def variants(norm: str, value: Any, rng: random.Random) -> list[Any]:
    """Candidate equivalent forms of `value` under the built-in rule `norm` (checked by the caller)."""
    t = type(value)
    out: list[Any] = []
    if norm in ("unordered_list", "set") and t is list and len(value) > 1:
        out = [list(reversed(value)), value[1:] + value[:1]]
        if norm == "set":
            out.append(value + value[:1])
    elif norm == "month" and t is str:
        out = [value + "-01", value + "-15", value + "-01T12:00:00Z", value[:7]]
    elif norm == "date" and t is str:
        out = [value + "T09:30:00", value + "T00:00:00Z", value[:10]]
    elif norm == "instant" and t is str:
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return []
        out = [
            moment.astimezone(timezone(timedelta(hours=2))).isoformat(),
            moment.astimezone(timezone(timedelta(hours=-5))).isoformat(),
            moment.astimezone(timezone.utc).isoformat(),
        ]
    elif norm == "money_cents":
        if t is int:
            out = [value / 100, f"{value // 100}.{value % 100:02d}"]
        elif t is float:
            out = [round(value * 100), f"{value:.2f}"]
        elif t is str:
            out = [float(value)] if re.fullmatch(r"-?\d+(\.\d+)?", value) else []
    elif norm == "duration_secs":
        if t is int:
            out = [
                f"PT{value // 60}M" if value % 60 == 0 else f"PT{value}S",
                f"{value}s",
                str(value),
            ]
            if value % 3600 == 0:
                out.insert(0, f"{value // 3600}h")
        elif t is str:
            out = [value.lower()]
    elif norm == "casefold" and t is str:
        out = [value.upper(), value.title(), f" {value} "]
    elif norm == "number":
        if t in (int, float):
            out = [str(value), float(value) + 0.001]
        elif t is str:
            out = [float(value)] if re.fullmatch(r"-?\d+(\.\d+)?", value) else []
    elif norm == "known_fields" and t is dict:
        out = [{**value, "note": "window seat"}]
    elif norm == "any":
        out = [f"{value} (reworded)", f"Re: {value}"] if t is str else ["something else"]
    rng.shuffle(out)
    return out


# ============================================================================ corpus: generation


def _same_run_key(record: dict, case: Any, *, world: bool = True) -> tuple:
    """What decides a run's verdicts: its case, its calls as parsed, errored or not, and, when the
    case asserts effects (and `world`), its world. The grader's memo keys runs without their world
    (it checks effects after): a distinct corpus leaves the world out, so the memo serves none."""
    from evalrunner.traces import is_errored

    calls = []
    for c in record["calls"]:
        args = c["args"] if "args" in c else c.get("arguments", {})
        if type(args) is str:
            with contextlib.suppress(orjson.JSONDecodeError):
                args = orjson.loads(args) if args else {}
        spelled = orjson.dumps(args, option=orjson.OPT_SORT_KEYS)
        calls.append((c.get("tool", c.get("name")), spelled, is_errored(c, c.get("result"))))
    world = (
        orjson.dumps(record.get("world"), option=orjson.OPT_SORT_KEYS)
        if world and case.effects
        else b""
    )
    return (record["case_id"], tuple(calls), world)


def source_dirs(source: Path | None) -> tuple[Path, Path] | None:
    """The tools and cases directories to synthesize from, or None for the built-in surface."""
    base = source if source is not None else ROOT
    tools, cases = base / "tools", base / "cases"
    has = lambda d, pats: d.is_dir() and any(f for p in pats for f in d.rglob(p))  # noqa: E731
    if has(tools, ["*.json"]) and has(cases, ["*.json", "*.jsonl"]):
        return tools, cases
    if source is not None:
        raise SystemExit(f"bench: {source} has no tools/*.json and cases/*.json[l]")
    return None


def fingerprint(dirs: tuple[Path, Path] | None) -> str:
    h = hashlib.sha256(f"v{GENERATOR_VERSION}".encode())
    if dirs is None:
        h.update(Path(__file__).read_bytes())
    else:
        for d in dirs:
            for f in sorted(d.rglob("*")):
                if f.is_file():
                    h.update(f.relative_to(d).as_posix().encode() + f.read_bytes())
    return h.hexdigest()[:16]


def ensure_corpus(
    calls: int, out_root: Path, source: Path | None, *, quiet: bool = False, distinct: bool = False
) -> Path:
    """The corpus for `calls` calls, generated once and reused while its inputs are unchanged;
    `distinct`: no run repeats an earlier one (`generate`)."""
    dirs = source_dirs(source)
    stamp = {"calls": calls, "seed": SEED, "source": fingerprint(dirs), "v": GENERATOR_VERSION}
    if distinct:
        stamp["distinct"] = "calls"  # distinct in calls, whatever the world (`generate`)
    target = out_root / (f"calls-{calls}-distinct" if distinct else f"calls-{calls}")
    stamp_file = target / "corpus.json"
    if stamp_file.exists():
        known = json.loads(stamp_file.read_text())
        if {k: known.get(k) for k in stamp} == stamp:
            return target
    if target.exists():
        shutil.rmtree(target)
    t0 = time.perf_counter()
    tmp = out_root / f".{target.name}.tmp"
    if tmp.exists():
        shutil.rmtree(tmp)
    info = generate(calls, tmp, dirs, distinct=distinct)
    tmp.rename(target)
    (target / "corpus.json").write_text(json.dumps({**stamp, **info}, indent=2) + "\n")
    if not quiet:
        print(
            f"generated {target} in {time.perf_counter() - t0:.1f}s: {info['runs']:,} runs, "
            f"{info['calls']:,} calls, {info['bytes'] / 1e6:.0f} MB, from {info['surface']}",
            file=sys.stderr,
        )
    return target


DISTINCT_TRIES = 50
"""How many times a distinct corpus draws a run again before leaving it out."""


def generate(
    calls: int, target: Path, dirs: tuple[Path, Path] | None, *, distinct: bool = False
) -> dict:
    """Write tools/, cases/ and traces/ under `target`.

    Runs repeat about as often as in the example corpus: at its size (4,000 runs), 52% of the runs
    here and 52% there make the same calls (tools, arguments as parsed, errored or not) as an
    earlier run of the same case, with the same world when the case asserts effects. A grader may
    serve such runs from memory; the share grows with the corpus, as it would with real traces.
    With `distinct`, no run repeats an earlier one's calls, whatever its world: a run that would
    is drawn again (up to `DISTINCT_TRIES` times, then left out), so the grader's memo of graded
    calls serves none of them.
    """
    rng = random.Random(SEED)
    (target / "traces").mkdir(parents=True)
    if dirs is None:
        tools_json, cases_json = builtin_surface(random.Random(SEED + 1))
        (target / "tools").mkdir()
        (target / "cases").mkdir()
        (target / "tools" / "tools.json").write_bytes(
            orjson.dumps(tools_json, option=orjson.OPT_INDENT_2)
        )
        (target / "cases" / "cases.jsonl").write_bytes(
            b"".join(orjson.dumps(c) + b"\n" for c in cases_json)
        )
        surface = "the built-in tool surface (scripts/bench.py)"
    else:
        shutil.copytree(dirs[0], target / "tools")
        shutil.copytree(dirs[1], target / "cases")
        surface = f"{dirs[0].parent}/{{tools,cases}}"
    tools = load_tools(target / "tools")
    cases = load_cases(target / "cases")
    mutator = Mutator(tools, cases, load_registry())

    # One large file (half the calls: a single file must parallelize too) and seven smaller ones.
    shares = [0.5] + [0.5 / 7] * 7
    made_calls = made_runs = size = repeats = 0
    seen: set[int] = set()
    for part, share in enumerate(shares):
        goal = made_calls + share * calls if part < len(shares) - 1 else calls
        with open(target / "traces" / f"part-{part:02d}.jsonl", "wb") as f:
            buf: list[bytes] = []
            while made_calls < goal:
                made_runs += 1
                r = rng.random()
                if r < 0.0004:
                    line = b'{"run_id": "r-cut", "case_id": "' + b"x" * 20  # a truncated line
                elif r < 0.0008:
                    line = orjson.dumps(
                        {"run_id": f"r-{made_runs:08d}", "case_id": "no-such-case", "calls": []}
                    )
                elif r < 0.001:
                    line = b""  # a blank line: skipped, not counted
                    made_runs -= 1
                else:
                    for _ in range(DISTINCT_TRIES if distinct else 1):
                        record = mutator.run(rng, made_runs)
                        case = cases[record["case_id"]]
                        key = hash(_same_run_key(record, case, world=not distinct))
                        if key not in seen:
                            break
                    else:
                        if distinct:
                            made_runs -= 1
                            continue
                    made_calls += len(record["calls"])
                    line = orjson.dumps(record)
                    repeats += key in seen
                    seen.add(key)
                buf.append(line + b"\n")
                if len(buf) >= 4096:
                    data = b"".join(buf)
                    size += len(data)
                    f.write(data)
                    buf.clear()
            data = b"".join(buf)
            size += len(data)
            f.write(data)
    return {
        "runs": made_runs,
        "calls": made_calls,
        "bytes": size,
        "surface": surface,
        "repeats": repeats,
    }


# ================================================================================ measurement


@dataclass
class Measured:
    name: str
    seconds: float
    """Wall time: the whole process for evalrun and the floor, the timed loop for the peers."""
    calls: int
    cpu: float = 0.0
    """User + system time of the process and its workers."""
    max_rss_kb: int = 0
    """The largest resident set of any one process (the parent's or a worker's)."""
    tree_rss_kb: int = 0
    """The peak of the resident sets of the process and its workers together (sampled)."""
    note: str = ""
    error: str = ""

    @property
    def rate(self) -> float:
        return self.calls / self.seconds if self.seconds else 0.0


def _tree_rss_kb(pid: int) -> int:
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        try:
            status = Path(f"/proc/{p}/status").read_text()
            for task in Path(f"/proc/{p}/task").iterdir():
                stack.extend(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
        m = re.search(r"VmRSS:\s+(\d+)", status)
        total += int(m.group(1)) if m else 0
    return total


def run_measured(
    cmd: list[str], name: str, calls: int, ok: tuple[int, ...] = (0, 1)
) -> tuple[Measured, bytes]:
    """Run `cmd`, timing it from start to exit, with its (and its workers') CPU time and RSS.
    An exit code outside `ok` is an error, said in the table rather than timed as a result."""
    with open(os.devnull, "wb") as devnull, _tempfile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, stdin=devnull)
        peak = 0
        done = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, _tree_rss_kb(proc.pid))
                done.wait(0.02)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        out = proc.stdout.read() if proc.stdout else b""
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        done.set()
        sampler.join()
        m = Measured(
            name,
            seconds,
            calls,
            cpu=usage.ru_utime + usage.ru_stime,
            max_rss_kb=usage.ru_maxrss,
            tree_rss_kb=max(peak, usage.ru_maxrss),
        )
        if proc.returncode not in ok:
            err.seek(0)
            m.error = f"exit {proc.returncode}: {err.read().decode(errors='replace')[-400:]}"
    return m, out


def _tempfile():
    import tempfile

    return tempfile.TemporaryFile()


def best_of(
    repeat: int, cmd: list[str], name: str, calls: int, ok: tuple[int, ...] = (0, 1)
) -> Measured:
    best: Measured | None = None
    for _ in range(repeat):
        m, _ = run_measured(cmd, name, calls, ok)
        if m.error:
            return m
        if best is None or m.seconds < best.seconds:
            best = m
    assert best is not None
    return best


def evalrun_cmd(corpus: Path, fmt: str, jobs: int, *, empty: bool = False) -> list[str]:
    exe = Path(sys.executable).with_name("evalrun")
    base = [str(exe)] if exe.exists() else [sys.executable, "-m", "evalrunner"]
    traces = corpus / ("empty.jsonl" if empty else "traces")
    if empty:
        traces.write_bytes(b"")
    return [
        *base,
        "score",
        str(traces),
        "--tools",
        str(corpus / "tools"),
        "--cases",
        str(corpus / "cases"),
        "--format",
        fmt,
        "--output",
        os.devnull,
        "--jobs",
        str(jobs),
    ]


OTHER_COMMANDS = ("suggest", "audit sample", "diff", "score --format html", "lint --traces")
"""The commands `--commands` measures beside `score`, each as a ratio to `score` (table, one job)
on the same corpus (issue 31)."""


def other_cmd(corpus: Path, command: str) -> list[str]:
    """`command` on the corpus, its output thrown away."""
    score = evalrun_cmd(corpus, "table", 1)
    base = score[: score.index("score")]
    traces, dirs = str(corpus / "traces"), ["--tools", str(corpus / "tools")]
    dirs += ["--cases", str(corpus / "cases")]
    if command == "suggest":
        return [*base, "suggest", traces, *dirs]
    if command == "audit sample":
        sample = ["--failures", "100", "--passes", "100", "--seed", "1", "--output", os.devnull]
        return [*base, "audit", "sample", traces, *dirs, *sample]
    if command == "diff":  # two trace sets, each scored: the corpus against itself
        return [*base, "diff", traces, traces, *dirs]
    if command == "score --format html":
        return [*base, "score", traces, *dirs, "--format", "html", "--output", os.devnull]
    if command == "lint --traces":
        return [*base, "lint", *dirs, "--traces", traces]
    raise ValueError(command)


def measure_commands(args: argparse.Namespace, corpus: Path, calls: int, score: Measured) -> None:
    """Each other command's time and CPU as a ratio to `score`'s on the same corpus."""
    print("\nother commands, same corpus, as a ratio to `score --jobs 1 --format table`:\n")
    print(
        "| command | s | CPU s | ÷ score (s) | ÷ score (CPU) | max RSS |\n|---|---|---|---|---|---|"
    )
    for command in OTHER_COMMANDS:
        m = best_of(args.repeat, other_cmd(corpus, command), f"evalrun {command}", calls, (0, 1))
        if m.error:
            print(f"| evalrun {command} | {m.error} | | | | |")
            continue
        print(
            f"| evalrun {command} | {m.seconds:.2f} | {m.cpu:.2f} | "
            f"{m.seconds / score.seconds:.2f} | {m.cpu / score.cpu:.2f} | {_mb(m.max_rss_kb)} |"
        )
        sys.stdout.flush()


def helper_cmd(*args: str) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), *args]


# ------------------------------------------------------------------------------------- floor


def floor(traces: Path) -> dict:
    """Read and orjson-parse every line and iterate its calls: what any scorer must do.

    Kept minimal on purpose (an `args` string is not decoded), so the floor is a hard target.
    """
    calls = 0
    t0 = time.perf_counter()
    for f in sorted(traces.rglob("*.jsonl")):
        with open(f, "rb") as stream:
            for line in stream:
                if not line.strip():
                    continue
                try:
                    record = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                if type(record) is dict and type(record.get("calls")) is list:
                    for call in record["calls"]:
                        if type(call) is dict and (call.get("tool") or call.get("name")):
                            calls += 1
    return {"seconds": time.perf_counter() - t0, "calls": calls}


def measure_floor(corpus: Path, repeat: int) -> Measured:
    """The floor in a process of its own (Python and orjson only), timed around its loop."""
    program = "\n".join(
        [
            "import json, sys, time",
            "from pathlib import Path",
            "import orjson",
            inspect.getsource(floor),
            "print(json.dumps(floor(Path(sys.argv[1]))))",
        ]
    )
    best: Measured | None = None
    for _ in range(repeat):
        m, out = run_measured([sys.executable, "-c", program, str(corpus / "traces")], "", 0)
        got = json.loads(out)
        m.seconds, m.calls = got["seconds"], got["calls"]
        if best is None or m.seconds < best.seconds:
            best = m
    assert best is not None
    best.name = "floor: read + orjson.loads + iterate calls"
    return best


# ------------------------------------------------------------------------------------- peers

PEER_BATCH_RUNS = 20_000


def _records(corpus: Path, cases: dict):
    """(record, case) for every scoreable native run of the corpus, in order."""
    for f in sorted((corpus / "traces").rglob("*.jsonl")):
        with open(f, "rb") as stream:
            for line in stream:
                try:
                    record = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                if type(record) is dict and record.get("case_id") in cases:
                    yield record, cases[record["case_id"]]


def _call_parts(call: dict) -> tuple[str, Any]:
    name = call.get("tool", call.get("name"))
    args = call["args"] if "args" in call else call.get("arguments", {})
    return name, args


def _batches(it, n: int):
    batch = []
    for x in it:
        batch.append(x)
        if len(batch) == n:
            yield batch
            batch = []
    if batch:
        yield batch


def peer_agentevals(corpus: Path) -> dict:
    """LangChain agentevals' trajectory match, strict mode: each run's calls as OpenAI messages
    against the case's canonical sequence as the reference trajectory."""
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="strict")
    cases = load_cases(corpus / "cases")

    def messages(task: str, calls: list[tuple[str, Any, Any]]) -> list[dict]:
        out: list[dict] = [{"role": "user", "content": task}]
        for i, (name, args, result) in enumerate(calls):
            arguments = args if type(args) is str else orjson.dumps(args).decode()
            call_id = f"call_{i}"
            out.append(
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": arguments},
                        }
                    ],
                }
            )
            content = "" if result is MISSING else orjson.dumps(result).decode()
            out.append({"role": "tool", "content": content, "tool_call_id": call_id})
        out.append({"role": "assistant", "content": "done"})
        return out

    seconds, calls, runs, passed, crashed = 0.0, 0, 0, 0, 0
    for batch in _batches(_records(corpus, cases), PEER_BATCH_RUNS):
        prepared = []
        for record, case in batch:
            run_calls = [(*_call_parts(c), c.get("result", MISSING)) for c in record["calls"]]
            reference = [(s.tool, dict(s.args), MISSING) for s in case.accept[0]]
            prepared.append((messages(case.input, run_calls), messages(case.input, reference)))
            calls += len(run_calls)
        t0 = time.perf_counter()
        for outputs, reference in prepared:
            try:
                passed += evaluator(outputs=outputs, reference_outputs=reference)["score"] is True
            except Exception:
                crashed += 1  # an `arguments` string that is not JSON: agentevals raises
        seconds += time.perf_counter() - t0
        runs += len(prepared)
    return {"seconds": seconds, "calls": calls, "runs": runs, "passed": passed, "crashed": crashed}


BFCL_TYPES = {
    "string": "string",
    "integer": "integer",
    "number": "float",
    "boolean": "boolean",
    "array": "array",
    "object": "dict",
}


def _bfcl_type(param: Any) -> str:
    for t in param.types:
        if t in BFCL_TYPES:
            return BFCL_TYPES[t]
    return "any"


def _bfcl_function(tool: Any) -> dict:
    properties = {}
    for name, p in tool.params.properties.items():
        entry: dict[str, Any] = {"type": _bfcl_type(p), "description": name}
        if entry["type"] == "array":
            entry["items"] = {"type": _bfcl_type(p.items) if p.items is not None else "any"}
        properties[name] = entry
    required = tool.params.schema.get("required", [])
    return {
        "name": tool.name,
        "description": tool.description,
        "parameters": {"type": "dict", "properties": properties, "required": list(required)},
    }


def _bfcl_answer(value: Any) -> list:
    """BFCL's possible answers: a list of acceptable values; a dict's own values are lists."""
    if type(value) is dict:
        return [{k: _bfcl_answer(v) for k, v in value.items()}]
    if type(value) is list and value and all(type(x) is dict for x in value):
        return [[{k: _bfcl_answer(v) for k, v in x.items()} for x in value]]
    return [value]


def peer_bfcl(corpus: Path) -> dict:
    """The Berkeley Function Calling Leaderboard's AST checker: each decoded call against the
    canonical step at its position (the last step past the end), as a `simple` entry."""
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    tools = load_tools(corpus / "tools")
    cases = load_cases(corpus / "cases")
    functions = {name: _bfcl_function(t) for name, t in tools.items()}
    seconds, calls, skipped, valid, crashed = 0.0, 0, 0, 0, 0
    for batch in _batches(_records(corpus, cases), PEER_BATCH_RUNS):
        prepared = []
        for record, case in batch:
            steps = case.accept[0]
            for i, call in enumerate(record["calls"]):
                name, args = _call_parts(call)
                if type(args) is str:
                    try:
                        args = orjson.loads(args) if args else {}
                    except orjson.JSONDecodeError:
                        args = None
                if type(args) is not dict or not steps:
                    skipped += 1  # malformed arguments: nothing for an AST checker to read
                    continue
                step = steps[min(i, len(steps) - 1)]
                fn = functions.get(step.tool)
                if fn is None:
                    skipped += 1
                    continue
                answer = {k: _bfcl_answer(v) for k, v in step.args.items()}
                for k in fn["parameters"]["properties"]:
                    answer.setdefault(k, [""])  # optional: may be omitted
                prepared.append(([fn], [{name: args}], [{step.tool: answer}]))
        t0 = time.perf_counter()
        for fns, output, answer in prepared:
            try:
                result = ast_checker(fns, output, answer, Language.PYTHON, "simple", "bench")
                valid += result["valid"] is True
            except Exception:
                crashed += 1
        seconds += time.perf_counter() - t0
        calls += len(prepared)
    return {
        "seconds": seconds,
        "calls": calls,
        "skipped": skipped,
        "valid": valid,
        "crashed": crashed,
    }


PEERS = {
    "agentevals": ("agentevals trajectory match (strict)", peer_agentevals),
    "bfcl": ("BFCL ast_checker", peer_bfcl),
}


def measure_peer(key: str, corpus: Path) -> Measured:
    label = PEERS[key][0]
    m, out = run_measured(helper_cmd("_peer", key, str(corpus)), label, 0)
    if m.error:
        return m
    got = json.loads(out)
    if "error" in got:
        return Measured(label, 0.0, 0, error=got["error"])
    m.seconds, m.calls = got["seconds"], got["calls"]
    notes = []
    if got.get("crashed"):
        notes.append(f"{got['crashed']:,} raised")
    if got.get("skipped"):
        notes.append(f"{got['skipped']:,} malformed calls not checkable")
    m.note = "; ".join(notes)
    return m


# ------------------------------------------------------------------------------------ report


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (
        f"{cpu}, {os.cpu_count()} CPUs, {mem:.0f} GiB; {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}; load average {os.getloadavg()[0]:.2f}"
    )


def _mb(kb: int) -> str:
    return f"{kb / 1024:,.0f} MB" if kb else "-"


def table(rows: list[Measured], floor_m: Measured, peers: dict[str, Measured]) -> str:
    peer_cols = [(k, m) for k, m in peers.items() if not m.error and m.rate]
    head = ["", "calls/s", "time ÷ floor"] + [f"× {k}" for k, _ in peer_cols]
    head += ["s", "CPU s", "max RSS (one process)", "peak RSS (all processes)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for m in rows:
        if m.error:
            lines.append(f"| {m.name} | {m.error} |" + " |" * (len(head) - 2))
            continue
        cells = [m.name, f"{m.rate:,.0f}", f"{floor_m.rate / m.rate:.2f}" if m.rate else "-"]
        cells += [f"{m.rate / p.rate:,.1f}" for _, p in peer_cols]
        timed_loop = not m.name.startswith("evalrun")  # the floor and peers: CPU is the process's
        cells += [f"{m.seconds:.2f}", "-" if timed_loop else f"{m.cpu:.2f}"]
        cells += [_mb(m.max_rss_kb), _mb(m.tree_rss_kb)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def bench(args: argparse.Namespace) -> None:
    print(f"machine: {machine()}")
    for n, kind in enumerate(args.corpora):
        if n:
            print("\n")
        bench_corpus(args, distinct=kind == "distinct")


def bench_corpus(args: argparse.Namespace, *, distinct: bool) -> None:
    corpus = ensure_corpus(args.calls, args.corpus_dir, args.source, distinct=distinct)
    info = json.loads((corpus / "corpus.json").read_text())
    calls = info["calls"]
    kind = "distinct runs (no run repeats another)" if distinct else "repeating runs"
    print(
        f"corpus, {kind}: {corpus} ({info['runs']:,} runs, {calls:,} calls, "
        f"{info['bytes'] / 1e6:.0f} MB in 8 files, one holding half; synthesized from "
        f"{info['surface']})"
    )
    print(
        f"repeat share: {info['repeats'] / info['runs']:.0%} of the runs make the same calls as an "
        "earlier run of their case (with the same world, where it is asserted); 52% in the "
        "example corpus, and in the repeating generator's at its size (4,000 runs)"
    )
    print(f"evalrun and the floor: best of {args.repeat}; peers: once, on the same calls\n")
    sys.stdout.flush()

    floor_m = measure_floor(corpus, args.repeat)
    # An empty input scores no run, which evalrun reports with exit 2: start-up is what is timed.
    startup = best_of(args.repeat, evalrun_cmd(corpus, "table", 1, empty=True), "", 0, ok=(2,))
    rows = [floor_m]
    for jobs in args.jobs:
        for fmt in ("table", "jsonl"):
            name = f"evalrun score --jobs {jobs} --format {fmt}"
            rows.append(best_of(args.repeat, evalrun_cmd(corpus, fmt, jobs), name, calls))
            print(f"  {name}: {rows[-1].rate:,.0f} calls/s", file=sys.stderr)
    peers: dict[str, Measured] = {}
    for key in args.peers:
        peers[key] = measure_peer(key, corpus)
        p = peers[key]
        print(f"  {p.name}: {p.error or f'{p.rate:,.0f} calls/s'}", file=sys.stderr)
    rows += list(peers.values())
    print(table(rows, floor_m, peers))
    print()
    print(
        f"- evalrun's wall times include its start-up: {startup.seconds:.2f}s on an empty input "
        "(imports, reading tools and cases); the floor and the peers are timed around their loop."
    )
    for m in rows:
        if m.note:
            print(f"- {m.name}: {m.note}")
    if args.commands:
        one = next((m for m in rows if m.name == "evalrun score --jobs 1 --format table"), None)
        if one is not None and not one.error:
            measure_commands(args, corpus, calls, one)
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    summarize_targets(rows, floor_m, peers)


def summarize_targets(rows: list[Measured], floor_m: Measured, peers: dict[str, Measured]) -> None:
    by = {m.name: m for m in rows}
    print("\ntargets (issue 8):")
    for fmt in ("table", "jsonl"):
        one = by.get(f"evalrun score --jobs 1 --format {fmt}")
        if one is None or one.error:
            continue
        ok = "met" if one.rate >= 250_000 else "missed"
        print(f"- ≥ 250,000 calls/s, one process, {fmt}: {one.rate:,.0f} ({ok})")
        ratio = floor_m.rate / one.rate
        print(
            f"- within 5× of the floor, {fmt}: {ratio:.1f}× ({'met' if ratio <= 5 else 'missed'})"
        )
        two = by.get(f"evalrun score --jobs 2 --format {fmt}")
        if two is not None and not two.error:
            print(f"- --jobs 2 speed-up, {fmt}: {two.rate / one.rate:.2f}×")
        for key, need in (("agentevals", 50.0), ("bfcl", 1.0)):
            p = peers.get(key)
            if p is None:
                continue
            if p.error or not p.rate:
                print(f"- vs {p.name}: not measured ({p.error})")
                continue
            x = one.rate / p.rate
            want = f"≥ {need:g}×" if need > 1 else "ahead"
            print(
                f"- vs {p.name}, {fmt}: {x:,.1f}× (target {want}: {'met' if x >= need else 'missed'})"
            )


def memory(args: argparse.Namespace) -> None:
    """Peak RSS at two corpus sizes: flat in trace size means the same peak at both."""
    sizes = args.memory_calls
    print(f"machine: {machine()}\n")
    rows = []
    for calls in sizes:
        corpus = ensure_corpus(calls, args.corpus_dir, args.source)
        for jobs in args.jobs:
            for fmt in ("table", "jsonl"):
                name = f"{calls:,} calls, --jobs {jobs} --format {fmt}"
                m, _ = run_measured(evalrun_cmd(corpus, fmt, jobs), name, calls)
                rows.append((calls, jobs, fmt, m))
                print(f"  {name}: {_mb(m.max_rss_kb)}", file=sys.stderr)
    head = "| calls | jobs | format | calls/s | max RSS (one process) | peak RSS (all processes) |"
    print(head + "\n|---|---|---|---|---|---|")
    for calls, jobs, fmt, m in rows:
        print(
            f"| {calls:,} | {jobs} | {fmt} | {m.rate:,.0f} | {_mb(m.max_rss_kb)} | "
            f"{_mb(m.tree_rss_kb)} |"
        )
    print()
    small, large = sizes[0], sizes[-1]
    for jobs in args.jobs:
        for fmt in ("table", "jsonl"):
            a = next(m for c, j, f, m in rows if (c, j, f) == (small, jobs, fmt))
            b = next(m for c, j, f, m in rows if (c, j, f) == (large, jobs, fmt))
            growth = b.max_rss_kb / a.max_rss_kb - 1
            verdict = "flat (within 20%)" if abs(growth) <= 0.2 else "NOT flat"
            print(
                f"- --jobs {jobs} {fmt}: {_mb(a.max_rss_kb)} at {small:,} calls, "
                f"{_mb(b.max_rss_kb)} at {large:,}: {growth:+.0%}, {verdict}"
            )


def profile(args: argparse.Namespace) -> None:
    """Where one process's time goes, scoring the corpus to JSONL: sampled with py-spy (the bench
    extra has it), else measured with cProfile (which slows pure-Python code about 2x). The corpus
    is the first of `--corpora` (distinct by default: a repeating one hides the grading behind
    the memo)."""
    distinct = args.corpora[0] == "distinct"
    corpus = ensure_corpus(args.calls, args.corpus_dir, args.source, distinct=distinct)
    score_args = evalrun_cmd(corpus, "jsonl", 1)
    score_args = score_args[score_args.index("score") :]
    spy = shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))
    if spy:
        out = args.corpus_dir / f"profile-{args.calls}.txt"
        cmd = [spy, "record", "--format", "raw", "--rate", "250", "--output", str(out), "--"]
        cmd += [sys.executable, "-m", "evalrunner", *score_args]
        subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL, capture_output=True)
        print(f"py-spy, 250 samples/s, `evalrun score --format jsonl` on {args.calls:,} calls\n")
        print_stacks(out.read_text(), args.top)
        return
    import pstats

    out = args.corpus_dir / f"profile-{args.calls}.pstats"
    cmd = [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "evalrunner", *score_args]
    subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL)
    stats = pstats.Stats(str(out))
    print(f"cProfile (no py-spy), `evalrun score --format jsonl` on {args.calls:,} calls\n")
    stats.sort_stats("tottime").print_stats(args.top)
    stats.sort_stats("cumulative").print_stats(r"evalrunner", args.top)


def print_stacks(raw: str, top: int) -> None:
    """Summarize py-spy's collapsed stacks: own time by module and by function, and the time
    spent inside each evalrunner function (its callees included)."""
    own_module: dict[str, int] = {}
    own_function: dict[str, int] = {}
    inside: dict[str, int] = {}
    total = 0
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        n = int(count)
        total += n
        frames = stack.split(";")
        name, file = _frame(frames[-1])
        own_module[_module(file)] = own_module.get(_module(file), 0) + n
        key = f"{name} ({file})"
        own_function[key] = own_function.get(key, 0) + n
        for f in {_frame(x) for x in frames}:
            if "evalrunner" in f[1]:
                k = f"{f[0]} ({f[1]})"
                inside[k] = inside.get(k, 0) + n
    print(f"{total:,} samples\n\nown time by module:")
    for key, n in sorted(own_module.items(), key=lambda kv: -kv[1])[:15]:
        print(f"  {n / total:6.1%}  {key}")
    print("\nown time by function (C functions count towards their Python caller):")
    for key, n in sorted(own_function.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {n / total:6.1%}  {key}")
    print("\ntime inside each evalrunner function, callees included:")
    for key, n in sorted(inside.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {n / total:6.1%}  {key}")


def _frame(frame: str) -> tuple[str, str]:
    """("Grader.grade_record", "evalrunner/score.py") from "Grader.grade_record (evalrunner/score.py:246)"."""
    name, _, where = frame.rpartition(" (")
    return name, where.rstrip(")").rsplit(":", 1)[0]


def _module(file: str) -> str:
    if "evalrunner/" in file:
        return "evalrunner/" + file.split("evalrunner/", 1)[-1]
    if file.startswith(("~", "<")):
        return "builtins (C: orjson, dict, list, ...)"
    return "other Python: " + Path(file).name


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_peer"]:
        try:
            print(json.dumps(PEERS[argv[1]][1](Path(argv[2]))))
        except ImportError as e:
            print(json.dumps({"error": f"cannot import ({e}); pip install -e '.[bench]'"}))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=1_000_000, help="corpus size in tool calls")
    ap.add_argument("--repeat", type=int, default=3, help="runs of evalrun and the floor (best)")
    ap.add_argument("--jobs", type=lambda v: [int(x) for x in v.split(",")], default=[1, 2])
    ap.add_argument(
        "--peers",
        type=lambda v: [x for x in v.split(",") if x],
        default=list(PEERS),
        help="comma-separated: agentevals,bfcl (empty for none)",
    )
    ap.add_argument(
        "--corpora",
        type=lambda v: [x for x in v.split(",") if x],
        default=["distinct", "repeating"],
        help="comma-separated, in order: distinct (no run repeats another), repeating",
    )
    ap.add_argument("--source", type=Path, help="a directory with tools/ and cases/ to use")
    ap.add_argument("--corpus-dir", type=Path, default=ROOT / "bench-corpus")
    ap.add_argument("--memory", action="store_true", help="peak RSS at 1M vs 5M calls")
    ap.add_argument(
        "--memory-calls",
        type=lambda v: [int(x) for x in v.split(",")],
        default=[1_000_000, 5_000_000],
    )
    ap.add_argument(
        "--commands",
        action="store_true",
        help="also time " + ", ".join(OTHER_COMMANDS) + " as ratios to score",
    )
    ap.add_argument("--profile", action="store_true", help="cProfile one process")
    ap.add_argument("--top", type=int, default=25, help="functions --profile lists")
    args = ap.parse_args(argv)
    args.corpus_dir.mkdir(parents=True, exist_ok=True)
    if args.memory:
        memory(args)
    elif args.profile:
        profile(args)
    else:
        bench(args)


if __name__ == "__main__":
    main()
