"""The command line: parses options, calls one command function of `commands/`, prints its
result or its error through `run` (or `main`), which decides the exit code.

Every command is named in one table here and declared in the module of its family
(`cli/install.py`, `cli/sources.py`, `cli/tools.py`); a run imports and builds only the
command it invokes (`register`), so that a command's start-up does not pay for the
declarations of the other twenty."""

# no `from __future__ import annotations` in cli/: typer would eval every string annotation
# of a command it builds (twice, its Option objects included); real objects cost less
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, NoReturn

import typer
import typer.core

from skilltool import __version__, runs
from skilltool.errors import INTERRUPTED
from skilltool.harnesses import NAMES

if TYPE_CHECKING:
    from skilltool.report import Result


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


def run(command: str, as_json: bool, call: Callable[[], "Result"]) -> NoReturn:
    """Run one command and print its result or its error: exit codes are decided here."""
    raise typer.Exit(runs.finish(command, as_json, call))


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
TOP_WORDS = tuple(word for group, word, _ in TABLE if group is app)


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
    elif words[:1] and words[0] in TOP_WORDS:
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


def main() -> int:
    """Parse the command line and run the command it names: its exit code."""
    try:
        register(sys.argv[1:])
        code = app(standalone_mode=False)
    except ParserError as err:
        return _usage_error(err)
    except typer.Abort:
        return INTERRUPTED
    return code if isinstance(code, int) else 0


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
