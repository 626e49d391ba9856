"""Kimi Code in a project (a git repository): which project folders it reads, what its
workspace trust gates, which of user and project wins, and that a folder outside the repository
sees none of it.

Project files are written by hand in the shapes skilltool renders into ~/.kimi-code (an agent
`.md` with the marker as a YAML comment, `mcpServers` in `.kimi-code/mcp.json`). What Kimi
loaded is read from the first request `kimi -p hi` sends the loopback stub (the skills'
listing, the Agent tool's agent types, the system message of `--agent`) and from a recorder MCP
server that appends its argument to a file when started. A workspace is trusted only in the
throwaway home (`~/.kimi-code/workspace-trust/`, the record Kimi's own trust writes), by the
test."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("skilltool.harnesses.kimi")

from tests.conformance.homes import TIMEOUT
from tests.conformance.sandbox import make_home, run
from tests.conformance.stub import OpenAIStub, Recorded, mcp_log_recorder
from tests.conformance.support import Proven, need
from tests.conformance.team_project import AGENT_BODY, team_project
from tests.conformance.test_kimi import agent_types, kimi_env, skills_listed, system_of
from tests.helpers import build_file_tree, toml_loads

pytestmark = pytest.mark.conformance

MARK = f"(sha256:{'0' * 64})"


@pytest.fixture(autouse=True)
def _kimi() -> None:
    need("kimi")


def skill(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\nBody of {name}.\n"


def agent(name: str, description: str, line: str) -> str:
    return (
        f"---\n# rendered by skilltool from /plugins/p/agents/{name}.md {MARK}\n"
        f'name: "{name}"\ndescription: "{description}"\ntools: ["Read"]\n---\n{line}\n'
    )


def servers(recorder: Path, *tags: str) -> str:
    entries = {f"{t}-srv": {"command": sys.executable, "args": [str(recorder), t]} for t in tags}
    return json.dumps({"mcpServers": entries}, indent=2) + "\n"


class Kimi:
    """A throwaway home with ~/.kimi-code in `tmp`, and `kimi -p hi` run in it against the
    stub; the recorder's log is `tmp/rec.log`."""

    def __init__(self, tmp: Path, home: Path | None = None) -> None:
        self.tmp = tmp
        self.home = home or make_home(tmp)
        (self.home / ".kimi-code").mkdir(exist_ok=True)

    def trust(self, folder: Path) -> None:
        """The record Kimi Code's workspace trust keeps for a working folder (2.1.0:
        `wd_<slug of its name>_<12 hex of its sha256>`, a JSON document), written by the test."""
        root = str(folder)
        slug = re.sub(r"[^a-z0-9._-]+", "-", folder.name.lower()).strip("-")[:40].strip("-")
        key = f"wd_{slug or 'workspace'}_{hashlib.sha256(root.encode()).hexdigest()[:12]}"
        store = self.home / ".kimi-code/workspace-trust"
        store.mkdir(exist_ok=True)
        (store / key).write_text(json.dumps({"root": root, "trustedAt": 0}))

    def run(self, cwd: Path, *args: str) -> tuple[Recorded, list[str]]:
        """`kimi -p hi ARGS` in cwd: the first request it sent, the servers it started."""
        log = self.tmp / "rec.log"
        log.unlink(missing_ok=True)
        with OpenAIStub(reply="kimi done") as stub:
            done = run(["kimi", "-p", "hi", *args], kimi_env(self.home, stub), cwd, TIMEOUT)
            assert done.returncode == 0, done.stdout + done.stderr
            request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
        time.sleep(0.3)
        return request, log.read_text().split() if log.exists() else []


class Project(Kimi):
    def __init__(self, tmp: Path) -> None:
        super().__init__(tmp)
        self.recorder = tmp / "rec.py"
        self.recorder.write_text(mcp_log_recorder("rec.log"))
        self.repo = tmp / "repo"
        self.mid = self.repo / "src/mid"
        build_file_tree(
            self.repo,
            {
                "plugins/p/skills/linked-skill/SKILL.md": skill("linked-skill", "Via a link"),
                ".agents/skills/linked-skill": Path("../../plugins/p/skills/linked-skill"),
                ".agents/skills/root-agents/SKILL.md": skill("root-agents", "root .agents"),
                ".kimi-code/skills/root-kimi/SKILL.md": skill("root-kimi", "root .kimi-code"),
                ".kimi-code/agents/root-agent.md": agent("root-agent", "root", "ROOT AGENT"),
                ".kimi-code/mcp.json": servers(self.recorder, "root"),
                ".mcp.json": servers(self.recorder, "claude"),  # Claude Code's project file
                "src/mid/.keep": "",
                # the same names as the user's: the project's side of each
                ".kimi-code/skills/dup/SKILL.md": skill("dup", "PROJECT skill"),
                ".kimi-code/agents/dup-agent.md": agent("dup-agent", "PROJECT agent", "P"),
            },
        )
        build_file_tree(
            self.home,
            {
                ".kimi-code/skills/dup/SKILL.md": skill("dup", "USER skill"),
                ".kimi-code/agents/dup-agent.md": agent("dup-agent", "USER agent", "U"),
            },
        )
        subprocess.run(["git", "init", "-q", str(self.repo)], check=True, timeout=30)


