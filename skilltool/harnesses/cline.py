"""Cline CLI: each agent a file of ~/.cline/agents/<name>.yml (YAML frontmatter, then the
agent's prompt; Cline offers it to the model as the tool `subagent_<name>`), each command a
workflow of ~/.cline/workflows, each MCP server an entry of
~/.cline/data/settings/cline_mcp_settings.json. Cline reads ~/.agents/skills itself.

In a git repository Cline reads .agents/skills, .cline/agents and .clinerules/workflows from
any folder of it; it has no project MCP file."""

from __future__ import annotations

import re
from pathlib import Path

from skilltool.errors import SkilltoolError
from skilltool.fs import ending_with
from skilltool.harnesses import (
    Harness,
    Launch,
    McpValue,
    Verdict,
    named,
    remote_entry,
    stdio_entry,
)
from skilltool.model import Agent, McpPlace, McpServer, Rendering, Skill, SlashCommand
from skilltool.paths import Scope
from skilltool.placeholders import Translation, used

# Claude Code's tool names -> Cline's (3.0.65: a subagent is given only the tools its `tools`
# names, and `skills` beside them when it names skills)
TOOL_NAMES = {
    "Read": "read_files",
    "Grep": "search_codebase",
    "Glob": "search_codebase",
    "LS": "run_commands",  # Cline's own alias: list_files -> run_commands
    "Bash": "run_commands",
    "Edit": "editor",
    "MultiEdit": "editor",
    "Write": "editor",
    "WebFetch": "fetch_web_content",
    "WebSearch": "web_search",
    "Skill": "skills",
    "AskUserQuestion": "ask_question",
}
# what a prompt may hold after the `$ARGUMENTS` that ends a command's body: Cline puts the
# words typed after `/name` right after the workflow's text (trimmed)
TRAILING_ARGUMENTS = re.compile(r"\s*\$ARGUMENTS\s*$")
# Cline's own /team takes a prompt that matches /^\/team\b/i before any workflow of that name
TEAM_COMMAND = re.compile(r"team(?![A-Za-z0-9_])", re.I)


def cline_tools(agent: Agent) -> list[str]:
    """Cline's names for the agent's tools."""
    return list(dict.fromkeys(TOOL_NAMES[t] for t in agent.tools if t in TOOL_NAMES))


def subagent_tool(name: str) -> str:
    """The tool Cline offers an agent as: `subagent_` and its name in lower case, each run of
    other characters than a-z and 0-9 one `_` (Cline shortens a name past 64 characters)."""
    return "subagent_" + (re.sub(r"[^a-z0-9]+", "_", name.strip().lower()).strip("_") or "agent")


class Cline(Harness):
    name = "cline"
    title = "Cline CLI"
    enforces_tools = True  # a subagent gets the tools its list names and no other
    tool_names = TOOL_NAMES
    tool_vocabulary = "Cline"
    builtin_version = "3.0.65"
    command_syntax = "cline"
    no_hooks = (
        "Cline CLI 3.0.65 runs hooks as one script per event in ~/.cline/hooks; skilltool does "
        "not write them yet"
    )

    def __init__(self, home: Scope) -> None:
        super().__init__(home)
        if home.kind == "project":
            self.mcp_unsupported = (
                "Cline CLI 3.0.65 reads MCP servers only from its home "
                "(~/.cline/data/settings/cline_mcp_settings.json), none from a project"
            )

    # commands: workflows, Markdown whose frontmatter Cline leaves out of the text
    def commands_dir(self) -> Path:
        if self.home.kind == "project":
            return self.home.path / ".clinerules" / "workflows"
        return self.root() / "workflows"

    def command_refusal(self, name: str) -> str | None:
        if ":" in name:
            return (
                "Cline CLI reads no workflow in a subfolder: move the command out of its "
                "subfolder to have it here"
            )
        if TEAM_COMMAND.match(name):
            return (
                f"Cline CLI reads /{name} as its own /team command (a team of agents for the "
                "rest of the line): rename the command to have it here"
            )
        return None

    def translate_command(self, body: str) -> Translation:
        """Cline has no placeholder: it puts what was typed after `/name` right after the
        workflow's text (trimmed). A `$ARGUMENTS` that ends the body is left out, which says
        the same; one anywhere else stays as written, with the words after the text; a
        positional one is refused."""
        every, positional = used(body)
        if positional:
            first = next(iter(positional))  # the first in the body
            return Translation(
                None,
                f"its body holds {first!r}, and Cline CLI has no placeholder (it puts the "
                "words typed after the workflow's text); write the command with $ARGUMENTS "
                "to have it here",
            )
        if not every:
            return Translation(body)
        stripped = TRAILING_ARGUMENTS.sub("", body)
        if "$ARGUMENTS" not in stripped:
            return Translation(stripped + "\n")
        return Translation(
            body,
            "leave $ARGUMENTS as written and put the words typed after the command's text "
            "(Cline CLI has no placeholder)",
        )

    def render_command(self, command: SlashCommand) -> Rendering:
        body = self.translate_command(command.body).body
        assert body is not None
        return self.command_file(command, "command.md.j2", body=body)

    # MCP servers: the flat entries `cline_mcp_settings.json` takes beside its own nested ones
    env_proof = "Cline CLI 3.0.65 expands none (seen in args and env)"

    def mcp_place(self) -> McpPlace | None:
        if self.home.kind == "project":
            return None
        place = self.root() / "data" / "settings" / "cline_mcp_settings.json"
        return McpPlace(place, "json", ("mcpServers",))

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        if server.transport == "sse":
            return remote_entry(server, type="sse")
        if server.transport == "http":
            return remote_entry(server, type="streamableHttp")
        return stdio_entry(server, type="stdio")

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        if skill.repaired:  # its YAML parser refuses it: the skill is not listed
            return Verdict(True, "frontmatter is not valid YAML")
        if skill.declared is None:
            return Verdict(True, "no name")
        return named(skill)

    # agents
    def refusal(self, agent: Agent) -> str | None:
        if not agent.body.strip():
            return "the body is empty, which Cline CLI refuses: write the agent's instructions"
        if not agent.description.strip():
            return "it has no description, which Cline CLI refuses: describe the agent"
        return None

    def render(self, agent: Agent) -> list[Rendering]:
        tools = cline_tools(agent) if agent.tools else None  # no list: every tool of Cline's
        content = self.template("agent.yml.j2", agent, tools=tools, model=self.model(agent))
        return [Rendering(self.root() / "agents" / f"{agent.name}.yml", content)]

    def owned_places(self) -> list[Path]:
        return ending_with(self.root() / "agents", ".yml")

    def launch(self, agent: Agent) -> Launch:
        raise SkilltoolError(
            "Cline CLI cannot start as an agent over ACP: 'cline --acp' starts a session only "
            "once signed in to a provider and has no agent option; in a terminal: cline, then "
            f"ask for the {agent.name} subagent"
        )
