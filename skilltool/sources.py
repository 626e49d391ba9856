"""Where added plugins come from (SPEC §9): what `plugins add` was asked, the lockfile that
pins it, and add / update / remove / sync over the checkouts of `checkouts.py`.

A git source is checked out under `<data>/<namespace>/sources/<name>/`; a local path is
recorded and used where it is, never copied. Every failure is a SourceError, raised
before anything the user sees is changed.
"""

from __future__ import annotations

import contextlib
import json
import os
import posixpath
import re
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from skilltool import archive, npm, parse, paths, semver
from skilltool.checkouts import (
    CURRENT,
    FULL_OID,
    STORE,
    Narrow,
    Parts,
    UnsafeTree,
    fetch,
    fetch_head,
    flip,
    held,
    local_changes,
    ls_remote,
    named,
    new_store,
    parts_of,
    prepare,
    resolve,
    store_of,
    sweep,
)
from skilltool.checkouts import (
    SourceError as SourceError,  # the one error of every sources command
)
from skilltool.fs import TEMP_PREFIX
from skilltool.model import Catalogue, Marketplace, Plugin, SearchEntry, quoted
from skilltool.parse import NAME_RULE, is_safe_name
from skilltool.record import NamedTuple

DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
SHORTHAND = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[^\s]+)?")
# a GitHub repository's URL, as the owner/repo shorthand makes it
GITHUB = re.compile(r"https://github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?")
URL_SCHEMES = ("https://", "http://", "ssh://", "git://", "file://")
SCP_LIKE = re.compile(r"[\w.-]+@[\w.-]+:[^\s]+")
GIT_URL = re.compile(r"(https?|ssh|git|file)://\S+|[\w.-]+@[\w.-]+:\S+")
FROM_MARKETPLACE = re.compile(r"([a-z0-9]+(?:-[a-z0-9]+)*)@([a-z0-9]+(?:-[a-z0-9]+)*)")


class Approval(NamedTuple):
    """What the user approved of a plugin that a harness runs: its digest, and the command
    line as it was shown (kept readable in the lockfile, and the old side of a diff)."""

    digest: str
    command: str


class PluginApproval(NamedTuple):
    """What the user approved of one plugin: its files that run, as they were (path -> mode
    and digest), and each thing it runs (runnables.py) by its key."""

    files: Mapping[str, str]
    runs: Mapping[str, Approval]


class Source(NamedTuple):
    """One entry of the lockfile: what was asked, and what it resolved to."""

    name: str
    url: str | None = None  # a git source
    path: Path | None = None  # a local path, used in place
    ref: str | None = None  # a branch, tag or commit; None: the remote's default branch
    subdir: str = ""  # the part of the repository used
    plugins: tuple[str, ...] = ()  # only these plugins of it; empty: all
    commit: str | None = None
    tree: str | None = None  # the git tree id of the part used: the digest of what is used
    marketplace: str | None = None  # the added marketplace it was found in
    # a marketplace recorded with none of its plugins picked (`plugins = []`): nothing of
    # it is installed until one is
    nothing: bool = False
    # what the user approved of it that a harness runs: plugin -> its files and runnables
    # of exactly what was shown, and what was shown (consent.py)
    approved: Mapping[str, PluginApproval] = {}
    # only these skills of its plugins not picked whole (`add --skill`); what else those
    # plugins hold is not carried
    skills: tuple[str, ...] = ()
    # a harness's own project folder (`path = ".claude"`), read in that harness's format
    harness: str | None = None
    # the plugins of it added because another needs them (`dependencies`), not asked for:
    # removed with the last plugin that needs them
    as_dependency: tuple[str, ...] = ()
    # a package of an npm registry (a marketplace entry of source `npm`): its name, the
    # registry the entry names (None: the user's own), and what it resolved to (`ref` holds
    # the version or range asked)
    npm: str | None = None
    registry: str | None = None
    version: str | None = None
    integrity: str | None = None
    # a zip over HTTPS (a marketplace entry of source `archive`): its URL, and the SHA-256 of
    # what was downloaded (`ref` holds the entry's own `sha256`, when it gives one)
    archive: str | None = None
    sha256: str | None = None

    @property
    def unpacked(self) -> bool:
        """Whether its checkout is written from an archive (an npm package, a zip), not git."""
        return self.npm is not None or self.archive is not None

    @property
    def picks(self) -> bool:
        """Whether only some of it is used: plugins or skills picked, or nothing yet."""
        return bool(self.plugins or self.skills or self.nothing)

    @property
    def pinned(self) -> bool:
        return self.ref is not None and FULL_OID.fullmatch(self.ref) is not None

    def shown(self) -> str:
        if self.npm is not None:
            return npm.described(self.npm, self.registry)
        if self.archive is not None:
            return self.archive
        where = str(self.path) if self.path is not None else str(self.url)
        return f"{where}/{self.subdir}" if self.subdir else where


# --------------------------------------------------------------------------- places


def home_of(home: paths.Scope, name: str) -> Path:
    """Where a source's checkouts live; in a project, never through a link leading out."""
    place = home.sources_dir / name
    found = paths.escapes(home, place)
    if found is not None:
        raise SourceError(f"{found.at}: {found.line()}")
    return place


def entry(home: paths.Scope, source: Source) -> SearchEntry:
    """The search-path entry of a source: its path, or its current checkout."""
    return paths.source_entry(
        home, source.name, source.path, source.plugins, source.skills, source.harness
    )


def entry_at(where: Path, source: Source) -> SearchEntry:
    """A source's plugins as found at `where` (a checkout of it), picked as it picks them."""
    return SearchEntry(where, "added", source.plugins, source.skills, source.name, source.harness)


def checkout(home: paths.Scope, source: Source) -> Path | None:
    """The checked-out tree in use, `current/<name>` (None for a path or a missing one).

    The tree sits in a directory named after the source so that a plugin without a
    manifest takes the source's name, as it would from a clone of the repository.
    """
    if source.path is not None:
        return None
    link = home_of(home, source.name) / CURRENT
    try:
        target = os.readlink(link)
    except OSError:
        return None
    found = link.parent / target / source.name
    return found if os.path.isdir(found) else None


def commit_of(there: Path) -> str:
    """The commit a checkout (`c-<commit>-<tree>/<name>`) is of."""
    found = named(there.parent.name)
    return found[0] if found else ""


# --------------------------------------------------------------------------- asking


class Request(NamedTuple):
    """What `plugins add SOURCE` was asked, before anything is fetched."""

    name: str
    url: str | None = None
    path: Path | None = None
    subdir: str = ""
    marketplace: str | None = None  # PLUGIN@MARKETPLACE: the marketplace's name
    plugin: str | None = None  # ... and the plugin's
    harness: str | None = None  # a harness's own folder (`.claude`): read in its format


def _clean_subdir(subdir: str, said: str) -> str:
    parts = [p for p in subdir.strip("/").split("/") if p]
    if any(p in (".", "..", ".git") for p in parts):
        raise SourceError(f"{said}: the path inside the repository must not hold '.', '..' or .git")
    return "/".join(parts)


def _default_name(text: str, said: str, name: str | None) -> str:
    if name is None:
        name = text.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
        name = name[:-4] if name.endswith(".git") else name
    if not is_safe_name(name):
        raise SourceError(
            f"{said}: {quoted(name)} cannot name a source; give one with --name ({NAME_RULE})"
        )
    return name


def _password(url: str) -> bool:
    """Whether a URL holds a password (`scheme://user:password@host`)."""
    match = re.match(r"[a-z+]+://([^/@]*)@", url)
    return bool(match and ":" in match.group(1))


def _no_secret(url: str) -> None:
    if _password(url):
        raise SourceError(
            f"{url.split('@', 1)[1]}: the URL holds a password, which would be written to the "
            "lockfile; remove it and let git's credential helper supply it"
        )


class NotAFolder(SourceError):
    """SOURCE names a local path where there is no folder: a usage error (exit 2), as a
    path named to any other command is."""


def request(text: str, name: str | None = None) -> Request:
    """SOURCE as typed -> what it names: a git URL, GitHub shorthand, a path, PLUGIN@MARKETPLACE."""
    said = text
    looks_local = text.startswith(("/", ".", "~")) or os.path.exists(text)
    marketplace = FROM_MARKETPLACE.fullmatch(text)
    if marketplace and not looks_local:
        plugin, market = marketplace.groups()
        return Request(name or plugin, marketplace=market, plugin=plugin)
    if text.startswith(URL_SCHEMES) or SCP_LIKE.fullmatch(text):
        _no_secret(text)
        return Request(_default_name(text, said, name), url=text)
    if looks_local:
        path = Path(os.path.abspath(os.path.expanduser(text)))
        if not os.path.isdir(path):
            what = "not a directory" if os.path.lexists(path) else "does not exist"
            raise NotAFolder(f"{said}: {what}; give a plugin, a marketplace or a git URL")
        from skilltool.harnesses import folder_harness

        harness = folder_harness(path.name)
        if harness is not None:  # `.claude`: named after its harness unless --name says
            return Request(name or harness, path=path, harness=harness)
        return Request(_default_name(path.name, said, name), path=path)
    if SHORTHAND.fullmatch(text):
        owner, repo, *rest = text.split("/", 2)
        subdir = _clean_subdir(rest[0], said) if rest else ""
        url = f"https://github.com/{owner}/{repo.removesuffix('.git')}.git"
        return Request(_default_name(subdir or repo, said, name), url=url, subdir=subdir)
    raise SourceError(
        f"{said}: not a source; give a git URL, owner/repo, a local path or PLUGIN@MARKETPLACE"
    )


