"""Plans, outcomes and problems -> the lines a person reads, or the JSON a program reads.

One line per thing decided, with stable wording: the first word says what
happened, so that output can be grepped and compared across runs.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from skilltool.apply import Outcome
from skilltool.model import Catalogue, Plugin, Problem
from skilltool.parse import UNPRINTABLE
from skilltool.paths import Home
from skilltool.plan import Action

if TYPE_CHECKING:
    from skilltool.harnesses import Launch

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


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if "\udc80" <= char <= "\udcff":  # a byte that is not UTF-8, as the file system gave it
        return f"\\x{ord(char) - 0xDC00:02x}"
    return ascii(char)[1:-1]


def printable(line: str) -> str:
    """A line as it can be printed: a name's line breaks, control characters and bytes that
    are not UTF-8 are shown escaped, so one thing decided stays one line and never fails
    to encode."""
    return UNPRINTABLE.sub(_escape, line)


def _what(action: Action, home: Home) -> str:
    if action.kind == "link":
        # a link in a harness's own skills dir says whose it is
        return (
            f"skill {action.name}"
            if action.owner == "skill"
            else f"{action.owner:<8} skill {action.name}"
        )
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
        return f"{verb:<9} {_what(action, home)} -> {action.source}"
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
    import json

    json.dump(data, sys.stdout, indent=2, sort_keys=False)
    sys.stdout.write("\n")


FILE_WORDS = {
    "missing": "missing",
    "current": "current",
    "stale": "outdated",
    "edited": "edited",
    "foreign": "foreign",
    "absent": "harness absent",
    "placeholder": "missing",
}


def skill_state(plugin: Plugin, name: str, links: dict[str, Action]) -> tuple[str, str]:
    """How one skill of a plugin stands in the skills dir, as words and a reason."""
    if not plugin.active:
        return "shadowed", f"by {plugin.shadowed_by}"
    action = links.get(name)
    if action is None or action.source is None or action.source.parent.parent != plugin.root:
        return "not linked", "another plugin's skill of that name comes first"
    return STATUS_WORDS[action.state], action.reason


class StatusView(NamedTuple):
    """What `status` shows: the search path, each plugin, its skills' links, its agents' files."""

    catalogue: Catalogue
    links: dict[str, Action]  # skill name -> its link in the skills dir
    harness_links: dict[tuple[str, str], Action]  # (harness, skill) -> its link there
    files: list[Action]
    enforced: dict[tuple[str, str], bool]  # (harness, agent) -> tools enforced there
    home: Home
    skills_dir: Path

    def _harness_states(self, plugin: Plugin, skill: str) -> dict[str, str]:
        """How a skill stands in each harness's own skills dir (Claude Code's)."""
        owners = sorted({owner for owner, _ in self.harness_links})
        states = {}
        for owner in owners:
            links = {n: a for (o, n), a in self.harness_links.items() if o == owner}
            states[owner] = skill_state(plugin, skill, links)[0]
        return states

    def _files_of(self, agent: str) -> list[Action]:
        return [a for a in self.files if a.name == agent]

    def _tools_note(self, action: Action) -> str:
        enforced = self.enforced.get((action.owner, action.name), True)
        return "" if enforced or action.state == "absent" else " (tools not enforced)"

    def lines(self) -> list[str]:
        show = self.home.show
        lines = [f"skills    {show(self.skills_dir)}"]
        lines += [f"search    {e.origin:<8} {show(e.path)}" for e in self.catalogue.entries]
        if not self.catalogue.plugins:
            lines.append("no plugins found on the search path")
        for plugin in self.catalogue.plugins:
            shadow = f" shadowed by {show(plugin.shadowed_by)}" if plugin.shadowed_by else ""
            lines.append(f"plugin    {plugin.name} ({plugin.origin}) {show(plugin.root)}{shadow}")
            for skill in plugin.skills:
                state, reason = skill_state(plugin, skill.name, self.links)
                tail = f": {reason}" if reason and state not in ("linked", "not linked") else ""
                for owner, there in self._harness_states(plugin, skill.name).items():
                    tail += f"; {owner}: {there}"
                lines.append(f"  skill   {skill.name:<24} {state}{tail}")
            for agent in plugin.agents:
                lines.append(f"  agent   {agent.name:<24} {show(agent.path)}")
                told: set[str] = set()
                if not plugin.active:
                    continue
                for action in self._files_of(agent.name):
                    word = FILE_WORDS[action.state]
                    where = action.reason if action.state == "absent" else show(action.target)
                    # the tools note once per harness: it is about the agent, not each file
                    note = "" if action.owner in told else self._tools_note(action)
                    told.add(action.owner)
                    lines.append(f"    {action.owner:<9} {word:<15} {where}{note}")
            for problem in plugin.problems:
                lines.append(f"  problem {problem_line(problem)}")
        return lines

    def as_dict(self) -> dict[str, Any]:
        plugins = []
        for plugin in self.catalogue.plugins:
            skills = []
            for skill in plugin.skills:
                state, reason = skill_state(plugin, skill.name, self.links)
                skills.append(
                    {
                        "name": skill.name,
                        "path": str(skill.path),
                        "link": state,
                        "reason": reason or None,
                        "harness_links": self._harness_states(plugin, skill.name),
                    }
                )
            agents = []
            for agent in plugin.agents:
                renderings = (
                    []
                    if not plugin.active
                    else [
                        {
                            "harness": a.owner,
                            "state": FILE_WORDS[a.state],
                            "target": str(a.target),
                            "reason": a.reason or None,
                            "tools_enforced": self.enforced.get((a.owner, a.name), True),
                        }
                        for a in self._files_of(agent.name)
                    ]
                )
                agents.append(
                    {
                        "name": agent.name,
                        "path": str(agent.path),
                        "description": agent.description,
                        "renderings": renderings,
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
                    "agents": agents,
                    "problems": [p.as_dict() for p in plugin.problems],
                }
            )
        return {
            "search_path": [
                {"path": str(e.path), "origin": e.origin} for e in self.catalogue.entries
            ],
            "skills_dir": str(self.skills_dir),
            "plugins": plugins,
            "problems": [p.as_dict() for p in self.catalogue.problems],
        }


def source_line(row: dict[str, Any]) -> str:
    """One added source, as `status` shows it: where from, ref, commit, local changes."""
    if row["name"] is None:
        return f"problem   {row['problem']}"
    ref = f" ref {row['ref']}" if row["ref"] and row["ref"] != row["commit"] else ""
    ref = " default branch" if row["commit"] and not row["ref"] else ref
    commit = f" commit {row['commit'][:12]}" if row["commit"] else ""
    commit += f" plugins {', '.join(row['plugins'])}" if row["plugins"] else ""
    changes = row["local_changes"]
    tail = f" ({len(changes)} local change(s): {', '.join(changes[:3])})" if changes else ""
    tail += f" ({row['problem']})" if row["problem"] else ""
    return f"source    {row['name']} {row['source']}{ref}{commit}{tail}"


def launch_lines(agent: str, harness: str, how: Launch) -> list[str]:
    """The command, its environment, and an agents.toml block for an ACP host."""
    import shlex

    import tomlkit

    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in how.env.items())
    command = " ".join(shlex.quote(c) for c in how.command)
    lines = [f"# start {harness} as the agent {agent} over ACP", f"{env} {command}".strip(), ""]
    block = tomlkit.table()
    block["name"] = f"{agent} ({harness})"
    block["command"] = how.command[0]
    block["args"] = how.command[1:]
    if how.env:
        env_table = tomlkit.inline_table()
        env_table.update(how.env)
        block["env"] = env_table
    document = tomlkit.document()
    document.append("agents", tomlkit.aot())
    document["agents"].append(block)
    lines += ["# agents.toml", *tomlkit.dumps(document).rstrip("\n").split("\n")]
    lines += [f"# {note}" for note in how.notes]
    return lines
