"""The things skilltool reasons about: plugins, skills, agents, problems, actions.

Everything here is an immutable value the pipeline passes from one stage to the next.
Named tuples (`skilltool.record.NamedTuple`) rather than frozen dataclasses: they are
built without compiling code at import, which keeps a cold `status` close to the cost of
importing typer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from skilltool.record import NamedTuple

EMPTY: Mapping[str, Any] = MappingProxyType({})
Origin = Literal["added", "user", "system", "bundled", "override", "argument"]
Severity = Literal["error", "warning"]
# what a search-path entry was taken for (SPEC §2), as status shows it
Layout = Literal[
    "plugin",
    "directory of plugins",
    "marketplace",
    "skill collection",
    "single skill",
    "harness folder",
    "missing",
    "unreadable",
    "nothing found",
]
# what one plugin is: a plugin directory, an entry of a marketplace, a skill collection
# (skill folders without a plugin around them) or one skill folder on its own
PluginKind = Literal[
    "plugin", "marketplace plugin", "skill collection", "single skill", "harness folder"
]


# in what repr gives: a backslash written as itself (two), or a byte that is not UTF-8
REPR_ESCAPE = r"\\\\|\\udc([89a-f][0-9a-f])"


def quoted(name: str) -> str:
    """A name in a message, quoted as repr quotes it, but a byte of a file name that is not
    UTF-8 shown `\\xe9`, as `report.printable` shows it in a path (repr: `\\udce9`)."""
    return re.sub(REPR_ESCAPE, lambda m: f"\\x{m[1]}" if m[1] else m[0], repr(name))


class Problem(NamedTuple):
    """One thing wrong with an input, said in one line: file, line, field, what to do."""

    path: Path
    message: str
    field: str | None = None
    line: int | None = None
    severity: Severity = "error"

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        what = f"{self.field}: {self.message}" if self.field else self.message
        return f"{where}: {what}"

    def as_dict(self) -> dict[str, object]:
        return {
            "path": str(self.path),
            "line": self.line,
            "field": self.field,
            "message": self.message,
            "severity": self.severity,
        }


class SearchEntry(NamedTuple):
    """One directory of the search path and where it came from."""

    path: Path
    origin: Origin
    # only these plugins of the entry are used (an added marketplace with --plugin); empty: all
    only: tuple[str, ...] = ()
    # and these skills of its other plugins, alone (`add --skill`): those plugins are used for
    # these skills only, none of their agents, commands, servers or hooks
    skills: tuple[str, ...] = ()
    source: str | None = None  # an added source's name, as `plugins remove` takes it
    # a harness's own project folder (`.claude`, `.gemini`, ...), read in that harness's own
    # format: the harness's name ("agents" for the shared `.agents`)
    harness: str | None = None


class Skill(NamedTuple):
    name: str  # its directory's name: what it is linked as
    path: Path  # the skill's directory, as found on the search path
    description: str
    # every frontmatter key as read ('name' as written, which may differ from `name`)
    fields: Mapping[str, Any] = EMPTY
    repaired: bool = False  # the frontmatter is not valid YAML; read as Claude Code repairs it

    @property
    def declared(self) -> str | None:
        """The frontmatter's `name`, when it is a string."""
        name = self.fields.get("name")
        return name if isinstance(name, str) else None


class LazySkills(Sequence[Skill]):
    """Skills kept in another form (the catalogue cache's packed rows), made into `Skill`s
    only when one is read; `named_paths` answers without making any."""

    __slots__ = ()

    def named_paths(self) -> Sequence[tuple[str, str]]:
        raise NotImplementedError


def named_paths(skills: Sequence[Skill]) -> Sequence[tuple[str, str]]:
    """The name and the path (a string) of each skill, in order: what `status` shows of a
    skill and what a link is made of, without making a `Skill` of one kept packed."""
    if isinstance(skills, LazySkills):
        return skills.named_paths()
    return [(skill.name, str(skill.path)) for skill in skills]


