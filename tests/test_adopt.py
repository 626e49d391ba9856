"""A team's own harness folder is the source: `skilltool plugins add ./.claude --project` reads
what Claude Code reads there, in its own format, and carries it to every other harness of the
project, writing nothing into the folder for its own items. Fixtures in the shapes real
repositories have: Claude-first, Gemini-first, Copilot-first, OpenCode-first, Codex-first,
skills in `.agents/skills` with `.claude/skills` a link to it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.gitrepos import git, isolate_git
from tests.helpers import build_file_tree, run, toml_loads

HARNESS_HOMES = (".claude", ".codex", ".config/opencode", ".gemini", ".copilot")

CLAUDE_FIRST = {
    # a description Claude Code's agent generator writes: not valid YAML, loaded all the same
    ".claude/agents/reviewer.md": (
        "---\nname: reviewer\ndescription: Use this agent when: a change needs review. "
        'Examples: user: "review it"\ntools: Read, Grep\n---\nYou review changes.\n'
    ),
    ".claude/commands/git/commit.md": "---\ndescription: Commit it\n---\nCommit $ARGUMENTS.\n",
    ".claude/skills/hello/SKILL.md": "---\nname: hello\ndescription: Say hello.\n---\nHello.\n",
    ".claude/settings.json": json.dumps(
        {
            "hooks": {
                "PostToolUse": [
                    {"matcher": "Edit", "hooks": [{"type": "command", "command": "npm run lint"}]}
                ]
            }
        }
    ),
    ".mcp.json": json.dumps(
        {"mcpServers": {"docs": {"type": "http", "url": "https://docs.example/mcp"}}}
    ),
    "src/app.py": "print('app')\n",
}


def tree(root: Path) -> dict[str, bytes | str]:
    """Every file and link of a checkout but .git and skilltool's ignored folders."""
    found: dict[str, bytes | str] = {}
    ignored = {".git", ".skilltool/cache", ".skilltool/sources", ".skilltool/state"}
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        rel = here.relative_to(root).as_posix()
        dirs[:] = [d for d in dirs if (f"{rel}/{d}" if rel != "." else d) not in ignored]
        for name in [*files, *(d for d in dirs if (here / d).is_symlink())]:
            path = here / name
            key = path.relative_to(root).as_posix()
            found[key] = os.readlink(path) if path.is_symlink() else path.read_bytes()
    return found


