"""The command line: parses options, calls one function of `commands`, exits with its code."""

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

import typer
import typer.core

from skilltool import __version__

if TYPE_CHECKING:
    from skilltool.commands import Options


class Commands(typer.core.TyperGroup):
    """The top-level group: 'skills' is another name for 'plugins'.

    Resolved here rather than registered twice, so the commands are built once per run.
    """

    aliases: ClassVar[dict[str, str]] = {"skills": "plugins"}

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        return super().get_command(ctx, self.aliases.get(cmd_name, cmd_name))


app = typer.Typer(
    cls=Commands,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Link Agent Skills and render agents for every coding-agent harness; "
    "never touch a file skilltool did not write.",
)
plugins_app = typer.Typer(
    no_args_is_help=True, help="Find, check, install and remove plugins (also: 'skills')."
)
app.add_typer(plugins_app, name="plugins")

HomeOpt = Annotated[
    Path | None,
    typer.Option("--home", help="Act on this home directory instead of $HOME."),
]
DirOpt = Annotated[
    Path | None,
    typer.Option("--dir", help="Skills directory (default: ~/.agents/skills)."),
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


def _harness_name(value: str | None) -> str | None:
    from skilltool.harnesses import NAMES

    if value is not None and value not in NAMES:
        raise typer.BadParameter(f"{value!r} is not a harness; use one of {', '.join(NAMES)}")
    return value


OnlyOpt = Annotated[
    str | None,
    typer.Option(
        "--only",
        metavar="HARNESS",
        callback=_harness_name,
        help="Render for this harness only, and leave the skills alone.",
    ),
]
ForceOpt = Annotated[
    bool, typer.Option("--force", help="Also replace or remove renderings edited by hand.")
]
HarnessOpt = Annotated[
    str,
    typer.Option(
        "--harness",
        metavar="HARNESS",
        callback=_harness_name,
        help="opencode, hermes, codex or pi.",
    ),
]
AgentArg = Annotated[str, typer.Argument(metavar="AGENT", help="The agent's name.")]


def _options(
    home: Path | None,
    skills_dir: Path | None = None,
    dry_run: bool = False,
    json: bool = False,
    namespace: str | None = None,
    force: bool = False,
    only: str | None = None,
) -> "Options":
    from skilltool.commands import Options

    return Options(home, skills_dir, dry_run, json, namespace, force, only)


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"skilltool {__version__}\n")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show a traceback on failure.")] = False,
) -> None:
    if debug:
        os.environ["SKILLTOOL_DEBUG"] = "1"


@plugins_app.command("status")
def status_command(
    home: HomeOpt = None,
    skills_dir: DirOpt = None,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
) -> None:
    """Plugins found, their skills and whether each is linked, and their agents."""
    from skilltool import commands  # imported only when a command runs

    raise typer.Exit(commands.status(_options(home, skills_dir, False, json, namespace)))


@plugins_app.command("install")
def install_command(
    home: HomeOpt = None,
    skills_dir: DirOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    only: OnlyOpt = None,
    force: ForceOpt = False,
) -> None:
    """Link every skill, then render every agent for every harness present."""
    from skilltool import commands  # imported only when a command runs

    opts = _options(home, skills_dir, dry_run, json, namespace, force, only)
    raise typer.Exit(commands.install(opts))


@plugins_app.command("uninstall")
def uninstall_command(
    home: HomeOpt = None,
    skills_dir: DirOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    only: OnlyOpt = None,
    force: ForceOpt = False,
) -> None:
    """Remove only what skilltool made: its links and its unedited renderings."""
    from skilltool import commands  # imported only when a command runs

    opts = _options(home, skills_dir, dry_run, json, namespace, force, only)
    raise typer.Exit(commands.uninstall(opts))


@plugins_app.command("validate")
def validate_command(
    targets: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="[PATH]...",
            help="Plugins, or directories of plugins (default: the search path).",
            show_default=False,
        ),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Treat warnings as errors.")] = False,
    home: HomeOpt = None,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
) -> None:
    """Check plugins against the rules; exit 1 on any error."""
    from skilltool import commands  # imported only when a command runs

    opts = _options(home, None, False, json, namespace)
    raise typer.Exit(commands.validate(list(targets or []), strict, opts))


@plugins_app.command("render")
def render_command(
    agent: AgentArg,
    harness: HarnessOpt,
    home: HomeOpt = None,
    skills_dir: DirOpt = None,
    namespace: NamespaceOpt = None,
) -> None:
    """Print an agent's rendering for a harness; write nothing."""
    from skilltool import commands  # imported only when a command runs

    raise typer.Exit(
        commands.render(agent, harness, _options(home, skills_dir, namespace=namespace))
    )


