"""What every command shares: the options it was given, the scope they name, and the
harnesses it acts for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skilltool import paths, report
from skilltool.record import NamedTuple

if TYPE_CHECKING:
    from skilltool.harnesses import Harness


class Options(NamedTuple):
    """The options every command that touches files takes."""

    home: str | None = None
    skills_dir: str | None = None
    dry_run: bool = False
    json: bool = False
    namespace: str | None = None
    force: bool = False
    only: str | None = None
    verbosity: report.Verbosity = "normal"
    diff: bool = False
    prune: bool = False  # what came from a folder that holds nothing or cannot be read goes
    project: str | None = None  # --project: "" the current repository's, else a folder
    user: bool = False  # --user: the home, even inside a project
    yes: bool = False  # --yes: approve what a fetched source runs, as shown
    strict: bool = False  # --strict: an error in an added plugin fails the run too

    @property
    def where(self) -> paths.Scope:
        """The scope the run acts on: `--user` or `--home` (without `--project`) the home;
        else the project `--project` names (alone: the repository of the working directory),
        else the project the working directory is in, else the home. A path named that is
        not there stops the run here."""
        import os
        from pathlib import Path

        from skilltool.errors import UsageError

        if self.user and self.project is not None:
            raise UsageError("--project and --user name two scopes; give one of them")
        root = None
        if self.project is None and not self.user and self.home is None:
            root = paths.find_project(Path(os.getcwd()))
        if self.project is None and root is None:  # the usual run: nothing of a project read
            return paths.Home.resolve(self.home, self.namespace, self.skills_dir)
        if self.skills_dir is not None:
            raise UsageError(
                "--dir names a home's skills dir; a project's is its .agents/skills: "
                "leave out --dir, or give --user"
            )
        from skilltool import project

        if self.project:
            root = paths.named_directory(self.project, "--project")
        elif root is None:
            root = project.current_repository()
        return project.opened(root, self.namespace)

    @property
    def user_home(self) -> paths.Home:
        """The home of the person running it (`--home`, else theirs), whatever the scope."""
        return paths.Home.resolve(self.home, self.namespace)


def options(
    home: str | None = None,
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
) -> Options:
    verbosity: report.Verbosity = "verbose" if verbose else "quiet" if quiet else "normal"
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


def home_lines(home: paths.Scope) -> list[str]:
    """The first line of a report: the scope the run acts on."""
    return [home.line()]


def harnesses(home: paths.Scope, only: str | None) -> list[Harness]:
    from skilltool.harnesses import harnesses

    return harnesses(home, only)
