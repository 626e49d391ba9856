"""OpenCode and Kilo Code CLI have no shell-command hooks of their own; a generated JS plugin
carries Claude Code's. Each test runs once per binary (`[opencode]`, `[kilo]`).

OpenCode 1.18.33 and Kilo 7.7.7 (built from OpenCode) read
`~/.config/<harness>/{plugin,plugins}/*.{js,ts}` and call a plugin's
`tool.execute.before`/`tool.execute.after`, `chat.message`, `experimental.session.compacting` and
`event` (bus events such as `session.created`, `session.idle`). `experimental.hook` (with
`file_edited`/`session_completed` commands) is not in these binaries. The prototype plugin
(claude_hooks.js) runs the recorder with Claude's stdin JSON on those events; a throw in
`tool.execute.before` (the command's exit 2, or its JSON "deny") fails the tool call before it
runs. Findings: docs/hooks-harnesses.md."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.conformance import carried_hooks as C
from tests.conformance import hooks as H
from tests.conformance.sandbox import harness_bin, harness_env, make_home, run
from tests.conformance.stub import AnthropicStub
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

# each harness and the variable that carries its config
CONFIG_ENV = {"opencode": "OPENCODE_CONFIG_CONTENT", "kilo": "KILO_CONFIG_CONTENT"}
# what each writes in its config folder while it runs (seen in a run of the test below)
RUNTIME = {"opencode": (".gitignore",), "kilo": (".gitignore", ".bash-permission-migrated")}
# a plugin of the user's own beside skilltool's, in the same folder
OWN_PLUGIN = "export const Mine = async () => ({});\n"


@pytest.fixture(params=list(CONFIG_ENV))
def harness(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    need(name)
    return name


def test_the_binary_has_plugin_hooks_and_no_command_hooks(harness: str, proven: Proven) -> None:
    binary = H.launcher_target(harness_bin() / harness)
    found = H.binary_has(
        binary, b'trigger("tool.execute.before"', b'trigger("tool.execute.after"',
        b'trigger("chat.message"', b'"{plugin,plugins}/*.{ts,js}"', b"session_completed",
        b"file_edited",
    )  # fmt: skip
    assert found.pop(b"session_completed") is False and found.pop(b"file_edited") is False
    assert all(found.values()), found
    proven(
        harness,
        "the binary calls plugin hooks tool.execute.before/after and chat.message, loads "
        "{plugin,plugins}/*.{ts,js}, and has no `experimental.hook` (file_edited/session_completed)",
    )


def test_a_generated_plugin_runs_claude_hooks_and_blocks(
    harness: str, tmp_path: Path, proven: Proven
) -> None:
    cost = H.check_plugin_run(H.plugin_run(tmp_path, harness, CONFIG_ENV[harness]))
    proven(
        harness,
        f"`{harness} run` (Anthropic stub, 3 bash calls): a plugin in ~/.config/{harness}/plugin "
        "ran Claude hook commands with Claude's stdin JSON on SessionStart (session.created), "
        "UserPromptSubmit (chat.message), PreToolUse/PostToolUse (tool.execute.before/after, "
        'tool_name Bash, matcher "Read" not fired) and Stop (session.idle); a throw on exit 2 or '
        f"on a JSON deny kept the command from running and reached the model; {cost}",
    )


def test_skilltool_carries_a_plugins_hooks_and_uninstall_gives_the_folder_back(
    harness: str, tmp_path: Path, proven: Proven
) -> None:
    """The real `skilltool plugins install --only <harness>` of a user plugin `guard` with
    hooks on the five events writes `~/.config/<harness>/plugins/guard.hooks.js` (two dots in
    the name), which `<harness> run` loads: the hooks fire with the plugin's folder written in
    for `${CLAUDE_PLUGIN_ROOT}` and set in the environment, and exit 2 (and a JSON deny) keeps
    the bash call from running. `uninstall --only <harness>` then removes every file install
    added under ~/.config/<harness> and leaves the files there before it (the user's own
    plugins/mine.js) byte for byte; the only other files left are the ones the harness writes
    itself on its first run (RUNTIME: .gitignore, Kilo's .bash-permission-migrated)."""
    home = make_home(tmp_path)
    folder = home / ".config" / harness
    (folder / "plugins").mkdir(parents=True)
    (folder / "plugins/mine.js").write_text(OWN_PLUGIN, encoding="utf-8")
    plugin, out = C.guard_plugin(home)
    before = C.files(folder)
    C.skilltool(home, "install", "--only", harness)
    wrote = C.written(folder, before)
    script = wrote["plugins/guard.hooks.js"].decode()
    assert C.ROOT not in script and f"{plugin}/rec.py {plugin}/records.jsonl" in script
    work = tmp_path / "work"
    work.mkdir()
    with AnthropicStub(reply=H.three_shell_calls("bash", work)) as stub:
        env = harness_env(home, {CONFIG_ENV[harness]: json.dumps(H.anthropic_provider(stub))})
        start = time.monotonic()
        done = run([harness, "run", "hi"], env, work, timeout=50)
        seconds = time.monotonic() - start
        assert done.returncode == 0, done.stdout + done.stderr
        last = [r for r in stub.model_requests() if H.tool_results(r)][-1]
    rows = H.records(out)
    fired = [r["event"] for r in rows]  # bus events (SessionStart, Stop) come in their own time
    assert sorted(set(fired)) == sorted(C.EVENTS) and fired.count("PreToolUse") == 3
    assert fired.count("PostToolUse") == 1 and fired.count("SessionStart") == 1
    assert all(r["argv"][0] == str(out) for r in rows)  # ${CLAUDE_PLUGIN_ROOT} in an argument
    assert {r["env"]["CLAUDE_PLUGIN_ROOT"] for r in rows} == {str(plugin)}
    pre = H.by_event(rows, "PreToolUse")
    assert [r["payload"]["tool_name"] for r in pre] == ["Bash"] * 3
    assert not (work / "blocked.txt").exists() and not (work / "denied.txt").exists()
    assert (work / "ran.txt").exists()
    blocked, denied, ran = H.tool_results(last)
    assert blocked.get("is_error") and "recorder blocks BLOCKME" in str(blocked["content"])
    assert denied.get("is_error") and "recorder denies DENYME" in str(denied["content"])
    C.skilltool(home, "uninstall", "--only", harness)
    C.given_back(folder, before, wrote, RUNTIME[harness])
    proven(
        harness,
        f"`skilltool plugins install --only {harness}` wrote plugins/guard.hooks.js (two dots) "
        f"from a user plugin's hooks.json; `{harness} run` ({seconds:.0f} s) loaded it: "
        "SessionStart, UserPromptSubmit, PreToolUse (Bash), PostToolUse and Stop ran the "
        "plugin's own recorder through ${CLAUDE_PLUGIN_ROOT} (written in, and set), exit 2 and "
        "a JSON deny blocked bash; uninstall removed what install wrote and left the folder's "
        "other files byte for byte",
    )
