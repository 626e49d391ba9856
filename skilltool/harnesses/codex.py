"""Codex: the instructions as `developer_instructions` (added to Codex's own prompt, never
replacing it) in a session-config JSON for the ACP adapter, and in a `--profile` file."""

from __future__ import annotations

import re
from pathlib import Path

from skilltool.harnesses import (
    Harness,
    Launch,
    McpPlace,
    McpValue,
    Rendering,
    Verdict,
    heading,
    named,
    stdio_entry,
)
from skilltool.model import Agent, McpServer, Skill
from skilltool.parse import SKILL_DESCRIPTION_LIMIT


def instructions(agent: Agent) -> str:
    return f"{heading(agent)}\n{agent.body}"


def toml_string_table(values: dict[str, str]) -> str:
    """Top-level `key = "value"` lines that read back exactly (CRLF included)."""
    import tomlkit

    document = tomlkit.document()
    for key, value in values.items():
        multiline = "\n" in value and "\r" not in value and '"""' not in value
        document[key] = tomlkit.string(value, multiline=multiline)
    text = tomlkit.dumps(document)
    # read back by a TOML parser (tomlkit's: tomllib is not in Python 3.10)
    if tomlkit.parse(text).unwrap() != values:  # a multiline string TOML would read differently
        document = tomlkit.document()
        for key, value in values.items():
            document[key] = tomlkit.string(value)
        text = tomlkit.dumps(document)
    return text


# what `codex --profile` takes (0.171: "pass a plain name such as `work`"; a dot is refused)
PROFILE_NAME = r"[A-Za-z0-9_-]+"


def has_profile(agent: Agent) -> bool:
    return re.fullmatch(PROFILE_NAME, agent.name) is not None


class Codex(Harness):
    name = "codex"
    title = "Codex"
    no_commands = "Codex reads no user commands (~/.codex/prompts is no longer read)"

    def mcp_place(self) -> McpPlace:
        return McpPlace(self.root() / "config.toml", "toml", ("mcp_servers",))

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        if server.transport == "sse":
            return Verdict(True, "Codex runs stdio and streamable HTTP servers, not SSE")
        if server.transport == "http":
            value: McpValue = {"url": server.url}
            if server.headers:
                value["http_headers"] = dict(server.headers)
            return value
        return stdio_entry(server)

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        if len(skill.description) > SKILL_DESCRIPTION_LIMIT:
            return Verdict(False, f"cut its description to {SKILL_DESCRIPTION_LIMIT} characters")
        return named(skill)

    def agent_verdict(self, agent: Agent) -> Verdict | None:
        if not has_profile(agent):
            return Verdict(False, "take it over ACP only ('codex --profile' refuses the name)")
        return super().agent_verdict(agent)

    def session_file(self, agent_name: str) -> Path:
        return self.root() / "skilltool" / f"{agent_name}.json"

    def render(self, agent: Agent) -> list[Rendering]:
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

    def owned_places(self) -> list[Path]:
        directory = self.root() / "skilltool"
        mine = [*directory.glob("*.md"), *directory.glob("*.json")]
        return sorted([*mine, *self.root().glob("*.config.toml")])

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
