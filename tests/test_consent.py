"""Consent for what a harness runs: an MCP server started as a command, from a plugin fetched
from git, is carried only once the user approved that exact command line; the approval is
in the lockfile, so that `sync --frozen` elsewhere carries exactly what was approved."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.gitrepos import Repo, isolate_git, plugin_files
from tests.helpers import build_file_tree, run, toml_loads

LOCK = ".local/share/skilltool/plugins.lock"
# what no approval can cover: uvx fetches the package when the harness starts the server
NOTE = (
    "runs whatever PyPI serves for git+https://example.com/serve when the harness starts it: "
    "no digest covers that; pinned (git+https://example.com/serve@<commit>), it changes only "
    "with the plugin"
)


@pytest.fixture(autouse=True)
def _git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate_git(tmp_path, monkeypatch)


def _servers(args: list[str]) -> str:
    return json.dumps(
        {
            "mcpServers": {
                "serve": {"command": "uvx", "args": args, "env": {"MODE": "fast"}},
                "web": {"type": "http", "url": "https://mcp.example.com/mcp"},
            }
        }
    )


@pytest.fixture
def tools(tmp_path: Path) -> Repo:
    remote = Repo(tmp_path, "tools")
    files = plugin_files("tools", ("lint",))
    files[".mcp.json"] = _servers(["--from", "git+https://example.com/serve", "serve"])
    remote.commit(files)
    remote.push()
    return remote


def codex_servers(home: Path) -> dict[str, object]:
    config = home / ".codex/config.toml"
    return toml_loads(config.read_text()).get("mcp_servers", {}) if config.exists() else {}


def approved(home: Path) -> dict[str, dict[str, str]]:
    """The approvals of the plugin tools, by what it runs."""
    source = toml_loads((home / LOCK).read_text())["sources"]["tools"]
    return source.get("approved", {}).get("tools", {}).get("runs", {})


def test_a_fetched_command_waits_for_approval_and_a_url_is_shown(home: Path, tools: Repo) -> None:
    (home / ".codex").mkdir()
    added = run("plugins", "add", tools.url)
    assert added.code == 0, added.stderr
    assert (
        "runs      tools: MCP server 'serve': uvx --from git+https://example.com/serve serve"
        "  (env MODE=fast)"
    ) in added.lines
    assert (
        "sends     tools: MCP server 'web' sends the harness's requests to "
        "https://mcp.example.com/mcp"
    ) in added.lines
    assert (
        "held      tools: 1 command(s) no harness is given until approved: "
        "'skilltool plugins approve tools' (--yes for scripts)"
    ) in added.lines
    assert set(codex_servers(home)) == {"web"}  # runs nothing here: carried as it is
    assert approved(home) == {}
    status = run("plugins", "status")
    assert any("which you have not approved" in line for line in status.stdout.splitlines())
    # approved: recorded with the digest of what was shown, then carried
    done = run("plugins", "approve", "tools", "--yes")
    assert done.code == 0, done.stderr
    assert "approved  tools: 1 command(s)" in done.lines
    assert approved(home) == {
        "server:serve": {
            "command": "uvx --from git+https://example.com/serve serve  (env MODE=fast)",
            "digest": approved(home)["server:serve"]["digest"],
        }
    }
    assert approved(home)["server:serve"]["digest"].startswith("sha256:")
    assert set(codex_servers(home)) == {"serve", "web"}
    again = run("plugins", "install")
    assert not any(
        "not approved" in line for line in again.stdout.splitlines() + again.stderr.splitlines()
    )


def test_add_with_yes_approves_what_it_shows(home: Path, tools: Repo) -> None:
    (home / ".codex").mkdir()
    added = run("plugins", "add", tools.url, "--yes")
    assert added.code == 0, added.stderr
    assert "approved  tools: 1 command(s)" in added.lines
    assert set(codex_servers(home)) == {"serve", "web"}


def test_an_update_that_changes_the_command_carries_it_nowhere_until_approved_again(
    home: Path, tools: Repo
) -> None:
    (home / ".codex").mkdir()
    assert run("plugins", "add", tools.url, "--yes").code == 0
    first = approved(home)
    tools.commit({".mcp.json": _servers(["--from", "git+https://example.com/other", "serve"])})
    tools.push()
    updated = run("plugins", "update")
    assert updated.code == 0, updated.stderr
    said = updated.lines
    at = said.index("runs      tools: MCP server 'serve' changed since you approved it:")
    assert said[at + 1 : at + 3] == [
        "  -       uvx --from git+https://example.com/serve serve  (env MODE=fast)",
        "  +       uvx --from git+https://example.com/other serve  (env MODE=fast)",
    ]
    assert "serve" not in codex_servers(home)  # the old approval is carried nowhere
    assert approved(home) == first
    assert run("plugins", "approve", "tools", "--yes").code == 0
    assert approved(home) != first
    assert codex_servers(home)["serve"] == {
        "command": "uvx",
        "args": ["--from", "git+https://example.com/other", "serve"],
        "env": {"MODE": "fast"},
    }


def test_sync_frozen_elsewhere_carries_exactly_what_was_approved(
    home: Path, tools: Repo, tmp_path: Path
) -> None:
    (home / ".codex").mkdir()
    assert run("plugins", "add", tools.url, "--yes").code == 0
    other = tmp_path / "other-home"
    (other / ".codex").mkdir(parents=True)
    (other / LOCK).parent.mkdir(parents=True)
    shutil.copyfile(home / LOCK, other / LOCK)
    synced = run("plugins", "sync", "--frozen", "--home", other)
    assert synced.code == 0, synced.stderr
    assert set(codex_servers(other)) == {"serve", "web"}
    # the same lockfile without the approval: the command is not carried there
    import tomlkit

    document = tomlkit.parse((home / LOCK).read_text())
    del document["sources"]["tools"]["approved"]
    (other / LOCK).write_text(tomlkit.dumps(document))
    shutil.rmtree(other / ".local/share/skilltool/sources")
    again = run("plugins", "sync", "--frozen", "--home", other)
    assert again.code == 0, again.stderr
    assert set(codex_servers(other)) == {"web"}


def test_the_users_own_plugins_run_as_they_are(home: Path, tmp_path: Path) -> None:
    (home / ".codex").mkdir()
    mine = tmp_path / "mine"
    build_file_tree(mine, {**plugin_files("mine", ("own",)), ".mcp.json": _servers(["own"])})
    added = run("plugins", "add", mine)
    assert added.code == 0, added.stderr
    assert not any(line.startswith(("runs ", "held ")) for line in added.lines)
    assert set(codex_servers(home)) == {"serve", "web"}


def test_status_says_what_each_fetched_source_runs_and_whether_it_is_approved(
    home: Path, tools: Repo
) -> None:
    assert run("plugins", "add", tools.url).code == 0
    line = (
        "  runs    tools: MCP server 'serve': uvx --from git+https://example.com/serve serve"
        "  (env MODE=fast) ({})"
        f" ({NOTE})"
    )
    status = run("plugins", "status")
    assert line.format("not approved: no harness is given it") in status.lines
    assert run("plugins", "approve", "tools", "--yes").code == 0
    assert line.format("approved") in run("plugins", "status").lines
    data = json.loads(run("plugins", "status", "--json").stdout)
    [source] = data["sources"]
    assert source["runs"] == [
        {
            "plugin": "tools",
            "what": "server:serve",
            "command": "uvx --from git+https://example.com/serve serve  (env MODE=fast)",
            "approved": True,
            "note": NOTE,
        }
    ]
