"""apply: the only writer; what --force discards is kept, and shown first."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import agent_md, build_file_tree, run, skill_md


def _edited_home(home: Path, tmp_path: Path) -> tuple[dict[str, str], Path, str]:
    build_file_tree(tmp_path / "plugins/docs", {"agents/helper.md": agent_md("helper")})
    env = {"SKILLTOOL_PLUGINS": str(tmp_path / "plugins")}
    (home / ".claude").mkdir()
    assert run("plugins", "install", "--only", "claude", env=env).code == 0
    target = home / ".claude/agents/helper.md"
    edited = target.read_text().replace("You help with the tests.", "You help, my way.")
    target.write_text(edited)
    return env, target, edited


def test_force_keeps_the_hand_edit_beside_it_and_diff_shows_it_first(
    home: Path, tmp_path: Path
) -> None:
    env, target, edited = _edited_home(home, tmp_path)
    shown = run("plugins", "install", "--only", "claude", "--diff", env=env)
    assert shown.code == 0
    assert "-You help, my way." in shown.lines and "+You help with the tests." in shown.lines
    assert target.read_text() == edited  # --diff alone changes nothing
    forced = run("plugins", "install", "--only", "claude", "--force", env=env)
    assert forced.code == 0
    kept = target.with_name("helper.md.skilltool-edited")
    assert kept.read_text() == edited
    assert "my way" not in target.read_text()
    # a second forced edit never overwrites the first copy
    target.write_text(edited.replace("my way", "another way"))
    assert run("plugins", "uninstall", "--only", "claude", "--force", env=env).code == 0
    assert kept.read_text() == edited
    assert "another way" in target.with_name("helper.md.skilltool-edited.1").read_text()
    assert not target.exists()


def test_dry_run_shows_the_edit_and_writes_nothing(home: Path, tmp_path: Path) -> None:
    env, target, edited = _edited_home(home, tmp_path)
    result = run("plugins", "install", "--only", "claude", "--force", "--dry-run", env=env)
    assert result.code == 0
    assert any(line.startswith("dry-run: rewrote") for line in result.lines)
    assert "-You help, my way." in result.lines
    assert target.read_text() == edited
    assert not target.with_name("helper.md.skilltool-edited").exists()


def _skills_home(tmp_path: Path) -> dict[str, str]:
    build_file_tree(tmp_path / "plugins/docs/skills/notes", {"SKILL.md": skill_md("notes")})
    return {"SKILLTOOL_PLUGINS": str(tmp_path / "plugins")}


def test_uninstall_removes_the_skills_dir_install_made(home: Path, tmp_path: Path) -> None:
    env = _skills_home(tmp_path)
    assert run("plugins", "install", env=env).code == 0
    assert (home / ".agents/skills/notes").is_symlink()
    record = home / ".local/state/skilltool/made-dirs"
    assert record.read_text().splitlines() == [str(home / ".agents"), str(home / ".agents/skills")]
    result = run("plugins", "uninstall", env=env)
    assert result.code == 0
    assert "removed   ~/.agents/skills (an empty directory skilltool made)" in result.lines
    assert not (home / ".agents").exists()
    assert record.read_text() == ""


def test_uninstall_dry_run_names_the_directories_it_would_remove(
    home: Path, tmp_path: Path
) -> None:
    env = _skills_home(tmp_path)
    run("plugins", "install", env=env)
    result = run("plugins", "uninstall", "--dry-run", env=env)
    assert result.code == 0
    assert "dry-run: removed   ~/.agents/skills (an empty directory skilltool made)" in result.lines
    assert "dry-run: removed   ~/.agents (an empty directory skilltool made)" in result.lines
    assert (home / ".agents/skills/notes").is_symlink()  # nothing touched
    (home / ".agents/skills/mine").mkdir()  # a folder of the user's: neither would go
    again = run("plugins", "uninstall", "--dry-run", "--json", env=env)
    assert json.loads(again.stdout)["removed_dirs"] == []


def test_a_skills_dir_the_user_made_stays_empty(home: Path, tmp_path: Path) -> None:
    env = _skills_home(tmp_path)
    (home / ".agents/skills").mkdir(parents=True)
    run("plugins", "install", env=env)
    result = run("plugins", "uninstall", env=env)
    assert (home / ".agents/skills").is_dir() and not any((home / ".agents/skills").iterdir())
    assert not any("an empty directory" in line for line in result.lines)


def test_without_the_record_nothing_is_taken_for_made(home: Path, tmp_path: Path) -> None:
    env = _skills_home(tmp_path)
    run("plugins", "install", env=env)
    (home / ".local/state/skilltool/made-dirs").unlink()  # known, not guessed: no record, no rmdir
    run("plugins", "uninstall", env=env)
    assert (home / ".agents/skills").is_dir()


def test_a_made_directory_that_holds_a_users_file_stays(home: Path, tmp_path: Path) -> None:
    env = _skills_home(tmp_path)
    run("plugins", "install", env=env)
    (home / ".agents/skills/mine").mkdir()
    result = run("plugins", "uninstall", env=env)
    assert result.code == 0
    assert (home / ".agents/skills/mine").is_dir()
    assert not (home / ".agents/skills/notes").exists()


def test_a_killed_runs_temporary_files_in_the_state_dir_are_swept(
    home: Path, tmp_path: Path
) -> None:
    import os
    import time

    from skilltool.fs import TEMP_PREFIX

    build_file_tree(tmp_path / "plugins/docs", {"skills/notes/SKILL.md": skill_md("notes")})
    state = home / ".local/state/skilltool"
    old = build_file_tree(state, {f"{TEMP_PREFIX}ledger": "{"}) / f"{TEMP_PREFIX}ledger"
    long_ago = time.time() - 24 * 3600  # a run killed yesterday
    os.utime(old, (long_ago, long_ago))
    fresh = build_file_tree(state, {f"{TEMP_PREFIX}other": "{"}) / f"{TEMP_PREFIX}other"
    result = run("plugins", "install", env={"SKILLTOOL_PLUGINS": str(tmp_path / "plugins")})
    assert result.code == 0, result.stdout + result.stderr
    assert not old.exists()
    # every run that writes there holds the lock the next one takes: none is being written
    assert not fresh.exists()
