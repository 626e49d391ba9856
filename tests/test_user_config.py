"""A plugin's options (`userConfig`): read as Claude Code reads them, the values given with
`configure` or `add --config` kept in skilltool's settings and put into the plugin's servers
and hooks; a sensitive value never written into a file (a variable stands for it, held where
the harness does not put one in), and a project keeping no value at all."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.gitrepos import Repo, git, isolate_git
from tests.helpers import build_file_tree, run, toml_loads

OPTIONS = {
    "token": {"type": "string", "title": "Token", "description": "API token", "sensitive": True},
    "mode": {"type": "string", "title": "Mode", "description": "How fast", "default": "fast"},
    "org": {"type": "string", "title": "Org", "description": "Your organisation"},
    "depth": {"type": "number", "title": "Depth", "description": "How deep", "max": 9},
}
SERVERS = {
    "fast": {"command": "srv", "args": ["--mode", "${user_config.mode}"],
             "env": {"T_TOKEN": "${user_config.token}"}},
    "orgs": {"command": "srv", "args": ["--org=${user_config.org}"]},
}  # fmt: skip


def manifest(**extra: object) -> str:
    return json.dumps({"name": "demo", "userConfig": OPTIONS, "mcpServers": SERVERS, **extra})


@pytest.fixture
def plugin(home: Path) -> Path:
    """The user's own plugin with options, and Gemini CLI, OpenCode and Codex set up."""
    for folder in (".gemini", ".config/opencode", ".codex"):
        (home / folder).mkdir(parents=True)
    return build_file_tree(
        home / ".local/share/skilltool/plugins/demo", {".claude-plugin/plugin.json": manifest()}
    )


def gemini(home: Path) -> dict[str, object]:
    servers: dict[str, object] = json.loads((home / ".gemini/settings.json").read_text())[
        "mcpServers"
    ]
    return servers


def settings(home: Path) -> dict[str, object]:
    return toml_loads((home / ".config/skilltool/config.toml").read_text())


def test_a_default_reaches_the_server_and_a_sensitive_option_is_a_variable(
    plugin: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DEMO_TOKEN", raising=False)
    done = run("plugins", "install")
    assert done.code == 0, done.stdout + done.stderr
    fast = gemini(home)["fast"]
    assert fast == {"command": "srv", "args": ["--mode", "fast"],
                    "env": {"T_TOKEN": "${DEMO_TOKEN}"}}  # fmt: skip
    opencode = json.loads((home / ".config/opencode/opencode.json").read_text())["mcp"]["fast"]
    assert opencode["environment"] == {"T_TOKEN": "{env:DEMO_TOKEN}"}
    # Codex forwards a variable only under its own name: held there, said why
    assert "skipped   codex: mcp fast: its option(s) token can reach it only as " in done.stdout
    assert not (home / ".codex/config.toml").exists()
    said = done.stdout + done.stderr
    assert "userConfig.token: sensitive: skilltool keeps no value of it" in said
    assert "set DEMO_TOKEN in the environment the harnesses start from" in said
    # an option with no value and no default: the server that needs it waits, said how
    assert "orgs" not in gemini(home)
    assert "MCP server 'orgs' needs a value for option org (Org)" in said
    assert "'skilltool plugins configure demo org=VALUE'" in said
    # the token itself is nowhere in skilltool's files
    monkeypatch.setenv("DEMO_TOKEN", "s3cret")
    again = run("plugins", "install")
    assert "set DEMO_TOKEN" not in again.stdout + again.stderr  # set here: nothing to say
    assert "s3cret" not in (home / ".gemini/settings.json").read_text()


def test_configure_keeps_the_values_and_puts_them_in(plugin: Path, home: Path) -> None:
    done = run("plugins", "configure", "demo", "org=acme", "mode=slow", "depth=3")
    assert done.code == 0, done.stdout + done.stderr
    assert "set       demo: org = 'acme' (kept in ~/.config/skilltool/config.toml)" in done.lines
    assert settings(home)["config"] == {"demo": {"org": "acme", "mode": "slow", "depth": 3}}
    servers = gemini(home)
    assert servers["orgs"] == {"command": "srv", "args": ["--org=acme"]}
    assert servers["fast"]["args"] == ["--mode", "slow"]  # type: ignore[index]
    shown = run("plugins", "configure", "demo")  # no terminal, nothing given: what they stand at
    assert "option    demo: mode (Mode) = 'slow'" in shown.lines
    assert "option    demo: token (Token) sensitive: from $DEMO_TOKEN" in shown.lines
    back = run("plugins", "configure", "demo", "--unset", "mode")
    assert back.code == 0
    assert gemini(home)["fast"]["args"] == ["--mode", "fast"]  # type: ignore[index]


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("token=s3cret", "token: option of plugin demo is sensitive: skilltool keeps no value"),
        ("nope=1", "nope: plugin demo declares no such option (it has: token, mode, org, depth)"),
        ("depth=12", "depth=12: must be at most 9; nothing was kept"),
        ("depth=deep", "depth=deep: must be a number; nothing was kept"),
        ("org", "--config 'org': give KEY=VALUE"),
    ],
)
def test_a_value_that_cannot_be_kept_is_one_line_and_nothing_is_kept(
    plugin: Path, home: Path, given: str, said: str
) -> None:
    done = run("plugins", "configure", "demo", "mode=slow", given)
    assert done.code == 2
    assert said in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (home / ".config/skilltool/config.toml").exists()
    assert not (home / ".gemini/settings.json").exists()


