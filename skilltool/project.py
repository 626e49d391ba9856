"""A project: a folder with a manifest, `skilltool.toml`, naming the sources of the plugins
it uses and the harnesses it writes for; found as git finds its repository, by walking up
from the working directory. Its lockfile, `skilltool.lock`, pins each source as the home's
does; both are committed, as is what skilltool renders into the project's folders.

The manifest is the person's file: skilltool edits it only for `add` and `remove`, through
tomlkit, so that every comment and every other key stays as it was written.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skilltool import paths
from skilltool.errors import SkilltoolError, UsageError
from skilltool.record import NamedTuple

if TYPE_CHECKING:
    from skilltool.sources import Source

HEADER = (
    "The plugins this repository uses, for every coding-agent harness.",
    "'skilltool plugins sync' brings them, at the commits skilltool.lock pins.",
)
# skilltool's own folder's ignore file: what each checkout makes for itself
IGNORE = (
    "# written by skilltool: what each checkout keeps for itself (its checkouts of git\n"
    "# sources, its caches, its lock); entries.json, the record of what skilltool wrote\n"
    "# into the project's config files, is committed\n"
    "/cache/\n/sources/\n/state/\n"
)


class Manifest(NamedTuple):
    """What a manifest says: the harnesses, and the sources as asked (no commit)."""

    harnesses: tuple[str, ...] = ()
    sources: tuple[Source, ...] = ()
    copies: bool = True  # `skills = "copy"`: a git source's skills committed as copies
    # (harness, source): a source not written for a harness (its `harnesses` leave it out;
    # Claude Code for a plugin the repository's .claude/settings.json enables itself)
    withheld: tuple[tuple[str, str], ...] = ()


def opened(root: Path, namespace: str | None) -> paths.Project:
    """The project in `root`, as its manifest (none yet: an empty one) says it."""
    ns = namespace or os.environ.get(paths.NAMESPACE_VARIABLE) or paths.DEFAULT_NAMESPACE
    refuse_links_out(paths.Project(root, ns))
    manifest = read(root)
    return paths.Project(root, ns, manifest.harnesses, manifest.copies, manifest.withheld)


def refuse_links_out(project: paths.Project) -> None:
    """Stop the run, before anything is read, when a file or folder of skilltool's own in
    the project (the manifest, the lockfile, its folder and what is in it) leads out of it:
    every later step would read or write the other end as the project's."""
    own = (
        project.manifest,
        project.lockfile,
        project.data_dir / ".gitignore",
        project.ledger,
        project.sources_dir,
        project.state_dir / "lock",
        project.cache_dir,
    )
    for path in own:
        found = paths.escape(project.path, path)
        if found is not None:
            raise SkilltoolError(f"{found.at}: {found.line()}")


def current_repository() -> Path:
    """The project `--project` alone names: the one the working directory is in (a folder
    with a manifest), else the top of its git repository."""
    here = Path(os.getcwd())
    found = paths.find_project(here) or paths.repository_of(here)
    if found is None:
        raise UsageError(
            f"{here} is in no project (no skilltool.toml above it) and no git repository; "
            "give --project=DIR"
        )
    return found


