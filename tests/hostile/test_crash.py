"""Crash safety: `skilltool plugins install` killed with SIGKILL at random moments, over a
few hundred skills and the four harnesses. After each kill every target is absent, its old
content or its complete new content (never anything else, never half a file), and the next
run ends exactly where an uninterrupted run ends."""

from __future__ import annotations

import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from skilltool.fs import TEMP_PREFIX
from tests.helpers import agent_md, build_file_tree, run, skill_md
from tests.hostile.tally import COUNTS

SKILLS = 300
KILLS = 100  # at least this many runs killed while running
MAX_TRIALS = 200  # a bound, should the machine be so slow that runs end before their kill
WORKERS = 2  # homes worked on at once: the machine has two cores
AGENTS_BEFORE = ("alpha", "beta", "gamma", "delta")
AGENTS_AFTER = ("alpha", "beta", "delta", "epsilon")
CACHE = ".cache/skilltool/"  # the parse and rendering caches
# written only once the plugin files are older than the racy window: there, or not yet
CATALOGUE = CACHE + "catalogue.marshal"
ENV: dict[str, str] = {}  # the search path of the runs

Entry = tuple[Any, ...]


def listing(home: Path) -> dict[str, Entry]:
    """Every entry under the home: a link's target, a file's bytes and mode, a directory."""
    found: dict[str, Entry] = {}
    for directory, dirnames, filenames in os.walk(home):
        for name in dirnames + filenames:
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, home)
            if relative == CATALOGUE:
                continue
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                found[relative] = ("link", os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                found[relative] = ("dir",)
            elif relative.startswith(CACHE):
                found[relative] = ("cache",)  # a cache: its bytes are its own business
            else:
                with open(path, "rb") as handle:
                    found[relative] = ("file", handle.read(), stat.S_IMODE(info.st_mode))
    return found


class Worker:
    """One home at a fixed path, its state before (A) and after (B) an uninterrupted run."""

    def __init__(self, base: Path, index: int, env: dict[str, str]) -> None:
        self.home = base / f"worker{index}" / "home"
        self.template = base / f"worker{index}" / "before"
        self.env = {**env, "HOME": str(self.home)}
        self.command = [sys.executable, "-m", "skilltool", "plugins", "install", "--home", str(self.home)]  # fmt: skip
        for directory in (".config/opencode", ".codex", ".pi/agent"):
            (self.home / directory).mkdir(parents=True)
        for agent in sorted({*AGENTS_BEFORE, *AGENTS_AFTER}):
            (self.home / ".hermes/profiles" / agent).mkdir(parents=True)
        # the seed `hermes profile create` leaves: replaced, and kept beside, by the new run
        (self.home / ".hermes/profiles/epsilon/SOUL.md").write_bytes(b"")
        self.before: dict[str, Entry] = {}
        self.after: dict[str, Entry] = {}
        self.seconds = 0.0  # how long an uninterrupted run takes
        self.changing = 0.0  # from its first change of the home to its last

    def start(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            self.command, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def _stamps(self) -> list[int]:
        """The mtimes of the directories a run changes: the skills dir and the harnesses'."""
        places = [".agents/skills", ".config/opencode/agent", ".codex", ".codex/skilltool"]
        places += [".pi/agent/skilltool", *(f".hermes/profiles/{a}" for a in AGENTS_AFTER)]
        stamps = []
        for place in places:
            try:
                stamps.append(os.stat(self.home / place).st_mtime_ns)
            except FileNotFoundError:
                stamps.append(0)
        return stamps

    def watch(self, process: subprocess.Popen[bytes], to_the_end: bool) -> tuple[float, float]:
        """When the run first changed the home, and (watching to its end) last changed it."""
        first = last = 0.0
        seen = self._stamps()
        while process.poll() is None:
            now = self._stamps()
            if now != seen:
                last = time.monotonic()
                first = first or last
                seen = now
                if not to_the_end:
                    break
            time.sleep(0.0003)
        return first, last

    def record_before(self) -> None:
        done = subprocess.run(self.command, env=self.env, capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        self.before = listing(self.home)
        shutil.copytree(self.home, self.template, symlinks=True)

    def reset(self) -> None:
        shutil.rmtree(self.home)
        shutil.copytree(self.template, self.home, symlinks=True)

    def record_after(self) -> None:
        self.reset()
        begin = time.monotonic()
        process = self.start()
        first, last = self.watch(process, to_the_end=True)
        assert process.wait(timeout=120) == 0
        self.seconds, self.changing = time.monotonic() - begin, last - first
        self.after = listing(self.home)
        assert self.after != self.before


def make_plugins(base: Path) -> tuple[Path, Path, Callable[[], None]]:
    """A search path of two entries; and the change to it that the killed runs install."""
    first, second = base / "first", base / "second"
    first.mkdir(parents=True)
    spec: dict[str, str | bytes | Path] = {
        f"skills/s{i:03d}/SKILL.md": skill_md(f"s{i:03d}") for i in range(SKILLS)
    }
    spec.update({f"agents/{a}.md": agent_md(a, f"You are {a}, version 1.\n") for a in AGENTS_BEFORE})  # fmt: skip
    build_file_tree(second / "base", spec)

    def upgrade() -> None:
        # a plugin earlier on the path takes over 100 skills (relinked) and adds 50 (linked)
        over: dict[str, str | bytes | Path] = {
            f"skills/s{i:03d}/SKILL.md": skill_md(f"s{i:03d}", "Now from over.") for i in range(100)
        }
        over.update({f"skills/n{i:03d}/SKILL.md": skill_md(f"n{i:03d}") for i in range(50)})
        build_file_tree(first / "over", over)
        for i in range(SKILLS - 50, SKILLS):  # 50 skills go away (their links are pruned)
            shutil.rmtree(second / f"base/skills/s{i:03d}")
        (second / "base/agents/gamma.md").unlink()  # its renderings are removed
        build_file_tree(
            second / "base",
            {f"agents/{a}.md": agent_md(a, f"You are {a}, version 2.\n") for a in AGENTS_AFTER},
        )

    return first, second, upgrade


def check_after_kill(worker: Worker, seen: dict[str, Entry]) -> bool:
    """Every path is as before or as after; anything else is a temporary file. Whether the
    home is half changed."""
    for path in sorted(set(worker.before) | set(worker.after) | set(seen)):
        now = seen.get(path)
        if now in (worker.before.get(path), worker.after.get(path)):
            continue
        name = os.path.basename(path)
        # a temporary file: of a rendering, a link, or a cache killed while it was saved
        temporary = now is not None and now[0] in ("file", "link", "cache")
        assert name.startswith(TEMP_PREFIX) and temporary, (
            f"{path}: {now!r:.300} is neither {worker.before.get(path)!r:.300} "
            f"nor {worker.after.get(path)!r:.300}"
        )
    return seen not in (worker.before, worker.after)


def trial(worker: Worker, number: int, lock: threading.Lock) -> None:
    """One run killed at a random moment: anywhere in the run, or (more often, since that is
    where a kill can hurt) while it changes the home; then the next run, to the end."""
    rng = random.Random(f"crash-{number}")
    worker.reset()
    process = worker.start()
    if rng.random() < 0.25:
        time.sleep(rng.uniform(0.0, worker.seconds))
    else:
        worker.watch(process, to_the_end=False)
        time.sleep(rng.uniform(0.0, worker.changing))
    killed = process.poll() is None
    if killed:
        process.send_signal(signal.SIGKILL)
    process.wait(timeout=120)
    midway = check_after_kill(worker, listing(worker.home))
    with lock:  # the next run, in this process: one at a time
        done = run("plugins", "install", "--home", worker.home, env=ENV)
        assert done.code == 0, done.stdout + done.stderr
        assert listing(worker.home) == worker.after, f"trial {number}: did not converge"
        COUNTS["crash trials"] += 1
        COUNTS["crash killed"] += killed
        COUNTS["crash mid-way"] += killed and midway


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """Where the homes go: tmpfs when there is one. A SIGKILL leaves the page cache as it
    is, so the file system does not change what is tested; on tmpfs, resetting a home of a
    few hundred links between trials is some fifteen times faster than on a disk."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    with tempfile.TemporaryDirectory(dir=shm, prefix="skilltool-crash-") as place:
        yield Path(place)


def test_killed_installs_leave_old_or_new_and_the_next_run_converges(scratch: Path) -> None:
    first, second, upgrade = make_plugins(scratch / "plugins")
    ENV["SKILLTOOL_PLUGINS"] = f"{first}:{second}"
    workers = [Worker(scratch, index, {**os.environ, **ENV}) for index in range(WORKERS)]
    for worker in workers:
        worker.record_before()
    upgrade()
    for worker in workers:
        worker.record_after()
    assert len(workers[0].after) > SKILLS
    lock = threading.Lock()
    start = COUNTS["crash killed"]
    number = 0
    with ThreadPoolExecutor(WORKERS) as pool:
        while COUNTS["crash killed"] - start < KILLS and number < MAX_TRIALS:
            batch = [
                pool.submit(trial, worker, number + index, lock)
                for index, worker in enumerate(workers)
            ]
            number += len(batch)
            for future in batch:
                future.result()
    killed = COUNTS["crash killed"] - start
    assert killed >= KILLS, f"only {killed} of {number} runs were still running when killed"
