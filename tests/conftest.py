"""Shared fixtures: every test runs in a temporary home, and touching the real one fails it.

The helpers that are not fixtures are in tests/helpers.py."""

from __future__ import annotations

import os
import pwd
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.amber import AmberSnapshotExtension
from syrupy.location import PyTestLocation

from skilltool.harnesses import LOCATION_VARIABLES
from tests.gitrepos import NO_GITHUB
from tests.helpers import REPO
from tests.hostile.tally import COUNTS, LABELS

# The property tests draw the same examples on every run, so a run passes or fails by the code
# alone; SKILLTOOL_HYPOTHESIS=explore draws new ones (SKILLTOOL_ENTRY_EXAMPLES=N, more of them).
settings.register_profile("suite", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("SKILLTOOL_HYPOTHESIS", "suite"))

REAL_HOME = Path(pwd.getpwuid(os.getuid()).pw_dir).resolve()
_guard = {"on": False}

# audit events that change the file system, and which of their arguments are paths
_WRITES = {
    "os.symlink": (1,),
    "os.link": (1,),
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.rename": (0, 1),
    "os.replace": (0, 1),
    "os.mkdir": (0,),
    "os.chmod": (0,),
    "os.utime": (0,),
    "os.truncate": (0,),
    "shutil.rmtree": (0,),
    "os.chown": (0,),
}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _in_real_home(path: object) -> bool:
    if isinstance(path, int) or path is None:
        return False
    full = Path(os.path.abspath(os.fsdecode(path)))  # type: ignore[arg-type]
    if full == REPO or REPO in full.parents:
        return False
    return full == REAL_HOME or REAL_HOME in full.parents


def written_paths(event: str, args: tuple[Any, ...]) -> tuple[object, ...]:
    """The paths an audit event writes to, changes or removes (none for a read)."""
    if event == "open":
        path, mode, flags = args
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & _WRITE_FLAGS
        )
        return (path,) if writing else ()
    if event in _WRITES:
        return tuple(args[i] for i in _WRITES[event] if i < len(args))
    return ()


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _guard["on"]:
        return
    for path in written_paths(event, args):
        if _in_real_home(path):
            raise AssertionError(f"a test touched the real home directory: {event} {path}")


sys.addaudithook(_audit)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh HOME for every test; the real home's XDG and harness variables are cleared."""
    fake = tmp_path / "home"
    fake.mkdir()
    config = tmp_path / "gitconfig"  # no test fetches from GitHub (isolate_git keeps it so)
    config.write_text(NO_GITHUB)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("HOME", str(fake))
    for variable in (
        "XDG_DATA_HOME",
        "XDG_CONFIG_HOME",
        "XDG_STATE_HOME",
        "XDG_CACHE_HOME",
        *LOCATION_VARIABLES,
        "OPENHANDS_PERSISTENCE_DIR",  # moves OpenHands' mcp.json alone, not its folder
        "SKILLTOOL_PLUGINS",
        "SKILLTOOL_NAMESPACE",
        "SKILLTOOL_DEBUG",
    ):
        monkeypatch.delenv(variable, raising=False)
    # no system plugins from this machine leak into a test
    monkeypatch.setenv("XDG_DATA_DIRS", str(tmp_path / "system"))
    _guard["on"] = True
    yield fake
    _guard["on"] = False


class TopLevelSnapshots(AmberSnapshotExtension):
    """Snapshots live in the top-level snapshots/ folder, one file per test module."""

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        relative = Path(test_location.filepath).resolve().parent.relative_to(REPO / "tests")
        return str(REPO / "snapshots" / relative)


@pytest.fixture
def snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(TopLevelSnapshots)


def pytest_configure(config: pytest.Config) -> None:
    """skilltool's modules compiled once, before any worker starts: the many runs of it in a
    process of its own then read them, as an installed skilltool does, rather than compile
    every module anew (which PYTHONDONTWRITEBYTECODE, set on some machines, would make each
    run do: a quarter of the crash tests' time)."""
    if not hasattr(config, "workerinput"):  # the controller, or a run without workers
        import compileall

        import skilltool

        compileall.compile_dir(Path(skilltool.__file__).parent, quiet=1)


# the hostile suite's closing summary: the counts the issue asks for, in one block, summed
# over the processes the tests ran in (pytest-xdist's workers send theirs when they end)
def pytest_sessionfinish(session: pytest.Session) -> None:
    sent = getattr(session.config, "workeroutput", None)
    if sent is not None:  # a worker: its counts go to the process that prints the summary
        sent["hostile_counts"] = dict(COUNTS)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    COUNTS.update(getattr(node, "workeroutput", {}).get("hostile_counts", {}))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not COUNTS:
        return
    terminalreporter.section("hostile input and faults")
    for key, label in LABELS.items():
        if key in COUNTS:
            terminalreporter.write_line(f"{COUNTS[key]:>10}  {label}")
