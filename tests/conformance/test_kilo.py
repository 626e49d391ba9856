"""Kilo Code CLI loads what skilltool renders: the agent (and not a Claude-format control), its
prompt, the skills, and `kilo acp` started as the agent against a loopback stub."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("skilltool.harnesses.kilo")

from tests.conformance.acp import AcpClient
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
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import OpenAIStub, opencode_provider
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

AGENT_LINE = re.compile(r"^(\S+) \((primary|subagent|all)\)$", re.M)
# Kilo's own agents (7.7.7), listed before the user's
BUILT_IN = {"ask", "code", "compaction", "debug", "explore", "general", "orchestrator", "plan",
            "summary", "title"}  # fmt: skip


@pytest.fixture
def installed(third_wave: Installed) -> Installed:
    return third_wave


@pytest.fixture(autouse=True)
def _kilo() -> None:
    need("kilo")


def kilo(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A kilo command, its stdout through a file: Kilo 7.7.7 exits before a pipe is drained,
    cutting `agent list` (over 100 KB) at the pipe's buffer."""
    out = Path(env["TMPDIR"]) / "kilo-stdout.txt"
    argv = ["sh", "-c", 'exec "$@" >"$KILO_STDOUT"', "sh", "kilo", *args]
    done = run(argv, {**env, "KILO_STDOUT": str(out)}, cwd, timeout=TIMEOUT)
    done.stdout = out.read_text(encoding="utf-8")
    assert "Configuration is invalid" not in done.stdout + done.stderr, done.stderr
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    return done


def agent_file(installed: Installed) -> Path:
    return installed.home / ".config/kilo/agents" / f"{installed.case.name}.md"


