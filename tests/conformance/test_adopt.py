"""A team's own harness folder adopted with the real `skilltool plugins add ./.claude --project`
(and `./.opencode`): what skilltool carried from it loads in the other harnesses' binaries,
started in the repository (OpenCode's resolved config, Codex's prompt, Claude Code's plugin
validator for the agent it was given)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.homes import TIMEOUT
from tests.conformance.projects import skilltool_in
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.support import Proven, need
from tests.helpers import build_file_tree
from tests.test_adopt import CLAUDE_FIRST, OPENCODE_FIRST

pytestmark = pytest.mark.conformance


def _repository(
    root: Path, files: dict[str, str], folder: str, *harnesses: str
) -> tuple[Path, Path]:
    """A git repository holding `files`, `folder` adopted by the real CLI, with a home where
    `harnesses` are set up (the manifest names those)."""
    home = make_home(root)
    for name in harnesses:
        (home / name).mkdir(parents=True, exist_ok=True)
    repo = root / "repo"
    build_file_tree(repo, files)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    skilltool_in(repo, home, "plugins", "add", f"./{folder}", "--project")
    return home, repo


def _opencode_config(home: Path, repo: Path) -> dict[str, Any]:
    out = home / "tmp/opencode-config.json"  # through a file: a pipe can cut it short
    argv = ["sh", "-c", 'exec "$@" >"$OUT"', "sh", "opencode", "debug", "config"]
    done = run(argv, harness_env(home, {"OUT": str(out)}), repo, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    config: dict[str, Any] = json.loads(out.read_text())
    return config


def test_a_claude_first_repository_loads_in_opencode_and_codex(
    tmp_path: Path, proven: Proven
) -> None:
    need("opencode")
    need("codex")
    home, repo = _repository(tmp_path, CLAUDE_FIRST, ".claude", ".config/opencode", ".codex")
    config = _opencode_config(home, repo)
    # the team's agent, its body the prompt, from `.claude/agents/reviewer.md`
    assert config["agent"]["reviewer"]["prompt"].strip() == "You review changes."
    assert any(name.endswith("commit") for name in config.get("command", {})), config.get("command")
    assert config["mcp"]["docs"]["url"] == "https://docs.example/mcp"
    # Codex: the team's skill, linked from `.claude/skills` into `.agents/skills`
    done = run(["codex", "debug", "prompt-input", "hi"], harness_env(home), repo, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    items = json.loads(done.stdout)
    text = "\n".join(c.get("text", "") for i in items for c in i.get("content", []) if isinstance(c, dict))  # fmt: skip
    assert re.search(r"^- hello: Say hello\.", text, re.M), text[-2000:]
    proven(
        "opencode",
        "a Claude-first repository adopted with `add ./.claude --project`: OpenCode's "
        "resolved config holds the team's agent (its body the prompt), command and server",
    )
    proven("codex", "the team's `.claude/skills/hello` is in Codex's prompt, from `.agents/skills`")


def test_an_opencode_agents_tools_map_loads_in_claude_code_as_disallowed_tools(
    tmp_path: Path, proven: Proven
) -> None:
    need("claude")
    home, repo = _repository(tmp_path, OPENCODE_FIRST, ".opencode", ".claude")
    agent = repo / ".claude/agents/planner.md"
    plugin = tmp_path / "check-plugin"
    build_file_tree(
        plugin,
        {
            ".claude-plugin/plugin.json": '{"name": "check"}\n',
            "agents/planner.md": agent.read_text(),
        },
    )
    env = harness_env(home, {"ANTHROPIC_API_KEY": "sk-fake"})
    done = run(["claude", "plugin", "validate", str(plugin)], env, repo, timeout=TIMEOUT)
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert "planner" in said, said
    proven(
        "claude",
        "an OpenCode agent's `tools` map of falses, carried as `disallowedTools`, passes "
        "`claude plugin validate`",
    )
