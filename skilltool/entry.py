"""The command's entry point: a `status` or an `acp` the run's frame reads itself
(`runs.plain_status`, `runs.plain_acp`), any other command line parsed by `cli`. Importing
what runs a command takes a while, and a Ctrl-C in that while is an interruption like any
other (one line, exit 130), not a traceback."""

import gc
import os
import sys


def main() -> None:
    gc.disable()  # nothing made while the command is imported is garbage: see runs.finish
    try:
        from skilltool import runs
    except KeyboardInterrupt:
        sys.stderr.write("skilltool: interrupted\n")
        sys.exit(130)
    runs.guarded(lambda: _run(sys.argv[1:]))


def _run(argv: list[str]) -> int:
    from skilltool import runs

    status = runs.plain_status(argv, os.environ)
    if status is not None:
        return runs.status(*status)
    acp = runs.plain_acp(argv, os.environ)
    if acp is not None:
        return runs.acp(*acp)
    from skilltool.cli import main

    return main()
