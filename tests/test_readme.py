"""The README's two commands, run in order on a fresh home as a new user would: the first
shows what it would write and writes it only on `y`, and the second (the tests' own
install) leaves what the first made working.

Offline: each `python3 -m venv` sees this interpreter's packages, and each `pip install`
builds from the clone with no index and no dependencies."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from tests.helpers import REPO

TESTS = " && .venv/bin/python -m pytest"


def two_commands() -> tuple[str, str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    first, second = re.findall(r"```sh\n(.*?)\n```", section, re.S)
    return first, second


def offline(command: str) -> str:
    """The command with each new venv seeing this interpreter's packages (after its own), and
    each `pip install` building from the clone alone."""
    site = sysconfig.get_path("purelib")
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"

    def venv(match: re.Match[str]) -> str:
        where = match.group(1)
        return (
            f"{sys.executable} -m venv {where} && "
            f"echo '{site}' > {where}/lib/{version}/site-packages/test-dependencies.pth"
        )

    command = re.sub(r"python3 -m venv (\S+)", venv, command)
    quiet = "install -q --no-index --no-deps --no-build-isolation"
    return command.replace('pip" install', f'pip" {quiet}').replace("pip install", f"pip {quiet}")


def shell(command: str, clone: Path, home: Path, answer: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env.update({"HOME": str(home), "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    return subprocess.run(
        ["sh", "-c", offline(command)], cwd=clone, env=env, input=answer,
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_the_first_command_looks_before_it_writes_and_the_second_leaves_its_links_working(
    tmp_path: Path, home: Path
) -> None:
    clone = tmp_path / "skilltool"
    ignored = shutil.ignore_patterns(".git", ".venv", "__pycache__", "build", "dist", "*.egg-info")
    shutil.copytree(REPO, clone, ignore=ignored)
    (home / ".codex").mkdir()
    first, second = two_commands()
    assert second.endswith(TESTS), second

    declined = shell(first, clone, home, "n\n")
    assert "dry-run: " in declined.stdout, declined.stdout + declined.stderr
    assert "Write these? [y/N]" in declined.stdout
    assert not (home / ".agents").exists() and os.listdir(home / ".codex") == []

    accepted = shell(first, clone, home, "y\n")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    links = sorted((home / ".agents/skills").iterdir())
    assert links and all(link.is_symlink() and link.resolve().is_dir() for link in links)
    assert (home / ".codex/skilltool/plugin-author.md").is_file()

    tests_install = shell(second.removesuffix(TESTS), clone, home, "")
    assert tests_install.returncode == 0, tests_install.stdout + tests_install.stderr
    broken = [link.name for link in links if not link.resolve().is_dir()]
    assert broken == []  # the development install moved nothing the first command linked
