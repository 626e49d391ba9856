"""The progress line: on a terminal's stderr, one line updated in place while a long run
works (`installing 120/330`), cleared before the run's own lines; never in a pipe, never
with -q or --json."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.helpers import build_file_tree, skill_md

SKILLS = 300
CLEAR = "\r\x1b[K"


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    spec: dict[str, str | bytes | Path] = {
        f"skills/s{i:03d}/SKILL.md": skill_md(f"s{i:03d}") for i in range(SKILLS)
    }
    return build_file_tree(tmp_path / "plugins" / "big", spec)


def _env(home: Path, plugins: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(home), "SKILLTOOL_PLUGINS": str(plugins.parent)}


def on_a_terminal(args: list[str], env: dict[str, str]) -> tuple[int, str, str, float]:
    """skilltool run with a pseudo-terminal for stderr (stdout a file): its exit code, its
    stdout, what the terminal showed, and how long the first byte there took."""
    main, other = pty.openpty()
    # stdout a file, not a pipe, which --json could fill while the terminal is read
    with tempfile.TemporaryFile() as out:
        begin = time.monotonic()
        child = subprocess.Popen(
            [sys.executable, "-m", "skilltool", *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=other,
            env={**env, "COLUMNS": "200", "TERM": "xterm"},
        )
        os.close(other)
        shown, first = b"", 0.0
        while True:
            ready, _, _ = select.select([main], [], [], 60)
            try:
                chunk = os.read(main, 4096) if ready else b""
            except OSError:  # the child closed the terminal
                chunk = b""
            if not chunk:
                break
            first = first or time.monotonic() - begin
            shown += chunk
        code = child.wait(60)
        os.close(main)
        out.seek(0)
        stdout = out.read()
    return code, stdout.decode(), shown.decode("utf-8", "replace"), first


WORDS = (
    "finding plugins", "planning", "installing ", "uninstalling ", "adding ", "fetching ",
    "asking ", "asked ",
)  # fmt: skip


def progress_lines(shown: str) -> list[str]:
    """The progress lines the terminal showed, in order; each must have been taken back (by
    the next one, or by a clear) before any other line was written: no newline after one, and
    the last thing shown is not one."""
    parts = shown.split(CLEAR)
    found = [part for part in parts[1:] if part.startswith(WORDS)]
    assert all("\n" not in part for part in found), found
    assert not parts[-1].startswith(WORDS), f"left on the terminal: {parts[-1]!r}"
    return found


def in_a_pipe(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "skilltool", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)


def test_install_on_a_terminal_shows_a_line_that_counts_then_clears_it(
    home: Path, plugins: Path
) -> None:
    code, stdout, shown, _ = on_a_terminal(["plugins", "install"], _env(home, plugins))
    assert code == 0, stdout + shown
    lines = progress_lines(shown)
    assert lines[:2] == ["finding plugins", "planning"], lines
    counts = [line for line in lines if line.startswith("installing ")]
    assert counts[0] == f"installing 0/{SKILLS}", counts
    assert counts[-1] == f"installing {SKILLS}/{SKILLS}", counts
    assert "\x1b[K" not in stdout and "installing" not in stdout
    assert stdout.splitlines()[-1].startswith(f"{SKILLS} linked"), stdout


def test_uninstall_counts_too(home: Path, plugins: Path) -> None:
    env = _env(home, plugins)
    assert in_a_pipe(["plugins", "install"], env).returncode == 0
    code, stdout, shown, _ = on_a_terminal(["plugins", "uninstall"], env)
    assert code == 0, stdout + shown
    assert progress_lines(shown)[-1] == f"uninstalling {SKILLS}/{SKILLS}", shown


@pytest.mark.parametrize("flag", ["-q", "--json"])
def test_no_progress_with_quiet_or_json(home: Path, plugins: Path, flag: str) -> None:
    code, stdout, shown, _ = on_a_terminal(["plugins", "install", flag], _env(home, plugins))
    assert code == 0, stdout + shown
    assert "\x1b[K" not in shown and "installing" not in shown, shown


def test_no_progress_in_a_pipe(home: Path, plugins: Path) -> None:
    done = in_a_pipe(["plugins", "install"], _env(home, plugins))
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr + done.stdout and "\x1b[K" not in done.stderr
    assert "installing" not in done.stderr and "finding plugins" not in done.stderr


def test_add_on_a_terminal_says_what_it_adds_then_counts(home: Path, plugins: Path) -> None:
    env = {k: v for k, v in _env(home, plugins).items() if k != "SKILLTOOL_PLUGINS"}
    code, stdout, shown, _ = on_a_terminal(["plugins", "add", str(plugins)], env)
    assert code == 0, stdout + shown
    lines = progress_lines(shown)
    assert lines[0] == f"adding {plugins}", lines
    done, total = lines[-1].removeprefix("installing ").split("/")  # the bundled plugin's too
    assert done == total and int(total) > SKILLS, lines


def test_doctor_on_a_terminal_says_whom_it_asks_while_it_waits(home: Path, tmp_path: Path) -> None:
    (home / ".config/opencode").mkdir(parents=True)
    stand_in = tmp_path / "bin/opencode"  # a harness that takes a second to list
    stand_in.parent.mkdir()
    stand_in.write_text(
        '#!/bin/sh\ncase "$1" in --version) echo 1.18.33;; *) sleep 1; echo "[]";; esac\n'
    )
    stand_in.chmod(0o755)
    env = {**os.environ, "HOME": str(home), "PATH": f"{stand_in.parent}:{os.environ['PATH']}"}
    code, stdout, shown, _ = on_a_terminal(["doctor", "opencode"], env)
    assert progress_lines(shown)[0] == "asking opencode", shown
    assert stdout.splitlines()[-1].startswith("doctor    1 harness(es) asked in")
