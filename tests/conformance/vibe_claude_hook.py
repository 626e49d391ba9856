"""A prototype of the translating wrapper skilltool could write for Mistral Vibe
(test_hooks_vibe.py): one `[[hooks]]` entry of `~/.vibe/hooks.toml` per Claude Code hook
command runs `python3 -I <folder>/vibe_claude_hook.py <Claude event> <group> <index>`
(`-I`: no PYTHON* variable or user site of the user's, and a faster start). It reads
`hooks.json` beside it (`{"plugin_root": …, "hooks": <the plugin's hooks in Claude's format>}`),
turns Vibe's stdin into Claude Code's, checks the group's matcher against Claude's tool name,
runs the command with `sh -c` in the session's folder (CLAUDE_PLUGIN_ROOT, CLAUDE_PROJECT_DIR
set), and turns a blocking answer (exit 2 with the reason on stderr, `{"decision": "block"}`,
`hookSpecificOutput.permissionDecision: "deny"`) into Vibe's `{"decision": "deny", "reason"}`
on stdout. Anything else: empty stdout, exit 0 (a Claude hook's other failures do not block).
Standard library only; run by the system's python3."""

import json
import os
import re
import subprocess
import sys

# Vibe's tool names (the payload says `file_system.bash`; the last part is the name) -> Claude's
TOOLS = {"bash": "Bash", "read_file": "Read", "write_file": "Write", "edit": "Edit"}
TOOL_EVENTS = ("PreToolUse", "PostToolUse")


def claude_payload(event, vibe):
    tool = str(vibe.get("tool_name") or "")
    payload = {
        "session_id": vibe.get("session_id"),
        "transcript_path": vibe.get("transcript_path"),
        "cwd": vibe.get("cwd") or os.getcwd(),
        "hook_event_name": event,
    }
    if event in TOOL_EVENTS:
        short = tool.rsplit(".", 1)[-1]
        payload["tool_name"] = TOOLS.get(short, short)
        payload["tool_input"] = vibe.get("tool_input") or {}
        payload["tool_use_id"] = vibe.get("tool_call_id")
    if event == "PostToolUse":
        output = vibe.get("tool_output")
        payload["tool_response"] = output if output is not None else vibe.get("tool_output_text")
    if event == "Stop":
        payload["stop_hook_active"] = False
    return payload


def matches(matcher, tool):
    if matcher in (None, "", "*"):
        return True
    try:
        return re.fullmatch(matcher, tool) is not None
    except re.error:
        return matcher == tool


def block_reason(done):
    """Claude Code's blocking answers; None when the command lets the call go on."""
    if done.returncode == 2:
        return done.stderr.strip() or "blocked by a hook"
    if done.returncode != 0:
        return None
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        return None
    if not isinstance(answer, dict):
        return None
    if answer.get("decision") == "block":
        return str(answer.get("reason") or "blocked by a hook")
    specific = answer.get("hookSpecificOutput")
    if isinstance(specific, dict) and specific.get("permissionDecision") == "deny":
        return str(specific.get("permissionDecisionReason") or "denied by a hook")
    return None


def main():
    event, group, index = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "hooks.json"), encoding="utf-8") as f:
        spec = json.load(f)
    entry = spec["hooks"][event][group]
    raw = sys.stdin.read()
    vibe = json.loads(raw) if raw.strip() else {}
    payload = claude_payload(event, vibe)
    if event in TOOL_EVENTS and not matches(entry.get("matcher"), payload["tool_name"]):
        return 0
    cwd = payload["cwd"]
    env = dict(os.environ, CLAUDE_PLUGIN_ROOT=spec["plugin_root"], CLAUDE_PROJECT_DIR=cwd)
    done = subprocess.run(
        ["sh", "-c", entry["hooks"][index]["command"]],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=cwd if os.path.isdir(cwd) else None,
        env=env,
    )
    reason = block_reason(done)
    if reason is not None:
        sys.stdout.write(json.dumps({"decision": "deny", "reason": reason}))
    elif done.returncode != 0:
        sys.stderr.write(done.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
