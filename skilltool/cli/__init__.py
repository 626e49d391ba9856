"""The command line: parses options, calls one command function of `commands/`, prints its
result or its error through `run` (or `main`), which decides the exit code.

Every command is named in one table here and declared in the module of its family
(`cli/install.py`, `cli/sources.py`, `cli/tools.py`); a run imports and builds only the
command it invokes (`register`), so that a command's start-up does not pay for the
declarations of the other twenty."""

# no `from __future__ import annotations` in cli/: typer would eval every string annotation
# of a command it builds (twice, its Option objects included); real objects cost less
import contextlib
import gc
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, NoReturn

import typer
import typer.core

from skilltool import __version__
from skilltool.errors import INTERRUPTED
from skilltool.harnesses import NAMES

if TYPE_CHECKING:
    from skilltool.commands.common import Options
    from skilltool.report import Result, Verbosity


class Commands(typer.core.TyperGroup):
    """The top-level group: 'skills' is another name for 'plugins'.

    Resolved here rather than registered twice, so the commands are built once per run.
    """

    aliases: ClassVar[dict[str, str]] = {"skills": "plugins"}

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        return super().get_command(ctx, self.aliases.get(cmd_name, cmd_name))

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        word = args[0] if args else ""
        # `skilltool install`: the word of a command of `plugins`, said without it
        if word in PLUGINS_WORDS and self.get_command(ctx, word) is None:
            ctx.fail(f"No such command {word!r}; did you mean '{ctx.command_path} plugins {word}'?")
        return super().resolve_command(ctx, args)

    def main(self, args: Any = None, *rest: Any, **options: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        return super().main(project_value(argv), *rest, **options)


class Command(typer.core.TyperCommand):
    """A command whose usage line names each argument as its help does: `SOURCE`, where
    typer would write a required one `{SOURCE}`."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            named = param.metavar if param.param_type_name == "argument" else None
            pieces += [named] if named else param.get_usage_pieces(ctx)
        return pieces


app = typer.Typer(
    cls=Commands,
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Link Agent Skills and render agents for every coding-agent harness; "
    "never touch a file skilltool did not write.",
)
plugins_app = typer.Typer(no_args_is_help=True)
app.add_typer(plugins_app, name="plugins")

HomeOpt = Annotated[
    str | None,
    typer.Option(
        "--home",
        metavar="PATH",
        help="Act on this home directory instead of $HOME.",
        show_default=False,
    ),
]
ProjectOpt = Annotated[
    str | None,
    typer.Option(
        "--project",
        metavar="[DIR]",
        help="Act on a project: the repository of the working directory, or DIR "
        "(default: the project the working directory is in, else the home).",
        show_default=False,
    ),
]
UserOpt = Annotated[bool, typer.Option("--user", help="Act on the home, even inside a project.")]
DirOpt = Annotated[
    str | None,
    typer.Option("--dir", metavar="PATH", help="Skills directory (default: ~/.agents/skills)."),
]
DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="Say what would happen; touch nothing.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable report on stdout.")]
NamespaceOpt = Annotated[
    str | None,
    typer.Option(
        "--namespace",
        help="Directory name under the data dirs (default: skilltool).",
        envvar="SKILLTOOL_NAMESPACE",
    ),
]
HARNESS_LIST = ", ".join(NAMES)


def _harness_name(value: str | None) -> str | None:
    if value is not None and value not in NAMES:
        raise typer.BadParameter(f"{value!r} is not a harness; use one of {HARNESS_LIST}")
    return value


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"skilltool {__version__}\n")
        raise typer.Exit()


VersionOpt = Annotated[
    bool,
    typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
]
OnlyOpt = Annotated[
    str | None,
    typer.Option(
        "--only",
        metavar="HARNESS",
        callback=_harness_name,
        help=f"Act for this harness only, and leave the skills alone ({HARNESS_LIST}).",
    ),
]
VerboseOpt = Annotated[
    bool, typer.Option("--verbose", "-v", help="Also show every item that is unchanged.")
]
QuietOpt = Annotated[
    bool, typer.Option("--quiet", "-q", help="Show only problems and the summary line.")
]
StrictOpt = Annotated[
    bool,
    typer.Option(
        "--strict",
        help="Exit 1 on an error in a plugin fetched from a URL too (skipped all the same).",
    ),
]
DiffOpt = Annotated[
    bool,
    typer.Option("--diff", help="Show a diff of every rendering that is outdated or edited."),
]


def options(
    home: str | None,
    skills_dir: str | None = None,
    dry_run: bool = False,
    json: bool = False,
    namespace: str | None = None,
    force: bool = False,
    only: str | None = None,
    verbose: bool = False,
    quiet: bool = False,
    diff: bool = False,
    prune: bool = False,
    project: str | None = None,
    user: bool = False,
    yes: bool = False,
    strict: bool = False,
) -> "Options":
    from skilltool.commands.common import Options

    verbosity: Verbosity = "verbose" if verbose else "quiet" if quiet else "normal"
    return Options(
        home,
        skills_dir,
        dry_run,
        json,
        namespace,
        force,
        only,
        verbosity,
        diff,
        prune,
        project,
        user,
        yes,
        strict,
    )


def run(command: str, as_json: bool, call: Callable[[], "Result"]) -> NoReturn:
    """Run one command and print its result or its error: exit codes are decided here."""
    from skilltool import report
    from skilltool.errors import SkilltoolError

    if not gc.isenabled():  # paused by `main`: start-up is over
        gc.freeze()  # what start-up made lives to the end: no collection need walk it again
        gc.enable()
    try:
        try:
            result = call()
        except SkilltoolError as err:
            with _reader_gone(err.exit_code):
                raise typer.Exit(report.emit_error(command, err, as_json)) from None
        _INTERRUPTION_SAID[0] = result.code == INTERRUPTED  # the result says how far it got
        with _reader_gone(result.code):
            raise typer.Exit(report.emit(command, result, as_json))
    except KeyboardInterrupt:  # where it landed (typer would exit 130 and say nothing)
        with _reader_gone(INTERRUPTED):
            report.write_lines(["skilltool: interrupted"], sys.stderr)
        _INTERRUPTION_SAID[0] = True
        raise typer.Exit(INTERRUPTED) from None


# whether the run said it was interrupted: a Ctrl-C before `run` (while typer parses, or a
# command imports its modules) is typer's silent exit 130, which `_main` then says
_INTERRUPTION_SAID = [False]


@contextlib.contextmanager
def _reader_gone(code: int) -> Iterator[None]:
    """`skilltool plugins status | head -1`: a reader that stopped reading is no failure, and
    is not told. The command's own exit code stands."""
    try:
        yield
    except BrokenPipeError:
        # what is still buffered goes nowhere, so that the flush at exit fails on nothing
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.dup2(devnull, sys.stderr.fileno())
        os.close(devnull)
        raise typer.Exit(code) from None


@app.callback()
def main_options(
    version: VersionOpt = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show a traceback on failure.")] = False,
) -> None:
    if debug:
        os.environ["SKILLTOOL_DEBUG"] = "1"


@plugins_app.callback()
def plugins_options(version: VersionOpt = False) -> None:
    """Find, check, install and remove plugins (also: 'skills')."""


HarnessOpt = Annotated[
    str,
    typer.Option("--harness", metavar="HARNESS", callback=_harness_name, help=HARNESS_LIST + "."),
]
AgentArg = Annotated[str, typer.Argument(metavar="AGENT", help="The agent's name.")]


# the parser's own error type (click's, vendored by newer typer): a usage error
ParserError: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"
)


