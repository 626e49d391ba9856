"""The hostile suite's closing summary: the counts the issue asks for, in one block."""

from __future__ import annotations

import pytest

from tests.hostile.tally import COUNTS, LABELS


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not COUNTS:
        return
    terminalreporter.section("hostile input and faults")
    for key, label in LABELS.items():
        if key in COUNTS:
            terminalreporter.write_line(f"{COUNTS[key]:>10}  {label}")
