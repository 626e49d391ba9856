"""Hermes shell hooks (`hooks:` in ~/.hermes/config.yaml), proven in the binary: a recorder
command configured by hand for every event Hermes has, `hermes chat -q` against the loopback
stub scripted to call `terminal` four times, each call answered differently by the
pre_tool_call hook. One run (about 25 s) serves the first three tests.

Then a Python plugin (`hermes_claude_hooks.py`) carrying a Claude plugin's hooks, in
~/.hermes/plugins/claude-hooks/: one `chat -q` before `hermes plugins enable`, one after
(about 20 s together) serve the next two tests.

Last, skilltool's own rendering of it (templates/hermes/), written by the real `skilltool
plugins install`, enabled, run by `chat -q` and given back by `uninstall` (11 to 15 s).

Findings: docs/hooks-harnesses.md."""

from __future__ import annotations

import json
import re
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conformance import carried_hooks as C
from tests.conformance.hooks import (
    ToolCallStub,
    by_event,
    calls,
    fired,
    hermes_plugin,
    records,
    write_rules_recorder,
)
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


# -- a generated Python plugin carrying a Claude plugin's hooks (hermes_claude_hooks.py) --------

PLUGIN = "claude-hooks"
# PreToolUse answers of the Claude hook, one per scripted `terminal` call; the last one runs
CLAUDE_ANSWERS: dict[str, dict[str, Any]] = {
    "exit2": {"exit": 2, "stderr": "claude exit-2 block"},
    "claude-decision": {"stdout": json.dumps({"decision": "block", "reason": "claude decision"})},
    "claude-permission": ANSWERS["claude-permission"],
    "allowed": {},
}


def claude_hooks() -> dict[str, Any]:
    """A Claude plugin's hooks: its recorder (`${CLAUDE_PLUGIN_ROOT}/recorder.py <event>`) on
    every event the plugin carries; a `Read` group that a shell call must not fire; `true` first
    on the tool events, to time a trivial hook."""

    def group(label: str, matcher: str | None = None, command: str = "") -> dict[str, Any]:
        line = command or f'"${{CLAUDE_PLUGIN_ROOT}}/recorder.py" {label}'
        g: dict[str, Any] = {"hooks": [{"type": "command", "command": line}]}
        return {"matcher": matcher, **g} if matcher else g

    hooks = {e: [group(e)] for e in ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd")}
    hooks["PreToolUse"] = [group("", "Bash", "true"), group("PreToolUse", "Bash"),
                           group("PreToolUse-Read", "Read")]  # fmt: skip
    hooks["PostToolUse"] = [group("", "Bash", "true"), group("PostToolUse", "Bash")]
    return hooks


@dataclass
class PluginRun:
    tmp: Path
    home: Path
    root: Path  # the Claude plugin's folder, which holds its recorder
    off_calls: list[dict[str, Any]]  # the recorder's calls before `hermes plugins enable`
    enable: str  # what `hermes plugins enable` printed
    config: str  # config.yaml after it
    stub: ToolCallStub
    timing: list[dict[str, Any]]

    def payloads(self, event: str) -> list[dict[str, Any]]:
        return [c["stdin"] for c in calls(self.root) if c["argv"][0] == event]


@pytest.fixture(scope="module")
def plugin_run(tmp_path_factory: pytest.TempPathFactory) -> PluginRun:
    """The generated plugin in ~/.hermes/plugins/claude-hooks/; `chat -q` once as installed,
    then `hermes plugins enable claude-hooks --no-allow-tool-override`, then `chat -q` again
    with a `terminal` call per answer case."""
    need("hermes")
    tmp = tmp_path_factory.mktemp("hermes-plugin")
    home = make_home(tmp)
    root = tmp / "claude-plugin"
    rules = [{"event": "PreToolUse", "contains": f"/{case}.txt", **a}
             for case, a in CLAUDE_ANSWERS.items() if a]  # fmt: skip
    rules += [
        {"event": "SessionStart", "stdout": "session-start context 7f3a"},
        {"event": "UserPromptSubmit", "stdout": json.dumps(
            {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                    "additionalContext": "prompt context 9c1e"}})},
    ]  # fmt: skip
    write_rules_recorder(root, rules)
    hermes_plugin(home, PLUGIN, claude_hooks(), root)
    timing = tmp / "timing.jsonl"
    env = harness_env(
        home, {"HERMES_DISABLE_LAZY_INSTALLS": "1", "SKILLTOOL_HOOK_TIMING": str(timing)}
    )

    def chat(stub: ToolCallStub) -> None:
        (home / ".hermes/config.yaml").write_text(
            re.sub(r"base_url: .*", f"base_url: {stub.base_url}", config_text)
        )
        done = run(["hermes", "chat", "-q", "run it", "-Q", "--yolo"], env, home, timeout=50)
        assert done.returncode == 0, done.stderr
        assert "hooks done" in done.stdout

    config_text = (
        "# the user's own comment\nmodel:\n  default: stub-model\n  provider: custom\n"
        "  base_url: http://127.0.0.1:9/v1\n  api_key: dummy-key\n"
    )
    with ToolCallStub([("terminal", {"command": f"echo ran > {tmp}/off.txt"})]) as stub:
        chat(stub)
    assert (tmp / "off.txt").exists()
    off_calls = calls(root)
    enable = run(["hermes", "plugins", "enable", PLUGIN, "--no-allow-tool-override"], env, home)
    assert enable.returncode == 0, enable.stderr
    config_text = (home / ".hermes/config.yaml").read_text()
    script = [("terminal", {"command": f"echo ran > {tmp / case}.txt"}) for case in CLAUDE_ANSWERS]
    with ToolCallStub(script) as stub:
        chat(stub)
    rows = [json.loads(x) for x in timing.read_text().splitlines()] if timing.exists() else []
    return PluginRun(tmp, home, root, off_calls, enable.stdout, config_text, stub, rows)


