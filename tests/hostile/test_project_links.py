"""A cloned repository is someone else's input: a link it commits that leads out of it
makes no project command read or write outside the clone.

An author's repository commits, in place of a file or folder skilltool reads or writes, a
link that climbs out of the checkout into the home of whoever clones it at `~/src/NAME`.
A teammate clones it there, with a home full of their own harness configuration, and runs
every project command inside the clone; every file, link and folder outside the clone is
compared byte for byte before and after, and the run names the link.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.gitrepos import git, isolate_git
from tests.helpers import build_file_tree, run

# what the teammate's home holds before anything runs: their own harness configuration
SECRET = "c2VjcmV0LXRva2Vu"
TEAMMATE_HOME = {
    ".claude.json": '{"mcpServers": {"mine": {"command": "mine"}}}\n',
    ".claude/agents/own.md": "---\nname: own\ndescription: Mine.\n---\nMine.\n",
    ".claude/settings.json": '{"model": "opus"}\n',
    ".codex/config.toml": '[mcp_servers.mine]\ncommand = "mine"\n',
    ".agents/skills/own/SKILL.md": "---\nname: own\ndescription: Mine.\n---\nMine.\n",
    ".config/opencode/opencode.json": '{"mcp": {}}\n',
    ".gemini/settings.json": '{"mcpServers": {}}\n',
    ".copilot/config.json": "{}\n",
    ".docker/config.json": f'{{"auths": {{"registry.example": {{"auth": "{SECRET}"}}}}}}\n',
    ".bashrc": "export PATH\n",
    ".local/share/skilltool/sources/x/kept": "mine\n",
}

# each attack: the paths the author's commit turns into links, and where each link leads,
# written relative to the link as a committed link is; the clone is at ~/src/checkout
ATTACKS: dict[str, dict[str, str]] = {
    "mcp-json": {".mcp.json": "../../.claude.json"},
    "mcp-json-credentials": {".mcp.json": "../../.docker/config.json"},
    "codex-config": {".codex/config.toml": "../../../.codex/config.toml"},
    "claude-folder": {".claude": "../../.claude"},
    "claude-agents": {".claude/agents": "../../../.claude/agents"},
    "skills-dir": {".agents/skills": "../../../.agents/skills"},
    "opencode-config": {".opencode/opencode.json": "../../../.config/opencode/opencode.json"},
    "gemini-settings": {".gemini/settings.json": "../../../.gemini/settings.json"},
    "lockfile": {"skilltool.lock": "../../outside/skilltool.lock"},
    "manifest": {"skilltool.toml": "../../outside/skilltool.toml"},
    "ledger": {".skilltool/entries.json": "../../../outside/entries.json"},
    "data-folder": {".skilltool": "../../outside/dot-skilltool"},
    "local-source": {"plugins/team": "../../../outside/team"},
    "lock": {".skilltool/state/lock": "../../../../.bashrc"},
    "checkouts": {".skilltool/sources": "../../../.local/share/skilltool/sources"},
}

COMMANDS = (
    ("plugins", "sync", "--frozen"),
    ("plugins", "sync"),
    ("plugins", "install"),
    ("plugins", "check"),
    ("plugins", "status", "-v"),
    ("plugins", "add", "./plugins/extra"),
    ("plugins", "remove", "extra"),
    ("plugins", "uninstall"),
)


def _team(root: Path) -> None:
    build_file_tree(
        root,
        {
            "plugins/team/.claude-plugin/plugin.json": '{"name": "team"}\n',
            "plugins/team/skills/hello/SKILL.md": (
                "---\nname: hello\ndescription: Say hello to the team.\n---\nSay hello.\n"
            ),
            "plugins/team/agents/reviewer.md": (
                "---\nname: reviewer\ndescription: Reviews a change.\n---\nYou review.\n"
            ),
            "plugins/team/commands/ship.md": "---\ndescription: Ship it\n---\nShip $ARGUMENTS.\n",
            "plugins/team/.mcp.json": (
                '{"mcpServers": {"docs": {"type": "http", "url": "https://docs.example/mcp"}}}\n'
            ),
            "plugins/extra/.claude-plugin/plugin.json": '{"name": "extra"}\n',
            "plugins/extra/skills/more/SKILL.md": (
                "---\nname: more\ndescription: One more skill.\n---\nMore.\n"
            ),
        },
    )


def _outside(top: Path, clone: Path) -> dict[str, object]:
    """Every file, link and folder under `top` but the clone: bytes, link text, mode."""
    found: dict[str, object] = {}
    for folder, dirs, files in os.walk(top):
        here = Path(folder)
        if here == clone:
            dirs[:] = []
            continue
        for name in [*dirs, *files]:
            path = here / name
            if path == clone:
                continue
            key = str(path.relative_to(top))
            info = path.lstat()
            if path.is_symlink():
                found[key] = ("link", os.readlink(path))
            elif path.is_dir():
                found[key] = ("dir", info.st_mode)
            else:
                found[key] = ("file", info.st_mode, path.read_bytes())
    return found


@pytest.fixture
def author(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The author's repository: the team's plugin added as a project for five harnesses,
    and committed; its remote is the repository itself."""
    isolate_git(tmp_path, monkeypatch)
    author_home = tmp_path / "author-home"
    for folder in (".claude", ".codex", ".config/opencode", ".gemini", ".copilot"):
        (author_home / folder).mkdir(parents=True)
    repo = tmp_path / "author"
    git("init", "-q", repo)
    _team(repo)
    monkeypatch.setenv("HOME", str(author_home))
    monkeypatch.chdir(repo)
    added = run("plugins", "add", "./plugins/team", "--project")
    assert added.code == 0, added.stdout + added.stderr
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "plugins", cwd=repo)
    monkeypatch.setenv("HOME", str(home))
    return repo


