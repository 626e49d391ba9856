"""Copilot CLI loads what skilltool renders: the agent is available, its skills are found, and
`copilot --acp` with the `agent` config option sends the body (CRLF turned into LF) and the
agent's skills to a loopback OpenAI-compatible stub."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("skilltool.harnesses.copilot")

from tests.conformance.acp import AcpClient, AcpError
from tests.conformance.homes import (
    ACP_TIMEOUT,
    TIMEOUT,
    Installed,
    bundled_case,
    harness_dirs,
    left_alone,
    rendered_agent,
    text,
)
from tests.conformance.sandbox import DEAD_PROXY, harness_env, make_home, run
from tests.conformance.stub import OpenAIStub
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

COPILOT_KEYS = {"name", "description", "tools", "skills", "model"}
MODEL = "gpt-4.1"
AVAILABLE = re.compile(r"No such agent: nonexistent, available: (.*)$", re.M)
MALFORMED = (
    "custom agent markdown frontmatter is malformed: skills: Expected array, received string"
)


@pytest.fixture
def installed(second_wave: Installed) -> Installed:
    return second_wave


@pytest.fixture(autouse=True)
def _copilot() -> None:
    need("copilot")


def copilot_env(home: Path, base_url: str = f"{DEAD_PROXY}/v1") -> dict[str, str]:
    """Copilot with its own model provider (BYOK) at `base_url`, offline otherwise."""
    provider = {
        "COPILOT_PROVIDER_BASE_URL": base_url,
        "COPILOT_PROVIDER_API_KEY": "dummy",
        "COPILOT_MODEL": MODEL,
        "COPILOT_OFFLINE": "true",
    }
    return harness_env(home, provider)


def agent_file(installed: Installed) -> Path:
    return installed.home / ".copilot/agents" / f"{installed.case.name}.agent.md"


def available_agents(home: Path, cwd: Path) -> list[str]:
    """`copilot --agent nonexistent -p x` names the agents it has (exit 1, nothing sent)."""
    done = run(["copilot", "--agent", "nonexistent", "-p", "x"], copilot_env(home), cwd, timeout=TIMEOUT)  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    match = AVAILABLE.search(done.stderr)
    assert match, done.stderr
    return [name.strip() for name in match.group(1).split(",") if name.strip()]


def work_dir(root: Path) -> Path:
    """A working directory outside the home (in the home, ~/.agents/skills is also 'project')."""
    work = root / "work"
    work.mkdir(exist_ok=True)
    return work


def test_rendered_agent_file(installed: Installed, proven: Proven) -> None:
    case = installed.case
    path = agent_file(installed)
    assert path.is_file() and not path.is_symlink()
    rendered = rendered_agent(path)
    marker = rendered.marker()
    assert marker and marker.group(1) == str(case.source), rendered.lines
    front = rendered.front
    assert set(front) <= COPILOT_KEYS, front
    assert (front["name"], front["description"]) == (case.name, case.description)
    tools = front.get("tools") or []
    if isinstance(tools, str):
        tools = [t.strip() for t in tools.split(",")]
    assert tuple(tools) == case.tools
    # a YAML list: as a string, Copilot drops the whole agent without a word
    assert front.get("skills", []) == list(case.agent_skills) and isinstance(front.get("skills", []), list)  # fmt: skip
    assert front.get("model") == case.models.get("copilot")
    assert rendered.body == case.body
    proven(
        "copilot",
        f"[{case.key}] ~/.copilot/agents/{case.name}.agent.md: a regular file, the marker a YAML "
        "comment, skills a YAML list, the body byte for byte",
    )


def test_skill_list_finds_the_skills(installed: Installed, proven: Proven) -> None:
    case, home = installed.case, installed.home
    done = run(["copilot", "skill", "list", "--json"], copilot_env(home), work_dir(installed.root), timeout=TIMEOUT)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    found = {s["name"]: s for s in json.loads(done.stdout)}
    for skill in case.skills:
        assert found[skill]["path"] == str(home / ".agents/skills" / skill), found.get(skill)
        assert found[skill]["enabled"] is True
    proven(
        "copilot",
        f"[{case.key}] `copilot skill list --json` (offline): {', '.join(case.skills)} with path "
        f"~/.agents/skills/<skill> (source {found[case.skills[0]]['source']!r})",
    )


def test_the_agent_is_available(installed: Installed, tmp_path: Path, proven: Proven) -> None:
    case = installed.case
    assert case.name in available_agents(installed.home, work_dir(installed.root))
    # control: the same file with `skills` as a string makes the agent disappear silently;
    # only asking for it by name says why
    scratch = make_home(tmp_path)
    harness_dirs(scratch, case.name, ("copilot",))
    control = scratch / ".copilot/agents" / f"{case.name}.agent.md"
    control.parent.mkdir(parents=True)
    lines = [line if not line.startswith("skills:") else "skills: some-skill"
             for line in text(agent_file(installed)).split("\n")]  # fmt: skip
    if not any(line == "skills: some-skill" for line in lines):
        lines.insert(1, "skills: some-skill")
    control.write_bytes("\n".join(lines).encode())
    assert case.name not in available_agents(scratch, work_dir(tmp_path))
    done = run(["copilot", "--agent", case.name, "-p", "x"], copilot_env(scratch), work_dir(tmp_path), timeout=TIMEOUT)  # fmt: skip
    assert done.returncode == 1 and MALFORMED in done.stderr, done.stderr
    proven(
        "copilot",
        f"[{case.key}] `copilot --agent nonexistent -p x` (dead provider, COPILOT_OFFLINE): "
        f"`available:` lists {case.name} (control: with `skills:` a string it is gone, and "
        f"`--agent {case.name}` says `{MALFORMED}`)",
    )


def test_acp_agent_option_sends_the_body(installed: Installed, proven: Proven) -> None:
    case, home = installed.case, installed.home
    how = installed.launch("copilot")
    assert how["command"] == ["copilot", "--acp"]
    assert any("agent" in note and case.name in note for note in how["notes"]), how["notes"]
    work = work_dir(installed.root)
    with OpenAIStub(reply="stub reply") as stub:
        with AcpClient(how["command"], env=copilot_env(home, stub.base_url), cwd=work) as acp:
            acp.initialize()
            session = acp.new_session(work)
            [option] = [o for o in session["configOptions"] if o["id"] == "agent"]
            assert case.name in [o["value"] for o in option["options"]], option
            sid = session["sessionId"]
            with pytest.raises(AcpError, match="Custom agent 'nonexistent' not found"):
                acp.request("session/set_config_option",
                            {"sessionId": sid, "configId": "agent", "value": "nonexistent"})  # fmt: skip
            answer = acp.request("session/set_config_option",
                                 {"sessionId": sid, "configId": "agent", "value": case.name})  # fmt: skip
            [option] = [o for o in answer["configOptions"] if o["id"] == "agent"]
            assert option["currentValue"] == case.name
            assert acp.prompt(sid, "hi", timeout=ACP_TIMEOUT)["stopReason"] == "end_turn"
        request = stub.wait_for(timeout=30)
    [system] = request.system_texts()
    # Copilot turns CRLF into LF and trims the body; it sits in <agent_instructions>, after the
    # agent's skills, each as <skill-context name="…">
    body = case.body.replace("\r\n", "\n").strip()
    assert body in system
    if "\r" in case.body:
        assert case.body.strip() not in system
    for skill in case.agent_skills:
        assert f'<skill-context name="{skill}">' in system, skill
    assert "rendered by skilltool" not in request.text
    proven(
        "copilot",
        f"[{case.key}] `copilot --acp` (stub provider): session/set_config_option agent = "
        f"{case.name} (an unknown name is an error); the request's system message holds the body "
        + ("with CRLF turned into LF" if "\r" in case.body else "trimmed")
        + " and the agent's skills as <skill-context>, not the marker",
    )


FOREIGN_AGENT = (
    "---\nname: plugin-author\ndescription: The user's own agent\n---\n"
    "My own Copilot prompt, not skilltool's. ✓\n"
)


def test_a_foreign_agent_file_is_left_alone(tmp_path: Path, proven: Proven) -> None:
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, ("copilot",))
    target = home / ".copilot/agents" / f"{case.name}.agent.md"
    target.parent.mkdir(parents=True)
    target.write_bytes(FOREIGN_AGENT.encode("utf-8"))
    work = work_dir(tmp_path)

    def sends_the_users_prompt() -> None:
        with OpenAIStub() as stub:
            with AcpClient(["copilot", "--acp"], env=copilot_env(home, stub.base_url), cwd=work) as acp:  # fmt: skip
                acp.initialize()
                sid = acp.new_session(work)["sessionId"]
                acp.request("session/set_config_option",
                            {"sessionId": sid, "configId": "agent", "value": case.name})  # fmt: skip
                acp.prompt(sid, "hi", timeout=ACP_TIMEOUT)
            [system] = stub.wait_for(timeout=30).system_texts()
        assert "My own Copilot prompt, not skilltool's. ✓" in system
        assert case.body.strip() not in system

    left_alone(
        home,
        case,
        tmp_path,
        target,
        f"~/.copilot/agents/{case.name}.agent.md",
        sends_the_users_prompt,
    )
    proven(
        "copilot",
        "a user's own ~/.copilot/agents/<name>.agent.md is byte-for-byte untouched by install "
        "and uninstall, and `copilot --acp` with agent = <name> sends the user's prompt before, "
        "between and after",
    )
