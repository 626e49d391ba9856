"""Kimi Code loads what skilltool renders: `kimi -p --agent NAME` sends the agent's body as the
whole system prompt with its tools mapped to Kimi's names, Kimi's own agent offers it as a
subagent (its Agent tool) and lists the skills of ~/.agents/skills, `kimi acp` answers a
prompt with the agent offered there, and a user's own agent file is left alone.

Each run is `kimi` against the loopback stub, given as Kimi's model by its environment
(KIMI_MODEL_NAME, KIMI_MODEL_API_KEY, KIMI_MODEL_PROVIDER_TYPE=openai, KIMI_MODEL_BASE_URL)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("skilltool.harnesses.kimi")

from skilltool.harnesses.kimi import kimi_tools
from tests.conformance.acp import AcpClient
from tests.conformance.homes import (
    ACP_TIMEOUT,
    KIMI,
    TIMEOUT,
    Installed,
    bundled_case,
    harness_dirs,
    install_home,
    left_alone,
    rendered_agent,
)
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import OpenAIStub, Recorded
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

KIMI_OWN_PROMPT = "You are Kimi Code CLI, an interactive general AI agent"


@pytest.fixture(scope="module", params=["bundled", "tricky"])
def installed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Installed:
    key: str = request.param
    return install_home(tmp_path_factory.mktemp(f"conformance-kimi-{key}"), key, KIMI)


@pytest.fixture(autouse=True)
def _kimi() -> None:
    need("kimi")


def kimi_env(home: Path, stub: OpenAIStub, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The stub as Kimi Code's model, by its environment alone (no config.toml)."""
    model = {
        "KIMI_MODEL_NAME": "stub-model",
        "KIMI_MODEL_API_KEY": "dummy",
        "KIMI_MODEL_PROVIDER_TYPE": "openai",
        "KIMI_MODEL_BASE_URL": stub.base_url,
    }
    return harness_env(home, {**model, **(extra or {})})


