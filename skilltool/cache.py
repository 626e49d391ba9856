"""A cache of parsed skills and agents, keyed by each file's stat, so that a run over
files that have not changed since the last one parses nothing (and imports no YAML).

It lives in the user's cache dir; losing it costs only time. A file whose device,
inode, size, mtime or ctime differ is parsed again.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from skilltool import __version__, parse
from skilltool.fs import digest, path_in, read_regular, replace_regular
from skilltool.model import (
    Agent,
    Marketplace,
    MarketplaceEntry,
    Problem,
    Rendering,
    SearchEntry,
    Skill,
    SlashCommand,
)
from skilltool.trusted import (
    DICT,
    STRING,
    TUPLE,
    TYPES,
    WRONG_SHAPE,
    Types,
    Unexpected,
    load,
    mapping_of,
    shape,
    shaped,
    strings,
)

Thing = TypeVar("Thing")  # an agent or a command: what a harness makes files of
CommandReader = Callable[[Path, str], tuple[SlashCommand | None, list[Problem]]]


# bumped whenever what parse says about a file changes, so no stale verdict is served
FORMAT = f"skilltool-parsed-5-{__version__}"
Stamp = tuple[int, int, int, int, int]


def _stamp(path: Path | str, seen: os.stat_result | None = None) -> Stamp | None:
    """The stat of `path` as a key; `seen`: its stat already taken by the caller."""
    try:
        st = os.stat(path) if seen is None else seen
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _probed(path: Path | str, seen: os.stat_result | None) -> Stamp | None:
    """`_stamp` of a file discovery reads: asked through the probe, so it is remembered."""
    from skilltool import probe

    st = probe.now.stat(path) if seen is None else seen
    return None if st is None else probe.stamp_of(st)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while the caches are loaded and the search path is
    read: tens of thousands of objects that all live to the end of the run, which it would
    otherwise walk again and again. Then they are frozen (`gc.freeze`): the collections the
    plan's objects set off do not walk the catalogue either."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was:
            gc.enable()


def _problems_out(problems: list[Problem]) -> list[tuple[Any, ...]]:
    return [(str(p.path), p.message, p.field, p.line, p.severity) for p in problems]


# the shape of what the parse cache keeps (`_keep`)
LIST: Types = frozenset({list})
ENTRY = shape(TUPLE, TUPLE)  # a file's stamp, and what was read of it: PARSED
PARSED = shape(frozenset({tuple, type(None)}), LIST)  # the thing read, or None; its problems
PROBLEM = shape(STRING, STRING, TYPES["s?"], TYPES["i?"], STRING)
SKILL = shape(STRING, STRING, DICT, TYPES["b"])
AGENT = shape(STRING, STRING, STRING, LIST, LIST, TYPES["s?"], DICT, DICT, DICT, TYPES["b"])
COMMAND = shape(STRING, STRING, TYPES["s?"], LIST, TYPES["s?"], DICT, DICT)
MANIFEST = shape(frozenset({dict, type(None)}), LIST)
MARKETPLACE = shape(STRING, TYPES["s?"], LIST, LIST, DICT)
LISTED = shape(STRING, TYPES["sm"], TYPES["b"], DICT, TYPES["i?"])


def _problems_in(rows: list[Any]) -> list[Problem]:
    if not rows:  # most files have none
        return []
    return [Problem(Path(r[0]), *r[1:]) for r in [shaped(row, PROBLEM) for row in rows]]


def _entries(file: Path | None, format: str) -> dict[str, Any]:
    """The entries a cache file of this format holds; none when there is none, or it is
    damaged or not a regular file."""
    entries = None if file is None else load(file, format).get("entries")
    return entries if type(entries) is dict else {}


def _skill_in(kept: Any, directory: Path) -> tuple[Skill | None, list[Problem]]:
    fields, rows = shaped(kept, PARSED)
    if fields is None:
        return None, _problems_in(rows)
    name, description, frontmatter, repaired = shaped(fields, SKILL)
    return Skill(name, directory, description, frontmatter, repaired), _problems_in(rows)


def _agent_in(kept: Any, path: Path) -> tuple[Agent | None, list[Problem]]:
    fields, rows = shaped(kept, PARSED)
    if fields is None:
        return None, _problems_in(rows)
    name, description, body, tools, skills, model, overrides, lines, frontmatter, repaired = shaped(
        fields, AGENT
    )
    agent = Agent(
        name,
        path,
        description,
        body,
        tuple(strings(tools)),
        tuple(strings(skills)),
        model,
        mapping_of(overrides, dict),
        mapping_of(lines, int),
        frontmatter,
        repaired,
    )
    return agent, _problems_in(rows)


def _command_in(kept: Any, path: Path, name: str) -> tuple[SlashCommand | None, list[Problem]]:
    fields, rows = shaped(kept, PARSED)
    if fields is None:
        return None, _problems_in(rows)
    description, body, hint, tools, model, lines, data = shaped(fields, COMMAND)
    tools, lines = tuple(strings(tools)), mapping_of(lines, int)
    command = SlashCommand(name, path, description, body, hint, tools, model, lines, data)
    return command, _problems_in(rows)


def _manifest_in(kept: Any) -> tuple[dict[str, Any] | None, list[Problem]]:
    data, rows = shaped(kept, MANIFEST)
    return data, _problems_in(rows)


def _marketplace_in(kept: Any, path: Path) -> tuple[Marketplace | None, list[Problem]]:
    fields, rows = shaped(kept, PARSED)
    if fields is None:
        return None, _problems_in(rows)
    name, plugin_root, entries, allows, renames = shaped(fields, MARKETPLACE)
    listed = tuple(MarketplaceEntry(*shaped(e, LISTED)) for e in entries)
    allowed = tuple(strings(allows))
    renamed = MappingProxyType(
        {old: new for old, new in renames.items() if isinstance(new, (str, type(None)))}
    )
    market = Marketplace(name, path.parent.parent, path, plugin_root, listed, allowed, renamed)
    return market, _problems_in(rows)


Found = TypeVar("Found")


class ParseCache:
    """Parsed files from earlier runs; `save` keeps only what this run looked at."""

    def __init__(self, file: Path | None) -> None:
        self.file = file
        self.new: dict[str, Any] = {}
        # none, or a damaged cache: everything is parsed
        self.old: dict[str, Any] = _entries(file, FORMAT)

    def _hit(
        self, key: str, stamp: Stamp | None, make: Callable[..., Found], *args: Any
    ) -> Found | None:
        """What `make` makes of what is kept for `key` (and `args`), when it was kept for the
        file as it is now (`stamp`). What `_keep` does not write sets the whole cache aside:
        what this run has not read from it yet is parsed, and the next run has a new one."""
        entry = self.old.get(key)
        if stamp is None or entry is None:
            return None
        try:
            kept, value = shaped(entry, ENTRY)
            if kept != stamp:
                return None  # the file changed since
            found = make(value, *args)
        except WRONG_SHAPE:
            self.old = {}
            return None
        self.new[key] = entry
        return found

    def read_skill(self, directory: Path) -> tuple[Skill | None, list[Problem]]:
        return self.read_skill_seen(directory, None)

    def read_skill_seen(
        self, directory: Path, seen: os.stat_result | None, path: str | None = None
    ) -> tuple[Skill | None, list[Problem]]:
        """`read_skill`, given the stat of its SKILL.md (a regular file) when the caller took
        it already, and its `path` as a string: one system call per skill on a no-op, not two."""
        if path is None:  # a string: no Path per skill on a hit
            path = os.path.join(directory, parse.SKILL_FILE)
        stamp = _probed(path, seen)
        hit = self._hit(path, stamp, _skill_in, directory)
        if hit is not None:
            return hit
        skill, problems = parse.read_skill(directory)
        if stamp is not None:
            row = None
            if skill is not None:
                row = (skill.name, skill.description, dict(skill.fields), skill.repaired)
            self._keep(path, stamp, (row, _problems_out(problems)))
        return skill, problems

    def _keep(self, path: Path | str, stamp: Stamp, value: Any) -> None:
        """Cache a parse, unless it holds what marshal cannot store (a `!!timestamp` value)."""
        try:
            marshal.dumps(value)
        except ValueError:
            return
        self.new[str(path)] = (stamp, value)

    def read_agent(self, path: Path) -> tuple[Agent | None, list[Problem]]:
        stamp = _probed(path, None)
        hit = self._hit(str(path), stamp, _agent_in, path)
        if hit is not None:
            return hit
        agent, problems = parse.read_agent(path)
        if stamp is not None:
            fields = None
            if agent is not None:
                fields = (
                    agent.name,
                    agent.description,
                    agent.body,
                    list(agent.tools),
                    list(agent.skills),
                    agent.model,
                    {k: dict(v) for k, v in agent.overrides.items()},
                    dict(agent.lines),
                    dict(agent.fields),
                    agent.repaired,
                )
            self._keep(path, stamp, (fields, _problems_out(problems)))
        return agent, problems

    def read_command(
        self, path: Path, name: str, read: CommandReader
    ) -> tuple[SlashCommand | None, list[Problem]]:
        """A slash command, kept under its own key (one file may be listed as an agent too);
        `read` parses it when the file changed."""
        key, stamp = f"command:{name}:{path}", _probed(path, None)
        hit = self._hit(key, stamp, _command_in, path, name)
        if hit is not None:
            return hit
        command, problems = read(path, name)
        row = None
        if command is not None:
            row = (command.description, command.body, command.argument_hint,
                   list(command.allowed_tools), command.model, dict(command.lines),
                   dict(command.fields))  # fmt: skip
        if stamp is not None:
            try:
                marshal.dumps((row, _problems_out(problems)))
                self.new[key] = (stamp, (row, _problems_out(problems)))
            except ValueError:  # holds what marshal cannot store: parsed each time
                pass
        return command, problems

    def read_manifest(self, path: Path) -> tuple[dict[str, Any] | None, list[Problem]]:
        stamp = _probed(path, None)
        hit = self._hit(str(path), stamp, _manifest_in)
        if hit is not None:
            return hit
        data, problems = parse.read_manifest(path)
        if stamp is not None:
            self._keep(path, stamp, (data, _problems_out(problems)))
        return data, problems

    def read_marketplace(self, path: Path) -> tuple[Marketplace | None, list[Problem]]:
        """A marketplace.json, read on every run that searches its root: kept like the rest."""
        stamp = _probed(path, None)
        hit = self._hit(str(path), stamp, _marketplace_in, path)
        if hit is not None:
            return hit
        market, problems = parse.read_marketplace(path)
        if stamp is not None:
            fields = None
            if market is not None:
                entries = [(e.name, e.source, e.strict, e.fields, e.line) for e in market.entries]
                renames = dict(market.renames)
                fields = (market.name, market.plugin_root, entries, list(market.allows), renames)
            row = (stamp, (fields, _problems_out(problems)))
            try:
                marshal.dumps(row)
            except ValueError:  # holds something marshal cannot store: parse it each time
                return market, problems
            self.new[str(path)] = row
        return market, problems

    def save(self) -> None:
        """Write the cache if this run parsed anything or dropped stale entries."""
        if self.file is None:
            return
        from skilltool.fs import sweep

        sweep([self.file.parent])  # the temporary file of a run killed while saving
        if self.new == self.old:
            return
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            data = marshal.dumps({"format": FORMAT, "entries": self.new})
            replace_regular(self.file, data, 0o644)
        except OSError:
            pass  # a cache that cannot be written costs time, not correctness


RENDER_FORMAT = f"skilltool-rendered-2-{__version__}"
# one rendering as kept: target, mode, only_if_absent, placeholder digests, content digest
Kept = tuple[str, int, bool, tuple[str, ...], str]


def code_stamp() -> tuple[Stamp | None, ...]:
    """The stat of every module and template a rendering comes from: a skilltool changed in
    place (an editable install, a package upgrade that kept the version) renders anew."""
    from skilltool.paths import package_data

    here = os.path.dirname(__file__)
    files: list[str] = []  # strings, not Paths: asked on every run that renders
    for folder in (here, os.path.join(here, "harnesses")):
        with contextlib.suppress(OSError), os.scandir(folder) as listing:
            files += [entry.path for entry in listing if entry.name.endswith(".py")]
    for folder, _, names in os.walk(package_data("templates")):
        files += [os.path.join(folder, name) for name in names]
    return tuple(_stamp(p) for p in sorted(files))


class RenderCache:
    """Renderings from earlier runs, keyed by everything they are made from (the agent as
    read, the harness and its places, skilltool's code and templates), so that a no-op run
    renders nothing (and imports no Jinja2).

    Only a digest of each rendering is kept. A hit is used only when every file of it on disk
    is, byte for byte, that rendering (its bytes are then the rendering): a file edited by
    hand, replaced, removed or turned into a link is a miss, and is rendered and judged anew.
    """

    def __init__(self, file: Path | None) -> None:
        self.file = file
        self.new: dict[str, list[Kept]] = {}
        self._code: str | None = None
        self._things: dict[int, tuple[object, str]] = {}  # id -> an agent or command, its digest
        self._places: dict[tuple[str, ...], str] = {}  # a maker and its place -> the key's words
        # none, or a damaged cache: everything is rendered
        raw = _entries(file, RENDER_FORMAT)
        stamps = raw.pop(STAMPS, {})
        try:
            _renderings(raw, stamps)
        except WRONG_SHAPE:  # not what `save` writes: no cache
            raw, stamps = {}, {}
        self.old: dict[str, list[Kept]] = raw
        # target -> its stamp when last found, by digest, to be the rendering kept (not racy)
        self.stamps: dict[str, Stamp] = stamps
        self.seen: dict[str, Stamp] = {}  # the same, this run
        self.looked: set[str] = set()  # the targets this run looked at
        self.known: dict[Path, str] = {}  # target -> the digest of what is on disk, when known
        self._folders: dict[str, Path] = {}  # the folders of the renderings (fs.path_in)

    def made(
        self,
        maker: str,
        where: tuple[str, ...],
        thing: Thing,
        make: Callable[[Thing], list[Rendering]],
    ) -> tuple[list[Rendering], bool]:
        """What `make` gives for `thing` (an agent, a command) in the hands of `maker` (a
        harness, found at `where`), and whether it was read back from disk: every file of it
        is there, a regular file, as it would be made now, marker and all."""
        return self._cached(self._key(maker, where, self._digest_of(thing)), lambda: make(thing))

    def _key(self, maker: str, where: tuple[str, ...], made_of: str) -> str:
        """The key of what `maker` at `where` makes from a thing whose digest is `made_of`."""
        said = self._places.get((maker, *where))
        if said is None:
            if self._code is None:
                self._code = repr(code_stamp())
            said = self._places[(maker, *where)] = repr((self._code, maker, *where))
        whole = f"{said}\0{made_of}"
        return f"{maker}:{digest(whole.encode('utf-8', 'surrogateescape'))}"

    def _digest_of(self, thing: object) -> str:
        """A digest of everything the thing holds, once per thing rather than per harness
        (a value whose repr is not stable from run to run only makes a miss)."""
        known = self._things.get(id(thing))
        if known is None or known[0] is not thing:
            known = (thing, digest(repr(thing).encode("utf-8", "surrogateescape")))
            self._things[id(thing)] = known
        return known[1]

    def _cached(
        self, key: str, make: Callable[[], list[Rendering]]
    ) -> tuple[list[Rendering], bool]:
        hit = self.old.get(key)
        found = self._on_disk(hit) if hit is not None else None
        if found is not None and hit is not None:
            self.new[key] = hit
            return found, True
        made = make()
        if not all(_stamped(r.content) for r in made):
            return made, False  # what carries no marker of its own is judged each run
        self.new[key] = [
            (
                str(r.target),
                r.mode,
                r.only_if_absent,
                tuple(sorted(r.placeholders)),
                digest(r.content),
            )
            for r in made
        ]
        return made, False

    def _on_disk(self, kept: list[Kept]) -> list[Rendering] | None:
        """The renderings, when every file is exactly what was rendered: a file with the
        stamp it had when last found so (same inode, size, mtime and ctime: an edit, a touch,
        a replacement all change one; nobody can set a ctime back) is not read again, and
        stands in with empty content (a current file is never written: its digest is known).
        """
        from skilltool import probe

        found = []
        for target, mode, only_if_absent, placeholders, want in kept:
            taken, stamp = probe.clock(), _regular_stamp(target)
            path = path_in(target, self._folders)
            self.looked.add(target)
            if stamp is not None and self.stamps.get(target) == stamp:
                data = b""  # trusted by its stamp
                self.seen[target] = stamp
            else:
                read = read_regular(path)
                if read is None or digest(read) != want:
                    return None
                data = read
                if stamp is not None and probe.old_enough(stamp[3], stamp[4], taken):
                    self.seen[target] = stamp  # old enough that a later change moves it
            self.known[path] = want
            found.append(Rendering(path, data, mode, only_if_absent, frozenset(placeholders)))
        return found

    def save(self) -> None:
        """Write the cache when this run rendered anything or dropped stale entries; the
        entries of harnesses this run did not plan for (`--only`) are kept."""
        planned = {key.partition(":")[0] for key in self.new}
        self.new.update((k, v) for k, v in self.old.items() if k.partition(":")[0] not in planned)
        kept = {target for entry in self.new.values() for target, *_ in entry}
        self.seen.update(
            (t, s) for t, s in self.stamps.items() if t in kept and t not in self.looked
        )
        if self.file is None or (self.new == self.old and self.seen == self.stamps):
            return
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            entries: dict[str, Any] = {**self.new, STAMPS: self.seen}
            data = marshal.dumps({"format": RENDER_FORMAT, "entries": entries})
            replace_regular(self.file, data, 0o644)
        except OSError:
            pass  # a cache that cannot be written costs time, not correctness


KEPT = shape(STRING, frozenset({int}), TYPES["b"], TUPLE, STRING)  # what a `Kept` holds


def _renderings(entries: dict[Any, Any], stamps: Any) -> None:
    """Unexpected unless `entries` and `stamps` are what `RenderCache.save` writes (a stamp of
    another type is never a file's: it only costs a read)."""
    if type(stamps) is not dict:
        raise Unexpected(stamps)
    for key, kept in entries.items():
        if type(key) is not str or type(kept) is not list:
            raise Unexpected(key)
        for one in kept:  # `shaped`, inlined: a no-op of the marketplaces checks 3,400
            if type(one) is not tuple or tuple(map(type, one)) not in KEPT:
                raise Unexpected(one)
            if one[3]:
                strings(one[3])


def _stamped(content: bytes) -> bool:
    """Whether a rendering carries its intact marker: only then is its being on disk, byte
    for byte, what `plan` would find current."""
    from skilltool import markers

    marker = markers.find(content)
    return marker is not None and marker.intact


STAMPS = "\0stamps"  # the entry of the rendering cache that holds the stamps, not a key


def _regular_stamp(target: str) -> Stamp | None:
    """The stamp of a regular file (not a link) at `target`."""
    import stat

    try:
        st = os.lstat(target)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


CATALOGUE_FILE = "catalogue.marshal"
PARSED_FILE = "parsed.marshal"
RENDERED_FILE = "rendered.marshal"


class Caches:
    """Every speed device of one run behind one interface, all in the scope's cache folder:
    the catalogue, trusted while every answer it was made from still holds (with the skills
    dirs last seen as planned), the files parsed before, the renderings made before.
    Discovery and planning ask it; `save` writes what changed, and nothing unless `keep`
    (a dry run keeps nothing)."""

    def __init__(
        self, folder: Path, entries: tuple[SearchEntry, ...], keep: bool, trusted: bool = True
    ) -> None:
        from skilltool.trusted import CatalogueCache

        self.folder = folder
        self.keep = keep
        # `trusted` false: a search path of this run alone (a dry run of `add`), never kept
        self.trust = CatalogueCache(folder / CATALOGUE_FILE if trusted else None, entries)
        self._parsed: ParseCache | None = None
        self._renders: RenderCache | None = None

    @property
    def parsed(self) -> ParseCache:
        if self._parsed is None:  # loaded only when the catalogue is not trusted
            self._parsed = ParseCache(self.folder / PARSED_FILE)
        return self._parsed

    @property
    def renders(self) -> RenderCache:
        if self._renders is None:
            self._renders = RenderCache(self.folder / RENDERED_FILE)
        return self._renders

    def save(self) -> None:
        if not self.keep:
            return
        for kept in (self._parsed, self._renders, self.trust):
            if kept is not None:
                kept.save()
