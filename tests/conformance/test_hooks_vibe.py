"""Mistral Vibe hooks, proven in the binary: `~/.vibe/hooks.toml` (`[[hooks]]`: pre_tool,
post_tool, post_agent) with a recorder command, `vibe -p --yolo` against the loopback stub
scripted to call `bash` once per answer case; a Claude Code plugin with `hooks/hooks.json`
dropped in `~/.vibe/plugins/`, whose hooks Vibe parses but does not run; and in one run, a
native plugin (`plugin.json` + `ai.mistral.vibe/hooks.toml`), loaded but its hooks not run
either, beside a Claude plugin's hooks carried by the translating wrapper
(`vibe_claude_hook.py`, entries in `~/.vibe/hooks.toml`), which fire and block; and what the
real `skilltool plugins install` writes from a user plugin (the wrapper, entries in the user's
own hooks.toml), run, then uninstalled. Four runs, 7-10 s each; the wrapper's cost is measured
without Vibe.

Findings: docs/hooks-harnesses.md ("Mistral Vibe 3.0.3")."""

from __future__ import annotations

import json
import statistics
import subprocess
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
    vibe_hooks_folder,
    write_rules_recorder,
)
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


def config_toml(home: Path, stub: ToolCallStub) -> None:
    """~/.vibe/config.toml with the loopback stub as its only provider and model."""
    (home / ".vibe/config.toml").write_text(
        'active_model = "stub"\nenable_telemetry = false\nenable_update_checks = false\n'
        f'[[providers]]\nname = "stub"\napi_base = "{stub.base_url}"\n'
        'api_key_env_var = "STUB_API_KEY"\n'
        '[[models]]\nname = "stub-model"\nprovider = "stub"\nalias = "stub"\n'
    )


def vibe_print(home: Path) -> tuple[float, str]:
    """`vibe -p "run it" --yolo` in `home`: its seconds and stderr; it must say "hooks done"."""
    env = harness_env(home, {"STUB_API_KEY": "dummy"})
    start = time.monotonic()
    done = run(["vibe", "-p", "run it", "--yolo"], env, home, timeout=50)
    seconds = time.monotonic() - start
    assert done.returncode == 0, done.stderr
    assert "hooks done" in done.stdout
    return seconds, done.stderr


def vibe_run(tmp: Path, setup: Any, script: list[tuple[str, dict[str, Any]]]) -> Run:
    home = make_home(tmp)
    (home / ".vibe").mkdir()
    rec_dir = tmp / "rec"
    setup(home, rec_dir)
    with ToolCallStub(script) as stub:
        config_toml(home, stub)
        seconds, stderr = vibe_print(home)
    return Run(tmp, home, rec_dir, stub, stderr, seconds)


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


# -- a native plugin's hooks; the translating wrapper (vibe_claude_hook.py) ----------------------

NATIVE_SCHEMA = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"
# the Claude answers the wrapper must turn into Vibe's deny, by marker file; "plain" runs
WRAPPED = {"exit2": ANSWERS["exit2"], "claude-decision": ANSWERS["claude-decision"],
           "claude-permission": ANSWERS["claude-permission"], "plain": {}}  # fmt: skip


def native_plugin(plugins: Path, recorder: Path) -> Path:
    """An Agent Plugins 1.0 folder with Vibe's extension, a skill and a recorder on each of
    `ai.mistral.vibe/hooks.toml`'s three types."""
    root = plugins / "demo-native"
    (root / "ai.mistral.vibe").mkdir(parents=True)
    (root / "skills/probe-skill").mkdir(parents=True)
    manifest = {"$schema": NATIVE_SCHEMA, "name": "demo-native", "version": "1.0.0",
                "extensions": {"ai.mistral.vibe": {"schemaVersion": 1}}}  # fmt: skip
    (root / "plugin.json").write_text(json.dumps(manifest))
    (root / "skills/probe-skill/SKILL.md").write_text(
        "---\nname: probe-skill\ndescription: A skill that shows the plugin was loaded.\n---\nx\n"
    )
    (root / "ai.mistral.vibe/hooks.toml").write_text(
        "".join(
            f'[[hooks]]\nname = "{t}"\ntype = "{t}"\ncommand = "{recorder} {t}"\n'
            + ('match = "bash"\n' if t != "post_agent" else "")
            for t in ("pre_tool", "post_tool", "post_agent")
        )
    )
    return root


