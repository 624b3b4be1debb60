"""Whether the command line has been told to stop (Ctrl-C, SIGTERM, SIGHUP).

The command line's handlers (`cli.main`) note the signal here and then raise KeyboardInterrupt.
Python runs a handler wherever it is, finalizers too, and an exception raised inside a finalizer
(`__del__`, a weakref callback) is printed and dropped: the interrupt would be lost, and a read
from a pipe whose writer stays open would wait for ever. So each read of a trace stream checks
`PENDING` first (`traces.lines.read_blocks`) and raises the interrupt again.
"""

from __future__ import annotations

PENDING: list[int] = []
"""The signals received, in order; empty until one is."""


def check() -> None:
    """Raise KeyboardInterrupt when a signal has been received (and perhaps lost)."""
    if PENDING:
        raise KeyboardInterrupt