def test_a_user_plugin_loads_only_once_enabled(plugin_run: PluginRun, proven: Proven) -> None:
    assert plugin_run.off_calls == []  # discovered, not loaded: no hook ran
    assert "Plugin claude-hooks enabled" in plugin_run.enable
    config = yaml.safe_load(plugin_run.config)
    assert config["plugins"]["enabled"] == [PLUGIN]
    assert config["plugins"]["entries"] == {PLUGIN: {"allow_tool_override": False}}
    assert config["model"]["default"] == "stub-model"
    assert "the user's own comment" not in plugin_run.config  # Hermes rewrote the file
    proven(
        "hermes",
        "a user plugin ~/.hermes/plugins/<name>/ (plugin.yaml + __init__.py register(ctx)) is "
        "found but not loaded until its name is in plugins.enabled of config.yaml; "
        "`hermes plugins enable <name> --no-allow-tool-override` puts it there (rewriting "
        "config.yaml: the user's comments go) and `chat -q` then runs its hooks",
    )


def test_the_generated_plugin_runs_claude_hooks(plugin_run: PluginRun, proven: Proven) -> None:
    fired_events = fired(plugin_run.root)
    assert fired_events[:2] == ["SessionStart", "UserPromptSubmit"]
    assert fired_events.count("PreToolUse") == len(CLAUDE_ANSWERS)
    assert "PreToolUse-Read" not in fired_events  # matcher Read: not a shell call
    assert fired_events.count("PostToolUse") == 1  # only the call that ran
    assert fired_events[-2:] == ["Stop", "SessionEnd"]

    [start] = plugin_run.payloads("SessionStart")
    session = start["session_id"]
    assert start == {"cwd": str(plugin_run.home), "hook_event_name": "SessionStart",
                     "session_id": session, "source": "startup"}  # fmt: skip
    [prompt] = plugin_run.payloads("UserPromptSubmit")
    assert prompt["prompt"] == "run it" and prompt["session_id"] == session
    pre = plugin_run.payloads("PreToolUse")[0]
    assert pre == {"cwd": str(plugin_run.home), "hook_event_name": "PreToolUse",
                   "session_id": session, "tool_name": "Bash",
                   "tool_input": {"command": f"echo ran > {plugin_run.tmp}/exit2.txt"},
                   "tool_use_id": "call_stub_0"}  # fmt: skip
    [post] = plugin_run.payloads("PostToolUse")
    assert post["tool_input"] == {"command": f"echo ran > {plugin_run.tmp}/allowed.txt"}
    assert post["tool_response"]["exit_code"] == 0
    env = calls(plugin_run.root)[0]["env"]
    assert env["CLAUDE_PLUGIN_ROOT"] == str(plugin_run.root)
    assert env["CLAUDE_PROJECT_DIR"] == str(plugin_run.home)

    # exit 2, decision block and permissionDecision deny all block `terminal`; the reason is
    # the tool result the model gets
    for case in ("exit2", "claude-decision", "claude-permission"):
        assert not (plugin_run.tmp / f"{case}.txt").exists(), case
    assert (plugin_run.tmp / "allowed.txt").exists()
    results = plugin_run.stub.tool_results()
    assert len(results) == len(CLAUDE_ANSWERS)
    assert "claude exit-2 block" in results[0] and "claude decision" in results[1]
    assert "claude permission" in results[2] and '"exit_code": 0' in results[3]
    # SessionStart's stdout and UserPromptSubmit's additionalContext reach the model
    last = json.dumps(plugin_run.stub.model_requests()[-1].json)
    assert "session-start context 7f3a" in last and "prompt context 9c1e" in last

    true_ms = [t["ms"] for t in plugin_run.timing if t["command"] == "true"]
    assert len(true_ms) == len(CLAUDE_ANSWERS) + 1  # every PreToolUse, the one PostToolUse
    trivial = statistics.median(true_ms)
    recorder = statistics.median(t["ms"] for t in plugin_run.timing if t["command"] != "true")
    proven(
        "hermes",
        "the generated plugin (tests/conformance/hermes_claude_hooks.py) runs a Claude plugin's "
        "hooks on pre_tool_call/post_tool_call/pre_llm_call/on_session_start/on_session_end/"
        "on_session_finalize with Claude's payload (tool_name Bash) and CLAUDE_PLUGIN_ROOT; exit 2, "
        "decision block and permissionDecision deny block terminal; SessionStart/UserPromptSubmit "
        f"output reaches the model; `sh -c true` costs {trivial:.0f} ms median per call "
        f"({len(true_ms)} calls), the "
        f"Python recorder {recorder:.0f} ms",
    )


