"""The search path of SPEC §2: order, shadowing, origins, override, odd entries."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skilltool import discover, paths
from skilltool.model import SearchEntry
from tests.helpers import build_file_tree, plugin_tree, run, skill_md


def _status(*args: str | Path) -> dict:  # type: ignore[type-arg]
    result = run("plugins", "status", "--json", *args)
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_default_search_path_order(home: Path, tmp_path: Path) -> None:
    data = _status("--home", home)
    assert [(e["origin"], e["path"]) for e in data["search_path"]] == [
        ("user", str(home / ".local/share/skilltool/plugins")),
        ("system", str(tmp_path / "system/skilltool/plugins")),
        ("bundled", str(paths.bundled_plugins())),
    ]


def test_bundled_plugin_is_found_on_a_fresh_home(home: Path) -> None:
    data = _status("--home", home)
    [plugin] = data["plugins"]
    assert plugin["name"] == "skilltool"
    assert plugin["origin"] == "bundled"
    assert {s["name"] for s in plugin["skills"]} == {
        "writing-skills",
        "writing-plugins",
        "using-skilltool",
    }
    assert [a["name"] for a in plugin["agents"]] == ["plugin-author"]
    assert all(s["link"] == "not linked" for s in plugin["skills"])


def test_user_plugin_shadows_system_and_bundled(home: Path, tmp_path: Path) -> None:
    plugin_tree(home / ".local/share/skilltool/plugins", "skilltool", skills=("mine",))
    plugin_tree(tmp_path / "system/skilltool/plugins", "skilltool", skills=("theirs",))
    data = _status("--home", home)
    origins = [(p["origin"], p["shadowed_by"]) for p in data["plugins"]]
    user_root = str(home / ".local/share/skilltool/plugins/skilltool")
    assert origins == [("user", None), ("system", user_root), ("bundled", user_root)]
    assert [s["link"] for s in data["plugins"][1]["skills"]] == ["shadowed"]


def test_xdg_data_home_is_honoured_without_home_option(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    plugin_tree(tmp_path / "data/skilltool/plugins", "mine", skills=("a",))
    data = _status()
    assert data["plugins"][0]["name"] == "mine"
    assert data["plugins"][0]["origin"] == "user"


def test_home_option_ignores_the_real_homes_xdg_variables(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    other = tmp_path / "other"
    other.mkdir()
    data = _status("--home", other)
    assert data["search_path"][0]["path"] == str(other / ".local/share/skilltool/plugins")
    assert data["skills_dir"] == str(other / ".agents/skills")


def test_namespace_brands_the_data_dirs(home: Path) -> None:
    plugin_tree(home / ".local/share/otto/plugins", "docs", skills=("pdf",))
    data = _status("--home", home, "--namespace", "otto")
    assert data["search_path"][0]["path"] == str(home / ".local/share/otto/plugins")
    assert data["plugins"][0]["name"] == "docs"


def test_override_replaces_the_path_and_warns(home: Path, tmp_path: Path) -> None:
    plugin_tree(tmp_path / "dev", "mine", skills=("one",))
    result = run("plugins", "status", "--json", env={"SKILLTOOL_PLUGINS": str(tmp_path / "dev")})
    data = json.loads(result.stdout)
    assert [e["origin"] for e in data["search_path"]] == ["override"]
    assert [p["name"] for p in data["plugins"]] == ["mine"]
    assert "SKILLTOOL_PLUGINS is set" in result.stderr


def test_an_entry_may_be_a_plugin_itself(tmp_path: Path) -> None:
    root = plugin_tree(tmp_path, "solo", agents=("helper",), manifest=False)
    plugins, problems = discover.plugins_in(SearchEntry(root, "override"))
    assert [(p.name, [a.name for a in p.agents]) for p in plugins] == [("solo", ["helper"])]
    assert problems == []


def test_manifest_name_beats_directory_name_and_all_three_places_work(tmp_path: Path) -> None:
    for place, dirname in (
        (".claude-plugin/plugin.json", "a"),
        (".plugin/plugin.json", "b"),
        ("plugin.json", "c"),
    ):
        build_file_tree(tmp_path / "set" / dirname, {place: f'{{"name": "named-{dirname}"}}'})
    catalogue = discover.discover([SearchEntry(tmp_path / "set", "override")])
    assert [p.name for p in catalogue.plugins] == ["named-a", "named-b", "named-c"]


def test_same_name_at_one_level_is_deterministic_and_reported(tmp_path: Path) -> None:
    build_file_tree(
        tmp_path / "set",
        {
            "x/plugin.json": '{"name": "same"}',
            "y/plugin.json": '{"name": "same"}',
        },
    )
    catalogue = discover.discover([SearchEntry(tmp_path / "set", "override")])
    assert [(p.root.name, p.active) for p in catalogue.plugins] == [("x", True), ("y", False)]


def test_missing_and_odd_entries_are_reported_not_fatal(tmp_path: Path) -> None:
    build_file_tree(tmp_path / "set", {"stray.txt": "hi", "empty/README": "nothing"})
    plugin_tree(tmp_path / "set", "good", skills=("fine",))
    result = run("plugins", "status", env={"SKILLTOOL_PLUGINS": str(tmp_path / "set")})
    assert result.code == 0
    out = result.stdout
    assert f"{tmp_path / 'set/stray.txt'}: is not a directory" in out
    assert f"{tmp_path / 'set/empty'}: not a plugin" in out
    assert "plugin    good (override)" in out


@pytest.mark.parametrize("command", ["status", "install", "uninstall"])
def test_a_plugin_folder_named_that_does_not_exist_stops_the_run(
    home: Path, tmp_path: Path, command: str
) -> None:
    """Removal needs evidence: a typo in SKILLTOOL_PLUGINS must not read as 'no plugins'."""
    plugin_tree(tmp_path / "set", "good", skills=("fine",))
    env = {"SKILLTOOL_PLUGINS": str(tmp_path / "set")}
    assert run("plugins", "install", env=env).code == 0
    link = home / ".agents/skills/fine"
    typo = {"SKILLTOOL_PLUGINS": f"{tmp_path / 'missing'}:{tmp_path / 'set'}"}
    result = run("plugins", command, env=typo)
    assert result.code == 2
    assert result.stdout == ""
    assert (
        f"skilltool: {tmp_path / 'missing'} does not exist; check SKILLTOOL_PLUGINS"
        in result.stderr
    )
    assert os.readlink(link) == str(tmp_path / "set/good/skills/fine")
    assert run("plugins", command, env={"SKILLTOOL_PLUGINS": ""}).code == 2
    assert link.is_symlink()


def test_agents_only_plugin_is_a_plugin(tmp_path: Path) -> None:
    plugin_tree(tmp_path / "set", "agents-only", agents=("helper",))
    catalogue = discover.discover([SearchEntry(tmp_path / "set", "override")])
    assert [p.name for p in catalogue.plugins] == ["agents-only"]


def test_skill_link_escaping_the_plugin_is_refused(tmp_path: Path) -> None:
    build_file_tree(tmp_path / "outside/ext", {"SKILL.md": skill_md("ext")})
    build_file_tree(tmp_path / "set/p", {"skills/ext": tmp_path / "outside/ext"})
    catalogue = discover.discover([SearchEntry(tmp_path / "set", "override")])
    [plugin] = catalogue.plugins
    assert plugin.skills == ()
    assert "leads outside the plugin" in plugin.problems[0].message


def test_what_only_claude_codes_loader_takes_is_named_once_never_dropped_in_silence(
    home: Path,
) -> None:
    """Output styles, bin/, a plugin's settings.json and the experimental parts are Claude
    Code's own: no harness is given them, and `install` and `status` say so once, in Claude
    Code's line, with what to do; a plugin without them gets no such line."""
    (home / ".claude").mkdir()
    (home / ".config/opencode").mkdir(parents=True)
    user = home / ".local/share/skilltool/plugins"
    styled = plugin_tree(user, "styled", skills=("tidy",))
    build_file_tree(
        styled,
        {
            "output-styles/terse.md": "---\nname: Terse\ndescription: Short.\n---\nBe terse.\n",
            "bin/styled-tool": "#!/bin/sh\necho hi\n",
            "settings.json": '{"agent": "helper"}\n',
        },
    )
    manifest = styled / ".claude-plugin/plugin.json"
    manifest.write_text(json.dumps({"name": "styled", "experimental": {"themes": "./t/"}}))
    plugin_tree(user, "plain", skills=("neat",))
    done = run("plugins", "install")
    assert done.code == 0, done.stderr
    said = [ln for ln in done.lines if "only from a plugin it loads itself" in ln]
    assert said == [
        "skipped   claude: plugin styled's output styles, themes, bin/, settings.json: Claude "
        "Code takes them only from a plugin it loads itself, and skilltool carries them "
        "nowhere; for them, start Claude Code with --plugin-dir "
        "~/.local/share/skilltool/plugins/styled, or install the plugin with 'claude plugin "
        "install'"
    ]
    assert not list((home / ".claude").rglob("terse.md"))  # carried nowhere, as said
    assert not list((home / ".config/opencode").rglob("*styled*"))
    detail = run("plugins", "status", "styled").lines
    assert (
        "  parts   output styles, themes, bin/, settings.json: only Claude Code's own "
        "loader takes them; not carried" in detail
    )
    plugins = {p["name"]: p for p in _status()["plugins"]}
    assert plugins["styled"]["claude_only"] == ["output styles", "themes", "bin/", "settings.json"]
    assert plugins["plain"]["claude_only"] == []
