"""Claude Code: the agent in its own format, and each skill also linked into
~/.claude/skills, since Claude Code does not read ~/.agents/skills."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from skilltool import markers
from skilltool.fs import ending_with
from skilltool.harnesses import (
    CLAUDE_ALIASES,
    CLAUDE_LONG_CONTEXT,
    Harness,
    Launch,
    Listing,
    McpValue,
    Probe,
    Verdict,
    json_line,
    remote_entry,
    stdio_entry,
)
from skilltool.hook_places import hooks_folder_files, hooks_folder_plugin
from skilltool.model import Agent, Hook, McpPlace, McpServer, Plugin, Problem, Rendering

if TYPE_CHECKING:
    from skilltool.folders import FolderItems, Ours

# the folder of the plugin skilltool generates in ~/.claude/skills for a plugin's MCP servers:
# a '.' no skill name has, so it never takes the place of a skill's link
MCP_FOLDER = "{plugin}.mcp"
MANIFEST = ".claude-plugin/plugin.json"  # of it, and of the one for its hooks (hook_format)
# keys the template writes itself, and skilltool's own, which Claude Code would warn about
WRITTEN = frozenset({"name", "description", "tools", "skills", "model", "harnesses"})


def other_keys(fields: Mapping[str, Any]) -> str:
    """Every other key of the source frontmatter with its value, as YAML lines."""
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    rest = {k: v for k, v in fields.items() if k not in WRITTEN}
    if not rest:
        return ""
    text: str = yaml.dump(
        rest,
        Dumper=dumper,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=False,
        width=1 << 30,
    )
    return text


def claude_init(stdout: str, stderr: str) -> Listing:
    event = json_line(stdout, "subtype", "init")
    if event is None:
        return Listing(errors=(f"no init event: {(stderr or stdout)[-160:]!r}",))
    agents = {str(name): () for name in event.get("agents", [])}
    return Listing({str(name): () for name in event.get("skills", [])}, agents)


class Claude(Harness):
    """Claude Code reads the agent's own format: every key of the source is kept."""

    name = "claude"
    title = "Claude Code"
    precedence: ClassVar[Mapping[str, str]] = {"skill": "home", "agent": "project"}
    project_reach = (
        "asks before it starts each server of .mcp.json in an interactive session ('claude "
        "-p' starts them unasked); runs the hooks of .claude/skills/ only when started in the "
        "project's top folder, once you accepted its folder trust dialog there"
    )
    enforces_tools = True
    # the init event's `agents` in a clean home; names are case-sensitive ('explore' is not one)
    builtin_agents = frozenset({"claude", "Explore", "general-purpose", "Plan", "statusline-setup"})
    builtin_version = "2.1.332"
    command_syntax = "claude"

    def commands_dir(self) -> Path:
        return self.root() / "commands"

    @classmethod
    def read_folder(cls, folder: Path, ours: Ours, reader: Any) -> FolderItems:
        """A team's `.claude/`: its skills, agents and commands (subfolders as `sub:name`) in
        Claude Code's own format, the repository's `.mcp.json`, and the hooks of
        `.claude/settings.json`."""
        from skilltool import folders

        problems: list[Problem] = []
        skills = folders.skills(folder / "skills", ours, reader, problems)
        agents = folders.agents(folders.markdown_files(folder / "agents", ours), reader, problems)
        commands = folders.commands(folder / "commands", ours, problems)
        mcp = ours.project / ".mcp.json"
        servers = folders.config_servers(mcp, ("mcpServers",), ours, problems)
        hooks, files = folders.json_hooks(folder / "settings.json", problems)
        return folders.FolderItems(
            tuple(skills), tuple(agents), tuple(commands), tuple(servers), tuple(hooks),
            tuple(files), tuple(problems),
        )  # fmt: skip

    # MCP servers: ~/.claude.json, Claude Code's user list, is also the app's state, which
    # every claude run rewrites; a plugin folder in ~/.claude/skills is loaded by Claude Code
    # itself (as `<plugin>@skills-dir`, no install step, no settings entry), so skilltool
    # generates one per plugin holding only its `.mcp.json`: nothing else of it runs
    def takes_mcp(self) -> bool:
        return True

    def mcp_place_of(self, plugin: Plugin) -> McpPlace:
        if self.home.kind == "project":
            return self.project_mcp()
        return self._mcp_place_named(plugin.name)

    def project_mcp(self) -> McpPlace:
        """In a project, the `.mcp.json` at its top, which Claude Code reads from any folder
        below (and asks before it starts a server of it: skilltool never answers for the
        user, and writes no setting that approves one)."""
        return McpPlace(self.home.path / ".mcp.json", "json", ("mcpServers",))

    def _mcp_place_named(self, plugin: str) -> McpPlace:
        folder = self.own_skills_dir() / MCP_FOLDER.format(plugin=plugin)
        return McpPlace(folder / ".mcp.json", "json", ("mcpServers",))

    def mcp_file(self, place: McpPlace) -> bool:
        if self.home.kind == "project":
            return place == self.project_mcp()
        # the generated plugin of any plugin, one on the path or one gone since
        plugin = place.path.parent.name.removesuffix(MCP_FOLDER.format(plugin=""))
        if plugin in ("", ".", "..") or "/" in plugin:
            return False
        return place == self._mcp_place_named(plugin)

    def mcp_manifest(self, config: Path) -> Path | None:
        if self.home.kind == "project":
            return None  # the project's own .mcp.json: no plugin around it
        return config.parent / ".claude-plugin" / "plugin.json"

    def mcp_manifest_content(self, plugin: Plugin) -> bytes:
        import json

        # named as the plugin, so its tools are `mcp__plugin_<plugin>_<server>__*` as its
        # agents name them; the marker is the description, a key Claude Code knows

        name = json.dumps(plugin.name, ensure_ascii=False)
        text = f'{{\n  "name": {name},\n  "description": "{markers.SLOT}"\n}}\n'
        return markers.stamp(text, self.home.stored(plugin.root), escape=True)

    def mcp_refusal(self, server: McpServer) -> Verdict | None:
        return None  # Claude Code expands ${VAR} and ${VAR:-default} itself, as in the plugin

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        if server.transport == "stdio":
            return stdio_entry(server)
        return remote_entry(server, type=server.transport)

    def own_skills_dir(self) -> Path:
        return self.root() / "skills"

    def plugin_only_note(self, plugin: Plugin) -> str | None:
        if not plugin.claude_only:
            return None
        parts = ", ".join(plugin.claude_only)
        return (
            f"plugin {plugin.name}'s {parts}: Claude Code takes them only from a plugin it loads "
            "itself, and skilltool carries them nowhere; for them, start Claude Code with "
            f"--plugin-dir {self.home.show(plugin.root)}, or install the plugin with "
            "'claude plugin install'"
        )

    # hooks: like the MCP servers, a plugin folder in ~/.claude/skills that Claude Code loads
    # itself, holding only the hooks (proven in tests/conformance/test_hooks_claude.py); every
    # event as it is
    hooks_in_folders = True
    hook_events: ClassVar[Mapping[str, str] | None] = None
    # in a project, the same folder in its `.claude/skills/`: Claude Code loads it only when
    # started in the project's top folder, once its folder trust dialog was accepted there
    # (proven in tests/conformance/test_project_hooks.py); `.claude/settings.json`, where it
    # also reads hooks, is the team's and never written
    project_hooks = True

    def plugin_reach(self, plugin: Plugin) -> str:
        from skilltool.hook_format import reach, relative

        # the project's top folder, the only one it loads the folder in
        return reach("CLAUDE_PROJECT_DIR", relative(plugin.root, self.home.path))

    def render_hooks(self, plugin: Plugin, hooks: Sequence[Hook]) -> list[Rendering]:
        from skilltool.hook_format import claude_object, hooks_folder

        fields = {"name": f"{plugin.name}-hooks"}
        source = self.home.stored(plugin.hooks[0])
        carried = claude_object(plugin, hooks, command=lambda c: self.hook_command(plugin, c))
        return hooks_folder(self.own_skills_dir(), MANIFEST, fields, plugin, carried, source)

    def hook_files(self) -> list[Path]:
        return hooks_folder_files(self.own_skills_dir(), MANIFEST)

    def hook_plugin(self, path: Path) -> str:
        return hooks_folder_plugin(path)

    def accepts_model(self, model: str) -> bool:
        # Claude Code sends any model as it is: render only what it can serve
        base = model.removesuffix("[1m]")
        if base != model:
            return base in CLAUDE_LONG_CONTEXT
        return model in CLAUDE_ALIASES or model.startswith("claude-")

    def render(self, agent: Agent) -> list[Rendering]:
        content = self.template(
            "agent.md.j2",
            agent,
            tools=", ".join(agent.tools),
            model=self.model(agent),
            other=other_keys(agent.fields),
        )
        return [Rendering(self.root() / "agents" / f"{agent.name}.md", content)]

    def probes(self) -> list[Probe]:
        """The `init` event `claude -p --output-format stream-json` prints before it asks a
        model: every agent and skill it loaded, by name. The model is a dead loopback port
        (no retry), so the run ends there, in seconds."""
        env = {
            "ANTHROPIC_API_KEY": "doctor",
            "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
            "CLAUDE_CODE_MAX_RETRIES": "0",
        }
        # and none of the user's MCP servers or hooks is started for the asking
        quiet = ("--strict-mcp-config", "--settings", '{"disableAllHooks": true}')
        argv = ("claude", "-p", *quiet, "--output-format", "stream-json", "--verbose", "hi")
        return [Probe(argv, claude_init, env)]

    def owned_places(self) -> list[Path]:
        return ending_with(self.root() / "agents", ".md")

    def launch(self, agent: Agent) -> Launch:
        return Launch(
            ["claude-agent-acp"],
            {},
            [
                f'select the agent in the session: config option agent = "{agent.name}" '
                f'(or _meta.claudeCode.options.agent = "{agent.name}" in session/new)',
                f"in a terminal: claude --agent {agent.name}",
                "claude-agent-acp comes from the npm package @agentclientprotocol/claude-agent-acp",
            ],
            choose=True,
        )
