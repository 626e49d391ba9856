"""`plugins search`: the plugins the added marketplaces list whose name, description and
keywords hold every word asked for, each with whether it is installed and how to add it.

It reads what is on disk: each added source whose tree holds a
`.claude-plugin/marketplace.json` (and, for an entry in the marketplace's own tree, that
plugin's manifest). A remote entry is listed as the marketplace describes it, never fetched.
A marketplace Claude Code knows by name (its official one) that is not added is searched
too, from its listing alone, fetched into the cache once a day (`sources.known_listing`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from skilltool import parse, sources
from skilltool.commands.common import Options
from skilltool.errors import OK, SkilltoolError
from skilltool.model import Marketplace, MarketplaceEntry
from skilltool.record import NamedTuple
from skilltool.report import Result, fetch_command
from skilltool.sources import Source, SourceError, remote_of

State = Literal["installed", "not installed", "remote"]
DESCRIPTION_SHOWN = 72  # characters of a description on a hit's line; JSON has all of it


class Listed(NamedTuple):
    """One plugin a marketplace lists, as a search sees it."""

    name: str
    marketplace: str  # as PLUGIN@MARKETPLACE names it: the source that is the marketplace
    description: str
    keywords: tuple[str, ...]
    state: State
    unfetchable: str = ""  # a remote entry skilltool cannot fetch: why

    def matches(self, words: Sequence[str]) -> bool:
        said = " ".join((self.name, self.description, *self.keywords)).casefold()
        return all(word.casefold() in said for word in words)

    @property
    def add(self) -> str | None:
        if self.state == "installed" or self.unfetchable:
            return None
        return fetch_command(self.name, self.marketplace)

    def line(self, width: int) -> str:
        about = " ".join(self.description.split())
        if len(about) > DESCRIPTION_SHOWN:
            about = about[: DESCRIPTION_SHOWN - 1] + "…"
        state: str = self.state
        if self.state == "remote":
            state = (
                f"remote: {self.unfetchable}"
                if self.unfetchable
                else f"remote: fetch with {self.add}"
            )
        return f"{self.name + '@' + self.marketplace:<{width}}  {about or '-'}  ({state})"

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "marketplace": self.marketplace,
            "description": self.description or None,
            "keywords": list(self.keywords),
            "state": self.state,
            "add": self.add,
            "unfetchable": self.unfetchable or None,
        }


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _told(fields: Mapping[str, Any]) -> tuple[str, list[str]]:
    """A description and the words a listing is also found by: keywords, tags, category."""
    description = fields.get("description")
    words = [w for key in ("keywords", "tags", "category") for w in _strings(fields.get(key))]
    return (description if isinstance(description, str) else ""), words


def _manifest_of(market: Marketplace, entry: MarketplaceEntry) -> Mapping[str, Any]:
    """The manifest fields of a plugin in the marketplace's own tree (none if unread)."""
    assert isinstance(entry.source, str)
    base = market.root
    if market.plugin_root is not None and not entry.source.startswith("./"):
        base = market.root / market.plugin_root
    folder = Path(os.path.normpath(base / entry.source))
    if folder != market.root and market.root not in folder.parents:
        return {}
    for place in parse.MANIFEST_PLACES:
        if os.path.isfile(folder / place):
            fields, _ = parse.read_manifest(folder / place)
            return fields or {}
    return {}


def _remote_state(
    entry: MarketplaceEntry, names: tuple[str, str], added: Sequence[Source]
) -> tuple[State, str]:
    """A remote entry: installed when a source came from it (by its marketplace and name,
    or its repository); else how, or why not, to fetch it."""
    assert not isinstance(entry.source, str)
    kind = entry.source.get("source")
    if kind in ("npm", "archive"):  # fetched whole: installed when a source came from it
        where = entry.source.get("package" if kind == "npm" else "url")
        for source in added:
            if (source.marketplace in names and source.name == entry.name) or (
                where is not None and where in (source.npm, source.archive)
            ):
                return "installed", ""
        return "remote", ""
    try:
        url, _, subdir = remote_of(entry.source, entry.name)
    except SourceError:
        kind = entry.source.get("source")
        return "remote", f"a source of kind {kind!r}, which skilltool cannot fetch"
    for source in added:
        if (source.marketplace in names and source.name == entry.name) or (
            source.url == url and source.subdir == subdir
        ):
            return "installed", ""
    return "remote", ""


