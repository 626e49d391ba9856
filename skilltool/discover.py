"""Search path -> plugins, in order, with shadowing (SPEC §2).

An entry of the search path is taken for the first of these that fits:
- a marketplace (`.claude-plugin/marketplace.json`): each entry with a local source is a plugin;
- a plugin (a manifest, `skills/`, `agents/`, `commands/` or `.mcp.json`);
- a single skill (a `SKILL.md` right in it);
- a directory of plugins: each child is a marketplace, a plugin or a skill folder, or a
  category holding skill folders; the skill folders found one or two levels down make one
  plugin named after the directory (a skill collection).
The first plugin of a name wins; later ones are kept, marked as shadowed, for `status`.
Components are read where Claude Code reads them (README "Layouts").
"""

from __future__ import annotations

import errno
import functools
import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from skilltool import parse, paths, probe
from skilltool.model import (
    Agent,
    Catalogue,
    Hook,
    Layout,
    Marketplace,
    MarketplaceEntry,
    Origin,
    Plugin,
    PluginKind,
    Problem,
    SearchEntry,
    Severity,
    Skill,
    quoted,
)
from skilltool.record import NamedTuple

if TYPE_CHECKING:
    from skilltool.cache import Caches

# never searched for plugins or skills: version control, dependencies, caches
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)
AGENT_DEPTH = 4  # agents/ is read this many folders deep (Claude Code reads subfolders)
# what Claude Code counts as components when it checks a strict:false entry for a conflict
CLAUDE_COMPONENTS = (*parse.COMPONENT_FIELDS, "hooks", "mcpServers", "lspServers", "outputStyles")
LOOKED_FOR = (
    "looked for .claude-plugin/marketplace.json, a manifest (.claude-plugin/plugin.json), "
    "skills/, agents/, commands/, a SKILL.md, or skill folders one or two levels down"
)


class Reader(Protocol):
    """Reads one file: parse's functions, or a cache in front of them."""

    def read_skill(self, directory: Path) -> tuple[Skill | None, list[Problem]]: ...

    def read_agent(self, path: Path) -> tuple[Agent | None, list[Problem]]: ...

    def read_manifest(self, path: Path) -> tuple[dict[str, Any] | None, list[Problem]]: ...

    def read_marketplace(self, path: Path) -> tuple[Marketplace | None, list[Problem]]: ...


def looks_like_plugin(path: Path) -> bool:
    # os.path, not Path methods: those raise on a directory that cannot be searched; strings
    # joined, not Paths made: this runs for every plugin
    join = os.path.join
    return (
        probe.now.isdir(join(path, "skills"))
        or probe.now.isdir(join(path, "agents"))
        or probe.now.isdir(join(path, "commands"))
        or probe.now.isfile(join(path, ".mcp.json"))
        or probe.now.isfile(join(path, "hooks", "hooks.json"))
        or probe.now.isfile(join(path, ".lsp.json"))
        or any(probe.now.isfile(join(path, place)) for place in parse.MANIFEST_PLACES)
    )


def is_marketplace(path: Path) -> bool:
    return probe.now.isfile(os.path.join(path, parse.MARKETPLACE_FILE))


def is_skill(path: Path) -> bool:
    return probe.now.isfile(os.path.join(path, parse.SKILL_FILE))


def _entries(directory: Path, hidden: bool = False) -> list[os.DirEntry[str]]:
    found = [e for e in probe.now.scandir(directory) if hidden or not e.name.startswith(".")]
    return sorted(found, key=lambda e: e.name)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    return probe.now.entry_is_dir(entry)


def _inside(path: Path, root: Path) -> bool:
    real, real_root = probe.now.realpath(path), probe.now.realpath(root)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def _escapes(path: Path, root: Path) -> bool:
    """A link that leads outside the plugin: what it points at is not the plugin's to ship."""
    return probe.now.islink(path) and not _inside(path, root)


def _outside(path: Path, what: str) -> Problem:
    return Problem(path, f"a link that leads outside the plugin; put the {what} inside the plugin")


def _broken(path: Path, want: str) -> Problem:
    return Problem(path, f"a broken or looping link; point it at {want}, or remove it")


def _unlisted(path: Path, err: OSError) -> Problem:
    return Problem(path, f"cannot be listed ({err.strerror}); check its permissions")


