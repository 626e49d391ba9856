"""`add`, `update`, `remove` and `sync`: the sources of plugins, then an install (SPEC §9);
`approve`, `disable` and `enable`, which change what an install carries, then one."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from skilltool import discover, interrupt, paths, plan, project, report
from skilltool.commands import asking, configure
from skilltool.commands.common import Options
from skilltool.commands.install import (
    carried_out,
    failing,
    install_plan,
    interrupted_data,
    open_ledger,
    stopped_line,
    upstream,
)
from skilltool.errors import FAILED, INTERRUPTED, OK, SkilltoolError, UsageError
from skilltool.fs import locked, sweep
from skilltool.model import Catalogue, Plugin, Problem, SearchEntry, quoted
from skilltool.plan import Outcome
from skilltool.record import NamedTuple
from skilltool.report import Result

if TYPE_CHECKING:
    from skilltool import sources as sources_module
    from skilltool.settings import Kind
    from skilltool.sources import Done, Source


@contextlib.contextmanager
def _held(home: paths.Scope, opts: Options, looking: bool = False) -> Iterator[report.Progress]:
    """The home's lock for a sources command (none for a dry run, or `looking`, which write
    nothing), and the progress line it shows on a terminal, cleared when it ends."""
    with report.progress(opts.json or opts.verbosity == "quiet") as progress:
        if opts.dry_run or looking:
            yield progress
            return
        with locked(home.state_dir):
            # what a killed run left beside the lockfile (and a project's manifest) while
            # writing it: every run that writes them holds this lock
            lock = os.path.realpath(home.lockfile)
            sweep({home.data_dir, home.lockfile.parent, Path(lock).parent})
            yield progress


Gone = tuple[SearchEntry, tuple[str, ...]]  # an entry, and its plugins dropped (empty: all)


class Installed(NamedTuple):
    """What the install of a sources command did."""

    outcomes: list[Outcome]
    problems: list[Problem]
    stopped: tuple[plan.Action, ...] | None = None  # after Ctrl-C: every action planned


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

    extra = [where for where, _ in gone if where not in catalogue.entries]
    off_path = discover.discover(extra) if extra else None  # a stray no longer searched
    every = (*catalogue.plugins, *(off_path.plugins if off_path else ()))
    kept = [p._replace(shadowed_by=None) for p in catalogue.plugins if not dropped(p)]
    # the dropped ones stay, inactive: their skill folders still prove the links into them ours
    going = [p._replace(shadowed_by=p.root, problems=()) for p in every if dropped(p)]
    return catalogue._replace(
        entries=(*catalogue.entries, *extra),
        plugins=(*discover.shadow(kept), *going),
        read=catalogue.read | (off_path.read if off_path else frozenset()),
    )


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
    opts: Options,
    home: paths.Scope,
    warnings: list[str],
    gone: Sequence[Gone] = (),
    adding: SearchEntry | None = None,
    progress: report.Progress | None = None,
) -> Installed:
    """An install, the lock already held, with the plugins of the entries `gone` dropped
    (and those of `adding`, a source a dry run would add, on the search path). After Ctrl-C,
    only what was begun before it (`interrupt`)."""
    progress = progress or report.Progress(None)
    with contextlib.ExitStack() as held:
        if not opts.dry_run:
            held.enter_context(interrupt.deferred())
        progress.say("finding plugins")
        found, caches = discover.found(home, warnings, not opts.dry_run, adding)
        catalogue = _without(found, gone)
        ledger = open_ledger(home)
        progress.say("planning")
        planned = install_plan(
            opts, catalogue, home, False, caches, trust_links=False, ledger=ledger
        )
        actions = _said_removed(planned, gone)
        step = progress.steps("installing", actions.actions)
        outcomes, _ = carried_out(opts, home, actions.actions, None, ledger=ledger, step=step)
    problems = plan.once([*plan.all_problems(catalogue), *actions.problems])
    stopped = not opts.dry_run and interrupt.requested()
    return Installed(outcomes, problems, actions.actions if stopped else None)


def _sources_report(
    opts: Options,
    home: paths.Scope,
    done: list[Done],
    installed: Installed | None,
    warnings: list[str],
    code: int = OK,
    lines: tuple[str, ...] = (),
    after: Sequence[str] = (),
    again: str = "skilltool plugins install",
) -> Result:
    """What became of each source (and `after` it, what a marketplace offers), then the
    install's lines, and the exit code; after Ctrl-C, the line that says to run `again`."""
    outcomes, problems, stopped = installed or Installed([], [])
    prefix = "dry-run: " if opts.dry_run else ""
    said = [home.line(), *lines, *(prefix + line for item in done for line in item.lines())]
    said += after
    said += report.outcome_lines(outcomes, home, opts.dry_run, opts.verbosity)
    fetched = upstream(home, problems)
    if stopped is not None:  # what was done, said above; what was not, in the last line
        warnings.append(stopped_line(outcomes, stopped, again))
    elif installed is not None:
        counted = report.counts(outcomes)
        counted.update(report.problem_counts(problems, fetched))
        said.append(report.summary_line(counted, opts.dry_run))
    data = {
        "home": str(home.path),
        "scope": home.kind,
        "dry_run": opts.dry_run,
        "sources": [d.as_dict() for d in done],
        "actions": [report.action_dict(o.action, home, o) for o in outcomes],
        "problems": [report.problem_dict(p, fetched) for p in problems],
        # what a marketplace offers, what a fetched source runs and whether it was approved
        "notes": [*lines, *after],
    }
    if stopped is not None:
        data["interrupted"] = interrupted_data(outcomes, stopped)
    failed = any(not o.done for o in outcomes) or failing(problems, fetched, opts.strict)
    return Result(
        INTERRUPTED if stopped is not None else FAILED if failed else code,
        data,
        tuple(said),
        tuple(report.problem_lines(problems, fetched)),
        tuple(warnings),
    )


