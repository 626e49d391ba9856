"""Factory Droid: its droid files, commands and MCP entries as skilltool writes them, what it
says of agents, commands and skills it cannot take as written, what doctor reads out of its
request, and a team's own `.factory/` read back as a source (tests/conformance/test_droid.py
and its rows elsewhere prove these in the binary)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from skilltool.harnesses import load
from skilltool.harnesses.droid import Droid, command_name, droid_request, use_model
from skilltool.model import Agent, McpServer, SlashCommand
from skilltool.parse import read_agent, read_skill
from skilltool.paths import Home
from tests.harnesses.test_renderings import tricky_agent
from tests.helpers import agent_md, build_file_tree, run


def droid(home: Path) -> Droid:
    return Droid(Home(home, explicit=True))


def front(content: bytes) -> dict[str, object]:
    found = yaml.safe_load(content.decode("utf-8").split("---\n")[1])
    assert isinstance(found, dict)
    return found


def agent(tmp_path: Path, name: str, extra: str) -> Agent:
    path = build_file_tree(tmp_path / "p", {f"agents/{name}.md": agent_md(name, extra=extra)})
    found, problems = read_agent(path / f"agents/{name}.md")
    assert found is not None, problems
    return found


def test_claudes_tools_become_droids_and_the_others_are_left_out_and_said(
    home: Path, tmp_path: Path
) -> None:
    harness = droid(home)
    [rendering] = harness.render(tricky_agent(tmp_path))
    assert rendering.target == home / ".factory/droids/tricky.md"
    fields = front(rendering.content)
    # Bash is Execute, WebFetch FetchUrl; the agent's skills are reached through Skill
    assert fields["tools"] == ["Read", "Grep", "Execute", "FetchUrl", "Skill"]
    assert "model" not in fields and "skills" not in fields  # 'sonnet' is not Droid's
    mixed = agent(tmp_path, "mixed", "tools: Read, Bash(git log:*), mcp__github__get_issue\n")
    assert front(harness.render(mixed)[0].content)["tools"] == ["Read"]
    verdict = harness.agent_verdict(mixed)
    assert verdict is not None and not verdict.skips
    assert verdict.why == (
        "leave out Bash(git log:*), mcp__github__get_issue (no Factory Droid name)"
    )


def test_an_agent_none_of_whose_tools_droid_has_is_skipped_not_given_every_tool(
    home: Path, tmp_path: Path
) -> None:
    none = agent(tmp_path, "none", "tools: NotebookEdit, mcp__x__y\n")
    verdict = droid(home).agent_verdict(none)
    assert verdict is not None and verdict.skips
    assert verdict.why.startswith("none of its tools has a Factory Droid name")
    no_list = agent(tmp_path, "free", "")  # no list at all: every tool, as in Claude Code
    assert "tools" not in front(droid(home).render(no_list)[0].content)


def test_a_built_in_droid_is_never_replaced(home: Path, tmp_path: Path) -> None:
    (home / ".factory").mkdir()
    for name in ("worker", "explorer", "scrutiny-feature-reviewer"):
        verdict = droid(home).agent_verdict(agent(tmp_path / name, name, ""))
        assert verdict is not None and verdict.skips, name
        assert "built-in agent of Factory Droid (0.215.0)" in verdict.why


def test_only_droids_own_inherit_or_an_override_is_a_model(home: Path, tmp_path: Path) -> None:
    harness = droid(home)
    inherit = agent(tmp_path / "a", "a", "model: inherit\n")
    assert front(harness.render(inherit)[0].content)["model"] == "inherit"
    override = agent(
        tmp_path / "b", "b", "model: opus\nharnesses:\n  droid: {model: custom:mine-0}\n"
    )
    assert front(harness.render(override)[0].content)["model"] == "custom:mine-0"


@pytest.mark.parametrize(
    ("body", "rendered", "why"),
    [
        ("Review $ARGUMENTS.\n", "Review $ARGUMENTS.\n", ""),
        ("Price it at $150.\n", "Price it at $150.\n\nARGUMENTS: $ARGUMENTS\n", ""),
        ("Compare $0 with $1.\n", None, "its body holds '$0', which Factory Droid leaves"),
        ("Take $ARGUMENTS[1].\n", None, "its body holds '$ARGUMENTS[1]', which Factory"),
    ],
)
def test_a_commands_placeholders_as_droid_reads_them(
    body: str, rendered: str | None, why: str, home: Path
) -> None:
    translated = droid(home).translate_command(body)
    assert translated.body == rendered
    assert translated.why.startswith(why)


def test_a_command_is_named_as_droid_names_its_file(home: Path) -> None:
    harness = droid(home)
    assert command_name("Deploy.Now") == "deploy-now"
    assert harness.command_note("Deploy") == "name it /deploy"
    assert harness.command_note("deploy") is None
    refused = harness.command_refusal("git:commit")
    assert refused is not None and "(/commit)" in refused


def test_a_commands_file_keeps_what_droid_reads_of_its_frontmatter(
    home: Path, tmp_path: Path
) -> None:
    source = tmp_path / "commands/review.md"
    command = SlashCommand("review", source, "Review: it", "Review $ARGUMENTS.\n", "[file]",
                           ("Read",), "sonnet")  # fmt: skip
    rendering = droid(home).render_command(command)
    assert rendering.target == home / ".factory/commands/review.md"
    assert front(rendering.content) == {"description": "Review: it", "argument-hint": "[file]"}
    assert rendering.content.decode().endswith("---\nReview $ARGUMENTS.\n")


def test_a_server_with_a_working_folder_is_skipped(home: Path, tmp_path: Path) -> None:
    server = McpServer("in-dir", tmp_path / ".mcp.json", "stdio", "/opt/srv", cwd="/srv")
    value = droid(home).mcp_value(server)
    assert getattr(value, "skips", False)


def test_droid_skips_a_skill_whose_name_it_refuses_and_cuts_a_long_description(
    home: Path, tmp_path: Path
) -> None:
    tree = build_file_tree(tmp_path, {
        "skills/long/SKILL.md": f"---\nname: long\ndescription: {'d' * 1100}\n---\nB.\n",
        "skills/under_score/SKILL.md": "---\nname: under_score\ndescription: D.\n---\nB.\n",
    })  # fmt: skip
    long, _ = read_skill(tree / "skills/long")
    under, _ = read_skill(tree / "skills/under_score")
    assert long is not None and under is not None
    harness = droid(home)
    assert harness.skill_verdict(long).why == "cut its description to 1024 characters"
    assert harness.skill_verdict(under).skips


REQUEST = {
    "messages": [
        {"role": "system", "content": "You are Droid, an AI software engineering agent."},
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "<system-reminder>\nAvailable skills (invoke by exact name when its "
                    "description matches the request):\nnotes: Take notes.\nwriting-skills: "
                    "Write skills: well.\n</system-reminder>",
                },
                {
                    "type": "text",
                    "text": "<system-reminder>\nBuilt-in subagent types:\n- worker: Works.\n\n"
                    "Custom droids available (from /h/.factory/droids and /p/.factory/droids):"
                    "\n- helper: Helps: a lot (location: personal)\n- team: T (location: "
                    "project)\n\nOnly invoke subagents that are currently available.\n"
                    "</system-reminder>",
                },
            ],
        },
    ]
}


def test_doctor_reads_the_skills_and_droids_of_droids_first_request() -> None:
    listing = droid_request(json.dumps(REQUEST), "")
    assert listing.skills == {"notes": (), "writing-skills": ()}
    assert listing.agents == {"helper": (), "team": ()}  # not its built-in worker
    assert droid_request("", "Exec failed").errors


def test_doctors_copy_of_its_settings_names_the_loopback_model_and_runs_nothing(
    tmp_path: Path,
) -> None:
    root = build_file_tree(tmp_path / ".factory", {
        "settings.json": json.dumps({"model": "mine", "hooks": {"Stop": []},
                                     "enabledPlugins": {"p@m": True}}),
        "mcp.json": '{"mcpServers": {"mine": {"command": "x"}}}',
    })  # fmt: skip
    use_model(root, "http://127.0.0.1:5")
    settings = json.loads((root / "settings.json").read_text())
    assert settings["model"] == "mine"  # the rest as the user has it
    assert settings["hooks"] == {"hooksDisabled": True} and settings["enabledPlugins"] == {}
    [model] = settings["customModels"]
    assert model["baseUrl"] == "http://127.0.0.1:5/v1"
    assert model["displayName"] == "skilltool-doctor"
    assert not (root / "mcp.json").exists()  # no server of the user's is started


DROID_FIRST = {
    ".factory/droids/helper.md": "---\nname: helper\ndescription: Helps.\n"
    'tools: ["Read", "Execute", "ApplyPatch"]\nreasoningEffort: high\n---\nYou help.\n',
    ".factory/commands/test.md": "---\ndescription: Test it\n---\nTest $ARGUMENTS now.\n",
    ".factory/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lint it.\n---\nLint.\n",
    ".factory/mcp.json": json.dumps({"mcpServers": {
        "docs": {"type": "http", "url": "https://docs.example/mcp", "disabled": False},
        "off": {"type": "stdio", "command": "x", "args": [], "disabled": True},
    }}),
}  # fmt: skip


def test_a_teams_factory_folder_is_read_as_droid_reads_it_and_carried(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.gitrepos import git, isolate_git

    isolate_git(tmp_path, monkeypatch)
    repo = tmp_path / "repo"
    git("init", "-q", repo)
    for folder in (".claude", ".factory"):  # the harnesses a new manifest names
        (home / folder).mkdir()
    build_file_tree(repo, DROID_FIRST)
    monkeypatch.chdir(repo)
    added = run("plugins", "add", "./.factory", "--project")
    assert added.code == 0, added.stdout + added.stderr
    claude = (repo / ".claude/agents/helper.md").read_text()
    assert 'tools: "Read, Bash"' in claude and claude.endswith("---\nYou help.\n")
    # ApplyPatch (no Claude name) and reasoningEffort are Droid's own: named, not dropped
    assert "skipped   claude: tools of agent helper: " in added.stdout
    assert "skipped   claude: reasoningEffort of agent helper: " in added.stdout
    assert (repo / ".claude/commands/test.md").read_text().endswith("Test $ARGUMENTS now.\n")
    assert json.loads((repo / ".mcp.json").read_text())["mcpServers"] == {
        "docs": {"type": "http", "url": "https://docs.example/mcp"}  # the turned-off one not
    }
    assert (repo / ".claude/skills/lint").is_symlink()
    # what skilltool writes into .factory for another source is not read back as the team's
    build_file_tree(repo, {"more/agents/other.md": agent_md("other")})
    assert run("plugins", "add", "./more", "--project").code == 0
    assert (repo / ".factory/droids/other.md").is_file()
    from skilltool import parse
    from skilltool.folders import Ours

    items = load("droid").read_folder(repo / ".factory", Ours(repo, repo / ".factory"), parse)
    assert [a.name for a in items.agents] == ["helper"]
    assert [a.native for a in items.agents] == [
        {"reasoningEffort": "high", "tools": ["ApplyPatch"]}
    ]
