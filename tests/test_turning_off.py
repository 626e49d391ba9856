"""Turning things off: `plugins disable` and `enable` keep a plugin, a skill or an agent off in
some harnesses or all (in ~/.config/skilltool/config.toml); the install that follows removes
it there and says why, `status` says it is off, not missing; `leave-alone` names harnesses
skilltool never touches."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from skilltool.harnesses import NAMES
from tests.helpers import agent_md, build_file_tree, plugin_tree, run

CONFIG = ".config/skilltool/config.toml"
OFF = "turned off in ~/.config/skilltool/config.toml"


@pytest.fixture
def tools(home: Path, tmp_path: Path) -> dict[str, str]:
    """A plugin `tools` with two skills and an agent, in a home with Codex and Claude Code."""
    root = tmp_path / "plugins"
    plugin = plugin_tree(root, "tools", skills=("notes", "jots"))
    build_file_tree(plugin, {"agents/helper.md": agent_md("helper")})
    for harness in (".codex", ".claude"):
        (home / harness).mkdir()
    env = {"SKILLTOOL_PLUGINS": str(root)}
    assert run("plugins", "install", env=env).code == 0
    return env


def test_a_plugin_off_in_one_harness_is_removed_there_and_only_there(
    home: Path, tools: dict[str, str]
) -> None:
    done = run("plugins", "disable", "tools", "--harness", "codex", env=tools)
    assert done.code == 0, done.stderr
    assert done.lines[0] == "disabled  plugin tools in codex (now off in codex)"
    assert f"removed   codex    ~/.codex/skilltool/helper.md ({OFF})" in done.lines
    assert not (home / ".codex/skilltool/helper.md").exists()
    assert (home / ".claude/agents/helper.md").exists()
    # its skills stay in the folder Codex reads with every harness but Claude Code
    assert (home / ".agents/skills/notes").is_symlink()
    [note] = [line for line in done.lines if line.startswith("note ")]
    assert "its 2 skill(s) stay in ~/.agents/skills, which codex read(s)" in note
    status = run("plugins", "status", env=tools)
    assert any(line.endswith("all current; off in codex") for line in status.lines), status.lines
    data = json.loads(run("plugins", "list", "--json", env=tools).stdout)
    assert [p["off"] for p in data["plugins"] if p["name"] == "tools"] == ["off in codex"]
    # a no-op install after it: what is off stays off, with nothing said again
    absent = len(NAMES) - 2  # every harness but Codex and Claude Code
    assert re.fullmatch(
        rf"\d+ unchanged: {absent} harnesses absent", run("plugins", "install", env=tools).lines[-1]
    )
    again = run("plugins", "enable", "tools", "--harness", "codex", env=tools)
    assert again.lines[0] == "enabled   plugin tools in codex (now on in every harness)"
    assert (home / ".codex/skilltool/helper.md").exists()


def test_a_skill_off_everywhere_is_unlinked_from_every_skills_folder(
    home: Path, tools: dict[str, str]
) -> None:
    done = run("plugins", "disable", "notes", "--skill", env=tools)
    assert done.code == 0, done.stderr
    assert f"unlinked  skill notes ({OFF})" in done.lines
    assert f"unlinked  claude   skill notes ({OFF})" in done.lines
    assert not (home / ".agents/skills/notes").exists()
    assert not (home / ".claude/skills/notes").exists()
    assert (home / ".agents/skills/jots").is_symlink()
    status = run("plugins", "status", env=tools)
    assert any("skill notes off in every harness" in line for line in status.lines)
    # on again in Claude Code alone: still off in every harness that reads the shared folder
    back = run("plugins", "enable", "notes", "--harness", "claude", env=tools)
    assert back.code == 0, back.stderr
    assert (home / ".claude/skills/notes").is_symlink()
    assert not (home / ".agents/skills/notes").exists()
    assert run("plugins", "enable", "notes", env=tools).code == 0  # a name no plugin has
    assert (home / ".agents/skills/notes").is_symlink()


def test_a_skill_can_be_off_alone_only_where_a_harness_reads_its_own_folder(
    home: Path, tools: dict[str, str]
) -> None:
    refused = run("plugins", "disable", "notes", "--harness", "codex", env=tools)
    assert refused.code == 2
    assert "is read from ~/.agents/skills by codex" in refused.stderr
    assert "or in claude, continue, which read a folder of their own" in refused.stderr
    assert not (home / CONFIG).exists()
    done = run("plugins", "disable", "notes", "--harness", "claude", env=tools)
    assert done.code == 0
    assert not (home / ".claude/skills/notes").exists()
    assert (home / ".agents/skills/notes").is_symlink()


def test_the_settings_file_keeps_what_the_user_wrote_in_it(
    home: Path, tools: dict[str, str]
) -> None:
    (home / CONFIG).parent.mkdir(parents=True)
    (home / CONFIG).write_text("# my settings\nleave-alone = []  # none yet\n")
    assert (
        run("plugins", "disable", "helper", "--agent", "--harness", "claude", env=tools).code == 0
    )
    text = (home / CONFIG).read_text()
    assert text.startswith("# my settings\nleave-alone = []  # none yet\n")
    assert 'helper = ["claude"]' in text
    assert not (home / ".claude/agents/helper.md").exists()
    assert run("plugins", "enable", "helper", "--agent", env=tools).code == 0
    assert "helper" not in (home / CONFIG).read_text().split("# none yet")[1]
    assert (home / ".claude/agents/helper.md").exists()


def test_a_harness_left_alone_is_never_written_nor_emptied(
    home: Path, tools: dict[str, str]
) -> None:
    rendered = home / ".codex/skilltool/helper.md"
    before = rendered.read_bytes()
    (home / CONFIG).parent.mkdir(parents=True)
    (home / CONFIG).write_text('leave-alone = ["codex"]\n')
    done = run("plugins", "install", env=tools)
    said = "skipped   codex: left alone: ~/.config/skilltool/config.toml names it in leave-alone"
    assert any(line.startswith(said) for line in done.lines), done.lines
    assert rendered.read_bytes() == before
    assert run("plugins", "uninstall", env=tools).code == 0
    assert rendered.read_bytes() == before  # not even uninstall takes it back
    assert not (home / ".claude/agents/helper.md").exists()


def test_a_settings_file_that_does_not_read_stops_the_run_with_its_field(
    home: Path, tools: dict[str, str]
) -> None:
    (home / CONFIG).parent.mkdir(parents=True)
    (home / CONFIG).write_text('leave-alone = "codex"\n')
    done = run("plugins", "install", env=tools)
    assert done.code == 1
    assert done.stderr.startswith(f"skilltool: {home / CONFIG}: leave-alone: must be a list")
    assert "Traceback" not in done.stderr


def test_unknown_names_and_a_project_are_refused(
    home: Path, tools: dict[str, str], tmp_path: Path
) -> None:
    unknown = run("plugins", "disable", "nothing-such", env=tools)
    assert unknown.code == 1 and "no plugin, skill or agent named 'nothing-such'" in unknown.stderr
    harness = run("plugins", "disable", "tools", "--harness", "cursor", env=tools)
    assert harness.code == 2 and "--harness 'cursor': not a harness" in harness.stderr
    project = tmp_path / "repo"
    project.mkdir()
    (project / "skilltool.toml").write_text("harnesses = []\n")
    inside = run("plugins", "disable", "tools", "--project", project, env=tools)
    assert inside.code == 2 and "edit skilltool.toml" in inside.stderr
