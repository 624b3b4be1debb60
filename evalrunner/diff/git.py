"""Git revisions: resolve one, read paths of it with `git archive`, name its files as git does.

The user's working tree, index, HEAD and stash are never touched: a revision's files are extracted
into a temporary directory, regular files and directories only.
"""

from __future__ import annotations

import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from ..model import InputError


def _git(args: list[str], cwd: Path | None) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise InputError("git is not installed, so a git revision cannot be read") from None


def _repo_root(base: Path | None) -> Path | None:
    done = _git(["rev-parse", "--show-toplevel"], base)
    return Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else None


def is_revision(spec: str, base: Path | None) -> bool:
    """Whether `spec` also names a commit (to say that a path of the same name won)."""
    if spec.startswith("-"):
        return False
    try:
        done = _git(["rev-parse", "--verify", "--quiet", f"{spec}^{{commit}}"], base)
    except InputError:
        return False
    return done.returncode == 0


@contextmanager
def checkout(
    rev: str, paths: list[Path], base: Path | None = None
) -> Iterator[tuple[str, Path, list[Path]]]:
    """`paths` (relative to `base`, default the current directory) as of revision `rev`.

    Yields the commit, a temporary directory standing for the repository's root, and the paths
    inside it, read with `git archive`: the working tree, the index and HEAD are left as they are.
    """
    here = (base or Path.cwd()).resolve()
    root = _repo_root(here)
    if root is None:
        raise InputError(
            f"{rev!r} is not a file or directory, and {here} is not in a git repository, so it "
            "cannot be read as a git revision either"
        )
    if rev.startswith("-"):
        raise InputError(f"{rev!r} is not a file or directory, nor a git revision")
    found = _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], root)
    if found.returncode != 0:
        raise InputError(
            f"{rev!r} is neither a file or directory nor a revision of the git repository at "
            f"{root} (unknown revision)"
        )
    sha = found.stdout.strip()
    root = root.resolve()
    rels = []
    for p in paths:
        full = (here / p).resolve()
        try:
            rel = full.relative_to(root).as_posix()
        except ValueError:
            raise InputError(
                f"{p} is outside the git repository at {root}, so it cannot be read at "
                f"revision {rev}"
            ) from None
        exists = _git(["cat-file", "-e", f"{sha}:{'' if rel == '.' else rel}"], root)
        if exists.returncode != 0:
            raise InputError(
                f"git revision {rev} ({sha[:12]}) has no {rel}: nothing to read there "
                "(was it committed?)"
            )
        rels.append(rel)
    with tempfile.TemporaryDirectory(prefix="evalrun-diff-") as tmp:
        _archive(root, sha, sorted(set(rels)), Path(tmp))
        yield sha, Path(tmp), [Path(tmp) / rel for rel in rels]


def _archive(root: Path, sha: str, rels: list[str], dest: Path) -> None:
    """Extract `rels` of commit `sha` into `dest`: regular files and directories only."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            ["git", "archive", "--format=tar", sha, "--", *rels],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=err,
        )
        try:
            assert proc.stdout is not None
            with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
                for member in tar:
                    target = _safe_target(dest, member.name)
                    if target is None:
                        continue
                    if member.isdir():
                        target.mkdir(parents=True, exist_ok=True)
                    elif member.isreg():
                        target.parent.mkdir(parents=True, exist_ok=True)
                        source = tar.extractfile(member)
                        assert source is not None
                        with open(target, "wb") as out:
                            while chunk := source.read(1 << 20):
                                out.write(chunk)
                    # Symbolic links and anything else are skipped: the extraction stays inside
                    # `dest` whatever the commit holds.
        except tarfile.TarError as e:
            proc.kill()
            proc.wait()
            err.seek(0)
            message = err.read().decode(errors="replace").strip() or str(e)
            raise InputError(f"git archive {sha[:12]} failed: {message}") from None
        finally:
            if proc.stdout is not None:
                proc.stdout.close()
        if proc.wait() != 0:
            err.seek(0)
            message = err.read().decode(errors="replace").strip()
            raise InputError(f"git archive {sha[:12]} failed: {message}")


def _safe_target(dest: Path, name: str) -> Path | None:
    parts = PurePosixPath(name).parts
    if not parts or PurePosixPath(name).is_absolute() or ".." in parts:
        return None
    return dest.joinpath(*parts)
