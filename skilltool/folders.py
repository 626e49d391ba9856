"""A harness's own project folder read as a source (`path = ".claude"`, `harness = "claude"`):
what the team wrote there, in that harness's own format, taken for a plugin that skilltool
carries to every other harness of the project.

What skilltool wrote into the same folder is never read back as the team's (`Ours`): a file
with its marker, a skill folder that is its copy or its link to another source, an entry of a
config file its ledger records. Each harness module reads its own folder (`read_folder`),
with the helpers here for what the formats share. Everything is asked of the file system
through `probe.now`, so that a catalogue read from it can be trusted while nothing changed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from skilltool import markers, parse, probe
from skilltool.model import Agent, Hook, McpServer, Problem, Skill, SlashCommand
from skilltool.record import NamedTuple

COPY_MARKER = ".skilltool-copy"  # copies.py's: the marker file of a skill folder it copied
LEDGER = Path(".skilltool") / "entries.json"


class Ours:
    """What skilltool wrote in a project, so that reading a harness's folder passes it over."""

    def __init__(self, project: Path, folder: Path) -> None:
        self.project = project
        self.folder = folder
        self.real_folder = probe.now.realpath(folder)
        self._entries: set[tuple[str, str]] | None = None

    def file(self, path: Path) -> bool:
        """A file that carries skilltool's marker (a rendering of another source's item)."""
        data = probe.now.read_regular(path)
        return data is not None and markers.find(data) is not None

    def skill(self, directory: Path) -> bool:
        """A skill folder of skilltool's: its copy (marker file), or a link out of this folder
        (to another source's skill, which is read there, if at all)."""
        if probe.now.lexists(os.path.join(directory, COPY_MARKER)):
            return True
        if not probe.now.islink(directory):
            return False
        real = probe.now.realpath(directory)
        return not real.startswith(self.real_folder.rstrip(os.sep) + os.sep)

    def entry(self, file: Path, name: str) -> bool:
        """An entry of a config file that skilltool's ledger in the project records."""
        if self._entries is None:
            self._entries = set()
            data = probe.now.read_regular(self.project / LEDGER)
            try:
                records = json.loads(data or b"{}").get("entries", [])
            except (ValueError, AttributeError):
                records = []
            for record in records if isinstance(records, list) else []:
                if isinstance(record, dict) and {"file", "name"} <= set(record):
                    self._entries.add((str(record["file"]), str(record["name"])))
        rel = os.path.relpath(file, self.project).replace(os.sep, "/")
        return (rel, name) in self._entries


class FolderItems(NamedTuple):
    """What a harness's folder holds for a plugin, in the model's terms."""

    skills: tuple[Skill, ...] = ()
    agents: tuple[Agent, ...] = ()
    commands: tuple[SlashCommand, ...] = ()
    servers: tuple[McpServer, ...] = ()
    hooks: tuple[Hook, ...] = ()
    hook_files: tuple[Path, ...] = ()
    problems: tuple[Problem, ...] = ()


class SkillReader:
    """The reader discovery passes in (parse's functions, or the parse cache)."""

    read_skill: Callable[[Path], tuple[Skill | None, list[Problem]]]
    read_agent: Callable[[Path], tuple[Agent | None, list[Problem]]]


def listing(directory: Path) -> list[os.DirEntry[str]]:
    """The entries of a folder, sorted by name; none when it is not there or not readable."""
    try:
        return sorted(probe.now.scandir(directory), key=lambda e: e.name)
    except OSError:
        return []


def skills(place: Path, ours: Ours, reader: Any, problems: list[Problem]) -> list[Skill]:
    """Each `<place>/<name>/SKILL.md` of the team's, none of skilltool's."""
    found = []
    for entry in listing(place):
        directory = place / entry.name
        if entry.name.startswith(".") or not probe.now.isdir(directory) or ours.skill(directory):
            continue
        if not probe.now.isfile(os.path.join(directory, parse.SKILL_FILE)):
            continue
        skill, said = reader.read_skill(directory)
        problems += said
        if skill is not None:
            found.append(skill)
    return found


def markdown_files(place: Path, ours: Ours, suffixes: Iterable[str] = (".md",)) -> list[Path]:
    """The team's files of a folder (not those of skilltool's), sorted, one level deep."""
    ends = tuple(suffixes)
    return [
        place / entry.name
        for entry in listing(place)
        if entry.name.endswith(ends)
        and not entry.name.startswith(".")
        and probe.now.isfile(place / entry.name)
        and not ours.file(place / entry.name)
    ]


def agents(
    files: Iterable[Path],
    reader: Any,
    problems: list[Problem],
    rename: Callable[[Agent], Agent] | None = None,
) -> list[Agent]:
    """Each file read as an agent in Claude Code's format (what a harness's format shares
    with it), then changed by `rename` (a harness that names its files otherwise)."""

    def read(path: Path) -> tuple[Agent | None, list[Problem]]:
        agent, said = reader.read_agent(path)
        return (rename(agent) if rename is not None and agent is not None else agent), said

    return read_native(files, read, problems)


def commands(place: Path, ours: Ours, problems: list[Problem]) -> list[SlashCommand]:
    """Claude Code's commands of a folder (subfolders as `sub:name`), none of skilltool's."""
    from skilltool import parse_commands

    if not probe.now.isdir(place):
        return []
    found = parse_commands.read_commands([place], place, problems)
    return [c for c in found if not ours.file(c.path)]


