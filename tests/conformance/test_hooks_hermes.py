"""Hermes shell hooks (`hooks:` in ~/.hermes/config.yaml), proven in the binary: a recorder
command configured by hand for every event Hermes has, `hermes chat -q` against the loopback
stub scripted to call `terminal` four times, each call answered differently by the
pre_tool_call hook. One run (about 25 s) serves every test here.

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

# every name of hermes_cli.plugins.VALID_HOOKS that a `chat -q` run can reach, and the rest
EVENTS = (
    "on_session_start",
    "pre_llm_call",
    "pre_api_request",
    "post_api_request",
    "pre_tool_call",
    "post_tool_call",
    "transform_tool_result",
    "transform_terminal_output",
    "post_llm_call",
    "transform_llm_output",
    "pre_verify",
    "on_session_end",
    "on_session_finalize",
    "on_session_reset",
    "subagent_start",
    "subagent_stop",
    "pre_approval_request",
    "post_approval_response",
)
# pre_tool_call answers, one per scripted `terminal` call (the marker file names the case)
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
    "hermes-action": {"stdout": json.dumps({"action": "block", "message": "hermes action"})},
}


@dataclass
class Run:
    tmp: Path
    home: Path
    rec: Path
    stub: ToolCallStub
    seconds: float

    def marker(self, case: str) -> Path:
        return self.tmp / f"{case}.txt"

    def payloads(self, event: str) -> list[dict[str, Any]]:
        return [c["stdin"] for c in calls(self.rec) if c["argv"][0] == event]


@pytest.fixture(scope="module")
def hermes_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    need("hermes")
    tmp = tmp_path_factory.mktemp("hermes-hooks")
    home = make_home(tmp)
    rec_dir = tmp / "rec"
    rules = [
        {"event": "pre_tool_call", "contains": f"/{case}.txt", **a} for case, a in ANSWERS.items()
    ]
    recorder = write_rules_recorder(rec_dir, rules)
    lines = ["hooks:"]
    for event in EVENTS:
        lines += [f"  {event}:", f'    - command: "{recorder} {event}"']
        if event in ("pre_tool_call", "post_tool_call"):
            lines.append("      matcher: terminal")
    script = [("terminal", {"command": f"echo ran > {tmp / case}.txt"}) for case in ANSWERS]
    with ToolCallStub(script) as stub:
        (home / ".hermes").mkdir()
        (home / ".hermes/config.yaml").write_text(
            "\n".join(lines)
            + "\nmodel:\n  default: stub-model\n  provider: custom\n"
            + f"  base_url: {stub.base_url}\n  api_key: dummy-key\n"
        )
        env = harness_env(home, {"HERMES_DISABLE_LAZY_INSTALLS": "1", "HERMES_ACCEPT_HOOKS": "1"})
        start = time.monotonic()
        done = run(["hermes", "chat", "-q", "run it", "-Q", "--yolo"], env, home, timeout=50)
        seconds = time.monotonic() - start
        assert done.returncode == 0, done.stderr
        assert "hooks done" in done.stdout
    return Run(tmp, home, rec_dir, stub, seconds)


def test_events_fire_with_their_payloads(hermes_run: Run, proven: Proven) -> None:
    order = fired(hermes_run.rec)
    assert order[0] == "on_session_start"
    assert order.count("pre_tool_call") == len(ANSWERS)
    for event in ("pre_llm_call", "post_llm_call", "on_session_end", "on_session_finalize"):
        assert event in order
    # post_tool_call for every call, a blocked one too (status "blocked")
    statuses = [p["extra"]["status"] for p in hermes_run.payloads("post_tool_call")]
    assert statuses == ["ok", "blocked", "ok", "blocked"], statuses
    # never reached by one non-interactive turn without edits, subagents or approvals
    for event in ("pre_verify", "subagent_start", "subagent_stop", "on_session_reset"):
        assert event not in order
    assert order.index("on_session_end") < order.index("on_session_finalize")

    [start] = hermes_run.payloads("on_session_start")
    assert start["extra"]["platform"] == "cli" and start["tool_name"] is None
    [prompt] = hermes_run.payloads("pre_llm_call")
    assert prompt["extra"]["user_message"] == "run it"
    pre = hermes_run.payloads("pre_tool_call")[0]
    assert pre["hook_event_name"] == "pre_tool_call" and pre["tool_name"] == "terminal"
    assert pre["tool_input"] == {"command": f"echo ran > {hermes_run.marker('exit2')}"}
    assert set(pre) == {"hook_event_name", "tool_name", "tool_input", "session_id", "cwd", "extra"}
    assert pre["extra"]["tool_call_id"] == "call_stub_0"
    post = hermes_run.payloads("post_tool_call")[0]
    assert post["extra"]["status"] == "ok" and '"exit_code": 0' in post["extra"]["result"]
    env = calls(hermes_run.rec)[0]["env"]
    assert env["HERMES_SESSION_ID"] == start["session_id"]
    assert not any(
        k.startswith("CLAUDE_") and k != "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC" for k in env
    )
    proven(
        "hermes",
        "hooks: in config.yaml (HERMES_ACCEPT_HOOKS=1): `chat -q` fires on_session_start, "
        "pre_llm_call (user_message), pre/post_tool_call (tool terminal, matcher a regex; "
        "post_tool_call also for a blocked call, status blocked), "
        f"post_llm_call, on_session_end, on_session_finalize; stdin {{hook_event_name, tool_name, "
        f"tool_input, session_id, cwd, extra}} ({hermes_run.seconds:.0f} s run)",
    )


def test_blocking_takes_a_json_decision_not_an_exit_code(hermes_run: Run, proven: Proven) -> None:
    assert hermes_run.marker("exit2").exists()  # exit 2 is logged, not a block
    assert not hermes_run.marker("claude-decision").exists()
    assert hermes_run.marker("claude-permission").exists()  # hookSpecificOutput is not read
    assert not hermes_run.marker("hermes-action").exists()
    results = hermes_run.stub.tool_results()
    assert len(results) == len(ANSWERS)
    assert "claude decision" in results[1] and "hermes action" in results[3]
    proven(
        "hermes",
        "pre_tool_call blocks on stdout {decision: block, reason} or {action: block, message} "
        "(the reason reaches the model as the tool result); exit 2 and "
        "hookSpecificOutput.permissionDecision deny do not block",
    )


def test_consent_is_recorded_in_the_home(hermes_run: Run, proven: Proven) -> None:
    allow = json.loads((hermes_run.home / ".hermes/shell-hooks-allowlist.json").read_text())
    approved = {(a["event"], a["command"]) for a in allow["approvals"]}
    assert ("pre_tool_call", f"{hermes_run.rec / 'recorder.py'} pre_tool_call") in approved
    proven(
        "hermes",
        "first use of each (event, command) is written to ~/.hermes/shell-hooks-allowlist.json "
        "when accepted (HERMES_ACCEPT_HOOKS=1, --accept-hooks or hooks_auto_accept: true)",
    )
