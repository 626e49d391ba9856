"""`status`, `install` and `uninstall`: one plan, printed or applied (SPEC §4, §5)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skilltool import discover, interrupt, paths, plan, report, slash
from skilltool.commands.common import Options, harnesses, home_lines
from skilltool.errors import FAILED, INTERRUPTED, OK, SkilltoolError, UsageError
from skilltool.fs import locked
from skilltool.model import Catalogue, Plugin, Problem, Skill
from skilltool.plan import Outcome
from skilltool.report import Result

if TYPE_CHECKING:
    from skilltool.cache import Caches
    from skilltool.harnesses import Harness
    from skilltool.ledger import Ledger
    from skilltool.settings import Settings
    from skilltool.sources import Source


def status(opts: Options, named: Sequence[str] = ()) -> Result:
    """The plan an install would carry out, shown as the state of each plugin (and of each of
    its items, verbose or for the plugins `named`): one code path."""
    home = opts.where
    warnings: list[str] = []
    catalogue, caches = discover.found(home, warnings)
    _known(catalogue, named)
    found = harnesses(home, opts.only)
    full, view = _status_view(opts, home, catalogue, caches, found)
    quiet = opts.verbosity == "quiet"
    added = _added_states(home)
    runs = _what_runs(home, catalogue)
    for row in added:
        row["runs"] = runs.get(str(row["name"]), [])
    data = _status_data(view, full, added, named) if opts.json else {}
    lines = view.lines(named, opts.verbosity)
    for row in added:
        mine = runs.get(str(row["name"]), [])
        waiting = [run for run in mine if not run["approved"]]
        # quiet, a source is said when it has a problem, local changes or a command waiting
        if quiet and not (waiting or row.get("problem") or row.get("local_changes")):
            continue
        lines.append(report.source_line(row))
        lines += [report.runs_line(run) for run in (waiting if quiet else mine)]
    if isinstance(home, paths.Project):  # what the user must do for a harness to read it
        reach = {h.name: h.project_reach for h in found if h.present() and h.project_reach}
        data["project_reach"] = reach
        ignored = [] if home.copies else _ignore_lines(home, full.actions)
        if not home.copies:  # a team that commits no generated file: the lines it needs
            data["gitignore"] = [line.split(None, 1)[1] for line in ignored[1:]]
        both = _in_both(opts, catalogue, [h for h in found if h.present()])
        data["in_both"] = [{"kind": k, "name": n, "line": said} for k, n, said in both]
        if not quiet:
            lines += [f"note      {name}: {words}" for name, words in reach.items()]
            lines += ignored
            lines += [f"both      {kind} {name}: {said}" for kind, name, said in both]
    lost = plan.bundled_not_used(catalogue)  # said here only: not a warning at every run
    lines += [report.bundled_line(lost)] if lost and not quiet else []
    data["bundled_not_used"] = [{"kind": k, "name": n, "by": by} for k, n, by in lost]
    problems = plan.once([*catalogue.problems, *full.problems])
    lines += report.problem_lines(problems, upstream(home, problems))
    work = any(a.writes for a in full.actions)
    lines += [report.next_step(full.actions)] if work or not quiet else []
    if lines or not quiet:  # quiet, nothing at all when all is current
        lines = [*home_lines(home), *lines]
    return Result(OK, data, tuple(lines), warnings=tuple(warnings))


def plugins_list(opts: Options) -> Result:
    """`plugins list`: one line per plugin: where it comes from, what it carries, how it
    stands (the plan of `status`, shown short)."""
    home = opts.where
    warnings: list[str] = []
    catalogue, caches = discover.found(home, warnings)
    _, view = _status_view(opts, home, catalogue, caches, harnesses(home, opts.only))
    states = view.states()
    data = {
        "home": str(home.path),
        "scope": home.kind,
        "plugins": [s.as_dict() for s in states] if opts.json else [],
    }
    lines = [*home_lines(home), *(s.line(home) for s in states)]
    if not states:
        lines.append("no plugins found on the search path")
    return Result(OK, data, tuple(lines), warnings=tuple(warnings))


def _known(catalogue: Catalogue, named: Sequence[str]) -> None:
    """Each plugin named on the command line is one found on the search path."""
    names = {p.name for p in catalogue.plugins}
    unknown = [name for name in named if name not in names]
    if not unknown:
        return
    import difflib

    from skilltool.model import quoted

    close = difflib.get_close_matches(unknown[0], sorted(names), n=1)
    hint = f"did you mean {quoted(close[0])}? " if close else ""
    raise UsageError(
        f"no plugin {quoted(unknown[0])} on the search path; {hint}"
        "'skilltool plugins list' lists them"
    )


def _status_view(
    opts: Options, home: paths.Scope, catalogue: Catalogue, caches: Caches, found: list[Harness]
) -> tuple[plan.Plan, report.StatusView]:
    """The plan an install would carry out, and the view of it `status` and `list` print."""
    full = install_plan(opts, catalogue, home, False, caches, found, detail=False)
    links = [a for a in full.actions if a.kind in ("link", "copy")]
    # text says only "harness absent" of a harness not set up: its tools note is for --json
    noted = found if opts.json else [h for h in found if h.present()]
    tools = {
        (h.name, a.name): h.tools_note(a) for h in noted for p in catalogue.active for a in p.agents
    }
    view = report.StatusView(
        catalogue,
        {a.name: a for a in links if a.owner == "skill"},
        {(a.owner, a.name): a for a in links if a.owner != "skill"},
        [a for a in full.actions if a.kind == "file"],
        tools,
        home,
        home.skills_dir,
        entries=tuple(a for a in full.actions if a.kind == "entry"),
        commands=[a for a in full.actions if a.kind == "command"],
        hooks=[a for a in full.actions if a.kind == "hook" or report.entry_label(a) == "hook"],
        settled=tuple(s.owner for s in full.settled),
        absent={h.name: _absent_why(home, h) for h in found if not h.present()},
        sources=_source_names(home, catalogue),
        moved=_moved(home, found),
        off=_turned_off(home, catalogue),
    )
    return full, view


def _chosen(home: paths.Scope, catalogue: Catalogue) -> Settings:
    """The user's settings as they apply to the plugins found (settings.applied)."""
    from skilltool import settings
    from skilltool.harnesses import NAMES

    return settings.applied(home, catalogue.plugins, NAMES, settings.renames_in(catalogue))


