"""Qoder CLI: its agent files, commands and MCP entries as skilltool writes them, and how its
own listings are read (tests/conformance/test_qoder.py and test_project_qoder.py prove these in
the binary)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from skilltool.harnesses.qoder import Qoder, qoder_agents, qoder_skills
from skilltool.paths import Home
from tests.harnesses.test_renderings import tricky_agent
from tests.helpers import build_file_tree, run

SKILLS_LIST = """Discovered Agent Skills:

alpha [Enabled]
  Description: Alpha skill.
  Location:    /h/.qoder/skills/alpha/SKILL.md

git:commit [Enabled]
  Description: Commit it
  Location:    /h/.qoder/commands/git/commit.md

beta [Disabled]
  Description: Beta.
  Tools:       Read, Grep
  Location:    /h/.agents/skills/beta/SKILL.md

"""
AGENTS_LIST = """7 active agents

Project:
  reviewer · Inherit

User:
  helper · Sonnet
  (shadowed by Project) reviewer · Inherit

Built-in:
  Explore · Inherit
  general-purpose · Inherit
"""


def qoder(home: Path) -> Qoder:
    return Qoder(Home(home, explicit=True))


def test_an_agent_is_claudes_format_with_its_tools_as_written(home: Path, tmp_path: Path) -> None:
    [rendering] = qoder(home).render(tricky_agent(tmp_path))
    assert rendering.target == home / ".qoder/agents/tricky.md"
    text = rendering.content.decode("utf-8")
    fields = yaml.safe_load(text.split("---\n")[1])
    assert fields["name"] == "tricky" and fields["tools"] == "Read, Grep, Bash, WebFetch"
    assert "model" not in fields  # 'sonnet' is no model of Qoder's; 'inherit' is kept
    assert text.endswith("no final newline")


def test_its_listings_are_read_skills_by_folder_and_agents_not_built_in() -> None:
    skills = qoder_skills(SKILLS_LIST, "").skills
    assert skills == {"alpha": ("/h/.qoder/skills/alpha",), "beta": ("/h/.agents/skills/beta",)}
    said = qoder_agents(AGENTS_LIST, "1 error loading agent configs. Use /agents to see details.")
    assert said.agents == {"reviewer": (), "helper": ()}
    assert said.errors == ("1 error loading agent configs. Use /agents to see details.",)


def test_a_server_with_a_working_folder_is_skipped_and_stdio_has_no_type(home: Path) -> None:
    from skilltool.model import McpServer

    harness = qoder(home)
    plain = McpServer("s", home / "p/.mcp.json", "stdio", command="/bin/srv", args=("-v",))
    assert harness.mcp_value(plain) == {"command": "/bin/srv", "args": ["-v"]}
    placed = plain._replace(cwd="/srv")
    verdict = harness.mcp_value(placed)
    assert not isinstance(verdict, dict) and verdict.skips and "cwd" in verdict.why


def test_in_a_project_commands_agents_and_servers_go_to_its_qoder_folder(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = build_file_tree(
        tmp_path / "repo",
        {
            "plugins/p/.claude-plugin/plugin.json": '{"name": "p"}\n',
            "plugins/p/commands/go.md": "---\ndescription: Go\n---\nGo $ARGUMENTS\n",
            "plugins/p/agents/helper.md": "---\nname: helper\ndescription: Helps.\n---\nHelp.\n",
        },
    )
    (repo / ".git").mkdir()
    (home / ".qoder").mkdir()  # the one harness set up in the home of the person who adds
    monkeypatch.chdir(repo)
    done = run("plugins", "add", "./plugins/p", "--project")
    assert done.code == 0, done.stdout + done.stderr
    assert (repo / ".qoder/commands/go.md").read_text().endswith("Go $ARGUMENTS\n")
    assert (repo / ".qoder/agents/helper.md").is_file()
