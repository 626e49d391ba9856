"""Claude Code's hooks as the files that carry them are written: the commands with the
plugin's folder in place of `${CLAUDE_PLUGIN_ROOT}`, quoted for the shell (no harness but
Claude Code sets it for a hook, and Claude Code sets it to the generated folder), grouped as
Claude Code groups them.
The harness modules use it when they write hooks; hooks.py plans with it. Where the files
that carry hooks lie is `hook_places`."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from skilltool import markers
from skilltool.hook_places import HOOKS_FILE, HOOKS_FOLDER
from skilltool.model import Hook, Plugin, Rendering

# the forms of the plugin's folder a hook's command may name
ROOT_NAMES = re.compile(r"\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT(?![A-Za-z0-9_])")
# a path a shell reads as one word, wherever it stands: written as it is
PLAIN = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")


def expand(command: str, root: Path) -> str | None:
    """The command with the plugin's folder in place of `${CLAUDE_PLUGIN_ROOT}`, quoted for
    the POSIX shell each harness runs a hook with, so that what runs is the command the user
    approved whatever the folder is called (`./plugins/x;touch P;` stays one word). None
    when that cannot be made sure of: the folder's path is not plain and the command names
    it inside single quotes, or after a command substitution, whose quoting is its own."""
    text = str(root)
    if PLAIN.fullmatch(text):
        return ROOT_NAMES.sub(lambda _: text, command)
    import shlex

    quoted = shlex.quote(text)

    def folder(state: str, nested: bool, _: str) -> str | None:
        if nested or state == "'":
            return None
        # inside double quotes: closed, the folder single-quoted, opened again
        return quoted if state == "" else f'"{quoted}"'

    return _rewritten(command, folder)


def _rewritten(command: str, replace: Callable[[str, bool, str], str | None]) -> str | None:
    """The command with each `${CLAUDE_PLUGIN_ROOT}` (or `$CLAUDE_PLUGIN_ROOT`) replaced by
    `replace(state, nested, as_written)`: state "" unquoted, "'" or '"' inside such quotes;
    nested once a command substitution was seen, whose quoting is not followed. None when a
    replacement is None."""
    out: list[str] = []
    state = ""  # "": unquoted; "'" or '"': inside such quotes
    nested = False  # a command substitution seen: the quoting after it is not followed
    at = 0
    while at < len(command):
        found = ROOT_NAMES.match(command, at)
        if found is not None:
            written = replace(state, nested, found.group())
            if written is None:
                return None
            out.append(written)
            at = found.end()
            continue
        char = command[at]
        if char == "\\" and state != "'":
            out.append(command[at : at + 2])
            at += 2
            continue
        if char == "`" or (char == "$" and command.startswith("$(", at)):
            nested = nested or state != "'"
        elif char in "'\"" and state in ("", char):
            state = "" if state == char else char
        out.append(char)
        at += 1
    return "".join(out)


def quoted_references(command: str) -> str:
    """The command with each unquoted `${CLAUDE_PLUGIN_ROOT}` written `"${CLAUDE_PLUGIN_ROOT}"`,
    so that a folder whose path holds a blank stays one word; inside quotes, or after a
    command substitution, as written (the variable is in the hook's environment, as Claude
    Code gives it)."""
    quoted = _rewritten(
        command, lambda state, nested, written: written if state or nested else f'"{written}"'
    )
    assert quoted is not None  # no replacement refuses
    return quoted


def reach(variable: str, relative: str) -> str:
    """A shell word for a folder of the project at run time: a variable the harness sets to a
    folder of it, and the path from there (`"$COPILOT_HOOK_DIR"/../../plugins/team`), the
    same bytes in every checkout."""
    import shlex

    base = f'"${variable}"'
    return base if relative == "." else f"{base}/{shlex.quote(relative)}"


def exported(command: str, root: str) -> str:
    """A command of a project's hooks file: the plugin's folder set as `CLAUDE_PLUGIN_ROOT`
    (a shell word, `reach`) before it runs, as Claude Code sets it, when the command names
    it; the command itself as written but its unquoted references quoted."""
    if ROOT_NAMES.search(command) is None:
        return command
    return f"CLAUDE_PLUGIN_ROOT={root}; export CLAUDE_PLUGIN_ROOT; {quoted_references(command)}"


def relative(path: Path, start: Path) -> str:
    """`path` from the folder `start`, with '/' whatever the system: what a project's file
    names a folder of the project by."""
    return os.path.relpath(path, start).replace(os.sep, "/")


def root_refusal(plugin: Plugin, hooks: Sequence[Hook], project: Path | None = None) -> str | None:
    """Why the plugin's folder cannot be written into these hooks' commands, or None. In a
    project (`project`, its folder), the commands name the folder by a path relative to the
    project, which works for a folder inside it only."""
    if project is not None:
        if plugin.root == project or plugin.root.is_relative_to(project):
            return None
        return (
            f"the plugin's folder {plugin.root} is outside the project, a path that differs on "
            "every checkout; a project carries the hooks of plugins inside it"
        )
    if any(expand(hook.command, plugin.root) is None for hook in hooks):
        return (
            f"the path of {plugin.root} holds characters a shell reads, and a command names "
            "${CLAUDE_PLUGIN_ROOT} inside single quotes or a command substitution, where "
            "skilltool cannot quote it: move the plugin to a folder with a plain path"
        )
    return None


def claude_object(
    plugin: Plugin,
    hooks: Sequence[Hook],
    events: Mapping[str, str] | None = None,
    matcher: Any = None,
    command: Callable[[str], str] | None = None,
    timeout: Callable[[int], int] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """The hooks in Claude Code's format (`{Event: [{matcher, hooks: [...]}]}`), each command
    with the plugin's folder written in (or as `command` writes it: `Harness.hook_command`);
    `events` renames the events (None: as they are), `matcher` (a function of a hook) gives
    its group's matcher instead, `timeout` writes a timeout in the harness's unit."""
    found: dict[str, list[dict[str, Any]]] = {}
    groups: dict[tuple[str, int], dict[str, Any]] = {}
    for hook in hooks:
        event = hook.event if events is None else events[hook.event]
        group = groups.get((hook.event, hook.group))
        if group is None:
            group = {}
            said = matcher(hook) if matcher is not None else hook.matcher
            if said:
                group["matcher"] = said
            group["hooks"] = []
            groups[(hook.event, hook.group)] = group
            found.setdefault(event, []).append(group)
        written = expand(hook.command, plugin.root) if command is None else command(hook.command)
        assert written is not None, "a hook root_refusal refuses is never rendered"
        entry: dict[str, Any] = {"type": "command", "command": written}
        if hook.timeout is not None:
            entry["timeout"] = hook.timeout if timeout is None else timeout(hook.timeout)
        group["hooks"].append(entry)
    return found


def settings_entries(
    plugin: Plugin,
    hooks: Sequence[Hook],
    events: Mapping[str, str] | None = None,
    matcher: Any = None,
    command: Callable[[str], str] | None = None,
    timeout: Callable[[int], int] | None = None,
) -> list[tuple[str, dict[str, Any]]]:
    """The hooks as entries of a settings file's `hooks` (entries/json_hooks.py): one per
    command, named `<plugin>:<Event>-<group>-<index>` by Claude Code's event, as Mistral
    Vibe's are, its value the element under the harness's own name of the event (`events`)."""
    found: list[tuple[str, dict[str, Any]]] = []
    carried = claude_object(plugin, hooks, matcher=matcher, command=command, timeout=timeout)
    for event, groups in carried.items():
        for g, group in enumerate(groups):
            for h, one in enumerate(group["hooks"]):
                value: dict[str, Any] = {"event": event if events is None else events[event]}
                if "matcher" in group:
                    value["matcher"] = group["matcher"]
                value["hooks"] = [one]
                found.append((f"{plugin.name}:{event}-{g}-{h}", value))
    return found


def json_file(value: Mapping[str, Any], source: Path | str) -> bytes:
    """A JSON file of ours: its marker is the value of `description`, a key each reader of
    these files takes and ignores."""
    import json

    text = json.dumps({"description": "", **value}, indent=2, ensure_ascii=False)
    text = text.replace('"description": ""', f'"description": "{markers.SLOT}"', 1)
    return markers.stamp(text + "\n", source, escape=True)


def hooks_folder(
    parent: Path,
    manifest: str,
    fields: Mapping[str, Any],
    plugin: Plugin,
    hooks: Mapping[str, Any],
    source: Path | str,
) -> list[Rendering]:
    """The files of a generated hooks folder in `parent`: the manifest (at `manifest`, inside
    the folder) with `fields`, and `hooks/hooks.json` with the hooks in Claude Code's format."""
    folder = parent / HOOKS_FOLDER.format(plugin=plugin.name)
    return [
        Rendering(folder / manifest, json_file(fields, source)),
        Rendering(folder / HOOKS_FILE, json_file({"hooks": hooks}, source)),
    ]
