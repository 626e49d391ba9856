"""`add`, `update`, `remove` and `sync`: the sources of plugins, then an install (SPEC §9)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from skilltool import discover, paths, plan, project, report
from skilltool.apply import Outcome
from skilltool.commands.common import Options
from skilltool.commands.install import carried_out, install_plan, open_ledger
from skilltool.errors import FAILED, OK, SkilltoolError, UsageError
from skilltool.fs import locked
from skilltool.model import Catalogue, Plugin, Problem, SearchEntry
from skilltool.report import Result

if TYPE_CHECKING:
    from skilltool.sources import Done, Pick


@contextlib.contextmanager
def _held(home: paths.Scope, dry_run: bool) -> Iterator[None]:
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
) -> tuple[list[Outcome], list[Problem]]:
    """An install, the lock already held, with the plugins of the entries `gone` dropped
    (and those of `adding`, a source a dry run would add, on the search path)."""
    found, caches = discover.found(home, warnings, not opts.dry_run, adding)
    catalogue = _without(found, gone)
    ledger = open_ledger(home)
    planned = install_plan(opts, catalogue, home, False, caches, trust_links=False, ledger=ledger)
    actions = _said_removed(planned, gone)
    outcomes, _ = carried_out(opts, home, actions.actions, None, ledger=ledger)
    return outcomes, plan.once([*plan.all_problems(catalogue), *actions.problems])


def _sources_report(
    opts: Options,
    home: paths.Scope,
    done: list[Done],
    installed: tuple[list[Outcome], list[Problem]] | None,
    warnings: list[str],
    code: int = OK,
    lines: tuple[str, ...] = (),
    after: Sequence[str] = (),
) -> Result:
    """What became of each source (and `after` it, what a marketplace offers), then the
    install's lines, and the exit code."""
    outcomes, problems = installed or ([], [])
    prefix = "dry-run: " if opts.dry_run else ""
    said = [home.line(), *lines, *(prefix + line for item in done for line in item.lines())]
    said += after
    said += report.outcome_lines(outcomes, home, opts.dry_run, opts.verbosity)
    if installed is not None:
        said.append(report.summary_line(report.counts(outcomes), opts.dry_run))
    data = {
        "home": str(home.path),
        "scope": home.kind,
        "dry_run": opts.dry_run,
        "sources": [d.as_dict() for d in done],
        "actions": [report.action_dict(o.action, home, o) for o in outcomes],
        "problems": [p.as_dict() for p in problems],
        # what a marketplace offers, what a fetched source runs and whether it was approved
        "notes": [*lines, *after],
    }
    failed = any(not o.done for o in outcomes) or any(p.severity == "error" for p in problems)
    return Result(
        FAILED if failed else code,
        data,
        tuple(said),
        tuple(f"problem   {report.problem_line(p)}" for p in problems),
        tuple(warnings),
    )


def _source_failure(opts: Options, err: Exception) -> Result:
    """A source command that could not be done: one line, nothing changed."""
    message = str(err)
    if not message.startswith("kept "):
        raise SkilltoolError(message) from err
    data = {"dry_run": opts.dry_run, "sources": [], "kept": message}
    return Result(FAILED, data, (message,))


def carried(plugin: Plugin) -> str:
    """What a plugin carries, in words: `3 skills, 1 agent, 1 MCP server, hooks`."""
    counts = [
        (len(plugin.skills), "skill"),
        (len(plugin.agents), "agent"),
        (len(plugin.slash_commands), "command"),
        (len(plugin.mcp_servers), "MCP server"),
    ]
    said = [f"{n} {what}{'s' if n > 1 else ''}" for n, what in counts if n]
    return ", ".join(said + (["hooks"] if plugin.hooks else [])) or "nothing skilltool carries"


def _descriptions(at: Path) -> dict[str, str]:
    """Each plugin's description, as the marketplace lists it."""
    from skilltool import parse

    market, _ = parse.read_marketplace(at / parse.MARKETPLACE_FILE)
    if market is None:
        return {}
    said = {e.name: e.fields.get("description") for e in market.entries}
    return {k: v for k, v in said.items() if isinstance(v, str)}


def offer_lines(source_name: str, at: Path, offered: Sequence[Plugin]) -> list[str]:
    """The plugins a marketplace offers, one line each: number, name, description, what
    each carries."""
    told = _descriptions(at)
    lines = [f"offers    {source_name}: {len(offered)} plugin(s)"]
    for number, plugin in enumerate(offered, 1):
        about = told.get(plugin.name, "")
        about = about if len(about) <= 60 else about[:59] + "…"
        lines.append(f"  {number:>3}  {plugin.name:<24} {about}  [{carried(plugin)}]")
    return lines


