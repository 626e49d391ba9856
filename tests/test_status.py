"""`plugins status` (SPEC §4): what is found, what shadows what, how each skill is linked."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from skilltool import paths
from skilltool.harnesses import NAMES
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


ABSENT = f"absent    {len(NAMES)} harnesses not set up here: {', '.join(NAMES)}"
BAD_SKILL = (
    "  error   <tmp>/home/.local/share/skilltool/plugins/broken/skills/bad/SKILL.md:3: "
    "description: is empty; write what it is and when to use it"
)
NOTES_LEFT = "a directory, not a link made by skilltool; move it away to link this skill"


def test_status_is_a_line_per_plugin_and_the_absent_harnesses_once(
    lived_in: Path, tmp_path: Path
) -> None:
    result = run("plugins", "status")
    assert result.code == 0, result.stderr
    user = "~/.local/share/skilltool/plugins"
    system = "<tmp>/system/skilltool/plugins"
    assert scrub(result.stdout, tmp_path).splitlines() == [
        "home      ~",
        "skills    ~/.agents/skills",
        f"search    user     {user} (directory of plugins)",
        f"search    system   {system} (directory of plugins)",
        "search    bundled  <repo>/resources/plugins (directory of plugins)",
        ABSENT,
        "plugin    broken (user): 1 skill: 1 to do, 1 problem",
        BAD_SKILL,
        "plugin    docs (user): 2 skills, 1 agent: 1 problem",
        f"  left      ~/.agents/skills/notes: {NOTES_LEFT}",
        f"plugin    docs (system): 2 skills: shadowed by {user}/docs",
        "plugin    skilltool (bundled): 3 skills, 1 agent: 3 to do",
        "next      'skilltool plugins install' would do: 4 linked",
    ]


def test_status_verbose_shows_every_item_but_no_line_per_absent_harness(
    lived_in: Path, tmp_path: Path
) -> None:
    result = run("plugins", "status", "-v")
    assert result.code == 0, result.stderr
    lines = scrub(result.stdout, tmp_path).splitlines()
    user = "~/.local/share/skilltool/plugins"
    system = "<tmp>/system/skilltool/plugins"
    expected = [
        "skills    ~/.agents/skills",
        f"search    user     {user} (directory of plugins)",
        f"search    system   {system} (directory of plugins)",
        "search    bundled  <repo>/resources/plugins (directory of plugins)",
        ABSENT,
        f"plugin    docs (user) {user}/docs: 2 skills, 1 agent: 1 problem",
        "  skill   pdf-tools                linked",
        f"  skill   notes                    left alone: {NOTES_LEFT}",
        f"  agent   helper                   {user}/docs/agents/helper.md",
        f"plugin    docs (system) {system}/docs: 2 skills: shadowed by {user}/docs",
        "  skill   old-skill                shadowed: by <tmp>/home/.local/share/skilltool/plugins/docs",
        "plugin    skilltool (bundled) <repo>/resources/plugins/skilltool: 3 skills, 1 agent: 3 to do",
        "  skill   writing-skills           not linked",
        f"plugin    broken (user) {user}/broken: 1 skill: 1 to do, 1 problem",
        "  skill   good-one                 not linked",
        BAD_SKILL,
    ]
    assert [line for line in expected if line not in lines] == []
    # the broken plugin's invalid skill is not offered, only reported
    assert not any(line.startswith("  skill   bad") for line in lines)
    # each harness not set up is said once, at the top: not under each agent, nor each plugin
    assert not any("harness absent" in line or "does not exist" in line for line in lines)
    assert sum(line.startswith("absent") for line in lines) == 1


def test_a_plugin_named_is_shown_with_its_items_and_no_other(
    lived_in: Path, tmp_path: Path
) -> None:
    result = run("plugins", "status", "broken", "skilltool")
    assert result.code == 0, result.stderr
    lines = scrub(result.stdout, tmp_path).splitlines()
    plugins = [line for line in lines if line.startswith("plugin")]
    assert plugins == [
        "plugin    broken (user) ~/.local/share/skilltool/plugins/broken: 1 skill: 1 to do, 1 problem",
        "plugin    skilltool (bundled) <repo>/resources/plugins/skilltool: 3 skills, 1 agent: 3 to do",
    ]
    assert "  skill   good-one                 not linked" in lines
    assert "  skill   writing-skills           not linked" in lines
    assert not any("pdf-tools" in line for line in lines)
    # a plugin shadowed by one of its name is named with it
    docs = run("plugins", "status", "docs").lines
    assert [line.split(" (")[0] for line in docs if line.startswith("plugin")] == [
        "plugin    docs",
        "plugin    docs",
    ]
    data = json.loads(run("plugins", "status", "docs", "--json").stdout)
    assert [(p["name"], p["origin"]) for p in data["plugins"]] == [
        ("docs", "user"),
        ("docs", "system"),
    ]


def test_a_name_that_is_no_plugin_is_a_usage_error(lived_in: Path) -> None:
    result = run("plugins", "status", "doc")
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == (
        "skilltool: no plugin 'doc' on the search path; did you mean 'docs'? "
        "'skilltool plugins list' lists them\n"
    )
    failed = json.loads(run("plugins", "status", "nosuch", "--json").stdout)
    assert failed["error"]["exit_code"] == 2


def test_status_quiet_says_only_what_needs_the_user(lived_in: Path, tmp_path: Path) -> None:
    result = run("plugins", "status", "-q")
    assert result.code == 0, result.stderr
    assert scrub(result.stdout, tmp_path).splitlines() == [
        "home      ~",
        "plugin    broken (user): 1 skill: 1 to do, 1 problem",
        BAD_SKILL,
        "plugin    docs (user): 2 skills, 1 agent: 1 problem",
        f"  left      ~/.agents/skills/notes: {NOTES_LEFT}",
        "plugin    skilltool (bundled): 3 skills, 1 agent: 3 to do",
        "next      'skilltool plugins install' would do: 4 linked",
    ]


def test_status_quiet_says_nothing_when_all_is_current(home: Path, tmp_path: Path) -> None:
    (home / ".codex").mkdir()
    root = home / ".local/share/skilltool/plugins"
    plugin_tree(root, "docs", skills=("pdf-tools", "notes"), agents=("helper",))
    assert run("plugins", "install").code == 0
    quiet = run("plugins", "status", "-q")
    assert (quiet.code, quiet.stdout, quiet.stderr) == (0, "", "")
    said = run("plugins", "status").lines
    assert "plugin    docs (user): 2 skills, 1 agent: all current" in said
    assert said[-1] == "next      nothing to install: every skill and rendering is current"
    # a rendering edited by hand is left by install: it needs the user
    (home / ".codex/skilltool/helper.md").write_text("mine now\n")
    edited = run("plugins", "status", "-q").lines
    assert edited[0] == "plugin    docs (user): 2 skills, 1 agent: 1 problem"
    assert edited[1].startswith("  left      ~/.codex/skilltool/helper.md: ")
    assert len(edited) == 2


def test_status_of_many_plugins_is_a_line_each(home: Path, tmp_path: Path) -> None:
    """Forty-two plugins of skills and agents, most harnesses not set up: a line a plugin,
    not a line per skill and per agent and harness."""
    (home / ".claude").mkdir()
    root = tmp_path / "plugins"
    for index in range(42):
        skills = tuple(f"s{index}-{n}" for n in range(5))
        plugin_tree(root, f"p{index:02d}", skills=skills, agents=(f"a{index}",))
    env = {"SKILLTOOL_PLUGINS": str(root)}
    short = run("plugins", "status", env=env)
    assert short.code == 0, short.stderr
    assert len(short.lines) == 1 + 1 + 1 + 42 + 1  # skills, search, absent, plugins, next
    assert short.lines[2] == f"absent    {len(NAMES) - 1} harnesses not set up here: " + ", ".join(
        n for n in NAMES if n != "claude"
    )
    assert short.lines[3] == "plugin    p00 (override): 5 skills, 1 agent: 11 to do"
    verbose = run("plugins", "status", "-v", env=env)
    # each skill, each agent and its Claude Code file; no line for a harness not set up
    assert len(verbose.lines) == len(short.lines) + 42 * (5 + 1 + 1)


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


def test_list_is_a_line_per_plugin_and_its_json_the_same_fields(
    lived_in: Path, tmp_path: Path
) -> None:
    result = run("plugins", "list")
    assert result.code == 0, result.stderr
    assert scrub(result.stdout, tmp_path).splitlines() == [
        "home      ~",
        "plugin    broken (user): 1 skill: 1 to do, 1 problem",
        "plugin    docs (user): 2 skills, 1 agent: 1 problem",
        "plugin    docs (system): 2 skills: shadowed by ~/.local/share/skilltool/plugins/docs",
        "plugin    skilltool (bundled): 3 skills, 1 agent: 3 to do",
    ]
    data = json.loads(run("plugins", "list", "--json").stdout)
    assert (data["command"], data["scope"]) == ("list", "home")
    docs = data["plugins"][1]
    assert docs == {
        "name": "docs",
        "origin": "user",
        "source": "user",
        "kind": "plugin",
        "path": str(lived_in / ".local/share/skilltool/plugins/docs"),
        "skills": 2,
        "agents": 1,
        "commands": 0,
        "mcp_servers": 0,
        "hooks": 0,
        "state": "problems",
        "to_do": 0,
        "problems": 1,
        "shadowed_by": None,
        "off": None,
    }
    states = [(p["name"], p["origin"], p["state"]) for p in data["plugins"]]
    assert states == [
        ("broken", "user", "problems"),
        ("docs", "user", "problems"),
        ("docs", "system", "shadowed"),
        ("skilltool", "bundled", "to do"),
    ]
    assert run("skills", "list").stdout == result.stdout


def test_list_names_the_source_an_added_plugin_came_with(home: Path, tmp_path: Path) -> None:
    mine = plugin_tree(tmp_path / "elsewhere", "tools", skills=("alpha",))
    assert run("plugins", "add", mine, "--name", "kit").code == 0
    said = run("plugins", "list").lines
    assert "plugin    tools (added from kit): 1 skill: all current" in said
    [tools] = [p for p in json.loads(run("plugins", "list", "--json").stdout)["plugins"]
               if p["name"] == "tools"]  # fmt: skip
    assert (tools["origin"], tools["source"], tools["state"]) == ("added", "kit", "current")
    assert (
        "plugin    tools (added from kit): 1 skill: all current" in run("plugins", "status").lines
    )
