"""Config files as users keep them: very large, linked into a dotfiles folder, hard-linked,
made read-only, on a full disk. Each is edited exactly, or left alone with one line that
names it and says why; never a traceback, and the rest of the run goes on."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

from skilltool.mcp import MAX_CONFIG_BYTES
from tests.helpers import build_file_tree, run

ECHO = {"command": "/opt/echo-srv", "args": ["--stdio"]}
USER_CODEX = '# my own servers\n[mcp_servers.mine]\ncommand = "/bin/true"  # keep me\n'


@pytest.fixture
def demo(tmp_path: Path) -> dict[str, str]:
    """A plugin with one stdio server on the search path; the env that selects it."""
    build_file_tree(
        tmp_path / "plugins/demo",
        {
            ".claude-plugin/plugin.json": json.dumps({"name": "demo"}),
            ".mcp.json": json.dumps({"mcpServers": {"echo-srv": ECHO}}),
        },
    )
    return {"SKILLTOOL_PLUGINS": str(tmp_path / "plugins")}


def install(env: dict[str, str], *extra: str, only: str = "codex") -> Any:
    return run("plugins", "install", "--only", only, *extra, env=env)


def uninstall(env: dict[str, str], only: str = "codex") -> Any:
    return run("plugins", "uninstall", "--only", only, env=env)


def codex_config(home: Path) -> Path:
    return home / ".codex/config.toml"


def change_server(env: dict[str, str], **value: object) -> None:
    mcp = Path(env["SKILLTOOL_PLUGINS"]) / "demo/.mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {"echo-srv": {**ECHO, **value}}}))


# --------------------------------------------------------------------------- size


@pytest.mark.parametrize(
    ("only", "relative", "comment"),
    [
        ("codex", ".codex/config.toml", "# {}\n"),
        ("gemini", ".gemini/settings.json", '{{"padding": "{}"}}\n'),
        ("hermes", ".hermes/config.yaml", "# {}\n"),
    ],
)
def test_a_config_file_above_the_size_skilltool_edits_is_left_alone_in_one_line(
    demo: dict[str, str], home: Path, only: str, relative: str, comment: str
) -> None:
    padding = "x" * (MAX_CONFIG_BYTES + 1 - len(comment.format("")))
    original = comment.format(padding).encode()
    config = build_file_tree(home, {relative: original}) / relative
    result = install(demo, only=only)
    [line] = [line for line in result.lines if relative in line]
    size, limit = -(-len(original) // 1024), MAX_CONFIG_BYTES // 1024  # in kB, rounded up
    assert line == (
        f"left      ~/{relative}: mcp echo-srv: is {size} KB, above the {limit} KB skilltool "
        "edits; nothing is changed in it: add or remove the entry by hand"
    )
    assert config.read_bytes() == original
    assert result.code == 0


# --------------------------------------------------------------------------- YAML anchors


def test_hermes_servers_shared_through_an_anchor_are_left_alone_with_the_reason(
    demo: dict[str, str], home: Path
) -> None:
    shared = "mcp_servers: &servers\n  mine:\n    command: /bin/true\nbackup_servers: *servers\n"
    config = build_file_tree(home, {".hermes/config.yaml": shared}) / ".hermes/config.yaml"
    result = install(demo, only="hermes")
    [line] = [line for line in result.lines if "config.yaml" in line]
    assert line.startswith("left      ~/.hermes/config.yaml: mcp echo-srv: cannot be edited")
    assert "mcp_servers is shared through a YAML anchor and alias (lines 1 and 4)" in line
    assert config.read_text() == shared
    assert result.code == 0


# --------------------------------------------------------------------------- comments


@pytest.mark.parametrize(
    ("only", "relative", "before", "comment"),
    [
        ("codex", ".codex/config.toml", "[mcp_servers.echo-srv]\n", "# the echo server\n"),
        ("opencode", ".config/opencode/opencode.json", '"echo-srv": {\n', "// the echo server\n"),
        ("gemini", ".gemini/settings.json", '"echo-srv": {\n', "/* the echo server */\n"),
    ],
)
def test_a_comment_put_inside_our_entry_survives_its_update(
    demo: dict[str, str], home: Path, only: str, relative: str, before: str, comment: str
) -> None:
    config = home / relative
    config.parent.mkdir(parents=True)
    assert install(demo, only=only).code == 0
    text = config.read_text()
    assert before in text
    config.write_text(text.replace(before, before + "      " + comment))
    change_server(demo, args=["--quiet"])
    result = install(demo, only=only)
    assert f"updated   {only:<8} mcp echo-srv in ~/{relative}" in result.lines
    assert comment in config.read_text()
    assert '"--quiet"' in config.read_text()


# --------------------------------------------------------------------------- a full disk


def test_a_full_disk_is_said_as_a_full_disk_for_every_entry_of_the_file(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skilltool import fs

    two = {"mcpServers": {"echo-srv": ECHO, "other-srv": ECHO}}
    build_file_tree(
        tmp_path / "plugins/demo",
        {".claude-plugin/plugin.json": '{"name": "demo"}', ".mcp.json": json.dumps(two)},
    )
    config = build_file_tree(home, {".codex/config.toml": USER_CODEX}) / ".codex/config.toml"
    real = fs._temporary

    def full(directory: Path, data: bytes, mode: int) -> str:
        if directory == config.parent:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(directory, data, mode)

    monkeypatch.setattr(fs, "_temporary", full)
    result = install({"SKILLTOOL_PLUGINS": str(tmp_path / "plugins")})
    failed = [line for line in result.lines if line.startswith("failed")]
    full_disk = (
        "failed    ~/.codex/config.toml: No space left on device; free some space, then run again"
    )
    assert failed == [full_disk, full_disk], result.stdout
    assert config.read_text() == USER_CODEX
    assert result.code == 1