def read(root: Path) -> Manifest:
    """The manifest of a project (an empty one when there is none yet); a manifest that
    is not as skilltool reads it stops the run, naming the file, the field and the fix."""
    from skilltool.harnesses import NAMES
    from skilltool.sources import SourceError, source_from

    where = root / paths.MANIFEST
    try:
        raw = where.read_bytes()
    except FileNotFoundError:
        return Manifest()
    except OSError as err:
        raise SkilltoolError(f"{where}: cannot be read ({err.strerror}); check it") from None
    try:
        data = paths.load_toml(raw)
    except ValueError as err:
        raise SkilltoolError(f"{where}: not valid TOML ({err}); fix it") from None
    harnesses = data.get("harnesses", [])
    if not isinstance(harnesses, list) or not all(isinstance(h, str) for h in harnesses):
        raise SkilltoolError(f"{where}: harnesses: must be a list of harness names; fix it")
    for name in harnesses:
        if name not in NAMES:
            raise SkilltoolError(
                f"{where}: harnesses: {name!r} is not a harness; use one of {', '.join(NAMES)}"
            )
    skills = data.get("skills", "copy")
    if skills not in ("copy", "link"):
        raise SkilltoolError(
            f'{where}: skills: must be "copy" (a git source\'s skills committed as copies) '
            "or \"link\" (linked into the ignored checkouts, which 'plugins sync' makes)"
        )
    tables = data.get("sources", {})
    if not isinstance(tables, dict):
        raise SkilltoolError(f"{where}: sources: must be a table of sources; fix it")
    found = []
    withheld: list[tuple[str, str]] = []
    for name, table in tables.items():
        only = table.get("harnesses") if isinstance(table, dict) else None
        if only is not None:
            if not isinstance(only, list) or any(h not in NAMES for h in only):
                raise SkilltoolError(
                    f"{where}: sources.{name}.harnesses: must be a list of harness names "
                    f"({', '.join(NAMES)}); fix it"
                )
            withheld += [(h, name) for h in NAMES if h not in only]
        if isinstance(table, dict) and {"commit", "tree", "version", "integrity", "sha256"} & set(
            table
        ):
            raise SkilltoolError(
                f"{where}: sources.{name}: a commit is pinned in skilltool.lock, not here; "
                "give 'ref' for a branch, a tag or a commit"
            )
        try:
            source = source_from(name, table, str(where))
        except SourceError as err:
            raise SkilltoolError(str(err)) from None
        if source.path is not None:
            source = source._replace(path=inside(root, str(source.path), where, name))
        if source.harness in NAMES:  # a harness's own folder: never written for it
            withheld.append((str(source.harness), name))
        found.append(source)
    named = {source.name for source in found}
    for source in claude_enabled(root):  # the manifest's own source of a name wins
        if source.name not in named:
            found.append(source)
            withheld.append(("claude", source.name))
    return Manifest(
        tuple(dict.fromkeys(harnesses)), tuple(found), skills == "copy", tuple(withheld)
    )


CLAUDE_SETTINGS = Path(".claude") / "settings.json"
# the marketplaces Claude Code knows without `extraKnownMarketplaces`: Anthropic's official one
KNOWN_MARKETPLACES = {
    "claude-plugins-official": {
        "source": {"source": "github", "repo": "anthropics/claude-plugins-official"}
    },
}


def _enabled(root: Path) -> tuple[dict[str, list[str]], dict[str, Any]]:
    """The plugins `.claude/settings.json` enables, by marketplace, and the marketplaces it
    declares (with those Claude Code knows itself); none when it cannot be read."""
    import json

    from skilltool.parse import is_safe_name

    try:
        data = json.loads((root / CLAUDE_SETTINGS).read_bytes())
    except (OSError, ValueError):
        return {}, {}
    enabled = data.get("enabledPlugins") if isinstance(data, dict) else None
    markets = data.get("extraKnownMarketplaces") if isinstance(data, dict) else None
    if not isinstance(enabled, dict):
        return {}, {}
    known: dict[str, Any] = {**KNOWN_MARKETPLACES, **(markets if isinstance(markets, dict) else {})}
    wanted: dict[str, list[str]] = {}
    for key, on in enabled.items():
        plugin, _, market = str(key).partition("@")
        if on is True and is_safe_name(plugin):
            wanted.setdefault(market, []).append(plugin)
    return wanted, known


def unknown_marketplaces(root: Path) -> list[str]:
    """Each `plugin@marketplace` that `.claude/settings.json` enables from a marketplace it
    declares nowhere and Claude Code does not know (Claude Code cannot load it either)."""
    wanted, known = _enabled(root)
    return [f"{p}@{m}" for m, plugins in wanted.items() if m not in known for p in plugins]