# -- skilltool's own rendering (templates/hermes/hooks.py.j2), installed by the real CLI --------

ENABLE = f"hermes plugins enable {C.PLUGIN}-hooks --no-allow-tool-override"
# what Hermes writes in ~/.hermes while it runs: `plugins enable` seeds SOUL.md and logs/, and
# `chat -q` adds its session database, lock, caches and update and tirith markers
RUNTIME = ("SOUL.md", "logs/*", "state.db*", "auth.lock", ".skills_prompt_snapshot.json",
           ".update_check", ".tirith-install-failed")  # fmt: skip


def test_skilltool_carries_a_plugins_hooks_and_uninstall_gives_the_folder_back(
    tmp_path: Path, proven: Proven
) -> None:
    """The real `skilltool plugins install --only hermes` of a user plugin `guard` with hooks on
    the five events writes the Python plugin `~/.hermes/plugins/guard-hooks/` (plugin.yaml and
    __init__.py, rendered from templates/hermes/) and says the command that enables it, which
    is the user's to run; once `hermes plugins enable guard-hooks --no-allow-tool-override`
    ran, `hermes chat -q` (the loopback stub calls `terminal` three times) runs the hooks with
    Claude's payload and the plugin's folder written in for `${CLAUDE_PLUGIN_ROOT}`, and exit 2
    (and a JSON deny) keeps the shell call from running; a second install no longer says the
    command. `uninstall --only hermes` then removes every file install added under ~/.hermes,
    and the folder plugins/guard-hooks/ with them (the plugin removes the __pycache__/ Python
    leaves there as Hermes imports it). Every file there before install is there byte for byte
    but config.yaml, which `hermes plugins enable` rewrote (the user's own command: it names the
    plugin in plugins.enabled and drops the file's comments) and which uninstall leaves as that
    command left it; the only other files left are the ones Hermes writes itself (RUNTIME)."""
    need("hermes")
    home = make_home(tmp_path)
    folder = home / ".hermes"
    folder.mkdir()
    plugin, out = C.guard_plugin(home)
    work = tmp_path / "work"
    work.mkdir()
    commands = [f"echo x > {work}/blocked.txt # BLOCKME", f"echo x > {work}/denied.txt # DENYME",
                f"echo x > {work}/ran.txt"]  # fmt: skip
    with ToolCallStub([("terminal", {"command": c}) for c in commands]) as stub:
        (folder / "config.yaml").write_text(
            "# the user's own comment\nmodel:\n  default: stub-model\n  provider: custom\n"
            f"  base_url: {stub.base_url}\n  api_key: dummy-key\n"
        )
        before = C.files(folder)
        said = C.skilltool(home, "install", "--only", "hermes")
        assert ENABLE in said, said
        wrote = C.written(folder, before)
        assert sorted(wrote) == [
            "plugins/guard-hooks/__init__.py",
            "plugins/guard-hooks/plugin.yaml",
        ]
        script = wrote["plugins/guard-hooks/__init__.py"].decode()
        assert C.ROOT not in script and f"{plugin}/rec.py {plugin}/records.jsonl" in script
        assert yaml.safe_load(wrote["plugins/guard-hooks/plugin.yaml"])["name"] == "guard-hooks"
        env = harness_env(home, {"HERMES_DISABLE_LAZY_INSTALLS": "1"})
        enable = run(["hermes", *ENABLE.split()[1:]], env, home)
        assert enable.returncode == 0, enable.stdout + enable.stderr
        enabled = (folder / "config.yaml").read_bytes()
        assert yaml.safe_load(enabled)["plugins"]["enabled"] == ["guard-hooks"]
        start = time.monotonic()
        done = run(["hermes", "chat", "-q", "run it", "-Q", "--yolo"], env, work, timeout=50)
        seconds = time.monotonic() - start
        assert done.returncode == 0, done.stdout + done.stderr
        assert "hooks done" in done.stdout
    rows = records(out)
    assert [r["event"] for r in rows] == ["SessionStart", "UserPromptSubmit", "PreToolUse",
        "PreToolUse", "PreToolUse", "PostToolUse", "Stop"]  # fmt: skip
    assert all(r["argv"][0] == str(out) for r in rows)  # ${CLAUDE_PLUGIN_ROOT} in an argument
    assert {r["env"]["CLAUDE_PLUGIN_ROOT"] for r in rows} == {str(plugin)}
    assert {r["env"]["CLAUDE_PROJECT_DIR"] for r in rows} == {str(work)}
    [session_start] = by_event(rows, "SessionStart")
    session = session_start["payload"]["session_id"]
    assert session_start["payload"] == {"cwd": str(work), "hook_event_name": "SessionStart",
                                        "session_id": session, "source": "startup"}  # fmt: skip
    assert by_event(rows, "UserPromptSubmit")[0]["payload"]["prompt"] == "run it"
    pre = by_event(rows, "PreToolUse")
    assert pre[0]["payload"] == {"cwd": str(work), "hook_event_name": "PreToolUse",
                                 "session_id": session, "tool_name": "Bash",
                                 "tool_input": {"command": commands[0]},
                                 "tool_use_id": "call_stub_0"}  # fmt: skip
    assert [r["payload"]["tool_name"] for r in pre] == ["Bash"] * 3  # terminal, matcher Bash
    [post] = by_event(rows, "PostToolUse")
    assert post["payload"]["tool_input"] == {"command": commands[2]}
    assert post["payload"]["tool_response"]["exit_code"] == 0
    [stop] = by_event(rows, "Stop")
    assert stop["payload"]["session_id"] == session
    assert not (work / "blocked.txt").exists() and not (work / "denied.txt").exists()
    assert (work / "ran.txt").exists()
    blocked, denied, ran = stub.tool_results()
    assert "recorder blocks BLOCKME" in blocked and "recorder denies DENYME" in denied
    assert '"exit_code": 0' in ran

    again = C.skilltool(home, "install", "--only", "hermes")
    assert "hermes plugins enable" not in again, again
    C.skilltool(home, "uninstall", "--only", "hermes")
    assert not (folder / "plugins/guard-hooks").exists()
    assert (folder / "config.yaml").read_bytes() == enabled
    rewritten = {k: v for k, v in before.items() if k != "config.yaml"}  # by `plugins enable`
    C.given_back(folder, rewritten, wrote, (*RUNTIME, "config.yaml"))
    proven(
        "hermes",
        "`skilltool plugins install --only hermes` wrote plugins/guard-hooks/ (plugin.yaml, "
        "__init__.py) from a user plugin's hooks.json and said `hermes plugins enable "
        "guard-hooks --no-allow-tool-override`; once that ran, `chat -q` "
        f"({seconds:.0f} s) ran SessionStart, UserPromptSubmit, PreToolUse (terminal as Bash), "
        "PostToolUse and Stop with Claude's payload through the plugin's own recorder "
        "(${CLAUDE_PLUGIN_ROOT} written in, and set), exit 2 and a JSON deny blocked terminal; "
        "a second install no longer said the command; uninstall removed the folder and left "
        "the other files byte for byte (config.yaml as `plugins enable` rewrote it)",
    )
