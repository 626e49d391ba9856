"""Mistral Vibe loads what skilltool renders: its ACP lists the agent as a mode and starts in it
from VIBE_DEFAULT_AGENT, `vibe -p --agent NAME` sends the prompt file to a loopback stub in place
of Vibe's own prompt, the skills of ~/.agents/skills reach the model, and a user's own agent file
is left alone."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("skilltool.harnesses.vibe")

from tests.conformance.acp import AcpClient
from tests.conformance.homes import (
    ACP_TIMEOUT,
    FOURTH_WAVE,
    TIMEOUT,
    Installed,
    bundled_case,
    harness_dirs,
    install_home,
    left_alone,
    text,
)
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import OpenAIStub, Recorded
from tests.conformance.support import Proven, need
from tests.helpers import toml_loads

pytestmark = pytest.mark.conformance

MARKER = "# rendered by skilltool from "
VIBE_OWN_PROMPT = "You are Mistral Vibe, a CLI coding agent"


@pytest.fixture(scope="module", params=["bundled", "tricky"])
def installed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Installed:
    key: str = request.param
    return install_home(tmp_path_factory.mktemp(f"conformance4-{key}"), key, FOURTH_WAVE)


@pytest.fixture(autouse=True)
def _vibe() -> None:
    need("vibe", "vibe-acp")


def stub_config(home: Path, stub: OpenAIStub) -> None:
    """~/.vibe/config.toml: one OpenAI-compatible provider, the stub; no telemetry."""
    (home / ".vibe/config.toml").write_text(
        'active_model = "stub"\nenable_telemetry = false\nenable_update_checks = false\n'
        f'[[providers]]\nname = "stub"\napi_base = "{stub.base_url}"\n'
        'api_key_env_var = "STUB_API_KEY"\n'
        '[[models]]\nname = "stub-model"\nprovider = "stub"\nalias = "stub"\n'
    )


def vibe_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    return harness_env(home, {"STUB_API_KEY": "dummy", **(extra or {})})


def system_text(request: Recorded) -> str:
    return "\n".join(request.system_texts())


def prompt_of(installed: Installed) -> str:
    """The prompt file as Vibe reads it: the whole text, stripped."""
    path = installed.home / ".vibe/prompts" / f"{installed.case.name}.md"
    return path.read_text(encoding="utf-8").strip()


def headless(home: Path, cwd: Path, name: str) -> tuple[subprocess.CompletedProcess[str], Recorded]:
    cwd.mkdir(exist_ok=True)
    with OpenAIStub(reply="vibe done") as stub:
        stub_config(home, stub)
        done = run(["vibe", "-p", "hi", "--agent", name], vibe_env(home), cwd, timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
    return done, request


def test_rendered_agent_names_its_prompt_file(installed: Installed, proven: Proven) -> None:
    case, home = installed.case, installed.home
    agent = text(home / ".vibe/agents" / f"{case.name}.toml")
    prompt = text(home / ".vibe/prompts" / f"{case.name}.md")
    assert agent.startswith(MARKER + str(case.source)), agent
    assert prompt.startswith("<!-- rendered by skilltool from " + str(case.source)), prompt
    table = toml_loads(agent)
    assert table == {"agent_type": "agent", "description": case.description,
                     "system_prompt_id": f"{case.name}.md"}  # fmt: skip
    assert prompt.endswith(case.body)
    proven(
        "vibe",
        f"[{case.key}] ~/.vibe/agents/{case.name}.toml (marker a TOML comment; agent_type, "
        f"description, system_prompt_id) and ~/.vibe/prompts/{case.name}.md (marker an HTML "
        "comment, heading, the body byte for byte)",
    )


def test_a_headless_run_as_the_agent_sends_its_prompt(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    done, request = headless(home, tmp_path / "project", case.name)
    assert "vibe done" in done.stdout
    system = system_text(request)
    assert prompt_of(installed) in system  # the prompt file, stripped: the marker comment too
    assert VIBE_OWN_PROMPT not in system  # in place of Vibe's own `cli` prompt
    listed = request.text
    for skill in case.skills:  # linked into ~/.agents/skills only
        assert f"<name>{skill}</name>" in listed, skill  # (its path shown is the link's target)
    assert not (home / ".vibe/skills").exists()
    proven(
        "vibe",
        f"[{case.key}] `vibe -p hi --agent {case.name}` (stub): the system message holds the "
        "prompt file (stripped, its marker comment included) in place of Vibe's own prompt; the "
        f"skills {', '.join(case.skills)}, linked only into ~/.agents/skills, are in "
        "<available-skills>",
    )


def test_acp_lists_the_agent_and_starts_in_it(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    how = installed.launch("vibe")
    assert how["command"] == ["vibe-acp"]
    assert how["env"] == {"VIBE_DEFAULT_AGENT": case.name}
    cwd = tmp_path / "project"
    cwd.mkdir()
    with OpenAIStub(reply="acp done") as stub:
        stub_config(home, stub)
        with AcpClient(how["command"], env=vibe_env(home, how["env"]), cwd=cwd) as acp:
            acp.initialize()
            session = acp.new_session(cwd)
            modes = session["modes"]
            assert modes["currentModeId"] == case.name, modes
            [mode] = [m for m in modes["availableModes"] if m["id"] == case.name]
            assert mode["description"] == case.description
            result = acp.prompt(session["sessionId"], "hi", timeout=ACP_TIMEOUT)
            assert result["stopReason"] == "end_turn"
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
    assert prompt_of(installed) in system_text(request)
    proven(
        "vibe",
        f"[{case.key}] `VIBE_DEFAULT_AGENT={case.name} vibe-acp` (stub): session/new lists the "
        "agent among the modes with its description and starts in it; the prompt's request "
        "holds the prompt file",
    )


FOREIGN_AGENT = 'agent_type = "agent"\ndescription = "The user\'s own agent"\n'


def test_a_foreign_agent_file_is_left_alone(tmp_path: Path, proven: Proven) -> None:
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, FOURTH_WAVE)
    target = home / ".vibe/agents" / f"{case.name}.toml"
    target.parent.mkdir(parents=True)
    target.write_text(FOREIGN_AGENT)

    def lists_the_users_agent() -> None:
        with OpenAIStub(reply="ok") as stub:
            stub_config(home, stub)
            cwd = tmp_path / "project"
            cwd.mkdir(exist_ok=True)
            with AcpClient(["vibe-acp"], env=vibe_env(home), cwd=cwd) as acp:
                acp.initialize()
                modes = acp.new_session(cwd)["modes"]["availableModes"]
        assert {"id": case.name, "name": "Plugin Author",
                "description": "The user's own agent"} in modes, json.dumps(modes)  # fmt: skip

    left_alone(
        home, case, tmp_path, target, f"~/.vibe/agents/{case.name}.toml", lists_the_users_agent
    )
    proven(
        "vibe",
        "a user's own ~/.vibe/agents/<name>.toml is byte-for-byte untouched by install and "
        "uninstall, and Vibe's ACP lists the user's agent before, between and after",
    )


def test_skills_folders_are_both_read(tmp_path: Path, proven: Proven) -> None:
    home = make_home(tmp_path)
    harness_dirs(home, "none", FOURTH_WAVE)
    for folder, name in ((".agents/skills", "shared-only"), (".vibe/skills", "own-only")):
        (home / folder / name).mkdir(parents=True)
        (home / folder / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Seen or not.\n---\nB.\n"
        )
    with OpenAIStub(reply="done") as stub:
        stub_config(home, stub)
        (tmp_path / "project").mkdir()
        done = run(["vibe", "-p", "hi"], vibe_env(home), tmp_path / "project", timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        listed = stub.wait_for(lambda r: r.kind == "chat", timeout=30).text
    for folder, name in ((".agents/skills", "shared-only"), (".vibe/skills", "own-only")):
        assert f"<path>{home}/{folder}/{name}/SKILL.md</path>" in listed, name
    proven(
        "vibe", "skills folders: both ~/.agents/skills and ~/.vibe/skills are listed to the model"
    )
