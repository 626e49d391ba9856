"""SPEC §5 "Rendered files", row by row, for every harness, through the real CLI."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest

from skilltool.harnesses import NAMES
from tests.helpers import HARNESS_DIRS, agent_md, build_file_tree, run

TARGETS = {
    "opencode": [".config/opencode/agent/helper.md"],
    "hermes": [".hermes/profiles/helper/SOUL.md", ".hermes/profiles/helper/config.yaml"],
    "codex": [".codex/skilltool/helper.md", ".codex/skilltool/helper.json",
              ".codex/helper.config.toml"],
    "pi": [".pi/agent/skilltool/helper.md", ".pi/agent/skilltool/helper"],
    "claude": [".claude/agents/helper.md"],
    "gemini": [".gemini/agents/helper.md"],
    "copilot": [".copilot/agents/helper.agent.md"],
    "kilo": [".config/kilo/agents/helper.md"],
    "qwen": [".qwen/agents/helper.md"],
    "vibe": [".vibe/prompts/helper.md", ".vibe/agents/helper.toml"],
    "kimi": [".kimi-code/agents/helper.md"],
    "droid": [".factory/droids/helper.md"],
    "cline": [".cline/agents/helper.yml"],
    "auggie": [".augment/agents/helper.md"],
    "qoder": [".qoder/agents/helper.md"],
    "openhands": [".openhands/agents/helper.md"],
    "continue": [],  # it takes no agents (docs/harnesses.md)
    "amp": [],  # Amp takes no agents: skipped, naming why
}  # fmt: skip
RENDERS = tuple(name for name in NAMES if TARGETS[name])  # the harnesses that take an agent


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A plugin with one agent, 'helper', on an overriding search path."""
    return build_file_tree(tmp_path / "src/demo", {
        "agents/helper.md": agent_md("helper", "\nYou help with things.\n"),
        "skills/notes/SKILL.md": "---\nname: notes\ndescription: Take notes. Use always.\n---\n",
    })  # fmt: skip


def skilltool(home: Path, source: Path, *args: str) -> tuple[int, list[str]]:
    result = run("plugins", *args, "--home", home, env={"SKILLTOOL_PLUGINS": str(source)})
    assert "Traceback" not in result.stderr
    said = [line for line in result.stderr.splitlines() if "SKILLTOOL_PLUGINS is set" not in line]
    return result.code, result.lines + said


def tree(root: Path) -> dict[str, tuple[str, object, int]]:
    """Every path under root with its type, its content or link target, and its mtime."""
    found: dict[str, tuple[str, object, int]] = {}
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(directory) / name
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                found[str(path.relative_to(root))] = ("link", os.readlink(path), info.st_mtime_ns)
            elif stat.S_ISREG(info.st_mode):
                found[str(path.relative_to(root))] = ("file", path.read_bytes(), info.st_mtime_ns)
            else:
                found[str(path.relative_to(root))] = ("dir", None, 0)
    return found


def setup(home: Path, harness: str) -> list[Path]:
    (home / HARNESS_DIRS[harness]).mkdir(parents=True)
    return [home / t for t in TARGETS[harness]]


@pytest.mark.parametrize("harness", NAMES)
def test_missing_harness_directory_is_skipped_and_nothing_created(home: Path, source: Path,
                                                                  harness: str) -> None:  # fmt: skip
    code, lines = skilltool(home, source, "install", "--only", harness)
    assert code == 0
    assert [line for line in lines if line.startswith("skipped")]
    # only skilltool's own state and cache dirs, nothing of the harness's
    assert {p.name for p in home.iterdir()} <= {".local", ".cache"}


def test_missing_hermes_profile_gives_the_create_hint(home: Path, source: Path) -> None:
    (home / ".hermes").mkdir()
    code, lines = skilltool(home, source, "install", "--only", "hermes")
    assert code == 0
    assert ("skipped   hermes: profile 'helper' does not exist "
            "(create it: hermes profile create helper)") in lines  # fmt: skip
    assert list((home / ".hermes").iterdir()) == []


