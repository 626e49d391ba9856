"""Mistral Vibe hooks, proven in the binary: `~/.vibe/hooks.toml` (`[[hooks]]`: pre_tool,
post_tool, post_agent) with a recorder command, `vibe -p --yolo` against the loopback stub
scripted to call `bash` once per answer case; and a Claude Code plugin with
`hooks/hooks.json` dropped in `~/.vibe/plugins/`, whose hooks Vibe parses but does not run.
Two runs, about 7 s each.

Findings: docs/findings-hooks-c.md."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.hooks import ToolCallStub, calls, fired, write_rules_recorder
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

ANSWERS: dict[str, dict[str, Any]] = {
    "exit2": {"exit": 2, "stderr": "claude exit-2 block"},
    "claude-decision": {"stdout": json.dumps({"decision": "block", "reason": "claude decision"})},
    "claude-permission": {
        "stdout": json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "claude permission",
                }
            }
        )
    },
    "vibe-deny": {"stdout": json.dumps({"decision": "deny", "reason": "vibe deny"})},
    # answered by the strict hook only (the plain one passes it)
    "strict-exit2": {},
}
CLAUDE_EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "SubagentStop",
    "Notification",
    "PreCompact",
)


@dataclass
class Run:
    tmp: Path
    home: Path
    rec: Path
    stub: ToolCallStub
    stderr: str
    seconds: float

    def marker(self, case: str) -> Path:
        return self.tmp / f"{case}.txt"

    def payloads(self, event: str) -> list[dict[str, Any]]:
        return [c["stdin"] for c in calls(self.rec) if c["argv"][0] == event]


def vibe_run(tmp: Path, setup: Any, script: list[tuple[str, dict[str, Any]]]) -> Run:
    home = make_home(tmp)
    (home / ".vibe").mkdir()
    rec_dir = tmp / "rec"
    setup(home, rec_dir)
    with ToolCallStub(script) as stub:
        (home / ".vibe/config.toml").write_text(
            'active_model = "stub"\nenable_telemetry = false\nenable_update_checks = false\n'
            f'[[providers]]\nname = "stub"\napi_base = "{stub.base_url}"\n'
            'api_key_env_var = "STUB_API_KEY"\n'
            '[[models]]\nname = "stub-model"\nprovider = "stub"\nalias = "stub"\n'
        )
        env = harness_env(home, {"STUB_API_KEY": "dummy"})
        start = time.monotonic()
        done = run(["vibe", "-p", "run it", "--yolo"], env, home, timeout=50)
        seconds = time.monotonic() - start
        assert done.returncode == 0, done.stderr
        assert "hooks done" in done.stdout
    return Run(tmp, home, rec_dir, stub, done.stderr, seconds)


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> Run:
    need("vibe")
    tmp = tmp_path_factory.mktemp("vibe-hooks")

    def setup(home: Path, rec_dir: Path) -> None:
        rules = [
            {"event": "pre_tool", "contains": f"/{case}.txt", **a} for case, a in ANSWERS.items()
        ]
        rules.insert(0, {"event": "strict", "contains": "/strict-exit2.txt", "exit": 2})
        recorder = write_rules_recorder(rec_dir, rules)
        (home / ".vibe/hooks.toml").write_text(
            f'[[hooks]]\nname = "rec-pre"\ntype = "pre_tool"\nmatch = "bash"\n'
            f'command = "{recorder} pre_tool"\n'
            f'[[hooks]]\nname = "rec-strict"\ntype = "pre_tool"\nmatch = "bash"\nstrict = true\n'
            f'command = "{recorder} strict"\n'
            f'[[hooks]]\nname = "rec-post"\ntype = "post_tool"\nmatch = "bash"\n'
            f'command = "{recorder} post_tool"\n'
            f'[[hooks]]\nname = "rec-agent"\ntype = "post_agent"\ncommand = "{recorder} post_agent"\n'
        )

    script = [("bash", {"command": f"echo ran > {tmp / case}.txt"}) for case in ANSWERS]
    return vibe_run(tmp, setup, script)


def test_hooks_toml_events_and_payloads(native: Run, proven: Proven) -> None:
    order = fired(native.rec)
    assert order.count("pre_tool") == len(ANSWERS)
    assert order[-1] == "post_agent" and order.count("post_agent") == 1
    pre = native.payloads("pre_tool")[0]
    assert pre["hook_event_name"] == "pre_tool"
    assert pre["tool_name"] == "file_system.bash"  # not `bash`, though `match = "bash"` selects it
    assert pre["tool_input"]["command"] == f"echo ran > {native.marker('exit2')}"
    assert pre["tool_input"]["timeout"] == 120  # the default, filled in before the hook
    assert set(pre) == {
        "session_id",
        "transcript_path",
        "cwd",
        "parent_session_id",
        "hook_event_name",
        "tool_name",
        "tool_call_id",
        "tool_input",
    }
    post = native.payloads("post_tool")[0]
    assert post["tool_status"] == "success" and post["tool_output"]["returncode"] == 0
    assert "tool_output_text" in post and post["duration_ms"] == 0
    [agent] = native.payloads("post_agent")
    assert agent["agent_name"] == "accept-edits"
    # the hook runs through a shell in the session cwd, no CLAUDE_* variable
    first = calls(native.rec)[0]
    assert first["cwd"] == str(native.home)
    assert not any(k.startswith("CLAUDE_PLUGIN") for k in first["env"])
    proven(
        "vibe",
        "~/.vibe/hooks.toml [[hooks]] name/type/command/match/strict: `vibe -p --yolo` (stub) runs "
        "pre_tool and post_tool per call (tool_name file_system.bash, match `bash` fnmatch) and "
        "post_agent once per turn (agent_name accept-edits); stdin session_id, transcript_path, "
        f"cwd, parent_session_id, hook_event_name, tool_* ({native.seconds:.0f} s run)",
    )


def test_only_a_vibe_deny_or_a_strict_failure_blocks(native: Run, proven: Proven) -> None:
    ran = {case: native.marker(case).exists() for case in ANSWERS}
    assert ran == {
        "exit2": True,  # fail-open: a warning
        "claude-decision": True,  # "block" is not "deny"
        "claude-permission": True,  # hookSpecificOutput.permissionDecision is not read
        "vibe-deny": False,
        "strict-exit2": False,  # strict = true turns a failure into a deny
    }
    # post_tool does not fire for a denied call
    assert len(native.payloads("post_tool")) == 3
    results = native.stub.tool_results()
    assert any("vibe deny" in r for r in results)
    proven(
        "vibe",
        "pre_tool blocks only on exit 0 + stdout {decision: deny, reason} (or a failure of a "
        "strict = true hook, exit 2 included); Claude's exit 2, {decision: block} and "
        "permissionDecision deny let the call run; post_tool skips a denied call",
    )


@pytest.fixture(scope="module")
def claude_plugin(tmp_path_factory: pytest.TempPathFactory) -> Run:
    need("vibe")
    tmp = tmp_path_factory.mktemp("vibe-claude-plugin")

    def setup(home: Path, rec_dir: Path) -> None:
        recorder = write_rules_recorder(rec_dir)
        plugin = home / ".vibe/plugins/demo"
        (plugin / ".claude-plugin").mkdir(parents=True)
        (plugin / "hooks").mkdir()
        (plugin / ".claude-plugin/plugin.json").write_text('{"name": "demo", "version": "1.0.0"}')
        hooks = {
            event: [
                {
                    "matcher": "bash|Bash" if "Tool" in event else "",
                    "hooks": [{"type": "command", "command": f"{recorder} {event}"}],
                }
            ]
            for event in CLAUDE_EVENTS
        }
        (plugin / "hooks/hooks.json").write_text(json.dumps({"hooks": hooks}))

    return vibe_run(tmp, setup, [("bash", {"command": f"echo ran > {tmp / 'plain'}.txt"})])


def test_a_claude_plugins_hooks_are_parsed_but_not_run(claude_plugin: Run, proven: Proven) -> None:
    assert claude_plugin.marker("plain").exists()
    assert fired(claude_plugin.rec) == []
    unsupported = {
        line.split("'")[1]
        for line in claude_plugin.stderr.splitlines()
        if "has no equivalent generic Runtime lifecycle" in line
    }
    assert unsupported == set(CLAUDE_EVENTS) - {"PreToolUse", "PostToolUse", "Stop"}
    proven(
        "vibe",
        "a Claude Code plugin in ~/.vibe/plugins/<p>/ (.claude-plugin/plugin.json + "
        "hooks/hooks.json): stderr names every event but PreToolUse/PostToolUse/Stop as having "
        "no equivalent, and none of its hooks runs in `vibe -p` (only hooks.toml is wired)",
    )
