"""Qwen Code runs Claude Code-style hooks natively, from `hooks` in ~/.qwen/settings.json.

Qwen Code 0.24.4 reads the same shape as Claude Code (`{"hooks": {"PreToolUse": [{"matcher":
"Bash", "hooks": [{"type": "command", "command": …}]}]}}`), runs the command through a shell with
Claude's stdin JSON (`session_id`, `transcript_path`, `cwd`, `hook_event_name`, `tool_name`,
`tool_input`, …) and `CLAUDE_PROJECT_DIR`/`QWEN_PROJECT_DIR`/`GEMINI_PROJECT_DIR` set; exit 2 or
`permissionDecision: "deny"` blocks the tool. A matcher takes Claude's tool names (`Bash` matches
`run_shell_command`), but the payload names Qwen's own tool. Findings: docs/hooks-harnesses.md."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.conformance import carried_hooks as C
from tests.conformance import hooks as H
from tests.conformance.homes import QWEN_SETTINGS
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import AnthropicStub
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

QWEN = ["--auth-type", "anthropic", "-m", "claude-sonnet-4-5", "--approval-mode", "yolo"]
# what Qwen writes in ~/.qwen while it runs: chats, temp files, logs, its extension bookkeeping
RUNTIME = ("projects/*", "tmp/*", ".openai-logs-cleanup-*", "usage_record.jsonl",
           "output-language.md", "extension-store/*", "extensions/extension-enablement.json")  # fmt: skip


@pytest.fixture(autouse=True)
def _need() -> None:
    need("qwen")


def test_settings_hooks_fire_with_claude_payload_and_block(tmp_path: Path, proven: Proven) -> None:
    home = make_home(tmp_path)
    script, out = H.write_payload_recorder(tmp_path)
    hooks = H.claude_hooks(script, out)  # Claude's matcher "Bash", as a plugin has it
    hooks["SessionEnd"] = [
        {"hooks": [{"type": "command", "command": f"{script} {out} SessionEnd"}]}
    ]
    (home / ".qwen").mkdir()
    settings = {**QWEN_SETTINGS, "hooks": hooks}
    (home / ".qwen/settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    with AnthropicStub(reply=H.three_shell_calls("run_shell_command", work)) as stub:
        env = harness_env(home, {"ANTHROPIC_API_KEY": "dummy", "ANTHROPIC_BASE_URL": stub.base_url,
                                 "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"})  # fmt: skip
        done = run(["qwen", "-p", "hi", *QWEN], env, work, timeout=50)
        assert done.returncode == 0, done.stdout + done.stderr
        last = [r for r in stub.model_requests() if H.tool_results(r)][-1]
    rows = H.records(out)

    [start] = H.by_event(rows, "SessionStart")
    session = start["payload"]["session_id"]
    assert start["payload"]["source"] == "startup"
    assert start["payload"]["transcript_path"].startswith(str(home / ".qwen/projects"))
    prompts = H.by_event(rows, "UserPromptSubmit")
    assert prompts[0]["payload"]["prompt"] == "hi"
    pre = H.by_event(rows, "PreToolUse")
    assert [r["payload"]["tool_name"] for r in pre] == ["run_shell_command"] * 3  # not "Bash"
    first = pre[0]["payload"]
    assert first["hook_event_name"] == "PreToolUse" and first["session_id"] == session
    assert first["cwd"] == str(work) and first["permission_mode"] == "yolo"
    assert first["tool_input"] == {"command": f"echo x > {work}/blocked.txt # BLOCKME",
                                   "description": "step"}  # fmt: skip
    assert not H.by_event(rows, "PreToolUse-Read")
    for name in ("CLAUDE_PROJECT_DIR", "QWEN_PROJECT_DIR", "GEMINI_PROJECT_DIR"):
        assert pre[0]["env"][name] == str(work)
    # blocked (exit 2) and denied (JSON) never ran; the third did and alone got a PostToolUse
    assert not (work / "blocked.txt").exists() and not (work / "denied.txt").exists()
    assert (work / "ran.txt").exists()
    [post] = H.by_event(rows, "PostToolUse")
    assert post["payload"]["tool_input"]["command"] == f"echo x > {work}/ran.txt"
    assert "Exit Code: 0" in post["payload"]["tool_response"]["llmContent"]
    [stop] = H.by_event(rows, "Stop")
    assert stop["payload"]["last_assistant_message"] == "done"
    assert stop["payload"]["stop_hook_active"] is False
    assert not H.by_event(rows, "SessionEnd")  # not at the end of a `-p` run
    blocked, denied, ran = H.tool_results(last)
    assert blocked.get("is_error") and "recorder blocks BLOCKME" in str(blocked["content"])
    assert denied.get("is_error") and "recorder denies DENYME" in str(denied["content"])
    assert not ran.get("is_error")
    proven(
        "qwen",
        "`qwen -p` (Anthropic stub, 3 run_shell_command calls): Claude-format `hooks` in "
        "~/.qwen/settings.json fired on SessionStart, UserPromptSubmit, PreToolUse, PostToolUse "
        'and Stop with Claude\'s stdin JSON (tool_name run_shell_command; matcher "Bash" '
        'matched it, "Read" did not) and CLAUDE_PROJECT_DIR; exit 2 and a JSON deny blocked '
        "the command and reached the model; no SessionEnd in a -p run",
    )


def test_an_extension_carries_a_plugins_hooks_json_as_it_is(tmp_path: Path, proven: Proven) -> None:
    """~/.qwen/extensions/<name>/ with a qwen-extension.json and Claude's hooks/hooks.json,
    byte for byte: Qwen loads it with no install step and expands ${CLAUDE_PLUGIN_ROOT}."""
    home = make_home(tmp_path)
    (home / ".qwen").mkdir()
    (home / ".qwen/settings.json").write_text(json.dumps(QWEN_SETTINGS), encoding="utf-8")
    ext = home / ".qwen/extensions/hooked"
    (ext / "hooks").mkdir(parents=True)
    (ext / "qwen-extension.json").write_text('{"name": "hooked", "version": "1.0.0"}\n')
    script, out = H.write_payload_recorder(ext)
    command = f"${{CLAUDE_PLUGIN_ROOT}}/rec.py {out} PreToolUse"
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]
    }
    (ext / "hooks/hooks.json").write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    with AnthropicStub(reply=H.three_shell_calls("run_shell_command", work)) as stub:
        env = harness_env(home, {"ANTHROPIC_API_KEY": "dummy", "ANTHROPIC_BASE_URL": stub.base_url,
                                 "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"})  # fmt: skip
        done = run(["qwen", "-p", "hi", *QWEN], env, work, timeout=50)
        assert done.returncode == 0, done.stdout + done.stderr
    pre = H.by_event(H.records(out), "PreToolUse")
    assert len(pre) == 3 and pre[0]["argv"][0] == str(out)
    assert not (work / "blocked.txt").exists() and (work / "ran.txt").exists()
    proven(
        "qwen",
        "an extension ~/.qwen/extensions/<name>/ (qwen-extension.json + Claude's hooks/hooks.json "
        "as it is) ran its PreToolUse hook with ${CLAUDE_PLUGIN_ROOT} expanded, and exit 2 blocked",
    )


def test_skilltool_carries_a_plugins_hooks_and_uninstall_gives_the_folder_back(
    tmp_path: Path, proven: Proven
) -> None:
    """The real `skilltool plugins install --only qwen` of a user plugin `guard` with hooks on
    the five events writes the extension folder `~/.qwen/extensions/guard.hooks/` (a dot in
    the folder's name; `qwen-extension.json` named `guard-hooks`, both files with skilltool's
    marker in a `description` key), which `qwen -p` loads with no install step: the hooks fire
    with the plugin's folder written in for `${CLAUDE_PLUGIN_ROOT}`, and exit 2 (and a JSON
    deny) keeps the shell call from running. `uninstall --only qwen` then removes every file
    install added under ~/.qwen and leaves the files there before it (settings.json) byte for
    byte; the only other files left are the ones Qwen writes itself when it runs (RUNTIME),
    among them extension-store/state.json, which keeps its own entry for `guard-hooks`."""
    home = make_home(tmp_path)
    folder = home / ".qwen"
    folder.mkdir()
    # in the form Qwen 0.24.4 keeps it (it adds "$version" to a settings.json without one)
    settings = json.dumps({**QWEN_SETTINGS, "$version": 4}, indent=2)
    (folder / "settings.json").write_text(settings, encoding="utf-8")
    plugin, out = C.guard_plugin(home)
    before = C.files(folder)
    C.skilltool(home, "install", "--only", "qwen")
    wrote = C.written(folder, before)
    manifest = json.loads(wrote["extensions/guard.hooks/qwen-extension.json"])
    assert manifest["name"] == "guard-hooks" and "skilltool" in manifest["description"]
    carried = wrote["extensions/guard.hooks/hooks/hooks.json"].decode()
    assert C.ROOT not in carried and f"{plugin}/rec.py {plugin}/records.jsonl" in carried
    work = tmp_path / "work"
    work.mkdir()
    with AnthropicStub(reply=H.three_shell_calls("run_shell_command", work)) as stub:
        env = harness_env(home, {"ANTHROPIC_API_KEY": "dummy", "ANTHROPIC_BASE_URL": stub.base_url,
                                 "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"})  # fmt: skip
        start = time.monotonic()
        done = run(["qwen", "-p", "hi", *QWEN], env, work, timeout=50)
        seconds = time.monotonic() - start
        assert done.returncode == 0, done.stdout + done.stderr
        last = [r for r in stub.model_requests() if H.tool_results(r)][-1]
    rows = H.records(out)
    fired = [r["event"] for r in rows]
    assert fired[:2] == ["SessionStart", "UserPromptSubmit"] and fired[-1] == "Stop"
    assert fired.count("PreToolUse") == 3 and fired.count("PostToolUse") == 1
    assert H.by_event(rows, "UserPromptSubmit")[0]["payload"]["prompt"] == "hi"
    assert all(r["argv"][0] == str(out) for r in rows)  # ${CLAUDE_PLUGIN_ROOT} in an argument
    pre = H.by_event(rows, "PreToolUse")
    assert [r["payload"]["tool_name"] for r in pre] == ["run_shell_command"] * 3  # matcher Bash
    assert not (work / "blocked.txt").exists() and not (work / "denied.txt").exists()
    assert (work / "ran.txt").exists()
    blocked, denied, ran = H.tool_results(last)
    assert blocked.get("is_error") and "recorder blocks BLOCKME" in str(blocked["content"])
    assert denied.get("is_error") and "recorder denies DENYME" in str(denied["content"])
    C.skilltool(home, "uninstall", "--only", "qwen")
    C.given_back(folder, before, wrote, RUNTIME)
    assert "guard-hooks" in (folder / "extension-store/state.json").read_text()
    proven(
        "qwen",
        "`skilltool plugins install --only qwen` wrote extensions/guard.hooks/ (qwen-extension."
        "json named guard-hooks and hooks/hooks.json, each with a `description` marker) from a "
        f"user plugin's hooks.json; `qwen -p` ({seconds:.0f} s) loaded it: SessionStart, "
        "UserPromptSubmit, PreToolUse (matcher Bash), PostToolUse and Stop ran the plugin's own "
        "recorder through ${CLAUDE_PLUGIN_ROOT} (written in), exit 2 and a JSON deny blocked "
        "the shell; uninstall removed what install wrote and left the folder's other files "
        "byte for byte (Qwen's extension-store/state.json keeps its own guard-hooks entry)",
    )