@pytest.fixture
def team(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    isolate_git(tmp_path, monkeypatch)
    repo = tmp_path / "repo"
    git("init", "-q", repo)
    for folder in HARNESS_HOMES:
        (home / folder).mkdir(parents=True)
    monkeypatch.chdir(repo)
    return repo


def test_a_claude_first_repository_is_adopted_without_moving_a_file(
    team: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_file_tree(team, CLAUDE_FIRST)
    before = tree(team)
    added = run("plugins", "add", "./.claude", "--project")
    assert added.code == 0, added.stdout + added.stderr
    manifest = toml_loads((team / "skilltool.toml").read_text())
    assert manifest["sources"] == {"claude": {"path": ".claude", "harness": "claude"}}
    after = tree(team)
    # the team's files are as they were: nothing written into .claude for its own items
    for path, content in before.items():
        assert after[path] == content, path
    assert not [p for p in after if p.startswith(".claude/") and p not in before]
    # carried to every other harness of the project
    assert os.readlink(team / ".agents/skills/hello") == "../../.claude/skills/hello"
    for rendered in (
        ".opencode/agent/reviewer.md",
        ".gemini/agents/reviewer.md",
        ".github/agents/reviewer.agent.md",
        ".codex/agents/reviewer.toml",
        ".gemini/commands/git/commit.toml",
    ):
        assert rendered in after, (rendered, sorted(after))
    assert "You review changes." in (team / ".opencode/agent/reviewer.md").read_text()
    assert "docs" in toml_loads((team / ".codex/config.toml").read_text())["mcp_servers"]
    said = added.stdout + added.stderr
    assert "hook" in said  # the team's hook is named, not dropped in silence
    assert run("plugins", "check").code == 0
    # the team keeps editing its own file: install carries the edit, check passes
    agent = team / ".claude/agents/reviewer.md"
    agent.write_text(agent.read_text().replace("You review changes.", "You review closely."))
    assert run("plugins", "install").code == 0
    assert "You review closely." in (team / ".opencode/agent/reviewer.md").read_text()
    assert agent.read_text().endswith("You review closely.\n")
    checked = run("plugins", "check")
    assert checked.code == 0, checked.stdout


def test_a_teammates_clone_with_no_network_syncs_and_checks_to_the_same_bytes(
    team: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_file_tree(team, CLAUDE_FIRST)
    assert run("plugins", "add", "./.claude", "--project").code == 0
    git("add", "-A", cwd=team)
    git("commit", "-q", "-m", "plugins", cwd=team)
    mine = tree(team)
    other = tmp_path / "other-home"
    (other / ".claude").mkdir(parents=True)
    clone = tmp_path / "elsewhere" / "checkout"
    git("clone", "-q", team, clone)
    monkeypatch.setenv("HOME", str(other))
    monkeypatch.setenv("GIT_ALLOW_PROTOCOL", "none")  # no fetch could succeed
    monkeypatch.chdir(clone)
    for command in (("plugins", "sync", "--frozen"), ("plugins", "check")):
        done = run(*command)
        assert done.code == 0, (command, done.stdout, done.stderr)
    assert tree(clone) == mine
    assert git("status", "--porcelain", cwd=clone) == ""


def test_skills_in_agents_with_claude_skills_a_link_to_it(team: Path) -> None:
    build_file_tree(
        team,
        {
            ".agents/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lint it.\n---\nLint.\n",
            ".agents/skills/lint/scripts/run.sh": "#!/bin/sh\necho lint\n",
        },
    )
    os.symlink("../.agents/skills", team / ".claude" / "skills") if (
        team / ".claude"
    ).is_dir() else (
        (team / ".claude").mkdir(),
        os.symlink("../.agents/skills", team / ".claude" / "skills"),
    )
    before = tree(team)
    added = run("plugins", "add", "./.agents", "--project")
    assert added.code == 0, added.stdout + added.stderr
    assert "left" not in added.stdout, added.stdout  # nothing in the way: it is all in place
    after = tree(team)
    assert {p for p in after if p.startswith((".agents/", ".claude/"))} == {
        p for p in before if p.startswith((".agents/", ".claude/"))
    }
    assert run("plugins", "check").code == 0


def test_an_ignored_source_is_named_and_no_evidence_in_a_clone(
    team: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A team that ignores `.mcp.json` at any depth: the plugin's own server file is not
    committed. `add` says so; a teammate's clone, which lacks it, removes nothing committed."""
    build_file_tree(
        team,
        {
            ".gitignore": "node_modules/\n.mcp.json\n",
            "plugins/team/.claude-plugin/plugin.json": '{"name": "team"}\n',
            "plugins/team/skills/hello/SKILL.md": (
                "---\nname: hello\ndescription: Say hello.\n---\nHello.\n"
            ),
            "plugins/team/.mcp.json": json.dumps(
                {"mcpServers": {"docs": {"type": "http", "url": "https://docs.example/mcp"}}}
            ),
        },
    )
    added = run("plugins", "add", "./plugins/team", "--project")
    assert added.code == 0, added.stdout + added.stderr
    said = added.stdout + added.stderr
    assert (
        f"{team / 'plugins/team/.mcp.json'}: is ignored by .gitignore:2: a teammate's clone "
        "will not have it"
    ) in said, said
    assert run("plugins", "check").code == 1  # what is committed is not what a clone gets
    git("add", "-A", cwd=team)
    git("commit", "-q", "-m", "plugins", cwd=team)
    codex = toml_loads((team / ".codex/config.toml").read_text())["mcp_servers"]
    assert "docs" in codex
    clone = tmp_path / "clone"
    git("clone", "-q", team, clone)
    assert not (clone / "plugins/team/.mcp.json").exists()
    monkeypatch.setenv("HOME", str(tmp_path / "other-home"))
    (tmp_path / "other-home").mkdir()
    monkeypatch.chdir(clone)
    synced = run("plugins", "sync", "--frozen")
    assert synced.code == 0, synced.stdout + synced.stderr
    for config in (".codex/config.toml", ".opencode/opencode.json", ".gemini/settings.json"):
        assert (clone / config).read_bytes() == (team / config).read_bytes(), config
    assert git("status", "--porcelain", cwd=clone) == ""
    assert "so a clone does not have it: it is not gone" in synced.stdout, synced.stdout


GEMINI_FIRST = {
    ".gemini/commands/git/commit.toml": (
        'description = "Commit it"\nprompt = "Write a commit message for {{args}}."\n'
    ),
    ".gemini/commands/status.toml": 'prompt = "Say the status: !{git status}"\n',
    ".gemini/agents/helper.md": (
        "---\nname: helper\ndescription: Helps.\ntools: [read_file, grep_search, "
        "run_shell_command]\ntemperature: 0.2\nmodel: gemini-2.5-pro\n---\nYou help.\n"
    ),
    ".gemini/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lint it.\n---\nLint.\n",
    ".gemini/skills/lint/scripts/run.sh": "#!/bin/sh\necho lint\n",
    ".gemini/settings.json": (
        '{\n  // the team\'s servers\n  "mcpServers": {"docs": {"httpUrl": "https://docs.example/mcp"}}\n}\n'
    ),
    ".gitignore": ".gemini/*\n!.gemini/commands/\n!.gemini/agents/\n!.gemini/skills/\n",
}
OPENCODE_FIRST = {
    ".opencode/agent/planner.md": (
        "---\ndescription: Plans the work.\nmode: subagent\ntemperature: 0.1\n"
        "tools:\n  write: false\n  edit: false\n  bash: false\n---\nYou plan.\n"
    ),
    ".opencode/command/test.md": "---\ndescription: Run the tests\n---\nRun !`npm test` and fix $ARGUMENTS.\n",
    ".opencode/opencode.json": json.dumps(
        {"mcp": {"docs": {"type": "remote", "url": "https://docs.example/mcp"}}}
    ),
}
COPILOT_FIRST = {
    ".github/agents/x.md": "---\ndescription: The x agent.\n---\nYou are x.\n",
    ".github/agents/docs.agent.md": "---\ndescription: Writes docs.\ntools: [read, edit]\n---\nYou write docs.\n",
    ".github/workflows/ci.yml": "on: push\n",
}
CODEX_FIRST = {
    ".agents/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy it.\n---\nDeploy.\n",
    ".agents/skills/deploy/agents/openai.yaml": "interface:\n  display_name: Deploy\n",
    ".codex/agents/reviewer.toml": (
        'name = "reviewer"\ndescription = "Reviews."\ndeveloper_instructions = "You review."\n'
        'model = "gpt-5"\n'
    ),
    ".codex/config.toml": '[mcp_servers.docs]\ncommand = "docs-server"\nargs = ["--stdio"]\n',
}


def test_a_gemini_first_repository(team: Path) -> None:
    build_file_tree(team, GEMINI_FIRST)
    added = run("plugins", "add", "./.gemini", "--project")
    assert added.code == 0, added.stdout + added.stderr
    said = added.stdout + added.stderr
    claude_command = (team / ".claude/commands/git/commit.md").read_text()
    assert "Write a commit message for $ARGUMENTS." in claude_command
    assert "runs a shell command (!{...})" in said  # named, not dropped in silence
    agent = (team / ".claude/agents/helper.md").read_text()
    assert 'tools: "Read, Grep, Bash"' in agent and "temperature" not in agent
    assert "You help." in agent
    assert os.readlink(team / ".claude/skills/lint") == "../../.gemini/skills/lint"
    assert toml_loads((team / ".codex/config.toml").read_text())["mcp_servers"]["docs"] == {
        "url": "https://docs.example/mcp"
    }
    assert not [p for p in tree(team) if p.startswith(".gemini/") and p not in GEMINI_FIRST]


def test_a_gemini_first_repositorys_hooks_are_read_in_geminis_own_names(team: Path) -> None:
    """`.gemini/settings.json` hooks: Gemini's events, tool names and milliseconds read as
    Claude Code's and carried; one on an event no other harness has is said, not dropped."""
    settings = {
        "hooks": {
            "BeforeTool": [
                {
                    "matcher": "run_shell_command",
                    "hooks": [
                        {"type": "command", "command": "./scripts/guard.sh", "timeout": 5000}
                    ],
                }
            ],
            "BeforeModel": [{"hooks": [{"type": "command", "command": "./scripts/log.sh"}]}],
        }
    }
    commented = "// Gemini CLI reads its settings with comments\n" + json.dumps(settings)
    build_file_tree(team, {".gemini/settings.json": commented})
    added = run("plugins", "add", "./.gemini", "--project")
    assert added.code == 0, added.stdout + added.stderr
    carried = json.loads((team / ".claude/skills/gemini.hooks/hooks/hooks.json").read_text())
    [group] = carried["hooks"]["PreToolUse"]
    assert group["matcher"] == "Bash"
    assert group["hooks"][0]["command"].endswith("./scripts/guard.sh")
    assert group["hooks"][0]["timeout"] == 5
    said = added.stdout + added.stderr
    assert "hooks on BeforeModel: no other harness has that event or tool" in said
    assert (team / ".gemini/settings.json").read_text() == commented  # its own, untouched
    assert run("plugins", "check").code == 0


def test_a_copilot_first_repositorys_hooks_in_claudes_format_are_carried(team: Path) -> None:
    claude_dialect = {"hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [
        {"type": "command", "command": "./fmt.sh"}]}]}}  # fmt: skip
    own_dialect = {"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "x"}]}}
    build_file_tree(
        team,
        {
            ".github/hooks/format.json": json.dumps(claude_dialect),
            ".github/hooks/start.json": json.dumps(own_dialect),
        },
    )
    added = run("plugins", "add", "./.github", "--project")
    assert added.code == 0, added.stdout + added.stderr
    carried = json.loads((team / ".claude/skills/copilot.hooks/hooks/hooks.json").read_text())
    assert list(carried["hooks"]) == ["PostToolUse"]
    assert "hooks in the harness's own dialect" in added.stdout + added.stderr
    assert run("plugins", "check").code == 0


def test_an_opencode_first_repository(team: Path) -> None:
    build_file_tree(team, OPENCODE_FIRST)
    added = run("plugins", "add", "./.opencode", "--project")
    assert added.code == 0, added.stdout + added.stderr
    agent = (team / ".claude/agents/planner.md").read_text()
    assert "disallowedTools:\n- Write\n- Edit\n- Bash\n" in agent, agent
    assert "temperature" not in agent and "mode" not in agent
    assert (team / ".gemini/commands/test.toml").exists()
    assert "docs" in toml_loads((team / ".codex/config.toml").read_text())["mcp_servers"]
    assert run("plugins", "check").code == 0


def test_a_copilot_first_repository_keeps_its_agents_names(team: Path) -> None:
    build_file_tree(team, COPILOT_FIRST)
    added = run("plugins", "add", "./.github", "--project")
    assert added.code == 0, added.stdout + added.stderr
    assert (team / ".claude/agents/x.md").exists()
    assert (team / ".claude/agents/docs.md").exists()  # `docs.agent.md` is the agent `docs`
    assert not (team / ".github/agents/x.agent.md").exists()  # its own: never written
    assert run("plugins", "check").code == 0


def test_a_codex_first_repository(team: Path) -> None:
    build_file_tree(team, CODEX_FIRST)
    assert run("plugins", "add", "./.agents", "--project").code == 0
    added = run("plugins", "add", "./.codex", "--project")
    assert added.code == 0, added.stdout + added.stderr
    assert os.readlink(team / ".claude/skills/deploy") == "../../.agents/skills/deploy"
    agent = (team / ".claude/agents/reviewer.md").read_text()
    assert "You review." in agent and "gpt-5" not in agent
    assert (team / ".mcp.json").exists()
    assert "docs" in json.loads((team / ".mcp.json").read_text())["mcpServers"]
    assert toml_loads((team / ".codex/config.toml").read_text()) == toml_loads(
        CODEX_FIRST[".codex/config.toml"]
    )
    assert run("plugins", "check").code == 0


def test_a_git_sources_committed_copies_need_no_network_in_a_clone(
    team: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.gitrepos import Repo, plugin_files

    remote = Repo(tmp_path, "tools")
    remote.commit(plugin_files("tools", ("lint",), {"fixer": "You fix.\n"}))
    remote.push()
    added = run("plugins", "add", remote.url, "--project")
    assert added.code == 0, added.stdout + added.stderr
    git("add", "-A", cwd=team)
    git("commit", "-q", "-m", "plugins", cwd=team)
    mine = tree(team)
    clone = tmp_path / "clone"
    git("clone", "-q", team, clone)
    remote.remote.rename(tmp_path / "gone.git")  # the remote is out of reach
    monkeypatch.setenv("HOME", str(tmp_path / "other-home"))
    (tmp_path / "other-home").mkdir()
    monkeypatch.chdir(clone)
    for command in (("plugins", "sync", "--frozen"), ("plugins", "check")):
        done = run(*command)
        assert done.code == 0, (command, done.stdout, done.stderr)
        assert "what is committed of it is used as it is" in done.stdout, done.stdout
    assert tree(clone) == mine
    assert git("status", "--porcelain", cwd=clone) == ""


def test_enabled_plugins_of_claudes_official_marketplace_need_no_declaration(
    team: Path, tmp_path: Path
) -> None:
    """`enabledPlugins` naming `@claude-plugins-official` (which Claude Code knows without
    `extraKnownMarketplaces`) is resolved from Anthropic's repository, here a local copy
    that git's own `insteadOf` stands in for; one from a marketplace named nowhere is said."""
    from tests.gitrepos import Repo, plugin_files

    official = Repo(tmp_path, "claude-plugins-official")
    files = plugin_files("commit-commands", ("commit",), prefix="plugins/commit-commands/")
    files[".claude-plugin/marketplace.json"] = json.dumps(
        {
            "name": "claude-plugins-official",
            "owner": {"name": "Anthropic"},
            "plugins": [{"name": "commit-commands", "source": "./plugins/commit-commands"}],
        }
    )
    official.commit(files)
    official.push()
    config = Path(os.environ["GIT_CONFIG_GLOBAL"])
    config.write_text(
        config.read_text() + f'[url "{official.url}"]\n\tinsteadOf = '
        "https://github.com/anthropics/claude-plugins-official.git\n"
    )
    build_file_tree(
        team,
        {
            ".claude/settings.json": json.dumps(
                {
                    "enabledPlugins": {
                        "commit-commands@claude-plugins-official": True,
                        "x@nowhere": True,
                    }
                }
            ),
            "plugins/team/skills/hello/SKILL.md": (
                "---\nname: hello\ndescription: Say hello.\n---\nHello.\n"
            ),
        },
    )
    added = run("plugins", "add", "./plugins/team", "--project")
    assert added.code == 0, added.stdout + added.stderr
    synced = run("plugins", "sync")
    assert synced.code == 0, synced.stdout + synced.stderr
    lock = toml_loads((team / "skilltool.lock").read_text())["sources"]
    assert lock["claude-plugins-official"]["url"] == (
        "https://github.com/anthropics/claude-plugins-official.git"
    )
    assert (team / ".agents/skills/commit").is_dir()  # carried to the other harnesses
    assert not (team / ".claude/skills/commit").exists()  # Claude Code loads it itself
    said = synced.stdout + synced.stderr
    assert "enabledPlugins.x@nowhere: the marketplace 'nowhere' is declared nowhere" in said


def test_the_pre_commit_hook_runs_the_check_in_a_project(team: Path) -> None:
    """What `.pre-commit-hooks.yaml` offers runs as pre-commit runs it: its `entry` in the
    repository, with no file names; it passes when what is committed is current."""
    import yaml

    from tests.helpers import REPO

    [hook] = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "skilltool-check" and hook["pass_filenames"] is False
    program, *args = hook["entry"].split()
    assert program == "skilltool"
    build_file_tree(team, CLAUDE_FIRST)
    assert run("plugins", "add", "./.claude", "--project").code == 0
    assert run(*args).code == 0
    (team / ".claude/agents/reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews.\n---\nYou review again.\n"
    )
    failed = run(*args)
    assert failed.code == 1 and "You review again." in failed.stdout


@pytest.mark.parametrize(
    ("files", "folder"),
    [
        (
            {
                ".claude/settings.json": json.dumps(
                    {
                        "hooks": {
                            "SessionStart": [
                                {"hooks": [{"type": "command", "command": "make setup"}]}
                            ]
                        }
                    }
                )
            },
            ".claude",
        ),
        (
            {
                ".codex/hooks.json": json.dumps(
                    {
                        "hooks": {
                            "SessionStart": [
                                {"hooks": [{"type": "command", "command": "make setup"}]}
                            ]
                        }
                    }
                )
            },
            ".codex",
        ),
    ],
    ids=["claude-settings", "codex-hooks"],
)
def test_a_repository_of_hooks_only_is_added_and_its_hooks_are_carried(
    team: Path, files: dict[str, str], folder: str
) -> None:
    build_file_tree(team, files)
    before = tree(team)
    added = run("plugins", "add", f"./{folder}", "--project")
    assert added.code == 0, added.stdout + added.stderr
    source = folder.removeprefix(".")
    # carried to every other harness of the project that runs a project's hooks
    script = (team / f".opencode/plugins/{source}.hooks.js").read_text()
    assert "make setup" in script
    gemini = json.loads((team / ".gemini/settings.json").read_text())["hooks"]
    assert gemini["SessionStart"][0]["hooks"][0]["command"] == "make setup"
    # never into the folder it came from, whose harness runs them itself
    after = tree(team)
    for path, content in before.items():
        assert after[path] == content, path
    if folder == ".claude":  # Copilot CLI runs .claude/settings.json's hooks itself
        assert not (team / ".github/hooks/claude.json").exists()
        assert "Copilot CLI runs the hooks of .claude/settings.json itself" in added.stdout
        assert "1 hook not carried: Codex skips a hook" in added.stdout  # named, never dropped
    else:
        assert (team / ".claude/skills/codex.hooks/hooks/hooks.json").is_file()
        assert (team / ".github/hooks/codex.json").is_file()
        assert "Codex skips a hook" not in added.stdout  # its own folder: not written for it
    assert run("plugins", "check").code == 0