def _usage_error(err: Any) -> int:
    """A usage error found by the parser: as click words it, or as a JSON error object."""
    code = int(getattr(err, "exit_code", 2))
    if "--json" not in sys.argv[1:]:
        err.show()
        return code
    from skilltool import report
    from skilltool.errors import UsageError

    command = next((a for a in sys.argv[1:] if a in COMMAND_WORDS), "skilltool")
    failure = UsageError(err.format_message())
    failure.exit_code = code
    return report.emit_error(command, failure, as_json=True)


# every command, in the order `--help` lists them: (group, word, the module of cli/ that
# declares it as `<word>_command`). A run imports and builds only the one it invokes.
TABLE: tuple[tuple[typer.Typer, str, str], ...] = (
    (plugins_app, "status", "install"),
    (plugins_app, "list", "install"),
    (plugins_app, "install", "install"),
    (plugins_app, "uninstall", "install"),
    (plugins_app, "check", "install"),
    (plugins_app, "validate", "install"),
    (plugins_app, "render", "install"),
    (plugins_app, "launch", "install"),
    (plugins_app, "add", "sources"),
    (plugins_app, "update", "sources"),
    (plugins_app, "remove", "sources"),
    (plugins_app, "sync", "sources"),
    (plugins_app, "approve", "sources"),
    (plugins_app, "configure", "sources"),
    (plugins_app, "disable", "sources"),
    (plugins_app, "enable", "sources"),
    (plugins_app, "new", "sources"),
    (plugins_app, "search", "sources"),
    (app, "doctor", "tools"),
    (app, "acp", "tools"),
    (app, "package", "tools"),
)
COMMAND_WORDS = tuple(word for _, word, _ in TABLE)
PLUGINS_WORDS = tuple(word for group, word, _ in TABLE if group is plugins_app)


