"""Augment's Auggie: each agent a subagent file of ~/.augment/agents/<name>.md (name,
description, then its prompt; Auggie offers it to the model as the tool `sub-agent-<name>`),
each command a file of ~/.augment/commands, each MCP server an entry of
~/.augment/settings.json. Auggie reads ~/.agents/skills and ~/.claude/skills itself, one skill
of a name once (the first of ~/.augment, ~/.claude, ~/.agents), and agents and commands of a
name likewise: the files of ~/.augment come before Claude Code's.

In a git repository it reads .augment/agents and .augment/commands at the repository's top
(the workspace root it finds from any folder of it)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

from skilltool import placeholders
from skilltool.fs import ending_with
from skilltool.harnesses import Harness, Launch, McpValue, Verdict, named, remote_entry
from skilltool.model import Agent, McpPlace, McpServer, Rendering, Skill, SlashCommand
from skilltool.paths import Scope
from skilltool.placeholders import Translation

# its built-in subagents, as 0.36.0 offers them (`sub-agent-<name>`); a file of the same name
# takes the place of the built-in one
BUILT_IN = frozenset(
    {"explore", "plan", "auggie-guide", "general-purpose", "research", "code", "validate"}
)
# 0.36.0 leaves out a skill whose name is not 1-64 of a-z, 0-9 and single inner hyphens, or
# whose description is longer than 1024 characters (or empty, which skilltool refuses too)
SKILL_NAME = r"[a-z0-9]+(?:-[a-z0-9]+)*"
SKILL_NAME_LIMIT = 64
DESCRIPTION_LIMIT = 1024
# what Auggie puts every word typed in place of, besides $ARGUMENTS: `{{anything}}` and
# `{identifier}` (a code sample's braces among them)
BRACES = r"\{\{[^}]+\}\}|\{[a-zA-Z_][a-zA-Z0-9_]*\}"


def auggie_name(name: str) -> str:
    """The name Auggie gives an agent (its tool is `sub-agent-<name>`): each run of blanks and
    of other characters than a-z, A-Z, 0-9, `_` and `-` one `-`."""
    return re.sub(r"-+", "-", re.sub(r"[^a-zA-Z0-9_-]", "-", re.sub(r"\s+", "-", name.strip())))


class Auggie(Harness):
    name = "auggie"
    title = "Auggie"
    builtin_agents = BUILT_IN
    builtin_version = "0.36.0"
    # a skill, agent or command of one name in the home and the project: the home's (it reads
    # ~/.augment, then the repository's .augment, then ~/.claude, …, one of a name once)
    precedence: ClassVar[Mapping[str, str]] = {"skill": "home", "agent": "home"}
    command_syntax = "auggie"
    no_hooks = (
        "Auggie 0.36.0 runs hooks only when Augment's server turns them on for the account, "
        "from lists under each event of its settings.json with no name an entry of "
        "skilltool's could be kept by; skilltool does not write them"
    )

    def __init__(self, home: Scope) -> None:
        super().__init__(home)
        if home.kind == "project":
            self.mcp_unsupported = (
                "Auggie 0.36.0 reads a project's MCP servers from .augment/settings.json, "
                "which skilltool does not write (not proven in its binary); install the plugin "
                "in the home to have its servers there"
            )

    # commands: Claude Code's Markdown; a command in a subfolder `sub/` is `/sub:name`
    def commands_dir(self) -> Path:
        return self.root() / "commands"

    def translate_command(self, body: str) -> Translation:
        """`$ARGUMENTS` as it is and words counted from 1 (a word not typed: nothing). Auggie
        also puts every word typed in place of `{{…}}` and `{name}`, and, when nothing was
        typed, leaves every placeholder as written."""
        refused = placeholders.amount(body)
        if refused is not None:
            return refused
        found = re.search(BRACES, body)
        if found is not None:
            return Translation(
                None,
                f"its body holds {found.group()!r}, which Auggie replaces with the words typed "
                "after the command; write it another way to have the command here",
            )
        every, positional = placeholders.used(body)
        if not every and not positional:
            return Translation(body)  # Auggie adds the words typed, as Claude Code does
        text = placeholders.counted_from_one(body)
        notes = ["leave the placeholders as written when nothing is typed after the command"]
        if positional:
            notes.append(f"give {placeholders.MISSING}")
        return Translation(text, " and ".join(notes))

    def render_command(self, command: SlashCommand) -> Rendering:
        body = self.translate_command(command.body).body
        assert body is not None
        return self.command_file(command, "command.md.j2", body=body)

    # MCP servers: ~/.augment/settings.json, which `auggie mcp add` writes too
    def mcp_place(self) -> McpPlace | None:
        if self.home.kind == "project":
            return None
        return McpPlace(self.root() / "settings.json", "json", ("mcpServers",))

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        if server.transport != "stdio":
            return remote_entry(server, type=server.transport)
        if server.cwd is not None:
            return Verdict(True, "Auggie 0.36.0 is not proven to start a server in its cwd")
        value: McpValue = {"type": "stdio", "command": server.command, "args": list(server.args)}
        if server.env:
            value["env"] = dict(server.env)
        return value

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        if skill.repaired:  # its YAML parser refuses it: the skill is not listed
            return Verdict(True, "frontmatter is not valid YAML")
        declared = skill.declared
        if declared is None:
            return Verdict(True, "no name")
        if len(declared) > SKILL_NAME_LIMIT or not re.fullmatch(SKILL_NAME, declared):
            return Verdict(True, "name is not lowercase letters, digits and single hyphens")
        if len(skill.description.strip()) > DESCRIPTION_LIMIT:
            return Verdict(True, f"description is longer than {DESCRIPTION_LIMIT} characters")
        return named(skill)

    # agents
    def builtin_name(self, agent: Agent) -> str:
        return auggie_name(agent.name)

    def agent_verdict(self, agent: Agent) -> Verdict | None:
        verdict = super().agent_verdict(agent)
        called = auggie_name(agent.name)
        if verdict is None and called != agent.name:
            return Verdict(False, f"name it {called}")
        return verdict

    def render(self, agent: Agent) -> list[Rendering]:
        content = self.template("agent.md.j2", agent)
        return [Rendering(self.root() / "agents" / f"{agent.name}.md", content)]

    def owned_places(self) -> list[Path]:
        return ending_with(self.root() / "agents", ".md")

    not_probed = (
        "Auggie 0.36.0 shows its skills and agents only in its requests to Augment's own API"
    )

    def launch(self, agent: Agent) -> Launch:
        return Launch(
            ["auggie", "--acp"],
            {},
            [
                "Auggie 0.36.0 has no agent option over ACP: a session there is Auggie's own "
                f"agent, which offers {agent.name} as a subagent (its sub-agent-{agent.name} "
                "tool); it needs a sign-in to Augment ('auggie login')",
                f"in a terminal: auggie, then ask for the {agent.name} subagent",
            ],
        )