def _picker(opts: Options, all_of_it: bool, said: list[str]) -> Pick | None:
    """How a marketplace added with no plugin named is picked from: `--all` takes every
    plugin; on a terminal the user picks; otherwise none is installed, and the lines say
    what it offers and how to pick."""
    if all_of_it:
        return None
    from skilltool import sources

    def ask(source: sources.Source, at: Path, offered: Sequence[Plugin]) -> tuple[str, ...]:
        for line in offer_lines(source.name, at, offered):
            sys.stdout.write(line + "\n")
        sys.stdout.write("pick      numbers or names (separated by spaces), 'all', or nothing: ")
        sys.stdout.flush()
        return _chosen(sys.stdin.readline(), offered)

    def none(source: sources.Source, at: Path, offered: Sequence[Plugin]) -> tuple[str, ...]:
        said.extend(offer_lines(source.name, at, offered))
        said.append(
            f"pick      none installed: add --plugin NAME (repeatable) or --all, or "
            f"'skilltool plugins add NAME@{source.name}'"
        )
        return ()

    tty = sys.stdin.isatty() and sys.stdout.isatty() and not opts.json and not opts.dry_run
    return ask if tty else none


def _chosen(answer: str, offered: Sequence[Plugin]) -> tuple[str, ...]:
    """The plugins an answer names (numbers or names); an unknown word is a usage error."""
    words = answer.replace(",", " ").split()
    if words == ["all"]:
        return tuple(p.name for p in offered)
    names = [p.name for p in offered]
    chosen = []
    for word in words:
        if word.isdigit() and 1 <= int(word) <= len(names):
            chosen.append(names[int(word) - 1])
        elif word in names:
            chosen.append(word)
        else:
            raise UsageError(f"{word!r} is not one of the plugins offered; nothing was added")
    return tuple(dict.fromkeys(chosen))


def _consent(opts: Options, home: paths.Scope, names: Sequence[str], said: list[str]) -> None:
    """What the sources named (fetched from a URL) would have a harness run: each command
    not approved in its exact form is shown, with each server's URL it sends requests to;
    `--yes`, or a yes on a terminal, approves what is shown (recorded in the lockfile),
    else the install leaves them out and says how to approve them."""
    from skilltool import consent, sources

    chosen = {p: s for p, s in consent.fetched(home).items() if s.name in names}
    for place, source in chosen.items():
        if source.nothing:  # a marketplace none of whose plugins is picked: nothing runs
            continue
        plugins = discover.discover([sources.entry(home, source)]).plugins
        for plugin in plugins:
            said += [
                f"sends     {plugin.name}: MCP server {server.name!r} sends the harness's "
                f"requests to {server.url}"
                for server in plugin.mcp_servers
                if server.url is not None
            ]
        items = consent.runnables(plugins, {place: source})
        held = consent.waiting(items, source.approved)
        if not held:
            continue
        for each in held:
            item = each.runnable
            server = item.key.split(":", 1)[1]
            if each.was is None:
                said.append(f"runs      {item.plugin}: MCP server {server!r}: {item.shown}")
                continue
            said += [
                f"runs      {item.plugin}: MCP server {server!r} changed since you approved it:",
                f"  -       {each.was}",
                f"  +       {item.shown}",
            ]
        if opts.dry_run or not (opts.yes or _asked(said, f"approve what {source.name} runs")):
            said.append(
                f"held      {source.name}: {len(held)} command(s) no harness is given until "
                f"approved: 'skilltool plugins approve {source.name}' (--yes for scripts)"
            )
            continue
        approved = consent.approve(
            [h.runnable for h in held], source.approved, [i.key for i in items]
        )
        sources.write_lock(
            home,
            [
                s._replace(approved=approved) if s.name == source.name else s
                for s in sources.read_lock(home)
            ],
        )
        said.append(f"approved  {source.name}: {len(held)} command(s)")


