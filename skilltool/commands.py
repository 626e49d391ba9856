"""One function per command: find -> read -> plan -> apply -> report. Each returns an exit code."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from skilltool import discover, paths, plan, report
from skilltool.apply import Outcome, apply, locked, unwritable
from skilltool.model import Agent, Catalogue, Plugin, Problem, SearchEntry

if TYPE_CHECKING:
    from skilltool.harnesses import Harness
    from skilltool.sources import Done

OK, FAILED, USAGE = 0, 1, 2


class Options(NamedTuple):
    """The options every command that touches files takes."""

    home: Path | None = None
    skills_dir: Path | None = None
    dry_run: bool = False
    json: bool = False
    namespace: str | None = None
    force: bool = False
    only: str | None = None

    @property
    def where(self) -> paths.Home:
        return paths.Home.resolve(self.home, self.namespace)

    def dir(self, home: paths.Home) -> Path:
        return Path(os.path.abspath(self.skills_dir)) if self.skills_dir else home.skills_dir


def say(line: str) -> None:
    sys.stdout.write(report.printable(line) + "\n")


def warn(line: str) -> None:
    sys.stderr.write(report.printable(line) + "\n")


def find(home: paths.Home, keep_cache: bool = True) -> Catalogue:
    """The plugins on the search path; files unchanged since the last run are not re-parsed."""
    entries = paths.search_path(home)
    if any(e.origin == "override" for e in entries):
        shown = ":".join(str(e.path) for e in entries)
        warn(
            f"warning: {paths.OVERRIDE_VARIABLE} is set: plugins are taken only from {shown} "
            "and trusted as if installed; unset it for normal use"
        )
    from skilltool.cache import ParseCache

    cache = ParseCache(home.cache_dir / "parsed.marshal")
    catalogue = discover.discover(entries, cache)
    if keep_cache:
        cache.save()
    return catalogue


def _problem_lines(problems: list[Problem], opts: Options) -> None:
    for problem in problems:
        warn(f"problem   {report.problem_line(problem)}")


def status(opts: Options) -> int:
    """The plan an install would carry out, shown as the state of each thing: one code path."""
    home = opts.where
    catalogue = find(home)
    skills_dir = opts.dir(home)
    found = harnesses(home, skills_dir, opts.only)
    full = _install_plan(opts, catalogue, home, remove=False, found=found)
    links = [a for a in full.actions if a.kind == "link"]
    enforced = {
        (h.name, a.name): h.tools_enforced(a)
        for h in found
        for p in catalogue.active
        for a in p.agents
    }
    view = report.StatusView(
        catalogue,
        {a.name: a for a in links if a.owner == "skill"},
        {(a.owner, a.name): a for a in links if a.owner != "skill"},
        [a for a in full.actions if a.kind == "file"],
        enforced,
        home,
        skills_dir,
    )
    problems = [*catalogue.problems, *full.problems]
    added = _added_states(home)
    if opts.json:
        data = view.as_dict()
        data["problems"] += [p.as_dict() for p in full.problems]
        data["sources"] = added
        report.emit_json(data)
        return OK
    for line in view.lines():
        say(line)
    for row in added:
        say(report.source_line(row))
    for problem in problems:
        say(f"problem   {report.problem_line(problem)}")
    return OK


def find_agent(catalogue: Catalogue, name: str) -> Agent | None:
    agents, _ = plan.winning_agents(catalogue)
    return next((a for a in agents if a.name == name), None)


def _agent_for(agent_name: str, harness_name: str, opts: Options) -> tuple[Agent, Harness] | None:
    """The agent of that name on the search path and the harness asked for, or None (said why)."""
    home = opts.where
    agent = find_agent(find(home), agent_name)
    if agent is None:
        warn(
            f"skilltool: no agent {agent_name!r} on the search path; "
            "'skilltool plugins status' lists them"
        )
        return None
    [harness] = harnesses(home, opts.dir(home), harness_name)
    return agent, harness


def render(agent_name: str, harness_name: str, opts: Options) -> int:
    found = _agent_for(agent_name, harness_name, opts)
    if found is None:
        return FAILED
    agent, harness = found
    home = harness.home
    renderings = harness.render(agent)
    for rendering in renderings:
        if len(renderings) > 1:
            say(f"==> {home.show(rendering.target)} <==")
        sys.stdout.flush()
        sys.stdout.buffer.write(rendering.content)
        sys.stdout.buffer.flush()
        if len(renderings) > 1 and not rendering.content.endswith(b"\n"):
            say("")
    return OK


def launch(agent_name: str, harness_name: str, opts: Options) -> int:
    found = _agent_for(agent_name, harness_name, opts)
    if found is None:
        return FAILED
    agent, harness = found
    how = harness.launch(agent)
    if opts.json:
        report.emit_json(
            {
                "agent": agent.name,
                "harness": harness.name,
                "command": how.command,
                "env": how.env,
                "notes": how.notes,
            }
        )
        return OK
    for line in report.launch_lines(agent.name, harness.name, how):
        say(line)
    return OK


def _change(opts: Options, remove: bool) -> int:
    """install or uninstall: find, plan and apply under the home's lock, then report.

    The lock covers the plan too: a run that planned before another finished applying
    would find that run's links in its way. --dry-run writes nothing, the lock included.
    """
    home = opts.where
    with contextlib.ExitStack() as held:
        if not opts.dry_run:
            try:
                held.enter_context(locked(home.state_dir))
            except OSError as err:
                warn(
                    f"skilltool: cannot take the lock in {home.show(home.state_dir)} "
                    f"({err.strerror or err}); nothing was changed: make it writable, "
                    "or give another --home"
                )
                return FAILED
        catalogue = find(home, keep_cache=not opts.dry_run)
        actions = _install_plan(opts, catalogue, home, remove=remove)
        blocked = {} if opts.dry_run else unwritable(actions.actions)
        if opts.dry_run:
            outcomes = [Outcome(a, True) for a in actions.actions]
        elif blocked:
            outcomes = [_not_done(a, blocked, home) for a in actions.actions]
        else:
            outcomes = apply(actions.actions)
    problems = plan.all_problems(catalogue) + list(actions.problems)
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


def _not_done(action: plan.Action, blocked: dict[Path, str], home: paths.Home) -> Outcome:
    """An action not carried out because a directory of the plan cannot be written in."""
    if not action.writes:
        return Outcome(action, True)
    here = next((d for d in blocked if d in action.target.parents), None)
    if here is not None:
        why = f"{home.show(here)} is {blocked[here]}; make it writable, then run again"
    else:
        others = ", ".join(home.show(d) for d in blocked)
        why = (
            f"not done: nothing is changed while {others} cannot be written in; "
            "make it writable, then run again"
        )
    return Outcome(action, False, why)


def harnesses(home: paths.Home, skills_dir: Path, only: str | None) -> list[Harness]:
    from skilltool.harnesses import registry

    known = registry()
    names = [only] if only else list(known)
    return [known[name](home, skills_dir) for name in names]


def _install_plan(
    opts: Options,
    catalogue: Catalogue,
    home: paths.Home,
    remove: bool,
    found: list[Harness] | None = None,
) -> plan.Plan:
    """Links in the skills dir (unless --only), then each harness's own links and files."""
    skills_dir = opts.dir(home)
    parts = [] if opts.only else [plan.plan_links(catalogue, skills_dir, remove=remove)]
    if found is None:
        found = harnesses(home, skills_dir, opts.only)
    for harness in found:  # a harness that reads only a skills dir of its own gets links there
        own = harness.own_skills_dir()
        if own is not None and harness.root().is_dir():
            parts.append(plan.plan_links(catalogue, own, remove=remove, owner=harness.name))
    parts.append(plan.plan_renderings(catalogue, found, remove=remove, force=opts.force))
    return plan.merge(parts)


