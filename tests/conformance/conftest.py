"""The real-harness conformance suite: when it runs, the shared homes, and the closing summary.

It runs only when asked for, with `-m conformance` or SKILLTOOL_CONFORMANCE set; a
plain `python -m pytest` skips it and stays fast and hermetic. A harness whose
launcher is missing (run scripts/install-harnesses) skips its tests, unless
SKILLTOOL_CONFORMANCE=required, which makes that a failure.

Tests call the `proven` fixture after their assertions pass; the summary printed at
the end lists, per harness, the version tested and everything proven.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from tests.conformance import sandbox
from tests.conformance.homes import SECOND_WAVE, THIRD_WAVE, Installed, install_home
from tests.conformance.support import HARNESSES, PROOFS, VARIABLE, VERSIONS, Proven, record

HERE = Path(__file__).resolve().parent

# The harness cache is found from HOME, which every test's autouse fixture points at a
# temporary directory: pin it now, while HOME is still the real one.
os.environ.setdefault("SKILLTOOL_HARNESS_CACHE", str(sandbox.harness_cache()))

_PASSED = pytest.StashKey[bool]()


def _selected(config: pytest.Config) -> bool:
    if os.environ.get(VARIABLE):
        return True
    expression = str(config.getoption("markexpr", "") or "")
    return "conformance" in expression and "not conformance" not in expression


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _selected(config):
        return
    skip = pytest.mark.skip(
        reason=f"real harnesses: run with -m conformance or {VARIABLE}=1 "
        "(after scripts/install-harnesses)"
    )
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(skip)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.when == "call":
        item.stash[_PASSED] = report.passed
    return report


@pytest.fixture
def proven(request: pytest.FixtureRequest) -> Iterator[Proven]:
    """Record a fact a test has just proven; it reaches the summary only if the test passes."""
    pending: list[tuple[str, str]] = []
    yield lambda harness, claim: pending.append((harness, claim))
    if request.node.stash.get(_PASSED, False):
        for harness, claim in pending:
            record(harness, claim)


@pytest.fixture(scope="session", params=["bundled", "tricky"])
def installed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Installed:
    """One home per agent, every harness present, after the real `skilltool plugins install`."""
    key: str = request.param
    return install_home(tmp_path_factory.mktemp(f"conformance-{key}"), key)


@pytest.fixture(scope="session", params=["bundled", "tricky"])
def second_wave(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Installed:
    """One home per agent with ~/.claude, ~/.gemini (settings.json) and ~/.copilot, after the
    real `skilltool plugins install` (test_claude/gemini/copilot.py use it as `installed`)."""
    key: str = request.param
    return install_home(tmp_path_factory.mktemp(f"conformance2-{key}"), key, SECOND_WAVE)


@pytest.fixture(scope="session", params=["bundled", "tricky"])
def third_wave(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Installed:
    """One home per agent with ~/.config/kilo and ~/.qwen (settings.json), after the real
    `skilltool plugins install` (test_kilo/qwen.py use it as `installed`)."""
    key: str = request.param
    return install_home(tmp_path_factory.mktemp(f"conformance3-{key}"), key, THIRD_WAVE)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    if not PROOFS and not VERSIONS:
        return
    tr = terminalreporter
    tr.write_sep("=", "skilltool conformance: what the real harnesses were seen to do")
    for harness, (title, _launchers, _packages) in HARNESSES.items():
        version = VERSIONS.get(harness)
        claims = PROOFS.get(harness, [])
        if version is None and not claims:
            tr.write_line(f"{title}: not tested")
            continue
        tr.write_line(f"{title}: {version or 'version unknown'}")
        for claim in claims:
            tr.write_line(f"  - {claim}")
        if not claims:
            tr.write_line("  (nothing proven: its tests failed or were skipped)")
