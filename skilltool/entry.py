"""The command's entry point: importing the command line takes a while, and a Ctrl-C in that
while is an interruption like any other (one line, exit 130), not a traceback."""

import gc
import sys


def main() -> None:
    gc.disable()  # see cli.main: nothing made while the command line is imported is garbage
    try:
        from skilltool.cli import main as run
    except KeyboardInterrupt:
        sys.stderr.write("skilltool: interrupted\n")
        sys.exit(130)
    run()
