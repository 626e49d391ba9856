"""OpenCode: a V1 agent file, `mode: subagent`, no `tools` key (a Claude tools string breaks it).

A subagent stays out of the primary-agent cycle (Tab), which hundreds of plugin agents would
flood; `launch` makes it primary for that one run, where `default_agent` needs a primary one."""

from __future__ import annotations

import re
from pathlib import Path

from skilltool.harnesses import Harness, Launch, Rendering, Verdict, named_or_skipped
from skilltool.model import Agent, Skill

PROVIDER_MODEL = r"[A-Za-z0-9._-]+/[A-Za-z0-9._:@/+-]+"  # compiled on first use


class OpenCode(Harness):
    name = "opencode"
    title = "OpenCode"
    # `opencode agent list` in a clean home
    builtin_agents = frozenset(
        {"build", "compaction", "explore", "general", "plan", "summary", "title"}
    )
    builtin_version = "1.18.33"
    command_syntax = "opencode"

    def commands_dir(self) -> Path:
        return self.root() / "command"  # it reads `commands/` too: a rival (command_rivals)

    def command_note(self, name: str) -> str | None:
        return f"name it /{name.replace(':', '/')}" if ":" in name else None

    def command_rivals(self, name: str) -> list[Path]:
        *folders, last = name.split(":")
        return [self.root().joinpath("commands", *folders, f"{last}.md")]

    def root(self) -> Path:
        return self.home.config_home / "opencode"

    def accepts_model(self, model: str) -> bool:
        return re.fullmatch(PROVIDER_MODEL, model) is not None

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        return named_or_skipped(
            skill
        )  # it repairs frontmatter as Claude Code does, and loads the rest

    def target(self, agent_name: str) -> Path:
        return self.root() / "agent" / f"{agent_name}.md"

    def render(self, agent: Agent) -> list[Rendering]:
        content = self.template("agent.md.j2", agent, model=self.model(agent))
        return [Rendering(self.target(agent.name), content)]

    def owned_places(self) -> list[Path]:
        return sorted((self.root() / "agent").glob("*.md"))

    def launch(self, agent: Agent) -> Launch:
        import json
        import shlex

        # 1.18.33 honours default_agent only for a primary agent: primary for this run only
        primary = {"default_agent": agent.name, "agent": {agent.name: {"mode": "primary"}}}
        config = json.dumps(primary, separators=(",", ":"), ensure_ascii=False)
        return Launch(
            ["opencode", "acp"],
            {"OPENCODE_CONFIG_CONTENT": config},
            [
                f"in a terminal: OPENCODE_CONFIG_CONTENT={shlex.quote(config)} opencode",
                f"in any OpenCode session it is a subagent: @{agent.name}",
            ],
        )