class Agent(NamedTuple):
    name: str
    path: Path  # the agents/<file>.md it was read from
    description: str
    body: str  # every character after the closing '---' line, exactly
    tools: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    model: str | None = None
    # per-harness settings from the 'harnesses:' key, e.g. {"codex": {"model": "gpt-5"}}
    overrides: Mapping[str, Mapping[str, str]] = EMPTY
    lines: Mapping[str, int] = EMPTY  # frontmatter key -> its line in the file
    # every frontmatter key as read, for the harness that reads the agent's own format
    fields: Mapping[str, Any] = EMPTY
    repaired: bool = False  # the frontmatter is not valid YAML; read as Claude Code repairs it
    # read from another harness's own folder (folders.py): the keys of that harness's format
    # Claude Code's has no equivalent of (OpenCode's `temperature`), and whose they are
    # (a plain {} when empty, as the catalogue cache keeps it: the render cache keys on repr)
    native: Mapping[str, Any] = {}
    native_of: str | None = None

    def model_for(self, harness: str) -> str | None:
        """The model a harness was told to use for this agent, if any."""
        return self.overrides.get(harness, {}).get("model")


class SlashCommand(NamedTuple):
    """A slash command: a `commands/<name>.md` of a plugin (SPEC §10)."""

    name: str  # the file's name without `.md`; a subfolder gives `<sub>:<name>`
    path: Path
    description: str
    body: str  # every character after the closing '---' line (the whole file without one)
    argument_hint: str | None = None
    allowed_tools: tuple[str, ...] = ()
    model: str | None = None
    lines: Mapping[str, int] = EMPTY  # frontmatter key -> its line in the file
    fields: Mapping[str, Any] = EMPTY


McpTransport = Literal["stdio", "http", "sse"]


class McpServer(NamedTuple):
    """One MCP server a plugin declares (`.mcp.json`, or `mcpServers` in plugin.json),
    with `${CLAUDE_PLUGIN_ROOT}` already expanded to the plugin's directory."""

    name: str
    path: Path  # the file it was declared in
    transport: McpTransport
    command: str | None = None  # stdio
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = EMPTY
    cwd: str | None = None
    url: str | None = None  # http, sse
    headers: Mapping[str, str] = EMPTY
    line: int | None = None
    # the `${VAR}` written for a plugin option (`${user_config.KEY}`) whose value no file
    # may hold (a sensitive one, or any in a project): VAR -> the option's key
    variables: Mapping[str, str] = EMPTY


class LspServer(NamedTuple):
    """One language server a plugin declares (`.lsp.json`, or `lspServers` in plugin.json or
    a marketplace entry), keyed by its language, with `${CLAUDE_PLUGIN_ROOT}` expanded."""

    name: str  # the key it is declared under (Claude Code's language id)
    path: Path  # the file it was declared in
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = EMPTY
    # each file extension it serves (".go") and the language id Claude Code gives it
    extensions: Mapping[str, str] = EMPTY
    line: int | None = None
    # `initializationOptions` and `settings`, as the plugin gives them
    options: Mapping[str, Any] = EMPTY
    variables: Mapping[str, str] = EMPTY  # as McpServer's


# an environment reference left in a value: `${VAR}` or `${VAR:-default}`
ENV_REFERENCE = r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}"
# `$NAME` without braces: Claude Code passes it on as written; some harnesses put in the
# variable's value when it is set (tests/conformance/test_mcp.py)
BARE_REFERENCE = r"\$[A-Za-z_][A-Za-z0-9_]*"


def env_references(server: McpServer) -> list[str]:
    """The `${VAR}` references left in a server's values, each once, in order."""
    found: dict[str, None] = {}
    for refs in field_references(server).values():
        found.update(dict.fromkeys(refs))
    return list(found)