# --------------------------------------------------------------------------- the lockfile

LOCK_HEADER = (
    "skilltool plugins lockfile: what `skilltool plugins add` was asked (url, ref, subdir,\n"
    "plugins) and what it resolved to (commit, tree). `skilltool plugins sync` makes a home\n"
    "match it; keep it in your dotfiles."
)


PROJECT_LOCK_HEADER = (
    "skilltool lockfile: each source of skilltool.toml and the commit and tree it resolved\n"
    "to. `skilltool plugins sync --frozen` gives a checkout exactly these; commit it."
)


def _header_line(text: str, name: str) -> int | None:
    """The line of a source's `[sources.<name>]` header, for pointing at it."""
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().replace('"', "").replace(" ", "") == f"[sources.{name}]":
            return number
    return None


def source_from(name: str, table: object, where: str) -> Source:
    """One `[sources.<name>]` table -> a Source; a SourceError naming the field and the fix."""
    if not is_safe_name(name) or not isinstance(table, dict):
        raise SourceError(
            f"{where}: sources.{name}: not a source table with a valid name ({NAME_RULE})"
        )

    def text(key: str, shape: re.Pattern[str] | None = None, what: str = "") -> str | None:
        value = table.get(key)
        if value is not None and (
            not isinstance(value, str) or (shape and not shape.fullmatch(value))
        ):
            raise SourceError(
                f"{where}: sources.{name}.{key}: must be {what or 'a string'}; fix it"
            )
        return value

    plugins = table.get("plugins", [])
    if not isinstance(plugins, list) or not all(isinstance(p, str) for p in plugins):
        raise SourceError(f"{where}: sources.{name}.plugins: must be a list of plugin names")
    skills = table.get("skills", [])
    if not isinstance(skills, list) or not all(is_safe_name(s) for s in skills):
        raise SourceError(f"{where}: sources.{name}.skills: must be a list of skill names")
    needed = table.get("as-dependency", [])
    if not isinstance(needed, list) or not all(is_safe_name(s) for s in needed):
        raise SourceError(
            f"{where}: sources.{name}.as-dependency: must be a list of plugin names; fix it"
        )
    approved = _approvals(table.get("approved", {}), f"{where}: sources.{name}.approved")
    path, url = (
        text("path"),
        text("url", GIT_URL, "a git URL (https://, ssh://, git@host:path, file://)"),
    )
    if url is not None and _password(url):
        raise SourceError(
            f"{where}: sources.{name}.url: the URL holds a password (not shown here), which a "
            "file someone else may read must not hold; remove it and let git's credential "
            "helper supply it"
        )
    package = table.get("npm")
    if package is not None and not npm.valid_package(package):
        raise SourceError(
            f"{where}: sources.{name}.npm: must be an npm package name (name or @scope/name); "
            "fix it"
        )
    zipped = table.get("archive")
    if zipped is not None:
        archive.check_url(zipped, f"{where}: sources.{name}")
    if [path, url, package, zipped].count(None) != 3:
        raise SourceError(
            f"{where}: sources.{name}: give exactly one of url, path, npm and archive"
        )
    sha256 = text("sha256", archive.DIGEST, "64 hex digits (the archive's SHA-256)")
    registry = text("registry", re.compile(r"https?://[^/\\\s]\S*"), "an http(s) URL")
    integrity = text("integrity", npm.INTEGRITY, "sha512-<base64> (the package's integrity)")
    version = text("version", semver.VERSION, "an exact version (1.2.3)")
    if zipped is None and table.get("sha256") is not None:
        raise SourceError(
            f"{where}: sources.{name}.sha256: belongs to an archive source; remove it"
        )
    if package is None and (registry or integrity or version):
        raise SourceError(
            f"{where}: sources.{name}: registry, version and integrity belong to an npm "
            "source; remove them"
        )
    harness = table.get("harness")
    if harness is not None:
        from skilltool.harnesses import FOLDER_READERS

        if path is None or harness not in FOLDER_READERS.values():
            raise SourceError(
                f"{where}: sources.{name}.harness: the harness whose own folder `path` is, "
                f"one of {', '.join(FOLDER_READERS.values())}; fix it"
            )
    oid = "a full commit or tree id"
    return Source(
        name,
        url,
        Path(path) if path is not None else None,
        text("ref"),
        _clean_subdir(text("subdir") or "", f"{where}: sources.{name}.subdir"),
        tuple(plugins),
        text("commit", FULL_OID, oid),
        text("tree", FULL_OID, oid),
        text("marketplace"),
        "plugins" in table and not plugins,
        approved,
        tuple(skills),
        harness,
        tuple(needed),
        package,
        registry,
        version,
        integrity,
        zipped,
        sha256,
    )


def read_lock(home: paths.Scope) -> list[Source]:
    """The sources of the lockfile, in its order; none when there is no lockfile."""
    where = home.lockfile
    try:
        raw = where.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as err:
        raise SourceError(
            f"{where}: cannot be read ({err.strerror}); check its permissions"
        ) from err
    try:
        data = paths.load_toml(raw)
    except ValueError as err:
        raise SourceError(f"{where}: not valid TOML ({err}); fix it or restore it") from err
    tables = data.get("sources", {})
    if not isinstance(tables, dict):
        raise SourceError(f"{where}: sources: must be a table of sources")
    text = raw.decode("utf-8", errors="replace")
    found = []
    for name, table in tables.items():
        line = _header_line(text, name)
        source = source_from(name, table, f"{where}:{line}" if line else str(where))
        if source.path is not None:  # a project's are relative to its folder
            source = source._replace(path=home.restored(str(source.path)))
        found.append(source)
    return found


FILE_ENTRY = re.compile(r"(100644|100755|120000) sha256:[0-9a-f]{64}")


def _approvals(value: Any, where: str) -> dict[str, PluginApproval]:
    """A source's approvals as the lockfile holds them, each checked against its digest: the
    command text and the files kept readable there are what a reviewer reads, and what the
    digest was taken of. One made by a skilltool whose approvals named no plugin is dropped
    (it is asked for again)."""
    from skilltool.runnables import digest_of

    again = "remove it to be asked again"
    if not isinstance(value, dict):
        raise SourceError(f"{where}: must be a table of plugins; {again}")
    found = {}
    for plugin, table in value.items():
        at = f"{where}.{plugin}"
        if isinstance(table, dict) and "digest" in table:
            continue  # an approval of a single command that names no plugin: asked again
        files, runs = (table.get(k) if isinstance(table, dict) else None for k in ("files", "runs"))
        if not isinstance(files, dict) or not all(
            isinstance(v, str) and FILE_ENTRY.fullmatch(v) for v in files.values()
        ):
            raise SourceError(
                f"{at}.files: must be a table of the plugin's files, each "
                f'"100644 sha256:<64 hex digits>"; {again}'
            )
        if not isinstance(runs, dict):
            raise SourceError(f"{at}.runs: must be a table of what the plugin runs; {again}")
        approvals = {}
        for key, item in runs.items():
            if not (
                isinstance(item, dict)
                and isinstance(item.get("command"), str)
                and isinstance(item.get("digest"), str)
                and DIGEST.fullmatch(item["digest"])
            ):
                raise SourceError(
                    f'{at}.runs."{key}": must be a table of its command and its digest '
                    f"(sha256:...); {again}"
                )
            if digest_of(plugin, key, item["command"], files) != item["digest"]:
                raise SourceError(
                    f'{at}.runs."{key}": its command or the plugin\'s files are not what its '
                    f"digest was taken of; {again}"
                )
            approvals[key] = Approval(item["digest"], item["command"])
        found[plugin] = PluginApproval(files, approvals)
    return found


def table_of(home: paths.Scope, source: Source) -> Any:
    import tomlkit

    table = tomlkit.table()
    if source.path is not None:
        table["path"] = home.stored(source.path)
    elif source.npm is not None:
        table["npm"] = source.npm
    elif source.archive is not None:
        table["archive"] = source.archive
    else:
        table["url"] = source.url
    for key in ("registry", "ref", "subdir", "marketplace", "harness"):
        value = getattr(source, key)
        if value:
            table[key] = value
    if source.plugins or source.nothing:
        table["plugins"] = list(source.plugins)
    if source.skills:
        table["skills"] = list(source.skills)
    if source.as_dependency:
        table["as-dependency"] = list(source.as_dependency)
    for key in ("commit", "tree", "version", "integrity", "sha256"):
        value = getattr(source, key)
        if value:
            table[key] = value
    if source.approved:
        approved = tomlkit.table(is_super_table=True)
        for plugin, approval in sorted(source.approved.items()):
            mine = tomlkit.table(is_super_table=True)
            files = tomlkit.table()
            for path, entry in sorted(approval.files.items()):
                files[path] = entry
            mine["files"] = files
            runs = tomlkit.table(is_super_table=True)
            for key, run in sorted(approval.runs.items()):
                item = tomlkit.table()
                item["command"] = run.command
                item["digest"] = run.digest
                runs[key] = item
            mine["runs"] = runs
            approved[plugin] = mine
        table["approved"] = approved
    return table


