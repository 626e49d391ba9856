"""Qwen Code loads what skilltool renders: its `agent` tool lists the agent, a headless run that
delegates to it sends the body to a loopback stub, the skills reach the model, and an agent file
Qwen would drop is skipped by skilltool. `qwen --acp` has no agent selector."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("skilltool.harnesses.qwen")

from tests.conformance.acp import AcpClient
from tests.conformance.homes import (
    ACP_TIMEOUT,
    TIMEOUT,
    Installed,
    bundled_case,
    harness_dirs,
    left_alone,
    rendered_agent,
    skilltool,
)
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import AnthropicStub, Recorded
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

# Qwen Code 0.24.4's own tool names (ToolNames), the ones skilltool maps Claude's to
QWEN_TOOLS = {"read_file", "grep_search", "glob", "list_directory", "run_shell_command", "edit",
              "write_file", "web_fetch", "web_search", "todo_write", "notebook_edit", "skill",
              "agent"}  # fmt: skip
# Qwen talks to the stub through its Anthropic provider (the loopback stub that answers tool use)
MODEL = "claude-sonnet-4-5"
QWEN = ["--auth-type", "anthropic", "-m", MODEL]


@pytest.fixture
def installed(third_wave: Installed) -> Installed:
    return third_wave


@pytest.fixture(autouse=True)
def _qwen() -> None:
    need("qwen")


def qwen_env(home: Path, stub: AnthropicStub | None = None) -> dict[str, str]:
    base = stub.base_url if stub else "http://127.0.0.1:9"
    extra = {"ANTHROPIC_API_KEY": "dummy", "ANTHROPIC_BASE_URL": base,
             "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"}  # fmt: skip
    return harness_env(home, extra)


def headless(home: Path, cwd: Path, stub: AnthropicStub) -> subprocess.CompletedProcess[str]:
    """`qwen -p hi` with every tool approved: the stub's scripted tool calls run unasked."""
    cwd.mkdir(exist_ok=True)
    argv = ["qwen", "-p", "hi", *QWEN, "--approval-mode", "yolo"]
    done = run(argv, qwen_env(home, stub), cwd, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def tool_names(request: Recorded) -> list[str]:
    return [t.get("name") for t in (request.json or {}).get("tools", [])]


def agent_tool(request: Recorded) -> str:
    """The description of the main agent's `agent` tool: it lists every subagent Qwen loaded."""
    [found] = [t for t in request.json.get("tools", []) if t.get("name") == "agent"]
    return str(found["description"])


def system_text(request: Recorded) -> str:
    return "\n".join(request.system_texts())


def delegate_to(name: str, body: str) -> Callable[[Recorded], Any]:
    """A scripted stub: the main agent calls `agent` for `name` once, the subagent answers."""

    def reply(request: Recorded) -> Any:
        if system_text(request).startswith(body):
            return "subagent done"
        messages = request.json.get("messages") or [{}]
        last = messages[-1].get("content")
        if isinstance(last, list) and any(c.get("type") == "tool_result" for c in last):
            return "main done"
        if "agent" in tool_names(request):
            call = {"subagent_type": name, "description": "the task", "prompt": "do the task",
                    "run_in_background": False}  # fmt: skip
            return {"type": "tool_use", "name": "agent", "input": call}
        return "other"

    return reply


def agent_file(installed: Installed) -> Path:
    return installed.home / ".qwen/agents" / f"{installed.case.name}.md"


def test_rendered_agent_has_only_qwen_names(installed: Installed, proven: Proven) -> None:
    case = installed.case
    path = agent_file(installed)
    rendered = rendered_agent(path)
    marker = rendered.marker()
    assert marker and marker.group(1) == str(case.source), rendered.lines
    front = rendered.front
    assert set(front) <= {"name", "description", "tools", "model"}, front
    assert (front["name"], front["description"]) == (case.name, case.description)
    tools = front.get("tools", [])
    assert isinstance(tools, list) and set(tools) <= QWEN_TOOLS, tools
    assert "model" not in front  # a Claude alias means nothing to Qwen
    assert rendered.body == case.body
    proven(
        "qwen",
        f"[{case.key}] ~/.qwen/agents/{case.name}.md: the marker a YAML comment, keys "
        f"{', '.join(sorted(front))}; tools {tools} (Qwen's own names); the body byte for byte",
    )


def test_a_headless_run_lists_the_agent_and_delegation_sends_the_body(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    # Qwen turns CRLF into LF and trims the body before it becomes the subagent's prompt
    body = case.body.replace("\r\n", "\n").strip()
    tools = rendered_agent(agent_file(installed)).front.get("tools", [])
    with AnthropicStub(reply=delegate_to(case.name, body)) as stub:
        done = headless(home, tmp_path / "project", stub)
        main = stub.wait_for(lambda r: "agent" in tool_names(r))
        sub = stub.wait_for(lambda r: system_text(r).startswith(body))
    assert "main done" in done.stdout, done.stdout + done.stderr
    assert f"- **{case.name}**: {case.description}\n" in agent_tool(main)
    # the body, then Qwen's own rules for a subagent; exactly the rendered tool list
    assert system_text(sub).startswith(body + "\n\n")
    assert tool_names(sub) == tools
    assert sub.json["model"] == MODEL  # no model in the file: the main session's
    assert "rendered by skilltool" not in main.text + sub.text
    for skill in case.skills:  # the skill listing of the main request
        assert any(f"<name>\n{skill}\n</name>" in t for t in main.texts()), skill
    proven(
        "qwen",
        f"[{case.key}] `qwen -p hi {' '.join(QWEN)} --approval-mode yolo` (stub): the `agent` tool "
        f"lists `- **{case.name}**: <description>`; a scripted `agent` call gives a subagent "
        "request whose system prompt starts with the body (CRLF turned into LF, trimmed), tools "
        f"exactly {tools}; the skills {', '.join(case.skills)} are listed to the model",
    )


def test_an_agent_qwen_would_drop_is_skipped_with_a_line(tmp_path: Path, proven: Proven) -> None:
    short = b"---\nname: shorty\ndescription: A short body\n---\nshort\n"
    home = make_home(tmp_path)
    harness_dirs(home, "shorty", ("qwen",))
    control = home / ".qwen/agents/shorty.md"
    control.parent.mkdir(parents=True)
    control.write_bytes(short)
    with AnthropicStub(reply="main done") as stub:
        headless(home, tmp_path / "project", stub)
        main = stub.wait_for(lambda r: "agent" in tool_names(r))
    assert "**shorty**" not in agent_tool(main)  # dropped without a word
    control.unlink()
    plugin = tmp_path / "plugin"
    (plugin / "agents").mkdir(parents=True)
    (plugin / "agents/shorty.md").write_bytes(short)
    case = replace(bundled_case(), name="shorty", override=str(plugin))
    done = skilltool(home, case, tmp_path, "install")
    assert done.returncode == 0, done.stderr
    assert "skipped   qwen: the body is under 10 characters" in done.stdout, done.stdout
    assert not control.exists()
    proven(
        "qwen",
        "control: an agent whose body is under 10 characters is missing from the `agent` tool, "
        "without a word; `skilltool plugins install` skips it with a line instead of writing it",
    )


def test_acp_has_no_agent_selector(installed: Installed, tmp_path: Path, proven: Proven) -> None:
    case = installed.case
    how = installed.launch("qwen")
    assert how["command"] == ["qwen", "--acp"]
    assert any("no agent option over ACP" in note for note in how["notes"]), how["notes"]
    cwd = tmp_path / "project"
    cwd.mkdir()
    with AnthropicStub() as stub:
        with AcpClient(
            [*how["command"], *QWEN], env=qwen_env(installed.home, stub), cwd=cwd
        ) as acp:
            acp.initialize()
            session = acp.new_session(cwd)
            options = {o.get("id") for o in session.get("configOptions") or []}
            assert options <= {"mode", "model"}, session
            result = acp.prompt(session["sessionId"], "hi", timeout=ACP_TIMEOUT)
            assert result["stopReason"] == "end_turn"
        main = stub.wait_for(lambda r: "agent" in tool_names(r))
    assert f"- **{case.name}**: {case.description}\n" in agent_tool(main)
    proven(
        "qwen",
        f"[{case.key}] `qwen --acp` (stub): session/new offers only {', '.join(sorted(options))}, "
        f"no agent; the prompt's request lists the subagent {case.name} in its `agent` tool",
    )


FOREIGN_AGENT = (
    "---\nname: plugin-author\ndescription: The user's own agent\n---\n"
    "My own Qwen prompt, not skilltool's. ✓\n"
)


def test_a_foreign_agent_file_is_left_alone(tmp_path: Path, proven: Proven) -> None:
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, ("qwen",))
    target = home / ".qwen/agents" / f"{case.name}.md"
    target.parent.mkdir(parents=True)
    target.write_bytes(FOREIGN_AGENT.encode("utf-8"))

    def lists_the_users_agent() -> None:
        with AnthropicStub(reply="main done") as stub:
            headless(home, tmp_path / "project", stub)
            main = stub.wait_for(lambda r: "agent" in tool_names(r))
        assert f"- **{case.name}**: The user's own agent\n" in agent_tool(main)

    left_alone(
        home, case, tmp_path, target, f"~/.qwen/agents/{case.name}.md", lists_the_users_agent
    )
    proven(
        "qwen",
        "a user's own ~/.qwen/agents/<name>.md is byte-for-byte untouched by install and "
        "uninstall, and Qwen lists the user's agent before, between and after",
    )
