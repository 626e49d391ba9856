"""Every route by which a fetched plugin could have a harness run something the user did not
approve, tried as an attacker would: a lockfile skilltool cannot read, an approval given to
one plugin of a marketplace, a command declared in an agent's, skill's or slash command's
frontmatter, a plugin folder whose name is shell, new code under an approved command.
Each "remote" is a local git repository whose upstream changes between `add` and `update`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.gitrepos import Repo, isolate_git, plugin_files
from tests.helpers import run, toml_loads

LOCK = ".local/share/skilltool/plugins.lock"


@pytest.fixture(autouse=True)
def _git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate_git(tmp_path, monkeypatch)


def _server(command: str, *args: str) -> str:
    return json.dumps({"mcpServers": {"serve": {"command": command, "args": list(args)}}})


def codex_servers(home: Path) -> dict[str, object]:
    config = home / ".codex/config.toml"
    return toml_loads(config.read_text()).get("mcp_servers", {}) if config.exists() else {}


@pytest.fixture
def tools(tmp_path: Path) -> Repo:
    remote = Repo(tmp_path, "tools")
    files = plugin_files("tools", ("lint",))
    files[".mcp.json"] = _server("node", "${CLAUDE_PLUGIN_ROOT}/server.js")
    files["server.js"] = "console.log('serving')\n"
    remote.commit(files)
    remote.push()
    return remote


# --------------------------------------------------------------------------- hole 2


@pytest.mark.parametrize(
    "damage",
    [
        '\n[sources.other]\nurl = "https://example.com/other.git"\ncommit = "abc123"\n',
        '\n[sources.other]\npath = "/somewhere"\nurl = "https://example.com/other.git"\n',
        "\n[sources.tools.approved.odd]\ndigest = 3\n",
        "\nsources = 7\n",
    ],
    ids=["short-commit", "path-and-url", "approval-of-another-shape", "sources-not-a-table"],
)
def test_a_lockfile_that_cannot_be_read_carries_nothing_fetched(
    home: Path, tools: Repo, damage: str
) -> None:
    (home / ".codex").mkdir()
    added = run("plugins", "add", tools.url)
    assert added.code == 0, added.stderr
    assert "serve" not in codex_servers(home)  # held: never approved
    lock = home / LOCK
    text = lock.read_text()
    if damage.startswith("\nsources ="):
        text = damage.lstrip() + text
    else:
        text += damage
    lock.write_text(text)
    installed = run("plugins", "install")
    assert "serve" not in codex_servers(home), installed.stdout
    assert installed.code == 1
    said = installed.stdout + installed.stderr
    assert str(lock) in said and "nothing fetched is given to a harness" in said, said
    # the skills already linked stay: nothing is removed for want of a readable lockfile
    assert (home / ".agents/skills/lint").is_symlink()
    status = run("plugins", "status")
    assert "nothing fetched is given to a harness" in status.stdout + status.stderr
