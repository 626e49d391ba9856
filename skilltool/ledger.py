"""The ownership ledger: every entry skilltool wrote into a config file it shares with the
user, and the digest of its value (SPEC §5, "Entries of shared files")."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skilltool.fs import read_regular, write_file
from skilltool.model import EntryRecord, Problem, Severity
from skilltool.record import NamedTuple

if TYPE_CHECKING:
    from skilltool.model import McpPlace
    from skilltool.paths import Scope

VERSION = 1  # the newest ledger this skilltool reads and writes
AWAY = "move it away to start a new one (the entries it records are then taken for yours)"
Key = tuple[str, tuple[str, ...], str]


class Pending(NamedTuple):
    """An edit of an entry under way: recorded before the config file is written, settled
    after it (or, after a crash, by what the file holds when it is next read)."""

    record: EntryRecord  # adding: the entry as it is written; removing: as it was recorded
    removing: bool
    was: EntryRecord | None  # the record an add replaces (None: the entry was not ours)


class Damaged(Exception):
    """The ledger is not in the shape skilltool writes: `field`, and what is wrong there."""

    def __init__(self, field: str, what: str) -> None:
        super().__init__(f"{field}: {what}")
        self.field, self.what = field, what


class Newer(Exception):
    """A ledger of a newer skilltool than this one."""

    def __init__(self, version: int) -> None:
        super().__init__(version)
        self.version = version


def _json_loads(data: bytes) -> Any:
    """JSON read, imported only when there is a ledger to read (most runs have none)."""
    import json

    return json.loads(data)


class Ledger:
    """The entries skilltool wrote into config files it shares with the user, kept in the
    state dir: an entry is ours only when it is here and its value is still the one
    recorded. An edit is recorded as pending before the file is written and settled after,
    so that a crash never leaves an entry of ours unrecorded, nor a record of one that was
    never written (a pending record is settled by what the file then holds, never acted on).

    A ledger that cannot be read, or one of a newer skilltool, is not used at all
    (`problem` says why): no entry of it is ours, none is written or removed, and the file
    is left as it is."""

    def __init__(self, path: Path | None, scope: Scope | None = None) -> None:
        self.path = path  # none: a ledger of this run alone, never saved
        # the paths it records, as the scope records them (a project's: relative to it)
        self._stored: Callable[[Path], str] = scope.stored if scope is not None else str
        self._restored: Callable[[str], Path] = scope.restored if scope is not None else Path
        self.entries: dict[Key, EntryRecord] = {}
        self.pending: dict[Key, Pending] = {}
        self.files: set[str] = set()  # config files skilltool created
        self.tables: set[tuple[str, tuple[str, ...]]] = set()  # tables skilltool created
        self.problem: Problem | None = None  # why it is not used in this run
        self.changed = False  # settled since it was read: the next save records it
        if self.path is None or not os.path.lexists(self.path):
            return
        data = read_regular(self.path)
        if data is None:
            self._refuse("", "is not a regular file (a link or a folder)", AWAY)
            return
        try:
            loaded = _json_loads(data)
        except ValueError as err:  # UnicodeDecodeError included
            self._refuse("", f"does not parse as JSON ({_said(err)})", f"fix it, or {AWAY}")
            return
        try:
            self._load(loaded)
        except Damaged as err:
            self._refuse(err.field, err.what, f"fix it, or {AWAY}")
        except Newer as err:
            why = f"{err.version} is newer than this skilltool reads ({VERSION})"
            self._refuse("version", why, "upgrade skilltool", "error")

    def _refuse(self, field: str, what: str, fix: str, severity: Severity = "warning") -> None:
        """Not used: nothing of it is ours, and the file is never written."""
        assert self.path is not None
        self.entries, self.pending, self.files, self.tables = {}, {}, set(), set()
        why = (
            f"{what}; no MCP entry is taken for skilltool's, written or removed, and the file "
            f"is left as it is: {fix}"
        )
        self.problem = Problem(self.path, why, field or None, severity=severity)

    def _load(self, loaded: Any) -> None:
        if not isinstance(loaded, dict):
            raise Damaged("", "is not a JSON object")
        version = loaded.get("version")
        if type(version) is not int or version < 1:
            raise Damaged("version", "missing, or not a whole number from 1")
        if version > VERSION:
            raise Newer(version)
        for index, item in enumerate(_listed(loaded, "entries")):
            record = self._here(_record(item, f"entries[{index}]"))
            self.entries[record.key] = _plain(record)
        for index, item in enumerate(_listed(loaded, "pending")):
            field = f"pending[{index}]"
            record = self._here(_record(item, field))
            removing = item.get("removing", False)
            if not isinstance(removing, bool):
                raise Damaged(f"{field}.removing", "not true or false")
            was = item.get("was")
            before = None if was is None else _plain(self._here(_record(was, f"{field}.was")))
            self.pending[record.key] = Pending(record, removing, before)
            self.entries.pop(record.key, None)  # an edit under way: proves nothing until settled
        for index, file in enumerate(_listed(loaded, "created_files")):
            if not isinstance(file, str):
                raise Damaged(f"created_files[{index}]", "not a string")
            self.files.add(str(self._restored(file)))
        for index, pair in enumerate(_listed(loaded, "created_tables")):
            field = f"created_tables[{index}]"
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)):
                raise Damaged(field, "not a [file, table] pair")
            self.tables.add((str(self._restored(pair[0])), _strings(pair[1], field)))

    def _here(self, record: EntryRecord) -> EntryRecord:
        """A record as read, its paths those of this machine."""
        restore = self._restored
        return record._replace(file=restore(str(record.file)), source=restore(str(record.source)))

    def _fields(self, record: EntryRecord) -> dict[str, Any]:
        return {
            "harness": record.harness,
            "file": self._stored(record.file),
            "format": record.format,
            "table": list(record.table),
            "name": record.name,
            "digest": record.digest,
            "source": self._stored(record.source),
        }

    # ----------------------------------------------------------------------- reading

    def get(self, file: Path, table: tuple[str, ...], name: str) -> EntryRecord | None:
        return self.entries.get((str(file), table, name))

    def of(self, harness: str) -> list[EntryRecord]:
        """The settled records of a harness's entries: those it acts on."""
        return sorted((r for r in self.entries.values() if r.harness == harness), key=_order)

    def every(self, harness: str) -> list[EntryRecord]:
        """Every record of a harness's entries, pending ones too: the files a plan reads."""
        return [r for r in self.records() if r.harness == harness]

    def records(self) -> list[EntryRecord]:
        """Every record, pending ones too."""
        pending = [p.record for p in self.pending.values()]
        return sorted([*self.entries.values(), *pending], key=_order)

    def created_file(self, file: Path) -> bool:
        return str(file) in self.files

    def created_table(self, file: Path, table: tuple[str, ...]) -> bool:
        return (str(file), table) in self.tables

    def settle(
        self, harness: str, place: McpPlace, digest_of: Callable[[str], str | None] | None
    ) -> None:
        """What a harness's config file holds now, as planning read it (`digest_of`: the
        digest of the entry of a name, None when there is none; None: there is no file). A
        pending edit is settled by it: done when the file holds what it wrote, undone when
        the file holds what was recorded before, dropped otherwise; a record of an entry no
        longer there is dropped. Only in memory: the next save records it."""
        where, table = str(place.path), place.table

        def here(record: EntryRecord) -> bool:
            same = (record.harness, record.format, record.table) == (harness, place.format, table)
            return same and str(record.file) == where

        if digest_of is None:  # the file is gone: skilltool no longer created it
            self.changed |= where in self.files
            self.files.discard(where)
            gone = {t for t in self.tables if t[0] == where}
            self.tables -= gone
            self.changed |= bool(gone)
        found = digest_of or _nothing
        for key, record in list(self.entries.items()):
            if here(record) and not found(record.name):
                del self.entries[key]  # a record of an entry not there proves nothing
                self.changed = True
        for key, pending in list(self.pending.items()):
            record = pending.record
            if not here(record):
                continue
            del self.pending[key]
            self.changed = True
            now = found(record.name)
            if pending.removing:
                if now is None:
                    self._forget(record)
                elif now == record.digest:
                    self.entries[key] = _plain(record)
            elif now == record.digest:
                self._record(record)
            elif pending.was is not None and now == pending.was.digest:
                self.entries[key] = pending.was

    # ----------------------------------------------------------------------- writing

    def begin(self, record: EntryRecord, removing: bool = False) -> None:
        """An edit about to be made: recorded (and saved) as pending before the file is
        written, so that a crash leaves a record that proves nothing until settled."""
        if self.problem is not None:
            raise OSError(f"{self.path}: not used in this run")
        before = self.entries.pop(record.key, None)
        self.pending[record.key] = Pending(record, removing, None if removing else before)
        self.save()

    def add(self, record: EntryRecord) -> None:
        """An entry written: recorded as ours, its pending record done."""
        self.pending.pop(record.key, None)
        self._record(record)
        self.save()

    def drop(self, record: EntryRecord) -> None:
        """An entry removed: no longer recorded."""
        self.pending.pop(record.key, None)
        self._forget(record)
        self.save()

    def _record(self, record: EntryRecord) -> None:
        self.entries[record.key] = _plain(record)
        if record.created_file:
            self.files.add(str(record.file))
        if record.created_table:
            self.tables.add((str(record.file), record.table))

    def _forget(self, record: EntryRecord) -> None:
        self.entries.pop(record.key, None)
        if record.created_file:  # the removal removed the file
            self.files.discard(str(record.file))
        if record.created_file or record.created_table:
            self.tables.discard((str(record.file), record.table))

    def save(self) -> None:
        if self.path is None or self.problem is not None:
            return
        fields, stored = self._fields, self._stored
        data = {
            "version": VERSION,
            "entries": [fields(r) for r in sorted(self.entries.values(), key=_order)],
            "pending": [
                {
                    **fields(p.record),
                    "created_file": p.record.created_file,
                    "created_table": p.record.created_table,
                    "removing": p.removing,
                    "was": fields(p.was) if p.was is not None else None,
                }
                for p in sorted(self.pending.values(), key=lambda p: p.record.key)
            ],
            "created_files": sorted(stored(Path(f)) for f in self.files),
            "created_tables": sorted([stored(Path(f)), list(t)] for f, t in self.tables),
        }
        import json

        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_file(self.path, text.encode("utf-8"), 0o644, replace=True)
        self.changed = False


