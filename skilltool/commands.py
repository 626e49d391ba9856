"""One function per command: find -> read -> plan -> apply -> report.

Each returns a `report.Result` (what to print, as text or JSON, and the exit code) or
raises a `SkilltoolError`; `cli` prints either, in one place.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skilltool import discover, paths, plan, report, slash
from skilltool.apply import MadeDirs, Outcome, apply, unwritable
from skilltool.errors import FAILED, OK, SkilltoolError, UsageError
from skilltool.fs import locked
from skilltool.model import Agent, Catalogue, Plugin, Problem, SearchEntry
from skilltool.parse import SKILL_FILE
from skilltool.record import NamedTuple
from skilltool.report import Result

if TYPE_CHECKING:
    from skilltool.harnesses import Harness, Verdict
    from skilltool.mcp import Ledger
    from skilltool.sources import Done
    from skilltool.trusted import CatalogueCache


CATALOGUE_FILE = "catalogue.marshal"  # in the cache dir, beside parsed.marshal


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

    @property
    def where(self) -> paths.Home:
        return paths.Home.resolve(self.home, self.namespace)

    def dir(self, home: paths.Home) -> Path:
        if self.skills_dir is None:
            return home.skills_dir
        return paths.named_directory(self.skills_dir, "--dir")


def find(
    home: paths.Home,
    warnings: list[str],
    keep_cache: bool = True,
    adding: SearchEntry | None = None,
) -> Catalogue:
    """The plugins on the search path; files unchanged since the last run are not re-parsed.

    `adding`: a source not recorded yet (a dry run of `add`), placed where it would be."""
    catalogue, trust = find_trusted(home, warnings, keep_cache, adding)
    if keep_cache:
        trust.save()
    return catalogue


def find_trusted(
    home: paths.Home,
    warnings: list[str],
    keep_cache: bool = True,
    adding: SearchEntry | None = None,
) -> tuple[Catalogue, CatalogueCache]:
    """`find`, and the catalogue cache it came from or went into (unsaved: the links planned
    later are kept in it too). A catalogue every answer of which still holds is not walked."""
    entries = paths.search_path(home)
    if adding is not None and not any(e.origin == "override" for e in entries):
        last = max((i + 1 for i, e in enumerate(entries) if e.origin == "added"), default=0)
        entries.insert(last, adding)
    if any(e.origin == "override" for e in entries):
        shown = ":".join(str(e.path) for e in entries)
        warnings.append(
            f"warning: {paths.OVERRIDE_VARIABLE} is set: plugins are taken only from {shown} "
            "and trusted as if installed; unset it for normal use"
        )
    from skilltool import probe
    from skilltool.cache import ParseCache, collector_paused
    from skilltool.trusted import CatalogueCache

    with collector_paused():
        file = home.cache_dir / CATALOGUE_FILE if adding is None else None
        trust = CatalogueCache(file, tuple(entries))
        if trust.catalogue is not None:
            return trust.catalogue, trust
        with probe.recording() as seen:
            cache = ParseCache(home.cache_dir / "parsed.marshal")
            catalogue = discover.discover(entries, cache)
        trust.keep(catalogue, seen)
    if keep_cache:
        cache.save()
    return catalogue, trust


def _home_lines(home: paths.Home) -> list[str]:
    """A first line naming the home, when it is not the real one."""
    return [] if home.is_real else [f"home      {home.path}"]


def status(opts: Options) -> Result:
    """The plan an install would carry out, shown as the state of each thing: one code path."""
    home = opts.where
    skills_dir = opts.dir(home)  # checked before anything is read
    warnings: list[str] = []
    catalogue, trust = find_trusted(home, warnings)
    found = harnesses(home, skills_dir, opts.only)
    full = _install_plan(opts, catalogue, home, False, found, skills_dir, trust)
    links = [a for a in full.actions if a.kind == "link"]
    # text says only "harness absent" of a harness not set up: its tools note is for --json
    noted = found if opts.json else [h for h in found if h.root().is_dir()]
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
        skills_dir,
        entries=tuple(a for a in full.actions if a.kind == "entry"),
        commands=[a for a in full.actions if a.kind == "command"],
    )
    added = _added_states(home)
    data = _status_data(view, full, added) if opts.json else {}
    lines = [*_home_lines(home), *view.lines(), *(report.source_line(row) for row in added)]
    lines += [
        f"problem   {report.problem_line(p)}"
        for p in plan.once([*catalogue.problems, *full.problems])
    ]
    lines.append(report.next_step(full.actions))
    return Result(OK, data, tuple(lines), warnings=tuple(warnings))


def _status_data(
    view: report.StatusView, full: plan.Plan, added: list[dict[str, object]]
) -> dict[str, Any]:
    """The JSON document of `status`: built only for --json (a record per item costs time)."""
    data = view.as_dict()
    data["home"] = str(view.home.path)
    told = set(view.catalogue.problems)
    data["problems"] += [p.as_dict() for p in full.problems if p not in told]
    data["sources"] = added
    data["install_would"] = report.counts(Outcome(a, True) for a in full.actions)
    return data


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


def _change(opts: Options, remove: bool) -> Result:
    """install or uninstall: find, plan and apply under the home's lock, then report.

    The lock covers the plan too: a run that planned before another finished applying
    would find that run's links in its way. --dry-run writes nothing, the lock included.
    """
    home = opts.where
    skills_dir = opts.dir(home)
    warnings: list[str] = []
    with contextlib.ExitStack() as held:
        if not opts.dry_run:
            try:
                held.enter_context(locked(home.state_dir))
            except OSError as err:
                raise SkilltoolError(
                    f"cannot take the lock in {home.show(home.state_dir)} "
                    f"({err.strerror or err}); nothing was changed: make it writable, "
                    "or give another --home"
                ) from None
        catalogue, trust = find_trusted(home, warnings, keep_cache=not opts.dry_run)
        found = harnesses(home, skills_dir, opts.only)
        actions = _install_plan(opts, catalogue, home, remove, found, skills_dir, trust)
        # never a harness's own root, nor the home, whatever the record says
        keep = frozenset({home.path, *(h.root() for h in found)}) if remove else None
        # taken before anything is written: the diff of each file as it is made
        diffs = report.diff_lines(actions.actions, home) if opts.diff or opts.dry_run else []
        outcomes, emptied = _carried_out(opts, home, actions.actions, keep, trust.clean)
    problems = plan.once([*plan.all_problems(catalogue), *actions.problems])
    counted = report.counts(outcomes)
    lines = _home_lines(home) + report.outcome_lines(outcomes, home, opts.dry_run, opts.verbosity)
    if opts.verbosity != "quiet":
        lines += [report.emptied_line(path, home, opts.dry_run) for path in emptied]
    lines += diffs
    lines.append(report.summary_line(counted, opts.dry_run))
    data = {
        "home": str(home.path),
        "dry_run": opts.dry_run,
        # only --json prints them: a line of its own for every unchanged item costs time
        "actions": [report.action_dict(o.action, home, o) for o in outcomes] if opts.json else [],
        "problems": [p.as_dict() for p in problems],
        "summary": counted,
        # the directories skilltool had made and uninstall left empty, so removed
        "removed_dirs": [str(path) for path in emptied],
    }
    failed = any(not o.done for o in outcomes)
    # uninstall succeeds when all of its own is gone, whatever the plugins on the path hold
    invalid = not remove and any(p.severity == "error" for p in problems)
    return Result(
        FAILED if failed or invalid else OK,
        data,
        tuple(lines),
        tuple(f"problem   {report.problem_line(p)}" for p in problems),
        tuple(warnings),
    )


def _carried_out(
    opts: Options,
    home: paths.Home,
    actions: tuple[plan.Action, ...],
    keep: frozenset[Path] | None,
    clean: Collection[str] = (),
) -> tuple[list[Outcome], list[Path]]:
    """The plan applied (or only shown, with --dry-run); with `keep`, then the directories
    skilltool made that are empty now are removed, but for those in `keep`. `clean`: folders
    known to hold no temporary file of a killed run (unchanged since seen so)."""
    if opts.dry_run:
        going = frozenset(a.target for a in actions if _goes(a))
        made = MadeDirs(home.state_dir)
        return [Outcome(a, True) for a in actions], [] if keep is None else made.would_prune(
            keep, going
        )
    blocked = unwritable(actions)
    if blocked:
        return [_not_done(a, blocked, home) for a in actions], []
    made = MadeDirs(home.state_dir)
    outcomes = apply(actions, made, _ledger(home), clean)
    return outcomes, made.prune(keep) if keep is not None else []


def _goes(action: plan.Action) -> bool:
    """Whether applying the action removes the file at its target (an MCP entry's removal
    removes its config file only when that held nothing else)."""
    if action.change != "remove" or action.backup is not None:
        return False
    return action.kind != "entry" or action.content is None


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
    from skilltool.harnesses import harnesses

    return harnesses(home, skills_dir, only)


def _install_plan(
    opts: Options,
    catalogue: Catalogue,
    home: paths.Home,
    remove: bool,
    found: list[Harness] | None = None,
    skills_dir: Path | None = None,
    trust: CatalogueCache | None = None,
) -> plan.Plan:
    """Links in the skills dir (unless --only), then each harness's own links and files.

    `trust`: the catalogue cache `catalogue` came from, which also knows the skills dirs last
    seen as planned (saved here, with the rendering cache, unless --dry-run)."""
    skills_dir = skills_dir or opts.dir(home)
    parts = [] if opts.only else [plan.plan_links(catalogue, skills_dir, remove, trust=trust)]
    if found is None:
        found = harnesses(home, skills_dir, opts.only)
    for harness in found:  # a harness that reads only a skills dir of its own gets links there
        own = harness.own_skills_dir() if harness.root().is_dir() else None
        if own is not None:
            parts.append(plan.plan_links(catalogue, own, remove, harness.name, trust))
    from skilltool.cache import RenderCache

    renders = RenderCache(home.cache_dir / "rendered.marshal")
    parts.append(plan.plan_renderings(catalogue, found, remove, opts.force, renders))
    parts.append(slash.plan_commands(catalogue, found, remove, opts.force, renders))
    if not opts.dry_run:  # --dry-run writes nothing, the caches included
        renders.save()
        if trust is not None:
            trust.save()
    parts.append(_entries_plan(opts, catalogue, home, remove, found))
    return plan.merge(parts)


def _ledger(home: paths.Home) -> Ledger:
    from skilltool.mcp import Ledger

    return Ledger(home.state_dir)


def _entries_plan(
    opts: Options, catalogue: Catalogue, home: paths.Home, remove: bool, found: list[Harness]
) -> plan.Plan:
    """The MCP servers of the plugins as entries of each harness's config (SPEC §10)."""
    from skilltool.mcp import plan_entries

    return plan_entries(catalogue, found, _ledger(home), remove=remove, force=opts.force)


