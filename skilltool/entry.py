"""The command's entry point: importing the command line takes a while, and a Ctrl-C in that
while is an interruption like any other (one line, exit 130), not a traceback."""

import sys


def main() -> None:
    try:
        from skilltool.cli import main as run
    except KeyboardInterrupt:
        sys.stderr.write("skilltool: interrupted\n")
        sys.exit(130)
    run()
