"""Cline CLI: its agent files, workflows and MCP entries as skilltool writes them, and what it
says of commands and skills it cannot take as written (tests/conformance/test_cline.py and
test_project_cline.py prove these in the binary)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from skilltool.harnesses.cline import Cline, subagent_tool
from skilltool.parse import read_skill
from skilltool.paths import Home
from tests.harnesses.test_renderings import tricky_agent
from tests.helpers import build_file_tree, run


def cline(home: Path) -> Cline:
    return Cline(Home(home, explicit=True))


def test_claudes_tools_become_clines_and_the_body_follows_the_frontmatter(
    home: Path, tmp_path: Path
) -> None:
    [rendering] = cline(home).render(tricky_agent(tmp_path))
    assert rendering.target == home / ".cline/agents/tricky.yml"
    text = rendering.content.decode("utf-8")
    fields = yaml.safe_load(text.split("---\n")[1])
    assert fields["tools"] == ["read_files", "search_codebase", "run_commands", "fetch_web_content"]
    assert fields["skills"] == ["pdf-tools"]
    assert "modelId" not in fields  # 'sonnet' is no model id of Cline's providers
    assert text.endswith("no final newline")


def test_the_tool_cline_offers_an_agent_as() -> None:
    assert subagent_tool("plugin-author") == "subagent_plugin_author"
    assert subagent_tool("My.Agent") == "subagent_my_agent"


def test_a_command_ending_in_arguments_says_it_by_leaving_it_out(home: Path) -> None:
    harness = cline(home)
    said = harness.translate_command("Say hello to $ARGUMENTS\n")
    assert (said.body, said.why) == ("Say hello to\n", "")
    kept = harness.translate_command("Review $ARGUMENTS carefully.\n")
    assert kept.body == "Review $ARGUMENTS carefully.\n" and "as written" in kept.why
    refused = harness.translate_command("Compare $0 with $1.\n")
    assert refused.body is None and "'$0'" in refused.why
    assert harness.translate_command("Plain.\n") == ("Plain.\n", "")


def test_clines_own_team_command_takes_a_command_named_team_dash(home: Path) -> None:
    harness = cline(home)
    for name in ("team", "team-cmd", "Team.x"):
        assert "its own /team command" in (harness.command_refusal(name) or ""), name
    for name in ("teams", "team_flow", "my-team"):
        assert harness.command_refusal(name) is None, name
    assert "subfolder" in (harness.command_refusal("git:commit") or "")


def test_a_skill_cline_cannot_parse_or_name_is_skipped(home: Path, tmp_path: Path) -> None:
    root = build_file_tree(
        tmp_path / "s",
        {
            "colon/SKILL.md": "---\nname: colon\ndescription: Use it when: asked\n---\nB.\n",
            "anon/SKILL.md": "---\ndescription: No name.\n---\nB.\n",
            "apart/SKILL.md": "---\nname: elsewhere\ndescription: Named apart.\n---\nB.\n",
        },
    )
    verdicts = {}
    for name in ("colon", "anon", "apart"):
        skill, _ = read_skill(root / name)
        assert skill is not None
        verdicts[name] = cline(home).skill_verdict(skill)
    assert verdicts["colon"] == (True, "frontmatter is not valid YAML")
    assert verdicts["anon"] == (True, "no name")
    assert verdicts["apart"] == (False, "name it 'elsewhere'")


def test_in_a_project_mcp_is_said_once_and_commands_go_to_clinerules(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = build_file_tree(
        tmp_path / "repo",
        {
            "plugins/p/.claude-plugin/plugin.json": '{"name": "p"}\n',
            "plugins/p/commands/go.md": "Go $ARGUMENTS\n",
            "plugins/p/.mcp.json": '{"mcpServers": {"s": {"command": "/bin/true"}}}\n',
        },
    )
    (repo / ".git").mkdir()
    (home / ".cline").mkdir()  # the one harness set up in the home of the person who adds
    monkeypatch.chdir(repo)
    done = run("plugins", "add", "./plugins/p", "--project")
    assert done.code == 0, done.stdout + done.stderr
    assert (repo / ".clinerules/workflows/go.md").read_text().endswith("Go\n")
    said = [line for line in done.stdout.splitlines() if "MCP servers" in line]
    assert len(said) == 1 and "reads MCP servers only from its home" in said[0], done.stdout
    assert not (repo / ".cline/data").exists()