def _source_failure(opts: Options, err: Exception) -> Result:
    """A source command that could not be done: one line, nothing changed."""
    from skilltool import sources

    message = str(err)
    if isinstance(err, sources.NotAFolder):
        raise UsageError(message) from err
    if not message.startswith("kept "):
        raise SkilltoolError(message) from err
    data = {"dry_run": opts.dry_run, "sources": [], "kept": message}
    return Result(FAILED, data, (message,))


def plugins_approve(opts: Options, name: str, config: Sequence[str] = ()) -> Result:
    """`plugins approve`: what an added source would have a harness run, shown, approved
    (on a terminal, or with --yes), and the values of its plugins' options given (`--config`,
    or asked for on a terminal), then an install that carries it."""
    from skilltool import sources

    home = opts.where
    configure.pairs_of(config)  # a word that is not KEY=VALUE stops the run before anything
    warnings: list[str] = []
    said: list[str] = []
    code = OK
    try:
        with _held(home, opts):
            known = {s.name: s for s in sources.read_lock(home)}
            if name not in known:
                raise sources.SourceError(
                    f"{name}: no source of that name was added; 'skilltool plugins status' "
                    "lists them"
                )
            asking.consent(opts, home, [name], said)
            code = _configured(opts, home, known[name], config, said)
            installed = None if opts.dry_run else _installed(opts, home, warnings)
    except (sources.SourceError, OSError) as err:
        return _source_failure(opts, err)
    if not said:
        said.append(f"nothing   {name}: runs no command that waits for approval")
    return _sources_report(opts, home, [], installed, warnings, code, lines=tuple(said))


