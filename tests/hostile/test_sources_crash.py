"""Crash safety of `plugins update`: killed with SIGKILL at random moments while it moves a
source of a few hundred skills to a new commit. After each kill the source's `current`
checkout is the old one or the new one, complete; every other path is as before or as
after (or a temporary file); and the next `update` ends exactly where an uninterrupted one
ends."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from skilltool.fs import TEMP_PREFIX
from tests.gitrepos import Repo, isolate_git, plugin_files
from tests.helpers import agent_md, skill_md
from tests.hostile.tally import COUNTS

SKILLS = 200
KILLS = 30  # at least this many runs killed while running
MAX_TRIALS = 90
SOURCES = ".local/share/skilltool/sources/tools"
# caches, the lock, and what is inside git's stores (git-<commit>/: git's own files, written
# the way git writes them; which stores exist is checked on its own, and the `git` link is not
# ignored)
IGNORED = (".cache/", f"{SOURCES}/git-", ".local/state/")


def stores(home: Path) -> set[str]:
    return {path.name for path in (home / SOURCES).glob("git-*")}


def listing(home: Path) -> dict[str, tuple[object, ...]]:
    found: dict[str, tuple[object, ...]] = {}
    for directory, dirnames, filenames in os.walk(home):
        for name in dirnames + filenames:
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, home)
            if relative.startswith(IGNORED) or relative + "/" in IGNORED:
                continue
            if os.path.islink(path):
                found[relative] = ("link", os.readlink(path))
            elif os.path.isdir(path):
                found[relative] = ("dir",)
            else:
                with open(path, "rb") as handle:
                    found[relative] = ("file", handle.read())
    return found


def checkout_of(state: dict[str, tuple[object, ...]], commit: str) -> dict[str, object]:
    """What a listing holds of the checkout of `commit` (c-<commit>-<tree>/...)."""
    prefix = f"{SOURCES}/c-{commit}-"
    found = {}
    for path, value in state.items():
        if path.startswith(prefix) and "/" in path[len(prefix) :]:
            found[path[len(prefix) :].split("/", 1)[1]] = value
    return found


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    with tempfile.TemporaryDirectory(dir=shm, prefix="skilltool-update-crash-") as place:
        yield Path(place)


def _update(home: Path) -> list[str]:
    return [sys.executable, "-m", "skilltool", "plugins", "update", "--home", str(home)]


def test_killed_updates_leave_old_or_new_and_the_next_run_converges(
    scratch: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate_git(scratch, monkeypatch)
    env = {**os.environ}
    repo = Repo(scratch, "tools")
    skills = tuple(f"s{i:03d}" for i in range(SKILLS))
    old = repo.commit(plugin_files("tools", skills, {"helper": "Version 1.\n", "gone": "Bye.\n"}))
    repo.push()
    home, template = scratch / "home", scratch / "before"
    (home / ".codex").mkdir(parents=True)
    done = subprocess.run([*_update(home)[:4], "add", repo.url, "--home", str(home)], env=env, capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    before = listing(home)
    shutil.copytree(home, template, symlinks=True)
    new = repo.commit(
        {
            **{f"skills/n{i:03d}/SKILL.md": skill_md(f"n{i:03d}") for i in range(50)},
            "agents/helper.md": agent_md("helper", "Version 2.\n"),
        },
        remove=("agents/gone.md", *(f"skills/s{i:03d}" for i in range(150, SKILLS))),
    )
    repo.push()

    def reset() -> None:
        shutil.rmtree(home)
        shutil.copytree(template, home, symlinks=True)

    # how long an update takes: the shorter of two, so that a first run slowed by other work
    # on the machine does not make the kills land after most updates have ended
    times = []
    for _ in range(2):
        reset()
        begin = time.monotonic()
        assert subprocess.run(_update(home), env=env, capture_output=True).returncode == 0
        times.append(time.monotonic() - begin)
    seconds = min(times)
    after, stores_after = listing(home), stores(home)
    assert checkout_of(after, new) and checkout_of(before, old)
    assert stores_after == {f"git-{new}"}
    complete = {old: checkout_of(before, old), new: checkout_of(after, new)}

    killed = trials = 0
    while killed < KILLS and trials < MAX_TRIALS:
        rng = random.Random(f"update-crash-{trials}")
        trials += 1
        reset()
        process = subprocess.Popen(_update(home), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        time.sleep(rng.uniform(0.0, seconds))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            killed += 1
        process.wait(timeout=120)
        seen = listing(home)
        current = os.readlink(home / SOURCES / "current").removeprefix("c-").split("-")[0]
        assert current in complete and checkout_of(seen, current) == complete[current]
        for path in sorted(set(before) | set(after) | set(seen)):
            now = seen.get(path)
            if now in (before.get(path), after.get(path)):
                continue
            assert TEMP_PREFIX in path, f"trial {trials}: {path} is neither before nor after"
        again = subprocess.run(_update(home), env=env, capture_output=True, text=True)
        assert again.returncode == 0, again.stdout + again.stderr
        assert listing(home) == after, f"trial {trials}: did not converge"
        assert stores(home) == stores_after, f"trial {trials}: a store was left behind"
        COUNTS["update crash trials"] += 1
        was_killed = process.returncode == -signal.SIGKILL
        COUNTS["update crash killed"] += was_killed
        COUNTS["update crash mid-way"] += was_killed and seen not in (before, after)
    assert killed >= KILLS, f"only {killed} of {trials} updates were still running when killed"
