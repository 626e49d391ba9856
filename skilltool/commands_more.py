"""The commands a run rarely invokes: render, launch, validate, package and the sources
commands (add, update, remove, sync). Imported only by a run of one of them, so that
`status` and `install` (the hook) do not load them; `commands` still answers their names.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from skilltool import discover, paths, plan, report, slash
from skilltool.apply import Outcome
from skilltool.commands import (
    Options,
    _carried_out,
    _install_plan,
    find,
    harnesses,
)
from skilltool.errors import FAILED, OK, SkilltoolError, UsageError
from skilltool.fs import locked
from skilltool.model import Agent, Catalogue, Plugin, Problem, SearchEntry
from skilltool.parse import SKILL_FILE
from skilltool.record import NamedTuple
from skilltool.report import Result

if TYPE_CHECKING:
    from skilltool.harnesses import Harness, Verdict
    from skilltool.sources import Done


def find_agent(catalogue: Catalogue, name: str) -> Agent | None:
    agents, _ = plan.winning_agents(catalogue)
    return next((a for a in agents if a.name == name), None)


def _agent_for(
    agent_name: str, harness_name: str, opts: Options, warnings: list[str]
) -> tuple[Agent, Harness]:
    """The agent of that name on the search path and the harness asked for."""
    home = opts.where
    skills_dir = opts.dir(home)
    catalogue = find(home, warnings)
    agent = find_agent(catalogue, agent_name)
    if agent is None:
        import difflib

        names = [a.name for a in plan.winning_agents(catalogue)[0]]
        close = difflib.get_close_matches(agent_name, names, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise SkilltoolError(
            f"no agent {agent_name!r} on the search path; {hint}"
            "'skilltool plugins status' lists them"
        )
    [harness] = harnesses(home, skills_dir, harness_name)
    return agent, harness


def render(agent_name: str, harness_name: str, opts: Options) -> Result:
    if agent_name.startswith("/"):  # a slash command, named as it is typed
        return render_command(agent_name[1:], harness_name, opts)
    warnings: list[str] = []
    agent, harness = _agent_for(agent_name, harness_name, opts, warnings)
    home = harness.home
    renderings = harness.render(agent)
    data = {
        "agent": agent.name,
        "harness": harness.name,
        "files": [
            {"target": str(r.target), "mode": r.mode, "content": r.content.decode("utf-8")}
            for r in renderings
        ],
    }
    raw = b""
    for rendering in renderings:
        if len(renderings) > 1:
            raw += f"==> {home.show(rendering.target)} <==\n".encode()
        raw += rendering.content
        if len(renderings) > 1 and not rendering.content.endswith(b"\n"):
            raw += b"\n"
    return Result(OK, data, warnings=tuple(warnings), raw=raw)


def render_command(name: str, harness_name: str, opts: Options) -> Result:
    """`render /NAME`: a slash command's file for a harness, or why that harness has none."""
    warnings: list[str] = []
    home = opts.where
    catalogue = find(home, warnings)
    found = {c.name: c for _, c in slash.winning_commands(catalogue)[0]}
    command = found.get(name)
    if command is None:
        listed = ", ".join(f"/{n}" for n in sorted(found)) or "none"
        raise SkilltoolError(f"no command /{name} on the search path (commands: {listed})")
    [harness] = harnesses(home, opts.dir(home), harness_name)
    why = slash.refusal(harness, command)
    if why is not None:
        raise SkilltoolError(f"{harness.title} gets no file for /{name}: {why}")
    rendering = slash.render(harness, command)
    data = {
        "command": command.name,
        "harness": harness.name,
        "files": [{"target": str(rendering.target), "mode": rendering.mode,
                   "content": rendering.content.decode("utf-8")}],
    }  # fmt: skip
    return Result(OK, data, warnings=tuple(warnings), raw=rendering.content)


