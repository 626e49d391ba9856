"""Hooks in a project: the team's own (an adopted harness folder, plugins in the repository)
and a fetched plugin's once approved, carried into each harness's project hook place, naming
the plugin's folder by a path relative to the project, so that every checkout holds the same
bytes; a line per harness that runs none; the folder a team adopted is never written for its
own hooks. What each binary does with them is proven in tests/conformance/test_project_hooks.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skilltool.hook_format import exported, quoted_references, reach
from tests.gitrepos import Repo, git, isolate_git, plugin_files
from tests.helpers import build_file_tree, run, toml_loads

EVERY = ["claude", "codex", "opencode", "kilo", "gemini", "qwen", "copilot", "pi", "vibe",
         "hermes"]  # fmt: skip
HOOKS = {
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
    }
}
CHECK = '"${CLAUDE_PLUGIN_ROOT}"/check.sh'  # what a command names the plugin's script by
# where each harness that runs a project's hooks gets those of plugins/team
FILES = {
    "claude": [".claude/skills/team.hooks/.claude-plugin/plugin.json",
               ".claude/skills/team.hooks/hooks/hooks.json"],
    "copilot": [".github/hooks/team.json"],
    "opencode": [".opencode/plugins/team.hooks.js"],
    "kilo": [".kilo/plugins/team.hooks.js"],
    "pi": [".pi/extensions/team.hooks.ts"],
    "vibe": [".vibe/claude-hooks/team.py"],
}  # fmt: skip
SETTINGS = {"gemini": ".gemini/settings.json", "qwen": ".qwen/settings.json"}


def files(root: Path) -> dict[str, bytes | str]:
    """Every file and link of a checkout but .git and skilltool's ignored folders."""
    found: dict[str, bytes | str] = {}
    ignored = {".git", ".skilltool/cache", ".skilltool/sources", ".skilltool/state"}
    for folder, dirs, names in os.walk(root):
        here = Path(folder)
        rel = here.relative_to(root).as_posix()
        dirs[:] = [d for d in dirs if (f"{rel}/{d}" if rel != "." else d) not in ignored]
        for name in [*names, *(d for d in dirs if (here / d).is_symlink())]:
            path = here / name
            key = path.relative_to(root).as_posix()
            found[key] = os.readlink(path) if path.is_symlink() else path.read_bytes()
    return found


