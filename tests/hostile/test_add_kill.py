"""Exact kills: `plugins add` of a source whose plugin has a skill, an agent, an MCP server
and hooks, and a teammate's `plugins sync --frozen` of a project, each killed by SIGKILL at
its Kth `rename` (strace), for every K. After each kill the same command again ends where an
uninterrupted one ends, and `uninstall --purge` then leaves nothing of skilltool's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skilltool.fs import TEMP_PREFIX
from tests.gitrepos import Repo, git, isolate_git, plugin_files
from tests.hostile.tally import COUNTS

STRACE = shutil.which("strace")
pytestmark = pytest.mark.skipif(STRACE is None, reason="strace is not installed")
# what a run keeps for itself: caches, its state, git's own files inside a store
IGNORED = (".cache/", ".local/state/")
HOOKS = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo stopped"}]}]}}


def listing(root: Path, skip: tuple[str, ...] = IGNORED) -> dict[str, object]:
    """Every file, link and folder under `root` (but what `skip` names and git's stores),
    `root` itself written `<root>` wherever it is named."""
    found: dict[str, object] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            if rel.startswith(skip) or "/git-" in f"/{rel}" or rel + "/" in skip:
                continue
            if os.path.islink(path):
                found[rel] = ("link", os.readlink(path).replace(str(root), "<root>"))
            elif os.path.isdir(path):
                found[rel] = ("dir",)
            else:
                with open(path, "rb") as handle:
                    found[rel] = ("file", handle.read().replace(os.fsencode(root), b"<root>"))
    return found


def _env(home: Path) -> dict[str, str]:
    keep = ("PATH", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_TERMINAL_PROMPT")
    env = {k: v for k, v in os.environ.items() if k in keep or k.startswith("GIT_AUTHOR")}
    env |= {k: v for k, v in os.environ.items() if k.startswith("GIT_COMMITTER")}
    # no bytecode written: a first run in a fresh checkout would rename its .pyc files into
    # place, and the runs after it would not, so the renames counted would differ
    no_pyc = {"PYTHONDONTWRITEBYTECODE": "1"}
    return {**env, **no_pyc, "HOME": str(home), "XDG_DATA_DIRS": str(home / "no-system")}


def skilltool(
    home: Path,
    *args: str,
    kill_at: int | None = None,
    trace: Path | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    assert STRACE is not None
    command = [sys.executable, "-m", "skilltool", "plugins", *args]
    if kill_at is not None:
        inject = ["-e", "trace=rename", "-e", f"inject=rename:signal=KILL:when={kill_at}"]
        command = [STRACE, "-f", "-qq", "-o", os.devnull, *inject, *command]
    elif trace is not None:
        command = [STRACE, "-f", "-qq", "-o", str(trace), "-e", "trace=rename", *command]
    return subprocess.run(
        command, env=_env(home), capture_output=True, text=True, timeout=120, cwd=cwd or home
    )


def renames(trace: Path) -> int:
    """The most renames one process of the run made: strace counts `when=K` per process."""
    from collections import Counter

    made = Counter(
        line.split()[0]
        for line in trace.read_text().splitlines()
        if "rename(" in line and "resumed" not in line
    )
    return max(made.values(), default=0)


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    isolate_git(tmp_path, monkeypatch)
    remote = Repo(tmp_path, "tools")
    files = plugin_files("tools", ("lint",), {"helper": "You help.\n"})
    files[".mcp.json"] = json.dumps(
        {"mcpServers": {"serve": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/s.js"]}}}
    )
    files["s.js"] = "1\n"
    files["hooks/hooks.json"] = json.dumps(HOOKS)
    remote.commit(files)
    remote.push()
    return remote


def _home(base: Path, name: str) -> Path:
    home = base / name
    for folder in (".claude", ".codex", ".copilot"):
        (home / folder).mkdir(parents=True)
    return home


def test_add_killed_at_every_rename_converges_and_purges(tmp_path: Path, tools: Repo) -> None:
    reference = _home(tmp_path, "reference")
    trace = tmp_path / "trace"
    done = skilltool(reference, "add", tools.url, "--yes", trace=trace)
    assert done.returncode == 0, done.stdout + done.stderr
    after = listing(reference)
    assert ".claude/skills/tools.mcp/.mcp.json" in after
    total = renames(trace)
    assert total > 5, trace.read_text()
    for k in range(1, total + 1):
        home = _home(tmp_path, f"home-{k}")
        before = listing(home)
        killed = skilltool(home, "add", tools.url, "--yes", kill_at=k)
        if killed.returncode == 0:  # caches written or not (settled stamps): a few fewer
            assert k >= total - 4, (k, total)
            break
        again = skilltool(home, "add", tools.url, "--yes")
        assert again.returncode == 0, (k, again.stdout, again.stderr)
        now = listing(home)
        assert now == after, (k, sorted(set(now) ^ set(after)))
        assert not [p for p in now if os.path.basename(p).startswith(TEMP_PREFIX)]
        purged = skilltool(home, "uninstall", "--purge")
        assert purged.returncode == 0, (k, purged.stdout, purged.stderr)
        left = listing(home, ())
        # kept on purpose: the lockfile (it brings the same plugins back), and the XDG base
        # folders every program shares, empty
        kept = {".local/share/skilltool/plugins.lock", ".local/share/skilltool"}
        kept |= {".cache", ".local", ".local/share", ".local/state"}
        assert set(left) - set(before) <= kept, (k, sorted(set(left) - set(before)))
        shutil.rmtree(home)
    COUNTS["exact kills of add"] = total


def test_a_project_sync_killed_at_every_rename_converges(tmp_path: Path, tools: Repo) -> None:
    author = _home(tmp_path, "author")
    repo = tmp_path / "repo"
    git("init", "-q", repo)
    (repo / "src").mkdir()
    added = skilltool(author, "add", tools.url, "--project", "--yes", cwd=repo)
    assert added.returncode == 0, added.stdout + added.stderr
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "plugins", cwd=repo)
    teammate = _home(tmp_path, "teammate")
    reference = tmp_path / "reference-clone"
    git("clone", "-q", repo, reference)
    trace = tmp_path / "trace"
    done = skilltool(teammate, "sync", "--frozen", trace=trace, cwd=reference)
    assert done.returncode == 0, done.stdout + done.stderr
    after = listing(reference, (".git/", ".skilltool/cache/", ".skilltool/state/"))
    total = renames(trace)
    assert total > 1
    for k in range(1, total + 1):
        clone = tmp_path / f"clone-{k}"
        git("clone", "-q", repo, clone)
        skilltool(teammate, "sync", "--frozen", kill_at=k, cwd=clone)
        again = skilltool(teammate, "sync", "--frozen", cwd=clone)
        assert again.returncode == 0, (k, again.stdout, again.stderr)
        now = listing(clone, (".git/", ".skilltool/cache/", ".skilltool/state/"))
        assert now == after, (k, sorted(set(now) ^ set(after)))
        assert git("status", "--porcelain", cwd=clone) == ""
        shutil.rmtree(clone)
    COUNTS["exact kills of a project sync"] = total
