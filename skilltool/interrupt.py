"""Ctrl-C in a run that changes files: noted, not raised, so that the step in flight ends
whole; the run then takes no new step and says what it did (docs/output-and-errors.md). A
second Ctrl-C ends the process at once: every write is a rename, so even then no file is
half written, and what a killed run leaves (a temporary file, a pending record) the next run
clears, as after a crash.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType

from skilltool.errors import INTERRUPTED

AGAIN = "skilltool: interrupted again: stopped at once; run it again to finish\n"

_noted = [False]
_waiting = [False]


def requested() -> bool:
    """Whether Ctrl-C was pressed since the run began deferring it: take no new step."""
    return _noted[0]


def _note(signum: int, frame: FrameType | None) -> None:
    if _waiting[0]:  # nothing done yet: stop the wait
        signal.signal(signal.SIGINT, signal.default_int_handler)
        raise KeyboardInterrupt
    if _noted[0]:  # the second: now, wherever the run is (an exception could be caught)
        clear = "\r\x1b[K" if os.isatty(2) else ""  # a progress line shown
        os.write(2, (clear + AGAIN).encode())
        os._exit(INTERRUPTED)
    _noted[0] = True


@contextlib.contextmanager
def waiting() -> Iterator[None]:
    """A wait (for the home's lock) that a Ctrl-C ends at once, even while deferred: nothing
    has been done yet, and the wait may be long."""
    _waiting[0] = True
    try:
        yield
    finally:
        _waiting[0] = False


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """SIGINT noted in `requested` while the body runs, instead of raising where it lands;
    once noted, the handler stays to the end of the process, so that a second Ctrl-C while
    the run reports is the same as one while it works. Only where Python's own handler is
    set (not when SIGINT is ignored, as in a job started with `&`, nor off the main thread,
    where no handler can be set)."""
    _noted[0] = False
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    signal.signal(signal.SIGINT, _note)
    try:
        yield
    finally:
        if not _noted[0]:
            signal.signal(signal.SIGINT, signal.default_int_handler)


def line(done: int, of: int, again: str) -> str:
    """The last line of a run that Ctrl-C stopped."""
    return f"interrupted: {done:,} of {of:,} done; run '{again}' again to finish"
