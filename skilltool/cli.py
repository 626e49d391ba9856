"""The command line: parses options, calls one command function of `commands/`, prints its
result or its error through `report`, and exits with the code decided in `_run` (or `main`).

Every command is declared here and registered from one table; a run builds and imports only
the command it invokes."""

# no `from __future__ import annotations` here: typer would eval every string annotation
# of every command (its Option objects included) on each start; real objects cost nothing
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
    from skilltool.settings import Kind


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


def _options(
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


def _run(command: str, as_json: bool, call: Callable[[], "Result"]) -> NoReturn:
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


# whether the run said it was interrupted: a Ctrl-C before `_run` (while typer parses, or a
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


def status_command(
    names: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[NAME]...",
            help="Only these plugins, each with every item (default: all, one line each).",
            show_default=False,
        ),
    ] = None,
    home: HomeOpt = None,
    project: ProjectOpt = None,
    user: UserOpt = False,
    skills_dir: DirOpt = None,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    only: OnlyOpt = None,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Also show every skill, agent, command, server and hook of each plugin.",
        ),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            help="Show only what needs you (problems, what install would do); "
            "nothing when all is current.",
        ),
    ] = False,
    version: VersionOpt = False,
) -> None:
    """Plugins found, one line each: what each carries and how it stands, and what 'install'
    would do."""
    from skilltool.commands import install as family

    opts = _options(
        home,
        skills_dir,
        False,
        json,
        namespace,
        only=only,
        verbose=verbose,
        quiet=quiet,
        project=project,
        user=user,
    )
    _run("status", json, lambda: family.status(opts, list(names or [])))


def list_command(
    home: HomeOpt = None,
    project: ProjectOpt = None,
    user: UserOpt = False,
    skills_dir: DirOpt = None,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    only: OnlyOpt = None,
    version: VersionOpt = False,
) -> None:
    """One line per plugin: where it comes from, what it carries, how it stands."""
    from skilltool.commands import install as family

    opts = _options(home, skills_dir, False, json, namespace, only=only, project=project, user=user)
    _run("list", json, lambda: family.plugins_list(opts))


def install_command(
    home: HomeOpt = None,
    project: ProjectOpt = None,
    user: UserOpt = False,
    skills_dir: DirOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    only: OnlyOpt = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Also replace renderings edited by hand (a copy is kept beside them)."
        ),
    ] = False,
    diff: DiffOpt = False,
    prune: Annotated[
        bool,
        typer.Option(
            "--prune",
            help="Also remove what came from a plugin folder that holds nothing now or cannot "
            "be read (kept otherwise: a disk not mounted is no evidence).",
        ),
    ] = False,
    strict: StrictOpt = False,
    verbose: VerboseOpt = False,
    quiet: QuietOpt = False,
    version: VersionOpt = False,
) -> None:
    """Link every skill, then render every agent for every harness present."""
    from skilltool.commands import install as family

    opts = _options(
        home,
        skills_dir,
        dry_run,
        json,
        namespace,
        force,
        only,
        verbose,
        quiet,
        diff,
        prune,
        project=project,
        user=user,
        strict=strict,
    )
    _run("install", json, lambda: family.install(opts))


def check_command(
    home: HomeOpt = None,
    project: ProjectOpt = None,
    user: UserOpt = False,
    skills_dir: DirOpt = None,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    only: OnlyOpt = None,
    version: VersionOpt = False,
) -> None:
    """Exit 1 with the diff of what 'install' would change; 0 when everything is current
    (for CI and pre-commit)."""
    from skilltool.commands import install as family

    opts = _options(home, skills_dir, False, json, namespace, only=only, project=project, user=user)
    _run("check", json, lambda: family.check(opts))


HarnessOpt = Annotated[
    str,
    typer.Option("--harness", metavar="HARNESS", callback=_harness_name, help=HARNESS_LIST + "."),
]
AgentArg = Annotated[str, typer.Argument(metavar="AGENT", help="The agent's name.")]


