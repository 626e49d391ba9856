"""`skilltool doctor`'s reasoning, on listings recorded from the real binaries (the shapes
OpenCode 1.18.33, Kilo 7.7.7, Codex 0.171.0, Gemini CLI 0.61.0 and Copilot CLI 1.0.102 print;
the binaries themselves are asked in tests/conformance/test_doctor.py), and its running of a
harness's commands: in a throwaway home, with no key of the user's, cut off when one hangs,
and the user's home left as it was."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from skilltool.doctor import Expected, reasons
from skilltool.harnesses import Listing
from skilltool.harnesses.claude import claude_init
from skilltool.harnesses.codex import Codex, codex_skills
from skilltool.harnesses.copilot import copilot_agents, copilot_skills
from skilltool.harnesses.gemini import gemini_skills
from skilltool.harnesses.hermes import hermes_profiles, hermes_skills
from skilltool.harnesses.kimi import doctor_home, kimi_request
from skilltool.harnesses.opencode import configured_agents, listed_skills
from skilltool.harnesses.pi import pi_skills
from skilltool.harnesses.qwen import qwen_request
from skilltool.harnesses.vibe import use_model, vibe_request
from skilltool.paths import Home
from tests.helpers import REPO, run

HOME = "/home/u"
OPENCODE_SKILLS = json.dumps(
    [
        {"name": "customize-opencode", "location": "<built-in>", "content": "…"},
        {"name": "notes", "location": f"{HOME}/.agents/skills/notes/SKILL.md", "content": "…"},
    ]
)
OPENCODE_CONFIG = json.dumps(
    {
        "$schema": "https://opencode.ai/config.json",
        "agent": {"helper": {"name": "helper", "description": "Helps.", "mode": "subagent"}},
        "mode": {},
        "plugin": [],
    }
)
CODEX_PROMPT = (
    '"### Available skills\\n- skill-creator: Create a skill. (file: r1/skill-creator/SKILL.md)\\n'
    "- skilltool:notes: Notes. (file: r0/notes/SKILL.md)\\n"
    'aliases: `r0` = `/home/u/.agents/skills`\\n`r1` = `/home/u/.codex/skills/.system`"'
)
GEMINI_LIST = (
    "Discovered Agent Skills:\n\nnotes [Enabled]\n  Description: Notes.\n"
    f"  Location:    {HOME}/.gemini/skills/notes/SKILL.md\n"
)
GEMINI_ERRORS = (
    "Error loading user agent: Failed to load agent from /home/u/.gemini/agents/helper.md: "
    "Validation failed\nRipgrep is not available.\n"
)
COPILOT_SKILLS = json.dumps(
    [{"name": "notes", "source": "personal-agents", "path": f"{HOME}/.agents/skills/notes"}]
)
COPILOT_NO_AGENT = "No such agent: skilltool-doctor-none, available: helper, reviewer\n"


def test_each_harness_listing_is_read_by_folder_and_place() -> None:
    assert listed_skills(OPENCODE_SKILLS, "").skills == {"notes": (f"{HOME}/.agents/skills/notes",)}
    assert configured_agents(OPENCODE_CONFIG, "").agents == {"helper": ()}
    assert configured_agents('{"$schema": "x"}', "").agents == {}  # no agent configured
    broken = configured_agents("", "Error: Configuration is invalid at ~/.config/opencode/agent")
    assert broken.agents is None and "Configuration is invalid" in broken.errors[0]
    assert codex_skills(CODEX_PROMPT, "").skills == {
        "skill-creator": ("/home/u/.codex/skills/.system/skill-creator",),
        "notes": ("/home/u/.agents/skills/notes",),
    }
    gemini = gemini_skills(GEMINI_LIST, GEMINI_ERRORS)
    assert gemini.skills == {"notes": (f"{HOME}/.gemini/skills/notes",)}
    assert gemini.errors == (GEMINI_ERRORS.splitlines()[0],)
    assert copilot_skills(COPILOT_SKILLS, "").skills == {"notes": (f"{HOME}/.agents/skills/notes",)}
    assert set(copilot_agents("", COPILOT_NO_AGENT).agents or {}) == {"helper", "reviewer"}
    init = {
        "type": "system",
        "subtype": "init",
        "agents": ["claude", "helper"],
        "skills": ["notes"],
    }
    claude = claude_init(json.dumps(init) + '\n{"type": "result", "is_error": true}\n', "")
    assert (set(claude.agents or {}), set(claude.skills or {})) == ({"claude", "helper"}, {"notes"})
    profiles = (
        "\n Profile          Model     Gateway\n ───────────────    ──────    ───────\n"
        " ◆default         —         stopped\n  helper          —         stopped\n"
    )
    assert set(hermes_profiles(profiles, "").agents or {}) == {"default", "helper"}
    table = (
        "┃ Name   ┃ Category ┃ Source ┃ Trust ┃ Status   ┃\n"
        "│ notes  │          │ local  │ local │ enabled  │\n"
        "│ jots   │          │ local  │ local │ disabled │\n"
    )
    assert set(hermes_skills(table, "").skills or {}) == {"notes"}
    spaced = "│ Agent Development │          │ local  │ local │ enabled  │\n"
    assert set(hermes_skills(spaced, "").skills or {}) == {"Agent Development"}
    commands = [
        {"name": "mcp", "source": "extension", "sourceInfo": {"path": "builtin:mcp"}},
        {"name": "skill:notes", "source": "skill",
         "sourceInfo": {"path": f"{HOME}/.agents/skills/notes/SKILL.md"}},
    ]  # fmt: skip
    answer = {"type": "response", "command": "get_commands", "data": {"commands": commands}}
    pi = pi_skills("Warning: No models available.\n" + json.dumps(answer) + "\n", "")
    assert pi.skills == {"notes": (f"{HOME}/.agents/skills/notes",)}
    request = {
        "system": [{"type": "text", "text": "<skill>\n<name>\nnotes\n</name>\n<location>\nuser\n</location>\n</skill>"}],
        "tools": [{"name": "agent", "description": "Agents:\n- **helper**: Helps.\n- **general-purpose**: All."}],
    }  # fmt: skip
    qwen = qwen_request(json.dumps(request), "")
    assert (set(qwen.skills or {}), set(qwen.agents or {})) == (
        {"notes"},
        {"helper", "general-purpose"},
    )
    assert qwen_request("", "API Error: connection refused").errors
    body = json.dumps({"messages": [{"role": "system", "content": (
        "<available-skills>\n  <skill>\n    <name>notes</name>\n"
        f"    <path>{HOME}/plugins/kit/skills/notes/SKILL.md</path>\n  </skill>\n"
    )}]})  # fmt: skip
    assert vibe_request(body, "").skills == {"notes": (f"{HOME}/plugins/kit/skills/notes",)}
    assert vibe_request("", "Error: Client error '400 Bad Request'").errors
    # what a binary prints that is not its listing is said, not taken as "nothing loads"
    assert claude_init("", "API Error").errors
    assert listed_skills("Error: no config", "").errors
    assert copilot_agents("", "Segmentation fault").errors


def wanted(tmp_path: Path) -> Expected:
    link = tmp_path / ".agents/skills/notes"
    return Expected({"notes": link}, {"helper": tmp_path / "agent.md"}, {}, {}, {}, {})


def test_a_same_name_skill_elsewhere_is_named_as_the_one_that_wins(tmp_path: Path) -> None:
    harness = Codex(Home(tmp_path))
    theirs = Listing({"notes": (str(tmp_path / ".codex/skills/notes"),)}, None)
    [missing] = reasons(harness, wanted(tmp_path), theirs, "0.171.0")
    assert missing.kind == "skill" and missing.name == "notes"
    assert missing.why == (
        f"a skill of that name at {tmp_path}/.codex/skills/notes is the one it loads: rename "
        "one of them, or remove the other"
    )
    ours = Listing({"notes": (str(tmp_path / ".agents/skills/notes"),)}, None)
    assert reasons(harness, wanted(tmp_path), ours, "0.171.0") == ()
    # listed from both places (Codex lists both): it loads ours, and nothing is missing
    both = Listing({"notes": (*theirs.skills["notes"], *ours.skills["notes"])}, None)  # type: ignore[index]
    assert reasons(harness, wanted(tmp_path), both, "0.171.0") == ()


def test_an_older_harness_and_what_is_not_installed_say_the_fix(tmp_path: Path) -> None:
    harness = Codex(Home(tmp_path))
    [missing] = reasons(harness, wanted(tmp_path), Listing({}, None), "0.160.2")
    assert missing.why == (
        "not listed by Codex 0.160.2, older than the 0.171.0 skilltool is proven with: update Codex"
    )
    [unknown] = reasons(harness, wanted(tmp_path), Listing({}, None), "0.171.0")
    assert unknown.why.startswith("not listed by Codex although")
    gone = Expected({}, {}, {("skill", "jots"): tmp_path / ".agents/skills/jots"}, {}, {}, {})
    [not_there] = reasons(harness, gone, Listing({}, None), "0.171.0")
    assert not_there.why.endswith("run 'skilltool plugins install'")


def fake_opencode(bin_dir: Path, script: str) -> None:
    """A stand-in for the `opencode` binary, to see how doctor runs one (the real one is
    asked in the conformance suite)."""
    bin_dir.mkdir(exist_ok=True)
    path = bin_dir / "opencode"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def snapshot(home: Path) -> dict[str, object]:
    found: dict[str, object] = {}
    for folder, dirs, files in os.walk(home):
        for name in dirs + files:
            path = Path(folder, name)
            found[str(path)] = (
                os.readlink(path)
                if path.is_symlink()
                else path.read_bytes()
                if path.is_file()
                else "dir"
            )
    return found


@pytest.fixture
def opencode_home(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (home / ".config/opencode").mkdir(parents=True)
    assert run("plugins", "install").code == 0
    bin_dir = tmp_path / "bin"
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-the-users-own")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://the-users-own.example")
    return bin_dir


def test_a_probe_runs_in_a_throwaway_home_with_none_of_the_users_keys(
    home: Path, tmp_path: Path, opencode_home: Path
) -> None:
    seen = tmp_path / "seen"
    fake_opencode(
        opencode_home,
        f'env > "{seen}.$1"; echo "$HOME" >> "{seen}.$1"\n'
        'case "$1" in --version) echo 1.18.33;; debug) [ "$2" = config ] && echo {} || echo "[]";; esac\n'
        'touch "$HOME/.config/opencode/written-by-the-harness"\n',
    )
    before = snapshot(home)
    done = run("doctor", "opencode")
    assert snapshot(home) == before  # what the harness wrote went to the throwaway home
    env = (tmp_path / "seen.debug").read_text()
    assert "sk-the-users-own" not in env and "the-users-own.example" not in env
    assert f"HOME={home}\n" not in env and "HTTPS_PROXY=http://127.0.0.1:9" in env
    # the skills it lists: none, where skilltool linked three: each named, with the fix
    assert done.code == 1
    assert "probed    opencode 1.18.33 (proven 1.18.33): loads 0 of 3 skill(s)" in done.stdout
    assert done.stdout.count("missing   opencode skill ") == 3


def test_a_harness_that_hangs_is_cut_off_with_a_line(
    home: Path, opencode_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("skilltool.doctor.TIMEOUT", 1.0)
    fake_opencode(opencode_home, 'case "$1" in --version) echo 1.18.33;; *) sleep 30;; esac\n')
    done = run("doctor", "opencode", "--json")
    assert done.code == 1
    [asked] = json.loads(done.stdout)["harnesses"]
    assert asked["failed"] == "`opencode debug skill` gave no answer in 1 s: cut off"


def test_one_item_is_explained_across_the_harnesses(home: Path, opencode_home: Path) -> None:
    fake_opencode(
        opencode_home,
        'case "$1" in --version) echo 1.18.33;; debug) [ "$2" = config ] && echo {} || echo "[]";; esac\n',
    )
    done = run("doctor", "--item", "writing-skills")
    assert done.stdout.count("missing   ") == 1
    assert "missing   opencode skill writing-skills: not listed by OpenCode" in done.stdout


def test_the_version_doctor_says_proven_is_the_one_the_conformance_suite_installs() -> None:
    from skilltool.harnesses import NAMES, load

    pins = (REPO / "scripts/install-harnesses").read_text()
    packages = {
        "opencode": "opencode-ai", "codex": "@openai/codex", "claude": "@anthropic-ai/claude-code",
        "gemini": "@google/gemini-cli", "copilot": "@github/copilot", "kilo": "@kilocode/cli",
        "qwen": "@qwen-code/qwen-code", "kimi": "@moonshot-ai/kimi-code", "droid": "droid",
        "cline": "cline", "auggie": "@augmentcode/auggie", "qoder": "@qoder-ai/qodercli",
        "continue": "@continuedev/cli", "amp": "@sourcegraph/amp",
    }  # fmt: skip
    for name in NAMES:
        proven = load(name)(Home(Path("/nowhere"))).proven()
        if name in packages:
            assert f'"{packages[name]}": "{proven}"' in pins, name
        else:  # pi, Hermes, Mistral Vibe, OpenHands: a constant of their own
            constant = {
                "pi": "PI_VERSION", "hermes": "HERMES_VERSION", "vibe": "VIBE_VERSION",
                "openhands": "OPENHANDS_VERSION",
            }[name]  # fmt: skip
            assert f'{constant} = "{proven}"' in pins, name


def test_what_the_user_turned_off_in_a_harness_is_not_looked_for_there(
    home: Path, opencode_home: Path
) -> None:
    fake_opencode(
        opencode_home,
        'case "$1" in --version) echo 1.18.33;; debug) [ "$2" = config ] && echo {} || echo "[]";; esac\n',
    )
    assert run("plugins", "disable", "skilltool", "--harness", "opencode").code == 0
    done = run("doctor", "opencode")
    assert done.code == 0, done.stdout
    assert "loads 0 of 0 skill(s) and 0 of 0 agent(s)" in done.stdout


def test_a_harness_that_shows_its_skills_only_to_a_model_is_asked_through_one_on_loopback(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (home / ".qwen").mkdir()
    assert run("plugins", "install").code == 0
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stand_in = bin_dir / "qwen"  # posts what a real one would, to the model it is given
    stand_in.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys, urllib.request\n"
        "if sys.argv[1:] == ['--version']: print('0.24.4'); sys.exit(0)\n"
        "if os.environ['ANTHROPIC_API_KEY'] != 'doctor': sys.exit('the user key came through')\n"
        "system = '<skill>\\n<name>\\nwriting-skills\\n</name>\\n</skill>'\n"
        "body = json.dumps({'system': system, 'key': os.environ['ANTHROPIC_API_KEY']}).encode()\n"
        "url = os.environ['ANTHROPIC_BASE_URL'] + '/v1/messages'\n"
        "try: urllib.request.urlopen(urllib.request.Request(url, body, {'Content-Type': 'application/json'}))\n"
        "except Exception as err: print(err, file=sys.stderr); sys.exit(1)\n"
    )
    stand_in.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-the-users-own")
    done = run("doctor", "qwen", "--json")
    [asked] = json.loads(done.stdout)["harnesses"]
    # the one skill it named reached the loopback model; what it did not name is missing
    assert asked["failed"] is None and asked["errors"] == [], asked
    missing = {m["name"] for m in asked["not_loaded"]}
    assert missing == {"using-skilltool", "writing-plugins", "plugin-author"}


def test_vibes_copy_of_its_settings_gets_the_loopback_model_and_keeps_the_rest(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('# mine\nactive_model = "devstral"\n[[providers]]\nname = "mistral"\n')
    use_model(tmp_path, "http://127.0.0.1:4321")
    text = config.read_text()
    assert text.startswith("# mine\n") and 'name = "mistral"' in text
    assert 'active_model = "skilltool-doctor"' in text
    assert 'api_base = "http://127.0.0.1:4321/v1"' in text


def test_kimis_first_request_names_its_skills_by_folder_and_its_agents() -> None:
    system = (
        "# Skills\nDISREGARD any earlier skill listings. Current available skills:\n### User\n"
        f"- Notes Name: Takes notes.\n  Path: {HOME}/.agents/skills/notes/SKILL.md\n"
        "### Built-in\n- update-config: Edits.\n  Path: builtin://update-config\n"
    )
    agent = "Launch a subagent.\n\nAvailable agent types (pass via subagent_type):\n"
    agent += "- plan: Plans.\n  Tools: Read\n- helper: Helps: a lot.\n  Tools: Read, Grep\n"
    request = {
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "Agent", "description": agent}}],
    }
    found = kimi_request(json.dumps(request), "")
    assert found.skills == {"notes": (f"{HOME}/.agents/skills/notes",)}
    assert found.agents == {"helper": ()}  # its own (plan, coder, explore) are not ours
    assert kimi_request("", "LLM provider error: 400").errors


def test_kimis_copy_of_its_folder_runs_no_hook_and_starts_no_server(tmp_path: Path) -> None:
    (tmp_path / "mcp.json").write_text('{"mcpServers": {"mine": {"command": "x"}}}')
    config = tmp_path / "config.toml"
    config.write_text('# mine\ndefault_model = "k2"\n\n[[hooks]]\nevent = "Stop"\ncommand = "x"\n')
    doctor_home(tmp_path, "http://127.0.0.1:4321")
    assert not (tmp_path / "mcp.json").exists()
    assert config.read_text() == '# mine\ndefault_model = "k2"\n\n'


def test_a_skill_listed_by_its_frontmatter_name_is_found_by_its_folder(tmp_path: Path) -> None:
    harness = Codex(Home(tmp_path))
    link = tmp_path / ".agents/skills/agent-development"
    wanted = Expected(
        {"agent-development": link}, {}, {}, {"agent-development": "Agent Development"}, {}, {}
    )
    listed = Listing({"Agent Development": ()}, None)
    assert reasons(harness, wanted, listed, "0.171.0") == ()


def fake_claude(bin_dir: Path, skills: list[str], agents: list[str]) -> None:
    """A stand-in for `claude` printing the init event the real one prints first."""
    bin_dir.mkdir(exist_ok=True)
    init = json.dumps({"type": "system", "subtype": "init", "skills": skills, "agents": agents})
    path = bin_dir / "claude"
    path.write_text(
        f"#!/bin/sh\n[ \"$1\" = --version ] && echo '2.1.332 (Claude Code)' && exit\necho '{init}'\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def test_a_home_moved_after_install_is_named_with_where_it_was_installed(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (home / ".claude").mkdir()
    assert run("plugins", "install").code == 0
    assert (home / ".claude/skills/writing-skills").is_symlink()
    bin_dir = tmp_path / "bin"
    fake_claude(bin_dir, [], [])
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    (home / "moved").mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / "moved"))
    done = run("doctor", "claude")
    assert done.code == 1
    assert (
        "missing   claude   skill writing-skills: installed at ~/.claude/skills/writing-skills, "
        "where Claude Code looked before $CLAUDE_CONFIG_DIR moved its home to ~/moved: run "
        "'skilltool plugins install'"
    ) in done.stdout.splitlines(), done.stdout
    assert (
        "missing   claude   agent plugin-author: installed at ~/.claude/agents/plugin-author.md, "
        "where Claude Code looked before $CLAUDE_CONFIG_DIR moved its home to ~/moved: run "
        "'skilltool plugins install'"
    ) in done.stdout.splitlines(), done.stdout
    # installed again, into the moved home: what Claude Code lists there loads
    assert run("plugins", "install").code == 0
    fake_claude(bin_dir, os.listdir(home / "moved/skills"), ["plugin-author"])
    again = run("doctor", "claude")
    assert again.code == 0, again.stdout


def test_a_skill_the_harness_skips_by_its_rules_is_said_and_does_not_fail_the_home(
    tmp_path: Path,
) -> None:
    from skilltool.harnesses.qwen import Qwen

    harness = Qwen(Home(tmp_path))
    link = tmp_path / ".agents/skills/caps"
    wanted = Expected({"caps": link}, {}, {}, {"caps": "Caps Name"}, {"caps": "name holds a blank"}, {})  # fmt: skip
    [skipped] = reasons(harness, wanted, Listing({}, {}), "0.24.4")
    assert skipped.foreseen
    assert skipped.line("qwen") == (
        f"skipped   qwen     skill caps: Qwen Code skips it: name holds a blank; the fix is the "
        f"plugin's, in {link}/SKILL.md ('skilltool plugins validate' says so)"
    )
    # a version that loads it after all: listed, so it loads, and nothing is said
    assert reasons(harness, wanted, Listing({"Caps Name": ()}, {}), "0.24.4") == ()


def test_an_agent_file_made_a_link_is_named_where_the_harness_follows_none(tmp_path: Path) -> None:
    from skilltool.harnesses.gemini import Gemini

    agents = tmp_path / ".gemini/agents"
    agents.mkdir(parents=True)
    (tmp_path / "dotfiles").mkdir()
    (tmp_path / "dotfiles/helper.md").write_text("---\nname: helper\n---\n")
    (agents / "helper.md").symlink_to(tmp_path / "dotfiles/helper.md")
    wanted = Expected({}, {"helper": agents / "helper.md"}, {}, {}, {}, {})
    [linked] = reasons(Gemini(Home(tmp_path)), wanted, Listing({}, {}), "0.61.0")
    assert linked.why == (
        f"{agents}/helper.md is a symbolic link, which Gemini CLI does not follow: remove the "
        "link and run 'skilltool plugins install'"
    )
    # Copilot CLI follows it: a link there is no reason, and the plain one is given
    from skilltool.harnesses.copilot import Copilot

    [plain] = reasons(Copilot(Home(tmp_path)), wanted, Listing({}, {}), "1.0.102")
    assert plain.why.startswith("not listed by Copilot CLI although")


def test_a_link_to_another_folder_is_named_with_where_it_points(tmp_path: Path) -> None:
    link = tmp_path / ".agents/skills/jots"
    link.parent.mkdir(parents=True)
    link.symlink_to(tmp_path / "old-checkout/jots")
    gone = Expected({}, {}, {("skill", "jots"): link}, {}, {}, {})
    [elsewhere] = reasons(Codex(Home(tmp_path)), gone, Listing({}, None), "0.171.0")
    assert elsewhere.why == (
        f"{link} links to {tmp_path}/old-checkout/jots, not to the plugin's folder: run "
        "'skilltool plugins install'"
    )
