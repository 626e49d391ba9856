"""`skilltool doctor` against the real binaries: on a home where skilltool installed a plugin
for every harness, it asks each through its own listing (for Qwen Code, Mistral Vibe, Kimi
Code and Factory Droid, their first request to a model on loopback) and finds everything loads, leaving the home
byte for byte as it was; with a skill of the user's own of the same name in a harness's own
folder, it names that one as the skill the harness loads, where the binary does.

Run as a user runs it: `python -m skilltool doctor` with HOME in the environment, the harness
binaries on PATH, and an API key in the environment that must not reach any probe."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conformance.homes import GEMINI_SETTINGS, QWEN_SETTINGS, REPO
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.support import Proven, need
from tests.helpers import agent_md, build_file_tree, skill_md

pytestmark = pytest.mark.conformance

ASKED = (
    "opencode", "kilo", "codex", "pi", "claude", "gemini", "copilot", "hermes", "qwen", "vibe",
    "kimi",
    "droid",
)  # fmt: skip
FOLDERS = {
    "opencode": ".config/opencode",
    "kilo": ".config/kilo",
    "codex": ".codex",
    "pi": ".pi/agent",
    "claude": ".claude",
    "gemini": ".gemini",
    "copilot": ".copilot",
    "hermes": ".hermes",
    "qwen": ".qwen",
    "vibe": ".vibe",
    "kimi": ".kimi-code",
    "droid": ".factory",
}
# where each harness reads the user's own skills (its own folder), when a name is in both
# that and ~/.agents/skills (found by doctor, below): Copilot CLI and Kimi Code load the
# user's, OpenCode one or the other from run to run (seen both), Codex and Gemini CLI still
# list ours
OWN_SKILLS = {"copilot": ".copilot/skills", "kimi": ".kimi-code/skills"}
EITHER = {"opencode": ".config/opencode/skills"}
BOTH = {"codex": ".codex/skills", "gemini": ".gemini/skills"}
# the harnesses doctor asks for their agents; those that skip a skill named `Caps Name`
LIST_AGENTS = ("opencode", "kilo", "claude", "gemini", "copilot", "hermes", "qwen", "kimi", "droid")
SKIP_CAPS = ("qwen", "vibe", "droid")
TITLES = {"qwen": "Qwen Code", "vibe": "Mistral Vibe", "droid": "Factory Droid"}


def snapshot(home: Path) -> dict[str, object]:
    """Every entry under the home: a link's target, a file's bytes and mode, a folder."""
    found: dict[str, object] = {}
    for folder, dirs, files in os.walk(home):
        for name in dirs + files:
            path = Path(folder, name)
            info = path.lstat()
            if path.is_symlink():
                found[str(path)] = ("link", os.readlink(path))
            elif path.is_dir():
                found[str(path)] = ("dir", info.st_mode)
            else:
                found[str(path)] = (path.read_bytes(), info.st_mode, info.st_mtime_ns)
    return found


def skilltool(
    home: Path, root: Path, *args: str, moved: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = harness_env(home, moved)
    env.update(
        PYTHONPATH=str(REPO),
        SKILLTOOL_PLUGINS=str(root / "plugins"),
        XDG_DATA_DIRS=str(root / "no-system-plugins"),
        ANTHROPIC_API_KEY="sk-the-users-own-key",  # never to reach a probe
    )
    done = subprocess.run(
        [sys.executable, "-m", "skilltool", *args],
        env=env, cwd=home, capture_output=True, encoding="utf-8", timeout=300,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture
def world(tmp_path: Path) -> Path:
    for harness in ASKED:
        need(harness)
    home = make_home(tmp_path)
    for folder in FOLDERS.values():
        (home / folder).mkdir(parents=True, exist_ok=True)
    (home / ".gemini/settings.json").write_text(json.dumps(GEMINI_SETTINGS))
    (home / ".qwen/settings.json").write_text(json.dumps(QWEN_SETTINGS))
    # Hermes runs an agent as a profile the user made: made with the real `hermes`
    hermes = ["hermes", "profile", "create", "helper", "--no-alias"]
    made = run(hermes, harness_env(home, {"HERMES_DISABLE_LAZY_INSTALLS": "1"}), home, timeout=120)
    assert made.returncode == 0, made.stdout + made.stderr
    build_file_tree(
        tmp_path / "plugins/kit",
        {
            "skills/notes/SKILL.md": skill_md("notes"),
            "skills/jots/SKILL.md": skill_md("jots"),
            # a name Qwen Code, Mistral Vibe and Droid skip, as `validate` says; the others load it
            "skills/caps/SKILL.md": "---\nname: Caps Name\ndescription: Named.\n---\nCaps.\n",
            "agents/helper.md": agent_md("helper"),
        },
    )
    assert skilltool(home, tmp_path, "plugins", "install").returncode == 0
    return home


def test_doctor_finds_everything_loads_and_leaves_the_home_as_it_was(
    world: Path, proven: Proven
) -> None:
    before = snapshot(world)
    started = time.monotonic()
    done = skilltool(world, world.parent, "doctor", "--json")
    seconds = time.monotonic() - started
    assert snapshot(world) == before
    assert done.returncode == 0, done.stdout + done.stderr
    asked = {h["harness"]: h for h in json.loads(done.stdout)["harnesses"]}
    assert set(asked) == set(ASKED)
    for name, found in asked.items():
        assert found["failed"] is None, found
        skipped = [(m["name"], m["foreseen"]) for m in found["not_loaded"]]
        assert skipped == ([("caps", True)] if name in SKIP_CAPS else []), found
        assert found["version"] == found["proven"], found
        assert {"notes", "jots", "caps"} <= set(found["skills"]), found
    for name in LIST_AGENTS:
        assert "helper" in asked[name]["agents"], asked[name]
    for name in SKIP_CAPS:
        [caps] = asked[name]["not_loaded"]
        assert caps["why"].startswith(f"{TITLES[name]} skips it: "), caps
        proven(
            name,
            "a skill whose name it refuses (`Caps Name`) is not in what it loads, and "
            "`skilltool doctor` says so as `validate` does, without failing the home",
        )
    for name in ASKED:
        proven(
            name,
            f"`skilltool doctor` asks it through its own listing and finds skilltool's skills "
            f"(and agents, where it lists them) loaded; the home is byte for byte as it was "
            f"({seconds:.1f} s for the {len(ASKED)}, in parallel)",
        )


def test_doctor_names_a_home_moved_since_install_and_an_agent_made_a_link(
    world: Path, proven: Proven
) -> None:
    # Claude Code's home moved by its variable after skilltool installed into ~/.claude
    (world / "moved-claude").mkdir()
    moved = {"CLAUDE_CONFIG_DIR": str(world / "moved-claude")}
    done = skilltool(world, world.parent, "doctor", "claude", moved=moved)
    assert done.returncode == 1, done.stdout + done.stderr
    for kind, name, where in (
        ("skill", "notes", "skills/notes"),
        ("agent", "helper", "agents/helper.md"),
    ):
        said = (
            f"missing   claude   {kind} {name}: installed at ~/.claude/{where}, where Claude "
            "Code looked before $CLAUDE_CONFIG_DIR moved its home to ~/moved-claude: run "
            "'skilltool plugins install'"
        )
        assert said in done.stdout.splitlines(), done.stdout
    proven(
        "claude",
        "with CLAUDE_CONFIG_DIR set after install it loads none of what skilltool put in "
        "~/.claude, and `skilltool doctor` names where each was installed and the variable",
    )
    # Gemini CLI's agent file made a link (as a dotfiles manager does): not followed
    agent = world / ".gemini/agents/helper.md"
    (world / "dotfiles").mkdir()
    agent.rename(world / "dotfiles/helper.md")
    agent.symlink_to(world / "dotfiles/helper.md")
    done = skilltool(world, world.parent, "doctor", "gemini")
    assert done.returncode == 1, done.stdout + done.stderr
    said = (
        "missing   gemini   agent helper: ~/.gemini/agents/helper.md is a symbolic link, which "
        "Gemini CLI does not follow: remove the link and run 'skilltool plugins install'"
    )
    assert said in done.stdout.splitlines(), done.stdout
    proven(
        "gemini",
        "an agent file in ~/.gemini/agents made a symbolic link is not in the subagents of its "
        "first request, and `skilltool doctor` says it does not follow the link",
    )


def test_doctor_names_the_users_own_skill_of_the_same_name_as_the_one_loaded(
    world: Path, proven: Proven
) -> None:
    for folder in (*OWN_SKILLS.values(), *EITHER.values(), *BOTH.values()):
        mine = world / folder / "notes"
        mine.mkdir(parents=True)
        (mine / "SKILL.md").write_text(
            "---\nname: notes\ndescription: the user's own\n---\nMine.\n"
        )
    done = skilltool(world, world.parent, "doctor")
    assert done.returncode == 1, done.stdout + done.stderr
    for harness, folder in OWN_SKILLS.items():
        said = (
            f"missing   {harness:<8} skill notes: a skill of that name at ~/{folder}/notes is "
            "the one it loads: rename one of them, or remove the other"
        )
        assert said in done.stdout.splitlines(), done.stdout
        proven(
            harness,
            f"a user's own skill in ~/{folder} named like one skilltool linked in "
            "~/.agents/skills is the one it loads, and `skilltool doctor` says so with the fix",
        )
    for harness, folder in EITHER.items():  # when it loads the user's, doctor names it
        said = [
            line for line in done.stdout.splitlines() if line.startswith(f"missing   {harness}")
        ]
        assert said in ([], [
            f"missing   {harness:<8} skill notes: a skill of that name at ~/{folder}/notes is "
            "the one it loads: rename one of them, or remove the other"
        ]), said  # fmt: skip
    for harness in BOTH:  # it lists skilltool's too: nothing is missing there
        assert f"missing   {harness}" not in done.stdout, done.stdout