def install(opts: Options) -> int:
    return _change(opts, remove=False)


def uninstall(opts: Options) -> int:
    return _change(opts, remove=True)


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
                            agent.lines.get("skills"),
                            severity="warning",
                        )
                    )
    return found


def package(sources: list[Path], destdir: Path, prefix: str, strict: bool, opts: Options) -> int:
    """The distro build step: validate strictly, then stage (SPEC §7)."""
    from skilltool import package as staging

    namespace = opts.namespace or paths.DEFAULT_NAMESPACE
    result = staging.package(
        sources,
        Path(os.path.abspath(destdir)),
        prefix,
        namespace,
        dry_run=opts.dry_run,
        strict=strict,
    )
    if opts.json:
        report.emit_json(
            {
                "dry_run": opts.dry_run,
                "staged": not result.failed and not opts.dry_run,
                "plugins": [
                    {
                        "name": plugin.name,
                        "source": str(plugin.root),
                        "dest": str(dest),
                        "files": [
                            str(s.path.relative_to(dest))
                            for s in result.staged
                            if s.kind != "dir" and dest in s.path.parents
                        ],
                    }
                    for plugin, dest in result.plugins
                ],
                "problems": [p.as_dict() for p in result.problems],
            }
        )
    else:
        for problem in result.problems:
            say(report.problem_line(problem))
        prefix_word = "dry-run: " if opts.dry_run else ""
        if result.failed:
            errors = sum(p.severity == "error" for p in result.problems)
            say(f"not staged: {errors} error(s); nothing was written")
        else:
            for plugin, dest in result.plugins:
                count = sum(1 for s in result.staged if s.kind != "dir" and dest in s.path.parents)
                say(f"{prefix_word}{'staged':<9} {plugin.name} -> {dest} ({count} files)")
    return FAILED if result.failed or not result.plugins else OK


