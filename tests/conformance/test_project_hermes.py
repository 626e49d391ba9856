"""Hermes in a project: it reads none of a project's skills, agents (profiles) or MCP servers.

Every candidate location is filled in a git repository, in the shapes skilltool renders into
~/.hermes (a profile's SOUL.md and config.yaml, `mcp_servers` in config.yaml) and the skill
folders other harnesses read; Hermes is started at the root and in `src/deep`. What it loaded
is read from `hermes skills list`, `hermes mcp list`, `hermes profile list` and the system
prompt built by its own code (as test_hermes.py does). As a control that the runs did look at
the working folder, the project's `.hermes.md` context file (which Hermes reads up to the git
root) is in the prompt."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conformance.homes import TIMEOUT
from tests.conformance.sandbox import harness_cache, harness_env, make_home, run
from tests.conformance.support import Proven, need
from tests.conformance.team_project import SKILL, team_project
from tests.conformance.test_hermes import BUILD_PROMPT
from tests.helpers import build_file_tree

pytestmark = pytest.mark.conformance

MARK = f"(sha256:{'0' * 64})"
CONTEXT = "PROJECT CONTEXT FILE SEEN"


@pytest.fixture(autouse=True)
def _hermes() -> None:
    need("hermes")


def skill(name: str) -> str:
    return f"---\nname: {name}\ndescription: Project skill {name}\n---\n\nBody of {name}.\n"


def env(home: Path) -> dict[str, str]:
    return harness_env(home, {"HERMES_DISABLE_LAZY_INSTALLS": "1", "COLUMNS": "200"})


CANDIDATE_SKILLS = {
    ".agents/skills": "proj-agents",
    ".hermes/skills": "proj-hermes",
    ".claude/skills": "proj-claude",
    "skills": "proj-bare",
    ".hermes/profiles/helper/skills": "proj-profile",
}
PROJECT_CONFIG = (
    f"# rendered by skilltool from /plugins/p (sha256:{'0' * 64})\n"
    "skills:\n  external_dirs:\n    - .agents/skills\n"
    "mcp_servers:\n  proj-srv:\n    command: /bin/true\n    args:\n      - x\n"
)


def project(tmp: Path) -> tuple[Path, Path]:
    home = make_home(tmp)
    repo = tmp / "repo"
    tree: dict[str, str | Path] = {
        f"{where}/{name}/SKILL.md": skill(name) for where, name in CANDIDATE_SKILLS.items()
    }
    tree.update(
        {
            ".hermes/config.yaml": PROJECT_CONFIG,
            ".hermes/profiles/helper/config.yaml": PROJECT_CONFIG,
            ".hermes/profiles/helper/SOUL.md": f"[//]: # (rendered by skilltool {MARK})\n"
            "# helper\n\nPROJECT PROFILE SOUL\n",
            ".hermes.md": f"{CONTEXT}\n",
            "src/deep/.keep": "",
        }
    )
    build_file_tree(repo, tree)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    # a home skill and server, so that the listings are shown not to be empty by accident
    build_file_tree(
        home,
        {
            ".hermes/skills/user-skill/SKILL.md": skill("user-skill"),
            ".hermes/config.yaml": "mcp_servers:\n  user-srv:\n    command: /bin/true\n",
        },
    )
    return home, repo


def system_prompt(home: Path, cwd: Path) -> str:
    python = harness_cache() / "hermes-venv/bin/python"
    done = subprocess.run(
        [str(python), "-c", BUILD_PROMPT],
        env={**env(home), "HERMES_HOME": str(home / ".hermes")},
        cwd=cwd,
        capture_output=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    return done.stdout.decode("utf-8")


def test_hermes_reads_no_project_skills_agents_or_servers(tmp_path: Path, proven: Proven) -> None:
    home, repo = project(tmp_path)
    for cwd in (repo, repo / "src/deep"):
        skills = run(["hermes", "skills", "list"], env(home), cwd, timeout=TIMEOUT)
        assert skills.returncode == 0, skills.stdout + skills.stderr
        assert "user-skill" in skills.stdout
        servers = run(["hermes", "mcp", "list"], env(home), cwd, timeout=TIMEOUT)
        assert "user-srv" in servers.stdout, servers.stdout + servers.stderr
        assert "proj-srv" not in servers.stdout
        prompt = system_prompt(home, cwd)
        assert CONTEXT in prompt  # the control: it did read the project's context file
        assert "user-skill" in prompt
        for name in CANDIDATE_SKILLS.values():
            assert name not in skills.stdout and name not in prompt, (cwd, name)
        assert "PROJECT PROFILE SOUL" not in prompt
    profiles = run(["hermes", "profile", "list"], env(home), repo, timeout=TIMEOUT)
    assert "helper" not in profiles.stdout, profiles.stdout
    missing = run(["hermes", "-p", "helper", "skills", "list"], env(home), repo, timeout=TIMEOUT)
    assert missing.returncode != 0 and "does not exist" in missing.stdout + missing.stderr
    proven(
        "hermes",
        "project (git repo, at the root and in src/deep): no skill of .agents/skills, "
        ".hermes/skills, .claude/skills, skills/ or .hermes/profiles/*/skills; no server of "
        ".hermes/config.yaml; no profile of .hermes/profiles (`hermes -p helper` does not "
        "exist) — while the project's .hermes.md context file is in the prompt",
    )


def test_skilltool_project_writes_nothing_for_hermes_and_says_why(
    tmp_path: Path, proven: Proven
) -> None:
    home = make_home(tmp_path)
    (home / ".codex").rmdir()
    build_file_tree(home, {".hermes/skills/user-skill/SKILL.md": skill("user-skill")})
    t = team_project(tmp_path, home, manifest='harnesses = ["hermes"]\n')
    why = "Hermes reads no project folder: its agents, skills and MCP servers are its home's"
    said = [line for line in t.added.splitlines() if "hermes" in line.lower()]
    assert said == [f"skipped   hermes: {why}"], t.added
    assert t.status.splitlines()[0] == f"project   {t.repo}", t.status
    # said once, at the top, rather than under each item
    assert f"absent    hermes: {why}" in t.status.splitlines(), t.status
    assert not any(line.startswith("    hermes ") for line in t.status.splitlines()), t.status
    # nothing of Hermes in the repository (only the shared .agents/skills link, which every
    # harness's skills come from), nothing in the home
    made = {
        str(p.relative_to(t.repo))
        for p in t.repo.rglob("*")
        if not {".git", ".skilltool", "plugins"} & set(p.relative_to(t.repo).parts)
    }
    assert made == {
        ".agents", ".agents/skills", f".agents/skills/{SKILL}", "skilltool.toml",
        "skilltool.lock", "src", "src/deep",
    }, sorted(made)  # fmt: skip
    hermes_home = home / ".hermes"
    assert sorted(str(p.relative_to(hermes_home)) for p in hermes_home.rglob("*")) == [
        "skills", "skills/user-skill", "skills/user-skill/SKILL.md"
    ]  # fmt: skip
    # and Hermes at the root lists the home's skill, not the linked one
    listed = run(["hermes", "skills", "list"], env(home), t.repo, timeout=TIMEOUT)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "user-skill" in listed.stdout and SKILL not in listed.stdout, listed.stdout
    proven(
        "hermes",
        '`skilltool plugins add ./plugins/team --project` with harnesses = ["hermes"] in '
        "skilltool.toml writes nothing for Hermes (only the shared .agents/skills link, which "
        "`hermes skills list` at the root does not show) and says why in one line: "
        f"`skipped   hermes: {why}`",
    )
