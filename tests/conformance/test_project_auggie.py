"""Auggie in a repository: skilltool's own `plugins add --project` rendering (its agent in
.augment/agents, its command in .augment/commands, its skill linked into .agents/skills),
loaded from the repository's top folder and from any folder below it (Auggie takes the git
repository's top as its workspace), none of it beside the repository; the plugin's MCP server
named as not carried (skilltool writes no project settings.json of Auggie's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.augment_stub import AugmentStub, skills_of, tools_of
from tests.conformance.projects import (
    TEAM_AGENT,
    TEAM_COMMAND,
    TEAM_SERVER,
    TEAM_SKILL,
    status_renderings,
    team,
)
from tests.conformance.support import Proven, need
from tests.conformance.test_auggie import auggie_run, user_text
from tests.helpers import build_file_tree

pytestmark = pytest.mark.conformance


def test_skilltool_project_loads_inside_the_repository_and_not_beside_it(
    tmp_path: Path, proven: Proven
) -> None:
    need("auggie")
    t = team(tmp_path, "auggie")
    seen = status_renderings(t.status)
    assert seen[("skill", TEAM_SKILL, "")][0] == "linked", t.status
    for kind, name, where in (
        ("agent", TEAM_AGENT, f".augment/agents/{TEAM_AGENT}.md"),
        ("command", TEAM_COMMAND, f".augment/commands/{TEAM_COMMAND}.md"),
    ):
        state, found = seen[(kind, name, "auggie")]
        assert (state, found.split(" ")[0]) == ("current", where), t.status
    assert "reads a project's MCP servers from .augment/settings.json" in t.added, t.added
    assert not (t.repo / ".augment/settings.json").exists()
    assert not [p for p in t.home.rglob("*") if "team" in p.name], "skilltool wrote into the home"
    prompt = f"/{TEAM_COMMAND} go"
    with AugmentStub(reply="done") as stub:
        _, [top] = auggie_run(t.home, stub, t.repo, prompt)
        _, [deep] = auggie_run(t.home, stub, t.deep, prompt)
        _, [outside] = auggie_run(t.home, stub, t.outside, prompt)
    tool = f"sub-agent-{TEAM_AGENT}"
    for request in (top, deep):
        assert list(skills_of(request)) == [TEAM_SKILL], list(skills_of(request))
        assert tool in tools_of(request)
        assert user_text(request).startswith("Run the team command on go."), user_text(request)
    assert TEAM_SKILL not in skills_of(outside)
    assert tool not in tools_of(outside)
    assert "team command" not in user_text(outside), user_text(outside)
    assert t.started() == []  # no server of the plugin's anywhere
    proven(
        "auggie",
        "`skilltool plugins add ./plugins/team --project` (status: agent in .augment/agents "
        f"and command in .augment/commands current; MCP {TEAM_SERVER} not carried): started "
        "in the repository's top folder or in repo/src/deep, Auggie (Augment stub) lists the "
        f"skill linked into .agents/skills, offers {tool} and expands /{TEAM_COMMAND}; "
        "started beside the repository, none of them",
    )
    # a skill and an agent of the same names in the home: the home's are the ones it takes
    build_file_tree(
        t.home,
        {
            f".agents/skills/{TEAM_SKILL}/SKILL.md": f"---\nname: {TEAM_SKILL}\n"
            "description: HOME skill\n---\nHome.\n",
            f".augment/agents/{TEAM_AGENT}.md": f"---\nname: {TEAM_AGENT}\n"
            "description: HOME agent\n---\nHome.\n",
        },
    )
    with AugmentStub(reply="done") as stub:
        _, [both] = auggie_run(t.home, stub, t.deep, "hi")
    assert skills_of(both)[TEAM_SKILL]["description"] == "HOME skill"
    assert "- Description: HOME agent\n" in tools_of(both)[tool]["description"]
    proven(
        "auggie",
        "a skill and an agent of one name in the home and the project: Auggie takes the "
        "home's (~/.agents/skills, ~/.augment/agents come before the repository's folders)",
    )
