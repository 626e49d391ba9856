"""The smaller holes: skilltool's own settings file as users keep it (a link into their
dotfiles, a FIFO where it should be, a harness name mistyped, a TOML error), and a password in
a source's URL, which is refused without being printed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.gitrepos import git, isolate_git
from tests.helpers import run

SETTINGS = ".config/skilltool/config.toml"


def test_a_settings_file_kept_as_a_link_stays_a_link_when_disable_edits_it(home: Path) -> None:
    (home / ".claude").mkdir()
    dotfiles = home / "dotfiles" / "skilltool.toml"
    dotfiles.parent.mkdir()
    dotfiles.write_text("# mine\nleave-alone = []\n")
    (home / SETTINGS).parent.mkdir(parents=True)
    os.symlink(dotfiles, home / SETTINGS)
    done = run("plugins", "disable", "skilltool", "--harness", "claude")
    assert done.code == 0, done.stdout + done.stderr
    assert (home / SETTINGS).is_symlink()
    assert dotfiles.read_text().startswith("# mine\nleave-alone = []\n")
    assert 'skilltool = ["claude"]' in dotfiles.read_text()


def test_a_fifo_in_place_of_the_settings_file_fails_at_once_in_one_line(home: Path) -> None:
    (home / SETTINGS).parent.mkdir(parents=True)
    os.mkfifo(home / SETTINGS)
    done = run("plugins", "install")  # would wait forever on a FIFO opened for reading
    assert done.code == 1
    assert done.stderr == (
        f"skilltool: {home / SETTINGS}: not a regular file (or a link to one); replace it with "
        "your settings file, or remove it\n"
    )


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('leave-alone = ["claud"]\n', "leave-alone: 'claud' is not a harness skilltool knows"),
        (
            '[disabled.plugins]\nx = ["claude", "codx"]\n',
            "disabled.plugins.x: 'codx' is not a harness skilltool knows",
        ),
        # the parser's own words (tomllib's, tomlkit's on Python 3.10), not a later symptom
        ('leave-alone = ["hermes"\n', "not valid TOML ("),
        ("a = 1\na = 2\n", "not valid TOML ("),
    ],
)
def test_a_settings_file_with_a_mistake_is_one_line_naming_it(
    home: Path, text: str, said: str
) -> None:
    (home / ".claude").mkdir()
    (home / SETTINGS).parent.mkdir(parents=True)
    (home / SETTINGS).write_text(text)
    done = run("plugins", "install")
    assert done.code == 1
    assert done.stderr.startswith(f"skilltool: {home / SETTINGS}: {said}"), done.stderr
    assert done.stderr.count("\n") == 1
    assert not (home / ".claude/agents").exists()  # nothing written on a misread file


def test_a_password_in_a_url_of_a_manifest_or_lockfile_is_refused_unprinted(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate_git(tmp_path, monkeypatch)
    secret = "s3cr3t-pw"
    repo = tmp_path / "repo"
    git("init", "-q", repo)
    (repo / "skilltool.toml").write_text(
        f'harnesses = ["claude"]\n[sources.x]\nurl = "https://me:{secret}@example.invalid/x.git"\n'
    )
    monkeypatch.chdir(repo)
    for command in (("plugins", "sync"), ("plugins", "status"), ("plugins", "check")):
        done = run(*command)
        assert done.code == 1, (command, done.stdout)
        assert secret not in done.stdout + done.stderr
        assert "sources.x.url: the URL holds a password (not shown here)" in done.stderr
    lock = home / ".local/share/skilltool/plugins.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text(f'[sources.y]\nurl = "https://me:{secret}@example.invalid/y.git"\n')
    mine = run("plugins", "status", "--user")
    assert secret not in mine.stdout + mine.stderr
    assert "the URL holds a password (not shown here)" in mine.stdout + mine.stderr
