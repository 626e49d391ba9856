"""Factory Droid: each agent a custom droid, ~/.factory/droids/<name>.md (Claude Code's agent
format with Droid's own tool names), each command a file of ~/.factory/commands, each MCP
server an entry of ~/.factory/mcp.json. Droid reads ~/.agents/skills itself (not Claude
Code's ~/.claude/skills); FACTORY_HOME_OVERRIDE names another home for it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skilltool.errors import SkilltoolError
from skilltool.fs import ending_with
from skilltool.harnesses import (
    Harness,
    Launch,
    Listing,
    McpValue,
    Probe,
    Verdict,
    change_settings_copy,
    moved_root,
    named,
    remote_entry,
)
from skilltool.model import Agent, McpPlace, McpServer, Problem, Rendering, Skill, SlashCommand
from skilltool.parse import SKILL_DESCRIPTION_LIMIT
from skilltool.placeholders import Translation, used

if TYPE_CHECKING:
    from skilltool.folders import FolderItems, Ours

# Claude Code's tool names -> Droid's (the ids 0.215.0 validates a droid's `tools` against);
# a tool with none is left out of the list, which Droid enforces
TOOL_NAMES = {
    "Read": "Read",
    "Grep": "Grep",
    "Glob": "Glob",
    "LS": "LS",
    "Bash": "Execute",
    "Edit": "Edit",
    "MultiEdit": "Edit",
    "Write": "Create",
    "WebFetch": "FetchUrl",
    "WebSearch": "WebSearch",
    "TodoWrite": "TodoWrite",
    "Task": "Task",
    "Skill": "Skill",
    "AskUserQuestion": "AskUser",
}
# its built-in subagents (a droid file of the same name takes the place of the built-in one)
# and the two it writes into ~/.factory/droids itself on every start, over any file there
BUILT_IN = frozenset(
    {"worker", "explorer", "scrutiny-feature-reviewer", "user-testing-flow-validator"}
)
SKILL_NAME = r"[a-z0-9-]*[a-z0-9][a-z0-9-]*"  # 0.215.0 leaves out a skill named otherwise
DOCTOR_MODEL = "skilltool-doctor"  # the loopback model doctor's throwaway settings name


def droid_tools(agent: Agent) -> list[str]:
    """Droid's names for the agent's tools (and its Skill tool when the agent has skills)."""
    names = [TOOL_NAMES[t] for t in agent.tools if t in TOOL_NAMES]
    if names and agent.skills:
        names.append("Skill")
    return list(dict.fromkeys(names))


def command_name(name: str) -> str:
    """The name Droid gives a command file `<name>.md`: lower case, every character but a-z,
    0-9, '-' and '_' a hyphen, hyphens not doubled."""
    return re.sub(r"--+", "-", re.sub(r"[^a-z0-9_-]", "-", name.lower()))


def use_model(root: Path, url: str) -> None:
    """The throwaway copy of ~/.factory: its settings name the loopback model, run no hook and
    enable no plugin; its mcp.json is left out, so that no server of the user's starts."""

    def change(document: dict[str, Any]) -> None:
        model = {"model": "doctor", "displayName": DOCTOR_MODEL, "baseUrl": f"{url}/v1"}
        model.update(apiKey="doctor", provider="generic-chat-completion-api")
        document.update(customModels=[model], hooks={"hooksDisabled": True}, enabledPlugins={})
        document["cloudSessionSync"] = False  # else it waits 5 s on exit to sync the session

    change_settings_copy(root / "settings.json", change)
    (root / "mcp.json").unlink(missing_ok=True)


def droid_request(request: str, stderr: str) -> Listing:
    """The skills and custom droids Droid's first request to a model lists: `name: …` lines
    under 'Available skills', `- name: … (location: …)` under 'Custom droids available'."""
    import json

    try:
        text = "\n".join(_strings(json.loads(request)))
    except ValueError:
        return Listing(errors=(f"no request reached the model: {stderr[-160:]!r}",))
    skills: dict[str, tuple[str, ...]] = {}
    agents: dict[str, tuple[str, ...]] = {}
    for section, pattern, found in (
        ("Available skills", rf"^({SKILL_NAME}): ", skills),
        ("Custom droids available", r"^- ([^:\n]+): .*$", agents),
    ):
        start = text.find(section)
        if start < 0:
            continue
        end = text.find("</system-reminder>", start)
        block = text[start : end if end > 0 else None].split("\n", 1)[-1]
        for name in re.findall(pattern, block, re.M):
            found[name.strip()] = ()
    return Listing(skills, agents)


