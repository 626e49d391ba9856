"""Mistral Vibe: ~/.vibe/agents/<name>.toml, a mode the user picks (`vibe --agent NAME`), whose
`system_prompt_id` names the prompt skilltool writes beside it in ~/.vibe/prompts."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar

from skilltool.fs import by_parts, ending_with
from skilltool.harnesses import (
    Harness,
    Launch,
    Listing,
    McpValue,
    Probe,
    Verdict,
    named,
    remote_entry,
    skills_by_folder,
    stdio_entry,
    toml_string_table,
)
from skilltool.hook_places import files_under
from skilltool.model import Agent, Hook, McpPlace, McpServer, Plugin, Rendering, Skill
from skilltool.parse import SKILL_DESCRIPTION_LIMIT

# Vibe 3.0.3's own agents (BUILTIN_AGENTS): a file of that name would replace the built-in one
BUILT_IN = frozenset({"ask", "accept-edits", "smart-approve", "auto-approve", "explore", "lean"})
RESERVED = "main"  # Vibe refuses an agent file of this name (kept for hook matching)
SKILL_NAME = r"[a-z0-9]+(?:-[a-z0-9]+)*"  # its SkillMetadata.name, at most 64
SKILL_NAME_LIMIT = 64


# Claude Code's hook events -> Vibe's hook types (docs/hooks-harnesses.md); a matcher of one
# of these tools becomes the entry's `match`, any other is the wrapper's to test
HOOK_EVENTS = {"PreToolUse": "pre_tool", "PostToolUse": "post_tool", "Stop": "post_agent"}
VIBE_TOOLS = {"Bash": "bash", "Read": "read_file", "Write": "write_file", "Edit": "edit"}


def prompt_id(agent: Agent) -> str:
    # Vibe reads `(dir / id).with_suffix(".md")`: an id ending in .md survives a dotted name
    return f"{agent.name}.md"


def use_model(root: Path, url: str) -> None:
    """The throwaway copy of ~/.vibe/config.toml, its active model the one on loopback and no
    MCP server; the rest of the user's settings as they are."""
    import tomlkit

    config = root / "config.toml"
    document = tomlkit.parse(config.read_text(encoding="utf-8") if config.exists() else "")
    document["active_model"] = "skilltool-doctor"
    document["enable_telemetry"] = False
    document["enable_update_checks"] = False
    document.pop("mcp_servers", None)  # asking it starts none of the user's servers
    provider = {"name": "skilltool-doctor", "api_base": f"{url}/v1"}
    provider["api_key_env_var"] = "SKILLTOOL_DOCTOR_KEY"
    model = {"name": "doctor-model", "provider": "skilltool-doctor", "alias": "skilltool-doctor"}
    for key, value in (("providers", provider), ("models", model)):
        tables = document.get(key) or tomlkit.aot()
        tables.append(value)
        document[key] = tables
    config.write_text(tomlkit.dumps(document), encoding="utf-8")


def vibe_request(request: str, stderr: str) -> Listing:
    paths = re.findall(r"<path>([^<]+)</path>", request.replace("\\n", "\n"))
    if not request:
        return Listing(errors=(f"no request reached the model: {stderr[-160:]!r}",))
    return Listing(skills=skills_by_folder(p for p in paths if p.endswith("SKILL.md")))