# --------------------------------------------------------------------------- sources (SPEC §9)


def _added_states(home: paths.Home) -> list[dict[str, object]]:
    """The added sources as `status` shows them; nothing imported when there is no lockfile."""
    if not os.path.lexists(paths.lockfile(home)):
        return []
    from skilltool import sources

    return sources.states(home)


@contextlib.contextmanager
def _held(home: paths.Home, dry_run: bool) -> Iterator[None]:
    """The home's lock for a sources command (none for a dry run, which writes nothing)."""
    if dry_run:
        yield
        return
    with locked(home.state_dir):
        yield


Gone = tuple[SearchEntry, tuple[str, ...]]  # an entry, and its plugins dropped (empty: all)


def _without(catalogue: Catalogue, gone: Sequence[Gone]) -> Catalogue:
    """The catalogue with the plugins of the entries `gone` dropped, those entries kept on
    the path: what came from them is then pruned while it is still provably ours."""
    if not gone:
        return catalogue

    def dropped(plugin: Plugin) -> bool:
        return any(
            (plugin.root == where.path or where.path in plugin.root.parents)
            and (not names or plugin.name in names)
            for where, names in gone
        )

    kept = [p._replace(shadowed_by=None) for p in catalogue.plugins if not dropped(p)]
    entries = (*catalogue.entries, *(w for w, _ in gone if w not in catalogue.entries))
    return Catalogue(entries, tuple(discover.shadow(kept)), catalogue.problems)


def _said_removed(actions: plan.Plan, gone: Sequence[Gone]) -> plan.Plan:
    """A link that goes because its source is removed says so (not "invalid")."""
    places = tuple(str(where.path) + os.sep for where, _ in gone)
    if not places:
        return actions
    said = [
        a._replace(reason="its source is removed")
        if a.kind == "link" and a.change == "remove" and (a.seen or "").startswith(places)
        else a
        for a in actions.actions
    ]
    return plan.Plan(tuple(said), actions.problems)


def _installed(
    opts: Options, home: paths.Home, gone: Sequence[Gone] = ()
) -> tuple[list[Outcome], list[Problem]]:
    """An install, the lock already held, with the plugins of the entries `gone` dropped."""
    catalogue = _without(find(home, keep_cache=not opts.dry_run), gone)
    actions = _said_removed(_install_plan(opts, catalogue, home, remove=False), gone)
    blocked = {} if opts.dry_run else unwritable(actions.actions)
    if opts.dry_run:
        outcomes = [Outcome(a, True) for a in actions.actions]
    elif blocked:
        outcomes = [_not_done(a, blocked, home) for a in actions.actions]
    else:
        outcomes = apply(actions.actions)
    return outcomes, plan.all_problems(catalogue) + list(actions.problems)


def _sources_report(
    opts: Options,
    home: paths.Home,
    done: list[Done],
    installed: tuple[list[Outcome], list[Problem]] | None,
    code: int = OK,
) -> int:
    """Print what became of each source, then the install's lines; the exit code."""
    outcomes, problems = installed or ([], [])
    if opts.json:
        report.emit_json(
            {
                "dry_run": opts.dry_run,
                "sources": [d.as_dict() for d in done],
                "actions": [report.action_dict(o.action, home, o) for o in outcomes],
                "problems": [p.as_dict() for p in problems],
            }
        )
    else:
        prefix = "dry-run: " if opts.dry_run else ""
        for item in done:
            for line in item.lines():
                say(prefix + line)
        for line in report.outcome_lines(outcomes, home, opts.dry_run):
            say(line)
        _problem_lines(problems, opts)
    failed = any(not o.done for o in outcomes) or any(p.severity == "error" for p in problems)
    return FAILED if failed else code


