"""A plugin's hooks read as Claude Code reads them: `hooks/hooks.json`, and the `hooks` of
plugin.json or of a marketplace entry (a path, a list of paths, or the object itself), in
Claude Code's format:

    {"hooks": {"PreToolUse": [{"matcher": "Bash",
                                "hooks": [{"type": "command", "command": "…", "timeout": 30}]}]}}

Each command is kept as written, `${CLAUDE_PLUGIN_ROOT}` and all: what the user approves is
what the plugin says, and each harness's rendering puts the plugin's folder in (hooks.py).
A hook of another type (`prompt`, `agent`: Claude Code runs a model for them) is named in a
warning and carried nowhere.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skilltool import probe
from skilltool.model import Hook, Problem, Severity
from skilltool.parse_servers import json_object, json_text, key_line

HOOKS_FILE = "hooks/hooks.json"


def read_hooks(
    root: Path, declared: list[tuple[Mapping[str, Any] | None, Path | None]]
) -> tuple[list[Path], list[Hook], list[Problem]]:
    """The files that declare the plugin's hooks (an inline object: the file that holds it),
    every command hook in them in order, and what is wrong with them.

    `declared` pairs plugin.json's fields with its path, and a marketplace entry's fields with
    the marketplace's manifest."""
    files: list[Path] = []
    hooks: list[Hook] = []
    problems: list[Problem] = []
    if probe.now.isfile(root / HOOKS_FILE):
        files.append(root / HOOKS_FILE)
        hooks += _read_file(root / HOOKS_FILE, problems)
    for fields, where in declared:
        value = fields.get("hooks") if isinstance(fields, Mapping) else None
        if value is None or where is None:
            continue
        if isinstance(value, Mapping):
            files.append(where)
            hooks += _events(value, where, json_text(where) or "", problems)
            continue
        paths = [value] if isinstance(value, str) else value if isinstance(value, list) else None
        if paths is None or not all(isinstance(p, str) for p in paths):
            why = 'must be a path, a list of paths, or an object of events, e.g. "./hooks.json"'
            problems.append(Problem(where, why, "hooks", key_line(json_text(where) or "", "hooks")))
            continue
        for path in paths:
            full = Path(os.path.normpath(root / path))
            if full in files or not (full == root or root in full.parents):
                continue  # read already, or outside the plugin (Claude Code refuses that)
            files.append(full)
            if probe.now.isfile(full):
                hooks += _read_file(full, problems)
            else:
                why = f"{path!r} is not a file in {root}; fix the path"
                problems.append(Problem(where, why, "hooks", None))
    return files, hooks, problems


def _read_file(path: Path, problems: list[Problem]) -> list[Hook]:
    """The hooks of one file: `{"hooks": {Event: [...]}}`, or the bare `{Event: [...]}`."""
    found = json_object(path, "hooks", problems)
    if found is None:
        return []
    value, text = found
    events = value.get("hooks", value) if isinstance(value.get("hooks"), dict) else value
    if "hooks" in value and not isinstance(value["hooks"], dict):
        why = 'must be an object of events, e.g. {"PreToolUse": [...]}'
        problems.append(Problem(path, why, "hooks", key_line(text, "hooks")))
        return []
    return _events(events, path, text, problems)


def events(value: Mapping[str, Any], path: Path) -> list[Hook]:
    """The command hooks of a `hooks` object declared elsewhere (an agent's, a skill's or a
    command's frontmatter), in Claude Code's format; what cannot be read runs nothing."""
    return _events(value, path, "", [])


# what hooks.json may hold beside the events (Claude Code's own files carry a description)
NOT_EVENTS = frozenset({"description", "$schema"})


def _events(
    events: Mapping[str, Any], path: Path, text: str, problems: list[Problem]
) -> list[Hook]:
    found: list[Hook] = []
    for event, groups in events.items():
        if event in NOT_EVENTS:
            continue
        line = key_line(text, event)
        if not isinstance(groups, list):
            why = 'must be a list of matcher groups: [{"matcher": "…", "hooks": [...]}]'
            problems.append(Problem(path, why, f"hooks.{event}", line))
            continue
        for g, group in enumerate(groups):
            found += _group(str(event), g, group, path, line, problems)
    return found


def _group(
    event: str, g: int, group: Any, path: Path, line: int | None, problems: list[Problem]
) -> list[Hook]:
    field = f"hooks.{event}[{g}]"
    if not isinstance(group, Mapping) or not isinstance(group.get("hooks"), list):
        why = 'must be {"matcher": "…", "hooks": [{"type": "command", "command": "…"}]}'
        problems.append(Problem(path, why, field, line))
        return []
    matcher = group.get("matcher", "")
    if not isinstance(matcher, str):
        problems.append(Problem(path, "must be a string (a tool name or a regex)", field, line))
        return []
    found = []
    for i, hook in enumerate(group["hooks"]):
        where = f"{field}.hooks[{i}]"
        kind = hook.get("type") if isinstance(hook, Mapping) else None
        if kind != "command":
            why = (
                f"a {kind!r} hook asks a model, which only Claude Code does; skilltool carries "
                "command hooks only, so this one is carried nowhere"
                if isinstance(kind, str)
                else 'must be {"type": "command", "command": "…"}'
            )
            severity: Severity = "warning" if isinstance(kind, str) else "error"
            problems.append(Problem(path, why, where, line, severity=severity))
            continue
        command = hook.get("command")
        timeout = hook.get("timeout")
        if not isinstance(command, str) or not command.strip():
            problems.append(Problem(path, "missing: the shell command to run", where, line))
            continue
        if timeout is not None and (
            isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
        ):
            problems.append(Problem(path, "must be a number of seconds above 0", where, line))
            continue
        seconds = None if timeout is None else max(1, round(timeout))
        found.append(Hook(event, matcher, command, seconds, path, g, i, line))
    return found