@pytest.fixture
def repo(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository whose manifest names every harness, with the team's plugin: hooks, a
    script they run, an MCP server (entries of the same settings files as Gemini's hooks)."""
    isolate_git(tmp_path, monkeypatch)
    root = tmp_path / "repo"
    git("init", "-q", root)
    build_file_tree(root, {
        "skilltool.toml": f"harnesses = {json.dumps(EVERY)}\n",
        "plugins/team/.claude-plugin/plugin.json": '{"name": "team"}\n',
        "plugins/team/hooks/hooks.json": json.dumps(HOOKS),
        "plugins/team/check.sh": "#!/bin/sh\nexit 0\n",
        "plugins/team/.mcp.json": json.dumps({"mcpServers": {"docs": {"command": "docs"}}}),
        "src/app.py": "print('app')\n",
    })  # fmt: skip
    monkeypatch.chdir(root / "src")
    return root


def hook_commands(data: dict[str, object]) -> list[str]:
    """Every command of a file in Claude Code's format (or a settings file's `hooks`)."""
    hooks = data["hooks"]
    assert isinstance(hooks, dict)
    return [h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]]


def test_a_projects_hooks_reach_each_harness_in_its_project_place(repo: Path) -> None:
    before = files(repo)
    added = run("plugins", "add", "../plugins/team", "--project")
    assert added.code == 0, added.stdout + added.stderr
    for harness, targets in FILES.items():
        for target in targets:
            assert (repo / target).is_file(), (harness, target)
    # Claude Code's own format, the plugin's folder set from what the harness gives the hook
    for harness, variable in (("claude", '"$CLAUDE_PROJECT_DIR"/plugins/team'),
                              ("copilot", '"$COPILOT_HOOK_DIR"/../../plugins/team')):  # fmt: skip
        data = json.loads((repo / FILES[harness][-1]).read_text())
        assert hook_commands(data) == [
            f"CLAUDE_PLUGIN_ROOT={variable}; export CLAUDE_PLUGIN_ROOT; {CHECK}",
            "echo stopped",
        ]
    for harness, variable in (("gemini", "GEMINI_PROJECT_DIR"), ("qwen", "QWEN_PROJECT_DIR")):
        data = json.loads((repo / SETTINGS[harness]).read_text())
        assert set(data["mcpServers"]) == {"docs"}  # the server's entry and the hooks', one file
        found = [h for groups in data["hooks"].values() for g in groups for h in g["hooks"]]
        assert [h["name"] for h in found] == ["team:PreToolUse-0-0", "team:Stop-0-0"]
        assert found[0]["command"].startswith(f'CLAUDE_PLUGIN_ROOT="${variable}"/plugins/team;')
    gemini = json.loads((repo / SETTINGS["gemini"]).read_text())["hooks"]
    assert set(gemini) == {"BeforeTool", "AfterAgent"}
    assert gemini["BeforeTool"][0]["hooks"][0]["timeout"] == 9000  # milliseconds, in Gemini
    # the generated plugins find the plugin's folder and the project's from their own place
    script = (repo / FILES["opencode"][0]).read_text()
    assert 'resolve(HERE, "../../plugins/team")' in script and json.dumps(CHECK)[1:-1] in script
    assert "import.meta.url" in (repo / FILES["pi"][0]).read_text()
    vibe = toml_loads((repo / ".vibe/hooks.toml").read_text())["hooks"]
    assert vibe[0]["command"] == "python3 -I .vibe/claude-hooks/team.py PreToolUse 0 0"
    # nothing written names this checkout's path
    for path, content in files(repo).items():
        assert str(repo).encode() not in (
            content.encode() if isinstance(content, str) else content
        ), path
    lines = added.lines
    assert (
        "skipped   codex: plugin team's 2 hooks not carried: Codex skips a hook of "
        ".codex/hooks.json without a word until you trust it in its /hooks view, in each "
        "checkout, which skilltool leaves to you"
    ) in lines
    assert "added     gemini   hook team:PreToolUse-0-0 in .gemini/settings.json" in lines
    assert run("plugins", "check").code == 0
    # status says where each binary runs them
    status = run("plugins", "status").stdout
    assert "runs its hooks only once you trust the folder" in status
    assert (
        "runs the hooks of .claude/skills/ only when started in the project's top folder" in status
    )
    # uninstall takes out what it wrote, and nothing else
    gone = run("plugins", "uninstall")
    assert gone.code == 0, gone.stdout + gone.stderr
    ours = ("skilltool.toml", "skilltool.lock", ".skilltool/")
    assert {k: v for k, v in files(repo).items() if not k.startswith(ours)} == {
        k: v for k, v in before.items() if not k.startswith(ours)
    }


def test_another_checkout_writes_the_same_bytes_and_checks_offline(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run("plugins", "add", "../plugins/team", "--project").code == 0
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "hooks", cwd=repo)
    mine = files(repo)
    other = tmp_path / "other-home"
    other.mkdir()
    clone = tmp_path / "elsewhere" / "deeper" / "checkout"
    git("clone", "-q", repo, clone)
    monkeypatch.setenv("HOME", str(other))
    monkeypatch.setenv("GIT_ALLOW_PROTOCOL", "none")  # no fetch could succeed
    monkeypatch.chdir(clone)
    for command in (("plugins", "sync", "--frozen"), ("plugins", "check")):
        done = run(*command)
        assert done.code == 0, (command, done.stdout, done.stderr)
    assert files(clone) == mine
    assert git("status", "--porcelain", cwd=clone) == ""


def test_the_folder_a_team_adopted_is_not_written_for_its_own_hooks(
    repo: Path,
) -> None:
    settings = json.dumps({"hooks": {"PostToolUse": [
        {"matcher": "Edit", "hooks": [{"type": "command", "command": "npm run lint"}]}
    ]}}, indent=2)  # fmt: skip
    build_file_tree(repo, {".claude/settings.json": settings})
    added = run("plugins", "add", "../.claude", "--project")
    assert added.code == 0, added.stdout + added.stderr
    assert not (repo / ".claude/skills/claude.hooks").exists()  # Claude Code runs them itself
    assert (repo / ".claude/settings.json").read_text() == settings
    assert (
        "skipped   copilot: plugin claude's 1 hook not carried: Copilot CLI runs the hooks of "
        ".claude/settings.json itself"
    ) in added.lines
    assert not (repo / ".github/hooks/claude.json").exists()
    assert "npm run lint" in (repo / ".opencode/plugins/claude.hooks.js").read_text()
    qwen = json.loads((repo / SETTINGS["qwen"]).read_text())["hooks"]
    assert qwen["PostToolUse"][0]["hooks"][0] == {
        "name": "claude:PostToolUse-0-0", "type": "command", "command": "npm run lint"
    }  # fmt: skip
    assert run("plugins", "check").code == 0
    again = run("plugins", "install")
    assert again.code == 0 and not any(x.startswith(("wrote", "added")) for x in again.lines)


def test_the_teams_own_hooks_in_a_settings_file_stay_as_they_are(repo: Path) -> None:
    mine = (
        '{\n  // the team\'s\n  "hooks": {\n    "BeforeTool": [\n      {"hooks": [{"type": '
        '"command", "command": "./lint.sh"}]}\n    ]\n  }\n}\n'
    )
    build_file_tree(repo, {".gemini/settings.json": mine})
    assert run("plugins", "add", "../plugins/team", "--project").code == 0
    data = json.loads((repo / SETTINGS["gemini"]).read_text().replace("// the team's", ""))
    commands = [g["hooks"][0]["command"] for g in data["hooks"]["BeforeTool"]]
    assert commands[0] == "./lint.sh" and len(commands) == 2
    # a hook of ours edited by hand is left, with a line, and kept by uninstall
    text = (repo / SETTINGS["gemini"]).read_text().replace("echo stopped", "echo changed")
    (repo / SETTINGS["gemini"]).write_text(text)
    again = run("plugins", "install")
    assert any("hook team:Stop-0-0: edited since skilltool wrote it" in x for x in again.lines)
    assert run("plugins", "uninstall").code == 0
    left = (repo / SETTINGS["gemini"]).read_text()
    assert "./lint.sh" in left and "echo changed" in left and "check.sh" not in left


def test_a_fetched_plugins_hooks_reach_a_project_once_approved(repo: Path, tmp_path: Path) -> None:
    remote = Repo(tmp_path, "guard")
    remote.commit({**plugin_files("guard"), "hooks/hooks.json": json.dumps(HOOKS),
                   "check.sh": "#!/bin/sh\nexit 0\n"})  # fmt: skip
    remote.push()
    manifest = repo / "skilltool.toml"
    manifest.write_text('harnesses = ["copilot"]\n')
    added = run("plugins", "add", remote.url, "--project")
    assert added.code == 0, added.stdout + added.stderr
    assert any(x.startswith("held      guard:") for x in added.lines), added.lines
    assert not (repo / ".github/hooks/guard.json").exists()
    approved = run("plugins", "approve", "guard", "--yes")
    assert approved.code == 0, approved.stdout + approved.stderr
    data = json.loads((repo / ".github/hooks/guard.json").read_text())
    # its checkout, inside the project, which `plugins sync` makes in every clone
    where = "../../.skilltool/sources/guard/current/guard"
    assert (repo / ".github/hooks" / where / "check.sh").is_file()
    assert hook_commands(data)[0] == (
        f'CLAUDE_PLUGIN_ROOT="$COPILOT_HOOK_DIR"/{where}; export CLAUDE_PLUGIN_ROOT; {CHECK}'
    )
    lock = toml_loads((repo / "skilltool.lock").read_text())
    assert "hook:PreToolUse:0:0" in lock["sources"]["guard"]["approved"]["guard"]["runs"]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("${CLAUDE_PLUGIN_ROOT}/x.sh a", '"${CLAUDE_PLUGIN_ROOT}"/x.sh a'),
        ("$CLAUDE_PLUGIN_ROOT/x.sh", '"$CLAUDE_PLUGIN_ROOT"/x.sh'),
        ('node "${CLAUDE_PLUGIN_ROOT}/s.js"', 'node "${CLAUDE_PLUGIN_ROOT}/s.js"'),
        ("sh -c 'cd ${CLAUDE_PLUGIN_ROOT}'", "sh -c 'cd ${CLAUDE_PLUGIN_ROOT}'"),
        ("echo $(ls ${CLAUDE_PLUGIN_ROOT})", "echo $(ls ${CLAUDE_PLUGIN_ROOT})"),
        ("$CLAUDE_PLUGIN_ROOTS", "$CLAUDE_PLUGIN_ROOTS"),  # another variable
    ],
)
def test_a_reference_to_the_plugins_folder_stays_one_word(command: str, expected: str) -> None:
    """Unquoted, the reference is quoted (a checkout path with a blank stays one word);
    quoted or nested, it is left as written: the variable is set for the whole command."""
    assert quoted_references(command) == expected