def claude_enabled(root: Path) -> list[Source]:
    """The plugins the repository's `.claude/settings.json` enables (`enabledPlugins`) from
    the marketplaces it declares (`extraKnownMarketplaces`), as sources of the project:
    one per marketplace, with the plugins enabled of it. Claude Code loads them itself;
    skilltool brings them to every other harness, and never writes the file. A file or an
    entry it cannot use is passed over: it is Claude Code's file, read as Claude Code
    reads it, and `status` is where a person looks."""
    from skilltool.parse import is_safe_name
    from skilltool.sources import Source, SourceError, remote_of

    wanted, markets = _enabled(root)
    found = []
    for market, plugins in wanted.items():
        if market not in markets:
            continue  # said by `unknown_marketplaces`
        entry = markets[market]
        fields = entry.get("source") if isinstance(entry, dict) else None
        if not is_safe_name(market) or not isinstance(fields, dict):
            continue
        if fields.get("source") == "directory" and isinstance(fields.get("path"), str):
            try:
                path = inside(root, fields["path"], root / CLAUDE_SETTINGS, market)
            except SkilltoolError:
                continue
            found.append(Source(market, path=path, plugins=tuple(plugins)))
            continue
        kind = fields.get("source")
        if kind not in ("github", "git"):  # "url": a marketplace.json on the web, not git
            continue
        try:
            asked = {**fields, "source": "github" if kind == "github" else "url"}
            url, ref, subdir = remote_of(asked, f"{CLAUDE_SETTINGS}: {market}")
        except SourceError:
            continue
        found.append(Source(market, url, None, ref, subdir, tuple(plugins)))
    return found


def inside(root: Path, text: str, where: Path | str, name: str) -> Path:
    """A local source's folder: relative to the project, and inside it (a folder outside
    would be another person's path on every other checkout)."""
    path = Path(os.path.normpath(root / text))
    if os.path.isabs(text) or not path.is_relative_to(root):
        raise SkilltoolError(
            f"{where}: sources.{name}.path: {text} is not a folder inside the project; a "
            "project names its own plugins by a path relative to its folder (a plugin "
            "elsewhere comes from git: give 'url')"
        )
    found = paths.escape(root, path)
    if found is not None:
        raise SkilltoolError(f"{where}: sources.{name}.path: {found.at}: {found.line()}")
    return path


def asked(source: Source) -> Source:
    """A source as the manifest says it: what was asked, nothing it resolved to."""
    return source._replace(commit=None, tree=None, approved={})


def default_harnesses(home: paths.Home) -> tuple[str, ...]:
    """The harnesses a new manifest names: those set up in the home of the person who
    makes it (recorded, so that every later run writes the same files)."""
    from skilltool.harnesses import NAMES, PROJECT_ROOTS, root_of

    return tuple(
        name for name in NAMES if PROJECT_ROOTS[name] is not None and root_of(name, home).is_dir()
    )


def _document(where: Path) -> Any:
    import tomlkit

    try:
        return tomlkit.parse(where.read_text(encoding="utf-8"))
    except FileNotFoundError:
        document = tomlkit.document()
        for line in HEADER:
            document.add(tomlkit.comment(line))
        return document


def _write(where: Path, document: Any) -> None:
    import tomlkit

    from skilltool.fs import write_file

    write_file(Path(os.path.realpath(where)), tomlkit.dumps(document).encode(), 0o644, replace=True)


def create(root: Path, harnesses: tuple[str, ...]) -> None:
    """A new manifest naming `harnesses`; one already there is left as it is."""
    where = root / paths.MANIFEST
    if os.path.lexists(where):
        return
    document = _document(where)
    document["harnesses"] = list(harnesses)
    _write(where, document)


def record(project: paths.Project, source: Source) -> None:
    """`add`: the source's table in the manifest, as asked (replacing one of its name)."""
    import tomlkit

    from skilltool.sources import table_of

    where = project.manifest
    document = _document(where)
    tables = document.get("sources")
    if tables is None:
        tables = tomlkit.table(is_super_table=True)
        document["sources"] = tables
    tables[source.name] = table_of(project, asked(source))
    _write(where, document)


def forget(project: paths.Project, name: str) -> bool:
    """`remove`: the source's table gone from the manifest; whether it was there."""
    where = project.manifest
    if not os.path.lexists(where):
        return False
    document = _document(where)
    tables = document.get("sources")
    if tables is None or name not in tables:
        return False
    del tables[name]
    _write(where, document)
    return True


def keep_ignored(project: paths.Project) -> None:
    """skilltool's own folder in the project, with the ignore file that keeps what each
    checkout makes for itself out of git (never a line of the user's .gitignore)."""
    from skilltool.fs import write_file

    where = project.data_dir / ".gitignore"
    if os.path.lexists(where):
        return
    where.parent.mkdir(parents=True, exist_ok=True)
    write_file(where, IGNORE.encode(), 0o644, replace=False)
