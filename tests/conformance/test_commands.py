"""Slash commands in the real harnesses (SPEC §10): each rendered command is listed by the
harness, and a run with arguments sends the body with them substituted to a loopback stub;
a user's own command file of the same name is left as it was and is what the harness uses.

The plugin's commands: `review` ($ARGUMENTS), `compare` (Claude Code's $0 and $1, the
first two words), `git/commit.md` (no frontmatter: `/git:commit` in Claude Code), and
`mine`, which the home already has as the user's own command."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.homes import GEMINI_SETTINGS, QWEN_SETTINGS, REPO
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import (
    AnthropicStub,
    GeminiStub,
    OpenAIStub,
    Recorded,
    opencode_provider,
)
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

TIMEOUT = 120.0
COMMANDS = {
    "commands/review.md": "---\ndescription: Review a file with care\nargument-hint: '[file]'\n"
    "---\nReview $ARGUMENTS carefully.\n",
    "commands/compare.md": "---\ndescription: Compare two things\n---\nCompare $0 with $1.\n",
    "commands/git/commit.md": "# Commit the staged work\n\nWrite a good message for it.\n",
    "commands/mine.md": "---\ndescription: The plugin's mine\n---\nPLUGIN MINE\n",
    "commands/price.md": "---\ndescription: Price it\n---\nPrice $ARGUMENTS at $150/hour, "
    "$4,050 in all.\n",
}
PRICE = "Price a b at $150/hour, $4,050 in all."  # `/price a b` where the amounts stay
MARKER = "rendered by skilltool"


def plugin(root: Path) -> Path:
    for relative, text in {".claude-plugin/plugin.json": '{"name": "cmds"}\n', **COMMANDS}.items():
        path = root / "plugins/cmds" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "plugins"


def installed(tmp_path: Path, harness_dir: str, own: dict[str, str]) -> Path:
    """A home with the harness's own directory and the user's own command files, after the
    real `skilltool plugins install`."""
    home = make_home(tmp_path)
    (home / harness_dir).mkdir(parents=True, exist_ok=True)
    for relative, text in own.items():
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_text(text, encoding="utf-8")
    env = harness_env(home, {"PYTHONPATH": str(REPO), "SKILLTOOL_PLUGINS": str(plugin(tmp_path))})
    env["XDG_DATA_DIRS"] = str(tmp_path / "no-system-plugins")
    done = subprocess.run(
        [sys.executable, "-m", "skilltool", "plugins", "install", "--home", str(home)],
        env=env, cwd=home, capture_output=True, encoding="utf-8", timeout=TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    for relative, text in own.items():  # never written, whatever the plugin holds
        assert (home / relative).read_text(encoding="utf-8") == text
    return home


def said(request: Recorded) -> list[str]:
    """Every text of a model request: its text parts, and each message's content string."""
    found = request.texts()
    body = request.json if isinstance(request.json, dict) else {}
    for message in body.get("messages") or []:
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            found.append(message["content"])
    return found


def sent(stub: OpenAIStub, wanted: str, timeout: float = 60) -> str:
    """The text of the first model request holding `wanted`."""
    request = stub.wait_for(lambda r: any(wanted in t for t in said(r)), timeout=timeout)
    return next(t for t in said(request) if wanted in t)


# --------------------------------------------------------------------------- OpenCode, Kilo


