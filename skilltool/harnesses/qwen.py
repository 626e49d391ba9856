"""Qwen Code: ~/.qwen/agents/<name>.md with `tools` as a list of Qwen's own tool names; an agent
file Qwen would refuse (short body, reserved name) is skipped with a line, since Qwen drops it
without a word."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar

from skilltool.fs import ending_with
from skilltool.harnesses import (
    BARE_FIELDS,
    EXPANDED_FIELDS,
    Harness,
    Launch,
    Listing,
    McpValue,
    Probe,
    Verdict,
    change_settings_copy,
    gemini,
    named_or_skipped,
)
from skilltool.harnesses.gemini import settings_entry, settings_place
from skilltool.hook_places import hooks_folder_files, hooks_folder_plugin, same_names
from skilltool.model import Agent, Hook, McpPlace, McpServer, Plugin, Rendering, Skill, SlashCommand
from skilltool.placeholders import Translation

EXTENSION = "qwen-extension.json"  # the manifest of an extension folder
# Claude Code tool names -> Qwen Code's (its ToolNames; it would match only a few by display name)
TOOL_NAMES = {
    "Read": "read_file",
    "Grep": "grep_search",
    "Glob": "glob",
    "LS": "list_directory",
    "Bash": "run_shell_command",
    "Edit": "edit",
    "MultiEdit": "edit",
    "Write": "write_file",
    "WebFetch": "web_fetch",
    "WebSearch": "web_search",
    "TodoWrite": "todo_write",
    "NotebookEdit": "notebook_edit",
    "Skill": "skill",
    "Task": "agent",
}
# names Qwen's validator refuses, and its own agents (never replaced by a plugin agent)
RESERVED = frozenset({"self", "system", "user", "model", "tool", "config", "default", "main"})
BUILT_IN = frozenset({"general-purpose", "explore", "statusline-setup", "review-agent",
                      "claude-code", "codex", "fork"})  # fmt: skip
NAME = r"[^\W_](?:[\w-]*[^\W_])?"  # letters, digits, '-', '_'; no '-'/'_' at the ends
MIN_PROMPT = 10  # characters of the trimmed body, as JavaScript counts them


def qwen_tools(agent: Agent) -> list[str]:
    """Qwen's names for the agent's tools (and the skill tool when it has skills)."""
    names = [TOOL_NAMES[t] for t in agent.tools if t in TOOL_NAMES]
    if names and agent.skills:
        names.append("skill")
    return list(dict.fromkeys(names))


def refusal(agent: Agent) -> str | None:
    """Why Qwen Code would drop this agent file, or None when it loads it."""
    name = agent.name
    if not 2 <= len(name) <= 50 or not re.fullmatch(NAME, name):
        return f"Qwen Code refuses the name '{name}' (2-50 letters, digits, '-', '_'): rename it"
    if name.lower() in RESERVED:
        return f"Qwen Code reserves the name '{name}': rename the agent"
    prompt = agent.body.replace("\r\n", "\n").strip()
    if len(prompt.encode("utf-16-le")) // 2 < MIN_PROMPT:
        return f"the body is under {MIN_PROMPT} characters, which Qwen Code drops: write more"
    return None


def qwen_request(request: str, stderr: str) -> Listing:
    """The skills and agents named in the first request Qwen Code sends a model."""
    import json

    try:
        text = "\n".join(_strings(json.loads(request)))
    except ValueError:
        return Listing(errors=(f"no request reached the model: {stderr[-160:]!r}",))
    skills = re.findall(r"<name>\n?([^<\n]+)\n?</name>", text)
    agents = re.findall(r"^- \*\*([^*\n]+)\*\*:", text, re.M)
    return Listing({n.strip(): () for n in skills}, {n.strip(): () for n in agents})


def _strings(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for value in node.values() for s in _strings(value)]
    if isinstance(node, list):
        return [s for value in node for s in _strings(value)]
    return []


def no_hooks(root: Path, url: str) -> None:
    """The throwaway copy of ~/.qwen/settings.json with `disableAllHooks`: none of the user's
    hooks runs while Qwen Code is asked (skilltool's own are left out of the copy)."""
    settings = root / "settings.json"
    change_settings_copy(settings, lambda document: document.update(disableAllHooks=True))


class Qwen(Harness):
    name = "qwen"
    title = "Qwen Code"
    project_reach = (
        "reads the project only when started in its top folder; each project MCP server waits"
        " for your approval"
    )
    builtin_agents = BUILT_IN
    builtin_version = "0.24.4"
    command_syntax = "gemini"  # as Gemini CLI: TOML files, {{args}} (seen in 0.24.4)
    command_suffix = ".toml"

    def commands_dir(self) -> Path:
        return self.root() / "commands"

    def translate_command(self, body: str) -> Translation:
        return gemini.translate_command(body)

    def render_command(self, command: SlashCommand) -> Rendering:
        return gemini.render_command(self, command)

    enforces_tools = True

    env_fields = EXPANDED_FIELDS
    bare_fields = BARE_FIELDS
    env_proof = "Qwen Code 0.24.4 expands ${VAR}, but leaves ${VAR:-default} as it is"

    def mcp_place(self) -> McpPlace:
        return settings_place(self.root())

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        return settings_entry(server)

    def refusal(self, agent: Agent) -> str | None:
        return refusal(agent)

    def builtin_name(self, agent: Agent) -> str:
        return agent.name.lower()  # Qwen Code matches its own agents' names in any case

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        # `qwen -p` leaves out a skill named 'Caps Name' (conformance: test_frontmatter)
        if skill.declared is not None and re.search(r"\s", skill.declared):
            return Verdict(True, "name holds a blank")
        return named_or_skipped(skill)

    def accepts_model(self, model: str) -> bool:
        return model.startswith("qwen")

    def tools_enforced(self, agent: Agent) -> bool:
        # a tool Qwen has no name for is dropped: the list is enforced only when all map
        return all(t in TOOL_NAMES for t in agent.tools)

    def render(self, agent: Agent) -> list[Rendering]:
        content = self.template(
            "agent.md.j2", agent, tools=qwen_tools(agent), model=self.model(agent)
        )
        return [Rendering(self.root() / "agents" / f"{agent.name}.md", content)]

    def probes(self) -> list[Probe]:
        """`qwen -p hi` against a loopback model: its first request lists every skill it
        loaded (`<skill><name>NAME</name>…`) and, in its `agent` tool, every agent
        (`- **NAME**: …`); the model refuses it, and Qwen stops there."""
        none = ("--allowed-mcp-server-names", "skilltool-doctor-none")  # no MCP server started
        argv = ("qwen", "-p", "hi", "--auth-type", "anthropic", "-m", "claude-sonnet-4-5", *none)
        env = {"ANTHROPIC_API_KEY": "doctor", "ANTHROPIC_BASE_URL": "{model}"}
        return [Probe(argv, qwen_request, env, model=True, prepare=no_hooks)]

    def owned_places(self) -> list[Path]:
        return ending_with(self.root() / "agents", ".md")

    # hooks: Claude Code's, by the same names and in the same format, from an extension folder
    # skilltool generates per plugin (proven in tests/conformance/test_hooks_qwen.py)
    hooks_in_folders = True
    hook_events: ClassVar[Mapping[str, str] | None] = same_names(
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "UserPromptSubmit",
        "SessionStart",
        "SessionEnd",
        "Stop",
        "SubagentStart",
        "SubagentStop",
        "Notification",
        "PreCompact",
        "PermissionRequest",
    )

    # in a project, entries of its `.qwen/settings.json` (`hooks`): read only when started in
    # the project's top folder, with no question asked (an extension of the project's own
    # `.qwen/extensions/` is not loaded; proven in tests/conformance/test_project_hooks.py)
    project_hooks = True

    def hook_place(self) -> McpPlace | None:
        if self.home.kind != "project":
            return None
        return McpPlace(self.root() / "settings.json", "json-hooks", ("hooks",))

    def hook_entries(self, plugin: Plugin, hooks: Sequence[Hook]) -> list[tuple[str, McpValue]]:
        from skilltool.hook_format import settings_entries

        if self.home.kind != "project":
            return []
        return settings_entries(plugin, hooks, command=lambda c: self.hook_command(plugin, c))

    def plugin_reach(self, plugin: Plugin) -> str:
        from skilltool.hook_format import reach, relative

        # the folder it was started in, the project's top folder: the only one it reads there
        return reach("QWEN_PROJECT_DIR", relative(plugin.root, self.home.path))

    def render_hooks(self, plugin: Plugin, hooks: Sequence[Hook]) -> list[Rendering]:
        from skilltool.hook_format import claude_object, hooks_folder

        if self.home.kind == "project":
            return []  # its entries only (hook_entries)
        fields = {"name": f"{plugin.name}-hooks", "version": "1.0.0"}
        source = self.home.stored(plugin.hooks[0])
        carried = claude_object(plugin, hooks)
        return hooks_folder(self.root() / "extensions", EXTENSION, fields, plugin, carried, source)

    def hook_files(self) -> list[Path]:
        return hooks_folder_files(self.root() / "extensions", EXTENSION)

    def hook_plugin(self, path: Path) -> str:
        return hooks_folder_plugin(path)

    def launch(self, agent: Agent) -> Launch:
        return self.launch_by_system_prompt(agent, "QWEN_SYSTEM_MD")
