"""Kimi Code: ~/.kimi-code/agents/<name>.md, its own agent format (`name` in kebab-case,
`description`, `tools` as a list of its tool names, the body the agent's whole system prompt);
MCP servers as entries of ~/.kimi-code/mcp.json. It reads ~/.agents/skills itself.

Its agent is chosen with `kimi --agent NAME`; over ACP (`kimi acp`, 2.1.0) a session is always
Kimi's own agent, which offers the plugin's agent as a subagent (its Agent tool)."""

from __future__ import annotations

import re
from pathlib import Path

from skilltool.fs import ending_with
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
)
from skilltool.model import Agent, McpPlace, McpServer, Rendering, Skill

# Claude Code tool names -> Kimi Code's (2.1.0: its tools are mostly Claude's own names)
TOOL_NAMES = {
    "Read": "Read",
    "Write": "Write",
    "Edit": "Edit",
    "MultiEdit": "Edit",
    "Glob": "Glob",
    "Grep": "Grep",
    "Bash": "Bash",
    "WebSearch": "WebSearch",
    "WebFetch": "FetchURL",
    "TodoWrite": "TodoList",
    "Task": "Agent",
    "Agent": "Agent",
    "Skill": "Skill",
    "AskUserQuestion": "AskUserQuestion",
}
MCP_TOOL = re.compile(r"mcp__[^_]\S*")  # Claude's `mcp__server__tool` and `mcp__server`
# Kimi Code's own agents: a file of one of these names is ignored unless it sets `override`
BUILT_IN = frozenset({"agent", "coder", "explore", "plan"})
AGENT_NAME = r"[a-z0-9]+(?:-[a-z0-9]+)*"  # its AGENT_NAME_PATTERN: a file otherwise is skipped
# the `${name}`s Kimi Code fills in an agent's body (its prompt variables): any other stays
PROMPT_VARIABLES = frozenset({
    "role_additional", "product_name", "reply_style_guide", "notify_user_guidance", "os",
    "windows_notes", "shell", "cwd", "cwd_listing", "agents_md", "additional_dirs_info",
    "additional_dirs_section", "skills", "skills_section", "plugin_sections", "base_prompt",
})  # fmt: skip
LISTING_LIMIT = 250  # characters of a skill's description in the listing the model gets
SKILL_TYPES = frozenset({"prompt", "inline", "flow", "reference"})  # a skill's `type:`


def kimi_tool(tool: str) -> str | None:
    """Kimi Code's name for one of Claude's tools (an MCP tool keeps its name; a whole
    server, `mcp__server`, is the pattern of its tools), or None."""
    if MCP_TOOL.fullmatch(tool):
        return tool if "__" in tool[len("mcp__") :] else f"{tool}__*"
    return TOOL_NAMES.get(tool)


def kimi_tools(tools: tuple[str, ...], skills: bool) -> list[str]:
    """Kimi's names for a tool list (and the Skill tool when the agent has skills)."""
    names = [n for n in map(kimi_tool, tools) if n is not None]
    if names and skills:
        names.append("Skill")
    return list(dict.fromkeys(names))


def filled(body: str) -> list[str]:
    """The `${name}`s of a body that Kimi Code replaces with its own values."""
    found = re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", body)
    return [f"${{{n}}}" for n in dict.fromkeys(found) if n in PROMPT_VARIABLES]


def kimi_request(request: str, stderr: str) -> Listing:
    """The skills (each by the folder of its `Path:`) and the agents (`- NAME: …` in the
    Agent tool's list of agent types) of the first request Kimi Code sends a model."""
    import json

    try:
        sent = json.loads(request)
    except ValueError:
        return Listing(errors=(f"no request reached the model: {stderr[-160:]!r}",))
    system = next(
        (m.get("content") for m in sent.get("messages", []) if m.get("role") == "system"), ""
    )
    listed = system.split("Current available skills:", 1)[-1].split("### Built-in", 1)[0]
    skills = skills_by_folder(re.findall(r"^  Path: (/.*)$", listed, re.M))
    agents: dict[str, tuple[str, ...]] = {}
    for tool in sent.get("tools", []):
        function = tool.get("function") or {}
        if function.get("name") == "Agent":
            types = str(function.get("description", "")).split("(pass via subagent_type):", 1)
            for name in re.findall(r"^- ([a-z0-9-]+): ", types[-1], re.M):
                agents[name] = ()
    return Listing(skills, {n: () for n in agents if n not in BUILT_IN})


def doctor_home(root: Path, url: str) -> None:
    """The throwaway copy of ~/.kimi-code: none of the user's hooks (config.toml) runs and none
    of their MCP servers (mcp.json) starts while Kimi Code is asked."""
    import tomlkit

    (root / "mcp.json").unlink(missing_ok=True)
    config = root / "config.toml"
    try:
        document = tomlkit.parse(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomlkit.exceptions.TOMLKitError):
        return
    if document.pop("hooks", None) is not None:
        config.write_text(tomlkit.dumps(document), encoding="utf-8")


