"""Git revisions: resolve one, read paths of it raw (`git ls-tree`, `git cat-file`), name its
files as git does.

The user's working tree, index, HEAD and stash are never touched: a revision's files are extracted
into a temporary directory, regular files and directories only.
"""

from __future__ import annotations

import os
import subprocess
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
    inside it, read raw from the object store: the working tree, the index and HEAD are left as they are.
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
        _extract(root, sha, sorted(set(rels)), Path(tmp))
        yield sha, Path(tmp), [Path(tmp) / rel for rel in rels]


LFS_POINTER = b"version https://git-lfs.github.com/spec/v1\n"
"""How a Git LFS pointer file starts: the file itself is elsewhere (on an LFS server)."""
LFS_POINTER_MAX = 1024


def _extract(root: Path, sha: str, rels: list[str], dest: Path) -> None:
    """Write `rels` of commit `sha` into `dest`: regular files and directories only.

    The blobs are read raw (`git ls-tree -r -z`, then `git cat-file --batch`): no
    `.gitattributes` applies, so `export-ignore` hides nothing and no `filter=` program runs
    (`git archive` would do both). A submodule or a Git LFS pointer under a path is an
    InputError naming it: its files are not in the revision, and are never left out silently;
    so is a symbolic link, which is not followed.
    """
    listed = subprocess.run(
        ["git", "ls-tree", "-r", "-z", "--full-tree", sha, "--", *rels],
        cwd=root,
        capture_output=True,
        check=False,
    )
    if listed.returncode != 0:
        message = listed.stderr.decode(errors="replace").strip()
        raise InputError(f"git ls-tree {sha[:12]} failed: {message}")
    blobs: list[tuple[str, str, Path]] = []
    for entry in listed.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, raw_name = entry.partition(b"\t")
        mode, kind, oid = meta.decode().split(" ")
        name = os.fsdecode(raw_name)
        if kind == "commit":
            raise InputError(
                f"{name} is a git submodule in revision {sha[:12]}: its files are not in this "
                "repository's revision, so they cannot be read there; name paths outside it"
            )
        if kind == "blob" and mode == "120000":
            raise InputError(
                f"{name} is a symbolic link in revision {sha[:12]}: evalrun does not follow "
                "links in a revision (one may lead outside it); commit the file itself, or "
                "name paths without it"
            )
        target = _safe_target(dest, name)
        # A file is any 100xxx mode: git writes 100644 and 100755, and trees older git wrote
        # hold 100664, which git reads as 100644. What is written stays inside `dest` whatever
        # the commit holds (`_safe_target`).
        if kind != "blob" or not mode.startswith("100") or target is None:
            continue
        blobs.append((oid, name, target))
    for rel in rels:  # the paths themselves, even when empty
        target = _safe_target(dest, rel)
        if target is not None and not any(t == target for _, _, t in blobs):
            target.mkdir(parents=True, exist_ok=True)
    _cat_blobs(root, sha, blobs)


def _cat_blobs(root: Path, sha: str, blobs: list[tuple[str, str, Path]]) -> None:
    """Each blob's raw bytes into its target (`git cat-file --batch`: no filters)."""
    if not blobs:
        return
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            ["git", "cat-file", "--batch"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
        )
        assert proc.stdin is not None and proc.stdout is not None
        done = False
        try:
            for oid, name, target in blobs:
                proc.stdin.write(oid.encode() + b"\n")
                proc.stdin.flush()
                header = proc.stdout.readline().split()
                if len(header) != 3 or header[1] != b"blob":
                    raise InputError(f"git cat-file {sha[:12]}: cannot read {oid}")
                size = int(header[2])
                target.parent.mkdir(parents=True, exist_ok=True)
                with open(target, "wb") as out:
                    left, first = size, True
                    while left:
                        chunk = proc.stdout.read(min(left, 1 << 20))
                        if not chunk:
                            raise InputError(f"git cat-file {sha[:12]}: {oid} ends early")
                        if first and size <= LFS_POINTER_MAX and chunk.startswith(LFS_POINTER):
                            raise InputError(
                                f"{name} is a Git LFS pointer in revision {sha[:12]}: "
                                "the file is on an LFS server, not in the revision, and evalrun "
                                "does not fetch it; fetch it and score the files as a folder"
                            )
                        first = False
                        out.write(chunk)
                        left -= len(chunk)
                proc.stdout.read(1)  # the newline after each object
            done = True
        finally:
            proc.stdin.close()
            proc.stdout.close()
            if not done:
                proc.kill()
            if proc.wait() != 0 and done:
                err.seek(0)
                message = err.read().decode(errors="replace").strip()
                raise InputError(f"git cat-file {sha[:12]} failed: {message}")


def _safe_target(dest: Path, name: str) -> Path | None:
    parts = PurePosixPath(name).parts
    if not parts or PurePosixPath(name).is_absolute() or ".." in parts:
        return None
    return dest.joinpath(*parts)
