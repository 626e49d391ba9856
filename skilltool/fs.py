"""The file-system primitives everyone uses: reading a regular file or a link safely,
digests, atomic writes, the home's lock, sweeping what a killed run left behind, and
where an edit of a user's config file writes (through a link, or in place).

Nothing here knows about plugins or harnesses; every other module may import it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

# every temporary file or link skilltool makes starts so; one a killed run left behind is
# not a rendering: `sweep` removes it before the next run writes in that directory
TEMP_PREFIX = ".skilltool-tmp-"

# hashlib loads OpenSSL: 4 ms, a twentieth of a no-op. Python's own SHA-256 costs nothing
# to import and is four times slower, so it digests the first bytes of a run and OpenSSL's
# the rest: a small run never loads OpenSSL, a large one loads it once
SMALL_RUN = 256 * 1024
_hashed = [0]
_builtin: list[Callable[[bytes], Any]] = []


def digest(data: bytes) -> str:
    """The SHA-256 of `data`, in hex."""
    _hashed[0] += len(data)
    if _hashed[0] <= SMALL_RUN and (_builtin or _find_builtin()):
        return str(_builtin[0](data).hexdigest())
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _find_builtin() -> bool:
    try:
        from _sha2 import sha256  # type: ignore[import-not-found]  # Python 3.12+
    except ImportError:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found]  # 3.10, 3.11
        except ImportError:  # a Python built without it: OpenSSL's from the start
            _hashed[0] = SMALL_RUN + 1
            return False
    _builtin.append(sha256)
    return True


def read_link(path: Path | str) -> str | None:
    """The destination of a link at `path`, made absolute without following anything else."""
    try:
        dest = os.readlink(path)
    except OSError:
        return None
    return os.path.normpath(os.path.join(os.path.dirname(path), dest))


def child(parent: Path, name: str) -> Path:
    """`parent / name` for a plain name (no '/', not '.' or '..'): on Python 3.10 to 3.12
    without parsing the whole path again, a quarter of the cost at ten thousand items."""
    make = getattr(parent, "_make_child_relpath", None)
    if make is None:
        return parent / name
    made: Path = make(name)
    base = str(parent)
    if base[:1] == "/":  # and its string, which pathlib would make again on first use
        made._str = base + name if base == "/" else f"{base}/{name}"  # type: ignore[attr-defined]
    return made


def path_in(path: str, folders: dict[str, Path]) -> Path:
    """`Path(path)`, made from its folder's `Path`, which `folders` keeps for the next path in
    that folder, the folder's made so from its own (on Python 3.10 and 3.11 a Path is parsed
    when made: once a path under the first folder, not once a file)."""
    folder, _, name = path.rpartition("/")
    if not folder or name in ("", ".", "..") or path[:2] == "//":  # '//' leads a POSIX root
        return Path(path)
    parent = folders.get(folder)
    if parent is None:
        parent = folders[folder] = path_in(folder, folders)
    return child(parent, name)


def ending_with(directory: Path, suffix: str = "") -> list[Path]:
    """`sorted(directory.glob("*" + suffix))`: the entries of `directory` whose names end so,
    dot files and folders too, none when it cannot be listed; without the pattern that
    pathlib's glob compiles and the `Path`s it sorts (a third of a marketplace's no-op)."""
    try:
        with os.scandir(directory) as listing:
            names = sorted(entry.name for entry in listing if entry.name.endswith(suffix))
    except OSError:
        return []
    return [child(directory, name) for name in names]


def by_parts(paths: Iterable[Path]) -> list[Path]:
    """`sorted(paths)` on POSIX, with each path's key made once rather than per comparison."""
    return sorted(paths, key=lambda path: path.parts)


