"""Every harness rendering: snapshots, the exact body, and what each format must (not) hold."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skilltool import markers
from skilltool.harnesses import NAMES, heading, registry
from skilltool.model import Agent
from skilltool.parse import read_agent
from skilltool.paths import Home
from tests.helpers import REPO, agent_md, build_file_tree, run, scrub, toml_loads

BUNDLED_AGENT = REPO / "resources/plugins/skilltool/agents/plugin-author.md"
TRICKY = (
    "---\r\n"
    "name: tricky\r\n"
    "description: 'Says \"hi\" and it''s: unicode — ünïcødé ✓'\r\n"
    "tools: Read, Grep, Bash, WebFetch\r\n"
    "skills: [pdf-tools]\r\n"
    "model: sonnet\r\n"
    "harnesses:\r\n"
    "  opencode: {model: anthropic/claude-sonnet-4-5}\r\n"
    "  codex: {model: gpt-5-codex}\r\n"
    "---\r\n"
    "\r\nYou are tricky. ✓ ünïcødé\r\n---\r\nA line of dashes above, and `$HOME` \"quotes\" 'too'.\r\n"
    "---\r\nno final newline"
)


def tricky_agent(tmp_path: Path) -> Agent:
    path = tmp_path / "src/agents/tricky.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(TRICKY.encode("utf-8"))
    agent, problems = read_agent(path)
    assert agent is not None, problems
    return agent


def bundled_agent() -> Agent:
    agent, problems = read_agent(BUNDLED_AGENT)
    assert agent is not None, problems
    return agent


def renderings(harness: str, agent: Agent, home: Path) -> dict[str, bytes]:
    found = registry()[harness](Home(home, explicit=True)).render(agent)
    return {str(r.target.relative_to(home)): r.content for r in found}


def body_of(relative: str, content: bytes, agent: Agent) -> str:
    """What a harness gets as the agent's instructions, taken back out of a rendering."""
    text = content.decode("utf-8")
    prefix = heading(agent) + "\n"
    if relative.endswith(".json"):
        instructions = json.loads(text)["developer_instructions"]
    elif relative.endswith(".toml"):
        instructions = toml_loads(text)["developer_instructions"]
    elif text.startswith("---\n"):  # an agent file: frontmatter, then the body as it is
        return text.split("\n---\n", 1)[1]
    else:  # a plain file: the marker line, then the heading
        instructions = text.split("\n", 1)[1]
    assert instructions.startswith(prefix)
    return str(instructions[len(prefix) :])


def _prompt_files(harness: str, files: dict[str, bytes]) -> dict[str, bytes]:
    # the prompt-carrying files: not Hermes's config.yaml, not pi's wrapper script, not the
    # Vibe agent TOML that names its prompt file
    return {k: v for k, v in files.items()
            if Path(k).suffix and not k.endswith("config.yaml") and not k.startswith(".vibe/agents/")}  # fmt: skip


# the harnesses that take no agent of skilltool's (docs/harnesses.md says why)
AGENTLESS = frozenset({"continue", "amp"})
RENDERS = [n for n in NAMES if n not in AGENTLESS]


@pytest.mark.parametrize("harness", RENDERS)
@pytest.mark.parametrize("which", ["bundled", "tricky"])
def test_rendering_snapshot(harness: str, which: str, home: Path, tmp_path: Path, snapshot) -> None:  # type: ignore[no-untyped-def]
    agent = bundled_agent() if which == "bundled" else tricky_agent(tmp_path)
    files = renderings(harness, agent, Path("/home/user"))  # a fixed home: stable digests
    shown = {k: scrub(v.decode("utf-8"), tmp_path) for k, v in files.items()}
    assert shown == snapshot


@pytest.mark.parametrize("harness", RENDERS)
def test_body_is_byte_identical_in_every_rendering(
    harness: str, home: Path, tmp_path: Path
) -> None:
    for agent in (bundled_agent(), tricky_agent(tmp_path)):
        files = _prompt_files(harness, renderings(harness, agent, home))
        assert files
        for relative, content in files.items():
            assert body_of(relative, content, agent) == agent.body, relative


