"""Gemini CLI: a regular file with only the keys its strict schema allows; a Claude tools
string or a `skills` key would make it reject the whole agent."""

from __future__ import annotations

from pathlib import Path

from skilltool.harnesses import Harness, Launch, Rendering
from skilltool.model import Agent

# Claude Code tool names -> Gemini CLI's
TOOL_NAMES = {
    "Read": "read_file",
    "Grep": "grep_search",
    "Glob": "glob",
    "LS": "list_directory",
    "Bash": "run_shell_command",
    "Edit": "replace",
    "MultiEdit": "replace",
    "Write": "write_file",
    "WebFetch": "web_fetch",
    "WebSearch": "google_web_search",
}


def gemini_tools(agent: Agent) -> list[str]:
    """Gemini's names for the agent's tools (and the skill tool when it has skills)."""
    names = [TOOL_NAMES[t] for t in agent.tools if t in TOOL_NAMES]
    if names and agent.skills:
        names.append("activate_skill")
    return list(dict.fromkeys(names))


class Gemini(Harness):
    name = "gemini"
    title = "Gemini CLI"
    enforces_tools = True

    def root(self) -> Path:
        return self.home.path / ".gemini"

    def accepts_model(self, model: str) -> bool:
        return model.startswith("gemini-")

    def tools_enforced(self, agent: Agent) -> bool:
        # a tool Gemini has no name for is dropped: the list is enforced only when all map
        return all(t in TOOL_NAMES for t in agent.tools)

    def render(self, agent: Agent) -> list[Rendering]:
        content = self.template(
            "agent.md.j2", agent, tools=gemini_tools(agent), model=self.model(agent)
        )
        return [Rendering(self.root() / "agents" / f"{agent.name}.md", content)]

    def owned_places(self) -> list[Path]:
        return sorted((self.root() / "agents").glob("*.md"))

    def launch(self, agent: Agent) -> Launch:
        return Launch(
            ["gemini", "--acp"],
            {},
            [
                "gemini --acp cannot select an agent: it starts as Gemini's own agent, which "
                f"can hand work to the subagent {agent.name} (ask for it by name in the prompt)",
                f"in a terminal: gemini, then ask for the {agent.name} agent",
            ],
        )
