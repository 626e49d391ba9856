"""Checkouts written from an archive a source was fetched as (an npm package's tarball, a
zip), by skilltool itself: every member checked before anything is written (a path inside,
a file or a folder, a size that fits), then written into a new folder and renamed into
place, with the archive kept beside it, which local changes are told from."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from skilltool.checkouts import SourceError
from skilltool.fs import TEMP_PREFIX
from skilltool.record import NamedTuple

# what an archive may unpack to: more is refused, not written (a small archive may unpack to
# gigabytes)
MOST_BYTES = 256 * 1024 * 1024
REFUSED = "refused, nothing was written"


class Member(NamedTuple):
    """A file or folder of an archive, at its path in the checkout."""

    path: str
    folder: bool
    executable: bool
    data: bytes


def parts_of(name: str, said: str, what: str) -> list[str]:
    """A member's path as its parts; a SourceError for one that leaves the archive (absolute,
    `..`, a drive or a backslash)."""
    parts = [p for p in name.split("/") if p not in ("", ".")]
    outside = name.startswith("/") or ".." in parts or "\\" in name or "\0" in name
    if outside or (parts and len(parts[0]) == 2 and parts[0][1] == ":"):
        raise SourceError(f"{said}: {what} holds {name!r}, a path outside it; {REFUSED}")
    return parts


def not_a_file(name: str, link: bool, said: str, what: str) -> SourceError:
    kind = "a link" if link else "a device or special file"
    return SourceError(
        f"{said}: {what} holds {name!r}, {kind}, which skilltool does not write; {REFUSED}"
    )


def over_budget(total: int, said: str, what: str) -> None:
    if total > MOST_BYTES:
        raise SourceError(f"{said}: {what} unpacks to more than {MOST_BYTES >> 20} MiB; {REFUSED}")


def collected(items: Iterable[Member], said: str, what: str) -> list[Member]:
    """The members by path, sorted; a SourceError for a path that is both a file and a folder
    (written, one would be written through the other)."""
    found: dict[str, Member] = {}
    for item in items:
        if item.path in found and found[item.path].folder != item.folder:
            raise _both(item.path, said, what)
        found[item.path] = item
    files = {m.path for m in found.values() if not m.folder}
    for path in files:
        above = path.rpartition("/")[0]
        while above:
            if above in files:
                raise _both(above, said, what)
            above = above.rpartition("/")[0]
    return sorted(found.values(), key=lambda m: m.path)


def _both(path: str, said: str, what: str) -> SourceError:
    return SourceError(f"{said}: {what} holds {path!r} both as a file and a folder; {REFUSED}")


def unpack(items: list[Member], where: Path) -> None:
    """Write checked members into the new, empty folder `where`, never through a link."""
    where.mkdir(parents=True)
    for item in items:
        target = where / item.path
        if item.folder:
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        handle = os.open(target, flags, 0o755 if item.executable else 0o644)
        with os.fdopen(handle, "wb") as out:
            out.write(item.data)


def write_checkout(
    place: Path, folder: str, name: str, items: list[Member], kept: str, data: bytes
) -> None:
    """`place/folder/name/` written from `items`, with the archive `data` kept beside it as
    `place/folder/kept`: made aside and renamed into place whole. One there already (the same
    digest names it) is left as it is."""
    top = place / folder
    if os.path.isdir(top / name):
        return
    staging = place / f"{TEMP_PREFIX}{folder}-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        unpack(items, staging / name)
        (staging / kept).write_bytes(data)
        shutil.rmtree(top, ignore_errors=True)
        os.rename(staging, top)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def differences(items: list[Member], there: Path) -> list[str]:
    """The paths of a checkout that differ from the members it was written from."""
    want = {m.path: m for m in items}
    said = []
    for folder, folders, files in os.walk(there):
        for name in [*folders, *files]:
            full = os.path.join(folder, name)
            path = os.path.relpath(full, there)
            item = want.get(path)
            if item is None:
                if not (name in folders and any(p.startswith(path + "/") for p in want)):
                    said.append(f"{path} added")
                continue
            if os.path.islink(full) or item.folder != os.path.isdir(full):
                said.append(f"{path} changed")
            elif not item.folder:
                try:
                    with open(full, "rb") as handle:
                        same = handle.read() == item.data
                except OSError:
                    same = False
                if not same or bool(os.stat(full).st_mode & 0o111) != item.executable:
                    said.append(f"{path} changed")
    said += [f"{path} removed" for path in want if not os.path.lexists(there / path)]
    return sorted(said)
