"""Copilot CLI in a project: which of a repository's folders it reads, started in a subfolder
(repo/src/deep) of a git repository, offline (`COPILOT_OFFLINE`, a BYOK provider at a loopback
OpenAI stub or a dead port).

The project's files are skilltool's renderings for Copilot (the real `skilltool plugins
install --home` of a fixture plugin): the agent `~/.copilot/agents/helper.agent.md` copied to
`.github/agents/helper.agent.md`, the skill linked as `.github/skills/demo-skill` (a relative
link into `plugins/demo/skills/demo-skill`), and the `mcpServers` entry of
`~/.copilot/mcp-config.json` written into the project's `.mcp.json`. Listings: `copilot skill
list --json`, `copilot mcp list --json`, the `available:` list of `--agent nonexistent`; a
`copilot -p hi` run against the stub shows what reached the model and which servers started.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.homes import TIMEOUT
from tests.conformance.project_scope_a import (
    AGENT,
    COMMAND,
    SERVER,
    SKILL,
    TEAM_AGENT,
    TEAM_COMMAND,
    TEAM_SERVER,
    TEAM_SKILL,
    copy_plugin,
    git_repo,
    relative_link,
    rendered,
    skill_file,
    team_project,
    team_status,
    with_flag,
    write,
)
from tests.conformance.sandbox import DEAD_PROXY, harness_env, make_home, run
from tests.conformance.stub import OpenAIStub
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

AVAILABLE = re.compile(r"No such agent: nonexistent, available: (.*)$", re.M)


@pytest.fixture(autouse=True)
def _copilot() -> None:
    need("copilot")


@dataclass
class World:
    root: Path
    user: Path  # skilltool's USER rendering
    clean: Path
    repo: Path
    flags: Path
    entry: dict[str, Any]  # the project's server entry, as rendered

    @property
    def deep(self) -> Path:
        return self.repo / "src/deep"

    def flag(self, name: str) -> Path:
        return self.flags / name


def agent_text(name: str, tag: str) -> str:
    return f"---\nname: {name}\ndescription: {tag} agent {name}\n---\nBody.\n"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = tmp_path_factory.mktemp("project-copilot")
    flags = root / "flags"
    flags.mkdir()
    user = rendered(root / "user", "USER", ("copilot",), flags / "user")
    source = rendered(root / "proj", "PROJECT", ("copilot",), flags / "project")
    repo = git_repo(root / "work/repo")
    agent = (source / ".copilot/agents" / f"{AGENT}.agent.md").read_text()
    write(repo / ".github/agents" / f"{AGENT}.agent.md", agent)
    skill = copy_plugin((source / ".agents/skills" / SKILL).resolve(), repo)
    relative_link(repo / ".github/skills" / SKILL, skill)
    entry = json.loads((source / ".copilot/mcp-config.json").read_text())["mcpServers"][SERVER]
    write(repo / ".github/mcp.json", json.dumps({"mcpServers": {SERVER: entry}}, indent=2) + "\n")
    # other folders
    for folder in (".agents", ".claude", ".codex", ".copilot"):
        name = f"only-{folder[1:]}"
        write(repo / folder / "skills" / name / "SKILL.md", skill_file(name, "Another folder."))
    write(repo / ".claude/agents/claude-agent.md", agent_text("claude-agent", "PROJECT"))
    write(repo / ".github/agents/plain-md.md", agent_text("plain-md", "PROJECT"))
    write(repo / ".copilot/agents/copilot-agent.agent.md", agent_text("copilot-agent", "PROJECT"))
    write(repo / ".agents/agents/agents-agent.agent.md", agent_text("agents-agent", "PROJECT"))
    write(repo / ".claude/commands" / f"{COMMAND}.md", "---\ndescription: PROJECT hello command\n---\nHi $ARGUMENTS.\n")  # fmt: skip
    write(repo / ".github/prompts/gprompt.prompt.md", "---\ndescription: a prompt file\n---\nDo.\n")
    write(repo / ".github/commands/gcmd.md", "---\ndescription: a command\n---\nDo.\n")
    for path, name in ((".vscode/mcp.json", "vscode-srv"), (".copilot/mcp-config.json", "copilot-srv")):  # fmt: skip
        key = "servers" if path.startswith(".vscode") else "mcpServers"
        write(repo / path, json.dumps({key: {name: with_flag(entry, flags / name)}}))
    write(repo / "src/.github/skills/nested-skill/SKILL.md", skill_file("nested-skill", "Nested."))
    work = root / "work"
    write(work / ".github/skills/above-skill/SKILL.md", skill_file("above-skill", "Above."))
    write(work / "plain/.github/skills/plain-skill/SKILL.md", skill_file("plain-skill", "No git."))
    (work / "plain/a/b").mkdir(parents=True)
    (work / "sibling").mkdir()
    clean = make_home(root / "clean")
    (clean / ".copilot").mkdir()
    return World(root, user, clean, repo, flags, entry)


def copilot_env(home: Path, base_url: str = f"{DEAD_PROXY}/v1", **extra: str) -> dict[str, str]:
    provider = {
        "COPILOT_PROVIDER_BASE_URL": base_url,
        "COPILOT_PROVIDER_API_KEY": "dummy",
        "COPILOT_MODEL": "gpt-4.1",
        "COPILOT_OFFLINE": "true",
    }
    return harness_env(home, {**provider, **extra})


def skills(home: Path, cwd: Path) -> dict[str, dict[str, Any]]:
    done = run(["copilot", "skill", "list", "--json"], copilot_env(home), cwd, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    return {s["name"]: s for s in json.loads(done.stdout) if s["source"] != "builtin"}


def agents(home: Path, cwd: Path) -> list[str]:
    done = run(["copilot", "--agent", "nonexistent", "-p", "x"], copilot_env(home), cwd, timeout=TIMEOUT)  # fmt: skip
    match = AVAILABLE.search(done.stderr)
    assert done.returncode == 1 and match, done.stderr
    return [n.strip() for n in match.group(1).split(",") if n.strip()]


def mcp_names(home: Path, cwd: Path, **extra: str) -> list[str]:
    done = run(["copilot", "mcp", "list", "--json"], copilot_env(home, **extra), cwd, timeout=TIMEOUT)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return sorted(json.loads(done.stdout)["mcpServers"])


def prompt_run(home: Path, cwd: Path, *args: str, **extra: str) -> str:
    """`copilot -p hi --allow-all-tools` against the stub: the text of the model requests."""
    with OpenAIStub(reply="ok") as stub:
        env = copilot_env(home, stub.base_url, **extra)
        done = run(["copilot", *args, "-p", "hi", "--allow-all-tools"], env, cwd, timeout=90)
        assert done.returncode == 0, done.stdout + done.stderr
        return "\n".join(r.text for r in stub.model_requests())


def trust(home: Path, folder: Path) -> None:
    """What the interactive trust question records in ~/.copilot/config.json: never skilltool."""
    (home / ".copilot/config.json").write_text(json.dumps({"trustedFolders": [str(folder)]}))


def clear_flags(world: World) -> None:
    for f in world.flags.iterdir():
        f.unlink()


def test_skills_from_a_subfolder(world: World, proven: Proven) -> None:
    found = skills(world.clean, world.deep)
    assert found[SKILL]["description"] == "PROJECT demo skill. Use when testing."
    assert found[SKILL]["path"] == str(world.repo / ".github/skills" / SKILL)
    for name in ("only-agents", "only-claude", "nested-skill"):
        assert name in found, name
    assert "only-codex" not in found and "only-copilot" not in found and "above-skill" not in found
    proven(
        "copilot",
        "project, started in repo/src/deep, untrusted: skills of .github/skills (a relative "
        "symlink followed), .agents/skills, .claude/skills, in every folder from the git root "
        "down (source 'inherited'); not .codex/.copilot skills, not above the git root",
    )


def test_agents_from_a_subfolder(world: World, proven: Proven) -> None:
    found = agents(world.clean, world.deep)
    assert {AGENT, "plain-md", "claude-agent"} <= set(found), found
    assert "copilot-agent" not in found and "agents-agent" not in found
    proven(
        "copilot",
        "project agents, untrusted, from a subfolder: .github/agents/<a>.agent.md (and <a>.md) "
        "and .claude/agents/<a>.md; not .copilot/agents, not .agents/agents",
    )


def test_claude_commands_become_skills(world: World, proven: Proven) -> None:
    found = skills(world.clean, world.deep)
    assert found[COMMAND]["description"] == "PROJECT hello command"
    assert "gprompt" not in found and "gcmd" not in found
    proven(
        "copilot",
        "no command folder of its own: .claude/commands/<c>.md is loaded as a skill <c>; "
        ".github/prompts/*.prompt.md and .github/commands are not read",
    )


def test_without_git_parents_are_read_and_a_sibling_sees_nothing(
    world: World, proven: Proven
) -> None:
    assert "plain-skill" in skills(world.clean, world.root / "work/plain/a/b")
    sibling = world.root / "work/sibling"
    assert SKILL not in skills(world.clean, sibling)
    assert AGENT not in agents(world.clean, sibling)
    assert mcp_names(world.clean, sibling, COPILOT_ALLOW_ALL="true") == []
    proven(
        "copilot",
        "outside a git repository the parents' .github/skills are read; a sibling folder of "
        "the repo loads none of its items",
    )


def test_project_mcp_needs_the_git_root_trusted(
    world: World, tmp_path: Path, proven: Proven
) -> None:
    home = make_home(tmp_path)
    (home / ".copilot").mkdir()
    assert mcp_names(home, world.deep) == []
    clear_flags(world)
    prompt_run(home, world.deep)
    assert not world.flag("project").exists()
    trust(home, world.deep)  # the working directory is not enough
    assert mcp_names(home, world.deep) == []
    trust(home, world.repo)
    assert mcp_names(home, world.deep) == [SERVER]
    clear_flags(world)
    prompt_run(home, world.deep)
    assert world.flag("project").exists()
    proven(
        "copilot",
        ".github/mcp.json loads only when the git root (or a parent) is in ~/.copilot/config.json "
        "trustedFolders (what the interactive trust question writes); trusting only the "
        "subfolder is not enough; untrusted, `-p` starts nothing",
    )


def test_the_one_session_trust_flags(world: World, tmp_path: Path, proven: Proven) -> None:
    home = make_home(tmp_path)
    (home / ".copilot").mkdir()
    assert mcp_names(home, world.deep, COPILOT_ALLOW_ALL="true") == [SERVER]
    clear_flags(world)
    prompt_run(home, world.deep, "--trust-folder")
    assert not world.flag("project").exists()  # it trusts the working directory only
    clear_flags(world)
    prompt_run(home, world.repo, "--trust-folder")
    assert world.flag("project").exists()
    assert not (home / ".copilot/config.json").exists() or "trustedFolders" not in (home / ".copilot/config.json").read_text()  # fmt: skip
    proven(
        "copilot",
        "COPILOT_ALLOW_ALL=true trusts the folder (servers listed); `--trust-folder` starts the "
        "project's servers from the repo root but not from a subfolder, and saves no trust",
    )


def test_mcp_files_read_and_not_read(world: World, tmp_path: Path, proven: Proven) -> None:
    home = make_home(tmp_path)
    (home / ".copilot").mkdir()
    trust(home, world.repo)
    assert mcp_names(home, world.deep) == [SERVER]  # not .vscode/mcp.json, not .copilot/…
    # .mcp.json at the root: then .github/mcp.json there is not read
    root_json = world.repo / ".mcp.json"
    write(root_json, json.dumps({"mcpServers": {"root-srv": world.entry}}))
    try:
        assert mcp_names(home, world.deep) == ["root-srv"]
    finally:
        root_json.unlink()
    proven(
        "copilot",
        "project MCP files: .mcp.json or .github/mcp.json (`mcpServers`); with both at the root "
        "only .mcp.json is read; .vscode/mcp.json and .copilot/mcp-config.json are not",
    )


def test_precedence(world: World, proven: Proven) -> None:
    home = world.root / "prec"
    if home.exists():
        shutil.rmtree(home)
    shutil.copytree(world.user, home, symlinks=True)
    trust(home, world.repo)
    found = skills(home, world.deep)
    assert found[SKILL]["description"].startswith("PROJECT"), found[SKILL]
    text = prompt_run(home, world.deep)
    assert "USER helper agent" in text and "PROJECT helper agent" not in text
    clear_flags(world)
    prompt_run(home, world.repo)
    assert world.flag("project").exists() and not world.flag("user").exists()
    clear_flags(world)
    prompt_run(home, world.deep)
    assert world.flag("user").exists() and not world.flag("project").exists()
    proven(
        "copilot",
        "same name in home and project: the project's skill wins, the home's agent "
        "(~/.copilot/agents) wins; an MCP server of one name: the project's from the repo "
        "root, the home's from a subfolder",
    )


def test_skilltool_project_loads_inside_and_not_outside(tmp_path: Path, proven: Proven) -> None:
    """The real `skilltool plugins add ./plugins/team --project` for Copilot alone, then Copilot
    in repo/src/deep of the project the test trusted (skill and agent; no command, no server:
    not carried) and in a sibling folder (nothing)."""
    team = team_project(tmp_path, ("copilot",))
    status = team_status(team, "copilot")
    assert status[f"skill {TEAM_SKILL}"] == ("linked", str(team.repo / ".agents/skills"))
    assert status[f"agent {TEAM_AGENT}"] == ("current", str(team.repo / f".github/agents/{TEAM_AGENT}.agent.md"))  # fmt: skip
    assert status[f"command {TEAM_COMMAND}"][0] == "not carried"
    assert status[f"mcp {TEAM_SERVER}"][0] == "not supported"
    trust(team.home, team.repo)  # what the trust question records: never skilltool
    found = skills(team.home, team.deep)
    assert found[TEAM_SKILL]["description"] == "TEAM skill. Use when testing.", found
    assert found[TEAM_SKILL]["path"] == str(team.repo / ".agents/skills" / TEAM_SKILL)
    assert TEAM_COMMAND not in found
    assert TEAM_AGENT in agents(team.home, team.deep)
    assert mcp_names(team.home, team.deep) == []  # not carried: nothing written for it
    text = prompt_run(team.home, team.deep)
    assert "TEAM agent" in text and "TEAM skill. Use when testing." in text
    assert not team.flag.exists()
    # a sibling folder of the repository: none of it
    assert TEAM_SKILL not in skills(team.home, team.sibling)
    assert TEAM_AGENT not in agents(team.home, team.sibling)
    proven(
        "copilot",
        "after the real `skilltool plugins add ./plugins/team --project` for copilot (status: "
        "skill linked in .agents/skills, .github/agents/<a>.agent.md current, command and MCP "
        "not carried), Copilot in repo/src/deep of the trusted project loads the skill and the "
        "agent (both reach the model), no command and no server; in a sibling folder, none",
    )


def test_skilltool_project_for_claude_too_gives_copilot_its_server_and_command(
    tmp_path: Path, proven: Proven
) -> None:
    """With Claude Code among the project's harnesses, Copilot (trusted) takes Claude's files:
    the server skilltool reports 'not supported' for Copilot starts (the root's .mcp.json),
    and the command reported 'not carried' is a skill (.claude/commands)."""
    team = team_project(tmp_path, ("claude", "copilot"))
    status = team_status(team, "copilot")
    assert status[f"mcp {TEAM_SERVER}"][0] == "not supported"
    assert status[f"command {TEAM_COMMAND}"][0] == "not carried"
    assert team_status(team, "claude")[f"mcp {TEAM_SERVER}"] == ("current", str(team.repo / ".mcp.json"))  # fmt: skip
    trust(team.home, team.repo)
    found = skills(team.home, team.deep)
    assert found[TEAM_COMMAND]["path"] == str(team.repo / ".claude/commands"), found
    assert found[TEAM_COMMAND]["description"] == "TEAM command"
    assert agents(team.home, team.deep).count(TEAM_AGENT) == 1  # .github/ and .claude/agents
    assert mcp_names(team.home, team.deep) == [TEAM_SERVER]
    text = prompt_run(team.home, team.deep)
    assert f"{TEAM_SERVER}-ping" in text and team.flag.exists()
    proven(
        "copilot",
        "a project for claude and copilot: Copilot (trusted) starts the server skilltool wrote "
        "for Claude in .mcp.json (status for copilot: 'not supported') and loads "
        ".claude/commands/<c>.md as a skill (status: 'not carried'); the agent, written to "
        ".github/agents and .claude/agents, is offered once",
    )