def _turned_off(home: paths.Scope, catalogue: Catalogue) -> dict[str, str]:
    """What of each plugin the user's settings turn off, and where, in words."""
    if home.kind != "home":
        return {}
    from skilltool import settings

    chosen, written = _chosen(home, catalogue), settings.read(home)
    if not chosen.any_disabled:
        return {}

    def harnesses(where: frozenset[str]) -> str:
        return "every harness" if settings.EVERY in where else ", ".join(sorted(where))

    notes = {}
    for plugin in catalogue.plugins:
        said = []
        where = chosen.where("plugins", plugin.name)
        if where and where != written.where("plugins", plugin.name):
            said.append(
                f"off in {harnesses(where)} by its default (defaultEnabled: false): 'skilltool "
                f"plugins enable {plugin.name}' turns it on"
            )
        elif where:
            said.append(f"off in {harnesses(where)}")
        items = [("skill", s.name, chosen.where("skills", s.name)) for s in plugin.skills]
        items += [("agent", a.name, chosen.where("agents", a.name)) for a in plugin.agents]
        said += [f"{kind} {name} off in {harnesses(w)}" for kind, name, w in items if w]
        if said:
            notes[plugin.name] = "; ".join(said)
    return notes


def _moved(home: paths.Scope, found: Sequence[Harness]) -> dict[str, tuple[Path, str]]:
    """The harnesses whose folder a variable moves from its default: name -> (folder, name
    of the variable)."""
    from skilltool.harnesses import moved_root

    moved = {}
    for harness in found:
        root, variable = moved_root(harness.name, home)
        if variable is not None:
            moved[harness.name] = (root, variable)
    return moved


def _absent_why(home: paths.Scope, harness: Harness) -> str:
    """Why nothing is written for a harness the project names (Hermes reads no project
    folder), or one the user's settings leave alone; "" for one not set up, which needs no
    word but its name."""
    from skilltool.harnesses import left_alone

    if isinstance(home, paths.Project):
        if harness.name not in home.harnesses:
            return ""
    elif not left_alone(harness.name, home):
        return ""
    return _why(home, harness)


def _source_names(home: paths.Scope, catalogue: Catalogue) -> dict[str, str]:
    """Each added plugin's folder -> the name of the source it came with; nothing imported
    when there is no lockfile, as in most homes."""
    if not os.path.lexists(home.lockfile):
        return {}
    from skilltool import sources

    try:
        locked = sources.read_lock(home)
    except sources.SourceError:  # said by the sources lines of `status`
        return {}
    roots = [(str(sources.entry(home, s).path), s.name) for s in locked]
    names = {}
    for plugin in catalogue.plugins:
        if plugin.origin != "added":
            continue
        root = str(plugin.root)
        for where, name in roots:
            if root == where or root.startswith(where + os.sep):
                names[root] = name
                break
    return names


def _ignore_lines(home: paths.Project, actions: tuple[plan.Action, ...]) -> list[str]:
    """With `skills = "link"`, the .gitignore lines that keep every file and link skilltool
    makes in the project out of git (each checkout makes them with `plugins sync`); the
    config files that hold entries of skilltool's are left out: they hold the user's too."""
    made = sorted(
        {
            "/" + home.stored(a.target)
            for a in actions
            if a.kind in ("link", "copy", "file", "command")
            and a.state not in ("absent", "unready", "unsupported", "foreign")
            and a.target.is_relative_to(home.path)
        }
    )
    if not made:
        return []
    head = "gitignore the lines that keep what skilltool makes out of git ('plugins sync' makes it)"
    return [head, *(f"ignore    {path}" for path in made)]


def _in_both(
    opts: Options, catalogue: Catalogue, present: list[Harness]
) -> list[tuple[str, str, str]]:
    """The skills and agents of a project whose names the home's plugins have too, and
    which one each harness uses (its `precedence`, seen in its binary)."""
    try:
        mine = discover.found(opts.user_home, [], keep=False)[0]
    except SkilltoolError:
        return []
    skills = set(plan.winning_skills(catalogue)[0]) & set(plan.winning_skills(mine)[0])
    agents = {a.name: a for a in plan.winning_agents(catalogue)[0]}
    theirs = {a.name for a in plan.winning_agents(mine)[0]}
    found = [("skill", name, _whose("skill", present)) for name in sorted(skills)]
    for name in sorted(set(agents) & theirs):
        takers = [h for h in present if h.absent(agents[name]) is None]
        found.append(("agent", name, _whose("agent", takers)))
    return found


