"""Codex's hooks: `~/.codex/hooks.json` in Claude Code's own format (PascalCase events,
`matcher`, `hooks: [{type: command, command}]`), matched and reported with Claude's tool name
`Bash` for its `exec_command` tool; untrusted hooks are skipped until `[hooks.state."<key>"]
trusted_hash` (the `currentHash` of the app-server's `hooks/list`) is in `config.toml`; exit 2
blocks the tool. `codex exec` against a loopback Responses stub whose first reply is a function
call `exec_command {"cmd": "touch <marker>"}`. See docs/hooks-harnesses.md."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conformance import hooks as H
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import OpenAIStub, Recorded
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop",
          "SubagentStop", "Notification", "PreCompact")  # fmt: skip
TIMEOUT = 60
BYPASS = "--dangerously-bypass-hook-trust"


@pytest.fixture(autouse=True)
def _codex() -> None:
    need("codex")


def _home(tmp_path: Path, pre_code: int = 0) -> tuple[Path, Path, Path]:
    """A home whose ~/.codex/hooks.json hooks every Claude Code event to the recorder."""
    home = make_home(tmp_path)
    rec, log = H.recorder(tmp_path), tmp_path / "log.jsonl"
    hooks: dict[str, Any] = {}
    for event in EVENTS:
        code = pre_code if event == "PreToolUse" else 0
        entry: dict[str, Any] = {
            "hooks": [{"type": "command", "command": H.command(rec, event, code)}]
        }
        if event in ("PreToolUse", "PostToolUse"):
            entry["matcher"] = "Bash"
        hooks[event] = [entry]
    (home / ".codex/hooks.json").write_text(json.dumps({"hooks": hooks}))
    return home, log, tmp_path / "ran"


def _exec(home: Path, log: Path, marker: Path, *flags: str) -> tuple[str, list[Recorded]]:
    def reply(r: Recorded) -> Any:
        if "function_call_output" in r.text:
            return "done"
        return {"call": "exec_command", "arguments": {"cmd": f"touch {marker}"}}

    with OpenAIStub(reply=reply) as stub:
        env = harness_env(home, {"STUB_API_KEY": "dummy", "HOOK_LOG": str(log)})
        provider = {"name": "Stub", "base_url": stub.base_url, "wire_api": "responses",
                    "env_key": "STUB_API_KEY"}  # fmt: skip
        argv = ["codex", "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
                *flags, "-c", 'model_provider="stub"', "-c", 'model="gpt-6.1-sol"']  # fmt: skip
        for key, value in provider.items():
            argv += ["-c", f"model_providers.stub.{key}={json.dumps(value)}"]
        done = run([*argv, "hi"], env, home, TIMEOUT)
        assert done.returncode == 0, done.stderr
        return done.stderr, stub.model_requests()


def _hooks_list(home: Path) -> list[dict[str, Any]]:
    """`hooks/list` of `codex app-server` (JSON-RPC, one object a line, over stdio)."""
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"clientInfo": {"name": "skilltool-test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [str(home)]}},
    ]  # fmt: skip
    proc = subprocess.Popen(
        ["codex", "app-server"], env=harness_env(home), cwd=home, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(x) + "\n" for x in lines))
        proc.stdin.flush()
        for line in proc.stdout:
            message = json.loads(line)
            if message.get("id") == 2:
                data: list[dict[str, Any]] = message["result"]["data"]
                return data[0]["hooks"]
        raise AssertionError("codex app-server ended without answering hooks/list")
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_claude_format_hooks_json_gets_claude_payloads(tmp_path: Path, proven: Proven) -> None:
    home, log, marker = _home(tmp_path)
    _exec(home, log, marker, BYPASS)
    assert marker.exists()
    seen = H.labels(log)
    order = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]
    assert [x for x in seen if x in order] == order, seen
    pre = H.first(log, "PreToolUse")["stdin"]
    assert pre["hook_event_name"] == "PreToolUse"
    assert pre["tool_name"] == "Bash"  # the model called exec_command
    assert pre["tool_input"] == {"command": f"touch {marker}"}
    assert {"session_id", "turn_id", "transcript_path", "cwd", "model", "tool_use_id"} <= pre.keys()
    assert H.first(log, "PostToolUse")["stdin"]["tool_response"] == ""
    assert H.first(log, "UserPromptSubmit")["stdin"]["prompt"] == "hi"
    assert H.first(log, "SessionStart")["stdin"]["source"] == "startup"
    assert H.first(log, "Stop")["stdin"]["last_assistant_message"] == "done"
    env = H.first(log, "PreToolUse")["env"]
    assert "CLAUDE_PROJECT_DIR" not in env and "CODEX_PROJECT_DIR" not in env
    proven("codex", "~/.codex/hooks.json in Claude's format: SessionStart, UserPromptSubmit, "
                    "PreToolUse/PostToolUse (matcher Bash on exec_command), Stop, SessionEnd fire")  # fmt: skip


def test_untrusted_hooks_are_skipped_until_trusted_in_config(
    tmp_path: Path, proven: Proven
) -> None:
    home, log, marker = _home(tmp_path)
    hooks = _hooks_list(home)
    events = {h["eventName"] for h in hooks}
    assert events == {"preToolUse", "postToolUse", "userPromptSubmit", "sessionStart",
                      "sessionEnd", "stop", "subagentStop", "preCompact"}  # fmt: skip
    assert all(h["trustStatus"] == "untrusted" for h in hooks)
    pre = next(h for h in hooks if h["eventName"] == "preToolUse")
    assert pre["key"] == f"{home}/.codex/hooks.json:pre_tool_use:0:0"
    assert pre["matcher"] == "Bash" and pre["source"] == "user"

    _exec(home, log, marker)
    assert marker.exists() and H.labels(log) == []  # untrusted: silently not run
    marker.unlink()

    state = "".join(
        f'[hooks.state."{h["key"]}"]\ntrusted_hash = "{h["currentHash"]}"\n\n' for h in hooks
    )
    (home / ".codex/config.toml").write_text(state)
    assert all(h["trustStatus"] == "trusted" for h in _hooks_list(home))
    _exec(home, log, marker)
    assert "PreToolUse" in H.labels(log) and marker.exists()
    proven("codex", "hooks run only once config.toml has [hooks.state.<key>] trusted_hash = "
                    "hooks/list currentHash; Notification is dropped without a word")  # fmt: skip


def test_exit_2_blocks_the_tool(tmp_path: Path, proven: Proven) -> None:
    home, log, marker = _home(tmp_path, pre_code=2)
    stderr, requests = _exec(home, log, marker, BYPASS)
    assert "PreToolUse" in H.labels(log)
    assert not marker.exists()
    assert "PostToolUse" not in H.labels(log)
    assert "Command blocked by PreToolUse hook: blocked by recorder" in requests[-1].text
    proven("codex", "a PreToolUse hook exiting 2 blocks exec_command; its stderr reaches the model")
