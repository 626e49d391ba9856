"""Continue CLI: its MCP servers as items of config.yaml's `mcpServers` list, written only
into a config.yaml the user has; its skills as copies in ~/.continue/skills, each skilltool's
by its marker file and digest; and what it says it takes none of (agents, commands, hooks)
and why (tests/conformance/test_continue.py proves these in the binary)."""

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


def test_no_agent_or_acp_and_each_said_once_by_validate(home: Path, tmp_path: Path) -> None:
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
    assert [line.split(":")[0] for line in lines if "Continue CLI takes none" in line] == ["agents"]
    assert not any("verdict:" in line for line in lines)  # not beside each skill and agent


SKILL = "---\nname: {0}\ndescription: The {0} skill.\n---\nDo {0}.\n"


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_skills_are_copies_in_its_own_folder_owned_exactly(home: Path, tmp_path: Path) -> None:
    """~/.continue/skills gets a copy of each skill (cn passes over a link), not a link; a
    user's own skill folder there, and a copy edited by hand, are left; uninstall gives the
    folder back byte for byte."""
    plugin = build_file_tree(tmp_path / "p", {
        "skills/notes/SKILL.md": SKILL.format("notes"),
        "skills/tidy/SKILL.md": SKILL.format("tidy"),
        "skills/tidy/scripts/run.sh": "#!/bin/sh\necho tidy\n",
    })  # fmt: skip
    skills = home / ".continue/skills"
    build_file_tree(skills, {"mine/SKILL.md": SKILL.format("mine"), "tidy/SKILL.md": "my own\n"})
    before = files(skills)
    env = {"SKILLTOOL_PLUGINS": str(plugin)}

    def skilltool(*args: str) -> list[str]:
        return run("plugins", *args, "--only", "continue", "--home", home, env=env).lines

    said = skilltool("install")
    assert f"copied    continue skill notes from {plugin}/skills/notes" in said, said
    assert any(line.startswith("left      ~/.continue/skills/tidy: not a copy") for line in said)
    assert not (skills / "notes").is_symlink()
    assert (skills / "notes/SKILL.md").read_text() == SKILL.format("notes")
    marker = (skills / "notes/.skilltool-copy").read_text()
    assert marker.startswith(f"copied by skilltool from {plugin}/skills/notes (sha256:")
    assert skilltool("install")[-1] == "1 unchanged, 1 left alone"
    # a changed skill is copied again; a copy edited by hand is not, nor removed
    (plugin / "skills/notes/SKILL.md").write_text(SKILL.format("notes") + "More.\n")
    assert any(line.startswith("recopied  continue skill notes") for line in skilltool("install"))
    assert (skills / "notes/SKILL.md").read_text().endswith("More.\n")
    (skills / "notes/SKILL.md").write_text("edited\n")
    assert any("edited by hand" in line for line in skilltool("install"))
    assert any("edited by hand" in line for line in skilltool("uninstall"))
    assert (skills / "notes/SKILL.md").read_text() == "edited\n"
    (skills / "notes/SKILL.md").write_text(SKILL.format("notes") + "More.\n")
    skilltool("uninstall")
    assert files(skills) == before


def test_in_a_project_its_skills_are_not_carried(tmp_path: Path) -> None:
    from skilltool.model import Skill
    from skilltool.paths import Project

    harness = Continue(Project(tmp_path, "skilltool", ("continue",)))
    assert harness.own_skills_dir() is None
    verdict = harness.skill_verdict(Skill("notes", tmp_path / "notes", "N."))
    assert verdict is not None and verdict.skips and ".continue/skills" in verdict.why
