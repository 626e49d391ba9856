"""`validate`: every problem of the plugins, and what each harness will do with each item."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from skilltool import discover, paths, plan, report, slash
from skilltool.commands.common import Options, harnesses
from skilltool.errors import FAILED, OK
from skilltool.model import Catalogue, Plugin, Problem, SearchEntry
from skilltool.parse import SKILL_FILE
from skilltool.record import NamedTuple
from skilltool.report import Result

if TYPE_CHECKING:
    from skilltool.harnesses import Harness, Verdict


def validate(targets: list[str], strict: bool, opts: Options) -> Result:
    warnings: list[str] = []
    if targets:
        entries = [
            SearchEntry(paths.named_path(t, "a path to validate"), "argument") for t in targets
        ]
        catalogue = discover.discover(entries)
    else:
        catalogue = discover.find(opts.where, warnings)
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
    found = harnesses(home, None)
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
    scope = () if targets else (home.line(),)  # the search path is the scope's
    lines = (*scope, *_validate_lines(problems, verdicts), *_no_commands_lines(catalogue, found))
    lines += (summary,)
    code = FAILED if errors or (empty and targets) else OK
    return Result(code, data, lines, warnings=tuple(warnings))


class ItemVerdicts(NamedTuple):
    """What each harness does with one skill, agent, command or MCP server that skilltool
    links, renders or carries."""

    kind: str  # "skill", "agent", "command", "server" or "hook"
    name: str
    file: Path  # the SKILL.md, the agent's or command's file, the servers' file
    by_harness: dict[str, tuple[str, Verdict | None]]  # harness -> (title, verdict)
    said_once: frozenset[str] = frozenset()  # harnesses whose refusal is one line for all

    @property
    def where(self) -> str:
        """What its line starts with: its file, and a server's name (one file holds many)."""
        if self.kind == "hook":
            return f"{self.file}: hook {self.name}"
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
        no_agents = frozenset(h.name for h in found if h.no_agents)
        for agent in plugin.agents:
            by = {h.name: (h.title, h.agent_verdict(agent)) for h in found}
            items.append(ItemVerdicts("agent", agent.name, agent.path, by, no_agents))
        none = frozenset(h.name for h in found if h.command_syntax is None)
        for command in plugin.slash_commands:
            by = {h.name: (h.title, slash.verdict(h, command)) for h in found}
            items.append(ItemVerdicts("command", command.name, command.path, by, none))
        for server in plugin.mcp_servers:
            by = {h.name: (h.title, h.mcp_verdict(server)) for h in found}
            items.append(ItemVerdicts("server", server.name, server.path, by))
        if plugin.hook_commands:
            items += _hook_verdicts(plugin, found)
    return items


def _hook_verdicts(plugin: Plugin, found: list[Harness]) -> list[ItemVerdicts]:
    """Each hook: which harnesses run it, and why the others do not (the loss report)."""
    from skilltool import hooks

    none = frozenset(h.name for h in found if h.hooks_refusal() is not None)
    items = []
    for hook in plugin.hook_commands:
        by = {h.name: (h.title, hooks.verdict(h, plugin, hook)) for h in found}
        on = f" on {hook.matcher}" if hook.matcher not in ("", "*") else ""
        items.append(ItemVerdicts("hook", f"{hook.event}{on}", hook.path, by, none))
    return items


def _no_commands_lines(catalogue: Catalogue, found: list[Harness]) -> list[str]:
    """A harness that takes no agent, command (or hook) at all is said once, not beside each."""
    lines = []
    if any(p.agents for p in catalogue.active):
        lines += [f"agents: {h.title} takes none: {h.no_agents}" for h in found if h.no_agents]
    if any(p.slash_commands for p in catalogue.active):
        lines += [
            f"commands: {h.title} takes none: {h.no_commands}"
            for h in found
            if h.command_syntax is None
        ]
    if any(p.hook_commands for p in catalogue.active):
        lines += [
            f"hooks: {h.title} runs none: {why}"
            for h in found
            if (why := h.hooks_refusal()) is not None  # here: in a home, or in a project
        ]
    return lines


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