def prompted(
    home: Path, cwd: Path, *args: str, extra: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], Recorded]:
    """`kimi -p hi ARGS` against the stub: its output, and the first request it sent."""
    cwd.mkdir(parents=True, exist_ok=True)
    with OpenAIStub(reply="kimi done") as stub:
        done = run(["kimi", "-p", "hi", *args], kimi_env(home, stub, extra), cwd, timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
    assert "kimi done" in done.stdout
    return done, request


def system_of(request: Recorded) -> str:
    [system] = [m["content"] for m in request.json["messages"] if m["role"] == "system"]
    return str(system)


def tools_of(request: Recorded) -> dict[str, str]:
    """Each tool of a request, by name: its description."""
    return {t["function"]["name"]: t["function"]["description"] for t in request.json["tools"]}


def agent_types(request: Recorded) -> dict[str, str]:
    """The agents the Agent tool offers: name -> description, as it lists them."""
    listed = tools_of(request)["Agent"].split("(pass via subagent_type):", 1)[1]
    return dict(re.findall(r"^- ([a-z0-9-]+): (.*)$", listed, re.M))


def skills_listed(request: Recorded) -> dict[str, str]:
    """The skills of the system prompt's listing: name -> the path it was read from."""
    listing = system_of(request).split("Current available skills:", 1)[1]
    return dict(re.findall(r"^- ([^:\n]+): .*\n  Path: (.*)$", listing, re.M))


def body_as_kimi_reads_it(installed: Installed) -> str:
    """The body Kimi Code takes from the rendering: its lines joined by LF, trimmed."""
    return installed.case.body.replace("\r\n", "\n").strip()


def test_rendered_agent_is_in_kimis_own_format(installed: Installed, proven: Proven) -> None:
    case, home = installed.case, installed.home
    rendered = rendered_agent(home / ".kimi-code/agents" / f"{case.name}.md")
    marker = rendered.marker()
    assert marker is not None and marker.group(1) == str(case.source)
    assert rendered.front == {
        "name": case.name,
        "description": case.description,
        "tools": kimi_tools(case.tools, bool(case.agent_skills)),
    }
    assert rendered.body == case.body
    proven(
        "kimi",
        f"[{case.key}] ~/.kimi-code/agents/{case.name}.md: marker a YAML comment, name, "
        "description, tools by Kimi's names; the body byte for byte",
    )


def test_a_run_as_the_agent_sends_its_body_and_only_its_tools(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    _, request = prompted(home, tmp_path / "project", "--agent", case.name)
    assert system_of(request) == body_as_kimi_reads_it(installed)
    assert sorted(tools_of(request)) == sorted(kimi_tools(case.tools, bool(case.agent_skills)))
    proven(
        "kimi",
        f"[{case.key}] `kimi -p hi --agent {case.name}` (stub): the system message is the body "
        "(CRLF read as LF, trimmed) in place of Kimi's own prompt, and the request offers "
        f"exactly the agent's tools by Kimi's names ({', '.join(sorted(tools_of(request)))})",
    )


def test_kimis_own_agent_offers_it_and_lists_the_linked_skills(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    _, request = prompted(home, tmp_path / "project")
    assert KIMI_OWN_PROMPT in system_of(request)
    assert agent_types(request)[case.name] == case.description
    listed = skills_listed(request)
    for skill in case.skills:  # linked into ~/.agents/skills only
        assert listed[skill] == f"{home}/.agents/skills/{skill}/SKILL.md", listed
    assert not (home / ".kimi-code/skills").exists()
    proven(
        "kimi",
        f"[{case.key}] `kimi -p hi` (stub): the Agent tool offers {case.name} with its "
        f"description; the skills {', '.join(case.skills)}, linked only into ~/.agents/skills, "
        "are in the system prompt's listing",
    )


def test_acp_answers_a_prompt_and_offers_the_agent(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    how = installed.launch("kimi")
    assert (how["command"], how["env"]) == (["kimi", "acp"], {})
    cwd = tmp_path / "project"
    cwd.mkdir()
    with OpenAIStub(reply="acp done") as stub:
        with AcpClient(how["command"], env=kimi_env(home, stub), cwd=cwd) as acp:
            acp.initialize()
            session = acp.new_session(cwd)
            result = acp.prompt(session["sessionId"], "hi", timeout=ACP_TIMEOUT)
            assert result["stopReason"] == "end_turn"
            assert "acp done" in acp.agent_text()
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
    assert agent_types(request)[case.name] == case.description
    options: list[dict[str, Any]] = session["configOptions"]
    assert [o["id"] for o in options if o["id"] == "agent"] == []  # no agent to choose
    proven(
        "kimi",
        f"[{case.key}] `kimi acp` (stub): a prompt is answered; the session is Kimi's own agent "
        f"(no agent option), whose Agent tool offers {case.name}",
    )


FOREIGN_AGENT = "---\nname: plugin-author\ndescription: The user's own agent\n---\nMine.\n"


def test_a_foreign_agent_file_is_left_alone(tmp_path: Path, proven: Proven) -> None:
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, KIMI)
    target = home / ".kimi-code/agents" / f"{case.name}.md"
    target.parent.mkdir(parents=True)
    target.write_text(FOREIGN_AGENT)

    def offers_the_users_agent() -> None:
        _, request = prompted(home, tmp_path / "project")
        assert agent_types(request)[case.name] == "The user's own agent"

    shown = f"~/.kimi-code/agents/{case.name}.md"
    left_alone(home, case, tmp_path, target, shown, offers_the_users_agent)
    proven(
        "kimi",
        "a user's own ~/.kimi-code/agents/<name>.md is byte-for-byte untouched by install and "
        "uninstall, and Kimi's Agent tool offers the user's agent before, between and after",
    )


def test_both_skills_folders_are_read_and_what_it_does_to_an_agent(
    tmp_path: Path, proven: Proven
) -> None:
    home = make_home(tmp_path)
    for folder, name in ((".agents/skills", "shared-only"), (".kimi-code/skills", "own-only")):
        (home / folder / name).mkdir(parents=True)
        (home / folder / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Seen or not.\n---\nB.\n"
        )
    agents = home / ".kimi-code/agents"
    agents.mkdir()
    for name in ("kebab-ok", "my.agent", "My-Agent", "my_agent", "empty-body"):
        body = "" if name == "empty-body" else "Body in ${cwd}, not ${HOME}.\n"
        (agents / f"{name}.md").write_text(f"---\nname: {name}\ndescription: D.\n---\n{body}")
    _, request = prompted(home, tmp_path / "project")
    listed = skills_listed(request)
    for folder, name in ((".agents/skills", "shared-only"), (".kimi-code/skills", "own-only")):
        assert listed[name] == f"{home}/{folder}/{name}/SKILL.md", listed
    offered = set(agent_types(request)) - {"coder", "explore", "plan"}
    assert offered == {"kebab-ok"}, json.dumps(sorted(offered))
    _, request = prompted(home, tmp_path / "project", "--agent", "kebab-ok")
    assert system_of(request) == f"Body in {tmp_path / 'project'}, not ${{HOME}}."
    proven(
        "kimi",
        "skills folders: both ~/.agents/skills and ~/.kimi-code/skills are listed to the model; "
        "an agent named my.agent, My-Agent or my_agent, or with an empty body, is skipped "
        "(as skilltool's refusal says); Kimi fills in its own ${cwd} of a body (the working "
        "folder), and leaves ${HOME} as written",
    )
