"""pi has no hook configuration of its own: hooks are TypeScript extensions
(`~/.pi/agent/extensions/*.ts`, `pi.on(event, handler)`). Proven in the binary: the
hand-written bridge `pi_claude_hooks.ts` (what skilltool could generate) placed in the temp
home runs a Claude Code `hooks.json` with Claude's stdin JSON on pi's events, and its
`{block: true, reason}` answer from `tool_call` stops the `bash` call; `pi -p` against the
loopback stub scripted to call `bash` once per answer case. About 2 s per run.

Findings: docs/hooks-harnesses.md."""

from __future__ import annotations

import json
import shutil
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conformance import carried_hooks as C
from tests.conformance.hooks import (
    ToolCallStub,
    by_event,
    calls,
    fired,
    records,
    write_rules_recorder,
)
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

BRIDGE = Path(__file__).resolve().parent / "pi_claude_hooks.ts"
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
    "plain": {},
}
EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop")
# what pi writes in ~/.pi/agent while it runs (--no-session: no session files)
RUNTIME = ("auth.json", "models-store.json")


@dataclass
class Run:
    tmp: Path
    home: Path
    rec: Path
    stub: ToolCallStub
    seconds: float
    timings: list[dict[str, Any]]

    def marker(self, case: str) -> Path:
        return self.tmp / f"{case}.txt"

    def payloads(self, event: str) -> list[dict[str, Any]]:
        return [c["stdin"] for c in calls(self.rec) if c["argv"][0] == event]


def models_json(home: Path, stub: ToolCallStub) -> None:
    (home / ".pi/agent").mkdir(parents=True, exist_ok=True)
    (home / ".pi/agent/models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "stub": {
                        "baseUrl": stub.base_url,
                        "api": "openai-completions",
                        "apiKey": "dummy",
                        "models": [{"id": "stub-model"}],
                    }
                }
            }
        )
    )


def pi_print(home: Path, env: dict[str, str]) -> tuple[float, str]:
    start = time.monotonic()
    done = run(["pi", "-p", "--no-session", "--model", "stub/stub-model", "run it"], env, home, 50)
    assert done.returncode == 0, done.stderr
    return time.monotonic() - start, done.stdout


@pytest.fixture(scope="module")
def bridged(tmp_path_factory: pytest.TempPathFactory) -> Run:
    need("pi")
    tmp = tmp_path_factory.mktemp("pi-hooks")
    home = make_home(tmp)
    rec_dir = tmp / "rec"
    rules = [
        {"event": "PreToolUse", "contains": f"/{case}.txt", **a} for case, a in ANSWERS.items()
    ]
    recorder = write_rules_recorder(rec_dir, rules)
    hooks = {
        event: [
            {
                "matcher": "Bash" if "Tool" in event else "",
                "hooks": [{"type": "command", "command": f"{recorder} {event}"}],
            }
        ]
        for event in EVENTS
    }
    # a second, empty command on every tool call: the bridge's own cost per call
    hooks["PreToolUse"].append(
        {"matcher": "Ba.*", "hooks": [{"type": "command", "command": "true"}]}
    )
    (tmp / "hooks.json").write_text(json.dumps({"hooks": hooks}))
    (home / ".pi/agent/extensions").mkdir(parents=True)
    shutil.copy(BRIDGE, home / ".pi/agent/extensions/claude_hooks.ts")
    timings = tmp / "timings.jsonl"
    script = [("bash", {"command": f"echo ran > {tmp / case}.txt"}) for case in ANSWERS]
    with ToolCallStub(script) as stub:
        models_json(home, stub)
        env = harness_env(
            home,
            {
                "PI_OFFLINE": "1",
                "PI_CLAUDE_HOOKS": str(tmp / "hooks.json"),
                "PI_CLAUDE_HOOKS_TIMINGS": str(timings),
            },
        )
        seconds, out = pi_print(home, env)
        assert "hooks done" in out
    lines = [json.loads(x) for x in timings.read_text().splitlines()]
    return Run(tmp, home, rec_dir, stub, seconds, lines)


def test_the_bridge_fires_claude_events_with_claudes_payload(bridged: Run, proven: Proven) -> None:
    order = fired(bridged.rec)
    assert order[:2] == ["SessionStart", "UserPromptSubmit"]
    assert order[-2:] == ["Stop", "SessionEnd"]  # agent_end, then session_shutdown on exit
    assert order.count("PreToolUse") == len(ANSWERS)
    [start] = bridged.payloads("SessionStart")
    assert start["source"] == "startup" and start["session_id"]
    [prompt] = bridged.payloads("UserPromptSubmit")
    assert prompt["prompt"] == "run it"
    pre = bridged.payloads("PreToolUse")[0]
    assert pre["hook_event_name"] == "PreToolUse" and pre["tool_name"] == "Bash"
    assert pre["tool_input"] == {"command": f"echo ran > {bridged.marker('exit2')}"}
    assert pre["tool_use_id"] == "call_stub_0" and pre["cwd"] == str(bridged.home)
    offered = [t["function"]["name"] for t in bridged.stub.model_requests()[0].json["tools"]]
    assert offered == ["read", "bash", "edit", "write"]
    proven(
        "pi",
        "~/.pi/agent/extensions/<x>.ts is loaded by `pi -p` with no flag; its handlers ran a "
        "Claude hooks.json by `sh -c` with Claude's stdin JSON: session_start→SessionStart, "
        "input→UserPromptSubmit, tool_call→PreToolUse, tool_result→PostToolUse, "
        "agent_end→Stop, session_shutdown→SessionEnd (also in print mode); tools read, bash, "
        f"edit, write ({bridged.seconds:.1f} s run)",
    )


