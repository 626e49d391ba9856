"""Kilo Code CLI has no shell-command hooks of its own; a generated JS plugin carries Claude Code's.

Kilo 7.7.7 (built from OpenCode) reads `~/.config/kilo/{plugin,plugins}/*.{js,ts}` and calls a plugin's
`tool.execute.before`/`tool.execute.after`, `chat.message`, `experimental.session.compacting` and
`event` (bus events such as `session.created`, `session.idle`). `experimental.hook` (with
`file_edited`/`session_completed` commands) is not in this binary. The prototype plugin
(claude_hooks.js) runs the recorder with Claude's stdin JSON on those events; a throw in
`tool.execute.before` (the command's exit 2, or its JSON "deny") fails the tool call before it
runs. Findings: docs/findings-hooks-b.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance import hookrec
from tests.conformance.sandbox import harness_bin
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

HARNESS = "kilo"
CONFIG_ENV = "KILO_CONFIG_CONTENT"


@pytest.fixture(autouse=True)
def _need() -> None:
    need(HARNESS)


def test_the_binary_has_plugin_hooks_and_no_command_hooks(proven: Proven) -> None:
    binary = hookrec.launcher_target(harness_bin() / HARNESS)
    found = hookrec.binary_has(
        binary, b'trigger("tool.execute.before"', b'trigger("tool.execute.after"',
        b'trigger("chat.message"', b'"{plugin,plugins}/*.{ts,js}"', b"session_completed",
        b"file_edited",
    )  # fmt: skip
    assert found.pop(b"session_completed") is False and found.pop(b"file_edited") is False
    assert all(found.values()), found
    proven(
        HARNESS,
        "the binary calls plugin hooks tool.execute.before/after and chat.message, loads "
        "{plugin,plugins}/*.{ts,js}, and has no `experimental.hook` (file_edited/session_completed)",
    )


def test_a_generated_plugin_runs_claude_hooks_and_blocks(tmp_path: Path, proven: Proven) -> None:
    cost = hookrec.check_plugin_run(hookrec.plugin_run(tmp_path, HARNESS, CONFIG_ENV))
    proven(
        HARNESS,
        "`kilo run` (Anthropic stub, 3 bash calls): a plugin in ~/.config/kilo/plugin ran "
        "Claude hook commands with Claude's stdin JSON on SessionStart (session.created), "
        "UserPromptSubmit (chat.message), PreToolUse/PostToolUse (tool.execute.before/after, "
        'tool_name Bash, matcher "Read" not fired) and Stop (session.idle); a throw on exit 2 or '
        f"on a JSON deny kept the command from running and reached the model; {cost}",
    )
