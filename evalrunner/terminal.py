"""Text from the data, made safe for a terminal: every control character shown as a visible escape.

A run id, a tool name, `meta.model` or a file name is the logger's (or an attacker's) text. Printed
raw, `"\\x1b[2J"` clears the screen, an OSC sequence retitles the window or makes a working
hyperlink ("evalrun · 1 run · all passed" linking elsewhere), and a bidi override (U+202E) shows
`fail` as `liaf`. So wherever data reaches a terminal it is shown as error messages show it
(Python's `repr` escapes): `\\x1b`, `\\x9b`, `\\u202e`.

`visible(text)` escapes a value before it is laid out (a name in a table cell: the layout measures
what is printed). The consoles (`SafeConsole`) escape whatever text reaches them as well, line
breaks and tabs of the layout kept, so nothing a renderer forgot gets through. JSON outputs stay
JSON: their strings are escaped by JSON itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final

from rich.console import Console
from rich.segment import Segment
from rich.text import Text

BIDI_CONTROLS: Final = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""The bidirectional formatting characters (Unicode's Bidi_Control), which reorder what follows."""
_OTHERS: Final = (
    "\\x7f-\\x9f"  # DEL and C1 (CSI is U+009B: an escape sequence in one character)
    + BIDI_CONTROLS
    + "\u2028\u2029"  # line and paragraph separators
    + "\\ud800-\\udfff"  # a lone surrogate (Unicode's Cs): a file name that is not UTF-8, as
    # Python reads it
)
# `re`, not the regex module (which score's table would import for these two alone): the classes
# are plain ranges (tests/test_hostile_outputs.py holds them to regex's `\p{Cs}` spelling)
_ANY: Final = re.compile(f"[\\x00-\\x1f{_OTHERS}]")
_BUT_LAYOUT: Final = re.compile(f"[\\x00-\\x08\\x0b-\\x1f{_OTHERS}]")
"""Every character `_ANY` matches but the line feed and the tab, which a layout holds."""


_NAMED: Final = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def visible(text: Any) -> str:
    """`text` (any value, as str) with every control character, bidi control, line separator
    and lone surrogate written as a visible escape (`\\x1b`, `\\u202e`), the rest as it is."""
    text = str(text)
    return _ANY.sub(_escape, text) if _ANY.search(text) else text


def as_is(text: str) -> bool:
    """Whether `text` reaches a terminal as it is: no character `visible` escapes, no line feed
    or tab for a layout to place."""
    return _ANY.search(text) is None


def visible_layout(text: str) -> str:
    """`visible`, keeping line breaks and tabs: for text already laid out (a console's output)."""
    return _BUT_LAYOUT.sub(_escape, text) if _BUT_LAYOUT.search(text) else text


class SafeConsole(Console):
    """A rich console that prints no control character from the text it renders: the styles it
    adds itself (colour, the progress line's cursor moves) are not text, and are kept."""

    def render_str(self, text: str, **options: Any) -> Any:
        # Before rich makes it a Text, which silently drops BEL, BS, VT, FF and CR: a message
        # naming "a\x07b" said "ab", and `render` below never saw what was gone.
        return super().render_str(visible_layout(text), **options)

    def render(self, renderable: Any, options: Any = None) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control is None and segment.text and _BUT_LAYOUT.search(segment.text):
                yield Segment(visible_layout(segment.text), segment.style, segment.control)
            else:
                yield segment


class SafeText(Text):
    """A rich `Text` of the data, its control characters shown as escapes before the layout:
    rich's `Text` drops BEL, BS, VT, FF and CR unsaid, and lays out the rest before
    `SafeConsole` widens them, so a cell or a wrapped line lost words (`diff`'s flips, `audit`'s
    unscoreable lines). Line breaks and tabs are the layout's, and kept."""

    def __init__(self, text: str = "", *args: Any, **kwargs: Any) -> None:
        super().__init__(visible_layout(text), *args, **kwargs)

    def append(self, text: Any, style: Any = None) -> Text:
        return super().append(visible_layout(text) if isinstance(text, str) else text, style)
