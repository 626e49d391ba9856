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
from collections.abc import Callable, Iterable, Mapping
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


def translated_hooks(
    path: Path,
    ours: Ours,
    problems: list[Problem],
    events: Mapping[str, str],
    tools: Mapping[str, str],
    timeout: Callable[[int], int],
) -> tuple[list[Hook], list[Path]]:
    """The command hooks of another harness's settings file (`hooks`, its own event names:
    `events` maps them to Claude Code's, `tools` its tool names, `timeout` its timeouts to
    seconds), as Claude Code's; an entry skilltool's ledger records is passed over, and a hook
    on an event or a tool no other harness has is said in one warning, carried nowhere."""
    from skilltool import parse_hooks
    from skilltool.parse_servers import config_value

    if not probe.now.isfile(path):
        return [], []
    read = config_value(path, ("hooks",), problems)  # with comments, as the harness reads it
    declared = read[0] if read is not None else None
    if not isinstance(declared, dict):
        return [], []
    claude: dict[str, list[dict[str, Any]]] = {}
    lost: list[str] = []
    for event, groups in declared.items():
        for group in groups if isinstance(groups, list) else []:
            commands = [
                {k: v for k, v in one.items() if k != "name"}
                for one in (group.get("hooks") if isinstance(group, dict) else None) or []
                if isinstance(one, dict)
                and not (isinstance(one.get("name"), str) and ours.entry(path, one["name"]))
            ]
            if not commands:
                continue
            name = events.get(event)
            matcher = _claude_matcher(group.get("matcher"), tools) if name else None
            if name is None or matcher is None:
                lost.append(event if name is None else f"{event} {group.get('matcher')!r}")
                continue
            for one in commands:
                if isinstance(one.get("timeout"), int) and not isinstance(one["timeout"], bool):
                    one["timeout"] = timeout(one["timeout"])
            claude.setdefault(name, []).append(
                {"matcher": matcher, "hooks": commands} if matcher else {"hooks": commands}
            )
    if lost:
        why = f"hooks on {', '.join(dict.fromkeys(lost))}: no other harness has that event or "
        problems.append(Problem(path, why + "tool, so they are kept for this one only", "hooks",
                                severity="warning"))  # fmt: skip
    return parse_hooks.events(claude, path), [path] if claude else []


def _claude_matcher(matcher: Any, tools: Mapping[str, str]) -> str | None:
    """A matcher of another harness's tool names (`Edit|Write`, or `^(a|b)$` as skilltool
    writes them) by Claude Code's names; None when a name has no Claude Code tool."""
    if matcher is None or matcher in ("", "*"):
        return matcher or ""
    if not isinstance(matcher, str):
        return None
    inner = matcher.removeprefix("^(").removesuffix(")$") if matcher.startswith("^(") else matcher
    names = [tools.get(part.strip()) for part in inner.split("|")]
    if not all(names):
        return None
    return "|".join(dict.fromkeys(n for n in names if n))


def dialect_hooks(
    folder: Path, ours: Ours, problems: list[Problem]
) -> tuple[list[Hook], list[Path]]:
    """The hook files of a folder (`*.json`) written in Claude Code's format (its event
    names), none of skilltool's; a file in the harness's own dialect (other event names,
    its own payload) is said in one warning, carried nowhere."""
    from skilltool import parse_hooks
    from skilltool.parse_servers import json_object

    hooks: list[Hook] = []
    files: list[Path] = []
    for entry in listing(folder):
        path = folder / entry.name
        if not entry.name.endswith(".json") or not probe.now.isfile(path) or ours.file(path):
            continue
        found = json_object(path, "hooks", problems)
        declared = found[0].get("hooks") if found is not None else None
        if not isinstance(declared, dict) or not declared:
            continue
        if not all(str(event)[:1].isupper() for event in declared):
            problems.append(
                Problem(
                    path,
                    "hooks in the harness's own dialect (its event names and payload) are "
                    "kept for it only; write them in Claude Code's format (PreToolUse, ...) "
                    "to carry them to the other harnesses",
                    "hooks",
                    severity="warning",
                )
            )
            continue
        hooks += parse_hooks.events(declared, path)
        files.append(path)
    return hooks, files


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