def slug(name: str) -> str:
    """A directory's name as a plugin name: lower case, other characters as single '-'."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:64].strip("-") or "skills"


def _kind(path: Path) -> Layout | None:
    """What a directory is on its own, from a few stats: the first that fits."""
    if is_marketplace(path):
        return "marketplace"
    if looks_like_plugin(path):
        return "plugin"
    if is_skill(path):
        return "single skill"
    return None


def _skill_folders(directory: Path) -> list[str]:
    """The names of the subfolders of `directory` that hold a SKILL.md."""
    try:
        children = _entries(directory, hidden=True)
    except OSError:
        return []
    return [e.name for e in children if e.name not in SKIP_DIRS and is_skill(directory / e.name)]


# --- one plugin: where its components are, as Claude Code reads them --------------------------


class Components(NamedTuple):
    """Where one plugin's skills, agents and commands are read from."""

    listed: Mapping[str, list[str]]  # field -> the usable paths given for it, as written
    default: Mapping[str, bool]  # field -> whether its default folder is read too


def components(manifest: Mapping[str, Any] | None, entry: MarketplaceEntry | None) -> Components:
    """The component paths, combined as Claude Code 2.1.332 combines them (README "Layouts").

    A plugin.json list adds to `skills/` but replaces `agents/` and `commands/`; the list of
    a strict:false marketplace entry does the opposite. A strict entry's lists join plugin.json's.
    """
    listed: dict[str, list[str]] = {key: [] for key in parse.COMPONENT_FIELDS}
    default = dict.fromkeys(parse.COMPONENT_FIELDS, True)
    sources: list[tuple[bool, Mapping[str, Any]]] = []
    if manifest is not None:
        sources.append((True, manifest))
    if entry is not None:
        sources.append((entry.strict, entry.fields))
    for as_manifest, fields in sources:
        for key in parse.COMPONENT_FIELDS:
            paths = parse.component_paths(fields.get(key)) if key in fields else None
            if paths is None:
                continue
            listed[key] += [p for p in paths if parse.component_path_problem(key, p) is None]
            if as_manifest == (key != "skills"):
                default[key] = False
    return Components(listed, default)


def _conflict(manifest: Mapping[str, Any] | None, entry: MarketplaceEntry | None) -> bool:
    """A strict:false entry whose plugin.json lists components too: Claude Code loads neither."""
    if entry is None or entry.strict or manifest is None:
        return False
    return any(key in manifest for key in CLAUDE_COMPONENTS) and any(
        key in entry.fields for key in CLAUDE_COMPONENTS
    )


class PluginFiles(NamedTuple):
    skills: list[Skill]
    agents: list[Agent]
    places: list[Path]  # folders whose subfolders were read as skills
    paths: list[Path]  # skill folders named one by one
    commands: list[Path]


def _resolve(
    root: Path, path: str, field: str, where: Path, problems: list[Problem]
) -> Path | None:
    """A listed component path inside the plugin, or None with the problem said."""
    full = Path(os.path.normpath(root / path))
    if not _inside(full, root):
        problems.append(Problem(where, f"{path!r} leads outside the plugin; put it inside", field))
        return None
    if not probe.now.exists(full):
        problems.append(Problem(where, f"{path!r} is not in {root}; fix the path", field))
        return None
    return full


def _default_dir(root: Path, name: str, problems: list[Problem]) -> Path | None:
    """The plugin's own `skills/`, `agents/` or `commands/`, if it has one it may ship."""
    # one lstat tells a missing folder, a folder, and a link (followed only then)
    seen = probe.now.stat(os.path.join(root, name), follow=False)
    if seen is None:
        return None
    mode = seen.st_mode
    path = root / name
    link = stat.S_ISLNK(mode)
    if not (probe.now.isdir(path) if link else stat.S_ISDIR(mode)):
        if link:
            problems.append(_broken(path, "a directory inside the plugin"))
        return None
    if link and not _inside(path, root):
        problems.append(_outside(path, name))
        return None
    return path


