"""Helpers for the hook tests (`test_hooks_<harness>.py`): the recorder hook commands, a stub
model that scripts shell tool calls, the OpenCode/Kilo plugin prototype (claude_hooks.js), and
the Mistral Vibe one (`vibe_hooks_folder`: the wrapper vibe_claude_hook.py, `hooks.json` and
the `[[hooks]]` entries for `~/.vibe/hooks.toml`).

Every recorder is a small Python script written into the test's tmp (outside any repository)
that appends one JSON line per call; they differ in how a test configures and answers them:

- `recorder(root)` (`LABEL_RECORDER`; Claude Code, Codex, Copilot CLI, Gemini CLI): the hook
  command `python3 <rec> <label> [<exit code> [<stdout file>]]` (`command(...)`) appends
  {label, argv, cwd, stdin (parsed when JSON), env (names saying hook, plugin, project,
  session or a harness)} to `$HOOK_LOG` (set by the test in the harness's environment), then
  prints the stdout file's content if one is named and exits with the exit code (stderr says
  `blocked by recorder` when it is not 0). Read with `entries`, `labels`, `first`.
- `write_payload_recorder(root)` (`PAYLOAD_RECORDER`; OpenCode, Kilo, Qwen Code): `rec.py OUT
  EVENT` appends {event, argv, stdin, env} to OUT. Its answer depends on the payload, so one
  run proves firing and blocking: a stdin holding `BLOCKME` exits 2 with a reason on stderr;
  one holding `DENYME` exits 0 printing Claude's JSON answer
  `hookSpecificOutput.permissionDecision: "deny"`; anything else exits 0 silently. Read with
  `records`, `by_event`.
- `write_rules_recorder(dir, rules)` (`RULES_RECORDER`; pi, Mistral Vibe, Hermes): its first
  argument names the event; it appends {argv, stdin parsed, env (`CLAUDE_*`/`PI_*`/
  `HERMES_*`/`VIBE_*`/`PLUGIN_*`), cwd} to `calls.jsonl` beside it; the first rule whose
  `event` is that name and whose `contains` is in stdin answers: `stdout`, `stderr`, `exit`.
  Read with `calls`, `fired`.

Stubs: `OpenAIStub(reply={"call": NAME, "arguments": {...}})` (stub.py) answers with one
function call; `ToolCallStub(calls)` scripts several, one per request; `three_shell_calls`
scripts the Anthropic stub for OpenCode, Kilo and Qwen.

The Hermes plugin prototype (hermes_claude_hooks.py): `hermes_plugin(home, name, hooks, root)`
writes `~/.hermes/plugins/<name>/` (plugin.yaml + the prototype as __init__.py).
"""

from __future__ import annotations

import json
import shlex
import stat
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import AnthropicStub, OpenAIStub, Recorded, ReplyValue

LABEL_RECORDER = r"""
import json, os, sys
raw = sys.stdin.read()
try:
    data = json.loads(raw) if raw.strip() else None
except ValueError:
    data = raw
words = ("HOOK", "PLUGIN", "PROJECT", "SESSION", "CLAUDE", "GEMINI", "CODEX", "COPILOT")
env = {k: v for k, v in os.environ.items() if any(w in k.upper() for w in words)}
line = {"label": sys.argv[1], "argv": sys.argv, "cwd": os.getcwd(), "stdin": data, "env": env}
with open(os.environ["HOOK_LOG"], "a") as f:
    f.write(json.dumps(line) + "\n")
if len(sys.argv) > 3:
    sys.stdout.write(open(sys.argv[3]).read())
code = int(sys.argv[2]) if len(sys.argv) > 2 else 0
if code:
    sys.stderr.write("blocked by recorder\n")
sys.exit(code)
"""


def recorder(root: Path) -> Path:
    path = root / "rec.py"
    path.write_text(LABEL_RECORDER)
    return path


def command(rec: Path, label: str, code: int = 0, answer: Path | None = None) -> str:
    """The hook command line for the recorder."""
    line = f"python3 {rec} {label} {code}"
    return f"{line} {answer}" if answer else line


