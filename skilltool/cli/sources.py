"""The commands of the sources family, declared for typer: add, update, remove, sync, approve,
configure, disable, enable, new and search (their work is in `commands/`)."""

# no `from __future__ import annotations`: see skilltool/cli/__init__.py
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer

from skilltool.cli import (
    DirOpt,
    DryRunOpt,
    HomeOpt,
    JsonOpt,
    NamespaceOpt,
    ProjectOpt,
    QuietOpt,
    StrictOpt,
    UserOpt,
    VerboseOpt,
    VersionOpt,
    run,
)
from skilltool.commands.common import options

if TYPE_CHECKING:
    from skilltool.settings import Kind


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

    opts = options(
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
    run(
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

    opts = options(
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
    run("update", json, lambda: family.plugins_update(opts, list(names or []), check))


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

    opts = options(
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
    run("remove", json, lambda: family.plugins_remove(opts, name))


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

    opts = options(
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
    run("sync", json, lambda: family.plugins_sync(opts, frozen))


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

    opts = options(
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
    run("approve", json, lambda: family.plugins_approve(opts, name, config or []))


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

    opts = options(
        home, skills_dir, dry_run, json, namespace, project=project, user=user, strict=strict
    )
    run(
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
    opts = options(
        home, None, dry_run, json, namespace, quiet=quiet, project=project, user=user, strict=strict
    )
    command = "disable" if off else "enable"
    run(command, json, lambda: family.plugins_switch(opts, name, kind, harness or [], off))


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

    opts = options(home, None, dry_run, json, namespace)
    run(
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

    opts = options(home, None, False, json, namespace, project=project, user=user)
    run("search", json, lambda: family.search(words, opts))
