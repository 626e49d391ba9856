"""What each harness does with a skill or agent that is not plain (HARNESSES.md, "What each
harness does with a SKILL.md that breaks a rule"), as the harness modules say it, and what
`validate` and `install` make of it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skilltool.harnesses import registry
from skilltool.parse import read_agent, read_skill
from skilltool.paths import Home
from tests.helpers import agent_md, build_file_tree, run

# one folder per variant of the table, beside a valid control skill
VARIANTS = {
    "control": "---\nname: control\ndescription: The control skill. Use always.\n---\nBody.\n",
    "caps-name": "---\nname: Caps Name\ndescription: A spaced name. Use in tests.\n---\nBody.\n",
    "other-folder": "---\nname: not-the-folder\ndescription: Named apart. Use in tests.\n---\nB.\n",
    "long-description": f"---\nname: long-description\ndescription: {'d' * 1500}\n---\nBody.\n",
    "list-tools": "---\nname: list-tools\ndescription: Tools. Use in tests.\n"
    "allowed-tools: [Read, Grep]\n---\nBody.\n",
    "unquoted-colon": "---\nname: unquoted-colon\ndescription: Use it when: asked\n---\nBody.\n",
    "hidden": "---\nname: hidden\ndescription: Hidden. Use in tests.\n"
    "disable-model-invocation: true\nuser-invocable: false\n---\nBody.\n",
    "dotted.name": "---\nname: dotted.name\ndescription: Dotted. Use in tests.\n---\nBody.\n",
    "list-hint": "---\nname: list-hint\ndescription: Hint. Use in tests.\n"
    "argument-hint: [file]\n---\nBody.\n",
    "no-name": "---\ndescription: No name at all. Use in tests.\n---\nBody.\n",
}
# the harnesses that skip each variant (None: every one loads it), from the table
SKIPPED_BY = {
    "control": set(),
    "caps-name": {"qwen", "vibe", "droid", "auggie", "openhands", "amp"},
    "other-folder": {"openhands"},
    "long-description": {"copilot", "vibe", "auggie"},
    "list-tools": set(),
    "unquoted-colon": {
        "pi",
        "copilot",
        "kilo",
        "vibe",
        "kimi",
        "cline",
        "auggie",
        "openhands",
        "amp",
        "continue",
    },
    "hidden": set(),
    "dotted.name": {"vibe", "droid", "auggie", "openhands", "amp"},
    "list-hint": {"copilot"},
    "no-name": {
        "opencode",
        "gemini",
        "kilo",
        "qwen",
        "vibe",
        "kimi",
        "droid",
        "cline",
        "auggie",
        "amp",
        "continue",
    },  # each seen in its binary
}


def skills_tree(root: Path) -> Path:
    return build_file_tree(root / "variants", {f"skills/{k}/SKILL.md": v for k, v in VARIANTS.items()})  # fmt: skip


def harnesses(home: Path) -> list[object]:
    where = Home(home, explicit=True)
    return [h(where) for h in registry().values()]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_harness_says_whether_it_loads_each_skill_variant(
    variant: str, tmp_path: Path, home: Path
) -> None:
    root = skills_tree(tmp_path)
    skill, problems = read_skill(root / "skills" / variant)
    assert skill is not None, problems
    assert skill.name == variant  # linked by its folder, whatever its name says
    verdicts = {h.name: h.skill_verdict(skill) for h in harnesses(home)}  # type: ignore[attr-defined]
    skipped = {n for n, v in verdicts.items() if v is not None and v.skips}
    assert skipped == SKIPPED_BY[variant]


def test_codex_cuts_a_long_description_and_copilot_names_spaces_with_hyphens(
    tmp_path: Path, home: Path
) -> None:
    root = skills_tree(tmp_path)
    found = {h.name: h for h in harnesses(home)}  # type: ignore[attr-defined]
    long, _ = read_skill(root / "skills/long-description")
    caps, _ = read_skill(root / "skills/caps-name")
    assert long is not None and caps is not None
    assert found["codex"].skill_verdict(long).why == "cut its description to 1024 characters"
    assert found["copilot"].skill_verdict(caps).why == "name it 'Caps-Name'"
    assert found["claude"].skill_verdict(caps) is None  # Claude Code names it by its folder


def test_every_variant_is_linked_since_none_makes_a_harness_fail_as_a_whole(
    tmp_path: Path, home: Path
) -> None:
    # HARNESSES.md: no variant made any harness fail as a whole, so each one is linked into
    # the shared skills dir and Claude Code's; a variant found to break a harness must not be
    root = skills_tree(tmp_path)
    (home / ".claude").mkdir()
    result = run("plugins", "install", "--home", home, env={"SKILLTOOL_PLUGINS": str(root)})
    assert "Traceback" not in result.stderr
    for place in (home / ".agents/skills", home / ".claude/skills"):
        assert sorted(os.listdir(place)) == sorted(VARIANTS)
        for name in VARIANTS:
            assert os.readlink(place / name) == str(root / "skills" / name)


def test_validate_prints_each_verdict_after_the_problems_of_its_skill(tmp_path: Path) -> None:
    root = skills_tree(tmp_path)
    result = run("plugins", "validate", root)
    assert result.code == 0, result.stdout  # warnings only
    verdicts = dict(line.split(": verdict: ", 1) for line in result.lines if ": verdict: " in line)
    skill = str(root / "skills/unquoted-colon/SKILL.md")
    assert verdicts[skill] == (
        "OpenCode, Hermes, Codex, Claude Code, Gemini CLI, Qwen Code, Factory Droid and Qoder CLI "
        "load it; pi, Copilot CLI, Kilo Code CLI, Mistral Vibe, Kimi Code, Cline CLI, Auggie, "
        "OpenHands, Continue CLI and Amp skip it: frontmatter is not valid YAML"
    )
    index = result.lines.index(f"{skill}: verdict: {verdicts[skill]}")
    assert result.lines[index - 1].startswith(f"{skill}:3: frontmatter is not valid YAML")
    assert verdicts[str(root / "skills/list-hint/SKILL.md")].endswith(
        "Copilot CLI skips it: argument-hint is not a string"
    )
    assert str(root / "skills/control/SKILL.md") not in verdicts  # no problem, loads everywhere


def test_validate_json_carries_the_verdicts_as_data(tmp_path: Path) -> None:
    root = skills_tree(tmp_path)
    data = json.loads(run("plugins", "validate", "--json", root).stdout)
    by_name = {v["name"]: v for v in data["verdicts"]}
    long = by_name["long-description"]
    assert long["harnesses"]["copilot"] == {
        "loads": False,
        "note": "description over 1024 characters",
    }
    assert long["harnesses"]["codex"]["loads"] is True
    assert by_name["control"]["summary"] == "loads everywhere"


@pytest.mark.parametrize(
    ("name", "refused_by"),
    [
        ("my.agent", {"gemini", "hermes", "qwen", "kimi"}),  # Qwen: letters, digits, '-', '_'
        ("Reviewer", {"gemini", "hermes", "kimi"}),  # Kimi Code: kebab-case only
        ("my_agent", {"kimi"}),
    ],
)
def test_agent_names_gemini_and_hermes_cannot_take_are_not_rendered_there(
    name: str, refused_by: set[str], tmp_path: Path, home: Path
) -> None:
    # Gemini CLI 0.61 rejects an agent whose name is not a slug ([a-z0-9_-]); Hermes 0.19 has
    # no profile of such a name; OpenCode, Claude Code and Copilot CLI load it
    root = build_file_tree(tmp_path / "p", {f"agents/{name}.md": agent_md(name)})
    agent, _ = read_agent(root / f"agents/{name}.md")
    assert agent is not None
    found = harnesses(home)
    skipped = {h.name for h in found if (v := h.agent_verdict(agent)) is not None and v.skips}  # type: ignore[attr-defined]
    assert skipped == refused_by | {"continue", "amp"}  # Continue CLI and Amp take no agent
    for directory in (".gemini", f".hermes/profiles/{name.lower()}", ".config/opencode"):
        (home / directory).mkdir(parents=True)
    result = run("plugins", "install", "--home", home, env={"SKILLTOOL_PLUGINS": str(root)})
    assert (home / f".gemini/agents/{name}.md").exists() == ("gemini" not in refused_by)
    assert (home / f".config/opencode/agent/{name}.md").is_file()
    if "gemini" in refused_by:
        assert any("not a Gemini slug" in line for line in result.stdout.splitlines())


def test_an_agent_whose_tools_none_map_says_so(tmp_path: Path, home: Path) -> None:
    root = build_file_tree(
        tmp_path / "p",
        {"agents/scout.md": agent_md("scout", extra="tools: Agent(a, b), mcp__x__y\n")},
    )
    agent, _ = read_agent(root / "agents/scout.md")
    assert agent is not None and agent.tools == ("Agent(a, b)", "mcp__x__y")
    found = {h.name: h.agent_verdict(agent) for h in harnesses(home)}  # type: ignore[attr-defined]
    assert found["pi"].why == "give it no tools (none of its tools has a pi name)"
    assert found["gemini"].why == "give it no tools (none of its tools has a Gemini name)"
    assert found["claude"] is None


def test_status_says_when_an_agent_gets_no_tools(tmp_path: Path, home: Path) -> None:
    root = build_file_tree(
        tmp_path / "p", {"agents/scout.md": agent_md("scout", extra="tools: Agent(a, b)\n")}
    )
    for directory in (".pi/agent", ".gemini", ".claude"):
        (home / directory).mkdir(parents=True)
    env = {"SKILLTOOL_PLUGINS": str(root)}
    assert run("plugins", "install", "--home", home, env=env).code == 0
    lines = run("plugins", "status", "-v", "--home", home, env=env).lines
    pi = next(
        line for line in lines if line.strip().startswith("pi ") and "skilltool/scout.md" in line
    )
    assert pi.endswith("(no tools: none of its tools has a pi name)"), lines
    gemini = next(line for line in lines if line.strip().startswith("gemini "))
    assert gemini.endswith("(no tools: none of its tools has a Gemini name)"), lines
    assert not next(line for line in lines if line.strip().startswith("claude ")).endswith(")")
    assert b"--no-tools" in (home / ".pi/agent/skilltool/scout").read_bytes()


def test_a_dotted_agent_name_gets_no_codex_profile(tmp_path: Path, home: Path) -> None:
    # Codex 0.171: `codex --profile my.agent` is "invalid --profile value"; the ACP session
    # config (CODEX_CONFIG) does not depend on the name
    root = build_file_tree(tmp_path / "p", {"agents/my.agent.md": agent_md("my.agent")})
    (home / ".codex").mkdir(exist_ok=True)
    env = {"SKILLTOOL_PLUGINS": str(root)}
    assert run("plugins", "install", "--home", home, env=env).code == 0
    assert (home / ".codex/skilltool/my.agent.json").is_file()
    assert not (home / ".codex/my.agent.config.toml").exists()
    launch = json.loads(
        run("plugins", "launch", "my.agent", "--harness", "codex", "--json", env=env).stdout
    )
    assert not any("--profile" in note for note in launch["notes"])
    agent, _ = read_agent(root / "agents/my.agent.md")
    assert agent is not None
    [codex] = [h for h in harnesses(home) if h.name == "codex"]  # type: ignore[attr-defined]
    assert "over ACP only" in codex.agent_verdict(agent).why


def test_the_renderings_of_a_removed_dotted_agent_are_pruned(tmp_path: Path, home: Path) -> None:
    root = build_file_tree(tmp_path / "p", {"agents/my.agent.md": agent_md("my.agent")})
    (home / ".pi/agent").mkdir(parents=True)
    env = {"SKILLTOOL_PLUGINS": str(root)}
    assert run("plugins", "install", "--home", home, env=env).code == 0
    wrapper = home / ".pi/agent/skilltool/my.agent"
    assert wrapper.is_file() and (home / ".pi/agent/skilltool/my.agent.md").is_file()
    (root / "agents/my.agent.md").unlink()
    assert run("plugins", "install", "--home", home, env=env).code == 0
    assert sorted(os.listdir(home / ".pi/agent/skilltool")) == []
