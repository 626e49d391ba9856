"""`plugins new`: a plugin folder that validates with no problem and installs, never
written over; names checked as every name is."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.helpers import run


def plugins_dir(home: Path) -> Path:
    return home / ".local/share/skilltool/plugins"


def test_a_new_plugin_validates_without_a_problem_and_installs(home: Path) -> None:
    made = run("plugins", "new", "my-tools", "--skill", "release-notes", "--agent", "helper")
    assert made.code == 0, made.stderr
    folder = plugins_dir(home) / "my-tools"
    assert made.lines[:3] == [
        "wrote     ~/.local/share/skilltool/plugins/my-tools/.claude-plugin/plugin.json",
        "wrote     ~/.local/share/skilltool/plugins/my-tools/skills/release-notes/SKILL.md",
        "wrote     ~/.local/share/skilltool/plugins/my-tools/agents/helper.md",
    ]
    assert made.lines[3].startswith("next      ")
    manifest = json.loads((folder / ".claude-plugin/plugin.json").read_text())
    assert manifest["name"] == "my-tools"
    assert set(manifest) == {"name", "version", "description"}
    skill = (folder / "skills/release-notes/SKILL.md").read_text()
    assert skill.startswith("---\nname: release-notes\ndescription: ")
    assert (folder / "agents/helper.md").read_text().startswith("---\nname: helper\n")
    assert oct(os.stat(folder / "agents/helper.md").st_mode & 0o777) == "0o644"

    checked = run("plugins", "validate", "--strict", folder)
    assert checked.code == 0, checked.stdout + checked.stderr
    assert checked.lines == [  # Amp takes no agent: said once, not a problem of the plugin's
        "agents: Amp takes none: Amp 0.0.1790142911-g7618fb reads no agent files: none of its "
        "listings shows one (its subagents are its own); skilltool writes none",
        "checked 1 plugin(s), 1 valid skill(s), 1 valid agent(s): 0 error(s), 0 warning(s)",
    ]
    assert run("plugins", "install").code == 0
    link = home / ".agents/skills/release-notes"
    assert os.readlink(link) == str(folder / "skills/release-notes")


def test_an_existing_folder_is_never_written_over(home: Path) -> None:
    folder = plugins_dir(home) / "mine"
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("mine\n")
    again = run("plugins", "new", "mine")
    assert again.code == 1
    assert (
        again.stderr
        == f"skilltool: {folder} exists; nothing was written (--skill or --agent adds to a plugin)\n"
    )
    # a folder that holds no plugin is not added to either
    more = run("plugins", "new", "mine", "--skill", "one")
    assert more.code == 1
    assert "holds no plugin" in more.stderr
    assert sorted(os.listdir(folder)) == ["notes.txt"]


def test_skill_and_agent_add_to_a_plugin_of_that_name_and_keep_what_is_there(home: Path) -> None:
    assert run("plugins", "new", "kit", "--skill", "first").code == 0
    folder = plugins_dir(home) / "kit"
    edited = (folder / ".claude-plugin/plugin.json").read_text().replace("0.1.0", "2.0.0")
    (folder / ".claude-plugin/plugin.json").write_text(edited)
    (folder / "skills/first/SKILL.md").write_text(
        "---\nname: first\ndescription: Mine. Use when asked.\n---\nmine\n"
    )
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}

    grown = run("plugins", "new", "kit", "--skill", "second", "--agent", "aide")
    assert grown.code == 0, grown.stderr
    assert [ln.split()[0] for ln in grown.lines] == ["wrote", "wrote", "next"]
    assert all(p.read_bytes() == data for p, data in before.items())
    assert (folder / "skills/second/SKILL.md").is_file() and (folder / "agents/aide.md").is_file()

    # one name there already: nothing at all is written
    clash = run("plugins", "new", "kit", "--skill", "third", "--skill", "first")
    assert clash.code == 1
    assert clash.stderr == f"skilltool: {folder / 'skills/first'} exists; nothing was written\n"
    assert not (folder / "skills/third").exists()
    assert run("plugins", "validate", folder).code == 0


def test_a_plugin_of_another_name_is_not_added_to(home: Path) -> None:
    folder = plugins_dir(home) / "kit"
    (folder / ".claude-plugin").mkdir(parents=True)
    (folder / ".claude-plugin/plugin.json").write_text('{"name": "other"}\n')
    done = run("plugins", "new", "kit", "--agent", "aide")
    assert done.code == 1
    assert (
        done.stderr
        == f"skilltool: {folder} exists and holds the plugin 'other'; nothing was written\n"
    )
    assert not (folder / "agents").exists()


def test_names_that_break_the_rules_are_usage_errors(home: Path) -> None:
    for args in (["My_Tools"], ["ok", "--skill", "Bad Name"], ["ok", "--agent", "../up"]):
        done = run("plugins", "new", *args)
        assert done.code == 2, args
        assert done.stderr.startswith("skilltool: ") and done.stderr.count("\n") == 1
        assert "cannot name" in done.stderr
    assert not plugins_dir(home).exists()


def test_dir_makes_it_elsewhere_and_says_how_to_add_it(home: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    done = run("plugins", "new", "team", "--dir", work, "--skill", "style")
    assert done.code == 0, done.stderr
    assert done.scope is None  # not the home's plugins folder
    assert (work / "team/skills/style/SKILL.md").is_file()
    assert done.lines[-1].endswith(f"skilltool plugins add {work / 'team'}")
    assert not (home / ".local/share/skilltool/plugins").exists()
    assert not [n for n in os.listdir(work) if n != "team"]  # no staging left
    missing = run("plugins", "new", "team", "--dir", tmp_path / "nowhere")
    assert missing.code == 2


def test_dry_run_and_json_write_nothing(home: Path) -> None:
    done = run("plugins", "new", "kit", "--skill", "one", "--dry-run", "--json")
    assert done.code == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["command"] == "new" and data["dry_run"] is True
    assert data["wrote"] == [
        str(plugins_dir(home) / "kit/.claude-plugin/plugin.json"),
        str(plugins_dir(home) / "kit/skills/one/SKILL.md"),
    ]
    assert not plugins_dir(home).exists()
    failed = run("plugins", "new", "Bad", "--json")
    assert failed.code == 2
    assert json.loads(failed.stdout)["error"]["exit_code"] == 2
