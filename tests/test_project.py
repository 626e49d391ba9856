"""A project: a repository's manifest and lockfile, what skilltool writes into the
repository for each harness it names, and a teammate's clone reproducing it byte for byte."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.gitrepos import Repo, git, isolate_git, plugin_files
from tests.helpers import build_file_tree, run, toml_loads


def _team_plugin(repo: Path) -> None:
    build_file_tree(
        repo,
        {
            "plugins/team/.claude-plugin/plugin.json": '{"name": "team"}\n',
            "plugins/team/skills/hello/SKILL.md": (
                "---\nname: hello\ndescription: Say hello to the team.\n---\nSay hello.\n"
            ),
            "plugins/team/agents/reviewer.md": (
                "---\nname: reviewer\ndescription: Reviews a change.\n---\nYou review.\n"
            ),
            "plugins/team/commands/ship.md": "---\ndescription: Ship it\n---\nShip $ARGUMENTS.\n",
        },
    )


@pytest.fixture
def repo(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository with the team's own plugin, the working directory in a subfolder,
    and a home with Claude Code and OpenCode set up."""
    isolate_git(tmp_path, monkeypatch)
    root = tmp_path / "repo"
    (root / "src" / "deep").mkdir(parents=True)
    git("init", "-q", root)
    _team_plugin(root)
    (home / ".claude").mkdir()
    (home / ".config" / "opencode").mkdir(parents=True)
    monkeypatch.chdir(root / "src" / "deep")
    return root


def _files(root: Path) -> dict[str, bytes | str]:
    """Every file and link of a checkout but .git and skilltool's ignored folders: what a
    commit of it holds (a link as its text)."""
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


def test_add_inside_a_repository_makes_the_manifest_and_writes_into_the_project(
    repo: Path, home: Path
) -> None:
    result = run("plugins", "add", "../../plugins/team", "--project")
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"project   {repo}"
    manifest = toml_loads((repo / "skilltool.toml").read_text())
    # the harnesses set up in the home of the person who adds, recorded
    assert manifest["harnesses"] == ["opencode", "claude"]
    assert manifest["sources"] == {"team": {"path": "plugins/team"}}
    assert toml_loads((repo / "skilltool.lock").read_text())["sources"]["team"] == {
        "path": "plugins/team"
    }
    # links relative to the checkout, renderings whose markers name the source relatively
    assert os.readlink(repo / ".agents/skills/hello") == "../../plugins/team/skills/hello"
    assert os.readlink(repo / ".claude/skills/hello") == "../../plugins/team/skills/hello"
    agent = (repo / ".claude/agents/reviewer.md").read_text()
    assert "rendered by skilltool from plugins/team/agents/reviewer.md" in agent
    assert (repo / ".opencode/command/ship.md").is_file()
    # nothing in the home: a project's files are its own
    assert not (home / ".agents").exists()
    assert not (home / ".claude" / "agents").exists()
    # skilltool's own folder keeps what each checkout makes for itself out of git
    assert git("check-ignore", ".skilltool/cache/x", ".skilltool/state/lock", cwd=repo)
    committed = git("status", "--porcelain", "--untracked-files=all", cwd=repo).splitlines()
    assert "?? .skilltool/.gitignore" in committed
    shared = subprocess.run(["git", "check-ignore", "-q", ".skilltool/entries.json"], cwd=repo)
    assert shared.returncode == 1  # the record of the entries skilltool wrote is committed


def test_commands_inside_the_project_act_on_it_and_user_forces_the_home(
    repo: Path, home: Path
) -> None:
    assert run("plugins", "add", "../../plugins/team", "--project").code == 0
    status = run("plugins", "status", "-v")
    assert status.stdout.splitlines()[0] == f"project   {repo}"
    assert "hello" in status.stdout
    mine = run("plugins", "status", "--user")
    assert mine.stdout.splitlines()[0] == "home      ~"
    assert "plugins/team" not in mine.stdout


