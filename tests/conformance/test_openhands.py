"""OpenHands loads what skilltool renders: `openhands --headless -t "…"` against the loopback
stub offers the rendered agent as a subagent type of its `task` tool (and, when the model
calls it, sends the agent's body at the end of the subagent's system prompt, with exactly the
tools the rendering names), lists the skills of ~/.agents/skills once each, and offers the
tools of the MCP servers of ~/.openhands/mcp.json; a user's own agent file and server are left
alone. Its ACP route is proven in test_acp.py.

Each run names the stub as OpenHands' model by its environment (LLM_MODEL, LLM_API_KEY,
LLM_BASE_URL with --override-with-envs); GIT_ALLOW_PROTOCOL=file stops its clone of public
skills from GitHub, which it tries on every start."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("skilltool.harnesses.openhands")

from skilltool.harnesses.openhands import BUILT_IN, openhands_tools
from tests.conformance.homes import (
    OPENHANDS,
    TIMEOUT,
    Installed,
    bundled_case,
    harness_dirs,
    install_home,
    rendered_agent,
)
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import OpenAIStub, Recorded, Reply, mcp_server
from tests.conformance.support import Proven, need
from tests.helpers import build_file_tree

pytestmark = pytest.mark.conformance

MODEL = "openai/stub-model"
ALWAYS = ("finish", "think")  # the tools every OpenHands agent has besides its own


@pytest.fixture(scope="module", params=["bundled", "tricky"])
def installed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Installed:
    key: str = request.param
    return install_home(tmp_path_factory.mktemp(f"conformance-openhands-{key}"), key, OPENHANDS)


@pytest.fixture(autouse=True)
def _openhands() -> None:
    need("openhands")


def openhands_env(
    home: Path, stub: OpenAIStub, extra: dict[str, str] | None = None
) -> dict[str, str]:
    """The stub as OpenHands' model, by its environment alone (no agent_settings.json)."""
    model = {
        "LLM_MODEL": MODEL,
        "LLM_API_KEY": "dummy",
        "LLM_BASE_URL": stub.base_url,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # else litellm fetches its price list
        "OPENHANDS_SUPPRESS_BANNER": "1",
        "GIT_ALLOW_PROTOCOL": "file",  # its clone of public skills fails at once
    }
    return harness_env(home, {**model, **(extra or {})})


def headless(
    home: Path, cwd: Path, reply: Reply = "openhands done", extra: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], list[Recorded]]:
    """`openhands --headless -t hi` against the stub: its output and its chat requests."""
    cwd.mkdir(parents=True, exist_ok=True)
    argv = ["openhands", "--headless", "--override-with-envs", "--exit-without-confirmation"]
    with OpenAIStub(reply=reply) as stub:
        env = openhands_env(home, stub, extra)
        done = run([*argv, "-t", "hi"], env, cwd, timeout=TIMEOUT)
        requests = [r for r in stub.snapshot() if r.kind == "chat"]
    assert done.returncode == 0, done.stdout + done.stderr
    assert requests, done.stdout + done.stderr
    return done, requests


def system_of(request: Recorded) -> str:
    content = request.json["messages"][0]["content"]
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return str(content)


def tools_of(request: Recorded) -> dict[str, str]:
    """Each tool of a request, by name: its description."""
    return {t["function"]["name"]: t["function"]["description"] for t in request.json["tools"]}


def agent_types(request: Recorded) -> dict[str, str]:
    """The subagent types the `task` tool offers: name -> description (with its tools)."""
    listed = tools_of(request)["task"].split("When NOT to use the task tool", 1)[0]
    return dict(re.findall(r"^- \*\*([^*]+)\*\*: (.*)$", listed, re.M))


def skills_listed(request: Recorded) -> list[str]:
    """The names of <available_skills> in the system prompt, in order (each as often as
    listed)."""
    block = system_of(request).split("<available_skills>", 1)[-1].split("</available_skills>")[0]
    return re.findall(r"<name>([^<]+)</name>", block)


def calls_the_subagent(name: str) -> Reply:
    """The model's replies: the main agent calls its task tool with `name`; the subagent and
    then the main agent (given the tool's result) answer in words."""

    def reply(request: Recorded) -> Any:
        messages = request.json["messages"]
        if any(m["role"] == "tool" for m in messages) or "task" not in tools_of(request):
            return "done"
        arguments = {"prompt": "go", "subagent_type": name, "security_risk": "LOW"}
        return {"call": "task", "arguments": arguments}

    return reply