def launch(agent_name: str, harness_name: str, opts: Options) -> Result:
    warnings: list[str] = []
    agent, harness = _agent_for(agent_name, harness_name, opts, warnings)
    clash = harness.builtin_clash(agent)
    if clash is not None:  # launching it would start the harness's own agent
        raise SkilltoolError(f"{harness.title} cannot start the plugin's {agent.name}: {clash}")
    how = harness.launch(agent)
    unwritten = [r.target for r in harness.render(agent) if not _is_current(r.target, r.content)]
    for target in unwritten:
        warnings.append(
            f"warning: {harness.home.show(target)} is not rendered yet (or is outdated); "
            f"run 'skilltool plugins install --only {harness.name}' first"
        )
    data = {
        "agent": agent.name,
        "harness": harness.name,
        "command": how.command,
        "env": dict(how.env),
        "notes": list(how.notes),
        "not_rendered": [str(t) for t in unwritten],
    }
    lines = report.launch_lines(agent.name, harness.name, how)
    return Result(OK, data, tuple(lines), warnings=tuple(warnings))


def _is_current(target: Path, content: bytes) -> bool:
    from skilltool.fs import read_regular

    return read_regular(target) == content


def validate(targets: list[str], strict: bool, opts: Options) -> Result:
    warnings: list[str] = []
    if targets:
        entries = [
            SearchEntry(paths.named_path(t, "a path to validate"), "argument") for t in targets
        ]
        catalogue = discover.discover(entries)
    else:
        catalogue = find(opts.where, warnings)
    problems = plan.all_problems(catalogue) + _cross_checks(catalogue)
    if strict:
        problems = [Problem(p.path, p.message, p.field, p.line, "error") for p in problems]
    errors = sum(p.severity == "error" for p in problems)
    warning_count = len(problems) - errors
    skills = sum(len(p.skills) for p in catalogue.plugins)
    agents = sum(len(p.agents) for p in catalogue.plugins)
    counted = [f"{len(catalogue.plugins)} plugin(s)", f"{skills} valid skill(s)"]
    counted.append(f"{agents} valid agent(s)")
    # commands and servers said only when there are some: a plugin without reads as before
    commands = sum(len(p.slash_commands) for p in catalogue.plugins)
    servers = sum(len(p.mcp_servers) for p in catalogue.plugins)
    counted += [f"{commands} valid command(s)"] if commands else []
    counted += [f"{servers} valid MCP server(s)"] if servers else []
    summary = f"checked {', '.join(counted)}: {errors} error(s), {warning_count} warning(s)"
    empty = not catalogue.plugins
    if empty:
        where = ", ".join(targets) if targets else "the search path"
        summary += f"; no plugin found in {where}: nothing to check"
    home = opts.where
    found = harnesses(home, home.skills_dir, None)
    verdicts = _verdicts(catalogue, found)
    data = {
        "plugins": [
            {
                "name": p.name,
                "path": str(p.root),
                "origin": p.origin,
                "kind": p.kind,
                "skills": [s.name for s in p.skills],
                "agents": [a.name for a in p.agents],
                "slash_commands": [c.name for c in p.slash_commands],
            }
            for p in catalogue.plugins
        ],
        "problems": [p.as_dict() for p in problems],
        "verdicts": [v.as_dict() for v in verdicts],
        "errors": errors,
        "warnings": warning_count,
    }
    lines = (*_validate_lines(problems, verdicts), *_no_commands_lines(catalogue, found), summary)
    code = FAILED if errors or (empty and targets) else OK
    return Result(code, data, lines, warnings=tuple(warnings))


