"""Gemini CLI in a repository: which of the repository's folders it reads, with skilltool's
renderings copied there (see projects.py), and what its folder trust and agent
acknowledgement gate. Each test is one finding of docs/findings-project-b.md.

Trust is the user's to give: the TEST writes `~/.gemini/trustedFolders.json` and
`~/.gemini/acknowledgments/agents.json` in its throwaway homes; skilltool writes neither."""

from __future__ import annotations

import functools
import hashlib
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
    TEAM_FILES,
    TEAM_SERVER,
    TEAM_SKILL,
    World,
    assert_team_current,
    json_entry,
    team,
    world,
)
from tests.conformance.sandbox import harness_env, run
from tests.conformance.stub import GeminiStub
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

MODEL = "gemini-2.5-pro"  # an explicit model: `auto` first asks a router the stub cannot answer
UNTRUSTED = "Skipping project agents due to untrusted folder"


@pytest.fixture(scope="module")
def w(tmp_path_factory: pytest.TempPathFactory) -> World:
    need("gemini")
    w = world(tmp_path_factory.mktemp("project-gemini"), ("gemini",))
    home = w.rendered / ".gemini"
    w.link_skill(".agents/skills")  # the plugin's skill, a relative link
    for folder in (".gemini/skills", ".claude/skills"):
        w.skill_copy(folder, "s-" + folder.strip(".").replace("/", "-"))
    agent = w.place(f".gemini/agents/{AGENT}.md", home / f"agents/{AGENT}.md")
    w.place(f".gemini/commands/{COMMAND}.toml", home / f"commands/{COMMAND}.toml")
    entry = json_entry(home / "settings.json", "mcpServers", SERVER)
    w.place(".gemini/settings.json", json.dumps({"mcpServers": {SERVER: entry}}, indent=2) + "\n")
    # trusted homes: the folder trusted (TRUST_FOLDER covers its subfolders); `acked` and the
    # user's home also acknowledge the project agent (its file's sha256, for the folder Gemini
    # was started in, which it takes as the project root)
    digest = hashlib.sha256(agent.read_bytes()).hexdigest()
    for name in ("trusted", "acked"):
        shutil.copytree(w.bare, w.root / name / "home", symlinks=True)
        w.extra[name] = w.root / name / "home"
    for home_dir in (w.extra["trusted"], w.extra["acked"], w.user):
        (home_dir / ".gemini/trustedFolders.json").write_text(
            json.dumps({str(w.repo): "TRUST_FOLDER"}) + "\n"
        )
    for home_dir in (w.extra["acked"], w.user):
        (home_dir / ".gemini/acknowledgments").mkdir()
        (home_dir / ".gemini/acknowledgments/agents.json").write_text(
            json.dumps({str(w.repo): {AGENT: digest}}) + "\n"
        )
    return w


def env(home: Path, base: str = "http://127.0.0.1:9", extra: dict[str, str] | None = None) -> dict[str, str]:  # fmt: skip
    return harness_env(home, {"GEMINI_API_KEY": "fake", "GOOGLE_GEMINI_BASE_URL": base, **(extra or {})})  # fmt: skip