def _said(err: ValueError) -> str:
    line = getattr(err, "lineno", None)
    message = getattr(err, "msg", None) or str(err)
    return f"line {line}: {message}" if line else message


def _listed(loaded: dict[str, Any], key: str) -> list[Any]:
    value = loaded.get(key, [])
    if not isinstance(value, list):
        raise Damaged(key, "not a list")
    return value


def _strings(value: Any, field: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Damaged(field, "not a list of strings")
    return tuple(value)


def _record(item: Any, field: str) -> EntryRecord:
    """One record as read, or the field that is not as skilltool writes it."""
    if not isinstance(item, dict):
        raise Damaged(field, "not an object")
    for key in ("harness", "file", "format", "name", "digest", "source"):
        if not isinstance(item.get(key), str):
            raise Damaged(f"{field}.{key}", "missing or not a string")
    table = _strings(item.get("table"), f"{field}.table")
    created = [item.get(key, False) for key in ("created_file", "created_table")]
    if not all(isinstance(flag, bool) for flag in created):
        raise Damaged(field, "created_file and created_table are true or false")
    return EntryRecord(
        item["harness"],
        Path(item["file"]),
        item["format"],
        table,
        item["name"],
        item["digest"],
        Path(item["source"]),
        *created,
    )


def _plain(record: EntryRecord) -> EntryRecord:
    """A settled record: what it created is kept in the ledger's sets, not on it."""
    return record._replace(created_file=False, created_table=False)


def _nothing(name: str) -> str | None:
    return None


def _order(record: EntryRecord) -> Key:
    return record.key
