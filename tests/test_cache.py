"""cache: parsed files are reused only while their stat is unchanged; renderings only while
what they are made from is unchanged and the file on disk is still exactly the rendering."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from skilltool import cache, parse
from skilltool.cache import ParseCache
from skilltool.harnesses import NAMES, Harness
from tests.helpers import HARNESS_DIRS, Result, agent_md, build_file_tree, run, skill_md


def test_an_unchanged_file_is_not_parsed_again_and_a_changed_one_is(
    tmp_path: Path, monkeypatch
) -> None:
    build_file_tree(tmp_path, {"agents/a.md": agent_md("a")})
    store = tmp_path / "parsed.marshal"
    first = ParseCache(store)
    agent, _ = first.read_agent(tmp_path / "agents/a.md")
    assert agent is not None
    first.save()
    calls: list[Path] = []
    real = parse.read_agent
    monkeypatch.setattr(parse, "read_agent", lambda p: (calls.append(p), real(p))[1])
    again, _ = ParseCache(store).read_agent(tmp_path / "agents/a.md")
    assert again == agent and calls == []
    (tmp_path / "agents/a.md").write_text(agent_md("a", body="Changed.\n"))
    os.utime(tmp_path / "agents/a.md", ns=(1, 1))
    changed, _ = ParseCache(store).read_agent(tmp_path / "agents/a.md")
    assert changed is not None and changed.body == "Changed.\n" and len(calls) == 1


def test_a_damaged_cache_costs_only_time(tmp_path: Path) -> None:
    store = tmp_path / "parsed.marshal"
    store.write_bytes(b"\x00not marshal")
    build_file_tree(tmp_path, {"agents/a.md": agent_md("a")})
    agent, problems = ParseCache(store).read_agent(tmp_path / "agents/a.md")
    assert agent is not None and problems == []


# --------------------------------------------------------------------------- renderings

# the first file each harness renders for the agent 'helper'
FIRST = {
    "opencode": ".config/opencode/agent/helper.md",
    "hermes": ".hermes/profiles/helper/SOUL.md",
    "codex": ".codex/skilltool/helper.md",
    "pi": ".pi/agent/skilltool/helper.md",
    "claude": ".claude/agents/helper.md",
    "gemini": ".gemini/agents/helper.md",
    "copilot": ".copilot/agents/helper.agent.md",
    "kilo": ".config/kilo/agents/helper.md",
    "qwen": ".qwen/agents/helper.md",
    "vibe": ".vibe/agents/helper.toml",
    "kimi": ".kimi-code/agents/helper.md",
    "droid": ".factory/droids/helper.md",
    "cline": ".cline/agents/helper.yml",
    "auggie": ".augment/agents/helper.md",
    "qoder": ".qoder/agents/helper.md",
    "openhands": ".openhands/agents/helper.md",
}  # Continue CLI and Amp take no agent: nothing of theirs is rendered


@pytest.fixture
def installed(tmp_path: Path) -> tuple[Path, Path]:
    """A home with every harness, a plugin with one agent and one skill, installed twice
    (the second run fills nothing new: the rendering cache is warm). -> (home, plugin)"""
    assert set(HARNESS_DIRS) == set(NAMES)
    home = tmp_path / "home"
    for directory in HARNESS_DIRS.values():
        (home / directory).mkdir(parents=True)
    plugin = build_file_tree(tmp_path / "src/demo", {
        "agents/helper.md": agent_md("helper", "\nYou help with things.\n"),
        "skills/notes/SKILL.md": skill_md("notes"),
    })  # fmt: skip
    for _ in range(2):
        assert install(home, plugin).code == 0
    assert (home / ".cache/skilltool/rendered.marshal").is_file()
    return home, plugin


def install(home: Path, plugin: Path) -> Result:
    return run("plugins", "install", "--home", home, env={"SKILLTOOL_PLUGINS": str(plugin)})


def test_a_noop_install_renders_nothing(installed: tuple[Path, Path], monkeypatch) -> None:
    def refuse(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("rendered on a no-op run")

    monkeypatch.setattr(Harness, "template", refuse)
    done = install(*installed)
    assert done.code == 0
    assert done.lines[-1].endswith(" unchanged") and done.lines[-1][0].isdigit()


@pytest.mark.parametrize("harness", sorted(FIRST))
def test_a_hand_edit_after_a_cached_run_is_seen_and_kept(
    installed: tuple[Path, Path], harness: str
) -> None:
    home, plugin = installed
    target = home / FIRST[harness]
    edited = target.read_bytes() + b"\nmy own line\n"
    target.write_bytes(edited)
    done = install(home, plugin)
    assert any(ln.startswith("left") and "edited by hand" in ln for ln in done.lines)
    assert target.read_bytes() == edited


@pytest.mark.parametrize("harness", sorted(FIRST))
def test_a_link_in_place_of_a_cached_rendering_is_left_alone_even_to_the_same_bytes(
    installed: tuple[Path, Path], harness: str, tmp_path: Path
) -> None:
    home, plugin = installed
    target = home / FIRST[harness]
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_bytes(target.read_bytes())
    target.unlink()
    target.symlink_to(elsewhere)
    done = install(home, plugin)
    assert any(ln.startswith("left") and "a link" in ln for ln in done.lines)
    assert target.is_symlink() and os.readlink(target) == str(elsewhere)


def test_a_foreign_file_in_place_of_a_cached_rendering_is_left_alone(
    installed: tuple[Path, Path],
) -> None:
    home, plugin = installed
    target = home / FIRST["opencode"]
    target.write_text("---\ndescription: mine\n---\nMy own agent.\n")
    done = install(home, plugin)
    assert any(ln.startswith("left") and "not written by skilltool" in ln for ln in done.lines)
    assert target.read_text() == "---\ndescription: mine\n---\nMy own agent.\n"


def test_a_removed_rendering_is_written_again(installed: tuple[Path, Path]) -> None:
    home, plugin = installed
    target = home / FIRST["claude"]
    before = target.read_bytes()
    target.unlink()
    done = install(home, plugin)
    assert any(ln.startswith("wrote") and "helper.md" in ln for ln in done.lines)
    assert target.read_bytes() == before


def test_an_agent_changed_by_a_package_upgrade_is_rendered_again(
    installed: tuple[Path, Path],
) -> None:
    home, plugin = installed
    agent = plugin / "agents/helper.md"
    agent.write_text(agent_md("helper", "\nYou help with other things now.\n"))
    os.utime(agent, ns=(1, 1))  # as a package manager sets the packaged mtime
    done = install(home, plugin)
    assert sum(ln.startswith("rewrote") for ln in done.lines) >= len(NAMES)
    assert b"other things now" in (home / FIRST["gemini"]).read_bytes()


def test_a_changed_skilltool_renders_again(installed: tuple[Path, Path], monkeypatch) -> None:
    home, plugin = installed
    real = Harness.template

    def newer(self: Harness, name: str, agent: Any, **extra: Any) -> bytes:
        return real(self, name, agent, **extra).replace(b"You help", b"You, newly, help")

    # an upgrade that changes a template changes the stat of what the renderings come from
    monkeypatch.setattr(cache, "code_stamp", lambda: ("a newer skilltool",))
    monkeypatch.setattr(Harness, "template", newer)
    done = install(home, plugin)
    assert any(ln.startswith("rewrote") for ln in done.lines)
    assert b"You, newly, help" in (home / FIRST["opencode"]).read_bytes()


def test_a_skill_added_by_a_package_upgrade_is_linked_by_the_next_noop(
    installed: tuple[Path, Path],
) -> None:
    home, plugin = installed
    build_file_tree(plugin, {"skills/more/SKILL.md": skill_md("more")})
    done = install(home, plugin)
    assert f"linked    skill more -> {plugin / 'skills/more'}" in done.lines
    assert (home / ".agents/skills/more").resolve() == (plugin / "skills/more").resolve()


def test_a_damaged_rendering_cache_costs_only_time(installed: tuple[Path, Path]) -> None:
    home, plugin = installed
    (home / ".cache/skilltool/rendered.marshal").write_bytes(b"\x00not marshal")
    done = install(home, plugin)
    assert done.code == 0
    assert done.lines[-1].endswith(" unchanged") and done.lines[-1][0].isdigit()


# --------------------------------------------------------------------------- command files

# where each harness with command files keeps the command /review
COMMANDS = {
    "opencode": ".config/opencode/command/review.md",
    "pi": ".pi/agent/prompts/review.md",
    "claude": ".claude/commands/review.md",
    "gemini": ".gemini/commands/review.toml",
    "kilo": ".config/kilo/command/review.md",
    "qwen": ".qwen/commands/review.toml",
    "droid": ".factory/commands/review.md",
    "cline": ".cline/workflows/review.md",
    "auggie": ".augment/commands/review.md",
    "qoder": ".qoder/commands/review.md",
}
REVIEW = "---\ndescription: Review a file\nmodel: sonnet\n---\nReview $ARGUMENTS carefully.\n"


@pytest.fixture
def commanded(tmp_path: Path) -> tuple[Path, Path]:
    """Every harness, a plugin with one command, installed twice (the cache is warm)."""
    home = tmp_path / "home"
    for directory in HARNESS_DIRS.values():
        (home / directory).mkdir(parents=True)
    plugin = build_file_tree(tmp_path / "src/demo", {
        ".claude-plugin/plugin.json": '{"name": "demo"}\n',
        "commands/review.md": REVIEW,
    })  # fmt: skip
    for _ in range(2):
        assert install(home, plugin).code == 0
    return home, plugin


def test_a_noop_install_renders_no_command(commanded: tuple[Path, Path], monkeypatch) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError("a command rendered on a no-op run")

    monkeypatch.setattr(Harness, "command_file", refuse)  # every command's file is made there
    done = install(*commanded)
    assert done.code == 0 and done.lines[-1].endswith(" unchanged")


@pytest.mark.parametrize("harness", sorted(COMMANDS))
def test_a_hand_edit_of_a_cached_command_file_is_seen_and_kept(
    commanded: tuple[Path, Path], harness: str
) -> None:
    home, plugin = commanded
    target = home / COMMANDS[harness]
    edited = target.read_bytes() + b"\nmy own line\n"
    target.write_bytes(edited)
    done = install(home, plugin)
    assert f"left      ~/{COMMANDS[harness]}: edited by hand" in " ".join(done.lines)
    assert target.read_bytes() == edited


def test_a_foreign_file_in_place_of_a_cached_command_file_is_left_alone(
    commanded: tuple[Path, Path],
) -> None:
    home, plugin = commanded
    target = home / COMMANDS["claude"]
    target.unlink()
    target.write_text("My own review command.\n")
    done = install(home, plugin)
    assert f"left      ~/{COMMANDS['claude']}: not written by skilltool" in done.lines
    assert target.read_text() == "My own review command.\n"


def test_a_link_in_place_of_a_cached_command_file_is_left_alone_even_to_the_same_bytes(
    commanded: tuple[Path, Path], tmp_path: Path
) -> None:
    home, plugin = commanded
    target = home / COMMANDS["opencode"]
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_bytes(target.read_bytes())
    target.unlink()
    target.symlink_to(elsewhere)
    done = install(home, plugin)
    assert any(ln.startswith("left") and "a link" in ln for ln in done.lines)
    assert target.is_symlink() and os.readlink(target) == str(elsewhere)


def test_a_removed_command_file_is_written_again(commanded: tuple[Path, Path]) -> None:
    home, plugin = commanded
    target = home / COMMANDS["gemini"]
    before = target.read_bytes()
    target.unlink()
    done = install(home, plugin)
    assert f"wrote     gemini   ~/{COMMANDS['gemini']}" in done.lines
    assert target.read_bytes() == before


def test_a_command_changed_by_a_package_upgrade_is_rendered_again(
    commanded: tuple[Path, Path],
) -> None:
    home, plugin = commanded
    source = plugin / "commands/review.md"
    source.write_text(REVIEW.replace("carefully", "twice"))
    os.utime(source, ns=(1, 1))  # as a package manager sets the packaged mtime
    done = install(home, plugin)
    assert sum(ln.startswith("rewrote") for ln in done.lines) == len(COMMANDS)
    for relative in COMMANDS.values():
        assert b"twice" in (home / relative).read_bytes(), relative


# --------------------------------------------------------------------------- skills, after a cached run


def test_a_skill_md_edited_after_a_cached_run_decides_its_link_again(
    installed: tuple[Path, Path],
) -> None:
    home, plugin = installed
    skill = plugin / "skills/notes/SKILL.md"
    skill.write_text("---\nname: notes\n---\nNo description any more.\n")
    os.utime(skill, ns=(1, 1))  # as a package manager sets the packaged mtime
    done = install(home, plugin)
    assert any(ln.startswith("unlinked  skill notes (") for ln in done.lines), done.lines
    assert "description" in done.stderr, done.stderr
    assert not os.path.lexists(home / ".agents/skills/notes")


def test_a_skill_removed_by_a_package_upgrade_is_unlinked_by_the_next_noop(
    installed: tuple[Path, Path],
) -> None:
    home, plugin = installed
    (plugin / "skills/notes/SKILL.md").unlink()
    (plugin / "skills/notes").rmdir()
    done = install(home, plugin)
    assert any(ln.startswith("unlinked  skill notes") for ln in done.lines), done.lines
    assert not os.path.lexists(home / ".agents/skills/notes")


def test_a_link_changed_by_someone_else_after_a_cached_run_is_left_alone(
    installed: tuple[Path, Path], tmp_path: Path
) -> None:
    home, plugin = installed
    theirs = build_file_tree(tmp_path / "theirs/notes", {"SKILL.md": skill_md("notes")})
    link = home / ".agents/skills/notes"
    link.unlink()
    link.symlink_to(theirs)
    done = install(home, plugin)
    assert any(ln.startswith("left") and "not one made by skilltool" in ln for ln in done.lines)
    assert os.readlink(link) == str(theirs)


def test_a_foreign_folder_in_place_of_a_link_after_a_cached_run_is_left_alone(
    installed: tuple[Path, Path],
) -> None:
    home, plugin = installed
    link = home / ".agents/skills/notes"
    link.unlink()
    build_file_tree(link, {"SKILL.md": skill_md("notes")})
    done = install(home, plugin)
    assert any(ln.startswith("left") and "a directory" in ln for ln in done.lines), done.lines
    assert (link / "SKILL.md").read_text() == skill_md("notes")
