"""Runs against one home are serialised: eight at once end as one run would, without error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import build_file_tree, skill_md


def snapshot(home: Path) -> dict[str, object]:
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


def test_eight_simultaneous_installs_end_like_one(tmp_path: Path, home: Path) -> None:
    spec: dict[str, str | bytes | Path] = {
        f"skills/s{i}/SKILL.md": skill_md(f"s{i}") for i in range(60)
    }
    spec["agents/helper.md"] = "---\nname: helper\ndescription: Helps.\n---\nYou help.\n"
    plugin = build_file_tree(tmp_path / "plugin", spec)
    for directory in (".config/opencode", ".codex", ".pi/agent", ".hermes/profiles/helper"):
        (home / directory).mkdir(parents=True)
    env = {**os.environ, "SKILLTOOL_PLUGINS": str(plugin), "HOME": str(home)}
    command = [sys.executable, "-m", "skilltool", "plugins", "install", "--home", str(home)]
    runs = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(8)]  # fmt: skip
    results = [(p.wait(timeout=120), p.stdout.read(), p.stderr.read()) for p in runs]  # type: ignore[union-attr]
    for code, out, err in results:
        assert code == 0, out + err
        assert "Traceback" not in err
    wrote = [
        line
        for _, out, _ in results
        for line in out.splitlines()
        if line.startswith(("linked", "wrote"))
    ]
    assert (
        len(wrote) == 60 + 1 + 2 + 3 + 2
    )  # each link and file made exactly once, by one of the runs
    concurrent = snapshot(home)
    # the same plugin installed once into a fresh home gives the same tree
    other = tmp_path / "other"
    for directory in (".config/opencode", ".codex", ".pi/agent", ".hermes/profiles/helper"):
        (other / directory).mkdir(parents=True)
    single = subprocess.run(
        [*command[:-1], str(other)], env={**env, "HOME": str(other)}, capture_output=True, text=True
    )
    assert single.returncode == 0
    expected = {k: v.replace(str(other).encode(), str(home).encode()) if isinstance(v, bytes) else v
                for k, v in snapshot(other).items()}  # fmt: skip
    assert concurrent.keys() == expected.keys()
