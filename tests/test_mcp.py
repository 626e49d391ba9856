"""MCP servers: read from a plugin as Claude Code reads them, validated in one line each,
and carried into each harness's own config as entries skilltool owns one by one (SPEC §5,
§10): every other byte of the user's file is kept, and uninstall gives it back exactly."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skilltool.discover import read_plugin
from skilltool.harnesses import NAMES, Verdict, registry, root_of
from skilltool.model import McpServer, Plugin
from skilltool.paths import Home
from tests.helpers import build_file_tree, run, scrub, toml_loads

ECHO = {"command": "${CLAUDE_PLUGIN_ROOT}/bin/echo-srv", "args": ["--stdio"], "env": {"MODE": "t"}}
USER_CODEX = '# my own servers\n[mcp_servers.mine]\ncommand = "/bin/true"  # keep me\n'


def plugin(tmp_path: Path, files: dict[str, str], name: str = "demo") -> Path:
    spec = {".claude-plugin/plugin.json": json.dumps({"name": name}) + "\n", **files}
    return build_file_tree(tmp_path / "plugins" / name, spec)


def servers(root: Path) -> dict[str, McpServer]:
    found = read_plugin(root, "user")
    return {s.name: s for s in found.mcp_servers}


def problems(root: Path) -> list[str]:
    return [str(p) for p in read_plugin(root, "user").problems]


# --------------------------------------------------------------------------- reading


def test_mcp_json_servers_are_read_with_the_plugin_root_expanded(tmp_path: Path) -> None:
    root = plugin(tmp_path, {".mcp.json": json.dumps({"mcpServers": {"echo": ECHO}})})
    echo = servers(root)["echo"]
    assert echo.transport == "stdio"
    assert echo.command == f"{root}/bin/echo-srv"
    assert echo.args == ("--stdio",)
    assert dict(echo.env) == {"MODE": "t"}
    assert echo.path == root / ".mcp.json"


def test_the_bare_shape_claude_code_loads_is_read_too(tmp_path: Path) -> None:
    remote = {"type": "http", "url": "https://example.invalid/mcp", "headers": {"X": "y"}}
    root = plugin(tmp_path, {".mcp.json": json.dumps({"echo": ECHO, "web": remote})})
    found = servers(root)
    assert set(found) == {"echo", "web"}
    assert found["web"].transport == "http"
    assert dict(found["web"].headers) == {"X": "y"}


def test_plugin_json_servers_are_read_beside_mcp_json(tmp_path: Path) -> None:
    manifest = {"name": "demo", "mcpServers": {"inline": {"command": "/bin/inline"}}}
    root = plugin(tmp_path, {".claude-plugin/plugin.json": json.dumps(manifest)})
    assert set(servers(root)) == {"inline"}
    # Claude Code 2.1.332 loads both (seen with `claude --plugin-dir D mcp list`)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"file": ECHO}}))
    assert set(servers(root)) == {"file", "inline"}


def test_plugin_json_paths_and_objects_add_to_mcp_json(tmp_path: Path) -> None:
    manifest = {"name": "demo", "mcpServers": ["./config/a.json", {"o": {"command": "/o"}}]}
    root = plugin(
        tmp_path,
        {
            ".claude-plugin/plugin.json": json.dumps(manifest),
            "config/a.json": json.dumps({"listed": ECHO}),
            ".mcp.json": json.dumps({"mcpServers": {"default": ECHO}}),
        },
    )
    assert list(servers(root)) == ["default", "listed", "o"]


def test_a_path_outside_the_plugin_is_a_problem(tmp_path: Path) -> None:
    manifest = {"name": "demo", "mcpServers": "../elsewhere.json"}
    root = plugin(tmp_path, {".claude-plugin/plugin.json": json.dumps(manifest)})
    assert servers(root) == {}
    [problem] = problems(root)
    assert "plugin.json" in problem and "mcpServers: '../elsewhere.json' leads outside" in problem


def test_a_strict_false_marketplace_entry_carries_its_own_servers(tmp_path: Path) -> None:
    market = {
        "name": "shop",
        "owner": {"name": "me"},
        "plugins": [
            {
                "name": "tool",
                "source": "./tool",
                "strict": False,
                "mcpServers": {"shop-srv": {"command": "${CLAUDE_PLUGIN_ROOT}/run"}},
            }
        ],
    }
    build_file_tree(
        tmp_path / "shop",
        {".claude-plugin/marketplace.json": json.dumps(market), "tool/README.md": "tool\n"},
    )
    result = run("plugins", "status", "--json", env={"SKILLTOOL_PLUGINS": str(tmp_path / "shop")})
    [found] = json.loads(result.stdout)["plugins"]
    [server] = found["mcp_servers"]
    assert server["name"] == "shop-srv"
    assert server["command"] == f"{tmp_path / 'shop/tool'}/run"


@pytest.mark.parametrize(
    ("entry", "field", "words"),
    [
        ({"args": ["x"]}, "mcpServers.broken.command", "missing: a stdio server needs"),
        (
            {"type": "websocket", "url": "ws://x"},
            "mcpServers.broken.type",
            "'websocket' is not a transport",
        ),
        ({"type": "http"}, "mcpServers.broken.url", "needs an http:// or https:// url"),
        ({"url": "https://x.invalid"}, "mcpServers.broken.type", 'set "http" or "sse"'),
        ({"command": "x", "args": "--flag"}, "mcpServers.broken.args", "a list of strings"),
        ({"command": "x", "env": {"A": 1}}, "mcpServers.broken.env", "an object of strings"),
    ],
)
def test_a_bad_server_is_one_line_naming_file_line_and_field(
    tmp_path: Path, entry: dict[str, Any], field: str, words: str
) -> None:
    text = '{\n  "mcpServers": {\n    "good": {"command": "/bin/true"},\n'
    text += f'    "broken": {json.dumps(entry)}\n  }}\n}}\n'
    root = plugin(tmp_path, {".mcp.json": text})
    assert set(servers(root)) == {"good"}  # the rest of the file is still read
    [problem] = problems(root)
    assert problem.startswith(f"{root / '.mcp.json'}:4: {field}: ")
    assert words in problem


def test_a_key_no_harness_gets_is_a_warning_and_the_server_is_still_carried(
    tmp_path: Path,
) -> None:
    # the shape of a real plugin: a remote server whose auth headers come from a helper command
    server = {"type": "http", "url": "https://mcp.example.invalid/mcp",
              "headersHelper": 'node "${CLAUDE_PLUGIN_ROOT}/scripts/headers.mjs"'}  # fmt: skip
    root = plugin(tmp_path, {".mcp.json": json.dumps({"mcpServers": {"deals": server}})})
    assert servers(root)["deals"].url == "https://mcp.example.invalid/mcp"
    [warning] = read_plugin(root, "user").problems
    assert warning.severity == "warning"
    assert str(warning).startswith(f"{root / '.mcp.json'}:1: mcpServers.deals.headersHelper: ")
    assert "not carried to other harnesses" in str(warning)


def test_a_name_that_is_not_a_safe_key_is_refused(tmp_path: Path) -> None:
    root = plugin(tmp_path, {".mcp.json": json.dumps({"mcpServers": {"a.b c": ECHO}})})
    assert servers(root) == {}
    [problem] = problems(root)
    assert "mcpServers.a.b c: 'a.b c' is not a server name" in problem


def test_validate_reports_a_bad_server_and_exits_1(tmp_path: Path) -> None:
    root = plugin(tmp_path, {".mcp.json": '{"mcpServers": {"x": {"args": []}}}\n'})
    result = run("plugins", "validate", root)
    assert result.code == 1
    assert f"{root / '.mcp.json'}:1: mcpServers.x.command: missing" in result.stdout


def test_validate_says_what_each_harness_does_with_each_server_in_installs_words(
    tmp_path: Path, home: Path
) -> None:
    """A server some harness skips gets a verdict line naming it, each reason in the words
    install skips it with; one every harness carries gets no line; --json lists them all."""
    sse = {"type": "sse", "url": "https://h.invalid/sse"}
    keyed = {**ECHO, "args": ["--key", "${API_KEY:-none}"]}
    spec = {"plain": ECHO, "events": sse, "keyed": keyed}
    root = plugin(tmp_path, {".mcp.json": json.dumps({"mcpServers": spec})})
    result = run("plugins", "validate", root)
    assert result.code == 0, result.stdout
    assert result.lines[-1] == (
        "checked 1 plugin(s), 0 valid skill(s), 0 valid agent(s), 3 valid MCP server(s): "
        "0 error(s), 0 warning(s)"
    )
    said = dict(line.split(": verdict: ") for line in result.lines[:-1])
    file = root / ".mcp.json"
    assert sorted(said) == [f"{file}: mcp events", f"{file}: mcp keyed"]
    not_sse = "runs stdio and streamable HTTP servers, not SSE"
    amp = "0.0.1790142911-g7618fb"
    assert said[f"{file}: mcp events"] == (
        "OpenCode, Hermes, Claude Code, Gemini CLI, Copilot CLI, Kilo Code CLI, Qwen Code, "
        f"Kimi Code, Factory Droid, Cline CLI, Auggie, Qoder CLI and OpenHands load it; Codex skips it: Codex {not_sse}; pi skips it: pi {not_sse}; "
        f"Mistral Vibe skips it: Mistral Vibe {not_sse}; Continue CLI skips it: Continue CLI "
        f"1.5.47 is not proven to reach a remote server; Amp skips it: Amp {amp} is not proven "
        "to reach a remote (sse) server: add it yourself with 'amp mcp add'"
    )
    assert said[f"{file}: mcp keyed"].startswith(
        "Claude Code, Gemini CLI, Copilot CLI and Qoder CLI load it;"
    )
    data = json.loads(run("plugins", "validate", "--json", root).stdout)
    verdicts = {v["name"]: v for v in data["verdicts"] if v["kind"] == "server"}
    assert verdicts["plain"]["summary"] == "loads everywhere"
    assert not verdicts["events"]["harnesses"]["codex"]["loads"]
    for harness in NAMES:  # every harness present: install skips each in the same words
        root_of(harness, Home.resolve(None)).mkdir(parents=True, exist_ok=True)
    continue_config = root_of("continue", Home.resolve(None)) / "config.yaml"
    continue_config.write_text("name: Local\nversion: 1.0.0\nschema: v1\n")  # the user's own
    out = run("plugins", "install", env={"SKILLTOOL_PLUGINS": str(tmp_path / "plugins")}).stdout
    for name in ("events", "keyed"):
        for harness, entry in verdicts[name]["harnesses"].items():
            skipped = f"skipped   {harness}: mcp {name}: {entry['note']}"
            assert (skipped in out) == (not entry["loads"]), (harness, name, out)


def test_validate_notes_a_bare_dollar_the_harnesses_that_put_in_its_value(tmp_path: Path) -> None:
    """Claude Code passes `$NAME` on as written; Gemini, Copilot and Qwen put in a set
    variable's value in args and env, pi in env (tests/conformance/test_mcp.py): carried
    everywhere, with a line that says so. A `$1` is left alone by all."""
    priced = {**ECHO, "args": ["--price", "$AMOUNT", "a$1b"], "env": {"PASS": "pa$USER"}}
    root = plugin(tmp_path, {".mcp.json": json.dumps({"mcpServers": {"priced": priced}})})
    result = run("plugins", "validate", root)
    assert result.code == 0, result.stdout
    file = root / ".mcp.json"
    note = "when the variable is set (Claude Code passes it on as written)"
    assert result.lines[:-1] == [
        f"{file}: mcp priced: verdict: loads everywhere; pi puts in the value of $USER in env "
        f"{note}; Gemini CLI, Copilot CLI, Qwen Code and Qoder CLI put in the value of $AMOUNT in args, "
        f"$USER in env {note}"
    ]


def test_a_json_error_in_mcp_json_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    root = plugin(tmp_path, {".mcp.json": '{"mcpServers": {\n  "x": {,}\n}}\n'})
    [problem] = problems(root)
    assert problem.startswith(f"{root / '.mcp.json'}:2: is not valid JSON")


# --------------------------------------------------------------------------- values


def sample_servers(root: Path) -> list[McpServer]:
    return [
        McpServer("local-srv", root / ".mcp.json", "stdio", "/opt/srv", ("-v",), {"K": "v"}),
        McpServer("in-dir", root / ".mcp.json", "stdio", "/opt/srv", cwd="/srv"),
        McpServer("web-http", root / ".mcp.json", "http", url="https://h.invalid/mcp"),
        McpServer(
            "web-sse",
            root / ".mcp.json",
            "sse",
            url="https://h.invalid/sse",
            headers={"Authorization": "Bearer t"},
        ),
        McpServer("with-env", root / ".mcp.json", "stdio", "${HOME}/bin/srv"),
        McpServer("env-ref", root / ".mcp.json", "stdio", "/opt/srv", env={"TOKEN": "${TOKEN}"}),
        McpServer(
            "env-default", root / ".mcp.json", "stdio", "/opt/srv", env={"MODE": "${MODE:-fast}"}
        ),
        McpServer(
            "header-ref",
            root / ".mcp.json",
            "http",
            url="https://h.invalid/mcp",
            headers={"X-Token": "${TOKEN}", "Authorization": "Bearer ${TOKEN}"},
        ),
    ]


def values(name: str, home: Path) -> dict[str, object]:
    harness = registry()[name](Home(home, explicit=True))
    place = harness.mcp_place_of(Plugin("demo", home / "plugins/demo", "user"))
    found: dict[str, object] = {
        "place": None
        if place is None
        else [str(place.path.relative_to(home)), place.format, list(place.table)],
    }
    manifest = harness.mcp_manifest(place.path) if place is not None else None
    if manifest is not None:  # Claude Code's generated plugin: its plugin.json
        found["manifest"] = str(manifest.relative_to(home))
    for server in sample_servers(home):
        value = harness.mcp_refusal(server) or harness.mcp_value(server)
        found[server.name] = f"skipped: {value.why}" if isinstance(value, Verdict) else value
    return found


@pytest.mark.parametrize("name", NAMES)
def test_each_harness_gets_its_own_shape(name: str, home: Path, snapshot: Any) -> None:
    assert values(name, home) == snapshot


def test_gemini_entries_hold_only_keys_of_its_strict_schema(home: Path) -> None:
    allowed = {"command", "args", "env", "cwd", "url", "httpUrl", "headers"}
    for name in ("gemini", "qwen"):
        for value in values(name, home).values():
            if isinstance(value, dict):
                assert set(value) <= allowed


# --------------------------------------------------------------------------- ownership


@pytest.fixture
def demo(tmp_path: Path, home: Path) -> dict[str, str]:
    """A plugin with one stdio server on the search path; the env that selects it."""
    plugin(tmp_path, {".mcp.json": json.dumps({"mcpServers": {"echo-srv": ECHO}}, indent=2)})
    return {"SKILLTOOL_PLUGINS": str(tmp_path / "plugins")}


def install(env: dict[str, str], *extra: str) -> Any:
    return run("plugins", "install", "--only", "codex", *extra, env=env)


def codex_config(home: Path) -> Path:
    return home / ".codex/config.toml"


def test_install_adds_the_entry_and_keeps_every_user_byte(
    demo: dict[str, str], home: Path, tmp_path: Path
) -> None:
    build_file_tree(home, {".codex/config.toml": USER_CODEX})
    result = install(demo)
    assert result.code == 0, result.stdout + result.stderr
    assert "added     codex    mcp echo-srv in ~/.codex/config.toml" in result.lines
    text = codex_config(home).read_text()
    assert text.startswith(
        USER_CODEX
    )  # the user's comment, entry and spacing are first, as they were
    servers_there = toml_loads(text)["mcp_servers"]
    assert servers_there["mine"] == {"command": "/bin/true"}
    assert servers_there["echo-srv"]["command"] == f"{tmp_path}/plugins/demo/bin/echo-srv"


def test_uninstall_gives_the_users_file_back_byte_for_byte(
    demo: dict[str, str], home: Path
) -> None:
    original = USER_CODEX.replace("\n", "\r\n").encode() + "# ünïcødé ✓\r\n".encode()
    build_file_tree(home, {".codex/config.toml": original})
    assert install(demo).code == 0
    assert codex_config(home).read_bytes() != original
    result = run("plugins", "uninstall", "--only", "codex", env=demo)
    assert "removed   codex    mcp echo-srv in ~/.codex/config.toml" in result.lines
    assert codex_config(home).read_bytes() == original


def test_a_second_install_writes_nothing(demo: dict[str, str], home: Path) -> None:
    build_file_tree(home, {".codex/config.toml": USER_CODEX})
    install(demo)
    before = os.stat(codex_config(home))
    os.utime(codex_config(home), ns=(before.st_atime_ns, before.st_mtime_ns - 10**9))
    stamped = os.stat(codex_config(home)).st_mtime_ns
    result = install(demo)
    assert result.decided == []
    assert result.lines[-1] == "1 unchanged"
    assert os.stat(codex_config(home)).st_mtime_ns == stamped


def test_a_file_skilltool_created_is_removed_when_only_its_entries_were_there(
    demo: dict[str, str], home: Path
) -> None:
    (home / ".codex").mkdir()
    install(demo)
    assert "echo-srv" in toml_loads(codex_config(home).read_text())["mcp_servers"]
    run("plugins", "uninstall", "--only", "codex", env=demo)
    assert not codex_config(home).exists()
    assert (home / ".codex").is_dir()  # the harness's own directory is never removed


def test_a_missing_harness_directory_gets_nothing(demo: dict[str, str], home: Path) -> None:
    result = install(demo)
    assert "skipped   codex: ~/.codex does not exist (the harness is not set up here)" in (
        result.lines
    )
    assert not (home / ".codex").exists()


@pytest.mark.parametrize(
    "broken",
    [b'[mcp_servers.mine\ncommand = "/bin/true"\n',
     b'[mcp_servers]\n"k" = 1\nk = 2\n'],  # a key defined twice: tomlkit gives no position
)  # fmt: skip
def test_a_file_that_does_not_parse_is_left_alone_and_the_run_goes_on(
    demo: dict[str, str], home: Path, broken: bytes
) -> None:
    build_file_tree(home, {".codex/config.toml": broken, ".gemini/settings.json": "{}\n"})
    result = run("plugins", "install", env=demo)
    assert codex_config(home).read_bytes() == broken  # never taken for empty
    [line] = [line for line in result.lines if "config.toml" in line]
    assert line.startswith("left      ~/.codex/config.toml: mcp echo-srv: does not parse")
    assert "echo-srv" in json.loads((home / ".gemini/settings.json").read_text())["mcpServers"]
    assert result.code == 0


def test_an_entry_of_the_same_name_skilltool_did_not_write_is_foreign(
    demo: dict[str, str], home: Path
) -> None:
    theirs = '[mcp_servers.echo-srv]\ncommand = "/usr/bin/their-own"\n'
    build_file_tree(home, {".codex/config.toml": theirs})
    result = install(demo, "--force")  # --force never overrides the foreign-entry rule
    assert any(
        line.startswith("left      ~/.codex/config.toml: mcp echo-srv: an entry of that name")
        for line in result.lines
    )
    assert codex_config(home).read_text() == theirs
    run("plugins", "uninstall", env=demo)
    assert codex_config(home).read_text() == theirs


def edit_ours(home: Path) -> str:
    text = codex_config(home).read_text().replace('"--stdio"', '"--stdio", "--verbose"')
    codex_config(home).write_text(text)
    return text


def test_an_edited_entry_is_left_alone_without_force(demo: dict[str, str], home: Path) -> None:
    (home / ".codex").mkdir()
    install(demo)
    edited = edit_ours(home)
    demo_root = Path(demo["SKILLTOOL_PLUGINS"]) / "demo"
    (demo_root / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"echo-srv": {**ECHO, "args": []}}})
    )
    result = install(demo)
    assert any(
        "mcp echo-srv: edited since skilltool wrote it (--force" in line for line in result.lines
    )
    assert codex_config(home).read_text() == edited
    run("plugins", "uninstall", "--only", "codex", env=demo)
    assert codex_config(home).read_text() == edited  # uninstall keeps a hand edit too


def test_force_rewrites_an_edited_entry(demo: dict[str, str], home: Path) -> None:
    (home / ".codex").mkdir()
    install(demo)
    edit_ours(home)
    result = install(demo, "--force")
    assert (
        "updated   codex    mcp echo-srv in ~/.codex/config.toml "
        "(it was edited by hand; --force replaced it)"
    ) in result.lines
    assert toml_loads(codex_config(home).read_text())["mcp_servers"]["echo-srv"]["args"] == [
        "--stdio"
    ]


def test_an_unedited_entry_follows_its_server(demo: dict[str, str], home: Path) -> None:
    (home / ".codex").mkdir()
    install(demo)
    demo_root = Path(demo["SKILLTOOL_PLUGINS"]) / "demo"
    (demo_root / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"echo-srv": {**ECHO, "args": ["-q"]}}})
    )
    result = install(demo)
    assert "updated   codex    mcp echo-srv in ~/.codex/config.toml" in result.lines
    assert toml_loads(codex_config(home).read_text())["mcp_servers"]["echo-srv"]["args"] == ["-q"]


def test_an_entry_whose_server_is_gone_is_removed(demo: dict[str, str], home: Path) -> None:
    build_file_tree(home, {".codex/config.toml": USER_CODEX})
    install(demo)
    (Path(demo["SKILLTOOL_PLUGINS"]) / "demo/.mcp.json").unlink()
    result = install(demo)
    assert "removed   codex    mcp echo-srv in ~/.codex/config.toml (its server is gone)" in (
        result.lines
    )
    assert codex_config(home).read_text() == USER_CODEX


def test_an_entry_is_kept_when_its_plugin_folder_was_not_read(home: Path, tmp_path: Path) -> None:
    system = tmp_path / "system/skilltool/plugins"  # an entry of XDG_DATA_DIRS (conftest)
    plugin(system.parent.parent.parent, {".mcp.json": json.dumps({"mcpServers": {"s": ECHO}})})
    os.rename(tmp_path / "plugins", system.parent.parent.parent / "system-new")
    system.parent.mkdir(parents=True)
    os.rename(system.parent.parent.parent / "system-new", system)
    (home / ".codex").mkdir()
    assert "added     codex    mcp s in ~/.codex/config.toml" in install({}).lines
    written = codex_config(home).read_text()
    os.rename(tmp_path / "system", tmp_path / "unmounted")  # missing: proves nothing gone
    result = install({})
    assert codex_config(home).read_text() == written
    assert any("mcp s: its server's file" in line and "kept" in line for line in result.lines)


def test_a_symlinked_config_is_edited_through_the_link(
    demo: dict[str, str], home: Path, tmp_path: Path
) -> None:
    real = build_file_tree(tmp_path / "dotfiles", {"config.toml": USER_CODEX}) / "config.toml"
    build_file_tree(home, {".codex/config.toml": real})
    result = install(demo)
    assert "added     codex    mcp echo-srv in ~/.codex/config.toml" in result.lines
    assert "echo-srv" in toml_loads(real.read_text())["mcp_servers"]
    assert codex_config(home).is_symlink()
    run("plugins", "uninstall", "--only", "codex", env=demo)
    assert real.read_text() == USER_CODEX


def test_dry_run_shows_the_edit_as_a_diff_and_writes_nothing(
    demo: dict[str, str], home: Path, tmp_path: Path
) -> None:
    build_file_tree(home, {".codex/config.toml": USER_CODEX})
    result = install(demo, "--dry-run")
    assert codex_config(home).read_text() == USER_CODEX
    text = scrub(result.stdout, tmp_path)
    assert "--- ~/.codex/config.toml (on disk)" in text
    assert "+++ ~/.codex/config.toml (would be written)" in text
    assert "+[mcp_servers.echo-srv]" in text
    assert "dry-run: added     codex    mcp echo-srv in ~/.codex/config.toml" in text


def test_status_shows_each_servers_entry_per_harness(demo: dict[str, str], home: Path) -> None:
    build_file_tree(home, {".codex/config.toml": "", ".config/opencode/opencode.json": "{ bad"})
    install(demo)
    short = run("plugins", "status", env=demo).lines
    # the config file that does not parse needs the user: said under the plugin's one line
    assert any(line.startswith("  left      ~/.config/opencode/opencode.json: ") for line in short)
    assert not any(line.startswith("  mcp") for line in short)
    result = run("plugins", "status", "-v", env=demo)
    assert "  mcp     echo-srv                 " in result.stdout
    assert "    codex     current         ~/.codex/config.toml" in result.lines
    unparsable = [line for line in result.lines if line.startswith("    opencode  unparsable")]
    assert unparsable and "does not parse" in unparsable[0]
    data = json.loads(run("plugins", "status", "--json", env=demo).stdout)
    [server] = data["plugins"][0]["mcp_servers"]
    states = {e["harness"]: e["state"] for e in server["entries"]}
    assert states["codex"] == "current" and states["opencode"] == "unparsable"
    assert states["claude"] == "harness absent"


def test_status_says_an_absent_harness_once_for_all_of_a_plugins_servers(
    tmp_path: Path, home: Path
) -> None:
    many = {f"srv-{n}": {"command": "/srv"} for n in range(5)}
    plugin(tmp_path, {".mcp.json": json.dumps({"mcpServers": many})})
    (home / ".codex").mkdir()
    env = {"SKILLTOOL_PLUGINS": str(tmp_path / "plugins")}
    lines = run("plugins", "status", "-v", env=env).lines
    gemini = [line for line in lines if "gemini" in line]  # once, at the top: for every plugin
    assert len(gemini) == 1 and gemini[0].startswith("absent    ")
    assert "gemini" in gemini[0].split(": ", 1)[1].split(", ")
    assert lines.count("    codex     missing         ~/.codex/config.toml") == 5
    data = json.loads(run("plugins", "status", "--json", env=env).stdout)
    for server in data["plugins"][0]["mcp_servers"]:  # the JSON keeps every entry
        states = {e["harness"]: e["state"] for e in server["entries"]}
        assert states["gemini"] == "harness absent" and states["codex"] == "missing"


def test_the_ledger_is_written_before_the_entry(demo: dict[str, str], home: Path) -> None:
    """A crash between the two leaves a record of an entry not there (harmless), never an
    entry of ours unrecorded (which would be foreign for ever)."""
    from skilltool import apply as applying
    from skilltool import ledger

    (home / ".codex").mkdir()
    calls: list[str] = []
    real_write = applying.write_file

    def spy(path: Path, data: bytes, mode: int, *, replace: bool) -> None:
        calls.append(path.name)
        real_write(path, data, mode, replace=replace)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(applying, "write_file", spy)
        patch.setattr(ledger, "write_file", spy)
        install(demo)
    assert calls.index("mcp-entries.json") < calls.index("config.toml")
    ledger = json.loads((home / ".local/state/skilltool/mcp-entries.json").read_text())
    assert [e["name"] for e in ledger["entries"]] == ["echo-srv"]
    # written first as pending, which proves nothing; marked done once the entry is there
    assert calls[calls.index("config.toml") + 1 :] == ["mcp-entries.json"]
    assert ledger["pending"] == []


LEDGER = ".local/state/skilltool/mcp-entries.json"


def failing_write(name: str) -> Any:
    """apply's atomic write, failing for the file called `name` as a full disk would."""
    from skilltool import apply as applying

    real_write = applying.write_file

    def write(path: Path, data: bytes, mode: int, *, replace: bool) -> None:
        if path.name == name:
            raise OSError(28, "No space left on device")
        real_write(path, data, mode, replace=replace)

    return write


