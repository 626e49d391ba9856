"""A prototype of the Hermes plugin skilltool could generate (test_hooks_hermes.py): the
`__init__.py` of a folder `~/.hermes/plugins/<name>/` (beside a `plugin.yaml`) that runs a
Claude Code plugin's hook commands, with Claude's stdin JSON, from Hermes's plugin hooks.
hooks.hermes_plugin_source() fills in the two placeholders below (the plugin's `hooks` object
in Claude's format, and its root) before the test writes it. SKILLTOOL_HOOK_TIMING, when set,
names a file that gets one JSON line per hook command run (event, ms): the measured cost.

Hermes loads it only once the plugin's name is in `plugins.enabled` of config.yaml
(`hermes plugins enable <name>`): user plugins are opt-in."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from typing import Any

HOOKS: dict[str, Any] = json.loads(r"""__HOOKS__""")
PLUGIN_ROOT = "__PLUGIN_ROOT__"

# Hermes's tool names -> Claude Code's (what matchers and tool_name use)
TOOLS = {
    "terminal": "Bash",
    "read_file": "Read",
    "write_file": "Write",
    "patch": "Edit",
    "search_files": "Grep",
    "delegate_task": "Task",
}
# Hermes says `path` where Claude's Read, Write and Edit say `file_path`
PATH_TOOLS = ("Read", "Write", "Edit")
# SessionStart's output waits for the first prompt: on_session_start cannot add context
_session_context: dict[str, list[str]] = {}


def claude_input(tool: str, args: Any) -> dict[str, Any]:
    data = dict(args) if isinstance(args, dict) else {}
    if tool in PATH_TOOLS and "path" in data and "file_path" not in data:
        data["file_path"] = data.pop("path")
    return data


def matches(matcher: Any, value: str | None) -> bool:
    if value is None or not matcher or matcher == "*":
        return True
    try:
        return re.fullmatch(matcher, value) is not None
    except re.error:
        return matcher == value


def run_one(command: str, payload: dict[str, Any], cwd: str, timeout: Any) -> tuple[int, str, str]:
    env = {**os.environ, "CLAUDE_PROJECT_DIR": cwd, "CLAUDE_PLUGIN_ROOT": PLUGIN_ROOT}
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", command],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            cwd=cwd,
            env=env,
            timeout=timeout if isinstance(timeout, (int, float)) else 60,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return -1, "", str(exc)
    return done.returncode, done.stdout, done.stderr


def run(event: str, value: str | None, payload: dict[str, Any]) -> tuple[dict | None, list[str]]:
    """Runs every matching command of `event` until one answers no: (a Hermes pre_tool_call
    directive or None, the context the commands added). Exit 2 (stderr is the reason),
    {"decision": "block"} and hookSpecificOutput.permissionDecision "deny" block;
    permissionDecision "ask" asks Hermes's approval gate."""
    cwd = os.getcwd()
    context: list[str] = []
    for group in HOOKS.get(event) or []:
        if not matches(group.get("matcher"), value):
            continue
        for hook in group.get("hooks") or []:
            if hook.get("type") != "command" or not hook.get("command"):
                continue
            started = time.perf_counter()
            data = {"cwd": cwd, "hook_event_name": event, **payload}
            code, out, err = run_one(hook["command"], data, cwd, hook.get("timeout"))
            if os.environ.get("SKILLTOOL_HOOK_TIMING"):
                ms = (time.perf_counter() - started) * 1000
                with open(os.environ["SKILLTOOL_HOOK_TIMING"], "a", encoding="utf-8") as f:
                    f.write(
                        json.dumps({"event": event, "command": hook["command"], "ms": ms}) + "\n"
                    )
            if code == 2:
                return {
                    "action": "block",
                    "message": err.strip() or f"blocked by a {event} hook",
                }, context
            if code != 0:
                continue
            try:
                answer = json.loads(out) if out.strip() else {}
            except ValueError:
                answer = None
            if not isinstance(answer, dict):
                context.append(
                    out.strip()
                )  # plain stdout: context (UserPromptSubmit, SessionStart)
                continue
            specific = answer.get("hookSpecificOutput") or {}
            reason = specific.get("permissionDecisionReason") or answer.get("reason")
            if specific.get("permissionDecision") == "deny" or answer.get("decision") == "block":
                return {
                    "action": "block",
                    "message": reason or f"blocked by a {event} hook",
                }, context
            if specific.get("permissionDecision") == "ask":
                return {"action": "approve", "message": reason or ""}, context
            if isinstance(specific.get("additionalContext"), str):
                context.append(specific["additionalContext"])
    return None, context


def pre_tool_call(tool_name: str = "", args: Any = None, **kw: Any) -> dict | None:
    tool = TOOLS.get(tool_name, tool_name)
    payload = {"session_id": kw.get("session_id") or "", "tool_name": tool,
               "tool_input": claude_input(tool, args), "tool_use_id": kw.get("tool_call_id")}  # fmt: skip
    return run("PreToolUse", tool, payload)[0]


def post_tool_call(tool_name: str = "", args: Any = None, **kw: Any) -> None:
    if kw.get("status", "ok") != "ok":  # Claude runs PostToolUse only after a call that ran
        return
    tool = TOOLS.get(tool_name, tool_name)
    result = kw.get("result")
    try:
        response = json.loads(result) if isinstance(result, str) else result
    except ValueError:
        response = result
    payload = {"session_id": kw.get("session_id") or "", "tool_name": tool,
               "tool_input": claude_input(tool, args), "tool_response": response,
               "tool_use_id": kw.get("tool_call_id")}  # fmt: skip
    run("PostToolUse", tool, payload)


def pre_llm_call(session_id: str = "", user_message: Any = "", **kw: Any) -> dict | None:
    context = _session_context.pop(session_id, [])
    if "UserPromptSubmit" in HOOKS:
        payload = {"session_id": session_id, "prompt": str(user_message or "")}
        context += run("UserPromptSubmit", None, payload)[1]
    text = "\n".join(c for c in context if c)
    return {"context": text} if text else None


def on_session_start(session_id: str = "", **kw: Any) -> None:
    payload = {"session_id": session_id, "source": "startup"}
    context = run("SessionStart", "startup", payload)[1]
    if context:
        _session_context.setdefault(session_id, []).extend(context)


def on_session_end(session_id: str = "", **kw: Any) -> None:
    # once per turn: Claude's Stop, observed only (Hermes cannot keep the turn going here)
    run("Stop", None, {"session_id": session_id or "", "stop_hook_active": False})


def on_session_finalize(session_id: str = "", **kw: Any) -> None:
    run("SessionEnd", None, {"session_id": session_id or "", "reason": "other"})


def subagent_stop(parent_session_id: str = "", **kw: Any) -> None:
    payload = {"session_id": parent_session_id or "", "stop_hook_active": False,
               "agent_id": kw.get("child_session_id"), "agent_type": kw.get("child_role")}  # fmt: skip
    run("SubagentStop", None, payload)


# Hermes hook -> the Claude events it serves
EVENTS = {
    pre_tool_call: ("PreToolUse",),
    post_tool_call: ("PostToolUse",),
    pre_llm_call: ("UserPromptSubmit", "SessionStart"),
    on_session_start: ("SessionStart",),
    on_session_end: ("Stop",),
    on_session_finalize: ("SessionEnd",),
    subagent_stop: ("SubagentStop",),
}


def register(ctx: Any) -> None:
    for callback, events in EVENTS.items():
        if any(event in HOOKS for event in events):
            ctx.register_hook(callback.__name__, callback)