def test_a_local_source_outside_the_project_is_refused(repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    build_file_tree(elsewhere, plugin_files("other", skills=("x",)))
    result = run("plugins", "add", str(elsewhere), "--project")
    assert result.code == 1
    assert "not a folder inside the project" in result.stderr + result.stdout
    assert not (repo / ".agents").exists()


def test_a_teammate_clone_syncs_frozen_to_the_same_bytes(
    repo: Path, tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = Repo(tmp_path, "tools")
    remote.commit(plugin_files("tools", skills=("lint",), agents={"fixer": "You fix.\n"}))
    remote.push()
    assert run("plugins", "add", "../../plugins/team", "--project").code == 0
    added = run("plugins", "add", remote.url, "--project")
    assert added.code == 0, added.stderr
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "plugins", cwd=repo)
    mine = _files(repo)
    assert ".claude/agents/fixer.md" in mine
    # another person, another home, another path
    other_home = tmp_path / "other-home"
    (other_home / ".claude").mkdir(parents=True)  # a different set of harnesses changes nothing
    clone = tmp_path / "elsewhere" / "checkout"
    git("clone", "-q", repo, clone)
    monkeypatch.setenv("HOME", str(other_home))
    monkeypatch.chdir(clone)
    before = sorted(other_home.rglob("*"))
    synced = run("plugins", "sync", "--frozen")
    assert synced.code == 0, synced.stderr
    assert synced.stdout.splitlines()[0] == f"project   {clone}"
    assert _files(clone) == mine
    assert git("status", "--porcelain", cwd=clone) == ""
    assert sorted(other_home.rglob("*")) == before  # nothing outside the repository


def test_sync_frozen_fails_naming_what_differs(repo: Path) -> None:
    assert run("plugins", "add", "../../plugins/team", "--project").code == 0
    manifest = repo / "skilltool.toml"
    manifest.write_text(manifest.read_text() + '\n[sources.more]\npath = "plugins/more"\n')
    before = _files(repo)
    result = run("plugins", "sync", "--frozen")
    assert result.code == 1
    assert "sources.more is not locked" in result.stderr
    assert _files(repo) == before


def test_remove_takes_the_source_out_of_both_files_and_prunes(repo: Path) -> None:
    assert run("plugins", "add", "../../plugins/team", "--project").code == 0
    manifest = repo / "skilltool.toml"
    manifest.write_text("# our plugins\n" + manifest.read_text())
    result = run("plugins", "remove", "team")
    assert result.code == 0, result.stderr
    assert (
        "sources" not in toml_loads(manifest.read_text())
        or not toml_loads(manifest.read_text())["sources"]
    )
    assert manifest.read_text().startswith("# our plugins\n")  # the person's comment stays
    assert not os.path.lexists(repo / ".agents/skills/hello")
    assert not (repo / ".claude/agents/reviewer.md").exists()


def test_a_source_dropped_from_the_manifest_is_pruned_by_sync(repo: Path) -> None:
    assert run("plugins", "add", "../../plugins/team", "--project").code == 0
    manifest = repo / "skilltool.toml"
    text = manifest.read_text()
    manifest.write_text(text[: text.index("[sources.team]")])
    result = run("plugins", "sync")
    assert result.code == 0, result.stderr
    assert "removed   team" in result.stdout
    assert not os.path.lexists(repo / ".agents/skills/hello")
    assert "team" not in (repo / "skilltool.lock").read_text()


def test_a_bad_manifest_is_one_line_naming_the_field(repo: Path) -> None:
    (repo / "skilltool.toml").write_text('harnesses = ["claude", "emacs"]\n')
    result = run("plugins", "status")
    assert result.code == 1
    [line] = result.stderr.splitlines()
    assert "skilltool.toml: harnesses: 'emacs' is not a harness" in line


def test_check_is_one_line_when_current_and_the_diff_when_not(repo: Path) -> None:
    assert run("plugins", "add", "../../plugins/team", "--project").code == 0
    current = run("plugins", "check")
    assert current.code == 0, current.stderr
    assert current.scope == f"project   {repo}"
    assert current.lines == ["current   nothing would change"]
    command = repo / "plugins/team/commands/ship.md"
    command.write_text(command.read_text() + "Then tell the team.\n")
    (repo / "plugins/team/skills/bye").mkdir()
    (repo / "plugins/team/skills/bye/SKILL.md").write_text(
        "---\nname: bye\ndescription: Say goodbye.\n---\nBye.\n"
    )
    before = _files(repo)
    changed = run("plugins", "check")
    assert changed.code == 1
    assert "+Then tell the team." in changed.lines
    assert "--- .claude/commands/ship.md (on disk)" in changed.lines
    assert "new link: .agents/skills/bye -> plugins/team/skills/bye" in changed.lines
    assert _files(repo) == before  # a check writes nothing
    assert run("plugins", "install").code == 0
    assert run("plugins", "check").code == 0


def test_pre_commit_hook_runs_the_check_on_the_project() -> None:
    import yaml

    [hook] = yaml.safe_load((Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "skilltool-check"
    assert hook["entry"].split() == ["skilltool", "plugins", "check", "--project"]
    assert hook["pass_filenames"] is False


def test_a_git_sources_skills_are_committed_copies_that_work_without_skilltool(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = Repo(tmp_path, "tools")
    files = plugin_files("tools", skills=("lint",))
    files["skills/lint/run.sh"] = "#!/bin/sh\necho lint\n"
    remote.commit(files)
    (remote.work / "skills/lint/run.sh").chmod(0o755)
    remote.commit({})
    remote.push()
    assert run("plugins", "add", remote.url, "--project").code == 0
    copy = repo / ".agents/skills/lint"
    assert copy.is_dir() and not copy.is_symlink()
    assert (copy / "SKILL.md").read_text() == (remote.work / "skills/lint/SKILL.md").read_text()
    assert os.access(copy / "run.sh", os.X_OK)
    assert (repo / ".claude/skills/lint/SKILL.md").is_file()  # Claude Code reads only its own
    marker = (copy / ".skilltool-copy").read_text()
    assert marker.startswith("copied by skilltool from .skilltool/sources/tools/")
    # a teammate's clone holds the skill without running anything
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "plugins", cwd=repo)
    clone = tmp_path / "clone"
    git("clone", "-q", repo, clone)
    assert (clone / ".agents/skills/lint/SKILL.md").read_text().startswith("---\nname: lint")
    # an edit by hand is kept; check says the copy is not what skilltool would write
    (copy / "SKILL.md").write_text((copy / "SKILL.md").read_text() + "Our own note.\n")
    result = run("plugins", "install")
    assert result.code == 0, result.stderr
    assert "Our own note." in (copy / "SKILL.md").read_text()
    assert any("edited by hand" in line for line in result.lines), result.stdout
    forced = run("plugins", "install", "--force")
    assert forced.code == 0, forced.stderr
    assert "Our own note." not in (copy / "SKILL.md").read_text()


def test_skills_link_keeps_a_git_sources_skills_in_the_ignored_checkout(
    repo: Path, tmp_path: Path
) -> None:
    remote = Repo(tmp_path, "tools")
    remote.commit(plugin_files("tools", skills=("lint",)))
    remote.push()
    (repo / "skilltool.toml").write_text('harnesses = ["opencode"]\nskills = "link"\n')
    assert run("plugins", "add", remote.url).code == 0
    link = repo / ".agents/skills/lint"
    assert os.readlink(link) == "../../.skilltool/sources/tools/current/tools/skills/lint"
    assert (link / "SKILL.md").is_file()
    # the lines that keep what skilltool makes out of git, for a team that commits none
    status = run("plugins", "status")
    ignored = [line.split()[1] for line in status.lines if line.startswith("ignore    ")]
    assert ignored == ["/.agents/skills/lint"]
    (repo / ".gitignore").write_text("\n".join(ignored) + "\n")
    untracked = git("status", "--porcelain", "--untracked-files=all", cwd=repo).splitlines()
    assert [line for line in untracked if not line.startswith("?? plugins/")] == [
        "?? .gitignore",
        "?? .skilltool/.gitignore",
        "?? skilltool.lock",
        "?? skilltool.toml",
    ]


def test_plugins_claude_settings_enable_reach_every_other_harness(
    repo: Path, tmp_path: Path
) -> None:
    remote = Repo(tmp_path, "market")
    files = {
        ".claude-plugin/marketplace.json": (
            '{"name": "team-market", "owner": {"name": "Team"}, "plugins": ['
            '{"name": "formatter", "source": "./plugins/formatter"},'
            '{"name": "other", "source": "./plugins/other"}]}\n'
        ),
        **plugin_files(
            "formatter", agents={"format": "You format.\n"}, prefix="plugins/formatter/"
        ),
        **plugin_files(
            "other", agents={"other": "You do other things.\n"}, prefix="plugins/other/"
        ),
    }
    remote.commit(files)
    remote.push()
    settings = repo / ".claude/settings.json"
    settings.parent.mkdir()
    settings.write_text(
        '{"extraKnownMarketplaces": {"team-market": {"source": {"source": "git", '
        f'"url": "{remote.url}"}}}}}},\n'
        ' "enabledPlugins": {"formatter@team-market": true, "other@team-market": false}}\n'
    )
    before = settings.read_bytes()
    (repo / "skilltool.toml").write_text('harnesses = ["claude", "opencode"]\n')
    result = run("plugins", "sync")
    assert result.code == 0, result.stderr
    assert (repo / ".opencode/agent/format.md").is_file(), (
        result.stdout
    )  # brought to the other harnesses
    assert not (repo / ".opencode/agent/other.md").exists()  # not enabled
    assert not (repo / ".claude/agents/format.md").exists()  # Claude Code loads it itself
    assert settings.read_bytes() == before  # Claude Code's file is never written
    assert "team-market" in (repo / "skilltool.lock").read_text()
    assert run("plugins", "check").code == 0


def test_status_says_where_a_harness_reads_and_whose_name_wins(repo: Path, home: Path) -> None:
    (repo / "skilltool.toml").write_text('harnesses = ["claude", "gemini", "opencode"]\n')
    assert run("plugins", "add", "../../plugins/team").code == 0
    mine = home / ".local/share/skilltool/plugins/mine"
    build_file_tree(
        mine,
        {
            "skills/hello/SKILL.md": "---\nname: hello\ndescription: My own hello.\n---\nHi.\n",
            "agents/reviewer.md": "---\nname: reviewer\ndescription: Mine.\n---\nReview.\n",
        },
    )
    status = run("plugins", "status")
    assert status.code == 0, status.stderr
    assert (
        "note      gemini: reads the project only when started in its top folder, and nothing "
        "of it until you trust the folder; each project agent also waits for your "
        "acknowledgement, and it names each new hook of .gemini/settings.json in a warning as "
        "it runs it"
    ) in status.lines
    assert not any(line.startswith("note      opencode") for line in status.lines)
    # Claude Code takes the home's skill but the project's agent (seen in its binary);
    # OpenCode was seen taking either skill
    assert (
        "both      skill hello: in the project and the home: either, not always the same for "
        "opencode; the home's for claude; the project's for gemini"
    ) in status.lines
    assert (
        "both      agent reviewer: in the project and the home: the project's for opencode, "
        "claude, gemini"
    ) in status.lines
    # nothing of the home was written by a run in the project
    assert not (home / ".agents").exists()


def test_update_check_update_and_uninstall_act_on_the_project(
    repo: Path, tmp_path: Path, home: Path
) -> None:
    remote = Repo(tmp_path, "tools")
    remote.commit(plugin_files("tools", skills=("lint",), agents={"fixer": "You fix.\n"}))
    remote.push()
    assert run("plugins", "add", remote.url, "--project").code == 0
    assert run("plugins", "update", "--check").code == 0
    skill = remote.work / "skills/lint/SKILL.md"
    remote.commit({"skills/lint/SKILL.md": skill.read_text() + "Lint twice.\n"})
    remote.push()
    manifest = (repo / "skilltool.toml").read_bytes()
    check = run("plugins", "update", "--check")
    assert check.code == 1
    assert check.scope == f"project   {repo}"
    assert run("plugins", "update").code == 0
    assert "Lint twice." in (repo / ".agents/skills/lint/SKILL.md").read_text()
    assert remote.head() in (repo / "skilltool.lock").read_text()
    assert (repo / "skilltool.toml").read_bytes() == manifest  # the ask did not change
    assert run("plugins", "validate").code == 0
    gone = run("plugins", "uninstall")
    assert gone.code == 0, gone.stderr
    assert not (repo / ".agents/skills/lint").exists()
    assert not (repo / ".claude/agents/fixer.md").exists()
    assert (repo / "skilltool.toml").exists()  # the sources stay asked: sync brings them back
    assert not (home / ".agents").exists()


def test_in_a_monorepo_the_nearest_manifest_is_the_project(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = repo / "services/api"
    (service / "src").mkdir(parents=True)
    _team_plugin(service)
    (service / "skilltool.toml").write_text('harnesses = ["opencode"]\n')
    monkeypatch.chdir(service / "src")
    result = run("plugins", "add", "../plugins/team")
    assert result.code == 0, result.stderr
    assert result.scope == f"project   {service}"
    assert os.readlink(service / ".agents/skills/hello") == "../../plugins/team/skills/hello"
    assert not (repo / ".agents").exists()  # the repository's top is another project
    # --project alone, in a folder with no manifest above, names the git repository's top
    monkeypatch.chdir(repo / "src")
    named = run("plugins", "status", "--project")
    assert named.scope == f"project   {repo}"


def test_a_source_written_only_for_the_harnesses_it_names(repo: Path) -> None:
    (repo / "skilltool.toml").write_text(
        'harnesses = ["claude", "opencode"]\n\n'
        '[sources.team]\npath = "plugins/team"\nharnesses = ["opencode"]\n'
    )
    result = run("plugins", "sync")
    assert result.code == 0, result.stderr
    assert (repo / ".opencode/agent/reviewer.md").is_file()
    assert (repo / ".agents/skills/hello").is_symlink()  # the shared skills dir is everyone's
    assert not (repo / ".claude/agents/reviewer.md").exists()
    assert not os.path.lexists(repo / ".claude/skills/hello")
    # named for claude too later: written there by the next sync
    manifest = repo / "skilltool.toml"
    manifest.write_text(manifest.read_text().replace('["opencode"]\n', '["opencode", "claude"]\n'))
    assert run("plugins", "sync").code == 0
    assert (repo / ".claude/agents/reviewer.md").is_file()


def test_project_and_user_together_is_a_usage_error(repo: Path) -> None:
    result = run("plugins", "status", "--project", "--user")
    assert result.code == 2
    assert "--project and --user name two scopes" in result.stderr


def test_switching_from_links_to_copies_replaces_each_link_of_ours(
    repo: Path, tmp_path: Path
) -> None:
    remote = Repo(tmp_path, "tools")
    remote.commit(plugin_files("tools", skills=("lint",)))
    remote.push()
    manifest = repo / "skilltool.toml"
    manifest.write_text('harnesses = ["opencode"]\nskills = "link"\n')
    added = run("plugins", "add", remote.url)
    assert added.code == 0, added.stdout + added.stderr
    assert (repo / ".agents/skills/lint").is_symlink()
    manifest.write_text('harnesses = ["opencode"]\n' + manifest.read_text().split("\n", 2)[2])
    switched = run("plugins", "install")
    assert switched.code == 0, switched.stdout + switched.stderr
    copy = repo / ".agents/skills/lint"
    assert copy.is_dir() and not copy.is_symlink()
    assert (copy / ".skilltool-copy").is_file()
    checked = run("plugins", "check")
    assert checked.code == 0, checked.stdout + checked.stderr


def test_check_on_a_fresh_clone_is_what_ci_runs(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = Repo(tmp_path, "tools")
    remote.commit(plugin_files("tools", skills=("lint",), agents={"fixer": "You fix.\n"}))
    remote.push()
    assert run("plugins", "add", "../../plugins/team", "--project").code == 0
    assert run("plugins", "add", remote.url).code == 0
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "plugins", cwd=repo)
    clone = tmp_path / "ci"
    git("clone", "-q", repo, clone)
    monkeypatch.chdir(clone)
    checked = run("plugins", "check")
    assert checked.code == 0, checked.stdout + checked.stderr
    assert checked.lines == ["current   nothing would change"]
    assert git("status", "--porcelain", cwd=clone) == ""  # what it fetched is ignored
    # a commit that edits a rendering by hand fails the check, with the diff
    agent = clone / ".claude/agents/fixer.md"
    agent.write_text(agent.read_text() + "An edit by hand.\n")
    failed = run("plugins", "check")
    assert failed.code == 1
    assert "-An edit by hand." in failed.lines


@pytest.mark.parametrize(
    "files",
    [
        {"plugins/cmds/commands/ship.md": "---\ndescription: Ship it\n---\nShip $ARGUMENTS.\n"},
        {
            "plugins/cmds/.mcp.json": '{"mcpServers": {"docs": {"type": "http", "url": "https://d.example/mcp"}}}\n'
        },
        {
            "plugins/cmds/.claude-plugin/plugin.json": '{"name": "cmds"}\n',
            "plugins/cmds/hooks/hooks.json": '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo x"}]}]}}\n',
        },
    ],
    ids=["commands-only", "servers-only", "hooks-only"],
)
def test_a_plugin_of_only_commands_servers_or_hooks_is_added(
    repo: Path, files: dict[str, str]
) -> None:
    build_file_tree(repo, files)
    done = run("plugins", "add", "../../plugins/cmds", "--project")
    assert done.code == 0, done.stdout + done.stderr
    assert toml_loads((repo / "skilltool.toml").read_text())["sources"] == {
        "cmds": {"path": "plugins/cmds"}
    }


def test_a_failed_first_add_leaves_no_manifest_and_no_folder(repo: Path) -> None:
    (repo / "plugins/empty").mkdir(parents=True)
    (repo / "plugins/empty/README.md").write_text("nothing\n")
    before = _files(repo)
    done = run("plugins", "add", "../../plugins/empty", "--project")
    assert done.code == 1
    assert "nothing to add" in done.stderr
    assert not (repo / "skilltool.toml").exists()
    assert not (repo / ".skilltool").exists()
    assert _files(repo) == before