def _whose(kind: str, harnesses: list[Harness]) -> str:
    sides: dict[str, list[str]] = {}
    for harness in harnesses:
        sides.setdefault(harness.precedence.get(kind, "project"), []).append(harness.name)
    said = "; ".join(f"{WHOSE[side]} for {', '.join(who)}" for side, who in sides.items())
    return f"in the project and the home: {said}"


WHOSE = {
    "project": "the project's",
    "home": "the home's",
    "both": "both listed",
    "either": "either, not always the same",
}


def _status_data(
    view: report.StatusView,
    full: plan.Plan,
    added: list[dict[str, object]],
    named: Sequence[str] = (),
) -> dict[str, Any]:
    """The JSON document of `status`: built only for --json (a record per item costs time);
    `named`: only those plugins."""
    data = view.as_dict()
    if named:
        data["plugins"] = [p for p in data["plugins"] if p["name"] in named]
    data["home"] = str(view.home.path)
    data["scope"] = view.home.kind
    told = set(view.catalogue.problems)
    data["problems"] += [p.as_dict() for p in full.problems if p not in told]
    data["sources"] = added
    settled = sum(s.links for s in full.settled)
    data["install_would"] = report.counts((Outcome(a, True) for a in full.actions), settled)
    return data


def _change(
    opts: Options, remove: bool, planned: list[plan.Action] | None = None, purge: bool = False
) -> Result:
    """install or uninstall: find, plan and apply under the home's lock, then report (and
    put the actions planned in `planned`, for `check`). With `purge`, an uninstall that
    removed all it had to then removes skilltool's own data too (`_purged`).

    The lock covers the plan too: a run that planned before another finished applying
    would find that run's links in its way. --dry-run writes nothing, the lock included.
    """
    home = opts.where
    warnings: list[str] = []
    with contextlib.ExitStack() as held:
        progress = held.enter_context(report.progress(opts.json or opts.verbosity == "quiet"))
        if not opts.dry_run:
            # from here a Ctrl-C ends the step in flight; a wait for the lock, at once
            held.enter_context(interrupt.deferred())
            try:
                held.enter_context(locked(home.state_dir))
            except OSError as err:
                raise SkilltoolError(
                    f"cannot take the lock in {home.show(home.state_dir)} "
                    f"({err.strerror or err}); nothing was changed: make it writable, "
                    "or give another --home"
                ) from None
        progress.say("finding plugins")
        catalogue, caches = discover.found(home, warnings, keep=not opts.dry_run)
        progress.say("planning")
        found = harnesses(home, opts.only)
        # each unchanged item is made only where it is shown: -v lists them, --json too
        detail = opts.json or opts.verbosity == "verbose"
        ledger = open_ledger(home)  # one for the plan and its apply: what planning settled is saved
        actions = install_plan(opts, catalogue, home, remove, caches, found, detail, ledger=ledger)
        # never a harness's own root, nor the home, whatever the record says
        keep = frozenset({home.path, *(h.root() for h in found)}) if remove else None
        # taken before anything is written: the diff of each file as it is made
        diffs = report.diff_lines(actions.actions, home) if opts.diff or opts.dry_run else []
        step = progress.steps("uninstalling" if remove else "installing", actions.actions)
        outcomes, emptied = carried_out(
            opts, home, actions.actions, keep, caches.trust.clean, ledger, step
        )
        # a ledger refused (a newer skilltool's) leaves every entry it may record: not all is done
        refused = ledger.problem is not None and ledger.problem.severity == "error"
        failed = refused or any(not o.done for o in outcomes)
        stopped = not opts.dry_run and interrupt.requested()
        purged = _purged(home, opts, failed) if purge and not stopped else []
    problems = plan.once([*plan.all_problems(catalogue), *actions.problems])
    fetched = upstream(home, problems)
    counted = report.counts(outcomes, settled=sum(s.links for s in actions.settled))
    if not remove:  # uninstall skips nothing: what the plugins hold is not its concern
        counted.update(report.problem_counts(problems, fetched))
    lines = home_lines(home) + report.outcome_lines(outcomes, home, opts.dry_run, opts.verbosity)
    if opts.verbosity != "quiet":
        lines += [report.emptied_line(path, home, opts.dry_run) for path in emptied]
    lines += diffs
    lines += [report.purged_line(p, home, opts.dry_run) for p in purged]
    if stopped:  # what was done, said above; what was not, in the last line
        again = "uninstall" if remove else "install"
        warnings.append(stopped_line(outcomes, actions.actions, f"skilltool plugins {again}"))
    else:
        lines.append(report.summary_line(counted, opts.dry_run))
    data = {
        "home": str(home.path),
        "scope": home.kind,
        "dry_run": opts.dry_run,
        # only --json prints them: a line of its own for every unchanged item costs time
        "actions": [report.action_dict(o.action, home, o) for o in outcomes] if opts.json else [],
        "problems": [report.problem_dict(p, fetched) for p in problems],
        "summary": counted,
        # the directories skilltool had made and uninstall left empty, so removed
        "removed_dirs": [str(path) for path in emptied],
    }
    if purge:  # skilltool's own folders `--purge` removed (or, with a reason, kept)
        data["purged"] = [p.as_dict() for p in purged]
    if stopped:
        data["interrupted"] = interrupted_data(outcomes, actions.actions)
    if planned is not None:
        planned += actions.actions
    failed = failed or any(p.failure for p in purged)
    # uninstall succeeds when all of its own is gone, whatever the plugins on the path hold
    invalid = not remove and failing(problems, fetched, opts.strict)
    return Result(
        INTERRUPTED if stopped else FAILED if failed or invalid else OK,
        data,
        tuple(lines),
        tuple(report.problem_lines(problems, fetched)),
        tuple(warnings),
    )


