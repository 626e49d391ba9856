"""A harness folder moved by the harness's own variable: the real `skilltool plugins install`
(no `--home`: HOME and the variable in its environment) writes the agent and the skill there,
never at the default place, and the real binary, started with the same variable, loads them.

One row per harness, each in a throwaway home with a plugin of one agent and one skill. The
variables are the ones each binary reads (skilltool's `ROOTS`): CLAUDE_CONFIG_DIR, CODEX_HOME,
COPILOT_HOME, GEMINI_CLI_HOME (a home: its .gemini is the folder), HERMES_HOME,
PI_CODING_AGENT_DIR, QWEN_HOME, VIBE_HOME, KIMI_CODE_HOME, FACTORY_HOME_OVERRIDE (a home: its
.factory is the folder), CLINE_DIR, QODER_CONFIG_DIR, and XDG_CONFIG_HOME for OpenCode, Kilo
and Amp."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.homes import DUMP_EXTENSION, GEMINI_SETTINGS, QWEN_SETTINGS, REPO, TIMEOUT
from tests.conformance.sandbox import harness_cache, harness_env, make_home, run
from tests.conformance.stub import AnthropicStub, GeminiStub, OpenAIStub
from tests.conformance.support import Proven, need
from tests.conformance.test_claude import init_event
from tests.conformance.test_codex import developer_texts, prompt_input
from tests.conformance.test_copilot import AVAILABLE, copilot_env
from tests.conformance.test_droid import droid_exec, droid_line, said, section
from tests.conformance.test_gemini import LOAD_ERROR, gemini_env
from tests.conformance.test_gemini import MODEL as GEMINI_MODEL
from tests.conformance.test_gemini import system_text as gemini_system
from tests.conformance.test_hermes import (
    BUILD_PROMPT,
    DEFAULT_IDENTITY,
    as_hermes_sees_it,
    hermes_env,
)
from tests.conformance.test_kilo import kilo
from tests.conformance.test_kimi import agent_types, kimi_env, skills_listed
from tests.conformance.test_kimi import system_of as kimi_system
from tests.conformance.test_opencode import AGENT_LINE
from tests.conformance.test_pi import addendum, get_commands, pi_env
from tests.conformance.test_qwen import QWEN, agent_tool, qwen_env
from tests.conformance.test_vibe import VIBE_OWN_PROMPT, stub_config, vibe_env
from tests.conformance.test_vibe import system_text as vibe_system
from tests.helpers import agent_md, build_file_tree, skill_md, toml_loads

pytestmark = pytest.mark.conformance

AGENT = "moved-agent"
SKILL = "moved-skill"
SKILL_DESCRIPTION = "Checks a moved harness folder. Use when a harness folder was moved."
BODY = "You are the moved agent: you answer from a harness folder a variable moved.\n"
DESCRIPTION = "An agent for tests."  # what tests.helpers.agent_md writes


@dataclass(frozen=True)
class Moved:
    """A home after the real install, with the harness's folder where its variable put it."""

    root: Path
    home: Path
    env: dict[str, str]  # the sandbox environment with the variable: skilltool's and the binary's

    def skill(self) -> Path:
        """The skill as linked into the home's shared folder (read by most harnesses)."""
        return self.home / ".agents/skills" / SKILL / "SKILL.md"


def plugin(root: Path) -> Path:
    """One plugin, one agent, one skill: what every row installs."""
    return build_file_tree(
        root / "plugins/moved-plugin",
        {
            ".claude-plugin/plugin.json": '{"name": "moved-plugin", "version": "1.0.0"}\n',
            f"skills/{SKILL}/SKILL.md": skill_md(SKILL, SKILL_DESCRIPTION),
            f"agents/{AGENT}.md": agent_md(AGENT, BODY),
        },
    )


def moved_home(root: Path, variable: str, value: Path) -> Moved:
    """A sandbox home with `variable` naming `value`, before anything is installed. The sandbox
    makes ~/.codex for every home: it goes, so that no harness folder is at its default."""
    home = make_home(root)
    (home / ".codex").rmdir()
    return Moved(root, home, harness_env(home, {variable: str(value)}))


