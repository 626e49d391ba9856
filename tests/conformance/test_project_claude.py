"""Claude Code in a project: which of a repository's folders it reads, started in a subfolder
(repo/src/deep) of a git repository, against a loopback Anthropic stub.

The project's files are skilltool's own renderings (the real `skilltool plugins install
--home` of a fixture plugin, copied into the repository): the agent `.claude/agents/helper.md`,
the command `.claude/commands/hello.md`, the skill `.claude/skills/demo-skill` as a relative
link into `plugins/demo/skills/demo-skill`, and the MCP server entry in `.mcp.json`. What was
loaded is read from the init event of `claude -p --output-format stream-json --verbose hi`
and from the requests the stub received; an MCP server proves it started by writing a file.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
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
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import AnthropicStub, Recorded
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance


@pytest.fixture(autouse=True)
def _claude() -> None:
    need("claude")


@dataclass
class World:
    root: Path
    user: Path  # a home where skilltool installed the USER copy of the plugin
    clean: Path  # a home with an empty ~/.claude
    repo: Path
    flags: Path
    runs: dict[tuple[Path, Path], tuple[dict[str, Any], list[Recorded]]] = field(default_factory=dict)  # fmt: skip

    @property
    def deep(self) -> Path:
        return self.repo / "src/deep"

    def flag(self, name: str) -> Path:
        return self.flags / name


def project_entry(source_home: Path) -> dict[str, Any]:
    """The server entry skilltool rendered for Claude Code (in its generated plugin)."""
    config = json.loads((source_home / ".claude/skills/demo.mcp/.mcp.json").read_text())
    entry: dict[str, Any] = config["mcpServers"][SERVER]
    return entry


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = tmp_path_factory.mktemp("project-claude")
    flags = root / "flags"
    flags.mkdir()
    user = rendered(root / "user", "USER", ("claude",), flags / "user-plugin")
    source = rendered(root / "proj", "PROJECT", ("claude",), flags / "project")
    work = root / "work"
    repo = git_repo(work / "repo")
    claude = source / ".claude"
    for part in (f"agents/{AGENT}.md", f"commands/{COMMAND}.md"):
        write(repo / ".claude" / part, (claude / part).read_text())
    skill = copy_plugin((claude / "skills" / SKILL).resolve(), repo)
    relative_link(repo / ".claude/skills" / SKILL, skill)
    mcp = {"mcpServers": {SERVER: project_entry(source)}}
    write(repo / ".mcp.json", json.dumps(mcp, indent=2) + "\n")
    # the other harnesses' skill folders, a nested one, one above the git root, one without git
    for folder in (".agents", ".github", ".codex"):
        name = f"only-{folder[1:]}"
        write(repo / folder / "skills" / name / "SKILL.md", skill_file(name, "Another folder."))
    write(repo / "src/.claude/skills/nested-skill/SKILL.md", skill_file("nested-skill", "Nested."))
    write(work / ".claude/skills/above-skill/SKILL.md", skill_file("above-skill", "Above."))
    above = with_flag(project_entry(source), flags / "above")
    write(work / ".mcp.json", json.dumps({"mcpServers": {"above-srv": above}}) + "\n")
    write(work / "plain/.claude/skills/plain-skill/SKILL.md", skill_file("plain-skill", "No git."))
    (work / "plain/a/b").mkdir(parents=True)
    (work / "sibling").mkdir()
    clean = make_home(root / "clean")
    (clean / ".claude").mkdir()
    return World(root, user, clean, repo, flags)


def claude_env(home: Path, stub: AnthropicStub) -> dict[str, str]:
    keys = {"ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": stub.base_url}
    return harness_env(home, keys)


def print_run(world: World, home: Path, cwd: Path) -> tuple[dict[str, Any], list[Recorded]]:
    """`claude -p --output-format stream-json --verbose hi`: the init event and the requests
    (run once per home and folder)."""
    key = (home, cwd)
    if key not in world.runs:
        with AnthropicStub() as stub:
            argv = ["claude", "-p", "--output-format", "stream-json", "--verbose", "hi"]
            done = run(argv, claude_env(home, stub), cwd, timeout=TIMEOUT)
            assert done.returncode == 0, done.stdout + done.stderr
            event = json.loads(done.stdout.splitlines()[0])
            assert (event["type"], event["subtype"]) == ("system", "init"), event
            world.runs[key] = (event, stub.model_requests())
    return world.runs[key]


def listed(requests: list[Recorded], name: str) -> list[str]:
    """The `- <name>: …` lines of the requests (skills and agents as offered to the model)."""
    lines = {line for r in requests for t in r.texts() for line in t.splitlines()}
    return sorted(line for line in lines if line.startswith(f"- {name}: "))


def servers(event: dict[str, Any]) -> dict[str, str]:
    return {s["name"]: s.get("source", "") for s in event["mcp_servers"]}


def clear_flags(world: World) -> None:
    for f in world.flags.iterdir():
        f.unlink()


def test_skill_agent_command_and_server_found_from_a_subfolder(world: World, proven: Proven) -> None:  # fmt: skip
    event, requests = print_run(world, world.clean, world.deep)
    assert SKILL in event["skills"], event["skills"]
    assert listed(requests, SKILL) == [f"- {SKILL}: PROJECT demo skill. Use when testing."]
    assert AGENT in event["agents"]
    assert any(line.startswith(f"- {AGENT}: PROJECT helper agent") for line in listed(requests, AGENT))  # fmt: skip
    assert COMMAND in event["slash_commands"]
    assert servers(event).get(SERVER) == "project", event["mcp_servers"]
    # a folder between the working directory and the root is read too
    assert "nested-skill" in event["skills"]
    proven(
        "claude",
        "project, started in repo/src/deep: .claude/skills/<s> (a relative symlink into the "
        "repo, followed), .claude/agents/<a>.md, .claude/commands/<c>.md and .mcp.json "
        "(source 'project') of the repo root are all loaded; src/.claude/skills too",
    )


def test_other_harnesses_skill_folders_are_not_read(world: World, proven: Proven) -> None:
    event, _ = print_run(world, world.clean, world.deep)
    for name in ("only-agents", "only-github", "only-codex"):
        assert name not in event["skills"], name
    proven("claude", "project: .agents/skills, .github/skills, .codex/skills are not read")


def test_the_git_root_bounds_skills_but_not_mcp_json(world: World, proven: Proven) -> None:
    event, _ = print_run(world, world.clean, world.deep)
    assert "above-skill" not in event["skills"]
    # .mcp.json is looked up in every parent folder, past the git root
    assert servers(event).get("above-srv") == "project", event["mcp_servers"]
    proven(
        "claude",
        "project: .claude/skills above the git root is not read, but a .mcp.json above it is "
        "(every parent folder of the working directory)",
    )


def test_without_git_every_parent_folder_is_read(world: World, proven: Proven) -> None:
    event, _ = print_run(world, world.clean, world.root / "work/plain/a/b")
    assert "plain-skill" in event["skills"], event["skills"]
    proven("claude", "no git repository needed: outside one, parents' .claude/skills are read")


def test_a_sibling_folder_loads_nothing_of_the_project(world: World, proven: Proven) -> None:
    event, requests = print_run(world, world.clean, world.root / "work/sibling")
    assert SKILL not in event["skills"] and AGENT not in event["agents"]
    assert COMMAND not in event["slash_commands"] and SERVER not in servers(event)
    assert not listed(requests, AGENT)
    proven("claude", "started in a sibling folder of the repo: none of its items is loaded")


def test_precedence_of_skill_agent_and_command(world: World, proven: Proven) -> None:
    # the user's copy is skilltool's home rendering: ~/.claude/{skills,agents,commands}
    _event, requests = print_run(world, world.user, world.deep)
    assert listed(requests, SKILL) == [f"- {SKILL}: USER demo skill. Use when testing."]
    [agent] = listed(requests, AGENT)
    assert agent.startswith(f"- {AGENT}: PROJECT helper agent"), agent
    with AnthropicStub() as stub:
        argv = ["claude", "-p", f"/{COMMAND} world"]
        done = run(argv, claude_env(world.user, stub), world.deep, timeout=TIMEOUT)
        assert done.returncode == 0, done.stderr
        text = "\n".join(t for r in stub.model_requests() for t in r.texts())
    assert "USER HELLO BODY world" in text and "PROJECT HELLO BODY" not in text
    proven(
        "claude",
        "same name in home and project: the skill and the command of ~/.claude win, the "
        "agent of .claude/agents wins",
    )


def test_precedence_of_mcp_servers(world: World, proven: Proven) -> None:
    # skilltool's home rendering names the server plugin:demo:demo-srv: no clash, both start
    clear_flags(world)
    world.runs.pop((world.user, world.deep), None)
    event, _ = print_run(world, world.user, world.deep)
    assert {"plugin:demo:demo-srv": "plugin", SERVER: "project"}.items() <= servers(event).items()
    assert world.flag("user-plugin").exists() and world.flag("project").exists()
    # a user-scope server of the same name (~/.claude.json, `claude mcp add -s user`)
    home = make_home(world.root / "user-scope")
    (home / ".claude").mkdir()
    mine = with_flag(project_entry(world.user), world.flag("user-scope"))
    write(home / ".claude.json", json.dumps({"mcpServers": {SERVER: {"type": "stdio", **mine}}}))
    clear_flags(world)
    event, _ = print_run(world, home, world.deep)
    assert servers(event).get(SERVER) == "project", event["mcp_servers"]
    assert world.flag("project").exists() and not world.flag("user-scope").exists()
    proven(
        "claude",
        "MCP: skilltool's home server (plugin:demo:demo-srv) and the project's demo-srv both "
        "start; a ~/.claude.json user server of the same name gives way to .mcp.json's",
    )


def mcp_list(home: Path, cwd: Path) -> dict[str, str]:
    """`claude mcp list` (no model): server -> its status text."""
    env = harness_env(home, {"ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})  # fmt: skip
    done = run(["claude", "mcp", "list"], env, cwd, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    found = re.findall(r"^([\w:.-]+): .* - (.+)$", done.stdout, re.M)
    return dict(found)


def test_listing_holds_project_servers_pending_approval(world: World, proven: Proven) -> None:
    clear_flags(world)
    status = mcp_list(world.clean, world.deep)
    assert status[SERVER].startswith("⏸ Pending approval"), status
    assert not world.flag("project").exists()
    proven(
        "claude",
        "`claude mcp list` in the project: .mcp.json's server is '⏸ Pending approval (run "
        "`claude` to approve)' and is not started",
    )


def test_an_approval_in_the_users_settings_starts_it(
    world: World, tmp_path: Path, proven: Proven
) -> None:
    home = make_home(tmp_path)
    # the test approves, as the user would: never written by skilltool
    write(home / ".claude/settings.json", json.dumps({"enabledMcpjsonServers": [SERVER]}))
    clear_flags(world)
    status = mcp_list(home, world.deep)
    assert status[SERVER].startswith("✔ Connected"), status
    assert status["above-srv"].startswith("⏸ Pending approval"), status
    assert world.flag("project").exists()
    proven(
        "claude",
        "~/.claude/settings.json enabledMcpjsonServers [<server>] approves that one "
        "(connected, started); the others stay pending",
    )


def test_print_mode_starts_project_servers_without_approval(world: World, proven: Proven) -> None:
    clear_flags(world)
    world.runs.pop((world.clean, world.deep), None)
    event, _ = print_run(world, world.clean, world.deep)
    status = {s["name"]: s["status"] for s in event["mcp_servers"]}
    assert status[SERVER] == "connected" and world.flag("project").exists()
    assert not (world.clean / ".claude/settings.json").exists()
    proven(
        "claude",
        "`claude -p` starts .mcp.json servers with no approval and no trust anywhere (print "
        "mode skips both the trust dialog and the server approval)",
    )


def test_a_project_settings_approval_counts_only_in_a_trusted_folder(
    tmp_path: Path, proven: Proven
) -> None:
    repo = git_repo(tmp_path / "repo")
    flag = tmp_path / "started"
    source = rendered(tmp_path / "src", "PROJECT", ("claude",), flag)
    write(repo / ".mcp.json", json.dumps({"mcpServers": {SERVER: project_entry(source)}}))
    write(repo / ".claude/settings.json", json.dumps({"enableAllProjectMcpServers": True}))
    home = make_home(tmp_path / "h")
    (home / ".claude").mkdir()
    assert mcp_list(home, repo)[SERVER].startswith("⏸ Pending approval")
    assert not flag.exists()
    # the folder trusted, as the interactive trust dialog records it (~/.claude.json)
    state_file = home / ".claude.json"
    state = json.loads(state_file.read_text()) if state_file.exists() else {}
    state.setdefault("projects", {})[str(repo)] = {"hasTrustDialogAccepted": True}
    state_file.write_text(json.dumps(state))
    assert mcp_list(home, repo)[SERVER].startswith("✔ Connected")
    assert flag.exists()
    proven(
        "claude",
        "a committed .claude/settings.json enableAllProjectMcpServers approves the project's "
        "servers once the folder is trusted (~/.claude.json projects.<repo>.hasTrustDialogAccepted): "
        "skilltool must write neither",
    )


def test_the_interactive_start_asks_before_any_project_server(world: World, proven: Proven) -> None:  # fmt: skip
    """The TUI (in a pty): first the folder trust question, naming .mcp.json; nothing starts."""
    import os
    import pty
    import select
    import signal
    import time

    home = make_home(world.root / "tui")
    write(home / ".claude.json", json.dumps({"hasCompletedOnboarding": True, "lastOnboardingVersion": "2.1.332"}))  # fmt: skip
    env = harness_env(home, {"ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "TERM": "xterm"})  # fmt: skip
    env.pop("CI", None)
    exe = shutil.which("claude", path=env["PATH"])
    assert exe
    clear_flags(world)
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.chdir(world.deep)
        os.execve(exe, [exe], env)
    screen = b""
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and b"trust this folder" not in screen:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                try:
                    screen += os.read(fd, 65536)
                except OSError:
                    break
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    text = re.sub(r"\s+", " ", re.sub(r"\x1b\[[0-9;?<>]*[a-zA-Z]", " ", screen.decode("utf-8", "replace")))  # fmt: skip
    assert "Yes, I trust this folder" in text, text[-2000:]
    assert ".mcp.json" in text
    time.sleep(0.5)
    assert not world.flag("project").exists()
    proven(
        "claude",
        "interactive `claude` in the project first asks 'Yes, I trust this folder' (its text "
        "names .mcp.json), and no project server is started before an answer",
    )


def test_skilltool_project_loads_inside_and_not_outside(tmp_path: Path, proven: Proven) -> None:
    """The real `skilltool plugins add ./plugins/team --project`, then `claude -p` in
    repo/src/deep (everything loaded, the command expanded, the server started) and in a
    sibling folder (nothing)."""
    team = team_project(tmp_path, ("claude",))
    claude = team.repo / ".claude"
    assert team_status(team, "claude") == {
        f"skill {TEAM_SKILL}": ("linked", "claude link"),
        f"agent {TEAM_AGENT}": ("current", str(claude / f"agents/{TEAM_AGENT}.md")),
        f"command {TEAM_COMMAND}": ("current", str(claude / f"commands/{TEAM_COMMAND}.md")),
        f"mcp {TEAM_SERVER}": ("current", str(team.repo / ".mcp.json")),
    }
    assert (claude / "skills" / TEAM_SKILL).is_symlink()
    # the user approves the project's server, as Claude Code's question would record it
    # (`claude -p` needs no approval; skilltool writes none)
    write(team.home / ".claude/settings.json", json.dumps({"enabledMcpjsonServers": [TEAM_SERVER]}))  # fmt: skip
    with AnthropicStub() as stub:
        argv = ["claude", "-p", "--output-format", "stream-json", "--verbose", "hi"]
        done = run(argv, claude_env(team.home, stub), team.deep, timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        event = json.loads(done.stdout.splitlines()[0])
        requests = stub.model_requests()
    assert TEAM_SKILL in event["skills"], event["skills"]
    assert listed(requests, TEAM_SKILL) == [f"- {TEAM_SKILL}: TEAM skill. Use when testing."]
    assert TEAM_AGENT in event["agents"], event["agents"]
    assert any(line.startswith(f"- {TEAM_AGENT}: TEAM agent") for line in listed(requests, TEAM_AGENT))  # fmt: skip
    assert TEAM_COMMAND in event["slash_commands"], event["slash_commands"]
    status = {s["name"]: (s.get("source"), s["status"]) for s in event["mcp_servers"]}
    assert status.get(TEAM_SERVER) == ("project", "connected"), event["mcp_servers"]
    assert team.flag.exists()
    with AnthropicStub() as stub:
        argv = ["claude", "-p", f"/{TEAM_COMMAND} world"]
        done = run(argv, claude_env(team.home, stub), team.deep, timeout=TIMEOUT)
        assert done.returncode == 0, done.stderr
        text = "\n".join(t for r in stub.model_requests() for t in r.texts())
    assert "TEAM COMMAND BODY world" in text, text[-2000:]
    # a sibling folder of the repository: none of it
    team.flag.unlink()
    with AnthropicStub() as stub:
        argv = ["claude", "-p", "--output-format", "stream-json", "--verbose", "hi"]
        done = run(argv, claude_env(team.home, stub), team.sibling, timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        event = json.loads(done.stdout.splitlines()[0])
        requests = stub.model_requests()
    assert TEAM_SKILL not in event["skills"] and TEAM_AGENT not in event["agents"]
    assert TEAM_COMMAND not in event["slash_commands"] and TEAM_SERVER not in servers(event)
    assert not listed(requests, TEAM_SKILL) and not listed(requests, TEAM_AGENT)
    assert not team.flag.exists()
    proven(
        "claude",
        "after the real `skilltool plugins add ./plugins/team --project` (status: skill linked, "
        "agent, command and .mcp.json server current for claude), `claude -p` in repo/src/deep "
        "loads the skill (.claude/skills link), the agent, the command (expanded) and starts the "
        "server; in a sibling folder, none of them",
    )
