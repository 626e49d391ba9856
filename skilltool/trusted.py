"""The catalogue cache: the whole discovery of the last run, trusted while every answer it
was built from is the same (`probe`), so that a no-op builds the plugins without walking or
parsing them; and, beside it, the skills dirs last seen exactly as planned.

`~/.cache/skilltool/catalogue.marshal`, a marshal of {"format", "key", "since", "follow",
"nofollow", "identity", "catalogue", "links"}. Losing it costs only time, a damaged one is
ignored, a run that changed nothing does not rewrite it.
"""

from __future__ import annotations

import marshal
import os
from pathlib import Path
from typing import Any

from skilltool import __version__, probe
from skilltool.fs import path_in, write_file
from skilltool.model import (
    Agent,
    Catalogue,
    Marketplace,
    MarketplaceEntry,
    McpServer,
    Plugin,
    Problem,
    SearchEntry,
    Skill,
    SlashCommand,
)

FORMAT = f"skilltool-catalogue-1-{__version__}"
# the modules whose code decides what discovery finds: changed in place, the cache is stale
DISCOVERY_MODULES = ("discover", "parse", "mcp", "slash", "model", "probe", "trusted", "cache")

# how each field of each value type is kept: "v" as it is, "p" a Path, "o" a Path or None,
# "t" a tuple of Paths, "m" a mapping (kept as a dict), a class: one of those, "*" + a class:
# a tuple of them
SCHEMA: dict[type, tuple[Any, ...]] = {}


def _schema() -> dict[type, tuple[Any, ...]]:
    if not SCHEMA:
        SCHEMA.update(
            (cls, tuple(kinds.split()))
            for cls, kinds in (
                (Problem, "p v v v v"),
                (SearchEntry, "p v v"),
                (Skill, "v p v m v"),
                (Agent, "v p v v v v v m m m v"),
                (SlashCommand, "v p v v v v v m m"),
                (McpServer, "v p v v v m v v m v"),
                (MarketplaceEntry, "v v v m v"),
                (Marketplace, "v p p v *MarketplaceEntry"),
                (Plugin, "v p v o *Skill *Agent *Problem o v v t t t *SlashCommand *McpServer t"),
            )
        )
    return SCHEMA


def _by_name() -> dict[str, type]:
    return {cls.__name__: cls for cls in _schema()}


def _out(value: Any, kind: Any) -> Any:
    if kind == "v":
        return value
    if kind == "p":
        return str(value)
    if kind == "o":
        return None if value is None else str(value)
    if kind == "t":
        return tuple(str(p) for p in value)
    if kind == "m":
        return dict(value)
    cls = _by_name()[kind[1:]]
    return tuple(_encode(item, cls) for item in value)


def _encode(value: Any, cls: type) -> tuple[Any, ...]:
    return tuple(_out(field, kind) for field, kind in zip(value, _schema()[cls], strict=True))


def _in(value: Any, kind: Any, names: dict[str, type]) -> Any:
    if kind == "v" or kind == "m":
        return value
    if kind == "p":
        return Path(value)
    if kind == "o":
        return None if value is None else Path(value)
    if kind == "t":
        return tuple(map(Path, value))
    cls = names[kind[1:]]
    return tuple(_decode(item, cls, names) for item in value)


def _decode(row: tuple[Any, ...], cls: type, names: dict[str, type]) -> Any:
    kinds = _schema()[cls]
    return cls(*[_in(field, kind, names) for field, kind in zip(row, kinds, strict=True)])


def _skill_out(skill: Skill) -> tuple[Any, ...]:
    """A skill as kept: its description once when the frontmatter's is the same string."""
    fields = dict(skill.fields)
    same = fields.get("description") == skill.description
    return (
        skill.name,
        str(skill.path),
        None if same else skill.description,
        fields,
        skill.repaired,
    )


def _plugin_out(plugin: Plugin) -> tuple[Any, ...]:
    row = list(_encode(plugin._replace(skills=()), Plugin))
    row[4] = tuple(_skill_out(s) for s in plugin.skills)
    return tuple(row)


def _skills_in(rows: tuple[Any, ...]) -> tuple[Skill, ...]:
    """The skills of a plugin, the Path of each made from its folder's (a tenth of the cost
    of parsing each path anew on Python 3.10 and 3.11, where Paths are parsed when made)."""
    folders: dict[str, Path] = {}
    skills = []
    for name, path, description, fields, repaired in rows:
        if description is None:
            description = fields["description"]
        skills.append(Skill(name, path_in(path, folders), description, fields, repaired))
    return tuple(skills)


def _plugin_in(row: tuple[Any, ...], names: dict[str, type]) -> Plugin:
    plugin: Plugin = _decode((*row[:4], (), *row[5:]), Plugin, names)
    return plugin._replace(skills=_skills_in(row[4]))


