"""Every question discovery asks the file system, answered and remembered, so that a later
run can tell from a few stats that the answers are still the same (the catalogue cache).

What is remembered, and why it is enough:
- a thing found (a file read or stat'ed, a folder listed): its stamp (device, inode, size,
  mtime, ctime), following links or not as the question did;
- a thing not found: the stamp of the folder it was looked for in (creating, removing or
  renaming an entry changes the folder's mtime and ctime), or of the nearest one that exists;
- a path resolved (is this link inside the plugin?): each component's identity, and each
  link's own stamp (a link cannot change in place: replacing it makes a new inode).
A stamp is trusted only when what it stamps is older than the moment it was taken by more
than `racy_window` (a change within the file system's timestamp granularity may not move it).

Discovery reaches the file system only through `now` (tests/test_trust.py checks the source).
"""

from __future__ import annotations

import _thread
import contextlib
import os
import stat
import struct
import time
from collections.abc import Callable, Iterator

Stamp = tuple[int, int, int, int, int]  # dev, ino, size, mtime_ns, ctime_ns
# how far the time the kernel stamps a change with may lag the clock (a tick: 10 ms at 100 Hz)
TICK_NS = 20_000_000
clock = time.time_ns  # tests patch this to make recorded stamps old enough


def racy_window(ctime: int) -> int:
    """How much younger than the moment it was looked at a thing may be and still hide a later
    change (git's racy-index rule): its file system's timestamp granularity as its ctime shows
    it, the largest power of ten that divides it up to a second, doubled (FAT keeps two
    seconds), and a tick. A fixed 2 s kept every run within 2 s of a change on the slow path,
    where ext4, XFS, Btrfs, APFS and tmpfs stamp to the nanosecond."""
    grain = 1
    while grain < 1_000_000_000 and not ctime % (grain * 10):
        grain *= 10
    return 2 * grain + TICK_NS


def old_enough(mtime: int, ctime: int, taken: int) -> bool:
    """Whether any change after `taken` (ns, before the stat) must move this mtime or ctime."""
    return max(mtime, ctime) < taken - racy_window(ctime)


LINK_HOPS = 40


def stamp_of(st: os.stat_result) -> Stamp:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _identity(st: os.stat_result) -> Stamp:
    """What a path component must stay: the same object, of the same type (a link's ctime too,
    since a link replaced by one elsewhere may reuse the inode number)."""
    link = stat.S_ISLNK(st.st_mode)
    return (st.st_dev, st.st_ino, stat.S_IFMT(st.st_mode), 0, st.st_ctime_ns if link else 0)