def field_references(server: McpServer, pattern: str = ENV_REFERENCE) -> dict[str, list[str]]:
    """The `${VAR}` references (or those `pattern` finds, such as `BARE_REFERENCE`) of each
    field of a server (`command`, `args`, `env`, `cwd`, `url`, `headers`), each once, in
    order; a field without one is not a key."""
    fields = {
        "command": [server.command or ""],
        "args": list(server.args),
        "env": list(server.env.values()),
        "cwd": [server.cwd or ""],
        "url": [server.url or ""],
        "headers": list(server.headers.values()),
    }
    found: dict[str, list[str]] = {}
    for field, values in fields.items():
        refs = [m.group(0) for value in values for m in re.finditer(pattern, value)]
        if refs:
            found[field] = list(dict.fromkeys(refs))
    return found


class Rendering(NamedTuple):
    """One file a harness needs for an agent (or a command, a server's manifest)."""

    target: Path
    content: bytes
    mode: int = 0o644
    only_if_absent: bool = False  # a file the harness may own: written once, never replaced
    placeholders: frozenset[str] = frozenset()  # digests of seeds the harness wrote itself


# the formats of the config files entries are written in (skilltool.entries edits each)
Format = Literal["toml", "toml-array", "json", "jsonc", "yaml", "yaml-list", "json-hooks"]


class McpPlace(NamedTuple):
    """Where a harness keeps its user MCP servers: the file, its format, the table in it."""

    path: Path
    format: Format
    table: tuple[str, ...]


class EntryRecord(NamedTuple):
    """One entry skilltool wrote into a harness's config file (SPEC §5, "Entries of shared
    files"): what the ledger in the state dir keeps, and what an entry action carries."""

    harness: str
    file: Path
    format: str  # an entries.Format
    table: tuple[str, ...]
    name: str
    digest: str  # entries.entry_digest of the value as written
    source: Path  # the file that declared the server: the evidence a prune needs
    # an add: it made the file / the table; a removal: it removes the file / drops the table
    created_file: bool = False
    created_table: bool = False

    @property
    def key(self) -> tuple[str, tuple[str, ...], str]:
        return (str(self.file), self.table, self.name)


class Hook(NamedTuple):
    """One command a plugin's hooks run on an event, in Claude Code's terms (parse_hooks)."""

    event: str  # Claude Code's event name: PreToolUse, Stop, ...
    matcher: str  # Claude Code's matcher: a tool name or a regex of them; "" matches all
    command: str  # the shell command as written, ${CLAUDE_PLUGIN_ROOT} unexpanded
    timeout: int | None  # seconds
    path: Path  # the file that declares it
    group: int  # its matcher group's place in the event's list
    position: int  # its place in that group
    line: int | None = None

    @property
    def key(self) -> str:
        """What the lockfile's approvals name it by."""
        return f"hook:{self.event}:{self.group}:{self.position}"


