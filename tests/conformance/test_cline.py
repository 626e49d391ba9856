"""Cline CLI loads what skilltool renders: with a loopback model (`cline auth -p
openai-compatible -b <stub>`), `cline -P openai-compatible -m M --json "…"` offers the rendered
agent as the tool `subagent_<name>` (and, when the model calls it, sends the agent's body as
the subagent's whole system prompt with only the tools it names), lists the skills of
~/.agents/skills in its `skills` tool, offers the plugin's MCP server's tools as
`<server>__<tool>`, and expands a `/workflow` into the user message; a user's own agent file is
left alone; and its ACP server starts no session before a sign-in and has no agent option.

Cline leaves a `--cline-hub-daemon` process running after each run: every run here gives it a
port of its own (CLINE_HUB_PORT) and ends the daemons started under the test's home."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("skilltool.harnesses.cline")

from skilltool.harnesses.cline import TOOL_NAMES, subagent_tool
from tests.conformance.acp import AcpClient, AcpError
from tests.conformance.homes import (
    CLINE,
    TIMEOUT,
    Installed,
    bundled_case,
    harness_dirs,
    install_home,
    rendered_agent,
    skilltool,
)
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import OpenAIStub, Recorded, Reply, mcp_server
from tests.conformance.support import Proven, need
from tests.helpers import build_file_tree

pytestmark = pytest.mark.conformance

MODEL = "stub-model"
CLINE_OWN_PROMPT = "You are Cline, an AI coding agent."


@pytest.fixture(scope="module", params=["bundled", "tricky"])
def installed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Installed:
    key: str = request.param
    return install_home(tmp_path_factory.mktemp(f"conformance-cline-{key}"), key, CLINE)


@pytest.fixture(autouse=True)
def _cline() -> None:
    need("cline")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def end_daemons(home: Path) -> None:
    """End the `cline --cline-hub-daemon` processes started under `home` (and no other)."""
    want = f"HOME={home}".encode()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            environ = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--cline-hub-daemon" in argv and want in environ:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(proc.name), signal.SIGKILL)


def cline_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    return harness_env(home, {"CLINE_HUB_PORT": str(free_port()), **(extra or {})})


@contextlib.contextmanager
def signed_in(
    home: Path, reply: Reply = "cline done", extra: dict[str, str] | None = None
) -> Iterator[OpenAIStub]:
    """The stub, with `cline auth` pointing Cline's openai-compatible provider at it; the
    daemons left under `home` ended on the way out."""
    try:
        with OpenAIStub(reply=reply, model=MODEL) as stub:
            argv = ["cline", "auth", "-p", "openai-compatible", "-k", "dummy", "-m", MODEL]
            env = cline_env(home, extra)
            done = run([*argv, "-b", stub.base_url], env, home, timeout=TIMEOUT)
            assert done.returncode == 0, done.stdout + done.stderr
            yield stub
    finally:
        end_daemons(home)


def cline_run(
    home: Path, stub: OpenAIStub, cwd: Path, prompt: str, extra: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], list[Recorded]]:
    """`cline -P openai-compatible -m M --json -t 60 PROMPT` in `cwd`: the requests it sent."""
    cwd.mkdir(parents=True, exist_ok=True)
    before = len(stub.snapshot())
    argv = ["cline", "-P", "openai-compatible", "-m", MODEL, "--json", "-t", "60", prompt]
    done = run(argv, cline_env(home, extra), cwd, timeout=TIMEOUT + 30)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done, [r for r in stub.snapshot()[before:] if r.kind == "chat"]


def tools_of(request: Recorded) -> dict[str, dict[str, Any]]:
    return {t["function"]["name"]: t["function"] for t in request.json.get("tools", [])}


def listed_skills(request: Recorded) -> list[str]:
    """The names of the `skills` tool's 'Available skills: a, b.'"""
    skills = tools_of(request).get("skills")
    if skills is None:
        return []
    listed = skills["description"].split("Available skills:", 1)[1].strip().rstrip(".")
    return [name.strip() for name in listed.split(",")]


def system_text(request: Recorded) -> str:
    return "\n".join(request.system_texts())


def user_texts(request: Recorded) -> list[str]:
    found = []
    for message in request.json["messages"]:
        if message["role"] == "user":
            content = message["content"]
            if isinstance(content, list):
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            found.append(str(content))
    return found


