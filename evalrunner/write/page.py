"""The HTML pages' common parts: one self-contained document (styles, script and charts inline,
nothing fetched when it is opened), escaping, numbers, and bar charts drawn as inline SVG.

Every string that comes from the inputs (tool and case ids, values, file names) is escaped with
`esc` where it meets HTML, and data for the page's script is embedded with `embed_json`, which
escapes `<`, `>` and `&` inside the JSON so that no trace content can close the script element.
Numbers a test reads back carry `data-k`, the path of the value in the summary JSON (a JSON list
of keys and indexes: `["groups", "gpt-4.1", "runs"]`).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from importlib import resources
from typing import Any, NamedTuple

import orjson

from .._version import __version__
from ..jsonvalue import dumps as json_dumps
from .wording import n, pct, share

COLORS = {
    "reported": "#b7791f",
    "true": "#2b6cb0",
    "pass": "#2f855a",
    "fail": "#c53030",
    "false_failure": "#d69e2e",
    "false_pass": "#805ad5",
    "neutral": "#718096",
}


def esc(value: Any) -> str:
    """Text (any value, as str) escaped for HTML content and quoted attributes."""
    return html.escape(str(value), quote=True)


def asset(name: str) -> str:
    return (resources.files("evalrunner.write") / "assets" / name).read_text(encoding="utf-8")


def embed_json(value: Any) -> str:
    """JSON for a `<script type="application/json">` element: `<`, `>` and `&` written as
    `\\u003c`, `\\u003e`, `\\u0026` (the same JSON), so `</script>` in a value cannot end it."""
    return safe_json_bytes(json_dumps(value, option=orjson.OPT_SORT_KEYS)).decode()


def safe_json_bytes(data: bytes) -> bytes:
    """`embed_json` on JSON already encoded. Those three characters can only stand inside JSON
    strings, where their escapes mean the same."""
    return data.replace(b"<", b"\\u003c").replace(b">", b"\\u003e").replace(b"&", b"\\u0026")


def document(title: str, body: str, *, script: str = "") -> str:
    """A whole page: its title, the shared styles, `body`, and an inline script."""
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # Nothing may be fetched: no network, and the page says so to the browser too.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
        f'<meta name="generator" content="evalrun {esc(__version__)}">'
        f"<title>{esc(title)}</title><style>{asset('report.css')}</style></head>\n"
        f"<body><main>\n{body}\n</main>"
        + (f"<script>{script}</script>" if script else "")
        + "</body></html>\n"
    )


# ------------------------------------------------------------------------------ data-k


Key = tuple[str | int, ...]
"""Where a number is in the summary JSON: `("true", "run_failure_rate")`."""


def data_k(key: Key | None) -> str:
    """The `data-k` attribute that tells where a shown number comes from ("" for none)."""
    if key is None:
        return ""
    return f' data-k="{esc(json_dumps(list(key)).decode())}"'


def num(key: Key | None, text: str) -> str:
    """A number the page shows, with the summary-JSON path it comes from."""
    return f'<span class="num"{data_k(key)}>{esc(text)}</span>'


# --------------------------------------------------------------------------------- charts


class Bar(NamedTuple):
    label: str
    value: float
    """Its length, against the chart's largest."""
    text: str
    """What is written after it."""
    color: str
    key: Key | None = None
    """The summary-JSON path of the number in `text`, when a test should read it back."""


BAR_HEIGHT, GAP, LABEL_W, WIDTH = 22, 8, 210, 720