def write_lock(home: paths.Scope, sources: Iterable[Source]) -> None:
    """Write the lockfile atomically, keeping the comments a person added to it.

    A lockfile that is a link (into a dotfiles repository) is written where it leads.
    """
    import tomlkit

    from skilltool.fs import write_file

    where = Path(os.path.realpath(home.lockfile))
    try:
        document = tomlkit.parse(where.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        document = tomlkit.document()
        header = PROJECT_LOCK_HEADER if isinstance(home, paths.Project) else LOCK_HEADER
        for line in header.splitlines():
            document.add(tomlkit.comment(line))
    document["version"] = 1
    tables = tomlkit.table(is_super_table=True)
    for source in sources:
        tables[source.name] = table_of(home, source)
    document["sources"] = tables
    where.parent.mkdir(parents=True, exist_ok=True)
    write_file(where, tomlkit.dumps(document).encode(), 0o644, replace=True)


# --------------------------------------------------------------------------- what a source holds


class Holding(NamedTuple):
    """A plugin of a source, read for comparing: skill and agent name -> digest."""

    name: str
    skills: dict[str, str]
    agents: dict[str, str]


def _digest_dir(directory: Path) -> str:
    """A digest of every file's path and bytes (a link's target) under a skill directory."""
    import hashlib

    total = hashlib.sha256()
    for folder, _, filenames in sorted(os.walk(directory)):  # sorted: the same order each time
        for name in sorted(filenames):
            full = os.path.join(folder, name)
            total.update(os.path.relpath(full, directory).encode(errors="surrogateescape"))
            if os.path.islink(full):
                total.update(b"-> " + os.fsencode(os.readlink(full)))
                continue
            with contextlib.suppress(OSError), open(full, "rb") as handle:
                total.update(hashlib.sha256(handle.read()).digest())
    return total.hexdigest()


def holdings(where: SearchEntry) -> dict[str, Holding]:
    """The plugins found at an entry, each with a digest of every skill and agent."""
    from skilltool import discover

    found: dict[str, Holding] = {}
    for plugin in discover.discover([where]).plugins:
        if plugin.name in found:
            continue
        skills = {s.name: _digest_dir(s.path) for s in plugin.skills}
        agents = {a.name: _digest_file(a.path) for a in plugin.agents}
        found[plugin.name] = Holding(plugin.name, skills, agents)
    return found


def differences(before: dict[str, Holding], after: dict[str, Holding]) -> dict[str, list[str]]:
    """Per plugin, what changed: 'skill added x', 'agent changed y', 'plugin removed'."""
    changes: dict[str, list[str]] = {}
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old is None or new is None:
            changes[name] = ["plugin added" if old is None else "plugin removed"]
            continue
        said = []
        for kind, a, b in (("skill", old.skills, new.skills), ("agent", old.agents, new.agents)):
            said += [f"{kind} added {n}" for n in sorted(set(b) - set(a))]
            said += [f"{kind} removed {n}" for n in sorted(set(a) - set(b))]
            said += [f"{kind} changed {n}" for n in sorted(set(a) & set(b)) if a[n] != b[n]]
        if said:
            changes[name] = said
    return changes


def _digest_file(path: Path) -> str:
    import hashlib

    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


# --------------------------------------------------------------------------- results


class Done(NamedTuple):
    """What became of one source: the line a person reads and the fields a program reads."""

    verb: str  # added, updated, unchanged, would update, removed, synced, kept, ...
    source: Source
    before: str | None = None  # the commit it was at
    detail: str = ""
    changes: Mapping[str, list[str]] = {}
    # the plugins its marketplace renamed (`renames`): old name -> new, None when removed
    renamed: Mapping[str, str | None] = {}

    def lines(self) -> list[str]:
        where = self.source.shown()
        asked = self.source.ref if self.source.archive is None else None  # a zip's: its digest
        at = f" {asked}" if asked and not self.source.pinned else ""
        commit = (pin(self.source) or "")[:12]
        if self.before and self.before != self.source.commit:
            at += f" {self.before[:12]} -> {commit}"
        elif commit:
            at += f" @ {commit}"
        tail = f" ({self.detail})" if self.detail else ""
        lines = [f"{self.verb:<9} {self.source.name} {where}{at}{tail}"]
        for plugin, said in self.changes.items():
            lines.append(f"  plugin  {plugin}: {'; '.join(said)}")
        for old, new in self.renamed.items():
            if new is None:
                lines.append(
                    f"  plugin  {old}: removed by marketplace {self.source.name}; 'skilltool "
                    f"plugins remove {old}' drops it"
                )
            else:
                lines.append(
                    f"  plugin  {old}: renamed {new} by its marketplace; recorded as {new}"
                )
        return lines

    def as_dict(self) -> dict[str, Any]:
        s = self.source
        return {
            "verb": self.verb,
            "name": s.name,
            "url": s.url,
            "path": str(s.path) if s.path is not None else None,
            "ref": s.ref,
            "subdir": s.subdir or None,
            "plugins": list(s.plugins),
            "skills": list(s.skills),
            "commit": s.commit,
            "tree": s.tree,
            "npm": s.npm,
            "registry": s.registry,
            "version": s.version,
            "integrity": s.integrity,
            "archive": s.archive,
            "sha256": s.sha256,
            "before": self.before,
            "marketplace": s.marketplace,
            "detail": self.detail or None,
            "changes": dict(self.changes),
            "renamed": dict(self.renamed),
            "line": self.lines()[0],
        }


# --------------------------------------------------------------------------- add


def sweep_all(home: paths.Scope, sources: Iterable[Source]) -> None:
    """What killed runs left: temporary directories of sources, unused checkouts."""
    top = home.sources_dir
    try:
        names = os.listdir(top)
    except OSError:
        return
    for name in names:
        if name.startswith(TEMP_PREFIX):
            shutil.rmtree(top / name, ignore_errors=True)
    for source in sources:
        if source.path is None:
            sweep(home_of(home, source.name))


def _staging(home: paths.Scope, name: str, dry_run: bool) -> Path:
    """Where a new source is fetched: beside its final place (a rename away), or, for a dry
    run, in a temporary directory outside the home."""
    if dry_run:
        import tempfile

        return Path(tempfile.mkdtemp(prefix="skilltool-add-")) / name
    top = home.sources_dir
    top.mkdir(parents=True, exist_ok=True)
    return top / f"{TEMP_PREFIX}add-{name}-{os.getpid()}"


def _missing_parents(path: Path) -> list[Path]:
    """`path` and the directories above it that do not exist yet, deepest first."""
    missing = []
    while not os.path.lexists(path) and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing


def _narrowing(source: Source) -> Narrow | None:
    """What of its tree a source that picks plugins of a marketplace uses: the marketplace's
    folder and each picked plugin's (none picked: the marketplace's folder alone), and the
    manifests of the others (what `search` finds them by); None when it uses all of it
    (skills picked: any plugin may hold them)."""
    if source.unpacked or source.skills or not (source.plugins or source.nothing):
        return None  # a package or a zip comes whole
    return lambda read: plugin_folders(source.plugins, read(parse.MARKETPLACE_FILE))


def plugin_folders(names: Sequence[str], text: bytes | None) -> Parts | None:
    """The folders of a marketplace's tree that the plugins `names` need, as `discover`
    finds them (relative to its root, or to metadata.pluginRoot for a bare name), and the
    manifest files of its other plugins; None for all of the tree when that cannot be told
    (no marketplace, one that does not parse, a plugin at the root). A plugin reads
    nothing outside its folder (discover refuses it), and a remote one is a source of its
    own."""
    try:
        data = json.loads(text) if text is not None else None
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("plugins"), list):
        return None
    metadata = data.get("metadata")
    root = metadata.get("pluginRoot") if isinstance(metadata, dict) else None
    renamed, _ = parse.renames_of(data.get("renames"), data["plugins"])
    names = [str(renamed.get(name, name)) for name in names]  # a plugin renamed: its new name
    folders = [posixpath.dirname(parse.MARKETPLACE_FILE)]
    files = []
    for item in data["plugins"]:
        source = item.get("source") if isinstance(item, dict) else None
        if not isinstance(source, str):
            continue
        bare = isinstance(root, str) and not source.startswith("./")
        folder = posixpath.normpath(posixpath.join(str(root), source) if bare else source)
        if folder in (".", "..") or folder.startswith(("/", "../")):
            if item.get("name") in names:
                return None
            continue
        if item.get("name") in names:
            folders.append(folder)
        else:
            files += [f"{folder}/{place}" for place in parse.MANIFEST_PLACES]
    return Parts(tuple(folders), tuple(files))


class Ready(NamedTuple):
    """A source fetched and checked out beside the checkout in use (not yet used)."""

    source: Source  # resolved: its commit and tree
    checkout: str  # the directory's name in the source's directory
    submodules: list[str]  # in the tree, not fetched
    whole: str | None  # why the whole commit came when only a part of it is used

    def detail(self) -> str:
        """What to say of the fetch on the source's line: the submodules not fetched, and
        why the whole commit came."""
        said = [f"submodules not fetched: {', '.join(self.submodules)}"] if self.submodules else []
        return "; ".join([*said, *([self.whole] if self.whole else [])])


def _check_out(place: Path, source: Source, commit: str) -> Ready:
    assert source.url is not None
    # a store of its own for each commit: once it is in use, the one before goes whole
    store = store_of(place, commit)
    empty = not os.path.isdir(store)
    if empty:
        place.mkdir(parents=True, exist_ok=True)
        new_store(store)
    said, narrow = source.shown(), _narrowing(source)
    got = fetch(store, source.url, source.ref, commit, source.subdir, said, empty, narrow)
    if source.commit == commit and source.tree is not None and got.tree != source.tree:
        raise SourceError(
            f"{source.name}: commit {commit[:12]} holds tree {got.tree[:12]}, not the lockfile's "
            f"{source.tree[:12]}; the lockfile was edited by hand, or the repository rewritten"
        )
    made = prepare(place, source.name, commit, store, got.tree, said, got.parts)
    resolved = source._replace(commit=commit, tree=got.tree)
    return Ready(resolved, made.checkout, made.skipped, got.whole)


