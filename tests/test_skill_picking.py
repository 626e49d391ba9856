"""`add SOURCE --skill NAME`: single skills of a source, recorded as `skills = [...]`; only
those are linked, and nothing else of their plugin (agents, commands, servers, hooks) is
carried unless the plugin is picked too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.gitrepos import Repo, isolate_git, plugin_files
from tests.helpers import run
from tests.test_sources import links, lock


@pytest.fixture(autouse=True)
def _git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate_git(tmp_path, monkeypatch)


def added(home: Path) -> set[str]:
    return {name for name, to in links(home).items() if "/resources/plugins/" not in to}


@pytest.fixture
def kit(tmp_path: Path) -> Repo:
    """A repository of one plugin: two skills, an agent, a command and an MCP server."""
    repo = Repo(tmp_path, "kit")
    files = plugin_files("kit", ("alpha", "beta"), {"helper": "You help.\n"})
    files["commands/hello.md"] = "---\ndescription: Say hello.\n---\nSay hello to $ARGUMENTS.\n"
    files[".mcp.json"] = json.dumps({"mcpServers": {"serve": {"command": "serve-it"}}})
    repo.commit(files)
    repo.push()
    return repo


def test_only_the_skills_picked_are_linked_and_nothing_else_is_carried(
    home: Path, kit: Repo
) -> None:
    (home / ".codex").mkdir()
    done = run("plugins", "add", kit.url, "--skill", "alpha", "--yes")
    assert done.code == 0, done.stdout + done.stderr
    assert f"added     kit {kit.url} @ {kit.head()[:12]} (skill(s) alpha alone)" in done.lines
    assert added(home) == {"alpha"}
    assert lock(home)["kit"]["skills"] == ["alpha"]
    assert "plugins" not in lock(home)["kit"]
    # the agent, the command and the server are not carried (the bundled plugin's are)
    made = [p for p in (home / ".codex").rglob("*") if p.is_file()]
    assert made and not [p for p in made if p.name.startswith(("helper", "hello"))]
    assert all("serve" not in p.read_text() for p in made)
    assert not any("runs " in line for line in done.lines)  # no server to approve
    shown = [ln for ln in run("plugins", "status").lines if ln.startswith("source")]
    assert shown == [
        f"source    kit {kit.url} default branch commit {kit.head()[:12]} skills alpha alone"
    ]
    data = json.loads(run("plugins", "status", "--json").stdout)
    assert data["sources"][0]["skills"] == ["alpha"]


def test_more_skills_then_the_plugin_whole(home: Path, kit: Repo) -> None:
    (home / ".codex").mkdir()
    assert run("plugins", "add", kit.url, "--skill", "alpha").code == 0
    more = run("plugins", "add", kit.url, "--skill", "beta")
    assert more.code == 0, more.stderr
    assert lock(home)["kit"]["skills"] == ["alpha", "beta"]
    assert added(home) == {"alpha", "beta"}
    assert not (home / ".codex/skilltool/helper.md").exists()
    same = run("plugins", "add", kit.url, "--skill", "beta")
    assert "(already added)" in same.lines[0]
    whole = run("plugins", "add", kit.url, "--plugin", "kit", "--yes")
    assert whole.code == 0, whole.stderr
    assert lock(home)["kit"]["plugins"] == ["kit"]
    assert (home / ".codex/skilltool/helper.md").is_file()  # the agent, now


def test_a_skill_no_longer_picked_is_unlinked(home: Path, kit: Repo) -> None:
    """The lockfile edited by hand (as a dotfiles repository would): the skill dropped from
    `skills` goes, proven skilltool's by the plugin it points into."""
    assert run("plugins", "add", kit.url, "--skill", "alpha", "--skill", "beta").code == 0
    where = home / ".local/share/skilltool/plugins.lock"
    where.write_text(where.read_text().replace('skills = ["alpha", "beta"]', 'skills = ["beta"]'))
    done = run("plugins", "install")
    assert done.code == 0, done.stderr
    assert added(home) == {"beta"}


def test_a_skill_not_there_changes_nothing(home: Path, kit: Repo) -> None:
    done = run("plugins", "add", kit.url, "--skill", "gamma")
    assert done.code == 1
    assert "no skill 'gamma' in it (it has: alpha, beta); check --skill" in done.stderr
    assert not (home / ".local/share/skilltool/plugins.lock").exists()
    assert added(home) == set()


def test_skills_of_a_marketplace_without_its_plugins(home: Path, tmp_path: Path) -> None:
    market = Repo(tmp_path, "market")
    files = plugin_files("alpha-tools", ("alpha", "other"), prefix="alpha-tools/")
    files.update(plugin_files("beta-tools", ("beta",), prefix="beta-tools/"))
    files[".claude-plugin/marketplace.json"] = json.dumps(
        {
            "name": "market",
            "owner": {"name": "T"},
            "plugins": [
                {"name": "alpha-tools", "source": "./alpha-tools"},
                {"name": "beta-tools", "source": "./beta-tools"},
            ],
        }
    )
    market.commit(files)
    market.push()
    done = run("plugins", "add", market.url, "--skill", "alpha")  # no terminal: not asked
    assert done.code == 0, done.stderr
    assert added(home) == {"alpha"}
    assert not any(line.startswith("pick") for line in done.lines)
    # a skill of it is no plugin installed
    found = run("plugins", "search", "alpha-tools").lines[0]
    assert found.startswith("alpha-tools@market") and found.endswith("(not installed)")
    grown = run("plugins", "add", "beta-tools@market", "--skill", "beta")
    assert grown.code == 0, grown.stderr
    assert lock(home)["market"]["skills"] == ["alpha", "beta"]
    assert added(home) == {"alpha", "beta"}