bodies = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=200
).map(lambda s: s.replace("\n", "\r\n") if len(s) % 3 == 0 else s)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=st.one_of(bodies, st.lists(st.sampled_from(["---", "\r\n", "\n", "x", "✓", "'\"$`\\"]),
                                       max_size=12).map("".join)))  # fmt: skip
def test_body_round_trips_through_every_format(body: str, home: Path) -> None:
    source = home / "p/agents/gen.md"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_bytes(("---\nname: gen\ndescription: generated\n---\n" + body).encode("utf-8"))
    agent, problems = read_agent(source)
    assert agent is not None, problems
    assert agent.body == body
    for harness in NAMES:
        for relative, content in _prompt_files(harness, renderings(harness, agent, home)).items():
            assert body_of(relative, content, agent) == body, (harness, relative)
            assert markers.find(content) is not None and markers.find(content).intact  # type: ignore[union-attr]


def test_opencode_never_gets_tools_or_a_claude_model(home: Path, tmp_path: Path) -> None:
    agent = tricky_agent(tmp_path)
    [content] = renderings("opencode", agent, home).values()
    front = yaml.safe_load(content.decode().split("---\n")[1])
    assert front == {"description": agent.description, "mode": "subagent",
                     "model": "anthropic/claude-sonnet-4-5"}  # fmt: skip
    plain = Agent("plain", agent.path, "d", "body", ("Read",), (), "sonnet")
    [content] = renderings("opencode", plain, home).values()
    assert "model" not in yaml.safe_load(content.decode().split("---\n")[1])


def test_codex_session_config_is_json_with_developer_instructions(
    home: Path, tmp_path: Path
) -> None:
    agent = tricky_agent(tmp_path)
    files = renderings("codex", agent, home)
    session = json.loads(files[".codex/skilltool/tricky.json"])
    assert session["model"] == "gpt-5-codex"
    assert "model_instructions_file" not in session
    profile = toml_loads(files[".codex/tricky.config.toml"].decode())
    assert set(profile) == {"developer_instructions", "model"}
    assert profile["developer_instructions"] == session["developer_instructions"]


def test_pi_wrapper_is_safe_for_any_path_and_enforces_tools(tmp_path: Path) -> None:
    home = tmp_path / "a home with 'quotes' and $dollar"
    (home / ".pi/agent").mkdir(parents=True)
    agent = tricky_agent(tmp_path)
    files = renderings("pi", agent, home)
    wrapper = files[".pi/agent/skilltool/tricky"].decode()
    # run the wrapper with a fake pi that prints its arguments, one per line
    fake = tmp_path / "bin/pi"
    build_file_tree(tmp_path, {"bin/pi": '#!/bin/sh\nfor a in "$@"; do echo "$a"; done\n'})
    fake.chmod(0o755)
    script = home / ".pi/agent/skilltool/tricky"
    script.parent.mkdir(parents=True)
    script.write_text(wrapper)
    script.chmod(0o755)
    (home / ".pi/agent/skilltool/tricky.md").write_bytes(files[".pi/agent/skilltool/tricky.md"])
    import subprocess

    out = subprocess.run([str(script), "--extra", "a b"], capture_output=True, text=True, check=True,
                         env={**os.environ, "PATH": f"{fake.parent}:{os.environ['PATH']}"})  # fmt: skip
    assert out.stdout.splitlines() == [
        "--tools", "read,grep,bash", "--append-system-prompt",
        str(home / ".pi/agent/skilltool/tricky.md"), "--extra", "a b",
    ]  # fmt: skip


def test_pi_wrapper_refuses_to_run_without_its_prompt_file(tmp_path: Path) -> None:
    home = tmp_path / "home2"
    (home / ".pi/agent/skilltool").mkdir(parents=True)
    files = renderings("pi", tricky_agent(tmp_path), home)
    script = home / ".pi/agent/skilltool/tricky"
    script.write_bytes(files[".pi/agent/skilltool/tricky"])
    script.chmod(0o755)
    import subprocess

    out = subprocess.run([str(script)], capture_output=True, text=True)
    assert out.returncode == 1
    assert "tricky.md is missing" in out.stderr


