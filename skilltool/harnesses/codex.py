"""Codex: the instructions as `developer_instructions` (added to Codex's own prompt, never
replacing it) in a session-config JSON for the ACP adapter, and in a `--profile` file."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from skilltool.fs import by_parts, ending_with
from skilltool.harnesses import (
    Harness,
    Launch,
    Listing,
    McpValue,
    Probe,
    Verdict,
    heading,
    named,
    skills_by_folder,
    stdio_entry,
    toml_string_table,
)
from skilltool.model import Agent, McpPlace, McpServer, Problem, Rendering, Skill
from skilltool.parse import SKILL_DESCRIPTION_LIMIT

if TYPE_CHECKING:
    from skilltool.folders import FolderItems, Ours


def instructions(agent: Agent) -> str:
    return f"{heading(agent)}\n{agent.body}"


# what `codex --profile` takes (0.171: "pass a plain name such as `work`"; a dot is refused)
PROFILE_NAME = r"[A-Za-z0-9_-]+"


def has_profile(agent: Agent) -> bool:
    return re.fullmatch(PROFILE_NAME, agent.name) is not None


def forwarded(server: McpServer) -> tuple[list[str], dict[str, str]]:
    """The references Codex can forward by name: `env` entries `K: ${K}`, and headers
    whose whole value is one `${V}` (header -> V)."""
    env = [k for k, v in server.env.items() if v == "${" + k + "}"]
    headers = {}
    for key, value in server.headers.items():
        match = re.fullmatch(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", value)
        if match:
            headers[key] = match.group(1)
    return env, headers


def codex_skills(stdout: str, stderr: str) -> Listing:
    text = stdout.replace("\\n", "\n")
    roots = dict(re.findall(r"`(r\d+)` = `([^`]+)`", text))
    found = re.findall(r"\(file: (r\d+)/([^)\s]+)/SKILL\.md\)", text)
    if not roots and not found:
        return Listing(errors=("no skills catalogue in `codex debug prompt-input`",))
    return Listing(skills=skills_by_folder(f"{roots.get(r, r)}/{folder}" for r, folder in found))


class Codex(Harness):
    name = "codex"
    proven_version = "0.171.0"  # scripts/install-harnesses
    title = "Codex"
    # docs/hooks-harnesses.md: Codex reads Claude Code's hooks file, but runs none of it until
    # the user trusts each hook (a hash in config.toml), which is theirs to do
    no_hooks = (
        "Codex skips a hook of ~/.codex/hooks.json without a word until you trust it in its "
        "/hooks view, which skilltool leaves to you"
    )
    # in a project the same (proven in tests/conformance/test_project_hooks.py), and its trust
    # is keyed by the file's absolute path: each checkout's own
    no_project_hooks = (
        "Codex skips a hook of .codex/hooks.json without a word until you trust it in its "
        "/hooks view, in each checkout, which skilltool leaves to you"
    )

    def hooks_refusal(self) -> str | None:
        return self.no_project_hooks if self.home.kind == "project" else self.no_hooks

    precedence: ClassVar[Mapping[str, str]] = {"skill": "both", "agent": "project"}
    project_reach = (
        "reads .codex/ (agents, MCP servers) only once you trust the project (its skills from"
        " any folder below)"
    )
    no_commands = "Codex reads no user commands (~/.codex/prompts is no longer read)"

    @classmethod
    def read_folder(cls, folder: Path, ours: Ours, reader: Any) -> FolderItems:
        """A team's `.codex/`: its agents (`agents/<name>.toml`: `developer_instructions` the
        body), its skills, the MCP servers of `.codex/config.toml`, and the hooks of
        `.codex/hooks.json`."""
        from skilltool import folders

        problems: list[Problem] = []
        skills = folders.skills(folder / "skills", ours, reader, problems)
        files = folders.markdown_files(folder / "agents", ours, (".toml",))
        agents = folders.read_native(
            files,
            lambda p: folders.toml_agent(p, "codex", "developer_instructions", ("name",)),
            problems,
        )
        servers = folders.config_servers(
            folder / "config.toml", ("mcp_servers",), ours, problems, "toml"
        )
        hooks, files = folders.json_hooks(folder / "hooks.json", problems)  # Claude Code's format
        return folders.FolderItems(
            tuple(skills), tuple(agents), (), tuple(servers), tuple(hooks), tuple(files),
            tuple(problems),
        )  # fmt: skip

    def mcp_place(self) -> McpPlace:
        return McpPlace(self.root() / "config.toml", "toml", ("mcp_servers",))

    # 0.171.0 expands no reference; it forwards a variable by name, which is exact for an
    # `env` entry `K: ${K}` (env_vars) and a header that is one `${V}` (env_http_headers)
    env_proof = "Codex 0.171.0 expands none, and forwards a variable only by its name"

    def mcp_refusal(self, server: McpServer) -> Verdict | None:
        env, headers = forwarded(server)
        rest = {k: v for k, v in server.env.items() if k not in env}
        kept = {k: v for k, v in server.headers.items() if k not in headers}
        return super().mcp_refusal(server._replace(env=rest, headers=kept))

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        if server.transport == "sse":
            return Verdict(True, "Codex runs stdio and streamable HTTP servers, not SSE")
        env, headers = forwarded(server)
        if server.transport == "http":
            value: McpValue = {"url": server.url}
            kept = {k: v for k, v in server.headers.items() if k not in headers}
            if kept:
                value["http_headers"] = kept
            if headers:
                value["env_http_headers"] = headers
            return value
        value = stdio_entry(
            server._replace(env={k: v for k, v in server.env.items() if k not in env})
        )
        if env:
            value["env_vars"] = env
        return value

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        if len(skill.description) > SKILL_DESCRIPTION_LIMIT:
            return Verdict(False, f"cut its description to {SKILL_DESCRIPTION_LIMIT} characters")
        return named(skill)

    def agent_verdict(self, agent: Agent) -> Verdict | None:
        if not has_profile(agent) and self.home.kind != "project":
            return Verdict(False, "take it over ACP only ('codex --profile' refuses the name)")
        return super().agent_verdict(agent)

    def session_file(self, agent_name: str) -> Path:
        return self.root() / "skilltool" / f"{agent_name}.json"

    def render(self, agent: Agent) -> list[Rendering]:
        if self.home.kind == "project":
            return [self.project_agent(agent)]
        directory = self.root() / "skilltool"
        model = self.model(agent)
        text = instructions(agent)
        profile: dict[str, str] = {"developer_instructions": text}
        if model:
            profile["model"] = model
        found = [
            Rendering(directory / f"{agent.name}.md", self.template("instructions.md.j2", agent)),
            Rendering(
                self.session_file(agent.name),
                self.template("session.json.j2", agent, instructions=text, model=model),
            ),
        ]
        if has_profile(agent):  # a profile of another name would be a file nothing reads
            table = toml_string_table(profile)
            found.append(
                Rendering(
                    self.root() / f"{agent.name}.config.toml",
                    self.template("profile.toml.j2", agent, table=table),
                )
            )
        return found

    def project_agent(self, agent: Agent) -> Rendering:
        """In a project, Codex reads no profile (a project's `.codex/<name>.config.toml` is
        passed over without a word): its own agents, `.codex/agents/<name>.toml`, are the
        roles its `spawn_agent` tool offers (proven: test_project_codex.py)."""
        values = {"name": agent.name, "description": agent.description}
        values["developer_instructions"] = instructions(agent)
        model = self.model(agent)
        if model:
            values["model"] = model
        table = toml_string_table(values)
        target = self.root() / "agents" / f"{agent.name}.toml"
        return Rendering(target, self.template("agent.toml.j2", agent, table=table))

    def probes(self) -> list[Probe]:
        """`codex debug prompt-input hi`: the model's input, whose skills catalogue names each
        skill's SKILL.md under an aliased root (`r0/<folder>/SKILL.md`, with `r0` = its
        folder); it starts no model. An agent is a profile: not listed."""
        return [Probe(("codex", "debug", "prompt-input", "hi"), codex_skills)]

    def owned_places(self) -> list[Path]:
        if self.home.kind == "project":
            return ending_with(self.root() / "agents", ".toml")
        directory = self.root() / "skilltool"
        mine = [*ending_with(directory, ".md"), *ending_with(directory, ".json")]
        return by_parts([*mine, *ending_with(self.root(), ".config.toml")])

    def launch(self, agent: Agent) -> Launch:
        import shlex  # for `launch` only: not imported on every run

        session = self.home.show(self.session_file(agent.name))
        quoted = shlex.quote(str(self.session_file(agent.name)))
        return Launch(
            ["codex-acp"],
            {"CODEX_CONFIG": f"{{file:{session}}}"},
            [
                f'in a shell: CODEX_CONFIG="$(cat {quoted})" codex-acp',
                *([f"in a terminal: codex --profile {agent.name}"] if has_profile(agent) else []),
                "codex-acp comes from the npm package @agentclientprotocol/codex-acp",
            ],
        )