class Probe:
    """The file-system questions of one discovery; `record` False: answered, not remembered."""

    def __init__(self, record: bool = True) -> None:
        self.record = record
        self.since = clock()  # stamps are compared with the moment before the first question
        self.follow: dict[str, Stamp] = {}  # path -> stamp, links followed
        self.nofollow: dict[str, Stamp] = {}  # path -> stamp of the path itself
        self.identity: dict[str, Stamp] = {}  # path component -> what it must stay
        self.unstable = False  # something changed while it was looked at: nothing kept

    def _keep(self, table: dict[str, Stamp], path: str, value: Stamp) -> None:
        if not self.record:
            return
        other = self.nofollow if table is self.follow else self.follow
        if other.get(path) == value:
            return  # the same inode with or without following: not a link, checked once
        if table.setdefault(path, value) != value:
            self.unstable = True  # changed while it was looked at

    def stat(self, path: str | os.PathLike[str], follow: bool = True) -> os.stat_result | None:
        """The stat of `path` (None: nothing there, or it cannot be told), remembered."""
        return self._stat(os.fspath(path), follow, 0)

    def _stat(self, path: str, follow: bool, hops: int) -> os.stat_result | None:
        try:
            st = os.stat(path) if follow else os.lstat(path)
        except OSError:
            self._missing(path, follow, hops)
            return None
        self._keep(self.follow if follow else self.nofollow, path, stamp_of(st))
        return st

    def _missing(self, path: str, follow: bool, hops: int = 0) -> None:
        """Nothing at `path`: what would change if something appeared there."""
        if not self.record:
            return
        if follow:
            try:
                link = os.lstat(path)
            except OSError:
                link = None
            if link is not None and stat.S_ISLNK(link.st_mode):  # dangling: where it leads
                self._keep(self.nofollow, path, stamp_of(link))
                try:
                    dest = os.path.join(os.path.dirname(path), os.readlink(path))
                except OSError:
                    self.unstable = True
                    return
                if hops >= LINK_HOPS:
                    self.unstable = True  # a loop: its answer is not worth keeping
                    return
                self._missing(os.path.normpath(dest), True, hops + 1)
                return
        parent = os.path.dirname(path)
        if parent == path or not parent or hops >= LINK_HOPS:
            self.unstable = True
            return
        # missing too: the nearest folder that exists is remembered
        self._stat(parent, True, hops + 1)

    def isdir(self, path: str | os.PathLike[str]) -> bool:
        st = self.stat(path)
        return st is not None and stat.S_ISDIR(st.st_mode)

    def isfile(self, path: str | os.PathLike[str]) -> bool:
        st = self.stat(path)
        return st is not None and stat.S_ISREG(st.st_mode)

    def exists(self, path: str | os.PathLike[str]) -> bool:
        return self.stat(path) is not None

    def lexists(self, path: str | os.PathLike[str]) -> bool:
        return self.stat(path, follow=False) is not None

    def islink(self, path: str | os.PathLike[str]) -> bool:
        st = self.stat(path, follow=False)
        return st is not None and stat.S_ISLNK(st.st_mode)

    def access(self, path: str | os.PathLike[str], mode: int) -> bool:
        """`os.access`, with the stamp of the thing (a chmod changes its ctime)."""
        self.stat(path)
        return os.access(path, mode)

    def scandir(self, path: str | os.PathLike[str]) -> list[os.DirEntry[str]]:
        """The entries of a folder, its stamp taken first; raises OSError as `os.scandir`."""
        self.stat(path)
        with os.scandir(path) as it:
            return list(it)

    def entry_is_dir(self, entry: os.DirEntry[str]) -> bool:
        """A listed entry is a folder (a link to one: what it leads to, remembered)."""
        try:
            if entry.is_symlink():
                return self.isdir(entry.path)
            return entry.is_dir()
        except OSError:
            return False

    def opened(self, path: str | os.PathLike[str], fd: int) -> os.stat_result:
        """The stat of a file just opened (links followed) for reading, remembered."""
        st = os.fstat(fd)
        self._keep(self.follow, os.fspath(path), stamp_of(st))
        return st

    def read_regular(self, path: str | os.PathLike[str]) -> bytes | None:
        """`fs.read_regular` (a regular file, not through a link), remembered."""
        from skilltool.fs import read_regular

        if self.stat(path, follow=False) is None:
            return None
        return read_regular(path)  # type: ignore[arg-type]

    def realpath(self, path: str | os.PathLike[str]) -> str:
        """`os.path.realpath`, remembering every component and link it went through."""
        if not self.record:
            return os.path.realpath(path)
        done, parts, hops = "/", os.path.join(os.getcwd(), path).split("/"), 0
        while parts:
            part = parts.pop(0)
            if part in ("", "."):
                continue
            if part == "..":
                done = os.path.dirname(done)
                continue
            here = os.path.join(done, part)
            try:
                st = os.lstat(here)
            except OSError:
                self._missing(here, False)
                return os.path.join(here, *parts)
            self._keep(self.identity, here, _identity(st))
            if not stat.S_ISLNK(st.st_mode):
                done = here
                continue
            hops += 1
            if hops > LINK_HOPS:
                self.unstable = True  # a loop: its answer is not worth keeping
                return os.path.realpath(path)
            dest = os.readlink(here)
            done = "/" if dest.startswith("/") else done
            parts = dest.split("/") + parts
        return done

    @staticmethod
    def unchanged_as(follow: Packed, nofollow: Packed, identity: dict[str, Stamp]) -> bool:
        """Whether every answer kept (`pack`ed stamps, identities) would be the same now."""
        if not (_unchanged(follow, os.stat) and _unchanged(nofollow, os.lstat)):
            return False
        for path, want in identity.items():
            try:
                st = os.lstat(path)
            except OSError:
                return False
            if _identity(st) != want:
                return False
        return True

    def settled(self) -> bool:
        """Whether every stamp is old enough to be trusted (not racy), and nothing moved."""
        if self.unstable:
            return False
        since = self.since
        for table in (self.follow, self.nofollow):
            for _, _, _, mtime, ctime in table.values():
                if not old_enough(mtime, ctime, since):
                    return False
        # a link's ctime (0 for anything else: not kept)
        return all(not ctime or old_enough(0, ctime, since) for *_, ctime in self.identity.values())


# the paths of a table of stamps, and their stamps one after another in a string of bytes
Packed = tuple[tuple[str, ...], bytes]
STAMP = struct.Struct("=QQqqq")  # dev and inode unsigned, size and times signed


def pack(table: dict[str, Stamp]) -> Packed:
    """A table of stamps as the catalogue cache keeps it: loaded at once, where a tuple of
    five integers a path was most of loading the cache at 10,000 skills. Raises ValueError
    for a stamp that does not fit."""
    try:
        return tuple(table), b"".join(STAMP.pack(*stamp) for stamp in table.values())
    except struct.error as err:
        raise ValueError(str(err)) from None


def _unchanged(packed: Packed, look: Callable[[str], os.stat_result]) -> bool:
    paths, stamps = packed
    make, now = STAMP.pack, []
    try:
        for path in paths:
            st = look(path)
            now.append(make(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    except (OSError, struct.error):
        return False
    return b"".join(now) == stamps


now = Probe(record=False)  # what discovery asks through; `recording` swaps in one that records


_one_at_a_time = _thread.allocate_lock()  # `now` is one for the process: one recording


@contextlib.contextmanager
def recording() -> Iterator[Probe]:
    """Discovery's questions remembered for the duration (the catalogue cache); two threads
    discovering at once take turns, so neither's questions land in the other's record."""
    global now
    with _one_at_a_time:
        was, now = now, Probe()
        try:
            yield now
        finally:
            now = was