@functools.cache
def _gemini(home: str, cwd: str, *args: str) -> tuple[str, str]:
    extra = {"GEMINI_CLI_TRUST_WORKSPACE": "true"} if "--trust" in args else {}
    args = tuple(a for a in args if a != "--trust")
    done = run(["gemini", *args], env(Path(home), extra=extra), Path(cwd), timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr, done.stderr  # `mcp list` prints to stderr


def gemini(home: Path, cwd: Path, *args: str) -> tuple[str, str]:
    return _gemini(str(home), str(cwd), *args)


def skills(home: Path, cwd: Path, *args: str) -> dict[str, str]:
    out, _ = gemini(home, cwd, "skills", "list", *args)
    return dict(re.findall(r"^(\S+) \[Enabled\]\n(?:.*\n)*?\s+Location:\s+(\S+)$", out, re.M))


@functools.cache
def _prompt(home: str, cwd: str, text: str) -> tuple[str, str, tuple[str, ...]]:
    """`gemini -p TEXT` against the stub: (system text, stderr, every text of the request)."""
    with GeminiStub(reply="ok") as stub:
        done = run(["gemini", "-p", text, "-m", MODEL], env(Path(home), stub.base_url), Path(cwd),
                   timeout=TIMEOUT)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        request = stub.wait_for()
    return "\n".join(request.system_texts()), done.stderr, tuple(request.texts())


def prompt(home: Path, cwd: Path, text: str) -> tuple[str, str, tuple[str, ...]]:
    return _prompt(str(home), str(cwd), text)


def test_untrusted_nothing_of_the_project(w: World, proven: Proven) -> None:
    assert SKILL not in skills(w.bare, w.repo)
    out, err = gemini(w.bare, w.repo, "mcp", "list")
    assert re.search(rf"○ {SERVER}: .* - Disabled", out), out
    assert "disabled because this folder is untrusted" in out
    assert not w.started()
    done = run(["gemini", "-p", "hi", "-m", MODEL], env(w.bare), w.repo, timeout=TIMEOUT)
    assert done.returncode == 55 and "not running in a trusted directory" in done.stderr
    proven("gemini", "untrusted (the default: security.folderTrust.enabled is true): no project "
           "skill, the project MCP server listed `Disabled` and not started (user servers too), "
           "`-p` exits 55; `skills list` says `Skipping project agents due to untrusted folder`")  # fmt: skip


def test_trusted_skills_at_the_root(w: World, proven: Proven) -> None:
    found = skills(w.extra["trusted"], w.repo)
    assert found[SKILL] == str(w.repo / ".agents/skills" / SKILL / "SKILL.md"), (
        found
    )  # link followed
    assert found["s-gemini-skills"] == str(w.repo / ".gemini/skills/s-gemini-skills/SKILL.md")
    assert "s-claude-skills" not in found
    proven("gemini", "trusted (~/.gemini/trustedFolders.json `{repo: TRUST_FOLDER}`), started at "
           "the repo root: skills of .agents/skills (relative symlinked dir followed) and "
           ".gemini/skills; not .claude/skills")  # fmt: skip


def test_trusted_mcp_server_starts(w: World, proven: Proven) -> None:
    out, _ = gemini(w.extra["trusted"], w.repo, "mcp", "list")
    assert re.search(rf"✓ {SERVER}: .* - Connected", out), out
    assert f"project {w.repo}" in w.started()
    proven("gemini", "trusted: .gemini/settings.json `mcpServers` read, `gemini mcp list` starts "
           "the server (recorder ran)")  # fmt: skip


def test_project_agent_needs_acknowledgement(w: World, proven: Proven) -> None:
    system, _, _ = prompt(w.extra["trusted"], w.repo, "hi")
    assert f"- {AGENT} -> " not in system
    system, err, _ = prompt(w.extra["acked"], w.repo, "hi")
    assert f"- {AGENT} -> The project agent\n" in system, system
    assert "Error" not in err, err
    proven("gemini", "project agent .gemini/agents/X.md: trusted but unacknowledged it is left "
           "out without a word in -p; listed once ~/.gemini/acknowledgments/agents.json holds "
           "`{<start folder>: {<name>: sha256(file)}}` (an edit of the file needs a new "
           "acknowledgement)")  # fmt: skip


def test_trusted_command_runs(w: World, proven: Proven) -> None:
    _, _, texts = prompt(w.extra["trusted"], w.repo, f"/{COMMAND} a.py")
    assert any(t.startswith("Run the project command on a.py.") for t in texts), texts
    proven(
        "gemini", "trusted: .gemini/commands/X.toml runs (`-p '/proj-cmd a.py'` sends its prompt)"
    )


def test_nothing_from_a_subfolder(w: World, proven: Proven) -> None:
    home = w.extra["acked"]
    assert SKILL not in skills(home, w.deep)
    out, _ = gemini(home, w.deep, "mcp", "list")
    assert SERVER not in out, out
    system, _, texts = prompt(home, w.deep, f"/{COMMAND} a.py")
    assert f"- {AGENT} -> " not in system
    assert not any("Run the project command" in t for t in texts)
    proven("gemini", "started in repo/src/deep (trusted): no project skill, agent, command or "
           "MCP server: Gemini takes the start folder as the project root and does not walk up")  # fmt: skip


def test_outside_the_repository_nothing(w: World, proven: Proven) -> None:
    assert SKILL not in skills(w.bare, w.outside, "--trust")
    out, _ = gemini(w.bare, w.outside, "mcp", "list", "--trust")
    assert SERVER not in out
    proven(
        "gemini",
        "started in a sibling folder (GEMINI_CLI_TRUST_WORKSPACE=true): none of the repo's items",
    )


def test_precedence(w: World, proven: Proven) -> None:
    found = skills(w.user, w.repo)
    assert found[SKILL].startswith(str(w.repo)), found
    system, err, _ = prompt(w.user, w.repo, "hi")
    assert re.search(rf"^- {AGENT} -> The project agent$", system, re.M), system
    assert f"Duplicate agent name '{AGENT}' detected. The later definition will be ignored." in err
    out, _ = gemini(w.user, w.repo, "mcp", "list")
    assert re.search(rf"{SERVER}: .* project \(stdio\)", out) and " home (stdio)" not in out, out
    proven("gemini", "same names in ~ and the repo (trusted, acknowledged): the project's skill "
           "(`Skill conflict detected: … is overriding`), agent (`Duplicate agent name … The "
           "later definition will be ignored`: the user's), MCP server (workspace settings win)")  # fmt: skip


def test_same_named_commands_are_both_renamed(w: World, proven: Proven) -> None:
    _, _, texts = prompt(w.user, w.repo, f"/{COMMAND} a.py")
    assert f"/{COMMAND} a.py" in texts  # no command of that name: the line goes as typed
    assert not any("command on a.py" in t for t in texts)
    for prefix, side in (("workspace", "project"), ("user", "home")):
        _, _, texts = prompt(w.user, w.repo, f"/{prefix}.{COMMAND} a.py")
        assert any(t.startswith(f"Run the {side} command on a.py.") for t in texts), texts
    proven("gemini", "a command in both ~/.gemini/commands and .gemini/commands: neither keeps the "
           "name; they become /workspace.proj-cmd and /user.proj-cmd (`/proj-cmd a` is sent to "
           "the model as typed), unlike the docs' 'the project command will always be used'")  # fmt: skip


def test_skilltool_project_loads_inside_and_not_outside(tmp_path: Path, proven: Proven) -> None:
    need("gemini")
    t = team(tmp_path, "gemini")
    assert_team_current(t, "gemini")
    assert not (t.home / ".gemini/trustedFolders.json").exists()  # skilltool trusts nothing
    assert not (t.home / ".gemini/acknowledgments").exists()
    # the user's part, done by the test: trust the repo and the sibling folder, acknowledge
    # the agent skilltool rendered (its bytes' sha256, for the repo root)
    agent = t.repo / TEAM_FILES["gemini"]["agent"]
    trusted = {str(t.repo): "TRUST_FOLDER", str(t.outside): "TRUST_FOLDER"}
    (t.home / ".gemini/trustedFolders.json").write_text(json.dumps(trusted) + "\n")
    (t.home / ".gemini/acknowledgments").mkdir()
    digest = hashlib.sha256(agent.read_bytes()).hexdigest()
    (t.home / ".gemini/acknowledgments/agents.json").write_text(
        json.dumps({str(t.repo): {TEAM_AGENT: digest}}) + "\n"
    )
    # at the repository's root (Gemini reads a project only in the folder it starts in)
    found = skills(t.home, t.repo)
    assert found.get(TEAM_SKILL) == str(t.repo / ".agents/skills" / TEAM_SKILL / "SKILL.md"), found
    out, _ = gemini(t.home, t.repo, "mcp", "list")
    assert re.search(rf"✓ {TEAM_SERVER}: .* - Connected", out), out
    assert set(t.started()) == {f"team {t.repo}"}, t.started()
    before = len(t.started())
    system, _, texts = prompt(t.home, t.repo, f"/{TEAM_COMMAND} a.py")
    assert len(t.started()) > before, t.started()  # a trusted `-p` run starts the server too
    assert f"- {TEAM_AGENT} -> The team agent\n" in system, system
    assert TEAM_SKILL in system, system
    assert any(x.startswith("Run the team command on a.py.") for x in texts), texts
    # in repo/src/deep (trusted: TRUST_FOLDER covers it), where `plugins status` was run and
    # said "current", and beside the repository (trusted too): none of it, no server started
    before = len(t.started())
    for folder in (t.deep, t.outside):
        system, _, texts = prompt(t.home, folder, f"/{TEAM_COMMAND} a.py")
        assert f"- {TEAM_AGENT} -> " not in system and TEAM_SKILL not in system, system
        assert f"/{TEAM_COMMAND} a.py" in texts  # no such command there: sent as typed
        assert not any("Run the team command" in x for x in texts), texts
    assert len(t.started()) == before, t.started()
    proven("gemini", "`skilltool plugins add ./plugins/team --project` (status: agent, command, "
           "MCP current for gemini; no trust written): with the repo trusted and the agent "
           "acknowledged by the user, started at the repo root Gemini lists the linked skill, "
           "offers the agent, runs /team-cmd and starts the server from .gemini/settings.json; "
           "started in repo/src/deep (where status said `current`) or a trusted sibling folder, "
           "none of them")  # fmt: skip