def uninstall_command(
    home: HomeOpt = None,
    project: ProjectOpt = None,
    user: UserOpt = False,
    skills_dir: DirOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    only: OnlyOpt = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Also remove renderings edited by hand (a copy is kept beside them)."
        ),
    ] = False,
    purge: Annotated[
        bool,
        typer.Option(
            "--purge",
            help="Then remove skilltool's own data too: the checkouts of added sources, its "
            "caches, its state (not plugins.lock, nor your plugins folder).",
        ),
    ] = False,
    verbose: VerboseOpt = False,
    quiet: QuietOpt = False,
    version: VersionOpt = False,
) -> None:
    """Remove only what skilltool made: its links and its unedited renderings."""
    from skilltool.commands import install as family

    opts = _options(
        home,
        skills_dir,
        dry_run,
        json,
        namespace,
        force,
        only,
        verbose,
        quiet,
        project=project,
        user=user,
    )
    _run("uninstall", json, lambda: family.uninstall(opts, purge))


def validate_command(
    targets: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[PATH]...",
            help="Plugins, or directories of plugins (default: the search path).",
            show_default=False,
        ),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Treat warnings as errors.")] = False,
    home: HomeOpt = None,
    project: ProjectOpt = None,
    user: UserOpt = False,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    version: VersionOpt = False,
) -> None:
    """Check plugins against the rules; exit 1 on any error."""
    from skilltool.commands import validate as family

    opts = _options(home, None, False, json, namespace, project=project, user=user)
    _run("validate", json, lambda: family.validate(list(targets or []), strict, opts))


def render_command(
    agent: AgentArg,
    harness: HarnessOpt,
    home: HomeOpt = None,
    project: ProjectOpt = None,
    user: UserOpt = False,
    skills_dir: DirOpt = None,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    version: VersionOpt = False,
) -> None:
    """Print an agent's rendering for a harness (a slash command's with /NAME); write nothing."""
    from skilltool.commands import render as family

    opts = _options(home, skills_dir, json=json, namespace=namespace, project=project, user=user)
    _run("render", json, lambda: family.render(agent, harness, opts))


def launch_command(
    agent: AgentArg,
    harness: HarnessOpt,
    host: Annotated[
        str | None,
        typer.Option(
            "--for",
            metavar="HOST",
            help="agentd, otto, zed, jetbrains or json: the entry for that ACP host's "
            "configuration, through 'skilltool acp' where a plain command would not do.",
        ),
    ] = None,
    roots: Annotated[
        list[str] | None,
        typer.Option(
            "--root",
            metavar="DIR",
            help="agentd: a folder a session's working directory may lie under (repeatable; "
            "the current project by default).",
        ),
    ] = None,
    policy: Annotated[
        str,
        typer.Option("--policy", help="agentd: ask (the default) or allow_once."),
    ] = "ask",
    home: HomeOpt = None,
    project: ProjectOpt = None,
    user: UserOpt = False,
    skills_dir: DirOpt = None,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    version: VersionOpt = False,
) -> None:
    """Print how to start a harness as the agent over ACP: command, env, agents.toml block."""
    from skilltool.commands import render as family

    if host is not None and host not in family.HOSTS:
        raise typer.BadParameter(
            f"{host!r} is not a host skilltool knows; one of {', '.join(family.HOSTS)}"
        )
    if policy not in ("ask", "allow_once"):
        raise typer.BadParameter(f"{policy!r}: agentd's policy is ask or allow_once")
    opts = _options(home, skills_dir, json=json, namespace=namespace, project=project, user=user)
    agentd = family.AgentdSettings(tuple(roots or ()), policy)
    _run("launch", json, lambda: family.launch(agent, harness, opts, host, agentd))


