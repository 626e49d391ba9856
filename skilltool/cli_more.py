"""The commands a run rarely invokes, registered on `cli`'s apps only when a run needs them:
`--help`, completion, or the command itself (`cli.everything`). Their signatures and
options cost as much to declare as typer takes to build the one command invoked."""

# no `from __future__ import annotations` here: see cli.py
from typing import Annotated

import typer

from skilltool.cli import (
    HARNESS_LIST,
    DirOpt,
    DryRunOpt,
    HomeOpt,
    JsonOpt,
    NamespaceOpt,
    OnlyOpt,
    QuietOpt,
    VerboseOpt,
    VersionOpt,
    _app,
    _harness_name,
    _options,
    _run,
    plugins_app,
)

HarnessOpt = Annotated[
    str,
    typer.Option("--harness", metavar="HARNESS", callback=_harness_name, help=HARNESS_LIST + "."),
]
AgentArg = Annotated[str, typer.Argument(metavar="AGENT", help="The agent's name.")]


@plugins_app.command("uninstall")
def uninstall_command(
    home: HomeOpt = None,
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
    verbose: VerboseOpt = False,
    quiet: QuietOpt = False,
    version: VersionOpt = False,
) -> None:
    """Remove only what skilltool made: its links and its unedited renderings."""
    from skilltool import commands  # imported only when a command runs

    opts = _options(home, skills_dir, dry_run, json, namespace, force, only, verbose, quiet)
    _run("uninstall", json, lambda: commands.uninstall(opts))


@plugins_app.command("validate")
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
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    version: VersionOpt = False,
) -> None:
    """Check plugins against the rules; exit 1 on any error."""
    from skilltool import commands_more as commands  # imported only when a command runs

    opts = _options(home, None, False, json, namespace)
    _run("validate", json, lambda: commands.validate(list(targets or []), strict, opts))


@plugins_app.command("render")
def render_command(
    agent: AgentArg,
    harness: HarnessOpt,
    home: HomeOpt = None,
    skills_dir: DirOpt = None,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    version: VersionOpt = False,
) -> None:
    """Print an agent's rendering for a harness (a slash command's with /NAME); write nothing."""
    from skilltool import commands_more as commands  # imported only when a command runs

    opts = _options(home, skills_dir, json=json, namespace=namespace)
    _run("render", json, lambda: commands.render(agent, harness, opts))


@plugins_app.command("launch")
def launch_command(
    agent: AgentArg,
    harness: HarnessOpt,
    home: HomeOpt = None,
    skills_dir: DirOpt = None,
    json: JsonOpt = False,
    namespace: NamespaceOpt = None,
    version: VersionOpt = False,
) -> None:
    """Print how to start a harness as the agent over ACP: command, env, agents.toml block."""
    from skilltool import commands_more as commands  # imported only when a command runs

    opts = _options(home, skills_dir, json=json, namespace=namespace)
    _run("launch", json, lambda: commands.launch(agent, harness, opts))


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
    verbose: VerboseOpt = False,
    quiet: QuietOpt = False,
    version: VersionOpt = False,
) -> None:
    """Bring plugins in from git, a marketplace or a local path, pin them, then install."""
    from skilltool import commands_more as commands  # imported only when a command runs

    opts = _options(home, skills_dir, dry_run, json, namespace, verbose=verbose, quiet=quiet)
    plugins = list(plugin or [])
    _run(
        "add", json, lambda: commands.plugins_add(opts, source, ref, plugins, name, not no_install)
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
    verbose: VerboseOpt = False,
    quiet: QuietOpt = False,
    version: VersionOpt = False,
) -> None:
    """Move added sources to the newest commit of their ref, then install."""
    from skilltool import commands_more as commands  # imported only when a command runs

    opts = _options(home, skills_dir, dry_run, json, namespace, force, verbose=verbose, quiet=quiet)
    _run("update", json, lambda: commands.plugins_update(opts, list(names or []), check))


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
    verbose: VerboseOpt = False,
    quiet: QuietOpt = False,
    version: VersionOpt = False,
) -> None:
    """Remove a source skilltool added, and prune what came from it."""
    from skilltool import commands_more as commands  # imported only when a command runs

    opts = _options(home, skills_dir, dry_run, json, namespace, force, verbose=verbose, quiet=quiet)
    _run("remove", json, lambda: commands.plugins_remove(opts, name))


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
    verbose: VerboseOpt = False,
    quiet: QuietOpt = False,
    version: VersionOpt = False,
) -> None:
    """Make this home match the lockfile: the same sources at the same commits."""
    from skilltool import commands_more as commands  # imported only when a command runs

    opts = _options(home, skills_dir, dry_run, json, namespace, verbose=verbose, quiet=quiet)
    _run("sync", json, lambda: commands.plugins_sync(opts, frozen))


@_app.command("package")
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
    from skilltool import commands_more as commands  # imported only when a command runs

    opts = _options(None, None, dry_run, json, namespace)
    _run("package", json, lambda: commands.package(sources, destdir, prefix, strict, opts))
