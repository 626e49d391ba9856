"""A plugin's `dependencies`, the plugins it needs, installed with it and removed with the
last plugin that needs them, as Claude Code 2.1.332 resolves them (SPEC §14):

- a bare name is found in the marketplace of the plugin that names it; `name@marketplace`
  (or `{"marketplace": …}`) in another added marketplace, only when the marketplace of the
  plugin the user added lists it in `allowCrossMarketplaceDependenciesOn` (its list alone:
  no trust passes on);
- a version range is met by the version the marketplace has (its entry's `version`, else
  the plugin's plugin.json), else, for a plugin fetched from its own repository, by the
  highest tag `<name>--v<version>` of it in the range, which the lockfile then pins;
- each dependency is added as `add NAME@MARKETPLACE` adds it, and the lockfile records it
  `as-dependency` of its source: `remove` of the last plugin that needs it removes it.

A missing plugin, a marketplace not added or not allowed, a range nothing meets, or a
cycle is one line, and the `add` that met it changes nothing (its caller puts the lockfile
back). Claude Code itself installs a cycle and a dependent whose range is not met (which
then fails to load), and leaves a missing dependency out; skilltool refuses them instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from skilltool import discover, paths, semver
from skilltool.checkouts import SourceError
from skilltool.model import Catalogue, Marketplace, MarketplaceEntry, Plugin, Problem
from skilltool.record import NamedTuple

if TYPE_CHECKING:
    from skilltool.sources import Done, Source

TAG = "{name}--v"  # the tag of a release of a plugin, as `claude plugin tag` makes it


class Need(NamedTuple):
    """One plugin a plugin needs: its name, the marketplace it is found in, the range."""

    name: str
    market: str | None  # None: the dependent's own
    version: str | None

    @property
    def shown(self) -> str:
        named = f"{self.name}@{self.market}" if self.market else self.name
        return f"{named} {self.version}" if self.version else named


def needs_of(plugin: Plugin, optional: bool = False) -> list[Need]:
    """What it needs (`dependencies`), or with `optional` what it takes when it can
    (`optionalDependencies`)."""
    found = []
    listed = plugin.optional_dependencies if optional else plugin.dependencies
    for key, fields in listed.items():
        name, _, market = key.partition("@")
        found.append(Need(name, market or None, fields.get("version")))
    return found


def _chain(chain: Sequence[str], last: str) -> str:
    return " -> ".join([*chain, last])


class Resolver:
    """Adds what the plugins of one `add` need, transitively; a SourceError for the first
    that cannot be, with nothing else said."""

    def __init__(self, home: paths.Scope, root: str | None, dry_run: bool) -> None:
        self.home = home
        self.root = root  # the marketplace of the plugin the user added
        self.dry_run = dry_run
        self.done: list[Done] = []
        self.seen: set[tuple[str, str]] = set()
        self.left: list[str] = []  # the optional ones that could not be had: why, in a line

    def market(self, name: str) -> tuple[Source, Marketplace]:
        from skilltool import sources

        try:
            return sources._marketplace_of(self.home, name, sources.read_lock(self.home))
        except SourceError:
            raise SourceError(
                f"marketplace {name!r} is not added, so a plugin it lists cannot be added as a "
                f"dependency; add it first (skilltool plugins add OWNER/REPO)"
            ) from None

    def allows(self) -> tuple[str, ...]:
        if self.root is None:
            return ()
        return self.market(self.root)[1].allows

    def plugin(self, plugin: Plugin, market: str | None, chain: Sequence[str]) -> None:
        """Each plugin `plugin` (of the marketplace `market`) needs, added."""
        for need in needs_of(plugin):
            self.need(plugin, need, market, chain)
        for need in needs_of(plugin, optional=True):
            self.wish(plugin, need, market, chain)

    def wish(self, plugin: Plugin, need: Need, market: str | None, chain: Sequence[str]) -> None:
        """An optional dependency, added as a needed one is, its range choosing only the
        version; one that cannot be had is left out (the lockfile as it was before it), with
        a line saying why, as Claude Code leaves it out."""
        from skilltool import sources

        before, done = sources.read_lock(self.home), len(self.done)
        try:
            self.need(plugin, need, market, chain, optional=True)
        except SourceError as err:
            if not self.dry_run:
                restore(self.home, before)
            del self.done[done:]
            why = str(err).removesuffix("; nothing was added")
            self.left.append(f"left out  {need.shown}, optional for {plugin.name}: {why}")

    def need(
        self,
        plugin: Plugin,
        need: Need,
        market: str | None,
        chain: Sequence[str],
        optional: bool = False,
    ) -> None:
        where = need.market or market
        verb = "takes" if optional else "needs"
        whose = f"plugin {plugin.name} {verb} {need.shown}"
        if where is None:
            raise SourceError(
                f"{whose}, but it was not added from a marketplace, where a bare name is "
                f"found; add {need.name} yourself (or NAME@MARKETPLACE), then {plugin.name}"
            )
        if where != self.root and where not in self.allows():
            raise SourceError(
                f"{whose}, from marketplace {where!r}, which marketplace {self.root!r} does not "
                "allow (allowCrossMarketplaceDependenciesOn of its marketplace.json); nothing "
                "was added"
            )
        key = f"{need.name}@{where}"
        if key in chain:
            raise SourceError(f"dependency cycle: {_chain(chain, key)}; nothing was added")
        listing = self.market(where)[1]
        entry = next((e for e in listing.entries if e.name == need.name), None)
        if entry is None:
            now = listing.current(need.name)
            # Claude Code does not follow `renames` for a dependency either: said, not followed
            renamed = (
                f" (it renamed it {now}: the plugin should name {now}; add {now}@{where} "
                f"yourself first)"
                if now is not None and now != need.name
                else ""
            )
            raise SourceError(
                f"{listing.manifest}: {whose}, which marketplace {where!r} does not list"
                f"{renamed}; nothing was added"
            )
        if (need.name, where) in self.seen:
            return
        self.seen.add((need.name, where))
        from skilltool import sources

        have = next(
            (
                s
                for s in sources.read_lock(self.home)
                if entry.remote and s.name == need.name and s.marketplace == where
            ),
            None,
        )
        if have is not None:  # fetched from its own repository before: its version is there
            there = self.found(have, need.name)
            version = there.version if there is not None else None
            if need.version is not None and not optional and not _meets(version, need.version):
                raise SourceError(
                    f"{whose}, and it is added at {version or 'no version'}, outside that "
                    f"range; nothing was added ('skilltool plugins update {have.name}' may "
                    "move it)"
                )
            if there is not None:
                self.plugin(there, where, [*chain, key])
            return
        try:
            ref = self.version(whose, need, listing, entry)
        except SourceError:
            if not optional:
                raise
            ref = None  # an optional one's range chooses the version, when one meets it
        done = sources.add(self.home, key, ref, (), None, self.dry_run)
        if done.verb == "added":
            why = f"optional for {plugin.name}" if optional else f"needed by {plugin.name}"
            self.done.append(done._replace(detail=f"{done.detail}, {why}"))
            if not self.dry_run:
                mark(self.home, done.source.name, need.name)
        found = self.found(done.source, need.name)
        if found is not None:
            self.plugin(found, where, [*chain, key])

    def version(
        self, whose: str, need: Need, listing: Marketplace, entry: MarketplaceEntry
    ) -> str | None:
        """The ref a remote dependency is fetched at (a tag in the range), or None; a
        SourceError when nothing the marketplace offers meets the range."""
        if need.version is None:
            return None
        if not entry.remote:
            have = _listed_version(listing, entry)
            parsed = semver.parse(have) if have else None
            if parsed is not None and semver.satisfies(parsed, need.version):
                return None
            raise SourceError(
                f"{listing.manifest}: {whose}; marketplace {listing.name!r} has it at "
                f"{have or 'no version'}, outside that range; nothing was added"
            )
        from skilltool import checkouts, sources

        assert not isinstance(entry.source, str)
        if entry.source.get("source") == "npm":  # the registry picks the highest in range
            return need.version
        url, _, _ = sources.remote_of(entry.source, f"{listing.manifest}: {entry.name}")
        prefix = TAG.format(name=need.name)
        refs = checkouts.ls_remote(url, [f"refs/tags/{prefix}*"])
        tags = []
        for ref in refs:
            tag = ref.removeprefix("refs/tags/")
            parsed = semver.parse(tag.removeprefix(prefix)) if tag.startswith(prefix) else None
            if parsed is not None:
                tags.append((parsed, tag))
        best = semver.highest(tags, need.version)
        if best is None:
            shown = ", ".join(t for _, t in sorted(tags)) or "none"
            raise SourceError(
                f"{url}: {whose}; no tag {prefix}<version> of it is in that range (its tags: "
                f"{shown}); nothing was added"
            )
        return best[1]

    def found(self, source: Source, name: str) -> Plugin | None:
        """The plugin as added (in the marketplace's tree, or its own checkout)."""
        from skilltool import sources

        entry = sources.entry(self.home, source)._replace(only=(), skills=())
        if not os.path.isdir(entry.path):
            return None  # a dry run's fetch, gone
        return next((p for p in discover.discover([entry]).plugins if p.name == name), None)


def _listed_version(listing: Marketplace, entry: MarketplaceEntry) -> str | None:
    """A plugin of a marketplace's own tree: its version, as the entry or plugin.json says."""
    from skilltool.model import SearchEntry

    named = entry.fields.get("version")
    if isinstance(named, str):
        return named
    found = discover.discover([SearchEntry(listing.root, "added", (entry.name,))]).plugins
    plugin = next((p for p in found if p.name == entry.name), None)
    return plugin.version if plugin is not None else None


def mark(home: paths.Scope, source: str, plugin: str) -> None:
    """Record that a source's plugin was added as another's dependency."""
    from skilltool import sources

    every = sources.read_lock(home)
    sources.write_lock(
        home,
        [
            s._replace(as_dependency=tuple(dict.fromkeys((*s.as_dependency, plugin))))
            if s.name == source
            else s
            for s in every
        ],
    )


def asked_for(home: paths.Scope, plugins: Iterable[str]) -> None:
    """Plugins the user named (`add NAME@MARKETPLACE`) are theirs: no longer dependencies."""
    from skilltool import sources

    named = set(plugins)
    every = sources.read_lock(home)
    if not any(named & set(s.as_dependency) for s in every):
        return
    sources.write_lock(
        home,
        [
            s._replace(as_dependency=tuple(p for p in s.as_dependency if p not in named))
            for s in every
        ],
    )


def add_needed(
    home: paths.Scope, added: Source, dry_run: bool, left: list[str] | None = None
) -> list[Done]:
    """What the plugins of a source just added need, added (see the module); a SourceError
    for the first that cannot be. What they take when they can (`optionalDependencies`) is
    added too; each that cannot be is a line in `left`."""
    from skilltool import sources

    if added.nothing:  # a marketplace none of whose plugins is picked
        return []
    entry = sources.entry(home, added)
    plugins = [
        p
        for p in discover.discover([entry]).plugins
        if p.active and (p.dependencies or p.optional_dependencies)
    ]
    if not plugins:
        return []
    resolver = Resolver(home, None, dry_run)
    for plugin in plugins:
        market = plugin.marketplace or added.marketplace
        resolver.root = market
        resolver.plugin(plugin, market, [f"{plugin.name}@{market}" if market else plugin.name])
    if left is not None:
        left += resolver.left
    return resolver.done


def restore(home: paths.Scope, before: list[Source]) -> None:
    """The lockfile put back as it was, and the checkouts of the sources it did not have
    deleted: an `add` whose dependencies could not all be added changes nothing."""
    from skilltool import sources

    names = {s.name for s in before}
    for source in sources.read_lock(home):
        if source.name not in names and source.path is None:
            place = sources.home_of(home, source.name)
            if os.path.isdir(place):
                sources.drop(place)
    sources.write_lock(home, before)


# --------------------------------------------------------------------------- removal


def unneeded(catalogue: Catalogue, lock: Sequence[Source], going: Iterable[str]) -> list[str]:
    """The plugins added as a dependency that nothing needs once `going` are removed (and
    those, in turn, removed), in the order found."""
    by_name = {p.name: p for p in catalogue.active}
    added = {p for s in lock for p in s.as_dependency}
    gone = list(dict.fromkeys(going))
    while True:
        kept = [p for name, p in by_name.items() if name not in gone]
        needed = {n.name for p in kept for o in (False, True) for n in needs_of(p, o)}
        more = [
            n.name
            for name in gone
            if name in by_name
            for n in [*needs_of(by_name[name]), *needs_of(by_name[name], optional=True)]
            if n.name in added and n.name not in needed and n.name not in gone
        ]
        if not more:
            return [name for name in gone if name not in going]
        gone += list(dict.fromkeys(more))


# --------------------------------------------------------------------------- install


def missing(catalogue: Catalogue) -> list[Problem]:
    """A line for each plugin whose dependency is not on the search path, or not at a
    version in its range: Claude Code does not load such a plugin."""
    by_name = {p.name: p for p in catalogue.active}
    problems = []
    for plugin in catalogue.active:
        for need in needs_of(plugin):
            there = by_name.get(need.name)
            where = plugin.manifest or plugin.root
            if there is None:
                why = (
                    f"plugin {plugin.name} needs {need.shown}, which is not installed; Claude "
                    f"Code does not load {plugin.name} without it: add it (skilltool plugins "
                    f"add {need.name}@MARKETPLACE)"
                )
            elif need.version is not None and not _meets(there.version, need.version):
                why = (
                    f"plugin {plugin.name} needs {need.shown}, and {need.name} is at "
                    f"{there.version or 'no version'}; Claude Code does not load "
                    f"{plugin.name} so"
                )
            else:
                continue
            problems.append(Problem(where, why, "dependencies", severity="warning"))
    return problems


def _meets(version: str | None, wanted: str) -> bool:
    parsed = semver.parse(version) if version else None
    return parsed is not None and semver.satisfies(parsed, wanted)


def by_source(home: paths.Scope, lock: Sequence[Source]) -> Mapping[str, str]:
    """plugin name -> the name of the added source that brings it."""
    from skilltool import sources

    found: dict[str, str] = {}
    for source in lock:
        entry = sources.entry(home, source)
        if not Path(entry.path).exists():
            continue
        for plugin in discover.discover([entry]).plugins:
            found.setdefault(plugin.name, source.name)
    return found