class Plugin(NamedTuple):
    name: str
    root: Path
    origin: Origin
    manifest: Path | None = None
    # a tuple; from the catalogue cache, packed rows (`trusted.PackedSkills`) unpacked when read
    skills: Sequence[Skill] = ()
    agents: tuple[Agent, ...] = ()
    problems: tuple[Problem, ...] = ()
    shadowed_by: Path | None = None  # root of the plugin of the same name that wins
    kind: PluginKind = "plugin"
    marketplace: str | None = None  # the marketplace that lists it, if one does
    # folders whose subfolders were read as skills (`skills/`, listed folders, a collection)
    skill_places: tuple[Path, ...] = ()
    # skill folders named one by one (a component path naming a skill, a single skill)
    skill_paths: tuple[Path, ...] = ()
    # command files and folders, as plugin.json or a marketplace entry names them
    commands: tuple[Path, ...] = ()
    slash_commands: tuple[SlashCommand, ...] = ()  # read from `commands` (SPEC §10)
    mcp_servers: tuple[McpServer, ...] = ()
    # hook files (`hooks/hooks.json`, plugin.json `hooks`; the manifest itself for inline
    # hooks), and the command hooks they declare (parse_hooks)
    hooks: tuple[Path, ...] = ()
    hook_commands: tuple[Hook, ...] = ()
    # a harness's own project folder read as a source (folders.py): that harness's name
    folder_of: str | None = None
    lsp_servers: tuple[LspServer, ...] = ()  # language servers (.lsp.json, lspServers)
    # what it holds that only Claude Code's own plugin loader takes (output styles, bin/, ...)
    claude_only: tuple[str, ...] = ()
    # `userConfig`: the values its user gives, option key -> its declaration as written
    user_config: Mapping[str, Mapping[str, Any]] = EMPTY
    # `dependencies`: each plugin it needs, `name` or `name@marketplace` -> {"version": range}
    dependencies: Mapping[str, Mapping[str, str]] = EMPTY
    version: str | None = None  # plugin.json's `version`, else the marketplace entry's
    # `defaultEnabled` (the marketplace entry's, else plugin.json's): False, it is off until
    # the user turns it on (`plugins enable`)
    default_enabled: bool = True
    # `optionalDependencies`: the plugins it takes with it when they can be had, as
    # `dependencies` (a plugin in both lists is there alone)
    optional_dependencies: Mapping[str, Mapping[str, str]] = EMPTY

    @property
    def active(self) -> bool:
        return self.shadowed_by is None


class MarketplaceEntry(NamedTuple):
    """One plugin a marketplace lists, and where it comes from."""

    name: str
    # a relative path (a plugin in the marketplace's own tree), or a remote source object
    # such as {"source": "github", "repo": "owner/repo"}
    source: str | Mapping[str, Any]
    strict: bool = True  # False: the entry itself lists the components, no plugin.json needed
    fields: Mapping[str, Any] = EMPTY  # the whole entry, as written
    line: int | None = None

    @property
    def remote(self) -> bool:
        return not isinstance(self.source, str)


class Marketplace(NamedTuple):
    """A `.claude-plugin/marketplace.json` and the plugins it lists."""

    name: str
    root: Path  # the directory holding .claude-plugin/
    manifest: Path
    plugin_root: str | None  # metadata.pluginRoot: where relative sources start
    entries: tuple[MarketplaceEntry, ...]
    # allowCrossMarketplaceDependenciesOn: the marketplaces a dependency of one of its plugins
    # may come from (this one's list alone counts for what is added from it)
    allows: tuple[str, ...] = ()
    # `renames`, its chains followed: a name it no longer lists -> the name it lists the
    # plugin under now, or None when it removed the plugin
    renames: Mapping[str, str | None] = EMPTY

    def current(self, name: str) -> str | None:
        """The name it lists the plugin `name` under now: `name` itself unless it renamed
        it; None when it removed it."""
        return self.renames.get(name, name)


class Catalogue(NamedTuple):
    """What the search path holds: every plugin in order, and what went wrong finding them."""

    entries: tuple[SearchEntry, ...]
    plugins: tuple[Plugin, ...]
    problems: tuple[Problem, ...] = ()
    layouts: Mapping[Path, Layout] = MappingProxyType(
        {}
    )  # search-path entry -> what it was taken for
    marketplaces: tuple[Marketplace, ...] = ()  # every marketplace read, remote entries too
    # every directory this run listed and saw whole: the evidence a vanished skill needs
    read: frozenset[Path] = frozenset()

    @property
    def active(self) -> tuple[Plugin, ...]:
        return tuple(p for p in self.plugins if p.active)

    @property
    def roots(self) -> frozenset[Path]:
        return frozenset(p.root for p in self.plugins)

    def not_fetched(self) -> list[tuple[Marketplace, MarketplaceEntry]]:
        """The remote entries of every marketplace read: listed, never fetched by a search."""
        return [(m, e) for m in self.marketplaces for e in m.entries if e.remote]
