"""Amp: MCP entries under the one key "amp.mcpServers" of ~/.config/amp/settings.json, beside the
user's own; no agent, command or hook is written, each said once (tests/conformance/test_amp.py
proves the skills and servers in the binary)."""

from __future__ import annotations

import json
from pathlib import Path

from skilltool.harnesses.amp import Amp
from skilltool.model import McpServer
from skilltool.paths import Home
from tests.helpers import build_file_tree, run

USER = {"amp.theme": "dark", "amp.mcpServers": {"mine": {"command": "/bin/true"}}}


def plugin(tmp_path: Path) -> Path:
    server = {"command": "/bin/srv", "args": ["-v", "${AMP_SKT}"]}
    return build_file_tree(tmp_path / "plugins/demo", {
        ".claude-plugin/plugin.json": '{"name": "demo"}\n',
        ".mcp.json": json.dumps({"mcpServers": {"srv": server}}) + "\n",
        "agents/helper.md": "---\nname: helper\ndescription: Helps.\n---\nHelp.\n",
        "commands/go.md": "---\ndescription: Go\n---\nGo $ARGUMENTS\n",
    })  # fmt: skip


def test_a_server_is_an_entry_of_the_one_dotted_key_and_the_users_own_stay(
    home: Path, tmp_path: Path
) -> None:
    settings = home / ".config/amp/settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(USER, indent=2) + "\n")
    env = {"SKILLTOOL_PLUGINS": str(plugin(tmp_path))}
    done = run("plugins", "install", "--only", "amp", "--home", home, env=env)
    assert done.code == 0, done.stdout + done.stderr
    written = json.loads(settings.read_text())
    assert written["amp.theme"] == "dark" and "amp" not in written  # one key, not a table
    assert written["amp.mcpServers"] == {
        "mine": {"command": "/bin/true"},
        "srv": {"command": "/bin/srv", "args": ["-v", "${AMP_SKT}"]},
    }
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]
    said = [line for line in done.lines if line.startswith("skipped   amp:")]
    assert len(said) == 2, done.lines  # the agent, the plugin's commands: a line each
    assert any("reads no agent files" in line for line in said)
    assert any("reads no command files" in line for line in said)
    done = run("plugins", "uninstall", "--only", "amp", "--home", home, env=env)
    assert done.code == 0, done.stdout + done.stderr
    assert json.loads(settings.read_text()) == USER


def test_xdg_config_home_moves_its_folder(home: Path, tmp_path: Path) -> None:
    moved = tmp_path / "xdg"
    (moved / "amp").mkdir(parents=True)
    env = {"SKILLTOOL_PLUGINS": str(plugin(tmp_path)), "XDG_CONFIG_HOME": str(moved)}
    done = run("plugins", "install", "--only", "amp", env=env)  # the real home: XDG is read
    assert done.code == 0, done.stdout + done.stderr
    assert "srv" in json.loads((moved / "amp/settings.json").read_text())["amp.mcpServers"]
    assert not (home / ".config/amp").exists()


def test_remote_servers_and_a_working_folder_are_skipped(home: Path) -> None:
    harness = Amp(Home(home, explicit=True))
    plain = McpServer("s", home / "p/.mcp.json", "stdio", command="/bin/srv")
    assert harness.mcp_value(plain) == {"command": "/bin/srv"}
    for server in (plain._replace(cwd="/srv"), plain._replace(transport="http", url="http://h")):
        verdict = harness.mcp_value(server)
        assert not isinstance(verdict, dict) and verdict.skips
