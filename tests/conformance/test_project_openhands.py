"""OpenHands in a repository: skilltool's own `plugins add --project` rendering (its agent in
.openhands/agents, its skill linked into .agents/skills), read as OpenHands reads a project:
the skill from the folder it is started in and from the repository's top, the agent only from
the folder it is started in; the plugin's MCP server and command named as not carried
(OpenHands reads MCP servers only from ~/.openhands/mcp.json, and has no commands)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.projects import (
    TEAM_AGENT,
    TEAM_SERVER,
    TEAM_SKILL,
    status_renderings,
    team,
)
from tests.conformance.support import Proven, need
from tests.conformance.test_openhands import agent_types, headless, skills_listed, system_of
from tests.helpers import build_file_tree

pytestmark = pytest.mark.conformance


def test_skilltool_project_loads_from_the_top_folder_and_the_skill_from_below(
    tmp_path: Path, proven: Proven
) -> None:
    need("openhands")
    t = team(tmp_path, "openhands")
    seen = status_renderings(t.status)
    assert seen[("skill", TEAM_SKILL, "")][0] == "linked", t.status
    state, found = seen[("agent", TEAM_AGENT, "openhands")]
    assert (state, found.split(" ")[0]) == ("current", f".openhands/agents/{TEAM_AGENT}.md")
    assert "reads MCP servers only from ~/.openhands/mcp.json" in t.added, t.added
    assert not (t.repo / ".openhands/mcp.json").exists()
    assert not [p for p in t.home.rglob("*") if "team" in p.name], "skilltool wrote into the home"
    # a skill and an agent of the same names in the home, told apart by their descriptions
    build_file_tree(
        t.home,
        {
            f".agents/skills/{TEAM_SKILL}/SKILL.md": f"---\nname: {TEAM_SKILL}\n"
            "description: HOME skill\n---\nHome.\n",
            f".openhands/agents/{TEAM_AGENT}.md": f"---\nname: {TEAM_AGENT}\n"
            "description: HOME agent\n---\nHome.\n",
        },
    )
    _, [top, *_] = headless(t.home, t.repo)
    _, [deep, *_] = headless(t.home, t.deep)
    assert skills_listed(top) == [TEAM_SKILL] == skills_listed(deep)
    for request in (top, deep):  # the project's skill, from the repository's top
        assert "HOME skill" not in system_of(request)
    assert agent_types(top)[TEAM_AGENT].startswith("The team agent")
    assert agent_types(deep)[TEAM_AGENT] == "HOME agent"
    assert t.started() == []  # no server of the plugin's anywhere
    proven(
        "openhands",
        "`skilltool plugins add ./plugins/team --project` (status: agent in .openhands/agents "
        f"current; MCP {TEAM_SERVER} not carried), with a skill and an agent of the same names "
        "in the home: started in the repository's top folder, OpenHands (stub) lists the "
        f"project's skill (linked into .agents/skills) and offers the project's {TEAM_AGENT}; "
        "started in repo/src/deep, the project's skill (read from the repository's top) and the "
        "home's agent (a project's agents are read only from the folder it is started in). "
        "A skill or an agent of one name in both: the project's",
    )