@pytest.mark.parametrize(
    ("launcher", "folder", "variable"),
    [("opencode", ".config/opencode", "OPENCODE_CONFIG_CONTENT"),
     ("kilo", ".config/kilo", "KILO_CONFIG_CONTENT")],
)  # fmt: skip
def test_opencode_and_kilo_list_and_run_the_commands(
    tmp_path: Path, proven: Proven, launcher: str, folder: str, variable: str
) -> None:
    need(launcher)
    own = {f"{folder}/command/mine.md": "---\ndescription: My own\n---\nUSER MINE $ARGUMENTS\n"}
    home = installed(tmp_path, folder, own)
    with OpenAIStub(reply="ok") as stub:
        env = harness_env(home, {variable: json.dumps(opencode_provider(stub))})
        done = run([launcher, "debug", "config"], env, home, timeout=TIMEOUT)
        assert done.returncode == 0, done.stderr
        listed = json.loads(done.stdout)["command"]
        assert listed["review"] == {"description": "Review a file with care",
                                    "template": "Review $ARGUMENTS carefully."}  # fmt: skip
        assert listed["compare"]["template"] == "Compare $1 with $2."
        assert listed["git/commit"]["description"] == "Commit the staged work"
        assert listed["mine"] == {"description": "My own", "template": "USER MINE $ARGUMENTS"}
        assert "price" not in listed  # its amounts would be replaced: not rendered
        runs = {"review": (["a.py", "b.py"], "Review a.py b.py carefully."),
                "compare": (["x", "y"], "Compare x with y."),
                "mine": (["z"], "USER MINE z")}  # fmt: skip
        for name, (args, expected) in runs.items():
            done = run([launcher, "run", "--command", name, *args], env, home, timeout=TIMEOUT)
            assert done.returncode == 0, done.stderr
            assert sent(stub, expected) == expected
        # the last positional placeholder takes the rest (Claude Code's $1 is one word)
        run([launcher, "run", "--command", "compare", "x", "y", "z"], env, home, timeout=TIMEOUT)
        assert sent(stub, "Compare x with y z.") == "Compare x with y z."
        # a missing argument is nothing here (Claude Code leaves `$1` as written)
        run([launcher, "run", "--command", "compare", "x"], env, home, timeout=TIMEOUT)
        assert sent(stub, "Compare x with .") == "Compare x with ."
        assert all(MARKER not in r.text for r in stub.model_requests())
    proven(
        launcher,
        f"slash commands: `{launcher} debug config` lists the rendered commands (git/commit.md "
        f"as git/commit) and the user's own `mine` untouched; `{launcher} run --command` sends "
        "the body with $ARGUMENTS and Claude Code's $0/$1 (as $1/$2) substituted to the stub, "
        "the last placeholder taking the rest and a missing one nothing; a command holding an "
        "amount ($150) is not rendered; no marker reaches the model",
    )


# --------------------------------------------------------------------------- Claude Code


def test_claude_lists_and_runs_the_commands(tmp_path: Path, proven: Proven) -> None:
    need("claude")
    own = {".claude/commands/mine.md": "---\ndescription: My own\n---\nUSER MINE $ARGUMENTS\n"}
    home = installed(tmp_path, ".claude", own)
    with AnthropicStub(reply="ok") as stub:
        keys = {"ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": stub.base_url,
                "CLAUDE_CODE_MAX_RETRIES": "0"}  # fmt: skip
        env = harness_env(home, keys)
        for line, expected in [("/compare x y", "Compare x with y."),
                               ("/review a.py b.py", "Review a.py b.py carefully."),
                               ("/mine z", "USER MINE z"),
                               ("/compare w", "Compare w with $1."),  # a missing word: as is
                               ("/price a b", PRICE)]:  # fmt: skip
            argv = ["claude", "-p", "--output-format", "stream-json", "--verbose", line]
            done = run(argv, env, home, timeout=TIMEOUT)
            assert done.returncode == 0, done.stderr
            event = json.loads(done.stdout.splitlines()[0])
            assert {"review", "compare", "git:commit", "mine"} <= set(event["slash_commands"])
            assert sent(stub, expected).startswith(expected)
        listing = sent(stub, "- git:commit: ")
        assert "- git:commit: Commit the staged work" in listing
        assert "- review: Review a file with care" in listing
        assert "- mine: My own" in listing
        assert all(MARKER not in r.text for r in stub.model_requests())
    proven(
        "claude",
        "slash commands: the init event of `claude -p --output-format stream-json` lists the "
        "rendered commands (git/commit.md as git:commit) and the user's own `mine` untouched; "
        "`/compare x y` sends the body with $0/$1 substituted, `/review a b` with $ARGUMENTS; "
        "`/compare w` leaves the missing $1 as written, `/price a b` its amounts ($150, "
        "$4,050); a command without frontmatter keeps its first line as its description",
    )