@plugins_app.command("launch")
def launch_command(
    agent: AgentArg,
    harness: HarnessOpt,
    home: HomeOpt = None,
    skills_dir: DirOpt = None,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
) -> None:
    """Print how to start a harness as the agent over ACP: command, env, agents.toml block."""
    from skilltool import commands  # imported only when a command runs

    opts = _options(home, skills_dir, json=json, namespace=namespace)
    raise typer.Exit(commands.launch(agent, harness, opts))


RefOpt = Annotated[str | None, typer.Option("--ref", help="A branch, a tag or a full commit id.")]
PluginOpt = Annotated[
    list[str] | None,
    typer.Option("--plugin", metavar="NAME", help="Only this plugin of the source (repeatable)."),
]


@plugins_app.command("add")
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
    name: Annotated[
        str | None, typer.Option("--name", help="Name the source (default: the repository's).")
    ] = None,
    no_install: Annotated[
        bool, typer.Option("--no-install", help="Record the source; do not install.")
    ] = False,
    home: HomeOpt = None,
    skills_dir: DirOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
) -> None:
    """Bring plugins in from git, a marketplace or a local path, pin them, then install."""
    from skilltool import commands  # imported only when a command runs

    opts = _options(home, skills_dir, dry_run, json, namespace)
    raise typer.Exit(
        commands.plugins_add(opts, source, ref, list(plugin or []), name, not no_install)
    )


@plugins_app.command("update")
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
    skills_dir: DirOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    force: Annotated[
        bool, typer.Option("--force", help="Discard local changes in a checkout.")
    ] = False,
) -> None:
    """Move added sources to the newest commit of their ref, then install."""
    from skilltool import commands  # imported only when a command runs

    opts = _options(home, skills_dir, dry_run, json, namespace, force)
    raise typer.Exit(commands.plugins_update(opts, list(names or []), check))


@plugins_app.command("remove")
def remove_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="A source (or plugin) added.")],
    home: HomeOpt = None,
    skills_dir: DirOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    force: Annotated[
        bool, typer.Option("--force", help="Remove a checkout that has local changes.")
    ] = False,
) -> None:
    """Remove a source skilltool added, and prune what came from it."""
    from skilltool import commands  # imported only when a command runs

    opts = _options(home, skills_dir, dry_run, json, namespace, force)
    raise typer.Exit(commands.plugins_remove(opts, name))


@plugins_app.command("sync")
def sync_command(
    frozen: Annotated[
        bool, typer.Option("--frozen", help="Resolve nothing anew: fail instead.")
    ] = False,
    home: HomeOpt = None,
    skills_dir: DirOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
) -> None:
    """Make this home match the lockfile: the same sources at the same commits."""
    from skilltool import commands  # imported only when a command runs

    opts = _options(home, skills_dir, dry_run, json, namespace)
    raise typer.Exit(commands.plugins_sync(opts, frozen))


@app.command("package")
def package_command(
    sources: Annotated[
        list[Path], typer.Argument(metavar="SRC...", help="Plugin directories to stage.")
    ],
    destdir: Annotated[
        Path, typer.Option("--destdir", help="The staging root ($DESTDIR, %{buildroot}, $pkgdir).")
    ],
    prefix: Annotated[str, typer.Option("--prefix", help="Installation prefix.")] = "/usr",
    strict: Annotated[bool, typer.Option("--strict", help="Fail on warnings too.")] = False,
    namespace: NamespaceOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
) -> None:
    """Validate plugins strictly and stage them into DESTDIR/PREFIX/share/NAMESPACE/plugins."""
    from skilltool import commands  # imported only when a command runs

    opts = _options(None, None, dry_run, json, namespace)
    raise typer.Exit(commands.package(sources, destdir, prefix, strict, opts))


def main() -> None:
    """Entry point: no traceback reaches the user unless --debug asks for one."""
    try:
        app()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.stderr.write("skilltool: interrupted\n")
        sys.exit(130)
    except Exception as err:  # the last line of defence: one line, exit 1
        if os.environ.get("SKILLTOOL_DEBUG") or "--debug" in sys.argv:
            raise
        sys.stderr.write(
            f"skilltool: error: {type(err).__name__}: {err} (run with --debug for details)\n"
        )
        sys.exit(1)
