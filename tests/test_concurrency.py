"""Runs against one home are serialised: eight at once end as one run would, without error;
installs and uninstalls mixed end as the last of them would; status never trips over them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers import build_file_tree, skill_md
from tests.hostile.tally import COUNTS

RUNS = 8
HARNESS_DIRS = (".config/opencode", ".codex", ".pi/agent", ".hermes/profiles/helper")
OVERRIDE_WARNING = "warning: SKILLTOOL_PLUGINS is set"


def snapshot(home: Path) -> dict[str, object]:
    """Every file and link of the home, with its bytes or its target (skilltool's lock and
    parse cache left out)."""
    found: dict[str, object] = {}
    for directory, _, files in os.walk(home):
        for name in files:
            path = Path(directory, name)
            if ".local/state" in str(path) or ".cache" in str(path):
                continue
            found[str(path.relative_to(home))] = (
                os.readlink(path) if path.is_symlink() else path.read_bytes()
            )
        for name in os.listdir(directory):
            path = Path(directory, name)
            if path.is_symlink():
                found[str(path.relative_to(home))] = os.readlink(path)
    return found


def make_home(path: Path) -> Path:
    """A home with every harness, and nothing else (what was there before is gone)."""
    if path.exists():
        shutil.rmtree(path)
    for directory in HARNESS_DIRS:
        (path / directory).mkdir(parents=True)
    return path


def plugin(tmp_path: Path) -> Path:
    spec: dict[str, str | bytes | Path] = {
        f"skills/s{i}/SKILL.md": skill_md(f"s{i}") for i in range(60)
    }
    spec["agents/helper.md"] = "---\nname: helper\ndescription: Helps.\n---\nYou help.\n"
    return build_file_tree(tmp_path / "plugin", spec)


def start(home: Path, plugin: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "SKILLTOOL_PLUGINS": str(plugin), "HOME": str(home)}
    command = [sys.executable, "-m", "skilltool", "plugins", *args, "--home", str(home)]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def finish(runs: list[subprocess.Popen[str]]) -> list[tuple[int, str, str]]:
    results = [(*p.communicate(timeout=120), p.returncode) for p in runs]
    return [(code, out, err) for out, err, code in results]


def without_warning(err: str) -> list[str]:
    return [line for line in err.splitlines() if not line.startswith(OVERRIDE_WARNING)]


def alone(home: Path, plugin: Path, *args: str) -> dict[str, object]:
    """A fresh home after the given runs, one after the other (renderings hold the home's
    path and a digest over it, so a reference is made at the very path it is compared at)."""
    make_home(home)
    for command in args:
        [(code, out, err)] = finish([start(home, plugin, command)])
        assert code == 0, out + err
    return snapshot(home)


def test_eight_simultaneous_installs_end_like_one(tmp_path: Path, home: Path) -> None:
    source = plugin(tmp_path)
    once = alone(home, source, "install")
    make_home(home)
    results = finish([start(home, source, "install") for _ in range(RUNS)])
    COUNTS["concurrent runs"] += RUNS
    for code, out, err in results:
        assert code == 0, out + err
        assert without_warning(err) == []  # no error, no problem, no traceback
        assert not any(line.startswith(("failed", "left")) for line in out.splitlines()), out
    wrote = [
        line
        for _, out, _ in results
        for line in out.splitlines()
        if line.startswith(("linked", "wrote"))
    ]
    assert (
        len(wrote) == 60 + 1 + 2 + 3 + 2
    )  # each link and file made exactly once, by one of the runs
    # the same plugin installed once into a fresh home gives the same tree, byte for byte
    assert snapshot(home) == once


def test_installs_and_uninstalls_at_once_end_as_the_last_one_would(
    tmp_path: Path, home: Path
) -> None:
    source = plugin(tmp_path)
    installed = alone(home, source, "install")
    removed = alone(home, source, "install", "uninstall")
    make_home(home)
    for round_ in range(3):
        runs = [start(home, source, ("install", "uninstall")[(i + round_) % 2]) for i in range(RUNS)]  # fmt: skip
        # status reads while they write: it never fails, whatever it finds half done
        readers = [start(home, source, "status") for _ in range(2)]
        COUNTS["concurrent runs"] += RUNS
        for code, out, err in finish(runs) + finish(readers):
            assert code == 0, out + err
            assert without_warning(err) == []
        assert snapshot(home) in (installed, removed)