def _strings(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for value in node.values() for s in _strings(value)]
    if isinstance(node, list):
        return [s for value in node for s in _strings(value)]
    return []


class Droid(Harness):
    name = "droid"
    title = "Factory Droid"
    project_reach = (
        "reads the repository's .factory and .agents/skills from any folder of it, and starts "
        "the servers of its .factory/mcp.json without asking"
    )
    enforces_tools = True  # a droid's `tools` is the whole of what it has
    tool_names = TOOL_NAMES
    tool_vocabulary = "Factory Droid"
    builtin_agents = BUILT_IN
    builtin_version = "0.215.0"
    command_syntax = "droid"
    no_hooks = (
        "Factory Droid 0.215.0 runs hooks only from its settings.json (lists under each event, "
        "with no name an entry of skilltool's could be kept by) or from a plugin its own "
        "'droid plugin install' copied in; skilltool writes neither"
    )

    @classmethod
    def read_folder(cls, folder: Path, ours: Ours, reader: Any) -> FolderItems:
        """A team's `.factory/`: its skills, its droids (Droid's tool names made Claude
        Code's), its commands and the servers of its mcp.json."""
        from skilltool import folders

        problems: list[Problem] = []
        skills = folders.skills(folder / "skills", ours, reader, problems)
        files = folders.markdown_files(folder / "droids", ours)
        agents = folders.read_native(
            files, lambda p: folders.native_agent(p, "droid", _from_droid), problems
        )
        commands = folders.commands(folder / "commands", ours, problems)
        config = folder / "mcp.json"
        servers = folders.config_servers(
            config, ("mcpServers",), ours, problems, convert=_server_from_droid
        )
        servers = [s for s in servers if s.name not in _turned_off(config)]
        return folders.FolderItems(
            tuple(skills), tuple(agents), tuple(commands), tuple(servers), problems=tuple(problems)
        )

    # commands: Claude Code's Markdown; Droid names one by its file alone, in any subfolder
    def commands_dir(self) -> Path:
        return self.root() / "commands"

    def command_refusal(self, name: str) -> str | None:
        if ":" not in name:
            return None
        return (
            "Factory Droid names a command in a subfolder by its file alone "
            f"(/{command_name(name.rsplit(':', 1)[1])}), the name of any other command so "
            "named: move it out of its subfolder to have it here"
        )

    def command_note(self, name: str) -> str | None:
        called = command_name(name)
        return None if called == name else f"name it /{called}"

    def translate_command(self, body: str) -> Translation:
        """`$ARGUMENTS` as it is; Droid has no word-by-word placeholder, and gives a command
        without `$ARGUMENTS` none of what was typed after it (Claude Code appends it)."""
        every, positional = used(body)
        if positional:
            first = next(iter(positional))  # the first in the body
            return Translation(
                None,
                f"its body holds {first!r}, which Factory Droid leaves as written (it has "
                "only $ARGUMENTS, every word typed); write the command with $ARGUMENTS to "
                "have it here",
            )
        if not every:
            return Translation(body.rstrip("\r\n") + "\n\nARGUMENTS: $ARGUMENTS\n")
        return Translation(body)

    def render_command(self, command: SlashCommand) -> Rendering:
        body = self.translate_command(command.body).body
        assert body is not None
        return self.command_file(command, "command.md.j2", body=body)

    # MCP servers: ~/.factory/mcp.json, which `droid mcp add` writes too; 0.215.0 expands
    # ${VAR} and ${VAR:-default} in env and headers, nowhere else, and reads no cwd
    env_fields = frozenset({"env", "headers"})
    env_defaults = True
    env_proof = "Factory Droid 0.215.0 expands them only in env and headers"

    def mcp_place(self) -> McpPlace:
        return McpPlace(self.root() / "mcp.json", "jsonc", ("mcpServers",))

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        if server.transport != "stdio":
            return remote_entry(server, type=server.transport)
        if server.cwd is not None:
            return Verdict(
                True,
                "Factory Droid starts a server in its own working folder (it reads no cwd)",
            )
        value: McpValue = {"type": "stdio", "command": server.command, "args": list(server.args)}
        if server.env:
            value["env"] = dict(server.env)
        return value

    def own_skills_dir(self) -> Path | None:
        """FACTORY_HOME_OVERRIDE is the home Droid reads `.agents/skills` from too: with it
        set, the skills are linked into its own folder there."""
        return self.root() / "skills" if moved_root(self.name, self.home)[1] else None

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        declared = skill.declared
        if declared is None:
            return Verdict(True, "no name")
        if not re.fullmatch(SKILL_NAME, declared):
            return Verdict(True, "name is not lowercase letters, digits and hyphens")
        if len(skill.description) > SKILL_DESCRIPTION_LIMIT:
            return Verdict(False, f"cut its description to {SKILL_DESCRIPTION_LIMIT} characters")
        return named(skill)

    def refusal(self, agent: Agent) -> str | None:
        if agent.tools and not droid_tools(agent):
            return (
                "none of its tools has a Factory Droid name, and Droid takes an empty tool "
                "list for all of its tools: give the agent a tool Droid has to have it here"
            )
        return None

    def accepts_model(self, model: str) -> bool:
        return model == "inherit"  # Droid's own word for the session's model

    def render(self, agent: Agent) -> list[Rendering]:
        tools = droid_tools(agent) if agent.tools else None  # no list: every tool of Droid's
        content = self.template("agent.md.j2", agent, tools=tools, model=self.model(agent))
        return [Rendering(self.root() / "droids" / f"{agent.name}.md", content)]

    def probes(self) -> list[Probe]:
        """`droid exec` against a loopback model named in the throwaway settings.json: its
        first request lists every skill and custom droid it loaded; the model refuses it,
        and Droid stops there."""
        argv = ("droid", "exec", "-m", f"custom:{DOCTOR_MODEL}-0", "hi")
        return [Probe(argv, droid_request, model=True, prepare=use_model)]

    def owned_places(self) -> list[Path]:
        return ending_with(self.root() / "droids", ".md")

    def launch(self, agent: Agent) -> Launch:
        raise SkilltoolError(
            "Factory Droid cannot start as a custom droid over ACP: 'droid exec --output-format "
            "acp' has no agent option and leaves out --append-system-prompt there; in a "
            f"terminal: droid, then ask for the {agent.name} droid"
        )