def read_plugin(
    root: Path,
    origin: Origin,
    reader: Reader = parse,
    entry: MarketplaceEntry | None = None,
    market: Marketplace | None = None,
) -> Plugin:
    """One plugin directory (or marketplace entry) -> a Plugin with every usable skill and agent."""
    problems: list[Problem] = []
    manifest, ignored = parse.find_manifest(root)
    name = entry.name if entry is not None else root.name
    for extra in ignored:
        problems.append(
            Problem(extra, f"ignored: {manifest} is used; remove one", severity="warning")
        )
    if manifest is not None and (_escapes(manifest, root) or _escapes(manifest.parent, root)):
        problems.append(_outside(manifest, "manifest"))
        manifest = None
    data = None
    if manifest is not None:
        data, found = reader.read_manifest(manifest)
        problems += found
        if data is not None and entry is None:
            name = data["name"]
    if manifest is None and entry is None and not parse.is_safe_name(name):
        problems.append(
            Problem(
                root,
                f"directory name {quoted(name)} is not a valid plugin name; "
                f'rename it or add a manifest with a valid "name" ({parse.NAME_RULE})',
            )
        )
    kind: PluginKind = "plugin" if market is None else "marketplace plugin"
    where = market.manifest if market is not None else manifest or root
    if _conflict(data, entry) and market is not None and entry is not None:
        problems.append(
            Problem(
                market.manifest,
                f"plugin {entry.name!r} is strict:false but {manifest} lists components too; "
                'Claude Code loads neither: set "strict": true, or remove the lists from one',
                "strict",
                entry.line,
            )
        )
        return Plugin(name, root, origin, manifest, problems=tuple(problems), kind=kind)
    files = _read_files(root, components(data, entry), where, problems, reader)
    from skilltool import parse_servers

    declared = (root, manifest, data, entry, market, problems)
    servers = _read_servers(parse_servers.read_servers, *declared)
    from skilltool import parse_commands

    cached = getattr(reader, "read_command", None)  # the parse cache keeps commands too
    read = parse_commands.read_command
    if cached is not None:
        read = functools.partial(cached, read=parse_commands.read_command)
    commands = parse_commands.read_commands(files.commands, root, problems, read)
    hook_files, hooks = _read_hooks(root, data, manifest, entry, market, problems)
    lsp = _read_servers(parse_servers.read_lsp_servers, *declared)
    options = _read_options(data, manifest, entry, market, problems)
    needs = _read_dependencies(data, manifest, entry, market, problems)
    wished = _read_dependencies(data, manifest, entry, market, problems, "optionalDependencies")
    wished = {k: v for k, v in wished.items() if k not in needs}  # in both lists: needed
    version = data.get("version") if data is not None else None
    if not isinstance(version, str) and entry is not None:
        version = entry.fields.get("version")
    default_enabled = _default_enabled(data, manifest, entry, market, problems)
    return Plugin(
        name,
        root,
        origin,
        manifest,
        tuple(files.skills),
        tuple(files.agents),
        tuple(problems),
        kind=kind,
        marketplace=market.name if market is not None else None,
        skill_places=tuple(files.places),
        skill_paths=tuple(files.paths),
        commands=tuple(files.commands),
        mcp_servers=servers,
        slash_commands=tuple(commands),
        hooks=tuple(hook_files),
        hook_commands=tuple(hooks),
        lsp_servers=lsp,
        claude_only=_claude_only(root, data, entry),
        user_config=options,
        dependencies=needs,
        version=version if isinstance(version, str) else None,
        default_enabled=default_enabled,
        optional_dependencies=wished,
    )


def _default_enabled(
    data: Mapping[str, Any] | None,
    manifest: Path | None,
    entry: MarketplaceEntry | None,
    market: Marketplace | None,
    problems: list[Problem],
) -> bool:
    """`defaultEnabled`, as Claude Code 2.1.332 reads it: the marketplace entry's over
    plugin.json's; a value that is not true or false is an error (Claude Code refuses to
    install the plugin), read as true."""
    declared: list[tuple[Mapping[str, Any] | None, Path | None, int | None]] = [
        (data, manifest, None)
    ]
    if entry is not None and market is not None:
        declared.append((entry.fields, market.manifest, entry.line))
    found = True
    for fields, where, line in declared:
        if not isinstance(fields, Mapping) or "defaultEnabled" not in fields:
            continue
        value = fields["defaultEnabled"]
        if isinstance(value, bool):
            found = value
            continue
        assert where is not None
        problems.append(
            Problem(
                where,
                f"must be true or false, not {parse.kind_of(value)}; Claude Code refuses to "
                "install the plugin",
                "defaultEnabled",
                line,
            )
        )
    return found


# the parts of a plugin that only Claude Code's own plugin loader takes (2.1.332: its
# validator lists them under "Provides"), each by its plugin.json key and default place
CLAUDE_ONLY = (
    ("output styles", "outputStyles", "output-styles"),
    ("themes", "themes", "themes"),
    ("monitors", "monitors", "monitors"),
    ("workflows", "workflows", "workflows"),
    ("channels", "channels", None),
    ("bin/", None, "bin"),
    ("settings.json", "settings", "settings.json"),
)


def _claude_only(
    root: Path, data: Mapping[str, Any] | None, entry: MarketplaceEntry | None
) -> tuple[str, ...]:
    """What the plugin holds that skilltool carries to no harness: declared in plugin.json
    (or its `experimental` table), in a strict:false entry, or in its default place."""
    declared: dict[str, Any] = {}
    for fields in (data, entry.fields if entry is not None else None):
        if isinstance(fields, Mapping):
            declared.update(fields)
            if isinstance(fields.get("experimental"), Mapping):
                declared.update(fields["experimental"])
    found = []
    for said, key, place in CLAUDE_ONLY:
        if (key is not None and declared.get(key)) or (
            place is not None and probe.now.exists(os.path.join(root, place))
        ):
            found.append(said)
    return tuple(found)