def interrupted_data(outcomes: Sequence[Outcome], actions: Sequence[plan.Action]) -> dict[str, int]:
    """How many of the changes planned were made (or failed) before Ctrl-C stopped the run."""
    return {
        "done": sum(o.action.writes for o in outcomes),
        "of": sum(a.writes for a in actions),
    }


def stopped_line(outcomes: Sequence[Outcome], actions: Sequence[plan.Action], again: str) -> str:
    """`interrupted: 83 of 600 done; run 'skilltool plugins install' again to finish`."""
    counted = interrupted_data(outcomes, actions)
    return interrupt.line(counted["done"], counted["of"], again)


def upstream(home: paths.Scope, problems: Collection[Problem]) -> dict[Problem, str]:
    """The errors in plugins added with `add`, each with its source's name (consent.upstream);
    the lockfile is read only when there is an error to weigh."""
    if not any(p.severity == "error" for p in problems) or not os.path.lexists(home.lockfile):
        return {}
    from skilltool import consent

    by_place = consent.added(home)
    return consent.upstream(problems, by_place) if by_place else {}


def failing(problems: Collection[Problem], fetched: Collection[Problem], strict: bool) -> bool:
    """Whether the problems fail a run: an error of the user's (their plugins, their config
    files, skilltool's records), and one in an added plugin only with --strict: that one is
    its authors' to fix, and the user could do nothing to make every run pass."""
    return any(p.severity == "error" and (strict or p not in fetched) for p in problems)


def check(opts: Options) -> Result:
    """`plugins check`, for CI and pre-commit: exit 1 with what an install would change (and
    what was edited by hand, which `install --force` would) and its diff, 0 and one line
    when everything is current. In a project the manifest must
    match the lockfile, and a checkout of a locked source that is missing is fetched first
    into the project's own ignored folder (as `sync --frozen` does); nothing else is written."""
    home = opts.where
    offline: list[str] = []
    if isinstance(home, paths.Project):
        from skilltool import project, sources

        try:
            sources.reconcile(home, project.read(home.path).sources, True, True)
            with locked(home.state_dir):
                done = sources.sync(home, True, False, offline=home.copies)
        except (sources.SourceError, OSError) as err:
            raise SkilltoolError(str(err)) from None
        offline = [line for d in done if d.verb == "offline" for line in d.lines()]
    actions: list[plan.Action] = []
    looked = _change(opts._replace(dry_run=True, diff=False), False, actions)
    if looked.code != OK:
        return looked
    # a rendering or copy edited by hand is kept by install, but is not what it would write
    changing = [a for a in actions if a.writes or a.state == "edited"]
    from skilltool.gitignore import CLONE

    # a file of the project's that git ignores: a clone would lack it, so it is not committed
    ignoring = any(CLONE in line for line in looked.problems)
    if not changing and not ignoring:
        current = (home.line(), *offline, "current   nothing would change")
        return Result(OK, {"current": True}, current)
    if not changing:
        line = "check     a file git ignores (above): commit it (git add -f), or change the rule"
        return Result(FAILED, {"current": False}, (home.line(), line), looked.problems)
    said = report.outcome_lines([Outcome(a, True) for a in changing], home, True, "normal")
    lines = [home.line(), *said, *report.new_file_lines(changing, home)]
    lines += report.diff_lines(changing, home)
    lines.append(
        "check     run 'skilltool plugins install' (--force for what was edited by hand) "
        "and commit the result"
    )
    return Result(FAILED, {"current": False}, tuple(lines), looked.problems, looked.warnings)


def carried_out(
    opts: Options,
    home: paths.Scope,
    actions: tuple[plan.Action, ...],
    keep: frozenset[Path] | None,
    clean: Collection[str] = (),
    ledger: Ledger | None = None,
    step: Callable[[int], None] | None = None,
) -> tuple[list[Outcome], list[Path]]:
    """The plan applied (or only shown, with --dry-run); with `keep`, then the directories
    skilltool made that are empty now are removed, but for those in `keep`. `clean`: folders
    known to hold no temporary file of a killed run (unchanged since seen so). `ledger`: the
    one the plan was made with, saved when planning settled a record of it. `step`: told the
    number of changes made, after each. After Ctrl-C, only the actions begun before it are
    carried out, and no directory is removed (`interrupt`)."""
    from skilltool.apply import MadeDirs, apply, unwritable  # not on a `status`'s path

    within = home.path if home.kind == "project" else None
    if opts.dry_run:
        going = frozenset(a.target for a in actions if _goes(a))
        made = MadeDirs(home.state_dir, within)
        return [Outcome(a, True) for a in actions], [] if keep is None else made.would_prune(
            keep, going
        )
    blocked = unwritable(actions)
    if blocked:
        return [_not_done(a, blocked, home) for a in actions], []
    made = MadeDirs(home.state_dir, within)
    ledger = ledger or open_ledger(home)
    outcomes = apply(actions, made, ledger, clean, within, step)
    if ledger.changed:  # a crashed run's pending record settled, with nothing else to write
        with contextlib.suppress(OSError):  # kept pending: settled again by the next run
            ledger.save()
    pruning = keep is not None and not interrupt.requested()  # a step not to begin
    return outcomes, made.prune(keep) if pruning and keep is not None else []


