"""A plugin's `dependencies`: installed with the plugin that needs them (from its marketplace,
or one its marketplace allows, at a version in the range), pinned in the lockfile, removed
with the last plugin that needs them; a missing plugin, a range nothing meets, a cycle or a
marketplace not allowed is one line and nothing added."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.gitrepos import Repo, git, isolate_git
from tests.helpers import run, toml_loads


def plugin(name: str, version: str = "1.0.0", needs: list[Any] | None = None) -> dict[str, str]:
    manifest: dict[str, Any] = {"name": name, "version": version}
    if needs is not None:
        manifest["dependencies"] = needs
    skill = f"---\nname: {name}-skill\ndescription: The skill of {name}.\n---\nDo {name}.\n"
    return {
        f"{name}/.claude-plugin/plugin.json": json.dumps(manifest),
        f"{name}/skills/{name}-skill/SKILL.md": skill,
    }


def marketplace(repo: Repo, name: str, plugins: dict[str, dict[str, str]], **extra: Any) -> None:
    files: dict[str, str] = {}
    entries = []
    for each, tree in plugins.items():
        files.update(tree)
        entries.append({"name": each, "source": f"./{each}"})
    listing = {"name": name, "owner": {"name": "o"}, "plugins": entries, **extra}
    files[".claude-plugin/marketplace.json"] = json.dumps(listing)
    repo.commit(files)
    repo.push()


@pytest.fixture
def market(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """The marketplace `m`, added with none of its plugins picked."""
    isolate_git(tmp_path, monkeypatch)
    repo = Repo(tmp_path, "m")
    marketplace(
        repo,
        "m",
        {
            "a": plugin("a", needs=["b", {"name": "c", "version": "^1.0"}]),
            "b": plugin("b", "2.0.0"),
            "c": plugin("c", "1.4.0"),
            "j": plugin("j", needs=["b"]),
            "d": plugin("d", needs=[{"name": "c", "version": "^2.0"}]),
            "e": plugin("e", needs=["nothere"]),
            "f": plugin("f", needs=["g"]),
            "g": plugin("g", needs=["f"]),
        },
    )
    added = run("plugins", "add", repo.url)
    assert added.code == 0, added.stdout + added.stderr
    return repo


def lock(home: Path) -> dict[str, Any]:
    text = (home / ".local/share/skilltool/plugins.lock").read_text()
    sources: dict[str, Any] = toml_loads(text).get("sources", {})
    return sources


def linked(home: Path) -> set[str]:
    """The skills of the test's plugins linked (not the bundled plugin's)."""
    skills = home / ".agents/skills"
    found = {p.name for p in skills.iterdir()} if skills.exists() else set()
    return {name for name in found if name.endswith("-skill")}


def test_a_plugins_dependencies_come_with_it_and_go_with_it(market: Repo, home: Path) -> None:
    added = run("plugins", "add", "a@m")
    assert added.code == 0, added.stdout + added.stderr
    assert any("b of m, needed by a" in line for line in added.lines), added.stdout
    assert lock(home)["m"]["plugins"] == ["a", "b", "c"]
    assert lock(home)["m"]["as-dependency"] == ["b", "c"]
    assert linked(home) == {"a-skill", "b-skill", "c-skill"}
    run("plugins", "add", "j@m")  # j needs b too
    gone = run("plugins", "remove", "a")
    assert gone.code == 0, gone.stdout + gone.stderr
    assert any("plugin a (c: needed by a alone)" in line for line in gone.lines), gone.stdout
    assert lock(home)["m"]["plugins"] == ["b", "j"]
    assert linked(home) == {"b-skill", "j-skill"}
    assert run("plugins", "remove", "j").code == 0  # and b: the marketplace's last plugins
    assert "m" not in lock(home)
    assert linked(home) == set()


def test_a_dependency_named_later_is_kept_when_its_dependent_goes(market: Repo, home: Path) -> None:
    assert run("plugins", "add", "a@m").code == 0
    assert run("plugins", "add", "b@m").code == 0  # asked for: the user's own now
    assert lock(home)["m"]["as-dependency"] == ["c"]
    assert run("plugins", "remove", "a").code == 0
    assert lock(home)["m"]["plugins"] == ["b"]


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("d", "plugin d needs c ^2.0; marketplace 'm' has it at 1.4.0, outside that range"),
        ("e", "plugin e needs nothere, which marketplace 'm' does not list"),
        ("f", "dependency cycle: f@m -> g@m -> f@m"),
    ],
)
def test_what_cannot_be_met_is_one_line_and_nothing_is_added(
    market: Repo, home: Path, name: str, said: str
) -> None:
    before = (home / ".local/share/skilltool/plugins.lock").read_bytes()
    done = run("plugins", "add", f"{name}@m")
    assert done.code == 1
    assert said in done.stderr
    assert "nothing was added" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert (home / ".local/share/skilltool/plugins.lock").read_bytes() == before
    assert linked(home) == set()


def test_another_marketplace_only_where_the_root_allows_it(
    market: Repo, home: Path, tmp_path: Path
) -> None:
    other = Repo(tmp_path, "o")
    marketplace(other, "o", {"x": plugin("x")})
    assert run("plugins", "add", other.url).code == 0
    strict = Repo(tmp_path, "n")
    marketplace(strict, "n", {"h": plugin("h", needs=[{"name": "x", "marketplace": "o"}])})
    open_one = Repo(tmp_path, "p")
    marketplace(
        open_one, "p", {"i": plugin("i", needs=["x@o"])}, allowCrossMarketplaceDependenciesOn=["o"]
    )
    assert run("plugins", "add", strict.url).code == 0
    assert run("plugins", "add", open_one.url).code == 0
    refused = run("plugins", "add", "h@n")
    assert refused.code == 1
    assert "from marketplace 'o', which marketplace 'n' does not allow" in refused.stderr
    assert lock(home)["n"]["plugins"] == []
    done = run("plugins", "add", "i@p")
    assert done.code == 0, done.stdout + done.stderr
    assert lock(home)["o"]["plugins"] == ["x"]
    assert lock(home)["o"]["as-dependency"] == ["x"]
    assert linked(home) == {"i-skill", "x-skill"}


def test_a_remote_dependency_is_pinned_at_the_highest_tag_in_its_range(
    market: Repo, home: Path, tmp_path: Path
) -> None:
    lib = Repo(tmp_path, "lib")
    for version in ("1.1.0", "1.2.3", "1.3.0"):
        lib.commit({k.removeprefix("r/"): v for k, v in plugin("r", version).items()})
        git("tag", f"r--v{version}", cwd=lib.work)
    lib.push("main", "--tags")
    remote = {"source": "url", "url": lib.url}
    listing = {
        "name": "q",
        "owner": {"name": "o"},
        "plugins": [{"name": "k", "source": "./k"}, {"name": "r", "source": remote}],
    }
    shop = Repo(tmp_path, "q")
    shop.commit(
        {
            **plugin("k", needs=[{"name": "r", "version": "~1.2.0"}]),
            ".claude-plugin/marketplace.json": json.dumps(listing),
        }
    )
    shop.push()
    assert run("plugins", "add", shop.url).code == 0
    done = run("plugins", "add", "k@q")
    assert done.code == 0, done.stdout + done.stderr
    assert lock(home)["r"]["ref"] == "r--v1.2.3"
    assert lock(home)["r"]["as-dependency"] == ["r"]
    assert (
        json.loads(
            (
                home / ".local/share/skilltool/sources/r/current/r/.claude-plugin/plugin.json"
            ).read_text()
        )["version"]
        == "1.2.3"
    )
    assert run("plugins", "remove", "k").code == 0
    assert "r" not in lock(home)
    assert not os.path.exists(home / ".local/share/skilltool/sources/r")


def test_a_plugin_whose_dependency_is_not_there_is_said_and_a_bad_one_is_an_error(
    home: Path,
) -> None:
    from tests.helpers import build_file_tree

    mine = home / ".local/share/skilltool/plugins"
    build_file_tree(mine, {k: v for k, v in plugin("tool", needs=["helper", "x@@y"]).items()})
    build_file_tree(mine, plugin("helper", "0.9.0"))
    build_file_tree(mine, plugin("other", needs=[{"name": "helper", "version": "^1.0"}]))
    done = run("plugins", "install")
    said = done.stdout + done.stderr
    assert "plugin other needs helper ^1.0, and helper is at 0.9.0" in said
    assert "plugin tool needs helper" not in said  # it is there, at any version
    checked = run("plugins", "validate")
    assert checked.code == 1
    assert "dependencies[1]: 'x@@y' is not a plugin name, optionally with @marketplace" in (
        checked.stdout + checked.stderr
    )
    build_file_tree(mine, plugin("lonely", needs=["nowhere"]))
    status = run("plugins", "status")
    assert "plugin lonely needs nowhere, which is not installed" in status.stdout + status.stderr


def test_a_project_records_its_dependencies_in_both_files(
    market: Repo, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    git("init", "-q", repo)
    monkeypatch.chdir(repo)
    assert run("plugins", "add", market.url, "--project").code == 0
    done = run("plugins", "add", "a@m", "--project")
    assert done.code == 0, done.stdout + done.stderr
    for name in ("skilltool.toml", "skilltool.lock"):
        table = toml_loads((repo / name).read_text())["sources"]["m"]
        assert table["plugins"] == ["a", "b", "c"], name
        assert table["as-dependency"] == ["b", "c"], name
    assert run("plugins", "remove", "a", "--project").code == 0  # b and c with it: all of m
    assert "m" not in toml_loads((repo / "skilltool.toml").read_text()).get("sources", {})