def test_agents_without_a_hermes_profile_are_one_line(home: Path, source: Path) -> None:
    """Agents whose Hermes profiles are missing: one line names them all, not a line each
    (a single one keeps its own line, above); an agent whose profile exists is rendered."""
    for name in ("writer", "tester"):
        (source / "agents" / f"{name}.md").write_text(agent_md(name))
    (home / ".hermes/profiles/tester").mkdir(parents=True)
    code, lines = skilltool(home, source, "install", "--only", "hermes")
    assert code == 0
    said = [line for line in lines if line.startswith("skipped   hermes:")]
    assert said == [
        "skipped   hermes: 2 agents: profile '<name>' does not exist "
        "(create it: hermes profile create <name>): helper, writer"
    ], lines
    assert (home / ".hermes/profiles/tester/SOUL.md").is_file()


@pytest.mark.parametrize("harness", RENDERS)
def test_write_then_second_install_writes_nothing(home: Path, source: Path, harness: str) -> None:
    targets = setup(home, harness)
    code, lines = skilltool(home, source, "install", "--only", harness)
    assert code == 0
    for target in targets:
        assert target.is_file()
        expected = 0o755 if harness == "pi" and target.suffix == "" else 0o644
        assert stat.S_IMODE(target.stat().st_mode) == expected
        assert any(line.startswith("wrote") and line.endswith(str(target.relative_to(home)))
                   for line in lines)  # fmt: skip
    # skilltool's caches aside: the first no-op after a change records what was too young before
    before = {k: v for k, v in tree(home).items() if not k.startswith(".cache/")}
    code, lines = skilltool(home, source, "install", "--only", harness)
    assert code == 0
    assert len(lines) == 1 and re.fullmatch(r"\d+ unchanged", lines[0]), lines  # only the summary
    assert {k: v for k, v in tree(home).items() if not k.startswith(".cache/")} == before


def test_continue_takes_no_agent_and_says_so_in_one_line_each_run(home: Path, source: Path) -> None:
    setup(home, "continue")
    for _ in range(2):
        code, lines = skilltool(home, source, "install", "--only", "continue")
        assert code == 0
        assert [line for line in lines if line.startswith("skipped")] == [
            "skipped   continue: Continue CLI 1.5.47 takes a subagent only as a model of "
            "config.yaml, offered behind --beta-subagent-tool, which skilltool does not write"
        ]
    # its skill is a copy (Continue CLI passes over a link), and the only file it has
    assert sorted(tree(home / ".continue")) == [
        "skills", "skills/notes", "skills/notes/.skilltool-copy", "skills/notes/SKILL.md"
    ]  # fmt: skip


@pytest.mark.parametrize("harness", RENDERS)
def test_outdated_rendering_is_rewritten(home: Path, source: Path, harness: str) -> None:
    targets = setup(home, harness)
    skilltool(home, source, "install", "--only", harness)
    (source / "agents/helper.md").write_text(agent_md("helper", "\nNew instructions.\n"))
    code, lines = skilltool(home, source, "install", "--only", harness)
    assert code == 0
    # Hermes's config.yaml and Vibe's agent TOML name the prompt file; they do not hold it
    prompt_files = [t for t in targets if not t.name.startswith("config")
                    and not t.match(".vibe/agents/*.toml")]  # fmt: skip
    for target in prompt_files:
        if target.suffix in (".md", ".json", ".toml"):
            assert "New instructions." in target.read_text()
    assert any(line.startswith("rewrote") for line in lines)


@pytest.mark.parametrize("harness", RENDERS)
def test_hand_edited_rendering_is_left_unless_forced(
    home: Path, source: Path, harness: str
) -> None:
    targets = setup(home, harness)
    skilltool(home, source, "install", "--only", harness)
    (source / "agents/helper.md").write_text(agent_md("helper", "\nNew instructions.\n"))
    edited = targets[0]
    edited.write_bytes(edited.read_bytes() + b"\nmy own addition\n")
    code, lines = skilltool(home, source, "install", "--only", harness)
    assert code == 0
    assert b"my own addition" in edited.read_bytes()
    assert any(line.startswith("left") and "edited by hand" in line for line in lines)
    code, lines = skilltool(home, source, "uninstall", "--only", harness)
    assert edited.exists()
    code, lines = skilltool(home, source, "install", "--only", harness, "--force")
    assert b"my own addition" not in edited.read_bytes()
    assert b"New instructions." in edited.read_bytes()


