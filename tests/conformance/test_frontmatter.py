"""Claude-style frontmatter, read as the real harnesses read it: Claude Code loads each agent
shape exactly when skilltool reads it (with the description skilltool reads), the renderings
of those sloppy agents load in the strict harnesses, and `validate`'s per-harness verdicts on
the skill variants match what Claude Code, Codex, Copilot CLI, Gemini CLI, Kilo Code CLI, Qwen
Code, Mistral Vibe, Kimi Code and Factory Droid list.

One plugin with every shape, one home with every harness but Hermes, one install."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from skilltool.parse import read_agent
from tests.conformance.homes import REPO, TIMEOUT, harness_dirs
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import AnthropicStub, OpenAIStub
from tests.conformance.support import Proven, need
from tests.harnesses.test_verdicts import VARIANTS

pytestmark = pytest.mark.conformance

LONG = "Reviews long things. " * 150  # 3,150 characters: no harness limits an agent's
AGENTS = {
    # the shape Claude Code's own agent generator writes: not valid YAML
    "generated.md": "---\nname: generated-reviewer\n"
    "description: Use this agent after a change. Examples:\\n\\n<example>\\nContext: a diff\\n"
    'user: "Review it"\\nassistant: "I will use the generated-reviewer agent"\\n</example>\n'
    "model: inherit\ncolor: blue\n---\nYou review changes.\n",
    # an unquoted ': ', Claude's tool syntax, and the keys real agents carry
    "colon.md": "---\nname: colon-agent\ndescription: Use it when: a change lands\n"
    "tools: Bash(git log:*), Agent(generated-reviewer, long-agent), mcp__github__get_issue, Read\n"
    "model: opus[1m]\neffort: xhigh\npermissionMode: plan\nmaxTurns: 12\n"
    "initialPrompt: Start with the diff\ndisallowedTools: [Write]\nmemory: project\n"
    "mcpServers:\n  - github\n---\nYou check changes.\n",
    "long.md": f"---\nname: long-agent\ndescription: {LONG}\nmodel: fable\n---\nYou read.\n",
    "at.md": "---\nname: at-agent\ndescription: @mentions first, then: more\n---\nYou mention.\n",
    "dotted.md": "---\nname: my.agent\ndescription: A dotted name\ntools: Read, Grep\n---\nDots.\n",
    "caps.md": "---\nname: CapsAgent\ndescription: A name with capitals\n---\nCaps.\n",
    # a list Claude Code's repair leaves a list: the agent has exactly these tools
    "listed.md": "---\nname: listed-agent\ndescription: Use it when: tools are a list\n"
    'tools: ["Read", "Grep"]\n---\nLists.\n',
    "none-maps.md": "---\nname: none-maps\ndescription: Only tools no other harness has\n"
    "tools: Agent(generated-reviewer), mcp__github__get_issue\n---\nDelegates.\n",
    # what Claude Code drops, and so does skilltool
    "dropped.md": "---\nname: dropped-agent\ndescription: first line\n"
    "second line without a key\n---\nDropped.\n",
    "nested.md": "---\nname: nested-agent\ndescription: fine\nmetadata:\n"
    "  note: an indented line: is not repaired\n---\nDropped.\n",
    "crlf.md": "---\r\nname: crlf-agent\r\ndescription: a CRLF line: is not repaired\r\n"
    "---\r\nDropped.\r\n",
}
CLAUDE_BUILT_IN = {"claude", "Explore", "general-purpose", "Plan", "statusline-setup"}
# skills a harness lists but keeps from the model by their own fields: not compared
NOT_OFFERED = {"hidden"}
LOAD_ERROR = re.compile(r"Error loading user agent|Agent loading error")
HARNESSES = (
    "opencode", "codex", "pi", "claude", "gemini", "copilot", "kilo", "qwen", "vibe", "kimi", "droid",
    "cline", "auggie", "qoder", "openhands", "amp", "continue",
)  # fmt: skip


@dataclass(frozen=True)
class World:
    root: Path
    plugin: Path
    home: Path
    install: str
    verdicts: dict[str, dict[str, Any]]  # skill or agent name -> validate's verdict record
    agents: dict[str, str]  # the agents skilltool reads: name -> description
    tools: dict[str, tuple[str, ...]]  # the tools skilltool reads for each of them

    def loads(self, harness: str) -> set[str]:
        """The skill variants `validate` says this harness loads."""
        return {
            name
            for name, v in self.verdicts.items()
            if v["kind"] == "skill" and v["harnesses"][harness]["loads"]
        } - NOT_OFFERED


def compared(listed: set[str]) -> set[str]:
    """The skill variants among what a harness listed, less those it keeps from the model."""
    return (listed & set(VARIANTS)) - NOT_OFFERED


def skilltool(world_root: Path, home: Path, plugin: Path, *args: str) -> str:
    env = harness_env(home)
    env.update({"PYTHONPATH": str(REPO), "SKILLTOOL_PLUGINS": str(plugin)})
    env["XDG_DATA_DIRS"] = str(world_root / "no-system-plugins")
    done = subprocess.run(
        [sys.executable, "-m", "skilltool", "plugins", *args, "--home", str(home)],
        env=env, cwd=home, capture_output=True, encoding="utf-8", timeout=TIMEOUT,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = tmp_path_factory.mktemp("frontmatter")
    plugin = root / "plugins/claude-style"
    for name, text in AGENTS.items():
        (plugin / "agents").mkdir(parents=True, exist_ok=True)
        (plugin / "agents" / name).write_bytes(text.encode("utf-8"))
    for name, text in VARIANTS.items():
        (plugin / "skills" / name).mkdir(parents=True)
        (plugin / "skills" / name / "SKILL.md").write_text(text, encoding="utf-8")
    home = make_home(root)
    harness_dirs(home, "none", HARNESSES)
    output = skilltool(root, home, plugin, "install")
    data = json.loads(skilltool(root, home, plugin, "validate", "--json"))
    verdicts = {v["name"]: v for v in data["verdicts"]}
    agents, tools = {}, {}
    for path in sorted((plugin / "agents").iterdir()):
        agent, _ = read_agent(path)
        if agent is not None:
            agents[agent.name], tools[agent.name] = agent.description, agent.tools
    return World(root, plugin, home, output, verdicts, agents, tools)


def claude_init(home: Path, log: Path) -> tuple[dict[str, Any], str]:
    """The init event of `claude -p --output-format stream-json --verbose hi`, and the text of
    the first request (its agent listing)."""
    with AnthropicStub(reply="ok") as stub:
        env = harness_env(home, {"ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": stub.base_url, "CLAUDE_CODE_MAX_RETRIES": "0"})  # fmt: skip
        done = run(["claude", "-p", "--output-format", "stream-json", "--verbose", "--debug-file", str(log), "hi"], env, home, timeout=TIMEOUT)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        request = stub.wait_for(timeout=30)
    event: dict[str, Any] = json.loads(done.stdout.splitlines()[0])
    assert (event["type"], event["subtype"]) == ("system", "init"), event
    return event, request.text


def test_claude_reads_each_agent_shape_exactly_when_skilltool_does(
    world: World, tmp_path: Path, proven: Proven
) -> None:
    need("claude")
    scratch = make_home(tmp_path)
    shutil.copytree(world.plugin / "agents", scratch / ".claude/agents")
    event, text = claude_init(scratch, tmp_path / "debug.log")
    assert set(event["agents"]) - CLAUDE_BUILT_IN == set(world.agents)
    listing = json.loads(json.dumps(text))  # the request's JSON text, as sent
    for name, description in world.agents.items():
        # Claude Code lists each agent as `- name: description (Tools: …)`, its tools as read
        # (to an agent with `memory` it adds the file tools memory needs, after them)
        tools = ", ".join(world.tools[name]) or "All tools"
        end = ", " if name == "colon-agent" else ")"
        assert json.dumps(f"- {name}: {description} (Tools: {tools}{end}")[1:-1] in listing, name
    proven(
        "claude",
        f"the source files of {len(AGENTS)} Claude-style agents in ~/.claude/agents: the init "
        f"event lists exactly the {len(world.agents)} skilltool reads (repaired ': ', literal "
        "\\n, @, dots, capitals, 3,150 characters, a tools list it leaves a list) and drops the 3 it refuses (a line without a "
        "key, an indented line, a CRLF line); each description and its tools as skilltool reads them",
    )


def test_claude_loads_the_renderings_without_a_word(
    world: World, tmp_path: Path, proven: Proven
) -> None:
    need("claude")
    log = tmp_path / "debug.log"
    event, _ = claude_init(world.home, log)
    assert set(world.agents) <= set(event["agents"]), event["agents"]
    agents_dir = str(world.home / ".claude/agents")
    said = [line for line in log.read_text(errors="replace").splitlines()
            if agents_dir in line and ("[WARN]" in line or "[ERROR]" in line)]  # fmt: skip
    assert said == []
    proven(
        "claude",
        "skilltool's renderings of the same agents (every source key kept: effort, "
        "permissionMode, maxTurns, initialPrompt, disallowedTools, memory, mcpServers, model "
        "opus[1m] and fable) load with no warning in the debug log",
    )


def test_claude_skills_match_the_verdicts(world: World, tmp_path: Path, proven: Proven) -> None:
    need("claude")
    event, _ = claude_init(world.home, tmp_path / "debug.log")
    found = compared(set(event["skills"]))
    assert found == world.loads("claude"), event["skills"]
    proven(
        "claude", f"skills listed from ~/.claude/skills match validate's verdicts: {sorted(found)}"
    )


def test_opencode_lists_every_rendering(world: World, tmp_path: Path, proven: Proven) -> None:
    need("opencode")
    # into a file: through a pipe, OpenCode 1.18 cuts a long listing short (seen at 37 KB)
    out = tmp_path / "agents.txt"
    argv = ["sh", "-c", 'exec opencode agent list > "$0"', str(out)]
    done = run(argv, harness_env(world.home), world.home, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    listing = out.read_text(encoding="utf-8")
    listed = set(re.findall(r"^(\S+) \((?:primary|subagent|all)\)$", listing, re.M))
    assert set(world.agents) <= listed, listing[-2000:]
    skills = tmp_path / "skills.json"
    argv = ["sh", "-c", 'exec opencode debug skill > "$0"', str(skills)]
    assert run(argv, harness_env(world.home), world.home, timeout=TIMEOUT).returncode == 0
    locations = [s["location"] for s in json.loads(skills.read_text(encoding="utf-8"))]
    folders = {
        Path(location).parent.name for location in locations if location.endswith("/SKILL.md")
    }
    assert compared(folders) == world.loads("opencode"), locations
    proven(
        "opencode",
        f"`opencode agent list` (exit 0) lists all {len(world.agents)} renderings of the "
        "Claude-style agents; `opencode debug skill` lists the skill variants validate says it "
        "loads (not the one without a name)",
    )


def test_gemini_loads_the_renderings_and_its_skills_match_the_verdicts(
    world: World, proven: Proven
) -> None:
    need("gemini")
    env = harness_env(world.home, {"GEMINI_API_KEY": "fake", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"})  # fmt: skip
    done = run(["gemini", "skills", "list"], env, world.home, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    errors = [line for line in done.stderr.splitlines() if LOAD_ERROR.search(line)]
    assert errors == [], done.stderr[-3000:]
    rendered = {p.stem for p in (world.home / ".gemini/agents").glob("*.md")}
    refused = {n for n, v in world.verdicts.items() if v["kind"] == "agent" and not v["harnesses"]["gemini"]["loads"]}  # fmt: skip
    assert rendered == set(world.agents) - refused and refused == {"my.agent", "CapsAgent"}
    folders = set(re.findall(r"Location:\s+\S+/\.agents/skills/([^/]+)/SKILL\.md", done.stdout))
    assert compared(folders) == world.loads("gemini"), done.stdout
    proven(
        "gemini",
        f"`gemini skills list`: no agent load error for the {len(rendered)} renderings (the "
        "names that are not slugs are not rendered: validate says Gemini skips them); the skill "
        "variants listed match validate's verdicts",
    )


def test_copilot_loads_the_renderings_and_its_skills_match_the_verdicts(
    world: World, tmp_path: Path, proven: Proven
) -> None:
    need("copilot")
    env = harness_env(world.home, {"COPILOT_PROVIDER_BASE_URL": "http://127.0.0.1:9/v1", "COPILOT_PROVIDER_API_KEY": "dummy", "COPILOT_MODEL": "gpt-4.1", "COPILOT_OFFLINE": "true"})  # fmt: skip
    work = tmp_path / "work"
    work.mkdir()
    done = run(["copilot", "--agent", "nonexistent", "-p", "x"], env, work, timeout=TIMEOUT)
    match = re.search(r"No such agent: nonexistent, available: (.*)$", done.stderr, re.M)
    assert match, done.stderr
    assert set(world.agents) <= {n.strip() for n in match.group(1).split(",")}
    done = run(["copilot", "skill", "list", "--json"], env, work, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    folders = {os.path.basename(s["path"]) for s in json.loads(done.stdout)}
    assert compared(folders) == world.loads("copilot"), done.stdout
    proven(
        "copilot",
        f"all {len(world.agents)} renderings of the Claude-style agents are available (tools "
        "as a list, Agent(a, b) included); `copilot skill list --json` lists the skill variants "
        "validate says it loads (not the 1,500-character description, the invalid YAML, the "
        "list argument-hint)",
    )


def test_codex_skills_match_the_verdicts_and_a_profile_loads(world: World, proven: Proven) -> None:
    need("codex")
    env = harness_env(world.home)
    done = run(["codex", "debug", "prompt-input", "hi"], env, world.home, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    folders = set(re.findall(r"\(file: r\d+/([^/]+)/SKILL\.md\)", done.stdout.replace("\\n", "\n")))
    assert compared(folders) == world.loads("codex"), done.stdout
    done = run(["codex", "-p", "generated-reviewer", "debug", "prompt-input", "hi"], env, world.home, timeout=TIMEOUT)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.dumps(world.agents["generated-reviewer"])[1:-1] in done.stdout
    proven(
        "codex",
        "`codex debug prompt-input hi` lists the skill variants validate says it loads; the "
        "profile rendered from the generator-shaped agent loads, its description as Claude reads it",
    )


def variant_folders(names: set[str]) -> set[str]:
    """The variant folders of skills a harness lists by their frontmatter `name`."""
    declared = {re.search(r"^name: (.*)$", text, re.M): folder for folder, text in VARIANTS.items()}
    by_name = {m.group(1): folder for m, folder in declared.items() if m}
    return {by_name[n] for n in names if n in by_name}


def test_kilo_skills_match_the_verdicts(world: World, tmp_path: Path, proven: Proven) -> None:
    need("kilo")
    out = tmp_path / "kilo-stdout.txt"  # Kilo exits before a pipe is drained: into a file
    env = {**harness_env(world.home), "KILO_STDOUT": str(out)}
    project = tmp_path / "project"  # in the home itself Kilo lists no linked skill
    project.mkdir()
    argv = ["sh", "-c", 'exec kilo debug skill >"$KILO_STDOUT"']
    done = run(argv, env, project, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    found = json.loads(out.read_text(encoding="utf-8"))
    folders = {
        Path(s["location"]).parent.name for s in found if "/.agents/skills/" in s["location"]
    }
    assert compared(folders) == world.loads("kilo"), found
    proven(
        "kilo",
        "`kilo debug skill` lists the skill variants validate says it loads, from ~/.agents/skills",
    )


def test_qwen_skills_match_the_verdicts(world: World, tmp_path: Path, proven: Proven) -> None:
    need("qwen")
    project = tmp_path / "project"
    project.mkdir()
    with AnthropicStub(reply="done") as stub:
        env = harness_env(
            world.home, {"ANTHROPIC_API_KEY": "dummy", "ANTHROPIC_BASE_URL": stub.base_url}
        )
        argv = ["qwen", "-p", "hi", "--auth-type", "anthropic", "-m", "claude-sonnet-4-5"]
        done = run(argv, env, project, timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        request = stub.wait_for(lambda r: "<skill>" in r.text, timeout=30)
    texts = "\n".join(request.texts())
    # each `<skill>\n<name>\nNAME\n</name>…<location>\nuser\n</location>`: the user's
    names = {
        m.group(1)
        for m in re.finditer(
            r"<name>\n([^\n]*)\n</name>(?:(?!</skill>).)*<location>\nuser\n", texts, re.S
        )
    }
    assert compared(variant_folders(names)) == world.loads("qwen"), sorted(names)
    proven(
        "qwen",
        "`qwen -p hi` (stub): the skill variants listed to the model match validate's verdicts",
    )


def test_vibe_skills_match_the_verdicts(world: World, tmp_path: Path, proven: Proven) -> None:
    need("vibe")
    project = tmp_path / "project"
    project.mkdir()
    with OpenAIStub(reply="done") as stub:
        (world.home / ".vibe/config.toml").write_text(
            f'active_model = "stub"\nenable_telemetry = false\n[[providers]]\nname = "stub"\n'
            f'api_base = "{stub.base_url}"\napi_key_env_var = "STUB_API_KEY"\n[[models]]\n'
            'name = "stub-model"\nprovider = "stub"\nalias = "stub"\n'
        )
        env = harness_env(world.home, {"STUB_API_KEY": "dummy"})
        done = run(["vibe", "-p", "hi"], env, project, timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
    listed = request.text.split("<available-skills>", 1)[1].split("</available-skills>", 1)[0]
    folders = set(re.findall(r"<path>[^<]*/skills/([^/<]+)/SKILL\.md</path>", listed))
    assert compared(folders) == world.loads("vibe"), listed
    proven(
        "vibe",
        "`vibe -p hi` (stub): the skill variants in <available-skills> match validate's verdicts "
        "(dropped: a name that breaks the Agent Skills rules, no name, invalid YAML, a "
        "1,500-character description)",
    )


def test_kimi_loads_the_renderings_and_its_skills_match_the_verdicts(
    world: World, tmp_path: Path, proven: Proven
) -> None:
    need("kimi")
    from tests.conformance.test_kimi import agent_types, kimi_env

    project = tmp_path / "project"
    project.mkdir()
    with OpenAIStub(reply="done") as stub:
        done = run(["kimi", "-p", "hi"], kimi_env(world.home, stub), project, timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
    [system] = [m["content"] for m in request.json["messages"] if m["role"] == "system"]
    listed = system.split("Current available skills:", 1)[1].split("### Built-in", 1)[0]
    folders = set(re.findall(r"^  Path: [^\n]*/skills/([^/\n]+)/SKILL\.md$", listed, re.M))
    assert compared(folders) == world.loads("kimi"), listed
    rendered = {p.stem for p in (world.home / ".kimi-code/agents").glob("*.md")}
    skipped = {a for a, v in world.verdicts.items() if v["kind"] == "agent"
               and not v["harnesses"]["kimi"]["loads"]}  # fmt: skip
    assert rendered == set(world.agents) - skipped and {"my.agent", "CapsAgent"} <= skipped
    assert set(agent_types(request)) - {"coder", "explore", "plan"} == rendered
    proven(
        "kimi",
        "`kimi -p hi` (stub): the skill variants in its listing match validate's verdicts "
        "(dropped: invalid YAML, no name); its Agent tool offers every rendering of the "
        "Claude-style agents, and skilltool wrote none for the names it would skip (my.agent, "
        "CapsAgent)",
    )


def test_droid_skills_match_the_verdicts(world: World, tmp_path: Path, proven: Proven) -> None:
    need("droid")
    from tests.conformance.test_droid import droid_exec, said, section

    _, request = droid_exec(world.home, tmp_path / "project", "hi")
    listed = section(said(request), "Available skills")
    names = set(re.findall(r"^([^:\n]+): ", listed, re.M))  # by their frontmatter names
    assert compared(variant_folders(names)) == world.loads("droid"), listed
    long = re.search(r"^long-description: (d+)(.?)$", listed, re.M)
    assert long is not None and len(long.group(1) + long.group(2)) == 1024, listed
    proven(
        "droid",
        "`droid exec hi` (stub): the skill variants listed to the model match validate's "
        "verdicts (dropped: a name with a capital, a blank or a dot, no name; a 1,500-character "
        "description cut to 1,024)",
    )


def test_cline_skills_match_the_verdicts_and_it_offers_every_rendering(
    world: World, tmp_path: Path, proven: Proven
) -> None:
    need("cline")
    from tests.conformance.test_cline import (
        cline_run,
        listed_skills,
        signed_in,
        subagent_tool,
        tools_of,
    )

    with signed_in(world.home) as stub:
        _, requests = cline_run(world.home, stub, tmp_path / "project", "say hi")
    names = set(listed_skills(requests[0]))  # by their frontmatter names
    assert compared(variant_folders(names)) == world.loads("cline"), sorted(names)
    rendered = {p.stem for p in (world.home / ".cline/agents").glob("*.yml")}
    offered = {n for n in tools_of(requests[0]) if n.startswith("subagent_")}
    assert offered == {subagent_tool(n) for n in rendered}, (offered, rendered)
    proven(
        "cline",
        f"`cline … 'say hi'` (stub): the skill variants in its skills tool match validate's "
        f"verdicts, and each of the {len(rendered)} renderings of the Claude-style agents is "
        "offered as its subagent_<name> tool",
    )


def test_auggie_skills_match_the_verdicts_and_it_offers_every_rendering(
    world: World, tmp_path: Path, proven: Proven
) -> None:
    need("auggie")
    from skilltool.harnesses.auggie import BUILT_IN, auggie_name
    from tests.conformance.augment_stub import AugmentStub, skills_of, tools_of
    from tests.conformance.test_auggie import auggie_run

    with AugmentStub(reply="ok") as stub:
        _, [request] = auggie_run(world.home, stub, tmp_path / "project", "hi")
    listed = [s["name"] for s in request.json["skills"]]
    assert len(listed) == len(set(listed)), listed  # each once, from ~/.claude/skills or not
    names = set(skills_of(request))  # by their frontmatter names
    assert compared(variant_folders(names)) == world.loads("auggie"), sorted(names)
    rendered = {auggie_name(p.stem) for p in (world.home / ".augment/agents").glob("*.md")}
    offered = {n.removeprefix("sub-agent-") for n in tools_of(request) if n.startswith("sub-")}
    assert offered - BUILT_IN == rendered, (offered, rendered)
    proven(
        "auggie",
        "`auggie --print hi` (Augment stub): the skill variants in skills[] match validate's "
        f"verdicts, each listed once; each of the {len(rendered)} renderings of the "
        "Claude-style agents is offered as its sub-agent-<name> tool (my.agent as "
        "sub-agent-my-agent, as validate says)",
    )


def test_qoder_skills_match_the_verdicts_and_it_lists_every_rendering(
    world: World, tmp_path: Path, proven: Proven
) -> None:
    need("qoder")
    from skilltool.harnesses.qoder import qoder_agents, qoder_skills
    from tests.conformance.test_qoder import listings

    work = tmp_path / "work"
    work.mkdir()
    which = (("skills", "list"), ("agents", "list"))
    listed = listings(world.home, work, which=which)
    skills = qoder_skills(listed["skills"], "").skills or {}
    assert compared(set(skills)) == world.loads("qoder"), sorted(skills)  # by their folders
    said = qoder_agents(listed["agents"], "")
    rendered = {p.stem for p in (world.home / ".qoder/agents").glob("*.md")}
    skipped = {a for a, v in world.verdicts.items() if v["kind"] == "agent"
               and not v["harnesses"]["qoder"]["loads"]}  # fmt: skip
    assert rendered == set(world.agents) - skipped, (rendered, skipped)
    assert set(said.agents or {}) == rendered and not said.errors, listed["agents"]
    proven(
        "qoder",
        "`qodercli skills list`: the skill variants it lists (by their folders) match "
        f"validate's verdicts (it loads every one); `agents list` lists each of the "
        f"{len(rendered)} renderings of the Claude-style agents, with no load error",
    )


def test_openhands_skills_match_the_verdicts_and_it_offers_every_rendering(
    world: World, tmp_path: Path, proven: Proven
) -> None:
    need("openhands")
    from skilltool.harnesses.openhands import BUILT_IN
    from tests.conformance.test_openhands import agent_types, headless, skills_listed

    _, [first, *_] = headless(world.home, tmp_path / "project")
    listed = skills_listed(first)
    assert len(listed) == len(set(listed)), listed  # each once
    assert compared(set(listed)) == world.loads("openhands"), sorted(listed)
    rendered = {p.stem for p in (world.home / ".openhands/agents").glob("*.md")}
    offered = set(agent_types(first)) - BUILT_IN
    assert offered == {n for n in world.agents if n in rendered}, (offered, rendered)
    proven(
        "openhands",
        "`openhands --headless -t hi` (stub): the skill variants in <available_skills> match "
        "validate's verdicts (a name that is not its folder's, or not lowercase letters, "
        f"digits and single hyphens, or frontmatter that is not YAML: left out); each of the "
        f"{len(rendered)} renderings of the Claude-style agents is offered by its task tool",
    )


def test_amp_skills_match_the_verdicts_and_it_takes_no_agent(
    world: World, tmp_path: Path, proven: Proven
) -> None:
    need("amp")
    from tests.conformance.sandbox import DEAD_PROXY

    work = tmp_path / "work"
    work.mkdir()
    env = harness_env(world.home, {"AMP_API_KEY": "sk-conformance", "AMP_URL": DEAD_PROXY})
    done = run(["amp", "skill", "list", "--json"], env, work, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    listed = json.loads(done.stdout)
    # by their folders: Amp names a skill by its frontmatter ("other-folder" as not-the-folder)
    folders = {s["baseDir"].rsplit("/", 1)[1] for s in listed["skills"] if s["source"] != "builtin"}
    assert compared(folders) == world.loads("amp"), (sorted(folders), listed["errors"])
    refused = {e["path"].rsplit("/", 2)[1] for e in listed["errors"]}
    assert compared(refused) == set(VARIANTS) - NOT_OFFERED - world.loads("amp"), refused
    assert sorted(p.name for p in (world.home / ".config/amp").iterdir()) == []
    proven(
        "amp",
        "`amp skill list --json`: the skill variants it lists (by their folders) match "
        "validate's verdicts, and it names each one it skips among its errors; no agent is "
        "written into ~/.config/amp",
    )


def test_continue_skills_match_the_verdicts(world: World, tmp_path: Path, proven: Proven) -> None:
    """skilltool copies the variants into ~/.continue/skills (cn passes over a link); one
    `cn -p` names those it offers in its Skills tool, by their frontmatter names."""
    need("continue")
    from tests.conformance.test_continue import USERS_CONFIG

    work = tmp_path / "work"  # in the home, cn reads ~/.continue/skills twice (as a project's)
    work.mkdir()
    assert not (world.home / ".continue/skills/control").is_symlink()
    with OpenAIStub(reply="done") as stub:
        (world.home / ".continue/config.yaml").write_text(USERS_CONFIG.format(base=stub.base_url))
        done = run(["cn", "-p", "hi", "--auto"], harness_env(world.home), work, timeout=TIMEOUT)
        assert done.returncode == 0, done.stderr[-2000:]
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
    [described] = [t["function"]["description"] for t in request.json["tools"]
                   if t["function"]["name"] == "Skills"]  # fmt: skip
    names = set(re.findall(r"^name: (.*)$", described, re.M))
    assert compared(variant_folders(names)) == world.loads("continue"), described[:2000]
    proven(
        "continue",
        "`cn -p hi` (stub): the skill variants skilltool copied into ~/.continue/skills that its "
        "Skills tool offers match validate's verdicts (skipped: frontmatter that is not valid "
        "YAML, no name; named by the frontmatter)",
    )
