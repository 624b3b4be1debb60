"""The bench corpus: runs synthesized, deterministically, from a tools/cases directory (the
repository's example corpus when it is there, else a built-in tool surface) by sampling cases and
mutating their canonical call sequences into every shape evalrun explains. scripts/bench.py
measures on it; tests/ build their corpora with it (`from scripts.bench_corpus import generate`),
so it is a module of its own, imported by both, never loaded by path.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import random
import re
import shutil
import sys
import time
from collections import Counter
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


CALLS_PER_CASE = 11
"""A many-cases corpus has about this many calls per case: 304,000 calls over 28,000 cases, the
distinct-run corpus issue 31 was measured on (a suite of many small cases, a few runs each)."""


def case_copies_for(calls: int, cases: int) -> int:
    """How many copies of each of `cases` cases give `calls` calls about `CALLS_PER_CASE` each."""
    return max(1, round(calls / (CALLS_PER_CASE * max(1, cases))))


def ensure_corpus(
    calls: int,
    out_root: Path,
    source: Path | None,
    *,
    quiet: bool = False,
    distinct: bool = False,
    many_cases: bool = False,
) -> Path:
    """The corpus for `calls` calls, generated once and reused while its inputs are unchanged;
    `distinct`: no run repeats an earlier one (`generate`); `many_cases`: distinct, and each case
    copied under new ids so that each has about `CALLS_PER_CASE` calls (what grows with the number
    of cases, per-case plans and samples, shows; the source's few hundred cases hide it)."""
    dirs = source_dirs(source)
    distinct = distinct or many_cases
    stamp = {"calls": calls, "seed": SEED, "source": fingerprint(dirs), "v": GENERATOR_VERSION}
    if distinct:
        stamp["distinct"] = "calls"  # distinct in calls, whatever the world (`generate`)
    if many_cases:
        stamp["many_cases"] = CALLS_PER_CASE
    name = f"calls-{calls}-distinct" if distinct else f"calls-{calls}"
    target = out_root / (f"calls-{calls}-many-cases" if many_cases else name)
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
    info = generate(calls, tmp, dirs, distinct=distinct, many_cases=many_cases)
    tmp.rename(target)
    (target / "corpus.json").write_text(json.dumps({**stamp, **info}, indent=2) + "\n")
    if not quiet:
        print(
            f"generated {target} in {time.perf_counter() - t0:.1f}s: {info['runs']:,} runs, "
            f"{info['calls']:,} calls, {info['cases']:,} cases, {info['bytes'] / 1e6:.0f} MB, "
            f"from {info['surface']}",
            file=sys.stderr,
        )
    return target


DISTINCT_TRIES = 50
"""How many times a distinct corpus draws a run again before leaving it out."""


def generate(
    calls: int,
    target: Path,
    dirs: tuple[Path, Path] | None,
    *,
    distinct: bool = False,
    many_cases: bool = False,
) -> dict:
    """Write tools/, cases/ and traces/ under `target`.

    Runs repeat about as often as in the example corpus: at its size (4,000 runs), 52% of the runs
    here and 52% there make the same calls (tools, arguments as parsed, errored or not) as an
    earlier run of the same case, with the same world when the case asserts effects. A grader may
    serve such runs from memory; the share grows with the corpus, as it would with real traces.
    With `distinct`, no run repeats an earlier one's calls, whatever its world: a run that would
    is drawn again (up to `DISTINCT_TRIES` times, then left out), so the grader's memo of graded
    calls serves none of them. With `many_cases`, each case is copied (`case_copies_for`) and its
    runs are dealt out to its copies in turn, each still distinct from every run of the original.
    """
    distinct = distinct or many_cases
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
    copies = case_copies_for(calls, len(cases)) if many_cases else 1
    dealt: Counter[str] = Counter()
    if copies > 1:
        _copy_cases(target / "cases", copies)

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
                    if copies > 1:
                        original = record["case_id"]
                        record["case_id"] = f"{original}~{dealt[original] % copies}"
                        dealt[original] += 1
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
        "cases": len(cases) * copies,
        "bytes": size,
        "surface": surface,
        "repeats": repeats,
    }


def _copy_cases(folder: Path, copies: int) -> None:
    """Each native case in `folder` (JSON: an object or a list; JSONL) written `copies` times, as
    `ID~0` … `ID~{copies-1}`, in place of the original."""
    for f in sorted(folder.rglob("*")):
        if f.suffix not in (".json", ".jsonl") or not f.is_file():
            continue
        text = f.read_bytes()
        if f.suffix == ".jsonl":
            items = [orjson.loads(line) for line in text.splitlines() if line.strip()]
        else:
            loaded = orjson.loads(text)
            items = loaded if isinstance(loaded, list) else [loaded]
        copied = []
        for case in items:
            if not isinstance(case, dict) or "id" not in case:
                raise SystemExit(f"bench: {f}: a case without an id cannot be copied")
            copied += [{**case, "id": f"{case['id']}~{k}"} for k in range(copies)]
        if f.suffix == ".jsonl":
            f.write_bytes(b"".join(orjson.dumps(c) + b"\n" for c in copied))
        else:
            f.write_bytes(orjson.dumps(copied))