def install(moved: Moved, default: str) -> str:
    """The real `python -m skilltool plugins install`, without `--home`: it finds the home and
    the moved folder from HOME and the variable, as a user's shell would give them."""
    env = {
        **moved.env,
        "PYTHONPATH": str(REPO),
        "SKILLTOOL_PLUGINS": str(plugin(moved.root)),
        "XDG_DATA_DIRS": str(moved.root / "no-system-plugins"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "skilltool", "plugins", "install"],
        env=env, cwd=moved.home, capture_output=True, encoding="utf-8", timeout=TIMEOUT,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (moved.home / default).exists(), done.stdout
    assert moved.skill().is_file(), done.stdout
    return done.stdout


def redirected(argv: list[str], env: dict[str, str], cwd: Path, out: Path) -> str:
    """A command's stdout through a file (OpenCode cuts a listing short through a pipe)."""
    done = run(["sh", "-c", 'exec "$@" >"$0"', str(out), *argv], env, cwd, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    return out.read_text(encoding="utf-8")


def test_opencode_reads_skilltools_files_from_its_moved_folder(
    tmp_path: Path, proven: Proven
) -> None:
    need("opencode")
    config = tmp_path / "moved/config"
    moved = moved_home(tmp_path, "XDG_CONFIG_HOME", config)
    (config / "opencode").mkdir(parents=True)
    install(moved, ".config/opencode")
    assert (config / "opencode/agent" / f"{AGENT}.md").is_file()
    cwd = moved.home
    listing = redirected(["opencode", "agent", "list"], moved.env, cwd, tmp_path / "agents.txt")
    assert dict(AGENT_LINE.findall(listing)).get(AGENT) == "subagent", listing[-2000:]
    skills = redirected(["opencode", "debug", "skill"], moved.env, cwd, tmp_path / "skills.json")
    found = {s["name"]: s["location"] for s in json.loads(skills)}
    assert found.get(SKILL) == str(moved.skill()), found
    proven(
        "opencode",
        "XDG_CONFIG_HOME moved: install writes $XDG_CONFIG_HOME/opencode/agent/moved-agent.md "
        "(no ~/.config/opencode); `opencode agent list` shows `moved-agent (subagent)` and "
        "`opencode debug skill` lists moved-skill from ~/.agents/skills",
    )


def test_kilo_reads_skilltools_files_from_its_moved_folder(tmp_path: Path, proven: Proven) -> None:
    need("kilo")
    config = tmp_path / "moved/config"
    moved = moved_home(tmp_path, "XDG_CONFIG_HOME", config)
    (config / "kilo").mkdir(parents=True)
    install(moved, ".config/kilo")
    assert (config / "kilo/agents" / f"{AGENT}.md").is_file()
    project = tmp_path / "project"  # in the home itself Kilo lists no linked skill
    project.mkdir()
    agents = dict(AGENT_LINE.findall(kilo(moved.env, project, "agent", "list").stdout))
    assert agents.get(AGENT) == "primary", agents
    found = json.loads(kilo(moved.env, project, "debug", "skill").stdout)
    assert {s["name"]: s["location"] for s in found}.get(SKILL) == str(moved.skill()), found
    proven(
        "kilo",
        "XDG_CONFIG_HOME moved: install writes $XDG_CONFIG_HOME/kilo/agents/moved-agent.md "
        "(no ~/.config/kilo); `kilo agent list` shows `moved-agent (primary)` and "
        "`kilo debug skill` lists moved-skill from ~/.agents/skills",
    )


def test_codex_reads_skilltools_files_from_its_moved_folder(tmp_path: Path, proven: Proven) -> None:
    need("codex")
    folder = tmp_path / "moved/codex"
    moved = moved_home(tmp_path, "CODEX_HOME", folder)
    folder.mkdir(parents=True)
    install(moved, ".codex")
    profile = toml_loads((folder / f"{AGENT}.config.toml").read_text(encoding="utf-8"))
    assert (folder / "skilltool" / f"{AGENT}.md").is_file()
    texts = [t for parts in developer_texts(prompt_input(moved.env, moved.home)) for t in parts]
    [skills] = [t for t in texts if t.startswith("<skills_instructions>")]
    assert re.search(rf"^- (?:[\w.-]+:)?{SKILL}: ", skills, re.M), skills
    assert f"`{moved.home / '.agents/skills'}`" in skills, skills
    profiled = developer_texts(prompt_input(moved.env, moved.home, "-p", AGENT))
    assert profile["developer_instructions"] in [parts[0] for parts in profiled]
    proven(
        "codex",
        "CODEX_HOME moved: install writes $CODEX_HOME/moved-agent.config.toml and "
        "$CODEX_HOME/skilltool/ (no ~/.codex); `codex debug prompt-input hi` lists moved-skill "
        "from ~/.agents/skills, and with `-p moved-agent` the profile's developer_instructions",
    )


def test_pi_reads_skilltools_files_from_its_moved_folder(tmp_path: Path, proven: Proven) -> None:
    need("pi")
    folder = tmp_path / "moved/pi"
    moved = moved_home(tmp_path, "PI_CODING_AGENT_DIR", folder)
    (folder / "extensions").mkdir(parents=True)
    shutil.copy(DUMP_EXTENSION, folder / "extensions" / DUMP_EXTENSION.name)
    install(moved, ".pi")
    wrapper, prompt = folder / "skilltool" / AGENT, folder / "skilltool" / f"{AGENT}.md"
    dump = tmp_path / "pi-prompt.txt"
    env = {**pi_env(moved.home, dump), "PI_CODING_AGENT_DIR": str(folder)}
    commands = get_commands([str(wrapper)], env, moved.home, dump)
    assert addendum(prompt) in dump.read_text(encoding="utf-8")
    found = {c["name"]: c for c in commands if c.get("source") == "skill"}
    assert found[f"skill:{SKILL}"]["sourceInfo"]["path"] == str(moved.skill()), sorted(found)
    proven(
        "pi",
        "PI_CODING_AGENT_DIR moved: install writes the wrapper and prompt in "
        "$PI_CODING_AGENT_DIR/skilltool/ (no ~/.pi); through the wrapper pi's system prompt "
        "holds the prompt file appended (dumped by an extension pi loaded from the moved folder), "
        "and `get_commands` lists skill:moved-skill from ~/.agents/skills",
    )


def hermes(env: dict[str, str], home: Path, *args: str) -> str:
    """A hermes command that must succeed: its stdout."""
    done = run(["hermes", *args], env, home, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def hermes_prompt(moved: Moved, profile: Path) -> str:
    """Hermes's system prompt for a profile, built offline by its own code (as test_hermes.py)."""
    python = harness_cache() / "hermes-venv/bin/python"
    env = {**hermes_env(moved.home), "HERMES_HOME": str(profile)}
    done = subprocess.run(
        [str(python), "-c", BUILD_PROMPT], env=env, cwd=moved.home, capture_output=True,
        timeout=TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    return done.stdout.decode("utf-8")


def test_hermes_reads_skilltools_files_from_its_moved_folder(
    tmp_path: Path, proven: Proven
) -> None:
    need("hermes")
    folder = tmp_path / "moved/hermes"
    moved = moved_home(tmp_path, "HERMES_HOME", folder)
    env = {**hermes_env(moved.home), "HERMES_HOME": str(folder)}
    hermes(env, moved.home, "profile", "create", AGENT, "--no-alias")
    profile = folder / "profiles" / AGENT
    assert (profile / "SOUL.md").is_file()
    install(moved, ".hermes")
    assert (profile / "SOUL.md.before-skilltool").is_file()
    assert AGENT in hermes(env, moved.home, "profile", "list")
    dirs = hermes(env, moved.home, "-p", AGENT, "config", "get", "skills.external_dirs")
    assert str(moved.home / ".agents/skills") in dirs, dirs
    listed = hermes(env, moved.home, "-p", AGENT, "skills", "list")
    rows = dict(re.findall(r"^│ (\S+)\s+│.*│\s+(\w+)\s+│$", listed, re.M))
    assert rows.get(SKILL) == "enabled", listed
    prompt = hermes_prompt(moved, profile)
    assert prompt.startswith(as_hermes_sees_it((profile / "SOUL.md").read_text(encoding="utf-8")))
    assert BODY.strip() in prompt and f"- {SKILL}: " in prompt
    assert DEFAULT_IDENTITY not in prompt
    proven(
        "hermes",
        "HERMES_HOME moved: `hermes profile create moved-agent` makes $HERMES_HOME/profiles/"
        "moved-agent, install rewrites its SOUL.md and writes its config.yaml (no ~/.hermes); "
        "`hermes profile list` lists moved-agent, `hermes -p moved-agent skills list` lists "
        "moved-skill (enabled) through skills.external_dirs, and the profile's system prompt "
        "(built offline by Hermes's own code) starts with that SOUL.md, no default identity",
    )


def test_claude_reads_skilltools_files_from_its_moved_folder(
    tmp_path: Path, proven: Proven
) -> None:
    need("claude")
    folder = tmp_path / "moved/claude"
    moved = moved_home(tmp_path, "CLAUDE_CONFIG_DIR", folder)
    folder.mkdir(parents=True)
    install(moved, ".claude")
    assert (folder / "agents" / f"{AGENT}.md").is_file()
    assert (folder / "skills" / SKILL / "SKILL.md").is_file()
    with AnthropicStub(reply="ok") as stub:
        keys = {"ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": stub.base_url,
                "CLAUDE_CODE_MAX_RETRIES": "0"}  # fmt: skip
        event = init_event({**moved.env, **keys}, moved.home, tmp_path / "debug.log")
    assert AGENT in event["agents"], event["agents"]
    assert SKILL in event["skills"], event["skills"]
    # control: without the variable (no ~/.claude) neither is listed, though the skill is
    # also linked into ~/.agents/skills
    with AnthropicStub(reply="ok") as stub:
        keys["ANTHROPIC_BASE_URL"] = stub.base_url
        unmoved = {k: v for k, v in moved.env.items() if k != "CLAUDE_CONFIG_DIR"}
        control = init_event({**unmoved, **keys}, moved.home, tmp_path / "control.log")
    assert AGENT not in control["agents"] and SKILL not in control["skills"], control
    proven(
        "claude",
        "CLAUDE_CONFIG_DIR moved: install writes $CLAUDE_CONFIG_DIR/agents/moved-agent.md and "
        "links $CLAUDE_CONFIG_DIR/skills/moved-skill (no ~/.claude); the init event of "
        "`claude -p` (stub) lists moved-agent among its agents and moved-skill among its skills "
        "(control: without the variable, neither)",
    )


def test_gemini_reads_skilltools_files_from_its_moved_folder(
    tmp_path: Path, proven: Proven
) -> None:
    need("gemini")
    named = tmp_path / "moved/g"
    moved = moved_home(tmp_path, "GEMINI_CLI_HOME", named)
    folder = named / ".gemini"
    folder.mkdir(parents=True)
    (folder / "settings.json").write_text(json.dumps(GEMINI_SETTINGS, indent=2) + "\n")
    install(moved, ".gemini")
    assert (folder / "agents" / f"{AGENT}.md").is_file()
    extra = {"GEMINI_CLI_HOME": str(named)}
    env = gemini_env(moved.home, None, extra)
    done = run(["gemini", "skills", "list"], env, moved.home, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not LOAD_ERROR.search(done.stderr), done.stderr
    assert re.search(rf"^{SKILL} \[Enabled\]$", done.stdout, re.M), done.stdout
    locations = re.findall(rf"Location:\s+(\S+/{SKILL}/SKILL\.md)$", done.stdout, re.M)
    assert locations == [str(folder / "skills" / SKILL / "SKILL.md")], done.stdout
    with GeminiStub() as stub:
        env = gemini_env(moved.home, stub, extra)
        argv = ["gemini", "-p", "hi", "--skip-trust", "-m", GEMINI_MODEL]
        done = run(argv, env, moved.home, timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        request = stub.wait_for()
    assert f"\n- {AGENT} -> {DESCRIPTION}\n" in gemini_system(request)
    proven(
        "gemini",
        "GEMINI_CLI_HOME moved (a home): install writes $GEMINI_CLI_HOME/.gemini/agents/"
        "moved-agent.md and links the skill into $GEMINI_CLI_HOME/.gemini/skills (no ~/.gemini); "
        "`gemini skills list` lists moved-skill from there (its only location), and "
        "`gemini -p hi` (stub) lists `- moved-agent -> <description>` to the model",
    )


def copilot_skills(env: dict[str, str], work: Path) -> dict[str, dict[str, Any]]:
    """`copilot skill list --json`, by name: where each skill was found, and as what."""
    done = run(["copilot", "skill", "list", "--json"], env, work, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    return {s["name"]: s for s in json.loads(done.stdout)}


def test_copilot_reads_skilltools_files_from_its_moved_folder(
    tmp_path: Path, proven: Proven
) -> None:
    need("copilot")
    folder = tmp_path / "moved/copilot"
    moved = moved_home(tmp_path, "COPILOT_HOME", folder)
    folder.mkdir(parents=True)
    install(moved, ".copilot")
    assert (folder / "agents" / f"{AGENT}.agent.md").is_file()
    env = {**copilot_env(moved.home), "COPILOT_HOME": str(folder)}
    work = tmp_path / "work"  # in the home, ~/.agents/skills is also 'project'
    work.mkdir()
    done = run(["copilot", "--agent", "nonexistent", "-p", "x"], env, work, timeout=TIMEOUT)
    match = AVAILABLE.search(done.stderr)
    assert match, done.stdout + done.stderr
    assert AGENT in [name.strip() for name in match.group(1).split(",")], match.group(1)
    # with COPILOT_HOME set, Copilot reads no ~/.agents/skills (without it, that folder is its
    # 'personal-agents'): skilltool links the skills into $COPILOT_HOME/skills too
    found = copilot_skills(env, work).get(SKILL, {})
    assert (found.get("source"), found.get("path")) == (
        "personal-copilot",
        str(folder / "skills" / SKILL),
    ), found
    # control: the link in ~/.agents/skills alone is not read with COPILOT_HOME set
    (folder / "skills" / SKILL).unlink()
    assert SKILL not in copilot_skills(env, work)
    proven(
        "copilot",
        "COPILOT_HOME moved: install writes $COPILOT_HOME/agents/moved-agent.agent.md (no "
        "~/.copilot), listed among the available agents; Copilot then reads personal skills "
        "only from $COPILOT_HOME/skills, not ~/.agents/skills (control: the shared link alone "
        "is not listed), so skilltool links them there and `copilot skill list --json` lists "
        "moved-skill from it (personal-copilot)",
    )


def test_qwen_reads_skilltools_files_from_its_moved_folder(tmp_path: Path, proven: Proven) -> None:
    need("qwen")
    folder = tmp_path / "moved/qwen"
    moved = moved_home(tmp_path, "QWEN_HOME", folder)
    folder.mkdir(parents=True)
    (folder / "settings.json").write_text(json.dumps(QWEN_SETTINGS, indent=2) + "\n")
    install(moved, ".qwen")
    assert (folder / "agents" / f"{AGENT}.md").is_file()
    project = tmp_path / "project"
    project.mkdir()
    with AnthropicStub(reply="done") as stub:
        env = {**qwen_env(moved.home, stub), "QWEN_HOME": str(folder)}
        done = run(["qwen", "-p", "hi", *QWEN], env, project, timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        main = stub.wait_for(lambda r: "<skill>" in r.text, timeout=30)
    assert f"- **{AGENT}**: {DESCRIPTION}\n" in agent_tool(main)
    assert not (folder / "skills" / SKILL).exists()  # the skill is only in ~/.agents/skills
    assert any(f"<name>\n{SKILL}\n</name>" in t for t in main.texts()), main.text[-3000:]
    proven(
        "qwen",
        "QWEN_HOME moved: install writes $QWEN_HOME/agents/moved-agent.md (no ~/.qwen); "
        "`qwen -p hi` (stub) lists `- **moved-agent**: <description>` in its `agent` tool and "
        "moved-skill (linked only into ~/.agents/skills) among the skills",
    )


def test_vibe_reads_skilltools_files_from_its_moved_folder(tmp_path: Path, proven: Proven) -> None:
    need("vibe")
    # named .vibe inside another folder, so that test_vibe's stub_config writes its config there
    folder = tmp_path / "moved/.vibe"
    moved = moved_home(tmp_path, "VIBE_HOME", folder)
    folder.mkdir(parents=True)
    install(moved, ".vibe")
    prompt = (folder / "prompts" / f"{AGENT}.md").read_text(encoding="utf-8").strip()
    assert (folder / "agents" / f"{AGENT}.toml").is_file()
    project = tmp_path / "project"
    project.mkdir()
    with OpenAIStub(reply="vibe done") as stub:
        stub_config(folder.parent, stub)
        env = {**vibe_env(moved.home), "VIBE_HOME": str(folder)}
        done = run(["vibe", "-p", "hi", "--agent", AGENT], env, project, timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
    assert prompt in vibe_system(request) and VIBE_OWN_PROMPT not in vibe_system(request)
    assert not (folder / "skills" / SKILL).exists()  # the skill is only in ~/.agents/skills
    assert f"<name>{SKILL}</name>" in request.text, request.text[-3000:]
    proven(
        "vibe",
        "VIBE_HOME moved: install writes $VIBE_HOME/agents/moved-agent.toml and "
        "$VIBE_HOME/prompts/moved-agent.md (no ~/.vibe); `vibe -p hi --agent moved-agent` (stub, "
        "config.toml in $VIBE_HOME) sends the prompt file in place of Vibe's own prompt and "
        "lists moved-skill (linked only into ~/.agents/skills) to the model",
    )


def test_kimi_reads_skilltools_files_from_its_moved_folder(tmp_path: Path, proven: Proven) -> None:
    need("kimi")
    folder = tmp_path / "moved/kimi"
    moved = moved_home(tmp_path, "KIMI_CODE_HOME", folder)
    folder.mkdir(parents=True)
    install(moved, ".kimi-code")
    assert (folder / "agents" / f"{AGENT}.md").is_file()
    project = tmp_path / "project"
    project.mkdir()
    with OpenAIStub(reply="kimi done") as stub:
        env = {**kimi_env(moved.home, stub), "KIMI_CODE_HOME": str(folder)}
        done = run(["kimi", "-p", "hi"], env, project, timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        main = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
        done = run(["kimi", "-p", "hi", "--agent", AGENT], env, project, timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        [_, as_agent] = stub.model_requests()
    assert agent_types(main)[AGENT] == DESCRIPTION
    assert skills_listed(main)[SKILL] == str(moved.skill())  # only in ~/.agents/skills
    assert kimi_system(as_agent) == BODY.strip()
    assert not (moved.home / ".kimi-code").exists()
    proven(
        "kimi",
        "KIMI_CODE_HOME moved: install writes $KIMI_CODE_HOME/agents/moved-agent.md (no "
        "~/.kimi-code); `kimi -p hi` (stub) offers moved-agent in its Agent tool and lists "
        "moved-skill (linked only into ~/.agents/skills); `--agent moved-agent` sends its body",
    )


def test_droid_reads_skilltools_files_from_its_moved_folder(tmp_path: Path, proven: Proven) -> None:
    need("droid")
    named = tmp_path / "moved/f"
    moved = moved_home(tmp_path, "FACTORY_HOME_OVERRIDE", named)
    folder = named / ".factory"
    folder.mkdir(parents=True)
    install(moved, ".factory")
    assert (folder / "droids" / f"{AGENT}.md").is_file()
    assert (folder / "skills" / SKILL / "SKILL.md").is_file()  # linked there too
    # a skill only in the real ~/.agents/skills: Droid does not read that folder then
    build_file_tree(moved.home / ".agents/skills", {"home-only/SKILL.md": skill_md("home-only")})
    env = {"FACTORY_HOME_OVERRIDE": str(named)}
    _, request = droid_exec(moved.home, tmp_path / "work", "hi", env=env, factory=folder)
    text = said(request)
    assert droid_line(AGENT, DESCRIPTION) in section(text, "Custom droids available")
    skills = section(text, "Available skills")
    assert f"{SKILL}: {SKILL_DESCRIPTION}" in skills and "home-only" not in skills, skills
    proven(
        "droid",
        "FACTORY_HOME_OVERRIDE moved (a home): install writes $FACTORY_HOME_OVERRIDE/.factory/"
        "droids/moved-agent.md and links the skill into $FACTORY_HOME_OVERRIDE/.factory/skills "
        "(no ~/.factory); `droid exec` (stub) lists the droid and moved-skill, and not a skill "
        "only in the real ~/.agents/skills, which it does not read then",
    )


def test_cline_reads_skilltools_files_from_its_moved_folder(tmp_path: Path, proven: Proven) -> None:
    need("cline")
    from tests.conformance.test_cline import (
        cline_run,
        listed_skills,
        signed_in,
        subagent_tool,
        tools_of,
    )

    folder = tmp_path / "moved/cline"
    moved = moved_home(tmp_path, "CLINE_DIR", folder)
    folder.mkdir(parents=True)
    install(moved, ".cline")
    assert (folder / "agents" / f"{AGENT}.yml").is_file()
    extra = {"CLINE_DIR": str(folder)}
    with signed_in(moved.home, extra=extra) as stub:
        _, requests = cline_run(moved.home, stub, tmp_path / "work", "say hi", extra)
    offered = tools_of(requests[0])[subagent_tool(AGENT)]
    assert offered["description"] == f'Use the "{AGENT}" subagent: {DESCRIPTION}', offered
    assert SKILL in listed_skills(requests[0])  # linked only into ~/.agents/skills
    assert not (moved.home / ".cline").exists()
    proven(
        "cline",
        "CLINE_DIR moved: install writes $CLINE_DIR/agents/moved-agent.yml (no ~/.cline); "
        "`cline … 'say hi'` (stub) with CLINE_DIR offers subagent_moved_agent and lists "
        "moved-skill (linked only into ~/.agents/skills)",
    )


def test_qoder_reads_skilltools_files_from_its_moved_folder(tmp_path: Path, proven: Proven) -> None:
    need("qoder")
    from tests.conformance.test_qoder import listings

    folder = tmp_path / "moved/qoder"
    moved = moved_home(tmp_path, "QODER_CONFIG_DIR", folder)
    folder.mkdir(parents=True)
    install(moved, ".qoder")
    assert (folder / "agents" / f"{AGENT}.md").is_file()
    work = tmp_path / "work"
    work.mkdir()
    which = (("skills", "list"), ("agents", "list"))
    listed = listings(moved.home, work, {"QODER_CONFIG_DIR": str(folder)}, which)
    assert f"  {AGENT} · " in listed["agents"].split("User:", 1)[1], listed["agents"]
    assert f"  Location:    {moved.skill()}" in listed["skills"], listed["skills"]
    assert not (moved.home / ".qoder/agents").exists()
    proven(
        "qoder",
        "QODER_CONFIG_DIR moved: install writes $QODER_CONFIG_DIR/agents/moved-agent.md (no "
        "~/.qoder/agents); with it, `qodercli agents list` lists moved-agent and `skills list` "
        "moved-skill (linked only into ~/.agents/skills, which it still reads)",
    )


def test_amp_reads_skilltools_server_from_its_moved_folder(tmp_path: Path, proven: Proven) -> None:
    """Amp has no agent file: the row is its settings.json, with a server of the plugin's."""
    need("amp")
    from tests.conformance.sandbox import DEAD_PROXY

    config = tmp_path / "moved/config"
    moved = moved_home(tmp_path, "XDG_CONFIG_HOME", config)
    (config / "amp").mkdir(parents=True)
    server = {"command": "/bin/true", "args": ["moved"]}
    source = build_file_tree(tmp_path / "plugins/moved-amp", {
        ".claude-plugin/plugin.json": '{"name": "moved-amp", "version": "1.0.0"}\n',
        ".mcp.json": json.dumps({"mcpServers": {"moved-srv": server}}) + "\n",
    })  # fmt: skip
    env = {**moved.env, "PYTHONPATH": str(REPO), "SKILLTOOL_PLUGINS": str(source)}
    env["XDG_DATA_DIRS"] = str(tmp_path / "no-system-plugins")
    done = subprocess.run(
        [sys.executable, "-m", "skilltool", "plugins", "install"],
        env=env, cwd=moved.home, capture_output=True, encoding="utf-8", timeout=TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    written = json.loads((config / "amp/settings.json").read_text())
    assert written == {"amp.mcpServers": {"moved-srv": server}}
    assert not (moved.home / ".config/amp").exists()
    amp_env = {**moved.env, "AMP_API_KEY": "sk-conformance", "AMP_URL": DEAD_PROXY}
    listed = run(["amp", "mcp", "list"], amp_env, moved.home, timeout=TIMEOUT)
    assert "  moved-srv  command  /bin/true moved" in listed.stdout, listed.stdout + listed.stderr
    proven(
        "amp",
        "XDG_CONFIG_HOME moved: install writes the server into $XDG_CONFIG_HOME/amp/settings.json "
        "(no ~/.config/amp), and `amp mcp list` lists it from there",
    )
