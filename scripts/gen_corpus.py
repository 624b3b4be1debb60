#!/usr/bin/env python3
"""Generate evalrun's example corpus: a support/billing agent's tools, cases and recorded runs.

    python scripts/gen_corpus.py [--out DIR]

writes DIR/tools/, DIR/cases/ and DIR/traces/ (DIR defaults to the repository root). The output
is the same byte for byte on every run: one seeded random.Random, no clock, no environment, and
gzip written with mtime 0. The committed corpus is this script's output, and
tests/test_corpus.py regenerates it and compares.

Each recorded run is drawn from a scenario with a fixed quota, so that `make run` lands near the
motivating team's numbers: exact-match says ~22% of runs failed, ~12% truly fail; the false
failures split roughly encoding 18 : ordering 14 : default 9 : alternate path 6, plus agents that
self-correct after a tool error; about 9% of the runs exact-match passes are loops. Real failures
(wrong value, wrong tool, missing step, malformed arguments, the month time-zone trap, a casefold
rule on a case-sensitive id) stand beside them. The world a run records is simulated from the
calls it made, so an effect assertion fails only when the calls (or a deliberate fault) say so.
"""

from __future__ import annotations

import argparse
import copy
import gzip
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson

SEED = 20260301
ROOT = Path(__file__).resolve().parent.parent
MISSING: Any = object()

# --------------------------------------------------------------------------- schema building blocks


def _str(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


def _int(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "integer", "description": description, **extra}


def _bool(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "boolean", "description": description, **extra}


def _enum(description: str, values: list[str], **extra: Any) -> dict[str, Any]:
    return {"type": "string", "enum": values, "description": description, **extra}


def _array(description: str, items: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "array", "items": items, "description": description, **extra}


def _object(props: dict[str, Any], required: list[str], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required, **extra}


def _norm(rule: str | dict[str, Any]) -> dict[str, Any]:
    return {"x-eval-norm": rule}


CUSTOMER_ID = _str("Customer id, e.g. C-4471.", pattern=r"^C-\d{4}$")
INVOICE_ID = _str("Invoice id, e.g. INV-9912.", pattern=r"^INV-\d{4,6}$")
SUBSCRIPTION_ID = _str("Subscription id, e.g. SUB-20417.", pattern=r"^SUB-\d{5}$")
TICKET_ID = _str("Ticket id, e.g. T-58210.", pattern=r"^T-\d{5}$")
MONTH = _str("Billing month, YYYY-MM (UTC).", **_norm("month"))
# No `format: "date"`: the tool reads a date-time as its date, and a rule applies only to values
# the schema accepts (SPEC "Precise readings"), so the schema must accept them.
DATE = _str(
    "Calendar date, YYYY-MM-DD (with a time of day, the date it falls on in UTC).", **_norm("date")
)
# Money: integer cents, or a decimal amount in major units; the backend accepts both.
MONEY = {
    "type": ["number", "string"],
    "description": "Amount: integer cents (4200), or major units as a decimal (42.00 or '42.00').",
    **_norm("money_cents"),
}
DURATION = {
    "type": ["integer", "string"],
    "description": "Duration: seconds (1800), ISO 8601 (PT30M) or shorthand (30m, 1h30m).",
    **_norm("duration_secs"),
}
INVOICE_STATUS = ["draft", "open", "paid", "overdue", "disputed", "void"]
TICKET_STATUS = ["new", "open", "pending", "solved", "closed"]
SUB_STATUS = ["trialing", "active", "past_due", "paused", "canceled"]
TICKET_TAGS = ["billing", "refund", "vip", "outage", "invoice", "tax", "churn-risk", "sepa"]
PRIORITIES = ["low", "normal", "high", "urgent"]
DISPUTE_STATUS = ["needs_response", "under_review", "won", "lost"]
PAYMENT_METHODS = ["card", "sepa_debit", "ach", "wire"]


@dataclass(frozen=True)
class ToolDef:
    name: str
    description: str
    params: dict[str, Any]
    repeatable: bool = False
    mutates: bool = False
    """Changes the world (refunds, credits, subscription state): loops here cost money."""


def tool(
    name: str,
    description: str,
    required: list[str],
    *,
    mutates: bool = False,
    repeatable: bool = False,
    **props: Any,
) -> ToolDef:
    """A tool whose parameters are `props`; the tools reject arguments they do not know."""
    params = _object(props, required, additionalProperties=False)
    return ToolDef(name, description, params, repeatable=repeatable, mutates=mutates)


def _tools() -> list[ToolDef]:
    return [
        # -- billing: the heaviest traffic goes through search_invoices and issue_refund
        tool(
            "search_invoices",
            "Search a customer's invoices by month and status.",
            ["customer_id"],
            customer_id=CUSTOMER_ID,
            month=MONTH,
            status=_array(
                "Invoice statuses to include (any of).",
                _enum("Invoice status.", INVOICE_STATUS),
                uniqueItems=True,
                **_norm("set"),
            ),
            limit=_int("Page size.", minimum=1, maximum=200, default=50),
            sort=_enum(
                "Sort order.", ["date_desc", "date_asc", "amount_desc"], default="date_desc"
            ),
        ),
        tool(
            "void_invoice",
            "Void an open invoice.",
            ["invoice_id", "reason"],
            mutates=True,
            invoice_id=INVOICE_ID,
            reason=_enum("Why.", ["duplicate", "issued_in_error", "customer_request"]),
        ),
        tool(
            "get_usage",
            "Metered usage for one month.",
            ["customer_id", "month"],
            customer_id=CUSTOMER_ID,
            month=MONTH,
            metric=_enum("Which meter.", ["api_calls", "seats", "storage_gb"], default="api_calls"),
        ),
        tool(
            "start_export_job",
            "Start exporting a monthly statement; returns a job id.",
            ["customer_id", "month"],
            customer_id=CUSTOMER_ID,
            # Statements close at midnight in the billing office's zone, not in UTC.
            month=_str(
                "Statement month, YYYY-MM, in the billing office's zone (America/New_York).",
                **_norm({"name": "month", "tz": "America/New_York"}),
            ),
            format=_enum("File format.", ["pdf", "csv"], default="pdf"),
        ),
        tool(
            "cancel_subscription",
            "Cancel a subscription.",
            ["subscription_id", "reason"],
            mutates=True,
            subscription_id=SUBSCRIPTION_ID,
            reason=_enum(
                "Why the customer leaves.",
                ["too_expensive", "missing_feature", "switched_provider", "other"],
            ),
            at_period_end=_bool("Cancel when the paid period ends.", default=True),
        ),
        tool(
            "search_customers",
            "Find customers by name or e-mail.",
            ["query"],
            query=_str("Name or e-mail; case does not matter.", **_norm("casefold")),
            limit=_int("Page size.", minimum=1, maximum=50, default=10),
        ),
        # -- customers and invoices (Anthropic format)
        tool(
            "get_customer",
            "A customer's profile, optionally with related records.",
            ["customer_id"],
            customer_id=CUSTOMER_ID,
            include=_array(
                "Related records to include.",
                _enum(
                    "Relation.",
                    ["profile", "invoices", "subscriptions", "payment_methods", "tickets"],
                ),
                **_norm("set"),
            ),
        ),
        tool("get_invoice", "One invoice with its lines.", ["invoice_id"], invoice_id=INVOICE_ID),
        tool(
            "list_disputes",
            "Card disputes (chargebacks) for a customer.",
            ["customer_id"],
            customer_id=CUSTOMER_ID,
            status=_array(
                "Dispute statuses (any of).", _enum("Status.", DISPUTE_STATUS), **_norm("set")
            ),
            opened_after=DATE,
        ),
        tool(
            "change_plan",
            "Move a subscription to another plan.",
            ["subscription_id", "plan"],
            mutates=True,
            subscription_id=SUBSCRIPTION_ID,
            plan=_str(
                "Plan code, e.g. pro-annual; codes are case-insensitive.", **_norm("casefold")
            ),
            effective_date=DATE,
            prorate=_bool("Prorate the current period.", default=True),
        ),
        tool(
            "schedule_callback",
            "Book a phone callback with a billing specialist.",
            ["customer_id", "at"],
            customer_id=CUSTOMER_ID,
            at=_str(
                "Start of the callback window (date-time with offset).",
                format="date-time",
                **_norm("instant"),
            ),
            window={**DURATION, "description": "Length of the window.", "default": 1800},
            phone=_str("E.164 phone number."),
        ),
        tool(
            "create_invoice_adjustment",
            "Add credit lines to an invoice.",
            ["invoice_id", "line_items"],
            mutates=True,
            invoice_id=INVOICE_ID,
            line_items=_array(
                "Lines to add; their order does not matter.",
                _object(
                    {
                        "sku": _str("Catalogue SKU."),
                        "quantity": _int("How many.", minimum=1),
                        "unit_price": MONEY,
                    },
                    ["sku", "quantity", "unit_price"],
                    **_norm("known_fields"),
                ),
                **_norm("unordered_list"),
            ),
            memo=_str("Shown on the invoice."),
        ),
        tool(
            "kb_search",
            "Search the internal knowledge base.",
            ["query"],
            query=_str("What to look for."),
            limit=_int("How many articles.", minimum=1, maximum=20, default=5),
            locale=_str("Article language.", default="en-US"),
        ),
        # -- the payments server (MCP)
        tool(
            "issue_refund",
            "Refund all or part of a paid invoice.",
            ["invoice_id", "amount", "reason"],
            mutates=True,
            invoice_id=INVOICE_ID,
            amount=MONEY,
            reason=_enum("Why.", ["duplicate", "service_outage", "billing_error", "goodwill"]),
            notify_customer=_bool("E-mail the customer a receipt.", default=True),
        ),
        tool(
            "apply_credit",
            "Add account credit to a ledger account.",
            ["account_ref", "amount"],
            mutates=True,
            # Ledger refs are base62 and case-sensitive (acct_7Hq2 and acct_7hQ2 are two
            # accounts), yet someone declared casefold here: the corpus's normalizer suspect.
            account_ref=_str("Ledger account ref, e.g. acct_7Hq2.", **_norm("casefold")),
            amount=MONEY,
            memo=_str("Why the credit was given."),
        ),
        tool(
            "get_job_status",
            "Status of an export job; poll until it is done.",
            ["job_id"],
            repeatable=True,
            job_id=_str("Job id from start_export_job.", pattern=r"^job_[0-9a-z]{8}$"),
        ),
        tool(
            "list_refunds",
            "Refunds issued to a customer.",
            ["customer_id"],
            customer_id=CUSTOMER_ID,
            since=DATE,
            status=_array(
                "Refund statuses (any of).",
                _enum("Status.", ["pending", "succeeded", "failed"]),
                **_norm("set"),
            ),
        ),
        tool(
            "get_refund_status",
            "Status of one refund; poll while it is pending.",
            ["refund_id"],
            repeatable=True,
            refund_id=_str("Refund id.", pattern=r"^re_[0-9A-Za-z]{10}$"),
        ),
        tool(
            "pause_subscription",
            "Pause billing for a while.",
            ["subscription_id", "duration"],
            mutates=True,
            subscription_id=SUBSCRIPTION_ID,
            duration={**DURATION, "description": "How long to pause."},
            reason=_str("Free text, shown to the account manager."),
        ),
        tool(
            "get_balance",
            "Account balance at an instant.",
            ["customer_id"],
            customer_id=CUSTOMER_ID,
            as_of=_str("Instant (date-time with offset).", format="date-time", **_norm("instant")),
        ),
        # -- subscriptions (OpenAI Responses)
        tool(
            "get_subscription",
            "One subscription.",
            ["subscription_id"],
            subscription_id=SUBSCRIPTION_ID,
        ),
        tool(
            "list_subscriptions",
            "A customer's subscriptions.",
            ["customer_id"],
            customer_id=CUSTOMER_ID,
            status=_array("Statuses (any of).", _enum("Status.", SUB_STATUS), **_norm("set")),
            limit=_int("Page size.", minimum=1, maximum=100, default=20),
        ),
        tool(
            "apply_coupon",
            "Apply a coupon to a subscription.",
            ["subscription_id", "coupon_code"],
            mutates=True,
            subscription_id=SUBSCRIPTION_ID,
            coupon_code=_str("Coupon code; case-insensitive.", **_norm("casefold")),
        ),
        tool(
            "extend_trial",
            "Extend a trial.",
            ["subscription_id", "extension"],
            mutates=True,
            subscription_id=SUBSCRIPTION_ID,
            extension={**DURATION, "description": "How much longer."},
        ),
        tool(
            "list_payments",
            "Payments received from a customer.",
            ["customer_id"],
            customer_id=CUSTOMER_ID,
            since=DATE,
            until=DATE,
            methods=_array(
                "Payment methods (any of).", _enum("Method.", PAYMENT_METHODS), **_norm("set")
            ),
            limit=_int("Page size.", minimum=1, maximum=100, default=25),
        ),
        tool(
            "send_invoice_email",
            "E-mail an invoice PDF.",
            ["invoice_id", "to"],
            invoice_id=INVOICE_ID,
            to=_str("Recipient e-mail.", format="email", **_norm("casefold")),
            cc=_array(
                "Copies to.", _str("E-mail.", format="email", **_norm("casefold")), **_norm("set")
            ),
        ),
        # -- support tickets (mixed formats in one file)
        tool(
            "search_tickets",
            "Search support tickets.",
            [],
            customer_id=CUSTOMER_ID,
            status=_array("Statuses (any of).", _enum("Status.", TICKET_STATUS), **_norm("set")),
            tags=_array("Tags (all of).", _enum("Tag.", TICKET_TAGS), **_norm("set")),
            created_after=DATE,
            limit=_int("Page size.", minimum=1, maximum=100, default=20),
            sort=_enum(
                "Sort order.", ["updated_desc", "created_desc", "priority"], default="updated_desc"
            ),
        ),
        tool("get_ticket", "One ticket with its conversation.", ["ticket_id"], ticket_id=TICKET_ID),
        tool(
            "update_ticket",
            "Change a ticket's status, priority, tags or assignee.",
            ["ticket_id"],
            mutates=True,
            ticket_id=TICKET_ID,
            status=_enum("New status.", TICKET_STATUS),
            priority=_enum("New priority.", PRIORITIES),
            tags=_array(
                "The ticket's tags (replaces them).", _enum("Tag.", TICKET_TAGS), **_norm("set")
            ),
            assignee=_str("Agent e-mail or team handle."),
        ),
        tool(
            "reply_to_ticket",
            "Post a reply (or an internal note) on a ticket.",
            ["ticket_id", "body"],
            mutates=True,
            ticket_id=TICKET_ID,
            body=_str("Markdown text."),
            internal=_bool("Visible to agents only.", default=False),
        ),
        tool(
            "create_ticket",
            "Open a new ticket for a customer.",
            ["customer_id", "subject"],
            mutates=True,
            customer_id=CUSTOMER_ID,
            subject=_str("One line."),
            priority=_enum("Priority.", PRIORITIES, default="normal"),
            tags=_array("Tags.", _enum("Tag.", TICKET_TAGS), **_norm("set")),
        ),
        # -- ops (bare schemas from an in-house registry)
        tool(
            "escalate_ticket",
            "Hand a ticket to a specialist team with an SLA.",
            ["ticket_id", "team"],
            mutates=True,
            ticket_id=TICKET_ID,
            team=_enum("Team.", ["billing_l2", "payments_eng", "trust_safety"]),
            sla={**DURATION, "description": "Time to first response."},
        ),
        tool(
            "merge_tickets",
            "Merge duplicate tickets into one.",
            ["primary_id", "duplicate_ids"],
            mutates=True,
            primary_id=TICKET_ID,
            duplicate_ids=_array("Tickets to merge in.", TICKET_ID, minItems=1, **_norm("set")),
        ),
        tool(
            "get_payment",
            "One payment.",
            ["payment_id"],
            payment_id=_str("Payment id.", pattern=r"^py_[0-9A-Za-z]{10}$"),
        ),
        tool(
            "convert_currency",
            "Convert an amount at today's rate.",
            ["amount", "from_currency", "to_currency"],
            amount={
                "type": ["number", "string"],
                "description": "Amount in major units.",
                **_norm({"name": "number", "digits": 2}),
            },
            from_currency=_str("ISO 4217 code.", **_norm("casefold")),
            to_currency=_str("ISO 4217 code.", **_norm("casefold")),
        ),
        tool(
            "calculate_tax",
            "Tax due on an amount.",
            ["amount", "country"],
            amount=MONEY,
            country=_str("ISO 3166 country code.", **_norm("casefold")),
            tax_rate={
                "type": "number",
                "description": "Rate as a fraction (0.19).",
                "minimum": 0,
                "maximum": 1,
                **_norm({"name": "number", "digits": 4}),
            },
        ),
        tool(
            "get_customer_notes",
            "Notes agents left on a customer.",
            ["customer_id"],
            customer_id=CUSTOMER_ID,
            limit=_int("How many.", minimum=1, maximum=50, default=10),
        ),
        # -- single-tool files
        ToolDef(
            "update_customer",
            "Update a customer's address or preferences.",
            _pydantic_update_customer(),
            mutates=True,
        ),
        ToolDef(
            "respond_to_dispute",
            "Submit evidence for (or accept) a card dispute.",
            _pydantic_respond_to_dispute(),
            mutates=True,
        ),
        tool(
            "add_customer_note",
            "Leave a note on a customer.",
            ["customer_id", "body"],
            mutates=True,
            customer_id=CUSTOMER_ID,
            # free text no eval should judge: its wording is the agent's
            body=_str("The note.", **{"x-eval-norm": "any"}),
            pinned=_bool("Pin to the top.", default=False),
            visibility=_enum("Who sees it.", ["internal", "team"], default="internal"),
        ),
    ]


def _pydantic_update_customer() -> dict[str, Any]:
    """Parameters as pydantic v2 writes them: `$defs`, `$ref`, `anyOf [X, null]`, titles."""
    return {
        "$defs": {
            "Address": {
                "title": "Address",
                "type": "object",
                "description": "Postal address; the tool ignores fields it does not know.",
                "properties": {
                    "line1": {"title": "Line1", "type": "string"},
                    "city": {"title": "City", "type": "string"},
                    "postal_code": {"title": "Postal Code", "type": "string"},
                    "country": {
                        "title": "Country",
                        "type": "string",
                        "minLength": 2,
                        "maxLength": 2,
                        "x-eval-norm": "casefold",
                    },
                },
                "required": ["line1", "city", "postal_code", "country"],
                "x-eval-norm": "known_fields",
            },
            "Preferences": {
                "title": "Preferences",
                "type": "object",
                "properties": {
                    "newsletter": {"title": "Newsletter", "type": "boolean", "default": False},
                    "language": {"title": "Language", "type": "string", "default": "en"},
                    "contact_channel": {
                        "title": "Contact Channel",
                        "type": "string",
                        "enum": ["email", "phone", "sms"],
                        "default": "email",
                    },
                },
            },
        },
        "title": "UpdateCustomer",
        "type": "object",
        "properties": {
            "customer_id": {"title": "Customer Id", **CUSTOMER_ID},
            "address": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}], "default": None},
            "preferences": {"$ref": "#/$defs/Preferences"},
        },
        "required": ["customer_id"],
    }


