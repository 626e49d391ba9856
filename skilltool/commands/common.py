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

    @property
    def where(self) -> paths.Scope:
        """The scope the run acts on; a path named that is not there stops it here."""
        import os
        from pathlib import Path

        home = self.project is None and (
            self.user or self.home is not None or paths.find_project(Path(os.getcwd())) is None
        )
        if home:  # the usual run: nothing of a project is imported
            return paths.Home.resolve(self.home, self.namespace, self.skills_dir)
        from skilltool import project

        return project.scope(self.home, self.namespace, self.skills_dir, self.project, self.user)

    @property
    def user_home(self) -> paths.Home:
        """The home of the person running it (`--home`, else theirs), whatever the scope."""
        return paths.Home.resolve(self.home, self.namespace)


def home_lines(home: paths.Scope) -> list[str]:
    """The first line of a report: the scope the run acts on."""
    return [home.line()]


def harnesses(home: paths.Scope, only: str | None) -> list[Harness]:
    from skilltool.harnesses import harnesses

    return harnesses(home, only)