def gone(path: str) -> bool | None:
    """Whether nothing is at `path` (True), something is (False), or it cannot be told (None)."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return None
    return False


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


# why a config file cannot be edited where it is (see `edit_target`); "" when it can
Unwritable = Literal[
    "",
    "unreadable",
    "dangling",
    "not-regular",
    "read-only-fs",
    "not-yours",
    "unwritable-folder",
    "read-only",
]


def edit_target(path: Path) -> tuple[Path, Unwritable]:
    """The file an edit of the config file at `path` writes, and why it cannot ("" when it
    can). A link (stow, chezmoi and home-manager keep dotfiles so) is followed to the end:
    the file it resolves to is edited, and the link stays; that file must be a regular file
    of this user's, in a folder this user can write in, on a file system that can be
    written. A file without its owner's write bit is read-only: the user made it so, and
    it is not replaced. Nothing there: `path`."""
    import stat

    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return path, ""
    except OSError:
        return path, "unreadable"
    real = path
    if stat.S_ISLNK(info.st_mode):
        real = Path(os.path.realpath(path))
        try:
            info = os.lstat(real)
        except FileNotFoundError:
            return real, "dangling"
        except OSError:
            return real, "unreadable"
    if not stat.S_ISREG(info.st_mode):  # a link still: one in a loop
        return real, "not-regular"
    if real != path:
        try:
            read_only = bool(os.statvfs(real.parent).f_flag & os.ST_RDONLY)
        except OSError:
            read_only = False
        if read_only:
            return real, "read-only-fs"
        if info.st_uid != os.getuid():
            return real, "not-yours"
        if not os.access(real.parent, os.W_OK | os.X_OK):  # the new file is made beside it
            return real, "unwritable-folder"
    if not info.st_mode & stat.S_IWUSR:
        return real, "read-only"
    return real, ""


def read_config(path: Path) -> bytes | None:
    """The bytes of the config file at `path`, through a link as `edit_target` follows it."""
    return read_regular(edit_target(path)[0])


def write_in_place(path: Path, data: bytes, seen: str | None) -> bool:
    """Rewrite the regular file at `path` in place, keeping its inode, so that its other
    names (hard links) see the change; False, writing nothing, when it is no longer what
    `seen` (its digest) says. Not atomic: what can fail for want of room is checked before
    the first byte changes, and a write that fails all the same puts the old bytes back."""
    import errno
    import stat

    fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        old = b"".join(chunks)
        if seen is not None and digest(old) != seen:
            return False
        room = os.fstatvfs(fd)
        if len(data) > len(old) and room.f_bavail * room.f_frsize < len(data) - len(old):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        try:
            _write_at_start(fd, data)
        except OSError:
            with contextlib.suppress(OSError):  # the old bytes fit where they were
                _write_at_start(fd, old)
            raise
    finally:
        os.close(fd)
    return True


def _write_at_start(fd: int, data: bytes) -> None:
    written = 0
    while written < len(data):
        written += os.pwrite(fd, data[written:], written)
    os.ftruncate(fd, len(data))
    os.fsync(fd)


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


def fsync_dir(directory: Path) -> None:
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
    fsync_dir(path.parent)


def replace_regular(path: Path, data: bytes, mode: int) -> None:
    """`write_file` over the regular file at `path`, or where nothing is; anything else there
    (a link, a FIFO, a folder) is not replaced: FileExistsError."""
    import stat

    try:
        found = os.lstat(path)
    except FileNotFoundError:
        pass
    else:
        if not stat.S_ISREG(found.st_mode):
            raise FileExistsError(f"not a regular file: {path}")
    write_file(path, data, mode, replace=True)


@contextlib.contextmanager
def locked(state_dir: Path) -> Iterator[None]:
    """Hold the home's lock: one run that changes files at a time."""
    import fcntl

    state_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(state_dir / "lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another run holds it
            from skilltool import interrupt

            with interrupt.waiting():
                fcntl.flock(fd, fcntl.LOCK_EX)
        # what a killed run left while saving the ledger or the made-dirs record: every run
        # that writes in the state folder holds this lock, so none of them is being written
        sweep([state_dir])
        yield
    finally:
        os.close(fd)


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


def existing(directory: Path) -> Path:
    """The directory, or the nearest of its parents that exists (where mkdir must write)."""
    while not os.path.lexists(directory) and directory != directory.parent:
        directory = directory.parent
    return directory