def test_an_update_that_failed_leaves_the_entry_ours(demo: dict[str, str], home: Path) -> None:
    from skilltool import apply as applying

    build_file_tree(home, {".codex/config.toml": USER_CODEX})
    install(demo)
    written = codex_config(home).read_text()
    demo_root = Path(demo["SKILLTOOL_PLUGINS"]) / "demo"
    (demo_root / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"echo-srv": {**ECHO, "args": ["-q"]}}})
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(applying, "write_file", failing_write("config.toml"))
        assert install(demo).code == 1
    assert codex_config(home).read_text() == written
    assert "updated   codex    mcp echo-srv in ~/.codex/config.toml" in install(demo).lines
    run("plugins", "uninstall", "--only", "codex", env=demo)
    assert codex_config(home).read_text() == USER_CODEX


def test_a_removal_that_failed_leaves_the_entry_ours(demo: dict[str, str], home: Path) -> None:
    from skilltool import apply as applying

    build_file_tree(home, {".codex/config.toml": USER_CODEX})
    install(demo)
    written = codex_config(home).read_text()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(applying, "write_file", failing_write("config.toml"))
        assert run("plugins", "uninstall", "--only", "codex", env=demo).code == 1
    assert codex_config(home).read_text() == written
    result = run("plugins", "uninstall", "--only", "codex", env=demo)
    assert "removed   codex    mcp echo-srv in ~/.codex/config.toml" in result.lines
    assert codex_config(home).read_text() == USER_CODEX