def _goes(action: plan.Action) -> bool:
    """Whether applying the action removes the file at its target (an MCP entry's removal
    removes its config file only when that held nothing else)."""
    if action.change != "remove" or action.backup is not None:
        return False
    return action.kind != "entry" or action.content is None


def _not_done(action: plan.Action, blocked: dict[Path, str], home: paths.Scope) -> Outcome:
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


def install_plan(
    opts: Options,
    catalogue: Catalogue,
    home: paths.Scope,
    remove: bool,
    caches: Caches,
    found: list[Harness] | None = None,
    detail: bool = True,
    trust_links: bool = True,
    ledger: Ledger | None = None,
) -> plan.Plan:
    """Links in the skills dir (unless --only), then each harness's own links and files.

    `caches`: those `catalogue` came from; a skills dir seen as planned before and unchanged
    since is trusted (unless not `trust_links`), and what this plan sees is kept in them
    (saved here, unless --dry-run). Without `detail`, the links of such a dir are one
    `plan.Settled`, not an Action each."""
    skills_dir = home.skills_dir
    trust = caches.trust if trust_links else None
    repository = home.path if isinstance(home, paths.Project) else None
    evidence = plan.Evidence(catalogue, opts.prune, repository)
    copied: dict[str, Skill] = {}
    from skilltool import copies  # a project's, and a harness's that passes over links

    if isinstance(home, paths.Project):  # a git source's skills: copies (or links, if asked)
        trust = None
        winners = plan.winning_skills(catalogue)[0]
        copied = {n: s for n, s in winners.items() if copies.copied(home, s.path)}
    parts = []
    # what a fetched plugin runs is carried once the user approved it (consent.py): the rest
    # of the run sees its plugins without what waits (a skill that waits is linked nowhere)
    by_place, unreadable = _fetched(home)
    catalogue, held = _approved_only(by_place, catalogue)
    parts.append(plan.Plan((), (*unreadable, *held)))
    # the plugins' options put into what they run (user_config.py), the user's own values
    catalogue, configured = _configured(home, catalogue)
    parts.append(plan.Plan((), tuple(configured)))
    if any(p.dependencies for p in catalogue.active):  # what Claude Code would not load
        from skilltool import dependencies

        parts.append(plan.Plan((), tuple(dependencies.missing(catalogue))))
    if found is None:
        found = harnesses(home, opts.only)
    found, alone = _not_left_alone(home, found)
    parts.append(plan.Plan(tuple(alone), ()))
    # in a project: nothing through a link leading out of it
    boundary = plan.Boundary(home.path if isinstance(home, paths.Project) else None)
    found = [h for h in found if not (h.present() and boundary.out(h.root()))]
    groups = _by_withheld(home, catalogue, found)
    dirs = [] if opts.only else [("skill", skills_dir, shared_catalogue(home, catalogue))]
    copying: set[str] = set()  # the harnesses whose own skills dir gets copies of every skill
    for seen, group in groups:
        for harness in group:  # a harness that reads only a skills dir of its own: links there
            own = harness.own_skills_dir() if harness.present() else None
            if own is not None:
                dirs.append((harness.name, own, seen))
                if harness.copies_skills:
                    copying.add(harness.name)
    dirs = [(owner, folder, seen) for owner, folder, seen in dirs if not boundary.out(folder)]
    digests: dict[Path, str] = {}  # a copied skill's folder, read once for every skills dir
    for owner, folder, seen in dirs:
        if owner in copying:  # no link: a copy of each skill, its own from every source
            mine = plan.winning_skills(seen)[0]
            names = frozenset(mine)
            kept = plan.plan_links(seen, folder, remove, owner, None, detail, evidence, names)
            made = copies.plan(home, mine, folder, remove, opts.force, evidence, owner, digests)
            parts += [kept, plan.Plan(tuple(made), ())]
            continue
        mine = {n: s for n, s in copied.items() if seen is catalogue or _has(seen, s)}
        parts.append(
            # a dir seen as planned is trusted only for the whole catalogue: what the user
            # turned off is no part of what was planned then
            plan.plan_links(
                seen,
                folder,
                remove,
                owner,
                trust if seen is catalogue else None,
                detail,
                evidence,
                frozenset(copied),
            )
        )
        if isinstance(home, paths.Project):
            made = copies.plan(home, mine, folder, remove, opts.force, evidence, owner, digests)
            parts.append(plan.Plan(tuple(made), ()))
    renders = caches.renders
    ledger = ledger or open_ledger(home)
    for seen, group in groups:
        parts.append(plan.plan_renderings(seen, group, remove, opts.force, renders, evidence))
        parts.append(slash.plan_commands(seen, group, remove, opts.force, renders, evidence))
        parts.append(_entries_plan(opts, seen, remove, group, ledger, evidence))
        parts.append(_lsp_plan(seen, group, remove, opts.force, evidence, ledger))
        parts.append(_hooks_plan(seen, group, remove, opts.force, evidence, ledger))
    caches.save()  # nothing for --dry-run, which writes nothing, the caches included
    parts.append(plan.Plan((), tuple(evidence.problems())))
    planned = boundary.kept_inside(plan.merge(parts))
    if isinstance(home, paths.Project):  # what a teammate's clone will not have
        noted = [*_ignored(home, catalogue, planned), *_unknown_markets(home)]
        planned = planned._replace(problems=(*planned.problems, *noted))
    return _said_off(planned, home, catalogue)


