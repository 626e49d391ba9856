"""Skill links (SPEC §5 "Links"): what install and uninstall do at `<skills dir>/<skill>`.

Every test uses real symlinks under a temporary home and runs the real CLI.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from tests.helpers import REPO, Result, build_file_tree, plugin_tree, run, skill_md

Entry = tuple[object, ...]


def tree(root: Path, *, skip: tuple[Path, ...] = (), mtimes: bool = False) -> dict[str, Entry]:
    """Every path under `root` with its type and its link target, or its bytes and mode."""
    found: dict[str, Entry] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if Path(dirpath, d) not in skip]
        for name in sorted(dirnames + filenames):
            path = Path(dirpath, name)
            info = os.lstat(path)
            when = (info.st_mtime_ns, info.st_ino) if mtimes else ()
            if stat.S_ISLNK(info.st_mode):
                found[str(path)] = ("link", os.readlink(path), *when)
            elif stat.S_ISDIR(info.st_mode):
                found[str(path)] = ("dir", stat.S_IMODE(info.st_mode), *when)
            else:
                found[str(path)] = ("file", path.read_bytes(), stat.S_IMODE(info.st_mode), *when)
    return found


def home_tree(home: Path, **kwargs: bool) -> dict[str, Entry]:
    """The home as a person sees it; skilltool's lock (state dir) and parse cache are not counted."""
    state, cache = home / ".local/state", home / ".cache"
    found = tree(home, skip=(state, cache), **kwargs)
    own = {str(state), str(state.parent), str(cache)}
    return {k: v for k, v in found.items() if k not in own}


