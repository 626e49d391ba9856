"""`skilltool acp AGENT --harness H` started as an ACP host starts an agent: one plain argv,
nothing of skilltool's in the environment (only what the host has anyway: HOME, PATH, and
the model endpoint a user configures). A test client sends `initialize`, `session/new` and a
prompt; the loopback model receives the agent's body; a cancel and the close pass through.

Where the harness takes the agent from its environment, `skilltool acp` replaced itself with
the harness's server; for Claude Code's adapter and Copilot CLI it relays the session and
chose the agent, which `session/new`'s answer already shows."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.acp import AcpClient
from tests.conformance.homes import ACP_TIMEOUT, REPO, Installed, install_home
from tests.conformance.sandbox import harness_bin
from tests.conformance.stub import AnthropicStub, OpenAIStub, Recorded, opencode_provider
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

HARNESSES = (
    "opencode", "kilo", "codex", "pi", "claude", "copilot", "gemini", "qwen", "vibe", "hermes",
    "kimi", "auggie", "openhands",
)  # fmt: skip
NO_PERMISSION_BYPASS = {"claudeCode": {"options": {"allowDangerouslySkipPermissions": False}}}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The bundled plugin's agent installed for the ten harnesses, each with an ACP server."""
    return install_home(tmp_path_factory.mktemp("acp"), "bundled", HARNESSES)


def started(
    installed: Installed, harness: str, host: dict[str, str], cwd: Path, *extra: str
) -> AcpClient:
    """`skilltool acp` as the host runs it: an argv, in the host's environment."""
    env = installed.env(host)
    # how this checkout's skilltool is found, and none of this machine's system plugins
    env.update(PYTHONPATH=str(REPO), XDG_DATA_DIRS=str(installed.root / "no-system-plugins"))
    argv = [sys.executable, "-m", "skilltool", "acp", installed.case.name, "--harness", harness]
    return AcpClient([*argv, *(["--", *extra] if extra else [])], env=env, cwd=cwd)


def converse(acp: AcpClient, cwd: Path, **new: Any) -> dict[str, Any]:
    """initialize, session/new, a prompt to its end, a cancel; then the host closes."""
    acp.initialize()
    session: dict[str, Any] = acp.new_session(cwd, **new)
    result = acp.prompt(session["sessionId"], "hi", timeout=ACP_TIMEOUT)
    assert result["stopReason"] == "end_turn", result
    acp.cancel(session["sessionId"])  # nothing in flight: passed on, and nothing breaks
    assert acp.close() is not None  # the host closed: the agent (and any relay) ended
    return session


def option(session: dict[str, Any], name: str) -> Any:
    [found] = [o for o in session.get("configOptions") or [] if o.get("id") == name]
    return found.get("currentValue")


def has_body(installed: Installed, stub: OpenAIStub | AnthropicStub) -> None:
    body = installed.case.body.replace("\r\n", "\n").strip()
    stub.wait_for(lambda r: any(body in t.replace("\r\n", "\n") for t in r.system_texts()), 30)


def work(installed: Installed, harness: str) -> Path:
    folder = installed.root / f"work-{harness}"
    folder.mkdir(exist_ok=True)
    return folder


def test_opencode_and_kilo_take_the_agent_from_their_config_content(
    installed: Installed, proven: Proven
) -> None:
    for harness, variable in (("opencode", "OPENCODE_CONFIG_CONTENT"), ("kilo", "KILO_CONFIG_CONTENT")):  # fmt: skip
        need(harness)
        cwd = work(installed, harness)
        with OpenAIStub(reply="stub reply") as stub:
            # the host's own configuration content (its model provider) is kept
            host = {variable: json.dumps(opencode_provider(stub))}
            with started(installed, harness, host, cwd) as acp:
                session = converse(acp, cwd)
            assert option(session, "mode") == installed.case.name, session
            has_body(installed, stub)
        proven(
            harness,
            f"`skilltool acp {installed.case.name} --harness {harness}` as a plain argv (the "
            f"host's {variable} with its provider kept): session/new starts in the agent's mode, "
            "the model request holds the body; cancel and close pass",
        )


def test_codex_acp_takes_the_session_skilltool_reads_from_its_file(
    installed: Installed, proven: Proven
) -> None:
    need("codex", "codex-acp")
    from tests.conformance.test_codex import CATALOGUE_MODEL, stub_provider

    session_file = installed.home / ".codex/skilltool" / f"{installed.case.name}.json"
    instructions = json.loads(session_file.read_text(encoding="utf-8"))["developer_instructions"]
    cwd = installed.home
    with OpenAIStub(reply="stub reply") as stub:
        host = {"CODEX_CONFIG": json.dumps({"model": CATALOGUE_MODEL, **stub_provider(stub)})}
        with started(installed, "codex", {**host, "STUB_API_KEY": "dummy"}, cwd) as acp:
            converse(acp, cwd)
        assert instructions in stub.wait_for(timeout=30).system_texts()
    proven(
        "codex",
        f"`skilltool acp {installed.case.name} --harness codex` as a plain argv: codex-acp gets "
        "the session JSON "
        "from ~/.codex/skilltool (the host's provider kept); the request carries "
        "developer_instructions; cancel and close pass",
    )