@pytest.mark.parametrize(
    ("damaged", "said"),
    [
        (b'{"version": 1, "entries": [', "does not parse as JSON (line 1: "),
        (b"[]\n", "is not a JSON object"),
        (b'{"version": 1, "entries": [{"harness": "codex"}]}\n', "entries[0].file: missing"),
    ],
)
def test_a_ledger_that_cannot_be_read_is_named_and_left_as_it_is(
    demo: dict[str, str], home: Path, damaged: bytes, said: str
) -> None:
    ledger = build_file_tree(home, {LEDGER: damaged}) / LEDGER
    build_file_tree(home, {".codex/config.toml": USER_CODEX})
    result = install(demo)
    assert result.code == 0
    [line] = [line for line in result.stderr.splitlines() if "mcp-entries.json" in line]
    assert line.startswith(f"warning   {ledger}: {said}"), line
    assert "no MCP entry is taken for skilltool's, written or removed" in line
    assert "fix it, or move it away" in line
    assert any("mcp echo-srv: not written while the ledger" in x for x in result.lines)
    assert codex_config(home).read_text() == USER_CODEX
    assert ledger.read_bytes() == damaged
    run("plugins", "uninstall", "--only", "codex", "--force", env=demo)
    assert ledger.read_bytes() == damaged
    ledger.unlink()  # moved away: a new one is started, and what it held is the user's
    assert "added     codex    mcp echo-srv in ~/.codex/config.toml" in install(demo).lines