YesOpt = Annotated[
    bool,
    typer.Option("--yes", help="Approve what a fetched plugin has harnesses run, as shown."),
]
ConfigOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--config",
        metavar="KEY=VALUE",
        help="A value for a plugin's option (userConfig), kept in your settings (repeatable).",
        show_default=False,
    ),
]
RefOpt = Annotated[str | None, typer.Option("--ref", help="A branch, a tag or a full commit id.")]
PluginOpt = Annotated[
    list[str] | None,
    typer.Option("--plugin", metavar="NAME", help="Only this plugin of the source (repeatable)."),
]
SkillOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--skill",
        metavar="NAME",
        help="Only this skill of the source, without the rest of its plugin (repeatable).",
    ),
]


def add_command(
    source: Annotated[
        str,
        typer.Argument(
            metavar="SOURCE",
            help="A git URL, owner/repo[/dir], a local path, or PLUGIN@MARKETPLACE.",
        ),
    ],
    ref: RefOpt = None,
    plugin: PluginOpt = None,
    skill: SkillOpt = None,
    name: Annotated[
        str | None, typer.Option("--name", help="Name the source (default: the repository's).")
    ] = None,
    all_of_it: Annotated[
        bool,
        typer.Option("--all", help="Every plugin of a marketplace (default: the ones you pick)."),
    ] = False,
    no_install: Annotated[
        bool, typer.Option("--no-install", help="Record the source; do not install.")
    ] = False,
    config: ConfigOpt = None,
    home: HomeOpt = None,
    project: ProjectOpt = None,
    user: UserOpt = False,
    skills_dir: DirOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    yes: YesOpt = False,
    strict: StrictOpt = False,
    verbose: VerboseOpt = False,
    quiet: QuietOpt = False,
    version: VersionOpt = False,
) -> None:
    """Bring plugins in from git, a marketplace or a local path, pin them, then install."""
    from skilltool.commands import sources as family

    opts = _options(
        home,
        skills_dir,
        dry_run,
        json,
        namespace,
        verbose=verbose,
        quiet=quiet,
        project=project,
        user=user,
        yes=yes,
        strict=strict,
    )
    plugins, skills = list(plugin or []), list(skill or [])
    _run(
        "add",
        json,
        lambda: family.plugins_add(
            opts, source, ref, plugins, name, not no_install, all_of_it, skills, config or []
        ),
    )


def update_command(
    names: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[NAME]...", help="Sources to update (default: all).", show_default=False
        ),
    ] = None,
    check: Annotated[
        bool, typer.Option("--check", help="Write nothing; exit 1 when a source is outdated.")
    ] = False,
    home: HomeOpt = None,
    project: ProjectOpt = None,
    user: UserOpt = False,
    skills_dir: DirOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    force: Annotated[
        bool, typer.Option("--force", help="Discard local changes in a checkout.")
    ] = False,
    yes: YesOpt = False,
    strict: StrictOpt = False,
    verbose: VerboseOpt = False,
    quiet: QuietOpt = False,
    version: VersionOpt = False,
) -> None:
    """Move added sources to the newest commit of their ref, then install."""
    from skilltool.commands import sources as family

    opts = _options(
        home,
        skills_dir,
        dry_run,
        json,
        namespace,
        force,
        verbose=verbose,
        quiet=quiet,
        project=project,
        user=user,
        yes=yes,
        strict=strict,
    )
    _run("update", json, lambda: family.plugins_update(opts, list(names or []), check))


def remove_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="A source (or plugin) added.")],
    home: HomeOpt = None,
    project: ProjectOpt = None,
    user: UserOpt = False,
    skills_dir: DirOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    force: Annotated[
        bool, typer.Option("--force", help="Remove a checkout that has local changes.")
    ] = False,
    strict: StrictOpt = False,
    verbose: VerboseOpt = False,
    quiet: QuietOpt = False,
    version: VersionOpt = False,
) -> None:
    """Remove a source skilltool added, and prune what came from it."""
    from skilltool.commands import sources as family

    opts = _options(
        home,
        skills_dir,
        dry_run,
        json,
        namespace,
        force,
        verbose=verbose,
        quiet=quiet,
        project=project,
        user=user,
        strict=strict,
    )
    _run("remove", json, lambda: family.plugins_remove(opts, name))