class ItemVerdicts(NamedTuple):
    """What each harness does with one skill, agent, command or MCP server that skilltool
    links, renders or carries."""

    kind: str  # "skill", "agent", "command" or "server"
    name: str
    file: Path  # the SKILL.md, the agent's or command's file, the servers' file
    by_harness: dict[str, tuple[str, Verdict | None]]  # harness -> (title, verdict)
    said_once: frozenset[str] = frozenset()  # harnesses whose refusal is one line for all

    @property
    def where(self) -> str:
        """What its line starts with: its file, and a server's name (one file holds many)."""
        return f"{self.file}: mcp {self.name}" if self.kind == "server" else str(self.file)

    @property
    def refused(self) -> bool:
        return any(v is not None and v.skips for _, v in self._told().values())

    @property
    def worth_a_line(self) -> bool:
        """Said without a problem of its own: a harness skips it, or (a server, whose file
        holds others) does to it what Claude Code does not."""
        if self.kind == "server":
            return any(v is not None for _, v in self._told().values())
        return self.refused

    def line(self) -> str:
        from skilltool.harnesses import verdict_line

        return verdict_line(dict(self._told().values()))

    def _told(self) -> dict[str, tuple[str, Verdict | None]]:
        return {k: v for k, v in self.by_harness.items() if k not in self.said_once}

    def as_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "name": self.name,
            "path": str(self.file),
            "summary": self.line(),
            "harnesses": {
                name: {"loads": v is None or not v.skips, "note": v.why if v else None}
                for name, (_, v) in self.by_harness.items()
            },
        }


def _verdicts(catalogue: Catalogue, found: list[Harness]) -> list[ItemVerdicts]:
    """Per-harness verdicts on every skill and agent of the active plugins."""
    items = []
    for plugin in catalogue.active:
        for skill in plugin.skills:
            by = {h.name: (h.title, h.skill_verdict(skill)) for h in found}
            items.append(ItemVerdicts("skill", skill.name, skill.path / SKILL_FILE, by))
        for agent in plugin.agents:
            by = {h.name: (h.title, h.agent_verdict(agent)) for h in found}
            items.append(ItemVerdicts("agent", agent.name, agent.path, by))
        none = frozenset(h.name for h in found if h.command_syntax is None)
        for command in plugin.slash_commands:
            by = {h.name: (h.title, slash.verdict(h, command)) for h in found}
            items.append(ItemVerdicts("command", command.name, command.path, by, none))
        for server in plugin.mcp_servers:
            by = {h.name: (h.title, h.mcp_verdict(server)) for h in found}
            items.append(ItemVerdicts("server", server.name, server.path, by))
    return items


def _no_commands_lines(catalogue: Catalogue, found: list[Harness]) -> list[str]:
    """A harness that takes no command at all is said once, not beside every command."""
    if not any(p.slash_commands for p in catalogue.active):
        return []
    return [
        f"commands: {h.title} takes none: {h.no_commands}"
        for h in found
        if h.command_syntax is None
    ]


def _validate_lines(problems: list[Problem], verdicts: list[ItemVerdicts]) -> list[str]:
    """Each problem in one line; after the problems of a skill or agent, what each harness
    does with it; then the verdicts of the others that some harness refuses (each server's
    on a line of its own, whatever its file's problems, also when it is only noted)."""
    by_file = {v.file: v for v in verdicts if v.kind != "server"}  # a server's file: many
    lines, told = [], set()
    for index, problem in enumerate(problems):
        lines.append(report.problem_line(problem))
        last = index + 1 == len(problems) or problems[index + 1].path != problem.path
        item = by_file.get(problem.path)
        if last and item is not None and item.file not in told:
            told.add(item.file)
            lines.append(f"{item.file}: verdict: {item.line()}")
    lines += [
        f"{v.where}: verdict: {v.line()}"
        for v in verdicts
        if v.worth_a_line and v.file not in told  # (never a server's: not in by_file)
    ]
    return lines


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