def _source_failure(opts: Options, err: Exception) -> int:
    """A source command that could not be done: one line, nothing changed."""
    message = str(err)
    if opts.json:
        report.emit_json({"dry_run": opts.dry_run, "error": message, "sources": []})
    elif message.startswith("kept "):
        say(message)
    else:
        warn(f"skilltool: {message}")
    return FAILED


def plugins_add(
    opts: Options,
    source: str,
    ref: str | None,
    plugins: list[str],
    name: str | None,
    install_after: bool,
) -> int:
    """`plugins add`: bring a source in and record it in the lockfile, then install."""
    from skilltool import sources

    home = opts.where
    try:
        with _held(home, opts.dry_run):
            done = sources.add(home, source, ref, tuple(plugins), name, opts.dry_run)
            installed = _installed(opts, home) if install_after and not opts.dry_run else None
    except (sources.SourceError, OSError) as err:
        return _source_failure(opts, err)
    return _sources_report(opts, home, [done], installed)


def plugins_update(opts: Options, names: list[str], check: bool) -> int:
    """`plugins update`: each source to the newest commit of its ref, then install.
    With --check (or --dry-run) nothing is written; --check exits 1 when one is outdated."""
    from skilltool import sources

    home = opts.where
    looking = check or opts.dry_run
    try:
        with _held(home, looking):
            done = sources.update(home, names, looking, opts.force)
            installed = None if looking else _installed(opts, home)
    except (sources.SourceError, OSError) as err:
        return _source_failure(opts, err)
    if not done and not opts.json:
        say("nothing was added: 'skilltool plugins add SOURCE' brings plugins in")
    outdated = any(d.verb == "outdated" for d in done)
    return _sources_report(opts, home, done, installed, FAILED if check and outdated else OK)


def plugins_remove(opts: Options, name: str) -> int:
    """`plugins remove`: prune what came from a source while it is still on the search path
    (so its links are provably ours), then drop it from the lockfile and delete its checkout."""
    from skilltool import sources

    home = opts.where
    try:
        with _held(home, opts.dry_run):
            gone = sources.removal(home, name, opts.force)
            outcomes, problems = _installed(opts, home, [(gone.entry, gone.plugins)])
            pruned = all(o.done for o in outcomes)
            if pruned and not opts.dry_run:
                sources.forget(home, gone)
    except (sources.SourceError, OSError) as err:
        return _source_failure(opts, err)
    verb = "removed" if pruned else "kept"
    what = f"plugin {name}" if gone.after is not None else "its checkout and lockfile entry"
    detail = what if pruned else "what came from it could not all be pruned; run again"
    done = sources.Done(verb, gone.source, detail=detail)
    return _sources_report(opts, home, [done], (outcomes, problems), OK if pruned else FAILED)


def plugins_sync(opts: Options, frozen: bool) -> int:
    """`plugins sync`: this home's sources at the lockfile's commits, then install; a
    checkout the lockfile no longer has is pruned and deleted (kept if edited by hand)."""
    from skilltool import sources

    home = opts.where
    try:
        with _held(home, opts.dry_run):
            done = sources.sync(home, frozen, opts.dry_run)
            left = sources.strays(home, sources.read_lock(home))
            clean = [s for s in left if not s.changed]
            installed = None
            if not opts.dry_run:
                installed = _installed(opts, home, [(s.entry, ()) for s in clean])
                if all(o.done for o in installed[0]):
                    for stray in clean:
                        sources.drop(Path(str(stray.source.path)))
    except (sources.SourceError, OSError) as err:
        return _source_failure(opts, err)
    for stray in left:
        verb = "kept" if stray.changed else "removed"
        why = (
            f", but it has local changes ({', '.join(stray.changed[:3])})" if stray.changed else ""
        )
        done.append(sources.Done(verb, stray.source, detail=f"not in the lockfile{why}"))
    return _sources_report(
        opts, home, done, installed, FAILED if any(s.changed for s in left) else OK
    )
