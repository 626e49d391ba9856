"""A project's hooks as skilltool carries them, fired in the real binaries, in two checkouts.

One repository `a/repo` holds the team's plugin `plugins/team`, whose `hooks/hooks.json`
runs its own scripts through `${CLAUDE_PLUGIN_ROOT}` (timeout 30 s): the label recorder of
hooks.py (`rec.py`) on SessionStart, UserPromptSubmit, PreToolUse and PostToolUse (matcher
`Bash`) and Stop, and a gate (`gate.py`) on PreToolUse that exits 2 when the tool's input
holds `BLOCKME`. The real `skilltool plugins add ./plugins/team --project` writes it for
every harness that runs a project's hooks; it is committed, cloned to `b/elsewhere/checkout`
(another path and depth, another HOME) and `plugins sync --frozen` there: both checkouts hold
the same bytes. Then each binary is started in each checkout (its top folder; OpenCode and
Kilo in `src/`, a folder below it), with the trust it asks for granted by the test in a
throwaway home (skilltool writes none), against a loopback model that runs `touch
<out>/BLOCKME` (the gate blocks it) then `touch <out>/ran`: each recorded call ran that
checkout's own `rec.py`, with `CLAUDE_PLUGIN_ROOT` that checkout's plugin folder.

Also seen by hand, with the same binaries, and kept in docs/hooks.md: from a subfolder Claude
Code, Gemini CLI, Qwen Code, pi and Mistral Vibe read none of the project's hooks (they read
its folders in the start folder only), Copilot CLI does (in the git root); untrusted, Claude
Code (even `claude -p`), Copilot CLI, Gemini CLI and pi run none; Claude Code does not load
a plugin folder in a project's `.claude/skills/` from a subfolder, nor Gemini CLI and Qwen
Code an extension of the project's `.gemini/extensions/` or `.qwen/extensions/`; Copilot CLI
runs the hooks of `.claude/settings.json` beside its own; Codex lists a project's
`.codex/hooks.json` hooks as untrusted, keyed by the file's absolute path.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conformance import carried as C
from tests.conformance import hooks as H
from tests.conformance.homes import GEMINI_SETTINGS, QWEN_SETTINGS
from tests.conformance.projects import skilltool_in
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import AnthropicStub, GeminiStub, OpenAIStub, Recorded
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

TIMEOUT = 90
HARNESSES = ("claude", "copilot", "gemini", "qwen", "opencode", "kilo", "pi", "vibe")
EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
# the events each harness has of those (Mistral Vibe has no prompt or session event)
FIRED = {h: set(EVENTS) for h in HARNESSES} | {"vibe": {"PreToolUse", "PostToolUse", "Stop"}}
# where skilltool writes the hooks of plugins/team for each harness (a file or an entry's)
WRITTEN = {
    "claude": ".claude/skills/team.hooks/hooks/hooks.json",
    "copilot": ".github/hooks/team.json",
    "gemini": ".gemini/settings.json",
    "qwen": ".qwen/settings.json",
    "opencode": ".opencode/plugins/team.hooks.js",
    "kilo": ".kilo/plugins/team.hooks.js",
    "pi": ".pi/extensions/team.hooks.ts",
    "vibe": ".vibe/hooks.toml",
}
ROOT = "${CLAUDE_PLUGIN_ROOT}"


@dataclass
class Checkouts:
    a: Path
    b: Path
    added: str


def team_plugin(repo: Path) -> None:
    """plugins/team: its recorder and gate, and the hooks that run them by its folder."""
    root = repo / "plugins/team"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin/plugin.json").write_text('{"name": "team"}\n')
    H.recorder(root)
    (root / "gate.py").write_text(C.GATE)

    def group(event: str, command: str) -> dict[str, Any]:
        found: dict[str, Any] = {"matcher": "Bash"} if "Tool" in event else {}
        found["hooks"] = [{"type": "command", "command": command, "timeout": 30}]
        return found

    hooks = {e: [group(e, f"python3 {ROOT}/rec.py {e} 0")] for e in EVENTS}
    hooks["PreToolUse"].append(group("PreToolUse", f"python3 {ROOT}/gate.py"))
    (root / "hooks").mkdir()
    (root / "hooks/hooks.json").write_text(json.dumps({"hooks": hooks}, indent=2) + "\n")


def committed(root: Path) -> dict[str, bytes]:
    """What a commit of the checkout holds: `git ls-files`, each file's bytes."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True,
                           check=True, timeout=30).stdout.decode().split("\0")  # fmt: skip
    return {n: (root / n).read_bytes() for n in names if n}


