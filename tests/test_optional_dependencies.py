"""`optionalDependencies`, read as Claude Code 2.1.332 installs them: added with the plugin
that names them when they can be had (one off by its own default added off), one that
cannot be left out with a line, a range choosing only the version; removed with it when
nothing else wants them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import build_file_tree, run, skill_md
from tests.test_sources import data, lock


def market(root: Path, wants: list[object], needs: list[object] | None = None) -> Path:
    """A local marketplace `omk`: `main` takes `wants` (and needs `needs`); `helper` and
    `quiet` (off by its default) are there to be taken."""
    main: dict[str, object] = {"name": "main", "version": "1.0.0", "optionalDependencies": wants}
    if needs is not None:
        main["dependencies"] = needs
    manifests = {
        "main": main,
        "helper": {"name": "helper", "version": "1.0.0"},
        "quiet": {"name": "quiet", "version": "1.0.0", "defaultEnabled": False},
    }
    tree: dict[str, str | bytes | Path] = {
        ".claude-plugin/marketplace.json": json.dumps(
            {
                "name": "omk",
                "owner": {"name": "T"},
                "plugins": [{"name": n, "source": f"./{n}"} for n in manifests],
            }
        )
    }
    for name, manifest in manifests.items():
        tree[f"{name}/.claude-plugin/plugin.json"] = json.dumps(manifest)
        tree[f"{name}/skills/{name}-skill/SKILL.md"] = skill_md(f"{name}-skill")
    return build_file_tree(root, tree)


def linked(home: Path) -> set[str]:
    skills = home / ".agents/skills"
    return {p.name for p in skills.iterdir() if p.is_symlink()} if skills.is_dir() else set()


def test_what_a_plugin_takes_is_added_with_it_and_what_cannot_be_had_is_left_out(
    home: Path, tmp_path: Path
) -> None:
    root = market(tmp_path / "omk", ["helper", "quiet@^2.0", "nope", 5])
    assert run("plugins", "add", root).code == 0  # the marketplace, none picked
    done = run("plugins", "add", "main@omk")
    assert done.code == 0, done.stderr
    lines = done.lines
    assert any(ln.endswith("(plugin helper of omk, optional for main)") for ln in lines), lines
    # a range only chooses the version: quiet 1.0.0 is taken for ^2.0, and comes in off
    assert any(ln.endswith("(plugin quiet of omk, optional for main)") for ln in lines), lines
    assert (
        "off       quiet: off by its default (defaultEnabled: false); 'skilltool plugins "
        "enable quiet' turns it on"
    ) in lines
    [left] = [ln for ln in lines if ln.startswith("left out")]
    assert left.startswith("left out  nope, optional for main: ")
    assert "marketplace 'omk' does not list" in left
    assert lock(home)["omk"]["plugins"] == ["main", "helper", "quiet"]
    assert lock(home)["omk"]["as-dependency"] == ["helper", "quiet"]
    assert {"main-skill", "helper-skill"} <= linked(home)
    assert "quiet-skill" not in linked(home)
    # the item that is not a plugin name: a warning naming the file and field
    shown = run("plugins", "validate").stdout
    [said] = [ln for ln in shown.splitlines() if "optionalDependencies[3]" in ln]
    assert str(root / "main/.claude-plugin/plugin.json") in said
    assert said.endswith("Claude Code leaves it out (warning)")
    # nothing warns that main does not load: it does not need them
    assert "does not load" not in shown
    # removed with the plugin that took them, when nothing else wants them
    gone = run("plugins", "remove", "main")
    assert gone.code == 0, gone.stderr
    assert not linked(home) & {"main-skill", "helper-skill"}
    assert "main" not in (data(home) / "plugins.lock").read_text()


def test_a_plugin_in_both_lists_is_needed(home: Path, tmp_path: Path) -> None:
    root = market(tmp_path / "omk", ["nope"], needs=["nope"])
    assert run("plugins", "add", root).code == 0
    done = run("plugins", "add", "main@omk")
    assert done.code == 1  # needed, so its absence refuses the add
    assert "plugin main needs nope, which marketplace 'omk' does not list" in done.stderr
    assert lock(home)["omk"]["plugins"] == []