def test_a_ledger_of_a_newer_skilltool_is_refused_and_left_as_it_is(
    demo: dict[str, str], home: Path
) -> None:
    from tests.helpers import skill_md

    demo_root = Path(demo["SKILLTOOL_PLUGINS"]) / "demo"
    build_file_tree(demo_root, {"skills/notes/SKILL.md": skill_md("notes")})
    build_file_tree(home, {".codex/config.toml": USER_CODEX})
    install(demo)
    written = codex_config(home).read_text()
    ledger = home / LEDGER
    newer = ledger.read_text().replace('"version": 1', '"version": 2')
    ledger.write_text(newer)
    (demo_root / ".mcp.json").unlink()  # its entry would go: not while the ledger is refused
    result = run("plugins", "install", env=demo)
    assert result.code == 1
    [line] = [line for line in result.stderr.splitlines() if "mcp-entries.json" in line]
    assert line.startswith(f"error     {ledger}: version: 2 is newer than this skilltool")
    assert line.endswith("upgrade skilltool")
    assert ledger.read_text() == newer
    assert codex_config(home).read_text() == written
    assert (home / ".agents/skills/notes").is_symlink()  # skills are still linked
    result = run("plugins", "uninstall", env=demo)
    assert result.code == 1
    assert not (home / ".agents/skills/notes").exists()
    assert ledger.read_text() == newer
    assert codex_config(home).read_text() == written