def test_an_option_claude_code_refuses_is_an_error_and_its_server_waits(home: Path) -> None:
    (home / ".gemini").mkdir()
    options = {"bad-key": OPTIONS["org"], "mode": {**OPTIONS["mode"], "colour": "red"}}
    build_file_tree(
        home / ".local/share/skilltool/plugins/demo",
        {".claude-plugin/plugin.json": manifest(userConfig=options)},
    )
    checked = run("plugins", "validate")
    out = checked.stdout + checked.stderr
    assert checked.code == 1
    assert "userConfig.bad-key: not a key Claude Code takes" in out
    assert "userConfig.mode: 'colour' is not a field of an option" in out
    assert "Claude Code refuses to install the plugin" in out
    done = run("plugins", "install")
    assert "names ${user_config.mode}, which plugin demo does not declare" in done.stderr
    assert not (home / ".gemini/settings.json").exists()


def test_a_hook_is_given_the_options_and_one_naming_them_in_its_command_waits(
    home: Path,
) -> None:
    (home / ".claude").mkdir()
    hooks = {"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "echo $CLAUDE_PLUGIN_OPTION_MODE"},
        {"type": "command", "command": "echo ${user_config.mode}"},
    ]}]}}  # fmt: skip
    build_file_tree(
        home / ".local/share/skilltool/plugins/demo",
        {
            ".claude-plugin/plugin.json": manifest(mcpServers={}),
            "hooks/hooks.json": json.dumps(hooks),
        },
    )
    run("plugins", "configure", "demo", "mode=slow")
    done = run("plugins", "install")
    assert "which Claude Code refuses in a shell command" in done.stderr
    written = home / ".claude/skills/demo.hooks/hooks/hooks.json"
    commands = [h["command"] for h in json.loads(written.read_text())["hooks"]["Stop"][0]["hooks"]]
    assert commands == [
        'export CLAUDE_PLUGIN_OPTION_TOKEN="${DEMO_TOKEN}"; export CLAUDE_PLUGIN_OPTION_MODE=slow; '
        "echo $CLAUDE_PLUGIN_OPTION_MODE"
    ]


def test_add_config_keeps_a_fetched_plugins_values(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate_git(tmp_path, monkeypatch)
    (home / ".gemini").mkdir()
    remote = Repo(tmp_path, "demo")
    remote.commit({".claude-plugin/plugin.json": manifest()})
    remote.push()
    added = run("plugins", "add", remote.url, "--yes", "--config", "org=acme")
    assert added.code == 0, added.stdout + added.stderr
    assert settings(home)["config"] == {"demo": {"org": "acme"}}
    assert gemini(home)["orgs"] == {"command": "srv", "args": ["--org=acme"]}
    wrong = run("plugins", "approve", "demo", "--config", "orgg=x")
    assert wrong.code == 1
    said = "error     --config orgg: no plugin added declares that option"
    assert any(line.startswith(said) for line in wrong.lines), wrong.stdout
    assert settings(home)["config"] == {"demo": {"org": "acme"}}


def test_a_project_keeps_no_value_and_writes_a_variable_for_each(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate_git(tmp_path, monkeypatch)
    repo = tmp_path / "repo"
    git("init", "-q", repo)
    (home / ".gemini").mkdir()
    build_file_tree(repo, {"plugins/demo/.claude-plugin/plugin.json": manifest()})
    monkeypatch.chdir(repo)
    refused = run("plugins", "add", "./plugins/demo", "--project", "--config", "org=acme")
    assert refused.code == 2
    assert "a project keeps no value of a plugin's options" in refused.stderr
    assert not (repo / "skilltool.toml").exists()
    added = run("plugins", "add", "./plugins/demo", "--project")
    assert added.code == 0, added.stdout + added.stderr
    written = (repo / ".gemini/settings.json").read_text()
    servers = json.loads(written)["mcpServers"]
    assert servers["fast"]["args"] == ["--mode", "${DEMO_MODE}"]
    assert servers["orgs"]["args"] == ["--org=${DEMO_ORG}"]
    assert "the plugin's default is 'fast'" in added.stdout + added.stderr
    assert not os.path.exists(home / ".config/skilltool/config.toml")
