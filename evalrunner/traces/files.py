"""Which trace files a path names, and which outputs would overwrite one.

Inputs are `.jsonl` files, `.jsonl.gz` files, directories of them (recursive, sorted), or `-` for
standard input. A directory's other entries (a `.json` file, a pipe, a link to nothing, a file of
evalrun's own results) are named with the reason they are not read (`Skipped`), and `--output`
is refused where it would destroy a trace file (`read_under`).
"""

from __future__ import annotations

import errno
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..jsonvalue import loads
from ..model import InputError
from .limits import BOM, READ_ERRORS
from .lines import STDIN, open_trace, path_text
from .own_results import is_results_record

TRACE_SUFFIXES = (".jsonl", ".jsonl.gz")


@dataclass(frozen=True)
class Skipped:
    """A file under a traces directory that is not read, and why."""

    path: str
    why: str

    def __str__(self) -> str:
        return f"{path_text(self.path)}: {self.why}"


def trace_files(
    paths: Iterable[str | Path],
    *,
    skipped: list[Skipped] | None = None,
    exclude: Iterable[str | Path] = (),
) -> list[str]:
    """The trace inputs named by `paths`, directories expanded (recursive, sorted); `-` is stdin.

    A file named explicitly is read whatever its name. Under a directory, `.jsonl` and
    `.jsonl.gz` files are read, except a file of evalrun's own results and those in `exclude`;
    every other file is left out and, with `skipped`, named there with the reason, as is a link
    that leads nowhere.
    """
    excluded = {_real(p) for p in exclude}
    found: list[str] = []
    for path in paths:
        name = str(path)
        if name == STDIN:
            found.append(STDIN)
            continue
        p = Path(path)
        if p.is_dir():
            found.extend(_walk(p, skipped, excluded))
        elif p.exists():  # a file, or a named pipe (`<(zcat runs.gz)`)
            found.append(name)
        elif p.is_symlink():
            raise InputError(f"trace path {name!r} is a link to nothing ({_link_target(p)})")
        elif not p.exists():
            hint = ""
            if name.lower() in ("true", "false", "yes", "no", "on", "off", "0", "1"):
                hint = "; flags such as --strict take no value"
            raise InputError(
                f"trace file or directory {name!r} does not exist (name a trace file or "
                f"directory, or - for standard input{hint})"
            )
    return _once(found, skipped)


def _once(found: list[str], skipped: list[Skipped] | None) -> list[str]:
    """Each file read once: the same file named twice (or by a folder and by name, or through
    a link) would count its runs twice."""
    seen: set[str] = set()
    out = []
    for name in found:
        key = name if name == STDIN else _real(name)
        if key in seen:
            if skipped is not None:
                skipped.append(Skipped(name, "named more than once: read once"))
            continue
        seen.add(key)
        out.append(name)
    return out


def _walk(root: Path, skipped: list[Skipped] | None, excluded: set[str]) -> list[str]:
    found: list[Path] = []
    try:
        entries = sorted(root.rglob("*"), key=lambda f: f.as_posix())
    except OSError as e:
        raise InputError(f"cannot read traces directory {str(root)!r}: {e.strerror or e}") from None
    for f in entries:
        try:
            is_file, is_dir = f.is_file(), f.is_dir()
        except OSError as e:  # a link that loops
            is_file = is_dir = False
            if skipped is not None:
                skipped.append(Skipped(str(f), f"cannot be read ({e.strerror or e})"))
            continue
        if is_dir or (excluded and _real(f) in excluded):
            continue
        if not is_file:
            if skipped is not None:
                skipped.append(Skipped(str(f), _why_not_a_file(f)))
            continue
        if f.name.endswith(TRACE_SUFFIXES):
            # A results file is read all the same, each record an unscoreable line of its own
            # (the reader knows them): a trace taken for results is never dropped unseen, and
            # --strict, the headline and diff count what was left out.
            if skipped is not None and _holds_results(f):
                skipped.append(Skipped(str(f), RESULTS_FILE))
            found.append(f)
        elif skipped is not None and not f.name.startswith("."):
            skipped.append(Skipped(str(f), _why_not_read(f)))
    return [str(f) for f in found]


def read_under(path: str | Path, inputs: Iterable[str | Path]) -> str | None:
    """The input directory under which the existing file `path` would be read as traces (its
    name ends in a trace suffix and it does not hold evalrun's results), else None: writing an
    output there would destroy a trace file."""
    p = Path(path)
    if not p.is_file() or not p.name.endswith(TRACE_SUFFIXES) or _holds_results(p):
        return None
    return next((str(n) for n in inputs if str(n) != STDIN and inside(p, Path(n))), None)


def inside(path: Path, folder: Path) -> bool:
    """Whether `path` (existing or not) lies under the directory `folder`, links resolved."""
    return folder.is_dir() and Path(_real(path)).is_relative_to(_real(folder))


RESULTS_FILE = (
    "evalrun's own results (score --format jsonl), not runs: its records are counted "
    "unscoreable, not scored; keep results out of the traces"
)
RESULTS_HEAD = 1 << 20
"""How much of a file is read to tell whether its first record is a results record."""


def _holds_results(f: Path) -> bool:
    """Whether a file's first record is one of evalrun's results records, by its structure
    (`own_results`): the words `"verdict"` or `"reported"` in a run's data do not make one."""
    try:
        with open_trace(str(f)) as stream:
            head = stream.read(RESULTS_HEAD)
    except (InputError, *READ_ERRORS):
        return False  # read in its turn, where the error is reported with its line
    if head.startswith(BOM):
        head = head[len(BOM) :]
    for line in head.split(b"\n"):
        if line.strip():
            try:
                return is_results_record(loads(line))
            except ValueError:
                return False  # not JSON, or cut short by the head: read as a trace
    return False


def _real(p: str | Path) -> str:
    try:
        return str(Path(p).resolve())
    except (OSError, RuntimeError):  # a link loop: Python 3.11's resolve() raises RuntimeError
        return str(p)


def _why_not_read(f: Path) -> str:
    if f.name.endswith((".json", ".json.gz")):
        return (
            "a .json file, not read: traces are JSON Lines (.jsonl, one record a line); "
            "rename it to .jsonl, or name the file itself to read it"
        )
    return "not a trace file (.jsonl or .jsonl.gz), not read"


def _why_not_a_file(f: Path) -> str:
    """Why an entry of a traces folder that is neither a file nor a folder is not read."""
    try:
        mode = f.stat().st_mode
    except OSError as e:
        if f.is_symlink():
            if e.errno == errno.ELOOP:
                return f"a link that loops, not read ({_link_target(f)})"
            return f"a link to nothing ({_link_target(f)})"
        return f"cannot be read ({e.strerror or e})"
    what = (
        "a named pipe (FIFO)"
        if stat.S_ISFIFO(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "not a regular file"
    )
    if f.is_symlink():
        what = f"a link to {what} ({_link_target(f)})"
    return f"{what}, not read under a folder: name it to read it"


def _link_target(p: Path) -> str:
    try:
        return f"it points to {p.readlink()}"
    except OSError:
        return "it cannot be followed"
