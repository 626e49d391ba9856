"""`skilltool acp`: its relay on its own, between a test host and a fake ACP agent (a Python
script that keeps a log of every line it receives), and the command's failures as an ACP host
sees them. The real harnesses are started through it in tests/conformance/test_acp.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import REPO, run, toml_loads

# an ACP agent in miniature: `agent` is a config option of each session; a prompt is answered
# with a notification naming the agent chosen, then its result; `exit` ends it with code 3;
# `echo` sends the params back; every line received is logged as it came
FAKE_AGENT = r"""
import json, os, signal, sys
log = open(sys.argv[1], "ab", buffering=0)
chosen = {}
signal.signal(signal.SIGTERM, lambda *_: (log.write(b"SIGTERM\n"), os._exit(7)))
def send(message):
    sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
    sys.stdout.buffer.flush()
for line in sys.stdin.buffer:
    log.write(line)
    message = json.loads(line)
    method, rid, params = message.get("method"), message.get("id"), message.get("params") or {}
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1}})
    elif method in ("session/new", "session/load"):
        sid = params.get("sessionId", "s%d" % (len(chosen) + 1))
        chosen[sid] = "default"
        result = {"configOptions": [{"id": "agent", "currentValue": "default"}]}
        if method == "session/new":
            result["sessionId"] = sid
        send({"jsonrpc": "2.0", "id": rid, "result": result})
        update = {"sessionId": sid, "update": {"sessionUpdate": "available_commands_update"}}
        send({"jsonrpc": "2.0", "method": "session/update", "params": update})
    elif method == "session/set_config_option":
        if params["value"] == "vanish":  # ends before it answers the choice
            sys.exit(5)
        if params["value"] == "nonexistent":
            error = {"code": -32602, "message": "Custom agent 'nonexistent' not found"}
            send({"jsonrpc": "2.0", "id": rid, "error": error})
            continue
        chosen[params["sessionId"]] = params["value"]
        option = {"id": "agent", "currentValue": params["value"]}
        send({"jsonrpc": "2.0", "id": rid, "result": {"configOptions": [option]}})
    elif method == "session/prompt":
        sid = params["sessionId"]
        text = {"sessionUpdate": "agent_message_chunk", "content": {"text": chosen[sid]}}
        send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": text}})
        send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
    elif method == "echo":
        send({"jsonrpc": "2.0", "id": rid, "result": params})
    elif method == "exit":
        sys.exit(3)