def config_servers(
    path: Path,
    key: tuple[str, ...],
    ours: Ours,
    problems: list[Problem],
    fmt: str = "jsonc",
    convert: Callable[[Any], Any] | None = None,
) -> list[McpServer]:
    """The MCP servers under `key` of a harness's config file (`.mcp.json`, Gemini's
    `settings.json`, Codex's `config.toml`), each made Claude Code's shape by `convert` when
    the harness's is another, none of those skilltool's ledger records."""
    from skilltool import parse_servers

    if not probe.now.isfile(path):
        return []
    found = parse_servers.servers_of_file(path, key, ours.project, problems, fmt, convert)
    return [s for s in found if not ours.entry(path, s.name)]


def json_hooks(path: Path, problems: list[Problem]) -> tuple[list[Hook], list[Path]]:
    """The command hooks of a settings file's `hooks` (Claude Code's format)."""
    from skilltool import parse_hooks
    from skilltool.parse_servers import json_object

    if not probe.now.isfile(path):
        return [], []
    found = json_object(path, "settings", problems)
    if found is None or not isinstance(found[0].get("hooks"), dict):
        return [], []
    return parse_hooks.events(found[0]["hooks"], path), [path]


Translation = Callable[[dict[str, Any]], "tuple[dict[str, Any], dict[str, Any]]"]


def native_agent(
    path: Path,
    harness: str,
    translate: Translation,
    name_of: Callable[[Path], str] | None = None,
) -> tuple[Agent | None, list[Problem]]:
    """An agent file of another harness's format (Markdown with YAML frontmatter), its
    frontmatter made Claude Code's by `translate`: (the keys Claude Code's format has, with
    tools by Claude Code's names; the harness's own keys, kept as `Agent.native`)."""
    out = parse.Problems(path)
    got = parse._read(path, out, parse.AGENT_SIZE_LIMIT)
    if got is None:
        return None, out.items
    fm = parse.split_frontmatter(got[0], out)
    if fm is None:
        return None, out.items
    shared, native = translate(dict(fm.data))
    name = shared.get("name")
    if not isinstance(name, str):
        name = name_of(path) if name_of is not None else path.stem
    description = shared.get("description")
    if not isinstance(description, str) or not description.strip():
        out.add("missing; add 'description:' to the frontmatter", "description", fm.start)
        return None, out.items
    if not parse.is_safe_component(name):
        out.add(f"{name!r} cannot be a file name; {parse.COMPONENT_RULE}", "name", fm.start)
        return None, out.items
    tools = shared.get("tools", ())
    tools = tuple(t for t in tools if isinstance(t, str)) if isinstance(tools, list) else ()
    model = shared.get("model") if isinstance(shared.get("model"), str) else None
    agent = Agent(
        name, path, description, fm.body, tools, (), model, {}, fm.lines, shared,
        fm.repaired, native, harness,
    )  # fmt: skip
    return agent, out.items


def toml_agent(
    path: Path, harness: str, body_key: str, shared_keys: Iterable[str]
) -> tuple[Agent | None, list[Problem]]:
    """An agent kept as a TOML file (Codex's `.codex/agents/<name>.toml`): its instructions
    are the body; the keys Claude Code's format has are kept as they are, the rest native."""
    out = parse.Problems(path)
    data = probe.now.read_regular(path)
    from skilltool.paths import load_toml

    try:
        table = load_toml(data or b"")
    except ValueError as err:
        out.add(f"not valid TOML ({err}); fix it")
        return None, out.items
    body, description = table.get(body_key), table.get("description")
    if not isinstance(description, str) or not isinstance(body, str):
        out.add(f"needs a 'description' and '{body_key}' (strings); fix it")
        return None, out.items
    named = table.get("name")
    name = named if isinstance(named, str) else path.stem
    if not parse.is_safe_component(name):
        out.add(f"{name!r} cannot be a file name; {parse.COMPONENT_RULE}", "name")
        return None, out.items
    keys = set(shared_keys)
    shared = {k: v for k, v in table.items() if k in keys}
    native = {k: v for k, v in table.items() if k not in keys and k != body_key}
    agent = Agent(
        name, path, description, body, (), (), None, {}, {}, shared, False, native, harness
    )
    return agent, out.items


def read_native(
    files: Iterable[Path],
    read: Callable[[Path], tuple[Agent | None, list[Problem]]],
    problems: list[Problem],
) -> list[Agent]:
    """Each file read by `read` (an agent of a harness's own format), a name used once."""
    found: list[Agent] = []
    seen: set[str] = set()
    for path in files:
        agent, said = read(path)
        problems += said
        if agent is None:
            continue
        if agent.name in seen:
            problems.append(Problem(path, f"agent name {agent.name!r} is used twice; rename one"))
            continue
        seen.add(agent.name)
        found.append(agent)
    return found


def claude_tools(names: Iterable[str], theirs: dict[str, str]) -> tuple[list[str], list[str]]:
    """A harness's tool names as Claude Code's (`theirs`: Claude's name -> the harness's),
    and those with no Claude name."""
    back = {v: k for k, v in reversed(list(theirs.items()))}
    known: list[str] = []
    unknown: list[str] = []
    for name in names:
        (known if name in back else unknown).append(back.get(name, name))
    return list(dict.fromkeys(known)), unknown