def fetch_new(source: Source, place: Path) -> Ready:
    """A git source fetched and checked out into the new directory `place`: resolved. Its
    default branch is fetched by name, with no question before (a round trip less). A
    package of an npm registry: the version its range names now, unpacked."""
    if source.npm is not None:
        place.mkdir(parents=True)
        found = npm.resolve(source.npm, source.ref, source.registry, source.shown())
        ready = _npm_check_out(place, source, found.version, found.integrity)
        flip(place, ready.checkout)
        return ready
    if source.archive is not None:
        place.mkdir(parents=True)
        ready = _zip_check_out(place, source, source.ref)
        flip(place, ready.checkout)
        return ready
    assert source.url is not None
    place.mkdir(parents=True)
    whole = None
    if source.ref is None:
        part = bool(source.subdir) or _narrowing(source) is not None
        commit, whole = fetch_head(place, source.url, part)
    else:
        commit = resolve(source.url, source.ref)
    ready = _check_out(place, source._replace(tree=None), commit)  # resolved anew
    flip(place, ready.checkout)
    return ready._replace(whole=whole or ready.whole)


def _npm_check_out(place: Path, source: Source, version: str, integrity: str | None) -> Ready:
    """A package at `version` written beside the checkout in use; `integrity`, the digest
    its tarball must have (the lockfile's, or the registry's), or any."""
    assert source.npm is not None
    said = source.shown()
    folder, got = npm.check_out(
        place, source.name, source.npm, version, source.registry, integrity, said
    )
    return Ready(source._replace(version=version, integrity=got), folder, [], None)


def _zip_check_out(place: Path, source: Source, digest: str | None) -> Ready:
    """A zip written beside the checkout in use; `digest`, the SHA-256 it must have (the
    entry's, the lockfile's), or any."""
    assert source.archive is not None
    said = source.shown()
    folder, got = archive.check_out(place, source.name, source.archive, digest, said)
    return Ready(source._replace(sha256=got), folder, [], None)


def pin(source: Source) -> str | None:
    """What a fetched source is pinned at: its commit, a package's exact version, a zip's
    digest."""
    if source.archive is not None:
        return source.sha256
    return source.version if source.npm is not None else source.commit


def same_ask(a: Source, b: Source) -> bool:
    asked = ("url", "path", "npm", "registry", "archive", "ref", "subdir", "plugins", "skills")
    return all(getattr(a, k) == getattr(b, k) for k in (*asked, "marketplace", "nothing"))


# (the source, where its tree is, the plugins it offers) -> the names picked
Pick = Callable[[Source, Path, Sequence[Plugin]], tuple[str, ...]]


def picked(source: Source, at: Path, pick: Pick | None) -> Source:
    """A marketplace added with no plugin named: the ones `pick` chooses of those its own
    tree holds (none: the marketplace is recorded, and nothing of it installed)."""
    from skilltool import discover, parse

    if pick is None or source.picks or not os.path.isfile(at / parse.MARKETPLACE_FILE):
        return source
    whole = entry_at(at, source)._replace(only=(), skills=())
    offered = [p for p in discover.discover([whole]).plugins if p.active]
    chosen = pick(source, at, offered)
    return source._replace(plugins=chosen, nothing=not chosen)


def marketplace_in(root: Path | None) -> Marketplace | None:
    """The marketplace.json at the top of a source's tree, read; None when there is none, or
    none that can be used (`validate` says why)."""
    if root is None or not os.path.isfile(root / parse.MARKETPLACE_FILE):
        return None
    market, _ = parse.read_marketplace(root / parse.MARKETPLACE_FILE)
    return market


def renamed_picks(source: Source, at: Path) -> tuple[Source, str]:
    """A source whose `--plugin` names one its marketplace renamed: picked under its new
    name, and the words that say so (as `add OLD@MARKETPLACE` does); a SourceError for one
    it removed."""
    market = marketplace_in(at) if source.plugins else None
    if market is None or all(market.current(p) == p for p in source.plugins):
        return source, ""
    said = []
    for old in source.plugins:
        new = market.current(old)
        if new is None:
            raise SourceError(
                f"{market.manifest}: renames.{old}: marketplace {market.name!r} removed plugin "
                f"{old!r}; nothing was added: leave out --plugin {old}"
            )
        if new != old:
            said.append(f"marketplace {market.name} renamed {old} to {new}")
    now = tuple(dict.fromkeys(str(market.current(p)) for p in source.plugins))
    return source._replace(plugins=now), "; ".join(said)


def check_plugins(source: Source, at: Path, others: Iterable[tuple[Source, SearchEntry]]) -> str:
    """The plugins a new source brings, said in words; a SourceError if they cannot be used."""
    from skilltool import discover

    if source.nothing:
        return "a marketplace: none of its plugins picked, nothing installed"
    catalogue = discover.discover([entry_at(at, source)._replace(only=(), skills=())])
    found = {p.name: p for p in catalogue.plugins}
    remote = [e.name for _, e in catalogue.not_fetched()]
    said = source.shown()
    missing = [n for n in source.plugins if n not in found]
    if missing:  # what its marketplace lists: a checkout holds the folders of those picked alone
        listed = {e.name for m in catalogue.marketplaces for e in m.entries if not e.remote}
        has = ", ".join(sorted(listed | set(found))) or "none"
        raise SourceError(f"{said}: no plugin {missing[0]!r} in it (it has: {has}); check --plugin")
    skills = {s.name for p in catalogue.plugins for s in p.skills}
    unknown = [n for n in source.skills if n not in skills]
    if unknown:
        has = ", ".join(sorted(skills)) or "none"
        raise SourceError(f"{said}: no skill {unknown[0]!r} in it (it has: {has}); check --skill")
    chosen = [found[n] for n in (source.plugins or ([] if source.skills else sorted(found)))]
    if source.skills:  # and the plugins holding a skill picked, narrowed to it
        chosen += discover.picked(catalogue.plugins, (), source.skills)
    # a plugin is what Claude Code takes for one: commands, servers or hooks alone too
    if not any(_holds_something(p) for p in chosen):
        if remote and not source.plugins:  # a marketplace of remote entries: add them by name
            return (
                f"a marketplace of {len(remote)} remote plugin(s): add one with PLUGIN@MARKETPLACE"
            )
        raise SourceError(
            f"{said}: no plugin with a skill, an agent, a command, an MCP server, a language "
            "server or a hook in it; nothing to add"
            + "".join(f"; {line}" for line in _skipped(source, catalogue, at))
        )
    for other, where in others:
        theirs = {p.name for p in discover.discover([where]).plugins}
        clash = sorted(theirs & {p.name for p in chosen})
        if clash:
            raise SourceError(
                f"{said}: plugin {clash[0]!r} is already added from {other.name} "
                f"({other.shown()}); remove that first, or choose others with --plugin"
            )
    whole = list(source.plugins or ([] if source.skills else sorted(found)))
    words = [f"{len(whole)} plugin(s): {_first_of(whole)}"] if whole else []
    if source.skills:
        words.append(f"skill(s) {', '.join(source.skills)} alone")
    return "; ".join(words)


def _holds_something(plugin: Plugin) -> bool:
    return bool(
        plugin.skills
        or plugin.agents
        or plugin.slash_commands
        or plugin.mcp_servers
        or plugin.lsp_servers
        or plugin.hook_commands
    )


def _first_of(names: list[str], shown: int = 6) -> str:
    """A few names and how many more, for a line a person reads: the whole list is `plugins
    list`'s."""
    if len(names) <= shown + 1:
        return ", ".join(names)
    rest = len(names) - shown
    return f"{', '.join(names[:shown])} and {rest} more: see 'skilltool plugins list'"


def _skipped(source: Source, catalogue: Catalogue, at: Path) -> list[str]:
    """What discovery passed over in a tree and how to include it (skill folders in hidden
    or deeper folders), as `install` says it, the paths relative to the tree (a fetched one
    is a staging folder the user never sees); from GitHub, the `add` of one such folder."""
    from skilltool import discover

    found = [*catalogue.problems, *(p for plugin in catalogue.plugins for p in plugin.problems)]
    skipped = [p for p in found if p.message.startswith("skipped")]
    folders = [os.path.relpath(p.path, at) for p in skipped]
    said = [f"{folder}: {p.message}" for folder, p in zip(folders, skipped, strict=True)]
    github = GITHUB.fullmatch(source.url or "")
    if github and folders:
        inside = "/".join(part for part in (source.subdir, folders[0]) if part)
        name = discover.slug(os.path.basename(folders[0]))
        said.append(
            f"to add the skills of one of these folders: 'skilltool plugins add "
            f"{github[1]}/{github[2]}/{inside} --name {name}'"
        )
    return said


# what a dry run of `add` sees while the fetched tree still exists: the source as it
# would be recorded and the directory its plugins are read from now
Look = Callable[[Source, Path], None]


def add(
    home: paths.Scope,
    text: str,
    ref: str | None,
    plugins: tuple[str, ...],
    name: str | None,
    dry_run: bool,
    look: Look | None = None,
    pick: Pick | None = None,
    skills: tuple[str, ...] = (),
) -> Done:
    """`plugins add`: fetch (or find) the source, check what it holds, record it. A
    marketplace with no plugin or skill named gets those `pick` chooses (None: all of them).

    With `dry_run`, nothing is recorded and the fetched tree is deleted after `look`."""
    asked = request(text, name)
    sources = read_lock(home)
    skills = tuple(dict.fromkeys(skills))
    if asked.marketplace is not None:
        return _add_from_marketplace(home, asked, ref, sources, dry_run, look, skills)
    wanted = Source(
        asked.name,
        asked.url,
        asked.path,
        ref,
        asked.subdir,
        tuple(plugins),
        skills=skills,
        harness=asked.harness,
    )
    if asked.path is not None and ref is not None:
        raise SourceError(f"{text}: a local path has no ref; leave out --ref")
    return _add_source(home, wanted, sources, dry_run, look, pick)