log.write(b"EOF\n")
"""


class Host:
    """A test ACP host: the relay started as a plain argv, lines written and read in turn."""

    def __init__(self, tmp_path: Path, agent: str = "helper") -> None:
        fake = tmp_path / "agent.py"
        fake.write_text(FAKE_AGENT)
        self.log = tmp_path / "agent.log"
        code = (
            "import os, sys; from skilltool.acp import relay; "
            f"sys.exit(relay([sys.executable, {str(fake)!r}, {str(self.log)!r}], os.environ, "
            f"{agent!r}))"
        )
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.process = subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
        )
        self.next = 0

    def send(self, method: str, params: Any = None) -> bytes:
        self.next += 1
        message = {"jsonrpc": "2.0", "id": self.next, "method": method, "params": params or {}}
        line = json.dumps(message).encode() + b"\n"
        assert self.process.stdin is not None
        self.process.stdin.write(line)
        self.process.stdin.flush()
        return line

    def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "the relay closed its stdout"
        found: dict[str, Any] = json.loads(line)
        return found

    def received(self) -> list[bytes]:
        """Every line the agent was given, in order."""
        return self.log.read_bytes().splitlines(keepends=True)

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=10)


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    made = Host(tmp_path)
    yield made
    if made.process.poll() is None:
        made.process.kill()
        made.process.wait()


def test_the_relay_chooses_the_agent_in_each_session_before_the_host_sees_it(host: Host) -> None:
    sent = [host.send("initialize", {"protocolVersion": 1})]
    assert host.read()["result"] == {"protocolVersion": 1}
    sent.append(host.send("session/new", {"cwd": "/", "mcpServers": []}))
    opened = host.read()
    # the answer comes with the agent already chosen, and only then what followed it
    assert opened["id"] == 2 and opened["result"]["sessionId"] == "s1"
    assert opened["result"]["configOptions"] == [{"id": "agent", "currentValue": "helper"}]
    assert host.read()["params"]["update"]["sessionUpdate"] == "available_commands_update"
    sent.append(host.send("session/prompt", {"sessionId": "s1", "prompt": []}))
    assert host.read()["params"]["update"]["content"] == {"text": "helper"}
    assert host.read() == {"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "end_turn"}}
    # a session loaded again is chosen in too
    sent.append(host.send("session/load", {"sessionId": "s1", "cwd": "/", "mcpServers": []}))
    loaded = host.read()
    assert loaded["id"] == 4 and loaded["result"]["configOptions"][0]["currentValue"] == "helper"
    assert host.close() == 0
    # what the host sent reached the agent byte for byte, in order; one request was added
    # after each session was opened
    received = host.received()
    assert received[-1] == b"EOF\n"
    chose = [json.loads(line) for line in received if b"set_config_option" in line]
    assert [c["params"] for c in chose] == [
        {"sessionId": "s1", "configId": "agent", "value": "helper"}
    ] * 2
    assert [line for line in received if b"set_config_option" not in line][:-1] == sent
    assert received[2] == json.dumps(chose[0], separators=(",", ":")).encode() + b"\n"


def test_an_agent_that_cannot_be_chosen_is_the_hosts_error_for_that_session(
    tmp_path: Path,
) -> None:
    host = Host(tmp_path, agent="nonexistent")
    host.send("session/new", {"cwd": "/", "mcpServers": []})
    answer = host.read()
    assert answer["id"] == 1 and "result" not in answer
    assert answer["error"]["message"] == (
        "skilltool acp: agent 'nonexistent': Custom agent 'nonexistent' not found"
    )
    assert host.read()["method"] == "session/update"  # what followed still comes, after it
    assert host.close() == 0


def test_an_agent_that_ends_before_answering_the_choice_still_answers_the_host(
    tmp_path: Path,
) -> None:
    host = Host(tmp_path, agent="vanish")
    host.send("session/new", {"cwd": "/", "mcpServers": []})
    answer = host.read()
    assert answer["id"] == 1 and "result" not in answer
    assert answer["error"]["message"] == (
        "skilltool acp: the agent ended before 'vanish' could be chosen"
    )
    assert host.read()["method"] == "session/update"  # what the agent said before it ended
    assert host.process.wait(timeout=10) == 5  # the agent's code, the host's stdin still open


def test_a_host_message_whose_id_is_not_a_string_or_number_is_refused_and_the_relay_goes_on(
    host: Host,
) -> None:
    assert host.process.stdin is not None
    for bad in ([1], {"a": 1}, True):
        message = {"jsonrpc": "2.0", "id": bad, "method": "session/new", "params": {}}
        host.process.stdin.write(json.dumps(message).encode() + b"\n")
        host.process.stdin.flush()
        answer = host.read()
        assert answer["id"] is None and answer["error"]["code"] == -32600
    host.send("initialize", {"protocolVersion": 1})
    host.send("session/new", {"cwd": "/", "mcpServers": []})
    assert host.read()["result"] == {"protocolVersion": 1}
    opened = host.read()
    assert opened["result"]["configOptions"] == [{"id": "agent", "currentValue": "helper"}]
    assert host.close() == 0
    assert not any(b"[1]" in line or b'{"a"' in line for line in host.received())


def test_large_messages_pass_whole_both_ways(host: Host) -> None:
    text = "x" * (8 << 20) + " ✓"
    sent = host.send("echo", {"text": text})
    assert host.read()["result"] == {"text": text}
    assert host.close() == 0
    assert host.received()[0] == sent


def test_a_host_that_closes_stdin_ends_the_agent_and_the_relay(host: Host) -> None:
    host.send("initialize", {"protocolVersion": 1})
    host.read()
    started = time.monotonic()
    assert host.close() == 0
    assert time.monotonic() - started < 5
    assert host.received()[-1] == b"EOF\n"


def test_an_agent_that_exits_early_ends_the_relay_with_its_code(host: Host) -> None:
    host.send("exit")
    assert host.process.wait(timeout=10) == 3  # the host's stdin still open
    assert host.process.stdout is not None and host.process.stdout.read() == b""


def test_a_signal_to_the_relay_reaches_the_agent(host: Host) -> None:
    host.send("initialize", {"protocolVersion": 1})
    host.read()  # both are running
    host.process.send_signal(signal.SIGTERM)
    assert host.process.wait(timeout=10) == 7  # what the agent chose to exit with
    assert host.received()[-1] == b"SIGTERM\n"


def test_acp_failures_are_one_line_on_stderr_and_nothing_on_stdout(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no harness installed here
    (home / ".config/opencode").mkdir(parents=True)
    (home / ".qwen").mkdir()
    missing = run("acp", "nobody", "--harness", "opencode")
    assert missing.code == 1 and missing.stdout == ""
    assert missing.stderr.startswith("skilltool acp: no agent 'nobody' on the search path")
    assert missing.stderr.count("\n") == 1
    # the bundled plugin's agent, not installed yet
    unrendered = run("acp", "plugin-author", "--harness", "opencode")
    assert unrendered.code == 1 and unrendered.stdout == ""
    assert unrendered.stderr == (
        "skilltool acp: ~/.config/opencode/agent/plugin-author.md is not rendered for OpenCode: "
        "run 'skilltool plugins install --only opencode'\n"
    )
    assert run("plugins", "install").code == 0
    absent = run("acp", "plugin-author", "--harness", "qwen")  # no `qwen` on this PATH
    assert absent.code == 1 and absent.stdout == ""
    assert absent.stderr == "skilltool acp: qwen is not on PATH: Qwen Code is not installed here\n"


def test_qwen_and_gemini_get_the_agents_body_as_their_system_prompt_file(
    home: Path, tmp_path: Path
) -> None:
    (home / ".qwen").mkdir()
    (home / ".gemini").mkdir()
    assert run("plugins", "install").code == 0
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHONPATH": str(REPO)}
    body = (
        (REPO / "resources/plugins/skilltool/agents/plugin-author.md")
        .read_text()
        .split("---\n", 2)[2]
    )
    for harness, variable in (("qwen", "QWEN_SYSTEM_MD"), ("gemini", "GEMINI_SYSTEM_MD")):
        fake = bin_dir / harness
        fake.write_text(f'#!/bin/sh\necho "$*"\ncat "${variable}"\n')
        fake.chmod(0o755)
        argv = [sys.executable, "-m", "skilltool", "acp", "plugin-author", "--harness", harness]
        done = subprocess.run(argv, capture_output=True, env=env, timeout=60)
        assert done.returncode == 0, done.stderr
        args, prompt = done.stdout.decode().split("\n", 1)
        assert args == "--acp"
        assert prompt == body.strip() + "\n"


def test_acp_replaces_itself_with_the_harness_and_its_environment(
    home: Path, tmp_path: Path
) -> None:
    (home / ".config/opencode").mkdir(parents=True)
    assert run("plugins", "install").code == 0
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "opencode"
    fake.write_text('#!/bin/sh\necho "$$ $*"\necho "$OPENCODE_CONFIG_CONTENT"\n')
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHONPATH": str(REPO)}
    # the host's own configuration content is kept, skilltool's over it
    host = {"provider": {"stub": {"npm": "x"}}, "agent": {"plugin-author": {"model": "m"}}}
    env["OPENCODE_CONFIG_CONTENT"] = json.dumps(host)
    argv = [sys.executable, "-m", "skilltool", "acp", "plugin-author", "--harness", "opencode"]
    started = subprocess.Popen([*argv, "--", "--port", "0"], stdout=subprocess.PIPE, env=env)
    out, _ = started.communicate(timeout=60)
    pid, args = out.decode().splitlines()[0].split(" ", 1)
    assert int(pid) == started.pid  # the same process: no Python left between
    assert args == "acp --port 0"
    config = json.loads(out.decode().splitlines()[1])
    assert config == {
        "provider": {"stub": {"npm": "x"}},
        "agent": {"plugin-author": {"model": "m", "mode": "primary"}},
        "default_agent": "plugin-author",
    }


def test_launch_for_each_host_prints_its_entry_using_skilltool_acp_where_an_argv_would_not_do(
    home: Path,
) -> None:
    for folder in (".config/opencode", ".claude", ".codex", ".qwen"):
        (home / folder).mkdir(parents=True)
    assert run("plugins", "install").code == 0

    def entry(harness: str, host: str) -> Any:
        done = run("plugins", "launch", "plugin-author", "--harness", harness, "--for", host)
        assert done.code == 0, done.stderr
        if host == "agentd":  # its own syntax: the entry as agentd reads it
            from tests.test_hosts import parse_mix

            [found] = parse_mix(done.stdout).values()
            return found
        return toml_loads(done.stdout) if host == "otto" else json.loads(done.stdout)

    # OpenCode needs only its environment: the hosts that take one run it directly
    [otto] = entry("opencode", "otto")["agents"]
    assert (otto["id"], otto["command"], otto["args"]) == (
        "plugin-author-opencode",
        "opencode",
        ["acp"],
    )
    assert json.loads(otto["env"]["OPENCODE_CONFIG_CONTENT"])["default_agent"] == "plugin-author"
    zed = entry("opencode", "zed")["agent_servers"]["plugin-author (opencode)"]
    assert zed["type"] == "custom" and zed["command"] == "opencode" and zed["env"]
    jetbrains = entry("opencode", "jetbrains")["agent_servers"]["plugin-author (opencode)"]
    assert "type" not in jetbrains and jetbrains["args"] == ["acp"]
    assert entry("opencode", "json")["command"] == "opencode"
    # agentd takes no environment; Claude Code's agent is chosen in the session; Codex's
    # session is a file's content: each through `skilltool acp`, with no environment
    acp_tail = ["acp", "plugin-author", "--harness"]
    for harness, host in (("opencode", "agentd"), ("claude", "zed"), ("codex", "json")):
        found = entry(harness, host)
        argv = found["argv"] if host == "agentd" else None
        if argv is None:
            server = found["agent_servers"]["plugin-author (claude)"] if host == "zed" else found
            argv, env = [server["command"], *server["args"]], server["env"]
            assert env == {}
        assert argv[-4:] == [*acp_tail, harness], argv
    # Qwen Code reads the agent's body from a file skilltool keeps: through `skilltool acp`
    server = entry("qwen", "json")
    assert [server["command"], *server["args"]][-4:] == [*acp_tail, "qwen"]
