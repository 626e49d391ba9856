"""The catalogue cache: the whole discovery of the last run, trusted while every answer it
was built from is the same (`probe`), so that a no-op builds the plugins without walking or
parsing them; and, beside it, the skills dirs last seen exactly as planned.

`~/.cache/skilltool/catalogue.marshal`, a marshal of {"format", "key", "since", "follow",
"nofollow", "identity", "catalogue", "packed", "links"}. Each plugin's skills are kept packed (a
marshal of their names and paths, one of the rest) and made into `Skill`s only when something
reads them: a no-op whose skills dirs are as planned reads none. Losing the file costs only
time, a damaged one is ignored, a run that changed nothing does not rewrite it.
"""

from __future__ import annotations

import marshal
import os
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any, overload

from skilltool import __version__, probe
from skilltool.fs import path_in, read_regular, replace_regular
from skilltool.model import (
    Agent,
    Catalogue,
    Hook,
    LazySkills,
    LspServer,
    Marketplace,
    MarketplaceEntry,
    McpServer,
    Plugin,
    Problem,
    SearchEntry,
    Skill,
    SlashCommand,
    named_paths,
)

FORMAT = f"skilltool-catalogue-9-{__version__}"
# the modules whose code decides what discovery finds: changed in place, the cache is stale
DISCOVERY_MODULES = (
    "discover",
    "folders",
    "parse",
    "parse_hooks",
    "parse_options",
    "parse_servers",
    "mcp",
    "slash",
    "model",
    "probe",
    "trusted",
    "cache",
)

# how each field of each value type is kept, and of what type it must be read back: "s" a
# string, "s?" a string or None, "i?" an int or None, "b" a bool, "S" a tuple of strings, "sm" a
# string or a mapping, "m" a mapping of data as read (kept as a dict), "mi" one of ints, "ms" one
# of strings, "mm" one of mappings, "p" a Path, "o" a Path or None, "t" a tuple of Paths, "k" a
# plugin's skills (packed), "*" + a class: a tuple of them
SCHEMA: dict[type, tuple[Any, ...]] = {}


def _schema() -> dict[type, tuple[Any, ...]]:
    if not SCHEMA:
        SCHEMA.update(
            (cls, tuple(kinds.split()))
            for cls, kinds in (
                (Problem, "p s s? i? s"),
                (SearchEntry, "p s S S s? s?"),
                (Skill, "s p s m b"),
                (Agent, "s p s s S S s? mm mi m b m s?"),
                (SlashCommand, "s p s s s? S s? mi m"),
                (McpServer, "s p s s? S ms s? s? ms i? ms"),
                (MarketplaceEntry, "s sm b m i?"),
                (Marketplace, "s p p s? *MarketplaceEntry S m"),
                (Hook, "s s s i? p i i i?"),
                (LspServer, "s p s S ms ms i? m ms"),
                (
                    Plugin,
                    "s p s o k *Agent *Problem o s s? t t t *SlashCommand *McpServer t *Hook s? "
                    "*LspServer S mm mm s? b mm",
                ),
            )
        )
    return SCHEMA


def _by_name() -> dict[str, type]:
    return {cls.__name__: cls for cls in _schema()}


def _out(value: Any, kind: Any) -> Any:
    if kind == "p":
        return str(value)
    if kind == "o":
        return None if value is None else str(value)
    if kind == "t":
        return tuple(str(p) for p in value)
    if kind[0] == "m":
        return dict(value)
    if kind == "k":
        return _skills_out(value)
    if kind[0] == "*":
        cls = _by_name()[kind[1:]]
        return tuple(_encode(item, cls) for item in value)
    return value


def _encode(value: Any, cls: type) -> tuple[Any, ...]:
    return tuple(_out(field, kind) for field, kind in zip(value, _schema()[cls], strict=True))


Decoder = Callable[[Any], Any]
Types = frozenset[type]  # the types one value may be
Shape = frozenset[tuple[type, ...]]  # the types, one a field, a tuple kept may hold
# per value type, made once a run: a function per field that makes its value from what is kept
# (None: as it is), and the shape of what is kept
DECODERS: dict[type, tuple[tuple[Decoder | None, ...], Shape]] = {}
STRING: Types = frozenset({str})
TUPLE: Types = frozenset({tuple})
DICT: Types = frozenset({dict})
TYPES: dict[str, Types] = {
    "s": STRING,
    "s?": frozenset({str, type(None)}),
    "i?": frozenset({int, type(None)}),
    "b": frozenset({bool}),
    "sm": frozenset({str, dict}),
    "p": STRING,
    "o": frozenset({str, type(None)}),
}
INNER = {"mi": int, "ms": str, "mm": dict}  # the type of every value of such a mapping
# what a value of another type than the one written raises where it is used
WRONG_SHAPE = (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError)