STRAY = '# my own\n[mcp_servers.x]\ncommand = "/bin/mine"\n'


def users_part(text: str) -> dict[str, Any]:
    """A config file's values without the plugin's own entry (nor the table made for it)."""
    data = json.loads(text) if text.startswith("{") else toml_loads(text)
    for table in ("mcp_servers", "mcpServers"):
        data.get(table, {}).pop("echo-srv", None)
        if data.get(table) == {}:
            del data[table]
    return data


@pytest.mark.parametrize(
    ("harness", "where", "fmt", "table", "text"),
    [
        ("codex", "home/.bashrc", "toml", ["mcp_servers"], STRAY),
        ("codex", "etc/something.toml", "toml", ["mcp_servers"], STRAY),
        ("codex", "home/.codex/config.toml", "toml", ["profiles"], '[profiles.x]\nm = "y"\n'),
        ("codex", "home/.codex/config.toml", "toml", ["profiles"], STRAY),
        ("codex", "home/.codex/config.toml", "json", ["mcp_servers"], STRAY),
        ("gemini", "home/.codex/config.toml", "toml", ["mcp_servers"], STRAY),
        ("codex", "home/.gemini/settings.json", "json", ["mcpServers"], '{"mcpServers": {"x": {}}}'),
        ("claude", "home/.claude/settings.json", "json", ["mcpServers"], '{"mcpServers": {"x": {}}}'),
        ("claude", "home/.claude/skills/x.mcp/../../.mcp.json", "json", ["mcpServers"], '{"mcpServers": {"x": {}}}'),
    ],
)  # fmt: skip
def test_a_ledger_record_naming_a_file_not_a_harness_mcp_config_is_never_acted_on(
    demo: dict[str, str],
    home: Path,
    tmp_path: Path,
    harness: str,
    where: str,
    fmt: str,
    table: list[str],
    text: str,
) -> None:
    for directory in (".codex", ".claude", ".gemini"):
        (home / directory).mkdir(exist_ok=True)
    run("plugins", "install", env=demo)
    target = tmp_path / where
    build_file_tree(tmp_path, {os.path.normpath(where): text})
    before = os.path.realpath(target)
    ledger = home / LEDGER
    data = json.loads(ledger.read_text())
    record = {"harness": harness, "file": str(target), "format": fmt, "table": table}
    record.update(name="x", digest="sha256:0", source=str(tmp_path / "gone/.mcp.json"))
    data["entries"].append(record)
    ledger.write_text(json.dumps(data))
    for verb in ("uninstall", "install"):
        result = run("plugins", verb, "--force", env=demo)
        assert users_part(Path(before).read_text()) == users_part(text), verb  # never edited
        [line] = [line for line in result.stderr.splitlines() if str(target) in line]
        said = f"warning   {ledger}: entries: the record of {harness}'s MCP entry 'x' names "
        assert line.startswith(said + str(target)), line
    run("plugins", "uninstall", env=demo)
    assert Path(before).read_text() == text  # byte for byte, once ours is gone
    assert record in json.loads(ledger.read_text())["entries"]  # kept: it may be right elsewhere


