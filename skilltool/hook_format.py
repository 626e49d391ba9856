"""Claude Code's hooks as the files that carry them are written: the commands with the
plugin's folder in place of `${CLAUDE_PLUGIN_ROOT}`, quoted for the shell (no harness but
Claude Code sets it for a hook, and Claude Code sets it to the generated folder), grouped as
Claude Code groups them.
The harness modules use it; hooks.py plans with it."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from skilltool import markers
from skilltool.model import Hook, Plugin, Rendering

# the forms of the plugin's folder a hook's command may name
ROOT_NAMES = re.compile(r"\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT(?![A-Za-z0-9_])")
# a path a shell reads as one word, wherever it stands: written as it is
PLAIN = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")


def same_names(*events: str) -> Mapping[str, str]:
    """`Harness.hook_events` of a harness that calls these events as Claude Code does."""
    return {event: event for event in events}


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
    out: list[str] = []
    state = ""  # "": unquoted; "'" or '"': inside such quotes
    nested = False  # a command substitution seen: the quoting after it is not followed
    at = 0
    while at < len(command):
        found = ROOT_NAMES.match(command, at)
        if found is not None:
            if nested or state == "'":
                return None
            # inside double quotes: closed, the folder single-quoted, opened again
            out.append(quoted if state == "" else f'"{quoted}"')
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


def root_refusal(plugin: Plugin, hooks: Sequence[Hook]) -> str | None:
    """Why the plugin's folder cannot be written into these hooks' commands, or None."""
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
    timeout: Callable[[int], int] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """The hooks in Claude Code's format (`{Event: [{matcher, hooks: [...]}]}`), each command
    with the plugin's folder written in; `events` renames the events (None: as they are),
    `matcher` (a function of a hook) gives its group's matcher instead, `timeout` writes a
    timeout in the harness's unit."""
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
        written = expand(hook.command, plugin.root)
        assert written is not None, "a hook root_refusal refuses is never rendered"
        command: dict[str, Any] = {"type": "command", "command": written}
        if hook.timeout is not None:
            command["timeout"] = hook.timeout if timeout is None else timeout(hook.timeout)
        group["hooks"].append(command)
    return found


def json_file(value: Mapping[str, Any], source: Path | str) -> bytes:
    """A JSON file of ours: its marker is the value of `description`, a key each reader of
    these files takes and ignores."""
    import json

    text = json.dumps({"description": "", **value}, indent=2, ensure_ascii=False)
    text = text.replace('"description": ""', f'"description": "{markers.SLOT}"', 1)
    return markers.stamp(text + "\n", source, escape=True)


def files_under(folder: Path, pattern: str) -> list[Path]:
    """The files of `folder` matching `pattern` (a glob, may hold one '/'), sorted; none when
    the folder is not there."""
    if not os.path.isdir(folder):
        return []
    return sorted(folder.glob(pattern))


# the folder of a plugin or an extension skilltool generates to hold one plugin's hooks (Claude
# Code, Qwen Code, Gemini CLI): `<plugin>.hooks/`, its manifest, and `hooks/hooks.json`
HOOKS_FOLDER = "{plugin}.hooks"
HOOKS_FILE = "hooks/hooks.json"


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


def hooks_folder_files(parent: Path, manifest: str) -> list[Path]:
    """The files of every generated hooks folder in `parent` (`hook_files`)."""
    folders = HOOKS_FOLDER.format(plugin="*")
    return files_under(parent, f"{folders}/{manifest}") + files_under(
        parent, f"{folders}/{HOOKS_FILE}"
    )


def hooks_folder_plugin(path: Path) -> str:
    """The plugin a file of a generated hooks folder is for (`hook_plugin`)."""
    suffix = HOOKS_FOLDER.format(plugin="")
    folder = next(p for p in path.parents if p.name.endswith(suffix))
    return folder.name.removesuffix(suffix)