def _commit_links(repo: Path, links: dict[str, str], outside: Path) -> None:
    """The attack: each path replaced by a link; what it would have held is put where the
    link leads when that is skilltool's own file (so that it reads as valid there)."""
    for rel, text in links.items():
        path = repo / rel
        if rel in ("skilltool.lock", "skilltool.toml", ".skilltool/entries.json"):
            shutil.copy(path, outside / Path(text).name)
        elif rel == ".skilltool":
            shutil.copytree(path, outside / "dot-skilltool", symlinks=True)
        elif rel == "plugins/team":
            shutil.copytree(path, outside / "team", symlinks=True)
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif os.path.lexists(path):
            path.unlink()
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(text, path)
        git("add", "-f", rel, cwd=repo)  # skilltool's own ignore file names some of them
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "links", cwd=repo)


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_link_out_of_a_clone_changes_nothing_outside_it(
    attack: str, author: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_file_tree(home, TEAMMATE_HOME)
    outside = home / "outside"
    outside.mkdir()
    _commit_links(author, ATTACKS[attack], outside)
    clone = home / "src" / "checkout"
    git("clone", "-q", author, clone)
    for rel, text in ATTACKS[attack].items():  # the clone's links lead into this home
        assert (clone / rel).is_symlink()
        assert str((clone / rel).parent.joinpath(text).resolve()).startswith(str(home))
    monkeypatch.chdir(clone)
    before = _outside(home.parent, clone)
    said = []
    for command in COMMANDS:
        result = run(*command)
        assert result.code in (0, 1), (command, result.stdout, result.stderr)
        assert "Traceback" not in result.stdout + result.stderr
        assert SECRET not in result.stdout + result.stderr, (command, result.stdout)
        after = _outside(home.parent, clone)
        changed = sorted(k for k in {*before, *after} if before.get(k) != after.get(k))
        assert not changed, (command, changed, result.stdout, result.stderr)
        said.append(result.stdout + result.stderr)
    for rel in ATTACKS[attack]:  # every command that reached it named the link, and said why
        naming = [text for text in said if rel in text and "outside the project" in text]
        assert naming, (rel, said)


def test_a_committed_record_naming_the_cloners_files_changes_none_of_them(
    author: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entries ledger and the record of made folders are the project's files too: one
    that names a file or folder of the cloner's home (an author can guess `/home/NAME`)
    makes nothing there ours: no entry taken out, no empty folder removed."""
    import json

    from skilltool.mcp import _value_digest

    build_file_tree(home, TEAMMATE_HOME)
    (home / ".config" / "empty").mkdir()
    clone = home / "src" / "checkout"
    ledger = json.loads((author / ".skilltool/entries.json").read_text())
    mine = {"command": "mine"}
    for harness, file, table in (
        ("claude", home / ".claude.json", "mcpServers"),
        ("codex", home / ".codex/config.toml", "mcp_servers"),
    ):
        ledger["entries"].append(
            {
                "harness": harness,
                "file": str(file),
                "format": "json" if file.suffix == ".json" else "toml",
                "table": [table],
                "name": "mine",
                "digest": _value_digest(mine),
                "source": "plugins/team/.mcp.json",
            }
        )
        ledger["created_files"].append(str(file))
    (author / ".skilltool/entries.json").write_text(json.dumps(ledger, indent=2) + "\n")
    state = author / ".skilltool/state"
    state.mkdir(parents=True, exist_ok=True)
    (state / "made-dirs").write_text(f"{home / '.config' / 'empty'}\n{home / '.claude'}\n")
    git("add", "-A", "-f", cwd=author)
    git("commit", "-q", "-m", "records", cwd=author)
    git("clone", "-q", author, clone)
    assert (clone / ".skilltool/state/made-dirs").is_file()
    monkeypatch.chdir(clone)
    before = _outside(home.parent, clone)
    for command in (*COMMANDS, ("plugins", "uninstall", "--purge")):
        result = run(*command)
        assert result.code in (0, 1), (command, result.stdout, result.stderr)
        after = _outside(home.parent, clone)
        changed = sorted(k for k in {*before, *after} if before.get(k) != after.get(k))
        assert not changed, (command, changed, result.stdout, result.stderr)


def test_a_link_that_stays_inside_the_clone_is_followed(
    author: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A team that keeps Claude Code's folder elsewhere in the repository, behind a link,
    has it written there as before."""
    real = author / "config" / "claude"
    real.parent.mkdir()
    (author / ".claude").rename(real)
    os.symlink("config/claude", author / ".claude")
    git("add", "-A", cwd=author)
    git("commit", "-q", "-m", "claude's folder elsewhere", cwd=author)
    clone = home / "src" / "checkout"
    git("clone", "-q", author, clone)
    monkeypatch.chdir(clone)
    synced = run("plugins", "sync", "--frozen")
    assert synced.code == 0, synced.stdout + synced.stderr
    assert "outside the project" not in synced.stdout + synced.stderr
    assert run("plugins", "check").code == 0
    (clone / "config/claude/agents/reviewer.md").unlink()
    assert run("plugins", "install").code == 0
    assert (clone / "config/claude/agents/reviewer.md").is_file()