def _read_options(
    data: Mapping[str, Any] | None,
    manifest: Path | None,
    entry: MarketplaceEntry | None,
    market: Marketplace | None,
    problems: list[Problem],
) -> dict[str, dict[str, Any]]:
    """The plugin's `userConfig` (parse_options), read only when it declares one."""
    declared = [(data, manifest)]
    if entry is not None and market is not None:
        declared.append((entry.fields, market.manifest))
    if not any(isinstance(f, Mapping) and "userConfig" in f for f, _ in declared):
        return {}
    from skilltool import parse_options

    options, found = parse_options.read_user_config(declared)
    problems += found
    return options


def _read_dependencies(
    data: Mapping[str, Any] | None,
    manifest: Path | None,
    entry: MarketplaceEntry | None,
    market: Marketplace | None,
    problems: list[Problem],
    key: str = "dependencies",
) -> dict[str, dict[str, str]]:
    """The plugins it needs (parse_options), read only when it names any; with `key`
    "optionalDependencies", those it takes when it can."""
    declared = [(data, manifest)]
    if entry is not None and market is not None:
        declared.append((entry.fields, market.manifest))
    if not any(isinstance(f, Mapping) and key in f for f, _ in declared):
        return {}
    from skilltool import parse_options

    needs, found = parse_options.read_dependencies(declared, key)
    problems += found
    return needs


def _read_hooks(
    root: Path,
    data: Mapping[str, Any] | None,
    manifest: Path | None,
    entry: MarketplaceEntry | None,
    market: Marketplace | None,
    problems: list[Problem],
) -> tuple[list[Path], list[Hook]]:
    """The plugin's hook files and command hooks, as Claude Code finds them (parse_hooks)."""
    from skilltool import parse_hooks

    declared = [(data, manifest)]
    if entry is not None and market is not None:
        declared.append((entry.fields, market.manifest))
    files, hooks, found = parse_hooks.read_hooks(root, declared)
    # a hook skilltool cannot read is carried nowhere, and the rest of the plugin still is,
    # as Claude Code loads a plugin whose hooks it refuses
    problems += [p._replace(severity="warning") for p in found]
    return files, hooks


Server = TypeVar("Server")


def _read_servers(
    read: Callable[..., tuple[list[Server], list[Problem]]],
    root: Path,
    manifest: Path | None,
    data: Mapping[str, Any] | None,
    entry: MarketplaceEntry | None,
    market: Marketplace | None,
    problems: list[Problem],
) -> tuple[Server, ...]:
    """The plugin's servers that `read` reads (parse_servers: MCP or language servers)."""
    listing = market.manifest if market is not None else None
    servers, found = read(root, manifest, data, entry, listing)
    problems += found
    return tuple(servers)


def _read_files(
    root: Path, parts: Components, where: Path, problems: list[Problem], reader: Reader
) -> PluginFiles:
    places: list[Path] = []
    paths: list[Path] = []
    if parts.default["skills"] and (found := _default_dir(root, "skills", problems)):
        places.append(found)
    for path in parts.listed["skills"]:
        full = _resolve(root, path, "skills", where, problems)
        if full is None or full in places or full in paths or full.parent in places:
            continue  # already read where it is (a list naming skills/<x> one by one)
        if is_skill(full):
            paths.append(full)
        elif probe.now.isdir(full):
            places.append(full)
        else:
            problems.append(
                Problem(where, f"{path!r} is not a folder; name a skill folder", "skills")
            )
    skills: list[Skill] = []
    for place in places:
        skills += _read_place(place, root, problems, reader)
    for folder in paths:
        skills += _read_skill_dir(folder, root, problems, reader)
    agent_files: list[Path] = []
    if parts.default["agents"] and (found := _default_dir(root, "agents", problems)):
        agent_files += _agent_files(found, root, problems, AGENT_DEPTH)
    for path in parts.listed["agents"]:
        full = _resolve(root, path, "agents", where, problems)
        if full is not None and full not in agent_files:
            agent_files.append(full)
    commands: list[Path] = []
    if parts.default["commands"] and (found := _default_dir(root, "commands", problems)):
        commands.append(found)
    for path in parts.listed["commands"]:
        full = _resolve(root, path, "commands", where, problems)
        if full is not None and full not in commands:
            commands.append(full)
    agents = _read_agents(agent_files, root, problems, reader)
    return PluginFiles(skills, agents, places, paths, commands)


