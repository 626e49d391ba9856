"""Hooks and the Claude-plugin loader in Factory Droid 0.215.0, the findings behind what
skilltool carries to it (docs/hooks-harnesses.md, docs/harnesses.md):

- ~/.factory/settings.json `hooks`, in Claude Code's format, fire in `droid exec`, with Droid's
  own tool names in a matcher (`Execute`, not `Bash`) and Claude's exit 2 blocking a tool;
  they are lists under each event, with no name an entry could be kept by.
- `droid plugin marketplace add DIR` + `droid plugin install P@M` copy a Claude plugin into
  ~/.factory/plugins and load its skill, agent, command and hook, and list its MCP server,
  which does not start when its command names `${CLAUDE_PLUGIN_ROOT}`; the same entries
  written into settings.json without the install load nothing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conformance.hooks import command, entries, recorder
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import MCP_STUB
from tests.conformance.support import Proven, need
from tests.conformance.test_droid import droid_exec, droid_line, said, section
from tests.helpers import build_file_tree

pytestmark = pytest.mark.conformance

TIMEOUT = 120.0


def group(rec: Path, label: str, matcher: str | None = None, code: int = 0) -> dict[str, object]:
    found: dict[str, object] = {
        "hooks": [{"type": "command", "command": command(rec, label, code)}]
    }
    if matcher is not None:
        found["matcher"] = matcher
    return found


def test_settings_hooks_fire_with_droids_own_tool_names(tmp_path: Path, proven: Proven) -> None:
    need("droid")
    home = make_home(tmp_path)
    rec, log = recorder(tmp_path), tmp_path / "hooks.log"
    hooks = {
        "SessionStart": [group(rec, "session-start")],
        "PreToolUse": [
            group(rec, "pre-bash", "Bash"),
            group(rec, "pre-execute", "Execute", code=2),  # Claude's exit 2: blocked
        ],
        "PostToolUse": [group(rec, "post-execute", "Execute")],
        "Stop": [group(rec, "stop")],
    }
    build_file_tree(home, {".factory/settings.json": json.dumps({"hooks": hooks})})
    call = {"command": "echo ran > ran.txt", "summary": "Write a word down", "riskLevel": "low",
            "riskLevelReason": "a file of the test"}  # fmt: skip
    work = tmp_path / "work"
    answers = iter([{"call": "Execute", "arguments": call}])  # then text, to every request
    droid_exec(home, work, "run it", "--auto", "low", env={"HOOK_LOG": str(log)},
               reply=lambda request: next(answers, "done"))  # fmt: skip
    labels = [e["label"] for e in entries(log)]
    assert "session-start" in labels and "pre-execute" in labels and "stop" in labels, labels
    assert "pre-bash" not in labels  # Claude Code's name matches nothing
    assert "post-execute" not in labels and not (work / "ran.txt").exists()  # blocked
    pre = next(e for e in entries(log) if e["label"] == "pre-execute")
    assert pre["stdin"]["tool_name"] == "Execute", pre
    proven(
        "droid",
        "hooks of ~/.factory/settings.json (Claude's format) fire in `droid exec`: SessionStart, "
        "PreToolUse and Stop, a matcher naming Droid's tool (`Execute`; `Bash` matches nothing), "
        "exit 2 blocks the tool; skilltool carries none there (lists with no entry names)",
    )


def loader_plugin(root: Path) -> Path:
    """A local marketplace (folder `mkt`, named `team-market` in its marketplace.json) with
    one plugin carrying a skill, an agent, a command, a hook and an MCP server."""
    plugin = {
        ".claude-plugin/plugin.json": '{"name": "kit", "version": "1.0.0"}',
        "skills/kit-skill/SKILL.md": "---\nname: kit-skill\ndescription: KIT SKILL\n---\nB.\n",
        "agents/kit-agent.md": "---\nname: kit-agent\ndescription: KIT AGENT\n---\nKIT BODY\n",
        "commands/kit-cmd.md": "---\ndescription: K\n---\nKIT COMMAND $ARGUMENTS\n",
        "hooks/hooks.json": json.dumps({"hooks": {"SessionStart": [{"hooks": [
            {"type": "command", "command": "echo fired > ${CLAUDE_PLUGIN_ROOT}/fired"}]}]}}),
        ".mcp.json": json.dumps({"mcpServers": {"kit-srv": {
            "command": sys.executable, "args": ["${CLAUDE_PLUGIN_ROOT}/srv.py"]}}}),
        "srv.py": MCP_STUB,
    }  # fmt: skip
    market = {"name": "team-market", "owner": {"name": "t"},
              "plugins": [{"name": "kit", "source": "./plugins/kit"}]}  # fmt: skip
    build_file_tree(root / "mkt/plugins/kit", plugin)
    build_file_tree(root / "mkt", {".claude-plugin/marketplace.json": json.dumps(market)})
    return root / "mkt"


def test_the_plugin_loader_copies_a_plugin_in_and_settings_alone_load_none(
    tmp_path: Path, proven: Proven
) -> None:
    need("droid")
    market = loader_plugin(tmp_path)
    home = make_home(tmp_path / "a")
    env = harness_env(home)
    for argv in (["marketplace", "add", str(market)], ["install", "kit@mkt"]):
        done = run(["droid", "plugin", *argv], env, home, timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
    settings = json.loads((home / ".factory/settings.json").read_text())
    local = {"source": {"source": "local", "path": str(market)}}
    assert settings == {
        "extraKnownMarketplaces": {"mkt": local},
        "enabledPlugins": {"kit@mkt": True},
    }
    [copy] = (home / ".factory/plugins/cache").glob("mkt-*/kit-*/*")
    assert (copy / "droids/kit-agent.md").is_file() and (copy / "mcp.json").is_file()
    _, request = droid_exec(home, tmp_path / "work", "/kit-cmd go")
    text = said(request)
    assert "kit-skill: KIT SKILL" in section(text, "Available skills")
    assert droid_line("kit-agent", "KIT AGENT") in section(text, "Custom droids available")
    assert "KIT COMMAND go" in text
    assert (copy / "fired").is_file() and not (market / "plugins/kit/fired").exists()
    listed = run(["droid", "mcp", "list"], env, home, timeout=TIMEOUT).stdout
    assert "kit-srv" in listed and "failed" in listed, listed  # `${CLAUDE_PLUGIN_ROOT}` as written
    # the same two entries of settings.json, without `droid plugin install`: nothing of it
    other = make_home(tmp_path / "b")
    build_file_tree(other, {".factory/settings.json": json.dumps(settings)})
    _, request = droid_exec(other, tmp_path / "work", "hi")
    assert "kit-skill" not in said(request) and "kit-agent" not in said(request)
    proven(
        "droid",
        "its Claude-plugin loader: `droid plugin marketplace add DIR` names the marketplace "
        "after the folder (not marketplace.json's name) and `droid plugin install kit@mkt` "
        "records extraKnownMarketplaces + enabledPlugins in settings.json and copies the plugin "
        "into ~/.factory/plugins/cache (agents as droids/); its skill, droid and command load "
        "unprefixed, its hook runs from the copy, its MCP server naming ${CLAUDE_PLUGIN_ROOT} "
        "does not start; the settings entries alone load nothing",
    )
