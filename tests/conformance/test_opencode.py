"""OpenCode loads what skilltool renders: the agent, its prompt, the skills, and `opencode acp`."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.acp import AcpClient
from tests.conformance.homes import (
    ACP_TIMEOUT,
    Installed,
    bundled_case,
    harness_dirs,
    left_alone,
)
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import OpenAIStub, opencode_provider
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

AGENT_LINE = re.compile(r"^(\S+) \((primary|subagent|all)\)$", re.M)
INVALID = "Configuration is invalid"


@pytest.fixture(autouse=True)
def _opencode() -> None:
    need("opencode")


def opencode(env: dict[str, str], home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = run(["opencode", *args], env, home, timeout=60)
    assert INVALID not in done.stdout + done.stderr, done.stdout + done.stderr
    assert done.returncode == 0, done.stderr
    return done


def debug_agent(env: dict[str, str], home: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(opencode(env, home, "debug", "agent", name).stdout)
    return data


def test_agent_list_shows_the_agent_as_a_subagent(installed: Installed, proven: Proven) -> None:
    case = installed.case
    done = opencode(installed.env(), installed.home, "agent", "list")
    agents = dict(AGENT_LINE.findall(done.stdout))
    assert agents.get(case.name) == "subagent", done.stdout
    proven("opencode", f"[{case.key}] `opencode agent list` shows `{case.name} (subagent)`")


def test_debug_agent_prompt_is_the_body_trimmed(installed: Installed, proven: Proven) -> None:
    case = installed.case
    data = debug_agent(installed.env(), installed.home, case.name)
    assert data["name"] == case.name
    assert data["mode"] == "subagent"
    assert data["description"] == case.description
    assert data["prompt"] == case.body.strip()
    # the marker is a YAML comment: it lands nowhere (an unknown key would go to options)
    assert data.get("options") == {}
    assert "rendered by skilltool" not in json.dumps(data)
    model = case.models.get("opencode")
    if model:
        provider, model_id = model.split("/", 1)
        assert data["model"] == {"providerID": provider, "modelID": model_id}
    else:
        assert not data.get("model")
    proven(
        "opencode",
        f"[{case.key}] `opencode debug agent {case.name}`: mode subagent, description as written, "
        "prompt == body trimmed, the marker comment nowhere"
        + (f", model {model} (per-harness override)" if model else ""),
    )


def test_debug_skill_lists_the_linked_skills(installed: Installed, proven: Proven) -> None:
    case = installed.case
    done = opencode(installed.env(), installed.home, "debug", "skill")
    found = {s["name"]: s["location"] for s in json.loads(done.stdout)}
    skills_dir = installed.home / ".agents/skills"
    for skill in case.skills:
        assert found.get(skill) == str(skills_dir / skill / "SKILL.md"), found
    proven(
        "opencode",
        f"[{case.key}] `opencode debug skill` lists {', '.join(case.skills)} from ~/.agents/skills",
    )


def current_mode(session: dict[str, Any]) -> str | None:
    for option in session.get("configOptions") or []:
        if option.get("id") == "mode":
            return str(option.get("currentValue"))
    modes = session.get("modes") or {}
    return modes.get("currentModeId")


def test_acp_starts_as_the_agent(installed: Installed, proven: Proven) -> None:
    case, home = installed.case, installed.home
    how = installed.launch("opencode")
    assert how["command"] == ["opencode", "acp"]
    config = json.loads(how["env"]["OPENCODE_CONFIG_CONTENT"])
    # a subagent in the file; primary for this run only (default_agent needs a primary one)
    assert config == {"default_agent": case.name, "agent": {case.name: {"mode": "primary"}}}
    with OpenAIStub(reply="stub reply") as stub:
        merged = {**config, **opencode_provider(stub)}
        env = installed.env({"OPENCODE_CONFIG_CONTENT": json.dumps(merged)})
        with AcpClient(how["command"], env=env, cwd=home) as acp:
            acp.initialize()
            session = acp.new_session(home)
            assert current_mode(session) == case.name, session
            result = acp.prompt(session["sessionId"], "hi", timeout=ACP_TIMEOUT)
            assert result["stopReason"] == "end_turn"
        assert INVALID not in acp.stderr_text()
        body = case.body.strip()
        request = stub.wait_for(
            lambda r: r.kind == "chat" and any(body in t for t in r.system_texts()), timeout=30
        )
        # the agent's prompt replaces OpenCode's own and comes first; the marker is not sent
        assert request.system_texts()[0].startswith(body)
        assert "rendered by skilltool" not in request.text
    proven(
        "opencode",
        f"[{case.key}] `opencode acp` with OPENCODE_CONFIG_CONTENT from `skilltool plugins launch` "
        f"(+ stub provider): session/new mode == {case.name}; the model request's first system "
        "text starts with the body",
    )


FOREIGN_AGENT = (
    "---\ndescription: The user's own agent\nmode: primary\n---\n"
    "My own OpenCode prompt, not skilltool's. ✓\n"
)


def test_a_foreign_agent_file_is_left_alone(tmp_path: Path, proven: Proven) -> None:
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, ("opencode",))
    target = home / ".config/opencode/agent" / f"{case.name}.md"
    target.parent.mkdir(parents=True)
    target.write_bytes(FOREIGN_AGENT.encode("utf-8"))
    env = harness_env(home)

    def loads_the_users_agent() -> None:
        data = debug_agent(env, home, case.name)
        assert data["prompt"] == "My own OpenCode prompt, not skilltool's. ✓"
        assert data["description"] == "The user's own agent"

    left_alone(
        home,
        case,
        tmp_path,
        target,
        f"~/.config/opencode/agent/{case.name}.md",
        loads_the_users_agent,
    )
    proven(
        "opencode",
        "a user's own ~/.config/opencode/agent/<name>.md is byte-for-byte untouched by install "
        "and uninstall, and `opencode debug agent` shows the user's prompt before, between "
        "and after",
    )


def mode_choices(session: dict[str, Any]) -> list[str]:
    """The agents an ACP session offers as modes: OpenCode's primary-agent cycle (Tab), the
    agents neither `mode: subagent` nor `hidden`."""
    for option in session.get("configOptions") or []:
        if option.get("id") == "mode":
            return [str(o.get("value")) for o in option.get("options", [])]
    return [str(m["id"]) for m in (session.get("modes") or {}).get("availableModes", [])]


def test_plain_opencode_keeps_the_agent_out_of_its_primary_cycle(
    installed: Installed, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    with OpenAIStub(reply="stub reply") as stub:
        env = installed.env({"OPENCODE_CONFIG_CONTENT": json.dumps(opencode_provider(stub))})
        with AcpClient(["opencode", "acp"], env=env, cwd=home) as acp:
            acp.initialize()
            session = acp.new_session(home)
    choices = mode_choices(session)
    assert "build" in choices and case.name not in choices, choices
    assert current_mode(session) == "build"
    proven(
        "opencode",
        f"[{case.key}] plain `opencode acp`: session/new offers the modes {', '.join(choices)} "
        f"(the primary cycle), not {case.name}; `build` stays the default",
    )


MODE_VARIANTS = {"primary": "mode: primary\n", "all": "mode: all\n",
                 "subagent": "mode: subagent\n", "primary-hidden": "mode: primary\nhidden: true\n"}  # fmt: skip


@pytest.mark.parametrize("variant", sorted(MODE_VARIANTS))
def test_default_agent_alone_starts_only_a_primary_agent(
    variant: str, tmp_path: Path, proven: Proven
) -> None:
    """Why the rendering is a subagent made primary per launch: `default_agent` alone starts
    a visible primary agent only, and every such agent is in the Tab cycle."""
    home = make_home(tmp_path)
    name = f"v-{variant}"
    agent_dir = home / ".config/opencode/agent"
    agent_dir.mkdir(parents=True)
    front = f"---\ndescription: Variant {variant}\n{MODE_VARIANTS[variant]}---\n"
    (agent_dir / f"{name}.md").write_text(f"{front}BODY OF {name}\n")
    with OpenAIStub(reply="stub reply") as stub:
        config = {"default_agent": name, **opencode_provider(stub)}
        env = harness_env(home, {"OPENCODE_CONFIG_CONTENT": json.dumps(config)})
        with AcpClient(["opencode", "acp"], env=env, cwd=home) as acp:
            acp.initialize()
            session = acp.new_session(home)
    started = current_mode(session) == name
    assert started == (variant == "primary"), session
    assert (name in mode_choices(session)) == (variant in ("primary", "all"))
    proven(
        "opencode",
        f"`default_agent` alone with `{MODE_VARIANTS[variant].strip().replace(chr(10), ', ')}`: "
        + ("starts it" if started else "falls back to build")
        + (", and it is in the primary cycle" if name in mode_choices(session) else ""),
    )