def test_pi_acp_starts_the_agents_wrapper(installed: Installed, proven: Proven) -> None:
    need("pi", "pi-acp")
    dump = installed.root / "pi-acp-prompt.txt"
    dump.unlink(missing_ok=True)
    cwd = installed.home
    host = {"PI_OFFLINE": "1", "PI_DUMP_PROMPT_FILE": str(dump), "OPENAI_API_KEY": "dummy"}
    with started(installed, "pi", host, cwd) as acp:
        acp.initialize()
        assert acp.new_session(cwd).get("sessionId")
        deadline = time.monotonic() + 30
        while not (dump.is_file() and dump.stat().st_size) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert acp.close() is not None
    assert installed.case.body in dump.read_text(encoding="utf-8")
    proven(
        "pi",
        f"`skilltool acp {installed.case.name} --harness pi` as a plain argv: pi-acp starts the "
        "agent's wrapper "
        "and pi's prompt holds the body (pi is asked no model here)",
    )


def test_claude_and_copilot_get_the_agent_chosen_in_the_session_by_the_relay(
    installed: Installed, proven: Proven
) -> None:
    need("claude", "claude-agent-acp")
    name = installed.case.name
    with AnthropicStub(reply="stub reply") as stub:
        host = {
            "ANTHROPIC_API_KEY": "sk-ant-fake",
            "ANTHROPIC_BASE_URL": stub.base_url,
            "CLAUDE_CODE_EXECUTABLE": str(harness_bin() / "claude"),
        }
        with started(installed, "claude", host, installed.home) as acp:
            session = converse(acp, installed.home, _meta=NO_PERMISSION_BYPASS)
        assert option(session, "agent") == name, session
        has_body(installed, stub)
    proven(
        "claude",
        f"`skilltool acp {name} --harness claude` as a plain argv: the relay chose the agent "
        "(session/new's answer shows it current) and the model request holds the body; "
        "cancel and close pass",
    )
    need("copilot")
    from tests.conformance.test_copilot import MODEL

    cwd = work(installed, "copilot")
    with OpenAIStub(reply="stub reply") as stub:
        host = {
            "COPILOT_PROVIDER_BASE_URL": stub.base_url,
            "COPILOT_PROVIDER_API_KEY": "dummy",
            "COPILOT_MODEL": MODEL,
            "COPILOT_OFFLINE": "true",
        }
        with started(installed, "copilot", host, cwd) as acp:
            session = converse(acp, cwd)
        assert option(session, "agent") == name, session
        has_body(installed, stub)
    proven(
        "copilot",
        f"`skilltool acp {name} --harness copilot` as a plain argv: the relay chose the agent "
        "(session/new's answer shows it current) and the model request holds the body; "
        "cancel and close pass",
    )


def test_vibe_and_hermes_start_as_the_agent(installed: Installed, proven: Proven) -> None:
    need("vibe", "vibe-acp")
    from tests.conformance.test_hermes import MODEL_BLOCK
    from tests.conformance.test_vibe import prompt_of, stub_config

    name = installed.case.name
    cwd = work(installed, "vibe")
    with OpenAIStub(reply="acp done") as stub:
        stub_config(installed.home, stub)  # the model a user configures
        with started(installed, "vibe", {"STUB_API_KEY": "dummy"}, cwd) as acp:
            session = converse(acp, cwd)
        assert session["modes"]["currentModeId"] == name, session
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
        assert prompt_of(installed) in "\n".join(request.system_texts())
    proven(
        "vibe",
        f"`skilltool acp {name} --harness vibe` as a plain argv: vibe-acp starts in the agent "
        "and the model request holds its prompt file; cancel and close pass",
    )
    need("hermes")
    config = installed.home / ".hermes/profiles" / name / "config.yaml"
    original = config.read_bytes()
    with OpenAIStub(reply="stub reply") as stub:
        config.write_bytes(original + MODEL_BLOCK.format(base_url=stub.base_url).encode())
        try:
            host = {"HERMES_DISABLE_LAZY_INSTALLS": "1"}
            with started(installed, "hermes", host, installed.home) as acp:
                converse(acp, installed.home)
        finally:
            config.write_bytes(original)
        has_body(installed, stub)
    proven(
        "hermes",
        f"`skilltool acp {name} --harness hermes` as a plain argv: `hermes -p {name} acp`, "
        "the model request holds the body; cancel and close pass",
    )


