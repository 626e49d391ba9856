"""The commands of the install family, declared for typer: status, list, install, uninstall,
check, validate, render and launch (their work is in `commands/`)."""

# no `from __future__ import annotations`: see skilltool/cli/__init__.py
from typing import Annotated

import typer

from skilltool.cli import (
    AgentArg,
    DiffOpt,
    DirOpt,
    DryRunOpt,
    HarnessOpt,
    HomeOpt,
    JsonOpt,
    NamespaceOpt,
    OnlyOpt,
    ProjectOpt,
    QuietOpt,
    StrictOpt,
    UserOpt,
    VerboseOpt,
    VersionOpt,
    run,
)
from skilltool.commands.common import options


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

    opts = options(
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
    run("status", json, lambda: family.status(opts, list(names or [])))


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

    opts = options(home, skills_dir, False, json, namespace, only=only, project=project, user=user)
    run("list", json, lambda: family.plugins_list(opts))


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

    opts = options(
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
    run("install", json, lambda: family.install(opts))


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

    opts = options(home, skills_dir, False, json, namespace, only=only, project=project, user=user)
    run("check", json, lambda: family.check(opts))


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

    opts = options(
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
    run("uninstall", json, lambda: family.uninstall(opts, purge))


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

    opts = options(home, None, False, json, namespace, project=project, user=user)
    run("validate", json, lambda: family.validate(list(targets or []), strict, opts))


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

    opts = options(home, skills_dir, json=json, namespace=namespace, project=project, user=user)
    run("render", json, lambda: family.render(agent, harness, opts))


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
    opts = options(home, skills_dir, json=json, namespace=namespace, project=project, user=user)
    agentd = family.AgentdSettings(tuple(roots or ()), policy)
    run("launch", json, lambda: family.launch(agent, harness, opts, host, agentd))
