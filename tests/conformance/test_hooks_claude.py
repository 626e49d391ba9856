"""Claude Code's own hooks, the reference for carrying a plugin's hooks: `~/.claude/settings.json`
`"hooks"`, each event's stdin JSON and environment as a recorder hook sees them, and a
PreToolUse hook blocking the `Bash` tool by exit code 2 and by a JSON `deny`. The model is the
loopback Anthropic stub, whose first reply calls `Bash` (`touch <marker>`). See
docs/hooks-harnesses.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conformance import carried as C
from tests.conformance import hooks as H
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import AnthropicStub, Recorded
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop",
          "SubagentStop", "Notification", "PreCompact")  # fmt: skip
TIMEOUT = 60


@pytest.fixture(autouse=True)
def _claude() -> None:
    need("claude")


def _session(tmp_path: Path, pre: str | None = None) -> tuple[Path, Path, list[Recorded]]:
    """Every Claude Code event hooked to the recorder in ~/.claude/settings.json (`pre`, when
    given, is PreToolUse's command instead); one `claude -p` whose model calls Bash once.
    Returns the log, the marker the Bash command touches, and the model requests."""
    home = make_home(tmp_path)
    rec, log, marker = H.recorder(tmp_path), tmp_path / "log.jsonl", tmp_path / "ran"
    hooks: dict[str, Any] = {}
    for event in EVENTS:
        entry: dict[str, Any] = {"hooks": [{"type": "command", "command": H.command(rec, event)}]}
        if event == "PreToolUse" and pre:
            entry["hooks"][0]["command"] = pre
        if event in ("PreToolUse", "PostToolUse"):
            entry["matcher"] = "Bash"
        hooks[event] = [entry]
    (home / ".claude").mkdir()
    (home / ".claude/settings.json").write_text(json.dumps({"hooks": hooks}))

    def reply(r: Recorded) -> Any:
        if "tool_result" in r.text:
            return "done"
        call = {"command": f"touch {marker}", "description": "touch"}
        return {"type": "tool_use", "name": "Bash", "input": call}

    with AnthropicStub(reply=reply) as stub:
        env = harness_env(home, {"ANTHROPIC_API_KEY": "sk-ant-fake",
                                 "ANTHROPIC_BASE_URL": stub.base_url, "HOOK_LOG": str(log)})  # fmt: skip
        done = run(["claude", "-p", "hi", "--allowedTools", "Bash"], env, home, TIMEOUT)
        assert done.returncode == 0, done.stderr
        requests = stub.model_requests()
    return log, marker, requests


def test_settings_hooks_get_each_event_on_stdin(tmp_path: Path, proven: Proven) -> None:
    log, marker, _ = _session(tmp_path)
    assert marker.exists()
    seen = H.labels(log)
    order = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]
    assert [x for x in seen if x in order] == order, seen
    pre = H.first(log, "PreToolUse")
    assert pre["stdin"]["hook_event_name"] == "PreToolUse"
    assert pre["stdin"]["tool_name"] == "Bash"
    assert pre["stdin"]["tool_input"]["command"] == f"touch {marker}"
    assert {"session_id", "transcript_path", "cwd", "tool_use_id"} <= pre["stdin"].keys()
    post = H.first(log, "PostToolUse")["stdin"]
    assert post["tool_response"]["stdout"] == "" and "interrupted" in post["tool_response"]
    assert H.first(log, "UserPromptSubmit")["stdin"]["prompt"] == "hi"
    assert H.first(log, "SessionStart")["stdin"]["source"] == "startup"
    assert H.first(log, "Stop")["stdin"]["stop_hook_active"] is False
    assert H.first(log, "SessionEnd")["stdin"]["reason"] == "other"
    assert pre["env"]["CLAUDE_PROJECT_DIR"] == pre["cwd"]
    assert pre["argv"][1:] == ["PreToolUse", "0"]  # the command line, run by a shell
    proven("claude", "~/.claude/settings.json hooks: SessionStart, UserPromptSubmit, PreToolUse/"
                     "PostToolUse (matcher Bash), Stop, SessionEnd fire with the event on stdin")  # fmt: skip


def test_exit_2_blocks_the_tool(tmp_path: Path, proven: Proven) -> None:
    rec = H.recorder(tmp_path)
    log, marker, requests = _session(tmp_path, pre=H.command(rec, "PreToolUse", 2))
    assert "PreToolUse" in H.labels(log)
    assert not marker.exists()
    assert "PostToolUse" not in H.labels(log)
    assert "blocked by recorder" in requests[-1].text
    proven("claude", "a PreToolUse hook exiting 2 blocks Bash; its stderr reaches the model")


def test_json_deny_blocks_the_tool(tmp_path: Path, proven: Proven) -> None:
    rec = H.recorder(tmp_path)
    answer = tmp_path / "deny.json"
    decision = {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                "permissionDecisionReason": "denied by recorder json"}  # fmt: skip
    answer.write_text(json.dumps({"hookSpecificOutput": decision}))
    log, marker, requests = _session(tmp_path, pre=H.command(rec, "PreToolUse", 0, answer))
    assert "PreToolUse" in H.labels(log)
    assert not marker.exists()
    assert "denied by recorder json" in requests[-1].text
    proven("claude", "PreToolUse stdout hookSpecificOutput.permissionDecision=deny blocks Bash")


def test_skilltool_carries_a_plugins_hooks_and_uninstall_gives_the_folder_back(
    tmp_path: Path, proven: Proven
) -> None:
    """The real `skilltool plugins install --only claude` carries the plugin `guard`'s hooks
    (carried.py) as the plugin folder `~/.claude/skills/guard.hooks/`, which `claude -p` loads
    by itself: its hooks fire with `${CLAUDE_PLUGIN_ROOT}` written as the plugin's own folder,
    and the gate's exit 2 blocks Bash. Uninstall (of it and of the bundled plugin's agent and
    skill links) gives ~/.claude back: every file that was there before install (the user's
    settings.json) with the same bytes, no file skilltool wrote or link it made left, none
    holding its marker; what Claude Code itself wrote during its run (the session transcript,
    a backup of ~/.claude.json, its plugin store, and the empty data folder it makes for the
    loaded plugin, `~/.claude/plugins/data/guard-hooks-skills-dir`) stays, as it would for any
    plugin, and is not compared."""
    home = make_home(tmp_path)
    (home / ".claude").mkdir()
    (home / ".claude/settings.json").write_text('{\n  "model": "sonnet"\n}\n')
    plugin = C.guard_plugin(home)
    work, log = tmp_path / "work", tmp_path / "log.jsonl"
    work.mkdir()
    before = C.snapshot(home / ".claude")
    installed = C.skilltool(home, "install", "--only", "claude")
    wrote = C.written(installed.stdout, home)
    folder = home / ".claude/skills/guard.hooks"
    assert {folder / ".claude-plugin/plugin.json", folder / "hooks/hooks.json"} <= set(wrote)

    def reply(r: Recorded) -> Any:
        if "Bash" not in [t.get("name") for t in (r.json or {}).get("tools", [])]:
            return "title"
        command = C.shell_command(len(H.tool_results(r)), work)
        if command is None:
            return "done"
        return {"type": "tool_use", "name": "Bash", "input": {"command": command,
                                                              "description": "touch"}}  # fmt: skip

    with AnthropicStub(reply=reply) as stub:
        env = harness_env(home, {"ANTHROPIC_API_KEY": "sk-ant-fake",
                                 "ANTHROPIC_BASE_URL": stub.base_url, "HOOK_LOG": str(log)})  # fmt: skip
        done = run(["claude", "-p", "hi", "--allowedTools", "Bash"], env, work, TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        requests = stub.model_requests()
    order = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PreToolUse", "PostToolUse", "Stop"]
    assert H.labels(log) == order
    # each command ran the plugin's own script, the folder skilltool wrote in for the name;
    # Claude Code's own CLAUDE_PLUGIN_ROOT is the generated folder, which holds no script
    assert {e["argv"][0] for e in H.entries(log)} == {str(plugin / "rec.py")}
    pre = [e for e in H.entries(log) if e["label"] == "PreToolUse"]
    commands = [f"touch {work}/BLOCKME", f"touch {work}/ran"]
    assert [e["stdin"]["tool_input"]["command"] for e in pre] == commands
    assert pre[0]["env"]["CLAUDE_PLUGIN_ROOT"] == str(folder)
    # the gate's exit 2 blocked the first Bash call, its stderr reaching the model
    assert not (work / "BLOCKME").exists() and (work / "ran").exists()
    assert "guard blocks BLOCKME" in requests[-1].text
    post = H.first(log, "PostToolUse")["stdin"]
    assert post["tool_input"]["command"] == f"touch {work}/ran"

    C.skilltool(home, "uninstall", "--only", "claude")
    own = C.given_back(home / ".claude", before, wrote)
    assert not folder.exists() and own  # the session Claude Code wrote is its own
    data = home / ".claude/plugins/data/guard-hooks-skills-dir"
    assert not data.exists() or not any(data.iterdir())
    proven("claude", "skilltool's ~/.claude/skills/<plugin>.hooks (.claude-plugin/plugin.json "
                     "named <plugin>-hooks, hooks/hooks.json) is loaded by itself: SessionStart, "
                     "UserPromptSubmit, PreToolUse/PostToolUse (Bash), Stop fire the plugin's "
                     "own scripts (${CLAUDE_PLUGIN_ROOT} written in), exit 2 blocks Bash; "
                     "uninstall gives ~/.claude back")  # fmt: skip
