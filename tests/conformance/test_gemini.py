"""Gemini CLI loads what skilltool renders: the agent file passes its strict schema, the skills
are found, the main prompt lists the subagent and a delegation carries the body, all against a
loopback Gemini API stub. `gemini --acp` has no agent selector."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("skilltool.harnesses.gemini")

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
from tests.conformance.stub import GeminiStub, Recorded, gemini_model
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

# the keys of Gemini CLI 0.61's local agent schema (it is `.strict()`: any other key rejects
# the agent)
GEMINI_KEYS = {"kind", "name", "description", "display_name", "tools", "mcp_servers", "model",
               "temperature", "max_turns", "timeout_mins"}  # fmt: skip
# Gemini's name for each Claude Code tool name (seen valid in 0.61)
GEMINI_TOOLS = {"Read": "read_file", "Grep": "grep_search", "Glob": "glob", "LS": "list_directory",
                "Bash": "run_shell_command", "Edit": "replace", "MultiEdit": "replace",
                "Write": "write_file", "WebFetch": "web_fetch", "WebSearch": "google_web_search"}  # fmt: skip
VALID_TOOLS = {*GEMINI_TOOLS.values(), "activate_skill", "read_many_files", "write_todos"}
LOAD_ERROR = re.compile(r"Error loading user agent|Agent loading error")
# an explicit model: with the default `auto` Gemini first asks a small model to route the
# prompt (a JSON answer the stub does not give: five retries, ~90 s)
MODEL = "gemini-2.5-pro"


@pytest.fixture
def installed(second_wave: Installed) -> Installed:
    return second_wave


@pytest.fixture(autouse=True)
def _gemini() -> None:
    need("gemini")


def gemini_env(home: Path, stub: GeminiStub | None = None, extra: dict[str, str] | None = None) -> dict[str, str]:  # fmt: skip
    base = stub.base_url if stub else "http://127.0.0.1:9"
    return harness_env(home, {"GEMINI_API_KEY": "fake", "GOOGLE_GEMINI_BASE_URL": base, **(extra or {})})  # fmt: skip


def gemini(env: dict[str, str], home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = run(["gemini", *args], env, home, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def agent_file(installed: Installed) -> Path:
    return installed.home / ".gemini/agents" / f"{installed.case.name}.md"


def system_text(request: Recorded) -> str:
    return "\n".join(request.system_texts())


def function_names(request: Recorded) -> set[str]:
    return {
        d["name"] for t in request.json.get("tools", []) for d in t.get("functionDeclarations", [])
    }


def test_rendered_agent_passes_the_strict_schema(installed: Installed, proven: Proven) -> None:
    case = installed.case
    path = agent_file(installed)
    assert path.is_file() and not path.is_symlink()  # Gemini skips a symlink without a word
    rendered = rendered_agent(path)
    marker = rendered.marker()
    assert marker and marker.group(1) == str(case.source), rendered.lines
    front = rendered.front
    assert set(front) <= GEMINI_KEYS, front
    assert (front["name"], front["description"]) == (case.name, case.description)
    tools = front.get("tools", [])
    assert isinstance(tools, list) and set(tools) <= VALID_TOOLS, tools
    assert {GEMINI_TOOLS[t] for t in case.tools if t in GEMINI_TOOLS} <= set(tools)
    model = front.get("model")
    assert model == case.models.get("gemini") and (model is None or model.startswith("gemini-"))
    assert rendered.body == case.body
    proven(
        "gemini",
        f"[{case.key}] ~/.gemini/agents/{case.name}.md: a regular file, the marker a YAML comment, "
        f"only schema keys ({', '.join(sorted(front))}), tools {tools}, the body byte for byte",
    )


def test_skills_list_finds_the_skills_and_no_agent_error(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    done = gemini(gemini_env(home), home, "skills", "list")
    assert not LOAD_ERROR.search(done.stderr), done.stderr
    for skill in case.skills:
        location = home / ".agents/skills" / skill / "SKILL.md"
        assert re.search(rf"^{re.escape(skill)} \[Enabled\]$", done.stdout, re.M), done.stdout
        assert f"Location:    {location}" in done.stdout, done.stdout
    # control: Claude Code's rendering of the same agent (a tools string, a skills key) in
    # ~/.gemini/agents is rejected, and `skills list` says so
    scratch = make_home(tmp_path)
    harness_dirs(scratch, case.name, ("gemini",))
    control = scratch / ".gemini/agents" / f"{case.name}.md"
    control.parent.mkdir(parents=True)
    claude_file = installed.home / ".claude/agents" / f"{case.name}.md"
    control.write_bytes(text(claude_file).encode() if claude_file.is_file() else
                        f"---\nname: {case.name}\ndescription: d\ntools: Read, Grep\nskills: [x]\n---\nb\n".encode())  # fmt: skip
    done = gemini(gemini_env(scratch), scratch, "skills", "list")
    assert f"Error loading user agent: Failed to load agent from {control}: Validation failed" in done.stderr, done.stderr  # fmt: skip
    assert "Unrecognized key(s) in object: 'skills'" in done.stderr, done.stderr
    proven(
        "gemini",
        f"[{case.key}] `gemini skills list` (offline): {', '.join(case.skills)} found in "
        "~/.agents/skills, no agent load error (control: the Claude-format file is rejected with "
        "`Error loading user agent: … Unrecognized key(s) in object: 'skills'`)",
    )


def delegate_to(name: str, body: str) -> Callable[[Recorded], Any]:
    """A scripted stub: the main agent calls invoke_agent for `name`; the subagent finishes with
    complete_task; the main agent then answers."""

    def reply(request: Recorded) -> Any:
        contents = request.json.get("contents") or [{}]
        answered = any("functionResponse" in part for part in contents[-1].get("parts", []))
        if system_text(request).startswith(body):
            if "complete_task" in function_names(request) and not answered:
                return {"functionCall": {"name": "complete_task", "args": {"result": "subagent done"}}}  # fmt: skip
            return "subagent done"
        if answered:
            return "main done"
        if "invoke_agent" in function_names(request):
            return {"functionCall": {"name": "invoke_agent", "args": {"agent_name": name, "prompt": "do the task"}}}  # fmt: skip
        return "other"

    return reply


def test_the_prompt_lists_the_subagent_and_delegation_carries_the_body(
    installed: Installed, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    body = case.body.strip()
    front = rendered_agent(agent_file(installed)).front
    with GeminiStub(reply=delegate_to(case.name, body)) as stub:
        env = gemini_env(home, stub)
        done = run(["gemini", "-p", "hi", "--skip-trust", "-m", MODEL], env, home, timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "main done" in done.stdout
        assert not LOAD_ERROR.search(done.stderr), done.stderr
        main = stub.wait_for(lambda r: "invoke_agent" in function_names(r))
        sub = stub.wait_for(lambda r: system_text(r).startswith(body))
    # gemini-2.5-* models get `- name -> description`; gemini-3 ones an XML <subagent> list
    assert f"\n- {case.name} -> {case.description}\n" in system_text(main)
    # the body trimmed, CRLF kept, then Gemini's own "# Environment Context"
    assert system_text(sub).startswith(body + "\n\n")
    assert "rendered by skilltool" not in sub.text and "rendered by skilltool" not in main.text
    assert function_names(sub) <= {*front.get("tools", []), "complete_task"}, function_names(sub)
    assert gemini_model(sub) == front.get("model", MODEL)
    proven(
        "gemini",
        f"[{case.key}] `gemini -p hi --skip-trust -m {MODEL}` (stub): the system prompt lists "
        f"`- {case.name} -> <description>`; a scripted invoke_agent gives a subagent request whose "
        "system instruction starts with the body trimmed"
        + (" (CRLF kept)" if "\r" in case.body else "")
        + f", tools only from its list ({', '.join(sorted(function_names(sub)))})",
    )


def test_a_symlinked_agent_file_is_skipped_silently(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case = installed.case
    scratch = make_home(tmp_path)
    harness_dirs(scratch, case.name, ("gemini",))
    (scratch / ".gemini/agents").mkdir()
    os.symlink(agent_file(installed), scratch / ".gemini/agents" / f"{case.name}.md")
    with GeminiStub() as stub:
        done = gemini(gemini_env(scratch, stub), scratch, "-p", "hi", "--skip-trust", "-m", MODEL)
        request = stub.wait_for()
    assert f"- {case.name} -> " not in system_text(request)
    assert not LOAD_ERROR.search(done.stderr) and case.name not in done.stderr, done.stderr
    proven(
        "gemini",
        f"[{case.key}] the same agent file as a symlink in ~/.gemini/agents is not listed, and "
        "nothing is said (why skilltool writes a regular file)",
    )


def test_acp_has_no_agent_selector(installed: Installed, proven: Proven) -> None:
    case, home = installed.case, installed.home
    how = installed.launch("gemini")
    assert how["command"] == ["gemini", "--acp"]
    assert any("no agent option over ACP" in note for note in how["notes"]), how["notes"]
    with GeminiStub() as stub:
        env = gemini_env(home, stub, {"GEMINI_CLI_TRUST_WORKSPACE": "true"})
        with AcpClient([*how["command"], "-m", MODEL], env=env, cwd=home) as acp:
            acp.initialize()
            session = acp.new_session(home)
            options = [o.get("id") for o in session.get("configOptions") or []]
            assert "agent" not in options, session
            result = acp.prompt(session["sessionId"], "hi", timeout=ACP_TIMEOUT)
            assert result["stopReason"] == "end_turn"
        request = stub.wait_for()
    assert f"\n- {case.name} -> {case.description}\n" in system_text(request)
    proven(
        "gemini",
        f"[{case.key}] `gemini --acp` (stub): session/new offers no agent option (modes and "
        f"models only); the prompt's request lists the subagent {case.name}",
    )


FOREIGN_AGENT = (
    "---\nname: plugin-author\ndescription: The user's own agent\n---\n"
    "My own Gemini prompt, not skilltool's. ✓\n"
)


def test_a_foreign_agent_file_is_left_alone(tmp_path: Path, proven: Proven) -> None:
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, ("gemini",))
    target = home / ".gemini/agents" / f"{case.name}.md"
    target.parent.mkdir(parents=True)
    target.write_bytes(FOREIGN_AGENT.encode("utf-8"))

    def lists_the_users_agent() -> None:
        with GeminiStub() as stub:
            gemini(gemini_env(home, stub), home, "-p", "hi", "--skip-trust", "-m", MODEL)
            request = stub.wait_for()
        assert f"\n- {case.name} -> The user's own agent\n" in system_text(request)

    left_alone(
        home, case, tmp_path, target, f"~/.gemini/agents/{case.name}.md", lists_the_users_agent
    )
    proven(
        "gemini",
        "a user's own ~/.gemini/agents/<name>.md is byte-for-byte untouched by install and "
        "uninstall, and Gemini lists the user's agent before, between and after",
    )