def _unknown_markets(home: paths.Project) -> list[Problem]:
    """A line for each plugin the repository's `.claude/settings.json` enables from a
    marketplace it declares nowhere (Claude Code does not know it either)."""
    from skilltool import project

    where = home.path / project.CLAUDE_SETTINGS
    return [
        Problem(
            where,
            f"the marketplace {key.partition('@')[2]!r} is declared nowhere (not in "
            "extraKnownMarketplaces, nor one Claude Code knows), so neither Claude Code nor "
            "skilltool can load this plugin: declare it in extraKnownMarketplaces",
            f"enabledPlugins.{key}",
            severity="warning",
        )
        for key in project.unknown_marketplaces(home.path)
    ]


def _ignored(home: paths.Project, catalogue: Catalogue, planned: plan.Plan) -> list[Problem]:
    """A warning for each file of the project's own plugins, and (when what skilltool writes
    is committed) each file it writes, that git ignores: a teammate's clone will not have
    it, and would take a source it lacks for one that is gone."""
    from skilltool import gitignore

    looked: list[Path] = []
    for plugin in catalogue.plugins:
        if plugin.root.is_relative_to(home.sources_dir) or not plugin.root.is_relative_to(
            home.path
        ):
            continue  # a git source's checkout: ignored on purpose, fetched by sync
        looked += [a.path for a in plugin.agents] + [c.path for c in plugin.slash_commands]
        looked += [s.path / "SKILL.md" for s in plugin.skills]
        looked += [s.path for s in plugin.mcp_servers] + list(plugin.hooks)
    if home.copies:
        written = ("missing", "current", "stale", "edited")  # what is, or will be, skilltool's
        looked += [a.target for a in planned.actions if a.state in written]
    found = gitignore.ignored(home.path, looked)
    return [
        Problem(path, gitignore.said(str(path), rule), severity="warning")
        for path, rule in found.items()
    ]


def _not_left_alone(
    home: paths.Scope, found: list[Harness]
) -> tuple[list[Harness], list[plan.Action]]:
    """The harnesses to plan for: none the user's settings leave alone, where nothing is
    written and nothing removed, not even what skilltool wrote there before; for each of
    those, the line that says so, as for a harness not set up."""
    if home.kind != "home":
        return found, []
    from skilltool.harnesses import left_alone

    alone = [h for h in found if left_alone(h.name, home)]
    said = [
        plan.Action("file", h.name, "", h.root(), "absent", "none", reason=_why(home, h))
        for h in alone
    ]
    return [h for h in found if h not in alone], said


def _why(home: paths.Scope, harness: Harness) -> str:
    from skilltool.harnesses import not_set_up

    return not_set_up(home, harness.root(), harness.name)


def _said_off(planned: plan.Plan, home: paths.Scope, catalogue: Catalogue) -> plan.Plan:
    """Each removal of what the user turned off says so, not that its source is gone."""
    if home.kind != "home":
        return planned
    from skilltool import settings

    chosen = _chosen(home, catalogue)
    if not chosen.any_disabled:
        return planned
    roots = sorted(((str(p.root) + os.sep, p.name) for p in catalogue.plugins), reverse=True)
    said = f"turned off in {home.show(settings.place(home))}"

    sharing = _sharing(home)

    def off(kind: settings.Kind, name: str, harness: str) -> bool:
        if harness == "skill":  # the shared skills dir: off when off in all that read it
            return all(chosen.off(kind, name, h) for h in sharing)
        return chosen.off(kind, name, harness)

    default = {p.name for p in catalogue.plugins if not p.default_enabled}
    written = settings.read(home).renamed(settings.renames_in(catalogue))

    def turned_off(action: plan.Action) -> str | None:
        """Why the action's skill, agent or plugin is off there, or None when it is not."""
        item = {"link": "skills", "copy": "skills", "file": "agents"}.get(action.kind)
        if item is not None and off(item, action.name, action.owner):  # type: ignore[arg-type]
            return said
        source = str(action.source) if action.source is not None else ""
        plugin = next((name for root, name in roots if source.startswith(root)), None)
        if plugin is None or not off("plugins", plugin, action.owner):
            return None
        if plugin in default and not written.where("plugins", plugin):
            return (
                f"off by its default (defaultEnabled: false): 'skilltool plugins enable "
                f"{plugin}' turns it on"
            )
        return said

    actions = tuple(
        a._replace(reason=turned_off(a) or a.reason) if a.change == "remove" else a
        for a in planned.actions
    )
    return planned._replace(actions=actions)


