"""A plugin's options (`userConfig`) reach its server in each real harness as Claude Code
gives them: a value kept in skilltool's settings is the server's argument, and a sensitive
one, which no file skilltool writes holds, reaches the server's environment from the
variable the harness puts in when it starts the server (Codex forwards it by name; Mistral
Vibe puts in none, so skilltool holds the server there and says so)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.homes import TIMEOUT
from tests.conformance.sandbox import harness_env, run
from tests.conformance.stub import OpenAIStub
from tests.conformance.support import Proven, need
from tests.conformance.test_mcp import CLAUDE_KEYS, recorded, skilltool, start_servers

pytestmark = pytest.mark.conformance

OPTIONS = {
    "mode": {"type": "string", "title": "Mode", "description": "how fast", "default": "fast"},
    "token": {"type": "string", "title": "Token", "description": "API token", "sensitive": True},
}
# `DEMO_TOKEN` is the variable skilltool names for the sensitive option of plugin `demo`: as
# the env key too, Codex forwards it (env_vars)
SERVER = {"args": ["${user_config.mode}"], "env": {"DEMO_TOKEN": "${user_config.token}"}}
SECRET = "s3cret-from-env"
HARNESSES = ["claude", "codex", "copilot", "gemini", "hermes", "kilo", "opencode", "pi", "qwen"]


def configured(home: Path, plugin: Path) -> None:
    """The plugin's manifest declares the options; the user gave `mode` its value."""
    (plugin / ".claude-plugin/plugin.json").write_text(
        json.dumps({"name": "demo", "userConfig": OPTIONS})
    )
    settings = home / ".config/skilltool/config.toml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('[config.demo]\nmode = "slow"\n')


def claude_started(home: Path) -> None:
    """A `claude -p` run against the stub, which starts the generated plugin's server."""
    from tests.conformance.stub import AnthropicStub

    with AnthropicStub(reply="ok") as stub:
        keys = {**CLAUDE_KEYS, "ANTHROPIC_BASE_URL": stub.base_url}
        env = harness_env(home, {**keys, "CLAUDE_CODE_MAX_RETRIES": "0", "DEMO_TOKEN": SECRET})
        argv = ["claude", "-p", "--output-format", "stream-json", "--verbose", "hi"]
        run(argv, env, home, timeout=TIMEOUT)


@pytest.mark.parametrize("harness", HARNESSES)
def test_an_options_value_reaches_the_server_and_a_sensitive_one_its_environment(
    harness: str, tmp_path: Path, proven: Proven
) -> None:
    need(harness)
    with OpenAIStub(reply="ok") as stub:
        made = "gemini" if harness == "claude" else harness  # a home; Claude's folder below
        home, plugin, config, seen, _ = recorded(made, tmp_path, stub, {"uc": SERVER}, {})
        if harness == "claude":
            (home / ".claude").mkdir(exist_ok=True)
            config = home / ".claude/skills/demo.mcp/.mcp.json"
        if harness == "opencode":  # with no file there, OpenCode's is made as opencode.json
            config = home / ".config/opencode/opencode.json"
        configured(home, plugin)
        done = skilltool(home, tmp_path, "install", "--only", harness)
        assert f"added     {harness:<8} mcp uc in" in done.stdout, done.stdout + done.stderr
        assert "set DEMO_TOKEN in the environment the harnesses start from" in done.stderr
        assert "slow" in config.read_text()
        if harness == "claude":
            claude_started(home)
        else:
            start_servers(harness, home, tmp_path, stub, ["uc"], {"DEMO_TOKEN": SECRET})
    assert SECRET not in config.read_text()
    records = [json.loads(line) for line in seen.read_text().splitlines()] if seen.exists() else []
    got = next((r for r in records if r["argv"][:1] == ["uc"]), None)
    assert got is not None, records
    assert got["argv"][1:] == ["slow"], got
    assert got["env"].get("DEMO_TOKEN") == SECRET, got
    proven(
        harness,
        "a plugin option's value kept in skilltool's settings reaches the started server as "
        "its argument, and a sensitive one (written as ${DEMO_TOKEN}) its environment",
    )


def test_vibe_is_given_no_server_whose_sensitive_option_it_cannot_put_in(
    tmp_path: Path, proven: Proven
) -> None:
    need("vibe")
    with OpenAIStub(reply="ok") as stub:
        home, plugin, config, _, _ = recorded("vibe", tmp_path, stub, {"uc": SERVER}, {})
    configured(home, plugin)
    done = skilltool(home, tmp_path, "install", "--only", "vibe")
    assert "skipped   vibe: mcp uc: its option(s) token can reach it only as" in done.stdout
    assert "uc" not in config.read_text()
    proven("vibe", "a server given a sensitive plugin option is held (Vibe puts in no ${VAR})")


def test_claude_code_runs_a_hook_with_the_options_in_its_environment(
    tmp_path: Path, proven: Proven
) -> None:
    """Claude Code gives a plugin's hook its options as `CLAUDE_PLUGIN_OPTION_<KEY>`; the
    generated hooks folder, which declares none, gets them from the `export`s skilltool
    writes before the command: the kept value, and the sensitive one from its variable."""
    need("claude")
    from tests.conformance.sandbox import make_home

    home = make_home(tmp_path)
    (home / ".claude").mkdir()
    out = tmp_path / "options.txt"
    plugin = tmp_path / "plugins/demo"  # the search path of test_mcp's `skilltool`
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / "hooks").mkdir()
    configured(home, plugin)
    hook = f'echo "$CLAUDE_PLUGIN_OPTION_MODE $CLAUDE_PLUGIN_OPTION_TOKEN" > {out}'
    hooks = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": hook}]}]}}
    (plugin / "hooks/hooks.json").write_text(json.dumps(hooks))
    done = skilltool(home, tmp_path, "install", "--only", "claude")
    assert "claude" in done.stdout and "demo" in done.stdout, done.stdout + done.stderr
    claude_started(home)
    assert out.read_text().split() == ["slow", SECRET]
    proven(
        "claude",
        "a carried hook of a plugin with options gets them as CLAUDE_PLUGIN_OPTION_<KEY>, a "
        "sensitive one from its variable",
    )
