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
from tests.helpers import build_file_tree, run, toml_loads

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


# --------------------------------------------------------------------------- links


def dotfiles(tmp_path: Path, home: Path, text: str = USER_CODEX) -> Path:
    """~/.codex/config.toml kept as stow or chezmoi keep it: a link into a dotfiles folder."""
    real = build_file_tree(tmp_path / "dotfiles/codex", {"config.toml": text}) / "config.toml"
    build_file_tree(home, {".codex/config.toml": Path("../../dotfiles/codex/config.toml")})
    return real


def test_a_linked_config_is_edited_through_its_link_and_given_back_exactly(
    demo: dict[str, str], home: Path, tmp_path: Path
) -> None:
    real = dotfiles(tmp_path, home)
    real.chmod(0o600)
    link = os.readlink(codex_config(home))
    result = install(demo)
    assert "added     codex    mcp echo-srv in ~/.codex/config.toml" in result.lines
    assert os.readlink(codex_config(home)) == link  # the link stays, as it was
    assert real.read_text().startswith(USER_CODEX)
    assert toml_loads(real.read_text())["mcp_servers"]["echo-srv"]["command"] == "/opt/echo-srv"
    assert real.stat().st_mode & 0o777 == 0o600  # it may hold a token: its mode is kept
    assert install(demo).lines[-1] == "1 unchanged"
    assert "removed   codex    mcp echo-srv in ~/.codex/config.toml" in uninstall(demo).lines
    assert real.read_text() == USER_CODEX
    assert os.readlink(codex_config(home)) == link


def test_dry_run_shows_the_edit_of_a_linked_config_against_what_it_holds(
    demo: dict[str, str], home: Path, tmp_path: Path
) -> None:
    dotfiles(tmp_path, home)
    text = "\n".join(install(demo, "--dry-run").lines)
    assert "--- ~/.codex/config.toml (on disk)" in text
    assert "+[mcp_servers.echo-srv]" in text
    assert "-# my own servers" not in text  # the file's own lines are context, not removed


def test_a_link_to_a_read_only_file_is_left_alone_naming_it(
    demo: dict[str, str], home: Path, tmp_path: Path
) -> None:
    real = dotfiles(tmp_path, home)
    real.chmod(0o444)  # a file of a store such as Nix's is so
    result = install(demo)
    [line] = [line for line in result.lines if "config.toml" in line]
    assert line == (
        f"left      ~/.codex/config.toml: mcp echo-srv: a link to {real}, which is read-only; "
        f"nothing is changed in it: make it writable (chmod u+w {real}), or change the entry "
        "where that file is made"
    )
    assert real.read_text() == USER_CODEX and codex_config(home).is_symlink()
    assert result.code == 0


@pytest.mark.skipif(os.getuid() != 0, reason="making a file of another user needs root")
def test_a_link_to_a_file_of_another_user_is_left_alone_naming_it(
    demo: dict[str, str], home: Path, tmp_path: Path
) -> None:
    real = dotfiles(tmp_path, home)
    os.chown(real, 65534, 65534)
    result = install(demo)
    [line] = [line for line in result.lines if "config.toml" in line]
    assert line == (
        f"left      ~/.codex/config.toml: mcp echo-srv: a link to {real}, a file of another "
        "user; nothing is changed in it: change the entry as its owner, or put a file of "
        "your own in place of the link"
    )
    assert real.read_text() == USER_CODEX


def test_a_link_to_nothing_is_left_alone_naming_where_it_points(
    demo: dict[str, str], home: Path, tmp_path: Path
) -> None:
    build_file_tree(home, {".codex/config.toml": tmp_path / "gone/config.toml"})
    result = install(demo)
    [line] = [line for line in result.lines if "config.toml" in line]
    assert line == (
        f"left      ~/.codex/config.toml: mcp echo-srv: a link to {tmp_path}/gone/config.toml, "
        "which does not exist; nothing is changed in it: make the file, or remove the link"
    )
    assert not (tmp_path / "gone").exists()


def test_a_linked_config_skilltool_emptied_stays_a_link_to_an_empty_file(
    demo: dict[str, str], home: Path, tmp_path: Path
) -> None:
    (home / ".codex").mkdir()
    install(demo)  # skilltool creates the file; then the user adopts it into their dotfiles
    real = tmp_path / "dotfiles/config.toml"
    real.parent.mkdir()
    os.rename(codex_config(home), real)
    codex_config(home).symlink_to(real)
    uninstall(demo)
    assert codex_config(home).is_symlink() and real.read_text() == ""


# --------------------------------------------------------------------------- hard links


def test_a_hard_linked_config_keeps_its_inode_so_its_other_names_see_the_edit(
    demo: dict[str, str], home: Path, tmp_path: Path
) -> None:
    config = build_file_tree(home, {".codex/config.toml": USER_CODEX}) / ".codex/config.toml"
    other = tmp_path / "backup-config.toml"
    os.link(config, other)
    inode = config.stat().st_ino
    assert install(demo).code == 0
    assert config.stat().st_ino == inode
    assert "echo-srv" in toml_loads(other.read_text())["mcp_servers"]
    assert uninstall(demo).code == 0
    assert config.stat().st_ino == inode
    assert other.read_text() == USER_CODEX


def test_a_hard_linked_config_on_a_full_disk_keeps_its_bytes(
    demo: dict[str, str], home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = build_file_tree(home, {".codex/config.toml": USER_CODEX}) / ".codex/config.toml"
    os.link(config, tmp_path / "backup-config.toml")
    real_pwrite = os.pwrite

    def full(fd: int, data: bytes, offset: int) -> int:
        if len(data) > len(USER_CODEX):  # the edit: half of it fits
            real_pwrite(fd, data[: len(data) // 2], offset)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_pwrite(fd, data, offset)

    monkeypatch.setattr(os, "pwrite", full)
    result = install(demo)
    assert (
        "failed    ~/.codex/config.toml: No space left on device; free some space, then run again"
    ) in result.lines
    assert config.read_text() == USER_CODEX


# --------------------------------------------------------------------------- read-only


def test_a_read_only_config_is_left_alone_saying_how_to_allow_it(
    demo: dict[str, str], home: Path
) -> None:
    config = build_file_tree(home, {".codex/config.toml": USER_CODEX}) / ".codex/config.toml"
    config.chmod(0o444)
    result = install(demo)
    [line] = [line for line in result.lines if "config.toml" in line]
    assert line == (
        "left      ~/.codex/config.toml: mcp echo-srv: is read-only; nothing is changed in it: "
        "make it writable (chmod u+w ~/.codex/config.toml) to have skilltool edit it"
    )
    assert config.read_text() == USER_CODEX
    assert config.stat().st_mode & 0o777 == 0o444
    assert result.code == 0


def test_a_config_skilltool_rewrites_keeps_its_mode(demo: dict[str, str], home: Path) -> None:
    config = build_file_tree(home, {".codex/config.toml": USER_CODEX}) / ".codex/config.toml"
    config.chmod(0o600)
    install(demo)
    assert config.stat().st_mode & 0o777 == 0o600
    uninstall(demo)
    assert config.stat().st_mode & 0o777 == 0o600