def _same_place(a: Source, b: Source) -> bool:
    """The same repository (or folder), ref and part of it, whichever plugins of it."""
    return same_ask(
        a._replace(plugins=(), skills=(), nothing=False),
        b._replace(plugins=(), skills=(), nothing=False),
    )


def _more_of(
    home: paths.Scope, known: Source, wanted: Source, sources: list[Source], dry_run: bool
) -> Done | None:
    """`add --plugin` or `--skill` of a source already recorded from the same place: those
    plugins and skills added to the ones it has (a marketplace's, one at a time), or None if
    it is not that."""
    if not (wanted.plugins or wanted.skills) or not _same_place(known, wanted):
        return None
    if not known.picks or (
        set(wanted.plugins) <= set(known.plugins) and set(wanted.skills) <= set(known.skills)
    ):
        return Done("unchanged", known, detail="already added")
    names = tuple(dict.fromkeys((*known.plugins, *wanted.plugins)))
    skills = tuple(dict.fromkeys((*known.skills, *wanted.skills)))
    grown = known._replace(plugins=names, skills=skills, nothing=False)
    others = [(s, entry(home, s)) for s in sources if s.name != known.name]
    at = source_root(home, known)
    if known.url is not None and at is not None and _used_parts(grown, at) != parts_of(at.parent):
        # a checkout of the plugins picked before: the folders of the new ones fetched (no
        # more: the commit's trees are in the store) into a checkout beside it
        _grow(home, known, wanted, grown, others, dry_run)
    elif at is not None:  # each plugin and skill named is there, and no other source has it
        check_plugins(wanted._replace(nothing=False), at, others)
    if not dry_run:
        write_lock(home, [grown if s.name == known.name else s for s in sources])
    named = [*wanted.plugins, *(f"skill {n}" for n in wanted.skills)]
    return Done("added", grown, detail=f"{', '.join(named)} of {known.name}")


def _grow(
    home: paths.Scope,
    known: Source,
    wanted: Source,
    grown: Source,
    others: list[tuple[Source, SearchEntry]],
    dry_run: bool,
) -> None:
    """The checkout of `known` replaced by one of `grown` at the same commit (a dry run:
    made outside the home and deleted), once what `wanted` names is found in it."""
    changed = kept_for_changes(home, known)
    if changed:
        raise SourceError(
            f"{known.name}: its checkout {checkout(home, known)} has local changes "
            f"({', '.join(changed[:3])}); nothing was added: 'skilltool plugins update "
            f"{known.name} --force' discards them"
        )
    place = home_of(home, known.name)
    if dry_run:  # fetched again, outside the home
        place = _staging(home, known.name, dry_run=True)
        place.mkdir(parents=True)
    try:
        ready = _check_out(place, grown, str(known.commit))
        check_plugins(wanted._replace(nothing=False), place / ready.checkout / known.name, others)
        if not dry_run:
            flip(place, ready.checkout)
    finally:
        if dry_run:
            shutil.rmtree(place.parent, ignore_errors=True)
        else:
            sweep(place)


def _add_source(
    home: paths.Scope,
    wanted: Source,
    sources: list[Source],
    dry_run: bool,
    look: Look | None,
    pick: Pick | None = None,
) -> Done:
    known = next((s for s in sources if s.name == wanted.name), None)
    if known is not None:
        more = _more_of(home, known, wanted, sources, dry_run)
        if more is not None:
            return more
        # the same place asked again, with no plugin named: what was picked stays
        if same_ask(known, wanted) or (not wanted.picks and _same_place(known, wanted)):
            missing = known.path is None and not _in_use(home, known, known.commit)
            why = "; not checked out here: 'skilltool plugins sync' does it" if missing else ""
            return Done("unchanged", known, detail=f"already added{why}")
        raise SourceError(
            f"{wanted.shown()}: a source named {wanted.name!r} is already added from "
            f"{known.shown()}; remove it first, or give another --name"
        )
    others = [(s, entry(home, s)) for s in sources]
    left = next((s for s in strays(home, sources) if s.source.name == wanted.name), None)
    if left is not None and not left.changed and not dry_run:
        drop(home_of(home, wanted.name))  # what a killed `add` left: skilltool's, unused
    if wanted.path is None and os.path.lexists(home_of(home, wanted.name)):
        raise SourceError(
            f"{wanted.shown()}: {home_of(home, wanted.name)} exists but is in no lockfile "
            "entry; 'skilltool plugins sync' prunes it, or give another --name"
        )
    if not dry_run:
        sweep_all(home, sources)
    local = wanted.path
    if local is not None:
        wanted, renamed = renamed_picks(picked(wanted, local, pick), local)
        detail = _joined(check_plugins(wanted, local, others), renamed)
        if not dry_run:
            write_lock(home, [*sources, wanted])
        elif look is not None:
            look(wanted, local)
        return Done("added", wanted, detail=detail)
    made = [] if dry_run else _missing_parents(home.sources_dir)
    place = _staging(home, wanted.name, dry_run)
    try:
        try:
            ready = fetch_new(wanted, place)
        except UnsafeTree as err:
            raise SourceError(f"{err}; the source was not added") from err
        resolved, renamed = renamed_picks(
            picked(ready.source, place / CURRENT / wanted.name, pick), place / CURRENT / wanted.name
        )
        if resolved.picks and not wanted.picks and resolved.url is not None:
            # the checkout narrowed to those picked (a package or a zip comes whole)
            flip(place, _check_out(place, resolved, str(resolved.commit)).checkout)
            sweep(place)  # the checkout of all of it, no longer used
        detail = _joined(check_plugins(resolved, place / CURRENT / wanted.name, others), renamed)
        if ready.detail():
            detail += f"; {ready.detail()}"
        if not dry_run:
            os.rename(place, home_of(home, wanted.name))
            write_lock(home, [*sources, resolved])
        elif look is not None:
            look(resolved, place / CURRENT / wanted.name)
    except BaseException:  # the home is left as it was
        shutil.rmtree(place, ignore_errors=True)
        for directory in made:
            with contextlib.suppress(OSError):
                directory.rmdir()
        raise
    finally:
        if dry_run:
            shutil.rmtree(place.parent, ignore_errors=True)
    return Done("added", resolved, detail=detail)


def source_root(home: paths.Scope, source: Source) -> Path | None:
    """The directory a source's plugins are read from (its path, or its checkout)."""
    return source.path if source.path is not None else checkout(home, source)


def remote_of(fields: Mapping[str, Any], where: str) -> tuple[str, str | None, str]:
    """A marketplace entry's remote source object -> (git URL, ref or commit, subdir)."""
    kind = fields.get("source")
    ref = fields.get("sha") or fields.get("ref")
    if ref is not None and not isinstance(ref, str):
        raise SourceError(f"{where}: source.ref: must be a string")
    url = fields.get("repo") if kind == "github" else fields.get("url")
    if kind == "command":
        raise SourceError(
            f"{where}: source: a source of kind 'command' runs a shell command to make the "
            "plugin, and skilltool runs none to fetch one; add the plugin from its git "
            "repository or a folder instead"
        )
    if kind not in ("github", "url", "git-subdir"):
        raise SourceError(
            f"{where}: a source of kind {kind!r} cannot be fetched by skilltool (github, url, "
            "git-subdir, npm and archive can); add the plugin from its git repository instead"
        )
    if not isinstance(url, str) or not url:
        key = "repo" if kind == "github" else "url"
        raise SourceError(f"{where}: source.{key}: missing; the entry does not say where it is")
    if kind == "github" or (not url.startswith(URL_SCHEMES) and SHORTHAND.fullmatch(url)):
        url = f"https://github.com/{url.removesuffix('.git')}.git"
    if not GIT_URL.fullmatch(url):
        raise SourceError(f"{where}: source.url: {url!r} is not a git URL skilltool fetches")
    subdir = fields.get("path") if kind == "git-subdir" else ""
    if not isinstance(subdir, str):
        raise SourceError(f"{where}: source.path: must be a string")
    _no_secret(url)
    return url, ref, _clean_subdir(subdir, where)


def npm_source(fields: Mapping[str, Any], ref: str | None, where: str) -> Source:
    """A marketplace entry's `npm` source object -> the Source to fetch (named later), its
    fields checked as Claude Code 2.1.332 checks them: `package` a package name (a path, URL
    or git spec npm would fetch otherwise is refused), `version` a version, range or tag,
    `registry` an http(s) URL (plain http only when it is the user's own registry)."""
    package, version, registry = (fields.get(k) for k in ("package", "version", "registry"))
    if not npm.valid_package(package):
        raise SourceError(
            f"{where}: source.package: {package!r} is not an npm package name (name or "
            "@scope/name); skilltool fetches packages from a registry alone"
        )
    version = ref if ref is not None else version
    if version is not None and not npm.valid_version(version):
        raise SourceError(
            f"{where}: source.version: {version!r} is not a version, a range or a dist-tag"
        )
    if registry is not None:
        npm.check_registry(registry, where)
    return Source("", npm=str(package), registry=registry, ref=version)


