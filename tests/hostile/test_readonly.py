"""A home that cannot be written: read-only (a read-only bind mount, or a directory without
write permission) or full (a tiny tmpfs). A clear error, no traceback, nothing partial:
every target is as it was or complete, and no temporary file is left behind."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from skilltool.fs import TEMP_PREFIX
from skilltool.harnesses import NAMES
from tests.helpers import Result, agent_md, build_file_tree, run, skill_md
from tests.hostile.tally import COUNTS

SKILLS = 40
HARNESS_DIRS = (".config/opencode", ".codex", ".pi/agent", ".hermes/profiles/helper")
OWN = (".local/state/skilltool", ".cache/skilltool")  # the lock and the parse cache

# prints a listing of a directory as JSON: what a test can read of a mount that exists
# only inside the mount namespace of the run
DUMP = """
import json, os, stat, sys
root, found = sys.argv[1], {}
for directory, dirnames, filenames in os.walk(root):
    for name in dirnames + filenames:
        path = os.path.join(directory, name)
        info = os.lstat(path)
        key = os.path.relpath(path, root)
        if stat.S_ISLNK(info.st_mode):
            found[key] = ["link", os.readlink(path)]
        elif stat.S_ISDIR(info.st_mode):
            found[key] = ["dir"]
        else:
            found[key] = ["file", open(path, "rb").read().hex(), stat.S_IMODE(info.st_mode)]
json.dump(found, sys.stdout)
"""


def listing(root: Path) -> dict[str, list[Any]]:
    done = subprocess.run([sys.executable, "-c", DUMP, str(root)], capture_output=True, text=True, check=True)  # fmt: skip
    found: dict[str, list[Any]] = json.loads(done.stdout)
    return found


def theirs(found: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """A listing without skilltool's own state (lock, parse cache)."""
    return {k: v for k, v in found.items() if not k.startswith(OWN) and k not in (".local/state", ".local", ".cache")}  # fmt: skip


@functools.cache
def namespaces() -> bool:
    """Whether this machine lets a test mount in a mount namespace of its own."""
    if shutil.which("unshare") is None or sys.platform != "linux":
        return False
    probe = "d=$(mktemp -d) && mount -t tmpfs -o size=4k tmpfs \"$d\" && umount \"$d\" && rmdir \"$d\""  # fmt: skip
    done = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", probe], capture_output=True)  # fmt: skip
    return done.returncode == 0


needs_namespaces = pytest.mark.skipif(
    "not namespaces()", reason="cannot mount here (needs unshare -m and CAP_SYS_ADMIN)"
)


