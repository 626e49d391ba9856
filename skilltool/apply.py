"""Actions -> disk. The only module that writes.

Every write is atomic (a temporary file in the same directory, fsync, rename) and
never follows a link at the target. Before each change the target is checked
again: if it is no longer what the plan saw, it is left alone. Runs against one
home are serialised by a lock in the user's state directory.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from skilltool.plan import TEMP_PREFIX, Action, read_link


class Outcome(NamedTuple):
    """What became of one action."""

    action: Action
    done: bool  # the change was made (or there was none to make)
    error: str = ""


@contextlib.contextmanager
def locked(state_dir: Path) -> Iterator[None]:
    """Hold the home's lock: one install or uninstall at a time."""
    state_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(state_dir / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def digest(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def read_regular(path: Path) -> bytes | None:
    """The bytes of a regular file, not following a link; None for anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _temporary(directory: Path, data: bytes, mode: int) -> str:
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_file(path: Path, data: bytes, mode: int, *, replace: bool) -> None:
    """Write `data` at `path` atomically; without `replace`, fail if anything is there."""
    tmp = _temporary(path.parent, data, mode)
    try:
        if replace:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)  # fails with EEXIST: never clobbers what appeared meanwhile
            os.unlink(tmp)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def _link(action: Action) -> None:
    assert action.source is not None
    link = action.target
    if action.change == "create":
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(action.source, link)
        return
    if action.change == "remove":
        os.unlink(link)
        return
    tmp = link.parent / f"{TEMP_PREFIX}{os.getpid()}-{link.name}"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    os.symlink(action.source, tmp)
    os.replace(tmp, link)


def _file(action: Action) -> None:
    target, backup = action.target, action.backup
    if action.change == "remove":
        if backup is not None and read_regular(backup) is not None:
            os.replace(backup, target)  # the harness's own original comes back in one step
        else:
            os.unlink(target)
        _fsync_dir(target.parent)
        return
    assert action.content is not None
    if backup is not None and not os.path.lexists(backup):
        original = read_regular(target)
        if original is not None:
            write_file(backup, original, 0o644, replace=False)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_file(target, action.content, action.mode, replace=action.change == "replace")


def sweep(directories: Iterable[str | Path]) -> None:
    """Remove the temporary files and links a killed run left in these directories."""
    for directory in directories:
        try:
            with os.scandir(directory) as it:
                left = [
                    e.path
                    for e in it
                    if e.name.startswith(TEMP_PREFIX) and not e.is_dir(follow_symlinks=False)
                ]
        except OSError:
            continue
        for path in left:
            with contextlib.suppress(OSError):
                os.unlink(path)


def _existing(directory: Path) -> Path:
    """The directory, or the nearest of its parents that exists (where mkdir must write)."""
    while not os.path.lexists(directory) and directory != directory.parent:
        directory = directory.parent
    return directory


def unwritable(actions: Iterable[Action]) -> dict[Path, str]:
    """The directories an apply of these actions must write in but cannot, and why.

    Checked before anything is written, so that a read-only or locked-down place stops
    the whole run instead of leaving it half done.
    """
    found: dict[Path, str] = {}
    parents: set[str] = set()
    checked: set[Path] = set()
    for action in actions:
        parent = os.path.dirname(action.target)
        if not action.writes or parent in parents:
            continue
        parents.add(parent)
        directory = _existing(Path(parent))
        if directory in checked:
            continue
        checked.add(directory)
        if not os.path.isdir(directory) or os.access(directory, os.W_OK | os.X_OK):
            continue  # not a directory: the write fails on its own, with its own line
        try:
            read_only = bool(os.statvfs(directory).f_flag & os.ST_RDONLY)
        except OSError:
            read_only = False
        found[directory] = (
            "on a read-only file system" if read_only else "not writable (permission denied)"
        )
    return found


def _failure(err: OSError, target: Path) -> str:
    """What went wrong writing at `target`, and what to do about it, in one clause."""
    what = err.strerror or str(err)
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"{what}; free some space, then run again"
    if err.errno == errno.EROFS:
        return f"{what}; make {target.parent} writable, then run again"
    if err.errno in (errno.ENOTDIR, errno.EEXIST):
        blocker = next((p for p in target.parents if os.path.lexists(p)), target.parent)
        if not os.path.isdir(blocker):
            return f"{blocker} is not a directory; move it away, then run again"
    return f"{what}; check the permissions of {target.parent}"


def _still(action: Action) -> bool:
    """Whether the target is still what the plan saw."""
    if action.state == "missing":
        return not os.path.lexists(action.target)
    if action.kind == "link":
        return os.path.islink(action.target) and read_link(action.target) == action.seen
    data = read_regular(action.target)
    return data is not None and digest(data) == action.seen


def carry_out(action: Action) -> Outcome:
    if not action.writes:
        return Outcome(action, True)
    if not _still(action):
        return Outcome(action, False, "changed while skilltool was working; run again")
    try:
        if action.kind == "link":
            _link(action)
        else:
            _file(action)
    except OSError as err:
        if isinstance(err, FileExistsError) and os.path.lexists(action.target):
            why = "something appeared there while skilltool was working; run again"
            return Outcome(action, False, why)
        return Outcome(action, False, _failure(err, action.target))
    return Outcome(action, True)


def apply(actions: tuple[Action, ...]) -> list[Outcome]:
    sweep(sorted({os.path.dirname(a.target) for a in actions if a.state != "absent"}))
    return [carry_out(action) for action in actions]
