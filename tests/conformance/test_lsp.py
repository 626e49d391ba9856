"""A plugin's language server (`.lsp.json`), carried by the real `skilltool plugins install`
into OpenCode's and Kilo's `lsp`, is started by the harness for a file of its language: a
stub server records every request it is sent (`initialize` first), and the harness's own
`debug lsp diagnostics <file>` opens the file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conformance.homes import TIMEOUT
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.support import Proven, need
from tests.helpers import REPO, build_file_tree

pytestmark = pytest.mark.conformance

# a language server in miniature: each request's method, one a line, into the log it is given
STUB = r"""
import json, sys
log = open(sys.argv[1], "a")
def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        if not line.strip():
            break
        key, _, value = line.decode().partition(":")
        if key.lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))
def send(message):
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()
while True:
    message = read()
    log.write(message.get("method", "-") + "\n")
    log.flush()
    if message.get("method") == "initialize":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": {"textDocumentSync": 1}}})
    elif "id" in message and "method" in message:
        send({"jsonrpc": "2.0", "id": message["id"], "result": None})
    if message.get("method") == "exit":
        sys.exit(0)
"""


@pytest.mark.parametrize(("harness", "folder"), [("opencode", "opencode"), ("kilo", "kilo")])
def test_a_carried_language_server_starts_for_a_file_of_its_language(
    tmp_path: Path, harness: str, folder: str, proven: Proven
) -> None:
    need(harness)
    home = make_home(tmp_path)
    (home / ".config" / folder).mkdir(parents=True)
    stub, log = tmp_path / "lsp_stub.py", tmp_path / "lsp.log"
    stub.write_text(STUB)
    build_file_tree(
        home / ".local/share/skilltool/plugins/zz-lsp",
        {
            ".claude-plugin/plugin.json": '{"name": "zz-lsp"}\n',
            ".lsp.json": json.dumps(
                {
                    "zz": {
                        "command": sys.executable,
                        "args": [str(stub), str(log)],
                        "extensionToLanguage": {".zz": "zz"},
                    }
                }
            ),
        },
    )
    env = harness_env(home, {"PYTHONPATH": str(REPO), "XDG_DATA_DIRS": str(tmp_path / "none")})
    done = subprocess.run(
        [sys.executable, "-m", "skilltool", "plugins", "install"],
        env=env, cwd=home, capture_output=True, text=True, timeout=TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"added     {harness}" in done.stdout and "lsp zz" in done.stdout, done.stdout
    project = tmp_path / "project"
    build_file_tree(project, {"main.zz": "hello\n"})
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    listed = run(
        [harness, "debug", "lsp", "diagnostics", str(project / "main.zz")],
        harness_env(home),
        project,
        timeout=TIMEOUT,
    )
    assert listed.returncode == 0, listed.stdout + listed.stderr
    methods = log.read_text().split() if log.exists() else []
    assert methods[:1] == ["initialize"], (methods, listed.stdout, listed.stderr)
    assert "textDocument/didOpen" in methods
    proven(
        harness,
        "a plugin's `.lsp.json` server, carried into `lsp` of its config, is started for a "
        "file of its extension (`debug lsp diagnostics`: initialize, didOpen)",
    )


@pytest.mark.parametrize(("harness", "folder"), [("opencode", "opencode"), ("kilo", "kilo")])
def test_a_language_servers_sensitive_option_reaches_it_from_the_variable(
    tmp_path: Path, harness: str, folder: str, proven: Proven
) -> None:
    """`${user_config.log}` of a sensitive option is written `{env:ZZ_LSP_LOG}`: the server
    the harness starts gets the variable's value as its argument (its log's path)."""
    need(harness)
    home = make_home(tmp_path)
    (home / ".config" / folder).mkdir(parents=True)
    stub, log = tmp_path / "lsp_stub.py", tmp_path / "lsp.log"
    stub.write_text(STUB)
    option = {"type": "file", "title": "Log", "description": "where", "sensitive": True}
    server = {"command": sys.executable, "args": [str(stub), "${user_config.log}"],
              "extensionToLanguage": {".zz": "zz"}}  # fmt: skip
    build_file_tree(
        home / ".local/share/skilltool/plugins/zz-lsp",
        {
            ".claude-plugin/plugin.json": json.dumps(
                {"name": "zz-lsp", "userConfig": {"log": option}, "lspServers": {"zz": server}}
            ),
        },
    )
    env = harness_env(home, {"PYTHONPATH": str(REPO), "XDG_DATA_DIRS": str(tmp_path / "none")})
    done = subprocess.run(
        [sys.executable, "-m", "skilltool", "plugins", "install"],
        env=env, cwd=home, capture_output=True, text=True, timeout=TIMEOUT,
    )  # fmt: skip
    assert "lsp zz" in done.stdout, done.stdout + done.stderr
    assert "set ZZ_LSP_LOG in the environment" in done.stderr
    project = tmp_path / "project"
    build_file_tree(project, {"main.zz": "hello\n"})
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    argv = [harness, "debug", "lsp", "diagnostics", str(project / "main.zz")]
    listed = run(argv, harness_env(home, {"ZZ_LSP_LOG": str(log)}), project, timeout=TIMEOUT)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    methods = log.read_text().split() if log.exists() else []
    assert methods[:1] == ["initialize"], (methods, listed.stdout, listed.stderr)
    proven(
        harness,
        "a language server's sensitive plugin option, written {env:ZZ_LSP_LOG}, reaches it "
        "from the variable",
    )