@pytest.mark.parametrize("harness", RENDERS)
@pytest.mark.parametrize("kind", ["file", "symlink", "directory"])
def test_foreign_target_survives_install_and_uninstall(home: Path, source: Path, harness: str,
                                                       kind: str, tmp_path: Path) -> None:  # fmt: skip
    targets = setup(home, harness)
    foreign = targets[0]
    foreign.parent.mkdir(parents=True, exist_ok=True)
    elsewhere = build_file_tree(tmp_path / "elsewhere", {"x.md": "someone else's\n"}) / "x.md"
    if kind == "file":
        foreign.write_text("mine, not skilltool's\n")
    elif kind == "symlink":
        foreign.symlink_to(elsewhere)
    else:
        foreign.mkdir()
        (foreign / "inside").write_text("kept\n")
    before = {k: v for k, v in tree(home).items() if k.startswith(str(foreign.relative_to(home)))}
    for command in ("install", "install", "uninstall", "uninstall"):
        code, lines = skilltool(home, source, command, "--only", harness)
        assert code == 0
        assert any(line.startswith("left") and str(foreign.relative_to(home)) in line
                   for line in lines), lines  # fmt: skip
    after = {k: v for k, v in tree(home).items() if k.startswith(str(foreign.relative_to(home)))}
    assert after == before
    assert elsewhere.read_text() == "someone else's\n"


@pytest.mark.parametrize("harness", RENDERS)
def test_uninstall_removes_only_unedited_renderings(home: Path, source: Path, harness: str) -> None:
    targets = setup(home, harness)
    before = tree(home)
    skilltool(home, source, "install", "--only", harness)
    code, lines = skilltool(home, source, "uninstall", "--only", harness)
    assert code == 0
    assert all(not t.exists() for t in targets)
    assert [line for line in lines if line.startswith("removed")]
    # skilltool's own lock and parse cache aside
    after = {k: v for k, v in tree(home).items() if not k.startswith((".local", ".cache"))}
    kept_dirs = {k: v for k, v in before.items()}
    assert {k for k, v in after.items() if v[0] != "dir"} == {k for k, v in kept_dirs.items()
                                                               if v[0] != "dir"}  # fmt: skip


@pytest.mark.parametrize("harness", NAMES)
def test_rendering_of_a_removed_agent_is_pruned(home: Path, source: Path, harness: str) -> None:
    targets = setup(home, harness)
    skilltool(home, source, "install", "--only", harness)
    (source / "agents/helper.md").unlink()
    code, lines = skilltool(home, source, "install", "--only", harness)
    assert code == 0
    assert all(not t.exists() for t in targets), lines


def test_only_renders_one_harness_and_skips_skills(home: Path, source: Path) -> None:
    for harness in NAMES:
        setup(home, harness)
    code, lines = skilltool(home, source, "install", "--only", "codex")
    assert code == 0
    assert not (home / ".agents/skills").exists()
    assert (home / ".codex/skilltool/helper.json").exists()
    assert not (home / ".config/opencode/agent").exists()
    code, lines = skilltool(home, source, "install", "--only", "nope")
    assert code == 2


def test_full_install_links_skills_and_renders_every_present_harness(
    home: Path, source: Path
) -> None:
    for harness in NAMES:
        setup(home, harness)
    code, lines = skilltool(home, source, "install")
    assert code == 0
    assert (home / ".agents/skills/notes").resolve() == (source / "skills/notes").resolve()
    for harness in NAMES:
        assert all((home / t).is_file() for t in TARGETS[harness])


def test_hermes_seeded_soul_is_replaced_kept_and_restored(home: Path, source: Path) -> None:
    setup(home, "hermes")
    soul = home / ".hermes/profiles/helper/SOUL.md"
    soul.write_bytes(b"")  # an empty SOUL.md: Hermes's default identity, nobody's intent
    code, lines = skilltool(home, source, "install", "--only", "hermes")
    assert code == 0
    assert b"You help with things." in soul.read_bytes()
    backup = soul.with_name("SOUL.md.before-skilltool")
    assert backup.read_bytes() == b""
    code, lines = skilltool(home, source, "uninstall", "--only", "hermes")
    assert code == 0
    assert soul.read_bytes() == b""
    assert not backup.exists()