def _pydantic_respond_to_dispute() -> dict[str, Any]:
    return {
        "$defs": {
            "Evidence": {
                "title": "Evidence",
                "type": "object",
                "properties": {
                    "receipt_url": {"title": "Receipt Url", "type": "string", "format": "uri"},
                    "shipped_on": {"title": "Shipped On", **DATE},
                    "notes": {"title": "Notes", "type": "string"},
                },
                "required": ["receipt_url"],
                "x-eval-norm": "known_fields",
            },
        },
        "title": "RespondToDispute",
        "type": "object",
        "properties": {
            "dispute_id": {
                "title": "Dispute Id",
                "type": "string",
                "pattern": r"^dp_[0-9A-Za-z]{8}$",
            },
            "evidence": {
                "anyOf": [{"$ref": "#/$defs/Evidence"}, {"type": "null"}],
                "default": None,
            },
            "accept": {"title": "Accept", "type": "boolean", "default": False},
        },
        "required": ["dispute_id"],
    }


TOOLS = {t.name: t for t in _tools()}


def _as(fmt: str, names: str) -> list[tuple[str, str]]:
    return [(name, fmt) for name in names.split()]


# file -> (layout, [(tool, format)]); layout: "list", "tools_list" (an MCP tools/list result) or
# "single" (one tool object)
TOOL_FILES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "billing.json": (
        "list",
        _as(
            "openai_chat",
            "search_invoices void_invoice get_usage start_export_job "
            "cancel_subscription search_customers get_refund_status",
        ),
    ),
    "customers.json": (
        "list",
        _as(
            "anthropic",
            "get_customer get_invoice list_disputes change_plan "
            "schedule_callback create_invoice_adjustment kb_search",
        ),
    ),
    "payments-mcp.json": (
        "tools_list",
        _as(
            "mcp",
            "issue_refund apply_credit get_job_status list_refunds pause_subscription get_balance",
        ),
    ),
    "subscriptions.json": (
        "list",
        _as(
            "openai_responses",
            "get_subscription list_subscriptions apply_coupon "
            "extend_trial list_payments send_invoice_email",
        ),
    ),
    "tickets.json": (
        "list",
        [
            *_as("openai_chat", "search_tickets update_ticket"),
            *_as("anthropic", "get_ticket create_ticket"),
            *_as("openai_responses", "reply_to_ticket"),
        ],
    ),
    "ops.json": (
        "list",
        _as(
            "bare",
            "escalate_ticket merge_tickets get_payment "
            "convert_currency calculate_tax get_customer_notes",
        ),
    ),
    "update_customer.json": ("single", _as("openai_chat", "update_customer")),
    "respond_to_dispute.json": ("single", _as("anthropic", "respond_to_dispute")),
    "add_customer_note.json": ("single", _as("mcp", "add_customer_note")),
}


def render_tool(tool: ToolDef, fmt: str) -> dict[str, Any]:
    """The tool as its format writes it, `x-eval-repeatable` where that format keeps extras:
    inside `function` (Chat Completions), in `annotations` (MCP), else on the tool itself."""
    repeatable = {"x-eval-repeatable": True} if tool.repeatable else {}
    if fmt == "openai_chat":
        return {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.params,
                **repeatable,
            },
        }
    if fmt == "openai_responses":
        out = {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.params,
            "strict": False,
        }
    elif fmt == "anthropic":
        out = {"name": tool.name, "description": tool.description, "input_schema": tool.params}
    elif fmt == "mcp":
        out = {
            "name": tool.name,
            "description": tool.description,
            "inputSchema": tool.params,
            "annotations": {
                "readOnlyHint": not tool.mutates,
                "destructiveHint": tool.mutates,
                **repeatable,
            },
        }
        return out
    else:
        out = {"name": tool.name, "description": tool.description, "parameters": tool.params}
    return {**out, **repeatable}


# ------------------------------------------------------------------------- reading the schemas


def resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """A schema node with its `$ref` and a lone non-null `anyOf` branch merged in."""
    node = dict(node)
    while "$ref" in node:
        target = root["$defs"][node.pop("$ref").rsplit("/", 1)[1]]
        node = {**target, **node}
    branches = [b for b in node.get("anyOf", []) if b.get("type") != "null"]
    if len(branches) == 1:
        rest = {k: v for k, v in node.items() if k != "anyOf"}
        node = {**resolve(branches[0], root), **rest}
    return node


@dataclass(frozen=True)
class Site:
    """One parameter of one call: where it sits, its schema, and its value (or MISSING)."""

    step: int
    path: tuple[Any, ...]
    schema: dict[str, Any]
    value: Any

    @property
    def rule(self) -> str | None:
        raw = self.schema.get("x-eval-norm")
        return raw["name"] if isinstance(raw, dict) else raw

    @property
    def tz(self) -> str:
        raw = self.schema.get("x-eval-norm")
        return raw.get("tz", "UTC") if isinstance(raw, dict) else "UTC"


def sites(tool: str, args: dict[str, Any], step: int) -> Iterator[Site]:
    root = TOOLS[tool].params
    yield from _walk(root, root, args, (), step)


def _walk(
    node: dict[str, Any],
    root: dict[str, Any],
    value: dict[str, Any],
    path: tuple[Any, ...],
    step: int,
) -> Iterator[Site]:
    node = resolve(node, root)
    for name, sub in node.get("properties", {}).items():
        sub = resolve(sub, root)
        here = (*path, name)
        if name not in value:
            yield Site(step, here, sub, MISSING)
            continue
        v = value[name]
        yield Site(step, here, sub, v)
        if isinstance(v, dict):
            yield from _walk(sub, root, v, here, step)
        elif isinstance(v, list) and isinstance(sub.get("items"), dict):
            for i, item in enumerate(v):
                if isinstance(item, dict):
                    yield from _walk(sub["items"], root, item, (*here, i), step)


