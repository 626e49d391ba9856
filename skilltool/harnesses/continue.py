"""Continue CLI (`cn`): each MCP server an item of the `mcpServers` list of
~/.continue/config.yaml (`- name: …`), the file the user and `cn` edit too: skilltool owns
the items it wrote, by its ledger, and every other byte stays.

`cn` 1.5.47 reads skills from ~/.continue/skills (not ~/.agents/skills) and passes over a
skill folder that is a link: each skill is a copy there, skilltool's by its marker file and
digest (copies.py), in the home only. Its commands are `prompts` of config.yaml, which it
expands only in its interactive session; its subagents are models of config.yaml; neither is
carried (docs/harnesses.md says why)."""

from __future__ import annotations

from pathlib import Path

from skilltool.errors import SkilltoolError
from skilltool.harnesses import Harness, Launch, McpValue, Verdict, named
from skilltool.model import Agent, McpPlace, McpServer, Rendering, Skill
from skilltool.paths import Scope

VERSION = "1.5.47"


class Continue(Harness):
    name = "continue"
    title = "Continue CLI"
    binary = "cn"
    proven_version = VERSION
    no_commands = (
        f"Continue CLI {VERSION} reads commands only as prompts of config.yaml and expands "
        "them only in its interactive session ('cn -p' sends '/name' as typed), which no "
        "offline run proves: skilltool does not write them"
    )
    no_hooks = (
        f"Continue CLI {VERSION} runs hooks from lists under each event of settings.json in "
        "~/.continue and ~/.claude, with no name an entry of skilltool's could be kept by, "
        "and no offline run of it proves one fires: skilltool writes none for it"
    )

    def __init__(self, home: Scope) -> None:
        super().__init__(home)
        if home.kind == "project":
            self.mcp_unsupported = (
                f"Continue CLI {VERSION} reads MCP servers only from the home's "
                "~/.continue/config.yaml; install the plugin in the home to have its servers"
            )
        elif self.made_none():
            self.mcp_unsupported = (
                f"Continue CLI {VERSION} reads MCP servers from "
                f"{home.show(self.root() / 'config.yaml')}, which does not exist; skilltool "
                "makes none (one there takes the place of the hub's default assistant): "
                "write it (name, version, schema: v1, your model), then install again"
            )

    def made_none(self) -> bool:
        """~/.continue is there but not its config.yaml: `cn` then loads the hub's default
        assistant, which a config.yaml of skilltool's making would take the place of."""
        return self.root().is_dir() and not (self.root() / "config.yaml").is_file()

    def mcp_place(self) -> McpPlace | None:
        if self.home.kind == "project" or self.made_none():
            return None
        return McpPlace(self.root() / "config.yaml", "yaml-list", ("mcpServers",))

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        if server.transport != "stdio":
            why = f"Continue CLI {VERSION} is not proven to reach a remote server"
            return Verdict(True, why)
        if server.cwd is not None:
            why = f"Continue CLI {VERSION} is not proven to start a server in its cwd"
            return Verdict(True, why)
        value: McpValue = {"command": server.command, "args": list(server.args)}
        if server.env:
            value["env"] = dict(server.env)
        return value

    # it passes over a skill folder that is a link: ~/.continue/skills gets copies
    copies_skills = True
    no_project_skills = (
        f"Continue CLI {VERSION} reads a project's skills from .continue/skills, where "
        "skilltool writes none: install the plugin in the home to have its skills"
    )
    no_agents = (
        f"Continue CLI {VERSION} takes a subagent only as a model of config.yaml, offered "
        "behind --beta-subagent-tool, which skilltool does not write"
    )

    def own_skills_dir(self) -> Path | None:
        """~/.continue/skills (or $CONTINUE_GLOBAL_DIR/skills), not ~/.agents/skills."""
        return self.root() / "skills" if self.home.kind == "home" else None

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        if self.home.kind == "project":
            return Verdict(True, self.no_project_skills)
        if skill.repaired:  # its YAML parser refuses it: the skill is not listed
            return Verdict(True, "frontmatter is not valid YAML")
        if skill.declared is None:
            return Verdict(True, "no name")
        return named(skill)

    def refusal(self, agent: Agent) -> str | None:
        return self.no_agents

    def render(self, agent: Agent) -> list[Rendering]:
        return []

    def owned_places(self) -> list[Path]:
        return []

    not_probed = f"Continue CLI {VERSION} shows its skills and MCP tools only in its requests"

    def launch(self, agent: Agent) -> Launch:
        raise SkilltoolError(
            f"Continue CLI {VERSION} cannot start as an agent over ACP: cn has no ACP server, "
            "and takes no agent of skilltool's; in a terminal: cn"
        )
