"""Gemini CLI: a regular file with only the keys its strict schema allows; a Claude tools
string or a `skills` key would make it reject the whole agent."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from skilltool import placeholders
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
    moved_root,
    named_or_skipped,
    remote_entry,
    skills_by_folder,
    stdio_entry,
    toml_string_table,
)
from skilltool.hook_places import HOOKS_FOLDER, files_under, hooks_folder_files, hooks_folder_plugin
from skilltool.model import (
    Agent,
    Hook,
    McpPlace,
    McpServer,
    Plugin,
    Problem,
    Rendering,
    Skill,
    SlashCommand,
)
from skilltool.placeholders import Translation

if TYPE_CHECKING:
    from skilltool.folders import FolderItems, Ours

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


EXTENSION = "gemini-extension.json"  # the manifest of an extension folder
# Claude Code's hook events -> Gemini CLI's (docs/hooks-harnesses.md); PreCompact has
# PreCompress, which 0.61.0 runs before every model request, and SubagentStop has none
HOOK_EVENTS = {
    "PreToolUse": "BeforeTool",
    "PostToolUse": "AfterTool",
    "UserPromptSubmit": "BeforeAgent",
    "Stop": "AfterAgent",
    "SessionStart": "SessionStart",
    "SessionEnd": "SessionEnd",
    "Notification": "Notification",
}


def milliseconds(seconds: int) -> int:
    """A hook's timeout as Gemini CLI reads it: in milliseconds (Claude Code's, in seconds, would
    end a hook after a few: seen in 0.61.0, 'Hook timed out after 30ms')."""
    return seconds * 1000


def gemini_matcher(hook: Hook) -> str | None:
    """A hook's matcher for Gemini CLI: on a tool event, Claude Code's tool names (`Bash`,
    `Edit|Write`) as a regex of Gemini's own, anchored since Gemini tests it anywhere in the
    name; None when it names a tool Gemini has no name for, or is a regex of another shape.
    On another event (a session's source) it is compared as it is."""
    matcher = hook.matcher
    if matcher in ("", "*") or hook.event not in ("PreToolUse", "PostToolUse"):
        return matcher
    names = [TOOL_NAMES.get(part.strip()) for part in matcher.split("|")]
    if not all(names):
        return None
    return "^(" + "|".join(dict.fromkeys(n for n in names if n)) + ")$"


def _extension_name(manifest: Path) -> str | None:
    """The `name` of an extension's gemini-extension.json, or None."""
    import json

    from skilltool.fs import read_regular

    data = read_regular(manifest)
    try:
        value = json.loads(data) if data is not None else None
    except ValueError:
        return None
    name = value.get("name") if isinstance(value, dict) else None
    return name if isinstance(name, str) else None


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


def gemini_skills(stdout: str, stderr: str) -> Listing:
    locations = re.findall(r"^\s*Location:\s+(\S.*)$", stdout, re.M)
    errors = [line for line in stderr.splitlines() if "Error loading user agent" in line]
    return Listing(skills=skills_by_folder(locations), errors=tuple(errors))


def gemini_agents(request: str, stderr: str) -> Listing:
    """The subagents Gemini CLI's first request names (its system prompt, JSON-encoded)."""
    if not request:
        return Listing(errors=(f"no request reached the model: {stderr[-160:]!r}",))
    text = request.replace("\\n", "\n")
    return Listing(agents={name: () for name in re.findall(r"^- ([\w.-]+) -> ", text, re.M)})


def api_key_no_hooks(root: Path, url: str) -> None:
    """The throwaway copy of ~/.gemini/settings.json: API-key auth (the loopback model's),
    hooks and usage statistics off; the rest of the user's settings as they are."""

    def change(settings: dict[str, Any]) -> None:
        security = settings.get("security")
        settings["security"] = {
            **(security if isinstance(security, dict) else {}),
            "auth": {"selectedType": "gemini-api-key"},
        }
        settings["hooksConfig"] = {"enabled": False}
        settings["privacy"] = {"usageStatisticsEnabled": False}

    change_settings_copy(root / "settings.json", change)


class Gemini(Harness):
    name = "gemini"
    title = "Gemini CLI"
    project_reach = (
        "reads the project only when started in its top folder, and nothing of it until you "
        "trust the folder; each project agent also waits for your acknowledgement, and it "
        "names each new hook of .gemini/settings.json in a warning as it runs it"
    )
    enforces_tools = True
    tool_names = TOOL_NAMES
    tool_vocabulary = "Gemini"
    # the subagents its system prompt lists in a clean home; a user agent of one of these
    # names is ignored ("Duplicate agent name") with a warning on every run
    builtin_agents = frozenset({"codebase_investigator", "cli_help", "generalist"})
    agent_links = False  # a link in ~/.gemini/agents is skipped without a word
    builtin_version = "0.61.0"
    command_syntax = "gemini"
    command_suffix = ".toml"

    def commands_dir(self) -> Path:
        return self.root() / "commands"

    # a Gemini agent's own keys another harness writes: its temperature and turns, in Qwen
    # Code's format (built from Gemini CLI's)
    @classmethod
    def read_folder(cls, folder: Path, ours: Ours, reader: Any) -> FolderItems:
        """A team's `.gemini/`: its agents (Gemini's strict schema, its tool names made Claude
        Code's), its TOML commands (subfolders as `ns:name`, `{{args}}` as `$ARGUMENTS`),
        its skills, and the MCP servers and hooks of `.gemini/settings.json` (its event,
        tool names and milliseconds made Claude Code's)."""
        from skilltool import folders

        problems: list[Problem] = []
        skills = folders.skills(folder / "skills", ours, reader, problems)
        files = folders.markdown_files(folder / "agents", ours)
        agents = folders.read_native(
            files, lambda p: folders.native_agent(p, "gemini", _from_gemini), problems
        )
        commands = _toml_commands(folder / "commands", folder / "commands", "", ours, problems)
        settings = folder / "settings.json"
        servers = folders.config_servers(
            settings, ("mcpServers",), ours, problems, convert=_server_from_gemini
        )
        back = {gemini: claude for claude, gemini in HOOK_EVENTS.items()}
        tools = {gemini: claude for claude, gemini in TOOL_NAMES.items()}
        hooks, files = folders.translated_hooks(
            settings, ours, problems, back, tools, lambda ms: -(-ms // 1000)
        )
        return folders.FolderItems(
            tuple(skills), tuple(agents), tuple(commands), tuple(servers), tuple(hooks),
            tuple(files), tuple(problems),
        )  # fmt: skip

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

    def own_skills_dir(self) -> Path | None:
        """GEMINI_CLI_HOME moves the home Gemini CLI reads `~/.agents/skills` from too (it is
        its `homedir()`): there, the skills are linked into its own folder."""
        return self.root() / "skills" if moved_root(self.name, self.home)[1] else None

    def probes(self) -> list[Probe]:
        """`gemini skills list`: each skill with its `Location:`; an agent it cannot load is
        an `Error loading user agent` line on stderr (it lists no agents). API-key auth to a
        dead loopback port: nothing is asked of a model."""
        env = {"GEMINI_API_KEY": "doctor", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"}
        # its agents: the subagents its first request to a model lists (`- NAME -> …` for a
        # 2.5 model, named so that it asks no model to route the prompt first)
        none = ("--allowed-mcp-server-names", "skilltool-doctor-none")  # no MCP server started
        argv = ("gemini", "-p", "hi", "--skip-trust", "-m", "gemini-2.5-pro", *none)
        asked = {**env, "GOOGLE_GEMINI_BASE_URL": "{model}"}
        return [
            Probe(("gemini", "skills", "list"), gemini_skills, env),
            Probe(argv, gemini_agents, asked, model=True, prepare=api_key_no_hooks),
        ]

    def owned_places(self) -> list[Path]:
        return ending_with(self.root() / "agents", ".md")

    # hooks: Claude Code's format under Gemini's event and tool names, in an extension folder
    # skilltool generates per plugin, loaded with no install step (proven in
    # tests/conformance/test_hooks_gemini.py)
    hooks_in_folders = True
    hook_events: ClassVar[Mapping[str, str] | None] = HOOK_EVENTS

    def hook_loss(self, hook: Hook) -> str | None:
        if hook.event == "PreCompact":
            return "Gemini CLI's PreCompress runs before every model request, not at compaction"
        lost = super().hook_loss(hook)
        if lost is None and gemini_matcher(hook) is None:
            return f"its matcher {hook.matcher!r} names tools Gemini CLI has no name for"
        return lost

    # in a project, entries of its `.gemini/settings.json` (`hooks`): read only when started in
    # the project's top folder, once the folder is trusted (an extension of the project's own
    # `.gemini/extensions/` is not loaded; proven in tests/conformance/test_project_hooks.py)
    project_hooks = True

    def hook_place(self) -> McpPlace | None:
        if self.home.kind != "project":
            return None
        return McpPlace(self.root() / "settings.json", "json-hooks", ("hooks",))

    def hook_entries(self, plugin: Plugin, hooks: Sequence[Hook]) -> list[tuple[str, McpValue]]:
        from skilltool.hook_format import settings_entries

        if self.home.kind != "project":
            return []
        return settings_entries(
            plugin,
            hooks,
            HOOK_EVENTS,
            gemini_matcher,
            lambda c: self.hook_command(plugin, c),
            milliseconds,
        )

    def plugin_reach(self, plugin: Plugin) -> str:
        from skilltool.hook_format import reach, relative

        # the folder it was started in, the project's top folder: the only one it reads there
        return reach("GEMINI_PROJECT_DIR", relative(plugin.root, self.home.path))

    def plugin_hooks_refusal(self, plugin: Plugin) -> str | None:
        if self.home.kind == "project":
            return None  # no extension: entries of the project's settings.json
        name = f"{plugin.name}-hooks"
        if re.fullmatch(r"[A-Za-z0-9-]+", name) is None:
            return f"Gemini CLI refuses the extension name {name!r} (letters, digits, '-')"
        mine = self.root() / "extensions" / HOOKS_FOLDER.format(plugin=plugin.name)
        for manifest in files_under(self.root() / "extensions", f"*/{EXTENSION}"):
            if manifest.parent != mine and _extension_name(manifest) == name:
                shown = self.home.show(manifest)
                return (
                    f"{shown} is an extension named {name!r} too, and Gemini CLI starts with "
                    "none of two of one name: rename that one"
                )
        return None

    def render_hooks(self, plugin: Plugin, hooks: Sequence[Hook]) -> list[Rendering]:
        from skilltool.hook_format import claude_object, hooks_folder

        if self.home.kind == "project":
            return []  # its entries only (hook_entries)
        fields = {"name": f"{plugin.name}-hooks", "version": "1.0.0"}
        source = self.home.stored(plugin.hooks[0])
        carried = claude_object(plugin, hooks, HOOK_EVENTS, gemini_matcher, timeout=milliseconds)
        return hooks_folder(self.root() / "extensions", EXTENSION, fields, plugin, carried, source)

    def hook_files(self) -> list[Path]:
        return hooks_folder_files(self.root() / "extensions", EXTENSION)

    def hook_plugin(self, path: Path) -> str:
        return hooks_folder_plugin(path)

    def launch(self, agent: Agent) -> Launch:
        return self.launch_by_system_prompt(agent, "GEMINI_SYSTEM_MD")


def _from_gemini(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A Gemini agent's frontmatter as Claude Code's (name, description, tools by Claude
    Code's names), and its own keys (model, temperature, turns, its tools with no Claude
    name)."""
    from skilltool.folders import claude_tools

    shared: dict[str, Any] = {k: data[k] for k in ("name", "description") if k in data}
    # `kind` and `display_name` say how Gemini CLI lists the agent: nothing another lacks
    skip = ("name", "description", "tools", "kind", "display_name")
    native = {k: v for k, v in data.items() if k not in skip}
    tools = data.get("tools")
    if isinstance(tools, list):
        known, unknown = claude_tools([t for t in tools if isinstance(t, str)], TOOL_NAMES)
        if known:
            shared["tools"] = known
        if unknown:
            native["tools"] = unknown
    return shared, native


def _server_from_gemini(value: Any) -> Any:
    """A server of Gemini's settings.json in Claude Code's shape: `httpUrl` a streamable
    HTTP server, `url` an SSE one; its own keys (timeout, trust, tool filters) left out."""
    if not isinstance(value, dict):
        return value
    server = {k: v for k, v in value.items() if k in ("command", "args", "env", "cwd", "headers")}
    if isinstance(value.get("httpUrl"), str):
        server.update(type="http", url=value["httpUrl"])
    elif isinstance(value.get("url"), str):
        server.update(type="sse", url=value["url"])
    return server


def _toml_commands(
    place: Path, top: Path, prefix: str, ours: Ours, problems: list[Problem]
) -> list[SlashCommand]:
    """Gemini's commands: `<name>.toml` (`prompt`, `description`), a subfolder's `ns:name`."""
    from skilltool import folders, probe
    from skilltool.paths import load_toml

    found: list[SlashCommand] = []
    for entry in folders.listing(place):
        path = place / entry.name
        if entry.name.startswith("."):
            continue
        if probe.now.isdir(path) and not probe.now.islink(path):
            found += _toml_commands(path, top, f"{prefix}{entry.name}:", ours, problems)
            continue
        if not entry.name.endswith(".toml") or ours.file(path):
            continue
        try:
            table = load_toml(probe.now.read_regular(path) or b"")
        except ValueError as err:
            problems.append(Problem(path, f"not valid TOML ({err}); fix it"))
            continue
        prompt, description = table.get("prompt"), table.get("description", "")
        if not isinstance(prompt, str) or not isinstance(description, str):
            problems.append(Problem(path, "needs a 'prompt' (and a 'description') string"))
            continue
        body = prompt.replace("{{args}}", "$ARGUMENTS")
        if "!{" in body or "@{" in body:
            problems.append(
                Problem(
                    path,
                    "its prompt runs a shell command (!{...}) or reads a file (@{...}) as Gemini "
                    "CLI expands it; the other harnesses are given the text as it is",
                    "prompt",
                    severity="warning",
                )
            )
        name = prefix + entry.name.removesuffix(".toml")
        fields = {"description": description} if description else {}
        found.append(SlashCommand(name, path, description, body, fields=fields))
    return found
