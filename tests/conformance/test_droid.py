"""Factory Droid loads what skilltool renders: `droid exec` against a loopback model (a custom
model of ~/.factory/settings.json) lists the rendered droid with its description and the
skills of ~/.agents/skills; a user's own droid file is left alone; and its ACP server, which
starts a session only with a Factory login or FACTORY_API_KEY, cannot start as a droid.

A droid's body reaching a model is not shown here: Droid runs a subagent (its Task tool) in a
daemon of its own, which `droid exec` could not reach offline ("Could not reach the daemon")."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("skilltool.harnesses.droid")

from skilltool.harnesses.droid import TOOL_NAMES
from tests.conformance.acp import AcpClient, AcpError
from tests.conformance.homes import (
    ACP_TIMEOUT,
    DROID,
    TIMEOUT,
    Installed,
    bundled_case,
    harness_dirs,
    install_home,
    rendered_agent,
    skilltool,
)
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import OpenAIStub, Recorded, Reply
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

MODEL = "custom:stub-0"  # the first custom model named `stub`, as Droid numbers them
DROID_OWN_PROMPT = "You are Droid, an AI software engineering agent built by Factory."


@pytest.fixture(scope="module", params=["bundled", "tricky"])
def installed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Installed:
    key: str = request.param
    return install_home(tmp_path_factory.mktemp(f"conformance-droid-{key}"), key, DROID)


@pytest.fixture(autouse=True)
def _droid() -> None:
    need("droid")


def stub_settings(root: Path, stub: OpenAIStub) -> None:
    """`<root>/settings.json` (a ~/.factory) with its other keys kept: the stub as the custom
    model `stub`; no cloud session sync, which would wait 5 s for a flush on exit; and
    `blockOnMcpLoad`, Droid's own setting that holds the first turn until its MCP servers
    answer (without it, on a busy machine, the request can go out before a server's tools
    are listed, and a row would read a slow start as a server not loaded)."""
    settings = root / "settings.json"
    data: dict[str, Any] = json.loads(settings.read_text()) if settings.exists() else {}
    model = {"model": "stub-model", "displayName": "stub", "baseUrl": stub.base_url}
    model.update(apiKey="dummy", provider="generic-chat-completion-api")
    data.update(customModels=[model], cloudSessionSync=False, blockOnMcpLoad=True)
    root.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(data, indent=2) + "\n")


def droid_exec(
    home: Path,
    cwd: Path,
    prompt: str,
    *args: str,
    reply: Reply = "droid done",
    env: dict[str, str] | None = None,
    factory: Path | None = None,
) -> tuple[subprocess.CompletedProcess[str], Recorded]:
    """`droid exec -m custom:stub-0 ARGS PROMPT` in `cwd`, its model the stub (written into
    `factory`, ~/.factory unless a variable moved it); the first request the model got."""
    cwd.mkdir(parents=True, exist_ok=True)
    with OpenAIStub(reply=reply) as stub:
        stub_settings(factory or home / ".factory", stub)
        argv = ["droid", "exec", "-m", MODEL, *args, prompt]
        done = run(argv, harness_env(home, env), cwd, timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
    return done, request


def strings(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for value in node.values() for s in strings(value)]
    if isinstance(node, list):
        return [s for value in node for s in strings(value)]
    return []


def said(request: Recorded) -> str:
    """Every text of a request, joined: the system prompt, the reminders, the messages."""
    return "\n".join(strings(request.json))


def section(text: str, title: str) -> str:
    """One of Droid's `<system-reminder>` lists: 'Available skills', 'Custom droids available'."""
    start = text.find(title)
    assert start >= 0, f"no {title!r} in the request"
    return text[start : text.find("</system-reminder>", start)]


def droid_line(name: str, description: str, where: str = "personal") -> str:
    return f"- {name}: {description} (location: {where})"