def declared(family: str, word: str) -> Callable[..., None]:
    """The function that declares a command, from the module of its family."""
    import importlib

    found: Callable[..., None] = getattr(
        importlib.import_module(f"skilltool.cli.{family}"), f"{word}_command"
    )
    return found


def register(argv: list[str]) -> None:
    """Declare to typer the commands a run of `argv` may invoke: the one it names, or every
    one (for help, completion, and a word that names none, for click's "No such command"
    and its hint). Typer builds every command it has on each start (their signatures, their
    options), and the module of each is imported to declare it."""
    words = [a for a in argv if not a.startswith("-")]  # no option before a command takes a value
    chosen = COMMAND_WORDS
    completion = True
    if any(a in ("--help", "-h") for a in argv) or any(v.endswith("_COMPLETE") for v in os.environ):
        pass
    elif not words and "--version" in argv:  # answered by the top-level callback alone
        chosen = ()
    elif words[:1] in (["package"], ["doctor"], ["acp"]):
        chosen = (words[0],)
    elif words[:1] in (["plugins"], ["skills"]) and words[1:2] and words[1] in PLUGINS_WORDS:
        chosen = (words[1],)  # not `package` and `doctor`, whose options cost as much
        completion = argv[0] != words[0]  # a top-level option given: completion's two may be
    for group in (app, plugins_app):
        group.registered_commands = []
    for group, word, family in TABLE:
        if word in chosen:
            group.command(word, cls=Command)(declared(family, word))
    app._add_completion = completion


def main() -> None:
    """Entry point: the collector paused until the command runs, and nothing left for the
    collection at exit to walk (it would take longer than building the command)."""
    gc.disable()
    try:
        _main()
    finally:
        gc.freeze()


def project_value(argv: list[str]) -> list[str]:
    """`--project` takes a value only when one is there: the next word, when it names a
    folder (`--project DIR`); alone, it names the repository of the working directory."""
    if "--project" not in argv:
        return argv
    out: list[str] = []
    words = iter(argv)
    for word in words:
        if word == "--":
            out += [word, *words]
            break
        if word != "--project":
            out.append(word)
            continue
        following = next(words, None)
        if following is not None and not following.startswith("-") and os.path.isdir(following):
            out.append(f"--project={following}")
            continue
        out.append("--project=")
        if following is not None:
            out.append(following)
    return out


def _main() -> NoReturn:
    """No traceback reaches the user unless --debug asks for one."""
    try:
        register(sys.argv[1:])
        code = app(standalone_mode=False)
    except ParserError as err:
        sys.exit(_usage_error(err))
    except (typer.Abort, KeyboardInterrupt):
        code = INTERRUPTED
    except Exception as err:  # the last line of defence: one line, exit 1
        if os.environ.get("SKILLTOOL_DEBUG") or "--debug" in sys.argv:
            raise
        sys.stderr.write(
            f"skilltool: error: {type(err).__name__}: {err} (run with --debug for details)\n"
        )
        sys.exit(1)
    if code == INTERRUPTED and not _INTERRUPTION_SAID[0]:
        sys.stderr.write("skilltool: interrupted\n")
    _done()
    sys.exit(code if isinstance(code, int) else 0)


def _done() -> None:
    """The run is over: a Ctrl-C now has nothing left to stop. Ignored, rather than left to
    the default handler Python puts back while it exits, which would end the process as
    killed by the signal instead of with the run's own exit code."""
    import signal

    with contextlib.suppress(ValueError):  # not the main thread: nothing to set
        signal.signal(signal.SIGINT, signal.SIG_IGN)
