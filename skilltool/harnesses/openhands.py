"""OpenHands CLI: each agent a file of ~/.openhands/agents/<name>.md (`name`, `description`,
`tools` by OpenHands' own names, the body added to the end of its system prompt), offered to
the model as a subagent type of its `task` tool; each MCP server an entry of
~/.openhands/mcp.json (of $OPENHANDS_PERSISTENCE_DIR when that is set; it moves nothing else).
It reads ~/.agents/skills itself, before ~/.openhands/skills, and keeps the first skill of a
name.

It reads ~/.agents/agents too, before ~/.openhands/agents; skilltool writes nothing there,
since Kimi Code reads that folder as well."""

from __future__ import annotations

import re
from pathlib import Path

from skilltool.fs import ending_with
from skilltool.harnesses import Harness, Launch, McpValue, Verdict, remote_entry, stdio_entry
from skilltool.model import Agent, McpPlace, McpServer, Rendering, Skill
from skilltool.paths import Scope

# Claude Code's tool names -> the tools of OpenHands 1.16.0's CLI a subagent can name for them
# (terminal, file_editor, task_tracker); one naming glob or grep, not registered there, fails
# when it is called
TOOL_NAMES = {
    "Bash": "terminal",
    "Read": "file_editor",
    "Write": "file_editor",
    "Edit": "file_editor",
    "MultiEdit": "file_editor",
    "TodoWrite": "task_tracker",
}
# a subagent file with no `tools` has none: an agent of Claude Code's with no list has all
# of its tools, so it is given those of OpenHands' own general-purpose subagent
DEFAULT_TOOLS = ("terminal", "file_editor", "task_tracker")
# its built-in subagents in the CLI (1.16.0); a file of the same name is not registered
BUILT_IN = frozenset({"bash-runner", "code-explorer", "general-purpose"})
# 1.16.0 leaves out a skill whose name is not 1-64 of a-z, 0-9 and single inner hyphens, or
# is not the name of its folder; a longer description it cuts to 1024 characters
SKILL_NAME = r"[a-z0-9]+(?:-[a-z0-9]+)*"
SKILL_NAME_LIMIT = 64
DESCRIPTION_LIMIT = 1024
PERSISTENCE_VARIABLE = "OPENHANDS_PERSISTENCE_DIR"


def openhands_tools(agent: Agent) -> list[str]:
    """OpenHands' names for the agent's tools; its general-purpose set when it names none."""
    if not agent.tools:
        return list(DEFAULT_TOOLS)
    return list(dict.fromkeys(TOOL_NAMES[t] for t in agent.tools if t in TOOL_NAMES))


class OpenHands(Harness):
    name = "openhands"
    title = "OpenHands"
    enforces_tools = True  # a subagent has exactly the tools its file names
    tool_names = TOOL_NAMES
    tool_vocabulary = "OpenHands"
    builtin_agents = BUILT_IN
    builtin_version = "1.16.0"
    project_reach = (
        "reads the project's skills from the folder it is started in and the repository's "
        "top; its .openhands/agents only when started in the project's top folder"
    )
    no_commands = (
        "OpenHands 1.16.0 has no folder of user slash commands (its skills with triggers "
        "are its nearest thing)"
    )
    no_hooks = (
        "OpenHands 1.16.0 runs hooks from ~/.openhands/hooks.json, lists under each event "
        "with no name an entry of skilltool's could be kept by, and reads none of it when the "
        "project has a .openhands/hooks.json of its own"
    )

    def __init__(self, home: Scope) -> None:
        super().__init__(home)
        if home.kind == "project":
            self.mcp_unsupported = (
                "OpenHands 1.16.0 reads MCP servers only from ~/.openhands/mcp.json, none from "
                "a project; install the plugin in the home to have its servers there"
            )

    def mcp_place(self) -> McpPlace | None:
        if self.home.kind == "project":
            return None
        # OPENHANDS_PERSISTENCE_DIR moves its settings and mcp.json, not its agents and skills
        moved = self.home.variable(PERSISTENCE_VARIABLE)
        folder = self.home.expand(moved) if moved else self.root()
        # fastmcp's MCPConfig: one entry it cannot read loses every server of the file
        return McpPlace(folder / "mcp.json", "json", ("mcpServers",))

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        if server.transport != "stdio":
            return remote_entry(server, transport=server.transport)
        if server.cwd is not None:
            return Verdict(True, "OpenHands 1.16.0 is not proven to start a server in its cwd")
        return stdio_entry(server)

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        if skill.repaired:  # python-frontmatter's YAML refuses it: the skill is not loaded
            return Verdict(True, "frontmatter is not valid YAML")
        name = skill.declared if skill.declared is not None else skill.name
        if len(name) > SKILL_NAME_LIMIT or not re.fullmatch(SKILL_NAME, name):
            return Verdict(True, "name is not lowercase letters, digits and single hyphens")
        if name != skill.name:
            return Verdict(True, f"its name {name!r} is not its folder's, {skill.name!r}")
        if len(skill.description.strip()) > DESCRIPTION_LIMIT:
            return Verdict(False, f"cut its description to {DESCRIPTION_LIMIT} characters")
        return None

    def render(self, agent: Agent) -> list[Rendering]:
        content = self.template("agent.md.j2", agent, tools=openhands_tools(agent))
        return [Rendering(self.root() / "agents" / f"{agent.name}.md", content)]

    def owned_places(self) -> list[Path]:
        return ending_with(self.root() / "agents", ".md")

    not_probed = (
        "OpenHands 1.16.0 shows its skills and agents only to a model, which it asks again "
        "and again when refused"
    )

    def launch(self, agent: Agent) -> Launch:
        return Launch(
            ["openhands", "acp"],
            {},
            [
                "OpenHands 1.16.0 has no agent option over ACP: a session there is OpenHands' "
                f"own agent, which offers {agent.name} as a subagent (its task tool); it needs "
                "a model set up first (run 'openhands' once, or 'openhands login')",
                f"in a terminal: openhands, then ask for the {agent.name} subagent",
            ],
        )