def _configured(
    opts: Options, home: paths.Scope, source: Source, config: Sequence[str], said: list[str]
) -> int:
    """The values given for the options of a source's plugins kept (configure.after_add); a
    value that cannot be kept is an error line and the exit code FAILED, the rest goes on."""
    from skilltool import sources

    if source.nothing or (home.kind == "project" and not config):
        return OK
    plugins = [p for p in discover.discover([sources.entry(home, source)]).plugins if p.active]
    if not config and not any(p.user_config for p in plugins):
        return OK
    try:
        configure.after_add(opts, home, plugins, config, said)
    except UsageError as err:
        said.append(f"error     {err}")
        return FAILED
    return OK


def plugins_add(
    opts: Options,
    source: str,
    ref: str | None,
    plugins: list[str],
    name: str | None,
    install_after: bool,
    all_of_it: bool = False,
    skills: Sequence[str] = (),
    config: Sequence[str] = (),
) -> Result:
    """`plugins add`: bring a source in and record it in the lockfile, then install."""
    from skilltool import sources

    if configure.pairs_of(config) and opts.where.kind == "project":
        raise UsageError(
            "a project keeps no value of a plugin's options: each teammate sets the variables "
            "'skilltool plugins status' names; leave out --config"
        )
    before = opts.where
    made = _not_there(before)
    home = _ready(opts, before)
    warnings: list[str] = []
    installed = None
    said: list[str] = []
    first: Done | None = None
    lockfile: bytes | None = None

    def look(added: sources.Source, root: Path) -> None:  # a dry run: the install it would do
        nonlocal installed
        where = sources.entry(home, added).path
        entry = sources.entry_at(root, added)
        outcomes, problems, _ = _installed(opts, home, warnings, adding=entry)
        installed = Installed([_moved(o, root, where) for o in outcomes], problems)

    try:
        with _held(home, opts) as progress:
            progress.say(f"adding {source}")
            asked = look if install_after and opts.dry_run else None
            if isinstance(home, paths.Project):
                _inside(home, source)
            pick = asking.picker(opts, all_of_it, said)
            lockfile = _bytes_of(home.lockfile)
            first = sources.add_known_marketplace(home, source, opts.dry_run)
            if first is not None and isinstance(home, paths.Project):
                project.record(home, first.source)
            locked = sources.read_lock(home)
            done = sources.add(
                home, source, ref, tuple(plugins), name, opts.dry_run, asked, pick, tuple(skills)
            )
            left: list[str] = []
            needed = (
                [] if opts.dry_run else _needed(home, source, name, plugins, done, locked, left)
            )
            said += left
            if isinstance(home, paths.Project) and not opts.dry_run:
                now = {s.name: s for s in sources.read_lock(home)}  # with what it records
                for each in [done, *needed]:
                    project.record(home, now.get(each.source.name, each.source))
                home = project.opened(home.path, home.namespace)  # with what it now names
            code = OK
            if not opts.dry_run:
                named = list(dict.fromkeys([done.source.name, *(d.source.name for d in needed)]))
                asking.consent(opts, home, named, said)
                for each in [done, *needed]:
                    code = max(code, _configured(opts, home, each.source, config, said))
            if install_after and (not opts.dry_run or installed is None):
                installed = _installed(opts, home, warnings, progress=progress)
            if not opts.dry_run:
                said += _off_by_default(home, [done, *needed])
    except (sources.SourceError, OSError) as err:
        _undo(home, first, lockfile, made)
        return _source_failure(opts, err)
    except SkilltoolError:
        _undo(home, first, lockfile, made)
        raise
    dones = [done, *needed] if first is None else [first, done, *needed]
    return _sources_report(opts, home, dones, installed, warnings, code, after=said)


def _off_by_default(home: paths.Scope, done: Sequence[Done]) -> list[str]:
    """A line for each plugin just added that is off by its own default (`defaultEnabled:
    false`) and that the user has not turned on: added, written to no harness."""
    from skilltool import settings, sources
    from skilltool.harnesses import NAMES

    if home.kind != "home":
        return []
    found = discover.discover([sources.entry(home, d.source) for d in done]).plugins
    plugins = [p for p in found if not p.default_enabled]
    chosen = settings.applied(home, plugins, NAMES)
    return [
        f"off       {p.name}: off by its default (defaultEnabled: false); 'skilltool plugins "
        f"enable {p.name}' turns it on"
        for p in plugins
        if chosen.where("plugins", p.name) and not settings.read(home).where("plugins", p.name)
    ]


