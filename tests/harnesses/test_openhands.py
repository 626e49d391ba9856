"""OpenHands: its subagent files and MCP entries as skilltool writes them, and what it says of
skills and agents it cannot take as written (tests/conformance/test_openhands.py proves these
in the binary)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from skilltool.harnesses.openhands import DEFAULT_TOOLS, OpenHands, openhands_tools
from skilltool.model import McpServer
from skilltool.parse import read_agent, read_skill
from skilltool.paths import Home, Project
from tests.harnesses.test_renderings import tricky_agent
from tests.helpers import agent_md, build_file_tree

SRC = Path("/plugin/.mcp.json")


def openhands(home: Path) -> OpenHands:
    return OpenHands(Home(home, explicit=True))


def test_an_agent_is_its_name_description_tools_and_body(home: Path, tmp_path: Path) -> None:
    [rendering] = openhands(home).render(tricky_agent(tmp_path))
    assert rendering.target == home / ".openhands/agents/tricky.md"
    text = rendering.content.decode("utf-8")
    fields = yaml.safe_load(text.split("---\n")[1])
    assert set(fields) == {"name", "description", "tools"}  # no model: it names a profile
    assert text.endswith("no final newline")


def test_tools_by_openhands_names_and_its_own_set_for_an_agent_with_none(
    tmp_path: Path,
) -> None:
    def agent(extra: str) -> list[str]:
        path = tmp_path / f"{len(extra)}.md"
        path.write_text(agent_md("a", extra=extra))
        found, problems = read_agent(path)
        assert found is not None, problems
        return openhands_tools(found)

    assert agent("") == list(DEFAULT_TOOLS)
    assert agent("tools: Read, Write, Bash, Grep, TodoWrite\n") == [
        "file_editor",
        "terminal",
        "task_tracker",
    ]
    assert agent("tools: Glob, Grep, WebFetch\n") == []  # none it has: it gets no tools


def test_servers_go_to_mcp_json_in_the_home_only(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness = openhands(home)
    place = harness.mcp_place()
    assert place is not None and place.path == home / ".openhands/mcp.json"
    stdio = McpServer("srv", SRC, "stdio", command="srv", args=("-v",))
    assert harness.mcp_value(stdio) == {"command": "srv", "args": ["-v"]}
    remote = McpServer("web", SRC, "http", url="https://h.invalid/mcp")
    assert harness.mcp_value(remote) == {"transport": "http", "url": "https://h.invalid/mcp"}
    in_dir = harness.mcp_value(McpServer("d", SRC, "stdio", command="srv", cwd="/tmp"))
    assert getattr(in_dir, "skips", False)
    monkeypatch.setenv("OPENHANDS_PERSISTENCE_DIR", str(tmp_path / "state"))
    moved = OpenHands(Home(home)).mcp_place()  # the variable moves mcp.json, not the agents
    assert moved is not None and moved.path == tmp_path / "state/mcp.json"
    assert OpenHands(Home(home)).root() == home / ".openhands"
    assert openhands(home).mcp_place() == place  # under --home, no variable of this one's
    project = OpenHands(Project(tmp_path / "repo", harnesses=("openhands",)))
    assert project.mcp_place() is None and "none from a project" in project.mcp_unsupported


def test_skill_names_it_leaves_out_and_descriptions_it_cuts(home: Path, tmp_path: Path) -> None:
    harness = openhands(home)
    root = build_file_tree(
        tmp_path / "skills",
        {
            "double/SKILL.md": "---\nname: a--b\ndescription: D.\n---\nB.\n",
            "apart/SKILL.md": "---\nname: elsewhere\ndescription: D.\n---\nB.\n",
            "no-name/SKILL.md": "---\ndescription: D.\n---\nB.\n",
            "Caps/SKILL.md": "---\ndescription: D.\n---\nB.\n",
            "long/SKILL.md": f"---\nname: long\ndescription: {'d' * 1025}\n---\nB.\n",
            "fine/SKILL.md": "---\nname: fine\ndescription: D.\n---\nB.\n",
        },
    )
    said = {}
    for folder in root.iterdir():
        skill = read_skill(folder)[0]
        assert skill is not None
        said[folder.name] = harness.skill_verdict(skill)
    assert said["fine"] is None and said["no-name"] is None  # named by its folder
    assert said["double"] == (True, "name is not lowercase letters, digits and single hyphens")
    assert said["Caps"] == (True, "name is not lowercase letters, digits and single hyphens")
    assert said["apart"] == (True, "its name 'elsewhere' is not its folder's, 'apart'")
    assert said["long"] == (False, "cut its description to 1024 characters")


def test_its_own_subagents_are_not_replaced(home: Path, tmp_path: Path) -> None:
    path = build_file_tree(tmp_path / "src", {"a.md": agent_md("general-purpose")})
    agent, _ = read_agent(path / "a.md")
    assert agent is not None
    (home / ".openhands").mkdir()
    why = openhands(home).absent(agent)
    assert why is not None and "'general-purpose' is the name of a built-in agent" in why
