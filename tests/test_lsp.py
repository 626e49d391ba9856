"""Language servers (`.lsp.json`, `lspServers`): read as Claude Code reads them, in the shapes
Claude's official marketplace has (a `strict: false` entry declaring them inline over a folder
with no plugin.json), and carried as entries of each harness's config that reads them
(OpenCode's and Kilo's `lsp`), under the entry rule: the user's file comes back byte for
byte; a fetched plugin's server waits for approval."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.gitrepos import Repo, isolate_git
from tests.helpers import build_file_tree, run

GOPLS = {"command": "gopls", "args": ["serve"], "extensionToLanguage": {".go": "go"}}
MARKETPLACE = {
    "name": "official-like",
    "owner": {"name": "o"},
    "plugins": [
        {
            "name": "gopls-lsp",
            "source": "./plugins/gopls-lsp",
            "strict": False,
            "description": "Go language server",
            "lspServers": {"gopls": GOPLS},
        }
    ],
}


def marketplace(root: Path) -> Path:
    return build_file_tree(
        root,
        {
            ".claude-plugin/marketplace.json": json.dumps(MARKETPLACE),
            "plugins/gopls-lsp/README.md": "A language server for Go.\n",
        },
    )


def test_an_lsp_entry_of_a_marketplace_is_a_plugin_and_reaches_opencode_and_kilo(
    home: Path, tmp_path: Path
) -> None:
    for folder in (".config/opencode", ".config/kilo", ".claude"):
        (home / folder).mkdir(parents=True)
    mine = '{\n  // my own\n  "lsp": {"rust": {"command": ["rust-analyzer"], "extensions": [".rs"]}}\n}\n'
    (home / ".config/opencode/opencode.jsonc").write_text(mine)
    market = marketplace(tmp_path / "market")
    added = run("plugins", "add", str(market), "--all")
    assert added.code == 0, added.stdout + added.stderr
    assert "added     opencode lsp gopls in ~/.config/opencode/opencode.jsonc" in added.lines
    from skilltool.entries import read_entries

    opencode = read_entries(
        (home / ".config/opencode/opencode.jsonc").read_text(), "jsonc", ("lsp",)
    )
    assert opencode == {
        "rust": {"command": ["rust-analyzer"], "extensions": [".rs"]},
        "gopls": {"command": ["gopls", "serve"], "extensions": [".go"]},
    }
    kilo = json.loads((home / ".config/kilo/kilo.jsonc").read_text())
    assert kilo["lsp"]["gopls"]["command"] == ["gopls", "serve"]
    said = added.stdout
    assert "skipped   claude: language servers: Claude Code is given none" in said
    status = run("plugins", "status", "gopls-lsp")
    assert status.code == 0
    gone = run("plugins", "uninstall")
    assert gone.code == 0, gone.stdout + gone.stderr
    assert (home / ".config/opencode/opencode.jsonc").read_text() == mine  # byte for byte


def test_a_plugins_lsp_json_is_read_and_a_bad_one_is_one_line(home: Path) -> None:
    (home / ".config/opencode").mkdir(parents=True)
    plugins = home / ".local/share/skilltool/plugins"
    build_file_tree(
        plugins / "tools",
        {
            ".claude-plugin/plugin.json": '{"name": "tools"}',
            ".lsp.json": json.dumps(
                {"zz": {"command": "zz-ls", "extensionToLanguage": {".zz": "zz"}}}
            ),
        },
    )
    build_file_tree(
        plugins / "broken",
        {".claude-plugin/plugin.json": '{"name": "broken"}', ".lsp.json": '{"x": {"args": []}}'},
    )
    done = run("plugins", "install")
    assert "added     opencode lsp zz in ~/.config/opencode/opencode.json" in done.lines
    checked = run("plugins", "validate")
    assert "lspServers.x.command: missing: a language server needs the program to run" in (
        checked.stdout + checked.stderr
    )


def test_a_fetched_language_server_waits_for_approval(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate_git(tmp_path, monkeypatch)
    (home / ".config/opencode").mkdir(parents=True)
    remote = Repo(tmp_path, "lsps")
    remote.commit(
        {
            ".claude-plugin/marketplace.json": json.dumps(MARKETPLACE),
            "plugins/gopls-lsp/README.md": "A language server for Go.\n",
        }
    )
    remote.push()
    added = run("plugins", "add", remote.url, "--all")
    assert added.code == 0, added.stdout + added.stderr
    assert "runs      gopls-lsp: language server 'gopls': gopls serve" in added.lines
    assert not (home / ".config/opencode/opencode.json").exists()
    assert run("plugins", "approve", "lsps", "--yes").code == 0
    config = json.loads((home / ".config/opencode/opencode.json").read_text())
    assert config["lsp"]["gopls"]["extensions"] == [".go"]


def test_a_server_and_a_language_server_of_one_file_are_written_in_one_run(home: Path) -> None:
    """Two planners edit OpenCode's one config file (`mcp`, `lsp`): each plans on the text
    the other's edit left, so one install writes both and uninstall takes both out."""
    (home / ".config/opencode").mkdir(parents=True)
    build_file_tree(home / ".local/share/skilltool/plugins/go", {
        ".claude-plugin/plugin.json": '{"name": "go"}\n',
        ".mcp.json": json.dumps({"mcpServers": {"docs": {"command": "go-docs"}}}),
        ".lsp.json": json.dumps({"gopls": GOPLS}),
    })  # fmt: skip
    done = run("plugins", "install")
    assert done.code == 0, done.stdout + done.stderr
    config = json.loads((home / ".config/opencode/opencode.json").read_text())
    assert set(config["mcp"]) == {"docs"} and set(config["lsp"]) == {"gopls"}
    assert run("plugins", "install").code == 0  # and again: nothing to change
    gone = run("plugins", "uninstall")
    assert gone.code == 0, gone.stdout + gone.stderr
    assert not (home / ".config/opencode/opencode.json").exists()  # it held only ours
