"""Crash safety of a project's copied skills: `skilltool plugins update` killed by SIGKILL
at an exact rename (strace injects the signal into the Nth one) while the copy of a git
source's skill is being replaced. Whichever rename it dies at, the skill's folder is never
a half copy (it is the old copy, the new one, or not there for the instant between the two
renames), and the next `sync` leaves the new copy, intact, and no temporary folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skilltool import copies
from tests.gitrepos import Repo, git, isolate_git, plugin_files
from tests.helpers import run
from tests.hostile.test_entry_crash import RENAMES, strace_works

pytestmark = pytest.mark.skipif(not strace_works(), reason="needs strace and ptrace")


def killed_update(number: int, repo: Path, home: Path) -> int:
    command = ["strace", "-f", "-qq", "-o", "/dev/null", "-e", f"trace={RENAMES}"]
    command += ["-e", f"inject={RENAMES}:signal=KILL:when={number}"]
    command += [sys.executable, "-m", "skilltool", "plugins", "update"]
    env = {**os.environ, "HOME": str(home)}
    return subprocess.run(command, env=env, cwd=repo, capture_output=True, timeout=120).returncode


def whole_or_absent(folder: Path) -> bool:
    if not os.path.lexists(folder):
        return True
    mine = copies.marker_of(folder)
    return mine is not None and copies.digest(folder) == mine[1]


def test_a_killed_update_never_leaves_half_a_copy_and_the_next_sync_converges(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate_git(tmp_path, monkeypatch)
    remote = Repo(tmp_path, "tools")
    files = plugin_files("tools", skills=("lint",))
    files.update({f"skills/lint/notes/{n}.md": f"note {n}\n" for n in range(5)})
    remote.commit(files)
    remote.push()
    start = tmp_path / "start"
    git("init", "-q", start)
    (start / "skilltool.toml").write_text('harnesses = ["opencode"]\n')
    monkeypatch.chdir(start)
    assert run("plugins", "add", remote.url).code == 0
    remote.commit({"skills/lint/notes/0.md": "note 0, revised\n", "skills/lint/more.md": "m\n"})
    remote.push()
    repo = tmp_path / "repo"
    skill = repo / ".agents/skills/lint"
    for number in range(1, 60):
        shutil.rmtree(repo, ignore_errors=True)
        shutil.copytree(start, repo, symlinks=True)
        code = killed_update(number, repo, home)
        assert whole_or_absent(skill), f"killed at rename {number}: half a copy"
        synced = subprocess.run(
            [sys.executable, "-m", "skilltool", "plugins", "sync"],
            env={**os.environ, "HOME": str(home)},
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert synced.returncode == 0, (number, synced.stdout, synced.stderr)
        locked = repo / ".skilltool/sources/tools/current/tools/skills/lint"
        assert whole_or_absent(skill) and skill.is_dir()
        assert copies.digest(skill) == copies.digest(locked)  # the lockfile's commit's skill
        assert not [n for n in os.listdir(skill.parent) if n.startswith(".skilltool-tmp-")]
        if code == 0:  # the run ended before its Nth rename: every rename was tried
            assert (skill / "notes/0.md").read_text() == "note 0, revised\n"
            return
    pytest.fail("the update never completed")
