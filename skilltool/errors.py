"""The errors a person is shown: one line that says what is wrong and what to do.

Raised anywhere below the command line and turned into an exit code in one place
(`runs.finish`), as text on stderr or, with --json, as a JSON error object.
"""

from __future__ import annotations

OK, FAILED, USAGE = 0, 1, 2
INTERRUPTED = 130  # stopped by Ctrl-C (SIGINT), as a shell reports a process it stopped


class SkilltoolError(Exception):
    """Something could not be done: exit 1."""

    exit_code = FAILED

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UsageError(SkilltoolError):
    """The command line asks for something impossible (a path that does not exist): exit 2."""

    exit_code = USAGE