def test_the_rendered_agent_is_yaml_frontmatter_with_clines_tool_names(
    installed: Installed, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    path = home / ".cline/agents" / f"{case.name}.yml"
    rendered = rendered_agent(path)
    marker = rendered.marker()
    assert marker is not None and marker.group(1) == str(case.source)
    want: dict[str, Any] = {"name": case.name, "description": case.description}
    if case.tools:
        want["tools"] = list(dict.fromkeys(TOOL_NAMES[t] for t in case.tools if t in TOOL_NAMES))
    if case.agent_skills:
        want["skills"] = list(case.agent_skills)
    assert rendered.front == want, rendered.front
    assert rendered.body == case.body
    proven(
        "cline",
        f"[{case.key}] ~/.cline/agents/{case.name}.yml: the marker a YAML comment; name, "
        f"description{', tools by Cline names' if case.tools else ''}"
        f"{', skills' if case.agent_skills else ''}; the body byte for byte",
    )


def test_a_run_offers_the_agent_and_the_skills_and_the_agent_gets_its_body(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    tool = subagent_tool(case.name)

    def reply(request: Recorded) -> Any:
        messages = request.json["messages"]
        if CLINE_OWN_PROMPT not in system_text(request):
            return "subagent done"  # the subagent's own request
        if any(m["role"] == "tool" for m in messages):
            return "all done"
        return {"call": tool, "arguments": {"prompt": "SUBAGENT TASK"}}

    with signed_in(home, reply) as stub:
        _, requests = cline_run(home, stub, tmp_path / "work", "say hi")
    first = requests[0]
    assert CLINE_OWN_PROMPT in system_text(first)
    offered = tools_of(first)
    assert offered[tool]["description"] == (
        f'Use the "{case.name}" subagent: {case.description}'
    ), offered.get(tool)
    assert sorted(listed_skills(first)) == sorted(case.skills)
    assert not (home / ".cline/skills").exists()  # linked into ~/.agents/skills only
    [sub] = [r for r in requests if CLINE_OWN_PROMPT not in system_text(r)]
    # its whole system prompt: the body as written, its `---` lines and CRLFs kept (trimmed)
    assert system_text(sub) == case.body.strip()
    assert user_texts(sub)[-1] == "SUBAGENT TASK"
    given = set(tools_of(sub)) - {"skills"}
    if case.tools:
        assert given == {TOOL_NAMES[t] for t in case.tools if t in TOOL_NAMES}, given
    proven(
        "cline",
        f"[{case.key}] `cline -P openai-compatible -m M --json 'say hi'` (stub): the request "
        f"offers the tool {tool} ('Use the \"{case.name}\" subagent: <description>') and 'Available "
        f"skills: {', '.join(case.skills)}' (linked only into ~/.agents/skills); called, the "
        "subagent's request has the agent's body as its whole system prompt"
        + (f" and only the tools {', '.join(sorted(given))}" if case.tools else ""),
    )


FOREIGN = "---\nname: {name}\ndescription: The user's own agent\n---\nMINE.\n"


def test_a_users_own_agent_file_is_left_alone_and_is_the_one_offered(
    tmp_path: Path, proven: Proven
) -> None:
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, CLINE)
    target = build_file_tree(
        home / ".cline/agents", {f"{case.name}.yml": FOREIGN.format(name=case.name)}
    )
    target = home / ".cline/agents" / f"{case.name}.yml"
    before = target.read_bytes()
    done = skilltool(home, case, tmp_path, "install")
    assert done.returncode == 0, done.stderr
    assert f"left      ~/.cline/agents/{case.name}.yml: " in done.stdout, done.stdout
    assert target.read_bytes() == before
    with signed_in(home) as stub:
        _, requests = cline_run(home, stub, tmp_path / "work", "say hi")
    offered = tools_of(requests[0])[subagent_tool(case.name)]
    assert offered["description"].endswith(": The user's own agent"), offered
    done = skilltool(home, case, tmp_path, "uninstall")
    assert done.returncode == 0, done.stderr
    assert target.read_bytes() == before
    proven(
        "cline",
        "a user's own ~/.cline/agents/<name>.yml is untouched by install and uninstall, and is "
        "the agent Cline offers",
    )


COMMANDS = {
    "greet.md": "---\ndescription: Greet someone\n---\nSay GREETING-WORKFLOW to $ARGUMENTS\n",
    "review.md": "---\ndescription: Review\n---\nReview $ARGUMENTS carefully.\n",
    "plain.md": "Do the PLAIN thing.\n",
    "pair.md": "Compare $0 with $1.\n",
    "git/commit.md": "Commit the SUBFOLDER work.\n",
}
MCP_SERVER = "plugin-srv"


def commands_plugin(root: Path, script: Path) -> Path:
    servers = {MCP_SERVER: {"command": "python3", "args": [str(script)]}}
    return build_file_tree(
        root / "cmds",
        {
            ".claude-plugin/plugin.json": '{"name": "cmds", "version": "1.0.0"}\n',
            ".mcp.json": json.dumps({"mcpServers": servers}) + "\n",
            **{f"commands/{name}": text for name, text in COMMANDS.items()},
        },
    )


def test_workflows_expand_and_the_mcp_servers_tools_are_offered_beside_the_users(
    tmp_path: Path, proven: Proven
) -> None:
    """A command is a workflow of ~/.cline/workflows: `/greet Bob` sends its text with what
    was typed after it; `$ARGUMENTS` ending a body is that place, anywhere else it stays as
    written; `$0` is refused. The plugin's server is an entry of cline_mcp_settings.json
    beside the user's own, whose tools Cline offers as `<server>__<tool>`."""
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, CLINE)
    script = tmp_path / "srv.py"
    script.write_text(mcp_server(ping=True))
    plugin = commands_plugin(tmp_path, script)
    settings = home / ".cline/data/settings/cline_mcp_settings.json"
    # the user's own server records what Cline gave it for a `${VAR}` in args and env
    seen = tmp_path / "seen.txt"
    recorder = tmp_path / "recorder.py"
    record = f'open({str(seen)!r}, "a").write(sys.argv[1] + " " + os.environ["PROBE"] + "\\n")\n'
    recorder.write_text(mcp_server(record, ping=True))
    mine = {"command": sys.executable, "args": [str(recorder), "${HOME}"]}
    mine["env"] = {"PROBE": "${HOME}"}
    user = {"mcpServers": {"mine": mine}}
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(user, indent=2) + "\n")
    before = settings.read_bytes()
    env = harness_env(home, {"PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    env["XDG_DATA_DIRS"] = str(tmp_path / "no-system-plugins")
    env["SKILLTOOL_PLUGINS"] = str(plugin)
    argv = [sys.executable, "-m", "skilltool", "plugins", "install", "--home", str(home)]
    done = subprocess.run(argv, env=env, cwd=home, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout + done.stderr
    assert f"added     cline    mcp {MCP_SERVER} in ~/.cline/data/settings/" in out, out
    assert "command /pair" in out and "Cline CLI has no placeholder" in out, out
    assert not (home / ".cline/workflows/pair.md").exists()
    assert "command /git:commit: Cline CLI reads no workflow in a subfolder" in out, out
    # which it does not: a workflow of the user's own in a subfolder is not expanded
    build_file_tree(home / ".cline/workflows", {"git/commit.md": "Commit the SUBFOLDER work.\n"})
    with signed_in(home) as stub:
        _, [greet] = cline_run(home, stub, tmp_path / "work", "/greet Bob")
        _, [review] = cline_run(home, stub, tmp_path / "work", "/review main.py")
        _, [plain] = cline_run(home, stub, tmp_path / "work", "/plain now")
        _, [nested] = cline_run(home, stub, tmp_path / "work", "/commit now")
    assert "Say GREETING-WORKFLOW to Bob" in user_texts(greet)[-1], user_texts(greet)
    assert "Review $ARGUMENTS carefully. main.py" in user_texts(review)[-1]
    assert "Do the PLAIN thing. now" in user_texts(plain)[-1]
    assert "SUBFOLDER" not in user_texts(nested)[-1], user_texts(nested)
    assert "description" not in user_texts(greet)[-1]  # the frontmatter is left out
    assert set(seen.read_text().splitlines()) == {"${HOME} ${HOME}"}  # expanded in neither
    offered = set(tools_of(greet))
    assert {"mine__ping", f"{MCP_SERVER}__ping"} <= offered, offered
    argv[4] = "uninstall"
    done = subprocess.run(argv, env=env, cwd=home, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert settings.read_bytes() == before
    assert not list((home / ".cline/workflows").glob("*.md"))
    proven(
        "cline",
        "commands are workflows of ~/.cline/workflows: `/greet Bob` (stub) sends the text with "
        "'Bob' where its closing $ARGUMENTS was, a $ARGUMENTS elsewhere stays as written with "
        "the words after the text, the frontmatter is left out; a body with $0 is not "
        "written, nor a command in a subfolder (a workflow in ~/.cline/workflows/git/ is not "
        f"read). The server {MCP_SERVER} is an entry of ~/.cline/data/settings/"
        "cline_mcp_settings.json beside the user's `mine`: both servers' tools are offered "
        "(<server>__ping), a ${HOME} in a server's args and env reaches it as written; "
        "uninstall leaves the file byte for byte as it was",
    )


def test_launch_refuses_and_acp_starts_no_session_before_a_sign_in(
    tmp_path: Path, proven: Proven
) -> None:
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, CLINE)
    assert skilltool(home, case, tmp_path, "install").returncode == 0
    done = skilltool(home, case, tmp_path, "launch", case.name, "--harness", "cline")
    assert done.returncode == 1, done.stdout
    assert "Cline CLI cannot start as an agent over ACP" in done.stderr, done.stderr
    cwd = tmp_path / "work"
    cwd.mkdir()
    try:
        with AcpClient(["cline", "--acp"], env=cline_env(home), cwd=cwd) as acp:
            acp.initialize()
            with pytest.raises(AcpError) as refused:
                acp.new_session(cwd)
    finally:
        end_daemons(home)
    proven(
        "cline",
        f"`cline --acp`: initialize answers, session/new is refused before a sign-in "
        f"({str(refused.value)[:80]!r}); `skilltool plugins launch --harness cline` says why "
        "and exits 1",
    )
