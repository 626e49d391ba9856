"""Copilot CLI: ~/.copilot/agents/<name>.agent.md; `skills` must be a YAML list, or the
agent silently disappears."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

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
    moved_root,
    named,
    remote_entry,
    skills_by_folder,
    stdio_entry,
)
from skilltool.hook_places import files_under, same_names
from skilltool.model import Agent, Hook, McpPlace, McpServer, Plugin, Problem, Rendering, Skill
from skilltool.parse import SKILL_DESCRIPTION_LIMIT
from skilltool.paths import Scope

if TYPE_CHECKING:
    from skilltool.folders import FolderItems, Ours


def copilot_skills(stdout: str, stderr: str) -> Listing:
    import json

    try:
        found = json.loads(stdout)
    except ValueError:
        return Listing(errors=(f"not the JSON list it prints: {stdout[:120]!r}",))
    paths = [str(s.get("path", "")) for s in found if isinstance(s, dict)]
    return Listing(skills=skills_by_folder(p for p in paths if p))


def copilot_agents(stdout: str, stderr: str) -> Listing:
    named = re.search(r"No such agent: \S+, available: (.*)$", stderr, re.M)
    if named is None:
        return Listing(errors=(f"no list of agents: {(stderr or stdout)[-160:]!r}",))
    return Listing(agents={name.strip(): () for name in named.group(1).split(",") if name.strip()})


class Copilot(Harness):
    name = "copilot"
    title = "Copilot CLI"
    precedence: ClassVar[Mapping[str, str]] = {"skill": "project", "agent": "home"}
    project_reach = (
        "starts a project's MCP servers and runs its hooks only once you trust the folder"
    )
    no_commands = (
        "Copilot CLI has no user command folder (it loads commands only with --plugin-dir)"
    )
    enforces_tools = True  # Copilot maps Claude tool names and drops the ones it lacks
    # the `agent_type` values of its `task` tool in a clean home; a custom agent of one of
    # these names is listed twice (explore) or not at all (general-purpose)
    builtin_agents = frozenset(
        {"explore", "task", "general-purpose", "code-review", "research", "security-review"}
    )
    builtin_version = "1.0.102"

    @classmethod
    def read_folder(cls, folder: Path, ours: Ours, reader: Any) -> FolderItems:
        """A team's `.github/`: its agents (`agents/<name>.agent.md` or `<name>.md`, Claude
        Code's format but for the file name), its skills, and its hook files
        (`hooks/*.json`) written in Claude Code's format."""
        from skilltool import folders

        problems: list[Problem] = []
        skills = folders.skills(folder / "skills", ours, reader, problems)
        files = folders.markdown_files(folder / "agents", ours)
        agents = folders.agents(files, reader, problems, _named_by_file)
        hooks, hook_files = folders.dialect_hooks(folder / "hooks", ours, problems)
        return folders.FolderItems(
            tuple(skills), tuple(agents), hooks=tuple(hooks), hook_files=tuple(hook_files),
            problems=tuple(problems),
        )  # fmt: skip

    # 1.0.102 expands ${VAR} and ${VAR:-default} in all of them (a cwd was not tried)
    env_fields = EXPANDED_FIELDS
    bare_fields = BARE_FIELDS
    env_defaults = True

    def __init__(self, home: Scope) -> None:
        super().__init__(home)
        if home.kind == "project":
            self.mcp_unsupported = (
                "in a project Copilot CLI reads .mcp.json, Claude Code's file, before "
                ".github/mcp.json (either only in a trusted folder); skilltool writes neither "
                "for it, but where the project names claude too, Copilot CLI starts the "
                "servers skilltool writes there for Claude Code"
            )

    def mcp_place(self) -> McpPlace | None:
        if self.home.kind == "project":
            return None
        return McpPlace(self.root() / "mcp-config.json", "jsonc", ("mcpServers",))

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        # `tools: ["*"]` as `copilot mcp add` writes it: every tool of the server
        if server.transport != "stdio":
            return remote_entry(server, tools=["*"], type=server.transport)
        return stdio_entry(server, tools=["*"], type="local")

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        if skill.repaired:
            return Verdict(True, "frontmatter is not valid YAML")
        if len(skill.description) > SKILL_DESCRIPTION_LIMIT:
            return Verdict(True, f"description over {SKILL_DESCRIPTION_LIMIT} characters")
        if not isinstance(skill.fields.get("argument-hint", ""), str):
            return Verdict(True, "argument-hint is not a string")
        fields = skill.fields
        if fields.get("disable-model-invocation") is True and fields.get("user-invocable") is False:
            return Verdict(False, "list it but do not offer it to the model")
        declared = skill.declared
        # it turns the blanks of a name into hyphens
        return named(skill, repr(declared.replace(" ", "-")) if declared else None)

    def render(self, agent: Agent) -> list[Rendering]:
        # a list: Copilot would split a string inside `Agent(a, b)` at its comma
        content = self.template(
            "agent.md.j2", agent, tools=list(agent.tools), model=self.model(agent)
        )
        return [Rendering(self.root() / "agents" / f"{agent.name}.agent.md", content)]

    # hooks: Claude Code's own file, as it is, one per plugin in ~/.copilot/hooks/ (proven in
    # tests/conformance/test_hooks_copilot.py)
    hook_events: ClassVar[Mapping[str, str] | None] = same_names(
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "SessionStart",
        "SessionEnd",
        "Stop",
        "SubagentStop",
        "Notification",
        "PreCompact",
    )

    # in a project, `.github/hooks/`: run from any folder below the git root once the folder
    # is trusted (proven in tests/conformance/test_project_hooks.py)
    project_hooks = True

    def plugin_reach(self, plugin: Plugin) -> str:
        from skilltool.hook_format import reach, relative

        # the folder of the hooks file, which Copilot CLI gives each hook as COPILOT_HOOK_DIR
        return reach("COPILOT_HOOK_DIR", relative(plugin.root, self.root() / "hooks"))

    def plugin_hooks_refusal(self, plugin: Plugin) -> str | None:
        if plugin.folder_of == "claude":  # the team's `.claude/`: its settings.json's hooks
            # seen: it runs them beside its own, so a copy would run each twice
            return "Copilot CLI runs the hooks of .claude/settings.json itself"
        return None

    def render_hooks(self, plugin: Plugin, hooks: Sequence[Hook]) -> list[Rendering]:
        from skilltool.hook_format import claude_object, json_file

        target = self.root() / "hooks" / f"{plugin.name}.json"
        carried = claude_object(plugin, hooks, command=lambda c: self.hook_command(plugin, c))
        return [Rendering(target, json_file({"hooks": carried}, self.home.stored(plugin.hooks[0])))]

    def hook_files(self) -> list[Path]:
        return files_under(self.root() / "hooks", "*.json")

    def hook_plugin(self, path: Path) -> str:
        return path.stem

    def own_skills_dir(self) -> Path | None:
        """COPILOT_HOME moved: Copilot CLI then reads personal skills only from its skills
        folder there, not from ~/.agents/skills (proven): the skills are linked there."""
        return self.root() / "skills" if moved_root(self.name, self.home)[1] else None

    def probes(self) -> list[Probe]:
        """`copilot skill list --json` (each skill's `path`), and the agents it offers, as
        it names them when asked for one it has not; a provider on a dead loopback port."""
        env = {
            "COPILOT_PROVIDER_BASE_URL": "http://127.0.0.1:9/v1",
            "COPILOT_PROVIDER_API_KEY": "doctor",
            "COPILOT_MODEL": "gpt-4.1",
            "COPILOT_OFFLINE": "true",
        }
        return [
            Probe(("copilot", "skill", "list", "--json"), copilot_skills, env),
            Probe(("copilot", "--agent", "skilltool-doctor-none", "-p", "x"), copilot_agents, env),
        ]

    def owned_places(self) -> list[Path]:
        return ending_with(self.root() / "agents", ".agent.md")

    def launch(self, agent: Agent) -> Launch:
        return Launch(
            ["copilot", "--acp"],
            {},
            [
                f'select the agent: session/set_config_option agent = "{agent.name}" '
                "(the --agent flag is ignored under --acp)",
                f"in a terminal: copilot --agent {agent.name}",
            ],
            choose=True,
        )


def _named_by_file(agent: Agent) -> Agent:
    """`<name>.agent.md` is the agent `<name>` to Copilot CLI (a frontmatter name wins)."""
    if "name" in agent.fields or not agent.name.endswith(".agent"):
        return agent
    return agent._replace(name=agent.name.removesuffix(".agent"))
