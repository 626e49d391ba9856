"""Kilo Code CLI in a repository: which of the repository's folders it reads, started in a subfolder
(`repo/src/deep`), with skilltool's renderings copied there (see projects.py). Each test is
one finding of docs/findings-project-b.md."""

from __future__ import annotations

import functools
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.homes import TIMEOUT
from tests.conformance.projects import (
    AGENT,
    COMMAND,
    SERVER,
    SKILL,
    TEAM_AGENT,
    TEAM_COMMAND,
    TEAM_SERVER,
    TEAM_SKILL,
    World,
    assert_team_current,
    json_entry,
    team,
    world,
)
from tests.conformance.sandbox import harness_env, run
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

AGENT_LINE = re.compile(r"^(\S+) \((primary|subagent|all)\)$", re.M)


@pytest.fixture(scope="module")
def w(tmp_path_factory: pytest.TempPathFactory) -> World:
    need("kilo")
    w = world(tmp_path_factory.mktemp("project-kilo"), ("kilo",))
    home = w.rendered / ".config/kilo"
    w.link_skill(".agents/skills")  # the plugin's skill, a relative link
    for folder in (".claude/skills", ".kilo/skills", ".kilo/skill", ".kilocode/skills",
                   ".opencode/skills", ".gemini/skills", ".qwen/skills"):  # fmt: skip
        w.skill_copy(folder, "s-" + folder.strip(".").replace("/", "-"))
    w.place(f".kilo/agents/{AGENT}.md", home / f"agents/{AGENT}.md")
    for folder in (".kilo/agent", ".kilocode/agents", ".opencode/agent"):
        w.place(f"{folder}/a-{folder.strip('.').replace('/', '-')}.md", home / f"agents/{AGENT}.md")
    w.place(f".kilo/command/{COMMAND}.md", home / f"command/{COMMAND}.md")
    for folder in (
        ".kilo/commands",
        ".kilocode/commands",
        ".kilocode/workflows",
        ".opencode/command",
    ):
        w.place(
            f"{folder}/c-{folder.strip('.').replace('/', '-')}.md", home / f"command/{COMMAND}.md"
        )
    entry = json_entry(home / "kilo.jsonc", "mcp", SERVER)
    w.place(".kilo/kilo.jsonc", json.dumps({"mcp": {SERVER: entry}}, indent=2) + "\n")
    for name in ("kilo.jsonc", "opencode.json", ".opencode/opencode.json"):
        tag = "m-" + name.strip(".").replace("/", "-").replace(".", "-")
        w.place(name, json.dumps({"mcp": {tag: entry}}) + "\n")
    argv = json_entry(home / "kilo.jsonc", "mcp", SERVER, "command")
    assert isinstance(argv, list)
    legacy = {"m-kilocode-mcp": {"command": argv[0], "args": argv[1:]}}  # the old extension's shape
    w.place(".kilocode/mcp.json", json.dumps({"mcpServers": legacy}) + "\n")
    # above the git root (outer/), and the same items in a tree without git
    for base in (w.repo.parent, w.root / "nogit"):
        (base / ".kilo/agents").mkdir(parents=True)
        shutil.copyfile(home / f"agents/{AGENT}.md", base / ".kilo/agents/above-agent.md")
        for folder in (".agents/skills", ".kilo/skills"):
            text = (w.plugin_dir / f"skills/{SKILL}/SKILL.md").read_text()
            name = "above-" + folder.split("/")[0].strip(".")
            (base / folder / name).mkdir(parents=True, exist_ok=True)
            (base / folder / name / "SKILL.md").write_text(text.replace(SKILL, name))
    (w.root / "nogit/proj/src").mkdir(parents=True)
    return w


