"""Copilot CLI: ~/.copilot/agents/<name>.agent.md; `skills` must be a YAML list, or the
agent silently disappears."""

from __future__ import annotations

from pathlib import Path

from skilltool.harnesses import Harness, Launch, Rendering
from skilltool.model import Agent


class Copilot(Harness):
    name = "copilot"
    title = "Copilot CLI"
    enforces_tools = True  # Copilot maps Claude tool names and drops the ones it lacks

    def root(self) -> Path:
        return self.home.path / ".copilot"

    def render(self, agent: Agent) -> list[Rendering]:
        content = self.template(
            "agent.md.j2", agent, tools=", ".join(agent.tools), model=self.model(agent)
        )
        return [Rendering(self.root() / "agents" / f"{agent.name}.agent.md", content)]

    def owned_places(self) -> list[Path]:
        return sorted((self.root() / "agents").glob("*.agent.md"))

    def launch(self, agent: Agent) -> Launch:
        return Launch(
            ["copilot", "--acp"],
            {},
            [
                f'select the agent: session/set_config_option agent = "{agent.name}" '
                "(the --agent flag is ignored under --acp)",
                f"in a terminal: copilot --agent {agent.name}",
            ],
        )