def claude_group(recorder: str, event: str, matcher: str | None = None) -> dict[str, Any]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": f"{recorder} {event}"}]}
    if matcher is not None:
        group["matcher"] = matcher
    return group


@pytest.fixture(scope="module")
def wrapped(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """One run with both: a native plugin in ~/.vibe/plugins/demo-native/, and a Claude
    plugin's hooks carried by the wrapper (folder ~/.vibe/claude-hooks/demo/, entries in
    ~/.vibe/hooks.toml); the Claude commands are a recorder in the plugin's root, called
    through ${CLAUDE_PLUGIN_ROOT}."""
    need("vibe")
    tmp = tmp_path_factory.mktemp("vibe-wrapped")

    def setup(home: Path, rec_dir: Path) -> None:
        native_plugin(home / ".vibe/plugins", write_rules_recorder(tmp / "native-rec"))
        plugin_root = tmp / "plugin-root"
        rules = [{"event": "PreToolUse", "contains": f"/{case}.txt", **a} for case, a in WRAPPED.items()]  # fmt: skip
        write_rules_recorder(plugin_root / "rec", rules)
        rec = "python3 ${CLAUDE_PLUGIN_ROOT}/rec/recorder.py"
        hooks = {
            "PreToolUse": [
                claude_group(rec, "PreToolUse", "Bash"),
                claude_group(rec, "PreToolUse-Read", "Read"),  # Vibe's match: never spawned
                claude_group(rec, "PreToolUse-WriteEdit", "Write|Edit"),  # the wrapper says no
            ],
            "PostToolUse": [claude_group(rec, "PostToolUse", "Bash|Write")],
            "Stop": [claude_group(rec, "Stop")],
            "SessionStart": [claude_group(rec, "SessionStart")],  # Vibe has none: not written
        }
        toml = vibe_hooks_folder(home / ".vibe/claude-hooks/demo", "demo", hooks, plugin_root)
        (home / ".vibe/hooks.toml").write_text(toml)

    script = [("bash", {"command": f"echo ran > {tmp / case}.txt"}) for case in WRAPPED]
    done = vibe_run(tmp, setup, script)
    done.rec = tmp / "plugin-root/rec"
    return done


def test_a_native_plugins_hooks_are_loaded_but_not_run(wrapped: Run, proven: Proven) -> None:
    offered = json.dumps([r.json for r in wrapped.stub.model_requests()])
    assert "demo_native:probe-skill" in offered  # discovered: its skill reaches the model
    assert fired(wrapped.tmp / "native-rec") == []
    assert wrapped.marker("plain").exists()
    proven(
        "vibe",
        "a native plugin ~/.vibe/plugins/<p>/ (plugin.json with $schema agent-plugins.org "
        "1.0.0, name, extensions.ai.mistral.vibe.schemaVersion 1; ai.mistral.vibe/hooks.toml) is "
        "loaded with no install or enable step (its skill reaches the model as "
        "<namespace>:<skill>), but `vibe -p` runs none of its pre_tool/post_tool/post_agent "
        "hooks: the session compiles only ~/.vibe/hooks.toml and trusted project ones",
    )


def test_the_wrapper_runs_claude_hooks_from_hooks_toml(wrapped: Run, proven: Proven) -> None:
    order = fired(wrapped.rec)
    assert order.count("PreToolUse") == len(WRAPPED)
    assert "PreToolUse-Read" not in order and "PreToolUse-WriteEdit" not in order
    assert order[-1] == "Stop" and order.count("Stop") == 1
    assert "SessionStart" not in order
    ran = {case: wrapped.marker(case).exists() for case in WRAPPED}
    assert ran == {"exit2": False, "claude-decision": False, "claude-permission": False,
                   "plain": True}  # fmt: skip
    results = wrapped.stub.tool_results()
    for reason in ("claude exit-2 block", "claude decision", "claude permission"):
        assert any(reason in r for r in results), (reason, results)
    pre = next(c for c in calls(wrapped.rec) if c["argv"][0] == "PreToolUse")
    payload = pre["stdin"]
    assert payload["hook_event_name"] == "PreToolUse" and payload["tool_name"] == "Bash"
    assert payload["tool_input"]["command"] == f"echo ran > {wrapped.marker('exit2')}"
    assert payload["cwd"] == str(wrapped.home) and payload["session_id"]
    assert payload["tool_use_id"] == "call_stub_0"
    assert pre["env"]["CLAUDE_PLUGIN_ROOT"] == str(wrapped.tmp / "plugin-root")
    assert pre["env"]["CLAUDE_PROJECT_DIR"] == str(wrapped.home)
    [post] = [c["stdin"] for c in calls(wrapped.rec) if c["argv"][0] == "PostToolUse"]
    assert post["tool_name"] == "Bash" and post["tool_response"]["returncode"] == 0
    [stop] = [c["stdin"] for c in calls(wrapped.rec) if c["argv"][0] == "Stop"]
    assert stop["hook_event_name"] == "Stop" and stop["session_id"] == payload["session_id"]
    proven(
        "vibe",
        "a Claude plugin's hooks through the wrapper (~/.vibe/claude-hooks/<p>/: "
        "vibe_claude_hook.py + hooks.json; one [[hooks]] entry per command in ~/.vibe/hooks.toml): "
        "PreToolUse (matcher Bash) gets Claude's payload (tool_name Bash, tool_input, "
        "tool_use_id, session_id, cwd) with CLAUDE_PLUGIN_ROOT/CLAUDE_PROJECT_DIR set; its "
        "exit 2, {decision: block} and permissionDecision deny all block `bash` with the reason "
        f"in the tool result; PostToolUse and Stop fire ({wrapped.seconds:.0f} s run)",
    )


def test_what_the_wrapper_costs_per_hook_call(tmp_path: Path, proven: Proven) -> None:
    """Each hook call through the wrapper against `sh -c` of the same command, median of 9, in
    the environment Vibe gives a hook (its PATH finds the system's python3)."""
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}
    toml = vibe_hooks_folder(tmp_path / "folder", "demo", hooks, tmp_path)
    wrapped_cmd = toml.split("command = ")[1].splitlines()[0]
    stdin = json.dumps({"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "pre_tool",
                        "tool_name": "file_system.bash", "tool_input": {"command": "ls"}})  # fmt: skip

    env = harness_env(make_home(tmp_path))  # the PATH Vibe gives a hook: the system's python3

    def ms(command: str) -> list[float]:
        times = []
        for _ in range(9):
            start = time.monotonic()
            subprocess.run(["sh", "-c", command], input=stdin, text=True, check=True,
                           capture_output=True, env=env)  # fmt: skip
            times.append((time.monotonic() - start) * 1000)
        return times

    direct, through = ms("true"), ms(json.loads(wrapped_cmd))
    added = statistics.median(through) - statistics.median(direct)
    assert added > 0
    proven(
        "vibe",
        f"the wrapper adds {added:.0f} ms per hook call (median of 9; fastest "
        f"{min(through) - min(direct):.0f} ms): {statistics.median(through):.0f} ms through "
        f"python3 -I vibe_claude_hook.py, {statistics.median(direct):.0f} ms for `sh -c true`",
    )


