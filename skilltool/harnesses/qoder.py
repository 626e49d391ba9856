"""Qoder CLI: each agent a file of ~/.qoder/agents/<name>.md (Claude Code's agent format),
each command a file of ~/.qoder/commands (Claude Code's format; Qoder lists it among its
skills), each MCP server an entry of ~/.qoder/settings.json. Qoder reads ~/.agents/skills
itself; QODER_CONFIG_DIR names another folder for everything of ~/.qoder.

A prompt needs a login, so what Qoder loads is proven by its own listings, which run offline:
`qodercli skills list`, `agents list` and `mcp list`. In a project it reads .qoder and
.agents/skills only when started in the project's top folder."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from skilltool.errors import SkilltoolError
from skilltool.fs import ending_with
from skilltool.harnesses import (
    BARE_FIELDS,
    EXPANDED_FIELDS,
    Harness,
    Launch,
    Listing,
    McpValue,
    Probe,
    Verdict,
    change_settings_copy,
    remote_entry,
    skills_by_folder,
    stdio_entry,
)
from skilltool.model import Agent, McpPlace, McpServer, Rendering

VERSION = "1.1.52"
# its own agents, as `qodercli agents list` shows them under "Built-in:" in a clean home
BUILT_IN = frozenset({"Explore", "general-purpose", "Plan", "qoder-guide", "statusline-setup"})
# a section of `qodercli agents list` ("User:", "Project:", "Built-in:") and one agent in it
# ("  reviewer · Inherit"; one a project's agent of the same name hides: "(shadowed by …) x")
AGENTS_SECTION = re.compile(r"^(\w[\w-]*):$")
AGENT_LINE = re.compile(r"^  (?:\(shadowed by \w+\) )?(\S.*?) · ")


def qoder_skills(stdout: str, stderr: str) -> Listing:
    """`qodercli skills list`: each skill by the folder of its `Location: …/SKILL.md` (the
    commands it lists beside them, `Location: …/commands/<name>.md`, are not skills)."""
    found = re.findall(r"^  Location:\s+(/\S.*/SKILL\.md)$", stdout, re.M)
    return Listing(skills=skills_by_folder(found))


def qoder_agents(stdout: str, stderr: str) -> Listing:
    """`qodercli agents list`: the names under "User:" and "Project:" (not "Built-in:"), and
    the line it prints when an agent file could not be loaded."""
    agents: dict[str, tuple[str, ...]] = {}
    section = ""
    for line in stdout.splitlines():
        heading = AGENTS_SECTION.match(line)
        if heading:
            section = heading.group(1)
            continue
        agent = AGENT_LINE.match(line)
        if agent and section in ("User", "Project"):
            agents[agent.group(1)] = ()
    errors = tuple(
        line.strip() for line in (stdout + stderr).splitlines() if "error loading agent" in line
    )
    return Listing(agents=agents, errors=errors[:1])


def doctor_home(root: Path, url: str) -> None:
    """The throwaway copy of ~/.qoder: its listings start every MCP server of settings.json
    (`skills list` too) and could run hooks; the copy has neither."""

    def change(document: dict[str, Any]) -> None:
        document.pop("mcpServers", None)
        document.pop("hooks", None)

    change_settings_copy(root / "settings.json", change)


class Qoder(Harness):
    name = "qoder"
    title = "Qoder CLI"
    binary = "qodercli"
    project_reach = (
        "reads the project's .qoder and .agents/skills only when started in the project's top "
        "folder (not from a subfolder), and starts the servers of its .qoder/settings.json "
        "even to list them"
    )
    # a skill of one name in both: the home's is listed; an agent: the project's
    precedence: ClassVar[Mapping[str, str]] = {"skill": "home", "agent": "project"}
    enforces_tools = True  # `tools` is written as Claude Code's names, which are Qoder's too
    builtin_agents = BUILT_IN
    builtin_version = VERSION
    command_syntax = "claude"  # Claude Code's Markdown and placeholders ($ARGUMENTS, $0, $1)
    no_hooks = (
        f"Qoder CLI {VERSION} reads hooks from its settings.json, but none of its listings "
        "shows a hook loaded (its 'hooks' command only migrates Claude Code's) and a prompt "
        "needs a login, so no hook of skilltool's there is proven to run; skilltool writes none"
    )
    # it expands ${VAR} and ${VAR:-default} in command, args, env, url and headers, and a bare
    # $NAME in all but command (seen in the server `qodercli mcp list` starts)
    env_fields = EXPANDED_FIELDS
    env_defaults = True
    bare_fields = BARE_FIELDS

    # commands: Claude Code's Markdown, a subfolder's as `sub:name`; listed among its skills
    def commands_dir(self) -> Path:
        return self.root() / "commands"

    # MCP servers: ~/.qoder/settings.json (a project's .qoder/settings.json), which
    # `qodercli mcp add -s user` writes too; a stdio entry has no `type`, as it writes them
    def mcp_place(self) -> McpPlace:
        return McpPlace(self.root() / "settings.json", "json", ("mcpServers",))

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        if server.transport != "stdio":
            return remote_entry(server, type=server.transport)
        if server.cwd is not None:
            return Verdict(
                True,
                f"Qoder CLI {VERSION} shows no working folder for a server (it is not proven "
                "to read cwd)",
            )
        return stdio_entry(server)

    # agents
    def refusal(self, agent: Agent) -> str | None:
        if not agent.description.strip():
            return "it has no description, which Qoder CLI refuses: describe the agent"
        return None

    def accepts_model(self, model: str) -> bool:
        return model == "inherit"  # Qoder's own word for the session's model

    def render(self, agent: Agent) -> list[Rendering]:
        tools = ", ".join(agent.tools)
        content = self.template("agent.md.j2", agent, tools=tools, model=self.model(agent))
        return [Rendering(self.root() / "agents" / f"{agent.name}.md", content)]

    def owned_places(self) -> list[Path]:
        return ending_with(self.root() / "agents", ".md")

    def probes(self) -> list[Probe]:
        """`qodercli skills list` and `qodercli agents list`, offline, in a copy of ~/.qoder
        whose settings.json starts no server and runs no hook."""
        return [
            Probe(("qodercli", "skills", "list"), qoder_skills, prepare=doctor_home),
            Probe(("qodercli", "agents", "list"), qoder_agents),
        ]

    def launch(self, agent: Agent) -> Launch:
        raise SkilltoolError(
            "Qoder CLI cannot start as an agent over ACP here: 'qodercli --acp' answers "
            "initialize, but starts a session only once signed in to Qoder; in a terminal: "
            f"qodercli --agent {agent.name}"
        )
