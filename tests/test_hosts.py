"""`plugins launch --for HOST`: each entry parsed as its host parses it (agentd's strict-data
syntax by a parser written from its shape, otto's agents.toml, Zed's and JetBrains' JSON), and
agentd's argv run as agentd runs it: directly, no shell, nothing of the entry's environment."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import REPO, run, toml_loads

TOKEN = re.compile(
    r'\s*(?:(?P<string>"(?:[^"\\]|\\.)*")|(?P<word>[A-Za-z0-9_]+)|(?P<mark>[{}\[\]:,]))'
)


def parse_mix(text: str) -> dict[str, Any]:
    """agentd's syntax as its shape says it: `key: value` pairs, values strings, numbers,
    lists `[...]` and maps `{key: value, ...}`; `#` comments. Written here from the shape."""
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    tokens = []
    at = 0
    while at < len(text.rstrip()):
        found = TOKEN.match(text, at)
        assert found is not None, f"cannot read agentd's syntax at {text[at : at + 20]!r}"
        tokens.append((found.lastgroup, found.group(found.lastgroup or "")))
        at = found.end()
    place = [0]

    def take() -> tuple[str | None, str]:
        token = tokens[place[0]]
        place[0] += 1
        return token

    def value() -> Any:
        kind, text = take()
        if kind == "string":
            return json.loads(text)
        if kind == "word":
            return int(text) if text.isdigit() else text
        if text == "[":
            items = []
            while tokens[place[0]][1] != "]":
                items.append(value())
                if tokens[place[0]][1] == ",":
                    take()
            take()
            return items
        assert text == "{", text
        return pairs("}")

    def pairs(end: str | None) -> dict[str, Any]:
        found: dict[str, Any] = {}
        while place[0] < len(tokens) and tokens[place[0]][1] != end:
            kind, key = take()
            assert kind == "word", key
            assert take()[1] == ":"
            found[key] = value()
            if place[0] < len(tokens) and tokens[place[0]][1] == ",":
                take()
        if end is not None:
            take()
        return found

    return pairs(None)


@pytest.fixture
def installed(home: Path) -> Path:
    for folder in (".claude", ".codex", ".config/opencode", ".copilot"):
        (home / folder).mkdir(parents=True)
    assert run("plugins", "install").code == 0
    return home


def test_agentd_reads_the_entry_and_runs_its_argv_with_no_environment_of_its_own(
    installed: Path, tmp_path: Path
) -> None:
    done = run(
        "plugins",
        "launch",
        "plugin-author",
        "--harness",
        "copilot",
        "--for",
        "agentd",
        "--root",
        str(tmp_path),
    )
    assert done.code == 0, done.stdout + done.stderr
    config = parse_mix(f"max_live: 4\nagents: {{\n{done.stdout}\n}}\n")
    assert config["max_live"] == 4
    entry = config["agents"]["plugin_author_copilot"]
    assert entry["roots"] == [str(tmp_path)] and entry["policy"] == "ask"
    argv = entry["argv"]
    assert argv[1:] == ["acp", "plugin-author", "--harness", "copilot"] or argv[3:] == [
        "acp", "plugin-author", "--harness", "copilot"
    ]  # fmt: skip
    # run as agentd runs it: the argv itself, its own environment only (no PATH to a harness)
    environment = {"HOME": str(installed), "PYTHONPATH": str(REPO), "MIXOS_AGENT_SESSION": "s1"}
    if argv[0] != sys.executable:  # the command line's own `skilltool` (a test: python -m)
        argv = [sys.executable, "-m", "skilltool", *argv[1:]]
    started = subprocess.run(
        argv, env=environment, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert started.returncode == 1 and started.stdout == ""
    assert (
        started.stderr
        == "skilltool acp: copilot is not on PATH: Copilot CLI is not installed here\n"
    )


def test_agentd_allows_the_current_project_by_default(
    installed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    monkeypatch.chdir(repo / "src")
    done = run(
        "plugins",
        "launch",
        "plugin-author",
        "--harness",
        "claude",
        "--for",
        "agentd",
        "--policy",
        "allow_once",
    )
    entry = parse_mix(done.stdout)["plugin_author_claude"]
    assert entry["roots"] == [str(repo)] and entry["policy"] == "allow_once"


def test_otto_uses_its_own_routes_where_they_are_enough(installed: Path) -> None:
    codex = toml_loads(
        run("plugins", "launch", "plugin-author", "--harness", "codex", "--for", "otto").stdout
    )
    [entry] = codex["agents"]
    assert entry["command"] == "codex-acp"  # otto starts it itself, the session from the file
    assert entry["env"] == {"CODEX_CONFIG": "{file:~/.codex/skilltool/plugin-author.json}"}
    assert entry["enter"] == ["codex", "--profile", "plugin-author", "resume", "{session}"]
    # otto expands {file:} when it starts it: the session skilltool wrote
    path = entry["env"]["CODEX_CONFIG"][len("{file:") : -1].replace("~", str(installed), 1)
    assert "developer_instructions" in json.loads(Path(path).read_text())
    opencode = toml_loads(
        run("plugins", "launch", "plugin-author", "--harness", "opencode", "--for", "otto").stdout
    )
    [entry] = opencode["agents"]
    assert (entry["command"], entry["args"]) == ("opencode", ["acp"])
    assert json.loads(entry["env"]["OPENCODE_CONFIG_CONTENT"])["default_agent"] == "plugin-author"
    copilot = toml_loads(
        run("plugins", "launch", "plugin-author", "--harness", "copilot", "--for", "otto").stdout
    )
    [entry] = copilot["agents"]
    assert entry["args"][-4:] == [
        "acp",
        "plugin-author",
        "--harness",
        "copilot",
    ]  # chosen in the session


def test_otto_hands_a_claude_agent_on_its_search_path_to_claudes_adapter(home: Path) -> None:
    (home / ".claude").mkdir()
    ottos = home / ".local/share/otto/plugins/team"
    (ottos / ".claude-plugin").mkdir(parents=True)
    (ottos / ".claude-plugin/plugin.json").write_text('{"name": "team"}')
    (ottos / "agents").mkdir()
    (ottos / "agents/helper.md").write_text(
        "---\nname: helper\ndescription: Helps.\n---\nYou help.\n"
    )
    environment = {"SKILLTOOL_NAMESPACE": "otto"}
    assert run("plugins", "install", env=environment).code == 0
    done = run(
        "plugins", "launch", "helper", "--harness", "claude", "--for", "otto", env=environment
    )
    [entry] = toml_loads(done.stdout)["agents"]
    assert entry["command"] == "claude-agent-acp"
    assert (entry["skills"], entry["agent"]) == ("claude", "helper")
    assert entry["enter_new"] == ["claude", "--agent", "helper", "--session-id", "{session}"]
    elsewhere = run(
        "plugins",
        "launch",
        "plugin-author",
        "--harness",
        "claude",
        "--for",
        "otto",
        env=environment,
    )
    assert "is not on otto's search path" in elsewhere.stdout
    assert toml_loads(elsewhere.stdout)["agents"][0]["args"][-4:] == [
        "acp",
        "plugin-author",
        "--harness",
        "claude",
    ]


@pytest.mark.parametrize("host", ["zed", "jetbrains"])
def test_zed_and_jetbrains_read_their_json(installed: Path, host: str) -> None:
    done = run("plugins", "launch", "plugin-author", "--harness", "opencode", "--for", host)
    servers = json.loads(done.stdout)["agent_servers"]
    [(title, server)] = servers.items()
    assert title == "plugin-author (opencode)"
    assert server["command"] == "opencode" and server["args"] == ["acp"]
    assert "OPENCODE_CONFIG_CONTENT" in server["env"]
    assert (server.get("type") == "custom") == (host == "zed")
    assert os.path.basename(server["command"]) == "opencode"