def test_a_command_sets_the_plugins_folder_only_when_it_names_it() -> None:
    root = reach("QWEN_PROJECT_DIR", "plugins/my team")
    assert root == "\"$QWEN_PROJECT_DIR\"/'plugins/my team'"
    assert reach("QWEN_PROJECT_DIR", ".") == '"$QWEN_PROJECT_DIR"'
    assert exported("npm run lint", root) == "npm run lint"
    assert exported("${CLAUDE_PLUGIN_ROOT}/x", root) == (
        f'CLAUDE_PLUGIN_ROOT={root}; export CLAUDE_PLUGIN_ROOT; "${{CLAUDE_PLUGIN_ROOT}}"/x'
    )


def test_validate_in_a_project_says_which_harness_runs_none_once(repo: Path) -> None:
    assert run("plugins", "add", "../plugins/team", "--project").code == 0
    done = run("plugins", "validate")
    assert done.code == 0, done.stdout + done.stderr
    none = [x for x in done.lines if x.startswith("hooks: ")]
    assert none == [
        "hooks: Hermes runs none: Hermes reads no project folder (a project's plugins load only "
        "with HERMES_ENABLE_PROJECT_PLUGINS=1, which skilltool does not set)",
        "hooks: Codex runs none: Codex skips a hook of .codex/hooks.json without a word until "
        "you trust it in its /hooks view, in each checkout, which skilltool leaves to you",
        "hooks: Kimi Code runs none: Kimi Code 2.1.0 runs hooks only from [[hooks]] tables of "
        "its config.toml, which have no name skilltool could own an entry by",
        "hooks: Factory Droid runs none: Factory Droid 0.215.0 runs hooks only from its "
        "settings.json (lists under each event, with no name an entry of skilltool's could be "
        "kept by) or from a plugin its own 'droid plugin install' copied in; skilltool writes "
        "neither",
        "hooks: Cline CLI runs none: Cline CLI 3.0.65 runs hooks as one script per event in "
        "~/.cline/hooks; skilltool does not write them yet",
        "hooks: Auggie runs none: Auggie 0.36.0 runs hooks only when Augment's server turns them "
        "on for the account, from lists under each event of its settings.json with no name an "
        "entry of skilltool's could be kept by; skilltool does not write them",
        "hooks: Qoder CLI runs none: Qoder CLI 1.1.52 reads hooks from its settings.json, but "
        "none of its listings shows a hook loaded (its 'hooks' command only migrates Claude "
        "Code's) and a prompt needs a login, so no hook of skilltool's there is proven to run; "
        "skilltool writes none",
        "hooks: OpenHands runs none: OpenHands 1.16.0 runs hooks from ~/.openhands/hooks.json, "
        "lists under each event with no name an entry of skilltool's could be kept by, and reads "
        "none of it when the project has a .openhands/hooks.json of its own",
        "hooks: Continue CLI runs none: Continue CLI 1.5.47 runs hooks from lists under each "
        "event of settings.json in ~/.continue and ~/.claude, with no name an entry of "
        "skilltool's could be kept by, and no offline run of it proves one fires: skilltool "
        "writes none for it",
        "hooks: Amp runs none: Amp 0.0.1790142911-g7618fb runs hooks only from its plugins, "
        "which are TypeScript programs, not hook entries skilltool could write and own; "
        "skilltool writes none",
    ]
    assert not any("hook PreToolUse" in x for x in done.lines)  # every other harness runs it