# -- what skilltool writes: the real install and uninstall ---------------------------------------

# the user's own hooks.toml: skilltool adds its entries to it and must give it back byte for byte
OWN_HOOKS = """\
# my own hooks, kept by hand
[[hooks]]
name = "mine"
type = "post_agent"
command = "true"
"""
# what Vibe writes in ~/.vibe while it runs: its logs and session store (logs/), the prompt
# history, and the folders it was started in as trusted
RUNTIME = ("logs/*", "vibehistory", "trusted_folders.toml")


def test_skilltool_carries_a_plugins_hooks_and_uninstall_gives_the_folder_back(
    tmp_path: Path, proven: Proven
) -> None:
    """The real `skilltool plugins install --only vibe` of a user plugin `guard` with hooks on
    the five events writes the wrapper `~/.vibe/claude-hooks/guard.py` and adds one `[[hooks]]`
    entry per carried command (PreToolUse, PostToolUse, Stop) to the user's own
    `~/.vibe/hooks.toml`, after the user's; `vibe -p --yolo` runs them: the hooks get Claude's
    payload with the plugin's folder written in for `${CLAUDE_PLUGIN_ROOT}`, and exit 2 (and a
    JSON deny) keeps the bash call from running, the reason in the tool result.
    `uninstall --only vibe` then removes the wrapper and its folder and takes its entries out
    of hooks.toml, which is byte for byte what it was; the other files there before
    (config.toml) are unchanged, and the only other files left are the ones Vibe writes itself
    when it runs (RUNTIME: logs/, vibehistory, trusted_folders.toml)."""
    need("vibe")
    home = make_home(tmp_path)
    folder = home / ".vibe"
    folder.mkdir()
    (folder / "hooks.toml").write_text(OWN_HOOKS, encoding="utf-8")
    plugin, out = C.guard_plugin(home)
    work = tmp_path / "work"
    cases = ("blocked.txt # BLOCKME", "denied.txt # DENYME", "ran.txt")
    script = [("bash", {"command": f"echo x > {work}/{case}"}) for case in cases]
    with ToolCallStub(script) as stub:
        config_toml(home, stub)
        before = C.files(folder)
        C.skilltool(home, "install", "--only", "vibe")
        installed = C.files(folder)
        # the user's hooks.toml is the one file there before that install changes
        assert [k for k in before if installed.get(k) != before[k]] == ["hooks.toml"]
        wrote = {k: v for k, v in installed.items() if k not in before}
        # (with skilltool's own agent, agents/plugin-author.toml and its prompt)
        wrapper = wrote["claude-hooks/guard.py"].decode()
        assert C.ROOT not in wrapper and f"{plugin}/rec.py {plugin}/records.jsonl" in wrapper
        hooks_toml = installed["hooks.toml"].decode()
        assert hooks_toml.startswith(OWN_HOOKS)
        for name in ("guard:PreToolUse-0-0", "guard:PostToolUse-0-0", "guard:Stop-0-0"):
            assert f'name = "{name}"' in hooks_toml, hooks_toml
        work.mkdir()
        seconds, _ = vibe_print(home)
        results = stub.tool_results()
    rows = records(out)
    order = [r["event"] for r in rows]
    assert order == ["PreToolUse"] * 3 + ["PostToolUse", "Stop"], order
    assert all(r["argv"][0] == str(out) for r in rows)  # ${CLAUDE_PLUGIN_ROOT} in an argument
    assert {r["env"]["CLAUDE_PLUGIN_ROOT"] for r in rows} == {str(plugin)}
    assert {r["payload"]["hook_event_name"] for r in rows} == set(order)
    pre = by_event(rows, "PreToolUse")
    assert [r["payload"]["tool_name"] for r in pre] == ["Bash"] * 3
    assert pre[0]["payload"]["tool_input"]["command"] == f"echo x > {work}/{cases[0]}"
    [post] = by_event(rows, "PostToolUse")
    assert post["payload"]["tool_name"] == "Bash"
    assert post["payload"]["tool_response"]["returncode"] == 0
    assert not (work / "blocked.txt").exists() and not (work / "denied.txt").exists()
    assert (work / "ran.txt").exists()
    assert "recorder blocks BLOCKME" in results[0] and "recorder denies DENYME" in results[1]
    C.skilltool(home, "uninstall", "--only", "vibe")
    C.given_back(folder, before, wrote, RUNTIME)
    assert (folder / "hooks.toml").read_bytes() == OWN_HOOKS.encode()
    assert not (folder / "claude-hooks").exists()
    proven(
        "vibe",
        "`skilltool plugins install --only vibe` wrote claude-hooks/guard.py (the wrapper, the "
        "plugin's hooks and root in it) and added guard:<Event>-<g>-<i> entries after the "
        f"user's own in ~/.vibe/hooks.toml; `vibe -p --yolo` ({seconds:.0f} s) ran them: "
        "PreToolUse (matcher Bash), PostToolUse and Stop ran the plugin's own recorder through "
        "${CLAUDE_PLUGIN_ROOT} (written in, and set) with Claude's payload (tool_name Bash, "
        "hook_event_name Claude's), exit 2 and a JSON deny blocked bash with the reason in the "
        "tool result; uninstall gave hooks.toml back byte for byte, removed claude-hooks/ and "
        "left the folder's other files as they were",
    )
