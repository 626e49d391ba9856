"""Cline CLI in a repository: the folders it reads from any folder of it (a git repository),
and none beside it; and skilltool's own `plugins add --project` rendering (its
agent in .cline/agents, its command in .clinerules/workflows, its skill linked into
.agents/skills), loaded there, with the plugin's MCP server named as not carried (Cline reads
MCP servers only from its home)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.projects import (
    TEAM_AGENT,
    TEAM_COMMAND,
    TEAM_SERVER,
    TEAM_SKILL,
    status_renderings,
    team,
)
from tests.conformance.support import Proven, need
from tests.conformance.test_cline import (
    cline_run,
    listed_skills,
    signed_in,
    subagent_tool,
    tools_of,
    user_texts,
)

pytestmark = pytest.mark.conformance


def test_skilltool_project_loads_inside_the_repository_and_not_beside_it(
    tmp_path: Path, proven: Proven
) -> None:
    need("cline")
    t = team(tmp_path, "cline")
    seen = status_renderings(t.status)
    assert seen[("skill", TEAM_SKILL, "")][0] == "linked", t.status
    state, where = seen[("agent", TEAM_AGENT, "cline")]
    assert (state, where.split(" ")[0]) == ("current", f".cline/agents/{TEAM_AGENT}.yml")
    # `team-cmd` is taken by Cline's own /team (its /^\/team\b/): not written, and said
    assert f"reads /{TEAM_COMMAND} as its own /team command" in t.added, t.added
    assert not (t.repo / ".clinerules/workflows").exists()
    # a workflow of the team's own in the folder skilltool writes a project's commands to
    workflow = t.repo / ".clinerules/workflows/team_flow.md"
    workflow.parent.mkdir(parents=True)
    workflow.write_text("---\ndescription: A team flow\n---\nRun the TEAM FLOW on\n")
    assert "reads MCP servers only from its home" in t.added, t.added
    assert not (t.repo / ".cline/data").exists()
    assert not [p for p in t.home.rglob("*") if "team" in p.name], "skilltool wrote into the home"
    with signed_in(t.home) as stub:
        _, [top, *_] = cline_run(t.home, stub, t.repo, "/team_flow go")
        _, [deep, *_] = cline_run(t.home, stub, t.deep, "/team_flow go")
        _, [outside, *_] = cline_run(t.home, stub, t.outside, "/team_flow go")
        _, [team_cmd, *_] = cline_run(t.home, stub, t.repo, f"/{TEAM_COMMAND} go")
    assert listed_skills(top) == [TEAM_SKILL], listed_skills(top)
    assert subagent_tool(TEAM_AGENT) in tools_of(top)
    assert "Run the TEAM FLOW on go" in user_texts(top)[-1], user_texts(top)
    said = user_texts(team_cmd)[-1]
    assert "spawn a team of agents for the following task: -cmd go" in said, said
    # from a subfolder of the repository all the same; beside it, none of them
    assert listed_skills(deep) == [TEAM_SKILL], listed_skills(deep)
    assert subagent_tool(TEAM_AGENT) in tools_of(deep)
    assert "Run the TEAM FLOW on go" in user_texts(deep)[-1], user_texts(deep)
    assert TEAM_SKILL not in listed_skills(outside)
    assert subagent_tool(TEAM_AGENT) not in tools_of(outside)
    assert "TEAM FLOW" not in user_texts(outside)[-1], user_texts(outside)
    assert t.started() == []  # no server of the plugin's anywhere
    proven(
        "cline",
        "`skilltool plugins add ./plugins/team --project` (status: agent in .cline/agents "
        f"current; MCP {TEAM_SERVER} not carried: Cline reads MCP servers only from its home; "
        f"/{TEAM_COMMAND} not written: Cline sends '/{TEAM_COMMAND} go' to its own /team as "
        "'spawn a team of agents for the following task: -cmd go'): started in the "
        "repository's top folder or in repo/src/deep, Cline lists the skill linked into "
        ".agents/skills, offers the agent and expands a workflow of .clinerules/workflows; "
        "started beside the repository, none of them",
    )
