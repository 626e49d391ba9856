"""Amp: each MCP server an entry of ~/.config/amp/settings.json, under the one key
"amp.mcpServers" (XDG_CONFIG_HOME moves ~/.config, as Amp reads it). Amp reads ~/.agents/skills
itself (and ~/.claude/skills beside it, listing a skill found in both once), so nothing else is
written for skills. It has no agent or command files any of its listings shows, and its plugins
are TypeScript: no agents, commands or hooks are given to it.

A prompt needs an account at ampcode.com, so what Amp loads is proven by its own listings, which
run offline: `amp skill list --json` and `amp tools list` (which starts each server and lists
its tools as mcp__<server>__<tool>), with any AMP_API_KEY and AMP_URL at a local port."""

from __future__ import annotations

import re
from pathlib import Path

from skilltool.errors import SkilltoolError
from skilltool.harnesses import Harness, Launch, McpValue, Verdict, named, stdio_entry
from skilltool.model import Agent, McpPlace, McpServer, Rendering, Skill

VERSION = "0.0.1790142911-g7618fb"
# a skill's name as `amp skill list` takes it ("a--b", "-a" and "a_b" are its "Invalid skill name")
SKILL_NAME = r"[a-z0-9]+(?:-[a-z0-9]+)*"


class Amp(Harness):
    name = "amp"
    title = "Amp"
    builtin_version = VERSION
    no_agents = (
        f"Amp {VERSION} reads no agent files: none of its listings shows one (its subagents "
        "are its own); skilltool writes none"
    )
    no_commands = (
        f"Amp {VERSION} reads no command files: none of its listings shows one (its own "
        "commands come from its TypeScript plugins)"
    )
    no_hooks = (
        f"Amp {VERSION} runs hooks only from its plugins, which are TypeScript programs, not "
        "hook entries skilltool could write and own; skilltool writes none"
    )
    not_probed = (
        "skilltool doctor does not ask Amp yet: its listings need AMP_API_KEY and AMP_URL set "
        "to a server of Amp's"
    )
    # ${VAR} in a server's args and env, seen in the values `amp tools list` gave the server
    env_fields = frozenset({"args", "env"})

    # skills: ~/.agents/skills, which Amp reads itself; each as its frontmatter names it
    def skill_verdict(self, skill: Skill) -> Verdict | None:
        if skill.repaired:  # its YAML parser refuses it: `amp skill list` shows an error
            return Verdict(True, "frontmatter is not valid YAML")
        declared = skill.declared
        if declared is None:
            return Verdict(True, "no name")
        if not skill.description.strip():
            return Verdict(True, "no description")
        if not re.fullmatch(SKILL_NAME, declared):
            return Verdict(True, "name is not lowercase letters, digits and single hyphens")
        return named(skill)

    # MCP servers: ~/.config/amp/settings.json, whose key "amp.mcpServers" is one key (a dot
    # in it, not a table of tables), as `amp mcp add` writes it
    def mcp_place(self) -> McpPlace:
        return McpPlace(self.root() / "settings.json", "json", ("amp.mcpServers",))

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        if server.transport != "stdio":
            return Verdict(
                True,
                f"Amp {VERSION} is not proven to reach a remote ({server.transport}) server: "
                "add it yourself with 'amp mcp add'",
            )
        if server.cwd is not None:
            return Verdict(
                True,
                f"Amp {VERSION} shows no working folder for a server (it is not proven to "
                "read cwd)",
            )
        return stdio_entry(server)

    # agents: none (refusal says so for each, validate once for all)
    def render(self, agent: Agent) -> list[Rendering]:
        return []  # refusal names every agent: nothing is rendered

    def owned_places(self) -> list[Path]:
        return []

    def launch(self, agent: Agent) -> Launch:
        raise SkilltoolError(
            "Amp cannot start as an agent over ACP: it has no ACP mode, and a session needs an "
            "account at ampcode.com; in a terminal: amp"
        )
