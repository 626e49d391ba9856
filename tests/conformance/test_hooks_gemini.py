"""Gemini CLI's hooks: `~/.gemini/settings.json` `"hooks"`, Claude Code's nesting (`matcher`,
`hooks: [{type: command, command}]`) under Gemini's own event names (BeforeTool, AfterTool,
BeforeAgent, AfterAgent, SessionStart, SessionEnd, PreCompress, Notification, BeforeModel,
AfterModel, BeforeToolSelection) and tool names (`run_shell_command`); Claude's event names
are skipped with a warning and a `Bash` matcher matches nothing; exit 2 blocks the tool.
`gemini -p --yolo` against the loopback Gemini stub whose first reply is a `functionCall`
`run_shell_command {"command": "touch <marker>"}`. See docs/hooks-harnesses.md.

The same hooks also run from an extension folder made by hand, with no install step:
`~/.gemini/extensions/<folder>/gemini-extension.json` (`{"name", "version"}`) plus
`hooks/hooks.json` (`{"hooks": {…}}`, Gemini's names), whose commands get `${extensionPath}`,
`${workspacePath}`, `${/}` substituted (not `${CLAUDE_PLUGIN_ROOT}`). See docs/hooks-harnesses.md."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conformance import carried as C
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


def _home(tmp_path: Path, settings: dict[str, Any] | None = None) -> Path:
    home = make_home(tmp_path)
    (home / ".gemini").mkdir()
    merged = {**GEMINI_SETTINGS, **(settings or {})}
    (home / ".gemini/settings.json").write_text(json.dumps(merged))
    return home


def _gemini_p(
    tmp_path: Path, home: Path, flags: tuple[str, ...] = ("--skip-trust",)
) -> tuple[subprocess.CompletedProcess[str], Path, list[Recorded]]:
    """One `gemini -p` from a folder of its own whose model runs `touch <marker>` once."""
    work, marker = tmp_path / "work", tmp_path / "ran"
    work.mkdir(exist_ok=True)

    def reply(r: Recorded) -> Any:
        if "functionResponse" in r.text:
            return "done"
        return {"functionCall": {"name": "run_shell_command",
                                 "args": {"command": f"touch {marker}"}}}  # fmt: skip

    with GeminiStub(reply=reply) as stub:
        env = harness_env(home, {"GEMINI_API_KEY": "fake", "GOOGLE_GEMINI_BASE_URL": stub.base_url,
                                 "HOOK_LOG": str(tmp_path / "log.jsonl")})  # fmt: skip
        argv = ["gemini", "-p", "hi", *flags, "--yolo", "-m", "gemini-2.5-pro"]
        done = run(argv, env, work, TIMEOUT)
        return done, marker, stub.model_requests()


def _session(tmp_path: Path, hooks: dict[str, Any]) -> tuple[str, Path, list[Recorded]]:
    """`hooks` in ~/.gemini/settings.json; one `gemini -p` (from a folder of its own, so the
    settings are the user's, not the project's) whose model runs `touch <marker>` once."""
    home = _home(tmp_path, {"hooks": hooks})
    done, marker, requests = _gemini_p(tmp_path, home)
    assert done.returncode == 0, done.stderr
    return done.stderr, marker, requests


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


# -- hooks in an extension folder: ~/.gemini/extensions/<folder>/hooks/hooks.json ---------------

EXTENSION_EVENTS = ("BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "SessionStart",
                    "SessionEnd")  # fmt: skip
# Single quotes keep the shell off them: what the recorder sees is Gemini's own substitution.
PROBES = ("HOOK_EXTENSION_PATH='${extensionPath}' HOOK_WORKSPACE_PATH='${workspacePath}' "
          "HOOK_PLUGIN_ROOT='${CLAUDE_PLUGIN_ROOT}' HOOK_PROJECT_DIR='$GEMINI_PROJECT_DIR' "
          "HOOK_CLAUDE_PROJECT_DIR='$CLAUDE_PROJECT_DIR' HOOK_BRACED='${GEMINI_PROJECT_DIR}' ")  # fmt: skip


def _extension(
    home: Path, folder: str, manifest: dict[str, Any], hooks: dict[str, Any] | None = None
) -> Path:
    """~/.gemini/extensions/<folder>/gemini-extension.json (+ hooks/hooks.json), written by
    hand: no `gemini extensions install/link`, no extension-enablement.json."""
    ext = home / ".gemini/extensions" / folder
    ext.mkdir(parents=True)
    (ext / "gemini-extension.json").write_text(json.dumps({"version": "1.0.0", **manifest}))
    if hooks is not None:
        (ext / "hooks").mkdir()
        (ext / "hooks/hooks.json").write_text(json.dumps({"hooks": hooks}))
    return ext


def _extensions_list(tmp_path: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = harness_env(home, {"GEMINI_API_KEY": "fake"})
    return run(["gemini", "extensions", "list"], env, tmp_path, TIMEOUT)


def _own_command(label: str, code: int = 0) -> str:
    """The recorder copied into the extension, named through `${extensionPath}${/}`."""
    return f"python3 ${{extensionPath}}${{/}}rec.py {label} {code}"


def test_extension_hooks_fire_with_its_variables(tmp_path: Path, proven: Proven) -> None:
    home, log = _home(tmp_path), tmp_path / "log.jsonl"
    hooks = {
        e: [{**({"matcher": "run_shell_command"} if "Tool" in e else {}),
             "hooks": [{"type": "command", "command": PROBES + _own_command(e)}]}]
        for e in EXTENSION_EVENTS
    }  # fmt: skip
    ext = _extension(home, "plug", {"name": "plug"}, hooks)
    H.recorder(ext)
    # the same hooks inside gemini-extension.json: not read from there
    inline = {e: [_entry(H.recorder(tmp_path), f"Manifest-{e}")] for e in EXTENSION_EVENTS}
    _extension(home, "inline", {"name": "inline", "hooks": inline})
    listed = _extensions_list(tmp_path, home)
    done, marker, _ = _gemini_p(tmp_path, home)
    assert done.returncode == 0, done.stderr
    assert marker.exists()
    order = ["SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd"]
    assert H.labels(log) == order  # and no Manifest-* label
    assert "xtension" not in done.stderr, done.stderr  # no warning about either folder
    assert sorted(p.name for p in (home / ".gemini/extensions").iterdir()) == ["inline", "plug"]
    pre = H.first(log, "BeforeTool")
    assert pre["stdin"]["hook_event_name"] == "BeforeTool"
    assert pre["stdin"]["tool_input"] == {"command": f"touch {marker}"}
    assert pre["argv"][0] == str(ext / "rec.py")
    env, work = pre["env"], str(tmp_path / "work")
    assert env["HOOK_EXTENSION_PATH"] == str(ext)
    assert env["HOOK_WORKSPACE_PATH"] == work
    assert env["HOOK_PROJECT_DIR"] == env["HOOK_CLAUDE_PROJECT_DIR"] == work
    assert env["HOOK_PLUGIN_ROOT"] == "${CLAUDE_PLUGIN_ROOT}"  # left as written
    assert env["HOOK_BRACED"] == "${GEMINI_PROJECT_DIR}"  # only the bare $NAME is replaced
    assert env["GEMINI_PROJECT_DIR"] == env["CLAUDE_PROJECT_DIR"] == work
    assert "CLAUDE_PLUGIN_ROOT" not in env and "GEMINI_EXTENSION_PATH" not in env
    # `extensions list` prints to stderr; both folders, enabled
    assert listed.returncode == 0, listed.stderr
    assert "✓ plug (1.0.0)" in listed.stderr and "✓ inline (1.0.0)" in listed.stderr
    assert f"Path: {ext}" in listed.stderr and "Enabled (User): true" in listed.stderr
    proven("gemini", "a hand-made extension folder ~/.gemini/extensions/<name>/ "
                     "(gemini-extension.json + hooks/hooks.json, no install, no enablement "
                     "record) runs its hooks on BeforeTool/AfterTool/BeforeAgent/AfterAgent/"
                     "SessionStart/SessionEnd; hooks inside gemini-extension.json are ignored")  # fmt: skip
    proven("gemini", "extension hooks.json: ${extensionPath}, ${workspacePath}, ${/} and "
                     "$GEMINI_PROJECT_DIR/$CLAUDE_PROJECT_DIR are substituted in the command, "
                     "${CLAUDE_PLUGIN_ROOT} is left as written and not in the env")  # fmt: skip


def test_extension_exit_2_blocks_and_claude_names_are_skipped(
    tmp_path: Path, proven: Proven
) -> None:
    home, log = _home(tmp_path), tmp_path / "log.jsonl"
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                                                     "command": _own_command("PreToolUse")}]}],
        "Stop": [{"hooks": [{"type": "command", "command": _own_command("Stop")}]}],
        "BeforeTool": [{"matcher": "run_shell_command",
                        "hooks": [{"type": "command", "command": _own_command("block", 2)}]}],
    }  # fmt: skip
    H.recorder(_extension(home, "plug", {"name": "plug"}, hooks))
    done, marker, requests = _gemini_p(tmp_path, home)
    assert done.returncode == 0, done.stderr
    for name in ("PreToolUse", "Stop"):
        assert f'Invalid hook event name: "{name}" from extensions config. Skipping.' in done.stderr
    assert H.labels(log) == ["block"]
    assert not marker.exists()
    assert "Tool execution blocked: blocked by recorder" in requests[-1].text
    proven("gemini", "an extension's BeforeTool hook exiting 2 blocks run_shell_command, its "
                     "stderr reaches the model; Claude event names in it are skipped with a "
                     "warning")  # fmt: skip


def test_extension_disabled_misnamed_and_clashing(tmp_path: Path, proven: Proven) -> None:
    home, log = _home(tmp_path), tmp_path / "log.jsonl"
    rec = H.recorder(tmp_path)
    before = {"BeforeTool": [_entry(rec, "off", matcher="run_shell_command")]}
    _extension(home, "off", {"name": "off"}, before)
    (home / ".gemini/extensions/extension-enablement.json").write_text(
        json.dumps({"off": {"overrides": ["!/*"]}})
    )
    misnamed = {"BeforeTool": [_entry(rec, "misnamed", matcher="run_shell_command")]}
    _extension(home, "my_plug", {"name": "my_plug"}, misnamed)
    listed = _extensions_list(tmp_path, home)
    done, marker, _ = _gemini_p(tmp_path, home)
    assert done.returncode == 0, done.stderr
    assert marker.exists() and H.labels(log) == []
    skip = f"Warning: Skipping extension in {home}/.gemini/extensions/my_plug:"
    assert skip in done.stderr and 'Invalid extension name: "my_plug"' in done.stderr
    assert "✗ off (1.0.0)" in listed.stderr and "Enabled (User): false" in listed.stderr
    assert skip in listed.stderr
    # two folders whose manifests say one name: neither command starts
    _extension(home, "off-again", {"name": "off"})
    again = _extensions_list(tmp_path, home)
    assert again.returncode == 1 and "Extension with name off already was loaded." in again.stderr
    done, marker, requests = _gemini_p(tmp_path, home)
    assert done.returncode == 1 and not requests
    assert "Extension with name off already was loaded." in done.stderr + done.stdout
    proven("gemini", "extension-enablement.json `!/*` turns an extension's hooks off; a name "
                     "outside [a-zA-Z0-9-] skips the folder with a warning; two folders of one "
                     "name stop gemini at start (exit 1)")  # fmt: skip


def test_extension_hooks_and_folder_trust(tmp_path: Path, proven: Proven) -> None:
    rec = H.recorder(tmp_path)
    hooks = {"BeforeTool": [_entry(rec, "BeforeTool", matcher="run_shell_command")]}
    untrusted = tmp_path / "untrusted"
    home = _home(untrusted)
    _extension(home, "plug", {"name": "plug"}, hooks)
    done, marker, requests = _gemini_p(untrusted, home, ())
    assert done.returncode == 55 and not requests and not marker.exists()
    assert "not running in a trusted directory" in done.stderr + done.stdout
    assert not (untrusted / "log.jsonl").exists()
    home = _home(tmp_path, {"security": {**GEMINI_SETTINGS["security"],
                                          "folderTrust": {"enabled": False}}})  # fmt: skip
    _extension(home, "plug", {"name": "plug"}, hooks)
    done, marker, _ = _gemini_p(tmp_path, home, ())
    assert done.returncode == 0, done.stderr
    assert marker.exists() and H.labels(tmp_path / "log.jsonl") == ["BeforeTool"]
    proven("gemini", "an extension needs no trust of its own: without --skip-trust a headless "
                     "run in an untrusted folder exits 55 before any hook; with folder trust "
                     "off (or --skip-trust) its hooks run, cwd outside the home")  # fmt: skip


def _responses(r: Recorded) -> int:
    """How many function responses the request carries back to the model."""
    contents = (r.json or {}).get("contents", [])
    return sum("functionResponse" in p for c in contents for p in c.get("parts", []))


def test_skilltool_carries_a_plugins_hooks_and_uninstall_gives_the_folder_back(
    tmp_path: Path, proven: Proven
) -> None:
    """The real `skilltool plugins install --only gemini` carries the plugin `guard`'s hooks
    (carried.py) as the extension folder `~/.gemini/extensions/guard.hooks/` (manifest named
    `guard-hooks`, hooks under Gemini's event names, matcher `Bash` as
    `^(run_shell_command)$`), which `gemini -p` loads with no install step: the mapped events
    fire the plugin's own scripts, `${CLAUDE_PLUGIN_ROOT}` written as its folder, and the
    gate's exit 2 blocks run_shell_command. Uninstall gives ~/.gemini back: every file that
    was there before install (the user's settings.json) with the same bytes, no file skilltool
    wrote left, none holding its marker; what Gemini CLI itself wrote during its run (its
    chats, project registry, installation id) stays, as it would without skilltool, and is not
    compared."""
    home, log = _home(tmp_path), tmp_path / "log.jsonl"
    plugin = C.guard_plugin(home)
    work = tmp_path / "work"
    work.mkdir()
    before = C.snapshot(home / ".gemini")
    installed = C.skilltool(home, "install", "--only", "gemini")
    wrote = C.written(installed.stdout, home)
    folder = home / ".gemini/extensions/guard.hooks"
    assert {folder / "gemini-extension.json", folder / "hooks/hooks.json"} <= set(wrote)

    def reply(r: Recorded) -> Any:
        command = C.shell_command(_responses(r), work)
        if command is None:
            return "done"
        return {"functionCall": {"name": "run_shell_command", "args": {"command": command}}}

    with GeminiStub(reply=reply) as stub:
        env = harness_env(home, {"GEMINI_API_KEY": "fake", "GOOGLE_GEMINI_BASE_URL": stub.base_url,
                                 "HOOK_LOG": str(log)})  # fmt: skip
        argv = ["gemini", "-p", "hi", "--skip-trust", "--yolo", "-m", "gemini-2.5-pro"]
        done = run(argv, env, work, TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        requests = stub.model_requests()
    order = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PreToolUse", "PostToolUse", "Stop"]
    assert H.labels(log) == order  # the plugin's labels: Claude's names, on Gemini's events
    names = ["SessionStart", "BeforeAgent", "BeforeTool", "BeforeTool", "AfterTool", "AfterAgent"]
    assert [e["stdin"]["hook_event_name"] for e in H.entries(log)] == names
    assert "xtension" not in done.stderr and "Invalid hook" not in done.stderr, done.stderr
    # each command ran the plugin's own script, the folder skilltool wrote in
    assert {e["argv"][0] for e in H.entries(log)} == {str(plugin / "rec.py")}
    pre = [e["stdin"] for e in H.entries(log) if e["label"] == "PreToolUse"]
    commands = [f"touch {work}/BLOCKME", f"touch {work}/ran"]
    assert [p["tool_input"]["command"] for p in pre] == commands
    # the gate's exit 2 blocked the first call, its stderr reaching the model
    assert not (work / "BLOCKME").exists() and (work / "ran").exists()
    assert "Tool execution blocked: guard blocks BLOCKME" in requests[-1].text
    post = H.first(log, "PostToolUse")["stdin"]
    assert post["tool_input"]["command"] == f"touch {work}/ran"

    C.skilltool(home, "uninstall", "--only", "gemini")
    own = C.given_back(home / ".gemini", before, wrote)
    assert not folder.exists() and own  # the chat Gemini CLI recorded is its own
    proven("gemini", "skilltool's ~/.gemini/extensions/<plugin>.hooks (gemini-extension.json "
                     "named <plugin>-hooks, hooks/hooks.json under Gemini's names) is loaded "
                     "with no install step: SessionStart, BeforeAgent, BeforeTool/AfterTool "
                     "(matcher ^(run_shell_command)$), AfterAgent fire the plugin's own scripts "
                     "(${CLAUDE_PLUGIN_ROOT} written in), exit 2 blocks run_shell_command; "
                     "uninstall gives ~/.gemini back")  # fmt: skip