def lines_for(result: Result, skill: str) -> list[str]:
    """The lines about one skill's link (other plugins on the path may add their own)."""
    return [
        line
        for line in result.lines
        if f" skill {skill} " in f"{line} " or f"/skills/{skill}:" in line
    ]


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory of plugins that is the whole search path (SKILLTOOL_PLUGINS)."""
    root = tmp_path / "plugins"
    root.mkdir()
    monkeypatch.setenv("SKILLTOOL_PLUGINS", str(root))
    return root


def verbose(result: Result) -> Result:
    """Every line decided, the unchanged ones included, without the summary line."""
    return Result(result.code, "".join(f"{line}\n" for line in result.decided), result.stderr)


def install(home: Path, *args: str | Path) -> Result:
    return verbose(run("plugins", "install", "--home", home, "-v", *args))


def uninstall(home: Path, *args: str | Path) -> Result:
    return verbose(run("plugins", "uninstall", "--home", home, "-v", *args))


# what uninstall says last when install made the skills dir and nothing else is left in it
EMPTIED = [
    "removed   ~/.agents/skills (an empty directory skilltool made)",
    "removed   ~/.agents (an empty directory skilltool made)",
]


# --- nothing there ---------------------------------------------------------------------------


def test_nothing_there_links_each_skill_to_its_directory(home: Path, plugins: Path) -> None:
    plugin_tree(plugins, "docs", skills=("pdf-tools", "docx"))
    result = install(home)
    assert result.code == 0, result.stderr
    assert result.lines == [
        f"linked    skill docx -> {plugins}/docs/skills/docx",
        f"linked    skill pdf-tools -> {plugins}/docs/skills/pdf-tools",
    ]
    link = home / ".agents/skills/pdf-tools"
    assert link.is_symlink()
    assert os.readlink(link) == str(plugins / "docs/skills/pdf-tools")
    assert (link / "SKILL.md").read_text(encoding="utf-8") == skill_md("pdf-tools")


def test_link_points_at_the_search_path_so_an_upgrade_reaches_it(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugin_tree(tmp_path / "v1", "docs", skills=("pdf-tools",))
    build_file_tree(
        tmp_path / "v2/docs", {"skills/pdf-tools/SKILL.md": skill_md("pdf-tools", "v2")}
    )
    current = tmp_path / "current"
    current.symlink_to(tmp_path / "v1")
    monkeypatch.setenv("SKILLTOOL_PLUGINS", str(current))
    assert install(home).code == 0
    link = home / ".agents/skills/pdf-tools"
    assert os.readlink(link) == str(current / "docs/skills/pdf-tools")  # not resolved to v1

    current.unlink()
    current.symlink_to(tmp_path / "v2")  # the package upgrade
    assert install(home).lines == ["unchanged skill pdf-tools"]
    assert "description: v2" in (link / "SKILL.md").read_text(encoding="utf-8")


# --- our link to the same skill --------------------------------------------------------------


def test_our_link_to_the_same_skill_is_unchanged_and_not_rewritten(
    home: Path, plugins: Path
) -> None:
    plugin_tree(plugins, "docs", skills=("pdf-tools",))
    assert install(home).code == 0
    link = home / ".agents/skills/pdf-tools"
    before = os.lstat(link)
    result = install(home)
    assert result.code == 0
    assert result.lines == ["unchanged skill pdf-tools"]
    after = os.lstat(link)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_second_install_writes_nothing(home: Path, tmp_path: Path) -> None:
    plugin_tree(home / ".local/share/skilltool/plugins", "docs", skills=("pdf-tools", "docx"))
    plugin_tree(tmp_path / "system/skilltool/plugins", "tools", skills=("grep",))
    first = install(home)
    assert first.code == 0, first.stderr
    assert any(line.startswith("linked    skill grep -> ") for line in first.lines)
    # the lock too: it is reused, not rewritten; skilltool's caches aside, which the first
    # no-op after a change fills with the stamps that were too young to keep before
    caches = (home / ".cache",)
    before = tree(home, skip=caches, mtimes=True)
    second = install(home)
    assert second.code == 0
    assert [line for line in second.lines if "skill" in line] == [
        f"unchanged skill {name}" for name in sorted(os.listdir(home / ".agents/skills"))
    ]
    assert tree(home, skip=caches, mtimes=True) == before


# --- our link to another or vanished target ----------------------------------------------------


def test_link_into_a_removed_plugin_is_relinked_to_the_next_one(home: Path, plugins: Path) -> None:
    plugin_tree(plugins, "a-docs", skills=("pdf-tools",))
    plugin_tree(plugins, "b-docs", skills=("pdf-tools",))
    assert install(home).code == 0
    link = home / ".agents/skills/pdf-tools"
    assert os.readlink(link) == str(plugins / "a-docs/skills/pdf-tools")

    shutil.rmtree(plugins / "a-docs")  # removed; its directory of plugins is still searched
    result = install(home)
    assert result.code == 0
    assert result.lines == [f"relinked  skill pdf-tools -> {plugins}/b-docs/skills/pdf-tools"]
    assert os.readlink(link) == str(plugins / "b-docs/skills/pdf-tools")


def test_link_into_a_removed_plugin_is_pruned_by_install(home: Path, plugins: Path) -> None:
    plugin_tree(plugins, "docs", skills=("pdf-tools",))
    plugin_tree(plugins, "other", skills=("grep",))
    assert install(home).code == 0
    shutil.rmtree(plugins / "docs")
    result = install(home)
    assert result.code == 0
    gone = plugins / "docs/skills/pdf-tools"
    assert lines_for(result, "pdf-tools") == [
        f"unlinked  skill pdf-tools (its skill {gone} is gone)"
    ]
    assert not os.path.lexists(home / ".agents/skills/pdf-tools")
    assert (home / ".agents/skills/grep").is_symlink()


def test_link_into_a_removed_plugin_is_removed_by_uninstall(home: Path, plugins: Path) -> None:
    plugin_tree(plugins, "docs", skills=("pdf-tools",))
    assert install(home).code == 0
    shutil.rmtree(plugins / "docs")
    result = uninstall(home)
    assert result.code == 0
    assert result.lines == [
        f"unlinked  skill pdf-tools (its skill {plugins}/docs/skills/pdf-tools is gone)",
        *EMPTIED,
    ]
    assert not os.path.lexists(home / ".agents")


def test_skill_shadowed_by_a_new_user_plugin_is_relinked(home: Path, tmp_path: Path) -> None:
    system = tmp_path / "system/skilltool/plugins"
    user = home / ".local/share/skilltool/plugins"
    plugin_tree(system, "docs", skills=("pdf-tools",))
    assert install(home).code == 0
    link = home / ".agents/skills/pdf-tools"
    assert os.readlink(link) == str(system / "docs/skills/pdf-tools")

    plugin_tree(user, "docs", skills=("pdf-tools",))  # the user's own copy shadows it
    result = install(home)
    assert result.code == 0
    assert lines_for(result, "pdf-tools") == [
        "relinked  skill pdf-tools -> ~/.local/share/skilltool/plugins/docs/skills/pdf-tools"
    ]
    assert os.readlink(link) == str(user / "docs/skills/pdf-tools")


def test_link_to_a_shadowed_skill_is_removed_by_uninstall(home: Path, tmp_path: Path) -> None:
    system = tmp_path / "system/skilltool/plugins"
    plugin_tree(system, "docs", skills=("pdf-tools",))
    assert install(home).code == 0
    plugin_tree(home / ".local/share/skilltool/plugins", "docs", skills=("pdf-tools",))
    result = uninstall(home)
    assert result.code == 0
    assert lines_for(result, "pdf-tools") == [
        f"unlinked  skill pdf-tools (it points to {system}/docs/skills/pdf-tools)"
    ]
    assert not os.path.lexists(home / ".agents/skills/pdf-tools")


def test_link_into_a_moved_plugin_follows_it(home: Path, tmp_path: Path) -> None:
    system = tmp_path / "system/skilltool/plugins"
    user = home / ".local/share/skilltool/plugins"
    plugin_tree(system, "docs", skills=("pdf-tools",))
    assert install(home).code == 0
    user.mkdir(parents=True)
    (system / "docs").rename(user / "docs")
    result = install(home)
    assert result.code == 0
    assert lines_for(result, "pdf-tools") == [
        "relinked  skill pdf-tools -> ~/.local/share/skilltool/plugins/docs/skills/pdf-tools"
    ]
    assert os.readlink(home / ".agents/skills/pdf-tools") == str(user / "docs/skills/pdf-tools")


# --- anything else is left alone -----------------------------------------------------------------


def _foreign(kind: str, tmp_path: Path, plugins: Path) -> tuple[dict[str, str | bytes | Path], str]:
    """What sits at ~/.agents/skills/pdf-tools, and the reason the `left` line gives."""
    elsewhere = tmp_path / "elsewhere"
    build_file_tree(elsewhere, {"pdf-tools/SKILL.md": skill_md("pdf-tools", "mine")})
    plugin_tree(tmp_path / "old-plugins", "docs", skills=("pdf-tools",))
    at = ".agents/skills/pdf-tools"
    cases: dict[str, tuple[dict[str, str | bytes | Path], str]] = {
        "directory": ({f"{at}/SKILL.md": skill_md("pdf-tools", "hand-made")}, "a directory"),
        "file": ({at: b"not a skill\n"}, "a file"),
        "link-elsewhere": ({at: elsewhere / "pdf-tools"}, f"a link to {elsewhere}/pdf-tools"),
        "dangling-link": ({at: elsewhere / "gone"}, f"a link to {elsewhere}/gone"),
        "link-to-a-file": ({at: elsewhere / "pdf-tools/SKILL.md"}, "a link to"),
        "link-into-a-root-off-the-path": (
            {at: tmp_path / "old-plugins/docs/skills/pdf-tools"},
            f"a link to {tmp_path}/old-plugins/docs/skills/pdf-tools",
        ),
        "link-to-another-skill-of-the-plugin": (
            {at: plugins / "docs/skills/docx"},
            f"a link to {plugins}/docs/skills/docx",
        ),
        "relative-link-elsewhere": ({at: Path("../../../elsewhere/pdf-tools")}, "a link to"),
    }
    return cases[kind]


FOREIGN = [
    "directory",
    "file",
    "link-elsewhere",
    "dangling-link",
    "link-to-a-file",
    "link-into-a-root-off-the-path",
    "link-to-another-skill-of-the-plugin",
    "relative-link-elsewhere",
]


@pytest.mark.parametrize("kind", FOREIGN)
def test_anything_else_is_left_alone_by_install_and_uninstall(
    home: Path, tmp_path: Path, plugins: Path, kind: str
) -> None:
    plugin_tree(plugins, "docs", skills=("pdf-tools", "docx"))
    spec, reason = _foreign(kind, tmp_path, plugins)
    build_file_tree(home, spec)
    found = home / ".agents/skills/pdf-tools"
    before = tree(home / ".agents/skills")

    for command in (install, uninstall):
        result = command(home)
        assert result.code == 0, result.stderr
        [line] = lines_for(result, "pdf-tools")
        assert line.startswith(f"left      ~/.agents/skills/pdf-tools: {reason}")
        assert line.endswith(("to link this skill", "the plugin's skill of that name"))
        after = tree(home / ".agents/skills")
        after.pop(str(home / ".agents/skills/docx"), None)
        assert after == before, command.__name__
        assert os.path.lexists(found)


def test_left_alone_things_survive_byte_for_byte(home: Path, tmp_path: Path, plugins: Path) -> None:
    plugin_tree(plugins, "docs", skills=("pdf-tools", "notes", "grep", "old"))
    plugin_tree(tmp_path / "old-plugins", "docs", skills=("old",))
    build_file_tree(
        home / ".agents/skills",
        {
            "pdf-tools/SKILL.md": "hand-made\r\n",
            "pdf-tools/scripts/run.sh": b"#!/bin/sh\nexit 0\n",
            "notes": b"\x00\x01binary",
            "grep": tmp_path / "elsewhere/grep",
            "old": tmp_path / "old-plugins/docs/skills/old",
        },
    )
    (home / ".agents/skills/pdf-tools/scripts/run.sh").chmod(0o755)
    before = home_tree(home, mtimes=True)
    assert install(home).code == 0
    assert home_tree(home, mtimes=True) == before
    assert uninstall(home).code == 0
    assert home_tree(home, mtimes=True) == before


def test_uninstall_says_nothing_about_skills_that_were_never_linked(
    home: Path, plugins: Path
) -> None:
    plugin_tree(plugins, "docs", skills=("pdf-tools",))
    result = uninstall(home)
    assert result.code == 0
    assert result.lines == []


def test_uninstall_removes_only_our_links(home: Path, tmp_path: Path, plugins: Path) -> None:
    plugin_tree(plugins, "docs", skills=("pdf-tools", "docx"))
    assert install(home).code == 0
    skills = home / ".agents/skills"
    build_file_tree(
        tmp_path,
        {
            "elsewhere/notes/SKILL.md": skill_md("notes"),
            # links a person made by hand, next to ours
            "home/.agents/skills/notes": tmp_path / "elsewhere/notes",
            "home/.agents/skills/my-pdf": plugins / "docs/skills/pdf-tools",
            "home/.agents/skills/gone": tmp_path / "nowhere/skills/gone",
            "home/.agents/skills/own/SKILL.md": skill_md("own"),
        },
    )
    before = home_tree(home)
    result = uninstall(home)
    assert result.code == 0
    assert result.lines == ["unlinked  skill docx", "unlinked  skill pdf-tools"]
    after = home_tree(home)
    assert set(before) - set(after) == {str(skills / "docx"), str(skills / "pdf-tools")}
    assert {k: v for k, v in before.items() if k in after} == after
    assert (plugins / "docs/skills/pdf-tools/SKILL.md").is_file()  # never the target itself


# --- --dry-run, --json, --dir ----------------------------------------------------------------


def _mixed_home(home: Path, tmp_path: Path, plugins: Path) -> None:
    """One skill of each state: missing, current, stale, foreign."""
    plugin_tree(plugins, "docs", skills=("current", "foreign", "missing", "stale"))
    plugin_tree(plugins, "zz-old", skills=("stale",))
    build_file_tree(
        home / ".agents/skills",
        {
            "current": plugins / "docs/skills/current",
            "stale": plugins / "zz-old/skills/stale",
            "foreign/SKILL.md": "mine\n",
            "pruned": plugins / "removed/skills/pruned",
        },
    )


@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_dry_run_touches_nothing_and_says_what_a_real_run_does(
    home: Path, tmp_path: Path, plugins: Path, command: str
) -> None:
    _mixed_home(home, tmp_path, plugins)
    before = tree(tmp_path, mtimes=True)
    dry = run("plugins", command, "--home", home, "--dry-run")
    assert dry.code == 0, dry.stderr
    assert tree(tmp_path, mtimes=True) == before
    real = run("plugins", command, "--home", home)
    assert real.code == 0
    assert dry.lines == [f"dry-run: {line}" for line in real.lines]
    removed = [line for line in real.lines if line.startswith("unlinked")]
    assert len(removed) == (1 if command == "install" else 3)


def test_dry_run_install_lines(home: Path, tmp_path: Path, plugins: Path) -> None:
    _mixed_home(home, tmp_path, plugins)
    result = install(home, "--dry-run")
    docs = plugins / "docs/skills"
    assert result.lines == [
        "dry-run: unchanged skill current",
        "dry-run: left      ~/.agents/skills/foreign: a directory, not a link made by skilltool: "
        "a skill installed by hand or by another tool; keep it, or remove it to link the "
        "plugin's skill of that name",
        f"dry-run: linked    skill missing -> {docs}/missing",
        f"dry-run: relinked  skill stale -> {docs}/stale",
        f"dry-run: unlinked  skill pruned (its skill {plugins}/removed/skills/pruned is gone)",
    ]


def test_json_gives_the_actions_as_data(home: Path, tmp_path: Path, plugins: Path) -> None:
    _mixed_home(home, tmp_path, plugins)
    result = run("plugins", "install", "--home", home, "--json")
    assert result.code == 0
    data = json.loads(result.stdout)
    assert (data["schema"], data["command"], data["dry_run"]) == (1, "install", False)
    # the second plugin's skill 'stale' is not linked, which is worth a warning only
    assert [(p["path"], p["severity"]) for p in data["problems"]] == [
        (f"{plugins}/zz-old/skills/stale", "warning")
    ]
    skills = home / ".agents/skills"
    docs = plugins / "docs/skills"
    got = [
        (a["kind"], a["owner"], a["name"], a["target"], a["state"], a["change"], a["source"])
        for a in data["actions"]
    ]
    assert got == [
        ("link", "skill", "current", f"{skills}/current", "current", "none", f"{docs}/current"),
        ("link", "skill", "foreign", f"{skills}/foreign", "foreign", "none", f"{docs}/foreign"),
        ("link", "skill", "missing", f"{skills}/missing", "missing", "create", f"{docs}/missing"),
        ("link", "skill", "stale", f"{skills}/stale", "stale", "replace", f"{docs}/stale"),
        (
            "link",
            "skill",
            "pruned",
            f"{skills}/pruned",
            "stale",
            "remove",
            f"{plugins}/removed/skills/pruned",
        ),
    ]
    assert all(a["done"] is True and a["error"] is None for a in data["actions"])
    assert data["actions"][3]["line"] == f"relinked  skill stale -> {docs}/stale"
    # --json turns the human lines off
    assert not any(line.startswith(("linked", "relinked")) for line in result.lines)
    assert os.readlink(skills / "missing") == f"{docs}/missing"


def test_json_dry_run_says_so_and_writes_nothing(home: Path, tmp_path: Path, plugins: Path) -> None:
    _mixed_home(home, tmp_path, plugins)
    before = tree(tmp_path)
    data = json.loads(run("plugins", "install", "--home", home, "--json", "--dry-run").stdout)
    assert data["dry_run"] is True
    assert [a["change"] for a in data["actions"]] == ["none", "none", "create", "replace", "remove"]
    assert tree(tmp_path) == before


def test_dir_links_into_another_skills_dir(home: Path, tmp_path: Path, plugins: Path) -> None:
    plugin_tree(plugins, "docs", skills=("pdf-tools",))
    other = tmp_path / "claude-skills"
    other.mkdir()
    result = install(home, "--dir", other)
    assert result.code == 0
    assert result.lines == [f"linked    skill pdf-tools -> {plugins}/docs/skills/pdf-tools"]
    assert os.readlink(other / "pdf-tools") == str(plugins / "docs/skills/pdf-tools")
    assert not (home / ".agents").exists()
    assert install(home, "--dir", other).lines == ["unchanged skill pdf-tools"]
    assert uninstall(home, "--dir", other).lines == ["unlinked  skill pdf-tools"]
    assert os.listdir(other) == []


def test_a_dir_that_does_not_exist_is_a_usage_error_and_nothing_is_touched(
    home: Path, tmp_path: Path, plugins: Path
) -> None:
    plugin_tree(plugins, "docs", skills=("pdf-tools",))
    before = home_tree(home)
    result = run("plugins", "install", "--home", home, "--dir", tmp_path / "typo")
    assert result.code == 2
    assert result.stderr.strip() == (
        f"skilltool: {tmp_path}/typo does not exist; check --dir, or create it first"
    )
    assert not (tmp_path / "typo").exists()
    assert home_tree(home) == before


def test_skills_dir_that_is_a_link_to_another_directory(
    home: Path, tmp_path: Path, plugins: Path
) -> None:
    plugin_tree(plugins, "docs", skills=("pdf-tools",))
    real = tmp_path / "dotfiles/skills"
    real.mkdir(parents=True)
    (home / ".agents").mkdir()
    (home / ".agents/skills").symlink_to(real)

    assert install(home).code == 0
    assert os.readlink(real / "pdf-tools") == str(plugins / "docs/skills/pdf-tools")
    assert os.readlink(home / ".agents/skills") == str(real)
    assert install(home).lines == ["unchanged skill pdf-tools"]
    assert uninstall(home).lines == ["unlinked  skill pdf-tools"]
    assert os.listdir(real) == []
    assert os.readlink(home / ".agents/skills") == str(real)


def test_entry_that_is_a_plugin_itself_is_linked_from(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = plugin_tree(tmp_path, "solo", skills=("pdf-tools",))
    monkeypatch.setenv("SKILLTOOL_PLUGINS", str(root))
    assert install(home).lines == [f"linked    skill pdf-tools -> {root}/skills/pdf-tools"]
    assert install(home).lines == ["unchanged skill pdf-tools"]
    assert uninstall(home).lines == ["unlinked  skill pdf-tools", *EMPTIED]


def test_skills_dir_that_is_a_dangling_link_is_reported_as_such(
    home: Path, tmp_path: Path, plugins: Path
) -> None:
    plugin_tree(plugins, "docs", skills=("pdf-tools",))
    (home / ".agents").mkdir()
    (home / ".agents/skills").symlink_to(tmp_path / "unmounted")
    before = home_tree(home)
    result = install(home)
    assert result.code == 1
    assert home_tree(home) == before
    out = result.stdout + result.stderr
    assert "run again" not in out
    assert "not a directory" in out


# --- two skills of one name -------------------------------------------------------------------


def test_same_skill_in_two_plugins_at_one_level_first_wins_with_a_warning(
    home: Path, plugins: Path
) -> None:
    plugin_tree(plugins, "alpha", skills=("pdf-tools",))
    plugin_tree(plugins, "beta", skills=("pdf-tools",))
    result = install(home)
    assert result.code == 0
    assert result.lines == [f"linked    skill pdf-tools -> {plugins}/alpha/skills/pdf-tools"]
    [warning] = [line for line in result.stderr.splitlines() if line.startswith("warning   ")]
    assert str(plugins / "beta/skills/pdf-tools") in warning
    assert "'alpha'" in warning

    status = json.loads(run("plugins", "status", "--json", "--home", home).stdout)
    links = {(p["name"], s["name"]): s["link"] for p in status["plugins"] for s in p["skills"]}
    assert links == {("alpha", "pdf-tools"): "linked", ("beta", "pdf-tools"): "not linked"}


def test_link_into_an_older_installed_skilltool_is_ours_and_replaced(
    home: Path, tmp_path: Path
) -> None:
    old = (
        tmp_path
        / "old-venv/lib/python3.11/site-packages/skilltool/resources/plugins/skilltool/skills"
    )
    (home / ".agents/skills").mkdir(parents=True)
    (home / ".agents/skills/writing-skills").symlink_to(old / "writing-skills")  # that venv is gone
    (home / ".agents/skills/by-hand").symlink_to(tmp_path / "elsewhere/skills/by-hand")
    result = install(home)
    assert result.code == 0
    assert [line for line in result.lines if "writing-skills" in line] == [
        f"relinked  skill writing-skills -> {REPO}/resources/plugins/skilltool/skills/writing-skills"
    ]
    assert os.readlink(home / ".agents/skills/by-hand") == str(
        tmp_path / "elsewhere/skills/by-hand"
    )


# --- skills that live elsewhere than <plugin>/skills ---------------------------------------------


def _collection(root: Path) -> Path:
    return build_file_tree(
        root,
        {
            "pdf-tools/SKILL.md": skill_md("pdf-tools"),
            "writing/copy-edit/SKILL.md": skill_md("copy-edit"),
            "README.md": "# my skills\n",
        },
    )


def test_collection_skills_are_linked_pruned_and_unlinked(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _collection(tmp_path / "my-skills")
    monkeypatch.setenv("SKILLTOOL_PLUGINS", str(root))
    assert install(home).lines == [
        f"linked    skill copy-edit -> {root}/writing/copy-edit",
        f"linked    skill pdf-tools -> {root}/pdf-tools",
    ]
    shutil.rmtree(root / "writing")
    assert install(home).lines == [
        "unchanged skill pdf-tools",
        f"unlinked  skill copy-edit (its skill {root}/writing/copy-edit is gone)",
    ]
    assert uninstall(home).lines == ["unlinked  skill pdf-tools", *EMPTIED]
    assert not os.path.lexists(home / ".agents")


def test_listed_skill_paths_are_ours_and_a_vanished_one_is_pruned(
    home: Path, plugins: Path
) -> None:
    build_file_tree(
        plugins / "kit",
        {
            ".claude-plugin/plugin.json": '{"name": "kit", "skills": ["./lib/single", "./extra"]}',
            "lib/single/SKILL.md": skill_md("single"),
            "extra/bundled/SKILL.md": skill_md("bundled"),
        },
    )
    assert install(home).code == 0
    assert os.readlink(home / ".agents/skills/single") == str(plugins / "kit/lib/single")
    shutil.rmtree(plugins / "kit/lib")
    result = install(home)
    assert f"unlinked  skill single (its skill {plugins}/kit/lib/single is gone)" in result.lines
    assert uninstall(home).lines == ["unlinked  skill bundled", *EMPTIED]


def test_a_shared_root_marketplace_entry_dropped_from_the_list_is_unlinked(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def market(skills: list[str]) -> str:
        entry = {"name": "docs", "source": "./", "strict": False, "skills": skills}
        return json.dumps({"name": "m", "owner": {"name": "o"}, "plugins": [entry]})

    root = build_file_tree(
        tmp_path / "m",
        {
            ".claude-plugin/marketplace.json": market(["./skills/xlsx", "./skills/docx"]),
            "skills/xlsx/SKILL.md": skill_md("xlsx"),
            "skills/docx/SKILL.md": skill_md("docx"),
        },
    )
    monkeypatch.setenv("SKILLTOOL_PLUGINS", str(root))
    assert install(home).code == 0
    (root / ".claude-plugin/marketplace.json").write_text(market(["./skills/xlsx"]))
    result = install(home)
    assert lines_for(result, "docx") == [
        f"unlinked  skill docx ({root}/skills/docx is no longer used: "
        "invalid, or another skill of that name wins)"
    ]
    assert os.path.islink(home / ".agents/skills/xlsx")


def test_a_search_entry_that_went_missing_removes_nothing(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _collection(tmp_path / "disk/skilltool/plugins")
    monkeypatch.delenv("SKILLTOOL_PLUGINS", raising=False)
    monkeypatch.setenv("XDG_DATA_DIRS", str(tmp_path / "disk"))
    assert install(home).code == 0

    def into_disk() -> dict[str, Entry]:  # the bundled plugin's links come and go as usual
        found = tree(home / ".agents/skills")
        return {k: v for k, v in found.items() if str(tmp_path / "disk") in str(v[1])}

    before = into_disk()
    assert len(before) == 2
    (tmp_path / "disk").rename(tmp_path / "unmounted")  # nothing says its skills are gone
    for command in (install, uninstall):
        result = command(home)
        assert result.code == 0
        # no skill of those names, and links it cannot prove its own
        assert [line for line in result.lines if str(tmp_path) in line] == []
        assert into_disk() == before
    # named on the command line instead, a missing folder stops the run before anything
    monkeypatch.setenv("SKILLTOOL_PLUGINS", f"{tmp_path / 'disk'}")
    assert run("plugins", "install", "--home", home).code == 2
    assert into_disk() == before


def test_a_link_into_a_marketplace_off_the_path_is_left_alone(
    home: Path, tmp_path: Path, plugins: Path
) -> None:
    entry = {"name": "docs", "source": "./", "strict": False, "skills": ["./skills/xlsx"]}
    old = build_file_tree(
        tmp_path / "old-market",
        {
            ".claude-plugin/marketplace.json": json.dumps({"name": "m", "plugins": [entry]}),
            "skills/xlsx/SKILL.md": skill_md("xlsx"),
        },
    )
    plugin_tree(plugins, "docs", skills=("xlsx",))
    build_file_tree(home, {".agents/skills/xlsx": old / "skills/xlsx"})
    for command in (install, uninstall):
        [line] = lines_for(command(home), "xlsx")
        assert line == (
            f"left      ~/.agents/skills/xlsx: a link to {old}/skills/xlsx, "
            "not one made by skilltool; remove it to link this skill"
        )


def test_a_skill_another_tool_installed_is_named_as_such_with_what_to_do(
    home: Path, plugins: Path
) -> None:
    plugin_tree(plugins, "docs", skills=("pdf-tools",))
    build_file_tree(home, {".agents/skills/pdf-tools/SKILL.md": skill_md("pdf-tools")})
    [line] = lines_for(install(home), "pdf-tools")
    assert line == (
        "left      ~/.agents/skills/pdf-tools: a directory, not a link made by skilltool: "
        "a skill installed by hand or by another tool; keep it, or remove it to link the "
        "plugin's skill of that name"
    )
