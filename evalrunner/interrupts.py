"""Whether the command line has been told to stop (Ctrl-C, SIGTERM, SIGHUP).

The command line's handlers (`cli.main`) note the signal here and then raise KeyboardInterrupt.
Python runs a handler wherever it is, finalizers too, and an exception raised inside a finalizer
(`__del__`, a weakref callback) is printed and dropped: the interrupt would be lost, and a read
from a pipe whose writer stays open would wait for ever. So each read of a trace stream checks
`PENDING` first (`traces.lines.read_blocks`) and raises the interrupt again.

A signal can also arrive after that check and before the read's system call begins: Python's
handler then runs only once the call returns, and on a pipe whose writer says nothing it never
does. So a read that may block (a pipe, a FIFO, a terminal) is woken every `TICK` seconds while
it waits (`woken`): the wake-up interrupts the call, and Python then runs every handler whose
signal has arrived, and this module's, which raises for an interrupt noted and dropped.
"""

from __future__ import annotations

import os
import signal
import stat
import threading
from collections.abc import Callable
from typing import Any, TypeVar

PENDING: list[int] = []
"""The signals received, in order; empty until one is."""

TICK = 0.25
"""How often a read that may block wakes to look for an interrupt, in seconds."""

_WATCHING: list[bool] = []
"""Non-empty once the command line has installed its handlers (`watch`)."""

T = TypeVar("T")


def check() -> None:
    """Raise KeyboardInterrupt when a signal has been received (and perhaps lost)."""
    if PENDING:
        raise KeyboardInterrupt


def watch() -> None:
    """Let reads that may block be woken (`woken`): the command line calls this once its
    handlers are installed. Where there is no interval timer (Windows), reads are not woken."""
    if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGALRM, _wake)
        _WATCHING[:] = [True]


def _wake(signum: int, frame: Any) -> None:
    check()


def may_block(stream: Any) -> bool:
    """Whether a read of `stream` can wait for ever: a pipe, a FIFO, a terminal, a socket (a
    regular file always returns, and a stream with no file descriptor is in memory)."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return False
    return not stat.S_ISREG(mode)


def woken(read: Callable[[int], T], n: int) -> T:
    """`read(n)`, woken every `TICK` seconds while it waits, where the command line watches
    (`watch`) and this is its main thread (the only one Python runs handlers in)."""
    if not _WATCHING or threading.current_thread() is not threading.main_thread():
        return read(n)
    signal.setitimer(signal.ITIMER_REAL, TICK, TICK)
    try:
        return read(n)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