def listings(source: Source, market: Marketplace, added: Sequence[Source]) -> list[Listed]:
    """Every plugin a marketplace lists, with its state in this scope."""
    # the source's name, as `add` says it: unique in the lockfile, where the catalogue's own
    # name may be another source's too
    said_as = source.name
    found = []
    picked = {market.current(p) for p in source.plugins}  # a pick of an old name: its new one
    for entry in market.entries:
        description, words = _told(entry.fields)
        # its old names (`renames`) find it too
        words += [old for old, new in market.renames.items() if new == entry.name]
        unfetchable = ""
        if entry.remote:
            state, unfetchable = _remote_state(entry, (market.name, source.name), added)
        else:
            own_description, own_words = _told(_manifest_of(market, entry))
            description = description or own_description
            words += own_words
            # whole: single skills of it picked (`add --skill`) do not make it installed
            whole = not source.picks or entry.name in picked
            state = "installed" if whole else "not installed"
        keywords = tuple(dict.fromkeys(words))
        found.append(Listed(entry.name, said_as, description, keywords, state, unfetchable))
    return found


def search(words: list[str], opts: Options) -> Result:
    home = opts.where
    try:
        added = sources.read_lock(home)
    except SourceError as err:
        raise SkilltoolError(str(err)) from err
    warnings: list[str] = []
    markets: list[dict[str, Any]] = []
    listed: list[Listed] = []
    for source in added:
        root = sources.source_root(home, source)
        if root is None:
            warnings.append(
                f"skipped   {source.name}: not checked out here, so its catalogue (if it has "
                "one) is not searched; 'skilltool plugins sync' checks it out"
            )
            continue
        if not os.path.isfile(root / parse.MARKETPLACE_FILE):
            continue
        market, problems = parse.read_marketplace(root / parse.MARKETPLACE_FILE)
        if market is None:
            why = problems[0] if problems else f"{root / parse.MARKETPLACE_FILE}: unreadable"
            warnings.append(f"skipped   {source.name}: {why}")
            continue
        markets.append(
            {"name": market.name, "source": source.name, "path": str(root), "added": True}
        )
        listed += listings(source, market, added)
    for name in sources.KNOWN_MARKETPLACES:
        if any(name in (m["name"], m["source"]) for m in markets):
            continue
        try:
            root = sources.known_listing(home, name)
            market, problems = parse.read_marketplace(root / parse.MARKETPLACE_FILE)
        except (SourceError, OSError) as err:
            warnings.append(f"skipped   {name}: Claude Code's own marketplace not fetched: {err}")
            continue
        if market is None:
            warnings.append(f"skipped   {name}: {problems[0] if problems else 'unreadable'}")
            continue
        markets.append({"name": market.name, "source": name, "path": str(root), "added": False})
        known = Source(name, None, root, None, "", (), nothing=True)
        listed += listings(known, market, added)
    data: dict[str, Any] = {
        "home": str(home.path),
        "scope": home.kind,
        "words": words,
        "marketplaces": markets,
    }
    lines = [home.line()]
    if not markets:
        data["hits"] = []
        lines.append(
            "none      no marketplace is added: add one with 'skilltool plugins add OWNER/REPO' "
            "(a repository with .claude-plugin/marketplace.json), then search again"
        )
        return Result(OK, data, tuple(lines), warnings=tuple(warnings))
    hits = [each for each in listed if each.matches(words)]
    # a word in the name first; otherwise in the order the marketplaces list them
    hits.sort(key=lambda h: not any(w.casefold() in h.name for w in words))
    data["hits"] = [h.as_dict() for h in hits]
    width = min(40, max((len(h.name) + 1 + len(h.marketplace) for h in hits), default=0))
    lines += [h.line(width) for h in hits]
    asked = " ".join(words)
    counted = f"{len(markets)} marketplace{'s' if len(markets) > 1 else ''}"
    if hits:
        lines.append(f"found     {len(hits)} plugin(s) matching {asked!r} in {counted}")
    else:
        lines.append(f"found     no plugin matching {asked!r} in {counted}")
    return Result(OK, data, tuple(lines), warnings=tuple(warnings))
