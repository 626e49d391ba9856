"""One function per command: find -> read -> plan -> apply -> report. Each returns an exit code."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from skilltool import discover, paths, plan, report
from skilltool.apply import Outcome, apply, locked
from skilltool.model import Catalogue, Problem, SearchEntry

OK, FAILED, USAGE = 0, 1, 2


@dataclass(frozen=True)
class Options:
    """The options every command that touches files takes."""

    home: Path | None = None
    skills_dir: Path | None = None
    dry_run: bool = False
    json: bool = False
    namespace: str | None = None

    @property
    def where(self) -> paths.Home:
        return paths.Home.resolve(self.home, self.namespace)

    def dir(self, home: paths.Home) -> Path:
        return Path(os.path.abspath(self.skills_dir)) if self.skills_dir else home.skills_dir


def say(line: str) -> None:
    sys.stdout.write(line + "\n")


def warn(line: str) -> None:
    sys.stderr.write(line + "\n")


def find(home: paths.Home) -> Catalogue:
    entries = paths.search_path(home)
    if any(e.origin == "override" for e in entries):
        shown = ":".join(str(e.path) for e in entries)
        warn(
            f"warning: {paths.OVERRIDE_VARIABLE} is set: plugins are taken only from {shown} "
            "and trusted as if installed; unset it for normal use"
        )
    return discover.discover(entries)


def _problem_lines(problems: list[Problem], opts: Options) -> None:
    for problem in problems:
        warn(f"problem   {report.problem_line(problem)}")


def status(opts: Options) -> int:
    home = opts.where
    catalogue = find(home)
    skills_dir = opts.dir(home)
    links = plan.plan_links(catalogue, skills_dir)
    by_name = {a.name: a for a in links.actions if a.kind == "link"}
    if opts.json:
        data = report.status_dict(catalogue, by_name, home, str(skills_dir))
        data["problems"] += [p.as_dict() for p in links.problems]
        report.emit_json(data)
        return OK
    say(f"skills    {home.show(skills_dir)}")
    for line in report.status_lines(catalogue, by_name, home):
        say(line)
    for problem in [*catalogue.problems, *links.problems]:
        say(f"problem   {report.problem_line(problem)}")
    return OK


def _run(actions: plan.Plan, catalogue: Catalogue, home: paths.Home, opts: Options) -> int:
    """Apply (or, with --dry-run, only show) a plan, and report it."""
    problems = plan.all_problems(catalogue) + list(actions.problems)
    if opts.dry_run:
        outcomes = [Outcome(a, True) for a in actions.actions]
    else:
        with locked(home.state_dir):
            outcomes = apply(actions.actions)
    if opts.json:
        report.emit_json(
            {
                "dry_run": opts.dry_run,
                "actions": [report.action_dict(o.action, home, o) for o in outcomes],
                "problems": [p.as_dict() for p in problems],
            }
        )
    else:
        for line in report.outcome_lines(outcomes, home, opts.dry_run):
            say(line)
        _problem_lines(problems, opts)
    failed = any(not o.done for o in outcomes)
    invalid = any(p.severity == "error" for p in problems)
    return FAILED if failed or invalid else OK


def install(opts: Options) -> int:
    home = opts.where
    catalogue = find(home)
    return _run(plan.plan_links(catalogue, opts.dir(home)), catalogue, home, opts)


def uninstall(opts: Options) -> int:
    home = opts.where
    catalogue = find(home)
    return _run(plan.plan_links(catalogue, opts.dir(home), remove=True), catalogue, home, opts)


def validate(targets: list[Path], strict: bool, opts: Options) -> int:
    home = opts.where
    if targets:
        entries = [SearchEntry(Path(os.path.abspath(t)), "argument") for t in targets]
        catalogue = discover.discover(entries)
    else:
        catalogue = find(home)
    problems = plan.all_problems(catalogue) + _cross_checks(catalogue)
    if strict:
        problems = [Problem(p.path, p.message, p.field, p.line, "error") for p in problems]
    errors = sum(p.severity == "error" for p in problems)
    warnings = len(problems) - errors
    skills = sum(len(p.skills) for p in catalogue.plugins)
    agents = sum(len(p.agents) for p in catalogue.plugins)
    summary = (
        f"checked {len(catalogue.plugins)} plugin(s), {skills} valid skill(s), "
        f"{agents} valid agent(s): {errors} error(s), {warnings} warning(s)"
    )
    if opts.json:
        report.emit_json(
            {
                "plugins": [
                    {
                        "name": p.name,
                        "path": str(p.root),
                        "origin": p.origin,
                        "skills": [s.name for s in p.skills],
                        "agents": [a.name for a in p.agents],
                    }
                    for p in catalogue.plugins
                ],
                "problems": [p.as_dict() for p in problems],
                "errors": errors,
                "warnings": warnings,
            }
        )
    else:
        for problem in problems:
            say(report.problem_line(problem))
        say(summary)
    if not catalogue.plugins and targets:
        return FAILED
    return FAILED if errors else OK


def _cross_checks(catalogue: Catalogue) -> list[Problem]:
    """Rules that span files: an agent's skills must be ones the plugin ships or can find."""
    known = {s.name for p in catalogue.plugins for s in p.skills}
    found = []
    for plugin in catalogue.plugins:
        for agent in plugin.agents:
            for name in agent.skills:
                if name not in known:
                    found.append(
                        Problem(
                            agent.path,
                            f"{name!r} is not a skill of any plugin found; "
                            "add it to skills/ or fix the name",
                            "skills",
                            severity="warning",
                        )
                    )
    return found
