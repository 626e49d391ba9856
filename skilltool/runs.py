"""A run, from its command line to its exit code: its last line of defence (one line,
never a traceback, unless --debug), a Ctrl-C at any moment (one line, exit 130), and the
printing of its result.

A `status` given only plain options is read here and run without the command line: what a
shell's start-up runs, where typer and its click would cost twice the status itself; so is
an `acp AGENT --harness NAME`, what an ACP host runs at each session. The entry point sends
any other command line, and any doubt, to `cli`, which parses it; tests/test_cli.py holds
the two to one reading of every command line read here."""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, NoReturn

from skilltool.errors import INTERRUPTED, SkilltoolError

if TYPE_CHECKING:
    from skilltool.commands.common import Options
    from skilltool.report import Result


def status(names: list[str], opts: Options) -> int:
    """Run a `status` read by `plain_status`, as the command line would: its exit code."""
    from skilltool.commands import install as family

    return finish("status", opts.json, lambda: family.status(opts, names))


# the options of the commands read here, each as its declaration in cli/ reads it
FLAGS = {"--json": "json", "--user": "user", "--verbose": "verbose", "-v": "verbose"}
FLAGS |= {"--quiet": "quiet", "-q": "quiet"}
VALUED = {"--home": "home", "--dir": "skills_dir"}
ACP_VALUED = {"--home": "home", "--harness": "harness"}


def plain_status(argv: list[str], environ: Mapping[str, str]) -> tuple[list[str], Options] | None:
    """The names and options of `plugins status` (or `skills status`) said with only the
    options above, each at most once, each value a plain word; None for any other command
    line (help, completion, another option, a value that starts with `-`)."""
    if argv[:1] not in (["plugins"], ["skills"]) or argv[1:2] != ["status"]:
        return None
    read = _plain(argv[2:], FLAGS, VALUED, environ, dashes=False)
    if read is None:
        return None
    names, given = read
    from skilltool.commands.common import options

    return names, options(namespace=_namespace(environ), **given)  # type: ignore[arg-type]


def plain_acp(
    argv: list[str], environ: Mapping[str, str]
) -> tuple[str, str, list[str], Options] | None:
    """The agent, harness, further arguments and options of `acp AGENT --harness NAME
    [--home PATH] [-- ARGS]` (what an ACP host runs at each session), read as `plain_status`
    reads its own; None for any other command line, and for a harness typer would refuse."""
    if argv[:1] != ["acp"]:
        return None
    read = _plain(argv[1:], {}, ACP_VALUED, environ, dashes=True)
    if read is None or not read[0] or not isinstance(read[1].get("harness"), str):
        return None
    from skilltool.commands.common import options
    from skilltool.harnesses import NAMES

    (agent, *extra), given = read
    harness = str(given.pop("harness"))
    if harness not in NAMES:
        return None
    return agent, harness, extra, options(namespace=_namespace(environ), **given)  # type: ignore[arg-type]


def _plain(
    words: list[str],
    flags: Mapping[str, str],
    valued: Mapping[str, str],
    environ: Mapping[str, str],
    dashes: bool,
) -> tuple[list[str], dict[str, str | bool]] | None:
    """The words that are not options, and the options given, each once; None at anything
    else (with `dashes`, what follows `--` is words whatever it starts with)."""
    if any(variable.endswith("_COMPLETE") for variable in environ):  # typer's completion
        return None
    positional: list[str] = []
    given: dict[str, str | bool] = {}
    left = iter(words)
    for word in left:
        option, equals, value = word.partition("=")
        said: str | bool = True
        if word == "--" and dashes:
            positional += left
            break
        if word in flags:
            key = flags[word]
        elif option in valued:
            key, value = valued[option], value if equals else next(left, "")
            if not value or value.startswith("-"):
                return None
            said = value
        elif word.startswith("-"):
            return None
        else:
            positional.append(word)
            continue
        if key in given:
            return None
        given[key] = said
    return positional, given


def _namespace(environ: Mapping[str, str]) -> str | None:
    return environ.get("SKILLTOOL_NAMESPACE") or None  # as --namespace's envvar reads it


def acp(agent: str, harness: str, extra: list[str], opts: Options) -> int:
    """Run an `acp` read by `plain_acp`, as the command line would: its exit code."""
    from skilltool import acp as family

    return family.run(agent, harness, extra, opts)


def finish(command: str, as_json: bool, call: Callable[[], Result]) -> int:
    """Run one command and print its result or its error; its exit code."""
    from skilltool import report

    if not gc.isenabled():  # paused by the entry point: start-up is over
        gc.freeze()  # what start-up made lives to the end: no collection need walk it again
        gc.enable()
    try:
        try:
            result = call()
        except SkilltoolError as err:
            with _reader_gone():
                return report.emit_error(command, err, as_json)
            return err.exit_code
        INTERRUPTION_SAID[0] = result.code == INTERRUPTED  # the result says how far it got
        with _reader_gone():
            return report.emit(command, result, as_json)
        return result.code
    except KeyboardInterrupt:  # where it landed (typer would exit 130 and say nothing)
        with _reader_gone():
            report.write_lines(["skilltool: interrupted"], sys.stderr)
        INTERRUPTION_SAID[0] = True
        return INTERRUPTED


# whether the run said it was interrupted: a Ctrl-C before `finish` (while typer parses, or a
# command imports its modules) is typer's silent exit 130, which `guarded` then says
INTERRUPTION_SAID = [False]


@contextlib.contextmanager
def _reader_gone() -> Iterator[None]:
    """`skilltool plugins status | head -1`: a reader that stopped reading is no failure, and
    is not told; the command's own exit code stands (the caller returns it)."""
    try:
        yield
    except BrokenPipeError:
        # what is still buffered goes nowhere, so that the flush at exit fails on nothing
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.dup2(devnull, sys.stderr.fileno())
        os.close(devnull)


def guarded(body: Callable[[], int]) -> NoReturn:
    """Exit with the code `body` returns; no traceback reaches the user unless --debug asks
    for one. The collector, paused by the entry point, is left nothing to walk at exit (it
    would take longer than the command)."""
    try:
        try:
            code = body()
        except KeyboardInterrupt:
            code = INTERRUPTED
        except Exception as err:  # the last line of defence: one line, exit 1
            if os.environ.get("SKILLTOOL_DEBUG") or "--debug" in sys.argv:
                raise
            sys.stderr.write(
                f"skilltool: error: {type(err).__name__}: {err} (run with --debug for details)\n"
            )
            sys.exit(1)
        if code == INTERRUPTED and not INTERRUPTION_SAID[0]:
            sys.stderr.write("skilltool: interrupted\n")
        _done()
        sys.exit(code)
    finally:
        gc.freeze()


def _done() -> None:
    """The run is over: a Ctrl-C now has nothing left to stop. Ignored, rather than left to
    the default handler Python puts back while it exits, which would end the process as
    killed by the signal instead of with the run's own exit code."""
    import signal

    with contextlib.suppress(ValueError):  # not the main thread: nothing to set
        signal.signal(signal.SIGINT, signal.SIG_IGN)