def test_rendered_agent_is_in_its_own_format(installed: Installed, proven: Proven) -> None:
    case, home = installed.case, installed.home
    rendered = rendered_agent(home / ".openhands/agents" / f"{case.name}.md")
    marker = rendered.marker()
    assert marker is not None and marker.group(1) == str(case.source)
    assert rendered.front == {
        "name": case.name,
        "description": case.description,
        "tools": openhands_tools(installed_agent(installed)),
    }
    assert rendered.body == case.body
    assert not (home / ".openhands/skills").exists() and not (home / ".agents/agents").exists()
    proven(
        "openhands",
        f"[{case.key}] ~/.openhands/agents/{case.name}.md: marker a YAML comment, name, "
        "description, tools by OpenHands' names; the body byte for byte; nothing in "
        "~/.openhands/skills or ~/.agents/agents",
    )


def installed_agent(installed: Installed) -> Any:
    from skilltool.parse import read_agent

    agent, problems = read_agent(installed.case.source)
    assert agent is not None, problems
    return agent


def test_the_agent_is_offered_and_called_with_its_body_and_the_skills_are_listed(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    _, requests = headless(home, tmp_path / "project", calls_the_subagent(case.name))
    first = requests[0]
    assert agent_types(first)[case.name].startswith(case.description)
    listed = skills_listed(first)
    for skill in case.skills:  # linked into ~/.agents/skills only
        assert listed.count(skill) == 1, listed
    body = case.body.replace("\r\n", "\n").strip()
    [sub] = [r for r in requests if system_of(r).endswith(body)]
    tools = openhands_tools(installed_agent(installed))
    assert sorted(tools_of(sub)) == sorted([*tools, *ALWAYS])
    assert "task" in tools_of(first) and "task" not in tools_of(sub)
    proven(
        "openhands",
        f"[{case.key}] `openhands --headless -t hi` (stub): the task tool offers {case.name} "
        f"with its description; the skills {', '.join(case.skills)}, linked only into "
        "~/.agents/skills, are each listed once in <available_skills>; called, the subagent's "
        "request ends its system prompt with the body (CRLF read as LF, trimmed) and offers "
        f"exactly {', '.join(sorted(tools))} (and OpenHands' own finish, think)",
    )


FOREIGN = "---\nname: {name}\ndescription: The user's own agent\n---\nMine.\n"
MCP_SERVER = "plugin-srv"


def test_servers_are_offered_beside_the_users_and_a_users_own_agent_stays(
    tmp_path: Path, proven: Proven
) -> None:
    """The plugin's server is an entry of ~/.openhands/mcp.json beside the user's own, both
    offered to the model; uninstall leaves the file as it was. A user's own agent file of the
    bundled agent's name is left, and is the one OpenHands offers."""
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, OPENHANDS)
    agent = home / ".openhands/agents" / f"{case.name}.md"
    build_file_tree(home / ".openhands/agents", {agent.name: FOREIGN.format(name=case.name)})
    script = tmp_path / "srv.py"
    script.write_text(mcp_server(ping=True))
    config = home / ".openhands/mcp.json"
    mine = {"command": sys.executable, "args": [str(script)]}
    config.write_text(json.dumps({"mcpServers": {"mine": mine}}, indent=2) + "\n")
    before = {path: path.read_bytes() for path in (agent, config)}
    plugin = build_file_tree(
        tmp_path / "srv-plugin",
        {
            ".claude-plugin/plugin.json": '{"name": "srv-plugin", "version": "1.0.0"}\n',
            ".mcp.json": json.dumps(
                {"mcpServers": {MCP_SERVER: {"command": sys.executable, "args": [str(script)]}}}
            ),
        },
    )
    env = harness_env(home, {"PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    env["XDG_DATA_DIRS"] = str(tmp_path / "no-system-plugins")
    env["SKILLTOOL_PLUGINS"] = f"{plugin}:{case.plugin}"
    argv = [sys.executable, "-m", "skilltool", "plugins", "install", "--home", str(home)]
    done = subprocess.run(argv, env=env, cwd=home, capture_output=True, text=True, timeout=120)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert f"mcp {MCP_SERVER} in ~/.openhands/mcp.json" in out, out
    assert f"left      ~/.openhands/agents/{case.name}.md: " in out, out
    assert set(json.loads(config.read_text())["mcpServers"]) == {"mine", MCP_SERVER}
    _, [first, *_] = headless(home, tmp_path / "work")
    offered = tools_of(first)
    served = sorted(name for name in offered if "ping" in name)
    assert len(served) == 2, sorted(offered)  # `mine`'s and the plugin's
    assert agent_types(first)[case.name] == "The user's own agent"
    argv[4] = "uninstall"
    done = subprocess.run(argv, env=env, cwd=home, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert {path: path.read_bytes() for path in before} == before
    proven(
        "openhands",
        f"the server {MCP_SERVER} is an entry of ~/.openhands/mcp.json beside the user's "
        f"`mine`, both offered to the model ({', '.join(served)}); uninstall leaves the file "
        f"byte for byte as it was. A user's own ~/.openhands/agents/{case.name}.md is left by "
        "install and uninstall, and is the agent the task tool offers",
    )


SKILL_FOLDERS = {
    ".agents/skills": "shared-only",
    ".openhands/skills": "own-only",
    ".openhands/microagents": "legacy-only",
}


def test_its_persistence_folder_moves_the_servers_and_not_the_agents_or_skills(
    tmp_path: Path, proven: Proven
) -> None:
    """OPENHANDS_PERSISTENCE_DIR moves OpenHands' mcp.json and settings, not the folders of
    its agents and skills: skilltool, run without --home in that environment, writes the
    server there and the agent into ~/.openhands/agents, and OpenHands offers both. The same
    run shows the skills folders it reads, one skill of a name once, and its own subagents,
    which a file of one of their names does not replace."""
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, OPENHANDS)
    for folder, name in SKILL_FOLDERS.items():
        skill = f"---\nname: {name}\ndescription: D.\n---\nB.\n"
        build_file_tree(home / folder, {f"{name}/SKILL.md": skill})
    for folder in (".agents/skills", ".openhands/skills"):  # one name in both: listed once
        skill = f"---\nname: both\ndescription: {folder}\n---\nB.\n"
        build_file_tree(home / folder, {"both/SKILL.md": skill})
    own = "---\nname: general-purpose\ndescription: A FILE OF THE USER'S\n---\nB.\n"
    build_file_tree(home / ".openhands/agents", {"general-purpose.md": own})
    state = tmp_path / "state"
    script = tmp_path / "srv.py"
    script.write_text(mcp_server(ping=True))
    plugin = build_file_tree(
        tmp_path / "srv-plugin",
        {
            ".claude-plugin/plugin.json": '{"name": "srv-plugin", "version": "1.0.0"}\n',
            ".mcp.json": json.dumps(
                {"mcpServers": {MCP_SERVER: {"command": sys.executable, "args": [str(script)]}}}
            ),
        },
    )
    moved = {"OPENHANDS_PERSISTENCE_DIR": str(state)}
    env = harness_env(home, {**moved, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    env["XDG_DATA_DIRS"] = str(tmp_path / "no-system-plugins")
    env["SKILLTOOL_PLUGINS"] = f"{plugin}:{case.plugin}"
    argv = [sys.executable, "-m", "skilltool", "plugins", "install"]
    done = subprocess.run(argv, env=env, cwd=home, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(json.loads((state / "mcp.json").read_text())["mcpServers"]) == {MCP_SERVER}
    assert not (home / ".openhands/mcp.json").exists()
    assert (home / ".openhands/agents" / f"{case.name}.md").is_file()
    _, [first, *_] = headless(home, tmp_path / "work", extra=moved)
    assert "ping" in tools_of(first), sorted(tools_of(first))  # one server: its tool's own name
    offered = agent_types(first)
    assert set(offered) == BUILT_IN | {case.name}
    assert offered[case.name].startswith(case.description)
    assert "A FILE OF THE USER'S" not in offered["general-purpose"]
    listed = skills_listed(first)
    assert sorted(listed) == sorted(["both", *SKILL_FOLDERS.values(), *case.skills]), listed
    assert "<description>.agents/skills</description>" in system_of(first)
    proven(
        "openhands",
        "skills folders: ~/.agents/skills, ~/.openhands/skills and ~/.openhands/microagents "
        "are listed; a skill of one name in two is listed once, from ~/.agents/skills; its "
        f"own subagents are {', '.join(sorted(BUILT_IN))}, and a file of one of their names "
        "(~/.openhands/agents/general-purpose.md) does not take its place",
    )
    proven(
        "openhands",
        "OPENHANDS_PERSISTENCE_DIR moved: install (no --home) writes the server into "
        "$OPENHANDS_PERSISTENCE_DIR/mcp.json (no ~/.openhands/mcp.json) and the agent into "
        f"~/.openhands/agents; `openhands --headless` with the variable offers the server's tool "
        f"(`ping`: with one server, OpenHands does not prefix its name) and {case.name}",
    )
