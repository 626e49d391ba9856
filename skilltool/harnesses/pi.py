"""pi: the instructions as a file, and a wrapper that appends them with --append-system-prompt."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar

from skilltool import placeholders
from skilltool.fs import ending_with
from skilltool.harnesses import (
    Harness,
    Launch,
    Listing,
    McpValue,
    Probe,
    Verdict,
    json_line,
    named,
    remote_entry,
    skills_by_folder,
    stdio_entry,
)
from skilltool.hook_places import files_under, same_names
from skilltool.model import Agent, Hook, McpPlace, McpServer, Plugin, Rendering, Skill
from skilltool.parse import SKILL_DESCRIPTION_LIMIT, is_safe_name
from skilltool.placeholders import Translation

# Claude Code tool names -> pi's own; pi gives no tools at all for names it does not know
TOOL_NAMES = {
    "Read": "read",
    "Bash": "bash",
    "Edit": "edit",
    "MultiEdit": "edit",
    "Write": "write",
    "Grep": "grep",
    "Glob": "find",
    "LS": "ls",
}


def pi_tools(agent: Agent) -> list[str]:
    """pi's names for the agent's tools; `read` is kept when the agent has skills to read."""
    names = [TOOL_NAMES[t] for t in agent.tools if t in TOOL_NAMES]
    if names and agent.skills and "read" not in names:
        names.insert(0, "read")
    return list(dict.fromkeys(names))


ACTIVE = r"\$@|\$\{@"  # pi's own placeholders, which Claude Code leaves alone


def pi_skills(stdout: str, stderr: str) -> Listing:
    answer = json_line(stdout, "command", "get_commands")
    if answer is None:
        return Listing(errors=(f"no answer to get_commands: {(stderr or stdout)[-160:]!r}",))
    commands = (answer.get("data") or {}).get("commands") or []
    paths = [
        str((c.get("sourceInfo") or {}).get("path", ""))
        for c in commands
        if isinstance(c, dict) and c.get("source") == "skill"
    ]
    return Listing(skills=skills_by_folder(p for p in paths if p))


class Pi(Harness):
    name = "pi"
    proven_version = "1.6.0"  # scripts/install-harnesses
    title = "pi"
    project_reach = (
        "reads .pi/ (commands, MCP servers, hooks) only when started in the project's top folder "
        "(.agents/skills from any folder below), and nothing of the project until you trust "
        "it"
    )
    enforces_tools = True
    tool_names = TOOL_NAMES
    tool_vocabulary = "pi"
    command_syntax = "pi"

    def commands_dir(self) -> Path:
        return self.root() / "prompts"

    def command_refusal(self, name: str) -> str | None:
        if ":" not in name:
            return None
        return "pi reads no subfolders of prompts/ (the command is in a subfolder)"

    def translate_command(self, body: str) -> Translation:
        """Words counted from 1, and `$@`, `${@...}` of pi's own refused."""
        refused = placeholders.active(body, ACTIVE) or placeholders.amount(body)
        if refused is not None:
            return refused
        every, positional = placeholders.used(body)
        text = placeholders.counted_from_one(body)
        if not every and not positional:
            # Claude Code adds the arguments typed after a command that has no placeholder;
            # pi would drop them
            text = text.rstrip("\r\n") + "\n\nARGUMENTS: $ARGUMENTS\n"
        return Translation(text, f"give {placeholders.MISSING}" if positional else "")

    env_fields = frozenset({"env", "headers"})
    bare_fields = frozenset({"env", "headers"})  # a bare `$NAME` too, where it is set
    env_proof = "pi 1.6.0 expands ${VAR} only in env and headers, and no ${VAR:-default}"

    def mcp_place(self) -> McpPlace:
        # strict JSON: pi refuses a comment or a trailing comma in it
        return McpPlace(self.root() / "mcp.json", "json", ("mcpServers",))

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        if server.transport == "sse":
            return Verdict(True, "pi runs stdio and streamable HTTP servers, not SSE")
        return remote_entry(server) if server.transport == "http" else stdio_entry(server)

    def prompt_file(self, agent_name: str) -> Path:
        return self.root() / "skilltool" / f"{agent_name}.md"

    def wrapper(self, agent_name: str) -> Path:
        return self.root() / "skilltool" / agent_name

    def refusal(self, agent: Agent) -> str | None:
        if self.home.kind == "project":
            return (
                "pi has no agent files: skilltool's pi agents are launch scripts that name "
                "their prompt by this checkout's path; install them in the home (--user)"
            )
        return None

    def render(self, agent: Agent) -> list[Rendering]:
        prompt = self.prompt_file(agent.name)
        tools = pi_tools(agent)
        # none of its tools has a pi name: no tools, rather than pi's default set
        tool_args = ["--tools", ",".join(tools)] if tools else ["--no-tools"] if agent.tools else []
        wrapper = self.template("wrapper.sh.j2", agent, prompt=str(prompt), tool_args=tool_args)
        return [
            Rendering(prompt, self.template("prompt.md.j2", agent)),
            Rendering(self.wrapper(agent.name), wrapper, mode=0o755),
        ]

    def tools_enforced(self, agent: Agent) -> bool:
        return True  # --tools or --no-tools: never more than the agent's list

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        if skill.repaired:
            return Verdict(True, "frontmatter is not valid YAML")
        declared = skill.declared
        if declared is not None and not is_safe_name(declared):
            return named(skill, extra=", with a warning") or Verdict(
                False, "warn that its name breaks the Agent Skills rules"
            )
        if len(skill.description) > SKILL_DESCRIPTION_LIMIT:
            return Verdict(False, "warn that its description is too long")
        if skill.fields.get("disable-model-invocation") is True:
            return Verdict(False, "offer it as a command only")
        return named(skill)

    # hooks: no command hooks of its own; a generated extension per plugin runs them from its
    # events (proven in tests/conformance/test_hooks_pi.py)
    hook_events: ClassVar[Mapping[str, str] | None] = same_names(
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "SessionStart",
        "SessionEnd",
        "Stop",
        "PreCompact",
    )

    # a project's `.pi/extensions/`, loaded in its top folder once trusted (proven in
    # tests/conformance/test_project_hooks.py)
    project_hooks = True

    def render_hooks(self, plugin: Plugin, hooks: Sequence[Hook]) -> list[Rendering]:
        target = self.root() / "extensions" / f"{plugin.name}.hooks.ts"
        return [Rendering(target, self.hooks_script("pi/hooks.ts.j2", plugin, hooks, target))]

    def hook_files(self) -> list[Path]:
        return files_under(self.root() / "extensions", "*.hooks.ts")

    def probes(self) -> list[Probe]:
        """`pi --mode rpc`, asked `get_commands` on stdin: every skill it loaded is a command
        `skill:NAME` with the path it was read from; offline, no session, and it ends when
        stdin does. Its agents are wrappers, not listed."""
        argv = ("pi", "--mode", "rpc", "--offline", "--no-session")
        return [Probe(argv, pi_skills, input='{"type": "get_commands"}\n')]

    def owned_places(self) -> list[Path]:
        directory = self.root() / "skilltool"
        # every file: a wrapper is named by the agent, which may hold a dot ('my.agent');
        # one without skilltool's marker is never touched
        return ending_with(directory)

    def launch(self, agent: Agent) -> Launch:
        import shlex  # for `launch` only: not imported on every run

        wrapper = str(self.wrapper(agent.name))
        return Launch(
            ["pi-acp"], {"PI_ACP_PI_COMMAND": wrapper}, [f"in a terminal: {shlex.quote(wrapper)}"]
        )