def _hooks_plan(
    catalogue: Catalogue,
    group: list[Harness],
    remove: bool,
    force: bool,
    evidence: plan.Evidence,
    ledger: Ledger,
) -> plan.Plan:
    """The hooks' files (hooks.py), without importing it when no plugin has hooks and no
    harness has a folder of hook files, as in most homes."""
    if not any(p.hook_commands for p in catalogue.plugins) and not any(
        h.present() and (h.hook_files() or _hook_records(h, ledger)) for h in group
    ):
        return plan.Plan((), ())
    from skilltool import hooks

    return hooks.plan_hooks(catalogue, group, remove, force, evidence, ledger)


def _lsp_plan(
    catalogue: Catalogue,
    group: list[Harness],
    remove: bool,
    force: bool,
    evidence: plan.Evidence,
    ledger: Ledger,
) -> plan.Plan:
    """The language servers' entries (lsp.py), without importing it when no plugin has one
    and the ledger records none, as in most homes."""
    if not any(p.lsp_servers for p in catalogue.plugins) and not any(
        r.table == ("lsp",) for h in group for r in ledger.every(h.name)
    ):
        return plan.Plan((), ())
    from skilltool import lsp

    return lsp.plan_lsp(catalogue, group, ledger, remove, force, evidence)


def _hook_records(harness: Harness, ledger: Ledger) -> bool:
    """Whether the ledger records entries of hooks in the harness's config file."""
    place = harness.hook_place()
    return place is not None and any(r.file == place.path for r in ledger.every(harness.name))


def _fetched(home: paths.Scope) -> tuple[dict[Path, Source], list[Problem]]:
    """The lockfile's sources fetched from a URL (consent.fetched_or_closed: all of the
    checkouts, approving nothing, when the lockfile cannot be read), without importing what
    asks for consent when there is no lockfile, as in most homes."""
    if not os.path.lexists(home.lockfile):
        return {}, []
    from skilltool import consent

    by_place, problem = consent.fetched_or_closed(home)
    return by_place, [] if problem is None else [problem]


def _approved_only(
    by_place: dict[Path, Source], catalogue: Catalogue
) -> tuple[Catalogue, list[Problem]]:
    """The catalogue without the servers the user has not approved (consent.approved_only)."""
    if not by_place:
        return catalogue, []
    from skilltool import consent

    return consent.approved_only(by_place, catalogue)


def _configured(home: paths.Scope, catalogue: Catalogue) -> tuple[Catalogue, list[Problem]]:
    """The catalogue with the plugins' options put in (user_config.configured), without
    importing it when no plugin declares or names one, as in most homes."""
    if not any(p.user_config for p in catalogue.active) and not any(
        "${user_config." in repr((p.mcp_servers, p.lsp_servers, p.hook_commands))
        for p in catalogue.active
        if p.mcp_servers or p.lsp_servers or p.hook_commands
    ):
        return catalogue, []
    from skilltool import user_config

    return user_config.configured(home, catalogue)


def _has(catalogue: Catalogue, skill: Skill) -> bool:
    """Whether a skill is one of a catalogue's plugins'."""
    return any(skill in p.skills for p in catalogue.plugins)


def _by_withheld(
    home: paths.Scope, catalogue: Catalogue, found: list[Harness]
) -> list[tuple[Catalogue, list[Harness]]]:
    """The harnesses in groups that see the same plugins: in a project, a source may be
    withheld from some (its `harnesses`, or Claude Code for what it loads itself); each
    group sees the catalogue without those sources' plugins, so that what came from them
    before is removed there as gone."""
    if not isinstance(home, paths.Project):
        return _by_disabled(home, catalogue, found)
    if not home.withheld:
        return [(catalogue, found)]
    groups: dict[frozenset[str], list[Harness]] = {}
    for harness in found:
        names = frozenset(source for who, source in home.withheld if who == harness.name)
        groups.setdefault(names, []).append(harness)
    return [(_without_sources(home, catalogue, names), group) for names, group in groups.items()]


def _by_disabled(
    home: paths.Scope, catalogue: Catalogue, found: list[Harness]
) -> list[tuple[Catalogue, list[Harness]]]:
    """The harnesses in groups that see the same plugins: the user's settings may turn a
    plugin, a skill or an agent off in some; each group sees the catalogue without them, so
    that what was written for them there is removed as gone."""

    chosen = _chosen(home, catalogue)
    if not chosen.any_disabled:
        return [(catalogue, found)]
    groups: dict[tuple[tuple[str, str], ...], list[Harness]] = {}
    for harness in found:
        off = tuple(
            (kind, name)
            for kind, names in sorted(chosen.disabled.items())
            for name in sorted(names)
            if chosen.off(kind, name, harness.name)
        )
        groups.setdefault(off, []).append(harness)
    return [(_without(catalogue, set(off)), group) for off, group in groups.items()]


def _without(catalogue: Catalogue, off: set[tuple[str, str]]) -> Catalogue:
    """The catalogue without the plugins, skills and agents turned off (kind, name)."""
    if not off:
        return catalogue
    kept = []
    for plugin in catalogue.plugins:
        if ("plugins", plugin.name) in off:
            continue
        skills = [s for s in plugin.skills if ("skills", s.name) not in off]
        agents = tuple(a for a in plugin.agents if ("agents", a.name) not in off)
        if len(skills) != len(plugin.skills) or len(agents) != len(plugin.agents):
            plugin = plugin._replace(skills=tuple(skills), agents=agents)
        kept.append(plugin)
    return catalogue._replace(plugins=tuple(kept))


