"""The suggest table's line printer (`suggest_table._Lines`): whatever it prints together, the
bytes are those of one `print` per line, wrapped or soft-wrapped as each line asked."""

from __future__ import annotations

import io

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evalrunner.terminal import SafeConsole
from evalrunner.terminal import SafeText as Text
from evalrunner.write.suggest_table import _Lines

WORDS = ["a", "word", "x" * 30, "日本語", "e\u0301", "\x1b[2J", "\t", "  ", '{"k": 1}', "\u202e"]


def _console(width: int, colour: bool) -> tuple[SafeConsole, io.StringIO]:
    out = io.StringIO()
    console = SafeConsole(
        file=out,
        width=width,
        force_terminal=colour,
        color_system="standard" if colour else None,
        highlight=False,
    )
    return console, out


lines = st.lists(
    st.tuples(
        st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join),
        st.sampled_from(["", "bold", "dim", "red"]),
        st.booleans(),
    ),
    max_size=12,
)


@settings(max_examples=200, deadline=None)
# seven cells in twelve characters, two of them trailing spaces: rich's wrapping strips trailing
# spaces by the characters past the width, soft wrapping keeps them
@example(lines=[("a", "", False), ("e\u0301" * 5 + "  ", "", True)], width=8, colour=False)
@given(lines=lines, width=st.integers(4, 40), colour=st.booleans())
def test_lines_printed_together_are_the_bytes_of_one_print_each(lines, width, colour):
    reference, want = _console(width, colour)
    for text, style, soft in lines:
        reference.print(Text(text, style=style), soft_wrap=soft)
    console, got = _console(width, colour)
    batched = _Lines(console)
    for text, style, soft in lines:
        batched.print(Text(text, style=style), soft_wrap=soft)
    batched.flush()
    assert got.getvalue() == want.getvalue()


def test_a_soft_wrapped_line_that_fits_joins_the_run():
    console, out = _console(40, False)
    prints = 0
    real = console.print

    def counting(*args, **kwargs):
        nonlocal prints
        prints += 1
        return real(*args, **kwargs)

    console.print = counting  # type: ignore[method-assign]
    batched = _Lines(console)
    batched.print(Text("a paragraph line"))
    batched.print(Text('{"fits": true}'), soft_wrap=True)
    batched.print(Text("another line"))
    batched.print(Text("x" * 60), soft_wrap=True)  # wider than the console: it starts a soft run
    batched.print(Text("last"))  # fits: joins that run
    batched.flush()
    assert prints == 2
    assert out.getvalue() == f'a paragraph line\n{{"fits": true}}\nanother line\n{"x" * 60}\nlast\n'