def bars(rows: Sequence[Bar], *, title: str, top: float | None = None) -> str:
    """A horizontal bar chart as inline SVG, labels on the left and values at each bar's end.

    `top` is the value a full-length bar stands for (default: the largest value)."""
    if not rows:
        return ""
    top = top or max((r.value for r in rows), default=0) or 1
    span = WIDTH - LABEL_W - 150
    height = len(rows) * (BAR_HEIGHT + GAP) + GAP
    parts = [
        f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {height}" '
        f'preserveAspectRatio="xMinYMin meet" aria-label="{esc(title)}"><title>{esc(title)}</title>'
    ]
    for i, r in enumerate(rows):
        y = GAP + i * (BAR_HEIGHT + GAP)
        w = max(0.0, min(1.0, r.value / top)) * span
        label = r.label if len(r.label) <= 30 else r.label[:29] + "…"
        key = data_k(r.key)
        parts.append(
            f'<text x="{LABEL_W - 8}" y="{y + 15}" text-anchor="end" class="lab">{esc(label)}'
            f"<title>{esc(r.label)}</title></text>"
            f'<rect x="{LABEL_W}" y="{y}" width="{w:.1f}" height="{BAR_HEIGHT}" rx="3" '
            f'fill="{r.color}"></rect>'
            f'<text x="{LABEL_W + w + 6:.1f}" y="{y + 15}" class="val"{key}>{esc(r.text)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


class Pair(NamedTuple):
    label: str
    reported: float
    true: float


def pairs(rows: Sequence[Pair], *, title: str, top: float | None = None) -> str:
    """Reported and true side by side per label (a group, a k): two thin bars each, as SVG."""
    if not rows:
        return ""
    top = top or max((max(r.reported, r.true) for r in rows), default=0) or 1
    span = WIDTH - LABEL_W - 90
    step = 2 * BAR_HEIGHT // 2 + GAP + 4
    height = len(rows) * step + GAP
    parts = [
        f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {height}" '
        f'preserveAspectRatio="xMinYMin meet" aria-label="{esc(title)}"><title>{esc(title)}</title>'
    ]
    half = BAR_HEIGHT // 2
    for i, r in enumerate(rows):
        y = GAP + i * step
        label = r.label if len(r.label) <= 30 else r.label[:29] + "…"
        parts.append(
            f'<text x="{LABEL_W - 8}" y="{y + half + 5}" text-anchor="end" class="lab">'
            f"{esc(label)}<title>{esc(r.label)}</title></text>"
        )
        for j, (value, color) in enumerate(
            ((r.reported, COLORS["reported"]), (r.true, COLORS["true"]))
        ):
            w = max(0.0, min(1.0, value / top)) * span
            yy = y + j * (half + 1)
            parts.append(
                f'<rect x="{LABEL_W}" y="{yy}" width="{w:.1f}" height="{half}" rx="2" '
                f'fill="{color}"></rect><text x="{LABEL_W + w + 5:.1f}" y="{yy + half - 1}" '
                f'class="val small">{esc(pct(value))}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def legend() -> str:
    """The key to `pairs`: which colour is which check."""
    return (
        f'<p class="legend"><span class="key"><i style="background:{COLORS["reported"]}"></i>'
        f'reported (exact-match)</span><span class="key"><i style="background:{COLORS["true"]}">'
        "</i>true</span></p>"
    )


def stacked(parts: Sequence[tuple[str, int, str, Key]], *, title: str) -> str:
    """One bar split into parts (label, count, color, summary-JSON key), with a legend."""
    total = sum(p[1] for p in parts) or 1
    x = 0.0
    rects = []
    for label, count, color, _ in parts:
        w = WIDTH * count / total
        if w > 0:
            rects.append(
                f'<rect x="{x:.1f}" y="0" width="{w:.1f}" height="26" fill="{color}">'
                f"<title>{esc(label)}: {n(count)}</title></rect>"
            )
        x += w
    legend = "".join(
        f'<span class="key"><i style="background:{color}"></i>{esc(label)} {num(key, n(count))}'
        f" ({share(count, total)})</span>"
        for label, count, color, key in parts
    )
    return (
        f'<svg class="chart stacked" role="img" viewBox="0 0 {WIDTH} 26" '
        f'preserveAspectRatio="none" aria-label="{esc(title)}"><title>{esc(title)}</title>'
        f'{"".join(rects)}</svg><p class="legend">{legend}</p>'
    )


def table(head: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> str:
    """A table; cells are HTML already (escape what comes from the inputs). `align` has an `l`
    or `r` per column (default: the first left, the rest right)."""
    align = align or "l" + "r" * (len(head) - 1)
    cls = [" class=r" if a == "r" else "" for a in align]
    th = "".join(f"<th{cls[i]}>{esc(h)}</th>" for i, h in enumerate(head))
    body = "".join(
        "<tr>" + "".join(f"<td{cls[i]}>{cell}</td>" for i, cell in enumerate(r)) + "</tr>"
        for r in rows
    )
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"
