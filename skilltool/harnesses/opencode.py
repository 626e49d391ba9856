"""OpenCode: a V1 agent file, `mode: subagent`, no `tools` key (a Claude tools string breaks it).

A subagent stays out of the primary-agent cycle (Tab), which hundreds of plugin agents would
flood; `launch` makes it primary for that one run, where `default_agent` needs a primary one."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from skilltool import placeholders
from skilltool.fs import ending_with
from skilltool.harnesses import (
    Harness,
    Launch,
    Listing,
    McpValue,
    Probe,
    Verdict,
    named_or_skipped,
    remote_entry,
    skills_by_folder,
)
from skilltool.hook_places import files_under, same_names
from skilltool.model import (
    Agent,
    Hook,
    LspServer,
    McpPlace,
    McpServer,
    Plugin,
    Problem,
    Rendering,
    Skill,
    env_references,
)
from skilltool.placeholders import Translation

if TYPE_CHECKING:
    from skilltool.folders import FolderItems, Ours

PROVIDER_MODEL = r"[A-Za-z0-9._-]+/[A-Za-z0-9._:@/+-]+"  # compiled on first use


class OpenCodeFamily(Harness):
    """What OpenCode and the harnesses built from it (Kilo) share: commands and MCP servers."""

    command_syntax = "opencode"
    provider_model: ClassVar[str] = PROVIDER_MODEL
    config_names: ClassVar[tuple[str, str]] = ("opencode.json", "opencode.jsonc")
    config_default: ClassVar[str] = "opencode.json"

    def commands_dir(self) -> Path:
        return self.root() / "command"  # it reads `commands/` too: a rival (command_rivals)

    # `lsp` of its config (1.18.33, Kilo 7.7.7): it starts the server for a file of one of
    # its `extensions` (tests/conformance/test_lsp.py)
    def lsp_place(self) -> McpPlace:
        return McpPlace(self.config_file(), "jsonc", ("lsp",))

    def lsp_value(self, server: LspServer) -> McpValue:
        # `${VAR}` as `{env:VAR}`, which OpenCode puts in wherever its config holds it
        value: McpValue = {
            "command": [_env_form(server.command), *map(_env_form, server.args)],
            "extensions": sorted(server.extensions),
        }
        if server.env:
            value["env"] = {k: _env_form(v) for k, v in server.env.items()}
        if "initializationOptions" in server.options:
            value["initialization"] = server.options["initializationOptions"]
        return value

    def command_note(self, name: str) -> str | None:
        return f"name it /{name.replace(':', '/')}" if ":" in name else None

    def command_rivals(self, name: str) -> list[Path]:
        *folders, last = name.split(":")
        return [self.root().joinpath("commands", *folders, f"{last}.md")]

    def translate_command(self, body: str) -> Translation:
        """Words counted from 1; the last positional placeholder takes the rest of them."""
        refused = placeholders.amount(body)
        if refused is not None:
            return refused
        _, positional = placeholders.used(body)
        text = placeholders.counted_from_one(body)
        if not positional:
            return Translation(text)
        last = max(positional.values()) + 1
        return Translation(
            text,
            f"give its last positional placeholder (${last} there) the rest of the arguments "
            f"and {placeholders.MISSING}",
        )

    def mcp_place(self) -> McpPlace:
        return McpPlace(self.config_file(), "jsonc", ("mcp",))

    def config_file(self) -> Path:
        """The `.json` or the `.jsonc` config, whichever is there (both take comments)."""
        for name in self.config_names:
            if os.path.lexists(self.root() / name):
                return self.root() / name
        return self.root() / self.config_default

    def mcp_refusal(self, server: McpServer) -> Verdict | None:
        return opencode_refusal(server, self.title)

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        return opencode_entry(server, self.title)

    def accepts_model(self, model: str) -> bool:
        return re.fullmatch(self.provider_model, model) is not None

    # hooks: no command hooks of its own; a generated plugin per plugin runs them from its
    # plugin events (proven in tests/conformance/test_hooks_opencode.py)
    hook_events: ClassVar[Mapping[str, str] | None] = same_names(
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "SessionStart",
        "Stop",
        "PreCompact",
    )

    # a project's `.opencode/plugins/` (`.kilo/plugins/`), loaded from any folder below the
    # git root with no question asked (proven in tests/conformance/test_project_hooks.py)
    project_hooks = True

    def render_hooks(self, plugin: Plugin, hooks: Sequence[Hook]) -> list[Rendering]:
        target = self.root() / "plugins" / f"{plugin.name}.hooks.js"
        return [Rendering(target, self.hooks_script("opencode/hooks.js.j2", plugin, hooks, target))]

    def hook_files(self) -> list[Path]:
        return files_under(self.root() / "plugins", "*.hooks.js")

    def probes(self) -> list[Probe]:
        """Its own listings, each into a file: the binary exits before a pipe is drained
        (OpenCode 1.18 and Kilo 7.7 cut a long listing at the pipe's buffer). Its agents are
        those of the configuration it resolved, where each agent file is merged (`agent
        list` names the same ones, at twice the time)."""
        binary = self.binary or self.name
        return [
            Probe((binary, "debug", "skill"), listed_skills, into_file=True),
            Probe((binary, "debug", "config"), configured_agents, into_file=True),
        ]


def listed_skills(stdout: str, stderr: str) -> Listing:
    """`<binary> debug skill`: a JSON list of skills, each with the `location` it was read
    from (`<built-in>` for the harness's own)."""
    import json

    try:
        found = json.loads(stdout)
    except ValueError:
        return Listing(errors=(f"not the JSON list it prints: {stdout[:120]!r}",))
    locations = [
        s["location"] for s in found if isinstance(s, dict) and "/" in str(s.get("location", ""))
    ]
    return Listing(skills=skills_by_folder(locations))


def configured_agents(stdout: str, stderr: str) -> Listing:
    """`<binary> debug config`: the resolved configuration, its `agent` table holding every
    agent of the user's and skilltool's files (the built-in ones are not in it)."""
    import json

    try:
        found = json.loads(stdout)
        agents = found["agent"] if isinstance(found, dict) else None
    except (ValueError, KeyError):
        agents = {} if stdout.lstrip().startswith("{") else None
    if not isinstance(agents, dict):
        said = (stderr.strip() or stdout.strip())[-160:]
        return Listing(errors=(f"its configuration could not be read: {said!r}",))
    return Listing(agents={name: () for name in agents})


class OpenCode(OpenCodeFamily):
    name = "opencode"
    title = "OpenCode"
    # a skill named in both: the project's in most runs of test_project_opencode.py, not in
    # every run of the whole suite; the project's agent wins always
    precedence: ClassVar[Mapping[str, str]] = {"skill": "either", "agent": "project"}
    # `opencode agent list` in a clean home
    builtin_agents = frozenset(
        {"build", "compaction", "explore", "general", "plan", "summary", "title"}
    )
    builtin_version = "1.18.33"

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        return named_or_skipped(
            skill
        )  # it repairs frontmatter as Claude Code does, and loads the rest

    def target(self, agent_name: str) -> Path:
        return self.root() / "agent" / f"{agent_name}.md"

    @classmethod
    def read_folder(cls, folder: Path, ours: Ours, reader: Any) -> FolderItems:
        """A team's `.opencode/`: its agents (`agent/` or `agents/`: `mode`, `temperature`,
        a `tools` map, the body the prompt), its commands, its skills, and the MCP servers
        of its `opencode.json(c)`."""
        from skilltool import folders

        problems: list[Problem] = []
        skills = [
            s
            for place in ("skill", "skills")
            for s in folders.skills(folder / place, ours, reader, problems)
        ]
        files = [f for p in ("agent", "agents") for f in folders.markdown_files(folder / p, ours)]
        agents = folders.read_native(
            files, lambda p: folders.native_agent(p, "opencode", _from_opencode), problems
        )
        commands = [
            c for p in ("command", "commands") for c in folders.commands(folder / p, ours, problems)
        ]
        servers = []
        for config in cls.config_names:
            servers += folders.config_servers(
                folder / config, ("mcp",), ours, problems, convert=_server_from_opencode
            )
        return folders.FolderItems(
            tuple(skills), tuple(agents), tuple(commands), tuple(servers), problems=tuple(problems)
        )

    def render(self, agent: Agent) -> list[Rendering]:
        content = self.template("agent.md.j2", agent, model=self.model(agent))
        return [Rendering(self.target(agent.name), content)]

    def owned_places(self) -> list[Path]:
        return ending_with(self.root() / "agent", ".md")

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


def opencode_refusal(server: McpServer, title: str) -> Verdict | None:
    """A `${VAR:-default}` has no OpenCode form; a plain `${VAR}` becomes `{env:VAR}`."""
    found = [ref for ref in env_references(server) if ":-" in ref]
    if not found:
        return None
    return Verdict(
        True,
        f"its values hold {', '.join(found)}: {title} expands {{env:VAR}}, with no default; "
        "write the value, or a plain ${VAR}, in the plugin's server",
    )


def opencode_entry(server: McpServer, title: str) -> McpValue | Verdict:
    """`{type: local, command: [...], environment}` or `{type: remote, url, headers}`
    (OpenCode's shape, which Kilo keeps), `${VAR}` written as its `{env:VAR}`."""
    server = server._replace(
        command=_env_form(server.command) if server.command is not None else None,
        args=tuple(_env_form(a) for a in server.args),
        env={k: _env_form(v) for k, v in server.env.items()},
        url=_env_form(server.url) if server.url is not None else None,
        headers={k: _env_form(v) for k, v in server.headers.items()},
    )
    if server.transport != "stdio":
        return remote_entry(server, type="remote")  # it tries streamable HTTP, then SSE
    if server.cwd is not None:
        return Verdict(True, f"{title} has no working directory for a server (its 'cwd')")
    value: McpValue = {"type": "local", "command": [server.command, *server.args]}
    if server.env:
        value["environment"] = dict(server.env)
    return value


def _env_form(text: str) -> str:
    # `${HOME}` stays literal in OpenCode 1.18.33 and Kilo 7.7.7; `{env:HOME}` is expanded
    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", r"{env:\1}", text)


# OpenCode's built-in tools by Claude Code's names
CLAUDE_TOOLS = {
    "Bash": "bash",
    "Edit": "edit",
    "Write": "write",
    "Read": "read",
    "Grep": "grep",
    "Glob": "glob",
    "LS": "list",
    "WebFetch": "webfetch",
    "TodoWrite": "todowrite",
    "Task": "task",
    "Skill": "skill",
}


def _from_opencode(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """An OpenCode agent's frontmatter as Claude Code's (name, description; a `tools` map's
    `false` tools as `disallowedTools`), and its own keys (mode, model, temperature, ...)."""
    from skilltool.folders import claude_tools

    shared: dict[str, Any] = {k: data[k] for k in ("name", "description", "color") if k in data}
    # `mode` says where OpenCode offers the agent: nothing another harness lacks
    native = {
        k: v for k, v in data.items() if k not in ("name", "description", "color", "tools", "mode")
    }
    tools = data.get("tools")
    if isinstance(tools, dict):
        denied = [k for k, v in tools.items() if isinstance(k, str) and v is False]
        known, unknown = claude_tools(denied, CLAUDE_TOOLS)
        if known:
            shared["disallowedTools"] = known
        rest = {k: v for k, v in tools.items() if k in unknown or v is not False}
        if rest:
            native["tools"] = rest
    return shared, native


def _server_from_opencode(value: Any) -> Any:
    """A server of OpenCode's `mcp` in Claude Code's shape: `local` a command (its first word)
    with its arguments and `environment`, `remote` a URL with its headers."""
    if not isinstance(value, dict):
        return value
    if value.get("type") == "local" and isinstance(value.get("command"), list):
        command = [str(c) for c in value["command"]]
        server: dict[str, Any] = {"command": command[0], "args": command[1:]} if command else {}
        if isinstance(value.get("environment"), dict):
            server["env"] = value["environment"]
        return server
    if value.get("type") == "remote" and isinstance(value.get("url"), str):
        server = {"type": "http", "url": value["url"]}
        if isinstance(value.get("headers"), dict):
            server["headers"] = value["headers"]
        return server
    return value
