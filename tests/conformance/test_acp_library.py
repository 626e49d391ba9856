"""`skilltool acp` driven by an ACP client library nobody here wrote: the `agent-client-protocol`
package's own client (`acp.spawn_agent_process`), as a host built on it starts an agent. For
a harness skilltool replaces itself with (OpenCode) and one it relays to choose the agent in
the session (Claude Code's adapter): initialize, a session, a prompt whose model request
holds the agent's body, a cancel, and the close."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.homes import ACP_TIMEOUT, REPO, Installed, install_home
from tests.conformance.sandbox import harness_bin
from tests.conformance.stub import AnthropicStub, OpenAIStub, opencode_provider
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance
acp = pytest.importorskip("acp", reason="the agent-client-protocol package (a test extra)")


class Host:
    """The host's side of the connection: what the agent streams is kept; a permission is
    refused, so that nothing waits on a person."""

    def __init__(self) -> None:
        self.updates: list[Any] = []

    async def request_permission(
        self, session_id: str, tool_call: Any, options: Any, **_: Any
    ) -> Any:
        return acp.RequestPermissionResponse(outcome={"outcome": "cancelled"})

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    return install_home(tmp_path_factory.mktemp("acp-library"), "bundled", ("opencode", "claude"))


async def _converse(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[Any, Any, int | None]:
    host = Host()
    async with acp.spawn_agent_process(host, argv[0], *argv[1:], env=env, cwd=str(cwd)) as (
        connection,
        process,
    ):
        await connection.initialize(protocol_version=acp.PROTOCOL_VERSION)
        session = await connection.new_session(cwd=str(cwd), mcp_servers=[])
        prompt = [acp.text_block("hi")]
        result = await asyncio.wait_for(
            connection.prompt(session_id=session.session_id, prompt=prompt), ACP_TIMEOUT
        )
        await connection.cancel(session_id=session.session_id)
    return session, result, process.returncode


def _argv(installed: Installed, harness: str) -> list[str]:
    return [sys.executable, "-m", "skilltool", "acp", installed.case.name, "--harness", harness]


def _env(installed: Installed, host: dict[str, str]) -> dict[str, str]:
    env = installed.env(host)
    env.update(PYTHONPATH=str(REPO), XDG_DATA_DIRS=str(installed.root / "no-system-plugins"))
    return env


def _has_body(installed: Installed, stub: OpenAIStub) -> None:
    body = installed.case.body.replace("\r\n", "\n").strip()
    stub.wait_for(lambda r: any(body in t.replace("\r\n", "\n") for t in r.system_texts()), 30)


def test_an_acp_library_client_starts_the_agent_in_opencode(
    installed: Installed, proven: Proven
) -> None:
    need("opencode")
    import json

    cwd = installed.root / "work-opencode"
    cwd.mkdir(exist_ok=True)
    with OpenAIStub(reply="stub reply") as stub:
        host = {"OPENCODE_CONFIG_CONTENT": json.dumps(opencode_provider(stub))}
        session, result, _ = asyncio.run(
            _converse(_argv(installed, "opencode"), _env(installed, host), cwd)
        )
        assert result.stop_reason == "end_turn", result
        _has_body(installed, stub)
    assert session.session_id
    proven(
        "opencode",
        "`skilltool acp` driven by the agent-client-protocol package's client: initialize, "
        "session/new, a prompt whose request holds the agent's body, cancel, close",
    )


def test_an_acp_library_client_gets_the_agent_the_relay_chose_in_claude_code(
    installed: Installed, proven: Proven
) -> None:
    need("claude", "claude-agent-acp")
    with AnthropicStub(reply="stub reply") as stub:
        host = {
            "ANTHROPIC_API_KEY": "sk-ant-fake",
            "ANTHROPIC_BASE_URL": stub.base_url,
            "CLAUDE_CODE_EXECUTABLE": str(harness_bin() / "claude"),
        }
        argv, env = _argv(installed, "claude"), _env(installed, host)
        session, result, _ = asyncio.run(_converse(argv, env, installed.home))
        assert result.stop_reason == "end_turn", result
        _has_body(installed, stub)
    options = [getattr(o, "root", o) for o in session.config_options or []]
    chosen = [o for o in options if o.id == "agent"]
    assert chosen and chosen[0].current_value == installed.case.name, session
    proven(
        "claude",
        "`skilltool acp` driven by the agent-client-protocol package's client: the relay chose "
        "the agent (session/new's answer shows it), the request holds the body; cancel, close",
    )


def _entry(installed: Installed, host: str, *extra: str) -> Any:
    """What `plugins launch --for HOST` prints, as the host reads it."""
    import subprocess

    from tests.helpers import toml_loads
    from tests.test_hosts import parse_mix

    env = _env(installed, {})
    done = subprocess.run(
        [sys.executable, "-m", "skilltool", "plugins", "launch", installed.case.name,
         "--harness", "opencode", "--for", host, *extra],
        env=env, cwd=installed.home, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    if host == "agentd":
        [entry] = parse_mix(done.stdout).values()
        return entry
    [entry] = toml_loads(done.stdout)["agents"]
    return entry


@pytest.mark.parametrize("host", ["agentd", "otto"])
def test_the_printed_entry_started_as_its_host_starts_it(
    installed: Installed, host: str, proven: Proven
) -> None:
    """agentd's argv run with its own environment (nothing of the entry's); otto's command
    with the entry's environment, `{file:}` expanded as otto expands it. The model is the
    one the user configured in OpenCode's own file, as a user has it."""
    import json
    import os

    need("opencode")
    entry = _entry(installed, host, *(["--root", str(installed.home)] if host == "agentd" else []))
    config = installed.home / ".config/opencode/opencode.json"
    before = config.read_bytes() if config.exists() else None
    cwd = installed.home
    try:
        with OpenAIStub(reply="stub reply") as stub:
            mine = json.loads(before) if before else {}
            config.write_text(json.dumps({**mine, **opencode_provider(stub)}))
            env = _env(installed, {})  # the host's own: HOME, PATH
            if host == "agentd":
                argv = entry["argv"]
                assert entry["roots"] == [str(installed.home)]
            else:
                argv = [entry["command"], *entry.get("args", [])]
                for key, value in entry.get("env", {}).items():
                    if value.startswith("{file:"):
                        named = value[len("{file:") : -1].replace("~", str(installed.home), 1)
                        value = Path(named).read_text()
                    env[key] = value
            if argv[0].endswith("skilltool") and not os.path.exists(argv[0]):
                argv = [sys.executable, "-m", "skilltool", *argv[1:]]
            _, result, _ = asyncio.run(_converse(argv, env, cwd))
            assert result.stop_reason == "end_turn", result
            _has_body(installed, stub)
    finally:
        if before is None:
            config.unlink(missing_ok=True)
        else:
            config.write_bytes(before)
    proven(
        "opencode",
        f"`plugins launch --for {host}`: the entry, read as {host} reads it and started as it "
        "starts it, runs the agent (its body in the model request)",
    )
