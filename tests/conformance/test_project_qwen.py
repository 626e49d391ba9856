"""Qwen Code in a repository: which of the repository's folders it reads, with skilltool's
renderings copied there (see projects.py), and the approval its project MCP servers wait
for. Each test is one finding of docs/findings-project-b.md.

Approval is the user's to give: the TEST runs `qwen mcp approve` in its throwaway home (it
writes ~/.qwen/mcpApprovals.json); skilltool writes no such thing."""

from __future__ import annotations

import functools
import json
import re
import shutil
from pathlib import Path

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
from tests.conformance.stub import AnthropicStub
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

QWEN = ["--auth-type", "anthropic", "-m", "claude-sonnet-4-5"]


@pytest.fixture(scope="module")
def w(tmp_path_factory: pytest.TempPathFactory) -> World:
    need("qwen")
    w = world(tmp_path_factory.mktemp("project-qwen"), ("qwen",))
    home = w.rendered / ".qwen"
    w.link_skill(".agents/skills")  # the plugin's skill, a relative link
    for folder in (".qwen/skills", ".claude/skills"):
        w.skill_copy(folder, "s-" + folder.strip(".").replace("/", "-"))
    w.place(f".qwen/agents/{AGENT}.md", home / f"agents/{AGENT}.md")
    w.place(f".qwen/commands/{COMMAND}.toml", home / f"commands/{COMMAND}.toml")
    entry = json_entry(home / "settings.json", "mcpServers", SERVER)
    w.place(".qwen/settings.json", json.dumps({"mcpServers": {SERVER: entry}}, indent=2) + "\n")
    w.place(".mcp.json", json.dumps({"mcpServers": {"proj-mcpjson": entry}}) + "\n")
    shutil.copytree(w.bare, w.root / "approved/home", symlinks=True)
    w.extra["approved"] = w.root / "approved/home"
    return w


def env(home: Path, base: str = "http://127.0.0.1:9") -> dict[str, str]:
    return harness_env(home, {"ANTHROPIC_API_KEY": "dummy", "ANTHROPIC_BASE_URL": base})