def _read_skill_dir(
    directory: Path, root: Path, problems: list[Problem], reader: Reader
) -> list[Skill]:
    skill_file = os.path.join(directory, parse.SKILL_FILE)  # a string, not a Path: per skill
    seen = probe.now.stat(skill_file, follow=False)
    if seen is not None and stat.S_ISLNK(seen.st_mode):
        if _escapes(directory / parse.SKILL_FILE, root):
            problems.append(_outside(directory / parse.SKILL_FILE, "SKILL.md"))
            return []
        seen = None  # a link: what counts is the stat of the file it leads to
    # the parse cache takes this stat as its key rather than asking for it again
    quick = getattr(reader, "read_skill_seen", None)
    if quick is not None and seen is not None:
        skill, found = quick(directory, seen, skill_file)
    else:
        skill, found = reader.read_skill(directory)
    problems += found
    return [skill] if skill is not None else []


def _deeper(directory: Path, root: Path, names: list[str]) -> Problem:
    """A folder of skill folders where Claude Code reads none: named, never skipped silently."""
    relative = os.path.relpath(directory, root)
    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    return Problem(
        directory,
        f"skipped: it holds {len(names)} skill folder(s) ({shown}) one level deeper than "
        f'Claude Code reads; to use them, list "./{relative}" in plugin.json "skills", '
        "or add this folder to the search path",
        severity="warning",
    )


def _read_place(
    place: Path, root: Path, problems: list[Problem], reader: Reader, quiet: bool = False
) -> list[Skill]:
    """Every skill folder right inside `place`; hidden ones too, as Claude Code reads them.

    `quiet`: a folder that holds no skill is passed over (a collection's other folders).
    """
    try:
        entries = _entries(place, hidden=True)
    except OSError as err:
        problems.append(_unlisted(place, err))
        return []
    skills = []
    for entry in entries:
        directory = place / entry.name
        hidden = entry.name.startswith(".")
        if entry.name in SKIP_DIRS:
            continue
        if not _is_dir(entry):
            if entry.is_symlink():
                problems.append(_broken(directory, "a skill directory inside the plugin"))
            elif not hidden and not quiet:
                problems.append(
                    Problem(
                        directory,
                        "not a directory; a skill is a directory with a SKILL.md",
                        severity="warning",
                    )
                )
            continue
        if entry.is_symlink() and not _inside(directory, root):
            problems.append(_outside(directory, "skill"))
            continue
        skills += _read_folder(directory, root, problems, reader, hidden or quiet)
    return skills


def _read_folder(
    directory: Path, root: Path, problems: list[Problem], reader: Reader, quiet: bool
) -> list[Skill]:
    """A folder of a skills place: a skill, or a folder of skills one level deeper (named, not
    read), or, unless `quiet`, a folder missing its SKILL.md."""
    found: list[Problem] = []
    # read first: the usual folder holds a SKILL.md, and this costs it no extra stat
    skills = [] if quiet else _read_skill_dir(directory, root, found, reader)
    if not skills and not probe.now.lexists(os.path.join(directory, parse.SKILL_FILE)):
        deeper = _skill_folders(directory)
        if deeper:
            problems.append(_deeper(directory, root, deeper))
            return []
        if quiet:
            return []
    elif quiet:
        skills = _read_skill_dir(directory, root, found, reader)
    problems += found
    return skills


def _agent_files(directory: Path, root: Path, problems: list[Problem], depth: int) -> list[Path]:
    """Every `.md` under an agents folder, subfolders and hidden ones too (as Claude Code)."""
    try:
        entries = _entries(directory, hidden=True)
    except OSError as err:
        problems.append(_unlisted(directory, err))
        return []
    files: list[Path] = []
    for entry in entries:
        path = directory / entry.name
        if entry.name.endswith(".md"):
            if entry.is_symlink() and not _inside(path, root):
                problems.append(_outside(path, "agent file"))
                continue
            files.append(path)
        elif (
            depth > 1 and entry.name not in SKIP_DIRS and not entry.is_symlink() and _is_dir(entry)
        ):
            files += _agent_files(path, root, problems, depth - 1)
    return files


def _read_agents(
    files: list[Path], root: Path, problems: list[Problem], reader: Reader
) -> list[Agent]:
    agents: list[Agent] = []
    seen: dict[str, Path] = {}
    for path in files:
        agent, found = reader.read_agent(path)
        problems += found
        if agent is None:
            continue
        if agent.name in seen:
            problems.append(
                Problem(
                    path,
                    f"agent name {quoted(agent.name)} is also used by {seen[agent.name]}; "
                    "rename one",
                    "name",
                    agent.lines.get("name"),
                )
            )
            continue
        seen[agent.name] = path
        agents.append(agent)
    return agents