def encode(catalogue: Catalogue) -> tuple[Any, ...]:
    """The catalogue as values marshal stores (raises ValueError when one holds another)."""
    return (
        tuple(_encode(e, SearchEntry) for e in catalogue.entries),
        tuple(_plugin_out(p) for p in catalogue.plugins),
        tuple(_encode(p, Problem) for p in catalogue.problems),
        {str(k): v for k, v in catalogue.layouts.items()},
        tuple(_encode(m, Marketplace) for m in catalogue.marketplaces),
        frozenset(str(p) for p in catalogue.read),
    )


def decode(row: tuple[Any, ...]) -> Catalogue:
    names = _by_name()
    entries, plugins, problems, layouts, markets, read = row
    return Catalogue(
        tuple(_decode(e, SearchEntry, names) for e in entries),
        tuple(_plugin_in(p, names) for p in plugins),
        tuple(_decode(p, Problem, names) for p in problems),
        {Path(k): v for k, v in layouts.items()},
        tuple(_decode(m, Marketplace, names) for m in markets),
        frozenset(map(Path, read)),
    )


def discovery_key(entries: tuple[SearchEntry, ...]) -> str:
    """Everything but the file system that discovery depends on: the search path (itself made
    from the environment), skilltool's version and the stat of its discovery modules."""
    here = os.path.dirname(__file__)
    code = []
    for name in DISCOVERY_MODULES:
        try:
            st = os.stat(os.path.join(here, name + ".py"))
        except OSError:
            return ""  # a module not where it is looked for: nothing is trusted
        code.append(probe.stamp_of(st))
    searched = [(str(e.path), e.origin, e.only) for e in entries]
    return repr((FORMAT, searched, code))


class CatalogueCache:
    """The catalogue of an earlier run, if every answer it came from still holds."""

    def __init__(self, file: Path | None, entries: tuple[SearchEntry, ...]) -> None:
        self.file = file
        self.key = discovery_key(entries)
        self.old: dict[str, Any] = _load(file) if file is not None and self.key else {}
        self.catalogue: Catalogue | None = None  # the trusted one, when there is one
        self.current: dict[str, Any] | None = None  # what is kept: the old one, or this run's
        self.new: dict[str, Any] | None = None  # set when there is something to write
        self.clean: set[str] = set()  # skills dirs trusted as planned this run
        if self.old.get("key") == self.key and _still(self.old):
            try:
                self.catalogue = decode(self.old["catalogue"])
                self.current = self.old
            except (KeyError, TypeError, ValueError):
                self.catalogue = None

    def keep(self, catalogue: Catalogue, seen: probe.Probe) -> None:
        """The catalogue just discovered, kept only if every stamp it came from is settled
        (encoded when saved: by then the parse cache is gone, which keeps the peak down)."""
        if not self.key or not seen.settled():
            return
        self.current = self.new = {
            "format": FORMAT,
            "key": self.key,
            "since": seen.since,
            "follow": seen.follow,
            "nofollow": seen.nofollow,
            "identity": seen.identity,
            "catalogue": catalogue,
            "links": {},
        }

    def saw_links(self, directory: Path, stamp: probe.Stamp | None, taken: int) -> None:
        """Every entry of `directory` was a link of this catalogue's, as planned, when its
        stamp was taken at `taken` (ns): trusted next time if the stamp is not racy."""
        kept = self.current
        if kept is None or stamp is None or max(stamp[3], stamp[4]) >= taken - probe.RACY_NS:
            return
        if kept["links"].get(str(directory)) != stamp:
            self.current = self.new = dict(kept, links={**kept["links"], str(directory): stamp})

    def links_as_planned(self, directory: Path, stamp: probe.Stamp | None) -> bool:
        """Whether `directory` has the stamp it had when every entry in it was a link of this
        (trusted) catalogue's as planned: a link replaced, removed or added changes it."""
        if self.catalogue is None or stamp is None or self.current is None:
            return False
        if self.current["links"].get(str(directory)) != stamp:
            return False
        self.clean.add(str(directory))
        return True

    def save(self) -> None:
        if self.file is None or self.new is None or self.new is self.old:
            return
        new = dict(self.new)
        if isinstance(new["catalogue"], Catalogue):
            try:
                new["catalogue"] = encode(new["catalogue"])
            except (ValueError, TypeError):
                return
        if new == self.old:
            return
        try:
            data = marshal.dumps(new)
        except ValueError:
            return  # a value marshal cannot store (an explicit !!timestamp): discovered each run
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            write_file(self.file, data, 0o644, replace=True)
        except OSError:
            pass  # a cache that cannot be written costs time, not correctness


def _load(file: Path) -> dict[str, Any]:
    try:
        data = marshal.loads(file.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    return data if isinstance(data, dict) and data.get("format") == FORMAT else {}


def _still(old: dict[str, Any]) -> bool:
    """Whether every file-system answer the cached catalogue came from is the same now."""
    try:
        return probe.Probe.unchanged_as(old["follow"], old["nofollow"], old["identity"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return False