@pytest.fixture(scope="module")
def checkouts(tmp_path_factory: pytest.TempPathFactory) -> Checkouts:
    for harness in HARNESSES:
        need(harness)
    tmp = tmp_path_factory.mktemp("project-hooks")
    repo = tmp / "a/repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src/app.py").write_text("print('app')\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q", str(repo)], check=True, timeout=30)
    team_plugin(repo)
    (repo / "skilltool.toml").write_text(f"harnesses = {json.dumps([*HARNESSES, 'codex'])}\n")
    writer = make_home(tmp / "writer")
    added = skilltool_in(repo, writer, "plugins", "add", "./plugins/team", "--project")
    said = added.stdout + added.stderr
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True, timeout=30)
    subprocess.run([*git, "commit", "-q", "-m", "hooks"], cwd=repo, check=True, timeout=30)
    clone = tmp / "b/elsewhere/checkout"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True, timeout=30)
    reader = make_home(tmp / "reader")
    skilltool_in(clone, reader, "plugins", "sync", "--frozen")
    skilltool_in(clone, reader, "plugins", "check")
    return Checkouts(repo, clone, said)


def test_two_checkouts_hold_the_same_bytes(checkouts: Checkouts, proven: Proven) -> None:
    a, b = committed(checkouts.a), committed(checkouts.b)
    assert a == b
    assert set(WRITTEN.values()) <= set(a), sorted(a)
    assert not [n for n, data in a.items() if str(checkouts.a).encode() in data]
    assert "skipped   codex: plugin team's 6 hooks not carried" in checkouts.added
    proven("claude", "a project's hooks, as `skilltool plugins add --project` writes them for "
                     "eight harnesses: a clone at another path, `sync --frozen`, holds the same "
                     "bytes, and none names a checkout's path")  # fmt: skip


# --------------------------------------------------------------------------- one run each


def anthropic(tool: str, out: Path) -> Callable[[Recorded], Any]:
    def reply(r: Recorded) -> Any:
        if tool not in [t.get("name") for t in (r.json or {}).get("tools", [])]:
            return "title"
        command = C.shell_command(len(H.tool_results(r)), out)
        if command is None:
            return "done"
        return {"type": "tool_use", "name": tool, "input": {"command": command,
                                                             "description": "touch"}}  # fmt: skip

    return reply


def openai(out: Path, **extra: str) -> Callable[[Recorded], Any]:
    def reply(r: Recorded) -> Any:
        if not (r.json or {}).get("tools"):
            return "done"
        messages = (r.json or {}).get("messages", [])
        command = C.shell_command(len([m for m in messages if m.get("role") == "tool"]), out)
        if command is None:
            return "done"
        return {"call": "bash", "arguments": {"command": command, **extra}}

    return reply


def gemini(out: Path) -> Callable[[Recorded], Any]:
    def reply(r: Recorded) -> Any:
        contents = (r.json or {}).get("contents", [])
        done = sum("functionResponse" in p for c in contents for p in c.get("parts", []))
        command = C.shell_command(done, out)
        if command is None:
            return "done"
        return {"functionCall": {"name": "run_shell_command", "args": {"command": command}}}

    return reply


def write(path: Path, content: str | dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content))


