"""A plugin brought in with `plugins add` from a git repository loads in the real harness,
through the checkout's `current` link, and keeps loading across `update` and `remove`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.support import Proven, need
from tests.gitrepos import Repo, isolate_git, plugin_files

pytestmark = pytest.mark.conformance


def skilltool(env: dict[str, str], home: Path, *args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "skilltool", "plugins", *args, "--home", str(home)],
        env={**os.environ, **env, "PATH": os.environ["PATH"]},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def opencode_skills(env: dict[str, str], home: Path) -> dict[str, str]:
    done = run(["opencode", "debug", "skill"], env, home, timeout=60)
    assert done.returncode == 0, done.stderr
    return {s["name"]: s["location"] for s in json.loads(done.stdout)}


def opencode_agents(env: dict[str, str], home: Path) -> str:
    done = run(["opencode", "agent", "list"], env, home, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_opencode_loads_an_added_source_across_update_and_remove(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, proven: Proven
) -> None:
    need("opencode")
    isolate_git(tmp_path, monkeypatch)
    repo = Repo(tmp_path, "team")
    repo.commit(plugin_files("team", ("team-notes",), {"team-helper": "You help the team.\n"}))
    repo.push()
    home = make_home(tmp_path / "sandbox")
    (home / ".config/opencode").mkdir(parents=True, exist_ok=True)
    env = harness_env(home)
    skills = home / ".agents/skills"

    skilltool(env, home, "add", repo.url)
    assert opencode_skills(env, home).get("team-notes") == str(skills / "team-notes/SKILL.md")
    assert "team-helper (subagent)" in opencode_agents(env, home)

    repo.commit(plugin_files("team", ("team-review",)), remove=("skills/team-notes",))
    repo.push()
    skilltool(env, home, "update")
    found = opencode_skills(env, home)
    assert found.get("team-review") == str(skills / "team-review/SKILL.md")
    assert "team-notes" not in found

    skilltool(env, home, "remove", "team")
    assert "team-review" not in opencode_skills(env, home)
    assert "team-helper" not in opencode_agents(env, home)
    proven(
        "opencode",
        "[added source] a plugin added from a git repository over file:// is loaded through "
        "the checkout's `current` link (`debug skill`, `agent list`); after `update` the new "
        "skill is listed and the removed one is not; after `remove` neither the skills nor "
        "the agent are",
    )
