"""Shared fixtures: every test runs in a temporary home, and touching the real one fails it."""

from __future__ import annotations

import os
import pwd
import re
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.amber import AmberSnapshotExtension
from syrupy.location import PyTestLocation
from typer.testing import CliRunner

from skilltool.cli import app

REPO = Path(__file__).resolve().parent.parent
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
    monkeypatch.setenv("HOME", str(fake))
    for variable in (
        "XDG_DATA_HOME",
        "XDG_CONFIG_HOME",
        "XDG_STATE_HOME",
        "XDG_CACHE_HOME",
        "CODEX_HOME",
        "PI_CODING_AGENT_DIR",
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


def build_file_tree(root: Path, spec: Mapping[str, str | bytes | Path]) -> Path:
    """Make files under `root`: text or bytes make a file, a Path makes a symlink to it."""
    for relative, value in spec.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(value, Path):
            path.symlink_to(value)
        elif isinstance(value, bytes):
            path.write_bytes(value)
        else:
            path.write_text(value, encoding="utf-8", newline="")
    return root


def skill_md(
    name: str, description: str = "Does a thing. Use when testing.", extra: str = ""
) -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n# {name}\n\nBody.\n"


def agent_md(name: str, body: str = "You help with the tests.\n", extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: An agent for tests.\n{extra}---\n{body}"


def plugin_tree(
    root: Path,
    name: str,
    skills: tuple[str, ...] = (),
    agents: tuple[str, ...] = (),
    manifest: bool = True,
) -> Path:
    spec: dict[str, str | bytes | Path] = {}
    if manifest:
        spec[".claude-plugin/plugin.json"] = f'{{"name": "{name}", "version": "1.0.0"}}\n'
    for skill in skills:
        spec[f"skills/{skill}/SKILL.md"] = skill_md(skill)
    for agent in agents:
        spec[f"agents/{agent}.md"] = agent_md(agent)
    return build_file_tree(root / name, spec)


class Result:
    def __init__(self, code: int, stdout: str, stderr: str) -> None:
        self.code, self.stdout, self.stderr = code, stdout, stderr

    @property
    def lines(self) -> list[str]:
        return self.stdout.splitlines()

    @property
    def decided(self) -> list[str]:
        """The lines of an install or uninstall without its closing summary line."""
        *lines, summary = self.lines
        assert SUMMARY.fullmatch(summary), self.stdout
        return lines


# the closing line of install and uninstall: `12 linked, 3 rendered: 2 harnesses absent`
SUMMARY = re.compile(
    r"(dry-run: )?(nothing to do|[0-9,]+ [a-z ]+(, [0-9,]+ [a-z ]+)*)(: [0-9]+ harness(es)? absent)?"
)


def _runner() -> CliRunner:
    """A runner that keeps stderr apart: click 8.1 (typer 0.15) needs asking, 8.2 always does."""
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


def run(*args: str | Path, env: Mapping[str, str] | None = None) -> Result:
    """Run the real CLI in this process, the way a user would type it."""
    result = _runner().invoke(
        app, [str(a) for a in args], env=dict(env or {}), catch_exceptions=False
    )
    return Result(result.exit_code, result.stdout, result.stderr)


class TopLevelSnapshots(AmberSnapshotExtension):
    """Snapshots live in the top-level snapshots/ folder, one file per test module."""

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        relative = Path(test_location.filepath).resolve().parent.relative_to(REPO / "tests")
        return str(REPO / "snapshots" / relative)


@pytest.fixture
def snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(TopLevelSnapshots)


def scrub(text: str, *roots: Path) -> str:
    """Output with machine-specific paths replaced by stable names, for snapshots."""
    text = text.replace(str(REPO), "<repo>")
    for index, root in enumerate(roots):
        text = text.replace(str(root), f"<tmp{index or ''}>")
    return text
