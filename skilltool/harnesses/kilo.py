"""Kilo Code CLI: OpenCode's agent format in ~/.config/kilo/agents; no `tools` key (Kilo drops
an agent whose `tools` is a Claude string, without a word)."""

from __future__ import annotations

from pathlib import Path

from skilltool.fs import ending_with
from skilltool.harnesses import Launch, Verdict, named_or_skipped
from skilltool.harnesses.opencode import OpenCodeFamily
from skilltool.model import Agent, Rendering, Skill

PROVIDER_MODEL = r"[A-Za-z0-9._-]+/[A-Za-z0-9._:@/+~-]+"  # Kilo's own models: kilo/<vendor>/<id>
# Kilo's own agents (7.7.7 lists the first ten; `build` and `scout` are in its code): a file of
# that name would be merged into the built-in one
BUILT_IN = frozenset({"ask", "code", "compaction", "debug", "explore", "general", "orchestrator",
                      "plan", "summary", "title", "build", "scout"})  # fmt: skip


class Kilo(OpenCodeFamily):
    name = "kilo"
    title = "Kilo Code CLI"
    builtin_agents = BUILT_IN
    builtin_version = "7.7.7"
    # Kilo 7.7.7 reads commands and MCP servers as OpenCode does (proven)
    provider_model = PROVIDER_MODEL
    config_names = ("kilo.json", "kilo.jsonc")
    config_default = "kilo.jsonc"  # what Kilo seeds itself

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        if skill.repaired:  # `kilo debug skill` leaves it out (conformance: test_frontmatter)
            return Verdict(True, "frontmatter is not valid YAML")
        return named_or_skipped(skill)

    def render(self, agent: Agent) -> list[Rendering]:
        content = self.template("agent.md.j2", agent, model=self.model(agent))
        return [Rendering(self.root() / "agents" / f"{agent.name}.md", content)]

    def owned_places(self) -> list[Path]:
        return ending_with(self.root() / "agents", ".md")

    def launch(self, agent: Agent) -> Launch:
        import json

        config = json.dumps({"default_agent": agent.name}, separators=(",", ":"))
        return Launch(
            ["kilo", "acp"],
            {"KILO_CONFIG_CONTENT": config},
            [f"in a terminal: kilo --agent {agent.name}"],
        )