@functools.cache
def _kilo(home: str, cwd: str, *args: str) -> str:
    out = Path(home) / "tmp/kilo-stdout.txt"  # through a file: Kilo exits before a pipe drains
    argv = ["sh", "-c", 'exec "$@" >"$OUT"', "sh", "kilo", *args]
    env = harness_env(Path(home), {"OUT": str(out)})
    done = run(argv, env, Path(cwd), timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    return out.read_text()


def kilo(home: Path, cwd: Path, *args: str) -> str:
    return _kilo(str(home), str(cwd), *args)


def skills(home: Path, cwd: Path) -> dict[str, str]:
    return {s["name"]: s["location"] for s in json.loads(kilo(home, cwd, "debug", "skill"))}


def config(home: Path, cwd: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(kilo(home, cwd, "debug", "config"))
    return data


def test_skills_from_the_subfolder(w: World, proven: Proven) -> None:
    found = skills(w.bare, w.deep)
    link = w.repo / ".agents/skills" / SKILL
    assert found[SKILL] == str(link / "SKILL.md"), found  # the relative link followed
    for folder in (".claude/skills", ".kilo/skills", ".kilo/skill", ".kilocode/skills"):
        name = "s-" + folder.strip(".").replace("/", "-")
        assert found[name] == str(w.repo / folder / name / "SKILL.md"), found
    assert not {"s-opencode-skills", "s-gemini-skills", "s-qwen-skills"} & set(found), found
    proven("kilo", "project skills from repo/src/deep: .agents/skills (a relative symlinked dir "
           "followed), .claude/skills, .kilo/skills, .kilo/skill, .kilocode/skills; not "
           ".opencode, .gemini, .qwen")  # fmt: skip


def test_agents_from_the_subfolder(w: World, proven: Proven) -> None:
    agents = config(w.bare, w.deep)["agent"]
    assert agents[AGENT]["prompt"] == "You are the project agent. Answer briefly and carefully."
    assert {"a-kilo-agent", "a-kilocode-agents"} <= set(agents), agents
    assert "a-opencode-agent" not in agents
    listed = dict(AGENT_LINE.findall(kilo(w.bare, w.deep, "agent", "list")))
    assert listed.get(AGENT) == "primary", listed
    proven("kilo", "project agents: .kilo/agents/X.md (and .kilo/agent, .kilocode/agents), the "
           "rendered file as is (`kilo agent list`: `proj-agent (primary)`); not .opencode/agent")  # fmt: skip


def test_commands_from_the_subfolder(w: World, proven: Proven) -> None:
    commands = config(w.bare, w.deep)["command"]
    assert commands[COMMAND]["template"] == "Run the project command on $ARGUMENTS."
    assert {"c-kilo-commands", "c-kilocode-commands"} <= set(commands), commands
    assert not {"c-kilocode-workflows", "c-opencode-command"} & set(commands), commands
    proven("kilo", "project commands: .kilo/command/X.md (and .kilo/commands, .kilocode/commands); "
           "not .kilocode/workflows, not .opencode/command")  # fmt: skip


def test_mcp_servers_start_without_approval(w: World, proven: Proven) -> None:
    mcp = config(w.bare, w.deep)["mcp"]
    assert {SERVER, "m-kilo-jsonc", "m-opencode-json"} <= set(mcp), mcp
    assert not {"m-opencode-opencode-json", "m-kilocode-mcp"} & set(mcp), mcp
    before = len(w.started())
    shown = kilo(w.bare, w.deep, "mcp", "list")
    assert re.search(rf"✓ {SERVER}\b.*connected", shown), shown
    assert f"project {w.deep}" in w.started()[before:], w.started()
    proven("kilo", "project MCP: `mcp` of .kilo/kilo.jsonc, and of kilo.jsonc and **opencode.json** "
           "at the repo root (so OpenCode's project file is Kilo's too); not "
           ".opencode/opencode.json, not .kilocode/mcp.json; `kilo mcp list` starts them (recorder "
           "ran) with no trust or approval asked")  # fmt: skip


def test_bound_to_the_git_root(w: World, proven: Proven) -> None:
    found = skills(w.bare, w.deep)
    assert not {"above-agents", "above-kilo"} & set(found), found
    assert "above-agent" not in config(w.bare, w.deep)["agent"]
    # without git: .kilo/ is read up the tree, but .agents/skills only in the folder itself
    nogit = w.root / "nogit/proj/src"
    assert "above-agent" in config(w.bare, nogit)["agent"]
    found = skills(w.bare, nogit)
    assert "above-kilo" in found and "above-agents" not in found, found
    proven("kilo", "walks up from the subfolder to the git root and no further; without git "
           ".kilo/ folders are read all the way up but .agents/skills (and .claude/skills) "
           "only in the start folder itself")  # fmt: skip


def test_outside_the_repository_nothing(w: World, proven: Proven) -> None:
    assert SKILL not in skills(w.bare, w.outside)
    data = config(w.bare, w.outside)
    assert AGENT not in data.get("agent", {}) and COMMAND not in data.get("command", {})
    assert SERVER not in (data.get("mcp") or {})
    proven("kilo", "started in a sibling folder of the repo: none of its items")


def test_precedence_project_over_home(w: World, proven: Proven) -> None:
    data = config(w.user, w.deep)
    assert data["agent"][AGENT]["prompt"].startswith("You are the project agent")
    assert data["command"][COMMAND]["template"].startswith("Run the project command")
    assert data["mcp"][SERVER]["command"][-1] == "project"
    skill = skills(w.user, w.deep)[SKILL]
    proven("kilo", "same names in ~ and the repo: agent, command and MCP server are the "
           f"project's; the skill is {'the project' if str(w.repo) in skill else 'the home'}'s")  # fmt: skip
    assert str(w.repo) in skill, skill


def test_skilltool_project_loads_inside_and_not_outside(tmp_path: Path, proven: Proven) -> None:
    need("kilo")
    t = team(tmp_path, "kilo")
    assert_team_current(t, "kilo")
    found = skills(t.home, t.deep)
    assert found.get(TEAM_SKILL) == str(t.repo / ".agents/skills" / TEAM_SKILL / "SKILL.md"), found
    data = config(t.home, t.deep)
    assert data["agent"][TEAM_AGENT]["prompt"] == "You are the team agent. Answer briefly."
    assert data["command"][TEAM_COMMAND]["template"] == "Run the team command on $ARGUMENTS."
    listed = dict(AGENT_LINE.findall(kilo(t.home, t.deep, "agent", "list")))
    assert listed.get(TEAM_AGENT) == "primary", listed
    shown = kilo(t.home, t.deep, "mcp", "list")
    assert re.search(rf"✓ {TEAM_SERVER}\b.*connected", shown), shown
    assert t.started() == [f"team {t.deep}"], t.started()
    # beside the repository: none of it
    assert TEAM_SKILL not in skills(t.home, t.outside)
    data = config(t.home, t.outside)
    assert TEAM_AGENT not in data.get("agent", {}) and TEAM_COMMAND not in data.get("command", {})
    assert TEAM_SERVER not in (data.get("mcp") or {})
    assert t.started() == [f"team {t.deep}"], t.started()
    proven("kilo", "`skilltool plugins add ./plugins/team --project` (status: agent, command, "
           "MCP current for kilo): started in repo/src/deep Kilo lists the linked skill, the "
           "agent (primary) and command, and starts the server from .kilo/kilo.jsonc (once); "
           "started beside the repo, none of them")  # fmt: skip