def entries(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(x) for x in log.read_text().splitlines() if x.strip()]


def labels(log: Path) -> list[str]:
    return [e["label"] for e in entries(log)]


def first(log: Path, label: str) -> dict[str, Any]:
    found = [e for e in entries(log) if e["label"] == label]
    assert found, f"no {label} hook fired; log: {labels(log)}"
    return found[0]


def wait_for_label(log: Path, label: str, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if label in labels(log):
            return True
        time.sleep(0.1)
    return False


# -- the payload recorder; OpenCode and Kilo plugins; Qwen -------------------------------------

HERE = Path(__file__).resolve().parent

PAYLOAD_RECORDER = """\
#!/usr/bin/env python3
import json, os, sys
out, event = sys.argv[1], sys.argv[2]
data = sys.stdin.read()
env = {k: v for k, v in os.environ.items() if k.endswith("PROJECT_DIR") or k.startswith("CLAUDE_")}
with open(out, "a") as f:
    f.write(json.dumps({"event": event, "argv": sys.argv[1:], "stdin": data, "env": env}) + "\\n")
if "BLOCKME" in data:
    print("recorder blocks BLOCKME", file=sys.stderr)
    sys.exit(2)
if "DENYME" in data:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "recorder denies DENYME"}}))
"""

# the hooks of Claude Code that a plugin may have, and the ones every test configures
EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")


def write_payload_recorder(root: Path) -> tuple[Path, Path]:
    """The recorder script and the file it appends to."""
    script = root / "rec.py"
    script.write_text(PAYLOAD_RECORDER, encoding="utf-8")
    script.chmod(0o755)
    return script, root / "records.jsonl"


def claude_hooks(script: Path, out: Path, matcher: str = "Bash") -> dict[str, Any]:
    """A plugin's `hooks` in Claude Code's format: the recorder on every event; the tool events
    with `matcher`, plus a PreToolUse group matching `Read` only (it must not fire on a shell call)."""

    def group(event: str, match: str | None = None) -> dict[str, Any]:
        g: dict[str, Any] = {"hooks": [{"type": "command", "command": f"{script} {out} {event}"}]}
        if match is not None:
            g["matcher"] = match
        return g

    hooks: dict[str, Any] = {e: [group(e)] for e in EVENTS}
    hooks["PreToolUse"] = [group("PreToolUse", matcher), group("PreToolUse-Read", "Read")]
    hooks["PostToolUse"] = [group("PostToolUse", matcher)]
    return hooks


def records(out: Path) -> list[dict[str, Any]]:
    if not out.exists():
        return []
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row["payload"] = json.loads(row["stdin"]) if row["stdin"].strip() else None
    return rows


def by_event(rows: list[dict[str, Any]], event: str) -> list[dict[str, Any]]:
    return [r for r in rows if r["event"] == event]


def tool_results(request: Recorded) -> list[dict[str, Any]]:
    found = []
    for message in (request.json or {}).get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            found += [c for c in content if c.get("type") == "tool_result"]
    return found


def three_shell_calls(shell_tool: str, work: Path, extra: dict[str, Any] | None = None) -> Any:
    """A scripted Anthropic stub reply: on the main prompt, call `shell_tool` with a command the
    recorder blocks (exit 2), then one it denies (JSON), then one it lets run; then answer "done".
    Each command writes a file in `work` so the test sees which ones ran. Requests without
    the shell tool (title generation) get plain text."""
    commands = [f"echo x > {work}/blocked.txt # BLOCKME", f"echo x > {work}/denied.txt # DENYME",
                f"echo x > {work}/ran.txt"]  # fmt: skip

    def reply(request: Recorded) -> Any:
        if shell_tool not in [t.get("name") for t in (request.json or {}).get("tools", [])]:
            return "title"
        done = len(tool_results(request))
        if done >= len(commands):
            return "done"
        return {"type": "tool_use", "name": shell_tool,
                "input": {"command": commands[done], "description": "step", **(extra or {})}}  # fmt: skip

    return reply


def plugin_source(hooks: dict[str, Any], plugin_root: Path) -> str:
    """claude_hooks.js with a plugin's hooks and root filled in: what skilltool would generate."""
    source = (HERE / "claude_hooks.js").read_text(encoding="utf-8")
    return source.replace("__HOOKS__", json.dumps(hooks, indent=2)).replace(
        "__PLUGIN_ROOT__", json.dumps(str(plugin_root))
    )


def anthropic_provider(stub: AnthropicStub) -> dict[str, Any]:
    """OpenCode/Kilo config pointing at the Anthropic stub (its bundled @ai-sdk/anthropic), which,
    unlike the OpenAI stub, can script a tool call."""
    return {
        "model": "stub/claude-sonnet-4-5",
        "small_model": "stub/claude-sonnet-4-5",
        "permission": {"bash": "allow", "edit": "allow"},
        "provider": {
            "stub": {
                "npm": "@ai-sdk/anthropic",
                "name": "Stub",
                "options": {"baseURL": f"{stub.base_url}/v1", "apiKey": "dummy"},
                "models": {"claude-sonnet-4-5": {"name": "Stub Sonnet"}},
            }
        },
    }


def launcher_target(launcher: Path) -> Path:
    """The native binary a `bin/<name>` launcher (`exec /…/binary "$@"`) runs."""
    for line in launcher.read_text(encoding="utf-8").splitlines():
        if line.startswith("exec "):
            return Path(line.split()[1])
    raise AssertionError(f"no exec line in {launcher}")


def binary_has(binary: Path, *needles: bytes) -> dict[bytes, bool]:
    """Which strings occur in a (large) binary, read in chunks."""
    found = dict.fromkeys(needles, False)
    tail = b""
    keep = max(len(n) for n in needles)
    with binary.open("rb") as f:
        while chunk := f.read(1 << 24):
            data = tail + chunk
            for n in needles:
                found[n] = found[n] or n in data
            tail = data[-keep:]
    return found


def plugin_run(tmp_path: Path, harness: str, config_env: str) -> dict[str, Any]:
    """The prototype plugin with the recorder on every event, then `<harness> run hi` against a
    stub that calls `bash` three times (blocked by exit 2, denied by JSON, allowed)."""
    home = make_home(tmp_path)
    script, out = write_payload_recorder(tmp_path)
    plugin_dir = home / ".config" / harness / "plugin"
    plugin_dir.mkdir(parents=True)
    plugin_root = tmp_path / "plugin-root"
    source = plugin_source(claude_hooks(script, out), plugin_root)
    (plugin_dir / "claude-hooks.js").write_text(source, encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    timing = tmp_path / "timing.jsonl"
    with AnthropicStub(reply=three_shell_calls("bash", work)) as stub:
        env = harness_env(home, {config_env: json.dumps(anthropic_provider(stub)),
                                 "SKILLTOOL_HOOK_TIMING": str(timing)})  # fmt: skip
        done = run([harness, "run", "hi"], env, work, timeout=50)
        assert done.returncode == 0, done.stdout + done.stderr
        last = [r for r in stub.model_requests() if tool_results(r)][-1]
    return {"rows": records(out), "work": work, "results": tool_results(last),
            "timing": [json.loads(x) for x in timing.read_text().splitlines()],
            "plugin_root": plugin_root}  # fmt: skip


def check_plugin_run(seen: dict[str, Any]) -> str:
    rows, work = seen["rows"], seen["work"]
    [start] = by_event(rows, "SessionStart")
    session = start["payload"]["session_id"]
    assert session.startswith("ses_")
    [prompt] = by_event(rows, "UserPromptSubmit")
    assert prompt["payload"] == {"hook_event_name": "UserPromptSubmit", "cwd": str(work),
                                 "session_id": session, "prompt": "hi"}  # fmt: skip
    pre = by_event(rows, "PreToolUse")
    assert [r["payload"]["tool_name"] for r in pre] == ["Bash"] * 3
    assert pre[0]["payload"]["tool_input"] == {"command": f"echo x > {work}/blocked.txt # BLOCKME",
                                               "description": "step"}  # fmt: skip
    assert pre[0]["payload"]["tool_use_id"].startswith("toolu_")
    assert not by_event(rows, "PreToolUse-Read")  # matcher "Read" is not a shell call
    # the blocked and the denied command never ran; only the third did, and only it has a Post
    assert not (work / "blocked.txt").exists() and not (work / "denied.txt").exists()
    assert (work / "ran.txt").exists()
    [post] = by_event(rows, "PostToolUse")
    assert post["payload"]["tool_input"]["command"] == f"echo x > {work}/ran.txt"
    assert post["payload"]["tool_response"]["metadata"]["exit"] == 0
    assert by_event(rows, "Stop")[-1]["payload"]["session_id"] == session
    assert pre[0]["env"]["CLAUDE_PROJECT_DIR"] == str(work)
    assert pre[0]["env"]["CLAUDE_PLUGIN_ROOT"] == str(seen["plugin_root"])
    # the model sees the hook's stderr / JSON reason as the failed tool's result
    blocked, denied, ran = seen["results"]
    assert blocked.get("is_error") and "recorder blocks BLOCKME" in str(blocked["content"])
    assert denied.get("is_error") and "recorder denies DENYME" in str(denied["content"])
    assert not ran.get("is_error")
    ms = statistics.median(t["ms"] for t in seen["timing"])
    return f"median {ms:.0f} ms per hook command run ({len(seen['timing'])} runs)"


# -- the rules recorder and a stub scripting several tool calls (pi, Vibe, Hermes) ----------

RULES_RECORDER = r"""#!{python}
import json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
raw = sys.stdin.read()
try:
    payload = json.loads(raw) if raw.strip() else None
except ValueError:
    payload = {{"unparsed": raw}}
keep = ("CLAUDE_", "PI_", "HERMES_", "VIBE_", "PLUGIN_")
env = {{k: v for k, v in os.environ.items() if k.startswith(keep)}}
line = {{"argv": sys.argv[1:], "stdin": payload, "env": env, "cwd": os.getcwd()}}
with open(os.path.join(here, "calls.jsonl"), "a", encoding="utf-8") as f:
    f.write(json.dumps(line) + "\n")
try:
    with open(os.path.join(here, "rules.json"), encoding="utf-8") as f:
        rules = json.load(f)
except OSError:
    rules = []
for rule in rules:
    if sys.argv[1:2] == [rule["event"]] and rule.get("contains", "") in raw:
        sys.stdout.write(rule.get("stdout", ""))
        sys.stderr.write(rule.get("stderr", ""))
        sys.exit(rule.get("exit", 0))
"""


# the system's Python when there is one: the recorder depends on nothing of the repository
PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").is_file() else sys.executable


def write_rules_recorder(directory: Path, rules: list[dict[str, Any]] | None = None) -> Path:
    """The recorder script in `directory` (created); its calls land in `calls.jsonl`."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "recorder.py"
    script.write_text(RULES_RECORDER.format(python=PYTHON), encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    (directory / "rules.json").write_text(json.dumps(rules or []), encoding="utf-8")
    return script


def calls(directory: Path) -> list[dict[str, Any]]:
    log = directory / "calls.jsonl"
    if not log.is_file():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def fired(directory: Path) -> list[str]:
    """The event names the recorder was called for, in order."""
    return [c["argv"][0] for c in calls(directory)]


def tool_results_in(rec: Recorded) -> int:
    messages = (rec.json or {}).get("messages") or []
    return sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "tool")


# -- the Vibe wrapper prototype (vibe_claude_hook.py) -------------------------------------------

# Claude Code's events that Vibe has, and Vibe's tool names by Claude's
VIBE_EVENTS = {"PreToolUse": "pre_tool", "PostToolUse": "post_tool", "Stop": "post_agent"}
VIBE_TOOLS = {"Bash": "bash", "Read": "read_file", "Write": "write_file", "Edit": "edit"}


def vibe_hooks_folder(folder: Path, plugin: str, hooks: dict[str, Any], plugin_root: Path) -> str:
    """What skilltool could write for a plugin's Claude hooks in Vibe: `folder` (created) gets
    the wrapper and `hooks.json`; the text returned is the `[[hooks]]` entries for
    `~/.vibe/hooks.toml`, one per Claude command of an event Vibe has. A matcher of one tool
    Vibe has becomes `match` (Vibe spawns nothing for other tools); any other matcher is left
    to the wrapper, which runs for every tool and checks it against Claude's tool name."""
    folder.mkdir(parents=True, exist_ok=True)
    wrapper = folder / "vibe_claude_hook.py"
    wrapper.write_text((HERE / "vibe_claude_hook.py").read_text(encoding="utf-8"))
    spec = {"plugin_root": str(plugin_root), "hooks": hooks}
    (folder / "hooks.json").write_text(json.dumps(spec, indent=2), encoding="utf-8")
    entries = []
    for event, groups in hooks.items():
        if event not in VIBE_EVENTS:
            continue
        for g, group in enumerate(groups):
            matcher = group.get("matcher") or ""
            for h, hook in enumerate(group["hooks"]):
                lines = [
                    "[[hooks]]",
                    f"name = {json.dumps(f'{plugin}:{event}-{g}-{h}')}",
                    f'type = "{VIBE_EVENTS[event]}"',
                    f"command = {json.dumps(f'python3 -I {shlex.quote(str(wrapper))} {event} {g} {h}')}",
                ]
                if event != "Stop" and matcher in VIBE_TOOLS:
                    lines.append(f'match = "{VIBE_TOOLS[matcher]}"')
                if "timeout" in hook:
                    lines.append(f"timeout = {float(hook['timeout'])}")
                entries.append("\n".join(lines) + "\n")
    return "\n".join(entries)


class ToolCallStub(OpenAIStub):
    """The scripted tool calls one per request, then `final` as text: the n-th call (id
    `call_stub_<n-1>`) while the request offers tools and carries n-1 tool results."""

    def __init__(self, calls: list[tuple[str, dict[str, Any]]], final: str = "hooks done") -> None:
        super().__init__(reply=self._next)
        self.calls = calls
        self.final = final

    def _next(self, rec: Recorded) -> ReplyValue:
        done = tool_results_in(rec)
        if done >= len(self.calls) or not (rec.json or {}).get("tools"):
            return self.final
        name, arguments = self.calls[done]
        return {"call": name, "arguments": arguments, "id": f"call_stub_{done}"}

    def tool_results(self) -> list[str]:
        """The tool messages' contents of the last model request, in order."""
        out: list[str] = []
        requests = self.model_requests()
        for m in (requests[-1].json or {}).get("messages") or [] if requests else []:
            if isinstance(m, dict) and m.get("role") == "tool":
                content = m.get("content")
                if isinstance(content, list):
                    content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
                out.append(str(content))
        return out


# -- the Hermes plugin prototype (hermes_claude_hooks.py) ---------------------------------------

HERMES_MANIFEST = """\
name: {name}
version: "1"
description: The hooks of a Claude Code plugin, run on Hermes's events
kind: standalone
provides_hooks: [pre_tool_call, post_tool_call, pre_llm_call, on_session_start, on_session_end,
  on_session_finalize, subagent_stop]
"""


def hermes_plugin_source(hooks: dict[str, Any], plugin_root: Path) -> str:
    """hermes_claude_hooks.py with a plugin's hooks and root filled in: what skilltool would
    generate. The hooks go into a raw string (a JSON text holds no backslash before its end)."""
    source = (HERE / "hermes_claude_hooks.py").read_text(encoding="utf-8")
    return source.replace("__HOOKS__", json.dumps(hooks, indent=2)).replace(
        '"__PLUGIN_ROOT__"', json.dumps(str(plugin_root))
    )


def hermes_plugin(home: Path, name: str, hooks: dict[str, Any], plugin_root: Path) -> Path:
    """The plugin folder ~/.hermes/plugins/<name>/ (plugin.yaml, __init__.py)."""
    folder = home / ".hermes" / "plugins" / name
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text(HERMES_MANIFEST.format(name=name), encoding="utf-8")
    (folder / "__init__.py").write_text(hermes_plugin_source(hooks, plugin_root), encoding="utf-8")
    return folder