# --------------------------------------------------------------------------- Gemini, Qwen


def test_gemini_runs_the_commands_with_args(tmp_path: Path, proven: Proven) -> None:
    need("gemini")
    own = {".gemini/commands/mine.toml": 'description = "My own"\nprompt = "USER MINE {{args}}"\n'}
    home = installed(tmp_path, ".gemini", own)
    (home / ".gemini/settings.json").write_text(json.dumps(GEMINI_SETTINGS))
    assert not (home / ".gemini/commands/compare.toml").exists()  # positional: skipped
    with GeminiStub(reply="ok") as stub:
        env = harness_env(home, {"GEMINI_API_KEY": "fake", "GOOGLE_GEMINI_BASE_URL": stub.base_url})
        for line, expected in [("/review a.py b.py", "Review a.py b.py carefully.\n"),
                               ("/git:commit", "# Commit the staged work"),
                               ("/mine z", "USER MINE z"),
                               ("/price a b", PRICE)]:  # fmt: skip
            argv = ["gemini", "-p", line, "--skip-trust", "-m", "gemini-2.5-pro"]
            done = run(argv, env, home, timeout=TIMEOUT)
            assert done.returncode == 0, done.stderr
            assert sent(stub, expected).startswith(expected)
        assert all(MARKER not in r.text for r in stub.model_requests())
    proven(
        "gemini",
        "slash commands: `gemini -p '/review a b'` sends the TOML prompt with {{args}} (from "
        "$ARGUMENTS) substituted and amounts ($150, $4,050) as written; git/commit.toml runs "
        "as /git:commit; a command with positional placeholders is not rendered; the user's "
        "own `mine` untouched and used",
    )


def test_qwen_runs_the_commands_with_args(tmp_path: Path, proven: Proven) -> None:
    need("qwen")
    own = {".qwen/commands/mine.toml": 'description = "My own"\nprompt = "USER MINE {{args}}"\n'}
    home = installed(tmp_path, ".qwen", own)
    (home / ".qwen/settings.json").write_text(json.dumps(QWEN_SETTINGS))
    with AnthropicStub(reply="ok") as stub:
        keys = {"ANTHROPIC_API_KEY": "dummy", "ANTHROPIC_BASE_URL": stub.base_url}
        env = harness_env(home, keys)
        for line, expected in [("/review a.py b.py", "Review a.py b.py carefully.\n"),
                               ("/git:commit", "# Commit the staged work"),
                               ("/mine z", "USER MINE z"),
                               ("/price a b", PRICE)]:  # fmt: skip
            argv = ["qwen", "-p", line, "--auth-type", "anthropic", "-m", "claude-sonnet-4-5"]
            done = run(argv, env, home, timeout=TIMEOUT)
            assert done.returncode == 0, done.stderr
            assert sent(stub, expected).startswith(expected)
        assert all(MARKER not in r.text for r in stub.model_requests())
    proven(
        "qwen",
        "slash commands: `qwen -p '/review a b'` sends the TOML prompt with {{args}} "
        "substituted and amounts ($150) as written; git/commit.toml runs as /git:commit; the "
        "user's own `mine` untouched",
    )


# --------------------------------------------------------------------------- pi


