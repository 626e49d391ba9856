"""Real git repositories for the sources tests: a working clone and the bare remote it
pushes to, reached over file://. The machine's git config never leaks in."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.helpers import build_file_tree

# what a test could reach on the network by skilltool's own doing (Claude Code's official
# marketplace, which `plugins search` and `add P@claude-plugins-official` fetch): a folder
# that does not exist, so no test ever leaves the machine; a test that wants it maps the
# longer URL itself (git takes the longest `insteadOf` that matches)
NO_GITHUB = (
    '[url "file:///nonexistent/github/anthropics/"]\n\tinsteadOf = https://github.com/anthropics/\n'
)


def isolate_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Git config of the test's own (global and system), an identity, no prompts."""
    config = tmp_path / "gitconfig"
    config.write_text(
        '[init]\n\tdefaultBranch = main\n[protocol "file"]\n\tallow = always\n' + NO_GITHUB
    )
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", str(tmp_path / "gitconfig-system"))
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "test@example.invalid")
    return config


def git(*args: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run(
        ["git", *map(str, args)], cwd=cwd, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"git {' '.join(map(str, args))}: {done.stderr}"
    return done.stdout.strip()


class Repo:
    """A working repository and its bare remote; `url` is what a user would add."""

    def __init__(self, base: Path, name: str) -> None:
        self.work = base / "work" / name
        self.remote = base / "remotes" / f"{name}.git"
        self.work.mkdir(parents=True)
        git("init", "-q", "-b", "main", cwd=self.work)
        self.remote.parent.mkdir(parents=True, exist_ok=True)
        git("init", "-q", "--bare", self.remote)

    @property
    def url(self) -> str:
        return self.remote.as_uri()

    def commit(
        self,
        files: Mapping[str, str | bytes | Path],
        message: str = "change",
        remove: tuple[str, ...] = (),
    ) -> str:
        build_file_tree(self.work, files)
        for path in remove:
            target = self.work / path
            shutil.rmtree(target) if target.is_dir() else target.unlink()
        git("add", "-A", cwd=self.work)
        git("commit", "-q", "--allow-empty", "-m", message, cwd=self.work)
        return self.head()

    def head(self) -> str:
        return git("rev-parse", "HEAD", cwd=self.work)

    def push(self, *refs: str, force: bool = False) -> None:
        git(
            "push",
            "-q",
            *(["--force"] if force else []),
            self.remote,
            *(refs or ("main",)),
            cwd=self.work,
        )


def plugin_files(
    name: str,
    skills: tuple[str, ...] = (),
    agents: Mapping[str, str] | None = None,
    prefix: str = "",
) -> dict[str, str | bytes | Path]:
    """The files of a plugin in the Claude Code shape, under `prefix` in a repository."""
    from tests.helpers import agent_md, skill_md

    files: dict[str, str | bytes | Path] = {
        f"{prefix}.claude-plugin/plugin.json": f'{{"name": "{name}", "version": "1.0.0"}}\n'
    }
    for skill in skills:
        files[f"{prefix}skills/{skill}/SKILL.md"] = skill_md(skill)
    for agent, body in (agents or {}).items():
        files[f"{prefix}agents/{agent}.md"] = agent_md(agent, body)
    return files


def home_state(home: Path) -> dict[str, object]:
    """Every entry under a home (a link's target, a file's bytes), to see that nothing changed."""
    found: dict[str, object] = {}
    for directory, dirnames, filenames in os.walk(home):
        for name in dirnames + filenames:
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, home)
            if relative.startswith((".cache", ".local/state")):  # the parse cache, the lock
                continue
            if os.path.islink(path):
                found[relative] = ("link", os.readlink(path))
            elif os.path.isdir(path):
                continue  # an empty directory made on the way is no change a user sees
            else:
                with open(path, "rb") as handle:
                    found[relative] = ("file", handle.read())
    return found