# --- one search-path entry: what it is taken for ----------------------------------------------


class Found(NamedTuple):
    """What one search-path entry holds."""

    layout: Layout
    plugins: list[Plugin]
    problems: list[Problem]
    marketplaces: list[Marketplace]
    read: bool  # it was there and read whole: evidence of what is no longer in it
    only: tuple[str, ...] | None = None  # the plugins picked, as a marketplace names them now


def _entry_root(
    market: Marketplace, entry: MarketplaceEntry, problems: list[Problem]
) -> Path | None:
    """Where a local marketplace entry's plugin is: from the root, or pluginRoot for bare names."""
    assert isinstance(entry.source, str)
    base = market.root
    if market.plugin_root is not None and not entry.source.startswith("./"):
        base = market.root / market.plugin_root
    full = Path(os.path.normpath(base / entry.source))
    field = f"plugins.{entry.name}.source"
    if not _inside(full, market.root):
        problems.append(
            Problem(
                market.manifest,
                f"{entry.source!r} leads outside the marketplace {market.root}; "
                "put the plugin inside it, or give a remote source",
                field,
                entry.line,
            )
        )
        return None
    if not probe.now.isdir(full):
        problems.append(
            Problem(
                market.manifest,
                f"{entry.source!r} is not a directory ({full}); fix the path",
                field,
                entry.line,
            )
        )
        return None
    return full


def read_marketplace(
    path: Path, origin: Origin, reader: Reader = parse, only: tuple[str, ...] = ()
) -> tuple[Marketplace | None, list[Plugin], list[Problem]]:
    """A marketplace root -> its plugins with a local source; remote ones stay listed."""
    market, problems = reader.read_marketplace(path / parse.MARKETPLACE_FILE)
    if market is None:
        return None, [], problems
    if only:
        only = current_picks(market, only, problems)
        market = market._replace(entries=tuple(e for e in market.entries if e.name in only))
    plugins = []
    for entry in market.entries:
        if entry.remote:
            continue
        root = _entry_root(market, entry, problems)
        if root is not None:
            plugins.append(read_plugin(root, origin, reader, entry=entry, market=market))
    return market, plugins, problems


def current_picks(
    market: Marketplace, only: tuple[str, ...], problems: list[Problem]
) -> tuple[str, ...]:
    """The plugins picked of a marketplace, under the names it lists them by now: a plugin
    it renamed (`renames`) is found under its new name, one it removed is left out, each with
    a line saying so (`plugins update` records the new names)."""
    now = []
    for name in only:
        new = market.current(name)
        if new != name:
            problems.append(_renamed(market, name, new))
        if new is not None:
            now.append(new)
    return tuple(dict.fromkeys(now))


def _renamed(market: Marketplace, old: str, new: str | None) -> Problem:
    if new is None:
        why = (
            f"marketplace {market.name!r} removed plugin {old!r}; 'skilltool plugins remove "
            f"{old}' drops it from the lockfile"
        )
    else:
        why = (
            f"marketplace {market.name!r} renamed plugin {old!r} to {new!r}; it is used under "
            "its new name ('skilltool plugins update' records it)"
        )
    return Problem(market.manifest, why, f"renames.{old}", None, "warning")


def _single_skill(path: Path, origin: Origin, reader: Reader) -> Plugin:
    problems: list[Problem] = []
    skills = _read_skill_dir(path, path, problems, reader)
    return Plugin(
        slug(path.name),
        path,
        origin,
        skills=tuple(skills),
        problems=tuple(problems),
        kind="single skill",
        skill_paths=(path,),
    )


def _collection(
    root: Path, origin: Origin, categories: list[Path], reader: Reader, skills_here: bool
) -> Plugin:
    """The skill folders of a directory, one or two levels down, as one plugin."""
    problems: list[Problem] = []
    places = [root] if skills_here else []
    skills = _collection_skills(root, problems, reader) if skills_here else []
    for category in categories:
        places.append(category)
        skills += _read_place(category, root, problems, reader, quiet=True)
    return Plugin(
        slug(root.name),
        root,
        origin,
        skills=tuple(skills),
        problems=tuple(problems),
        kind="skill collection",
        skill_places=tuple(places),
    )


