"""What every command shares: the options it was given, and the plugins found on the
search path (through the caches)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from skilltool import discover, paths, report
from skilltool.model import Catalogue, SearchEntry
from skilltool.record import NamedTuple

if TYPE_CHECKING:
    from skilltool.harnesses import Harness
    from skilltool.trusted import CatalogueCache

CATALOGUE_FILE = "catalogue.marshal"  # in the cache dir, beside parsed.marshal


class Options(NamedTuple):
    """The options every command that touches files takes."""

    home: str | None = None
    skills_dir: str | None = None
    dry_run: bool = False
    json: bool = False
    namespace: str | None = None
    force: bool = False
    only: str | None = None
    verbosity: report.Verbosity = "normal"
    diff: bool = False

    @property
    def where(self) -> paths.Home:
        return paths.Home.resolve(self.home, self.namespace)

    def dir(self, home: paths.Home) -> Path:
        if self.skills_dir is None:
            return home.skills_dir
        return paths.named_directory(self.skills_dir, "--dir")


def find(
    home: paths.Home,
    warnings: list[str],
    keep_cache: bool = True,
    adding: SearchEntry | None = None,
) -> Catalogue:
    """The plugins on the search path; files unchanged since the last run are not re-parsed.

    `adding`: a source not recorded yet (a dry run of `add`), placed where it would be."""
    catalogue, trust = find_trusted(home, warnings, keep_cache, adding)
    if keep_cache:
        trust.save()
    return catalogue


def find_trusted(
    home: paths.Home,
    warnings: list[str],
    keep_cache: bool = True,
    adding: SearchEntry | None = None,
) -> tuple[Catalogue, CatalogueCache]:
    """`find`, and the catalogue cache it came from or went into (unsaved: the links planned
    later are kept in it too). A catalogue every answer of which still holds is not walked."""
    entries = paths.search_path(home)
    if adding is not None and not any(e.origin == "override" for e in entries):
        last = max((i + 1 for i, e in enumerate(entries) if e.origin == "added"), default=0)
        entries.insert(last, adding)
    if any(e.origin == "override" for e in entries):
        shown = ":".join(str(e.path) for e in entries)
        warnings.append(
            f"warning: {paths.OVERRIDE_VARIABLE} is set: plugins are taken only from {shown} "
            "and trusted as if installed; unset it for normal use"
        )
    from skilltool import probe
    from skilltool.cache import ParseCache, collector_paused
    from skilltool.trusted import CatalogueCache

    with collector_paused():
        file = home.cache_dir / CATALOGUE_FILE if adding is None else None
        trust = CatalogueCache(file, tuple(entries))
        if trust.catalogue is not None:
            return trust.catalogue, trust
        with probe.recording() as seen:
            cache = ParseCache(home.cache_dir / "parsed.marshal")
            catalogue = discover.discover(entries, cache)
        trust.keep(catalogue, seen)
    if keep_cache:
        cache.save()
    return catalogue, trust


def home_lines(home: paths.Home) -> list[str]:
    """A first line naming the home, when it is not the real one."""
    return [] if home.is_real else [f"home      {home.path}"]


def harnesses(home: paths.Home, skills_dir: Path, only: str | None) -> list[Harness]:
    from skilltool.harnesses import harnesses

    return harnesses(home, skills_dir, only)
