"""Gemini CLI: a regular file with only the keys its strict schema allows; a Claude tools
string or a `skills` key would make it reject the whole agent."""

from __future__ import annotations

import re
from pathlib import Path

from skilltool import placeholders
from skilltool.fs import ending_with
from skilltool.harnesses import (
    BARE_FIELDS,
    EXPANDED_FIELDS,
    Harness,
    Launch,
    McpValue,
    Verdict,
    named_or_skipped,
    remote_entry,
    stdio_entry,
    toml_string_table,
)
from skilltool.model import Agent, McpPlace, McpServer, Rendering, Skill, SlashCommand
from skilltool.placeholders import Translation

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


# the agent name its schema allows (0.61: "Name must be a valid slug"); others are refused
SLUG = r"[a-z0-9_-]+"


def gemini_tools(agent: Agent) -> list[str]:
    """Gemini's names for the agent's tools (and the skill tool when it has skills);
    an empty list when none has a Gemini name: `tools: []` gives the agent no tools."""
    names = [TOOL_NAMES[t] for t in agent.tools if t in TOOL_NAMES]
    if names and agent.skills:
        names.append("activate_skill")
    return list(dict.fromkeys(names))


def settings_place(root: Path) -> McpPlace:
    """`mcpServers` of settings.json, strict JSON as Gemini CLI (and Qwen Code) read it:
    comments are taken, a trailing comma is an error."""
    return McpPlace(root / "settings.json", "json", ("mcpServers",))


def settings_entry(server: McpServer) -> McpValue:
    """A server in Gemini's strict schema: only its own keys, never a marker inside."""
    if server.transport == "http":
        return remote_entry(server, "httpUrl")
    if server.transport == "sse":
        return remote_entry(server)
    return stdio_entry(server)


# what Gemini CLI (and Qwen Code) would run or replace in a prompt: shell, file, arguments
ACTIVE = r"!\{|@\{|\{\{args\}\}"


def translate_command(body: str) -> Translation:
    """Gemini CLI's (and Qwen Code's) `{{args}}`, all the arguments at once; nothing for a
    single word, and nothing it would run or replace itself."""
    refused = placeholders.active(body, ACTIVE)
    if refused is not None:
        return refused
    _, positional = placeholders.used(body)
    if positional:
        return Translation(
            None,
            f"it uses {placeholders.listed(list(positional))}, and this harness has only "
            "{{args}} (all the arguments at once); use $ARGUMENTS to have the command here",
        )
    return Translation(body.replace("$ARGUMENTS", "{{args}}"))


def render_command(harness: Harness, command: SlashCommand) -> Rendering:
    """A TOML file of `description` and `prompt` (Gemini CLI's and Qwen Code's)."""
    body = translate_command(command.body).body
    assert body is not None
    table = toml_string_table({"description": command.description, "prompt": body})
    return harness.command_file(command, "command.toml.j2", body=body, table=table)


class Gemini(Harness):
    name = "gemini"
    title = "Gemini CLI"
    project_reach = (
        "reads the project only when started in its top folder, and nothing of it until you "
        "trust the folder; each project agent also waits for your acknowledgement"
    )
    enforces_tools = True
    tool_names = TOOL_NAMES
    tool_vocabulary = "Gemini"
    # the subagents its system prompt lists in a clean home; a user agent of one of these
    # names is ignored ("Duplicate agent name") with a warning on every run
    builtin_agents = frozenset({"codebase_investigator", "cli_help", "generalist"})
    builtin_version = "0.61.0"
    command_syntax = "gemini"
    command_suffix = ".toml"

    def commands_dir(self) -> Path:
        return self.root() / "commands"

    def translate_command(self, body: str) -> Translation:
        return translate_command(body)

    def render_command(self, command: SlashCommand) -> Rendering:
        return render_command(self, command)

    # 0.61.0 expands ${VAR} and ${VAR:-default} in all of them (a cwd was not tried)
    env_fields = EXPANDED_FIELDS
    bare_fields = BARE_FIELDS
    env_defaults = True

    def mcp_place(self) -> McpPlace:
        return settings_place(self.root())

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        return settings_entry(server)

    def accepts_model(self, model: str) -> bool:
        return model.startswith("gemini-")

    def tools_enforced(self, agent: Agent) -> bool:
        # a tool with no Gemini name is dropped (narrowing), and none mapped gives none
        return True

    def refusal(self, agent: Agent) -> str | None:
        if re.fullmatch(SLUG, agent.name) is None:
            return f"name {agent.name!r} is not a Gemini slug (a-z, 0-9, '-', '_')"
        return None

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        return named_or_skipped(skill)  # its own line parser reads what YAML refuses

    def render(self, agent: Agent) -> list[Rendering]:
        tools = gemini_tools(agent) if agent.tools else None  # no list: Gemini's default set
        content = self.template("agent.md.j2", agent, tools=tools, model=self.model(agent))
        return [Rendering(self.root() / "agents" / f"{agent.name}.md", content)]

    def owned_places(self) -> list[Path]:
        return ending_with(self.root() / "agents", ".md")

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
