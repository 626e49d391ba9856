"""Factory Droid in a repository: which of its folders it reads, started in a subfolder, which
side wins a name in both the home and the repository, whether it asks before starting a
project's server; and skilltool's own `plugins add --project` rendering, loaded inside the
repository and not beside it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conformance.projects import (
    TEAM_AGENT,
    TEAM_COMMAND,
    TEAM_SERVER,
    TEAM_SKILL,
    assert_team_current,
    team,
)
from tests.conformance.sandbox import make_home
from tests.conformance.stub import mcp_server
from tests.conformance.support import Proven, need
from tests.conformance.test_droid import droid_exec, droid_line, said, section

pytestmark = pytest.mark.conformance

BODY = "You are a droid of the tests: answer briefly, carefully and in one line.\n"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def skill(folder: Path, name: str, description: str) -> None:
    write(folder / name / "SKILL.md", f"---\nname: {name}\ndescription: {description}\n---\nB.\n")


def droid_file(folder: Path, name: str, description: str) -> None:
    write(folder / f"{name}.md", f"---\nname: {name}\ndescription: {description}\n---\n{BODY}")


def test_the_folders_droid_reads_from_a_subfolder_and_which_side_wins(
    tmp_path: Path, proven: Proven
) -> None:
    need("droid")
    home = make_home(tmp_path)
    repo = tmp_path / "repo"
    (repo / "src/deep").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    skill(repo / ".factory/skills", "p-factory", "PROJECT FACTORY SKILL")
    skill(repo / ".agents/skills", "p-agents", "PROJECT AGENTS SKILL")
    skill(repo / ".claude/skills", "p-claude", "PROJECT CLAUDE SKILL")
    for where, side in ((repo / ".factory", "PROJECT"), (home / ".factory", "HOME")):
        skill(where / "skills", "both-skill", f"BOTH {side} SKILL")
        droid_file(where / "droids", "both-droid", f"BOTH {side} DROID")
        write(where / "commands/both-cmd.md", f"---\ndescription: B\n---\n{side} CMD $ARGUMENTS\n")
    droid_file(repo / ".factory/droids", "p-droid", "PROJECT DROID")
    recorder = tmp_path / "rec.py"
    recorder.write_text(mcp_server('open(sys.argv[1], "a").write("started\\n")\n', ping=True))
    for config, flag in ((".factory/mcp.json", "factory"), (".mcp.json", "claude")):
        server = {"command": sys.executable, "args": [str(recorder), str(tmp_path / flag)]}
        write(repo / config, json.dumps({"mcpServers": {f"{flag}-srv": server}}))
    _, request = droid_exec(home, repo / "src/deep", "/both-cmd go")
    text = said(request)
    skills = section(text, "Available skills")
    for name, description in (("p-factory", "PROJECT FACTORY SKILL"),
                              ("p-agents", "PROJECT AGENTS SKILL"),
                              ("both-skill", "BOTH PROJECT SKILL")):  # fmt: skip
        assert f"{name}: {description}" in skills, skills
    assert "p-claude" not in skills and "BOTH HOME SKILL" not in skills
    droids = section(text, "Custom droids available")
    assert droid_line("p-droid", "PROJECT DROID", "project") in droids, droids
    assert droid_line("both-droid", "BOTH PROJECT DROID", "project") in droids, droids
    assert "BOTH HOME DROID" not in droids
    assert "PROJECT CMD go" in text and "HOME CMD" not in text
    assert "factory-srv___ping" in text and "claude-srv" not in text
    assert (tmp_path / "factory").exists() and not (tmp_path / "claude").exists()
    proven(
        "droid",
        "project, started in repo/src/deep: skills of .factory/skills and .agents/skills (not "
        ".claude/skills), droids of .factory/droids (location: project), commands of "
        ".factory/commands, the servers of .factory/mcp.json started with no question (not "
        ".mcp.json); a skill, droid or command in both the home and the project: the project's",
    )


def test_skilltool_project_loads_inside_and_not_outside(tmp_path: Path, proven: Proven) -> None:
    need("droid")
    t = team(tmp_path, "droid")
    assert_team_current(t, "droid")
    _, request = droid_exec(t.home, t.deep, f"/{TEAM_COMMAND} go")
    text = said(request)
    assert f"{TEAM_SKILL}: The team skill. Use in tests." in section(text, "Available skills")
    listed = section(text, "Custom droids available")
    assert droid_line(TEAM_AGENT, "The team agent", "project") in listed, listed
    assert "Run the team command on go." in text
    assert f"{TEAM_SERVER}___ping" in text
    assert t.started() == [f"team {t.deep}"], t.started()
    _, request = droid_exec(t.home, t.outside, "hi")  # beside the repository: none of it
    text = said(request)
    assert TEAM_SKILL not in text and TEAM_AGENT not in text and TEAM_SERVER not in text
    assert t.started() == [f"team {t.deep}"], t.started()
    proven(
        "droid",
        "`skilltool plugins add ./plugins/team --project` (status: agent, command, MCP current "
        "for droid): started in repo/src/deep Droid lists the linked skill and the droid "
        "(location: project), runs the command, and starts the server of .factory/mcp.json "
        "(once, unasked); started beside the repository, none of them",
    )