def test_hermes_foreign_config_without_skills_dir_gets_a_hint(home: Path, source: Path) -> None:
    setup(home, "hermes")
    config = home / ".hermes/profiles/helper/config.yaml"
    config.write_text("model: some-model\n")
    code, lines = skilltool(home, source, "install", "--only", "hermes")
    assert config.read_text() == "model: some-model\n"
    assert any("skills.external_dirs does not list" in line and str(home / ".agents/skills") in line
               for line in lines)  # fmt: skip
    config.write_text("skills:\n  external_dirs:\n    - ~/.agents/skills\n")
    code, lines = skilltool(home, source, "install", "--only", "hermes")
    assert not any("external_dirs" in line for line in lines)


def test_status_shows_each_agent_harness_state(home: Path, source: Path) -> None:
    for harness in ("opencode", "codex", "pi"):
        setup(home, harness)
    skilltool(home, source, "install", "--only", "codex")
    (home / ".config/opencode/agent").mkdir()
    (home / ".config/opencode/agent/helper.md").write_text("my own\n")
    code, lines = skilltool(home, source, "status", "-v")
    text = "\n".join(lines)
    assert "codex     current         ~/.codex/skilltool/helper.json" in text
    assert "opencode  foreign         ~/.config/opencode/agent/helper.md" in text
    assert "pi        missing         ~/.pi/agent/skilltool/helper.md" in text
    # a harness not set up is said once, at the top, not under each agent
    [absent] = [line for line in lines if line.startswith("absent    ")]
    assert "hermes" in absent.split(": ", 1)[1].split(", ")
    assert "harness absent" not in text


def test_dry_run_touches_nothing(home: Path, source: Path) -> None:
    for harness in NAMES:
        setup(home, harness)
    before = tree(home)
    code, lines = skilltool(home, source, "install", "--dry-run")
    assert code == 0
    assert tree(home) == before
    assert lines and all(line.startswith("dry-run: ") for line in lines)


def test_claude_gets_each_skill_linked_into_its_own_skills_dir(home: Path, source: Path) -> None:
    setup(home, "claude")
    (home / ".claude/skills/mine").mkdir(parents=True)
    (home / ".claude/skills/mine/SKILL.md").write_text("my own\n")
    code, lines = skilltool(home, source, "install", "--only", "claude")
    assert code == 0
    link = home / ".claude/skills/notes"
    assert os.readlink(link) == str(source / "skills/notes")
    assert "linked    claude   skill notes -> " + str(source / "skills/notes") in lines
    assert not (home / ".agents/skills").exists()  # --only leaves the shared skills dir alone
    code, lines = skilltool(home, source, "status", "-v")
    assert any(
        line.split()[:2] == ["skill", "notes"] and "claude: linked" in line for line in lines
    )
    (home / ".claude/skills/notes").unlink()
    (home / ".claude/skills/notes").mkdir()  # someone's own directory of that name
    code, lines = skilltool(home, source, "install")
    assert any(line.startswith("left") and ".claude/skills/notes" in line for line in lines)
    code, lines = skilltool(home, source, "uninstall")
    assert (home / ".claude/skills/notes").is_dir()
    assert (home / ".claude/skills/mine/SKILL.md").read_text() == "my own\n"
    assert not (home / ".claude/agents/helper.md").exists()


@pytest.mark.parametrize("harness", ["pi", "codex", "opencode"])
def test_a_temporary_file_left_by_a_killed_run_is_swept_not_failed_on(
    home: Path, source: Path, harness: str
) -> None:
    targets = setup(home, harness)
    skilltool(home, source, "install", "--only", harness)
    # a run killed between writing its temporary copy and renaming it into place
    leftover = targets[0].with_name(".skilltool-tmp-abc123")
    leftover.write_bytes(targets[0].read_bytes())
    code, lines = skilltool(home, source, "install", "--only", harness)
    assert code == 0, lines
    assert len(lines) == 1 and re.fullmatch(r"\d+ unchanged", lines[0]), lines
    assert not leftover.exists()