def start(
    harness: str,
    checkout: Path,
    home: Path,
    log: Path,
    out: Path,
    trusted: bool = True,
    below: bool = False,
) -> str:
    """The harness started in the checkout (`below`: in its `src/`), the trust it asks for
    granted in `home` (unless not `trusted`), against the loopback model that runs the two
    shell commands; what it printed."""
    env = {"HOOK_LOG": str(log)}
    cwd = checkout / "src" if below else checkout
    if not trusted:
        checkout = checkout.parent / "elsewhere"  # the trust given is for another folder
    if harness == "claude":
        write(home / ".claude/settings.json", {})
        write(
            home / ".claude.json", {"projects": {str(checkout): {"hasTrustDialogAccepted": True}}}
        )
        stub: Any = AnthropicStub(reply=anthropic("Bash", out))
        argv = ["claude", "-p", "hi", "--allowedTools", "Bash"]
    elif harness == "copilot":
        write(home / ".copilot/config.json", {"trustedFolders": [str(checkout)]})
        stub = OpenAIStub(reply=openai(out, description="touch"))
        env |= {"COPILOT_PROVIDER_API_KEY": "dummy", "COPILOT_MODEL": "gpt-4.1",
                "COPILOT_OFFLINE": "true"}  # fmt: skip
        argv = ["copilot", "-p", "hi", "--allow-all-tools"]
    elif harness == "gemini":
        write(home / ".gemini/settings.json", GEMINI_SETTINGS)
        write(home / ".gemini/trustedFolders.json", {str(checkout): "TRUST_FOLDER"})
        stub = GeminiStub(reply=gemini(out))
        env |= {"GEMINI_API_KEY": "fake"}
        argv = ["gemini", "-p", "hi", "--yolo", "-m", "gemini-2.5-pro"]
    elif harness == "qwen":
        write(home / ".qwen/settings.json", QWEN_SETTINGS)
        stub = AnthropicStub(reply=anthropic("run_shell_command", out))
        env |= {"ANTHROPIC_API_KEY": "dummy", "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"}
        argv = ["qwen", "-p", "hi", "--auth-type", "anthropic", "-m", "claude-sonnet-4-5",
                "--approval-mode", "yolo"]  # fmt: skip
    elif harness in ("opencode", "kilo"):
        (home / ".config" / harness).mkdir(parents=True)
        stub = AnthropicStub(reply=anthropic("bash", out))
        argv = [harness, "run", "hi"]
        cwd = cwd if below else cwd / "src"  # read from any folder below the git root
    elif harness == "pi":
        write(home / ".pi/agent/trust.json", {str(checkout): True})
        stub = OpenAIStub(reply=openai(out))
        env |= {"PI_OFFLINE": "1"}
        argv = ["pi", "-p", "--no-session", "--model", "stub/stub-model", "run it"]
    else:
        write(home / ".vibe/trusted_folders.toml", f'trusted = ["{checkout}"]\nuntrusted = []\n')
        stub = OpenAIStub(reply=openai(out))
        env |= {"STUB_API_KEY": "dummy"}
        argv = ["vibe", "-p", "run it", "--yolo"]
    with stub:
        url = stub.base_url
        env |= {"claude": {"ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": url},
                "copilot": {"COPILOT_PROVIDER_BASE_URL": url},
                "gemini": {"GOOGLE_GEMINI_BASE_URL": url},
                "qwen": {"ANTHROPIC_BASE_URL": url}}.get(harness, {})  # fmt: skip
        if harness in ("opencode", "kilo"):
            variable = "OPENCODE_CONFIG_CONTENT" if harness == "opencode" else "KILO_CONFIG_CONTENT"
            env[variable] = json.dumps(H.anthropic_provider(stub))
        if harness == "pi":
            provider = {"baseUrl": url, "api": "openai-completions", "apiKey": "dummy",
                        "models": [{"id": "stub-model"}]}  # fmt: skip
            write(home / ".pi/agent/models.json", {"providers": {"stub": provider}})
        if harness == "vibe":
            write(home / ".vibe/config.toml", (
                'active_model = "stub"\nenable_telemetry = false\nenable_update_checks = false\n'
                f'[[providers]]\nname = "stub"\napi_base = "{url}"\n'
                'api_key_env_var = "STUB_API_KEY"\n'
                '[[models]]\nname = "stub-model"\nprovider = "stub"\nalias = "stub"\n'
            ))  # fmt: skip
        done = run(argv, harness_env(home, env), cwd, TIMEOUT)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    deadline = time.monotonic() + 10  # OpenCode's and Kilo's bus events come in their own time
    while harness in ("opencode", "kilo") and H.labels(log) and "Stop" not in H.labels(log):
        if time.monotonic() > deadline:
            break
        time.sleep(0.2)
    return done.stdout + done.stderr


