"""`defaultEnabled: false` (plugin.json or its marketplace entry), read as Claude Code 2.1.332
reads it: the plugin is added but off until the user turns it on; what the user set, on or
off, wins; `status` says it is off by its default and how to turn it on."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import agent_md, build_file_tree, run, skill_md

CONFIG = ".config/skilltool/config.toml"


def market(root: Path, entry: dict[str, object] | None = None, manifest: str = "") -> Path:
    """A local marketplace: `quiet` (skill `hush`, agent `mute`) and `loud` (skill `shout`)."""
    quiet = {"name": "quiet", "source": "./quiet", **(entry or {})}
    build_file_tree(
        root,
        {
            ".claude-plugin/marketplace.json": json.dumps(
                {
                    "name": "mk",
                    "owner": {"name": "T"},
                    "plugins": [quiet, {"name": "loud", "source": "./loud"}],
                }
            ),
            "quiet/.claude-plugin/plugin.json": manifest or '{"name": "quiet"}',
            "quiet/skills/hush/SKILL.md": skill_md("hush"),
            "quiet/agents/mute.md": agent_md("mute"),
            "loud/.claude-plugin/plugin.json": '{"name": "loud"}',
            "loud/skills/shout/SKILL.md": skill_md("shout"),
        },
    )
    return root


def linked(home: Path) -> set[str]:
    skills = home / ".agents/skills"
    return {p.name for p in skills.iterdir() if p.is_symlink()} if skills.is_dir() else set()


def test_a_plugin_off_by_its_default_is_added_off_until_enabled(home: Path, tmp_path: Path) -> None:
    (home / ".claude").mkdir()
    root = market(tmp_path / "mk", manifest='{"name": "quiet", "defaultEnabled": false}')
    done = run("plugins", "add", root, "--all")
    assert done.code == 0, done.stderr
    assert (
        "off       quiet: off by its default (defaultEnabled: false); 'skilltool plugins "
        "enable quiet' turns it on"
    ) in done.lines
    assert "shout" in linked(home) and "hush" not in linked(home)
    assert not (home / ".claude/agents/mute.md").exists()
    status = run("plugins", "status")
    said = [line for line in status.lines if "by its default" in line]
    assert len(said) == 1 and "quiet" in said[0], status.stdout
    assert (
        "off in every harness by its default (defaultEnabled: false): 'skilltool plugins "
        "enable quiet' turns it on"
    ) in said[0]
    # turned on: the user's setting wins over the plugin's default
    on = run("plugins", "enable", "quiet")
    assert on.code == 0, on.stderr
    assert on.lines[0] == "enabled   plugin quiet in every harness (now on in every harness)"
    assert "hush" in linked(home)
    assert (home / ".claude/agents/mute.md").exists()
    assert '[enabled.plugins]\nquiet = ["*"]' in (home / CONFIG).read_text()
    assert "by its default" not in run("plugins", "status").stdout
    # and off again by the user's word
    off = run("plugins", "disable", "quiet")
    assert off.code == 0, off.stderr
    assert "hush" not in linked(home)
    assert "by its default" not in run("plugins", "status").stdout


def test_the_marketplace_entry_wins_over_plugin_json(home: Path, tmp_path: Path) -> None:
    root = market(
        tmp_path / "mk",
        entry={"defaultEnabled": True},
        manifest='{"name": "quiet", "defaultEnabled": false}',
    )
    done = run("plugins", "add", root, "--all")
    assert done.code == 0, done.stderr
    assert {"hush", "shout"} <= linked(home)
    assert "by its default" not in done.stdout


def test_on_in_one_harness_leaves_it_off_by_default_in_the_others(
    home: Path, tmp_path: Path
) -> None:
    (home / ".claude").mkdir()
    (home / ".codex").mkdir()
    root = market(tmp_path / "mk", entry={"defaultEnabled": False})
    assert run("plugins", "add", root, "--all").code == 0
    on = run("plugins", "enable", "quiet", "--harness", "claude")
    assert on.code == 0, on.stderr
    assert (home / ".claude/agents/mute.md").exists()
    assert not (home / ".codex/skilltool/mute.md").exists()
    assert "by its default" in run("plugins", "status").stdout


def test_a_default_that_is_not_true_or_false_is_one_line_naming_the_file_and_field(
    home: Path, tmp_path: Path
) -> None:
    root = market(tmp_path / "mk", entry={"defaultEnabled": "no"})
    done = run("plugins", "validate", root)
    said = [line for line in done.stdout.splitlines() if "defaultEnabled" in line]
    assert len(said) == 1, done.stdout
    assert str(root / ".claude-plugin/marketplace.json") in said[0]
    assert "must be true or false, not a string" in said[0]
    assert "Traceback" not in done.stdout + done.stderr


def test_a_plugin_that_turns_its_default_off_is_removed_saying_why(
    home: Path, tmp_path: Path
) -> None:
    (home / ".claude").mkdir()
    root = market(tmp_path / "mk")
    assert run("plugins", "add", root, "--all").code == 0
    assert (home / ".claude/agents/mute.md").exists()
    (root / "quiet/.claude-plugin/plugin.json").write_text(
        '{"name": "quiet", "defaultEnabled": false}'
    )
    done = run("plugins", "install")
    assert done.code == 0, done.stderr
    assert not (home / ".claude/agents/mute.md").exists()
    [said] = [line for line in done.lines if "mute.md" in line]
    assert said.startswith("removed")
    assert said.endswith(
        "(off by its default (defaultEnabled: false): 'skilltool plugins enable quiet' turns it on)"
    )