def _asked(said: list[str], question: str) -> bool:
    """On a terminal: the lines so far, then a yes-or-no question; False without one."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    for line in said:
        sys.stdout.write(line + "\n")
    said.clear()
    sys.stdout.write(f"ask       {question}? [y/N] ")
    sys.stdout.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def plugins_approve(opts: Options, name: str) -> Result:
    """`plugins approve`: what an added source would have a harness run, shown, approved
    (on a terminal, or with --yes), then an install that carries it."""
    from skilltool import sources

    home = opts.where
    warnings: list[str] = []
    said: list[str] = []
    try:
        with _held(home, opts.dry_run):
            known = {s.name: s for s in sources.read_lock(home)}
            if name not in known:
                raise sources.SourceError(
                    f"{name}: no source of that name was added; 'skilltool plugins status' "
                    "lists them"
                )
            _consent(opts, home, [name], said)
            installed = None if opts.dry_run else _installed(opts, home, warnings)
    except (sources.SourceError, OSError) as err:
        return _source_failure(opts, err)
    if not said:
        said.append(f"nothing   {name}: runs no command that waits for approval")
    return _sources_report(opts, home, [], installed, warnings, lines=tuple(said))


def plugins_add(
    opts: Options,
    source: str,
    ref: str | None,
    plugins: list[str],
    name: str | None,
    install_after: bool,
    all_of_it: bool = False,
) -> Result:
    """`plugins add`: bring a source in and record it in the lockfile, then install."""
    from skilltool import sources

    home = _ready(opts, opts.where)
    warnings: list[str] = []
    installed = None
    said: list[str] = []

    def look(added: sources.Source, root: Path) -> None:  # a dry run: the install it would do
        nonlocal installed
        where = sources.entry(home, added).path
        entry = SearchEntry(root, "added", added.plugins)
        outcomes, problems = _installed(opts, home, warnings, adding=entry)
        installed = ([_moved(o, root, where) for o in outcomes], problems)

    try:
        with _held(home, opts.dry_run):
            asked = look if install_after and opts.dry_run else None
            if isinstance(home, paths.Project):
                _inside(home, source)
            pick = _picker(opts, all_of_it, said)
            done = sources.add(home, source, ref, tuple(plugins), name, opts.dry_run, asked, pick)
            if isinstance(home, paths.Project) and not opts.dry_run:
                project.record(home, done.source)
            if not opts.dry_run:
                _consent(opts, home, [done.source.name], said)
            if install_after and (not opts.dry_run or installed is None):
                installed = _installed(opts, home, warnings)
    except (sources.SourceError, OSError) as err:
        return _source_failure(opts, err)
    return _sources_report(opts, home, [done], installed, warnings, after=said)


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
        with _held(home, looking):
            done = sources.update(home, names, looking, opts.force, preview=opts.dry_run)
            said: list[str] = []
            if not looking:
                _consent(opts, home, [d.source.name for d in done], said)
            installed = None if looking else _installed(opts, home, warnings)
    except (sources.SourceError, OSError) as err:
        return _source_failure(opts, err)
    hint = () if done else ("nothing was added: 'skilltool plugins add SOURCE' brings plugins in",)
    outdated = any(d.verb == "outdated" for d in done)
    code = FAILED if check and outdated else OK
    return _sources_report(opts, home, done, installed, warnings, code, hint, after=said)


def plugins_remove(opts: Options, name: str) -> Result:
    """`plugins remove`: prune what came from a source while it is still on the search path
    (so its links are provably ours), then drop it from the lockfile and delete its checkout."""
    from skilltool import sources

    home = opts.where
    warnings: list[str] = []
    try:
        with _held(home, opts.dry_run):
            gone = sources.removal(home, name, opts.force)
            outcomes, problems = _installed(opts, home, warnings, [(gone.entry, gone.plugins)])
            pruned = all(o.done for o in outcomes)
            if pruned and not opts.dry_run:
                sources.forget(home, gone)
                if isinstance(home, paths.Project):
                    if gone.after is None:
                        project.forget(home, gone.source.name)
                    else:
                        project.record(home, gone.after)
    except (sources.SourceError, OSError) as err:
        return _source_failure(opts, err)
    verb = "removed" if pruned else "kept"
    what = f"plugin {name}" if gone.after is not None else "its checkout and lockfile entry"
    detail = what if pruned else "what came from it could not all be pruned; run again"
    done = sources.Done(verb, gone.source, detail=detail)
    code = OK if pruned else FAILED
    return _sources_report(opts, home, [done], (outcomes, problems), warnings, code)


def plugins_sync(opts: Options, frozen: bool) -> Result:
    """`plugins sync`: this home's sources at the lockfile's commits, then install; a
    checkout the lockfile no longer has is pruned and deleted (kept if edited by hand)."""
    from skilltool import sources

    home = opts.where
    warnings: list[str] = []
    try:
        with _held(home, opts.dry_run):
            went: list[sources.Source] = []
            if isinstance(home, paths.Project):
                if not opts.dry_run:
                    project.keep_ignored(home)
                asked = project.read(home.path).sources
                went = sources.reconcile(home, asked, frozen, opts.dry_run)
            done = sources.sync(home, frozen, opts.dry_run)
            done += [sources.Done("removed", s, detail="not in skilltool.toml") for s in went]
            left = sources.strays(home, sources.read_lock(home))
            clean = [s for s in left if not s.changed]
            gone = [(s.entry, ()) for s in clean] + [(sources.entry(home, s), ()) for s in went]
            installed = None
            if not opts.dry_run:
                installed = _installed(opts, home, warnings, gone)
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
    code = FAILED if any(s.changed for s in left) else OK
    return _sources_report(opts, home, done, installed, warnings, code)
