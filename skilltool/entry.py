"""The command's entry point: a `status` the run's frame reads itself (`runs.plain_status`),
any other command line parsed by `cli`. Importing what runs a command takes a while, and a
Ctrl-C in that while is an interruption like any other (one line, exit 130), not a
traceback."""

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

    plain = runs.plain_status(argv, os.environ)
    if plain is None:
        from skilltool.cli import main

        return main()
    return runs.status(*plain)
