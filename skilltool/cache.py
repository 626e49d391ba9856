"""A cache of parsed skills and agents, keyed by each file's stat, so that a run over
files that have not changed since the last one parses nothing (and imports no YAML).

It lives in the user's cache dir; losing it costs only time. A file whose device,
inode, size, mtime or ctime differ is parsed again.
"""

from __future__ import annotations

import marshal
import os
from pathlib import Path
from typing import Any

from skilltool import __version__, parse
from skilltool.model import Agent, Marketplace, MarketplaceEntry, Problem, Skill, SlashCommand

# bumped whenever what parse says about a file changes, so no stale verdict is served
FORMAT = f"skilltool-parsed-3-{__version__}"
Stamp = tuple[int, int, int, int, int]


def _stamp(path: Path) -> Stamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _problems_out(problems: list[Problem]) -> list[tuple[Any, ...]]:
    return [(str(p.path), p.message, p.field, p.line, p.severity) for p in problems]


def _problems_in(rows: list[tuple[Any, ...]]) -> list[Problem]:
    return [Problem(Path(r[0]), r[1], r[2], r[3], r[4]) for r in rows]


class ParseCache:
    """Parsed files from earlier runs; `save` keeps only what this run looked at."""

    def __init__(self, file: Path | None) -> None:
        self.file = file
        self.old: dict[str, Any] = {}
        self.new: dict[str, Any] = {}
        if file is not None:
            try:
                data = marshal.loads(file.read_bytes())
                if isinstance(data, dict) and data.get("format") == FORMAT:
                    self.old = data["entries"]
            except (OSError, ValueError, EOFError, TypeError, KeyError):
                pass  # no cache, or a damaged one: parse everything

    def _lookup(self, path: Path) -> tuple[Stamp | None, Any]:
        stamp = _stamp(path)
        hit = self.old.get(str(path))
        if stamp is not None and hit is not None and tuple(hit[0]) == stamp:
            self.new[str(path)] = hit
            return stamp, hit[1]
        return stamp, None

    def read_skill(self, directory: Path) -> tuple[Skill | None, list[Problem]]:
        path = directory / parse.SKILL_FILE
        stamp, hit = self._lookup(path)
        if hit is not None:
            fields, rows = hit
            skill = Skill(fields[0], directory, *fields[1:]) if fields is not None else None
            return skill, _problems_in(rows)
        skill, problems = parse.read_skill(directory)
        if stamp is not None:
            row = None
            if skill is not None:
                row = (skill.name, skill.description, dict(skill.fields), skill.repaired)
            self._keep(path, stamp, (row, _problems_out(problems)))
        return skill, problems

    def _keep(self, path: Path, stamp: Stamp, value: Any) -> None:
        """Cache a parse, unless it holds what marshal cannot store (a `!!timestamp` value)."""
        try:
            marshal.dumps(value)
        except ValueError:
            return
        self.new[str(path)] = (stamp, value)

    def read_agent(self, path: Path) -> tuple[Agent | None, list[Problem]]:
        stamp, hit = self._lookup(path)
        if hit is not None:
            fields, rows = hit
            agent = None
            if fields is not None:
                name, description, body, tools, skills, model, overrides, lines, *rest = fields
                agent = Agent(
                    name,
                    path,
                    description,
                    body,
                    tuple(tools),
                    tuple(skills),
                    model,
                    overrides,
                    lines,
                    *rest,
                )
            return agent, _problems_in(rows)
        agent, problems = parse.read_agent(path)
        if stamp is not None:
            fields = None
            if agent is not None:
                fields = (
                    agent.name,
                    agent.description,
                    agent.body,
                    list(agent.tools),
                    list(agent.skills),
                    agent.model,
                    {k: dict(v) for k, v in agent.overrides.items()},
                    dict(agent.lines),
                    dict(agent.fields),
                    agent.repaired,
                )
            self._keep(path, stamp, (fields, _problems_out(problems)))
        return agent, problems

    def read_command(self, path: Path, name: str) -> tuple[SlashCommand | None, list[Problem]]:
        """A slash command, kept under its own key (one file may be listed as an agent too)."""
        from skilltool import slash

        key, stamp = f"command:{name}:{path}", _stamp(path)
        hit = self.old.get(key)
        if stamp is not None and hit is not None and tuple(hit[0]) == stamp:
            self.new[key] = hit
            fields, rows = hit[1]
            found = None
            if fields is not None:
                description, body, hint, tools, model, lines, data = fields
                found = SlashCommand(
                    name, path, description, body, hint, tuple(tools), model, lines, data
                )
            return found, _problems_in(rows)
        command, problems = slash.read_command(path, name)
        row = None
        if command is not None:
            row = (command.description, command.body, command.argument_hint,
                   list(command.allowed_tools), command.model, dict(command.lines),
                   dict(command.fields))  # fmt: skip
        if stamp is not None:
            try:
                marshal.dumps((row, _problems_out(problems)))
                self.new[key] = (stamp, (row, _problems_out(problems)))
            except ValueError:  # holds what marshal cannot store: parsed each time
                pass
        return command, problems

    def read_manifest(self, path: Path) -> tuple[dict[str, Any] | None, list[Problem]]:
        stamp, hit = self._lookup(path)
        if hit is not None:
            return hit[0], _problems_in(hit[1])
        data, problems = parse.read_manifest(path)
        if stamp is not None:
            self._keep(path, stamp, (data, _problems_out(problems)))
        return data, problems

    def read_marketplace(self, path: Path) -> tuple[Marketplace | None, list[Problem]]:
        """A marketplace.json, read on every run that searches its root: kept like the rest."""
        stamp, hit = self._lookup(path)
        if hit is not None:
            fields, rows = hit
            market = None
            if fields is not None:
                name, plugin_root, entries = fields
                listed = tuple(MarketplaceEntry(*e) for e in entries)
                market = Marketplace(name, path.parent.parent, path, plugin_root, listed)
            return market, _problems_in(rows)
        market, problems = parse.read_marketplace(path)
        if stamp is not None:
            fields = None
            if market is not None:
                entries = [(e.name, e.source, e.strict, e.fields, e.line) for e in market.entries]
                fields = (market.name, market.plugin_root, entries)
            row = (stamp, (fields, _problems_out(problems)))
            try:
                marshal.dumps(row)
            except ValueError:  # holds something marshal cannot store: parse it each time
                return market, problems
            self.new[str(path)] = row
        return market, problems

    def save(self) -> None:
        """Write the cache if this run parsed anything or dropped stale entries."""
        if self.file is None:
            return
        from skilltool.fs import sweep, write_file

        sweep([self.file.parent])  # the temporary file of a run killed while saving
        if self.new == self.old:
            return
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            data = marshal.dumps({"format": FORMAT, "entries": self.new})
            write_file(self.file, data, 0o644, replace=True)
        except OSError:
            pass  # a cache that cannot be written costs time, not correctness
