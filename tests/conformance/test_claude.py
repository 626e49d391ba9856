"""Claude Code loads what skilltool renders: the agent file in its own format with no warning,
the skills linked into ~/.claude/skills, the body as the prompt (`--agent`, a subagent, and
claude-agent-acp's `agent` option), all against a loopback Anthropic stub."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("skilltool.harnesses.claude")

from tests.conformance.acp import AcpClient
from tests.conformance.homes import (
    ACP_TIMEOUT,
    TIMEOUT,
    Installed,
    bundled_case,
    harness_dirs,
    left_alone,
    rendered_agent,
    with_front_line,
)
from tests.conformance.sandbox import harness_bin, harness_env, make_home, run
from tests.conformance.stub import AnthropicStub, Recorded
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

CLAUDE_KEYS = {"name", "description", "tools", "skills", "model"}
CLAUDE_ALIASES = {"haiku", "sonnet", "opus"}
# tool names Claude Code sends besides the agent's own (a stand-in for deferred tools)
NOT_AGENT_TOOLS = {"DeferredToolPlaceholder"}
NO_PERMISSION_BYPASS = {"claudeCode": {"options": {"allowDangerouslySkipPermissions": False}}}


@pytest.fixture
def installed(second_wave: Installed) -> Installed:
    return second_wave


@pytest.fixture(autouse=True)
def _claude() -> None:
    need("claude")


def claude_env(
    home: Path, stub: AnthropicStub, extra: dict[str, str] | None = None
) -> dict[str, str]:
    """Claude Code with a fake API key, talking to the stub."""
    keys = {"ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": stub.base_url}
    return harness_env(home, {**keys, **(extra or {})})


def claude(env: dict[str, str], home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = run(["claude", *args], env, home, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def init_event(env: dict[str, str], home: Path, debug_log: Path) -> dict[str, Any]:
    """The first event of `claude -p --output-format stream-json --verbose hi`: what it loaded."""
    done = claude(env, home, "-p", "--output-format", "stream-json", "--verbose", "--debug-file", str(debug_log), "hi")  # fmt: skip
    event: dict[str, Any] = json.loads(done.stdout.splitlines()[0])
    assert (event["type"], event["subtype"]) == ("system", "init"), event
    return event


def complaints(debug_log: Path, agent_file: Path) -> list[str]:
    """Claude Code's warnings and errors about one agent file (they reach only the debug log)."""
    lines = debug_log.read_text(encoding="utf-8", errors="replace").splitlines()
    return [line for line in lines if str(agent_file) in line and ("[WARN]" in line or "[ERROR]" in line)]  # fmt: skip


def expected_model(installed: Installed) -> str | None:
    case = installed.case
    return case.models.get("claude") or case.model


def agent_file(installed: Installed) -> Path:
    return installed.home / ".claude/agents" / f"{installed.case.name}.md"


def tool_names(request: Recorded) -> set[str]:
    return {tool["name"] for tool in request.json.get("tools", [])} - NOT_AGENT_TOOLS


def test_rendered_agent_is_claudes_own_format(installed: Installed, proven: Proven) -> None:
    case, home = installed.case, installed.home
    path = agent_file(installed)
    assert path.is_file() and not path.is_symlink()
    rendered = rendered_agent(path)
    marker = rendered.marker()
    assert marker and marker.group(1) == str(case.source), rendered.lines
    front = rendered.front
    assert set(front) <= CLAUDE_KEYS, front
    assert (front["name"], front["description"]) == (case.name, case.description)
    tools = front.get("tools")
    if isinstance(tools, str):
        tools = [t.strip() for t in tools.split(",")]
    # no `tools` key when the agent has none: `tools: ""` would leave it no tool at all
    assert tuple(tools or ()) == case.tools and ("tools" in front) == bool(case.tools)
    assert tuple(front.get("skills") or ()) == case.agent_skills
    assert front.get("model") == expected_model(installed)
    assert rendered.body == case.body
    for skill in case.skills:
        link = home / ".claude/skills" / skill
        assert link.is_symlink() and link.resolve() == (case.plugin / "skills" / skill).resolve()
    proven(
        "claude",
        f"[{case.key}] ~/.claude/agents/{case.name}.md: a regular file, the marker a YAML comment "
        "in the frontmatter, only name/description/tools/skills/model, the body byte for byte; "
        f"{', '.join(case.skills)} linked into ~/.claude/skills",
    )


