"""Plans, outcomes and problems -> the lines a person reads, or the JSON a program reads.

One line per thing decided, with stable wording: the first word says what
happened, so that output can be grepped and compared across runs.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any

from skilltool.apply import Outcome
from skilltool.model import Catalogue, Plugin, Problem
from skilltool.paths import Home
from skilltool.plan import Action

DONE_VERBS = {
    ("link", "create"): "linked",
    ("link", "replace"): "relinked",
    ("link", "remove"): "unlinked",
    ("file", "create"): "wrote",
    ("file", "replace"): "rewrote",
    ("file", "remove"): "removed",
}
STATUS_WORDS = {
    "missing": "not linked",
    "current": "linked",
    "stale": "stale",
    "foreign": "left alone",
}


def _what(action: Action, home: Home) -> str:
    if action.kind == "link":
        return f"skill {action.name}"
    return f"{action.owner:<8} {home.show(action.target)}"


def action_line(action: Action, home: Home, error: str = "") -> str:
    """The line for one action: what was (or would be) done, or why nothing was."""
    where = home.show(action.target)
    if error:
        return f"{'failed':<9} {where}: {error}"
    if action.state == "absent":
        return f"{'skipped':<9} {action.owner}: {action.reason}"
    if action.change == "none":
        if action.state == "current":
            return f"{'unchanged':<9} {_what(action, home)}"
        return f"{'left':<9} {where}: {action.reason}"
    verb = DONE_VERBS[(action.kind, action.change)]
    if action.kind == "link" and action.change != "remove":
        return f"{verb:<9} skill {action.name} -> {action.source}"
    if action.change == "remove" or action.reason:
        return (
            f"{verb:<9} {_what(action, home)} ({action.reason})"
            if action.reason
            else f"{verb:<9} {_what(action, home)}"
        )
    return f"{verb:<9} {_what(action, home)}"


def outcome_lines(outcomes: Iterable[Outcome], home: Home, dry_run: bool) -> list[str]:
    prefix = "dry-run: " if dry_run else ""
    return [prefix + action_line(o.action, home, o.error) for o in outcomes]


def problem_line(problem: Problem) -> str:
    suffix = " (warning)" if problem.severity == "warning" else ""
    return f"{problem}{suffix}"


def action_dict(action: Action, home: Home, outcome: Outcome | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "kind": action.kind,
        "owner": action.owner,
        "name": action.name,
        "target": str(action.target),
        "state": action.state,
        "change": action.change,
        "source": str(action.source) if action.source else None,
        "reason": action.reason,
        "line": action_line(action, home, outcome.error if outcome else ""),
    }
    if outcome is not None:
        data["done"] = outcome.done
        data["error"] = outcome.error or None
    return data


def emit_json(data: object) -> None:
    json.dump(data, sys.stdout, indent=2, sort_keys=False)
    sys.stdout.write("\n")


def status_lines(catalogue: Catalogue, links: dict[str, Action], home: Home) -> list[str]:
    lines = []
    for entry in catalogue.entries:
        lines.append(f"search    {entry.origin:<8} {home.show(entry.path)}")
    if not catalogue.plugins:
        lines.append("no plugins found on the search path")
    for plugin in catalogue.plugins:
        lines += _plugin_lines(plugin, links, home)
    return lines


def skill_state(plugin: Plugin, name: str, links: dict[str, Action]) -> tuple[str, str]:
    """How one skill of a plugin stands in the skills dir, as words and a reason."""
    if not plugin.active:
        return "shadowed", f"by {plugin.shadowed_by}"
    action = links.get(name)
    if action is None or action.source is None or action.source.parent.parent != plugin.root:
        return "not linked", "another plugin's skill of that name comes first"
    return STATUS_WORDS[action.state], action.reason


def _plugin_lines(plugin: Plugin, links: dict[str, Action], home: Home) -> list[str]:
    shadow = f" shadowed by {home.show(plugin.shadowed_by)}" if plugin.shadowed_by else ""
    lines = [f"plugin    {plugin.name} ({plugin.origin}) {home.show(plugin.root)}{shadow}"]
    for skill in plugin.skills:
        state, reason = skill_state(plugin, skill.name, links)
        tail = f": {reason}" if reason and state not in ("linked", "not linked") else ""
        lines.append(f"  skill   {skill.name:<24} {state}{tail}")
    for agent in plugin.agents:
        lines.append(f"  agent   {agent.name:<24} {home.show(agent.path)}")
    for problem in plugin.problems:
        lines.append(f"  problem {problem_line(problem)}")
    return lines


def status_dict(
    catalogue: Catalogue, links: dict[str, Action], home: Home, skills_dir: str
) -> dict[str, Any]:
    plugins = []
    for plugin in catalogue.plugins:
        skills = []
        for skill in plugin.skills:
            state, reason = skill_state(plugin, skill.name, links)
            skills.append(
                {
                    "name": skill.name,
                    "path": str(skill.path),
                    "link": state,
                    "reason": reason or None,
                }
            )
        plugins.append(
            {
                "name": plugin.name,
                "origin": plugin.origin,
                "path": str(plugin.root),
                "manifest": str(plugin.manifest) if plugin.manifest else None,
                "shadowed_by": str(plugin.shadowed_by) if plugin.shadowed_by else None,
                "skills": skills,
                "agents": [
                    {"name": a.name, "path": str(a.path), "description": a.description}
                    for a in plugin.agents
                ],
                "problems": [p.as_dict() for p in plugin.problems],
            }
        )
    return {
        "search_path": [{"path": str(e.path), "origin": e.origin} for e in catalogue.entries],
        "skills_dir": skills_dir,
        "plugins": plugins,
        "problems": [p.as_dict() for p in catalogue.problems],
    }