class Unexpected(ValueError):
    """A value read back from a cache is not of the shape skilltool writes there."""


def _decoders(cls: type) -> tuple[tuple[Decoder | None, ...], Shape]:
    found = DECODERS.get(cls)
    if found is None:
        names, kinds = _by_name(), _schema()[cls]
        makers = tuple(_decoder(kind, names) for kind in kinds)
        types = [TYPES.get(kind, DICT if kind[0] == "m" else TUPLE) for kind in kinds]
        found = DECODERS[cls] = makers, shape(*types)
    return found


def _decoder(kind: Any, names: dict[str, type]) -> Decoder | None:
    if kind == "p":
        return _path
    if kind == "o":
        return _optional_path
    if kind == "t":
        return _paths  # a value not a string raises in `path_in`
    if kind == "k":
        return PackedSkills
    if kind == "S":
        return strings
    if kind in INNER:
        return partial(mapping_of, inner=INNER[kind])
    if kind[0] == "*":
        cls = names[kind[1:]]
        return lambda rows: tuple([_decode(row, cls) for row in rows]) if rows else ()
    return None  # as it is: its type is checked by `shaped`


def strings(values: tuple[Any, ...]) -> tuple[str, ...]:
    """`values`, when every one is a string (Unexpected otherwise)."""
    for value in values:
        if type(value) is not str:
            raise Unexpected(value)
    return values


def mapping_of(values: dict[Any, Any], inner: type) -> dict[Any, Any]:
    """`values`, a dict, when every value of it is of the type `inner` (Unexpected otherwise)."""
    for value in values.values():
        if type(value) is not inner:
            raise Unexpected(value)
    return values


def shape(*fields: Types) -> Shape:
    """The shape of a tuple of these fields: every tuple of types it may hold."""
    from itertools import product

    return frozenset(product(*fields))


def shaped(row: Any, kept: Shape) -> tuple[Any, ...]:
    """`row`, when it is a tuple of the shape `kept` (Unexpected otherwise): one look-up of
    the types of its values, cheaper than a check per value."""
    if type(row) is not tuple or tuple(map(type, row)) not in kept:
        raise Unexpected(row)
    return row


# the Path of each folder of a path decoded: every Path of the catalogue is made from its
# folder's, a third of the cost of parsing it (Python 3.10, 3.11) at a thousand plugins
FOLDERS: dict[str, Path] = {}


def _path(value: str) -> Path:
    return path_in(value, FOLDERS)


def _optional_path(value: str | None) -> Path | None:
    return None if value is None else path_in(value, FOLDERS)


def _paths(values: tuple[str, ...]) -> tuple[Path, ...]:
    return tuple([path_in(value, FOLDERS) for value in values]) if values else ()


def _decode(row: Any, cls: type) -> Any:
    makers, kept = _decoders(cls)
    if type(row) is not tuple or tuple(map(type, row)) not in kept:  # `shaped`, inlined
        raise Unexpected(row)
    fields = zip(makers, row, strict=True)
    return cls(*[value if make is None else make(value) for make, value in fields])


def _skill_out(skill: Skill) -> tuple[Any, ...]:
    """What a skill holds but its name and path: its description once when the
    frontmatter's is the same string."""
    fields = dict(skill.fields)
    same = fields.get("description") == skill.description
    return (None if same else skill.description, fields, skill.repaired)


def _skills_out(skills: Sequence[Skill]) -> tuple[bytes, bytes]:
    """A plugin's skills packed: a marshal of their names and paths, and one of the rest."""
    if isinstance(skills, PackedSkills) and skills.packed is not None:
        return skills.packed  # kept as it came: never unpacked this run
    named = tuple(named_paths(skills))
    return marshal.dumps(named), marshal.dumps(tuple(_skill_out(s) for s in skills))