def _collection_skills(root: Path, problems: list[Problem], reader: Reader) -> list[Skill]:
    skills = []
    for name in _skill_folders(root):
        directory = root / name
        if name.startswith("."):
            continue  # named by _hidden_note
        if _escapes(directory, root):
            problems.append(_outside(directory, "skill"))
        else:
            skills += _read_skill_dir(directory, root, problems, reader)
    return skills


def _hidden_note(path: Path, kind: Layout | None) -> Problem | None:
    """A hidden folder of a directory of plugins is skipped, but never silently if it holds one."""
    what = kind if kind is not None else ("skill folders" if _skill_folders(path) else None)
    if what is None:
        return None
    return Problem(
        path,
        f"skipped: a hidden folder, though it holds a {what}; add it to the search path to use it",
        severity="warning",
    )


def _directory(
    path: Path, origin: Origin, reader: Reader, children: list[os.DirEntry[str]]
) -> Found:
    """A directory of plugins (and of skill folders, which make it a collection too)."""
    plugins: list[Plugin] = []
    problems: list[Problem] = []
    markets: list[Marketplace] = []
    categories: list[Path] = []
    files: list[Problem] = []
    skills_here = False
    for child in children:
        child_path = path / child.name
        if child.name in SKIP_DIRS:
            continue
        if child.name.startswith("."):
            if _is_dir(child) and (note := _hidden_note(child_path, _kind(child_path))):
                problems.append(note)
            continue
        if not _is_dir(child):
            files.append(
                Problem(
                    child_path,
                    "is not a directory, so not a plugin; move it away",
                    severity="warning",
                )
            )
            continue
        if not probe.now.access(child_path, os.R_OK | os.X_OK):
            problems.append(
                Problem(
                    child_path,
                    f"cannot be read ({os.strerror(errno.EACCES)}); check its permissions",
                )
            )
            continue
        kind = _kind(child_path)
        if kind == "marketplace":
            market, found, trouble = read_marketplace(child_path, origin, reader)
            plugins += found
            problems += trouble
            markets += [market] if market is not None else []
        elif kind == "plugin":
            plugins.append(read_plugin(child_path, origin, reader))
        elif kind == "single skill":
            skills_here = True
        elif _skill_folders(child_path):
            categories.append(child_path)
        else:
            problems.append(
                Problem(child_path, f"not a plugin or a skill: {LOOKED_FOR}", severity="warning")
            )
    if skills_here or categories:
        plugins.append(_collection(path, origin, categories, reader, skills_here))
    elif plugins or origin not in ("argument", "override"):
        # a collection's README and LICENSE are its own; a path given that holds nothing
        # gets one line saying what was looked for; a stray file elsewhere is worth a line
        problems += files
    layout: Layout = "directory of plugins" if plugins else "nothing found"
    if plugins and all(p.kind == "skill collection" for p in plugins):
        layout = "skill collection"
    return Found(layout, plugins, problems, markets, True)


def _missing(entry: SearchEntry) -> Found:
    # a missing default location is normal; a missing override is worth a line
    problems = []
    if entry.origin == "argument":
        problems.append(Problem(entry.path, "does not exist; give the path of a plugin"))
    elif entry.origin == "override":
        problems.append(Problem(entry.path, "does not exist", severity="warning"))
    return Found("missing", [], problems, [], False)


def read_entry(entry: SearchEntry, reader: Reader = parse) -> Found:
    """One search-path entry: what it was taken for, and the plugins it holds."""
    path, origin = entry.path, entry.origin
    if not probe.now.exists(path):
        return _missing(entry)
    if not probe.now.isdir(path):
        problem = Problem(path, "is a file, not a plugin, a skill or a directory of plugins")
        return Found("nothing found", [], [problem], [], False)
    if entry.harness is not None:  # a team's own folder of a harness, in its format
        from skilltool.harnesses import folder_plugin

        return Found("harness folder", [folder_plugin(entry, reader)], [], [], True)
    kind = _kind(path)
    if kind == "marketplace":
        market, plugins, problems = read_marketplace(path, origin, reader, entry.only)
        if market is None or not entry.only:
            return Found(kind, plugins, problems, [market] if market else [], market is not None)
        only = current_picks(market, entry.only, [])
        return Found(kind, plugins, problems, [market], True, only)
    if kind == "plugin":
        return Found(kind, [read_plugin(path, origin, reader)], [], [], True)
    if kind == "single skill":
        return Found(kind, [_single_skill(path, origin, reader)], [], [], True)
    try:
        children = _entries(path, hidden=True)
    except OSError as err:
        problem = Problem(
            path, f"cannot be listed ({err.strerror}); check its permissions", severity="warning"
        )
        return Found("unreadable", [], [problem], [], False)
    found = _directory(path, origin, reader, children)
    if found.layout == "nothing found" and origin in ("argument", "override"):
        # an emptied override is a normal state; a path given to validate should hold something
        severity: Severity = "error" if origin == "argument" else "warning"
        found.problems.append(
            Problem(path, f"no plugin, marketplace or skill found: {LOOKED_FOR}", severity=severity)
        )
    return found