def test_agent_list_shows_the_agent_and_drops_a_claude_tools_string(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    front = rendered_agent(agent_file(installed)).front
    assert set(front) <= {"description", "mode", "model"}, front  # never `tools`
    done = kilo(installed.env(), home, "agent", "list")
    agents = dict(AGENT_LINE.findall(done.stdout))
    assert agents.get(case.name) == "primary", agents
    assert set(agents) >= BUILT_IN, agents
    proven(
        "kilo",
        f"[{case.key}] `kilo agent list` shows `{case.name} (primary)` beside Kilo's own agents "
        f"(keys {', '.join(sorted(front))})",
    )
    if case.key != "bundled":
        return  # the control once is enough (each kilo run takes seconds)
    # control: the same file with a Claude tools line is dropped without a word on the terminal
    scratch = make_home(tmp_path)
    harness_dirs(scratch, case.name, ("kilo",))
    control = scratch / ".config/kilo/agents" / f"{case.name}.md"
    control.parent.mkdir(parents=True)
    first, rest = text(agent_file(installed)).split("\n", 1)
    control.write_bytes(f"{first}\ntools: Read, Grep\n{rest}".encode())
    done = kilo(harness_env(scratch), scratch, "agent", "list")
    assert set(dict(AGENT_LINE.findall(done.stdout))) >= BUILT_IN, done.stdout[-2000:]
    assert case.name not in dict(AGENT_LINE.findall(done.stdout))
    logs = "".join(text(p) for p in (scratch / ".local/share/kilo/log").glob("*.log"))
    assert 'tools: Expected object | undefined, got "Read, Grep"' in logs
    proven(
        "kilo",
        "control: the same file with `tools: Read, Grep` is missing from `kilo agent list`, "
        "said only in Kilo's log (why skilltool never writes `tools`)",
    )


def test_debug_agent_prompt_is_the_body_trimmed(installed: Installed, proven: Proven) -> None:
    case = installed.case
    done = kilo(installed.env(), installed.home, "debug", "agent", case.name)
    data: dict[str, Any] = json.loads(done.stdout)
    assert (data["name"], data["mode"], data["native"]) == (case.name, "primary", False)
    assert data["description"] == case.description
    assert data["prompt"] == case.body.strip()
    assert data.get("options") == {}  # the marker is a YAML comment: it lands nowhere
    assert "rendered by skilltool" not in done.stdout
    model = case.models.get("kilo")
    if model:
        provider, model_id = model.split("/", 1)
        assert data["model"] == {"providerID": provider, "modelID": model_id}
    else:
        assert not data.get("model")
    proven(
        "kilo",
        f"[{case.key}] `kilo debug agent {case.name}`: mode primary, description as written, "
        "prompt == body trimmed, the marker comment nowhere"
        + (f", model {model} (per-harness override)" if model else ""),
    )


def test_debug_skill_lists_the_linked_skills(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    project = tmp_path / "project"
    project.mkdir()

    def found(cwd: Path) -> dict[str, str]:
        done = kilo(installed.env(), cwd, "debug", "skill")
        return {s["name"]: s["location"] for s in json.loads(done.stdout)}

    skills = found(project)
    for skill in case.skills:
        assert skills.get(skill) == str(home / ".agents/skills" / skill / "SKILL.md"), skills
    proven(
        "kilo",
        f"[{case.key}] `kilo debug skill` (from a project folder) lists {', '.join(case.skills)} "
        "from ~/.agents/skills, links followed",
    )
    if case.key == "bundled":
        # started in the home folder itself, Kilo reads ~/.agents/skills as the project's and
        # follows no link there: the linked skills are missing (7.7.7)
        assert not set(case.skills) & set(found(home))
        proven("kilo", "started in the home folder itself, `kilo debug skill` lists none of the "
                       "linked skills of ~/.agents/skills")  # fmt: skip


def current_mode(session: dict[str, Any]) -> str | None:
    for option in session.get("configOptions") or []:
        if option.get("id") == "mode":
            return str(option.get("currentValue"))
    return None


def test_acp_starts_as_the_agent(installed: Installed, tmp_path: Path, proven: Proven) -> None:
    case = installed.case
    how = installed.launch("kilo")
    assert how["command"] == ["kilo", "acp"]
    config = json.loads(how["env"]["KILO_CONFIG_CONTENT"])
    assert config == {"default_agent": case.name}
    cwd = tmp_path / "project"
    cwd.mkdir()
    with OpenAIStub(reply="stub reply") as stub:
        env = installed.env(
            {"KILO_CONFIG_CONTENT": json.dumps({**config, **opencode_provider(stub)})}
        )
        with AcpClient(how["command"], env=env, cwd=cwd) as acp:
            acp.initialize()
            session = acp.new_session(cwd)
            assert current_mode(session) == case.name, session
            result = acp.prompt(session["sessionId"], "hi", timeout=ACP_TIMEOUT)
            assert result["stopReason"] == "end_turn"
        body = case.body.strip()
        request = stub.wait_for(
            lambda r: r.kind == "chat" and any(body in t for t in r.system_texts()), timeout=30
        )
    # unlike OpenCode, Kilo keeps its own prompt and puts the agent's after it
    [system] = request.system_texts()
    assert system.startswith("You are Kilo") and system.index(body) > 0
    assert "rendered by skilltool" not in request.text
    proven(
        "kilo",
        f"[{case.key}] `kilo acp` with KILO_CONFIG_CONTENT from `skilltool plugins launch` "
        f"(+ stub provider): session/new mode == {case.name}; the model request's system text "
        "holds the body trimmed, after Kilo's own prompt",
    )


FOREIGN_AGENT = (
    "---\ndescription: The user's own agent\nmode: primary\n---\n"
    "My own Kilo prompt, not skilltool's. ✓\n"
)


def test_a_foreign_agent_file_is_left_alone(tmp_path: Path, proven: Proven) -> None:
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, ("kilo",))
    target = home / ".config/kilo/agents" / f"{case.name}.md"
    target.parent.mkdir(parents=True)
    target.write_bytes(FOREIGN_AGENT.encode("utf-8"))
    env = harness_env(home)

    def loads_the_users_agent() -> None:
        data = json.loads(kilo(env, home, "debug", "agent", case.name).stdout)
        assert data["prompt"] == "My own Kilo prompt, not skilltool's. ✓"

    left_alone(
        home, case, tmp_path, target, f"~/.config/kilo/agents/{case.name}.md", loads_the_users_agent
    )
    proven(
        "kilo",
        "a user's own ~/.config/kilo/agents/<name>.md is byte-for-byte untouched by install and "
        "uninstall, and `kilo debug agent` shows the user's prompt before, between and after",
    )
