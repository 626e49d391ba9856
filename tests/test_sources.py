"""`plugins add / update / remove / sync` against real git repositories over file:// and
plain paths (SPEC §9). Never the network; the machine's git config never leaks in."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from skilltool import sources
from skilltool.paths import load_toml
from tests.gitrepos import Repo, git, home_state, isolate_git, plugin_files
from tests.helpers import REPO, agent_md, build_file_tree, plugin_tree, run, skill_md


@pytest.fixture(autouse=True)
def gitconfig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate_git(tmp_path, monkeypatch)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    """A plugin repository: two skills and an agent, pushed."""
    made = Repo(tmp_path, "tools")
    made.commit(plugin_files("tools", ("alpha", "beta"), {"helper": "You help.\n"}), "first")
    made.push()
    return made


BUNDLED = ("using-skilltool", "writing-plugins", "writing-skills")


def data(home: Path) -> Path:
    return home / ".local/share/skilltool"


def lock(home: Path) -> dict[str, dict[str, object]]:
    parsed = load_toml((data(home) / "plugins.lock").read_bytes())
    return parsed.get("sources", {})


def links(home: Path) -> dict[str, str]:
    skills = home / ".agents/skills"
    found = {}
    for name in sorted(os.listdir(skills)) if skills.is_dir() else []:
        if (skills / name).is_symlink():
            found[name] = os.readlink(skills / name)
    return found


def test_add_by_url_links_into_the_checkout_and_pins_the_commit(home: Path, repo: Repo) -> None:
    (home / ".codex").mkdir()
    done = run("plugins", "add", repo.url)
    assert done.code == 0, done.stdout + done.stderr
    assert done.lines[0] == f"added     tools {repo.url} @ {repo.head()[:12]} (1 plugin(s): tools)"
    current = data(home) / "sources/tools/current/tools"
    assert links(home)["alpha"] == f"{current}/skills/alpha"
    assert (home / ".agents/skills/alpha/SKILL.md").read_text() == skill_md("alpha")
    assert "wrote     codex    ~/.codex/skilltool/helper.md" in done.lines
    entry = lock(home)["tools"]
    assert entry["url"] == repo.url and entry["commit"] == repo.head()
    assert entry["tree"] == git("rev-parse", "HEAD^{tree}", cwd=repo.work)
    status = run("plugins", "status", "-v").stdout
    assert (
        "plugin    tools (added) ~/.local/share/skilltool/sources/tools/current/tools: " in status
    )
    assert "plugin    tools (added): " in run("plugins", "status").stdout


def test_add_a_local_path_uses_it_in_place(home: Path, tmp_path: Path) -> None:
    mine = plugin_tree(tmp_path / "src", "mine", skills=("notes",))
    done = run("plugins", "add", mine)
    assert done.code == 0, done.stderr
    assert links(home)["notes"] == f"{mine}/skills/notes"
    assert lock(home)["mine"] == {"path": str(mine)}
    assert not (data(home) / "sources/mine").exists()  # never copied
    # an edit in place is what is linked, with no update needed
    (mine / "skills/notes/SKILL.md").write_text(skill_md("notes", "Edited in place. Use it."))
    assert "Edited in place" in (home / ".agents/skills/notes/SKILL.md").read_text()


def test_ref_as_tag_branch_and_commit(home: Path, repo: Repo) -> None:
    first = repo.head()
    git("tag", "-a", "v1.0.0", "-m", "release", cwd=repo.work)
    repo.push("main", "v1.0.0")
    git("checkout", "-q", "-b", "dev", cwd=repo.work)
    dev = repo.commit({"skills/gamma/SKILL.md": skill_md("gamma")}, "dev work")
    repo.push("dev")
    git("checkout", "-q", "main", cwd=repo.work)
    third = repo.commit({"skills/delta/SKILL.md": skill_md("delta")}, "main work")
    repo.push()

    for name, ref, commit in (
        ("at-tag", "v1.0.0", first),
        ("at-dev", "dev", dev),
        ("at-id", first, first),
    ):
        where = home.parent / name
        where.mkdir()
        done = run("plugins", "add", repo.url, "--ref", ref, "--home", where)
        assert done.code == 0, done.stderr
        entry = load_toml((data(where) / "plugins.lock").read_bytes())["sources"]["tools"]
        assert (entry["commit"], entry["ref"]) == (commit, ref)
        linked = sorted(n for n in links(where) if n not in BUNDLED)
        assert linked == (["alpha", "beta", "gamma"] if ref == "dev" else ["alpha", "beta"])
    assert third != first


def test_a_second_source_with_the_same_plugin_is_refused(home: Path, repo: Repo) -> None:
    assert run("plugins", "add", repo.url).code == 0
    before = home_state(home)
    done = run("plugins", "add", repo.url, "--name", "again")
    assert done.code == 1
    assert done.stderr.strip().splitlines() == [
        f"skilltool: {repo.url}: plugin 'tools' is already added from tools ({repo.url}); "
        "remove that first, or choose others with --plugin"
    ]
    assert home_state(home) == before


def test_update_after_new_commits_says_what_changed_per_plugin(home: Path, repo: Repo) -> None:
    (home / ".codex").mkdir()
    assert run("plugins", "add", repo.url).code == 0
    old = repo.head()
    repo.commit(
        {
            "skills/gamma/SKILL.md": skill_md("gamma"),
            "agents/helper.md": agent_md("helper", "You help, now better.\n"),
        },
        remove=("skills/beta",),
    )
    repo.push()
    check = run("plugins", "update", "--check")
    assert check.code == 1
    assert check.lines == [f"outdated  tools {repo.url} {old[:12]} -> {repo.head()[:12]}"]
    done = run("plugins", "update")
    assert done.code == 0, done.stderr
    assert done.lines[:2] == [
        f"updated   tools {repo.url} {old[:12]} -> {repo.head()[:12]}",
        "  plugin  tools: skill added gamma; skill removed beta; agent changed helper",
    ]
    assert sorted(links(home)) == [
        "alpha",
        "gamma",
        "using-skilltool",
        "writing-plugins",
        "writing-skills",
    ]
    assert "now better" in (home / ".codex/skilltool/helper.md").read_text()
    assert lock(home)["tools"]["commit"] == repo.head()
    # the old checkout and the store it came from are gone: only the ones in use are kept
    assert sorted(os.listdir(data(home) / "sources/tools")) == [
        f"c-{repo.head()}-{git('rev-parse', 'HEAD^{tree}', cwd=repo.work)}",
        "current",
        "git",
        f"git-{repo.head()}",
    ]
    assert os.readlink(data(home) / "sources/tools/git") == f"git-{repo.head()}"
    again = run("plugins", "update")
    assert again.lines[0] == f"unchanged tools {repo.url} @ {repo.head()[:12]}"
    assert run("plugins", "update", "--check").code == 0


def test_update_follows_a_force_push(home: Path, repo: Repo) -> None:
    assert run("plugins", "add", repo.url, "--no-install").code == 0
    build_file_tree(repo.work, {"skills/alpha/SKILL.md": skill_md("alpha", "Rewritten. Use it.")})
    git("commit", "-q", "-a", "--amend", "-m", "rewritten", cwd=repo.work)
    repo.push(force=True)
    done = run("plugins", "update", "tools")
    assert done.code == 0, done.stderr
    assert lock(home)["tools"]["commit"] == repo.head()
    assert "Rewritten" in (home / ".agents/skills/alpha/SKILL.md").read_text()


def test_update_when_the_ref_was_deleted_fails_and_changes_nothing(home: Path, repo: Repo) -> None:
    git("push", "-q", repo.remote, "main:feature", cwd=repo.work)
    assert run("plugins", "add", repo.url, "--ref", "feature").code == 0
    git("push", "-q", repo.remote, ":feature", cwd=repo.work)
    before = home_state(home)
    done = run("plugins", "update")
    assert done.code == 1
    assert done.stderr.splitlines() == [
        f"skilltool: {repo.url}: no branch or tag 'feature' (a commit must be given as its "
        "full id); check --ref"
    ]
    assert home_state(home) == before


def test_a_pinned_commit_stays_on_update(home: Path, repo: Repo) -> None:
    first = repo.head()
    assert run("plugins", "add", repo.url, "--ref", first).code == 0
    repo.commit({"skills/gamma/SKILL.md": skill_md("gamma")})
    repo.push()
    done = run("plugins", "update", "--check")
    assert done.code == 0 and done.lines == [f"unchanged tools {repo.url} @ {first[:12]}"]


def test_check_and_dry_run_write_nothing(home: Path, repo: Repo) -> None:
    assert run("plugins", "add", repo.url).code == 0
    repo.commit({"skills/gamma/SKILL.md": skill_md("gamma")})
    repo.push()
    before = home_state(home)
    assert run("plugins", "update", "--check").code == 1
    dry = run("plugins", "update", "--dry-run")
    assert dry.code == 0
    # a dry run fetches outside the home to say what would change; --check does not
    assert "dry-run:   plugin  tools: skill added gamma" in dry.lines
    assert home_state(home) == before


def test_remove_prunes_links_and_renderings_and_keeps_what_is_not_ours(
    home: Path, repo: Repo
) -> None:
    (home / ".codex").mkdir()
    assert run("plugins", "add", repo.url).code == 0
    build_file_tree(home / ".agents/skills", {"mine/SKILL.md": skill_md("mine")})
    done = run("plugins", "remove", "tools")
    assert done.code == 0, done.stderr
    assert (
        done.lines[0]
        == f"removed   tools {repo.url} @ {repo.head()[:12]} (its checkout and lockfile entry)"
    )
    assert "unlinked  skill alpha (its source is removed)" in done.lines
    assert "removed   codex    ~/.codex/skilltool/helper.md (its agent is gone)" in done.lines
    assert sorted(links(home)) == ["using-skilltool", "writing-plugins", "writing-skills"]
    assert not (home / ".codex/skilltool/helper.md").exists()
    assert (home / ".agents/skills/mine/SKILL.md").exists()
    assert not (data(home) / "sources/tools").exists()
    assert "tools" not in load_toml((data(home) / "plugins.lock").read_bytes()).get("sources", {})


def test_remove_keeps_a_checkout_with_local_changes_unless_forced(home: Path, repo: Repo) -> None:
    assert run("plugins", "add", repo.url).code == 0
    edited = data(home) / "sources/tools/current/tools/skills/alpha/SKILL.md"
    edited.write_text(skill_md("alpha", "My own notes. Use it."))
    before = home_state(home)
    done = run("plugins", "remove", "tools")
    assert done.code == 1
    assert done.lines[0].startswith("kept      tools: its checkout ")
    assert "has local changes (skills/alpha/SKILL.md); nothing was removed" in done.lines[0]
    assert home_state(home) == before
    forced = run("plugins", "remove", "tools", "--force")
    assert forced.code == 0, forced.stderr
    assert not (data(home) / "sources/tools").exists()
    assert "alpha" not in links(home)


def test_remove_a_path_source_leaves_the_directory(home: Path, tmp_path: Path) -> None:
    mine = plugin_tree(tmp_path / "src", "mine", skills=("notes",))
    assert run("plugins", "add", mine).code == 0
    assert run("plugins", "remove", "mine").code == 0
    assert (mine / "skills/notes/SKILL.md").exists()
    assert "notes" not in links(home)


def test_nothing_skilltool_did_not_add_can_be_removed(home: Path, tmp_path: Path) -> None:
    plugin_tree(data(home) / "plugins", "local", skills=("notes",))
    assert run("plugins", "install").code == 0
    before = home_state(home)
    done = run("plugins", "remove", "local")
    assert done.code == 1
    assert done.stderr.startswith("skilltool: local: no source of that name was added by skilltool")
    assert home_state(home) == before


def test_sync_on_a_second_home_from_the_lockfile_alone(
    home: Path, repo: Repo, tmp_path: Path
) -> None:
    assert run("plugins", "add", repo.url).code == 0
    pinned = repo.head()
    repo.commit({"skills/gamma/SKILL.md": skill_md("gamma")})  # newer than the lockfile
    repo.push()
    other = tmp_path / "other"
    (other / ".local/share/skilltool").mkdir(parents=True)
    (other / ".local/share/skilltool/plugins.lock").write_bytes(
        (data(home) / "plugins.lock").read_bytes()
    )
    for flags in (["--frozen"], []):
        done = run("plugins", "sync", "--home", other, *flags)
        assert done.code == 0, done.stderr
        assert sorted(
            os.listdir(other / ".local/share/skilltool/sources/tools/current/tools/skills")
        ) == ["alpha", "beta"]
        assert (
            (other / ".local/share/skilltool/sources/tools/current/tools")
            .resolve()
            .parent.name.startswith(f"c-{pinned}-")
        )
        assert "alpha" in links(other)
    assert (
        run("plugins", "sync", "--home", other).lines[0]
        == f"unchanged tools {repo.url} @ {pinned[:12]}"
    )


def test_sync_frozen_resolves_nothing_anew(home: Path, repo: Repo, tmp_path: Path) -> None:
    other = tmp_path / "other"
    place = other / ".local/share/skilltool/plugins.lock"
    place.parent.mkdir(parents=True)
    place.write_text(f'[sources.tools]\nurl = "{repo.url}"\nref = "main"\n')
    before = home_state(other)
    frozen = run("plugins", "sync", "--frozen", "--home", other)
    assert frozen.code == 1 and "has no commit, and --frozen resolves nothing" in frozen.stderr
    assert home_state(other) == before
    done = run("plugins", "sync", "--home", other)
    assert done.code == 0, done.stderr
    written = load_toml(place.read_bytes())["sources"]["tools"]
    assert written["commit"] == repo.head() and written["ref"] == "main"


def test_a_lockfile_kept_in_dotfiles_is_written_through_its_link(
    home: Path, repo: Repo, tmp_path: Path
) -> None:
    dotfiles = tmp_path / "dotfiles/plugins.lock"
    dotfiles.parent.mkdir()
    dotfiles.write_text("# my plugins\n")
    data(home).mkdir(parents=True)
    (data(home) / "plugins.lock").symlink_to(dotfiles)
    assert run("plugins", "add", repo.url).code == 0
    assert (data(home) / "plugins.lock").is_symlink()
    assert dotfiles.read_text().startswith("# my plugins\n")
    assert load_toml(dotfiles.read_bytes())["sources"]["tools"]["commit"] == repo.head()


def test_no_hook_or_filter_of_the_fetched_repository_ever_runs(
    home: Path, tmp_path: Path, gitconfig: Path
) -> None:
    ran = tmp_path / "ran"
    ran.mkdir()
    hooks = tmp_path / "template/hooks"
    hooks.mkdir(parents=True)
    for hook in ("post-checkout", "reference-transaction", "post-merge", "post-index-change"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {ran}/{hook}\n")
        (hooks / hook).chmod(0o755)
    with gitconfig.open("a") as config:  # the user's own config names the template and the filter
        config.write(f"[init]\n\ttemplateDir = {hooks.parent}\n")
        config.write(f"[filter \"smudger\"]\n\tsmudge = sh -c 'touch {ran}/smudge && cat'\n")
        config.write("\tclean = cat\n\trequired = true\n")
    made = Repo(tmp_path, "hooked")
    files = plugin_files("hooked", ("alpha",))
    files[".gitattributes"] = "* filter=smudger\n"
    made.commit(files)
    made.push()
    git("clone", "-q", made.url, tmp_path / "control")  # a plain clone runs them all
    assert {"post-checkout", "smudge"} <= set(os.listdir(ran))
    for hook in os.listdir(ran):
        (ran / hook).unlink()
    assert run("plugins", "add", made.url).code == 0
    made.commit({"skills/beta/SKILL.md": skill_md("beta")})
    made.push()
    for path in os.listdir(ran):
        (ran / path).unlink()
    assert run("plugins", "update").code == 0
    assert os.listdir(ran) == []
    checkout = data(home) / "sources/hooked/current/hooked"
    assert (checkout / "skills/beta/SKILL.md").read_text() == skill_md("beta")
    assert not os.path.exists(data(home) / "sources/hooked/git/hooks")


def test_a_tree_with_a_link_leaving_it_is_refused(home: Path, tmp_path: Path) -> None:
    made = Repo(tmp_path, "leaky")
    files = plugin_files("leaky", ("alpha",))
    files["skills/secrets"] = Path("../../../../../../../../etc")
    made.commit(files)
    made.push()
    done = run("plugins", "add", made.url)
    assert done.code == 1
    assert done.stderr.splitlines() == [
        f"skilltool: {made.url}: skills/secrets is a link that leads outside the repository; "
        "it is not used"
    ]
    assert not (data(home) / "plugins.lock").exists()
    assert not os.path.exists(data(home))


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda r: "file:///nonexistent/nowhere.git", "cannot be reached"),
        (
            lambda r: r.url,
            "no plugin with a skill, an agent, a command, an MCP server, a language server or a hook in it",
        ),
    ],
)
def test_failures_are_one_line_and_change_nothing(
    home: Path, tmp_path: Path, make: object, expected: str
) -> None:
    empty = Repo(tmp_path, "empty")
    empty.commit({"README.md": "nothing here\n"})
    empty.push()
    url = make(empty)  # type: ignore[operator]
    before = home_state(home)
    done = run("plugins", "add", url)
    assert done.code == 1
    assert len(done.stderr.splitlines()) == 1 and expected in done.stderr
    assert home_state(home) == before
    as_json = run("plugins", "add", url, "--json")
    assert as_json.code == 1 and expected in json.loads(as_json.stdout)["error"]["message"]


@pytest.mark.parametrize("typed", ["/no/such/path", "./no-such-folder", "~/no-such-folder"])
def test_a_local_source_that_is_not_there_is_a_usage_error(home: Path, typed: str) -> None:
    before = home_state(home)
    done = run("plugins", "add", typed)
    assert done.code == 2
    assert (
        done.stderr
        == f"skilltool: {typed}: does not exist; give a plugin, a marketplace or a git URL\n"
    )
    as_json = run("plugins", "add", typed, "--json")
    assert (as_json.code, json.loads(as_json.stdout)["error"]["exit_code"]) == (2, 2)
    assert home_state(home) == before


def test_a_local_source_that_is_a_file_is_a_usage_error(home: Path, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a plugin\n")
    done = run("plugins", "add", tmp_path / "notes.txt")
    assert done.code == 2 and "notes.txt: not a directory; give a plugin" in done.stderr


def test_unknown_ref_fails_in_one_line(home: Path, repo: Repo) -> None:
    done = run("plugins", "add", repo.url, "--ref", "v9")
    assert done.code == 1
    assert "no branch or tag 'v9'" in done.stderr and len(done.stderr.splitlines()) == 1


def test_dry_run_and_json_of_add(home: Path, repo: Repo) -> None:
    before = home_state(home)
    dry = run("plugins", "add", repo.url, "--dry-run")
    assert dry.code == 0
    assert dry.lines[0] == (
        f"dry-run: added     tools {repo.url} @ {repo.head()[:12]} (1 plugin(s): tools)"
    )
    # then the install it would do, its links into the checkout it would make
    shown = "~/.local/share/skilltool/sources/tools/current/tools/skills/alpha"
    assert f"dry-run: linked    skill alpha -> {shown}" in dry.lines
    assert dry.lines[-1].startswith("dry-run: ") and " linked" in dry.lines[-1]
    assert home_state(home) == before
    alone = run("plugins", "add", repo.url, "--dry-run", "--no-install")
    assert alone.lines == dry.lines[:1]
    done = run("plugins", "add", repo.url, "--json")
    report = json.loads(done.stdout)
    assert report["sources"][0]["commit"] == repo.head()
    assert {a["name"] for a in report["actions"] if a["kind"] == "link"} >= {"alpha", "beta"}


def marketplace(tmp_path: Path, remote: Repo) -> Repo:
    """A marketplace repository: two plugins in its own tree, one elsewhere."""
    made = Repo(tmp_path, "market")
    files = plugin_files("alpha-tools", ("alpha",), prefix="alpha-tools/")
    files.update(plugin_files("beta-tools", ("beta",), prefix="beta-tools/"))
    entries = [
        {"name": "alpha-tools", "source": "./alpha-tools"},
        {"name": "beta-tools", "source": "./beta-tools"},
        {"name": "tools", "source": {"source": "url", "url": remote.url}},
        {"name": "zipped", "source": {"source": "archive", "url": "https://127.0.0.1/p.zip"}},
        {"name": "made", "source": {"source": "command", "command": "make-plugin"}},
    ]
    files[".claude-plugin/marketplace.json"] = json.dumps(
        {"name": "market", "owner": {"name": "T"}, "plugins": entries}
    )
    made.commit(files)
    made.push()
    return made


def test_marketplace_plugins_by_name_and_plugin_at_marketplace(home: Path, tmp_path: Path) -> None:
    elsewhere = Repo(tmp_path, "elsewhere")
    elsewhere.commit(plugin_files("tools", ("gamma",)))
    elsewhere.push()
    market = marketplace(tmp_path, elsewhere)
    done = run("plugins", "add", market.url, "--plugin", "alpha-tools")
    assert done.code == 0, done.stderr
    assert "alpha" in links(home) and "beta" not in links(home)
    assert lock(home)["market"]["plugins"] == ["alpha-tools"]
    shown = [ln for ln in run("plugins", "status").lines if ln.startswith("source")]
    assert shown == [
        f"source    market {market.url} default branch commit {market.head()[:12]} plugins alpha-tools"
    ]
    grown = run("plugins", "add", "beta-tools@market")
    assert grown.code == 0, grown.stderr
    assert lock(home)["market"]["plugins"] == ["alpha-tools", "beta-tools"]
    assert "beta" in links(home)
    remote = run("plugins", "add", "tools@market")
    assert remote.code == 0, remote.stderr
    assert lock(home)["tools"]["marketplace"] == "market"
    assert lock(home)["tools"]["commit"] == elsewhere.head()
    assert "gamma" in links(home)
    missing = run("plugins", "add", "nope@market")
    assert missing.code == 1
    assert (
        "no plugin 'nope' in marketplace 'market' (it lists: alpha-tools, beta-tools, tools, "
        "zipped, made)" in missing.stderr
    )
    zipped = run("plugins", "add", "zipped@market")
    assert zipped.code == 1 and "source.url: must be an https:// URL" in zipped.stderr
    made = run("plugins", "add", "made@market")
    assert made.code == 1 and "runs a shell command to make the plugin" in made.stderr
    assert "made" not in str(lock(home))
    # removing one plugin of a marketplace keeps the others
    assert run("plugins", "remove", "beta-tools").code == 0
    assert lock(home)["market"]["plugins"] == ["alpha-tools"]
    assert "beta" not in links(home) and "alpha" in links(home)


def test_a_plugin_of_claudes_official_marketplace_is_added_without_adding_it_first(
    home: Path, tmp_path: Path
) -> None:
    """`add P@claude-plugins-official` adds Anthropic's marketplace first, as Claude Code
    knows it by name (here a local copy that git's own `insteadOf` stands in for), with only
    that plugin picked; one it does not list changes nothing, the marketplace included."""
    official = Repo(tmp_path, "claude-plugins-official")
    files = plugin_files("commit-commands", ("commit",), prefix="plugins/commit-commands/")
    files.update(plugin_files("pr-tools", ("review",), prefix="plugins/pr-tools/"))
    entries = [
        {"name": "commit-commands", "source": "./plugins/commit-commands"},
        {"name": "pr-tools", "source": "./plugins/pr-tools"},
    ]
    files[".claude-plugin/marketplace.json"] = json.dumps(
        {"name": "claude-plugins-official", "owner": {"name": "Anthropic"}, "plugins": entries}
    )
    official.commit(files)
    official.push()
    config = Path(os.environ["GIT_CONFIG_GLOBAL"])
    config.write_text(
        config.read_text() + f'[url "{official.url}"]\n\tinsteadOf = '
        "https://github.com/anthropics/claude-plugins-official.git\n"
    )
    before = home_state(home)
    missing = run("plugins", "add", "nope@claude-plugins-official")
    assert missing.code == 1 and "no plugin 'nope'" in missing.stderr
    assert home_state(home) == before  # the marketplace it fetched is gone again
    dry = run("plugins", "add", "commit-commands@claude-plugins-official", "--dry-run")
    assert dry.code == 1 and "a dry run fetches nothing" in dry.stderr
    done = run("plugins", "add", "commit-commands@claude-plugins-official")
    assert done.code == 0, done.stderr
    entry = lock(home)["claude-plugins-official"]
    assert entry["url"] == "https://github.com/anthropics/claude-plugins-official.git"
    assert entry["plugins"] == ["commit-commands"]
    assert "commit" in links(home) and "review" not in links(home)
    assert "Claude Code's own marketplace, added for commit-commands" in done.stdout


def test_plugin_at_an_unknown_marketplace(home: Path) -> None:
    done = run("plugins", "add", "tools@nowhere")
    assert done.code == 1
    assert done.stderr.startswith("skilltool: nowhere: no marketplace of that name is added")


def test_a_git_subdir_entry_uses_only_that_directory(home: Path, tmp_path: Path) -> None:
    mono = Repo(tmp_path, "mono")
    mono.commit(plugin_files("deep", ("alpha",), prefix="plugins/deep/"))
    mono.push()
    market = Repo(tmp_path, "cat")
    entry = {
        "name": "deep",
        "source": {"source": "git-subdir", "url": mono.url, "path": "plugins/deep"},
    }
    market.commit(
        {
            ".claude-plugin/marketplace.json": json.dumps({"name": "cat", "plugins": [entry]}),
            **plugin_files("cat", ("cat-skill",)),
        }
    )
    market.push()
    added = run("plugins", "add", market.url)
    assert added.code == 0, added.stdout + added.stderr
    done = run("plugins", "add", "deep@cat")
    assert done.code == 0, done.stderr
    assert lock(home)["deep"]["subdir"] == "plugins/deep"
    assert links(home)["alpha"] == f"{data(home)}/sources/deep/current/deep/skills/alpha"


@pytest.mark.parametrize(
    ("typed", "url", "subdir", "name"),
    [
        ("obra/superpowers", "https://github.com/obra/superpowers.git", "", "superpowers"),
        ("o/r/plugins/x", "https://github.com/o/r.git", "plugins/x", "x"),
        ("git@github.com:o/tools.git", "git@github.com:o/tools.git", "", "tools"),
        ("ssh://git@host/o/tools", "ssh://git@host/o/tools", "", "tools"),
    ],
)
def test_what_a_source_names(typed: str, url: str, subdir: str, name: str) -> None:
    asked = sources.request(typed)
    assert (asked.url, asked.subdir, asked.name) == (url, subdir, name)


def test_a_password_in_the_url_is_refused(home: Path) -> None:
    done = run("plugins", "add", "https://me:secret@example.invalid/o/r.git")
    assert done.code == 1 and "holds a password" in done.stderr and "secret" not in done.stderr


def test_status_shows_each_source_its_ref_commit_and_local_changes(
    home: Path, repo: Repo, tmp_path: Path
) -> None:
    mine = plugin_tree(tmp_path / "src", "mine", skills=("notes",))
    assert run("plugins", "add", repo.url, "--ref", "main").code == 0
    assert run("plugins", "add", mine).code == 0
    lines = [ln for ln in run("plugins", "status").lines if ln.startswith("source")]
    assert lines == [
        f"source    tools {repo.url} ref main commit {repo.head()[:12]}",
        f"source    mine {mine}",
    ]
    build_file_tree(data(home) / "sources/tools/current/tools", {"skills/alpha/extra.md": "mine\n"})
    report = json.loads(run("plugins", "status", "--json").stdout)
    assert report["sources"][0]["local_changes"] == ["skills/alpha/extra.md"]
    [line] = [x for x in run("plugins", "status").lines if x.startswith("source    tools ")]
    assert line.endswith("(1 local change(s): skills/alpha/extra.md)")


def test_a_repository_without_a_manifest_is_a_plugin_named_after_the_source(
    home: Path, tmp_path: Path
) -> None:
    bare = Repo(tmp_path, "team-skills")  # the shape of a skills repository: skills/ only
    bare.commit({"skills/pdf/SKILL.md": skill_md("pdf"), "skills/docx/SKILL.md": skill_md("docx")})
    bare.push()
    done = run("plugins", "add", bare.url)
    assert done.code == 0, done.stderr
    assert done.lines[0].endswith("(1 plugin(s): team-skills)")
    assert "plugin    team-skills (added)" in run("plugins", "status").stdout


def test_sync_prunes_a_checkout_the_lockfile_no_longer_has(
    home: Path, repo: Repo, tmp_path: Path
) -> None:
    (home / ".codex").mkdir()
    other = Repo(tmp_path, "other")
    other.commit(plugin_files("other", ("gamma",)))
    other.push()
    assert run("plugins", "add", repo.url).code == 0
    kept = (data(home) / "plugins.lock").read_bytes()
    assert run("plugins", "add", other.url).code == 0
    (data(home) / "plugins.lock").write_bytes(kept)  # the dotfiles' lockfile comes back
    done = run("plugins", "sync")
    assert done.code == 0, done.stderr
    assert f"removed   other {data(home)}/sources/other (not in the lockfile)" in done.lines
    assert "unlinked  skill gamma (its source is removed)" in done.lines
    assert not (data(home) / "sources/other").exists()
    assert "alpha" in links(home) and "gamma" not in links(home)


def test_remove_and_sync_dry_run_and_json_write_nothing(
    home: Path, repo: Repo, tmp_path: Path
) -> None:
    (home / ".codex").mkdir()
    assert run("plugins", "add", repo.url).code == 0
    before = home_state(home)
    dry = run("plugins", "remove", "tools", "--dry-run")
    assert dry.code == 0, dry.stderr
    assert dry.lines[0].startswith("dry-run: removed   tools ")
    assert "dry-run: unlinked  skill alpha (its source is removed)" in dry.lines
    as_json = json.loads(run("plugins", "remove", "tools", "--dry-run", "--json").stdout)
    assert as_json["dry_run"] and as_json["sources"][0]["name"] == "tools"
    assert {a["name"] for a in as_json["actions"] if a["change"] == "remove"} >= {"alpha", "helper"}
    assert home_state(home) == before
    other = tmp_path / "other"
    (other / ".local/share/skilltool").mkdir(parents=True)
    (other / ".local/share/skilltool/plugins.lock").write_bytes(
        (data(home) / "plugins.lock").read_bytes()
    )
    fresh = home_state(other)
    sync = run("plugins", "sync", "--dry-run", "--home", other)
    assert sync.code == 0 and sync.lines == [
        f"dry-run: would sync tools {repo.url} @ {repo.head()[:12]}"
    ]
    report = json.loads(run("plugins", "sync", "--json", "--home", other).stdout)
    assert (
        report["sources"][0]["verb"] == "synced" and report["sources"][0]["commit"] == repo.head()
    )
    assert home_state(other) != fresh
    assert home_state(home) == before


def test_a_lockfile_entry_that_cannot_be_used_is_one_line_naming_its_place(
    home: Path,
) -> None:
    where = data(home) / "plugins.lock"
    where.parent.mkdir(parents=True)
    where.write_text('version = 1\n\n[sources.tools]\nurl = "ext::sh -c touch% /tmp/x"\n')
    done = run("plugins", "sync")
    assert done.code == 1
    assert done.stderr.splitlines() == [
        f"skilltool: {where}:3: sources.tools.url: must be a git URL (https://, ssh://, "
        "git@host:path, file://); fix it"
    ]
    status = run("plugins", "status")
    assert status.code == 0 and f"problem   {where}:3: sources.tools.url" in status.stdout


def test_github_shorthand_with_a_subdir_goes_through_the_users_git_config(
    home: Path, tmp_path: Path, gitconfig: Path
) -> None:
    # the user's own url.insteadOf applies, as do their keys and helpers: here it maps
    # github.com onto local bare repositories, so no network is needed
    mono = Repo(tmp_path, "mono")
    mono.commit(plugin_files("deep", ("alpha",), prefix="plugins/deep/"))
    mono.push()
    (tmp_path / "remotes/acme").mkdir()
    os.rename(mono.remote, tmp_path / "remotes/acme/mono.git")
    with gitconfig.open("a") as config:
        config.write(f'[url "{(tmp_path / "remotes").as_uri()}/"]\n')
        config.write("\tinsteadOf = https://github.com/\n")
    done = run("skills", "add", "acme/mono/plugins/deep")
    assert done.code == 0, done.stderr
    assert done.lines[0].startswith(
        "added     deep https://github.com/acme/mono.git/plugins/deep @ "
    )
    entry = lock(home)["deep"]
    assert (entry["url"], entry["subdir"]) == ("https://github.com/acme/mono.git", "plugins/deep")
    assert links(home)["alpha"] == f"{data(home)}/sources/deep/current/deep/skills/alpha"


def test_update_moves_every_outdated_source_and_leaves_the_others(
    home: Path, repo: Repo, tmp_path: Path
) -> None:
    others = []
    for name in ("second", "third"):
        made = Repo(tmp_path, name)
        made.commit(plugin_files(name, (f"{name}-skill",)))
        made.push()
        others.append(made)
        assert run("plugins", "add", made.url, "--no-install").code == 0
    assert run("plugins", "add", repo.url).code == 0
    for made in (repo, others[1]):
        made.commit(
            {f"skills/new-in-{made.work.name}/SKILL.md": skill_md(f"new-in-{made.work.name}")}
        )
        made.push()
    done = run("plugins", "update")
    assert done.code == 0, done.stderr
    verbs = {ln.split()[1]: ln.split()[0] for ln in done.lines if not ln.startswith(" ")}
    assert (verbs["tools"], verbs["second"], verbs["third"]) == ("updated", "unchanged", "updated")
    assert {"new-in-tools", "new-in-third", "second-skill"} <= set(links(home))


def test_an_added_plugin_shadows_one_of_the_same_name_until_removed(home: Path, repo: Repo) -> None:
    mine = plugin_tree(data(home) / "plugins", "tools", skills=("alpha",))
    assert run("plugins", "add", repo.url).code == 0
    assert links(home)["alpha"] == f"{data(home)}/sources/tools/current/tools/skills/alpha"
    status = run("plugins", "status").stdout
    assert (
        "plugin    tools (user): 1 skill: shadowed by ~/.local/share/skilltool/sources/tools/"
        in status
    )
    done = run("plugins", "remove", "tools")
    assert done.code == 0, done.stderr
    assert (
        "relinked  skill alpha -> ~/.local/share/skilltool/plugins/tools/skills/alpha" in done.lines
    )
    assert links(home)["alpha"] == f"{mine}/skills/alpha"


def _commit_with_duplicate_entry(made: Repo, link: str) -> None:
    """Commit a tree holding both a link `zz` and a folder `zz/` (git's own checkout refuses
    such a tree and `git fsck` calls it a duplicate entry, but a push does not check)."""
    work = made.work

    def hashed(data: str) -> str:
        done = subprocess.run(
            ["git", "hash-object", "-w", "--stdin"],
            cwd=work,
            input=data,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    def mktree(lines: list[str]) -> str:
        done = subprocess.run(
            ["git", "mktree"],
            cwd=work,
            input="".join(f"{line}\n" for line in lines),
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    desktop, profile = hashed("[Desktop Entry]\nExec=evil\n"), hashed("evil\n")
    autostart = mktree([f"100644 blob {desktop}\tx.desktop"])
    config = mktree([f"040000 tree {autostart}\tautostart"])
    folder = mktree([f"100644 blob {profile}\t.bash_profile", f"040000 tree {config}\t.config"])
    top = git("ls-tree", "HEAD", cwd=work).splitlines()
    top += [f"120000 blob {hashed(link)}\tzz", f"040000 tree {folder}\tzz"]
    commit = git("commit-tree", mktree(top), "-p", "HEAD", "-m", "crafted", cwd=work)
    git("update-ref", "refs/heads/main", commit, cwd=work)
    made.push()


@pytest.mark.parametrize("dry_run", [False, True], ids=["add", "add --dry-run"])
@pytest.mark.parametrize("how", ["absolute", "levels up"])
def test_a_tree_never_writes_through_a_link_of_its_own(
    home: Path, tmp_path: Path, how: str, dry_run: bool
) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    made = Repo(tmp_path, "crafted")
    made.commit(plugin_files("crafted", ("alpha",)))
    link = str(victim) if how == "absolute" else "../" * 24 + str(victim).lstrip("/")
    _commit_with_duplicate_entry(made, link)
    done = run("plugins", "add", made.url, *(["--dry-run"] if dry_run else []))
    assert done.code == 1
    assert os.listdir(victim) == []
    assert done.stderr.splitlines() == [
        f"skilltool: {made.url}: zz/.bash_profile lies under zz, which the tree also holds as "
        "a link (git itself refuses to check out such a tree); the source was not added"
    ]
    assert not (data(home) / "plugins.lock").exists()
    assert not os.path.exists(data(home) / "sources/crafted")


def test_an_update_to_such_a_tree_writes_nothing_outside(home: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    made = Repo(tmp_path, "crafted")
    made.commit(plugin_files("crafted", ("alpha",)))
    made.push()
    assert run("plugins", "add", made.url).code == 0
    before = lock(home)
    _commit_with_duplicate_entry(made, str(victim))
    done = run("plugins", "update")
    assert done.code == 1
    assert "zz/.bash_profile lies under zz, which the tree also holds as a link" in done.stderr
    assert os.listdir(victim) == []
    assert lock(home) == before


def test_a_chain_of_links_that_ends_outside_is_refused(home: Path, tmp_path: Path) -> None:
    made = Repo(tmp_path, "chained")
    files = plugin_files("chained", ("alpha",))
    # each link alone stays inside when read as written; followed, the second leaves
    files["skills/here"] = Path(".")
    files["skills/away"] = Path("here/../../../../../../../../etc")
    made.commit(files)
    made.push()
    done = run("plugins", "add", made.url)
    assert done.code == 1
    assert "skills/away is a link that leads outside the repository" in done.stderr
    assert not (data(home) / "plugins.lock").exists()


def test_submodules_are_not_fetched_and_the_line_says_so(home: Path, tmp_path: Path) -> None:
    inner = Repo(tmp_path, "inner")
    inner.commit({"README.md": "inner\n"})
    inner.push()
    made = Repo(tmp_path, "outer")
    made.commit(plugin_files("outer", ("alpha",)))
    git(
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        inner.url,
        "vendor/inner",
        cwd=made.work,
    )
    git("commit", "-q", "-m", "a submodule", cwd=made.work)
    made.push()
    done = run("plugins", "add", made.url)
    assert done.code == 0, done.stderr
    assert done.lines[0].endswith("(1 plugin(s): outer; submodules not fetched: vendor/inner)")
    checkout = data(home) / "sources/outer/current/outer"
    assert (checkout / ".gitmodules").is_file() and not (checkout / "vendor/inner").exists()


def test_one_source_that_cannot_be_resolved_stops_the_update_and_says_how_to_go_on(
    home: Path, repo: Repo, tmp_path: Path
) -> None:
    git("push", "-q", repo.remote, "main:feature", cwd=repo.work)
    assert run("plugins", "add", repo.url, "--ref", "feature", "--no-install").code == 0
    other = Repo(tmp_path, "other")
    other.commit(plugin_files("other", ("gamma",)))
    other.push()
    assert run("plugins", "add", other.url, "--no-install").code == 0
    git("push", "-q", repo.remote, ":feature", cwd=repo.work)
    other.commit({"skills/delta/SKILL.md": skill_md("delta")})
    other.push()
    before = home_state(home)
    done = run("plugins", "update")
    assert done.code == 1
    assert done.stderr.strip().endswith("nothing was updated (name the others to update them)")
    assert home_state(home) == before
    named = run("plugins", "update", "other")
    assert named.code == 0, named.stderr
    assert lock(home)["other"]["commit"] == other.head()


def test_uninstall_purge_leaves_only_the_lockfile_and_the_users_plugins(
    home: Path, repo: Repo
) -> None:
    plugin_tree(data(home) / "plugins", "mine", skills=("notes",))
    (home / ".codex").mkdir()  # a harness set up: renderings to remove
    assert run("plugins", "add", repo.url).code == 0
    ours = (data(home), home / ".cache/skilltool", home / ".local/state/skilltool")

    def left() -> list[str]:
        return sorted(
            str(p.relative_to(home)) for folder in ours if folder.exists() for p in folder.iterdir()
        )

    assert ".local/share/skilltool/sources" in left()
    before, listed = home_state(home), left()
    dry = run("plugins", "uninstall", "--purge", "--dry-run")
    assert dry.code == 0 and (home_state(home), left()) == (before, listed)
    said = [line for line in dry.decided if line.startswith("dry-run: removed   ~/.")]
    assert [line.split()[2] for line in said[-3:]] == [
        "~/.local/share/skilltool/sources",
        "~/.cache/skilltool",
        "~/.local/state/skilltool",
    ], dry.stdout

    done = run("plugins", "uninstall", "--purge")
    assert done.code == 0, done.stdout + done.stderr
    assert [line.split()[:2] for line in done.decided[-3:]] == [
        ["removed", "~/.local/share/skilltool/sources"],
        ["removed", "~/.cache/skilltool"],
        ["removed", "~/.local/state/skilltool"],
    ], done.stdout
    assert left() == [".local/share/skilltool/plugins", ".local/share/skilltool/plugins.lock"]
    assert (data(home) / "plugins/mine/skills/notes/SKILL.md").is_file()
    assert links(home) == {} and not any((home / ".codex").iterdir())
    # the lockfile brings the same sources back
    assert run("plugins", "sync", "--frozen").code == 0
    assert links(home)["alpha"].startswith(f"{data(home)}/sources/tools/")


def test_uninstall_purge_keeps_a_checkout_edited_by_hand_unless_forced(
    home: Path, repo: Repo
) -> None:
    assert run("plugins", "add", repo.url).code == 0
    edited = data(home) / "sources/tools/current/tools/skills/alpha/SKILL.md"
    edited.write_text(skill_md("alpha", "My own notes. Use it."))
    kept = run("plugins", "uninstall", "--purge")
    assert kept.code == 1
    assert (
        "kept      ~/.local/share/skilltool/sources: local changes in tools "
        "(skills/alpha/SKILL.md); --force removes them anyway"
    ) in kept.decided
    assert edited.is_file() and not (home / ".cache/skilltool").exists()
    assert run("plugins", "uninstall", "--purge", "--only", "codex").code == 2
    forced = run("plugins", "uninstall", "--purge", "--force")
    assert forced.code == 0 and not (data(home) / "sources").exists()


# frontmatter Claude Code refuses: a quoted value that never closes
BROKEN_AGENT = '---\nname: broken\ndescription: "a: b\n  - c: [\n---\nYou are broken.\n'


def test_an_error_in_a_fetched_plugin_is_skipped_and_fails_no_run(home: Path, repo: Repo) -> None:
    repo.commit({"agents/broken.md": BROKEN_AGENT}, "a broken agent")
    repo.push()
    (home / ".codex").mkdir()
    added = run("plugins", "add", repo.url)
    broken = data(home) / "sources/tools/current/tools/agents/broken.md"
    said = (
        f"error     {broken}:5: invalid YAML: found unexpected end of stream; fix the "
        "frontmatter syntax (added with 'tools': skipped; its authors' to fix)"
    )
    assert added.code == 0, added.stderr
    assert added.stderr.splitlines() == [said]
    assert added.lines[-1].endswith(
        "; 1 error in an added plugin (skipped): see 'skilltool plugins validate'"
    )
    assert "wrote     codex    ~/.codex/skilltool/helper.md" in added.lines  # the rest is done
    for again in (["install"], ["update"], ["install", "--dry-run"]):
        done = run("plugins", *again)
        assert (done.code, done.stderr.splitlines()) == (0, [said]), (again, done.stderr)
    as_json = json.loads(run("plugins", "install", "--json").stdout)
    assert [(p["severity"], p["fetched"]) for p in as_json["problems"]] == [("error", "tools")]
    assert as_json["summary"]["errors_in_fetched"] == 1 and as_json["summary"]["errors"] == 0
    assert run("plugins", "install", "--strict").code == 1
    assert run("plugins", "update", "--strict").code == 1
    assert run("plugins", "validate").code == 1  # the checker still says it is invalid
    assert run("plugins", "remove", "tools").code == 0


def test_an_error_in_a_path_added_is_its_authors_and_in_the_users_own_plugin_fails_the_run(
    home: Path, tmp_path: Path
) -> None:
    # a local path brought in with `add` is, as often as not, a checkout of someone else's
    theirs = plugin_tree(tmp_path / "src", "theirs", skills=("notes",))
    build_file_tree(theirs, {"agents/broken.md": BROKEN_AGENT})
    added = run("plugins", "add", theirs)
    said = (
        f"error     {theirs}/agents/broken.md:5: invalid YAML: found unexpected end of stream; "
        "fix the frontmatter syntax (added with 'theirs': skipped; its authors' to fix)"
    )
    assert added.code == 0 and added.stderr.splitlines() == [said]
    assert added.lines[-1].endswith(
        "; 1 error in an added plugin (skipped): see 'skilltool plugins validate'"
    )
    assert run("plugins", "install").code == 0
    assert run("plugins", "install", "--strict").code == 1
    assert links(home)["notes"] == f"{theirs}/skills/notes"  # the rest is done
    # the user's own plugins folder is theirs to fix: every run says so with exit 1
    mine = plugin_tree(data(home) / "plugins", "mine", skills=("jots",))
    build_file_tree(mine, {"agents/wrong.md": BROKEN_AGENT})
    installed = run("plugins", "install")
    own = (
        f"error     {mine}/agents/wrong.md:5: invalid YAML: found unexpected end of stream; "
        "fix the frontmatter syntax"
    )
    assert installed.code == 1 and installed.stderr.splitlines() == [said, own]
    assert installed.lines[-1].endswith(
        "; 1 error, 1 error in an added plugin (skipped): see 'skilltool plugins validate'"
    )
    assert links(home)["jots"] == f"{mine}/skills/jots"


def test_the_bundled_plugin_losing_to_a_fetched_one_is_said_by_status_only(
    home: Path, tmp_path: Path
) -> None:
    theirs = Repo(tmp_path, "kit")
    theirs.commit(plugin_files("kit", ("writing-skills",), {"plugin-author": "You help.\n"}))
    theirs.push()
    added = run("plugins", "add", theirs.url)
    assert added.code == 0 and added.stderr == "", added.stderr
    current = data(home) / "sources/kit/current/kit"
    assert links(home)["writing-skills"] == f"{current}/skills/writing-skills"
    installed = run("plugins", "install")
    assert installed.code == 0 and installed.stderr == ""  # no warning at every run
    status = run("plugins", "status")
    said = [line for line in status.lines if "bundled" in line and line.startswith("note")]
    assert said == [
        "note      the bundled skill writing-skills and agent plugin-author are not used: "
        "plugin kit has its own, which comes first"
    ]
    as_json = json.loads(run("plugins", "status", "--json").stdout)
    assert {"kind": "agent", "name": "plugin-author", "by": "kit"} in as_json["bundled_not_used"]


def test_two_fetched_plugins_of_one_skill_name_say_which_wins_and_how_to_pick(
    home: Path, tmp_path: Path
) -> None:
    for name in ("alpha", "beta"):
        made = Repo(tmp_path, name)
        made.commit(plugin_files(name, ("notes", f"{name}-only")))
        made.push()
    alpha, beta = (tmp_path / f"remotes/{n}.git" for n in ("alpha", "beta"))
    assert run("plugins", "add", alpha.as_uri()).code == 0
    added = run("plugins", "add", beta.as_uri())
    assert added.code == 0
    where = data(home) / "sources"
    assert added.stderr.splitlines() == [
        f"warning   {where}/beta/current/beta/skills/notes: skill 'notes' is also in plugin "
        f"'alpha' ({where}/alpha/current/alpha/skills/notes), which comes first: this one is "
        "not linked; source 'alpha' was added before 'beta', and sources are searched in the "
        "order they were added: to have this one, 'skilltool plugins remove alpha', then add "
        "it again to have it after 'beta'"
    ]
    # doing what it says gives the other one, and the rest of alpha back
    assert run("plugins", "remove", "alpha").code == 0
    again = run("plugins", "add", alpha.as_uri())
    assert links(home)["notes"] == f"{where}/beta/current/beta/skills/notes"
    assert links(home)["alpha-only"] == f"{where}/alpha/current/alpha/skills/alpha-only"
    assert "source 'beta' was added before 'alpha'" in again.stderr


def test_add_of_skills_all_in_hidden_folders_names_them_as_install_does(
    home: Path, tmp_path: Path, gitconfig: Path
) -> None:
    """As openai/skills keeps them: skills/.curated/<skill>, skills/.system/<skill>."""
    made = Repo(tmp_path, "hidden")
    made.commit(
        {
            "README.md": "# skills\n",
            "skills/.curated/pdf/SKILL.md": skill_md("pdf"),
            "skills/.system/notes/SKILL.md": skill_md("notes"),
        }
    )
    made.push()
    added = run("plugins", "add", made.url)
    assert added.code == 1
    [said] = added.stderr.splitlines()
    assert said.startswith(
        f"skilltool: {made.url}: no plugin with a skill, an agent, a command, an MCP server, a language server or a hook in it"
    )
    # install on the same tree: a warning per folder skipped, saying how to include it
    installed = run("plugins", "install", env={"SKILLTOOL_PLUGINS": str(made.work)})
    told = [line for line in installed.stderr.splitlines() if line.startswith("warning   ")]
    assert len(told) == 2, installed.stderr
    for line in told:
        where, message = line.removeprefix("warning   ").split(": ", 1)
        relative = os.path.relpath(where, made.work)
        assert f"; {relative}: {message}" in said, (line, said)
    assert "(pdf)" in said and "(notes)" in said and 'list "./skills/.curated"' in said
    assert not (data(home) / "sources/hidden").exists() and not links(home)
    # from GitHub (mapped onto the local remote by the user's git config), it also says how
    # to add one of those folders, and that works
    (tmp_path / "remotes/acme").mkdir()
    os.rename(made.remote, tmp_path / "remotes/acme/hidden.git")
    with gitconfig.open("a") as config:
        config.write(f'[url "{(tmp_path / "remotes").as_uri()}/"]\n')
        config.write("\tinsteadOf = https://github.com/\n")
    shorthand = run("plugins", "add", "acme/hidden")
    hint = "'skilltool plugins add acme/hidden/skills/.curated --name curated'"
    assert shorthand.code == 1 and shorthand.stderr.rstrip().endswith(hint), shorthand.stderr
    curated = run("plugins", "add", "acme/hidden/skills/.curated", "--name", "curated")
    assert curated.code == 0, curated.stderr
    assert links(home)["pdf"] == f"{data(home)}/sources/curated/current/curated/pdf"


def _big_mono(home: Path, tmp_path: Path, filters: bool) -> tuple[Repo, list[str], str]:
    """A repository whose plugin is one small folder beside 2 MiB of other files, its
    remote filtering what it sends or not, added as a marketplace's `git-subdir` entry;
    the ids of the other files' blobs, and what `add` said."""
    mono = Repo(tmp_path, "mono")
    others = {f"assets/blob-{i}.bin": os.urandom(256 * 1024) for i in range(8)}
    mono.commit({**plugin_files("deep", ("alpha",), prefix="plugins/deep/"), **others})
    mono.push()
    git("config", "uploadpack.allowFilter", "true" if filters else "false", cwd=mono.remote)
    oids = [git("rev-parse", f"HEAD:{path}", cwd=mono.work) for path in others]
    market = Repo(tmp_path, "cat")
    entry = {"name": "deep", "source": {"source": "git-subdir", "url": mono.url, "path": "plugins/deep"}}  # fmt: skip
    market.commit(
        {".claude-plugin/marketplace.json": json.dumps({"name": "cat", "plugins": [entry]})}
    )
    market.push()
    assert run("plugins", "add", market.url).code == 0
    done = run("plugins", "add", "deep@cat")
    assert done.code == 0, done.stdout + done.stderr
    assert links(home)["alpha"] == f"{data(home)}/sources/deep/current/deep/skills/alpha"
    return mono, oids, done.stdout + done.stderr


def _store_bytes(store: Path) -> int:
    return sum(f.stat().st_size for f in store.rglob("*") if f.is_file())


def test_a_folder_of_a_large_repository_is_fetched_without_the_rest(
    home: Path, tmp_path: Path
) -> None:
    mono, others, said = _big_mono(home, tmp_path, filters=True)
    assert "does not filter" not in said
    store = data(home) / "sources/deep/git"
    assert _store_bytes(store) < 256 * 1024  # not one of the 2 MiB beside the folder
    # reading the store fetches nothing behind skilltool's back, even where the promisor's
    # name is a path to the very remote (the store names no URL) and file:// is allowed
    there = tmp_path / "elsewhere"
    there.mkdir()
    (there / "origin").symlink_to(mono.remote)
    for oid in others:
        read = subprocess.run(
            ["git", "--git-dir", store, "cat-file", "-e", oid], cwd=there, capture_output=True
        )
        assert read.returncode != 0
    commit = lock(home)["deep"]["commit"]
    missing = git("rev-list", "--objects", "--missing=print", commit, cwd=store)
    assert all(f"?{oid}" in missing.split() for oid in others)
    assert _store_bytes(store) < 256 * 1024


def test_a_server_that_does_not_filter_still_works_and_says_the_whole_commit_came(
    home: Path, tmp_path: Path
) -> None:
    mono, others, output = _big_mono(home, tmp_path, filters=False)
    said = [ln for ln in output.splitlines() if "does not filter" in ln]
    assert len(said) == 1, output
    assert "so all of commit" in said[0] and mono.url in said[0]
    assert "submodules" not in said[0]
    assert _store_bytes(data(home) / "sources/deep/git") > 2 * 1024 * 1024
    mono.commit({"plugins/deep/skills/alpha/SKILL.md": skill_md("alpha", "Changed. Use it.")})
    mono.push()
    updated = run("plugins", "update", "deep")
    assert updated.code == 0, updated.stderr
    line = next(ln for ln in updated.lines if ln.startswith("updated"))
    assert f"does not filter what it sends (uploadpack.allowFilter), so all of commit {mono.head()[:12]}" in line  # fmt: skip


STRACE = shutil.which("strace")


def _skilltool(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """`skilltool plugins ARGS` run in a home of its own, as a user runs it; with
    `kill="CALL:K"`, killed by strace at its K-th CALL (skilltool's own process only: a git
    it runs is not counted)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_DATA_DIRS": str(tmp_path / "none")}
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env.pop(name, None)

    def skilltool(home: Path, *args: str, kill: str = "") -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "skilltool", "plugins", *args]
        if kill:
            call, k = kill.split(":")
            traced = ["-qq", "-o", os.devnull, "-e", f"trace={call}"]
            command = [str(STRACE), *traced, "-e", f"inject={call}:signal=KILL:when={k}", *command]
        here = {**env, "HOME": str(home)}
        return subprocess.run(command, env=here, capture_output=True, text=True, timeout=120)

    return skilltool


@pytest.mark.skipif(STRACE is None, reason="strace is not installed")
def test_update_killed_at_any_step_leaves_the_old_or_the_new_checkout_and_one_store(
    tmp_path: Path, repo: Repo
) -> None:
    old = repo.head()
    skilltool = _skilltool(tmp_path)
    homes = []
    for call, k in (
        [("rename", k) for k in range(1, 7)]
        + [("symlink", 1), ("symlink", 2)]
        + [("unlinkat", k) for k in (1, 8, 15, 22, 29)]
    ):
        home = tmp_path / f"home-{call}-{k}"
        home.mkdir()
        assert skilltool(home, "add", repo.url, "-q").returncode == 0
        homes.append((home, call, k))
    new = repo.commit({"skills/alpha/SKILL.md": skill_md("alpha", "Changed. Use it.")})
    repo.push()

    def trial(home: Path, call: str, k: int) -> None:
        killed = skilltool(home, "update", kill=f"{call}:{k}")
        place = data(home) / "sources/tools"
        in_use = os.readlink(place / "current")
        assert in_use.startswith((f"c-{old}-", f"c-{new}-")), (call, k, in_use)
        assert (place / "current/tools/skills/alpha/SKILL.md").is_file(), (call, k)
        if killed.returncode == 0:
            return
        assert killed.returncode == -9, (call, k, killed.stderr)
        again = skilltool(home, "update")  # the next run finishes the work
        assert again.returncode == 0, (call, k, again.stdout + again.stderr)
        names = sorted(os.listdir(place))
        assert names == sorted(["current", "git", f"git-{new}", os.readlink(place / "current")])
        assert os.readlink(place / "git") == f"git-{new}" and lock(home)["tools"]["commit"] == new

    with ThreadPoolExecutor(2) as pool:  # the machine has two cores
        list(pool.map(lambda case: trial(*case), homes))


def test_a_store_of_the_older_layout_is_replaced_by_the_next_update(home: Path, repo: Repo) -> None:
    assert run("plugins", "add", repo.url).code == 0
    place = data(home) / "sources/tools"
    store = os.readlink(place / "git")
    (place / "git").unlink()
    (place / store).rename(place / "git")  # a folder, as sources added before had it
    repo.commit({"skills/alpha/SKILL.md": skill_md("alpha", "Changed. Use it.")})
    repo.push()
    done = run("plugins", "update")
    assert done.code == 0, done.stdout + done.stderr
    assert os.readlink(place / "git") == f"git-{repo.head()}"
    assert sorted(n for n in os.listdir(place) if n.startswith("git")) == [
        "git",
        f"git-{repo.head()}",
    ]


def test_updates_of_a_folder_keep_the_store_the_size_of_one_fetch(
    home: Path, tmp_path: Path
) -> None:
    mono, _, _ = _big_mono(home, tmp_path, filters=True)
    place = data(home) / "sources/deep"
    first = sum(_store_bytes(place / n) for n in os.listdir(place) if n.startswith("git-"))
    for round in range(10):
        text = skill_md("alpha", f"Round {round}. Use it.")
        mono.commit({"plugins/deep/skills/alpha/SKILL.md": text})
        mono.push()
        assert run("plugins", "update", "deep").code == 0
    stores = [n for n in os.listdir(place) if n.startswith("git-")]
    assert stores == [f"git-{mono.head()}"]
    assert _store_bytes(place / stores[0]) <= 1.5 * first
    assert "Round 9" in (home / ".agents/skills/alpha/SKILL.md").read_text()


SHELF = ("one", "two", "three")


def _shelf(tmp_path: Path) -> tuple[Repo, dict[str, list[str]]]:
    """A marketplace of three plugins in its own tree, each with 1 MiB of files of its own
    (`three` named bare, under metadata.pluginRoot); the ids of each plugin's blobs but
    its manifest's."""
    made = Repo(tmp_path, "shelf")
    files: dict[str, str | bytes | Path] = {}
    big: dict[str, dict[str, bytes]] = {}
    for name in SHELF:
        files.update(plugin_files(name, (f"{name}-skill",), prefix=f"plugins/{name}/"))
        big[name] = {f"plugins/{name}/assets/b{i}.bin": os.urandom(256 * 1024) for i in range(4)}
        files.update(big[name])
    entries = [{"name": n, "source": f"./plugins/{n}"} for n in SHELF[:2]]
    entries.append({"name": "three", "source": "three"})
    marketplace = {"name": "shelf", "metadata": {"pluginRoot": "./plugins"}, "plugins": entries}
    files[".claude-plugin/marketplace.json"] = json.dumps(marketplace)
    made.commit(files)
    made.push()
    git("config", "uploadpack.allowFilter", "true", cwd=made.remote)
    listed = {n: git("ls-tree", "-r", "HEAD", f"plugins/{n}", cwd=made.work) for n in SHELF}
    oids = {  # the manifests of all are fetched: `search` reads them
        n: [ln.split()[2] for ln in listed[n].splitlines() if "/.claude-plugin/" not in ln]
        for n in SHELF
    }
    return made, oids


def _picked(home: Path, tmp_path: Path, plugin: str) -> dict[str, list[str]]:
    """The shelf added with `plugin` picked; the ids of each plugin's blobs."""
    shelf, oids = _shelf(tmp_path)
    done = run("plugins", "add", shelf.url, "--plugin", plugin)
    assert done.code == 0, done.stdout + done.stderr
    return oids


def _held(home: Path, name: str = "shelf") -> tuple[set[str], set[str]]:
    """The plugins whose skills a source's checkout in use holds, and the blobs its store
    lacks."""
    place = data(home) / "sources" / name
    there = place / "current" / name
    folders = {p.parent.name for p in (there / "plugins").glob("*/skills")}
    commit = lock(home)[name]["commit"]
    out = git("rev-list", "--objects", "--missing=print", commit, cwd=place / "git")
    return folders, {line[1:] for line in out.split() if line.startswith("?")}


def test_plugins_picked_of_a_marketplace_fetch_their_folders_and_no_others(
    home: Path, tmp_path: Path
) -> None:
    shelf, oids = _shelf(tmp_path)
    done = run("plugins", "add", shelf.url, "--plugin", "one")
    assert done.code == 0, done.stdout + done.stderr
    assert "one-skill" in links(home) and "two-skill" not in links(home)
    folders, missing = _held(home)
    assert folders == {"one"}
    assert missing == {*oids["two"], *oids["three"]}
    assert _store_bytes(data(home) / "sources/shelf/git") < 1.5 * 1024 * 1024
    # the checkout in use is what the lockfile asks: nothing to do, no local change seen
    synced = run("plugins", "sync")
    assert synced.code == 0 and "synced" not in synced.stdout, synced.stdout
    # one more picked later: its folder alone is fetched, at the same commit
    commit = lock(home)["shelf"]["commit"]
    before = home_state(home)
    assert run("plugins", "add", "three@shelf", "--dry-run").code == 0
    assert home_state(home) == before
    grown = run("plugins", "add", "three@shelf")
    assert grown.code == 0, grown.stdout + grown.stderr
    assert "plugin three of shelf" in grown.stdout
    assert {"one-skill", "three-skill"} <= set(links(home)) and "two-skill" not in links(home)
    folders, missing = _held(home)
    assert folders == {"one", "three"} and missing == set(oids["two"])
    assert lock(home)["shelf"]["commit"] == commit
    assert lock(home)["shelf"]["plugins"] == ["one", "three"]
    place = data(home) / "sources/shelf"
    assert sorted(n for n in os.listdir(place) if n.startswith("c-")) == [
        os.readlink(place / "current")
    ]
    assert run("plugins", "add", "nope@shelf").code == 1
    # one removed: the checkout holds the others alone, made from the store, and is in use
    assert run("plugins", "remove", "one").code == 0
    assert _held(home)[0] == {"three"} and "one-skill" not in links(home)
    synced = run("plugins", "sync")
    assert synced.code == 0 and "synced" not in synced.stdout, synced.stdout
    unknown = run("plugins", "add", shelf.url, "--plugin", "nope")
    assert "(it has: one, three, two)" in unknown.stderr, unknown.stderr


def test_a_plugin_picked_by_a_teammates_lockfile_is_checked_out_by_sync(
    home: Path, tmp_path: Path
) -> None:
    oids = _picked(home, tmp_path, "two")
    lockfile = data(home) / "plugins.lock"
    text = lockfile.read_text()
    assert 'plugins = ["two"]' in text
    lockfile.write_text(text.replace('plugins = ["two"]', 'plugins = ["two", "one"]'))
    synced = run("plugins", "sync")
    assert synced.code == 0, synced.stdout + synced.stderr
    assert {"one-skill", "two-skill"} <= set(links(home))
    folders, missing = _held(home)
    assert folders == {"one", "two"} and missing == set(oids["three"])


def test_an_edit_in_a_checkout_of_picked_plugins_is_kept_from_a_new_pick(
    home: Path, tmp_path: Path
) -> None:
    _picked(home, tmp_path, "one")
    page = data(home) / "sources/shelf/current/shelf/plugins/one/skills/one-skill/SKILL.md"
    page.write_text(page.read_text() + "Mine.\n")
    refused = run("plugins", "add", "two@shelf")
    assert refused.code == 1
    assert "has local changes (plugins/one/skills/one-skill/SKILL.md)" in refused.stderr
    assert "Mine." in page.read_text() and lock(home)["shelf"]["plugins"] == ["one"]


MANIFESTS = (".claude-plugin/plugin.json", ".plugin/plugin.json", "plugin.json")


@pytest.mark.parametrize(
    ("marketplace", "folders", "files"),
    [
        (
            {"plugins": [{"name": "a", "source": "./p/a"}, {"name": "b", "source": "./p/b"}]},
            ("p/a",),
            tuple(f"p/b/{m}" for m in MANIFESTS),  # what `search` reads of the others
        ),
        (
            {"metadata": {"pluginRoot": "./p"}, "plugins": [{"name": "a", "source": "a"}]},
            ("p/a",),
            (),
        ),
        ({"plugins": [{"name": "a", "source": {"source": "github", "repo": "o/a"}}]}, (), ()),
        ({"plugins": [{"name": "a", "source": "./"}]}, None, ()),  # the plugin is the whole tree
        ({"plugins": [{"name": "a", "source": "./p/../../x"}]}, None, ()),  # refused later
        ({"plugins": "a"}, None, ()),  # not a marketplace discover reads: all of it, as before
    ],
)
def test_the_folders_a_pick_of_a_marketplace_uses(
    marketplace: dict[str, object], folders: tuple[str, ...] | None, files: tuple[str, ...]
) -> None:
    got = sources.plugin_folders(("a",), json.dumps(marketplace).encode())
    assert got == (None if folders is None else (((".claude-plugin", *folders)), files))
    assert sources.plugin_folders(("a",), b"{not json") is None


@pytest.mark.skipif(STRACE is None, reason="strace is not installed")
def test_a_pick_killed_at_any_step_leaves_a_checkout_with_what_was_picked_before(
    tmp_path: Path,
) -> None:
    shelf, _ = _shelf(tmp_path)
    skilltool = _skilltool(tmp_path)
    cases = []
    for call, k in [("rename", k) for k in range(1, 6)] + [("symlink", 1), ("symlink", 2), ("unlinkat", 1), ("unlinkat", 12)]:  # fmt: skip
        home = tmp_path / f"home-{call}-{k}"
        home.mkdir()
        added = skilltool(home, "add", shelf.url, "--plugin", "one", "-q")
        assert added.returncode == 0, added.stderr
        cases.append((home, call, k))

    def trial(home: Path, call: str, k: int) -> None:
        killed = skilltool(home, "add", "three@shelf", "--no-install", kill=f"{call}:{k}")
        there = data(home) / "sources/shelf/current/shelf/plugins"
        assert (there / "one/skills/one-skill/SKILL.md").is_file(), (call, k)  # links hold
        if killed.returncode != 0:
            assert killed.returncode == -9, (call, k, killed.stderr)
            again = skilltool(home, "add", "three@shelf", "--no-install")
            assert again.returncode == 0, (call, k, again.stdout + again.stderr)
        assert lock(home)["shelf"]["plugins"] == ["one", "three"], (call, k)
        assert _held(home)[0] == {"one", "three"}, (call, k)
        synced = skilltool(home, "sync")  # the checkout in use is the one the lockfile asks
        assert synced.returncode == 0 and "synced" not in synced.stdout, (call, k, synced.stdout)
        place = data(home) / "sources/shelf"
        commit = lock(home)["shelf"]["commit"]
        in_use = os.readlink(place / "current")
        assert sorted(os.listdir(place)) == sorted(["current", "git", f"git-{commit}", in_use])

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda case: trial(*case), cases))


def test_a_marketplace_with_none_picked_keeps_one_checkout_of_its_catalogue(
    home: Path, tmp_path: Path
) -> None:
    shelf, _ = _shelf(tmp_path)
    added = run("plugins", "add", shelf.url)  # no terminal: none picked
    assert added.code == 0, added.stdout + added.stderr
    assert lock(home)["shelf"]["plugins"] == []
    place = data(home) / "sources/shelf"
    in_use = os.readlink(place / "current")
    commit = lock(home)["shelf"]["commit"]
    assert sorted(os.listdir(place)) == sorted(["current", "git", f"git-{commit}", in_use])
    assert _held(home)[0] == set()  # no plugin's files, and what search reads
    assert (place / "current/shelf/plugins/two/.claude-plugin/plugin.json").is_file()