def _sharing(home: paths.Scope) -> list[str]:
    """The harnesses that read the shared skills dir (none of its own): a skill is off there
    only when it is off in all of them."""
    return [h.name for h in harnesses(home, None) if h.own_skills_dir() is None]


def shared_catalogue(home: paths.Scope, catalogue: Catalogue) -> Catalogue:
    """The catalogue the shared skills dir is linked from: without what the user turned off
    in every harness that reads it (a skill there is read by all of them alike)."""
    if isinstance(home, paths.Project):
        return catalogue

    chosen = _chosen(home, catalogue)
    if not chosen.any_disabled:
        return catalogue
    sharing = _sharing(home)
    off = {
        (kind, name)
        for kind in ("plugins", "skills")
        for name in chosen.disabled.get(kind, {})
        if all(chosen.off(kind, name, harness) for harness in sharing)
    }
    return _without(catalogue, off)


def _without_sources(home: paths.Scope, catalogue: Catalogue, names: frozenset[str]) -> Catalogue:
    """The catalogue without the plugins of the sources named."""
    from skilltool import sources

    if not names:
        return catalogue
    try:
        locked = sources.read_lock(home)
    except sources.SourceError:  # said by the sources commands and `status`
        locked = []
    roots = [str(sources.entry(home, s).path) for s in locked if s.name in names]

    def withheld(plugin: Plugin) -> bool:
        root = str(plugin.root)
        return any(root == r or root.startswith(r + os.sep) for r in roots)

    kept = [p for p in catalogue.plugins if not withheld(p)]
    return catalogue._replace(plugins=tuple(kept))


def open_ledger(home: paths.Scope) -> Ledger:
    from skilltool.ledger import Ledger

    return Ledger(home.ledger, home)


def _entries_plan(
    opts: Options,
    catalogue: Catalogue,
    remove: bool,
    found: list[Harness],
    ledger: Ledger,
    evidence: plan.Evidence,
) -> plan.Plan:
    """The MCP servers of the plugins as entries of each harness's config (SPEC §10)."""
    from skilltool.mcp import plan_entries

    return plan_entries(catalogue, found, ledger, remove, opts.force, evidence)


def install(opts: Options) -> Result:
    return _change(opts, remove=False)


def uninstall(opts: Options, purge: bool = False) -> Result:
    if purge and opts.only:
        raise UsageError(
            "--purge removes the checkouts every harness's files come from; leave out --only"
        )
    return _change(opts, remove=True, purge=purge)


def _purged(home: paths.Scope, opts: Options, failed: bool) -> list[report.Purged]:
    """`uninstall --purge`, the uninstall done: skilltool's own folders removed, those it
    alone reads and writes (the checkouts of added sources, the caches, the state: records
    and lock). The lockfile stays, to bring the same sources back (`sync`), and so does the
    user's plugins folder, which is theirs. After an uninstall that could not remove all it
    had to, nothing: the records still say what is skilltool's. A checkout edited by hand
    keeps the checkouts, unless --force."""
    import shutil

    edited: list[str] = []
    if os.path.lexists(home.sources_dir) and not opts.force:
        from skilltool import sources

        edited = sources.edited_checkouts(home)

    said = [
        (home.sources_dir, "the checkouts of the sources added; plugins.lock stays"),
        (home.cache_dir, "skilltool's caches"),
        (home.state_dir, "skilltool's records and lock"),
    ]
    purged: list[report.Purged] = []
    for folder, what in said:
        if not os.path.lexists(folder):
            continue
        if failed:
            why = "the uninstall could not remove all of skilltool's files; run it again"
            purged.append(report.Purged(folder, what, "kept", why))
        elif folder == home.sources_dir and edited:
            why = f"local changes in {'; '.join(edited)}; --force removes them anyway"
            purged.append(report.Purged(folder, what, "kept", why, failure=True))
        elif os.path.islink(folder) or not os.path.isdir(folder):
            why = "not a folder but a link or a file, which skilltool did not make"
            purged.append(report.Purged(folder, what, "kept", why))
        else:
            try:
                if not opts.dry_run:
                    shutil.rmtree(folder)
            except OSError as err:
                why = f"{err.strerror or err}; make it writable, then run again"
                purged.append(report.Purged(folder, what, "failed", why, failure=True))
            else:
                purged.append(report.Purged(folder, what))
    return purged


def _what_runs(home: paths.Scope, catalogue: Catalogue) -> dict[str, list[dict[str, object]]]:
    """Per fetched source, the commands of its plugins a harness would run, and whether
    the user approved each as it is now."""
    runs: dict[str, list[dict[str, object]]] = {}
    by_place = _fetched(home)[0]
    if not by_place:
        return runs
    from skilltool import consent

    for place, source in by_place.items():
        items = consent.runnables(catalogue.plugins, {place: source})
        runs[source.name] = [
            {
                "plugin": item.plugin,
                "what": item.key,
                "command": item.shown,
                "approved": consent.is_approved(item, source.approved),
                "note": item.note,
            }
            for item in items
        ]
    return runs


def _added_states(home: paths.Scope) -> list[dict[str, object]]:
    """The added sources as `status` shows them; nothing imported when there is no lockfile."""
    if not os.path.lexists(home.lockfile):
        return []
    from skilltool import sources

    return sources.states(home)