def test_the_rendered_droid_is_claudes_format_with_droids_tool_names(
    installed: Installed, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    path = home / ".factory/droids" / f"{case.name}.md"
    rendered = rendered_agent(path)
    marker = rendered.marker()
    assert marker is not None and marker.group(1) == str(case.source)
    tools = list(dict.fromkeys(TOOL_NAMES[t] for t in case.tools if t in TOOL_NAMES))
    if case.agent_skills:
        tools = list(dict.fromkeys([*tools, "Skill"]))
    want: dict[str, Any] = {"name": case.name, "description": case.description, "tools": tools}
    assert rendered.front == want, rendered.front
    assert rendered.body == case.body
    proven(
        "droid",
        f"[{case.key}] ~/.factory/droids/{case.name}.md: the marker a YAML comment; name, "
        f"description, tools by Droid's names ({', '.join(tools)}); the body byte for byte",
    )


def test_exec_lists_the_droid_and_the_skills(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    _, request = droid_exec(home, tmp_path / "work", "hi")
    text = said(request)
    assert DROID_OWN_PROMPT in "\n".join(request.system_texts())
    assert droid_line(case.name, case.description) in section(text, "Custom droids available")
    skills = section(text, "Available skills")
    for skill in case.skills:  # linked into ~/.agents/skills only
        assert re.search(rf"^{re.escape(skill)}: ", skills, re.M), (skill, skills)
    assert not (home / ".factory/skills").exists()
    proven(
        "droid",
        f"[{case.key}] `droid exec -m custom:stub-0 hi` (stub): the request lists the droid "
        f"under 'Custom droids available' ({case.name}: its description, location personal) "
        f"and the skills {', '.join(case.skills)}, linked only into ~/.agents/skills, under "
        "'Available skills'",
    )


FOREIGN_DROID = "---\nname: plugin-author\ndescription: The user's own droid\n---\nMINE.\n"


def test_a_users_own_droid_is_left_alone_and_the_skills_folders_it_reads(
    tmp_path: Path, proven: Proven
) -> None:
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, DROID)
    target = home / ".factory/droids" / f"{case.name}.md"
    target.parent.mkdir(parents=True)
    target.write_text(FOREIGN_DROID)
    for folder, name in ((".factory/skills", "own-only"), (".claude/skills", "claude-only")):
        (home / folder / name).mkdir(parents=True)
        (home / folder / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Seen or not.\n---\nB.\n"
        )
    before = target.read_bytes()
    done = skilltool(home, case, tmp_path, "install")
    assert done.returncode == 0, done.stderr
    assert f"left      ~/.factory/droids/{case.name}.md: " in done.stdout, done.stdout
    assert target.read_bytes() == before
    _, request = droid_exec(home, tmp_path / "work", "hi")
    text = said(request)
    assert droid_line(case.name, "The user's own droid") in section(text, "Custom droids")
    skills = section(text, "Available skills")
    for name in (*case.skills, "own-only"):
        assert re.search(rf"^{re.escape(name)}: ", skills, re.M), (name, skills)
    assert "claude-only" not in skills
    done = skilltool(home, case, tmp_path, "uninstall")
    assert done.returncode == 0, done.stderr
    assert target.read_bytes() == before
    proven(
        "droid",
        "a user's own ~/.factory/droids/<name>.md is untouched by install and uninstall, and "
        "is the droid Droid lists; skills folders: ~/.agents/skills and ~/.factory/skills "
        "are listed to the model, ~/.claude/skills is not",
    )


def test_launch_says_why_acp_cannot_start_as_a_droid(tmp_path: Path, proven: Proven) -> None:
    """`launch` refuses, and the ACP server shows why: session/new wants a login or
    FACTORY_API_KEY (any value starts a session offline), the session has no agent option,
    and the appended system prompt `droid exec` takes is left out over ACP."""
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, DROID)
    assert skilltool(home, case, tmp_path, "install").returncode == 0
    done = skilltool(home, case, tmp_path, "launch", case.name, "--harness", "droid")
    assert done.returncode == 1, done.stdout
    assert "Factory Droid cannot start as a custom droid over ACP" in done.stderr, done.stderr
    appended = tmp_path / "appended.md"
    appended.write_text("APPENDED PROMPT OF THE AGENT\n")
    argv = ["droid", "exec", "--output-format", "acp", "--append-system-prompt-file", str(appended)]
    cwd = tmp_path / "work"
    cwd.mkdir()
    with OpenAIStub(reply="acp done") as stub:
        stub_settings(home / ".factory", stub)
        with AcpClient(argv, env=harness_env(home), cwd=cwd) as acp:
            acp.initialize()
            with pytest.raises(AcpError, match="FACTORY_API_KEY"):
                acp.new_session(cwd)
        keyed = harness_env(home, {"FACTORY_API_KEY": "placeholder"})
        with AcpClient(argv, env=keyed, cwd=cwd) as acp:
            acp.initialize()
            session = acp.new_session(cwd)
            options = {o["id"] for o in session.get("configOptions", [])}
            assert "agent" not in options, options
            assert not any(m["id"] == case.name for m in session["modes"]["availableModes"])
            acp.request("session/set_model", {"sessionId": session["sessionId"], "modelId": MODEL})
            result = acp.prompt(session["sessionId"], "hi", timeout=ACP_TIMEOUT)
            assert result["stopReason"] == "end_turn"
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
    assert DROID_OWN_PROMPT in said(request)
    assert "APPENDED PROMPT OF THE AGENT" not in said(request)
    proven(
        "droid",
        "`droid exec --output-format acp`: session/new needs FACTORY_API_KEY (a placeholder "
        f"starts it offline); its config options ({', '.join(sorted(options))}) and modes "
        "choose no droid, and --append-system-prompt-file is left out of the request: "
        "`skilltool plugins launch --harness droid` says so and exits 1",
    )
