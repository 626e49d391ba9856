"""Continue CLI: its MCP servers as items of config.yaml's `mcpServers` list, written only
into a config.yaml the user has, and what it says it takes none of (skills, agents, commands,
hooks) and why (tests/conformance/test_continue.py proves these in the binary)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from skilltool.errors import SkilltoolError
from skilltool.harnesses import Harness
from skilltool.model import McpServer
from skilltool.paths import Home
from tests.harnesses.test_renderings import tricky_agent
from tests.helpers import agent_md, build_file_tree, run

SRC = Path("/plugin/.mcp.json")
# `continue` is a Python keyword: the module is imported by its name, as the registry does
Continue: type[Harness] = importlib.import_module("skilltool.harnesses.continue").Continue


def continue_cli(home: Path) -> Harness:
    return Continue(Home(home, explicit=True))


def test_a_server_is_an_item_of_the_users_config_yaml(home: Path) -> None:
    (home / ".continue").mkdir()
    (home / ".continue/config.yaml").write_text("name: Local\nversion: 1.0.0\nschema: v1\n")
    harness = continue_cli(home)
    place = harness.mcp_place()
    assert place is not None
    assert (place.path, place.format, place.table) == (
        home / ".continue/config.yaml",
        "yaml-list",
        ("mcpServers",),
    )
    server = McpServer("srv", SRC, "stdio", "/opt/srv", ("-v",), {"K": "v"})
    assert harness.mcp_value(server) == {"command": "/opt/srv", "args": ["-v"], "env": {"K": "v"}}


def test_no_config_yaml_is_made_where_the_user_has_none(home: Path) -> None:
    """With no config.yaml, cn loads the hub's default assistant: one of skilltool's making
    would take its place, so none is made, and the line says how to have the servers."""
    (home / ".continue").mkdir()
    harness = continue_cli(home)
    assert harness.mcp_place() is None
    assert "~/.continue/config.yaml, which does not exist" in harness.mcp_unsupported


def test_no_skill_agent_or_acp_and_each_said_once_by_validate(home: Path, tmp_path: Path) -> None:
    harness, agent = continue_cli(home), tricky_agent(tmp_path)
    assert harness.render(agent) == []
    assert "--beta-subagent-tool" in (harness.refusal(agent) or "")
    with pytest.raises(SkilltoolError, match="cn has no ACP server"):
        harness.launch(agent)
    root = build_file_tree(tmp_path / "p", {
        "agents/helper.md": agent_md("helper"),
        "skills/notes/SKILL.md": "---\nname: notes\ndescription: Take notes.\n---\n",
    })  # fmt: skip
    (home / ".continue").mkdir()
    lines = run("plugins", "validate", root, "--home", home).lines
    assert [line.split(":")[0] for line in lines if "Continue CLI takes none" in line] == [
        "skills",
        "agents",
    ]
    assert not any("verdict:" in line for line in lines)  # not beside each skill and agent