# Kilo's file is OpenCode's but for its title, and a Kilo run takes half a minute here: one
RUNS = [(h, side) for h in HARNESSES for side in ("a", "b") if (h, side) != ("kilo", "a")]


@pytest.mark.parametrize(("harness", "side"), RUNS, ids=[f"{h}-{s}" for h, s in RUNS])
def test_the_carried_hooks_fire_in_each_checkout(
    checkouts: Checkouts, harness: str, side: str, tmp_path: Path, proven: Proven
) -> None:
    checkout = checkouts.a if side == "a" else checkouts.b
    out = checkout / "out" / harness  # inside the checkout: Copilot CLI denies a path outside
    out.mkdir(parents=True)
    log = tmp_path / "log.jsonl"
    seconds = time.monotonic()
    said = start(harness, checkout, make_home(tmp_path), log, out)
    seconds = time.monotonic() - seconds
    calls = H.entries(log)
    assert {c["label"] for c in calls} == FIRED[harness], (H.labels(log), said[-2000:])
    plugin = checkout / "plugins/team"
    # each call ran this checkout's own script, its folder set for the command as Claude Code sets it
    assert {os.path.realpath(c["argv"][0]) for c in calls} == {os.path.realpath(plugin / "rec.py")}
    roots = {os.path.realpath(c["env"]["CLAUDE_PLUGIN_ROOT"]) for c in calls}
    assert roots == {os.path.realpath(plugin)}, roots
    if harness in ("opencode", "kilo", "pi", "vibe"):  # the generated plugin's: the top folder
        assert {c["env"]["CLAUDE_PROJECT_DIR"] for c in calls} == {str(checkout)}
        assert {c["cwd"] for c in calls} == {str(checkout)}
    pre = [c["stdin"] for c in calls if c["label"] == "PreToolUse"]
    assert [p["tool_input"]["command"] for p in pre] == [f"touch {out}/BLOCKME", f"touch {out}/ran"]
    assert not (out / "BLOCKME").exists() and (out / "ran").exists()  # the gate's exit 2 blocked
    where = WRITTEN[harness]
    proven(harness, f"project hooks in {where} (skilltool plugins add --project), checkout {side}: "
                    f"{', '.join(sorted(FIRED[harness]))} ran that checkout's plugin scripts "
                    f"through CLAUDE_PLUGIN_ROOT, exit 2 blocked the shell call ({seconds:.0f} s)")  # fmt: skip


@pytest.mark.parametrize(
    ("harness", "trusted", "below"),
    [("claude", False, False), ("claude", True, True), ("copilot", False, False),
     ("gemini", True, True), ("pi", False, False)],
    ids=["claude-untrusted", "claude-below", "copilot-untrusted", "gemini-below", "pi-untrusted"],
)  # fmt: skip
def test_where_a_harness_runs_none_of_them(
    checkouts: Checkouts, harness: str, trusted: bool, below: bool, tmp_path: Path, proven: Proven
) -> None:
    """What `status` says of them: Claude Code runs a project's hooks only once its folder
    trust dialog was accepted there (even `claude -p`) and only started in the project's top
    folder; Copilot CLI and pi only once the folder is trusted; Gemini CLI only started there."""
    out = checkouts.a / "out" / f"{harness}-none-{'below' if below else 'untrusted'}"
    out.mkdir(parents=True)
    log = tmp_path / "log.jsonl"
    said = start(harness, checkouts.a, make_home(tmp_path), log, out, trusted, below)
    assert H.labels(log) == [], said[-2000:]
    where = "started in src/, a folder below the top one" if below else "untrusted"
    proven(harness, f"project hooks: {where}, none ran")
