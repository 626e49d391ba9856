"""Gemini CLI's hooks: `~/.gemini/settings.json` `"hooks"`, Claude Code's nesting (`matcher`,
`hooks: [{type: command, command}]`) under Gemini's own event names (BeforeTool, AfterTool,
BeforeAgent, AfterAgent, SessionStart, SessionEnd, PreCompress, Notification, BeforeModel,
AfterModel, BeforeToolSelection) and tool names (`run_shell_command`); Claude's event names
are skipped with a warning and a `Bash` matcher matches nothing; exit 2 blocks the tool.
`gemini -p --yolo` against the loopback Gemini stub whose first reply is a `functionCall`
`run_shell_command {"command": "touch <marker>"}`. See docs/findings-hooks-a.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conformance import hooks as H
from tests.conformance.homes import GEMINI_SETTINGS
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import GeminiStub, Recorded
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

TIMEOUT = 60
GEMINI_EVENTS = ("BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "SessionStart",
                 "SessionEnd", "PreCompress", "Notification")  # fmt: skip
TOOL_EVENTS = ("BeforeTool", "AfterTool", "PreToolUse", "PostToolUse")


@pytest.fixture(autouse=True)
def _gemini() -> None:
    need("gemini")


def _session(tmp_path: Path, hooks: dict[str, Any]) -> tuple[str, Path, list[Recorded]]:
    """`hooks` in ~/.gemini/settings.json; one `gemini -p` (from a folder of its own, so the
    settings are the user's, not the project's) whose model runs `touch <marker>` once."""
    home = make_home(tmp_path)
    work, marker = tmp_path / "work", tmp_path / "ran"
    work.mkdir()
    (home / ".gemini").mkdir()
    (home / ".gemini/settings.json").write_text(json.dumps({**GEMINI_SETTINGS, "hooks": hooks}))

    def reply(r: Recorded) -> Any:
        if "functionResponse" in r.text:
            return "done"
        return {"functionCall": {"name": "run_shell_command",
                                 "args": {"command": f"touch {marker}"}}}  # fmt: skip

    with GeminiStub(reply=reply) as stub:
        env = harness_env(home, {"GEMINI_API_KEY": "fake", "GOOGLE_GEMINI_BASE_URL": stub.base_url,
                                 "HOOK_LOG": str(tmp_path / "log.jsonl")})  # fmt: skip
        argv = ["gemini", "-p", "hi", "--skip-trust", "--yolo", "-m", "gemini-2.5-pro"]
        done = run(argv, env, work, TIMEOUT)
        assert done.returncode == 0, done.stderr
        return done.stderr, marker, stub.model_requests()


def _entry(rec: Path, label: str, code: int = 0, matcher: str | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"hooks": [{"type": "command", "command": H.command(rec, label, code)}]}
    if matcher is not None:
        entry["matcher"] = matcher
    return entry


def test_gemini_events_get_the_payload(tmp_path: Path, proven: Proven) -> None:
    rec, log = H.recorder(tmp_path), tmp_path / "log.jsonl"
    hooks = {
        e: [_entry(rec, e, matcher="run_shell_command" if e in TOOL_EVENTS else None)]
        for e in GEMINI_EVENTS
    }
    _, marker, _ = _session(tmp_path, hooks)
    assert marker.exists()
    seen = H.labels(log)
    order = ["SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd"]
    assert [x for x in seen if x in order] == order, seen
    assert "PreCompress" in seen  # before each model request here, with trigger "auto"
    pre = H.first(log, "BeforeTool")
    assert pre["stdin"]["hook_event_name"] == "BeforeTool"
    assert pre["stdin"]["tool_name"] == "run_shell_command"
    assert pre["stdin"]["tool_input"] == {"command": f"touch {marker}"}
    assert {"session_id", "transcript_path", "cwd", "timestamp"} <= pre["stdin"].keys()
    after = H.first(log, "AfterTool")["stdin"]
    assert {"llmContent", "returnDisplay"} <= after["tool_response"].keys()
    assert H.first(log, "BeforeAgent")["stdin"]["prompt"] == "hi"
    agent = H.first(log, "AfterAgent")["stdin"]
    assert agent["prompt_response"] == "done" and agent["stop_hook_active"] is False
    assert H.first(log, "SessionStart")["stdin"]["source"] == "startup"
    assert H.first(log, "SessionEnd")["stdin"]["reason"] == "exit"
    assert H.first(log, "PreCompress")["stdin"]["trigger"] == "auto"
    env = pre["env"]
    assert env["GEMINI_PROJECT_DIR"] == env["CLAUDE_PROJECT_DIR"] == str(tmp_path / "work")
    assert env["GEMINI_SESSION_ID"] == pre["stdin"]["session_id"]
    proven("gemini", "settings.json hooks: SessionStart, BeforeAgent, BeforeTool/AfterTool "
                     "(matcher run_shell_command), AfterAgent, SessionEnd, PreCompress fire")  # fmt: skip


def test_claude_names_are_skipped_and_exit_2_blocks(tmp_path: Path, proven: Proven) -> None:
    rec, log = H.recorder(tmp_path), tmp_path / "log.jsonl"
    hooks = {
        "PreToolUse": [_entry(rec, "PreToolUse", matcher="Bash")],
        "UserPromptSubmit": [_entry(rec, "UserPromptSubmit")],
        "Stop": [_entry(rec, "Stop")],
        "BeforeTool": [
            _entry(rec, "BeforeTool-Bash", matcher="Bash"),
            _entry(rec, "BeforeTool-block", 2, matcher="run_shell_command"),
        ],
    }
    stderr, marker, requests = _session(tmp_path, hooks)
    for name in ("PreToolUse", "UserPromptSubmit", "Stop"):
        assert f'Invalid hook event name: "{name}"' in stderr, stderr
    assert H.labels(log) == ["BeforeTool-block"]  # a matcher `Bash` matches no Gemini tool
    assert not marker.exists()
    assert "Tool execution blocked: blocked by recorder" in requests[-1].text
    proven("gemini", "Claude event names are skipped with a warning, matcher Bash matches "
                     "nothing, a BeforeTool hook exiting 2 blocks run_shell_command")  # fmt: skip