def test_stream_json_lists_the_agent_and_skills_without_warning(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    with AnthropicStub() as stub:
        log = tmp_path / "debug.log"
        event = init_event(claude_env(home, stub), home, log)
        assert case.name in event["agents"], event["agents"]
        assert set(case.skills) <= set(event["skills"]), event["skills"]
        assert complaints(log, agent_file(installed)) == []
        # control: the same file plus a key Claude Code does not know draws a warning there
        scratch = make_home(tmp_path / "control")
        control = scratch / ".claude/agents" / f"{case.name}.md"
        with_front_line(agent_file(installed), "bogus: 1", control)
        log = tmp_path / "control.log"
        event = init_event(claude_env(scratch, stub), scratch, log)
        assert case.name in event["agents"]
        said = complaints(log, control)
        assert any("[WARN]" in line and '"bogus"' in line for line in said), said
    proven(
        "claude",
        f"[{case.key}] `claude -p --output-format stream-json --verbose hi` (stub): the init event "
        f"lists agent {case.name} and skills {', '.join(case.skills)}; the --debug-file log has "
        "no warning about the agent file (control: a bogus key is warned about there)",
    )


def test_agent_flag_makes_the_body_the_prompt(installed: Installed, proven: Proven) -> None:
    case, home = installed.case, installed.home
    with AnthropicStub(reply="stub reply") as stub:
        claude(claude_env(home, stub), home, "--agent", case.name, "-p", "hi")
        request = stub.wait_for(timeout=30)
    # Claude Code trims the body (leading/trailing whitespace) and keeps the rest, CRLF included
    assert case.body.strip() in request.system_texts()
    assert "rendered by skilltool" not in request.text
    if case.tools:
        assert tool_names(request) <= set(case.tools), tool_names(request)
    model = expected_model(installed)
    if model in CLAUDE_ALIASES:
        assert f"-{model}-" in request.json["model"], request.json["model"]
    proven(
        "claude",
        f"[{case.key}] `claude --agent {case.name} -p hi`: a system block of the request == the body "
        + ("trimmed (CRLF kept), no marker" if "\r" in case.body else "trimmed, no marker")
        + (f", tools limited to {', '.join(case.tools)}" if case.tools else "")
        + (f", model {request.json['model']}" if model in CLAUDE_ALIASES else ""),
    )


def delegate_to(name: str, body: str) -> Any:
    """A scripted stub: the main agent calls the Agent tool for `name`, the subagent answers."""

    def reply(request: Recorded) -> Any:
        if any(text.startswith(body) for text in request.system_texts()):
            return "subagent done"
        messages = request.json.get("messages") or [{}]
        content = messages[-1].get("content")
        if isinstance(content, list) and any(c.get("type") == "tool_result" for c in content):
            return "main done"
        if "Agent" in {tool["name"] for tool in request.json.get("tools", [])}:
            return [{"type": "tool_use", "name": "Agent", "input": {
                "description": "delegate", "prompt": "do the task", "subagent_type": name,
                "run_in_background": False}}]  # fmt: skip
        return "other"

    return reply


def test_a_subagent_gets_the_body_and_its_skills(installed: Installed, proven: Proven) -> None:
    case, home = installed.case, installed.home
    body = case.body.strip()
    with AnthropicStub(reply=delegate_to(case.name, body)) as stub:
        done = claude(claude_env(home, stub), home, "-p", "hi")
        assert "main done" in done.stdout
        request = stub.wait_for(lambda r: any(t.startswith(body) for t in r.system_texts()))
    # as a subagent the body is followed by Claude Code's note about the launching agent
    texts = request.texts()
    for skill in case.agent_skills:
        assert f"Base directory for this skill: {home}/.claude/skills/{skill}" in "\n".join(texts)
    if case.tools:
        assert tool_names(request) <= set(case.tools), tool_names(request)
    proven(
        "claude",
        f"[{case.key}] as a subagent (stub scripts an Agent tool call): the subagent request's "
        "system starts with the body trimmed, and each of its skills is preloaded from "
        "~/.claude/skills/<skill>",
    )


def test_plugin_validate_accepts_the_rendered_agents(installed: Installed, proven: Proven) -> None:
    case, home = installed.case, installed.home
    env = harness_env(home)
    done = run(["claude", "plugin", "validate", "--json", str(home / ".claude")], env, home, timeout=TIMEOUT)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["success"] is True, report
    said = {entry["file"]: entry for entry in report["contents"]}
    entry = said.get(str(agent_file(installed)))
    assert entry is None or (entry["errors"] == [] and entry["warnings"] == []), entry
    # the skill links are not read: it says so, as a warning on the skills directory
    skills = said[str(home / ".claude/skills")]
    assert any("symlink" in w["message"] for w in skills["warnings"]), skills
    proven(
        "claude",
        f"[{case.key}] `claude plugin validate --json ~/.claude` (offline): success, nothing "
        "said about the rendered agent; the skill links are not read (a warning says so)",
    )


def claude_version(home: Path) -> str:
    done = run(["claude", "--version"], harness_env(home), home, timeout=TIMEOUT)
    return done.stdout.split()[0]


def agent_option(session: dict[str, Any]) -> dict[str, Any]:
    [option] = [o for o in session.get("configOptions") or [] if o.get("id") == "agent"]
    assert isinstance(option, dict), option
    return option


def test_acp_selects_the_agent(installed: Installed, proven: Proven) -> None:
    need("claude", "claude-agent-acp")
    case, home = installed.case, installed.home
    how = installed.launch("claude")
    assert how["command"] == ["claude-agent-acp"]
    assert "CLAUDE_CODE_EXECUTABLE" not in how["env"]  # the host's business
    assert any("agent" in note and case.name in note for note in how["notes"]), how["notes"]
    body = case.body.strip()
    version = claude_version(home)
    with AnthropicStub(reply="stub reply") as stub:
        env = claude_env(home, stub, {"CLAUDE_CODE_EXECUTABLE": str(harness_bin() / "claude")})
        with AcpClient(how["command"], env=env, cwd=home) as acp:
            acp.initialize()
            # the `agent` config option
            session = acp.new_session(home, _meta=NO_PERMISSION_BYPASS)
            option = agent_option(session)
            assert case.name in [o["value"] for o in option["options"]], option
            sid = session["sessionId"]
            choose = {"sessionId": sid, "configId": "agent", "value": case.name}
            answer = acp.request("session/set_config_option", choose)
            assert agent_option(answer)["currentValue"] == case.name
            assert acp.prompt(sid, "hi", timeout=ACP_TIMEOUT)["stopReason"] == "end_turn"
            # _meta.claudeCode.options.agent in session/new
            meta = {"claudeCode": {"options": {**NO_PERMISSION_BYPASS["claudeCode"]["options"], "agent": case.name}}}  # fmt: skip
            session = acp.new_session(home, _meta=meta)
            assert agent_option(session)["currentValue"] == case.name
            result = acp.prompt(session["sessionId"], "hi", timeout=ACP_TIMEOUT)
            assert result["stopReason"] == "end_turn"
        requests = [r for r in stub.model_requests() if body in r.system_texts()]
        assert len(requests) == 2, [r.system_texts()[:3] for r in stub.model_requests()]
        for request in requests:
            # CLAUDE_CODE_EXECUTABLE picked the installed Claude Code, not the SDK's own
            assert request.headers["user-agent"].startswith(f"claude-cli/{version} "), (
                request.headers
            )
            assert "rendered by skilltool" not in request.text
    proven(
        "claude",
        f"[{case.key}] claude-agent-acp (CLAUDE_CODE_EXECUTABLE = claude {version}): session/new "
        f"offers agent option {case.name}; set_config_option agent and "
        "_meta.claudeCode.options.agent each give a request whose system holds the body trimmed",
    )


FOREIGN_AGENT = (
    "---\nname: plugin-author\ndescription: The user's own agent\n---\n"
    "My own Claude prompt, not skilltool's. ✓\n"
)


def test_a_foreign_agent_file_is_left_alone(tmp_path: Path, proven: Proven) -> None:
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, ("claude",))
    target = home / ".claude/agents" / f"{case.name}.md"
    target.parent.mkdir(parents=True)
    target.write_bytes(FOREIGN_AGENT.encode("utf-8"))

    def runs_the_users_agent() -> None:
        with AnthropicStub() as stub:
            claude(claude_env(home, stub), home, "--agent", case.name, "-p", "hi")
            request = stub.wait_for(timeout=30)
        assert "My own Claude prompt, not skilltool's. ✓" in request.system_texts()
        assert case.body.strip() not in request.system_texts()

    left_alone(
        home, case, tmp_path, target, f"~/.claude/agents/{case.name}.md", runs_the_users_agent
    )
    proven(
        "claude",
        "a user's own ~/.claude/agents/<name>.md is byte-for-byte untouched by install and "
        "uninstall, and `claude --agent <name>` runs the user's prompt before, between and after",
    )


def test_a_skill_only_in_the_shared_folder_is_not_seen(tmp_path: Path, proven: Proven) -> None:
    # why skilltool links every skill into ~/.claude/skills as well
    home = make_home(tmp_path)
    (home / ".claude").mkdir()
    shared = home / ".agents/skills/shared-only"
    shared.mkdir(parents=True)
    (shared / "SKILL.md").write_text("---\nname: shared-only\ndescription: Seen or not.\n---\nB.\n")
    own = home / ".claude/skills/own-only"
    own.mkdir(parents=True)
    (own / "SKILL.md").write_text("---\nname: own-only\ndescription: Seen or not.\n---\nB.\n")
    with AnthropicStub() as stub:
        event = init_event(claude_env(home, stub), home, tmp_path / "debug.log")
    assert "own-only" in event["skills"] and "shared-only" not in event["skills"], event["skills"]
    proven(
        "claude",
        "skills folders: the init event lists a skill of ~/.claude/skills and not one placed "
        "only in ~/.agents/skills",
    )
