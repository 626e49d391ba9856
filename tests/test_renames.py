"""A marketplace's `renames` (old plugin name -> new name, or null when removed), read as
Claude Code 2.1.332 reads it: a plugin added or recorded under its old name is found under
its new one, with a line saying the marketplace renamed it; a chain that leads nowhere is one
line naming the file and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.gitrepos import Repo, isolate_git, plugin_files
from tests.helpers import build_file_tree, run, skill_md
from tests.test_sources import data, links, lock

CONFIG = ".config/skilltool/config.toml"


@pytest.fixture(autouse=True)
def _git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate_git(tmp_path, monkeypatch)


def catalogue(plugins: list[str], renames: dict[str, str | None] | None = None) -> str:
    listed = [{"name": p, "source": f"./{p}", "description": f"the {p} plugin"} for p in plugins]
    made: dict[str, object] = {"name": "market", "owner": {"name": "T"}, "plugins": listed}
    if renames is not None:
        made["renames"] = renames
    return json.dumps(made, indent=2)


def market_at(tmp_path: Path, name: str) -> Repo:
    """A marketplace whose one plugin (skill `alpha`) is listed as `name`."""
    made = Repo(tmp_path, "market")
    files = plugin_files(name, ("alpha",), prefix=f"{name}/")
    files[".claude-plugin/marketplace.json"] = catalogue([name])
    made.commit(files)
    made.push()
    return made


def rename(market: Repo, old: str, new: str) -> None:
    """Upstream renames the plugin: its folder, its plugin.json, its entry, and `renames`."""
    files = plugin_files(new, ("alpha",), prefix=f"{new}/")
    files[".claude-plugin/marketplace.json"] = catalogue([new], {old: new})
    market.commit(files, remove=(old,))
    market.push()


def test_a_plugin_added_under_its_old_name_is_added_under_its_new_one(
    home: Path, tmp_path: Path
) -> None:
    market = Repo(tmp_path, "market")
    files = plugin_files("new-tools", ("alpha",), prefix="new-tools/")
    # a chain: old-tools became mid-tools, which became new-tools
    renames = {"old-tools": "mid-tools", "mid-tools": "new-tools", "gone-tools": None}
    files[".claude-plugin/marketplace.json"] = catalogue(["new-tools"], renames)
    market.commit(files)
    market.push()
    assert run("plugins", "add", market.url).code == 0  # recorded, none picked
    done = run("plugins", "add", "old-tools@market")
    assert done.code == 0, done.stderr
    assert any(
        line.startswith("added     market")
        and line.endswith("marketplace market renamed old-tools to new-tools)")
        for line in done.lines
    ), done.stdout
    assert lock(home)["market"]["plugins"] == ["new-tools"]
    assert "alpha" in links(home)
    # one it removed is refused with the field that says so
    gone = run("plugins", "add", "gone-tools@market")
    assert gone.code == 1
    assert "renames.gone-tools: marketplace 'market' removed plugin 'gone-tools'" in gone.stderr
    assert lock(home)["market"]["plugins"] == ["new-tools"]
    # listings show the new name alone
    found = run("plugins", "search", "tools")
    assert "new-tools" in found.stdout and "old-tools" not in found.stdout
    # and a search for the old name finds it under the new one, installed
    old = [line for line in run("plugins", "search", "old-tools").lines if "@market" in line]
    assert len(old) == 1 and old[0].startswith("new-tools@market"), old
    assert old[0].endswith("(installed)")


def test_a_plugin_renamed_upstream_is_kept_on_update_and_recorded_under_its_new_name(
    home: Path, tmp_path: Path
) -> None:
    market = market_at(tmp_path, "old-tools")
    assert run("plugins", "add", "--plugin", "old-tools", market.url).code == 0
    assert "alpha" in links(home)
    build_file_tree(home, {CONFIG: '[disabled.plugins]\nold-tools = ["codex"]\n'})
    rename(market, "old-tools", "new-tools")
    done = run("plugins", "update")
    assert done.code == 0, done.stderr
    assert "  plugin  old-tools: renamed new-tools by its marketplace; recorded as new-tools" in (
        done.lines
    )
    assert (
        "settings  disabled.plugins.old-tools is now disabled.plugins.new-tools: its plugin "
        "was renamed"
    ) in done.lines
    # neither removed nor doubled: one pick, under its new name, and the skill still linked
    assert lock(home)["market"]["plugins"] == ["new-tools"]
    assert "alpha" in links(home)
    assert (home / CONFIG).read_text() == '[disabled.plugins]\nnew-tools = ["codex"]\n'
    status = run("plugins", "status")
    assert "renames" not in status.stdout  # nothing left to say
    again = run("plugins", "update")
    assert again.code == 0 and "by its marketplace" not in again.stdout


def test_a_lockfile_naming_the_old_name_finds_the_plugin_under_its_new_one(
    home: Path, tmp_path: Path
) -> None:
    market = market_at(tmp_path, "old-tools")
    assert run("plugins", "add", "--plugin", "old-tools", market.url).code == 0
    rename(market, "old-tools", "new-tools")
    # a lockfile from elsewhere (dotfiles) names the old plugin, at the renaming commit
    assert run("plugins", "update").code == 0
    text = (data(home) / "plugins.lock").read_text()
    (data(home) / "plugins.lock").write_text(text.replace('"new-tools"', '"old-tools"'))
    done = run("plugins", "install")
    assert done.code == 0, done.stderr
    assert "alpha" in links(home)  # not removed
    said = [line for line in done.stdout.splitlines() + done.stderr.splitlines() if "renam" in line]
    assert len(said) == 1, said
    assert (
        "renames.old-tools: marketplace 'market' renamed plugin 'old-tools' to 'new-tools'"
        in (said[0])
    )


@pytest.mark.parametrize(
    ("renames", "field", "why"),
    [
        ({"a": "b", "b": "a"}, "renames.a", "it goes round in a cycle"),
        ({"old-tools": "nowhere"}, "renames.old-tools", "'nowhere' is not a plugin the"),
        ({"old-tools": 5}, "renames.old-tools", "must be a plugin name or null, not a number"),
    ],
)
def test_a_rename_that_leads_to_no_plugin_is_one_line_naming_the_file_and_field(
    home: Path, tmp_path: Path, renames: dict[str, object], field: str, why: str
) -> None:
    root = tmp_path / "market"
    files = plugin_files("new-tools", ("alpha",), prefix="new-tools/")
    files[".claude-plugin/marketplace.json"] = catalogue(["new-tools"], renames)  # type: ignore[arg-type]
    build_file_tree(root, files)
    done = run("plugins", "validate", root)
    said = [line for line in done.stdout.splitlines() if field in line]
    assert len(said) == 1, done.stdout
    assert str(root / ".claude-plugin/marketplace.json") in said[0]
    assert why in said[0]
    assert "Traceback" not in done.stdout + done.stderr
    # the marketplace's plugins are read all the same
    assert run("plugins", "add", root, "--all").code in (0, 1)
    assert "alpha" in links(home)


def test_settings_kept_under_the_old_name_apply_to_the_new_one_until_update_moves_them(
    home: Path, tmp_path: Path
) -> None:
    root = tmp_path / "market"
    files = plugin_files("new-tools", ("alpha",), prefix="new-tools/")
    files[".claude-plugin/marketplace.json"] = catalogue(["new-tools"], {"old-tools": "new-tools"})
    build_file_tree(root, files)
    build_file_tree(home, {CONFIG: '[disabled.plugins]\nold-tools = ["*"]\n'})
    done = run("plugins", "add", root, "--all")
    assert done.code == 0, done.stderr
    assert "alpha" not in links(home)  # still off, under its new name
    said = [line for line in done.stderr.splitlines() if "disabled.plugins.old-tools" in line]
    assert said == [
        "warning: ~/.config/skilltool/config.toml: disabled.plugins.old-tools: its marketplace "
        "renamed plugin 'old-tools' to 'new-tools'; read as new-tools ('skilltool plugins "
        "update' records it)"
    ], done.stderr
    moved = run("plugins", "update")
    assert moved.code == 0, moved.stderr
    assert (home / CONFIG).read_text() == '[disabled.plugins]\nnew-tools = ["*"]\n'
    assert "renamed" not in run("plugins", "status").stderr
    assert "alpha" not in links(home)


def test_a_plugin_the_marketplace_removed_is_said_on_update_and_stays_recorded(
    home: Path, tmp_path: Path
) -> None:
    market = market_at(tmp_path, "old-tools")
    assert run("plugins", "add", "--plugin", "old-tools", market.url).code == 0
    files = plugin_files("other", ("beta",), prefix="other/")
    files[".claude-plugin/marketplace.json"] = catalogue(["other"], {"old-tools": None})
    market.commit(files, remove=("old-tools",))
    market.push()
    done = run("plugins", "update")
    assert done.code == 0, done.stderr
    assert (
        "  plugin  old-tools: removed by marketplace market; 'skilltool plugins remove "
        "old-tools' drops it"
    ) in done.lines
    assert lock(home)["market"]["plugins"] == ["old-tools"]  # kept: the user's to drop
    shown = run("plugins", "validate").stdout
    said = [line for line in shown.splitlines() if "renames.old-tools" in line]
    assert len(said) == 1 and "marketplace 'market' removed plugin 'old-tools'" in said[0], shown
    gone = run("plugins", "remove", "old-tools")
    assert gone.code == 0, gone.stderr
    assert "old-tools" not in (data(home) / "plugins.lock").read_text()  # its last plugin


def test_a_dependency_named_by_its_old_name_is_refused_naming_the_new_one(
    home: Path, tmp_path: Path
) -> None:
    """Claude Code 2.1.332 does not follow `renames` for a dependency (its install leaves the
    old name out); skilltool refuses it as any missing dependency, saying the new name."""
    root = tmp_path / "market"
    files = plugin_files("helper", ("alpha",), prefix="helper/")
    files["main/.claude-plugin/plugin.json"] = json.dumps(
        {"name": "main", "dependencies": ["old-helper"]}
    )
    files["main/skills/beta/SKILL.md"] = skill_md("beta")
    files[".claude-plugin/marketplace.json"] = catalogue(
        ["main", "helper"], {"old-helper": "helper"}
    )
    build_file_tree(root, files)
    assert run("plugins", "add", root).code == 0
    done = run("plugins", "add", "main@market")
    assert done.code == 1
    assert (
        "plugin main needs old-helper, which marketplace 'market' does not list (it renamed it "
        "helper: the plugin should name helper; add helper@market yourself first); nothing "
        "was added"
    ) in done.stderr


def test_a_plugin_picked_by_its_old_name_is_added_under_its_new_one(
    home: Path, tmp_path: Path
) -> None:
    """`add URL --plugin OLD`, as `add OLD@MARKETPLACE`: the marketplace's renames followed,
    said on the line; one it removed is refused and nothing added."""
    market = market_at(tmp_path, "old-tools")
    rename(market, "old-tools", "new-tools")
    done = run("plugins", "add", "--plugin", "old-tools", market.url)
    assert done.code == 0, done.stderr
    [added] = [line for line in done.lines if line.startswith("added     market")]
    assert "1 plugin(s): new-tools; marketplace market renamed old-tools to new-tools" in added
    assert lock(home)["market"]["plugins"] == ["new-tools"]
    assert "alpha" in links(home)

    other = Repo(tmp_path, "other")
    files = plugin_files("kept", ("beta",), prefix="kept/")
    files[".claude-plugin/marketplace.json"] = catalogue(["kept"], {"gone-tools": None})
    other.commit(files)
    other.push()
    gone = run("plugins", "add", "--plugin", "gone-tools", other.url)
    assert gone.code == 1
    assert (
        "renames.gone-tools: marketplace 'market' removed plugin 'gone-tools'; nothing was "
        "added: leave out --plugin gone-tools"
    ) in gone.stderr
    assert list(lock(home)) == ["market"] and "beta" not in links(home)


@pytest.mark.parametrize(
    ("recorded", "said"), [("old-tools", "new-tools"), ("new-tools", "old-tools")]
)
def test_a_renamed_plugin_is_removed_by_either_name(
    home: Path, tmp_path: Path, recorded: str, said: str
) -> None:
    """The lockfile names the plugin by one name (an old lockfile: the old one) and the user
    by the other: it is the same plugin, and it is removed."""
    market = market_at(tmp_path, "old-tools")
    assert run("plugins", "add", "--plugin", "old-tools", market.url).code == 0
    rename(market, "old-tools", "new-tools")
    assert run("plugins", "update").code == 0
    text = (data(home) / "plugins.lock").read_text()
    (data(home) / "plugins.lock").write_text(text.replace('"new-tools"', f'"{recorded}"'))
    done = run("plugins", "remove", said)
    assert done.code == 0, done.stderr
    assert any(line.startswith("removed   market") for line in done.lines), done.stdout
    assert "alpha" not in links(home)
    assert run("plugins", "remove", "no-such-tools").code == 1  # a name of no plugin: refused