def install(opts: Options) -> Result:
    return _change(opts, remove=False)


def uninstall(opts: Options) -> Result:
    return _change(opts, remove=True)


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
    summary = (
        f"checked {len(catalogue.plugins)} plugin(s), {skills} valid skill(s), "
        f"{agents} valid agent(s): {errors} error(s), {warning_count} warning(s)"
    )
    commands = sum(len(p.slash_commands) for p in catalogue.plugins)
    if commands:  # said only when there are some, so a plugin without commands reads as before
        summary = summary.replace(
            " valid agent(s)", f" valid agent(s), {commands} valid command(s)"
        )
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
    """What each harness does with one skill or agent that skilltool links or renders."""

    kind: str  # "skill" or "agent"
    name: str
    file: Path  # the SKILL.md or the agent file: where its problems point
    by_harness: dict[str, tuple[str, Verdict | None]]  # harness -> (title, verdict)
    said_once: frozenset[str] = frozenset()  # harnesses whose refusal is one line for all

    @property
    def refused(self) -> bool:
        return any(v is not None and v.skips for _, v in self._told().values())

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
    does with it; then the verdicts of items with no problem that some harness refuses."""
    by_file = {v.file: v for v in verdicts}
    lines, told = [], set()
    for index, problem in enumerate(problems):
        lines.append(report.problem_line(problem))
        last = index + 1 == len(problems) or problems[index + 1].path != problem.path
        item = by_file.get(problem.path)
        if last and item is not None and item.file not in told:
            told.add(item.file)
            lines.append(f"{item.file}: verdict: {item.line()}")
    lines += [
        f"{v.file}: verdict: {v.line()}" for v in verdicts if v.refused and v.file not in told
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