def sync_command(
    frozen: Annotated[
        bool, typer.Option("--frozen", help="Resolve nothing anew: fail instead.")
    ] = False,
    home: HomeOpt = None,
    project: ProjectOpt = None,
    user: UserOpt = False,
    skills_dir: DirOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    strict: StrictOpt = False,
    verbose: VerboseOpt = False,
    quiet: QuietOpt = False,
    version: VersionOpt = False,
) -> None:
    """Make this home match the lockfile: the same sources at the same commits."""
    from skilltool.commands import sources as family

    opts = _options(
        home,
        skills_dir,
        dry_run,
        json,
        namespace,
        verbose=verbose,
        quiet=quiet,
        project=project,
        user=user,
        strict=strict,
    )
    _run("sync", json, lambda: family.plugins_sync(opts, frozen))


def approve_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="A source added from a URL.")],
    yes: YesOpt = False,
    config: ConfigOpt = None,
    home: HomeOpt = None,
    project: ProjectOpt = None,
    user: UserOpt = False,
    skills_dir: DirOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    strict: StrictOpt = False,
    version: VersionOpt = False,
) -> None:
    """Show what a fetched source has harnesses run, approve it, then install."""
    from skilltool.commands import sources as family

    opts = _options(
        home,
        skills_dir,
        dry_run,
        json,
        namespace,
        project=project,
        user=user,
        yes=yes,
        strict=strict,
    )
    _run("approve", json, lambda: family.plugins_approve(opts, name, config or []))


def configure_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="A plugin with options.")],
    values: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[KEY=VALUE]...",
            help="Values for its options (none, on a terminal: each is asked for).",
            show_default=False,
        ),
    ] = None,
    unset: Annotated[
        list[str] | None,
        typer.Option("--unset", metavar="KEY", help="Forget the value of an option (repeatable)."),
    ] = None,
    home: HomeOpt = None,
    project: ProjectOpt = None,
    user: UserOpt = False,
    skills_dir: DirOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    strict: StrictOpt = False,
    version: VersionOpt = False,
) -> None:
    """Give a plugin's options (userConfig) their values, kept in your settings, then install."""
    from skilltool.commands import sources as family

    opts = _options(
        home, skills_dir, dry_run, json, namespace, project=project, user=user, strict=strict
    )
    _run(
        "configure",
        json,
        lambda: family.plugins_configure(opts, name, values or [], unset or []),
    )


HarnessesOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--harness",
        metavar="HARNESS",
        help="Only in this harness (repeatable; default: every harness).",
        show_default=False,
    ),
]
SwitchedName = Annotated[
    str,
    typer.Argument(
        metavar="NAME", help="A plugin (or, with --skill or --agent, one skill or agent of one)."
    ),
]
SkillKindOpt = Annotated[
    bool, typer.Option("--skill", help="NAME is one skill of a plugin, not a plugin.")
]
AgentKindOpt = Annotated[
    bool, typer.Option("--agent", help="NAME is one agent of a plugin, not a plugin.")
]


def _switch(
    name: str,
    harness: list[str] | None,
    skill: bool,
    agent: bool,
    off: bool,
    given: tuple[str | None, str | None, bool, bool, bool, bool, str | None, bool],
) -> None:
    from skilltool.commands import sources as family

    if skill and agent:
        raise typer.BadParameter("give --skill or --agent, not both")
    kind: Kind | None = "skills" if skill else "agents" if agent else None
    home, project, user, dry_run, quiet, json, namespace, strict = given
    opts = _options(
        home, None, dry_run, json, namespace, quiet=quiet, project=project, user=user, strict=strict
    )
    command = "disable" if off else "enable"
    _run(command, json, lambda: family.plugins_switch(opts, name, kind, harness or [], off))