class PackedSkills(LazySkills):
    """A plugin's skills as the cache keeps them: a marshal of their names and paths, and one
    of the rest of them, each loaded when first read, once; `Skill`s made only when one is
    read. It equals, and hashes as, the tuple of them."""

    __slots__ = ("_named", "_skills", "packed")

    def __init__(self, packed: tuple[bytes, bytes]) -> None:
        self.packed: tuple[bytes, bytes] | None = packed  # None once unpacked
        self._named: tuple[tuple[str, str], ...] | None = None
        self._skills: tuple[Skill, ...] = ()

    def named_paths(self) -> tuple[tuple[str, str], ...]:
        if self._named is None:
            assert self.packed is not None
            self._named = marshal.loads(self.packed[0])
        return self._named

    def _unpacked(self) -> tuple[Skill, ...]:
        """The skills, each Path made from its folder's (a tenth of the cost of parsing each
        path anew on Python 3.10 and 3.11, where Paths are parsed when made)."""
        if self.packed is not None:
            skills = []
            rest = marshal.loads(self.packed[1])
            for (name, path), (description, fields, repaired) in zip(
                self.named_paths(), rest, strict=True
            ):
                if description is None:
                    description = fields["description"]
                skills.append(Skill(name, path_in(path, FOLDERS), description, fields, repaired))
            self._skills = tuple(skills)
            self.packed = None
        return self._skills

    def __len__(self) -> int:
        return len(self._skills) if self.packed is None else len(self.named_paths())

    @overload
    def __getitem__(self, index: int) -> Skill: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Skill, ...]: ...
    def __getitem__(self, index: int | slice) -> Skill | tuple[Skill, ...]:
        return self._unpacked()[index]

    def __iter__(self) -> Iterator[Skill]:
        return iter(self._unpacked())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PackedSkills):
            other = other._unpacked()
        return isinstance(other, tuple) and self._unpacked() == other

    def __hash__(self) -> int:
        return hash(self._unpacked())

    def __repr__(self) -> str:
        return repr(self._unpacked())


def encode(catalogue: Catalogue) -> tuple[Any, ...]:
    """The catalogue as values marshal stores (raises ValueError when one holds another)."""
    return (
        tuple(_encode(e, SearchEntry) for e in catalogue.entries),
        tuple(_encode(p, Plugin) for p in catalogue.plugins),
        tuple(_encode(p, Problem) for p in catalogue.problems),
        {str(k): v for k, v in catalogue.layouts.items()},
        tuple(_encode(m, Marketplace) for m in catalogue.marketplaces),
        frozenset(str(p) for p in catalogue.read),
    )


CATALOGUE = shape(TUPLE, TUPLE, TUPLE, DICT, TUPLE, frozenset({frozenset}))  # `encode` makes