def two_plugins_with_one_name(tmp_path: Path) -> Path:
    """Two plugins on one search path that both ship a skill `notes` and an agent `helper`."""
    root = tmp_path / "two"
    for plugin in ("first", "second"):
        build_file_tree(root / plugin, {
            ".claude-plugin/plugin.json": f'{{"name": "{plugin}"}}\n',
            "agents/helper.md": agent_md("helper", f"\nThe {plugin} helper.\n"),
            "skills/notes/SKILL.md": "---\nname: notes\ndescription: Notes. Use always.\n---\n",
        })  # fmt: skip
    return root


@pytest.mark.parametrize("command", ["install", "status", "uninstall"])
def test_a_skill_clash_is_said_once_though_two_skills_dirs_are_planned(
    home: Path, tmp_path: Path, command: str
) -> None:
    setup(home, "claude")  # ~/.agents/skills and ~/.claude/skills both get links
    root = two_plugins_with_one_name(tmp_path)
    env = {"SKILLTOOL_PLUGINS": str(root)}
    result = run("plugins", command, "--home", home, env=env)
    said = result.stdout + result.stderr
    assert said.count("skill 'notes' is also in plugin 'first'") == 1, said
    data = json.loads(run("plugins", command, "--home", home, "--json", env=env).stdout)
    clashes = [p for p in data["problems"] if "skill 'notes' is also in" in p["message"]]
    assert len(clashes) == 1, data["problems"]


def test_status_shows_the_first_plugins_agent_as_current_and_the_other_as_shadowed(
    home: Path, tmp_path: Path
) -> None:
    setup(home, "opencode")
    root = two_plugins_with_one_name(tmp_path)
    env = {"SKILLTOOL_PLUGINS": str(root)}
    run("plugins", "install", "--home", home, env=env)
    lines = run("plugins", "status", "-v", "--home", home, env=env).lines
    first = lines.index(f"  agent   helper                   {root}/first/agents/helper.md")
    second = lines.index(f"  agent   helper                   {root}/second/agents/helper.md")
    assert lines[first + 1] == "    opencode  current         ~/.config/opencode/agent/helper.md"
    assert lines[second + 1] == f"    shadowed                  by {root}/first/agents/helper.md"
    assert not lines[second + 2].startswith("    ")  # no rendering line of its own
    data = json.loads(run("plugins", "status", "--home", home, "--json", env=env).stdout)
    agents = {p["name"]: p["agents"][0] for p in data["plugins"]}
    assert [r["state"] for r in agents["first"]["renderings"] if r["harness"] == "opencode"] == [
        "current"
    ]
    assert agents["first"]["shadowed_by"] is None
    assert agents["second"]["renderings"] == []
    assert agents["second"]["shadowed_by"] == str(root / "first/agents/helper.md")


def test_an_agent_named_like_a_built_in_one_is_skipped_there_and_rendered_elsewhere(
    home: Path, tmp_path: Path
) -> None:
    # `explore` is a built-in agent of OpenCode and of Copilot CLI, not of Claude Code
    # (whose own is `Explore`): a rendering would replace or shadow the harness's own
    source = build_file_tree(tmp_path / "src/scout", {
        "agents/explore.md": agent_md("explore", "\nExplore the plugin's way.\n"),
    })  # fmt: skip
    for harness in ("opencode", "claude", "copilot"):
        setup(home, harness)
    code, lines = skilltool(home, source, "install")
    assert code == 0
    assert not (home / ".config/opencode/agent/explore.md").exists()
    assert not (home / ".copilot/agents/explore.agent.md").exists()
    assert (home / ".claude/agents/explore.md").is_file()
    assert (
        "skipped   opencode: 'explore' is the name of a built-in agent of OpenCode (1.18.33), "
        "which a plugin agent never replaces; rename the agent (its 'name:') to have it here"
    ) in lines
    assert any(line.startswith("skipped   copilot: 'explore' is the name of a") for line in lines)
    code, lines = skilltool(home, source, "status", "-v")
    assert any(
        line.startswith("    opencode  skipped         'explore' is the name of") for line in lines
    )
    result = run("plugins", "validate", source / "..", "--home", home)
    verdict = next(line for line in result.stdout.splitlines() if ": verdict: " in line)
    assert "OpenCode and Copilot CLI skip it: 'explore' is the name of a built-in agent" not in (
        verdict
    )  # each harness names its own version
    assert "OpenCode skips it: 'explore' is the name of a built-in agent of OpenCode" in verdict
    assert "Copilot CLI skips it: 'explore' is the name of a built-in agent of Copilot" in verdict
    assert "Claude Code" in verdict.split(";")[0]  # it loads it