def _switch_command(off: bool, summary: str) -> Callable[..., None]:
    """`disable` (off) or `enable`: the same options, the one word apart."""

    def command(
        name: SwitchedName,
        harness: HarnessesOpt = None,
        skill: SkillKindOpt = False,
        agent: AgentKindOpt = False,
        home: HomeOpt = None,
        project: ProjectOpt = None,
        user: UserOpt = False,
        dry_run: DryRunOpt = False,
        quiet: QuietOpt = False,
        json: JsonOpt = False,
        namespace: NamespaceOpt = None,
        strict: StrictOpt = False,
        version: VersionOpt = False,
    ) -> None:
        given = (home, project, user, dry_run, quiet, json, namespace, strict)
        _switch(name, harness, skill, agent, off, given)

    command.__doc__ = summary
    return command


disable_command = _switch_command(
    True, "Turn a plugin, skill or agent off in some harnesses or all, then install."
)
enable_command = _switch_command(
    False, "Turn what disable turned off on again, in some harnesses or all, then install."
)


def new_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The plugin's name.")],
    skill: Annotated[
        list[str] | None,
        typer.Option("--skill", metavar="SKILL", help="Also a skill of this name (repeatable)."),
    ] = None,
    agent: Annotated[
        list[str] | None,
        typer.Option("--agent", metavar="AGENT", help="Also an agent of this name (repeatable)."),
    ] = None,
    into: Annotated[
        str | None,
        typer.Option(
            "--dir",
            metavar="PATH",
            help="Make it in PATH/NAME (default: your plugins folder, "
            "~/.local/share/skilltool/plugins).",
        ),
    ] = None,
    home: HomeOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    version: VersionOpt = False,
) -> None:
    """Make a plugin folder to start from: its manifest, and the skills and agents named;
    never written over (--skill or --agent add to a plugin of that name)."""
    from skilltool.commands import scaffold as family

    opts = _options(home, None, dry_run, json, namespace)
    _run(
        "new",
        json,
        lambda: family.new(name, list(skill or []), list(agent or []), into, opts),
    )


def search_command(
    words: Annotated[
        list[str],
        typer.Argument(
            metavar="WORD...",
            help="Words a plugin's name, description or keywords must all hold (any case).",
        ),
    ],
    home: HomeOpt = None,
    project: ProjectOpt = None,
    user: UserOpt = False,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    version: VersionOpt = False,
) -> None:
    """Search the catalogues of the marketplaces added, as they are on disk: no network."""
    from skilltool.commands import search as family

    opts = _options(home, None, False, json, namespace, project=project, user=user)
    _run("search", json, lambda: family.search(words, opts))


def doctor_command(
    harness: Annotated[
        str | None,
        typer.Argument(metavar="[HARNESS]", help="Ask only this harness.", show_default=False),
    ] = None,
    item: Annotated[
        str | None,
        typer.Option("--item", metavar="NAME", help="Only this skill or agent, in every harness."),
    ] = None,
    home: HomeOpt = None,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    version: VersionOpt = False,
) -> None:
    """Ask each harness set up here, through its own binary, whether it loads what skilltool
    installed, and say why not; nothing leaves the machine, nothing of yours changes."""
    from skilltool import doctor as family

    if harness is not None and harness not in NAMES:
        raise typer.BadParameter(f"{harness!r} is not a harness; one of {', '.join(NAMES)}")
    opts = _options(home, None, False, json, namespace)
    _run("doctor", json, lambda: family.doctor(opts, harness, item))


def acp_command(
    agent: AgentArg,
    harness: HarnessOpt,
    extra: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[-- ARGS]", help="More arguments for the ACP server.", show_default=False
        ),
    ] = None,
    home: HomeOpt = None,
    project: ProjectOpt = None,
    namespace: NamespaceOpt = None,
    version: VersionOpt = False,
) -> None:
    """Start the harness as the plugin's agent over ACP, as an ACP host runs it: one command
    line, no environment; a failure is one line on stderr, stdout is the agent's alone."""
    from skilltool import acp
    from skilltool.errors import SkilltoolError

    try:
        opts = _options(home, namespace=namespace, project=project)
        code = acp.start(agent, harness, extra or [], opts)
    except SkilltoolError as err:
        print(f"skilltool acp: {err.message}", file=sys.stderr, flush=True)
        raise typer.Exit(err.exit_code) from None
    raise typer.Exit(code)