def test_render_command_prints_without_writing(home: Path) -> None:
    (home / ".config/opencode").mkdir(parents=True)
    result = run("plugins", "render", "plugin-author", "--harness", "opencode", "--home", home)
    assert result.code == 0
    assert result.stdout.startswith("---\n# rendered by skilltool from ")
    assert "mode: subagent" in result.stdout  # out of the Tab cycle; launch makes it primary
    assert not (home / ".config/opencode/agent").exists()


def test_render_unknown_agent_or_harness(home: Path) -> None:
    result = run("plugins", "render", "nobody", "--harness", "codex", "--home", home)
    assert result.code == 1
    assert "no agent 'nobody'" in result.stderr
    result = run("plugins", "render", "plugin-author", "--harness", "vim", "--home", home)
    assert result.code == 2


# the harnesses whose ACP server no route starts as a plugin agent (docs/acp.md)
NO_ACP_AGENT = frozenset({"droid", "cline", "qoder", "continue", "amp"})


@pytest.mark.parametrize("harness", [n for n in NAMES if n not in NO_ACP_AGENT])
def test_launch_gives_command_env_and_agents_toml(harness: str, home: Path) -> None:
    result = run("plugins", "launch", "plugin-author", "--harness", harness, "--home", home)
    assert result.code == 0, result.stderr
    block = result.stdout.split("# agents.toml\n", 1)[1]
    toml_part = "\n".join(line for line in block.splitlines() if not line.startswith("# "))
    [entry] = toml_loads(toml_part)["agents"]
    expected = {
        "opencode": ("opencode", ["acp"], {"OPENCODE_CONFIG_CONTENT":
                     '{"default_agent":"plugin-author","agent":{"plugin-author":{"mode":"primary"}}}'}),
        "hermes": ("hermes", ["-p", "plugin-author", "acp"], None),
        "codex": ("codex-acp", [], {"CODEX_CONFIG": "{file:~/.codex/skilltool/plugin-author.json}"}),
        "pi": ("pi-acp", [], {"PI_ACP_PI_COMMAND": str(home / ".pi/agent/skilltool/plugin-author")}),
        "claude": ("claude-agent-acp", [], None),
        "gemini": ("gemini", ["--acp"], None),
        "copilot": ("copilot", ["--acp"], None),
        "kilo": ("kilo", ["acp"], {"KILO_CONFIG_CONTENT": '{"default_agent":"plugin-author"}'}),
        "qwen": ("qwen", ["--acp"], None),
        "vibe": ("vibe-acp", [], {"VIBE_DEFAULT_AGENT": "plugin-author"}),
        "kimi": ("kimi", ["acp"], None),
        "auggie": ("auggie", ["--acp"], None),
        "openhands": ("openhands", ["acp"], None),
    }[harness]  # fmt: skip
    assert (entry["command"], entry["args"], entry.get("env")) == expected


NO_ACP_AGENT_LINE = {
    "droid": "skilltool: Factory Droid cannot start as a custom droid over ACP: 'droid exec "
    "--output-format acp' has no agent option and leaves out --append-system-prompt there; "
    "in a terminal: droid, then ask for the plugin-author droid",
    "cline": "skilltool: Cline CLI cannot start as an agent over ACP: 'cline --acp' starts a "
    "session only once signed in to a provider and has no agent option; in a terminal: "
    "cline, then ask for the plugin-author subagent",
    "qoder": "skilltool: Qoder CLI cannot start as an agent over ACP here: 'qodercli --acp' "
    "answers initialize, but starts a session only once signed in to Qoder; in a terminal: "
    "qodercli --agent plugin-author",
    "continue": "skilltool: Continue CLI 1.5.47 cannot start as an agent over ACP: cn has no "
    "ACP server, and takes no agent of skilltool's; in a terminal: cn",
    "amp": "skilltool: Amp cannot start as an agent over ACP: it has no ACP mode, and a session "
    "needs an account at ampcode.com; in a terminal: amp",
}