def test_a_ledger_record_of_a_harness_skilltool_does_not_know_is_never_acted_on(
    demo: dict[str, str], home: Path
) -> None:
    (home / ".codex").mkdir()
    install(demo)
    bashrc = build_file_tree(home, {".bashrc": STRAY}) / ".bashrc"
    ledger = home / LEDGER
    data = json.loads(ledger.read_text())
    record = {"harness": "evil", "file": str(bashrc), "format": "toml", "table": ["mcp_servers"]}
    record.update(name="x", digest="sha256:0", source=str(home / "gone/.mcp.json"))
    data["entries"].append(record)
    ledger.write_text(json.dumps(data))
    result = run("plugins", "uninstall", "--force", env=demo)
    said = f"warning   {ledger}: entries: the record of evil's MCP entry 'x' names a harness"
    assert any(line.startswith(said) for line in result.stderr.splitlines()), result.stderr
    assert bashrc.read_text() == STRAY
    assert record in json.loads(ledger.read_text())["entries"]


def test_diff_shows_the_edit_of_an_install_as_it_is_made(demo: dict[str, str], home: Path) -> None:
    build_file_tree(home, {".codex/config.toml": USER_CODEX})
    result = install(demo, "--diff")
    assert "+[mcp_servers.echo-srv]" in result.lines
    assert "echo-srv" in toml_loads(codex_config(home).read_text())["mcp_servers"]