def test_block_true_from_tool_call_stops_the_tool(bridged: Run, proven: Proven) -> None:
    ran = {case: bridged.marker(case).exists() for case in ANSWERS}
    assert ran == {
        "exit2": False,
        "claude-decision": False,
        "claude-permission": False,
        "plain": True,
    }
    # tool_result (PostToolUse) only for the call that ran
    [post] = bridged.payloads("PostToolUse")
    assert post["tool_input"]["command"].endswith("/plain.txt")
    results = bridged.stub.tool_results()
    assert "claude exit-2 block" in results[0] and "claude decision" in results[1]
    assert "claude permission" in results[2]
    proven(
        "pi",
        "`return {block: true, reason}` from tool_call stops the call (no tool_result, the "
        "reason is the tool result the model gets): the bridge maps Claude's exit 2 (stderr), "
        "{decision: block} and permissionDecision deny onto it",
    )


def test_what_a_bridged_command_costs(bridged: Run, proven: Proven) -> None:
    empty = [t["ms"] for t in bridged.timings if t["command"] == "true"]
    recorder = [t["ms"] for t in bridged.timings if t["command"] != "true"]
    assert len(empty) == len(ANSWERS)  # matcher "Ba.*": a regex, as in Claude Code
    per_call = statistics.median(empty)
    assert per_call < 250, empty
    proven(
        "pi",
        f"a bridged command blocks pi while it runs (spawnSync): `true` {per_call:.1f} ms median, "
        f"the Python recorder {statistics.median(recorder):.0f} ms median",
    )


def test_skilltool_carries_a_plugins_hooks_and_uninstall_gives_the_folder_back(
    tmp_path: Path, proven: Proven
) -> None:
    """The real `skilltool plugins install --only pi` of a user plugin `guard` with hooks on
    the five events writes `~/.pi/agent/extensions/guard.hooks.ts` (two dots in the name),
    which `pi -p` loads and compiles: the hooks fire with the plugin's folder written in for
    `${CLAUDE_PLUGIN_ROOT}` and set in the environment, and exit 2 (and a JSON deny) keeps the
    bash call from running. `uninstall --only pi` then removes every file install added under
    ~/.pi/agent and leaves the files there before it (models.json, the user's own
    extensions/mine.ts) byte for byte; the only other files left are the ones pi writes
    itself when it runs (RUNTIME: auth.json, models-store.json)."""
    need("pi")
    home = make_home(tmp_path)
    folder = home / ".pi/agent"
    (folder / "extensions").mkdir(parents=True)
    (folder / "extensions/mine.ts").write_text("export default function (pi: any) {}\n")
    plugin, out = C.guard_plugin(home)
    work = tmp_path / "work"
    work.mkdir()
    cases = ("blocked.txt # BLOCKME", "denied.txt # DENYME", "ran.txt")
    script = [("bash", {"command": f"echo x > {work}/{case}"}) for case in cases]
    with ToolCallStub(script) as stub:
        models_json(home, stub)
        before = C.files(folder)
        C.skilltool(home, "install", "--only", "pi")
        wrote = C.written(folder, before)
        source = wrote["extensions/guard.hooks.ts"].decode()
        assert C.ROOT not in source and f"{plugin}/rec.py {plugin}/records.jsonl" in source
        seconds, said = pi_print(home, harness_env(home, {"PI_OFFLINE": "1"}))
        assert "hooks done" in said
        results = stub.tool_results()
    rows = records(out)
    order = [r["event"] for r in rows]
    assert order[:2] == ["SessionStart", "UserPromptSubmit"] and order[-1] == "Stop"
    assert order.count("PreToolUse") == 3 and order.count("PostToolUse") == 1
    assert all(r["argv"][0] == str(out) for r in rows)  # ${CLAUDE_PLUGIN_ROOT} in an argument
    assert {r["env"]["CLAUDE_PLUGIN_ROOT"] for r in rows} == {str(plugin)}
    pre = by_event(rows, "PreToolUse")
    assert [r["payload"]["tool_name"] for r in pre] == ["Bash"] * 3
    assert not (work / "blocked.txt").exists() and not (work / "denied.txt").exists()
    assert (work / "ran.txt").exists()
    assert "recorder blocks BLOCKME" in results[0] and "recorder denies DENYME" in results[1]
    C.skilltool(home, "uninstall", "--only", "pi")
    C.given_back(folder, before, wrote, RUNTIME)
    proven(
        "pi",
        "`skilltool plugins install --only pi` wrote extensions/guard.hooks.ts (two dots) from "
        f"a user plugin's hooks.json; `pi -p` ({seconds:.1f} s) loaded it: SessionStart, "
        "UserPromptSubmit, PreToolUse (Bash), PostToolUse and Stop ran the plugin's own "
        "recorder through ${CLAUDE_PLUGIN_ROOT} (written in, and set), exit 2 and a JSON deny "
        "blocked bash; uninstall removed what install wrote and left the folder's other files "
        "byte for byte",
    )