@pytest.mark.parametrize("harness", sorted(NO_ACP_AGENT))
def test_launch_says_in_one_line_why_a_harness_cannot_start_as_the_agent(
    home: Path, harness: str
) -> None:
    result = run("plugins", "launch", "plugin-author", "--harness", harness, "--home", home)
    assert result.code == 1 and not result.stdout
    assert result.stderr.strip() == NO_ACP_AGENT_LINE[harness]


def _front(content: bytes) -> dict[str, object]:
    front = yaml.safe_load(content.decode("utf-8").split("---\n")[1])
    assert isinstance(front, dict)
    return front


def test_gemini_gets_only_its_schema_keys_and_tool_names(home: Path, tmp_path: Path) -> None:
    [content] = renderings("gemini", tricky_agent(tmp_path), home).values()
    front = _front(content)
    assert set(front) <= {"name", "description", "tools", "model", "kind", "display_name"}
    assert "skills" not in front
    assert front["tools"] == ["read_file", "grep_search", "run_shell_command", "web_fetch",
                              "activate_skill"]  # fmt: skip
    assert "model" not in front  # 'sonnet' is not a Gemini model
    override = Agent(
        "g", Path("/p/agents/g.md"), "d", "b", (), (), None, {"gemini": {"model": "gemini-2.5-pro"}}
    )
    [content] = renderings("gemini", override, home).values()
    assert _front(content)["model"] == "gemini-2.5-pro"
    assert "tools" not in _front(content)  # nothing to map: no key, never a Claude string


def test_copilot_skills_are_always_a_yaml_list(home: Path, tmp_path: Path) -> None:
    [content] = renderings("copilot", tricky_agent(tmp_path), home).values()
    front = _front(content)
    assert front["skills"] == ["pdf-tools"]
    # a list: Copilot would split a string inside `Agent(a, b)` at its comma
    assert front["tools"] == ["Read", "Grep", "Bash", "WebFetch"]
    assert "model" not in front


def test_claude_keeps_its_own_format(home: Path, tmp_path: Path) -> None:
    agent = tricky_agent(tmp_path)
    [(relative, content)] = renderings("claude", agent, home).items()
    assert relative == ".claude/agents/tricky.md"
    assert _front(content) == {"name": "tricky", "description": agent.description,
                               "tools": "Read, Grep, Bash, WebFetch", "skills": ["pdf-tools"],
                               "model": "sonnet"}  # fmt: skip


# the shape Claude Code's agent generator writes (not valid YAML: Claude Code repairs it), with
# the keys real agents carry beyond the five skilltool reads, and Claude's own tool syntax
SLOPPY = (
    "---\n"
    "name: sloppy-reviewer\n"
    'description: Use this agent after a change. Examples:\\n\\n<example>\\nuser: "Review it"\\n'
    'assistant: "I will use the sloppy-reviewer agent"\\n</example>\n'
    "tools: Bash(git log:*), Agent(helper, scout), mcp__github__get_issue, Read\n"
    "model: opus[1m]\n"
    "effort: xhigh\n"
    "color: purple\n"
    "initialPrompt: Start by reading the diff\n"
    "permissionMode: plan\n"
    "disallowedTools: [Write]\n"
    "maxTurns: 12\n"
    "mcpServers: {github: {command: gh-mcp, args: [--stdio]}}\n"
    "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks: [{type: command, command: ./check.sh}]\n"
    "memory: project\n"
    "created: 2026-01-31\n"
    "x-unknown: kept too\n"
    "---\n"
    "You review changes.\n"
)


def sloppy_agent(tmp_path: Path) -> Agent:
    path = tmp_path / "src/agents/sloppy-reviewer.md"
    path.parent.mkdir(parents=True)
    path.write_text(SLOPPY, encoding="utf-8")
    agent, problems = read_agent(path)
    assert agent is not None and agent.repaired, problems
    return agent