def in_namespace(setup: str, *command: str | Path, env: dict[str, str]) -> Result:
    """Run `setup` (sh, with $1 = the home) then the command, in a private mount namespace."""
    script = f'set -eu\n{setup}\nshift\nexec "$@"\n'
    args = ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", *map(str, command)]  # fmt: skip
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    COUNTS["read-only runs"] += 1
    return Result(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    root = tmp_path / "plugins"
    spec: dict[str, str | bytes | Path] = {
        f"skills/s{i:02d}/SKILL.md": skill_md(f"s{i:02d}") for i in range(SKILLS)
    }
    spec["agents/helper.md"] = agent_md("helper")
    build_file_tree(root / "kit", spec)
    return root


def prepare(home: Path) -> None:
    for directory in HARNESS_DIRS:
        (home / directory).mkdir(parents=True, exist_ok=True)


def environment(home: Path, plugins: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(home), "SKILLTOOL_PLUGINS": str(plugins), "PYTHONIOENCODING": "utf-8:strict"}  # fmt: skip


def skilltool(*args: str | Path) -> list[str | Path]:
    return [sys.executable, "-m", "skilltool", "plugins", *args]


def clean(result: Result) -> None:
    assert "Traceback" not in result.stderr
    assert "skilltool: error:" not in result.stderr
    for line in result.stdout.splitlines():
        assert not line.startswith("failed") or line.endswith("then run again"), line


def no_temporary_files(found: dict[str, list[Any]]) -> None:
    assert [k for k in found if os.path.basename(k).startswith(TEMP_PREFIX)] == []


@needs_namespaces
@pytest.mark.parametrize("lived_in", [False, True], ids=["fresh", "lived-in"])
def test_read_only_home_is_one_clear_line_and_nothing_changes(
    tmp_path: Path, home: Path, plugins: Path, lived_in: bool
) -> None:
    prepare(home)
    env = environment(home, plugins)
    if lived_in:  # installed before, and the plugin changed since: there is work to do
        assert run("plugins", "install", "--home", home, env={"SKILLTOOL_PLUGINS": str(plugins)}).code == 0  # fmt: skip
        (plugins / "kit/agents/helper.md").write_text(agent_md("helper", "Changed.\n"))
        build_file_tree(plugins / "kit", {"skills/new/SKILL.md": skill_md("new")})
    before = listing(home)
    read_only = 'mount --bind "$1" "$1"\nmount -o remount,bind,ro "$1"'
    for args in (("install",), ("uninstall",), ("install", "--force")):
        result = in_namespace(read_only, home, *skilltool(*args, "--home", home), env=env)
        clean(result)
        assert result.code == 1
        assert result.stdout == ""
        assert [line for line in result.stderr.splitlines() if "SKILLTOOL_PLUGINS" not in line] == [
            "skilltool: cannot take the lock in ~/.local/state/skilltool (Read-only file system); "
            "nothing was changed: make it writable, or give another --home"
        ]
    assert listing(home) == before


@needs_namespaces
def test_read_only_skills_dir_stops_the_whole_run_before_it_starts(
    home: Path, plugins: Path
) -> None:
    prepare(home)
    skills = home / ".agents/skills"
    skills.mkdir(parents=True)
    env = environment(home, plugins)
    before = theirs(listing(home))
    read_only = f'mount --bind "{skills}" "{skills}"\nmount -o remount,bind,ro "{skills}"'
    result = in_namespace(read_only, home, *skilltool("install", "--home", home), env=env)
    clean(result)
    assert result.code == 1
    lines = [line for line in result.decided if not line.startswith("skipped   ")]
    assert len(lines) == SKILLS + 8  # every link and every rendering: none of them made
    absent = len(NAMES) - len(HARNESS_DIRS)
    assert result.lines[-1] == f"{SKILLS + 8} failed: {absent} harnesses absent"
    reason = "~/.agents/skills is on a read-only file system; make it writable, then run again"
    assert f"failed    ~/.agents/skills/s00: {reason}" in lines
    assert (
        "failed    ~/.config/opencode/agent/helper.md: not done: nothing is changed while "
        "~/.agents/skills cannot be written in; make it writable, then run again" in lines
    )
    assert all(line.startswith("failed    ") for line in lines)
    assert theirs(listing(home)) == before


@needs_namespaces
@pytest.mark.parametrize(
    "limits",
    [
        pytest.param("size=1m,nr_inodes=40", id="out-of-inodes"),  # fails making files and links
        pytest.param("size=320k", id="out-of-blocks"),  # fails writing a file's content
    ],
)
def test_full_disk_leaves_every_target_old_or_complete_and_the_next_run_finishes(
    home: Path, plugins: Path, limits: str
) -> None:
    if "nr_inodes" not in limits:  # renderings big enough to fill the blocks halfway through
        (plugins / "kit/agents/helper.md").write_text(agent_md("helper", "Help. " * 12_000))
    env = environment(home, plugins)
    # what a run with room to spare makes, at the same path
    prepare(home)
    assert subprocess.run(skilltool("install", "--home", home), env=env, capture_output=True).returncode == 0  # fmt: skip
    complete = theirs(listing(home))
    shutil.rmtree(home)
    home.mkdir()
    # a home on a tmpfs with room for about half of it; then the room is given and it reruns
    dump = f'{sys.executable} -c "$DUMP" "$home"'
    dirs = " ".join(f'"$home/{d}"' for d in HARNESS_DIRS)
    script = f"""
        set -eu
        home="$1"
        shift
        mount -t tmpfs -o {limits} tmpfs "$home"
        mkdir -p {dirs}
        set +e
        "$@" > "$OUT/first.out" 2> "$OUT/first.err"; echo $? > "$OUT/first.code"
        {dump} > "$OUT/first.json"
        mount -o remount,size=16m,nr_inodes=10000 "$home"
        "$@" > "$OUT/second.out" 2> "$OUT/second.err"; echo $? > "$OUT/second.code"
        {dump} > "$OUT/second.json"
    """
    out = home.parent / "out"
    out.mkdir()
    command = [*map(str, skilltool("install", "--home", home))]
    done = subprocess.run(
        [
            "unshare",
            "-m",
            "--propagation",
            "private",
            "sh",
            "-c",
            script,
            "sh",
            str(home),
            *command,
        ],
        env={**env, "OUT": str(out), "DUMP": DUMP},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    COUNTS["read-only runs"] += 2
    first = Result(int((out / "first.code").read_text()), (out / "first.out").read_text(), (out / "first.err").read_text())  # fmt: skip
    clean(first)
    assert first.code == 1
    failed = [line for line in first.stdout.splitlines() if line.startswith("failed")]
    assert failed, first.stdout
    assert all(line.endswith("No space left on device; free some space, then run again") for line in failed)  # fmt: skip
    partly = theirs(json.loads((out / "first.json").read_text()))
    no_temporary_files(partly)
    for path, entry in partly.items():  # each target absent or complete, never half written
        assert entry == complete.get(path), path
    assert len(partly) < len(complete)
    second = Result(int((out / "second.code").read_text()), (out / "second.out").read_text(), (out / "second.err").read_text())  # fmt: skip
    clean(second)
    assert second.code == 0, second.stdout + second.stderr
    assert theirs(json.loads((out / "second.json").read_text())) == complete


def test_skills_dir_without_write_permission_is_refused_before_anything_is_written(
    home: Path, plugins: Path
) -> None:
    """The fallback where nothing can be mounted: a directory without write permission."""
    prepare(home)
    skills = home / ".agents/skills"
    skills.mkdir(parents=True)
    skills.chmod(0o555)
    before = theirs(listing(home))
    command: list[str | Path] = skilltool("install", "--home", home)
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: every directory is writable")
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]
    done = subprocess.run(command, env=environment(home, plugins), capture_output=True, text=True, timeout=120)  # fmt: skip
    COUNTS["read-only runs"] += 1
    result = Result(done.returncode, done.stdout, done.stderr)
    clean(result)
    assert result.code == 1
    reason = "~/.agents/skills is not writable (permission denied); make it writable, then run again"  # fmt: skip
    assert f"failed    ~/.agents/skills/s00: {reason}" in result.lines
    # every change failed, and said so; the only other lines are harnesses not set up here
    assert all(line.startswith(("failed    ", "skipped   ")) for line in result.decided)
    skills.chmod(0o755)
    assert theirs(listing(home)) == before


def test_state_dir_without_write_permission_is_one_clear_line(home: Path, plugins: Path) -> None:
    prepare(home)
    state = home / ".local/state"
    state.mkdir(parents=True)
    state.chmod(0o555)
    command: list[str | Path] = skilltool("install", "--home", home)
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: every directory is writable")
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]
    before = listing(home)
    done = subprocess.run(command, env=environment(home, plugins), capture_output=True, text=True, timeout=120)  # fmt: skip
    COUNTS["read-only runs"] += 1
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    assert done.stderr.splitlines()[-1] == (
        "skilltool: cannot take the lock in ~/.local/state/skilltool (Permission denied); "
        "nothing was changed: make it writable, or give another --home"
    )
    state.chmod(0o755)
    assert listing(home) == before


