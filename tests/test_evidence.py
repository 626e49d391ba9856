"""Removal needs evidence: what came from a folder that holds nothing now (a mount point
whose disk is gone), or from a file or folder that cannot be read, is kept, with a line
naming it; `install --prune` removes it when the user says it is gone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gitrepos import home_state
from tests.helpers import Result, agent_md, build_file_tree, skill_md

ECHO = {"command": "${CLAUDE_PLUGIN_ROOT}/bin/echo-srv", "args": ["--stdio"]}
HARNESS_DIRS = (".codex", ".claude", ".config/opencode")


@pytest.fixture
def disk(tmp_path: Path, home: Path) -> Iterator[Path]:
    """A system plugins folder (an entry of XDG_DATA_DIRS, a mount point of its own) holding
    one plugin with a skill, an agent, a command and an MCP server, installed."""
    plugins = tmp_path / "disk/skilltool/plugins"
    build_file_tree(plugins / "docs", {
        ".claude-plugin/plugin.json": '{"name": "docs"}\n',
        "skills/alpha/SKILL.md": skill_md("alpha"),
        "agents/helper.md": agent_md("helper"),
        "commands/review.md": "---\ndescription: Review.\n---\nReview $ARGUMENTS.\n",
        ".mcp.json": json.dumps({"mcpServers": {"echo-srv": ECHO}}),
    })  # fmt: skip
    for directory in HARNESS_DIRS:
        (home / directory).mkdir(parents=True)
    done = skilltool(home, tmp_path, "install")
    assert done.code == 0, done.stdout + done.stderr
    assert os.path.islink(home / ".agents/skills/alpha")
    assert "echo-srv" in (home / ".codex/config.toml").read_text()
    yield plugins
    for path in plugins.rglob("*"):  # give back what a test took away, so it can be removed
        path.chmod(0o755)


def skilltool(home: Path, tmp_path: Path, *args: str, unprivileged: bool = False) -> Result:
    """The real CLI in a subprocess, in `home`, with the disk on XDG_DATA_DIRS; unprivileged:
    without the capabilities that let root read a file whatever its mode."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "SKILLTOOL_"))}
    env.update(HOME=str(home), XDG_DATA_DIRS=str(tmp_path / "disk"))
    command: list[str] = [sys.executable, "-m", "skilltool", "plugins", *args]
    if unprivileged and os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: no file is unreadable")
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    return Result(done.returncode, done.stdout, done.stderr)


def test_a_plugins_folder_that_holds_nothing_now_removes_nothing(
    disk: Path, home: Path, tmp_path: Path
) -> None:
    before = home_state(home)
    shutil.move(disk / "docs", tmp_path / "elsewhere")  # the disk is gone; its mount point stays
    done = skilltool(home, tmp_path, "install")
    assert done.code == 0, done.stdout + done.stderr
    assert home_state(home) == before
    said = done.stdout + done.stderr
    assert f"{disk}: holds no plugin now, so what came from it is kept" in said
    assert "'skilltool plugins install --prune' removes it if it is gone for good" in said
    assert skilltool(home, tmp_path, "uninstall").code == 0  # uninstall removes all of it
    assert not os.path.lexists(home / ".agents/skills/alpha")


def test_prune_removes_what_came_from_a_folder_that_holds_nothing(
    disk: Path, home: Path, tmp_path: Path
) -> None:
    shutil.rmtree(disk / "docs")  # gone for good, and the user says so
    done = skilltool(home, tmp_path, "install", "--prune")
    assert done.code == 0, done.stdout + done.stderr
    assert not os.path.lexists(home / ".agents/skills/alpha")
    assert not (home / ".codex/skilltool/helper.md").exists()
    assert not (home / ".codex/config.toml").exists()  # it held only the entry skilltool wrote


@pytest.mark.parametrize(
    "unreadable", [".mcp.json", "skills", "agents", "commands", "."], ids=lambda p: p or "plugin"
)
def test_what_cannot_be_read_is_evidence_of_nothing(
    disk: Path, home: Path, tmp_path: Path, unreadable: str
) -> None:
    before = home_state(home)
    (disk / "docs" / unreadable).chmod(0)
    done = skilltool(home, tmp_path, "install", unprivileged=True)
    assert home_state(home) == before, done.stdout
    shown = disk / "docs" / unreadable if unreadable != "." else disk / "docs"
    said = (done.stdout + done.stderr).splitlines()
    assert any(f"{shown}: cannot be" in line for line in said), said
