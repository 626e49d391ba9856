"""Claude Code: the agent in its own format, and each skill also linked into
~/.claude/skills, since Claude Code does not read ~/.agents/skills."""

from __future__ import annotations

from pathlib import Path

from skilltool.harnesses import CLAUDE_ALIASES, Harness, Launch, Rendering
from skilltool.model import Agent


class Claude(Harness):
    name = "claude"
    title = "Claude Code"
    enforces_tools = True

    def root(self) -> Path:
        return self.home.path / ".claude"

    def own_skills_dir(self) -> Path:
        return self.root() / "skills"

    def accepts_model(self, model: str) -> bool:
        # Claude Code sends any model as it is: render only what it can serve
        return model in CLAUDE_ALIASES or model.startswith("claude-")

    def render(self, agent: Agent) -> list[Rendering]:
        content = self.template(
            "agent.md.j2", agent, tools=", ".join(agent.tools), model=self.model(agent)
        )
        return [Rendering(self.root() / "agents" / f"{agent.name}.md", content)]

    def owned_places(self) -> list[Path]:
        return sorted((self.root() / "agents").glob("*.md"))

    def launch(self, agent: Agent) -> Launch:
        return Launch(
            ["claude-agent-acp"],
            {},
            [
                f'select the agent in the session: config option agent = "{agent.name}" '
                f'(or _meta.claudeCode.options.agent = "{agent.name}" in session/new)',
                f"in a terminal: claude --agent {agent.name}",
                "claude-agent-acp comes from the npm package @agentclientprotocol/claude-agent-acp",
            ],
        )