@pytest.mark.parametrize("harness", [".codex", ".hermes", ".pi/agent", ".config/opencode"])
def test_unreadable_harness_directory_is_one_problem_and_the_rest_is_installed(
    home: Path, plugins: Path, harness: str
) -> None:
    prepare(home)
    (home / harness).chmod(0)
    command: list[str | Path] = skilltool("install", "--home", home)
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: every directory is readable")
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]
    done = subprocess.run(command, env=environment(home, plugins), capture_output=True, text=True, timeout=120)  # fmt: skip
    (home / harness).chmod(0o755)
    COUNTS["read-only runs"] += 1
    result = Result(done.returncode, done.stdout, done.stderr)
    clean(result)
    assert result.code == 1
    problems = [line for line in result.stderr.splitlines() if line.startswith("error")]
    assert len(problems) == 1, result.stderr
    assert problems[0].startswith(f"error     {home / harness}")
    assert "cannot be read (Permission denied), so nothing is rendered for " in problems[0]
    assert problems[0].endswith("; check its permissions")
    # the skills and the other harnesses are installed all the same
    assert (home / ".agents/skills/s00").is_symlink()
    written = {line.split()[1] for line in result.lines if line.startswith("wrote")}
    assert len(written) == 3


@needs_namespaces
def test_a_config_linked_into_a_read_only_store_is_one_line_naming_it(
    tmp_path: Path, home: Path, plugins: Path
) -> None:
    """home-manager links ~/.codex/config.toml into the Nix store, mounted read-only."""
    store = build_file_tree(tmp_path / "store/abc-home-files", {"config.toml": "[mcp_servers]\n"})
    build_file_tree(home, {".codex/config.toml": store / "config.toml"})
    build_file_tree(plugins / "kit", {".mcp.json": json.dumps({"mcpServers": {"s": {"command": "/s"}}})})  # fmt: skip
    read_only = f'mount --bind "{store}" "{store}"\nmount -o remount,bind,ro "{store}"'
    command = skilltool("install", "--only", "codex", "--home", home)
    result = in_namespace(read_only, home, *command, env=environment(home, plugins))
    clean(result)
    [line] = [line for line in result.lines if line.startswith("left")]
    assert line == (
        f"left      ~/.codex/config.toml: mcp s: a link to {store}/config.toml, on a read-only "
        "file system; nothing is changed in it: change the entry where that file is made "
        "(home-manager makes a Nix store's), or put a file of your own in place of the link"
    )
    assert (store / "config.toml").read_text() == "[mcp_servers]\n"
    assert result.code == 0