def test_a_hermes_profile_named_default_is_the_built_in_one(home: Path, tmp_path: Path) -> None:
    source = build_file_tree(tmp_path / "src/p", {"agents/default.md": agent_md("default")})
    (home / ".hermes/profiles/default").mkdir(parents=True)
    code, lines = skilltool(home, source, "install", "--only", "hermes")
    assert not (home / ".hermes/profiles/default/SOUL.md").exists()
    assert any(line.startswith("skipped   hermes: 'default' is the name of") for line in lines)


MADE_BY_INSTALL = [".agents/skills", ".agents", ".config/opencode/agent", ".codex/skilltool",
                   ".pi/agent/skilltool", ".claude/agents", ".claude/skills", ".gemini/agents",
                   ".copilot/agents"]  # fmt: skip


def test_uninstall_removes_the_directories_install_made_and_left_empty(
    home: Path, source: Path
) -> None:
    for harness in NAMES:
        setup(home, harness)
    (home / ".gemini/agents").mkdir()  # the user's own, before skilltool came
    code, lines = skilltool(home, source, "install")
    assert code == 0
    assert all((home / d).is_dir() for d in MADE_BY_INSTALL)
    code, lines = skilltool(home, source, "uninstall")
    assert code == 0
    for made in MADE_BY_INSTALL:
        if made != ".gemini/agents":
            assert not os.path.lexists(home / made), made
            assert f"removed   ~/{made} (an empty directory skilltool made)" in lines
    assert (home / ".gemini/agents").is_dir()  # made by the user: kept, though empty
    for harness in NAMES:  # a harness's own directory always stays
        assert (home / HARNESS_DIRS[harness]).is_dir()
    assert (home / ".hermes/profiles/helper").is_dir()


def test_a_directory_install_made_that_gained_a_users_file_stays(home: Path, source: Path) -> None:
    setup(home, "claude")
    skilltool(home, source, "install")
    (home / ".claude/agents/mine.md").write_text("my own agent\n")
    code, lines = skilltool(home, source, "uninstall")
    assert (home / ".claude/agents/mine.md").read_text() == "my own agent\n"
    assert not (home / ".claude/agents/helper.md").exists()
    assert not (home / ".claude/skills").exists()  # emptied: it goes
    assert not any("~/.claude/agents (an empty" in line for line in lines)
    (home / ".claude/agents/mine.md").unlink()  # emptied by the user later: a later uninstall
    code, lines = skilltool(home, source, "uninstall")  # still knows it made it
    assert not (home / ".claude/agents").exists()
    data = json.loads(run("plugins", "uninstall", "--home", home, "--json",
                          env={"SKILLTOOL_PLUGINS": str(source)}).stdout)  # fmt: skip
    assert data["removed_dirs"] == []


def test_a_rendering_made_before_the_name_was_known_as_built_in_is_removed(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skilltool.harnesses.opencode import OpenCode

    source = build_file_tree(tmp_path / "src/scout", {"agents/explore.md": agent_md("explore")})
    setup(home, "opencode")
    with monkeypatch.context() as earlier:  # a skilltool that did not know OpenCode's explore
        earlier.setattr(OpenCode, "builtin_agents", frozenset())
        skilltool(home, source, "install")
    assert (home / ".config/opencode/agent/explore.md").is_file()
    code, lines = skilltool(home, source, "install")
    assert code == 0
    assert not (home / ".config/opencode/agent/explore.md").exists()  # OpenCode's own is back
