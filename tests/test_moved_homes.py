"""A harness whose folder the user moved with its own variable (CLAUDE_CONFIG_DIR, CODEX_HOME,
GEMINI_CLI_HOME, …, as each binary reads it) gets its files there: install writes them
there and nowhere else, status names the folder and the variable, uninstall removes them,
and `--home` (another home) reads none of the variables. The harnesses loading them there
is proven in tests/conformance/test_moved_homes.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run

AGENT = "plugin-author"  # the bundled plugin's agent
SKILL = "writing-skills"  # and one of its skills

# harness -> (its variable, the folder the variable names relative to the test's root, the
# harness's own folder there, where the bundled agent is written inside it)
MOVES = {
    "claude": ("CLAUDE_CONFIG_DIR", "alt/claude", "alt/claude", "agents/plugin-author.md"),
    "codex": ("CODEX_HOME", "alt/codex", "alt/codex", "skilltool/plugin-author.md"),
    "copilot": ("COPILOT_HOME", "alt/copilot", "alt/copilot", "agents/plugin-author.agent.md"),
    "gemini": ("GEMINI_CLI_HOME", "alt/g", "alt/g/.gemini", "agents/plugin-author.md"),
    "hermes": ("HERMES_HOME", "alt/hermes", "alt/hermes", "profiles/plugin-author/SOUL.md"),
    "pi": ("PI_CODING_AGENT_DIR", "alt/pi", "alt/pi", "skilltool/plugin-author.md"),
    "qwen": ("QWEN_HOME", "alt/qwen", "alt/qwen", "agents/plugin-author.md"),
    "vibe": ("VIBE_HOME", "alt/vibe", "alt/vibe", "agents/plugin-author.toml"),
    "kimi": ("KIMI_CODE_HOME", "alt/kimi", "alt/kimi", "agents/plugin-author.md"),
    "droid": ("FACTORY_HOME_OVERRIDE", "alt/f", "alt/f/.factory", "droids/plugin-author.md"),
    "cline": ("CLINE_DIR", "alt/cline", "alt/cline", "agents/plugin-author.yml"),
    "qoder": ("QODER_CONFIG_DIR", "alt/qoder", "alt/qoder", "agents/plugin-author.md"),
}
DEFAULTS = {
    "claude": ".claude",
    "codex": ".codex",
    "copilot": ".copilot",
    "gemini": ".gemini",
    "hermes": ".hermes",
    "pi": ".pi/agent",
    "qwen": ".qwen",
    "vibe": ".vibe",
    "kimi": ".kimi-code",
    "droid": ".factory",
    "cline": ".cline",
    "qoder": ".qoder",
}


@pytest.mark.parametrize("harness", sorted(MOVES))
def test_a_moved_harness_folder_gets_the_files_and_status_names_it(
    harness: str, home: Path, tmp_path: Path
) -> None:
    variable, named, folder, agent = MOVES[harness]
    (tmp_path / folder).mkdir(parents=True)
    if harness == "hermes":  # Hermes runs an agent as a profile of its own, made by the user
        (tmp_path / folder / "profiles/plugin-author").mkdir(parents=True)
    env = {variable: str(tmp_path / named)}
    installed = run("plugins", "install", "--only", harness, env=env)
    assert installed.code == 0, installed.stderr
    written = tmp_path / folder / agent
    assert written.exists(), installed.stdout
    assert not (home / DEFAULTS[harness]).exists()  # the default is never made
    status = run("plugins", "status", env=env)
    assert f"moved     {harness}: {tmp_path / folder} (${variable})" in status.lines
    data = json.loads(run("plugins", "status", "--json", env=env).stdout)
    assert data["harness_homes"][harness] == {"path": str(tmp_path / folder), "variable": variable}
    # another home, named with --home, reads none of this home's variables
    other = tmp_path / "other"
    other.mkdir()
    elsewhere = run("plugins", "status", "--home", other, "--json", env=env)
    assert json.loads(elsewhere.stdout)["harness_homes"] == {}
    assert run("plugins", "uninstall", "--only", harness, env=env).code == 0
    assert not written.exists()


def test_gemini_moved_by_its_home_variable_gets_the_skills_in_its_own_folder(
    home: Path, tmp_path: Path
) -> None:
    # GEMINI_CLI_HOME is the home Gemini CLI reads ~/.agents/skills from too: the real
    # ~/.agents/skills is not read, so the skills are linked into its own skills folder
    (tmp_path / "alt/g/.gemini").mkdir(parents=True)
    env = {"GEMINI_CLI_HOME": str(tmp_path / "alt/g")}
    assert run("plugins", "install", env=env).code == 0
    link = tmp_path / "alt/g/.gemini/skills" / SKILL
    assert link.is_symlink() and (link / "SKILL.md").is_file()
    assert (home / ".agents/skills" / SKILL).is_symlink()  # the others still read this one


def test_droid_moved_by_its_home_variable_gets_the_skills_in_its_own_folder(
    home: Path, tmp_path: Path
) -> None:
    # FACTORY_HOME_OVERRIDE is the home Factory Droid reads .agents/skills from too (the real
    # ~/.agents/skills is not read): the skills are linked into its own skills folder there
    (tmp_path / "alt/f/.factory").mkdir(parents=True)
    env = {"FACTORY_HOME_OVERRIDE": str(tmp_path / "alt/f")}
    assert run("plugins", "install", env=env).code == 0
    link = tmp_path / "alt/f/.factory/skills" / SKILL
    assert link.is_symlink() and (link / "SKILL.md").is_file()
    assert not (home / ".factory").exists()


def test_copilot_moved_by_its_variable_gets_the_skills_in_its_own_folder(
    home: Path, tmp_path: Path
) -> None:
    # with COPILOT_HOME set, Copilot CLI reads personal skills only from $COPILOT_HOME/skills
    (tmp_path / "alt/copilot").mkdir(parents=True)
    env = {"COPILOT_HOME": str(tmp_path / "alt/copilot")}
    assert run("plugins", "install", env=env).code == 0
    assert (tmp_path / "alt/copilot/skills" / SKILL / "SKILL.md").is_file()


@pytest.mark.parametrize(
    "line",
    ["QWEN_HOME={where}", "export QWEN_HOME='{where}'", "QWEN_HOME: {where}  # moved"],
)
def test_qwen_home_set_in_its_env_file_moves_it_as_qwen_reads_it(
    line: str, home: Path, tmp_path: Path
) -> None:
    where = tmp_path / "alt/qwen"
    where.mkdir(parents=True)
    (home / ".env").write_text("OTHER=1\n" + line.format(where=where) + "\n")
    assert run("plugins", "install", "--only", "qwen").code == 0
    assert (where / "agents" / f"{AGENT}.md").exists()
    assert not (home / ".qwen").exists()


def test_a_variable_naming_the_default_or_a_tilde_path_is_read_as_the_harness_reads_it(
    home: Path,
) -> None:
    (home / "moved-vibe").mkdir()
    status = run(
        "plugins", "status", env={"VIBE_HOME": "~/moved-vibe", "CODEX_HOME": str(home / ".codex")}
    )
    assert "moved     vibe: ~/moved-vibe ($VIBE_HOME)" in status.lines
    assert not any(line.startswith("moved     codex") for line in status.lines)
