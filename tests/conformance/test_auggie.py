"""Auggie loads what skilltool renders: against a loopback stub of Augment's own API (the only
model API it speaks; `augment_stub.py`), `auggie --print "…"` offers the rendered agent as the
tool `sub-agent-<name>` (and, when the model calls it, sends the agent's body to the
subagent's model), lists the skills of ~/.agents/skills with their descriptions, once each
even when ~/.claude/skills holds them too, offers the plugin's MCP server's tools, and expands
a command of ~/.augment/commands; a user's own agent file is left alone; `auggie --acp`
answers a prompt with its own agent, which offers the plugin's agent as a subagent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("skilltool.harnesses.auggie")

from tests.conformance.acp import AcpClient
from tests.conformance.augment_stub import AugmentStub, is_subagent, skills_of, tools_of
from tests.conformance.homes import (
    ACP_TIMEOUT,
    AUGGIE,
    TIMEOUT,
    Installed,
    bundled_case,
    harness_dirs,
    install_home,
    rendered_agent,
)
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import Recorded, Reply, mcp_server
from tests.conformance.support import Proven, need
from tests.helpers import build_file_tree

pytestmark = pytest.mark.conformance

SUBAGENT_PROMPT = "# Sub-Agent Prompt"  # how Auggie's prompt for a subagent begins


@pytest.fixture(scope="module", params=["bundled", "tricky"])
def installed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Installed:
    key: str = request.param
    # Claude Code set up too: its ~/.claude/skills and ~/.claude/agents, which Auggie also reads
    root = tmp_path_factory.mktemp(f"conformance-auggie-{key}")
    return install_home(root, key, ("claude", *AUGGIE))


@pytest.fixture(autouse=True)
def _auggie() -> None:
    need("auggie")


def auggie_env(home: Path, stub: AugmentStub) -> dict[str, str]:
    return harness_env(home, {"AUGMENT_SESSION_AUTH": stub.session})


def auggie_run(
    home: Path, stub: AugmentStub, cwd: Path, prompt: str
) -> tuple[subprocess.CompletedProcess[str], list[Recorded]]:
    """`auggie --print --dont-save-session PROMPT` in `cwd`: the chat requests it sent."""
    cwd.mkdir(parents=True, exist_ok=True)
    before = len(stub.snapshot())
    argv = ["auggie", "--print", "--dont-save-session", prompt]
    done = run(argv, auggie_env(home, stub), cwd, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done, [r for r in stub.snapshot()[before:] if r.kind == "chat-stream"]


def test_the_rendered_agent_is_markdown_with_name_and_description(
    installed: Installed, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    rendered = rendered_agent(home / ".augment/agents" / f"{case.name}.md")
    marker = rendered.marker()
    assert marker is not None and marker.group(1) == str(case.source)
    assert rendered.front == {"name": case.name, "description": case.description}
    assert rendered.body == case.body
    proven(
        "auggie",
        f"[{case.key}] ~/.augment/agents/{case.name}.md: the marker a YAML comment; name, "
        "description; the body byte for byte",
    )


def test_a_run_offers_the_agent_and_the_skills_once_and_the_agent_gets_its_body(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    tool = f"sub-agent-{case.name}"

    def reply(request: Recorded) -> Any:
        if is_subagent(request):
            return "subagent done"
        if '"tool_result_node"' in request.text:
            return "all done"
        return {"call": tool, "arguments": {"action": "run", "name": "r1", "instruction": "GO"}}

    with AugmentStub(reply=reply) as stub:
        _, requests = auggie_run(home, stub, tmp_path / "work", "say hi")
    first = requests[0]
    offered = [t["name"] for t in first.json["tool_definitions"]]
    assert offered.count(tool) == 1, offered  # ~/.augment's, not Claude Code's too
    assert f"- Description: {case.description}\n" in tools_of(first)[tool]["description"]
    listed = [s["name"] for s in first.json["skills"]]
    assert sorted(listed) == sorted(case.skills), listed  # each once
    for name in case.skills:
        assert skills_of(first)[name]["description"], name
    assert not (home / ".augment/skills").exists()  # linked into ~/.agents/skills only
    [sub] = [r for r in requests if is_subagent(r)]
    guidelines: str = sub.json["user_guidelines"]
    assert guidelines.startswith(SUBAGENT_PROMPT)
    assert guidelines.endswith(case.body.strip()), guidelines[-400:]
    proven(
        "auggie",
        f"[{case.key}] `auggie --print 'say hi'` (Augment stub): the request offers the tool "
        f"{tool} once ('- Description: <description>'), with ~/.claude/agents holding Claude "
        f"Code's rendering too; skills[] lists {', '.join(case.skills)} once each with their "
        "descriptions (linked into ~/.agents/skills and ~/.claude/skills); called, the "
        "subagent's request ends its user_guidelines with the agent's body",
    )


FOREIGN = "---\nname: {name}\ndescription: The user's own agent\n---\nMINE.\n"
COMMANDS = {
    "greet.md": "---\ndescription: Greet someone\n---\nSay GREETING to $ARGUMENTS now.\n",
    "plain.md": "Do the PLAIN thing.\n",
    "pair.md": "Compare $0 with $1.\n",
    "braces.md": "Print f'{name}'.\n",
    "git/commit.md": "Commit the SUBFOLDER work.\n",
}
MCP_SERVER = "plugin-srv"


def commands_plugin(root: Path, script: Path) -> Path:
    servers = {MCP_SERVER: {"command": "python3", "args": [str(script)]}}
    return build_file_tree(
        root / "cmds",
        {
            ".claude-plugin/plugin.json": '{"name": "cmds", "version": "1.0.0"}\n',
            ".mcp.json": json.dumps({"mcpServers": servers}) + "\n",
            **{f"commands/{name}": text for name, text in COMMANDS.items()},
        },
    )


def user_text(request: Recorded) -> str:
    nodes = request.json.get("nodes", [])
    return "".join(n["text_node"]["content"] for n in nodes if n.get("text_node"))


def test_commands_expand_servers_are_offered_and_a_users_own_agent_stays(
    tmp_path: Path, proven: Proven
) -> None:
    """The plugin's commands are files of ~/.augment/commands: `/greet Bob` sends the text
    with 'Bob' for $ARGUMENTS, `/git:commit` is the one in a subfolder; `$0` and `{name}` are
    refused. Its server is an entry of ~/.augment/settings.json beside the user's own, both
    offered; uninstall leaves that file as it was. A user's own agent file of the bundled
    agent's name is left, and is the one Auggie offers."""
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, AUGGIE)
    agent = home / ".augment/agents" / f"{case.name}.md"
    build_file_tree(home / ".augment/agents", {agent.name: FOREIGN.format(name=case.name)})
    script = tmp_path / "srv.py"
    script.write_text(mcp_server(ping=True))
    settings = home / ".augment/settings.json"
    mine = {"type": "stdio", "command": sys.executable, "args": [str(script)]}
    settings.write_text(json.dumps({"mcpServers": {"mine": mine}}, indent=2) + "\n")
    before = {path: path.read_bytes() for path in (agent, settings)}
    env = harness_env(home, {"PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    env["XDG_DATA_DIRS"] = str(tmp_path / "no-system-plugins")
    env["SKILLTOOL_PLUGINS"] = f"{commands_plugin(tmp_path, script)}:{case.plugin}"
    argv = [sys.executable, "-m", "skilltool", "plugins", "install", "--home", str(home)]
    done = subprocess.run(argv, env=env, cwd=home, capture_output=True, text=True, timeout=120)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert f"added     auggie   mcp {MCP_SERVER} in ~/.augment/settings.json" in out, out
    assert f"left      ~/.augment/agents/{case.name}.md: " in out, out
    assert "command /braces: its body holds '{name}', which Auggie replaces" in out, out
    assert not (home / ".augment/commands/braces.md").exists()
    listing = run(["auggie", "command", "list"], harness_env(home), home, timeout=TIMEOUT)
    for name in ("greet", "plain", "pair", "git:commit"):
        assert f"  {name} [args...]" in listing.stdout, listing.stdout
    with AugmentStub(reply="done") as stub:
        _, [greet] = auggie_run(home, stub, tmp_path / "work", "/greet Bob")
        _, [pair] = auggie_run(home, stub, tmp_path / "work", "/pair a b")
        _, [nested] = auggie_run(home, stub, tmp_path / "work", "/git:commit now")
    assert user_text(greet).startswith("Say GREETING to Bob now."), user_text(greet)
    assert user_text(pair).startswith("Compare a with b."), user_text(pair)
    # a command with no placeholder: what was typed follows its text, as in Claude Code
    assert user_text(nested).split() == ["Commit", "the", "SUBFOLDER", "work.", "now"]
    offered = tools_of(greet)
    served = {name for name in offered if "ping" in name}
    assert len(served) == 2, sorted(offered)  # `mine`'s and the plugin's
    description = offered[f"sub-agent-{case.name}"]["description"]
    assert "- Description: The user's own agent\n" in description
    assert agent.read_bytes() == before[agent]
    argv[4] = "uninstall"
    done = subprocess.run(argv, env=env, cwd=home, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert {path: path.read_bytes() for path in before} == before
    assert not list((home / ".augment/commands").rglob("*.md"))
    proven(
        "auggie",
        "commands are files of ~/.augment/commands (`auggie command list` names them, "
        "/git:commit the one in git/): `/greet Bob` (Augment stub) sends the text with 'Bob' "
        "for $ARGUMENTS, `/pair a b` sends $0 $1 as $1 $2 filled in; a body with {name} is not "
        f"written. The server {MCP_SERVER} is an entry of ~/.augment/settings.json beside the "
        f"user's `mine`, both offered ({', '.join(sorted(served))}); uninstall leaves the file "
        "byte for byte as it was. A user's own ~/.augment/agents/<name>.md is untouched by "
        "install and uninstall, and is the agent Auggie offers",
    )


def test_acp_answers_a_prompt_and_offers_the_agent(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    how = installed.launch("auggie")
    assert (how["command"], how["env"]) == (["auggie", "--acp"], {})
    cwd = tmp_path / "project"
    cwd.mkdir()
    reply: Reply = "acp done"
    with AugmentStub(reply=reply) as stub:
        with AcpClient(how["command"], env=auggie_env(home, stub), cwd=cwd) as acp:
            acp.initialize()
            session = acp.new_session(cwd)
            result = acp.prompt(session["sessionId"], "hi", timeout=ACP_TIMEOUT)
            assert result["stopReason"] == "end_turn"
            assert "acp done" in acp.agent_text()
        [request] = stub.chats()
    assert f"sub-agent-{case.name}" in tools_of(request)
    assert "configOptions" not in session  # no agent to choose
    proven(
        "auggie",
        f"[{case.key}] `auggie --acp` (Augment stub): a prompt is answered; the session is "
        f"Auggie's own agent (no agent option), which offers sub-agent-{case.name}",
    )
