"""Ctrl-C in a run that changes files: noted, not raised, so that the step in flight ends
whole; the run then takes no new step and says what it did (docs/output-and-errors.md). A
second Ctrl-C stops at once: every write is a rename, so even then no file is half written.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

INTERRUPTED = 130  # the exit code of a run stopped by SIGINT, as a shell reports it

_noted = [False]
_waiting = [False]


def requested() -> bool:
    """Whether Ctrl-C was pressed since the run began deferring it: take no new step."""
    return _noted[0]


def _note(signum: int, frame: FrameType | None) -> None:
    if _noted[0] or _waiting[0]:  # the second, or in a wait: stop now
        signal.signal(signal.SIGINT, signal.default_int_handler)
        raise KeyboardInterrupt
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
    """SIGINT noted in `requested` while the body runs, instead of raising where it lands.
    Only where Python's own handler is set (not when SIGINT is ignored, as in a job started
    with `&`, nor off the main thread, where no handler can be set)."""
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
        signal.signal(signal.SIGINT, signal.default_int_handler)


def line(done: int, of: int, again: str) -> str:
    """The last line of a run that Ctrl-C stopped."""
    return f"interrupted: {done:,} of {of:,} done; run '{again}' again to finish"


def at_once() -> str:
    """What is said of a run that Ctrl-C stopped where it landed: before the run deferred it,
    or a second time while it finished its step."""
    if not _noted[0]:
        return "interrupted"
    return "interrupted again: stopped at once (no file is half written); run it again to finish"
