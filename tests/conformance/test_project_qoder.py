"""Qoder CLI in a repository: skilltool's own `plugins add --project` rendering (its agent in
.qoder/agents, its command in .qoder/commands, its MCP server an entry of .qoder/settings.json,
its skill linked into .agents/skills), listed by Qoder's own listings when started in the
repository's top folder; from a subfolder of it, not the skill nor the command."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.homes import TIMEOUT
from tests.conformance.projects import (
    TEAM_AGENT,
    TEAM_COMMAND,
    TEAM_SERVER,
    TEAM_SKILL,
    assert_team_current,
    team,
)
from tests.conformance.sandbox import harness_env, side_by_side
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance


def test_skilltool_project_is_listed_in_the_top_folder_and_not_in_a_subfolder(
    tmp_path: Path, proven: Proven
) -> None:
    need("qoder")
    t = team(tmp_path, "qoder")
    assert_team_current(t, "qoder")
    env = harness_env(t.home)
    runs = [
        (("skills", "list"), t.repo),
        (("agents", "list"), t.repo),
        (("mcp", "list"), t.repo),
        (("skills", "list"), t.deep),
    ]

    listed = side_by_side([(("qodercli", *argv), cwd) for argv, cwd in runs], env, TIMEOUT)
    skills, agents, servers, deep = (done.stdout + done.stderr for done in listed)
    link = t.repo / ".agents/skills" / TEAM_SKILL / "SKILL.md"
    command = t.repo / ".qoder/commands" / f"{TEAM_COMMAND}.md"
    assert f"  Location:    {link}" in skills, skills
    assert f"{TEAM_COMMAND} [Enabled]\n  Description: The team command\n" in skills, skills
    assert f"  Location:    {command}" in skills, skills
    project = agents.split("Project:", 1)[1].split("User:", 1)[0].split("Built-in:", 1)[0]
    assert f"  {TEAM_AGENT} · " in project, agents
    assert f"✓ {TEAM_SERVER}: " in servers, servers  # started, and it answered
    assert any(line.startswith("team ") for line in t.started()), t.started()
    assert TEAM_SKILL not in deep and TEAM_COMMAND not in deep, deep
    proven(
        "qoder",
        "`skilltool plugins add ./plugins/team --project` (status: agent in .qoder/agents, "
        "command in .qoder/commands, MCP server in .qoder/settings.json, all current): started "
        "in the repository's top folder, `qodercli skills list` lists the skill linked into "
        ".agents/skills and the command, `agents list` the agent under Project, `mcp list` "
        f"starts {TEAM_SERVER} (connected); started in repo/src/deep, `skills list` lists "
        "neither the skill nor the command",
    )
