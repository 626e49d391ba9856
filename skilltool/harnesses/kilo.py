"""Kilo Code CLI: OpenCode's agent format in ~/.config/kilo/agents; no `tools` key (Kilo drops
an agent whose `tools` is a Claude string, without a word)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from skilltool.harnesses import (
    Harness,
    Launch,
    McpPlace,
    McpValue,
    Rendering,
    Verdict,
    named_or_skipped,
)
from skilltool.harnesses.opencode import opencode_entry, opencode_refusal
from skilltool.model import Agent, McpServer, Skill

PROVIDER_MODEL = r"[A-Za-z0-9._-]+/[A-Za-z0-9._:@/+~-]+"  # Kilo's own models: kilo/<vendor>/<id>
# Kilo's own agents (7.7.7 lists the first ten; `build` and `scout` are in its code): a file of
# that name would be merged into the built-in one
BUILT_IN = frozenset({"ask", "code", "compaction", "debug", "explore", "general", "orchestrator",
                      "plan", "summary", "title", "build", "scout"})  # fmt: skip


class Kilo(Harness):
    name = "kilo"
    title = "Kilo Code CLI"
    builtin_agents = BUILT_IN
    builtin_version = "7.7.7"
    command_syntax = "opencode"  # Kilo 7.7.7 reads commands as OpenCode does (proven)

    def commands_dir(self) -> Path:
        return self.root() / "command"

    def command_note(self, name: str) -> str | None:
        return f"name it /{name.replace(':', '/')}" if ":" in name else None

    def command_rivals(self, name: str) -> list[Path]:
        *folders, last = name.split(":")
        return [self.root().joinpath("commands", *folders, f"{last}.md")]

    def root(self) -> Path:
        return self.home.config_home / "kilo"

    def mcp_place(self) -> McpPlace:
        return McpPlace(self.config_file(), "jsonc", ("mcp",))

    def config_file(self) -> Path:
        """kilo.json when the user made one, else kilo.jsonc, which Kilo seeds itself."""
        for name in ("kilo.json", "kilo.jsonc"):
            if os.path.lexists(self.root() / name):
                return self.root() / name
        return self.root() / "kilo.jsonc"

    def mcp_refusal(self, server: McpServer) -> Verdict | None:
        return opencode_refusal(server, self.title)

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        return opencode_entry(server, self.title)

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        if skill.repaired:  # `kilo debug skill` leaves it out (conformance: test_frontmatter)
            return Verdict(True, "frontmatter is not valid YAML")
        return named_or_skipped(skill)

    def accepts_model(self, model: str) -> bool:
        return re.fullmatch(PROVIDER_MODEL, model) is not None

    def render(self, agent: Agent) -> list[Rendering]:
        content = self.template("agent.md.j2", agent, model=self.model(agent))
        return [Rendering(self.root() / "agents" / f"{agent.name}.md", content)]

    def owned_places(self) -> list[Path]:
        return sorted((self.root() / "agents").glob("*.md"))

    def launch(self, agent: Agent) -> Launch:
        import json

        config = json.dumps({"default_agent": agent.name}, separators=(",", ":"))
        return Launch(
            ["kilo", "acp"],
            {"KILO_CONFIG_CONTENT": config},
            [f"in a terminal: kilo --agent {agent.name}"],
        )
