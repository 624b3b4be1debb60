"""What every reader of a trace input's bytes shares: the block it reads at a time, the bounds
it keeps (the longest line, how far a `.gz` may expand, how deep a record may nest), the byte
order mark it skips, and the errors a read can raise."""

from __future__ import annotations

import zlib

from ..jsonvalue import RECORD_DEPTH

BLOCK_BYTES = 2**20
MAX_LINE_BYTES = 64 * 2**20
"""The longest trace line read (64 MiB): a longer one is reported, never held in memory."""
MAX_EXPANDED_BYTES = 16 * 2**30
"""The most a `.gz` trace file may expand to (16 GiB; `--max-expanded-bytes`): a megabyte of
gzip can hold a gigabyte of blank lines, and a small file that expands without end is a bomb.
Past it the file is reported unscoreable at the line reached, and reading goes on with the next
file."""
BOM = b"\xef\xbb\xbf"
READ_ERRORS = (OSError, EOFError, zlib.error)


def too_deep_message() -> str:
    return (
        f"the record is nested more than {RECORD_DEPTH} levels deep; evalrun reads records up "
        f"to {RECORD_DEPTH} levels (skipped)"
    )
