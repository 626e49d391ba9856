"""Each real harness lists a plugin's MCP server from its own config file, as skilltool
wrote the entry, next to a server of the user's own (and the user's comment) that stay as
they were; after uninstall the user's file is byte for byte what it was.

The servers never start: a listing suffices. The plugin's server is a shell script in the
test's tmp that exits at once, and nothing is pointed at the network.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import unquote

import pytest

from tests.conformance.homes import TIMEOUT
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import MCP_STUB, OpenAIStub, mcp_server
from tests.conformance.support import Proven, need
from tests.helpers import REPO, build_file_tree

pytestmark = pytest.mark.conformance

SERVER = "plugin-srv"  # the plugin's server; the user's own is `mine`
# the plugin's server is MCP_STUB, which answers `initialize` and `tools/list` with no tools,
# so that a harness whose listing starts each server (pi) sees both start; stdin closed: it ends


class Case(NamedTuple):
    config: str  # the harness's config file, relative to the home
    user: str  # the user's file before install: their own server `mine`, a comment where taken
    listing: tuple[str, ...]  # the harness's own command that lists its servers
    extra_dirs: tuple[str, ...] = ()  # directories the harness needs to be present


CASES = {
    "codex": Case(
        ".codex/config.toml",
        '# my servers\n[mcp_servers.mine]\ncommand = "/bin/true"  # keep\n',
        ("codex", "mcp", "list", "--json"),
    ),
    "gemini": Case(
        ".gemini/settings.json",
        '{\n  // my servers\n  "mcpServers": {\n    "mine": {"command": "/bin/true"}\n  }\n}\n',
        ("gemini", "mcp", "list"),
    ),
    "qwen": Case(
        ".qwen/settings.json",
        '{\n  // my servers\n  "mcpServers": {\n    "mine": {"command": "/bin/true"}\n  }\n}\n',
        ("qwen", "mcp", "list"),
    ),
    "opencode": Case(
        ".config/opencode/opencode.jsonc",
        '{\n  // my servers\n  "mcp": {\n    "mine": {"type": "local", "command": ["/bin/true"]},\n'
        "  },\n}\n",
        ("opencode", "mcp", "list"),
    ),
    "kilo": Case(
        ".config/kilo/kilo.jsonc",
        '{\n  // my servers\n  "mcp": {\n    "mine": {"type": "local", "command": ["/bin/true"]},\n'
        "  },\n}\n",
        ("kilo", "mcp", "list"),
    ),
    "copilot": Case(
        ".copilot/mcp-config.json",
        '{\n  // my servers\n  "mcpServers": {\n'
        '    "mine": {"type": "local", "command": "/bin/true", "tools": ["*"]}\n  }\n}\n',
        ("copilot", "mcp", "list", "--json"),
    ),
    "pi": Case(
        ".pi/agent/mcp.json",  # pi takes no comment in it
        '{\n  "mcpServers": {\n    "mine": {"command": "/bin/true"}\n  }\n}\n',
        ("pi", "mcp", "list", "--json"),
    ),
    "hermes": Case(
        ".hermes/config.yaml",
        "# my settings\nmcp_servers:\n  mine:\n    command: /bin/true  # keep\n",
        ("hermes", "mcp", "list"),
    ),
    "droid": Case(
        ".factory/mcp.json",
        '{\n  // my servers\n  "mcpServers": {\n    "mine": {"command": "/bin/true"}\n  }\n}\n',
        ("droid", "mcp", "list"),  # it starts each server to say how it stands
    ),
}
EXTRA_ENV = {
    "gemini": {"GEMINI_API_KEY": "fake", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"},
    "qwen": {"OPENAI_API_KEY": "fake", "OPENAI_BASE_URL": "http://127.0.0.1:9"},
    "hermes": {"HERMES_DISABLE_LAZY_INSTALLS": "1"},
    "pi": {"PI_OFFLINE": "1"},
}


def make_plugin(root: Path) -> Path:
    """A plugin whose server runs a script of its own, named through ${CLAUDE_PLUGIN_ROOT}."""
    server = {"command": "${CLAUDE_PLUGIN_ROOT}/bin/srv", "args": ["--stdio"], "env": {"M": "1"}}
    plugin = build_file_tree(
        root / "plugins/demo",
        {
            ".claude-plugin/plugin.json": '{"name": "demo"}\n',
            ".mcp.json": json.dumps({"mcpServers": {SERVER: server}}, indent=2) + "\n",
            "bin/srv": f"#!{sys.executable}\n{MCP_STUB}",
        },
    )
    (plugin / "bin/srv").chmod(0o755)
    return plugin


def skilltool(home: Path, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = harness_env(home)
    env.update(
        PYTHONPATH=str(REPO),
        XDG_DATA_DIRS=str(root / "no-system-plugins"),
        SKILLTOOL_PLUGINS=str(root / "plugins"),
    )
    done = subprocess.run(
        [sys.executable, "-m", "skilltool", "plugins", *args, "--home", str(home)],
        env=env,
        cwd=home,
        capture_output=True,
        encoding="utf-8",
        timeout=TIMEOUT,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def listed(harness: str, home: Path, reachable: bool = True) -> str:
    """What the harness lists; with `reachable` False, a server that cannot be reached (a
    dead loopback port) is allowed to fail, as long as the config itself has no error."""
    case = CASES[harness]
    done = run(case.listing, harness_env(home, EXTRA_ENV.get(harness)), home, timeout=TIMEOUT)
    shown = done.stdout + done.stderr
    if harness == "pi" and not reachable:  # `pi mcp list` exits 1 when a server fails
        assert json.loads(done.stdout)["errors"] == [], shown
        return shown
    assert done.returncode == 0, shown
    return shown


@pytest.mark.parametrize("harness", sorted(CASES))
def test_the_harness_lists_the_plugins_server_beside_the_users(
    harness: str, tmp_path: Path, proven: Proven
) -> None:
    need(harness)
    case = CASES[harness]
    home = make_home(tmp_path)
    plugin = make_plugin(tmp_path)
    config = home / case.config
    build_file_tree(home, {case.config: case.user.replace("/bin/true", f"{plugin}/bin/srv")})
    listed(harness, home)  # some rewrite their file on a run (a "$schema" key): theirs to do
    original = config.read_bytes()

    done = skilltool(home, tmp_path, "install", "--only", harness)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"added     {harness:<8} mcp {SERVER} in ~/{case.config}" in done.stdout
    shown = listed(harness, home)
    assert SERVER in shown and "mine" in shown, shown
    assert f"{plugin}/bin/srv" in config.read_text()  # ${CLAUDE_PLUGIN_ROOT} expanded
    for comment in re.findall(r"(?:#|//) [a-z ]+", case.user):  # the user's comments stay
        assert comment in config.read_text()

    again = skilltool(home, tmp_path, "install", "--only", harness)
    assert again.stdout.strip().splitlines()[-1] == "1 unchanged", again.stdout

    gone = skilltool(home, tmp_path, "uninstall", "--only", harness)
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert config.read_bytes() == original
    after = listed(harness, home)
    assert SERVER not in after and "mine" in after, after
    assert config.read_bytes() == original, "the harness changed its file on the last run"
    proven(
        harness,
        f"`{' '.join(case.listing)}` lists the plugin's MCP server from ~/{case.config} "
        "next to the user's own; uninstall gives the file back byte for byte",
    )


# the harnesses that run no SSE server: skilltool skips it there, with a line
NO_SSE = {"codex", "pi"}


@pytest.mark.parametrize("harness", sorted(CASES))
def test_the_harness_lists_remote_servers_in_the_shape_skilltool_writes(
    harness: str, tmp_path: Path, proven: Proven
) -> None:
    need(harness)
    case = CASES[harness]
    home = make_home(tmp_path)
    remote = {
        "web-http": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X-T": "1"}},
        "web-sse": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
    }
    build_file_tree(
        tmp_path / "plugins/remote",
        {
            ".claude-plugin/plugin.json": '{"name": "remote"}\n',
            ".mcp.json": json.dumps({"mcpServers": remote}) + "\n",
        },
    )
    (home / case.config).parent.mkdir(parents=True, exist_ok=True)
    done = skilltool(home, tmp_path, "install", "--only", harness)
    assert done.returncode == 0, done.stdout + done.stderr
    shown = listed(harness, home, reachable=False)
    assert "web-http" in shown, shown
    if harness in NO_SSE:
        assert f"skipped   {harness}: mcp web-sse: " in done.stdout
        assert "web-sse" not in shown, shown
    else:
        assert "web-sse" in shown, shown
    kinds = "HTTP" if harness in NO_SSE else "HTTP and SSE"
    proven(harness, f"`{' '.join(case.listing)}` lists a plugin's remote {kinds} servers")


def test_claude_code_loads_the_servers_skilltool_reads_from_each_plugin_shape(
    tmp_path: Path, proven: Proven
) -> None:
    """skilltool reads a plugin's servers as Claude Code does (`claude --plugin-dir D mcp
    list` shows `plugin:<plugin>:<server>`); Claude Code's own user list is not edited."""
    need("claude")
    from skilltool.discover import read_plugin

    def stdio(tag: str) -> dict[str, str]:  # Claude Code shows one of two same commands
        return {"command": "${CLAUDE_PLUGIN_ROOT}/bin/" + tag}

    shapes = {
        "wrapped": {".mcp.json": json.dumps({"mcpServers": {"w-srv": stdio("w")}})},
        "bare": {".mcp.json": json.dumps({"b-srv": stdio("b")})},
        "inline": {"plugin.json": {"mcpServers": {"i-srv": stdio("i")}}},
        "both": {
            "plugin.json": {"mcpServers": {"inline-srv": stdio("i")}},
            ".mcp.json": json.dumps({"mcpServers": {"file-srv": stdio("f")}}),
        },
        "listed": {
            "plugin.json": {"mcpServers": ["./more.json", {"o-srv": stdio("o")}]},
            "more.json": json.dumps({"mcpServers": {"l-srv": stdio("l")}}),
            ".mcp.json": json.dumps({"mcpServers": {"dot-srv": stdio("d")}}),
        },
    }
    dirs = []
    expected = set()
    for name, files in shapes.items():
        manifest = {"name": name, **files.pop("plugin.json", {})}  # type: ignore[dict-item]
        spec = {".claude-plugin/plugin.json": json.dumps(manifest), **files}
        root = build_file_tree(tmp_path / "plugins" / name, spec)  # type: ignore[arg-type]
        dirs += ["--plugin-dir", str(root)]
        expected |= {f"plugin:{name}:{s.name}" for s in read_plugin(root, "user").mcp_servers}
    home = make_home(tmp_path)
    (home / ".claude").mkdir()
    env = harness_env(
        home, {"ANTHROPIC_API_KEY": "fake", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    )
    done = run(["claude", *dirs, "mcp", "list"], env, home, timeout=TIMEOUT)
    shown = set(re.findall(r"^(plugin:[^:]+:[^:]+):", done.stdout, re.MULTILINE))
    assert shown == expected, done.stdout + done.stderr
    assert len(expected) == 8  # every server of every shape
    proven(
        "claude",
        "`claude --plugin-dir D mcp list` loads exactly the servers skilltool reads: "
        ".mcp.json (wrapped or bare) together with plugin.json's objects and paths",
    )


@pytest.mark.parametrize("harness", ["opencode", "kilo"])
def test_an_env_reference_reaches_the_server_as_its_value(
    harness: str, tmp_path: Path, proven: Proven
) -> None:
    """`${HOME}` is written as OpenCode's `{env:HOME}`: the server started by the listing
    gets the home in its argument and its environment (1.18.33 and Kilo 7.7.7 leave a
    `${HOME}` as it is)."""
    need(harness)
    home = make_home(tmp_path)
    seen = tmp_path / "seen.txt"
    server = {"command": "${CLAUDE_PLUGIN_ROOT}/bin/srv", "args": ["${HOME}"],
              "env": {"SEEN": "${HOME}"}}  # fmt: skip
    plugin = build_file_tree(
        tmp_path / "plugins/demo",
        {
            ".claude-plugin/plugin.json": '{"name": "demo"}\n',
            ".mcp.json": json.dumps({"mcpServers": {SERVER: server}}) + "\n",
            "bin/srv": f'#!/bin/sh\necho "$1 $SEEN" > {seen}\nexit 0\n',
        },
    )
    (plugin / "bin/srv").chmod(0o755)
    (home / CASES[harness].config).parent.mkdir(parents=True, exist_ok=True)
    done = skilltool(home, tmp_path, "install", "--only", harness)
    assert f"added     {harness:<8} mcp {SERVER}" in done.stdout, done.stdout + done.stderr
    # with no file there, OpenCode's is created as opencode.json, Kilo's as kilo.jsonc
    written = {"opencode": ".config/opencode/opencode.json", "kilo": ".config/kilo/kilo.jsonc"}
    assert "{env:HOME}" in (home / written[harness]).read_text()
    listed(harness, home)
    assert seen.read_text().split() == [str(home), str(home)]
    proven(harness, "a server's ${HOME}, written as {env:HOME}, reaches it expanded")


# --------------------------------------------------------------------------- Claude Code

CLAUDE_KEYS = {"ANTHROPIC_API_KEY": "fake", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
USER_SETTINGS = '{\n  "model": "sonnet"\n}\n'


def recorder(plugin: Path, seen: Path) -> Path:
    """A stdio server script in the plugin that writes its argv, `T_*` and `DEMO_*` environment and
    working directory to `seen` (one JSON line a start), then answers as MCP_STUB does."""
    script = plugin / "bin/recorder"
    record = (
        f"with open({str(seen)!r}, 'a') as out:\n"
        "    env = {k: v for k, v in os.environ.items() if k.startswith(('T_', 'DEMO_'))}\n"
        "    seen = {'argv': sys.argv[1:], 'env': env, 'cwd': os.getcwd()}\n"
        "    out.write(json.dumps(seen) + '\\n')\n"
    )
    script.write_text(f"#!{sys.executable}\n{mcp_server(record)}")
    script.chmod(0o755)
    return script


def claude_listed(home: Path, extra: dict[str, str] | None = None) -> str:
    env = harness_env(home, {**CLAUDE_KEYS, **(extra or {})})
    done = run(["claude", "mcp", "list"], env, home, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_claude_code_lists_the_generated_plugins_servers_beside_the_users(
    tmp_path: Path, proven: Proven
) -> None:
    """Claude Code loads `~/.claude/skills/<plugin>.mcp` itself (`<plugin>@skills-dir`): no
    install step, no settings entry, nothing copied into ~/.claude/plugins; the user's own
    server (`claude mcp add --scope user`) and settings.json stay as they were."""
    need("claude")
    home = make_home(tmp_path)
    plugin = make_plugin(tmp_path)
    remote = {"web-http": {"type": "http", "url": "http://127.0.0.1:9/mcp"},
              "web-sse": {"type": "sse", "url": "http://127.0.0.1:9/sse"}}  # fmt: skip
    servers = json.loads((plugin / ".mcp.json").read_text())["mcpServers"]
    (plugin / ".mcp.json").write_text(json.dumps({"mcpServers": {**servers, **remote}}))
    settings = build_file_tree(home, {".claude/settings.json": USER_SETTINGS})
    add = ["claude", "mcp", "add", "--scope", "user", "mine", "--", f"{plugin}/bin/srv"]
    assert run(add, harness_env(home, CLAUDE_KEYS), home, timeout=TIMEOUT).returncode == 0

    done = skilltool(home, tmp_path, "install", "--only", "claude")
    assert f"added     claude   mcp {SERVER} in ~/.claude/skills/demo.mcp/.mcp.json" in (
        done.stdout
    ), done.stdout + done.stderr
    shown = claude_listed(home)
    assert re.search(rf"^plugin:demo:{SERVER}: .* - ✔ Connected$", shown, re.M), shown
    assert re.search(r"^mine: .* - ✔ Connected$", shown, re.M), shown
    assert "plugin:demo:web-http:" in shown and "plugin:demo:web-sse:" in shown, shown
    plugins = run(["claude", "plugin", "list"], harness_env(home, CLAUDE_KEYS), home)
    assert "demo@skills-dir" in plugins.stdout, plugins.stdout
    assert (settings / ".claude/settings.json").read_text() == USER_SETTINGS
    for claudes in ("installed_plugins.json", "known_marketplaces.json", "cache"):
        assert not (home / ".claude/plugins" / claudes).exists()  # nothing installed

    again = skilltool(home, tmp_path, "install", "--only", "claude")
    assert again.stdout.strip().splitlines()[-1] == "4 unchanged", again.stdout
    gone = skilltool(home, tmp_path, "uninstall", "--only", "claude")
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert not (home / ".claude/skills/demo.mcp").exists()
    after = claude_listed(home)
    assert "plugin:demo:" not in after and "mine:" in after, after
    assert (settings / ".claude/settings.json").read_text() == USER_SETTINGS
    proven(
        "claude",
        "`claude mcp list` lists the plugin's stdio, HTTP and SSE servers from the plugin "
        "skilltool generates in ~/.claude/skills/<plugin>.mcp (loaded as <plugin>@skills-dir, "
        "no install step), next to the user's own; settings.json untouched; uninstall "
        "unloads it",
    )


def test_claude_code_starts_the_server_with_its_references_expanded(
    tmp_path: Path, proven: Proven
) -> None:
    """Carried as the plugin wrote it: Claude Code itself expands `${VAR}` and
    `${VAR:-default}` when it starts the server, in a `-p` run against the stub, and passes
    a bare `$VAR` on as written."""
    need("claude")
    from tests.conformance.stub import AnthropicStub

    home = make_home(tmp_path)
    (home / ".claude").mkdir()
    plugin = make_plugin(tmp_path)
    seen = tmp_path / "seen.jsonl"
    recorder(plugin, seen)
    server = {"command": "${CLAUDE_PLUGIN_ROOT}/bin/recorder",
              "args": ["${T_X}", "${T_UNSET:-fallback}", "x$T_X/y"],
              "env": {"T_SEEN": "${T_X}", "T_B": "$T_X"}}  # fmt: skip
    (plugin / ".mcp.json").write_text(json.dumps({"mcpServers": {SERVER: server}}))
    done = skilltool(home, tmp_path, "install", "--only", "claude")
    assert f"added     claude   mcp {SERVER}" in done.stdout, done.stdout + done.stderr
    with AnthropicStub(reply="ok") as stub:
        keys = {"ANTHROPIC_API_KEY": "fake", "ANTHROPIC_BASE_URL": stub.base_url}
        env = harness_env(home, {**keys, "CLAUDE_CODE_MAX_RETRIES": "0", "T_X": "from-env"})
        argv = ["claude", "-p", "--output-format", "stream-json", "--verbose", "hi"]
        ran = run(argv, env, home, timeout=TIMEOUT)
    init = next(json.loads(line) for line in ran.stdout.splitlines() if '"init"' in line)
    assert {"name": f"plugin:demo:{SERVER}", "status": "connected"}.items() <= next(
        s for s in init["mcp_servers"] if s["name"] == f"plugin:demo:{SERVER}"
    ).items(), init["mcp_servers"]
    first = json.loads(seen.read_text().splitlines()[0])
    assert first["argv"] == ["from-env", "fallback", "x$T_X/y"]
    assert first["env"] == {"T_SEEN": "from-env", "T_X": "from-env", "T_B": "$T_X"}
    proven(
        "claude",
        "a -p run starts the generated plugin's server with ${VAR} and ${VAR:-d} expanded, "
        "a bare $VAR as written",
    )


# --------------------------------------------------------------------------- ${VAR}

# one server per way of writing a reference; each harness gets those it was seen to expand
# where they are (skilltool skips the rest with a line), and each started server is asked
# what it got: the recorder's first argument is the server's name
REFERENCES: dict[str, dict[str, Any]] = {
    "arg-ref": {"args": ["${T_X}"]},
    "env-ref": {"env": {"T_X": "${T_X}"}},  # Codex: env_vars = ["T_X"]
    "env-other": {"env": {"T_OTHER": "${T_X}"}},
    "arg-default": {"args": ["${T_UNSET:-fallback}"]},
    "env-default": {"env": {"T_D": "${T_UNSET:-fallback}"}},
}
REMOTE = {  # the path each is sent to on the stub, then its headers
    "web-url": ("/mcp/url/${T_X}", {}),
    "web-head": ("/mcp/head", {"X-T": "${T_X}"}),  # Codex: env_http_headers
    "web-bearer": ("/mcp/bearer", {"X-B": "Bearer ${T_X}"}),
    "web-default": ("/mcp/default/${T_UNSET:-fallback}", {}),
}
EXPANDS = {
    "gemini": {*REFERENCES, *REMOTE},
    "copilot": {*REFERENCES, *REMOTE},
    "qwen": {"arg-ref", "env-ref", "env-other", "web-url", "web-head", "web-bearer"},
    "hermes": {"arg-ref", "env-ref", "env-other", "web-url", "web-head", "web-bearer"},
    "pi": {"env-ref", "env-other", "web-head", "web-bearer"},
    "codex": {"env-ref", "web-head"},
    "vibe": set(),
    "kimi": set(),
    "droid": {"env-ref", "env-other", "env-default", "web-head", "web-bearer"},
}
EXPECTED = {  # what each started server gets: an argument, or T_* variables it holds
    "arg-ref": ["from-env"],
    "env-ref": {"T_X": "from-env"},
    "env-other": {"T_OTHER": "from-env"},
    "arg-default": ["fallback"],
    "env-default": {"T_D": "fallback"},
}
SENT = {  # what the stub receives from each remote server
    "web-url": ("/mcp/url/from-env", {}),
    "web-head": ("/mcp/head", {"x-t": "from-env"}),
    "web-bearer": ("/mcp/bearer", {"x-b": "Bearer from-env"}),
    "web-default": ("/mcp/default/fallback", {}),
}


def config_of(harness: str) -> str:
    own = {"vibe": ".vibe/config.toml", "kimi": ".kimi-code/mcp.json"}
    return own[harness] if harness in own else CASES[harness].config


def kimi_model(stub: OpenAIStub) -> dict[str, str]:
    """The stub as Kimi Code's model, by its environment alone."""
    return {
        "KIMI_MODEL_NAME": "stub-model",
        "KIMI_MODEL_API_KEY": "dummy",
        "KIMI_MODEL_PROVIDER_TYPE": "openai",
        "KIMI_MODEL_BASE_URL": stub.base_url,
    }


def start_servers(
    harness: str,
    home: Path,
    tmp_path: Path,
    stub: OpenAIStub,
    names: Iterable[str] = (),
    extra: dict[str, str] | None = None,
) -> None:
    """Have the harness start every server of its config: its listing where that starts
    them (Gemini in a trusted folder, Qwen, pi), else a one-prompt run against the stub
    (Hermes: `hermes mcp test` of each of `names`, by default those of REFERENCES, REMOTE),
    with `extra` in its environment."""
    env = {**EXTRA_ENV.get(harness, {}), "T_X": "from-env", "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    env.update(extra or {})
    cwd, argv = home, list(CASES[harness].listing) if harness in CASES else []
    if harness == "vibe":  # no cached tool list: every server starts with the run
        shutil.rmtree(home / ".vibe/logs/mcp-descriptors", ignore_errors=True)
        env["STUB_API_KEY"] = "dummy"
        cwd, argv = tmp_path / "work", ["vibe", "-p", "hi"]
        cwd.mkdir()
    if harness == "kimi":  # it starts every server of mcp.json before its first request
        env.update(kimi_model(stub))
        cwd, argv = tmp_path / "work", ["kimi", "-p", "hi"]
        cwd.mkdir()
    if harness == "copilot":
        env.update(COPILOT_PROVIDER_BASE_URL=stub.base_url, COPILOT_PROVIDER_API_KEY="dummy",
                   COPILOT_MODEL="gpt-4.1", COPILOT_OFFLINE="true")  # fmt: skip
        cwd, argv = tmp_path / "work", ["copilot", "-p", "hi", "--allow-all-tools"]
        cwd.mkdir()
    if harness == "hermes":  # its listing starts none; `mcp test` starts one
        for name in names or [*REFERENCES, *REMOTE]:
            run(["hermes", "mcp", "test", name], harness_env(home, env), cwd, timeout=TIMEOUT)
        return
    if harness == "codex":
        env["STUB_API_KEY"] = "dummy"
        provider = {"name": "Stub", "base_url": stub.base_url, "wire_api": "responses",
                    "env_key": "STUB_API_KEY"}  # fmt: skip
        argv = ["codex", "exec", "--skip-git-repo-check", "-c", 'model_provider="stub"']
        for key, value in provider.items():
            argv += ["-c", f"model_providers.stub.{key}={json.dumps(value)}"]
        argv.append("hi")
    run(argv, harness_env(home, env), cwd, timeout=TIMEOUT)


class Recorded(NamedTuple):
    home: Path
    plugin: Path
    config: Path  # the harness's config file
    seen: Path  # what the recorder writes, a JSON line a start
    servers: dict[str, object]  # as the plugin's .mcp.json declares them


def recorded(
    harness: str,
    tmp_path: Path,
    stub: OpenAIStub,
    stdio: dict[str, dict[str, Any]],
    remote: dict[str, tuple[str, dict[str, str]]],
) -> Recorded:
    """A home for `harness` and a plugin whose servers are the recorder, one for each of
    `stdio` (its name the first argument, then the entry's own), and the stub, one for each
    of `remote` (the path, the headers); Vibe's model is the stub."""
    home = make_home(tmp_path)
    config = home / config_of(harness)
    config.parent.mkdir(parents=True, exist_ok=True)
    plugin = make_plugin(tmp_path)
    seen = tmp_path / "seen.jsonl"
    recorder(plugin, seen)
    if harness == "vibe":
        user = VIBE_USER.replace("BASE_URL", stub.base_url)
        config.write_text(user[: user.index("[[mcp_servers]]")])
    servers: dict[str, object] = {
        name: {
            "command": "${CLAUDE_PLUGIN_ROOT}/bin/recorder",
            **extra,
            "args": [name, *extra.get("args", [])],
        }
        for name, extra in stdio.items()
    }
    for name, (path, headers) in remote.items():
        servers[name] = {"type": "http", "url": stub.origin + path, "headers": headers}
    (plugin / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return Recorded(home, plugin, config, seen, servers)


@pytest.mark.parametrize("harness", sorted(EXPANDS))
def test_a_reference_is_carried_only_where_the_harness_expands_it(
    harness: str, tmp_path: Path, proven: Proven
) -> None:
    need(harness)
    with OpenAIStub(reply="ok") as stub:
        home, plugin, config, seen, servers = recorded(harness, tmp_path, stub, REFERENCES, REMOTE)
        done = skilltool(home, tmp_path, "install", "--only", harness)
        out = done.stdout
        for name in servers:
            carried = f"added     {harness:<8} mcp {name} in" in out
            assert carried == (name in EXPANDS[harness]), (name, out)
            if not carried:
                assert f"skipped   {harness}: mcp {name}: its values hold" in out, out
        written_as_is(harness, home, plugin, config)
        start_servers(harness, home, tmp_path, stub)
        requests = stub.snapshot()
    records = [json.loads(line) for line in seen.read_text().splitlines()] if seen.exists() else []
    got = {r["argv"][0]: r for r in records if r["argv"]}
    for name in EXPANDS[harness] & set(REFERENCES):
        assert name in got, (name, records)
        want = EXPECTED[name]
        if isinstance(want, list):
            assert got[name]["argv"][1:] == want, got[name]
        else:
            assert want.items() <= got[name]["env"].items(), got[name]
    for name in EXPANDS[harness] & set(REMOTE):
        path, headers = SENT[name]
        sent = [r for r in requests if r.path.split("?")[0].endswith(path)]
        assert sent, (name, [r.path for r in requests])
        lower = {k.lower(): v for k, v in sent[0].headers.items()}
        assert headers.items() <= lower.items(), (name, sent[0].headers)
    for name in set(REFERENCES) - EXPANDS[harness]:  # written as is: the literal text arrives
        assert name in got, (name, records)
        assert "${" in json.dumps([got[name]["argv"], got[name]["env"]]), got[name]
    for name in set(REMOTE) - EXPANDS[harness]:
        path = REMOTE[name][0].split("$")[0]
        sent = [r for r in requests if path in r.path]
        assert sent, (name, [r.path for r in requests])
        assert "%7B" in sent[0].path or "${" in json.dumps(sent[0].headers), sent[0].path
    carried = ", ".join(sorted(EXPANDS[harness])) or "none"
    proven(
        harness,
        f"a started server gets its ${{VAR}} references expanded: {carried}; the others, "
        "written as they are, reach it literally (skilltool skips them)",
    )


# a bare `$NAME` (no braces), which Claude Code passes on as written: each harness was
# seen to put in the value of a set variable in these fields, and to leave an unset one
# and a `$1` as they are; skilltool carries the server and `validate` notes it
BARE: dict[str, dict[str, Any]] = {
    "bare-arg": {"args": ["x$T_X/y"]},
    "bare-env": {"env": {"T_B": "$T_X"}},
    "bare-left": {"args": ["$T_UNSET", "a$1b"]},
}
BARE_REMOTE = {"bare-url": ("/mcp/bare/$T_X", {}), "bare-head": ("/mcp/bh", {"X-T": "$T_X"})}
BARE_FIELDS = {
    "gemini": {"args", "env", "url", "headers"},
    "copilot": {"args", "env", "url", "headers"},
    "qwen": {"args", "env", "url", "headers"},
    "pi": {"env", "headers"},
    "hermes": set(),
    "codex": set(),
    "vibe": set(),
    "opencode": set(),
    "kilo": set(),
    "kimi": set(),
    "droid": set(),
}


@pytest.mark.parametrize("harness", sorted(BARE_FIELDS))
def test_a_bare_dollar_reaches_the_server_as_validate_says(
    harness: str, tmp_path: Path, proven: Proven
) -> None:
    from skilltool.harnesses import registry

    need(harness)
    assert registry()[harness].bare_fields == BARE_FIELDS[harness]  # what validate notes
    with OpenAIStub(reply="ok") as stub:
        home, _, _, seen, servers = recorded(harness, tmp_path, stub, BARE, BARE_REMOTE)
        done = skilltool(home, tmp_path, "install", "--only", harness)
        for name in servers:
            assert f"added     {harness:<8} mcp {name} in" in done.stdout, done.stdout
        start_servers(harness, home, tmp_path, stub, servers)
        requests = stub.snapshot()
    fields = BARE_FIELDS[harness]
    got = {r["argv"][0]: r for r in map(json.loads, seen.read_text().splitlines()) if r["argv"]}
    put_in = "args" in fields
    assert got["bare-arg"]["argv"][1:] == ["xfrom-env/y" if put_in else "x$T_X/y"], got
    assert got["bare-env"]["env"]["T_B"] == ("from-env" if "env" in fields else "$T_X"), got
    assert got["bare-left"]["argv"][1:] == ["$T_UNSET", "a$1b"], got
    url = [r.path for r in requests if r.path.startswith("/mcp/bare/")]
    assert url and {unquote(p) for p in url} == {
        "/mcp/bare/from-env" if "url" in fields else "/mcp/bare/$T_X"
    }, url
    head = {  # the MCP client's requests (Droid also sends one bare probe of its own)
        {k.lower(): v for k, v in r.headers.items()}.get("x-t")
        for r in requests
        if r.path == "/mcp/bh" and r.method == "POST"
    }
    assert head == {"from-env" if "headers" in fields else "$T_X"}, [
        (r.method, r.path, r.headers) for r in requests if r.path == "/mcp/bh"
    ]
    shown = ", ".join(sorted(fields)) or "none"
    proven(
        harness,
        f"a server's bare $NAME gets the set variable's value in: {shown}; an unset one and "
        "a $1 reach it as written, as in Claude Code (validate notes the rest)",
    )


def written_as_is(harness: str, home: Path, plugin: Path, config: Path) -> None:
    """The servers skilltool skipped, written into the config as the harness would take
    them with their references left in: to see what the harness does with them."""
    from skilltool import entries
    from skilltool.discover import read_plugin
    from skilltool.harnesses import registry
    from skilltool.paths import Home

    there = registry()[harness](Home(home, explicit=True))
    place = there.mcp_place()
    assert place is not None
    text = config.read_text() if config.exists() else None
    for server in read_plugin(plugin, "user").mcp_servers:
        value = there.mcp_value(server)
        if server.name not in EXPANDS[harness] and isinstance(value, dict):
            text = entries.put_entry(text, place.format, place.table, server.name, value).text
    if text is not None:
        config.write_text(text)


# --------------------------------------------------------------------------- Mistral Vibe

VIBE_USER = """# my settings
active_model = "stub"
enable_telemetry = false
enable_update_checks = false

[[providers]]
name = "stub"
api_base = "BASE_URL"
api_key_env_var = "STUB_API_KEY"

[[models]]
name = "stub-model"
provider = "stub"
alias = "stub"

[[mcp_servers]]
name = "mine"  # keep
transport = "stdio"
command = ["RECORDER"]
args = ["mine"]
"""


def vibe_started(home: Path, tmp_path: Path, seen: Path) -> list[str]:
    """The servers a `vibe -p` run against the stub starts, by the recorder's first argument."""
    seen.unlink(missing_ok=True)
    # Vibe keeps each server's tool list here and, once it has it, starts the server only
    # when one of its tools is called: without it, every server starts at the run's start
    shutil.rmtree(home / ".vibe/logs/mcp-descriptors", ignore_errors=True)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    done = run(["vibe", "-p", "hi"], harness_env(home, {"STUB_API_KEY": "dummy"}), work)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = seen.read_text().splitlines() if seen.exists() else []
    return sorted(json.loads(line)["argv"][0] for line in lines)


def test_vibe_starts_the_plugins_server_beside_the_users(tmp_path: Path, proven: Proven) -> None:
    """An entry is one `[[mcp_servers]]` element named by its `name`: added after the
    user's own, started by `vibe -p` (Vibe has no listing), removed exactly."""
    need("vibe")
    home = make_home(tmp_path)
    plugin = make_plugin(tmp_path)
    seen = tmp_path / "seen.jsonl"
    script = recorder(plugin, seen)
    with OpenAIStub(reply="done") as stub:
        server = {"command": "${CLAUDE_PLUGIN_ROOT}/bin/recorder", "args": [SERVER, "x"],
                  "cwd": str(tmp_path)}  # fmt: skip
        remote = {"type": "http", "url": stub.origin + "/mcp/vibe", "headers": {"X-T": "1"}}
        servers = {SERVER: server, "web-http": remote}
        (plugin / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
        user = VIBE_USER.replace("BASE_URL", stub.base_url).replace("RECORDER", str(script))
        config = build_file_tree(home, {".vibe/config.toml": user}) / ".vibe/config.toml"
        assert vibe_started(home, tmp_path, seen) == ["mine"]
        original = config.read_bytes()

        done = skilltool(home, tmp_path, "install", "--only", "vibe")
        assert f"added     vibe     mcp {SERVER} in ~/.vibe/config.toml" in done.stdout, (
            done.stdout + done.stderr
        )
        assert config.read_text().startswith(user)  # the user's bytes first, as they were
        assert vibe_started(home, tmp_path, seen) == ["mine", SERVER]
        ours = next(json.loads(line) for line in seen.read_text().splitlines() if SERVER in line)
        assert ours["argv"] == [SERVER, "x"] and ours["cwd"] == str(tmp_path)
        sent = [r for r in stub.snapshot() if r.path == "/mcp/vibe"]
        assert sent and sent[0].method == "POST", [r.path for r in stub.snapshot()]
        assert {k.lower(): v for k, v in sent[0].headers.items()}["x-t"] == "1"

        again = skilltool(home, tmp_path, "install", "--only", "vibe")
        assert again.stdout.strip().splitlines()[-1] == "2 unchanged", again.stdout
        gone = skilltool(home, tmp_path, "uninstall", "--only", "vibe")
        assert gone.returncode == 0, gone.stdout + gone.stderr
        assert config.read_bytes() == original
        assert vibe_started(home, tmp_path, seen) == ["mine"]
    assert config.read_bytes() == original, "Vibe changed its file on a run"
    proven(
        "vibe",
        "`vibe -p` starts the plugin's stdio server (with its cwd) and reaches its HTTP one "
        "from a [[mcp_servers]] element skilltool added after the user's own; uninstall gives "
        "config.toml back byte for byte",
    )


# --------------------------------------------------------------------------- Kimi Code

KIMI_USER = {"mcpServers": {"mine": {"command": "RECORDER", "args": ["mine"]}}}


def kimi_started(home: Path, tmp_path: Path, seen: Path, stub: OpenAIStub) -> list[str]:
    """The servers a `kimi -p` run against the stub starts, by the recorder's first argument;
    each stdio server's tools reach the model as `mcp__<server>__<tool>`."""
    seen.unlink(missing_ok=True)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    done = run(["kimi", "-p", "hi"], harness_env(home, kimi_model(stub)), work, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = seen.read_text().splitlines() if seen.exists() else []
    return sorted(json.loads(line)["argv"][0] for line in lines)


def test_kimi_starts_the_plugins_server_beside_the_users(tmp_path: Path, proven: Proven) -> None:
    """An entry is one key of `mcpServers` in ~/.kimi-code/mcp.json: added beside the user's
    own, started by `kimi -p`, removed exactly (the file back byte for byte)."""
    need("kimi")
    home = make_home(tmp_path)
    plugin = make_plugin(tmp_path)
    seen = tmp_path / "seen.jsonl"
    script = recorder(plugin, seen)
    with OpenAIStub(reply="done") as stub:
        server = {"command": "${CLAUDE_PLUGIN_ROOT}/bin/recorder", "args": [SERVER, "x"],
                  "cwd": str(tmp_path)}  # fmt: skip
        remote = {"type": "http", "url": stub.origin + "/mcp/kimi", "headers": {"X-T": "1"}}
        (plugin / ".mcp.json").write_text(
            json.dumps({"mcpServers": {SERVER: server, "web-http": remote}})
        )
        user = json.dumps(KIMI_USER, indent=2).replace("RECORDER", str(script)) + "\n"
        config = build_file_tree(home, {".kimi-code/mcp.json": user}) / ".kimi-code/mcp.json"
        assert kimi_started(home, tmp_path, seen, stub) == ["mine"]
        original = config.read_bytes()

        done = skilltool(home, tmp_path, "install", "--only", "kimi")
        assert f"added     kimi     mcp {SERVER} in ~/.kimi-code/mcp.json" in done.stdout, (
            done.stdout + done.stderr
        )
        assert kimi_started(home, tmp_path, seen, stub) == ["mine", SERVER]
        ours = next(json.loads(line) for line in seen.read_text().splitlines() if SERVER in line)
        assert ours["argv"] == [SERVER, "x"] and ours["cwd"] == str(tmp_path)
        sent = [r for r in stub.snapshot() if r.path == "/mcp/kimi"]
        assert sent and sent[0].method == "POST", [r.path for r in stub.snapshot()]
        assert {k.lower(): v for k, v in sent[0].headers.items()}["x-t"] == "1"

        again = skilltool(home, tmp_path, "install", "--only", "kimi")
        assert again.stdout.strip().splitlines()[-1] == "2 unchanged", again.stdout
        gone = skilltool(home, tmp_path, "uninstall", "--only", "kimi")
        assert gone.returncode == 0, gone.stdout + gone.stderr
        assert config.read_bytes() == original
        assert kimi_started(home, tmp_path, seen, stub) == ["mine"]
    assert config.read_bytes() == original, "Kimi Code changed its file on a run"
    proven(
        "kimi",
        "`kimi -p` starts the plugin's stdio server (with its cwd) and reaches its HTTP one "
        "(with its headers) from entries skilltool added to ~/.kimi-code/mcp.json beside the "
        "user's own; uninstall gives the file back byte for byte",
    )
