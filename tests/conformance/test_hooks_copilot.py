"""Copilot CLI's hooks: any `~/.copilot/hooks/*.json` (and `"hooks"` in `~/.copilot/settings.json`,
not in `config.json`) in two dialects: Claude Code's own file (PascalCase events, `matcher`,
nested `hooks`) gets Claude-shaped snake_case payloads with Claude's tool name `Bash`; Copilot's
(`{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": …}]}}`) gets camelCase
payloads with its own `bash`. Exit 2 blocks the tool. `copilot -p --allow-all-tools` against a
loopback Chat Completions stub whose first reply calls `bash {"command": "touch <marker>"}` (the
marker inside the working folder: a path outside it is denied in `-p` before any hook can
matter). See docs/hooks-harnesses.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conformance import carried as C
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


def test_skilltool_carries_a_plugins_hooks_and_uninstall_gives_the_folder_back(
    tmp_path: Path, proven: Proven
) -> None:
    """The real `skilltool plugins install --only copilot` carries the plugin `guard`'s hooks
    (carried.py) as `~/.copilot/hooks/guard.json`, Claude Code's file with skilltool's marker
    as a top-level `description`, beside a hooks file of the user's own; `copilot -p` runs
    both, the plugin's with `${CLAUDE_PLUGIN_ROOT}` written as its folder, and the gate's
    exit 2 blocks bash. Uninstall gives ~/.copilot back: every file that was there before
    install (the user's hooks file) with the same bytes, no file skilltool wrote left, none
    holding its marker; what Copilot CLI itself wrote during its run (its config, session
    state, logs) stays, as it would without skilltool, and is not compared."""
    home = make_home(tmp_path)
    plugin = C.guard_plugin(home)
    work, log = tmp_path / "work", tmp_path / "log.jsonl"
    work.mkdir()
    rec = H.recorder(tmp_path)
    mine = {"hooks": {"SessionStart": [{"hooks": [{"type": "command",
                                                    "command": H.command(rec, "mine")}]}]}}  # fmt: skip
    (home / ".copilot/hooks").mkdir(parents=True)
    (home / ".copilot/hooks/mine.json").write_text(json.dumps(mine))
    before = C.snapshot(home / ".copilot")
    installed = C.skilltool(home, "install", "--only", "copilot")
    wrote = C.written(installed.stdout, home)
    carried = home / ".copilot/hooks/guard.json"
    assert carried in wrote
    assert "rendered by skilltool" in json.loads(carried.read_text())["description"]

    def reply(r: Recorded) -> Any:
        messages = (r.json or {}).get("messages", [])
        command = C.shell_command(len([m for m in messages if m.get("role") == "tool"]), work)
        if command is None:
            return "done"
        return {"call": "bash", "arguments": {"command": command, "description": "t"}}

    with OpenAIStub(reply=reply) as stub:
        env = harness_env(home, {"COPILOT_PROVIDER_BASE_URL": stub.base_url,
                                 "COPILOT_PROVIDER_API_KEY": "dummy", "COPILOT_MODEL": "gpt-4.1",
                                 "COPILOT_OFFLINE": "true", "HOOK_LOG": str(log)})  # fmt: skip
        done = run(["copilot", "-p", "hi", "--allow-all-tools"], env, work, TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        requests = stub.model_requests()
    seen = H.labels(log)
    mapped = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PreToolUse", "PostToolUse", "Stop"]
    assert sorted(seen) == sorted(["mine", *mapped]), seen  # the user's own hook too
    # each of the plugin's commands ran its own script, the folder skilltool wrote in
    ours = [e for e in H.entries(log) if e["label"] != "mine"]
    assert [e["label"] for e in ours][2:] == mapped[2:]  # the first two: either order
    assert {e["argv"][0] for e in ours} == {str(plugin / "rec.py")}
    pre = [e["stdin"] for e in ours if e["label"] == "PreToolUse"]
    commands = [f"touch {work}/BLOCKME", f"touch {work}/ran"]
    assert [p["tool_input"]["command"] for p in pre] == commands
    assert {p["tool_name"] for p in pre} == {"Bash"}
    # the gate's exit 2 blocked the first bash call (Copilot gives the model no stderr)
    assert not (work / "BLOCKME").exists() and (work / "ran").exists()
    assert "Denied by preToolUse hook: hook exited with code 2" in requests[-1].text
    post = H.first(log, "PostToolUse")["stdin"]
    assert post["tool_input"]["command"] == f"touch {work}/ran"

    C.skilltool(home, "uninstall", "--only", "copilot")
    own = C.given_back(home / ".copilot", before, wrote)
    assert not carried.exists() and own  # the session state Copilot CLI wrote is its own
    proven("copilot", "skilltool's ~/.copilot/hooks/<plugin>.json (Claude's file plus a "
                      "top-level description holding the marker) is taken beside the user's "
                      "own: SessionStart, UserPromptSubmit, PreToolUse/PostToolUse (Bash), "
                      "Stop fire the plugin's own scripts (${CLAUDE_PLUGIN_ROOT} written in), "
                      "exit 2 blocks bash; uninstall gives ~/.copilot back")  # fmt: skip