def test_kimi_answers_with_the_agent_offered_as_its_subagent(
    installed: Installed, proven: Proven
) -> None:
    """Kimi Code 2.1.0 has no agent option over ACP: `skilltool acp` replaces itself with
    `kimi acp`, whose session is Kimi's own agent with the plugin's among its subagents."""
    need("kimi")
    from tests.conformance.test_kimi import agent_types

    name = installed.case.name
    cwd = work(installed, "kimi")
    with OpenAIStub(reply="acp done") as stub:
        host = {  # the model a user configures
            "KIMI_MODEL_NAME": "stub-model",
            "KIMI_MODEL_API_KEY": "dummy",
            "KIMI_MODEL_PROVIDER_TYPE": "openai",
            "KIMI_MODEL_BASE_URL": stub.base_url,
        }
        with started(installed, "kimi", host, cwd) as acp:
            converse(acp, cwd)
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
    assert agent_types(request)[name] == installed.case.description
    proven(
        "kimi",
        f"`skilltool acp {name} --harness kimi` as a plain argv: `kimi acp` answers, its Agent "
        f"tool offering {name} (no agent option over ACP); cancel and close pass",
    )


def test_auggie_answers_with_the_agent_offered_as_its_subagent(
    installed: Installed, proven: Proven
) -> None:
    """Auggie 0.36.0 has no agent option over ACP: `skilltool acp` replaces itself with
    `auggie --acp`, whose session is Auggie's own agent with the plugin's among its
    subagents (`sub-agent-<name>`)."""
    need("auggie")
    from tests.conformance.augment_stub import AugmentStub, tools_of

    name = installed.case.name
    cwd = work(installed, "auggie")
    with AugmentStub(reply="acp done") as stub:
        host = {"AUGMENT_SESSION_AUTH": stub.session}  # the sign-in a user has
        with started(installed, "auggie", host, cwd) as acp:
            converse(acp, cwd)
        [request] = stub.chats()
    assert f"sub-agent-{name}" in tools_of(request)
    proven(
        "auggie",
        f"`skilltool acp {name} --harness auggie` as a plain argv: `auggie --acp` answers, "
        f"offering sub-agent-{name} (no agent option over ACP); cancel and close pass",
    )


def test_openhands_answers_with_the_agent_offered_as_its_subagent(
    installed: Installed, proven: Proven
) -> None:
    """OpenHands 1.16.0 has no agent option over ACP: `skilltool acp` replaces itself with
    `openhands acp`, whose session is OpenHands' own agent with the plugin's among the
    subagent types of its task tool. A session needs a model set up in
    ~/.openhands/agent_settings.json (what `openhands` writes once one is chosen)."""
    need("openhands")
    from tests.conformance.test_openhands import MODEL, agent_types

    name = installed.case.name
    cwd = work(installed, "openhands")
    settings = installed.home / ".openhands/agent_settings.json"
    with OpenAIStub(reply="acp done") as stub:
        llm = {"model": MODEL, "api_key": "dummy", "base_url": stub.base_url, "usage_id": "agent"}
        settings.write_text(json.dumps({"llm": llm}))
        host = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "GIT_ALLOW_PROTOCOL": "file"}
        try:
            with started(installed, "openhands", host, cwd) as acp:
                converse(acp, cwd)
        finally:
            settings.unlink()
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
    assert agent_types(request)[name].startswith(installed.case.description)
    proven(
        "openhands",
        f"`skilltool acp {name} --harness openhands` as a plain argv: `openhands acp` answers, "
        f"its task tool offering {name} (no agent option over ACP); cancel and close pass",
    )


def test_gemini_and_qwen_start_with_the_agents_body_as_their_system_prompt(
    installed: Installed, proven: Proven
) -> None:
    need("gemini")
    from tests.conformance.stub import GeminiStub
    from tests.conformance.test_gemini import MODEL
    from tests.conformance.test_qwen import QWEN

    with GeminiStub() as stub:
        host = {
            "GEMINI_API_KEY": "fake",
            "GOOGLE_GEMINI_BASE_URL": stub.base_url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
        }
        # the host's own arguments after `--`: a model named, so none is asked to route first
        with started(installed, "gemini", host, installed.home, "-m", MODEL) as acp:
            converse(acp, installed.home)
        request = stub.wait_for()
    body_in_place(installed, request, "Gemini CLI", ["-m", MODEL], proven)
    need("qwen")
    cwd = work(installed, "qwen")
    with AnthropicStub() as stub:
        host = {
            "ANTHROPIC_API_KEY": "dummy",
            "ANTHROPIC_BASE_URL": stub.base_url,
            "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
        }
        with started(installed, "qwen", host, cwd, *QWEN) as acp:
            converse(acp, cwd)
        request = stub.wait_for()
    body_in_place(installed, request, "Qwen Code", QWEN, proven)


def body_in_place(
    installed: Installed, request: Recorded, title: str, args: list[str], proven: Proven
) -> None:
    """The request's system prompt is the agent's body, with nothing of the harness's own."""
    harness = title.split()[0].lower()
    system = "\n".join(request.system_texts())
    assert system.startswith(installed.case.body.strip()), system[:300]
    assert f"You are {title}" not in system
    variable = f"{harness.upper()}_SYSTEM_MD"
    proven(
        harness,
        f"`skilltool acp {installed.case.name} --harness {harness} -- {' '.join(args)}` as a "
        f"plain argv: {variable} names the agent's body (in skilltool's cache), and the model "
        f"request's system prompt is that body in place of {title}'s own; cancel and close pass",
    )
