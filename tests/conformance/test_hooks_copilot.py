"""Copilot CLI's hooks: any `~/.copilot/hooks/*.json` (and `"hooks"` in `~/.copilot/settings.json`,
not in `config.json`) in two dialects: Claude Code's own file (PascalCase events, `matcher`,
nested `hooks`) gets Claude-shaped snake_case payloads with Claude's tool name `Bash`; Copilot's
(`{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": …}]}}`) gets camelCase
payloads with its own `bash`. Exit 2 blocks the tool. `copilot -p --allow-all-tools` against a
loopback Chat Completions stub whose first reply calls `bash {"command": "touch <marker>"}` (the
marker inside the working folder: a path outside it is denied in `-p` before any hook can
matter). See docs/findings-hooks-a.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conformance import hooks as H
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import OpenAIStub, Recorded
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

TIMEOUT = 60
CLAUDE_EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd",
                 "Stop", "SubagentStop", "Notification", "PreCompact")  # fmt: skip
NATIVE_EVENTS = ("sessionStart", "sessionEnd", "userPromptSubmitted", "preToolUse", "postToolUse",
                 "agentStop", "subagentStop", "errorOccurred", "preCompact")  # fmt: skip


@pytest.fixture(autouse=True)
def _copilot() -> None:
    need("copilot")


def claude_hooks(rec: Path, prefix: str, pre_code: int = 0) -> dict[str, Any]:
    hooks: dict[str, Any] = {}
    for event in CLAUDE_EVENTS:
        code = pre_code if event == "PreToolUse" else 0
        entry: dict[str, Any] = {
            "hooks": [{"type": "command", "command": H.command(rec, prefix + event, code)}]
        }
        if event in ("PreToolUse", "PostToolUse"):
            entry["matcher"] = "Bash"
        hooks[event] = [entry]
    return {"hooks": hooks}


def native_hooks(rec: Path) -> dict[str, Any]:
    hooks = {
        e: [{"type": "command", "bash": H.command(rec, "n:" + e), "timeoutSec": 30}]
        for e in NATIVE_EVENTS
    }
    return {"version": 1, "hooks": hooks}


def _session(tmp_path: Path, files: dict[str, Any]) -> tuple[Path, Path, list[Recorded]]:
    home = make_home(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    marker, log = work / "ran", tmp_path / "log.jsonl"
    for name, content in files.items():
        (home / ".copilot" / name).parent.mkdir(parents=True, exist_ok=True)
        (home / ".copilot" / name).write_text(json.dumps(content))

    def reply(r: Recorded) -> Any:
        if '"tool_call_id"' in r.text:
            return "done"
        return {"call": "bash", "arguments": {"command": f"touch {marker}", "description": "t"}}

    with OpenAIStub(reply=reply) as stub:
        env = harness_env(home, {"COPILOT_PROVIDER_BASE_URL": stub.base_url,
                                 "COPILOT_PROVIDER_API_KEY": "dummy", "COPILOT_MODEL": "gpt-4.1",
                                 "COPILOT_OFFLINE": "true", "HOOK_LOG": str(log)})  # fmt: skip
        done = run(["copilot", "-p", "hi", "--allow-all-tools"], env, work, TIMEOUT)
        assert done.returncode == 0, done.stderr
        return log, marker, stub.model_requests()


def test_both_dialects_fire_with_their_own_payloads(tmp_path: Path, proven: Proven) -> None:
    rec = H.recorder(tmp_path)
    files = {"hooks/claude.json": claude_hooks(rec, "c:"), "hooks/native.json": native_hooks(rec)}
    log, marker, _ = _session(tmp_path, files)
    assert marker.exists()
    seen = H.labels(log)
    claude = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]
    # sessionStart and the prompt hook may finish in either order; the rest keep theirs
    assert sorted(x[2:] for x in seen if x.startswith("c:")) == sorted(claude), seen
    assert [x for x in seen if x.startswith("c:") and x[2:] in claude[2:]] == [
        "c:" + x for x in claude[2:]
    ]
    native = ["sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "agentStop",
              "sessionEnd"]  # fmt: skip
    assert sorted(x[2:] for x in seen if x.startswith("n:")) == sorted(native), seen

    pre = H.first(log, "c:PreToolUse")
    assert pre["stdin"]["hook_event_name"] == "PreToolUse"
    assert pre["stdin"]["tool_name"] == "Bash"
    assert pre["stdin"]["tool_input"]["command"] == f"touch {marker}"
    assert {"session_id", "timestamp", "cwd"} <= pre["stdin"].keys()
    post = H.first(log, "c:PostToolUse")["stdin"]
    assert post["tool_result"]["result_type"] == "success"  # not Claude's tool_response
    assert H.first(log, "c:UserPromptSubmit")["stdin"]["prompt"] == "hi"
    assert H.first(log, "c:SessionStart")["stdin"]["source"] == "new"
    assert H.first(log, "c:Stop")["stdin"]["stop_hook_active"] is False
    assert H.first(log, "c:SessionEnd")["stdin"]["reason"] == "complete"

    npre = H.first(log, "n:preToolUse")["stdin"]
    assert npre["toolName"] == "bash" and npre["toolArgs"]["command"] == f"touch {marker}"
    assert {"sessionId", "timestamp", "cwd"} <= npre.keys() and "hook_event_name" not in npre
    env = pre["env"]
    assert env["CLAUDE_PROJECT_DIR"] == env["COPILOT_PROJECT_DIR"] == str(tmp_path / "work")
    assert env["COPILOT_HOOK_DIR"] == str(tmp_path / "home/.copilot/hooks")
    proven("copilot", "~/.copilot/hooks/*.json: Claude's format (payload snake_case, tool Bash) "
                      "and Copilot's (camelCase, tool bash) both fire on every turn event")  # fmt: skip


def test_exit_2_blocks_the_tool(tmp_path: Path, proven: Proven) -> None:
    rec = H.recorder(tmp_path)
    log, marker, requests = _session(tmp_path, {"hooks/x.json": claude_hooks(rec, "", 2)})
    assert "PreToolUse" in H.labels(log)
    assert not marker.exists()
    assert "PostToolUse" not in H.labels(log)
    assert "Denied by preToolUse hook: hook exited with code 2" in requests[-1].text
    assert "blocked by recorder" not in requests[-1].text  # stderr does not reach the model
    proven("copilot", "a Claude-format PreToolUse hook exiting 2 blocks bash")


def test_settings_json_hooks_fire_and_config_json_hooks_do_not(
    tmp_path: Path, proven: Proven
) -> None:
    rec = H.recorder(tmp_path)
    files = {"settings.json": claude_hooks(rec, "s:"), "config.json": claude_hooks(rec, "k:")}
    log, marker, _ = _session(tmp_path, files)
    seen = H.labels(log)
    assert "s:PreToolUse" in seen and "s:SessionStart" in seen
    assert not [x for x in seen if x.startswith("k:")], seen
    assert marker.exists()
    proven("copilot", '"hooks" in ~/.copilot/settings.json fire; in ~/.copilot/config.json not')