def _from_droid(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A droid's frontmatter as Claude Code's (name, description, tools by Claude Code's names)
    and its own keys (model, reasoningEffort, mcpServers, a tool with no Claude name or a
    category such as 'read-only')."""
    from skilltool.folders import claude_tools

    shared: dict[str, Any] = {k: data[k] for k in ("name", "description") if k in data}
    native = {k: v for k, v in data.items() if k not in ("name", "description", "tools")}
    tools = data.get("tools")
    if isinstance(tools, str) and "," in tools:
        tools = [t.strip() for t in tools.split(",") if t.strip()]
    if isinstance(tools, list):
        known, unknown = claude_tools([t for t in tools if isinstance(t, str)], TOOL_NAMES)
        if known:
            shared["tools"] = known
        if unknown:
            native["tools"] = unknown
    elif tools is not None:
        native["tools"] = tools
    return shared, native


def _server_from_droid(value: Any) -> Any:
    """A server of Droid's mcp.json in Claude Code's shape (its `disabled` flag apart)."""
    if not isinstance(value, Mapping):
        return value
    return {k: v for k, v in value.items() if k != "disabled"}


def _turned_off(config: Path) -> set[str]:
    """The servers of a mcp.json that Droid is told not to start (`"disabled": true`)."""
    from skilltool import probe
    from skilltool.entries import EntryError, jsonc

    data = probe.now.read_regular(config)
    try:
        document = jsonc.document(data.decode("utf-8-sig"), "jsonc") if data else None
    except (UnicodeDecodeError, EntryError):
        return set()
    servers = document.get("mcpServers") if isinstance(document, dict) else None
    if not isinstance(servers, dict):
        return set()
    return {n for n, v in servers.items() if isinstance(v, dict) and v.get("disabled") is True}