def test_claude_keeps_every_key_of_the_source_with_its_value(home: Path, tmp_path: Path) -> None:
    agent = sloppy_agent(tmp_path)
    [content] = renderings("claude", agent, home).values()
    text = content.decode("utf-8")
    assert text.split("\n")[1].startswith("# rendered by skilltool from ")  # the marker first
    front = _front(content)
    source = dict(agent.fields)
    assert front.pop("description") == agent.description  # \n escapes as Claude reads them
    assert (
        front.pop("tools") == "Bash(git log:*), Agent(helper, scout), mcp__github__get_issue, Read"
    )
    assert front == {k: v for k, v in source.items() if k not in ("description", "tools")}
    assert front["model"] == "opus[1m]" and front["created"] == "2026-01-31"


@pytest.mark.parametrize(
    "model", ["fable", "best", "sonnet[1m]", "opus[1m]", "fable[1m]", "inherit"]
)
def test_claude_takes_the_models_claude_code_resolves(model: str, home: Path) -> None:
    agent = Agent("a", Path("/p/agents/a.md"), "d", "b", model=model)
    [content] = renderings("claude", agent, home).values()
    assert _front(content)["model"] == model


@pytest.mark.parametrize("model", ["default", "haiku[2m]", "gpt-5"])
def test_claude_leaves_out_a_model_it_would_send_as_it_is(model: str, home: Path) -> None:
    agent = Agent("a", Path("/p/agents/a.md"), "d", "b", model=model)
    [content] = renderings("claude", agent, home).values()
    assert "model" not in _front(content)


@pytest.mark.parametrize("harness", NAMES)
def test_a_sloppy_agent_renders_valid_files_everywhere(
    harness: str, home: Path, tmp_path: Path
) -> None:
    agent = sloppy_agent(tmp_path)
    files = renderings(harness, agent, home)
    for relative, content in files.items():
        text = content.decode("utf-8")
        if relative.endswith(".json"):
            json.loads(text)
        elif relative.endswith((".toml", "config.yaml")):
            (toml_loads if relative.endswith(".toml") else yaml.safe_load)(text)
        elif text.startswith("---\n"):
            assert _front(content)["description"] == agent.description
    for relative, content in _prompt_files(harness, files).items():
        assert body_of(relative, content, agent) == agent.body


def test_no_mapped_tool_gives_no_tools_in_pi_and_gemini(home: Path, tmp_path: Path) -> None:
    agent = Agent("a", Path("/p/agents/a.md"), "d", "b", tools=("Agent(x, y)", "mcp__s__t"))
    [_, wrapper] = renderings("pi", agent, home).values()
    assert b" --no-tools --append-system-prompt " in wrapper
    [content] = renderings("gemini", agent, home).values()
    assert _front(content)["tools"] == []  # Gemini 0.61: an empty list is no tools at all
    # no tool list at all keeps each harness's default set
    plain = agent._replace(tools=())
    assert b"--no-tools" not in renderings("pi", plain, home)[".pi/agent/skilltool/a"]
    assert "tools" not in _front(renderings("gemini", plain, home)[".gemini/agents/a.md"])


# what a YAML frontmatter value can be, text with the characters that need quoting included
yaml_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.text(st.sampled_from(list("ab: #'\"\\\n\t{}[]*&!|>%@`-✓")), max_size=12),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.text("abc-_", min_size=1, max_size=4), inner, max_size=3),
    ),
    max_leaves=8,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    description=st.text(st.sampled_from(list("ab: #'\"\\\n{}✓")), min_size=1, max_size=20),
    extra=st.dictionaries(st.sampled_from(["effort", "color", "hooks", "x-y", "maxTurns"]), yaml_values, max_size=4),
)  # fmt: skip
def test_claude_rendering_reads_back_every_key_whatever_it_holds(
    description: str, extra: dict[str, object], home: Path
) -> None:
    fields = {"name": "gen", "description": description, **extra}
    agent = Agent("gen", Path("/p/agents/gen.md"), description, "b\n", fields=fields)
    [content] = renderings("claude", agent, home).values()
    front = _front(content)
    assert front == fields


