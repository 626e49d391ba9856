"""pi loads what skilltool renders: through the wrapper its prompt ends with the rendered file,
the skills are commands, the tool list is enforced, and pi-acp starts it the same way."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.acp import AcpClient
from tests.conformance.homes import (
    TIMEOUT,
    Installed,
    bundled_case,
    harness_dirs,
    left_alone,
    text,
)
from tests.conformance.sandbox import harness_env, make_home
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

# pi's names for Claude's tool names (what skilltool's wrapper passes with --tools)
PI_TOOLS = {"Read": "read", "Grep": "grep", "Glob": "find", "Edit": "edit", "Write": "write",
            "Bash": "bash"}  # fmt: skip


@pytest.fixture(autouse=True)
def _pi() -> None:
    need("pi")


def pi_env(home: Path, dump: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    return harness_env(home, {"PI_OFFLINE": "1", "PI_DUMP_PROMPT_FILE": str(dump), **(extra or {})})


def get_commands(
    argv: list[str], env: dict[str, str], cwd: Path, dump: Path, timeout: float = TIMEOUT
) -> list[dict[str, Any]]:
    """`<argv> --mode rpc`: ask `get_commands`, wait for the answer and the prompt dump, quit.

    Bounded: the process group is killed after `timeout` seconds whatever happens."""
    dump.unlink(missing_ok=True)
    proc = subprocess.Popen(
        [*argv, "--mode", "rpc", "--offline", "--no-session"],
        env=env,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",
        errors="replace",
        start_new_session=True,  # its own process group, killed whole at the end
    )
    lines: queue.Queue[str] = queue.Queue()
    errors: list[str] = []

    def pump(stream: Any, into: Any) -> None:
        for line in stream:
            into(line)

    threading.Thread(target=pump, args=(proc.stdout, lines.put), daemon=True).start()
    threading.Thread(target=pump, args=(proc.stderr, errors.append), daemon=True).start()
    deadline = time.monotonic() + timeout
    answer: dict[str, Any] | None = None
    try:
        assert proc.stdin is not None
        proc.stdin.write('{"id":"1","type":"get_commands"}\n')
        proc.stdin.flush()
        while answer is None or not dumped(dump):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"pi: no get_commands answer or no prompt dump in {timeout}s; "
                    f"stderr: {''.join(errors)[-2000:]}"
                )
            try:
                line = lines.get(timeout=min(left, 0.2))
            except queue.Empty:
                if proc.poll() is not None and lines.empty():
                    raise AssertionError(
                        f"pi exited {proc.returncode}; stderr: {''.join(errors)[-2000:]}"
                    ) from None
                continue
            with contextlib.suppress(ValueError):
                message = json.loads(line)
                if message.get("id") == "1" and message.get("command") == "get_commands":
                    assert message.get("success"), message
                    answer = message
    finally:
        with contextlib.suppress(OSError):
            assert proc.stdin is not None
            proc.stdin.close()  # pi quits at the end of its input
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # whatever is left of the group
        proc.wait(timeout=5)
    commands: list[dict[str, Any]] = answer["data"]["commands"]
    return commands


def dumped(dump: Path) -> bool:
    """The extension has written the prompt (it is never empty)."""
    return dump.exists() and dump.stat().st_size > 0


def addendum(prompt_file: Path) -> str:
    """How pi appends a file: after its own prompt, the file byte for byte in <addendum>."""
    return "<addendum>\n" + prompt_file.read_bytes().decode("utf-8") + "\n</addendum>"


def offered_tools(prompt: str) -> list[str]:
    match = re.search(r"<tools>\n(.*?)\n</tools>", prompt, re.S)
    assert match, prompt[:2000]
    return re.findall(r"^- (\w+):", match.group(1), re.M)


def test_wrapper_appends_the_prompt_and_finds_the_skills(
    installed: Installed, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    wrapper = home / ".pi/agent/skilltool" / case.name
    prompt_file = home / ".pi/agent/skilltool" / f"{case.name}.md"
    marker, rest = prompt_file.read_bytes().decode("utf-8").split("\n", 1)
    assert marker.startswith("<!-- rendered by skilltool from ") and rest == case.instructions
    assert os.access(wrapper, os.X_OK)

    dump = installed.root / f"pi-prompt-{case.key}.txt"
    commands = get_commands([str(wrapper)], pi_env(home, dump), home, dump)
    prompt = text(dump)
    appended = addendum(prompt_file)
    assert appended in prompt
    own = prompt[: prompt.index(appended)]
    assert own.strip() and case.body not in own  # pi's own prompt first, kept
    found = {c["name"]: c for c in commands if c.get("source") == "skill"}
    for skill in case.skills:
        command = found.get(f"skill:{skill}")
        assert command, sorted(found)
        assert command["sourceInfo"]["path"] == str(home / ".agents/skills" / skill / "SKILL.md")
    tools = offered_tools(prompt)
    assert sorted(tools) == sorted(PI_TOOLS[t] for t in case.tools), tools
    proven(
        "pi",
        f"[{case.key}] through the wrapper: pi's system prompt = pi's own prompt, then the "
        "rendered prompt file byte for byte; `get_commands` (--mode rpc) lists "
        + ", ".join(f"skill:{s}" for s in case.skills)
        + f"; tools offered: {', '.join(tools)}",
    )


def test_pi_acp_starts_the_wrapper(installed: Installed, proven: Proven) -> None:
    need("pi", "pi-acp")
    case, home = installed.case, installed.home
    how = installed.launch("pi")
    wrapper = home / ".pi/agent/skilltool" / case.name
    assert how["command"] == ["pi-acp"]
    assert how["env"] == {"PI_ACP_PI_COMMAND": str(wrapper)}
    dump = installed.root / f"pi-acp-prompt-{case.key}.txt"
    dump.unlink(missing_ok=True)
    # pi-acp wants some credentials before session/new; nothing asks a model here
    env = pi_env(home, dump, {**how["env"], "OPENAI_API_KEY": "dummy"})
    with AcpClient(how["command"], env=env, cwd=home) as acp:
        acp.initialize()
        session = acp.new_session(home)
        assert session.get("sessionId")
        deadline = time.monotonic() + 30
        while not dumped(dump) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert dumped(dump), f"pi wrote no prompt; pi-acp stderr: {acp.stderr_text()[-2000:]}"
    prompt = text(dump)
    assert addendum(home / ".pi/agent/skilltool" / f"{case.name}.md") in prompt
    assert case.body in prompt
    proven(
        "pi",
        f"[{case.key}] pi-acp with PI_ACP_PI_COMMAND from `skilltool plugins launch`: "
        "session/new succeeds and pi's prompt holds the body",
    )


FOREIGN_WRAPPER = '#!/bin/sh\nexec pi --append-system-prompt "$HOME/my-pi-prompt.md" "$@"\n'
FOREIGN_PROMPT = "My own pi prompt, not skilltool's. ✓\n"


def test_a_foreign_wrapper_is_left_alone(tmp_path: Path, proven: Proven) -> None:
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, ("pi",))
    wrapper = home / ".pi/agent/skilltool" / case.name
    wrapper.parent.mkdir(parents=True)
    wrapper.write_bytes(FOREIGN_WRAPPER.encode())
    wrapper.chmod(0o755)
    (home / "my-pi-prompt.md").write_bytes(FOREIGN_PROMPT.encode("utf-8"))
    dump = tmp_path / "dump.txt"

    def starts_pi_with_the_users_prompt() -> None:
        get_commands([str(wrapper)], pi_env(home, dump), home, dump)
        prompt = text(dump)
        assert "<addendum>\n" + FOREIGN_PROMPT + "\n</addendum>" in prompt
        assert case.body not in prompt

    left_alone(
        home,
        case,
        tmp_path,
        wrapper,
        f"~/.pi/agent/skilltool/{case.name}",
        starts_pi_with_the_users_prompt,
    )
    proven(
        "pi",
        "a user's own wrapper at ~/.pi/agent/skilltool/<name> is byte-for-byte (and mode) "
        "untouched by install and uninstall, and starts pi with the user's prompt before, "
        "between and after",
    )