def package_command(
    sources: Annotated[
        list[str], typer.Argument(metavar="SRC...", help="Plugin directories to stage.")
    ],
    destdir: Annotated[
        str, typer.Option("--destdir", help="The staging root ($DESTDIR, %{buildroot}, $pkgdir).")
    ],
    prefix: Annotated[str, typer.Option("--prefix", help="Installation prefix.")] = "/usr",
    strict: Annotated[bool, typer.Option("--strict", help="Fail on warnings too.")] = False,
    namespace: NamespaceOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
    version: VersionOpt = False,
) -> None:
    """Validate plugins strictly and stage them into DESTDIR/PREFIX/share/NAMESPACE/plugins."""
    from skilltool.commands import package as family

    opts = _options(None, None, dry_run, json, namespace)
    _run("package", json, lambda: family.package(sources, destdir, prefix, strict, opts))


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


# every command, in the order `--help` lists them: (group, word, declaration). A run builds
# only the one it invokes (`_build_only_invoked`), and imports only that one's module.
TABLE: tuple[tuple[typer.Typer, str, Callable[..., None]], ...] = (
    (plugins_app, "status", status_command),
    (plugins_app, "list", list_command),
    (plugins_app, "install", install_command),
    (plugins_app, "uninstall", uninstall_command),
    (plugins_app, "check", check_command),
    (plugins_app, "validate", validate_command),
    (plugins_app, "render", render_command),
    (plugins_app, "launch", launch_command),
    (plugins_app, "add", add_command),
    (plugins_app, "update", update_command),
    (plugins_app, "remove", remove_command),
    (plugins_app, "sync", sync_command),
    (plugins_app, "approve", approve_command),
    (plugins_app, "configure", configure_command),
    (plugins_app, "disable", disable_command),
    (plugins_app, "enable", enable_command),
    (plugins_app, "new", new_command),
    (plugins_app, "search", search_command),
    (app, "doctor", doctor_command),
    (app, "acp", acp_command),
    (app, "package", package_command),
)
COMMAND_WORDS = tuple(word for _, word, _ in TABLE)
PLUGINS_WORDS = tuple(word for group, word, _ in TABLE if group is plugins_app)
for _group, _word, _declared in TABLE:
    _group.command(_word, cls=Command)(_declared)


def _build_only_invoked(argv: list[str]) -> None:
    """Keep only the command this run invokes: typer builds every command it has (their
    signatures, their options) on each start. Help and completion see them all."""
    if any(a in ("--help", "-h") for a in argv) or any(v.endswith("_COMPLETE") for v in os.environ):
        return
    words = [a for a in argv if not a.startswith("-")]  # no option before a command takes a value
    if not words and "--version" in argv:  # answered by the top-level callback alone
        plugins_app.registered_commands = []
        app.registered_commands = []
        return
    if words[:1] in (["package"], ["doctor"], ["acp"]):
        plugins_app.registered_commands = []
        app.registered_commands = [c for c in app.registered_commands if c.name == words[0]]
    elif words[:1] in (["plugins"], ["skills"]) and len(words) > 1:
        named = [c for c in plugins_app.registered_commands if c.name == words[1]]
        if named:  # an unknown word keeps them all, for click's "No such command" and its hint
            plugins_app.registered_commands = named
            app.registered_commands = []  # `package` and `doctor`, whose options cost as much
            if argv[0] == words[0]:  # no top-level option given: completion's two are not needed
                app._add_completion = False


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
        _build_only_invoked(sys.argv[1:])
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