def test_kilo_never_gets_tools_or_a_claude_model(home: Path, tmp_path: Path) -> None:
    [(relative, content)] = renderings("kilo", tricky_agent(tmp_path), home).items()
    assert relative == ".config/kilo/agents/tricky.md"
    assert set(_front(content)) == {"description", "mode"}  # Kilo drops a tools string's agent
    override = Agent("k", Path("/p/agents/k.md"), "d", "b", ("Read",), (), "sonnet",
                     {"kilo": {"model": "kilo/anthropic/claude-sonnet-4"}})  # fmt: skip
    [content] = renderings("kilo", override, home).values()
    assert _front(content) == {"description": "d", "mode": "primary",
                               "model": "kilo/anthropic/claude-sonnet-4"}  # fmt: skip


def test_kilo_never_replaces_one_of_its_own_agents(home: Path, tmp_path: Path) -> None:
    source = build_file_tree(tmp_path / "src/demo", {"agents/plan.md": (
        "---\nname: plan\ndescription: A plugin's plan agent.\n---\nPlan things.\n")})  # fmt: skip
    (home / ".config/kilo").mkdir(parents=True)
    result = run("plugins", "install", "--only", "kilo", "--home", home,
                 env={"SKILLTOOL_PLUGINS": str(source)})  # fmt: skip
    assert result.code == 0, result.stderr
    assert (
        "skipped   kilo: 'plan' is the name of a built-in agent of Kilo Code CLI (7.7.7)"
        in result.stdout
    )
    assert not (home / ".config/kilo/agents").exists()


def test_qwen_gets_its_own_tool_names_and_models(home: Path, tmp_path: Path) -> None:
    [content] = renderings("qwen", tricky_agent(tmp_path), home).values()
    front = _front(content)
    assert front == {"name": "tricky", "description": front["description"],
                     "tools": ["read_file", "grep_search", "run_shell_command", "web_fetch",
                               "skill"]}  # fmt: skip
    own = Agent("q", Path("/p/agents/q.md"), "d", "body", ("Read", "Bogus"), (), "qwen3-coder-plus")
    [content] = renderings("qwen", own, home).values()
    assert _front(content)["model"] == "qwen3-coder-plus"
    assert _front(content)["tools"] == ["read_file"]


@pytest.mark.parametrize(
    ("name", "body", "said"),
    [
        (
            "helper",
            "\r\n  short  \r\n",
            "the body is under 10 characters, which Qwen Code drops: write more",
        ),
        (
            "default",
            "A body long enough.\n",
            "Qwen Code reserves the name 'default': rename the agent",
        ),
        ("codex", "A body long enough.\n", "'codex' is the name of a built-in agent of Qwen Code"),
        ("q", "A body long enough.\n", "Qwen Code refuses the name 'q'"),
    ],
)
def test_qwen_skips_an_agent_it_would_drop_with_a_line(
    home: Path, tmp_path: Path, name: str, body: str, said: str
) -> None:
    source = build_file_tree(tmp_path / "src/demo", {f"agents/{name}.md": (
        f"---\nname: {name}\ndescription: An agent for tests.\n---\n{body}")})  # fmt: skip
    (home / ".qwen").mkdir()
    result = run("plugins", "install", "--only", "qwen", "--home", home,
                 env={"SKILLTOOL_PLUGINS": str(source)})  # fmt: skip
    assert result.code == 0, result.stderr
    assert f"skipped   qwen: {said}" in result.lines[0], result.stdout
    assert not (home / ".qwen/agents").exists()


def test_launch_refuses_an_agent_named_like_a_built_in_one(home: Path, tmp_path: Path) -> None:
    build_file_tree(tmp_path / "plugins/scout", {"agents/plan.md": agent_md("plan")})
    env = {"SKILLTOOL_PLUGINS": str(tmp_path / "plugins")}
    result = run("plugins", "launch", "plan", "--harness", "opencode", "--home", home, env=env)
    assert result.code == 1
    assert "OpenCode cannot start the plugin's plan: 'plan' is the name of a built-in" in (
        result.stderr
    )
    assert run("plugins", "launch", "plan", "--harness", "codex", "--home", home, env=env).code == 0