def zip_source(fields: Mapping[str, Any], ref: str | None, where: str) -> Source:
    """A marketplace entry's `archive` source object -> the Source to fetch (named later):
    `url` an https URL Claude Code 2.1.332 takes, `sha256` (or --ref) the digest it must
    have, when given."""
    url = archive.check_url(fields.get("url"), where)
    digest = archive.check_digest(ref if ref is not None else fields.get("sha256"), where)
    return Source("", archive=url, ref=digest)


# the marketplaces Claude Code knows by name without being told where they are (it adds
# Anthropic's official one by itself): `plugins add P@NAME` adds one first when it is not added
KNOWN_MARKETPLACES = {"claude-plugins-official": "anthropics/claude-plugins-official"}


def add_known_marketplace(home: paths.Scope, text: str, dry_run: bool) -> Done | None:
    """For `P@M` where M is a marketplace Claude Code knows by name and none of that name is
    added: M added first, with none of its plugins picked (its listing fetched, nothing
    else), as Claude Code adds it on first use. None when there is nothing to add."""
    named = FROM_MARKETPLACE.fullmatch(text)
    if named is None or named.group(2) not in KNOWN_MARKETPLACES:
        return None
    asked = request(text)
    market = str(asked.marketplace)
    try:
        _marketplace_of(home, market, read_lock(home))
        return None
    except SourceError:
        pass
    repository = KNOWN_MARKETPLACES[market]
    if dry_run:
        raise SourceError(
            f"{market}: Claude Code's own marketplace is not added here yet, and a dry run "
            f"fetches nothing; see it with 'skilltool plugins add {repository} --name "
            f"{market} --dry-run'"
        )
    done = add(home, repository, None, (), market, False, pick=lambda *_: ())
    return done._replace(detail=f"Claude Code's own marketplace, added for {asked.plugin}")


LISTING_FRESH = 24 * 3600  # seconds a fetched listing of a known marketplace is searched as is


def known_listing(home: paths.Scope, market: str) -> Path:
    """The tree of a marketplace Claude Code knows by name, not added here: its listing
    alone (`.claude-plugin/marketplace.json` and what an entry of its own tree names in it
    is not fetched), kept in the cache and fetched again once a day, for `plugins search`."""
    import time

    place = home.cache_dir / "marketplaces" / market
    tree = place / CURRENT / market
    try:
        fresh = time.time() - os.stat(place).st_mtime < LISTING_FRESH
    except OSError:
        fresh = False
    if fresh and os.path.isdir(tree):
        return tree
    url = request(KNOWN_MARKETPLACES[market]).url
    staging = place.parent / f"{TEMP_PREFIX}{market}-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        fetch_new(Source(market, url, None, None, "", (), nothing=True), staging)
        if os.path.isdir(place):
            drop(place)
        os.rename(staging, place)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return tree


def take_back(home: paths.Scope, source: Source, lockfile: bytes | None) -> None:
    """A source this run added, dropped again (a later step failed): the lockfile as it was
    (`lockfile`: its bytes before, None when there was none), the source's checkout deleted."""
    if lockfile is None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(home.lockfile)
    else:
        write_lock(home, [s for s in read_lock(home) if s.name != source.name])
    place = home_of(home, source.name)
    if source.path is None and os.path.isdir(place):
        drop(place)


def _marketplace_of(home: paths.Scope, market: str, sources: list[Source]) -> tuple[Source, Any]:
    """The added source that is the marketplace of that name, and its marketplace.json read."""
    from skilltool import parse

    for source in sources:
        root = source_root(home, source)
        if root is None or not os.path.isfile(root / parse.MARKETPLACE_FILE):
            continue
        read, problems = parse.read_marketplace(root / parse.MARKETPLACE_FILE)
        if read is None:
            if source.name == market:
                raise SourceError(str(problems[0]) if problems else f"{market}: unreadable")
            continue
        if market in (source.name, read.name):
            return source, read
    raise SourceError(
        f"{market}: no marketplace of that name is added; add its repository first "
        "(skilltool plugins add OWNER/REPO)"
    )


def _add_from_marketplace(
    home: paths.Scope,
    asked: Request,
    ref: str | None,
    sources: list[Source],
    dry_run: bool,
    look: Look | None,
    skills: tuple[str, ...] = (),
) -> Done:
    market_source, market = _marketplace_of(home, str(asked.marketplace), sources)
    listed = ", ".join(e.name for e in market.entries) or "none"
    now = market.current(str(asked.plugin))
    if now is None:
        raise SourceError(
            f"{market.manifest}: renames.{asked.plugin}: marketplace {market.name!r} removed "
            f"plugin {asked.plugin!r}; nothing was added (it lists: {listed})"
        )
    renamed = ""
    if now != asked.plugin:
        renamed = f"marketplace {market.name} renamed {asked.plugin} to {now}"
        asked = asked._replace(plugin=now, name=now if asked.name == asked.plugin else asked.name)
    wanted = next((e for e in market.entries if e.name == now), None)
    if wanted is None:
        raise SourceError(
            f"{market.manifest}: no plugin {asked.plugin!r} in marketplace {market.name!r} "
            f"(it lists: {listed})"
        )
    done = _add_wanted(home, asked, ref, sources, dry_run, look, skills, market_source, market)
    return done._replace(detail=_joined(done.detail, renamed))


def _joined(*said: str) -> str:
    return "; ".join(part for part in said if part)


def _add_wanted(
    home: paths.Scope,
    asked: Request,
    ref: str | None,
    sources: list[Source],
    dry_run: bool,
    look: Look | None,
    skills: tuple[str, ...],
    market_source: Source,
    market: Marketplace,
) -> Done:
    wanted = next(e for e in market.entries if e.name == asked.plugin)
    if not wanted.remote and skills:  # skills of a plugin in the marketplace's own tree
        plugin = market_source._replace(plugins=(), skills=skills, nothing=False)
        done = _more_of(home, market_source, plugin, sources, dry_run)
        assert done is not None
        return done
    if not wanted.remote:  # in the marketplace's own tree: the marketplace source uses it
        if not market_source.picks or wanted.name in market_source.plugins:
            return Done("unchanged", market_source, detail=f"{wanted.name} is already added")
        plugin = market_source._replace(plugins=(wanted.name,), skills=(), nothing=False)
        done = _more_of(home, market_source, plugin, sources, dry_run)
        assert done is not None
        return done._replace(detail=f"plugin {wanted.name} of {market.name}")
    assert not isinstance(wanted.source, str)
    where = f"{market.manifest}: {wanted.name}"
    kind = wanted.source.get("source")
    if kind in ("npm", "archive"):
        made = (
            npm_source(wanted.source, ref, where)
            if kind == "npm"
            else zip_source(wanted.source, ref, where)
        )
        source = made._replace(name=asked.name, marketplace=market.name, skills=skills)
        return _add_source(home, source, sources, dry_run, look)
    url, pinned, subdir = remote_of(wanted.source, where)
    source = Source(
        asked.name, url, None, ref or pinned, subdir, (), marketplace=market.name, skills=skills
    )
    return _add_source(home, source, sources, dry_run, look)


# --------------------------------------------------------------------------- update


def select(sources: list[Source], names: Iterable[str]) -> list[Source]:
    """The sources named (by source name, or by a plugin name they list); all when none."""
    names = list(names)
    if not names:
        return list(sources)
    chosen = []
    for name in names:
        found = [s for s in sources if s.name == name] or [s for s in sources if name in s.plugins]
        if not found:
            raise SourceError(
                f"{name}: no source of that name was added; 'skilltool plugins status' lists them"
            )
        chosen += [s for s in found if s not in chosen]
    return chosen


Item = TypeVar("Item")
Result = TypeVar("Result")