def pi_rpc(home: Path, stub: OpenAIStub, messages: list[dict[str, Any]],
           done: Callable[[], bool]) -> list[dict[str, Any]]:  # fmt: skip
    """pi in RPC mode against the stub: send `messages`, wait until `done()`, quit."""
    import os
    import signal
    import time

    models = {"providers": {"stub": {"baseUrl": stub.base_url, "api": "openai-completions",
                                     "apiKey": "dummy", "models": [{"id": "stub-model"}]}}}  # fmt: skip
    (home / ".pi/agent/models.json").write_text(json.dumps(models))
    argv = ["pi", "--mode", "rpc", "--no-session", "--provider", "stub", "--model", "stub-model"]
    proc = subprocess.Popen(
        argv, env=harness_env(home, {"PI_OFFLINE": "1"}), cwd=home, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    assert proc.stdin is not None
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
    proc.stdin.flush()
    deadline = time.monotonic() + TIMEOUT
    while not done() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    out, _ = proc.communicate(timeout=10)
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def test_pi_lists_and_runs_the_prompts(tmp_path: Path, proven: Proven) -> None:
    need("pi")
    own = {".pi/agent/prompts/mine.md": "---\ndescription: My own\n---\nUSER MINE $ARGUMENTS\n"}
    home = installed(tmp_path, ".pi/agent", own)
    assert not (home / ".pi/agent/prompts/git").exists()  # pi reads no subfolders: skipped
    with OpenAIStub(reply="ok") as stub:
        messages = [{"id": "1", "type": "get_commands"},
                    {"id": "2", "type": "prompt", "message": "/compare x"}]  # fmt: skip
        events = pi_rpc(home, stub, messages, lambda: bool(stub.model_requests()))
        answer = next(e for e in events if e.get("id") == "1")
        prompts = {c["name"]: c.get("description") for c in answer["data"]["commands"]
                   if c.get("source") == "prompt"}  # fmt: skip
        assert prompts == {"review": "Review a file with care", "compare": "Compare two things",
                           "mine": "My own"}  # fmt: skip
        # Claude Code's $0 is pi's $1; the missing second word is nothing here
        assert sent(stub, "Compare x with .").startswith("Compare x with .")
        assert all(MARKER not in r.text for r in stub.model_requests())
    proven(
        "pi",
        "slash commands: RPC `get_commands` lists the rendered prompts with their "
        "descriptions (the marker a YAML comment in the frontmatter) and the user's own "
        "`mine` untouched (not `price`, whose amounts pi would replace); `/compare x` sends "
        "the body with Claude Code's $0 as $1, the missing $1 (pi's $2) as nothing",
    )


# --------------------------------------------------------------------------- Factory Droid


def test_droid_runs_the_commands_it_can_take(tmp_path: Path, proven: Proven) -> None:
    need("droid")
    from tests.conformance.test_droid import MODEL, stub_settings

    # a command with no placeholder: Droid gives it nothing typed, skilltool appends ARGUMENTS
    plain = tmp_path / "plugins/cmds/commands/plain.md"
    plain.parent.mkdir(parents=True)
    plain.write_text("---\ndescription: Plain\n---\nPLAIN BODY\n", encoding="utf-8")
    own = {".factory/commands/mine.md": "---\ndescription: My own\n---\nUSER MINE $ARGUMENTS\n"}
    home = installed(tmp_path, ".factory", own)
    commands = home / ".factory/commands"
    assert sorted(p.name for p in commands.rglob("*.md")) == [
        "mine.md", "plain.md", "price.md", "review.md"  # $0/$1 and a subfolder: skipped
    ]  # fmt: skip
    runs = {
        "/review a.py b.py": "Review a.py b.py carefully.",
        "/price a b": PRICE,
        "/plain x y": "PLAIN BODY\n\nARGUMENTS: x y",
        "/mine z": "USER MINE z",
    }
    work = tmp_path / "work"
    work.mkdir()
    with OpenAIStub(reply="ok") as stub:
        stub_settings(home / ".factory", stub)
        for typed, expected in runs.items():
            done = run(
                ["droid", "exec", "-m", MODEL, typed], harness_env(home), work, timeout=TIMEOUT
            )
            assert done.returncode == 0, done.stdout + done.stderr
            assert expected in sent(stub, expected.split("\n")[0]), typed
        assert all(MARKER not in r.text for r in stub.model_requests())
    proven(
        "droid",
        "slash commands: `droid exec '/review a.py b.py'` sends the rendered body with "
        "$ARGUMENTS put in; amounts ($150) stay; a command with no placeholder gets "
        "'ARGUMENTS: <typed>' appended (Droid alone would drop it); the user's own `mine` is "
        "left and is what runs; Claude Code's $0/$1 and a subfolder command are not rendered; "
        "no marker reaches the model",
    )