class Vibe(Harness):
    name = "vibe"
    title = "Mistral Vibe"
    project_reach = (
        "reads the project's agents, skills and hooks only when started in its top folder, and "
        "nothing of it until you trust the folder"
    )
    # not yet checked in the binary: it has a Claude plugin loader of its own, unproven here
    no_commands = "no place for user commands proven in Mistral Vibe 3.0.3 yet"
    builtin_agents = BUILT_IN
    builtin_version = "3.0.3"
    # 3.0.3 expands no ${VAR} (and passes a stdio server none of its own environment)
    env_proof = "Mistral Vibe 3.0.3 expands none"

    def mcp_place(self) -> McpPlace:
        # `[[mcp_servers]]`: an array of tables, each element named by its `name` key
        return McpPlace(self.root() / "config.toml", "toml-array", ("mcp_servers",))

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        if server.transport == "sse":
            # its "http" transport is streamable HTTP too (it POSTs): it has no SSE client
            return Verdict(True, "Mistral Vibe runs stdio and streamable HTTP servers, not SSE")
        if server.transport == "http":
            return remote_entry(server, transport="streamable-http")
        # the command as a list: a string is split by shlex, which a path with a blank breaks
        value: McpValue = {"transport": "stdio", "command": [server.command]}
        value.update({k: v for k, v in stdio_entry(server).items() if k != "command"})
        return value

    # hooks: Vibe runs them only from ~/.vibe/hooks.toml (not from a plugin folder: proven in
    # tests/conformance/test_hooks_vibe.py), with answers of its own, so each Claude Code
    # command is an entry there that runs a translating wrapper skilltool writes per plugin
    hook_events: ClassVar[Mapping[str, str] | None] = HOOK_EVENTS
    project_hooks = True  # `.vibe/hooks.toml`, read in the project's top folder once trusted

    def hook_place(self) -> McpPlace:
        return McpPlace(self.root() / "hooks.toml", "toml-array", ("hooks",))

    def _wrapper(self, plugin: str) -> Path:
        return self.root() / "claude-hooks" / f"{plugin}.py"

    def render_hooks(self, plugin: Plugin, hooks: Sequence[Hook]) -> list[Rendering]:
        target = self._wrapper(plugin.name)
        return [Rendering(target, self.hooks_script("vibe/hooks.py.j2", plugin, hooks, target))]

    def hook_entries(self, plugin: Plugin, hooks: Sequence[Hook]) -> list[tuple[str, McpValue]]:
        import shlex

        from skilltool.hook_format import claude_object

        # in a project, from its top folder: the only one where Vibe reads `.vibe/hooks.toml`,
        # and the folder it runs a hook in (proven in test_project_hooks.py)
        wrapper = shlex.quote(self.home.stored(self._wrapper(plugin.name)))
        found: list[tuple[str, McpValue]] = []
        for event, groups in claude_object(plugin, hooks).items():
            for g, group in enumerate(groups):
                tool = VIBE_TOOLS.get(group.get("matcher", ""))
                for h, hook in enumerate(group["hooks"]):
                    value: McpValue = {
                        "type": HOOK_EVENTS[event],
                        "command": f"python3 -I {wrapper} {event} {g} {h}",
                    }
                    if tool is not None and event != "Stop":
                        value["match"] = tool  # else the wrapper matches, on every call
                    if "timeout" in hook:
                        value["timeout"] = float(hook["timeout"])
                    found.append((f"{plugin.name}:{event}-{g}-{h}", value))
        return found

    def hook_files(self) -> list[Path]:
        return files_under(self.root() / "claude-hooks", "*.py")

    def hook_plugin(self, path: Path) -> str:
        return path.stem

    def hook_runners(self) -> list[Path]:
        return [*self.hook_files(), self.root() / "hooks.toml"]  # its only file of hooks

    def refusal(self, agent: Agent) -> str | None:
        if agent.name.casefold() == RESERVED:
            return f"Mistral Vibe reserves the name '{RESERVED}' for hooks: rename the agent"
        return None

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        # Vibe validates the frontmatter as the Agent Skills rules say and drops what fails
        if skill.repaired:
            return Verdict(True, "frontmatter is not valid YAML")
        declared = skill.declared
        if declared is None:
            return Verdict(True, "no name")
        if len(declared) > SKILL_NAME_LIMIT or not re.fullmatch(SKILL_NAME, declared):
            return Verdict(True, "name breaks the Agent Skills rules")
        if len(skill.description) > SKILL_DESCRIPTION_LIMIT:
            return Verdict(True, f"description over {SKILL_DESCRIPTION_LIMIT} characters")
        return named(skill)

    def render(self, agent: Agent) -> list[Rendering]:
        table: dict[str, str] = {
            "agent_type": "agent",
            "description": agent.description,
            "system_prompt_id": prompt_id(agent),
        }
        model = self.model(agent)
        if model:
            table["active_model"] = model
        return [
            Rendering(
                self.root() / "agents" / f"{agent.name}.toml",
                self.template("agent.toml.j2", agent, table=toml_string_table(table)),
            ),
            Rendering(
                self.root() / "prompts" / prompt_id(agent), self.template("prompt.md.j2", agent)
            ),
        ]

    def probes(self) -> list[Probe]:
        """`vibe -p hi` against a loopback model, made its active model in the throwaway
        home's config.toml: its first request lists every skill it loaded
        (`<skill><name>…<path>…/SKILL.md</path>`); the model refuses it, and Vibe stops."""
        env = {"SKILLTOOL_DOCTOR_KEY": "doctor"}
        return [Probe(("vibe", "-p", "hi"), vibe_request, env, model=True, prepare=use_model)]

    def owned_places(self) -> list[Path]:
        agents, prompts = self.root() / "agents", self.root() / "prompts"
        return by_parts([*ending_with(agents, ".toml"), *ending_with(prompts, ".md")])

    def launch(self, agent: Agent) -> Launch:
        return Launch(
            ["vibe-acp"],
            {"VIBE_DEFAULT_AGENT": agent.name},
            [f"in a terminal: vibe --agent {agent.name}"],
        )