def at_once(work: Callable[[Item], Result], items: Sequence[Item]) -> list[Result]:
    """`work` on every item in threads (git does the waiting), results in order; the first
    failure is raised once all are done."""
    from concurrent.futures import ThreadPoolExecutor

    if len(items) < 2:
        return [work(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(16, len(items))) as pool:
        return list(pool.map(work, items))


def newest(sources: list[Source]) -> dict[str, str]:
    """Source name -> the commit its ref names now: one remote query per URL, in parallel.

    A pinned commit stays and costs no query; a path has no commit.
    """
    asking = [s for s in sources if s.url is not None and not s.pinned]
    wanted: dict[str, set[str]] = {}
    for source in asking:
        wanted.setdefault(str(source.url), set()).add(source.ref or "HEAD")
    urls = sorted(wanted)
    answers = dict(zip(urls, at_once(lambda u: ls_remote(u, sorted(wanted[u])), urls), strict=True))
    found = {s.name: str(s.ref) for s in sources if s.url is not None and s.pinned}
    for source in asking:
        found[source.name] = resolve(str(source.url), source.ref, answers[str(source.url)])
    packages = [s for s in sources if s.npm is not None]

    def version(s: Source) -> str:
        return npm.resolve(str(s.npm), s.ref, s.registry, s.shown()).version

    found.update(zip((s.name for s in packages), at_once(version, packages), strict=True))
    zips = [s for s in sources if s.archive is not None]

    def digest(s: Source) -> str:  # what the URL serves now: the entry's digest, or any
        got = archive.digest_of(archive.get(str(s.archive), s.shown()))
        if s.ref is not None and got != s.ref:
            raise SourceError(
                f"{s.shown()}: the archive's SHA-256 is {got[:16]}..., not the {s.ref[:16]}... "
                "its entry gives; nothing was changed"
            )
        return got

    found.update(zip((s.name for s in zips), at_once(digest, zips), strict=True))
    return found


def _in_use(home: paths.Scope, source: Source, commit: str | None) -> bool:
    """Whether the checkout in use is of `commit` and holds what the source uses of it (a
    plugin picked since, say by a teammate's lockfile, is not in a checkout made before)."""
    there = checkout(home, source)
    if source.npm is not None:  # the package at that version, with the digest pinned
        made = npm.checkout_name(source.integrity) if source.integrity else None
        return there is not None and commit == source.version and there.parent.name == made
    if source.archive is not None:  # the zip of that digest
        made = archive.checkout_name(source.sha256) if source.sha256 else None
        return there is not None and commit == source.sha256 and there.parent.name == made
    if there is None or commit is None or commit_of(there) != commit:
        return False
    return parts_of(there.parent) == _used_parts(source, there)


def _used_parts(source: Source, there: Path) -> tuple[str, ...]:
    """The folders and files of the checkout `there` that the source uses, decided from it
    as `fetch` decides them from the commit: () for all of it."""
    narrow = _narrowing(source)
    if narrow is None:
        return ()

    def read(path: str) -> bytes | None:
        try:
            return (there / path).read_bytes()
        except OSError:
            return None

    def kind(path: str) -> str:  # as the commit's listing says it: a link is neither
        full = there / path
        if full.is_symlink():
            return ""
        return "folder" if full.is_dir() else "file" if full.is_file() else ""

    return held(narrow(read), kind)


def kept_for_changes(home: paths.Scope, source: Source) -> list[str]:
    """The paths changed by hand in a source's checkout (none for a path)."""
    there = checkout(home, source)
    if there is not None and source.npm is not None:
        return npm.changes(there.parent / npm.TARBALL, there)
    if there is not None and source.archive is not None:
        return archive.changes(there.parent / archive.KEPT, there)
    return [] if there is None else changed_by_hand(there, home_of(home, source.name) / STORE)


def edited_checkouts(home: paths.Scope) -> list[str]:
    """Each checkout that holds changes made by hand, with the first of them: what
    `uninstall --purge` keeps unless --force (a lockfile it cannot read: kept too)."""
    try:
        recorded = read_lock(home)
    except SourceError as err:
        return [f"the lockfile cannot be read ({err})"]
    said = [(s.name, kept_for_changes(home, s)) for s in recorded]
    said += [(s.source.name, s.changed) for s in strays(home, recorded)]
    return [f"{name} ({', '.join(changed[:3])})" for name, changed in said if changed]


def changed_by_hand(there: Path, store: Path) -> list[str]:
    """The paths of a checkout that differ from the tree its directory is named after;
    what cannot be checked counts as changed, so that it is kept."""
    found, parts = named(there.parent.name), parts_of(there.parent)
    if found is None or parts is None:
        return [f"{there.parent.name}: not a checkout skilltool named"]
    own = store_of(there.parent.parent, found[0])  # the store it was written from
    try:
        return local_changes(own if os.path.isdir(own) else store, found[1], there, parts)
    except SourceError as err:
        return [f"cannot be checked ({err})"]


def fetched(home: paths.Scope, source: Source, commit: str) -> Ready:
    """A source with `commit` fetched and checked out beside the one in use (not yet used);
    a package at the version `commit`, with the digest pinned when it is the one pinned."""
    if source.npm is not None:
        pinned = source.integrity if commit == source.version else None
        return _npm_check_out(home_of(home, source.name), source, commit, pinned)
    if source.archive is not None:
        return _zip_check_out(home_of(home, source.name), source, commit)
    return _check_out(home_of(home, source.name), source, commit)


def move_to(home: paths.Scope, old: Source, new: Ready) -> Mapping[str, list[str]]:
    """Make a fetched source's checkout current; what changed in its plugins."""
    place = home_of(home, new.source.name)
    before_at = checkout(home, old)
    before = holdings(entry_at(before_at, old)) if before_at else {}
    flip(place, new.checkout)
    after = holdings(entry_at(place / CURRENT / new.source.name, new.source))
    return differences(before, after)


def _coming(home: paths.Scope, outdated: Done) -> Done:
    """What updating a source would change in its plugins, from a fetch outside the home."""
    source = outdated.source
    place = _staging(home, source.name, dry_run=True)
    try:
        new = fetch_new(source, place).source
        before_at = checkout(home, source)
        before = holdings(entry_at(before_at, source)) if before_at else {}
        after = holdings(entry_at(place / CURRENT / source.name, source))
    finally:
        shutil.rmtree(place.parent, ignore_errors=True)
    return outdated._replace(source=new, changes=differences(before, after))


def update(
    home: paths.Scope, names: Iterable[str], check: bool, force: bool, preview: bool = False
) -> list[Done]:
    """`plugins update`: every source chosen to the newest commit of its ref, or said why not.

    `check` writes nothing and asks only for the newest commits; `preview` (a dry run) also
    fetches each outdated source outside the home, to say what would change in it."""
    sources = read_lock(home)
    chosen = select(sources, names)
    if not check:  # what a killed run left: its temporary files, a checkout no longer used
        sweep_all(home, chosen)
    try:
        commits = newest(chosen)
    except SourceError as err:
        if len(chosen) < 2:
            raise
        raise SourceError(f"{err}; nothing was updated (name the others to update them)") from err
    done: list[Done] = []
    plan: list[tuple[Source, str]] = []
    for source in chosen:
        commit = commits.get(source.name)
        if source.path is not None:
            done.append(Done("unchanged", source, detail="a local path, used in place"))
        elif commit == pin(source) and _in_use(home, source, commit):
            done.append(Done("unchanged", source))
        else:
            plan.append((source, str(commit)))
    if check:
        ahead = [Done("outdated", _at_pin(s, c), pin(s)) for s, c in plan]
        return done + [_coming(home, d) if preview else d for d in ahead]
    if not preview:  # a marketplace that renamed a plugin since: its new name recorded
        done = [_renames_recorded(home, d) for d in done]
    for source, _ in plan:
        changed = kept_for_changes(home, source)
        if changed and not force:
            raise SourceError(
                f"{source.name}: its checkout {checkout(home, source)} has local changes "
                f"({', '.join(changed[:3])}); nothing was updated: --force discards them"
            )
    ready = at_once(lambda item: (item[0], fetched(home, *item)), plan)
    for source, moved in ready:  # every fetch done: from here on nothing can fail but the disk
        changes = move_to(home, source, moved)
        sources = [moved.source if s.name == source.name else s for s in sources]
        write_lock(home, sources)
        sweep(home_of(home, source.name))
        updated = Done("updated", moved.source, pin(source), moved.detail(), changes)
        done.append(_renames_recorded(home, updated))
    return done


def _at_pin(source: Source, at: str) -> Source:
    if source.archive is not None:
        return source._replace(sha256=at)
    return source._replace(version=at) if source.npm is not None else source._replace(commit=at)


def _renames_recorded(home: paths.Scope, done: Done) -> Done:
    """A source whose marketplace renamed plugins it picks (`renames`): the new names in the
    lockfile (its picks, those added as dependencies, what was approved of them), said on
    the source's lines. A plugin the marketplace removed stays recorded, and is said."""
    source = done.source
    market = marketplace_in(source_root(home, source)) if source.plugins else None
    if market is None:
        return done
    renamed = {p: market.current(p) for p in source.plugins if market.current(p) != p}
    if not renamed:
        return done

    def now(name: str) -> str:
        return renamed.get(name) or name

    moved = source._replace(
        plugins=tuple(dict.fromkeys(now(p) for p in source.plugins)),
        as_dependency=tuple(dict.fromkeys(now(p) for p in source.as_dependency)),
        approved={
            now(p): a
            for p, a in source.approved.items()
            if now(p) == p or now(p) not in source.approved
        },
    )
    write_lock(home, [moved if s.name == source.name else s for s in read_lock(home)])
    return done._replace(source=moved, renamed=renamed)


# --------------------------------------------------------------------------- remove and sync


class Removal(NamedTuple):
    """What `remove` takes away: the source as it will be (None: all of it), and the
    search-path entry whose plugins (all, or those named) are dropped before."""

    source: Source
    after: Source | None
    entry: SearchEntry
    plugins: tuple[str, ...]  # empty: every plugin of the entry


def removal(home: paths.Scope, name: str, force: bool) -> Removal:
    """What removing NAME (a source, or one plugin an added marketplace lists) means, or a
    SourceError saying why it cannot be removed."""
    sources = read_lock(home)
    found = next((s for s in sources if s.name == name), None)
    holder = found or next((s for s in sources if name in s.plugins), None)
    if holder is None:  # a plugin its marketplace renamed: by either name, the one picked
        holder, name = _picked_as(home, sources, name)
    if holder is None:
        raise SourceError(
            f"{name}: no source of that name was added by skilltool; nothing was removed "
            "('skilltool plugins status' lists what was added)"
        )
    rest = () if found else tuple(p for p in holder.plugins if p != name)
    if rest:  # one plugin of a marketplace source: the source stays, narrowed
        left = tuple(p for p in holder.as_dependency if p in rest)
        after = holder._replace(plugins=rest, as_dependency=left)
        return Removal(holder, after, entry(home, holder), (name,))
    changed = kept_for_changes(home, holder)
    if changed and not force:
        raise SourceError(
            f"kept      {holder.name}: its checkout {checkout(home, holder)} has local changes "
            f"({', '.join(changed[:3])}); nothing was removed: --force removes it anyway"
        )
    return Removal(holder, None, entry(home, holder), ())


def _picked_as(
    home: paths.Scope, sources: Sequence[Source], name: str
) -> tuple[Source | None, str]:
    """The source that picks the plugin `name` under another name of its marketplace's
    `renames` (the lockfile names it by its old name, or `name` is the old one), and the
    name the lockfile gives it; (None, name) when there is none."""
    for source in sources:
        market = marketplace_in(source_root(home, source)) if source.plugins else None
        if market is None or market.current(name) is None:
            continue
        for pick in source.plugins:
            if market.current(pick) == market.current(name):
                return source, pick
    return None, name


def removals(home: paths.Scope, name: str, also: Sequence[str], force: bool) -> list[Removal]:
    """What removing NAME and the plugins `also` (the dependencies nothing else needs once it
    is gone) means: one Removal a source, the plugins of one source taken together."""
    first = removal(home, name, force)
    if not also:
        return [first]
    every = read_lock(home)
    whole = {first.source.name} if first.after is None else set()
    dropped: dict[str, set[str]] = {}
    if first.after is not None:
        dropped[first.source.name] = set(first.plugins)
    for plugin in also:
        found = next((s for s in every if s.name == plugin and s.plugins in ((), (plugin,))), None)
        holder = found or next((s for s in every if plugin in s.plugins), None)
        if holder is None or holder.name in whole:
            continue
        dropped.setdefault(holder.name, set()).add(plugin)
    found_all = []
    for source in every:
        taken = dropped.get(source.name, set())
        rest = tuple(p for p in source.plugins if p not in taken)
        if source.name in whole or (taken and not rest):
            if source.name != first.source.name and kept_for_changes(home, source) and not force:
                continue  # a dependency with local changes stays, as a source removed would
            found_all.append(Removal(source, None, entry(home, source), ()))
        elif taken:
            left = tuple(p for p in source.as_dependency if p in rest)
            after = source._replace(plugins=rest, as_dependency=left)
            found_all.append(Removal(source, after, entry(home, source), tuple(sorted(taken))))
    return found_all


def forget(home: paths.Scope, gone: Removal) -> None:
    """Drop a removed source from the lockfile, then delete its checkout (never a path)."""
    sources = read_lock(home)
    if gone.after is not None:
        write_lock(home, [gone.after if s.name == gone.source.name else s for s in sources])
        _narrow_to(home, gone.after)
        return
    place = home_of(home, gone.source.name)
    write_lock(home, [s for s in sources if s.name != gone.source.name])
    if gone.source.path is None and os.path.isdir(place):
        drop(place)


def _narrow_to(home: paths.Scope, source: Source) -> None:
    """A checkout of the plugins a source picked before, made one of those it picks now
    from its own store (nothing to fetch: they are fewer), unless edited by hand; left as
    it is if it cannot be (the next `sync` does it)."""
    if source.url is not None and not _in_use(home, source, source.commit):
        with contextlib.suppress(SourceError, OSError):
            if checkout(home, source) is not None and not kept_for_changes(home, source):
                place = home_of(home, source.name)
                flip(place, fetched(home, source, str(source.commit)).checkout)
                sweep(place)


class Stray(NamedTuple):
    """A checkout no source of the lockfile has (the lockfile was replaced, say from a
    dotfiles repository): `sync` prunes what came from it and deletes it."""

    source: Source  # its name, and its directory as the path
    entry: SearchEntry
    changed: list[str]


def strays(home: paths.Scope, sources: Iterable[Source]) -> list[Stray]:
    names = {s.name for s in sources}
    top = home.sources_dir
    try:
        found = sorted(os.listdir(top))
    except OSError:
        return []
    left = []
    for name in found:
        place = top / name
        try:
            used = os.readlink(place / CURRENT)
        except OSError:
            used = ""
        # a package's or a zip's checkout: no store
        package = any(c.fullmatch(used) for c in (npm.CHECKOUT, archive.CHECKOUT))
        if name in names or name.startswith(TEMP_PREFIX):
            continue
        if not (package or os.path.isdir(place / STORE)):
            continue
        there = place / used / name if used else None
        changed = []
        if there is not None and there.is_dir():
            changed = changed_by_hand(there, place / STORE)
            if npm.CHECKOUT.fullmatch(used):
                changed = npm.changes(there.parent / npm.TARBALL, there)
            elif archive.CHECKOUT.fullmatch(used):
                changed = archive.changes(there.parent / archive.KEPT, there)
        entry = paths.source_entry(home, name, None)
        left.append(Stray(Source(name, path=place), entry, changed))
    return left


def drop(place: Path) -> None:
    """Delete a checkout directory: renamed aside first, so a crash leaves no half of it
    under its own name."""
    aside = place.parent / f"{TEMP_PREFIX}gone-{place.name}-{os.getpid()}"
    os.rename(place, aside)
    shutil.rmtree(aside, ignore_errors=True)


def reconcile(
    home: paths.Project, asked: Sequence[Source], frozen: bool, dry_run: bool
) -> list[Source]:
    """A project's lockfile brought to its manifest (`asked`): a source asked as it was
    keeps its pin, one new or asked otherwise is to be resolved, one no longer asked goes.
    With `frozen` any difference stops the run, naming it. Returns the local sources that
    went, whose plugins are then pruned."""
    locked = read_lock(home)
    by_name = {s.name: s for s in locked}
    wanted = [s.name for s in asked]
    said, kept = [], []
    for source in asked:
        pinned = by_name.get(source.name)
        if pinned is not None and same_ask(pinned, source):
            kept.append(pinned)
            continue
        said.append(f"sources.{source.name} is {'asked otherwise' if pinned else 'not locked'}")
        kept.append(source)
    gone = [s for s in locked if s.name not in wanted]
    said += [f"sources.{s.name} is locked but not asked" for s in gone]
    if frozen and said:
        raise SourceError(
            f"{home.lockfile}: does not match skilltool.toml ({'; '.join(said)}), and --frozen "
            "resolves nothing; run 'skilltool plugins sync' and commit skilltool.lock"
        )
    if said and not dry_run:
        write_lock(home, kept)
    return [s for s in gone if s.path is not None]


def sync(home: paths.Scope, frozen: bool, dry_run: bool, offline: bool = False) -> list[Done]:
    """`plugins sync`: every source of the lockfile checked out at its recorded commit.

    `offline` (a project whose git sources' skills are committed copies, frozen): a source
    that cannot be fetched is not a failure; what was committed of it is used as it is."""
    sources = read_lock(home)
    done: list[Done] = []
    todo: list[Source] = []
    for source in sources:
        if source.path is not None:
            if not os.path.isdir(source.path):
                raise SourceError(f"{source.name}: {source.path} does not exist on this machine")
            done.append(Done("unchanged", source, detail="a local path, used in place"))
        elif (pin(source) is None or _no_digest(source)) and frozen:
            what = "version" if source.npm else "sha256" if source.archive else "commit"
            what = "integrity" if pin(source) and _no_digest(source) else what
            raise SourceError(
                f"{home.lockfile}: sources.{source.name} has no {what}, and --frozen "
                "resolves nothing; run 'skilltool plugins sync' without --frozen"
            )
        elif _in_use(home, source, pin(source)):
            done.append(Done("unchanged", source))
        else:
            todo.append(source)
    if dry_run:
        return done + [Done("would sync", s) for s in todo]
    resolved = {s.name: pin(s) for s in todo if pin(s)} | newest([s for s in todo if not pin(s)])

    def fetch(source: Source) -> tuple[Source, Ready | SourceError]:
        try:
            return source, fetched(home, source, str(resolved[source.name]))
        except SourceError as err:
            if not offline:
                raise
            return source, err

    ready = []
    for source, got in at_once(fetch, todo):
        if isinstance(got, SourceError):
            why = f"not fetched ({got}); what is committed of it is used as it is"
            done.append(Done("offline", source, detail=why))
        else:
            ready.append((source, got))
    for source, synced in ready:  # every fetch done: from here on nothing can fail but the disk
        before = _at(home, source)
        flip(home_of(home, source.name), synced.checkout)
        sources = [synced.source if s.name == source.name else s for s in sources]
        done.append(Done("synced", synced.source, before, synced.detail()))
    if not frozen and any(pin(s) is None or _no_digest(s) for s in todo):
        write_lock(home, sources)
    for source in sources:
        if source.path is None:
            sweep(home_of(home, source.name))
    return done


def _no_digest(source: Source) -> bool:
    """A package pinned by version alone (a lockfile written by hand): its bytes unpinned."""
    return source.npm is not None and source.integrity is None


def _at(home: paths.Scope, source: Source) -> str | None:
    there = checkout(home, source)
    if source.unpacked:  # what is pinned, when the checkout of it is in use
        return pin(source) if _in_use(home, source, pin(source)) else None
    return commit_of(there) if there is not None else None


def states(home: paths.Scope) -> list[dict[str, Any]]:
    """Per added source, what `status` shows: where from, ref, commit, local changes."""
    try:
        found = read_lock(home)
    except SourceError as err:
        return [{"name": None, "problem": str(err)}]
    rows = []
    for source in found:
        at = _at(home, source)
        row: dict[str, Any] = {
            "name": source.name,
            "source": source.shown(),
            "ref": source.ref,
            "commit": source.commit,
            "npm": source.npm,
            "version": source.version,
            "integrity": source.integrity,
            "archive": source.archive,
            "sha256": source.sha256,
            "plugins": list(source.plugins),
            "skills": list(source.skills),
            "checkout": str(checkout(home, source) or "") or None,
            "local_changes": kept_for_changes(home, source),
            "problem": None,
        }
        if source.path is None and at is None:
            row["problem"] = "not checked out here; run 'skilltool plugins sync'"
        elif source.path is None and at != pin(source):
            row["problem"] = (
                f"checked out at {at}, not the lockfile's; run 'skilltool plugins sync'"
            )
        elif source.path is not None and not os.path.isdir(source.path):
            row["problem"] = "the path does not exist"
        rows.append(row)
    return rows
