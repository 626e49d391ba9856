"""Crash safety of the MCP ledger: `skilltool plugins install` (or `uninstall`) killed by
SIGKILL at an exact system call (strace injects the signal into the Nth rename), between
the moment the ledger records an edit of an entry and the moment the config file holds it,
or just after. Whatever the next runs do, an entry the user then writes by hand is the
user's, and an entry skilltool did write stays skilltool's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import build_file_tree, run

USER_CODEX = '# my own servers\n[mcp_servers.mine]\ncommand = "/bin/true"  # keep me\n'
THEIRS = '\n[mcp_servers.echo-srv]\ncommand = "/usr/bin/their-own"  # written by hand\n'
SERVER = {"command": "${CLAUDE_PLUGIN_ROOT}/bin/echo-srv", "args": ["--stdio"]}
RENAMES = "rename,renameat,renameat2"
LEDGER = ".local/state/skilltool/mcp-entries.json"
CONFIG = ".codex/config.toml"


def strace_works() -> bool:
    strace = shutil.which("strace")
    if strace is None:
        return False
    done = subprocess.run([strace, "-f", "-qq", "-o", "/dev/null", "true"], capture_output=True)
    return done.returncode == 0  # no ptrace in this sandbox: nothing can be injected


pytestmark = pytest.mark.skipif(not strace_works(), reason="needs strace and ptrace")


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    """A plugin with one stdio server; the search path that holds it."""
    manifest = json.dumps({"name": "demo"})
    servers = json.dumps({"mcpServers": {"echo-srv": SERVER}})
    place = tmp_path / "plugins"
    build_file_tree(place / "demo", {".claude-plugin/plugin.json": manifest, ".mcp.json": servers})
    return place


def killed_at_rename(verb: str, number: int, home: Path, plugins: Path) -> int:
    """`plugins <verb> --only codex` killed by SIGKILL as it makes its `number`th rename;
    its exit code (0: it ended before that rename)."""
    command = ["strace", "-f", "-qq", "-o", "/dev/null", "-e", f"trace={RENAMES}"]
    command += ["-e", f"inject={RENAMES}:signal=KILL:when={number}"]
    command += [sys.executable, "-m", "skilltool", "plugins", verb, "--only", "codex"]
    command += ["--home", str(home)]
    env = {**os.environ, "HOME": str(home), "SKILLTOOL_PLUGINS": str(plugins)}
    return subprocess.run(command, env=env, capture_output=True, timeout=120).returncode


def kill_until(
    verb: str, home: Path, plugins: Path, start: Path, wanted: Callable[[Path], bool]
) -> None:
    """Each run of `verb` from the home `start`, killed at its 1st rename, its 2nd, ...,
    until one leaves the home as `wanted` says (the rename it was killed at, whichever)."""
    for number in range(1, 40):
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(start, home, symlinks=True)
        assert killed_at_rename(verb, number, home, plugins) != 0, "no kill left it so"
        if wanted(home):
            return
    pytest.fail("no kill left it so")


def recorded(home: Path) -> bool:
    ledger = home / LEDGER
    return ledger.exists() and "echo-srv" in ledger.read_text()


def written(home: Path) -> bool:
    return "echo-srv" in (home / CONFIG).read_text()


def cli(verb: str, home: Path, plugins: Path, *extra: str) -> list[str]:
    env = {"SKILLTOOL_PLUGINS": str(plugins)}
    return run("plugins", verb, "--only", "codex", *extra, "--home", home, env=env).lines


def the_users_entry_is_left(home: Path, plugins: Path) -> None:
    """The user writes an entry of the server's name by hand: no run takes it for ours."""
    config = home / CONFIG
    with config.open("a") as handle:
        handle.write(THEIRS)
    theirs = config.read_bytes()
    lines = cli("install", home, plugins)
    said = "left      ~/.codex/config.toml: mcp echo-srv: an entry of that name"
    assert any(line.startswith(said) for line in lines), lines
    assert config.read_bytes() == theirs
    cli("install", home, plugins, "--force")
    assert config.read_bytes() == theirs  # --force never takes a foreign entry
    cli("uninstall", home, plugins, "--force")
    assert config.read_bytes() == theirs


def test_an_install_killed_after_recording_an_entry_never_takes_the_users_entry(
    tmp_path: Path, plugins: Path
) -> None:
    start, home = tmp_path / "start", tmp_path / "home"
    build_file_tree(start, {CONFIG: USER_CODEX})
    kill_until("install", home, plugins, start, lambda h: recorded(h) and not written(h))
    assert (home / CONFIG).read_text() == USER_CODEX  # the killed run left the user's file
    the_users_entry_is_left(home, plugins)


def test_an_uninstall_killed_after_removing_an_entry_never_takes_the_users_entry(
    tmp_path: Path, plugins: Path
) -> None:
    start, home = tmp_path / "start", tmp_path / "home"
    build_file_tree(home, {CONFIG: USER_CODEX})
    assert cli("install", home, plugins)[-1] == "1 configured"
    shutil.copytree(home, start, symlinks=True)  # the ledger names the files of `home`
    kill_until("uninstall", home, plugins, start, lambda h: recorded(h) and not written(h))
    assert (home / CONFIG).read_text() == USER_CODEX
    the_users_entry_is_left(home, plugins)


def test_an_install_killed_after_writing_an_entry_keeps_it_ours(
    tmp_path: Path, plugins: Path
) -> None:
    start, home = tmp_path / "start", tmp_path / "home"
    build_file_tree(start, {CONFIG: USER_CODEX})
    # killed as it records the entry done, or just after: the entry is in the file
    kill_until("install", home, plugins, start, lambda h: recorded(h) and written(h))
    assert cli("install", home, plugins)[-1] == "1 unchanged"
    lines = cli("uninstall", home, plugins)
    assert "removed   codex    mcp echo-srv in ~/.codex/config.toml" in lines, lines
    assert (home / CONFIG).read_text() == USER_CODEX
