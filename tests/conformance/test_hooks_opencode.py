"""OpenCode and Kilo Code CLI have no shell-command hooks of their own; a generated JS plugin
carries Claude Code's. Each test runs once per binary (`[opencode]`, `[kilo]`).

OpenCode 1.18.33 and Kilo 7.7.7 (built from OpenCode) read
`~/.config/<harness>/{plugin,plugins}/*.{js,ts}` and call a plugin's
`tool.execute.before`/`tool.execute.after`, `chat.message`, `experimental.session.compacting` and
`event` (bus events such as `session.created`, `session.idle`). `experimental.hook` (with
`file_edited`/`session_completed` commands) is not in these binaries. The prototype plugin
(claude_hooks.js) runs the recorder with Claude's stdin JSON on those events; a throw in
`tool.execute.before` (the command's exit 2, or its JSON "deny") fails the tool call before it
runs. Findings: docs/findings-hooks-b.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance import hooks as H
from tests.conformance.sandbox import harness_bin
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

# each harness and the variable that carries its config
CONFIG_ENV = {"opencode": "OPENCODE_CONFIG_CONTENT", "kilo": "KILO_CONFIG_CONTENT"}


@pytest.fixture(params=list(CONFIG_ENV))
def harness(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    need(name)
    return name


def test_the_binary_has_plugin_hooks_and_no_command_hooks(harness: str, proven: Proven) -> None:
    binary = H.launcher_target(harness_bin() / harness)
    found = H.binary_has(
        binary, b'trigger("tool.execute.before"', b'trigger("tool.execute.after"',
        b'trigger("chat.message"', b'"{plugin,plugins}/*.{ts,js}"', b"session_completed",
        b"file_edited",
    )  # fmt: skip
    assert found.pop(b"session_completed") is False and found.pop(b"file_edited") is False
    assert all(found.values()), found
    proven(
        harness,
        "the binary calls plugin hooks tool.execute.before/after and chat.message, loads "
        "{plugin,plugins}/*.{ts,js}, and has no `experimental.hook` (file_edited/session_completed)",
    )


def test_a_generated_plugin_runs_claude_hooks_and_blocks(
    harness: str, tmp_path: Path, proven: Proven
) -> None:
    cost = H.check_plugin_run(H.plugin_run(tmp_path, harness, CONFIG_ENV[harness]))
    proven(
        harness,
        f"`{harness} run` (Anthropic stub, 3 bash calls): a plugin in ~/.config/{harness}/plugin "
        "ran Claude hook commands with Claude's stdin JSON on SessionStart (session.created), "
        "UserPromptSubmit (chat.message), PreToolUse/PostToolUse (tool.execute.before/after, "
        'tool_name Bash, matcher "Read" not fired) and Stop (session.idle); a throw on exit 2 or '
        f"on a JSON deny kept the command from running and reached the model; {cost}",
    )
