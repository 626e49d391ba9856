"""Mistral Vibe: ~/.vibe/agents/<name>.toml, a mode the user picks (`vibe --agent NAME`), whose
`system_prompt_id` names the prompt skilltool writes beside it in ~/.vibe/prompts."""

from __future__ import annotations

import re
from pathlib import Path

from skilltool.harnesses import Harness, Launch, Rendering, Verdict, named
from skilltool.harnesses.codex import toml_string_table
from skilltool.model import Agent, Skill
from skilltool.parse import SKILL_DESCRIPTION_LIMIT

# Vibe 3.0.3's own agents (BUILTIN_AGENTS): a file of that name would replace the built-in one
BUILT_IN = frozenset({"ask", "accept-edits", "smart-approve", "auto-approve", "explore", "lean"})
RESERVED = "main"  # Vibe refuses an agent file of this name (kept for hook matching)
SKILL_NAME = r"[a-z0-9]+(?:-[a-z0-9]+)*"  # its SkillMetadata.name, at most 64
SKILL_NAME_LIMIT = 64


def prompt_id(agent: Agent) -> str:
    # Vibe reads `(dir / id).with_suffix(".md")`: an id ending in .md survives a dotted name
    return f"{agent.name}.md"


class Vibe(Harness):
    name = "vibe"
    title = "Mistral Vibe"
    # not yet checked in the binary: it has a Claude plugin loader of its own, unproven here
    no_commands = "no place for user commands proven in Mistral Vibe 3.0.3 yet"
    builtin_agents = BUILT_IN
    builtin_version = "3.0.3"
    # vibe/core/config/vibe_schema.py: `mcp_servers` is a list matched by its `name` keys
    mcp_unsupported = (
        "keeps its MCP servers as an array of tables ([[mcp_servers]] in config.toml), "
        "and skilltool edits only entries keyed by name"
    )

    def refusal(self, agent: Agent) -> str | None:
        if agent.name.casefold() == RESERVED:
            return f"Mistral Vibe reserves the name '{RESERVED}' for hooks: rename the agent"
        return None

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        # Vibe validates the frontmatter as the Agent Skills rules say and drops what fails
        if skill.repaired:
            return Verdict(True, "frontmatter is not valid YAML")
        declared = skill.declared
        if declared is None:
            return Verdict(True, "no name")
        if len(declared) > SKILL_NAME_LIMIT or not re.fullmatch(SKILL_NAME, declared):
            return Verdict(True, "name breaks the Agent Skills rules")
        if len(skill.description) > SKILL_DESCRIPTION_LIMIT:
            return Verdict(True, f"description over {SKILL_DESCRIPTION_LIMIT} characters")
        return named(skill)

    def render(self, agent: Agent) -> list[Rendering]:
        table: dict[str, str] = {
            "agent_type": "agent",
            "description": agent.description,
            "system_prompt_id": prompt_id(agent),
        }
        model = self.model(agent)
        if model:
            table["active_model"] = model
        return [
            Rendering(
                self.root() / "agents" / f"{agent.name}.toml",
                self.template("agent.toml.j2", agent, table=toml_string_table(table)),
            ),
            Rendering(
                self.root() / "prompts" / prompt_id(agent), self.template("prompt.md.j2", agent)
            ),
        ]

    def owned_places(self) -> list[Path]:
        return sorted(
            [*(self.root() / "agents").glob("*.toml"), *(self.root() / "prompts").glob("*.md")]
        )

    def launch(self, agent: Agent) -> Launch:
        return Launch(
            ["vibe-acp"],
            {"VIBE_DEFAULT_AGENT": agent.name},
            [f"in a terminal: vibe --agent {agent.name}"],
        )