class Kimi(Harness):
    name = "kimi"
    title = "Kimi Code"
    binary = "kimi"
    project_reach = (
        "reads the project's skills and agents from its git root; its .kimi-code/mcp.json only "
        "when started in the project's top folder, and once you trust the folder"
    )
    builtin_agents = BUILT_IN
    builtin_version = "2.1.0"
    enforces_tools = True
    tool_names = TOOL_NAMES
    tool_vocabulary = "Kimi Code"
    no_commands = (
        "Kimi Code 2.1.0 reads slash commands only from its own plugins (kimi.plugin.json), "
        "not from a folder of the user's"
    )
    env_proof = "Kimi Code 2.1.0 expands none"
    # hooks: Kimi runs them only from `[[hooks]]` tables of config.toml, whose strict schema
    # takes no key an entry could be recorded by (docs/hooks-harnesses.md)
    no_hooks = (
        "Kimi Code 2.1.0 runs hooks only from [[hooks]] tables of its config.toml, which have "
        "no name skilltool could own an entry by"
    )

    def mcp_place(self) -> McpPlace:
        # JSON.parse: no comment, no trailing comma; a bad entry loses the file's servers
        return McpPlace(self.root() / "mcp.json", "json", ("mcpServers",))

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        if server.transport == "sse":
            return remote_entry(server, transport="sse")
        # the transport is told from the keys: `command` stdio, `url` streamable HTTP
        return remote_entry(server) if server.transport == "http" else stdio_entry(server)

    def refusal(self, agent: Agent) -> str | None:
        if not re.fullmatch(AGENT_NAME, agent.name):
            return (
                f"Kimi Code skips an agent named '{agent.name}' (lower-case letters, digits "
                "and single hyphens): rename it"
            )
        if not agent.body.strip():
            return "the body is empty, which Kimi Code skips: write the agent's instructions"
        return None

    def agent_verdict(self, agent: Agent) -> Verdict | None:
        verdict = super().agent_verdict(agent)
        if verdict is not None:
            return verdict
        found = filled(agent.body)
        if found:
            return Verdict(False, f"fill in {', '.join(found)} of its body with its own values")
        return None

    def unnamed_tools(self, agent: Agent) -> list[str]:
        return [t for t in agent.tools if kimi_tool(t) is None]

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        if skill.repaired:  # js-yaml refuses it: the skill is skipped with a warning
            return Verdict(True, "frontmatter is not valid YAML")
        if skill.declared is None:
            return Verdict(True, "no name")
        kind = skill.fields.get("type")
        if kind is not None and str(kind).strip() not in SKILL_TYPES:
            return Verdict(True, f"Kimi Code has no skills of type {kind!r}")
        if skill.fields.get("disable-model-invocation") is True:
            return Verdict(False, f"offer it as a command only (/skill:{skill.declared})")
        if len(skill.description.strip().encode("utf-16-le")) // 2 > LISTING_LIMIT:
            why = f"cut its description to {LISTING_LIMIT} characters in its listing"
            return named(skill, extra=f", and {why}") or Verdict(False, why)
        return named(skill)

    def render(self, agent: Agent) -> list[Rendering]:
        tools = kimi_tools(agent.tools, bool(agent.skills)) if agent.tools else None
        denied = agent.fields.get("disallowedTools")
        if isinstance(denied, str):
            denied = [t.strip() for t in denied.split(",")]
        denied = (
            [n for n in map(kimi_tool, denied) if n is not None]
            if isinstance(denied, list) and all(isinstance(t, str) for t in denied)
            else []
        )
        content = self.template("agent.md.j2", agent, tools=tools, denied=denied)
        return [Rendering(self.root() / "agents" / f"{agent.name}.md", content)]

    def probes(self) -> list[Probe]:
        """`kimi -p hi` against a loopback model: its first request lists every skill it
        loaded (`Path: …/SKILL.md`, in the system prompt) and every agent (the Agent tool's
        agent types); the model refuses it, and Kimi Code stops there."""
        env = {
            "KIMI_MODEL_NAME": "skilltool-doctor",
            "KIMI_MODEL_API_KEY": "doctor",
            "KIMI_MODEL_PROVIDER_TYPE": "openai",
            "KIMI_MODEL_BASE_URL": "{model}/v1",
            "KIMI_DISABLE_TELEMETRY": "1",
            "KIMI_CODE_NO_AUTO_UPDATE": "1",
        }
        argv = ("kimi", "-p", "hi")
        return [Probe(argv, kimi_request, env, model=True, prepare=doctor_home)]

    def owned_places(self) -> list[Path]:
        return ending_with(self.root() / "agents", ".md")

    def launch(self, agent: Agent) -> Launch:
        return Launch(
            ["kimi", "acp"],
            {},
            [
                "Kimi Code 2.1.0 has no agent option over ACP: a session there is Kimi's own "
                f"agent, which offers {agent.name} as a subagent (its Agent tool)",
                f"in a terminal: kimi --agent {agent.name}",
            ],
        )
