"""plan: what is on disk + the plugins found -> Actions; reads, never writes."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from skilltool import discover, plan
from skilltool.harnesses import registry
from skilltool.model import SearchEntry
from skilltool.paths import Home
from tests.helpers import agent_md, build_file_tree, run


def test_a_rendering_whose_plugin_folder_is_missing_is_kept_until_it_can_be_read(
    home: Path, tmp_path: Path, monkeypatch
) -> None:
    """Removal needs evidence: a system plugin folder on an unmounted disk removes nothing."""
    disk = tmp_path / "disk"
    system = disk / "skilltool/plugins"
    build_file_tree(system / "docs", {"agents/helper.md": agent_md("helper")})
    monkeypatch.setenv("XDG_DATA_DIRS", str(disk))
    (home / ".codex").mkdir()
    assert run("plugins", "install", "--only", "codex").code == 0
    rendered = home / ".codex/skilltool/helper.md"
    assert rendered.is_file()
    os.rename(disk, tmp_path / "unmounted")
    result = run("plugins", "install", "--only", "codex")
    assert result.code == 0
    assert rendered.is_file()
    assert any(
        line.startswith("left      ~/.codex/skilltool/helper.md: its agent")
        for line in result.lines
    ), result.lines
    os.rename(tmp_path / "unmounted", disk)
    (system / "docs/agents/helper.md").unlink()  # now the folder is read, and the agent is gone
    result = run("plugins", "install", "--only", "codex")
    assert not rendered.exists(), result.lines


def test_plan_writes_nothing(home: Path, tmp_path: Path) -> None:
    root = build_file_tree(
        tmp_path / "plugins/docs",
        {"skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\n", "agents/a.md": agent_md("a")},
    )
    for directory in (".codex", ".claude", ".config/opencode"):
        (home / directory).mkdir(parents=True)
    before = sorted(str(p) for p in home.rglob("*"))
    catalogue = discover.discover([SearchEntry(root.parent, "override")])
    where = Home(home, explicit=True)
    found = [cls(where) for cls in registry().values()]
    links = plan.plan_links(catalogue, home / ".agents/skills")
    files = plan.plan_renderings(catalogue, found)
    assert [(a.name, a.change) for a in links.actions] == [("s", "create")]
    assert {a.owner for a in files.actions if a.change == "create"} == {
        "codex",
        "claude",
        "opencode",
    }
    assert sorted(str(p) for p in home.rglob("*")) == before


def test_an_edited_rendering_forced_is_copied_to_a_name_not_taken(tmp_path: Path) -> None:
    target = tmp_path / "helper.md"
    (tmp_path / "helper.md.skilltool-edited").write_text("an earlier copy\n")
    assert plan._edited_copy(target) == tmp_path / "helper.md.skilltool-edited.1"


def test_read_places_are_the_entries_that_exist(tmp_path: Path) -> None:
    (tmp_path / "here").mkdir()
    catalogue = discover.discover(
        [SearchEntry(tmp_path / "here", "user"), SearchEntry(tmp_path / "gone", "system")]
    )
    assert plan.Evidence(catalogue).read == (str(tmp_path / "here") + os.sep,)


@given(
    st.lists(st.sampled_from(["a", "b.c", ".", "..", "", ".hidden", "..x", "x..y"]), max_size=6),
    st.booleans(),
    st.booleans(),
)
def test_a_link_destination_is_read_as_normpath_would_read_it(
    parts: list[str], rooted: bool, trailing: bool
) -> None:
    """The shortcut for a destination already absolute and normal gives what normpath gives."""
    path = ("/" if rooted else "") + "/".join(parts) + ("/" if trailing else "")
    if path:
        assert plan.absolute(path, "/base/dir") == os.path.normpath(os.path.join("/base/dir", path))