# --------------------------------------------------------------------------- properties

_words = st.text(st.sampled_from("abcdé✓ _-"), min_size=1, max_size=8)
_keys = st.text(st.sampled_from("abcxyz_-"), min_size=1, max_size=6).filter(
    lambda k: k not in ("echo-srv",)
)


@st.composite
def codex_configs(draw: st.DrawFn) -> bytes:
    """A user's config.toml: comments, odd spacing, unicode, other tables and servers,
    perhaps CRLF and no final newline."""
    lines = [f"# {draw(_words)}"] if draw(st.booleans()) else []
    if draw(st.booleans()):
        lines += [f"model  =   {json.dumps(draw(_words), ensure_ascii=False)}", ""]
    for key in draw(st.lists(_keys, max_size=3, unique=True)):
        comment = f"  # {draw(_words)}" if draw(st.booleans()) else ""
        lines += [f"[mcp_servers.{key}]", f'command = "/bin/{key}"{comment}', ""]
    if draw(st.booleans()):
        lines += ["[profiles.x]", f"model = {json.dumps(draw(_words), ensure_ascii=False)}"]
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = eol.join(lines) + (eol if draw(st.booleans()) else "")
    return text.encode("utf-8")


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(original=codex_configs())
def test_install_then_uninstall_gives_any_user_config_back(
    original: bytes, demo: dict[str, str], home: Path
) -> None:
    config = codex_config(home)
    config.parent.mkdir(exist_ok=True)
    config.write_bytes(original)
    assert install(demo).code == 0
    written = config.read_bytes()
    pairs = enumerate(zip(original, written, strict=False))
    same = next((i for i, (a, b) in pairs if a != b), len(original))
    # our entry is one block put in: every byte of the user's before it and after it, kept
    assert written.endswith(original[same:]) and len(written) > len(original)
    assert install(demo).decided == []  # a second install writes nothing
    assert run("plugins", "uninstall", "--only", "codex", env=demo).code == 0
    assert config.read_bytes() == original
    config.unlink()


def test_a_plugin_without_servers_leaves_config_files_unread(tmp_path: Path, home: Path) -> None:
    plugin(tmp_path, {"agents/helper.md": "---\nname: helper\ndescription: Helps.\n---\nHi.\n"})
    build_file_tree(home, {".codex/config.toml": "[broken\n"})
    result = run("plugins", "install", env={"SKILLTOOL_PLUGINS": str(tmp_path / "plugins")})
    assert not any("~/.codex/config.toml" in line for line in result.lines), result.stdout


def test_opencode_gets_env_references_in_its_own_form_and_refuses_a_default(home: Path) -> None:
    harness = registry()["opencode"](Home(home, explicit=True))
    plain = McpServer("s", home / ".mcp.json", "stdio", "/srv", ("${TOKEN}",))
    assert harness.mcp_refusal(plain) is None
    assert harness.mcp_value(plain) == {"type": "local", "command": ["/srv", "{env:TOKEN}"]}
    defaulted = plain._replace(args=("${TOKEN:-none}",))
    refusal = harness.mcp_refusal(defaulted)
    assert refusal is not None and "${TOKEN:-none}" in refusal.why
    # Codex expands none: a reference in args is skipped there
    codex = registry()["codex"](Home(home, explicit=True))
    assert codex.mcp_refusal(plain) is not None


def test_a_reference_is_skipped_only_where_the_harness_does_not_expand_it(
    tmp_path: Path, home: Path
) -> None:
    """As proven in each binary (tests/conformance/test_mcp.py): the skip line names the
    reference, the field, and what the harness was seen to do."""
    server = {"command": "/srv", "args": ["${TOKEN}"], "env": {"MODE": "${MODE:-fast}"}}
    plugin(tmp_path, {".mcp.json": json.dumps({"mcpServers": {"s": server}})})
    for folder in (".gemini", ".qwen", ".pi/agent"):
        (home / folder).mkdir(parents=True)
    env = {"SKILLTOOL_PLUGINS": str(tmp_path / "plugins")}
    result = run("plugins", "install", env=env)
    assert "added     gemini   mcp s in ~/.gemini/settings.json" in result.lines
    assert (
        "skipped   qwen: mcp s: its values hold ${MODE:-fast} in env, which Qwen Code would "
        "pass on as written (Qwen Code 0.24.4 expands ${VAR}, but leaves ${VAR:-default} as "
        "it is); write the value itself in the plugin's server"
    ) in result.lines
    assert any(
        line.startswith(
            "skipped   pi: mcp s: its values hold ${TOKEN} in args, ${MODE:-fast} in env"
        )
        for line in result.lines
    ), result.lines


def test_codex_forwards_a_variable_of_the_same_name_instead_of_a_reference(
    tmp_path: Path, home: Path
) -> None:
    server = {"command": "/srv", "env": {"TOKEN": "${TOKEN}", "MODE": "fast"}}
    plugin(tmp_path, {".mcp.json": json.dumps({"mcpServers": {"s": server}})})
    (home / ".codex").mkdir()
    assert install({"SKILLTOOL_PLUGINS": str(tmp_path / "plugins")}).code == 0
    entry = toml_loads(codex_config(home).read_text())["mcp_servers"]["s"]
    assert entry == {"command": "/srv", "env": {"MODE": "fast"}, "env_vars": ["TOKEN"]}


# --------------------------------------------------------------------------- Claude Code


CLAUDE_FOLDER = ".claude/skills/demo.mcp"


def claude(env: dict[str, str], *extra: str, verb: str = "install") -> Any:
    return run("plugins", verb, "--only", "claude", *extra, env=env)