@functools.cache
def _qwen(home: str, cwd: str, *args: str) -> str:
    done = run(["qwen", *args], env(Path(home)), Path(cwd), timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def qwen(home: Path, cwd: Path, *args: str) -> str:
    return _qwen(str(home), str(cwd), *args)


@functools.cache
def _prompt(home: str, cwd: str, text: str) -> tuple[str, tuple[str, ...]]:
    """`qwen -p TEXT` against the stub: (the `agent` tool's description, every text sent)."""
    with AnthropicStub(reply="ok") as stub:
        done = run(["qwen", "-p", text, *QWEN], env(Path(home), stub.base_url), Path(cwd),
                   timeout=TIMEOUT)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        request = stub.wait_for(lambda r: any(t.get("name") == "agent" for t in r.json.get("tools", [])))  # fmt: skip
    [tool] = [t for t in request.json["tools"] if t.get("name") == "agent"]
    return str(tool["description"]), tuple(request.texts())


def prompt(home: Path, cwd: Path, text: str) -> tuple[str, tuple[str, ...]]:
    return _prompt(str(home), str(cwd), text)


def skills(texts: tuple[str, ...]) -> list[str]:
    return re.findall(r"<name>\n(.*?)\n</name>", "\n".join(texts))


def test_skills_agent_command_at_the_root(w: World, proven: Proven) -> None:
    agents, texts = prompt(w.bare, w.repo, f"/{COMMAND} a.py")
    assert f"- **{AGENT}**: The project agent\n" in agents, agents
    listed = skills(texts)
    assert SKILL in listed and "s-qwen-skills" in listed and "s-claude-skills" not in listed
    assert any(t.startswith("Run the project command on a.py.") for t in texts)
    proven("qwen", "started at the repo root, no trust asked (security.folderTrust.enabled "
           "defaults to false): .qwen/agents/X.md listed in the `agent` tool, skills of "
           ".agents/skills (relative symlinked dir followed) and .qwen/skills (not "
           ".claude/skills), .qwen/commands/X.toml runs")  # fmt: skip


def test_project_mcp_servers_wait_for_approval(w: World, proven: Proven) -> None:
    out = qwen(w.bare, w.repo, "mcp", "list")
    for name in (SERVER, "proj-mcpjson"):
        assert re.search(rf"{name}: .* - Pending approval", out), out
    assert not w.started()
    home = w.extra["approved"]
    done = run(["qwen", "mcp", "approve", SERVER], env(home), w.repo, timeout=TIMEOUT)
    assert done.returncode == 0 and "Approved MCP server" in done.stdout, done.stdout + done.stderr
    approvals = json.loads((home / ".qwen/mcpApprovals.json").read_text())
    assert approvals[str(w.repo)][SERVER]["status"] == "approved"
    out = qwen(home, w.repo, "mcp", "list")
    assert re.search(rf"{SERVER}: .* - Connected", out), out
    assert re.search(r"proj-mcpjson: .* - Pending approval", out), out
    assert f"project {w.repo}" in w.started()
    proven("qwen", "project MCP servers (.qwen/settings.json `mcpServers`, and a Claude-style "
           ".mcp.json at the root) are `Pending approval` and not started until "
           "~/.qwen/mcpApprovals.json holds `{<root>: {<name>: {hash, status: approved}}}` "
           "(`qwen mcp approve NAME`, bound to the entry's hash); then started (recorder ran)")  # fmt: skip


def test_nothing_from_a_subfolder(w: World, proven: Proven) -> None:
    agents, texts = prompt(w.bare, w.deep, f"/{COMMAND} a.py")
    assert f"**{AGENT}**" not in agents
    assert SKILL not in skills(texts)
    assert not any("Run the project command" in t for t in texts)
    assert SERVER not in qwen(w.extra["approved"], w.deep, "mcp", "list")
    proven("qwen", "started in repo/src/deep: no project skill, agent, command or MCP server "
           "(the start folder is the project root; no walk up)")  # fmt: skip


def test_outside_the_repository_nothing(w: World, proven: Proven) -> None:
    agents, texts = prompt(w.bare, w.outside, "hi")
    assert f"**{AGENT}**" not in agents and SKILL not in skills(texts)
    proven("qwen", "started in a sibling folder: none of the repo's items")


def test_precedence(w: World, proven: Proven) -> None:
    agents, texts = prompt(w.user, w.repo, f"/{COMMAND} a.py")
    agent = re.search(rf"- \*\*{AGENT}\*\*: The (\w+) agent", agents)
    skill = re.search(
        rf"<name>\n{SKILL}\n</name>\s*<description>\nThe (\w+) skill", "\n".join(texts)
    )
    command = next((m.group(1) for t in texts if (m := re.match(r"Run the (\w+) command", t))), None)  # fmt: skip
    out = qwen(w.user, w.repo, "mcp", "list")
    server = re.search(rf"{SERVER}: \S+ \S+ (\w+) \(stdio\)", out)
    seen = {"agent": agent and agent.group(1), "skill": skill and skill.group(1),
            "command": command, "mcp": server and server.group(1)}  # fmt: skip
    proven("qwen", "same names in ~ and the repo: " + ", ".join(f"{k} from {v}" for k, v in seen.items()))  # fmt: skip
    assert seen == {"agent": "project", "skill": "project", "command": "project", "mcp": "project"}, (seen, out)  # fmt: skip


def test_skilltool_project_loads_inside_and_not_outside(tmp_path: Path, proven: Proven) -> None:
    need("qwen")
    t = team(tmp_path, "qwen")
    assert_team_current(t, "qwen")
    assert not (t.home / ".qwen/mcpApprovals.json").exists()  # skilltool approves nothing
    # the user's part, done by the test: approve the project's server at the repo root
    done = run(["qwen", "mcp", "approve", TEAM_SERVER], env(t.home), t.repo, timeout=TIMEOUT)
    assert done.returncode == 0 and "Approved MCP server" in done.stdout, done.stdout + done.stderr
    # at the repository's root (Qwen reads a project only in the folder it starts in)
    out = qwen(t.home, t.repo, "mcp", "list")
    assert re.search(rf"{TEAM_SERVER}: .* - Connected", out), out
    assert set(t.started()) == {f"team {t.repo}"}, t.started()
    agents, texts = prompt(t.home, t.repo, f"/{TEAM_COMMAND} a.py")
    assert f"- **{TEAM_AGENT}**: The team agent\n" in agents, agents
    assert TEAM_SKILL in skills(texts), skills(texts)
    assert any(x.startswith("Run the team command on a.py.") for x in texts), texts
    # in repo/src/deep, where `plugins status` was run and said "current", and beside the
    # repository: none of it, and the server not started
    before = len(t.started())
    for folder in (t.deep, t.outside):
        agents, texts = prompt(t.home, folder, f"/{TEAM_COMMAND} a.py")
        assert f"**{TEAM_AGENT}**" not in agents and TEAM_SKILL not in skills(texts), agents
        assert not any("Run the team command" in x for x in texts), texts
        assert TEAM_SERVER not in qwen(t.home, folder, "mcp", "list")
    assert len(t.started()) == before, t.started()
    proven("qwen", "`skilltool plugins add ./plugins/team --project` (status: agent, command, "
           "MCP current for qwen; no approval written): with the server approved by the user "
           "(`qwen mcp approve`), started at the repo root Qwen offers the agent and the linked "
           "skill, runs /team-cmd and starts the server from .qwen/settings.json; started in "
           "repo/src/deep (where status said `current`) or beside the repo, none of them")  # fmt: skip
