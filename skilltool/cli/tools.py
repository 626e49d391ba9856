"""The top-level commands, declared for typer: doctor, acp and package."""

# no `from __future__ import annotations`: see skilltool/cli/__init__.py
import sys
from typing import Annotated

import typer

from skilltool.cli import (
    AgentArg,
    DryRunOpt,
    HarnessOpt,
    HomeOpt,
    JsonOpt,
    NamespaceOpt,
    ProjectOpt,
    VersionOpt,
    run,
)
from skilltool.commands.common import options
from skilltool.harnesses import NAMES


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
    opts = options(home, None, False, json, namespace)
    run("doctor", json, lambda: family.doctor(opts, harness, item))


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
        opts = options(home, namespace=namespace, project=project)
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

    opts = options(None, None, dry_run, json, namespace)
    run("package", json, lambda: family.package(sources, destdir, prefix, strict, opts))
