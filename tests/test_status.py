"""`plugins status` (SPEC §4): what is found, what shadows what, how each skill is linked."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from skilltool import paths
from tests.helpers import build_file_tree, plugin_tree, run, scrub, skill_md


@pytest.fixture
def lived_in(home: Path, tmp_path: Path) -> Path:
    """A home with every state status can show.

    - user plugin `docs` (pdf-tools linked, notes blocked by a real directory) shadows
      the system plugin `docs`
    - user plugin `broken` has one good and one invalid skill
    - the bundled plugin, nothing of it linked
    """
    user = home / ".local/share/skilltool/plugins"
    system = tmp_path / "system/skilltool/plugins"
    plugin_tree(user, "docs", skills=("pdf-tools", "notes"), agents=("helper",))
    plugin_tree(system, "docs", skills=("pdf-tools", "old-skill"))
    build_file_tree(
        user / "broken",
        {
            "skills/good-one/SKILL.md": skill_md("good-one"),
            "skills/bad/SKILL.md": skill_md("bad", "''"),
        },
    )
    build_file_tree(
        home / ".agents/skills",
        {
            "pdf-tools": user / "docs/skills/pdf-tools",
            "notes/README.md": "my own notes, not a link\n",
        },
    )
    return home


def test_status_json_snapshot(lived_in: Path, tmp_path: Path, snapshot: SnapshotAssertion) -> None:
    result = run("plugins", "status", "--json")
    assert result.code == 0, result.stderr
    assert json.loads(scrub(result.stdout, tmp_path)) == snapshot


def test_status_lines_show_every_state(lived_in: Path, tmp_path: Path) -> None:
    result = run("plugins", "status")
    assert result.code == 0, result.stderr
    lines = scrub(result.stdout, tmp_path).splitlines()
    user = "~/.local/share/skilltool/plugins"
    system = "<tmp>/system/skilltool/plugins"
    expected = [
        "skills    ~/.agents/skills",
        f"search    user     {user} (directory of plugins)",
        f"search    system   {system} (directory of plugins)",
        "search    bundled  <repo>/resources/plugins (directory of plugins)",
        f"plugin    docs (user) {user}/docs",
        "  skill   pdf-tools                linked",
        "  skill   notes                    left alone: a directory, not a link made by skilltool; move it away to link this skill",
        f"  agent   helper                   {user}/docs/agents/helper.md",
        f"plugin    docs (system) {system}/docs shadowed by {user}/docs",
        "  skill   old-skill                shadowed: by <tmp>/home/.local/share/skilltool/plugins/docs",
        "plugin    skilltool (bundled) <repo>/resources/plugins/skilltool",
        "  skill   writing-skills           not linked",
        f"plugin    broken (user) {user}/broken",
        "  skill   good-one                 not linked",
        "  error   <tmp>/home/.local/share/skilltool/plugins/broken/skills/bad/SKILL.md:3: "
        "description: is empty; write what it is and when to use it",
    ]
    assert [line for line in expected if line not in lines] == []
    # the broken plugin's invalid skill is not offered, only reported
    assert not any(line.startswith("  skill   bad") for line in lines)


def test_skills_alias_gives_the_same_status(lived_in: Path) -> None:
    for extra in ((), ("--json",)):
        plugins = run("plugins", "status", *extra)
        skills = run("skills", "status", *extra)
        assert skills.code == plugins.code == 0
        assert skills.stdout == plugins.stdout


def test_status_changes_nothing(lived_in: Path, tmp_path: Path) -> None:
    cache = lived_in / ".cache/skilltool"  # skilltool's own parse cache may be written

    def tree() -> list[tuple[str, str]]:
        return sorted(
            (str(p.relative_to(tmp_path)), os.readlink(p) if p.is_symlink() else "")
            for p in tmp_path.rglob("*")
            if cache not in p.parents and p not in (cache, cache.parent)
        )

    before = tree()
    run("plugins", "status")
    run("plugins", "status", "--json")
    assert tree() == before


def test_status_with_home_option_reads_that_home(lived_in: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    plugin_tree(other / ".local/share/skilltool/plugins", "mine", skills=("pdf-tools",))
    data = json.loads(run("plugins", "status", "--json", "--home", other).stdout)
    assert data["skills_dir"] == str(other / ".agents/skills")
    names = [(p["name"], p["origin"]) for p in data["plugins"]]
    assert names == [("mine", "user"), ("docs", "system"), ("skilltool", "bundled")]
    # the real home's link to its own pdf-tools says nothing about the other home
    assert data["plugins"][0]["skills"][0]["link"] == "not linked"
    assert paths.bundled_plugins() == Path(data["search_path"][-1]["path"])