def decode(row: Any) -> Catalogue:
    """The catalogue `encode` made; one of WRONG_SHAPE when `row` is not what it makes."""
    entries, plugins, problems, layouts, markets, read = shaped(row, CATALOGUE)
    mapping_of(layouts, str)
    return Catalogue(
        tuple([_decode(e, SearchEntry) for e in entries]),
        tuple([_decode(p, Plugin) for p in plugins]),
        tuple([_decode(p, Problem) for p in problems]),
        {Path(k): v for k, v in layouts.items()},
        tuple([_decode(m, Marketplace) for m in markets]),
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
    searched = [(str(e.path), e.origin, e.only, e.skills, e.source, e.harness) for e in entries]
    return repr((FORMAT, searched, code))


class CatalogueCache:
    """The catalogue of an earlier run, if every answer it came from still holds."""

    def __init__(self, file: Path | None, entries: tuple[SearchEntry, ...]) -> None:
        self.file = file
        self.key = discovery_key(entries)
        self.old: dict[str, Any] = load(file, FORMAT) if file is not None and self.key else {}
        self.catalogue: Catalogue | None = None  # the trusted one, when there is one
        self.current: dict[str, Any] | None = None  # what is kept: the old one, or this run's
        self.new: dict[str, Any] | None = None  # set when there is something to write
        self.clean: set[str] = set()  # skills dirs trusted as planned this run
        if self.old.get("key") == self.key and _still(self.old):
            try:
                # the skills are unpacked later, in the middle of a command: whole, or not used
                if self.old["packed"] == _packed_check(self.old["catalogue"]):
                    _links(self.old["links"])
                    self.catalogue = decode(self.old["catalogue"])
                    self.current = self.old
            except WRONG_SHAPE:  # not what `save` writes: no cache
                self.catalogue = None

    def keep(self, catalogue: Catalogue, seen: probe.Probe) -> None:
        """The catalogue just discovered, kept only if every stamp it came from is settled
        (encoded when saved: by then the parse cache is gone, which keeps the peak down)."""
        if not self.key or not seen.settled():
            return
        try:
            follow, nofollow = probe.pack(seen.follow), probe.pack(seen.nofollow)
        except ValueError:
            return  # a stamp that does not fit 64 bits: discovered each run
        self.current = self.new = {
            "format": FORMAT,
            "key": self.key,
            "since": seen.since,
            "follow": follow,
            "nofollow": nofollow,
            "identity": seen.identity,
            "catalogue": catalogue,
            "links": {},
        }

    def saw_links(
        self,
        directory: Path,
        stamp: probe.Stamp | None,
        taken: int,
        count: int,
        clashes: Sequence[Problem],
    ) -> None:
        """Every entry of `directory` was a link of this catalogue's, as planned (`count` of
        them, the skills of `clashes` not linked), or a file or folder left alone (not a link)
        under a name no skill of it has, when its stamp was taken at `taken` (ns): trusted
        next time if the stamp is not racy."""
        kept = self.current
        if kept is None or stamp is None or not probe.old_enough(stamp[3], stamp[4], taken):
            return
        seen = (stamp, count, tuple(_encode(p, Problem) for p in clashes))
        if kept["links"].get(str(directory)) != seen:
            self.current = self.new = dict(kept, links={**kept["links"], str(directory): seen})

    def links_as_planned(
        self, directory: Path, stamp: probe.Stamp | None
    ) -> tuple[int, tuple[Problem, ...]] | None:
        """When `directory` has the stamp it had when its entries were this (trusted)
        catalogue's links as planned, and files and folders left alone (an entry replaced,
        removed or added changes it): how many links there are, and the problems of the
        skills not linked then."""
        if self.catalogue is None or stamp is None or self.current is None:
            return None
        seen = self.current["links"].get(str(directory))
        if not isinstance(seen, tuple) or len(seen) != 3 or seen[0] != stamp:
            return None
        self.clean.add(str(directory))
        return seen[1], tuple(_decode(row, Problem) for row in seen[2])

    def save(self) -> None:
        if self.file is None or self.new is None or self.new is self.old:
            return
        new = dict(self.new)
        if isinstance(new["catalogue"], Catalogue):
            try:
                new["catalogue"] = encode(new["catalogue"])
            except (ValueError, TypeError):
                return
        new["packed"] = _packed_check(new["catalogue"])
        if new == self.old:
            return
        try:
            data = marshal.dumps(new)
        except ValueError:
            return  # a value marshal cannot store (an explicit !!timestamp): discovered each run
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            replace_regular(self.file, data, 0o644)
        except OSError:
            pass  # a cache that cannot be written costs time, not correctness


def _packed_check(catalogue: tuple[Any, ...]) -> int:
    """A CRC-32 of every plugin's packed skills (encoded `catalogue`): a file damaged there
    is not used (1 ms at 10,000 skills, where unpacking them all would cost 40)."""
    import zlib

    where = _schema()[Plugin].index("k")
    check = 0
    for plugin in catalogue[1]:
        named, rest = plugin[where]
        check = zlib.crc32(rest, zlib.crc32(named, check))
    return check


# a skills dir's stamp, how many links it held, the problems of the skills not linked
SEEN = shape(TUPLE, frozenset({int}), TUPLE)


def _links(links: Any) -> None:
    """Unexpected unless `links` is what `saw_links` keeps: a skills dir -> `SEEN`."""
    mapping_of(links, tuple)
    for directory, seen in links.items():
        if type(directory) is not str:
            raise Unexpected(directory)
        for row in shaped(seen, SEEN)[2]:
            _decode(row, Problem)


def load(file: Path, format: str) -> dict[str, Any]:
    """What a cache file of this format holds: empty when there is none, or it is damaged, of
    another format, or not a regular file (a FIFO would hang the run; a link is not ours)."""
    data = read_regular(file)
    if data is None:
        return {}
    try:
        found = marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return {}
    return found if type(found) is dict and found.get("format") == format else {}


def _still(old: dict[str, Any]) -> bool:
    """Whether every file-system answer the cached catalogue came from is the same now."""
    try:
        return probe.Probe.unchanged_as(old["follow"], old["nofollow"], old["identity"])
    except WRONG_SHAPE:
        return False