def _needed(
    home: paths.Scope,
    text: str,
    name: str | None,
    plugins: Sequence[str],
    done: Done,
    before: list[Source],
    left: list[str],
) -> list[Done]:
    """The plugins what was just added needs (dependencies.add_needed), added too; when one
    cannot be, the lockfile is put back as it was `before` and the SourceError raised: the
    add changes nothing. An optional one that cannot be is a line in `left`."""
    from skilltool import dependencies, sources

    asked = sources.request(text, name)
    named = [*plugins, *([asked.plugin] if asked.plugin else [])]
    try:
        dependencies.asked_for(home, named)
        return dependencies.add_needed(home, done.source, dry_run=False, left=left)
    except (sources.SourceError, OSError):
        dependencies.restore(home, before)
        raise


def _undo(home: paths.Scope, first: Done | None, lockfile: bytes | None, made: list[Path]) -> None:
    """A failed add changes nothing: the marketplace it added first is dropped again (the
    lockfile as it was: `lockfile`), and what the first add in a project made is taken back."""
    from skilltool import sources

    if first is not None:
        sources.take_back(home, first.source, lockfile)
        if isinstance(home, paths.Project):
            project.forget(home, first.source.name)
    _take_back(made)


def _bytes_of(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _not_there(home: paths.Scope) -> list[Path]:
    """What the first `add` in a project makes (its manifest, skilltool's folder) that is
    not there yet: taken back when the add fails, which then changes nothing."""
    if not isinstance(home, paths.Project):
        return []
    return [p for p in (home.manifest, home.data_dir) if not os.path.lexists(p)]


def _take_back(made: list[Path]) -> None:
    import shutil

    for path in made:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(path)


def _ready(opts: Options, home: paths.Scope) -> paths.Scope:
    """A project as `add` finds it: its manifest made by the first add (naming the harnesses
    set up in the home of the person adding), and skilltool's folder with its ignore file."""
    if not isinstance(home, paths.Project) or os.path.lexists(home.manifest):
        if isinstance(home, paths.Project) and not opts.dry_run:
            project.keep_ignored(home)
        return home
    named = project.default_harnesses(opts.user_home)
    if opts.dry_run:
        return home._replace(harnesses=named)
    project.create(home.path, named)
    project.keep_ignored(home)
    return opts.where


def _inside(home: paths.Project, text: str) -> None:
    """A local source of a project is a folder inside it."""
    from skilltool import sources

    asked = sources.request(text)
    if asked.path is not None:
        try:
            project.inside(home.path, os.path.relpath(asked.path, home.path), text, asked.name)
        except SkilltoolError as err:
            raise sources.SourceError(str(err).split(": ", 1)[1]) from None


def _moved(outcome: Outcome, fetched: Path, checkout: Path) -> Outcome:
    """An action planned on a fetched tree, said of the checkout it would be."""
    source = outcome.action.source
    if source is None or not source.is_relative_to(fetched):
        return outcome
    moved = checkout / source.relative_to(fetched)
    return outcome._replace(action=outcome.action._replace(source=moved))


def plugins_update(opts: Options, names: list[str], check: bool) -> Result:
    """`plugins update`: each source to the newest commit of its ref, then install.
    With --check (or --dry-run) nothing is written; --check exits 1 when one is outdated."""
    from skilltool import sources

    home = opts.where
    warnings: list[str] = []
    looking = check or opts.dry_run
    try:
        with _held(home, opts, looking) as progress:
            progress.say("fetching the sources' refs")
            done = sources.update(home, names, looking, opts.force, preview=opts.dry_run)
            said: list[str] = []
            if not looking:
                _renamed(home, done, said)
                asking.consent(opts, home, [d.source.name for d in done], said)
            installed = None if looking else _installed(opts, home, warnings, progress=progress)
    except (sources.SourceError, OSError) as err:
        return _source_failure(opts, err)
    hint = () if done else ("nothing was added: 'skilltool plugins add SOURCE' brings plugins in",)
    outdated = any(d.verb == "outdated" for d in done)
    code = FAILED if check and outdated else OK
    return _sources_report(opts, home, done, installed, warnings, code, hint, after=said)


def _renamed(home: paths.Scope, done: Sequence[Done], said: list[str]) -> None:
    """Plugins a marketplace renamed, recorded under their new names by `update`: the
    project's manifest names them so too, and the user's settings for them follow."""
    from skilltool import settings

    renamed = {old: new for d in done for old, new in d.renamed.items() if new is not None}
    if home.kind == "home":  # a marketplace used whole: its renames, of the plugins found
        renamed.update(settings.renames_in(discover.find(home, [])))
    if isinstance(home, paths.Project):
        for each in done:
            if each.renamed:
                project.record(home, each.source)
    for key in settings.rename_plugins(home, renamed):
        field, old = key.rsplit(".", 1)
        said.append(
            f"settings  {field}.{old} is now {field}.{renamed[old]}: its plugin was renamed"
        )


def plugins_remove(opts: Options, name: str) -> Result:
    """`plugins remove`: prune what came from a source while it is still on the search path
    (so its links are provably ours), then drop it from the lockfile and delete its checkout."""
    from skilltool import sources

    home = opts.where
    warnings: list[str] = []
    try:
        with _held(home, opts) as progress:
            gone = sources.removal(home, name, opts.force)
            also = _unneeded(home, gone, warnings)
            every = sources.removals(home, name, also, opts.force)
            dropped = [(g.entry, g.plugins) for g in every]
            installed = _installed(opts, home, warnings, dropped, None, progress)
            # after Ctrl-C the source stays: its links are provably ours while it is searched
            pruned = installed.stopped is None and all(o.done for o in installed.outcomes)
            if pruned and not opts.dry_run:
                for each in every:
                    sources.forget(home, each)
                    if isinstance(home, paths.Project):
                        if each.after is None:
                            project.forget(home, each.source.name)
                        else:
                            project.record(home, each.after)
    except (sources.SourceError, OSError) as err:
        return _source_failure(opts, err)
    said = []
    for each in every:
        verb = "removed" if pruned else "kept"
        mine = [p for p in each.plugins if p not in also]
        needed = [p for p in each.plugins if p in also]
        if each.after is None:
            what = "its checkout and lockfile entry"
            needed = [p for p in also if p in (each.source.name, *each.source.plugins)]
        else:
            what = f"plugin {', '.join(mine)}" if mine else "plugin"
            what = what if mine else f"plugin {', '.join(needed)}"
        if needed:
            what += f" ({', '.join(needed)}: needed by {name} alone)"
        detail = what if pruned else "what came from it could not all be pruned; run again"
        said.append(sources.Done(verb, each.source, detail=detail))
    code = OK if pruned else FAILED
    again = f"skilltool plugins remove {name}"
    return _sources_report(opts, home, said, installed, warnings, code, again=again)


def _unneeded(home: paths.Scope, gone: sources_module.Removal, warnings: list[str]) -> list[str]:
    """The plugins added as a dependency (`as-dependency` in the lockfile) that nothing needs
    once those `gone` takes are removed."""
    from skilltool import dependencies, sources

    lock = sources.read_lock(home)
    if not any(s.as_dependency for s in lock):
        return []
    catalogue = discover.find(home, warnings)
    if gone.plugins:
        going = list(gone.plugins)
    else:
        entry = sources.entry(home, gone.source)
        going = [p.name for p in discover.discover([entry]).plugins]
    return dependencies.unneeded(catalogue, lock, going)


def plugins_sync(opts: Options, frozen: bool) -> Result:
    """`plugins sync`: this home's sources at the lockfile's commits, then install; a
    checkout the lockfile no longer has is pruned and deleted (kept if edited by hand)."""
    from skilltool import sources

    home = opts.where
    warnings: list[str] = []
    try:
        with _held(home, opts) as progress:
            progress.say("fetching the sources of the lockfile")
            went: list[sources.Source] = []
            if isinstance(home, paths.Project):
                if not opts.dry_run:
                    project.keep_ignored(home)
                asked = project.read(home.path).sources
                went = sources.reconcile(home, asked, frozen, opts.dry_run)
            # a clone's committed copies and renderings need no network: used as they are
            offline = frozen and isinstance(home, paths.Project) and home.copies
            done = sources.sync(home, frozen, opts.dry_run, offline)
            done += [sources.Done("removed", s, detail="not in skilltool.toml") for s in went]
            left = sources.strays(home, sources.read_lock(home))
            clean = [s for s in left if not s.changed]
            gone = [(s.entry, ()) for s in clean] + [(sources.entry(home, s), ()) for s in went]
            installed = None
            if not opts.dry_run:
                installed = _installed(opts, home, warnings, gone, None, progress)
                # after Ctrl-C the strays stay: their links are provably ours while searched
                if installed.stopped is None and all(o.done for o in installed.outcomes):
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
    code = FAILED if any(s.changed for s in left) else OK
    return _sources_report(
        opts, home, done, installed, warnings, code, again="skilltool plugins sync"
    )


def plugins_switch(
    opts: Options, name: str, kind: Kind | None, harnesses: Sequence[str], off: bool
) -> Result:
    """`plugins disable` and `enable`: a plugin, or one skill or agent of one, turned off (or
    on again) in some harnesses or all, kept in the user's settings; then an install, which
    removes it from those harnesses, or writes it there again."""
    from skilltool import settings
    from skilltool.harnesses import NAMES

    home = opts.where
    if home.kind != "home":
        raise UsageError(
            "a project's plugins and harnesses are its manifest's: edit skilltool.toml "
            "('plugins' and 'harnesses' of a source); disable and enable act on a home"
        )
    unknown = [h for h in harnesses if h not in NAMES]
    if unknown:
        raise UsageError(f"--harness {unknown[0]!r}: not a harness; one of {', '.join(NAMES)}")
    settings.check_names(home, NAMES)  # the file is mended first, not edited around a mistake
    warnings: list[str] = []
    catalogue = discover.find(home, warnings)
    found = _switched(catalogue, name, kind)
    where = tuple(dict.fromkeys(harnesses)) or (settings.EVERY,)
    notes = _shared_skills(home, catalogue, found, name, where, off)
    # a plugin off by its own default (defaultEnabled: false) is turned on in [enabled.plugins]
    default_off = found == "plugins" and any(
        p.name == name and not p.default_enabled for p in catalogue.plugins
    )
    with _held(home, opts):
        if opts.dry_run:
            renames = settings.renames_in(catalogue)
            now = settings.applied(home, catalogue.plugins, NAMES, renames).where(found, name)
            installed = None
        else:
            now = settings.change(home, found, name, where, off, NAMES, default_off)
            installed = _installed(opts, home, warnings)
    said = "every harness" if settings.EVERY in where else ", ".join(where)
    state = (
        "off in every harness"
        if settings.EVERY in now
        else f"off in {', '.join(sorted(now))}"
        if now
        else "on in every harness"
    )
    verb = "disabled" if off else "enabled"
    line = f"{verb:<9} {found[:-1]} {name} in {said} (now {state})"
    return _sources_report(opts, home, [], installed, warnings, lines=(line, *notes))


def _switched(catalogue: Catalogue, name: str, kind: Kind | None) -> Kind:
    """What `name` names: a plugin, or with --skill or --agent one skill or agent (a name no
    plugin has, but one skill or agent has, is that one)."""
    kinds: dict[Kind, set[str]] = {
        "plugins": {p.name for p in catalogue.plugins},
        "skills": {s.name for p in catalogue.plugins for s in p.skills},
        "agents": {a.name for p in catalogue.plugins for a in p.agents},
    }
    if kind is not None:
        if name not in kinds[kind]:
            raise SkilltoolError(f"no {kind[:-1]} named {name!r} among the plugins found")
        return kind
    for guess, names in kinds.items():
        if name in names:
            return guess
    raise SkilltoolError(
        f"no plugin, skill or agent named {name!r}: 'skilltool plugins list' lists the plugins"
    )


def _shared_skills(
    home: paths.Scope, catalogue: Catalogue, kind: Kind, name: str, where: Sequence[str], off: bool
) -> list[str]:
    """A skill is linked once into ~/.agents/skills, which every harness but those with a
    folder of their own reads: it cannot be off in one of them alone. A skill turned off
    there is refused; a plugin's skills stay there, with a line that says so."""
    from skilltool import settings
    from skilltool.harnesses import harnesses

    if settings.EVERY in where or not off or kind == "agents":
        return []
    own = {h.name for h in harnesses(home, None) if h.own_skills_dir() is not None}
    sharing = [h for h in where if h not in own]
    if not sharing:
        return []
    shared = home.show(home.skills_dir)
    if kind == "skills":
        raise UsageError(
            f"skill {name!r} is read from {shared} by {', '.join(sharing)} and every other "
            f"harness that reads that folder: turn it off everywhere (no --harness), or in "
            f"{', '.join(sorted(own))}, which read a folder of their own"
        )
    count = sum(len(p.skills) for p in catalogue.plugins if p.name == name and p.active)
    if not count:
        return []
    return [
        f"note      its {count} skill(s) stay in {shared}, which {', '.join(sharing)} read(s) "
        "as every harness without a folder of its own does: disable it everywhere to take "
        "them away"
    ]


def plugins_configure(
    opts: Options, name: str, words: Sequence[str], unset: Sequence[str]
) -> Result:
    """`plugins configure NAME [KEY=VALUE...]`: the values given kept (on a terminal, with
    none given, each option asked for), then an install that puts them in; `--unset KEY`
    forgets one. With nothing given and no terminal, the options and what they stand at."""
    from skilltool import settings

    home = opts.where
    configure.no_project(home)
    warnings: list[str] = []
    catalogue = discover.find(home, warnings)
    plugin = next((p for p in catalogue.active if p.name == name), None)
    if plugin is None:
        raise UsageError(
            f"no plugin {quoted(name)} on the search path: 'skilltool plugins list' lists them"
        )
    if not plugin.user_config:
        raise UsageError(f"plugin {name} declares no options (no userConfig): nothing to set")
    given = configure.pairs_of(words)
    for key in unset:
        if key not in plugin.user_config:
            raise UsageError(f"--unset {key}: plugin {name} declares no such option")
    configure.checked(plugin, given, home)
    said: list[str] = []
    if not given and not unset and not configure.terminal(opts):
        lines = configure.option_lines(plugin, settings.read(home).config.get(name, {}))
        return _sources_report(opts, home, [], None, warnings, lines=tuple(lines))
    with _held(home, opts):
        configure.keep(opts, home, plugin, given, said)
        if unset and not opts.dry_run:
            settings.configure(home, name, {}, unset)
        said += [f"unset     {name}: {key}" for key in unset]
        installed = None if opts.dry_run else _installed(opts, home, warnings)
    if not said:
        said.append(f"unchanged {name}: every value as it was")
    return _sources_report(opts, home, [], installed, warnings, lines=tuple(said))