def set_at(args: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        args = args[key]
    if value is MISSING:
        del args[path[-1]]
    else:
        args[path[-1]] = value


ENCODING_RULES = (
    "month",
    "date",
    "instant",
    "money_cents",
    "duration_secs",
    "casefold",
    "known_fields",
    "number",
)
ORDERING_RULES = ("set", "unordered_list")
UNJUDGED_RULES = ("any",)
# Parameters whose rule is a lie: a case-only difference names another record (see apply_credit).
NO_HARMLESS_RECODING = {("apply_credit", ("account_ref",))}


def encoding_sites(tool: str, args: dict[str, Any], step: int) -> list[Site]:
    return [
        s
        for s in sites(tool, args, step)
        if s.value is not MISSING
        and s.rule in ENCODING_RULES
        and (tool, s.path) not in NO_HARMLESS_RECODING
    ]


def ordering_sites(tool: str, args: dict[str, Any], step: int) -> list[Site]:
    return [
        s
        for s in sites(tool, args, step)
        if s.rule in ORDERING_RULES
        and isinstance(s.value, list)
        and (len(s.value) >= 2 or (s.rule == "set" and s.value))
    ]


def unjudged_sites(tool: str, args: dict[str, Any], step: int) -> list[Site]:
    """Free-text parameters (the rule any) whose wording a run can change."""
    return [
        s for s in sites(tool, args, step) if s.rule in UNJUDGED_RULES and isinstance(s.value, str)
    ]


# The same note in other words, as agents write it.
REWORDINGS = {
    "Prefers e-mail over phone.": ["Customer prefers email to phone calls.", "Contact by e-mail."],
    "Promised a callback about the March invoice.": [
        "Promised to call back about the March invoice.",
        "Callback promised re: March invoice.",
    ],
    "VAT id verified.": ["Verified the VAT ID.", "VAT number checked and verified."],
    "Do not offer discounts.": ["No discounts for this customer.", "Don't offer any discount."],
}


def reword(text: str, rng: random.Random) -> str:
    return rng.choice(REWORDINGS.get(text, [f"Note: {text}"]))


def default_sites(tool: str, args: dict[str, Any], step: int) -> list[Site]:
    """Parameters with a documented default that a call can state or leave out."""
    return [
        s
        for s in sites(tool, args, step)
        if "default" in s.schema and (s.value is MISSING or s.value == s.schema["default"])
    ]


# ------------------------------------------------------------------------------ value variants


def major_units(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"


def to_cents(value: Any) -> int | None:
    """What the payments backend books for an amount (money_cents semantics)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int((Decimal(repr(value)) * 100).to_integral_value())
    if isinstance(value, str):
        try:
            return int((Decimal(value) * 100).to_integral_value())
        except ArithmeticError:
            return None
    return None


def iso_duration(secs: int) -> str:
    days, rest = divmod(secs, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    out = "P" + (f"{days}D" if days else "")
    clock = "".join(f"{n}{u}" for n, u in ((hours, "H"), (minutes, "M"), (seconds, "S")) if n)
    return out + ("T" + clock if clock else "")


def shorthand_duration(secs: int) -> str:
    days, rest = divmod(secs, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [f"{n}{u}" for n, u in ((days, "d"), (hours, "h"), (minutes, "m"), (seconds, "s")) if n]
    return "".join(parts) if len(parts) < 3 else " ".join(parts)


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _zulu(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def recode(site: Site, rng: random.Random) -> Any:
    """The same value in another encoding the parameter's rule accepts (MISSING if none)."""
    rule, v = site.rule, site.value
    if rule == "month":
        day = rng.randint(2, 26)
        # Mid-month date-times only: the first or last hours of a month are the time-zone trap.
        return rng.choice(
            [
                f"{v}-01",
                f"{v}-{day:02d}",
                f"{v}-{day:02d}T10:15:00Z",
                f"{v}-{day:02d}T14:30:00+02:00",
                f"{v}-01T12:00:00Z",
            ]
        )
    if rule == "date":
        return rng.choice(
            [f"{v}T12:00:00Z", f"{v}T09:30:00+02:00", f"{v}T08:00:00", f"{v}T16:45:00-03:00"]
        )
    if rule == "instant":
        moment = _instant(v)
        hours = rng.choice([1, 2, -4, -5, 5.5])
        shifted = moment.astimezone(timezone(timedelta(hours=hours)))
        return rng.choice(
            [
                shifted.isoformat(),
                v.replace("Z", ".000Z"),
                v.replace("Z", "+00:00"),
                shifted.isoformat(),
            ]
        )
    if rule == "money_cents" and isinstance(v, int):
        text = major_units(v)
        return rng.choice([float(text), float(text), text])
    if rule == "duration_secs":
        if isinstance(v, int):
            return rng.choice([iso_duration(v), iso_duration(v), shorthand_duration(v), str(v)])
        return MISSING
    if rule == "casefold" and isinstance(v, str):
        options = [x for x in (v.upper(), v.lower(), v.title(), f"{v} ") if x != v]
        return rng.choice(options)
    if rule == "known_fields" and isinstance(v, dict):
        # Fields the agent echoes back from a lookup; the tool ignores what it does not declare.
        declared = site.schema.get("properties", {})
        extras = [
            (k, x)
            for k, x in (("verified", True), ("source", "lookup"), ("id", "addr_3QmT8d"))
            if k not in declared
        ]
        key, extra = rng.choice(extras)
        return {**v, key: extra}
    if rule == "number" and isinstance(v, (int, float)):
        raw = site.schema["x-eval-norm"]
        digits = raw.get("digits", 6) if isinstance(raw, dict) else 6
        nudged = Decimal(repr(v)) + Decimal(1).scaleb(-(digits + 2))
        # A numeric string only where the schema accepts a string: a rule never reads a value
        # its schema rejects (SPEC "Precise readings"). Two choices either way, so the draws
        # that follow are the same.
        types = site.schema.get("type")
        text = (
            repr(v)
            if types == "string" or (isinstance(types, list) and "string" in types)
            else None
        )
        return rng.choice([text if text is not None else float(str(nudged)), float(str(nudged))])
    return MISSING


def reorder(site: Site, rng: random.Random) -> list[Any]:
    v = list(site.value)
    if len(set(map(repr, v))) < 2 or (site.rule == "set" and rng.random() < 0.2):
        return [*v, v[0]]  # a set ignores duplicates too
    out = list(v)
    while out == v:
        rng.shuffle(out)
    return out


def prev_month(month: str) -> str:
    y, m = int(month[:4]), int(month[5:7])
    return f"{y - 1}-12" if m == 1 else f"{y}-{m - 1:02d}"


def other_id(value: str, rng: random.Random) -> str:
    """A plausible id for another record: one digit off, or two digits swapped."""
    head = value.rstrip("0123456789")
    digits = list(value[len(head) :])
    if len(digits) >= 2 and rng.random() < 0.5 and digits[-1] != digits[-2]:
        digits[-1], digits[-2] = digits[-2], digits[-1]
    else:
        i = rng.randrange(1, len(digits)) if len(digits) > 1 else 0
        digits[i] = str((int(digits[i]) + rng.randint(1, 8)) % 10 or (1 if i == 0 else 0))
    return head + "".join(digits)


def wrong_value(site: Site, rng: random.Random) -> Any:
    """A value no rule makes equal to the right one: the agent got the fact wrong."""
    v, schema = site.value, site.schema
    if "enum" in schema:
        return rng.choice([e for e in schema["enum"] if e != v])
    if isinstance(v, bool):
        return not v
    if site.rule == "month":
        return prev_month(v)
    if site.rule == "date":
        return (date.fromisoformat(v) + timedelta(days=rng.choice([-7, -1, 1, 30]))).isoformat()
    if site.rule == "instant":
        return _zulu(_instant(v) + timedelta(hours=rng.choice([1, 12, 24])))
    if site.rule == "money_cents" and isinstance(v, int):
        return rng.choice([v * 10, v // 10 * 10 - 500 if v > 1000 else v + 500, v * 2])
    if site.rule == "duration_secs" and isinstance(v, int):
        return v * rng.choice([2, 7]) if v < 86400 else v // 30
    if isinstance(v, list) and v:
        if len(v) >= 2:
            return v[:-1]
        items = schema.get("items", {})
        if "enum" in items:
            return [rng.choice([e for e in items["enum"] if e not in v])]
        return MISSING
    if isinstance(v, str) and v[-1:].isdigit():
        return other_id(v, rng)
    if isinstance(v, int):
        return v + rng.choice([1, 5, 10])
    return MISSING


# ---------------------------------------------------------------------------------- the world

FIRST = [
    "Dana",
    "Marcus",
    "Priya",
    "Tomás",
    "Aiko",
    "Lena",
    "Owen",
    "Fatima",
    "Jonas",
    "Chloé",
    "Ravi",
    "Sofia",
    "Mateo",
    "Hannah",
    "Kwame",
    "Ingrid",
    "Yusuf",
    "Mei",
    "Lucas",
    "Amara",
    "Niko",
    "Elena",
    "Theo",
    "Zara",
    "Gustavo",
    "Leila",
    "Finn",
    "Noor",
]
LAST = [
    "Whitfield",
    "Okafor",
    "Lindqvist",
    "Haddad",
    "Moreau",
    "Tanaka",
    "Brennan",
    "Castillo",
    "Novak",
    "Petrov",
    "Adeyemi",
    "Schmidt",
    "Kowalski",
    "Duarte",
    "Nakamura",
    "Oyelaran",
    "Varga",
    "Rossi",
    "Fischer",
    "Mensah",
    "Johansson",
    "Rahman",
    "Silva",
    "Keller",
]
DOMAINS = ["example.com", "northwind.co", "globex.net", "initech.dev", "umbrella.org"]
ASCII = str.maketrans("áéíóúçãñ", "aeioucan")
BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
MONTHS = ["2025-10", "2025-11", "2025-12", "2026-01", "2026-02", "2026-03"]
MONTH_NAMES = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
CITIES = [
    ("Berlin", "10115", "DE"),
    ("Lyon", "69002", "FR"),
    ("Porto", "4050-091", "PT"),
    ("Austin", "78701", "US"),
    ("Leeds", "LS1 4AP", "GB"),
    ("Utrecht", "3511 AB", "NL"),
    ("Kraków", "31-042", "PL"),
    ("Osaka", "530-0001", "JP"),
]
STREETS = [
    "Hauptstraße 12",
    "14 Rue Mercière",
    "Rua das Flores 88",
    "501 Congress Ave",
    "22 Park Row",
    "Oudegracht 131",
    "ul. Floriańska 3",
    "2-4-1 Umeda",
]
PLANS = ["starter-monthly", "pro-monthly", "pro-annual", "team-annual", "enterprise-annual"]
KB_TOPICS = [
    "refund policy for duplicate charges",
    "SEPA mandate failures",
    "proration rules",
    "dispute evidence checklist",
    "VAT reverse charge",
    "pausing a subscription",
    "statement export formats",
    "trial extension limits",
    "chargeback timelines",
]


@dataclass(frozen=True)
class Customer:
    id: str
    name: str
    email: str
    account: str

    @property
    def first(self) -> str:
        return self.name.split()[0]

    @property
    def slug(self) -> str:
        return self.name.lower().translate(ASCII).replace(" ", "-")


class Pool:
    """Customers and record ids, unique and drawn from one random stream."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()
        self.customers: list[Customer] = []
        names = [f"{f} {s}" for f in FIRST for s in LAST]
        rng.shuffle(names)
        self.customers.append(
            Customer("C-4471", "Dana Whitfield", "dana.whitfield@example.com", "acct_7Hq2")
        )
        self.used.update({"C-4471", "acct_7Hq2", "INV-9912"})
        for name in names[:79]:
            local = name.lower().translate(ASCII).replace(" ", ".")
            self.customers.append(
                Customer(
                    self.fresh(lambda: f"C-{rng.randint(1000, 9999)}"),
                    name,
                    f"{local}@{rng.choice(DOMAINS)}",
                    self.fresh(self._account),
                )
            )

    def fresh(self, make: Callable[[], str]) -> str:
        while (value := make()) in self.used:
            pass
        self.used.add(value)
        return value

    def _account(self) -> str:
        while True:
            ref = "acct_" + "".join(self.rng.choice(BASE62) for _ in range(4))
            if any(ch.isupper() for ch in ref[5:]) and any(ch.islower() for ch in ref[5:]):
                return ref

    def token(self, prefix: str, n: int, alphabet: str = BASE62) -> str:
        return self.fresh(lambda: prefix + "".join(self.rng.choice(alphabet) for _ in range(n)))

    def customer(self) -> Customer:
        return self.rng.choice(self.customers)

    def invoice(self) -> str:
        return self.fresh(lambda: f"INV-{self.rng.randint(1000, 99999)}")

    def subscription(self) -> str:
        return self.fresh(lambda: f"SUB-{self.rng.randint(10000, 99999)}")

    def ticket(self) -> str:
        return self.fresh(lambda: f"T-{self.rng.randint(10000, 99999)}")

    def month(self) -> str:
        return self.rng.choices(MONTHS, weights=[1, 1, 2, 2, 3, 4])[0]

    def day(self, month: str | None = None) -> str:
        month = month or self.month()
        return f"{month}-{self.rng.randint(2, 27):02d}"

    def instant(self) -> str:
        return f"{self.day('2026-03')}T{self.rng.randint(8, 17):02d}:{self.rng.choice([0, 30]):02d}:00Z"

    def cents(self) -> int:
        return self.rng.choice([4200, 1999, 4900, 12900, 990, 2500, 8750, 30000, 1500, 5999])


def month_words(month: str) -> str:
    return f"{MONTH_NAMES[int(month[5:]) - 1]} {month[:4]}"


def words(items: list[str]) -> str:
    items = [i.replace("_", " ") for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def step(tool: str, **args: Any) -> dict[str, Any]:
    return {"tool": tool, "args": args}


# ----------------------------------------------------------------------------------- the cases


@dataclass
class Spec:
    """A case, plus what the run generator needs to know about it."""

    id: str
    input: str
    accept: list[list[dict[str, Any]]]
    match: str = "exact"
    effect: list[dict[str, Any]] = field(default_factory=list)
    world0: dict[str, Any] | None = None
    """The world before the run, for cases with effect assertions."""
    legacy: bool = False
    weight: float = 1.0
    """How often users ask for this: a few tools carry most of the traffic."""
    file: str = ""
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def canonical(self) -> list[dict[str, Any]]:
        return self.accept[0]

    def to_json(self, rng: random.Random) -> dict[str, Any]:
        if self.legacy:
            only = self.canonical[0]
            return {
                "id": self.id,
                "input": self.input,
                "expected_tool": only["tool"],
                "expected_args": only["args"],
            }
        out: dict[str, Any] = {"id": self.id, "input": self.input}
        if self.match != "exact" or rng.random() < 0.6:  # `exact` is the default: often omitted
            out["match"] = self.match
        out["accept"] = self.accept
        if self.effect:
            out["effect"] = self.effect
        return out


STATUS_COMBOS = [
    ["open", "disputed"],
    ["open", "overdue"],
    ["disputed", "open", "overdue"],
    ["paid", "void"],
    ["open", "paid"],
    ["overdue", "disputed"],
    ["open"],
    ["paid"],
    ["overdue"],
]


class Cases:
    def __init__(self, pool: Pool) -> None:
        self.pool, self.rng = pool, pool.rng
        self.specs: list[Spec] = []
        self.ids: set[str] = set()

    def add(self, spec: Spec) -> None:
        base, n = spec.id, 2
        while spec.id in self.ids:
            spec.id, n = f"{base}-{n}", n + 1
        self.ids.add(spec.id)
        self.specs.append(spec)

    def build(self) -> list[Spec]:
        self.refund_dana_march()
        for make, n in (
            (self.invoice_lookup, 36),
            (self.refund, 25),
            (self.triage, 25),
            (self.pause, 12),
            (self.plan_change, 12),
            (self.export, 10),
            (self.credit, 10),
            (self.callback, 10),
            (self.address, 10),
            (self.legacy, 36),
            (self.overview, 12),
            (self.dispute_check, 8),
            (self.money_math, 10),
            (self.escalation, 10),
            (self.merge, 8),
            (self.invoice_email, 8),
            (self.usage, 8),
            (self.adjustment, 6),
            (self.cancel, 8),
            (self.coupon_or_trial, 8),
            (self.payments, 8),
            (self.dispute_response, 6),
            (self.note, 6),
            (self.void, 6),
            (self.refund_status, 5),
            (self.new_ticket, 6),
        ):
            for _ in range(n):
                make()
        return self.specs

    # -- billing

    def refund_dana_march(self) -> None:
        """The SPEC's example case, in its own single-case file."""
        refund = step("issue_refund", invoice_id="INV-9912", amount=4200, reason="duplicate")
        self.add(
            Spec(
                "refund-dana-march",
                "refund the duplicate charge on Dana Whitfield's March invoice",
                [
                    [
                        step(
                            "search_invoices",
                            customer_id="C-4471",
                            month="2026-03",
                            status=["open", "disputed"],
                        ),
                        refund,
                    ],
                    [step("get_customer", customer_id="C-4471", include=["invoices"]), refund],
                ],
                match="contains",
                effect=[
                    {"at": "/refunds", "contains": {"invoice": "INV-9912", "cents": 4200}},
                    {"at": "/refunds", "count": 1, "where": {"invoice": "INV-9912"}},
                ],
                world0={"refunds": []},
                weight=3.0,
                file="refund-dana-march.json",
                info={"customer": self.pool.customers[0]},
            )
        )

    def invoice_lookup(self) -> None:
        c, m, r = self.pool.customer(), self.pool.month(), self.rng
        status = r.choice(STATUS_COMBOS)
        args: dict[str, Any] = {"customer_id": c.id, "month": m, "status": status}
        roll = r.random()
        if roll < 0.2:
            args["limit"] = r.choice([10, 20, 100])
        elif roll < 0.4:
            args["sort"] = "date_desc"  # the documented default, stated
        elif roll < 0.5:
            args["sort"] = "amount_desc"
        accept = [[{"tool": "search_invoices", "args": args}]]
        if r.random() < 0.4:
            accept.append([step("get_customer", customer_id=c.id, include=["invoices"])])
        ask = r.choice(
            [
                "Which of {n}'s invoices from {m} are {s}?",
                "List {n}'s {s} invoices for {m}.",
                "{f} says an invoice from {m} is wrong; show the {s} ones.",
            ]
        )
        self.add(
            Spec(
                f"invoices-{c.slug}-{m}",
                ask.format(n=c.name, f=c.first, m=month_words(m), s=words(status)),
                accept,
                weight=3.0,
                file="billing.json",
                info={"customer": c},
            )
        )

    def refund(self) -> None:
        c, m, r = self.pool.customer(), self.pool.month(), self.rng
        inv, cents = self.pool.invoice(), self.pool.cents()
        reason = r.choice(["duplicate", "duplicate", "service_outage", "billing_error", "goodwill"])
        refund_args: dict[str, Any] = {"invoice_id": inv, "amount": cents, "reason": reason}
        roll = r.random()
        if roll < 0.2:
            refund_args["notify_customer"] = False
        elif roll < 0.3:
            refund_args["notify_customer"] = True
        refund = {"tool": "issue_refund", "args": refund_args}
        search = step(
            "search_invoices",
            customer_id=c.id,
            month=m,
            status=r.choice([["paid", "disputed"], ["paid"], ["disputed", "paid"]]),
        )
        accept = [[search, refund]]
        if r.random() < 0.5:
            accept.append([step("get_invoice", invoice_id=inv), refund])
        prior = [{"invoice": self.pool.invoice(), "cents": self.pool.cents()}]
        self.add(
            Spec(
                f"refund-{c.slug}-{m}",
                f"{c.name}: refund {major_units(cents)} EUR on invoice {inv} from "
                f"{month_words(m)} ({reason.replace('_', ' ')}).",
                accept,
                match="contains",
                effect=[
                    {"at": "/refunds", "contains": {"invoice": inv, "cents": cents}},
                    {"at": "/refunds", "count": 1, "where": {"invoice": inv}},
                ],
                world0={"refunds": prior if r.random() < 0.4 else []},
                weight=3.0,
                file="billing.json",
                info={"customer": c},
            )
        )

    def usage(self) -> None:
        c, m = self.pool.customer(), self.pool.month()
        args: dict[str, Any] = {"customer_id": c.id, "month": m}
        metric = self.rng.choice(["api_calls", "api_calls", "seats", "storage_gb", None])
        if metric:
            args["metric"] = metric
        self.add(
            Spec(
                f"usage-{c.slug}-{m}",
                f"How much {(metric or 'api_calls').replace('_', ' ')} did {c.name} use in "
                f"{month_words(m)}?",
                [[{"tool": "get_usage", "args": args}]],
                file="billing.json",
                weight=0.8,
                info={"customer": c},
            )
        )

    def adjustment(self) -> None:
        inv, r = self.pool.invoice(), self.rng
        skus = r.sample(
            ["SEAT-PRO", "SEAT-TEAM", "ADDON-SSO", "ADDON-AUDIT", "SUPPORT-PRIO"], r.choice([2, 3])
        )
        items = [
            {"sku": s, "quantity": r.choice([1, 2, 5]), "unit_price": -self.pool.cents()}
            for s in skus
        ]
        args: dict[str, Any] = {"invoice_id": inv, "line_items": items}
        if r.random() < 0.5:
            args["memo"] = "Credit for unused seats"
        self.add(
            Spec(
                f"adjust-{inv.lower()}",
                f"Credit {', '.join(s for s in skus)} on {inv}.",
                [[{"tool": "create_invoice_adjustment", "args": args}]],
                file="billing.json",
                weight=0.7,
            )
        )

    def void(self) -> None:
        inv = self.pool.invoice()
        reason = self.rng.choice(["duplicate", "issued_in_error", "customer_request"])
        self.add(
            Spec(
                f"void-{inv.lower()}",
                f"Void {inv}, it was {reason.replace('_', ' ')}.",
                [
                    [
                        step("get_invoice", invoice_id=inv),
                        step("void_invoice", invoice_id=inv, reason=reason),
                    ]
                ],
                effect=[{"at": f"/invoices/{inv}/status", "equals": "void"}],
                world0={"invoices": {inv: {"status": "open"}}},
                file="billing.json",
                weight=0.7,
            )
        )

    # -- support tickets

    def triage(self) -> None:
        c, t, r = self.pool.customer(), self.pool.ticket(), self.rng
        search: dict[str, Any] = {
            "customer_id": c.id,
            "status": r.choice(
                [["open", "pending"], ["new", "open"], ["new", "open", "pending"], ["open"]]
            ),
        }
        if r.random() < 0.3:
            search["tags"] = r.sample(["billing", "refund", "invoice", "sepa"], r.choice([1, 2]))
        if r.random() < 0.25:
            search["created_after"] = self.pool.day("2026-02")
        if r.random() < 0.2:
            search["limit"] = 20  # the default, stated
        prio = r.choice(["high", "urgent", "high"])
        update: dict[str, Any] = {"ticket_id": t, "priority": prio}
        if r.random() < 0.4:
            update["tags"] = r.sample(["billing", "vip", "churn-risk", "refund"], r.choice([2, 3]))
        if r.random() < 0.2:
            update["status"] = "pending"
        accept = [[step("search_tickets", **search), step("update_ticket", **update)]]
        if r.random() < 0.35:
            accept.append([step("get_ticket", ticket_id=t), step("update_ticket", **update)])
        with_effect = r.random() < 0.5
        self.add(
            Spec(
                f"triage-{c.slug}-{t.lower()}",
                f"{c.name} is waiting on {t}; find it and make it {prio} priority.",
                accept,
                effect=[{"at": f"/tickets/{t}/priority", "equals": prio}] if with_effect else [],
                world0={"tickets": {t: {"status": "open", "priority": "normal"}}}
                if with_effect
                else None,
                weight=3.0,
                file="support.jsonl",
                info={"customer": c, "ticket": t},
            )
        )

    def escalation(self) -> None:
        t, r = self.pool.ticket(), self.rng
        team = r.choice(["billing_l2", "payments_eng", "trust_safety"])
        sla = r.choice([3600, 14400, 28800, 86400])
        self.add(
            Spec(
                f"escalate-{t.lower()}",
                f"Escalate {t} to {team.replace('_', ' ')}, first response within "
                f"{sla // 3600} hours.",
                [
                    [
                        step("get_ticket", ticket_id=t),
                        step("escalate_ticket", ticket_id=t, team=team, sla=sla),
                    ]
                ],
                match="contains",
                effect=[{"at": "/escalations", "contains": {"ticket": t, "team": team}}],
                world0={"escalations": []},
                file="support.jsonl",
                info={"ticket": t},
            )
        )

    def merge(self) -> None:
        c, r = self.pool.customer(), self.rng
        primary = self.pool.ticket()
        dups = [self.pool.ticket() for _ in range(r.choice([1, 2, 2, 3]))]
        effect = [{"at": f"/tickets/{d}", "absent": True} for d in dups]
        effect.append({"at": f"/tickets/{primary}/status", "equals": "open"})
        self.add(
            Spec(
                f"merge-{c.slug}-{primary.lower()}",
                f"{c.name} opened the same request {len(dups) + 1} times; merge them into "
                f"{primary}.",
                [
                    [
                        step("search_tickets", customer_id=c.id, status=["new", "open"]),
                        step("merge_tickets", primary_id=primary, duplicate_ids=dups),
                    ]
                ],
                effect=effect,
                world0={
                    "tickets": {
                        t: {"status": "open" if t == primary else "new"} for t in [primary, *dups]
                    }
                },
                file="support.jsonl",
                info={"customer": c, "ticket": primary},
            )
        )

    def invoice_email(self) -> None:
        c, inv, r = self.pool.customer(), self.pool.invoice(), self.rng
        args: dict[str, Any] = {"invoice_id": inv, "to": c.email}
        if r.random() < 0.6:
            args["cc"] = r.sample(
                [
                    "billing@" + c.email.split("@")[1],
                    "ap@" + c.email.split("@")[1],
                    "finance@" + c.email.split("@")[1],
                ],
                r.choice([1, 2]),
            )
        self.add(
            Spec(
                f"email-{inv.lower()}",
                f"Send {inv} to {c.name} again.",
                [[{"tool": "send_invoice_email", "args": args}]],
                file="support.jsonl",
                info={"customer": c},
            )
        )

    def note(self) -> None:
        c, r = self.pool.customer(), self.rng
        args: dict[str, Any] = {
            "customer_id": c.id,
            "body": r.choice(
                [
                    "Prefers e-mail over phone.",
                    "Promised a callback about the March invoice.",
                    "VAT id verified.",
                    "Do not offer discounts.",
                ]
            ),
        }
        if r.random() < 0.3:
            args["pinned"] = True
        self.add(
            Spec(
                f"note-{c.slug}",
                f"Note on {c.name}: {args['body']}",
                [[{"tool": "add_customer_note", "args": args}]],
                match="contains",
                file="support.jsonl",
                info={"customer": c},
            )
        )

    def new_ticket(self) -> None:
        c, r = self.pool.customer(), self.rng
        args: dict[str, Any] = {
            "customer_id": c.id,
            "subject": r.choice(
                ["SEPA mandate failed", "Invoice shows wrong VAT", "Card declined on renewal"]
            ),
            "tags": r.sample(["billing", "sepa", "tax", "invoice"], 2),
        }
        if r.random() < 0.5:
            args["priority"] = r.choice(["high", "normal"])
        self.add(
            Spec(
                f"ticket-{c.slug}",
                f"Open a ticket for {c.name}: {args['subject']}.",
                [[{"tool": "create_ticket", "args": args}]],
                file="support.jsonl",
                info={"customer": c},
            )
        )

    # -- subscriptions

    def _sub_world(self, sub: str, plan: str) -> dict[str, Any]:
        return {"subscriptions": {sub: {"status": "active", "plan": plan}}}

    def pause(self) -> None:
        c, sub, r = self.pool.customer(), self.pool.subscription(), self.rng
        secs = r.choice([604800, 1209600, 2592000, 2592000, 5184000])
        args: dict[str, Any] = {"subscription_id": sub, "duration": secs}
        if r.random() < 0.4:
            args["reason"] = r.choice(["seasonal business", "budget freeze", "parental leave"])
        accept = [
            [
                step("get_subscription", subscription_id=sub),
                {"tool": "pause_subscription", "args": args},
            ]
        ]
        if r.random() < 0.3:
            accept.append(
                [
                    step("list_subscriptions", customer_id=c.id, status=["active"]),
                    {"tool": "pause_subscription", "args": args},
                ]
            )
        self.add(
            Spec(
                f"pause-{sub.lower()}",
                f"Pause {c.name}'s subscription {sub} for {secs // 86400} days.",
                accept,
                effect=[{"at": f"/subscriptions/{sub}/status", "equals": "paused"}],
                world0=self._sub_world(sub, r.choice(PLANS)),
                file="subscriptions.jsonl",
                info={"customer": c},
            )
        )

    def plan_change(self) -> None:
        c, sub, r = self.pool.customer(), self.pool.subscription(), self.rng
        old, new = r.sample(PLANS, 2)
        args: dict[str, Any] = {"subscription_id": sub, "plan": new}
        if r.random() < 0.6:
            args["effective_date"] = self.pool.day("2026-04")
        roll = r.random()
        if roll < 0.3:
            args["prorate"] = False
        elif roll < 0.45:
            args["prorate"] = True
        self.add(
            Spec(
                f"plan-{sub.lower()}",
                f"Move {c.name} ({sub}) from {old} to {new}.",
                [[{"tool": "change_plan", "args": args}]],
                match="prefix",
                effect=[{"at": f"/subscriptions/{sub}/plan", "equals": new}],
                world0=self._sub_world(sub, old),
                file="subscriptions.jsonl",
                info={"customer": c},
            )
        )

    def cancel(self) -> None:
        c, sub, r = self.pool.customer(), self.pool.subscription(), self.rng
        args: dict[str, Any] = {
            "subscription_id": sub,
            "reason": r.choice(["too_expensive", "missing_feature", "switched_provider", "other"]),
        }
        now = r.random() < 0.3
        if now:
            args["at_period_end"] = False
            effect = [{"at": f"/subscriptions/{sub}/status", "equals": "canceled"}]
        else:
            effect = [{"at": f"/subscriptions/{sub}/cancel_at_period_end", "equals": True}]
        self.add(
            Spec(
                f"cancel-{sub.lower()}",
                f"Cancel {c.name}'s {sub} {'right away' if now else 'at renewal'}.",
                [[{"tool": "cancel_subscription", "args": args}]],
                effect=effect,
                world0=self._sub_world(sub, r.choice(PLANS)),
                file="subscriptions.jsonl",
                info={"customer": c},
            )
        )

    def coupon_or_trial(self) -> None:
        c, sub, r = self.pool.customer(), self.pool.subscription(), self.rng
        if r.random() < 0.5:
            code = r.choice(["SPRING20", "LOYAL10", "WINBACK3M", "EDU50"])
            self.add(
                Spec(
                    f"coupon-{sub.lower()}",
                    f"Give {c.name} coupon {code} on {sub}.",
                    [[step("apply_coupon", subscription_id=sub, coupon_code=code)]],
                    effect=[{"at": f"/subscriptions/{sub}/coupons", "contains": code}],
                    world0={"subscriptions": {sub: {"status": "active", "coupons": []}}},
                    file="subscriptions.jsonl",
                    info={"customer": c},
                )
            )
        else:
            secs = r.choice([604800, 1209600, 259200])
            self.add(
                Spec(
                    f"trial-{sub.lower()}",
                    f"Extend {c.name}'s trial on {sub} by {secs // 86400} days.",
                    [[step("extend_trial", subscription_id=sub, extension=secs)]],
                    file="subscriptions.jsonl",
                    info={"customer": c},
                )
            )

    # -- accounts

    def address(self) -> None:
        c, r = self.pool.customer(), self.rng
        args: dict[str, Any] = {"customer_id": c.id}
        i = r.randrange(len(CITIES))
        city, postal, country = CITIES[i]
        kind = r.choice(["address", "address", "preferences", "both"])
        if kind != "preferences":
            args["address"] = {
                "line1": STREETS[i],
                "city": city,
                "postal_code": postal,
                "country": country,
            }
        if kind != "address":
            prefs: dict[str, Any] = {}
            if r.random() < 0.6:
                prefs["newsletter"] = True
            if r.random() < 0.5 or not prefs:
                prefs["language"] = r.choice(["de", "fr", "pt", "ja"])
            if r.random() < 0.3:
                prefs["contact_channel"] = r.choice(["phone", "sms"])
            args["preferences"] = prefs
        ask = (
            f"{c.name} moved to {city}; update the address."
            if kind == "address"
            else f"Update {c.name}'s account settings."
        )
        self.add(
            Spec(
                f"profile-{c.slug}",
                ask,
                [[{"tool": "update_customer", "args": args}]],
                file="accounts.jsonl",
                info={"customer": c},
            )
        )

    def overview(self) -> None:
        c, r = self.pool.customer(), self.rng
        calls = [
            step(
                "get_customer",
                customer_id=c.id,
                include=r.choice([["profile", "subscriptions"], ["profile", "payment_methods"]]),
            ),
            step(
                "list_subscriptions",
                customer_id=c.id,
                status=r.choice([["active", "past_due"], ["active", "trialing"]]),
            ),
            step("search_tickets", customer_id=c.id, status=["open", "pending"]),
        ]
        if r.random() < 0.3:
            calls.pop()
        self.add(
            Spec(
                f"overview-{c.slug}",
                f"Give me an overview of {c.name}'s account.",
                [calls],
                match="unordered",
                weight=2.5,
                file="accounts.jsonl",
                info={"customer": c},
            )
        )

    def dispute_check(self) -> None:
        c, r = self.pool.customer(), self.rng
        disputes: dict[str, Any] = {
            "customer_id": c.id,
            "status": ["needs_response", "under_review"],
        }
        if r.random() < 0.5:
            disputes["opened_after"] = self.pool.day("2026-01")
        self.add(
            Spec(
                f"disputes-{c.slug}",
                f"Has {c.name} disputed anything we already refunded?",
                [
                    [
                        {"tool": "list_disputes", "args": disputes},
                        step("list_refunds", customer_id=c.id, since=self.pool.day("2025-12")),
                    ]
                ],
                match="contains_unordered",
                file="accounts.jsonl",
                info={"customer": c},
            )
        )

    def payments(self) -> None:
        c, r = self.pool.customer(), self.rng
        args: dict[str, Any] = {"customer_id": c.id, "since": self.pool.day("2026-01")}
        if r.random() < 0.5:
            args["until"] = self.pool.day("2026-03")
        if r.random() < 0.6:
            args["methods"] = r.sample(PAYMENT_METHODS, 2)
        self.add(
            Spec(
                f"payments-{c.slug}",
                f"What has {c.name} paid since {args['since']}?",
                [[{"tool": "list_payments", "args": args}]],
                match="prefix",
                file="accounts.jsonl",
                info={"customer": c},
            )
        )

    def dispute_response(self) -> None:
        r = self.rng
        dp = self.pool.token("dp_", 8)
        if r.random() < 0.7:
            evidence: dict[str, Any] = {"receipt_url": f"https://files.example.com/r/{dp}.pdf"}
            if r.random() < 0.7:
                evidence["shipped_on"] = self.pool.day("2026-02")
            if r.random() < 0.4:
                evidence["notes"] = "Customer logged in after the charge."
            args: dict[str, Any] = {"dispute_id": dp, "evidence": evidence}
        else:
            args = {"dispute_id": dp, "accept": True}
        self.add(
            Spec(
                f"dispute-{dp.lower()}",
                f"Answer dispute {dp}.",
                [[{"tool": "respond_to_dispute", "args": args}]],
                file="accounts.jsonl",
            )
        )

    def callback(self) -> None:
        c, r = self.pool.customer(), self.rng
        args: dict[str, Any] = {"customer_id": c.id, "at": self.pool.instant()}
        roll = r.random()
        if roll < 0.3:
            args["window"] = 3600
        elif roll < 0.4:
            args["window"] = 1800  # the default, stated
        if r.random() < 0.5:
            args["phone"] = f"+4930{r.randint(1000000, 9999999)}"
        self.add(
            Spec(
                f"callback-{c.slug}",
                f"Book a callback for {c.name} at {args['at']}.",
                [[{"tool": "schedule_callback", "args": args}]],
                file="accounts.jsonl",
                info={"customer": c},
            )
        )

    def refund_status(self) -> None:
        c = self.pool.customer()
        refund = self.pool.token("re_", 10)
        self.add(
            Spec(
                f"refund-status-{c.slug}",
                f"Did {c.name}'s pending refund go through?",
                [
                    [
                        step("list_refunds", customer_id=c.id, status=["pending"]),
                        step("get_refund_status", refund_id=refund),
                    ]
                ],
                match="contains",
                file="accounts.jsonl",
                info={"customer": c, "refund": refund},
            )
        )

    # -- ledger

    def export(self) -> None:
        c, m, r = self.pool.customer(), self.pool.month(), self.rng
        job = self.pool.token("job_", 8, "0123456789abcdefghijklmnopqrstuvwxyz")
        args: dict[str, Any] = {"customer_id": c.id, "month": m}
        roll = r.random()
        if roll < 0.4:
            args["format"] = "csv"
        elif roll < 0.55:
            args["format"] = "pdf"  # the default, stated
        self.add(
            Spec(
                f"statement-{c.slug}-{m}",
                f"Export {c.name}'s {month_words(m)} statement"
                f"{' as CSV' if args.get('format') == 'csv' else ''}.",
                [[{"tool": "start_export_job", "args": args}, step("get_job_status", job_id=job)]],
                weight=1.2,
                file="ledger.json",
                info={"customer": c, "job": job},
            )
        )

    def credit(self) -> None:
        c, r = self.pool.customer(), self.rng
        cents = r.choice([500, 1500, 2000, 2500, 10000])
        memo = r.choice(["Outage on 3 March", "Goodwill", "Late delivery", "Price match"])
        # A look-alike account differing only in case: what casefold wrongly calls equal.
        key = c.account.removeprefix("acct_")
        flip = next(i for i, ch in enumerate(key) if ch.isalpha())
        twin = "acct_" + key[:flip] + key[flip].swapcase() + key[flip + 1 :]
        self.add(
            Spec(
                f"credit-{c.slug}",
                f"Credit {major_units(cents)} EUR to {c.name}'s ledger account "
                f"{c.account} ({memo}).",
                [[step("apply_credit", account_ref=c.account, amount=cents, memo=memo)]],
                effect=[{"at": "/credits", "contains": {"account": c.account, "cents": cents}}],
                world0={"credits": []},
                file="ledger.json",
                info={"customer": c, "twin": twin},
            )
        )

    def money_math(self) -> None:
        r = self.rng
        if r.random() < 0.5:
            amount = r.choice([129.95, 42.5, 1999.99, 310.4])
            cur = r.sample(["EUR", "USD", "GBP", "JPY", "CHF"], 2)
            self.add(
                Spec(
                    f"fx-{cur[0].lower()}-{cur[1].lower()}",
                    f"What is {amount} {cur[0]} in {cur[1]}?",
                    [
                        [
                            step(
                                "convert_currency",
                                amount=amount,
                                from_currency=cur[0],
                                to_currency=cur[1],
                            )
                        ]
                    ],
                    file="ledger.json",
                    weight=0.7,
                )
            )
        else:
            country, rate = r.choice(
                [("DE", 0.19), ("FR", 0.2), ("GB", 0.2), ("JP", 0.1), ("US", 0.0825)]
            )
            cents = self.pool.cents()
            self.add(
                Spec(
                    f"tax-{country.lower()}",
                    f"How much {country} tax is due on {major_units(cents)}?",
                    [[step("calculate_tax", amount=cents, country=country, tax_rate=rate)]],
                    file="ledger.json",
                    weight=0.7,
                )
            )

    # -- legacy single-call cases from the first eval harness

    def legacy(self) -> None:
        c, r = self.pool.customer(), self.rng
        kind = r.choices(
            [
                "get_customer",
                "get_invoice",
                "kb_search",
                "get_balance",
                "list_subscriptions",
                "get_ticket",
                "get_customer_notes",
                "search_customers",
                "get_payment",
            ],
            weights=[6, 2, 2, 2, 2, 2, 1, 2, 1],
        )[0]
        weight = 2.0 if kind == "get_customer" else 0.8
        if kind == "get_customer":
            args: dict[str, Any] = {"customer_id": c.id}
            ask = f"Who is {c.id}?"
        elif kind == "get_invoice":
            args, ask = {"invoice_id": self.pool.invoice()}, "Show me that invoice."
        elif kind == "kb_search":
            topic = r.choice(KB_TOPICS)
            args, ask = {"query": topic}, f"What's our {topic}?"
        elif kind == "get_balance":
            args = {"customer_id": c.id, "as_of": self.pool.instant()}
            ask = f"What did {c.name} owe at {args['as_of']}?"
        elif kind == "list_subscriptions":
            args = {
                "customer_id": c.id,
                "status": r.choice([["active"], ["active", "past_due"], ["trialing", "active"]]),
            }
            ask = f"Which subscriptions does {c.name} have?"
        elif kind == "get_ticket":
            args, ask = {"ticket_id": self.pool.ticket()}, "Open that ticket."
        elif kind == "get_customer_notes":
            args, ask = {"customer_id": c.id}, f"Any notes on {c.name}?"
        elif kind == "search_customers":
            args, ask = {"query": c.email}, f"Find the customer {c.email}."
        else:
            args, ask = {"payment_id": self.pool.token("py_", 10)}, "Look up that payment."
        self.add(
            Spec(
                f"legacy-{kind.replace('_', '-')}-{c.slug}",
                ask,
                [[{"tool": kind, "args": args}]],
                match="prefix",
                legacy=True,
                weight=weight,
                file="legacy-smoke.json",
                info={"customer": c},
            )
        )


# ------------------------------------------------------------------------------------ the runs


@dataclass
class Call:
    tool: str
    args: dict[str, Any]
    error: str | None = None
    """The tool rejected the call with this message."""
    raw: str | None = None
    """Arguments as the model emitted them when they are not valid JSON."""
    result: Any = MISSING


def calls_of(seq: list[dict[str, Any]]) -> list[Call]:
    return [Call(s["tool"], copy.deepcopy(s["args"])) for s in seq]


def same(a: Call, b: Call) -> bool:
    """Whether evalrun reads two calls as one: equal, free-text (any) parameters aside."""
    return a.tool == b.tool and _judged(a) == _judged(b)


def _judged(call: Call) -> Any:
    if not isinstance(call.args, dict) or call.tool not in TOOLS:
        return call.args
    props = resolve(TOOLS[call.tool].params, TOOLS[call.tool].params).get("properties", {})
    return {
        k: v
        for k, v in call.args.items()
        if (props.get(k) or {}).get("x-eval-norm") not in UNJUDGED_RULES
    }


def simulate(world0: dict[str, Any], calls: list[Call], skip: Call | None = None) -> Any:
    """The world after the calls, as the billing backend would book them.

    Errored calls and malformed ones change nothing; `skip` is a call the backend acknowledged
    but never persisted (the fault behind an effect_failed run).
    """
    world = copy.deepcopy(world0)
    for call in calls:
        if call.error or call.raw is not None or call is skip:
            continue
        a, tool = call.args, call.tool
        sub: dict[str, Any] = {}
        if tool in SUBSCRIPTION_WRITES:
            subs = world.setdefault("subscriptions", {})
            sub = subs.setdefault(a["subscription_id"], {"status": "active"})
        if tool == "issue_refund":
            world.setdefault("refunds", []).append(
                {"invoice": a.get("invoice_id"), "cents": to_cents(a.get("amount"))}
            )
        elif tool == "apply_credit":
            # The ledger matches refs exactly: a case-only difference books another account.
            world.setdefault("credits", []).append(
                {"account": a["account_ref"].strip(), "cents": to_cents(a.get("amount"))}
            )
        elif tool == "pause_subscription":
            sub["status"] = "paused"
        elif tool == "cancel_subscription":
            if a.get("at_period_end", True):
                sub["cancel_at_period_end"] = True
            else:
                sub["status"] = "canceled"
        elif tool == "change_plan":
            sub["plan"] = a["plan"].strip().lower()
        elif tool == "apply_coupon":
            sub.setdefault("coupons", []).append(a["coupon_code"].strip().upper())
        elif tool == "update_ticket":
            ticket = world.setdefault("tickets", {}).setdefault(a["ticket_id"], {})
            ticket.update({k: a[k] for k in ("status", "priority", "assignee") if k in a})
        elif tool == "merge_tickets":
            for dup in a.get("duplicate_ids", []):
                world.setdefault("tickets", {}).pop(dup, None)
        elif tool == "escalate_ticket":
            world.setdefault("escalations", []).append(
                {"ticket": a["ticket_id"], "team": a.get("team")}
            )
        elif tool == "void_invoice":
            world.setdefault("invoices", {}).setdefault(a["invoice_id"], {})["status"] = "void"
    return world


SUBSCRIPTION_WRITES = ("pause_subscription", "cancel_subscription", "change_plan", "apply_coupon")

ERRORS = {
    "bad_id": "not found: no such record",
    "format": "invalid_argument: unrecognised format",
    "missing": "invalid_argument: missing required parameter",
    "transient": "upstream timeout after 30s; safe to retry",
    "rate": "rate_limited: retry after 2s",
}


def corrupt(call: Call, rng: random.Random, customer: Customer | None) -> tuple[Call, str]:
    """An attempt the tool rejects: the agent's first, wrong try at `call`."""
    a = copy.deepcopy(call.args)
    if "customer_id" in a and customer is not None and rng.random() < 0.5:
        a["customer_id"] = rng.choice([customer.name, customer.email])
        return Call(call.tool, a), "customer_id must look like C-1234"
    if "month" in a and rng.random() < 0.6:
        a["month"] = month_words(a["month"])
        return Call(call.tool, a), "month must be YYYY-MM"
    if "amount" in a and isinstance(a["amount"], int) and rng.random() < 0.6:
        a["amount"] = "€" + major_units(a["amount"])
        return Call(call.tool, a), "amount must be a number or a plain decimal"
    ids = [k for k, v in a.items() if k.endswith("_id") and isinstance(v, str)]
    if ids and rng.random() < 0.6:
        key = rng.choice(ids)
        typo = a[key].lower().replace("-", "")
        a[key] = typo if typo != a[key] else a[key][:-1]  # the id, mistyped
        return Call(call.tool, a), f"not found: no {key.removesuffix('_id')} {a[key]!r}"
    required = TOOLS[call.tool].params.get("required", [])
    key = rng.choice(required) if required else next(iter(a))
    a.pop(key, None)
    return Call(call.tool, a), f"invalid_argument: missing required parameter {key!r}"


# Plausible wrong tools: what an agent reaches for instead (tool -> replacement call).
def confusion(call: Call, spec: Spec) -> Call | None:
    a, c = call.args, spec.info.get("customer")
    table: dict[str, Callable[[], Call]] = {
        "search_invoices": lambda: Call("list_payments", {"customer_id": a["customer_id"]}),
        "get_customer": lambda: Call("search_customers", {"query": c.name if c else "?"}),
        "issue_refund": lambda: Call(
            "apply_credit",
            {
                "account_ref": c.account if c else "acct_0000",
                "amount": a["amount"],
                "memo": f"refund {a['invoice_id']}",
            },
        ),
        "update_ticket": lambda: Call(
            "reply_to_ticket",
            {"ticket_id": a["ticket_id"], "body": "We've raised the priority of your request."},
        ),
        "pause_subscription": lambda: Call(
            "cancel_subscription", {"subscription_id": a["subscription_id"], "reason": "other"}
        ),
        "get_subscription": lambda: Call(
            "list_subscriptions", {"customer_id": c.id if c else "C-0000"}
        ),
        "escalate_ticket": lambda: Call(
            "update_ticket", {"ticket_id": a["ticket_id"], "priority": "urgent"}
        ),
        "merge_tickets": lambda: Call(
            "update_ticket", {"ticket_id": a["duplicate_ids"][0], "status": "closed"}
        ),
        "start_export_job": lambda: Call(
            "search_invoices", {"customer_id": a["customer_id"], "month": a["month"]}
        ),
        "change_plan": lambda: Call(
            "apply_coupon",
            {"subscription_id": a["subscription_id"], "coupon_code": a["plan"].upper()},
        ),
        "convert_currency": lambda: Call(
            "calculate_tax", {"amount": a["amount"], "country": a["to_currency"][:2]}
        ),
        "get_usage": lambda: Call("get_balance", {"customer_id": a["customer_id"]}),
        "list_payments": lambda: Call(
            "search_invoices", {"customer_id": a["customer_id"], "status": ["paid"]}
        ),
        "get_invoice": lambda: Call("search_invoices", {"customer_id": c.id if c else "C-0000"}),
        "void_invoice": lambda: Call(
            "issue_refund", {"invoice_id": a["invoice_id"], "amount": 0, "reason": "billing_error"}
        ),
        "list_disputes": lambda: Call("list_refunds", {"customer_id": a["customer_id"]}),
        "apply_coupon": lambda: Call(
            "apply_credit",
            {
                "account_ref": c.account if c else "acct_0000",
                "amount": 2000,
                "memo": a["coupon_code"],
            },
        ),
    }
    if call.tool not in table:
        return None
    wrong = table[call.tool]()
    accepted = {s["tool"] for seq in spec.accept for s in seq}
    return None if wrong.tool in accepted else wrong


# Parameters whose value carries the request's facts (not paging, not free text).
NOT_FACTS = {
    "limit",
    "sort",
    "locale",
    "memo",
    "body",
    "reason",
    "phone",
    "subject",
    "notes",
    "receipt_url",
    "format",
    "metric",
    "prorate",
    "notify_customer",
    "pinned",
    "visibility",
    "internal",
}


def fact_sites(steps: list[Call]) -> list[Site]:
    out = []
    for i, call in enumerate(steps):
        for s in sites(call.tool, call.args, i):
            if (
                s.value is not MISSING
                and len(s.path) == 1
                and s.path[0] not in NOT_FACTS
                and (call.tool, s.path) not in NO_HARMLESS_RECODING
            ):
                out.append(s)
    return out


N_RUNS = 4000
# How many runs each scenario gets; the rest are clean passes. For 4,000 runs this gives a
# reported run failure rate near 22% and a true one near 12%, and loops in ~9% of the runs
# exact-match passes. Scenario names say what the engine should find.
QUOTAS = {
    "ff_encoding": 255,
    "ff_ordering": 200,
    "ff_default": 128,
    "ff_alternate": 86,
    "ff_errored": 55,
    "ff_unjudged": 40,
    "fp_loop": 275,
    "fp_rejected": 18,
    "fp_effect": 22,
    "fail_wrong_value": 52,
    "fail_wrong_tool": 20,
    "fail_missing": 25,
    "fail_malformed": 12,
    "fail_month_trap": 14,
    "fail_suspect": 6,
    "fail_extra": 15,
    "fail_mixed": 15,
}
TRACE_FILES = [
    ("2026-03-02.jsonl", "3f2c1aa", 1050),
    ("2026-03-09.jsonl", "8d41e07", 1000),
    ("2026-03-16.jsonl", "b7290c3", 1000),
    ("2026-03-23.jsonl.gz", "e15a9f4", 950),
]
MODELS = ["gpt-4.1-2025-04-14", "claude-sonnet-4-20250514", "gpt-4.1-mini-2025-04-14"]


def expected_verdict(scenario: str) -> tuple[str, str | None]:
    """The verdict and primary shape a scenario is built to produce."""
    kind, _, shape = scenario.partition("_")
    if kind == "ff":
        return "false_failure", {"errored": "errored_attempt", "alternate": "alternate_path"}.get(
            shape, shape
        )
    if kind == "fp":
        return "false_pass", {
            "loop": "redundant_call",
            "rejected": "rejected_call",
            "effect": "effect_failed",
            "forbidden": "forbidden_call",
        }[shape]
    return ("fail", None) if kind == "fail" else ("pass", None)


class Runs:
    """Recorded runs: a scenario, a case it fits, the calls an agent made, the world after."""

    def __init__(self, specs: list[Spec], rng: random.Random) -> None:
        self.specs, self.rng = specs, rng
        self.candidates: dict[str, list[Spec]] = {}
        self.eligible: dict[str, Callable[[Spec], bool]] = {
            "clean": lambda s: True,
            "ff_encoding": lambda s: any(self._encodable(s)),
            "ff_ordering": lambda s: any(
                ordering_sites(c.tool, c.args, i) for i, c in enumerate(calls_of(s.canonical))
            ),
            "ff_default": lambda s: any(
                default_sites(c.tool, c.args, i) for i, c in enumerate(calls_of(s.canonical))
            ),
            "ff_alternate": lambda s: len(s.accept) > 1,
            "ff_unjudged": lambda s: any(
                unjudged_sites(c.tool, c.args, i) for i, c in enumerate(calls_of(s.canonical))
            ),
            # Under contains modes a failed attempt is just another call around the sequence.
            "ff_errored": lambda s: s.match in ("exact", "prefix", "unordered"),
            "fp_loop": lambda s: True,
            "fp_rejected": lambda s: True,
            "fp_effect": lambda s: bool(s.effect),
            "fail_wrong_value": lambda s: any(self._wrongable(s)),
            "fail_wrong_tool": lambda s: any(confusion(c, s) for c in calls_of(s.canonical)),
            "fail_missing": lambda s: True,
            "fail_malformed": lambda s: True,
            "fail_month_trap": lambda s: any(self._month_sites(s)),
            "fail_suspect": lambda s: "twin" in s.info,
            "fail_extra": lambda s: s.match == "exact",
            "fail_mixed": lambda s: any(self._encodable(s)) and any(self._wrongable(s)),
        }

    # -- which parameters a scenario can touch

    def _encodable(self, spec: Spec) -> list[Site]:
        return [
            s
            for i, c in enumerate(calls_of(spec.canonical))
            for s in encoding_sites(c.tool, c.args, i)
        ]

    def _wrongable(self, spec: Spec) -> list[Site]:
        return [
            s
            for s in fact_sites(calls_of(spec.canonical))
            if wrong_value(s, random.Random(0)) is not MISSING
        ]

    def _month_sites(self, spec: Spec) -> list[Site]:
        return [
            s
            for i, c in enumerate(calls_of(spec.canonical))
            for s in sites(c.tool, c.args, i)
            if s.rule == "month" and s.tz == "UTC" and s.value is not MISSING
        ]

    # -- scenarios

    def make(self, scenario: str) -> tuple[Spec, list[Call], Any]:
        """(case, calls, world or MISSING); retried on another case when one does not fit."""
        if scenario not in self.candidates:
            self.candidates[scenario] = [s for s in self.specs if self.eligible[scenario](s)]
        candidates = self.candidates[scenario]
        weights = [s.weight for s in candidates]
        for _ in range(100):
            spec = self.rng.choices(candidates, weights)[0]
            made = getattr(self, scenario)(spec)
            if made is not None:
                calls, fault = made
                return spec, calls, self.world(spec, scenario, calls, fault)
        raise RuntimeError(f"no case fits scenario {scenario}")

    def world(self, spec: Spec, scenario: str, calls: list[Call], fault: Any) -> Any:
        if spec.world0 is None:
            return MISSING
        if fault is not None:
            return fault
        roll = self.rng.random()
        if scenario != "fail_suspect" and roll < 0.1:
            return None if roll < 0.03 else MISSING  # no world recorded: effects unverified
        return simulate(spec.world0, calls)

    def clean(self, spec: Spec) -> tuple[list[Call], None]:
        calls = calls_of(spec.canonical)
        if self.rng.random() < 0.04:  # a transient error, retried with the same arguments
            i = self.rng.randrange(len(calls))
            calls.insert(
                i,
                Call(
                    calls[i].tool,
                    copy.deepcopy(calls[i].args),
                    error=ERRORS[self.rng.choice(["transient", "rate"])],
                ),
            )
        return self.finish(spec, calls), None

    def ff_encoding(self, spec: Spec) -> tuple[list[Call], None] | None:
        calls = calls_of(spec.canonical)
        if not self.recode_one(calls):
            return None
        if self.rng.random() < 0.15:
            self.reorder_one(calls)  # a second difference; the primary shape stays encoding
        return self.finish(spec, calls), None

    def ff_ordering(self, spec: Spec) -> tuple[list[Call], None] | None:
        calls = calls_of(spec.canonical)
        if not self.reorder_one(calls):
            return None
        if self.rng.random() < 0.1:
            self.toggle_default(calls)
        return self.finish(spec, calls), None

    def ff_default(self, spec: Spec) -> tuple[list[Call], None] | None:
        calls = calls_of(spec.canonical)
        return (self.finish(spec, calls), None) if self.toggle_default(calls) else None

    def ff_alternate(self, spec: Spec) -> tuple[list[Call], None]:
        calls = calls_of(self.rng.choice(spec.accept[1:]))
        if self.rng.random() < 0.25:
            self.recode_one(calls)
        return self.finish(spec, calls), None

    def ff_unjudged(self, spec: Spec) -> tuple[list[Call], None] | None:
        calls = calls_of(spec.canonical)
        options = [s for i, c in enumerate(calls) for s in unjudged_sites(c.tool, c.args, i)]
        if not options:
            return None
        site = self.rng.choice(options)
        set_at(calls[site.step].args, site.path, reword(site.value, self.rng))
        return self.finish(spec, calls), None

    def ff_errored(self, spec: Spec) -> tuple[list[Call], None]:
        calls = calls_of(spec.canonical)
        i = self.rng.randrange(len(calls))
        bad, message = corrupt(calls[i], self.rng, spec.info.get("customer"))
        bad.error = message
        calls.insert(i, bad)
        return self.finish(spec, calls), None

    def fp_loop(self, spec: Spec) -> tuple[list[Call], None]:
        calls = self.finish(spec, calls_of(spec.canonical))
        loopable = [c for c in calls if not TOOLS[c.tool].repeatable and not c.error]
        weights = [1 if TOOLS[c.tool].mutates else 3 for c in loopable]
        call = self.rng.choices(loopable, weights)[0]
        at = calls.index(call) + 1
        for _ in range(self.rng.choice([1, 1, 1, 2])):
            calls.insert(at, Call(call.tool, copy.deepcopy(call.args)))
        return calls, None

    def fp_rejected(self, spec: Spec) -> tuple[list[Call], None]:
        calls = calls_of(spec.canonical)
        i = len(calls) - 1 if self.rng.random() < 0.8 else self.rng.randrange(len(calls))
        calls[i].error = ERRORS[self.rng.choice(["transient", "rate", "bad_id"])]
        return self.finish(spec, calls), None

    def fp_effect(self, spec: Spec) -> tuple[list[Call], Any]:
        calls = self.finish(spec, calls_of(spec.canonical))
        writes = [c for c in calls if TOOLS[c.tool].mutates and c.tool in WORLD_TOOLS]
        if any(c.tool == "issue_refund" for c in writes) and self.rng.random() < 0.4:
            world = simulate(spec.world0 or {}, calls)  # a webhook retry booked it twice
            world["refunds"].append(dict(world["refunds"][-1]))
            return calls, world
        # The tool acknowledged the write; the backend never persisted it.
        return calls, simulate(spec.world0 or {}, calls, skip=writes[-1])

    def fail_wrong_value(self, spec: Spec) -> tuple[list[Call], None] | None:
        calls = calls_of(spec.canonical)
        return (self.finish(spec, calls), None) if self.break_one(calls) is not None else None

    def fail_wrong_tool(self, spec: Spec) -> tuple[list[Call], None] | None:
        calls = calls_of(spec.canonical)
        options = [i for i, c in enumerate(calls) if confusion(c, spec)]
        if not options:
            return None
        i = self.rng.choice(options)
        calls[i] = confusion(calls[i], spec)
        return self.finish(spec, calls), None

    def fail_missing(self, spec: Spec) -> tuple[list[Call], None]:
        calls = calls_of(spec.canonical)
        if len(calls) > 1:
            calls.pop(-1 if self.rng.random() < 0.7 else 0)
            return self.finish(spec, calls), None
        if self.rng.random() < 0.4:
            return [], None  # answered from memory, no tool called
        return [Call("kb_search", {"query": self.rng.choice(KB_TOPICS)})], None

    def fail_malformed(self, spec: Spec) -> tuple[list[Call], None]:
        calls = calls_of(spec.canonical)
        call = self.rng.choice(calls)
        text = orjson.dumps(call.args).decode()
        if self.rng.random() < 0.5:  # cut off mid-object (max_tokens hit)
            call.raw = text[: self.rng.randint(len(text) // 3, len(text) - 2)]
        else:  # a Python dict literal instead of JSON
            call.raw = repr(call.args)
        return self.finish(spec, calls), None

    def fail_month_trap(self, spec: Spec) -> tuple[list[Call], None]:
        calls = calls_of(spec.canonical)
        site = self.rng.choice(self._month_sites(spec))
        # Local midnight on the 1st, written with its offset: the previous month in UTC.
        hour, offset = self.rng.choice([(0, "+01:00"), (0, "+02:00"), (1, "+02:00")])
        trap = f"{site.value}-01T{hour:02d}:{self.rng.randint(0, 59):02d}:00{offset}"
        set_at(calls[site.step].args, site.path, trap)
        return self.finish(spec, calls), None

    def fail_suspect(self, spec: Spec) -> tuple[list[Call], None]:
        calls = calls_of(spec.canonical)
        calls[0].args["account_ref"] = spec.info["twin"]
        return calls, None

    def fail_extra(self, spec: Spec) -> tuple[list[Call], None]:
        calls = self.finish(spec, calls_of(spec.canonical))
        extra = self.extra_call(spec, calls)
        calls.insert(self.rng.randint(0, len(calls)), extra)
        return calls, None

    def fail_mixed(self, spec: Spec) -> tuple[list[Call], None] | None:
        calls = calls_of(spec.canonical)
        broken = self.break_one(calls)
        if broken is None or not self.recode_one(calls, skip=broken):
            return None
        return self.finish(spec, calls), None

    # -- edits

    def recode_one(self, calls: list[Call], skip: Site | None = None) -> bool:
        options = [
            s
            for i, c in enumerate(calls)
            for s in encoding_sites(c.tool, c.args, i)
            if skip is None or (s.step, s.path[: len(skip.path)]) != (skip.step, skip.path)
        ]
        self.rng.shuffle(options)
        for site in options:
            new = recode(site, self.rng)
            if new is not MISSING and new != site.value:
                set_at(calls[site.step].args, site.path, new)
                return True
        return False

    def reorder_one(self, calls: list[Call]) -> bool:
        options = [s for i, c in enumerate(calls) for s in ordering_sites(c.tool, c.args, i)]
        if not options:
            return False
        site = self.rng.choice(options)
        set_at(calls[site.step].args, site.path, reorder(site, self.rng))
        return True

    def toggle_default(self, calls: list[Call]) -> bool:
        options = [s for i, c in enumerate(calls) for s in default_sites(c.tool, c.args, i)]
        if not options:
            return False
        site = self.rng.choice(options)
        set_at(
            calls[site.step].args,
            site.path,
            copy.deepcopy(site.schema["default"]) if site.value is MISSING else MISSING,
        )
        return True

    def break_one(self, calls: list[Call]) -> Site | None:
        options = [s for s in fact_sites(calls) if s.value is not MISSING]
        self.rng.shuffle(options)
        for site in options:
            new = wrong_value(site, self.rng)
            if new is not MISSING:
                set_at(calls[site.step].args, site.path, new)
                return site
        return None

    # -- what else agents do in a run

    def extra_call(self, spec: Spec, calls: list[Call]) -> Call:
        """A call outside the task (a lookup, a note) that repeats nothing in the run."""
        c = spec.info.get("customer")
        while True:
            roll = self.rng.random()
            if roll < 0.5 or c is None:
                extra = Call("kb_search", {"query": self.rng.choice(KB_TOPICS)})
            elif roll < 0.8:
                extra = Call("get_customer_notes", {"customer_id": c.id})
            else:
                extra = Call(
                    "add_customer_note",
                    {
                        "customer_id": c.id,
                        "body": self.rng.choice(
                            [
                                "Handled via chat.",
                                "Customer confirmed.",
                                "Follow up next week.",
                                "Sent summary e-mail.",
                            ]
                        ),
                    },
                )
            # Never a tool the case expects (it would muddle the alignment), never a repeat.
            expected = {s["tool"] for seq in spec.accept for s in seq}
            if extra.tool not in expected and not any(same(extra, other) for other in calls):
                return extra

    def finish(self, spec: Spec, calls: list[Call]) -> list[Call]:
        """Add what the match mode allows and the agent does anyway: polls, lookups, notes."""
        r = self.rng
        out: list[Call] = []
        for call in calls:
            out.append(call)
            if TOOLS[call.tool].repeatable and not call.error:
                for _ in range(r.choice([0, 1, 1, 2, 3])):  # polling until done
                    out.insert(len(out) - 1, Call(call.tool, copy.deepcopy(call.args)))
        if spec.match in ("contains", "contains_unordered") and r.random() < 0.45:
            for _ in range(r.choice([1, 1, 2])):
                out.insert(r.randint(0, len(out)), self.extra_call(spec, out))
        elif spec.match == "prefix" and r.random() < 0.5:
            for _ in range(r.choice([1, 1, 2])):
                out.append(self.extra_call(spec, out))
        if spec.match in ("unordered", "contains_unordered") and r.random() < 0.6:
            # Parallel calls, recorded in the order they finished; a failed attempt still
            # comes just before the call that retried it.
            groups: list[list[Call]] = []
            for call in out:
                if groups and groups[-1][-1].error:
                    groups[-1].append(call)
                else:
                    groups.append([call])
            r.shuffle(groups)
            out = [call for group in groups for call in group]
        self.add_results(spec, out)
        return out

    def add_results(self, spec: Spec, calls: list[Call]) -> None:
        polls: dict[str, int] = {}
        for call in calls:
            if call.error or call.result is not MISSING:
                continue
            if call.tool == "start_export_job":
                call.result = {"job_id": spec.info["job"]}
            elif call.tool in ("get_job_status", "get_refund_status"):
                key = orjson.dumps(call.args).decode()
                polls[key] = polls.get(key, 0) + 1
            elif call.tool == "issue_refund" and self.rng.random() < 0.5:
                call.result = {"status": "pending"}
        seen: dict[str, int] = {}
        for call in calls:
            if call.tool in ("get_job_status", "get_refund_status") and not call.error:
                key = orjson.dumps(call.args).decode()
                seen[key] = seen.get(key, 0) + 1
                done = seen[key] == polls[key]
                state = (
                    ("done" if done else "running")
                    if call.tool == "get_job_status"
                    else ("succeeded" if done else "pending")
                )
                call.result = {"status": state}


WORLD_TOOLS = (
    "issue_refund",
    "apply_credit",
    "pause_subscription",
    "cancel_subscription",
    "change_plan",
    "apply_coupon",
    "update_ticket",
    "merge_tickets",
    "escalate_ticket",
    "void_invoice",
)


# --------------------------------------------------------------------------------- serializing


def emit_call(call: Call, rng: random.Random) -> dict[str, Any]:
    """One call as some framework records it: `tool`/`args` or `name`/`arguments`, arguments
    as an object or as the JSON string OpenAI sends, errors in the shapes tools report them."""
    roll = rng.random()
    tool_key, args_key = ("name", "arguments") if roll >= 0.8 else ("tool", "args")
    as_text = 0.6 <= roll < 0.93
    if call.raw is not None:
        args: Any = call.raw
    else:
        args = orjson.dumps(call.args).decode() if as_text else call.args
    out: dict[str, Any] = {tool_key: call.tool, args_key: args}
    if call.error:
        style = rng.randrange(5)
        if style == 0:
            out["result"] = {
                "error": {"code": call.error.split(":")[0].split()[0], "message": call.error}
            }
        elif style == 1:  # MCP CallToolResult
            out["result"] = {"isError": True, "content": [{"type": "text", "text": call.error}]}
        elif style == 2:
            out["status"] = "error"
            out["result"] = {"message": call.error}
        elif style == 3:
            out["error"] = call.error
        else:
            out["is_error"] = True
            out["result"] = call.error
    elif call.result is not MISSING:
        out["result"] = call.result
    return out


def dumps(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n"


def build(rng: random.Random) -> tuple[dict[str, bytes], dict[str, str]]:
    """Every file of the corpus (relative path -> bytes), and each run's scenario by run id.

    The scenarios stay out of the traces (a recorded run does not know what went wrong with it);
    tests hold the engine's verdicts against them.
    """
    files: dict[str, bytes] = {}
    labels: dict[str, str] = {}
    for name, (layout, entries) in TOOL_FILES.items():
        rendered = [render_tool(TOOLS[tool], fmt) for tool, fmt in entries]
        doc: Any = {"tools": rendered} if layout == "tools_list" else rendered
        files[f"tools/{name}"] = dumps(rendered[0] if layout == "single" else doc)

    specs = Cases(Pool(rng)).build()
    by_file: dict[str, list[dict[str, Any]]] = {}
    for spec in specs:
        by_file.setdefault(spec.file, []).append(spec.to_json(rng))
    for name, cases in by_file.items():
        if name.endswith(".jsonl"):
            files[f"cases/{name}"] = b"".join(orjson.dumps(c) + b"\n" for c in cases)
        else:
            files[f"cases/{name}"] = dumps(cases[0] if len(cases) == 1 else cases)

    scenarios = [name for name, n in QUOTAS.items() for _ in range(n)]
    scenarios += ["clean"] * (N_RUNS - len(scenarios))
    rng.shuffle(scenarios)
    runs = Runs(specs, rng)
    number = 0
    for name, commit, size in TRACE_FILES:
        lines: list[bytes] = []
        for _ in range(size):
            scenario = scenarios[number]
            number += 1
            spec, calls, world = runs.make(scenario)
            labels[f"r-{number:06d}"] = scenario
            record: dict[str, Any] = {
                "run_id": f"r-{number:06d}",
                "case_id": spec.id,
                "calls": [emit_call(c, rng) for c in calls],
            }
            if world is not MISSING:
                record["world"] = world
            record["meta"] = {"commit": commit, "model": rng.choice(MODELS)}
            lines.append(orjson.dumps(record))
        if name == "2026-03-09.jsonl":
            lines[411:411] = [BROKEN_NOT_JSON]
            lines[837:837] = [BROKEN_UNKNOWN_CASE]
        data = b"".join(line + b"\n" for line in lines)
        files[f"traces/{name}"] = gzip.compress(data, mtime=0) if name.endswith(".gz") else data
    # Drawn from a random stream of their own, after everything else: the runs above stay as
    # they were when these cases were added.
    cases, runs = guarded(random.Random(SEED + 26), number)
    files[f"cases/{GUARDED_CASES}"] = dumps(cases)
    lines = []
    for scenario, record in runs:
        labels[record["run_id"]] = scenario
        lines.append(orjson.dumps(record))
    files[f"traces/{GUARDED_TRACES[0]}"] = b"".join(line + b"\n" for line in lines)
    return files, labels


# ------------------------------------------------------------------- cases that judge per task
#
# Cases that say what their task judges (SPEC "Cases": a step's `judge`, `forbid`, `repeatable`,
# `"grade": "writes"`), and a week of runs of them.

GUARDED_CASES = "guarded.json"
GUARDED_TRACES = ("2026-03-30.jsonl", "c41d2e8")


def guarded(rng: random.Random, last: int) -> tuple[list[dict[str, Any]], list[tuple[str, Any]]]:
    """The cases, and (scenario, record) for each run, numbered after run `last`."""
    cases: list[dict[str, Any]] = []
    runs: list[tuple[str, Any]] = []

    def add(scenario: str, case_id: str, calls: list[dict[str, Any]]) -> None:
        number = last + len(runs) + 1
        record = {
            "run_id": f"r-{number:06d}",
            "case_id": case_id,
            "calls": calls,
            "meta": {"commit": GUARDED_TRACES[1], "model": rng.choice(MODELS)},
        }
        runs.append((scenario, record))

    for i in range(3):
        acct, cents = f"acct_{rng.randrange(1000, 9999)}", rng.randrange(5, 80) * 100
        cid = f"credit-goodwill-{i + 1}"
        credit = step("apply_credit", account_ref=acct, amount=cents, memo="<apology>")
        cases.append(
            {
                "id": cid,
                "input": "apologise for the outage with a goodwill credit",
                "match": "contains",
                "accept": [
                    [{**credit, "judge": {"memo": {"matches": "(?i)goodwill|apolog|sorry"}}}]
                ],
                "forbid": [
                    {"tool": "issue_refund"},
                    {"tool": "apply_credit", "args": {"account_ref": "acct_0000"}},
                ],
            }
        )
        worded = {
            **credit,
            "args": {**credit["args"], "memo": "Goodwill credit: sorry for the outage"},
        }
        add("clean", cid, [credit])
        add("ff_unjudged", cid, [worded])
        add(
            "fail_wrong_value",
            cid,
            [{**credit, "args": {**credit["args"], "memo": "monthly credit"}}],
        )
        injected = step("apply_credit", account_ref="ACCT_0000", amount=cents, memo="goodwill")
        add("fp_forbidden", cid, [credit, injected])

        inv = f"INV-{rng.randrange(1000, 99999)}"
        cid = f"refund-once-{i + 1}"
        refund = step("issue_refund", invoice_id=inv, amount=cents, reason="duplicate")
        cases.append(
            {
                "id": cid,
                "input": f"refund the duplicate charge on {inv}, once",
                "match": "contains",
                "accept": [[refund]],
                "forbid": [{"tool": "issue_refund"}],
            }
        )
        other = step(
            "issue_refund",
            invoice_id=f"INV-{rng.randrange(1000, 99999)}",
            amount=cents,
            reason="duplicate",
        )
        add("clean", cid, [refund])
        add("fp_forbidden", cid, [refund, other])
        add("fp_forbidden", cid, [refund, refund])

        cust = f"C-{rng.randrange(1000, 9999)}"
        cid = f"refund-after-check-{i + 1}"
        look = step("list_refunds", customer_id=cust, status=["pending", "succeeded"])
        refund = step("issue_refund", invoice_id=inv, amount=cents, reason="billing_error")
        cases.append(
            {
                "id": cid,
                "input": f"check {cust}'s refunds, then refund {inv}",
                "match": "exact",
                "grade": "writes",
                "accept": [[look, refund]],
            }
        )
        add("clean", cid, [look, refund])
        add(
            "ff_unjudged", cid, [step("list_refunds", customer_id=cust, since="2026-01-01"), refund]
        )
        add("fp_loop", cid, [look, look, refund])

        ticket = f"T-{rng.randrange(10000, 99999)}"
        cid = f"ticket-watch-{i + 1}"
        update = step("update_ticket", ticket_id=ticket, status="pending")
        watch = step("get_ticket", ticket_id=ticket)
        cases.append(
            {
                "id": cid,
                "input": f"put {ticket} on pending and watch it",
                "match": "contains",
                "repeatable": ["get_ticket"],
                "accept": [[update, watch]],
            }
        )
        add("clean", cid, [update, watch, watch, watch])
        add("ff_unjudged", cid, [watch, update, watch])

        cid = f"reply-refund-{i + 1}"
        reply = step(
            "reply_to_ticket", ticket_id=ticket, body="<tell them the refund is on its way>"
        )
        cases.append(
            {
                "id": cid,
                "input": f"tell the customer on {ticket} that the refund is on its way",
                "accept": [[{**reply, "judge": {"body": {"matches": "(?i)\\brefund"}}}]],
            }
        )
        add(
            "ff_unjudged",
            cid,
            [{**reply, "args": {**reply["args"], "body": "Your refund was sent today."}}],
        )
        add(
            "fail_wrong_value",
            cid,
            [{**reply, "args": {**reply["args"], "body": "We are looking into it."}}],
        )
    return cases, runs


# Two lines a scorer must list as unscoreable, with file:line: a writer that crashed mid-line,
# and a run of a case that was deleted from cases/.
BROKEN_NOT_JSON = (
    b'{"run_id": "r-crashed", "case_id": "refund-dana-march", "calls": '
    b'[{"tool": "search_invoices", "args": {"customer_id": "C-4471", "month": '
)
BROKEN_UNKNOWN_CASE = orjson.dumps(
    {
        "run_id": "r-orphan",
        "case_id": "refund-legacy-2025",
        "calls": [
            {
                "tool": "issue_refund",
                "args": {"invoice_id": "INV-1207", "amount": 1200, "reason": "duplicate"},
            }
        ],
        "meta": {"commit": "8d41e07", "model": MODELS[0]},
    }
)

OUTPUT_DIRS = ("tools", "cases", "traces")
OUTPUT_SUFFIXES = (".json", ".jsonl", ".jsonl.gz")


def write(out: Path, files: dict[str, bytes]) -> None:
    """Write the corpus under `out`, removing corpus files an earlier layout left behind
    (evalrun reads every file in these directories)."""
    for directory in OUTPUT_DIRS:
        (out / directory).mkdir(parents=True, exist_ok=True)
        for old in sorted((out / directory).iterdir()):
            rel = f"{directory}/{old.name}"
            if old.is_file() and old.name.endswith(OUTPUT_SUFFIXES) and rel not in files:
                old.unlink()
    for rel, data in files.items():
        (out / rel).write_bytes(data)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=ROOT,
        help="where to write tools/, cases/ and traces/ (default: the repo root)",
    )
    args = parser.parse_args(argv)
    files, _ = build(random.Random(SEED))
    write(args.out, files)
    size = sum(len(v) for k, v in files.items() if k.startswith("traces/"))
    print(f"wrote {len(files)} files under {args.out} ({size / 1e6:.1f} MB of traces)")


if __name__ == "__main__":
    main()
