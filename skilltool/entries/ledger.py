"""The ownership ledger: every entry skilltool wrote into a config file it shares with the
user, and the digest of its value (SPEC §5, "Entries of shared files")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skilltool.fs import read_regular, write_file
from skilltool.model import EntryRecord


def _json_loads(data: bytes) -> Any:
    """JSON read, imported only when there is a ledger to read (most runs have none)."""
    import json

    return json.loads(data)


class Ledger:
    """The entries skilltool wrote into config files it shares with the user, kept in the
    state dir: an entry is ours only when it is here and its value is still the one
    recorded. Saved before an entry is added and after one is removed, so that a crash
    never leaves an entry of ours unrecorded (a record of an entry not there is harmless)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path  # none: a ledger of this run alone, never saved
        self.entries: dict[tuple[str, tuple[str, ...], str], EntryRecord] = {}
        self.files: set[str] = set()  # config files skilltool created
        self.tables: set[tuple[str, tuple[str, ...]]] = set()  # tables skilltool created
        data = read_regular(self.path) if self.path is not None else None
        try:
            loaded = _json_loads(data) if data is not None else {}
        except ValueError:
            loaded = {}  # a damaged ledger proves nothing ours: every entry is then foreign
        for item in loaded.get("entries", []) if isinstance(loaded, dict) else []:
            try:
                record = EntryRecord(
                    item["harness"],
                    Path(item["file"]),
                    item["format"],
                    tuple(item["table"]),
                    item["name"],
                    item["digest"],
                    Path(item["source"]),
                )
            except (KeyError, TypeError):
                continue
            self.entries[record.key] = record
        if isinstance(loaded, dict):
            self.files = {f for f in loaded.get("created_files", []) if isinstance(f, str)}
            self.tables = {
                (t[0], tuple(t[1])) for t in loaded.get("created_tables", []) if len(t) == 2
            }

    def get(self, file: Path, table: tuple[str, ...], name: str) -> EntryRecord | None:
        return self.entries.get((str(file), table, name))

    def of(self, harness: str) -> list[EntryRecord]:
        return sorted((r for r in self.entries.values() if r.harness == harness), key=_order)

    def created_file(self, file: Path) -> bool:
        return str(file) in self.files

    def created_table(self, file: Path, table: tuple[str, ...]) -> bool:
        return (str(file), table) in self.tables

    def add(self, record: EntryRecord) -> None:
        self.entries[record.key] = record._replace(created_file=False, created_table=False)
        if record.created_file:
            self.files.add(str(record.file))
        if record.created_table:
            self.tables.add((str(record.file), record.table))
        self.save()

    def drop(self, record: EntryRecord) -> None:
        self.entries.pop(record.key, None)
        if record.created_file:  # the removal removed the file
            self.files.discard(str(record.file))
        if record.created_file or record.created_table:
            self.tables.discard((str(record.file), record.table))
        self.save()

    def save(self) -> None:
        if self.path is None:
            return
        data = {
            "version": 1,
            "entries": [
                {
                    "harness": r.harness,
                    "file": str(r.file),
                    "format": r.format,
                    "table": list(r.table),
                    "name": r.name,
                    "digest": r.digest,
                    "source": str(r.source),
                }
                for r in sorted(self.entries.values(), key=_order)
            ],
            "created_files": sorted(self.files),
            "created_tables": [[f, list(t)] for f, t in sorted(self.tables)],
        }
        import json

        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_file(self.path, text.encode("utf-8"), 0o644, replace=True)


def _order(record: EntryRecord) -> tuple[str, tuple[str, ...], str]:
    return record.key