def test_claude_code_gets_a_generated_plugin_holding_only_the_servers(
    demo: dict[str, str], home: Path, tmp_path: Path
) -> None:
    (home / ".claude").mkdir()
    result = claude(demo)
    assert result.code == 0, result.stdout + result.stderr
    assert f"added     claude   mcp echo-srv in ~/{CLAUDE_FOLDER}/.mcp.json" in result.lines
    assert f"wrote     claude   ~/{CLAUDE_FOLDER}/.claude-plugin/plugin.json" in result.lines
    folder = home / CLAUDE_FOLDER
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) == [
        ".claude-plugin/plugin.json",
        ".mcp.json",
    ]  # no hooks, commands, skills or agents: nothing runs but the servers
    manifest = json.loads((folder / ".claude-plugin/plugin.json").read_text())
    assert manifest["name"] == "demo"  # its tools are mcp__plugin_demo_echo-srv__*
    assert manifest["description"].startswith(f"rendered by skilltool from {tmp_path}/plugins/demo")
    echo = json.loads((folder / ".mcp.json").read_text())["mcpServers"]["echo-srv"]
    assert echo["command"] == f"{tmp_path}/plugins/demo/bin/echo-srv"
    assert not (home / ".claude/settings.json").exists() and not (home / ".claude.json").exists()
    assert claude(demo).lines[-1] == "2 unchanged"


def test_claude_code_uninstall_removes_the_generated_plugin_and_nothing_else(
    demo: dict[str, str], home: Path
) -> None:
    mine = build_file_tree(home, {".claude/skills/mine/SKILL.md": "---\nname: mine\n---\nx\n"})
    claude(demo)
    result = claude(demo, verb="uninstall")
    assert result.code == 0, result.stdout + result.stderr
    assert f"removed   claude   mcp echo-srv in ~/{CLAUDE_FOLDER}/.mcp.json" in result.lines
    assert not (home / CLAUDE_FOLDER).exists()
    assert (mine / ".claude/skills/mine/SKILL.md").read_text() == "---\nname: mine\n---\nx\n"


def test_claude_code_plugin_whose_servers_are_gone_goes_too(
    demo: dict[str, str], home: Path
) -> None:
    (home / ".claude").mkdir()
    claude(demo)
    (Path(demo["SKILLTOOL_PLUGINS"]) / "demo/.mcp.json").unlink()
    result = claude(demo)
    assert any("plugin.json (its MCP servers are gone)" in line for line in result.lines)
    assert not (home / CLAUDE_FOLDER / ".mcp.json").exists()
    assert not (home / CLAUDE_FOLDER / ".claude-plugin/plugin.json").exists()


def test_a_claude_plugin_folder_skilltool_did_not_make_is_left_alone(
    demo: dict[str, str], home: Path
) -> None:
    theirs = {
        f"{CLAUDE_FOLDER}/.claude-plugin/plugin.json": '{"name": "demo"}\n',
        f"{CLAUDE_FOLDER}/.mcp.json": '{"mcpServers": {}}\n',
    }
    build_file_tree(home, theirs)
    result = claude(demo)
    assert any(
        line.startswith(f"left      ~/{CLAUDE_FOLDER}/.mcp.json: mcp echo-srv: ")
        and "a folder skilltool did not make" in line
        for line in result.lines
    ), result.lines
    for name, text in theirs.items():
        assert (home / name).read_text() == text


def test_an_edited_entry_in_the_generated_plugin_is_left_alone(
    demo: dict[str, str], home: Path
) -> None:
    (home / ".claude").mkdir()
    claude(demo)
    config = home / CLAUDE_FOLDER / ".mcp.json"
    config.write_text(config.read_text().replace('"--stdio"', '"--verbose"'))
    edited = config.read_text()
    result = claude(demo, verb="uninstall")
    assert any("mcp echo-srv: uninstall was edited" in line for line in result.lines)
    assert config.read_text() == edited
    assert (home / CLAUDE_FOLDER / ".claude-plugin/plugin.json").exists()  # it still loads


# --------------------------------------------------------------------------- Mistral Vibe

USER_VIBE = (
    '# my settings\nactive_model = "x"\n\n[[mcp_servers]]\nname = "mine"  # keep\n'
    'transport = "stdio"\ncommand = ["/bin/true"]\n\n[[providers]]\nname = "p"\n'
)


def test_vibe_gets_one_array_element_named_by_the_server_and_gives_it_back(
    demo: dict[str, str], home: Path, tmp_path: Path
) -> None:
    config = build_file_tree(home, {".vibe/config.toml": USER_VIBE}) / ".vibe/config.toml"
    result = run("plugins", "install", "--only", "vibe", env=demo)
    assert "added     vibe     mcp echo-srv in ~/.vibe/config.toml" in result.lines, result.lines
    text = config.read_text()
    assert text.startswith(USER_VIBE.split("[[providers]]")[0])  # the user's bytes, then ours
    elements = toml_loads(text)["mcp_servers"]
    assert elements[0] == {"name": "mine", "transport": "stdio", "command": ["/bin/true"]}
    assert elements[1] == {
        "name": "echo-srv",
        "transport": "stdio",
        "command": [f"{tmp_path}/plugins/demo/bin/echo-srv"],
        "args": ["--stdio"],
        "env": {"MODE": "t"},
    }
    assert run("plugins", "install", "--only", "vibe", env=demo).lines[-1] == "1 unchanged"
    run("plugins", "uninstall", "--only", "vibe", env=demo)
    assert config.read_text() == USER_VIBE


def test_a_vibe_element_of_the_same_name_is_foreign(demo: dict[str, str], home: Path) -> None:
    theirs = USER_VIBE.replace('name = "mine"', 'name = "echo-srv"')
    config = build_file_tree(home, {".vibe/config.toml": theirs}) / ".vibe/config.toml"
    result = run("plugins", "install", "--only", "vibe", env=demo)
    assert any("mcp echo-srv: an entry of that name" in line for line in result.lines)
    assert config.read_text() == theirs


def test_a_vibe_array_written_inline_is_left_alone(demo: dict[str, str], home: Path) -> None:
    inline = 'mcp_servers = [{ name = "mine", transport = "stdio", command = ["/bin/true"] }]\n'
    config = build_file_tree(home, {".vibe/config.toml": inline}) / ".vibe/config.toml"
    result = run("plugins", "install", "--only", "vibe", env=demo)
    assert any("written inline" in line for line in result.lines), result.lines
    assert config.read_text() == inline