def described(request: Recorded) -> dict[str, str]:
    """The listing's skills of the user's and the project's: name -> description."""
    listing = system_of(request).split("Current available skills:", 1)[1]
    listing = listing.split("### Built-in", 1)[0]
    return dict(re.findall(r"^- ([^:\n]+): (.*)$", listing, re.M))


def test_the_project_seen_from_its_root_and_a_subfolder(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    request, started = p.run(p.repo)
    listed = skills_listed(request)
    assert {"linked-skill", "root-agents", "root-kimi"} <= set(listed), listed
    assert listed["linked-skill"] == str(p.repo / ".agents/skills/linked-skill/SKILL.md")
    offered = agent_types(request)
    assert offered["root-agent"] == "root" and offered["dup-agent"] == "PROJECT agent"
    assert described(request)["dup"] == "PROJECT skill"
    assert started == []  # untrusted: the project's mcp.json is not read
    p.trust(p.repo)
    request, started = p.run(p.repo, "--agent", "root-agent")
    assert system_of(request) == "ROOT AGENT" and sorted(started) == ["claude", "root"]
    p.trust(p.mid)
    request, started = p.run(p.mid)
    assert {"root-agents", "root-kimi"} <= set(skills_listed(request))
    assert "root-agent" in agent_types(request)
    assert started == ["claude"]  # .kimi-code/mcp.json is the working folder's, not the root's
    proven(
        "kimi",
        "project at its root (`--agent <n>` sends its body): .agents/skills (a relative symlinked skill dir followed, shown at "
        "the link's path), .kimi-code/skills and .kimi-code/agents load untrusted; "
        ".kimi-code/mcp.json and the root's .mcp.json (Claude Code's) only once the workspace is "
        "trusted (then started); from a subfolder the agents, skills and .mcp.json of the git "
        "root, but only the working folder's own .kimi-code/mcp.json; the project's skill and agent win over the user's of that name",
    )


def test_outside_the_repository_nothing_of_it(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    p.trust(sibling)
    request, started = p.run(sibling)
    assert not {"root-agents", "root-kimi", "linked-skill"} & set(skills_listed(request))
    assert "root-agent" not in agent_types(request) and started == []
    proven("kimi", "started in a sibling folder (trusted): nothing of the repository")


def test_skilltool_project_loads_inside_and_not_outside(tmp_path: Path, proven: Proven) -> None:
    k = Kimi(tmp_path)
    (k.home / ".codex").rmdir()  # the home has Kimi Code and nothing else: the manifest names it
    t = team_project(tmp_path, k.home)
    assert toml_loads((t.repo / "skilltool.toml").read_text())["harnesses"] == ["kimi"]
    assert t.status.splitlines()[0] == f"project   {t.repo}", t.status
    rows = t.rows("kimi")
    assert rows["skill team-skill"] == ("linked", ""), t.status
    assert rows["agent team-agent"] == ("current", ".kimi-code/agents/team-agent.md"), t.status
    assert rows["mcp team-srv"] == ("current", ".kimi-code/mcp.json"), t.status
    state, why = rows["command team-cmd"]
    assert state == "not supported" and "command not carried" in why, t.status
    refused = [line for line in t.added.splitlines() if line.startswith("skipped   kimi:")]
    assert refused == [f"skipped   kimi: {why}"], t.added
    assert sorted(p.name for p in (k.home / ".kimi-code").iterdir()) == []  # no trust given
    k.trust(t.repo)  # what Kimi's trust records; the test writes it

    request, started = k.run(t.repo)
    assert set(skills_listed(request)) >= {"team-skill"}
    assert agent_types(request)["team-agent"] == "The team agent"
    assert started == ["team"]
    request, _ = k.run(t.repo, "--agent", "team-agent")
    assert system_of(request) == AGENT_BODY
    k.trust(t.sibling)
    request, started = k.run(t.sibling)
    assert "team-skill" not in skills_listed(request) and started == []
    assert "team-agent" not in agent_types(request)
    proven(
        "kimi",
        '`skilltool plugins add ./plugins/team --project` (manifest harnesses = ["kimi"] from '
        "~/.kimi-code): its .agents/skills link, .kimi-code/agents/<n>.md (`--agent <n>` sends "
        "its body) and .kimi-code/mcp.json load in Kimi started at the repo root once its "
        "workspace is trusted (the server starts); in a sibling folder none; the command is "
        "refused with one line",
    )