def plugins_in(entry: SearchEntry, reader: Reader = parse) -> tuple[list[Plugin], list[Problem]]:
    """The plugins one search-path entry holds."""
    found = read_entry(entry, reader)
    return found.plugins, found.problems


def shadow(plugins: Iterable[Plugin]) -> list[Plugin]:
    """Mark every plugin whose name an earlier one already has."""
    winners: dict[str, Path] = {}
    result = []
    for plugin in plugins:
        if plugin.name in winners:
            plugin = plugin._replace(shadowed_by=winners[plugin.name])
        else:
            winners[plugin.name] = plugin.root
        result.append(plugin)
    return result


def find(
    scope: paths.Scope,
    warnings: list[str],
    keep: bool = True,
    adding: SearchEntry | None = None,
) -> Catalogue:
    """The plugins on the scope's search path; files unchanged since the last run are not
    parsed again. `adding`: a source not recorded yet (a dry run of `add`), placed where it
    would be. `keep` false writes no cache."""
    catalogue, caches = found(scope, warnings, keep, adding)
    caches.save()
    return catalogue


def found(
    scope: paths.Scope,
    warnings: list[str],
    keep: bool = True,
    adding: SearchEntry | None = None,
) -> tuple[Catalogue, Caches]:
    """`find`, and the caches it used, not saved yet: planning keeps the skills dirs it
    sees as planned, and the renderings it makes, in them too. A catalogue every answer of
    which still holds is not walked."""
    entries = paths.search_path(scope)
    if adding is not None and not any(e.origin == "override" for e in entries):
        last = max((i + 1 for i, e in enumerate(entries) if e.origin == "added"), default=0)
        entries.insert(last, adding)
    if any(e.origin == "override" for e in entries):
        shown = ":".join(str(e.path) for e in entries)
        warnings.append(
            f"warning: {paths.OVERRIDE_VARIABLE} is set: plugins are taken only from {shown} "
            "and trusted as if installed; unset it for normal use"
        )
    from skilltool.cache import Caches, collector_paused

    with collector_paused():
        caches = Caches(scope.cache_dir, tuple(entries), keep, trusted=adding is None)
        catalogue = caches.trust.catalogue
        if catalogue is None:
            with probe.recording() as seen:
                catalogue = discover(entries, caches.parsed)
            caches.trust.keep(catalogue, seen)
    if any(m.renames for m in catalogue.marketplaces):  # settings kept under an old name
        from skilltool import settings

        warnings += settings.stale_keys(scope, settings.renames_in(catalogue))
    return catalogue, caches


def picked(
    plugins: Iterable[Plugin], only: tuple[str, ...], skills: tuple[str, ...]
) -> list[Plugin]:
    """The plugins of an entry that are used: all when nothing is picked; else each plugin
    picked whole, and each other one holding a skill picked, narrowed to those skills (its
    agents, commands, servers and hooks left out). Where it looks for skills stays, so that a
    link to one of its skills no longer picked is still known as skilltool's."""
    if not only and not skills:
        return list(plugins)
    used = []
    for plugin in plugins:
        if plugin.name in only:
            used.append(plugin)
            continue
        chosen = tuple(s for s in plugin.skills if s.name in skills)
        if not chosen:
            continue
        said = [p for p in plugin.problems if p.path.name in skills or p.path.parent.name in skills]
        used.append(
            plugin._replace(
                skills=chosen,
                agents=(),
                problems=tuple(said),
                commands=(),
                slash_commands=(),
                mcp_servers=(),
                hooks=(),
                hook_commands=(),
            )
        )
    return used


def discover(entries: Iterable[SearchEntry], reader: Reader = parse) -> Catalogue:
    entries = tuple(entries)
    plugins: list[Plugin] = []
    problems: list[Problem] = []
    layouts: dict[Path, Layout] = {}
    markets: list[Marketplace] = []
    read: set[Path] = set()
    for entry in entries:
        found = read_entry(entry, reader)
        only = entry.only if found.only is None else found.only
        plugins += picked(found.plugins, only, entry.skills)
        problems += found.problems
        layouts[entry.path] = found.layout
        markets += found.marketplaces
        if found.read:
            read.add(entry.path)
    return Catalogue(
        entries, tuple(shadow(plugins)), tuple(problems), layouts, tuple(markets), frozenset(read)
    )