def package(sources: list[str], destdir: str, prefix: str, strict: bool, opts: Options) -> Result:
    """The distro build step: validate strictly, then stage (SPEC §7)."""
    from skilltool import package as staging

    if not destdir:
        raise UsageError("--destdir is empty; give the staging directory")
    namespace = opts.namespace or paths.DEFAULT_NAMESPACE
    result = staging.package(
        [paths.named_path(s, "a plugin to package") for s in sources],
        Path(os.path.abspath(os.path.expanduser(destdir))),
        prefix,
        namespace,
        dry_run=opts.dry_run,
        strict=strict,
    )
    data = {
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
    lines = [report.problem_line(p) for p in result.problems]
    prefix_word = "dry-run: " if opts.dry_run else ""
    if result.failed:
        errors = sum(p.severity == "error" for p in result.problems)
        lines.append(f"not staged: {errors} error(s); nothing was written")
    else:
        for plugin, dest in result.plugins:
            count = sum(1 for s in result.staged if s.kind != "dir" and dest in s.path.parents)
            lines.append(f"{prefix_word}{'staged':<9} {plugin.name} -> {dest} ({count} files)")
    code = FAILED if result.failed or not result.plugins else OK
    return Result(code, data, tuple(lines))


# --------------------------------------------------------------------------- sources (SPEC §9)


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
    home: paths.Home,
    warnings: list[str],
    gone: Sequence[Gone] = (),
    adding: SearchEntry | None = None,
) -> tuple[list[Outcome], list[Problem]]:
    """An install, the lock already held, with the plugins of the entries `gone` dropped
    (and those of `adding`, a source a dry run would add, on the search path)."""
    catalogue = _without(find(home, warnings, not opts.dry_run, adding), gone)
    actions = _said_removed(_install_plan(opts, catalogue, home, remove=False), gone)
    outcomes, _ = _carried_out(opts, home, actions.actions, None)
    return outcomes, plan.once([*plan.all_problems(catalogue), *actions.problems])


def _sources_report(
    opts: Options,
    home: paths.Home,
    done: list[Done],
    installed: tuple[list[Outcome], list[Problem]] | None,
    warnings: list[str],
    code: int = OK,
    lines: tuple[str, ...] = (),
) -> Result:
    """What became of each source, then the install's lines, and the exit code."""
    outcomes, problems = installed or ([], [])
    prefix = "dry-run: " if opts.dry_run else ""
    said = [*lines, *(prefix + line for item in done for line in item.lines())]
    said += report.outcome_lines(outcomes, home, opts.dry_run, opts.verbosity)
    if installed is not None:
        said.append(report.summary_line(report.counts(outcomes), opts.dry_run))
    data = {
        "home": str(home.path),
        "dry_run": opts.dry_run,
        "sources": [d.as_dict() for d in done],
        "actions": [report.action_dict(o.action, home, o) for o in outcomes],
        "problems": [p.as_dict() for p in problems],
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


def plugins_add(
    opts: Options,
    source: str,
    ref: str | None,
    plugins: list[str],
    name: str | None,
    install_after: bool,
) -> Result:
    """`plugins add`: bring a source in and record it in the lockfile, then install."""
    from skilltool import sources

    home = opts.where
    warnings: list[str] = []
    installed = None

    def look(added: sources.Source, root: Path) -> None:  # a dry run: the install it would do
        nonlocal installed
        where = sources.entry(home, added).path
        entry = SearchEntry(root, "added", added.plugins)
        outcomes, problems = _installed(opts, home, warnings, adding=entry)
        installed = ([_moved(o, root, where) for o in outcomes], problems)

    try:
        with _held(home, opts.dry_run):
            asked = look if install_after and opts.dry_run else None
            done = sources.add(home, source, ref, tuple(plugins), name, opts.dry_run, asked)
            if install_after and (not opts.dry_run or installed is None):
                installed = _installed(opts, home, warnings)
    except (sources.SourceError, OSError) as err:
        return _source_failure(opts, err)
    return _sources_report(opts, home, [done], installed, warnings)


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
            installed = None if looking else _installed(opts, home, warnings)
    except (sources.SourceError, OSError) as err:
        return _source_failure(opts, err)
    hint = () if done else ("nothing was added: 'skilltool plugins add SOURCE' brings plugins in",)
    outdated = any(d.verb == "outdated" for d in done)
    code = FAILED if check and outdated else OK
    return _sources_report(opts, home, done, installed, warnings, code, hint)


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
            done = sources.sync(home, frozen, opts.dry_run)
            left = sources.strays(home, sources.read_lock(home))
            clean = [s for s in left if not s.changed]
            installed = None
            if not opts.dry_run:
                installed = _installed(opts, home, warnings, [(s.entry, ()) for s in clean])
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
