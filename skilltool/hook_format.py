"""Claude Code's hooks as the files that carry them are written: the commands with the
plugin's folder in place of `${CLAUDE_PLUGIN_ROOT}` (no harness but Claude Code sets it for a
hook, and Claude Code sets it to the generated folder), grouped as Claude Code groups them.
The harness modules use it; hooks.py plans with it."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from skilltool import markers
from skilltool.model import Hook, Plugin, Rendering

# the forms of the plugin's folder a hook's command may name
ROOT_NAMES = re.compile(r"\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT(?![A-Za-z0-9_])")
# what a shell reads inside double quotes: a folder holding one cannot be written into a command
SHELL_SPECIAL = frozenset('"$`\\\n')


def same_names(*events: str) -> Mapping[str, str]:
    """`Harness.hook_events` of a harness that calls these events as Claude Code does."""
    return {event: event for event in events}


def expand(command: str, root: Path) -> str:
    """The command with the plugin's folder in place of `${CLAUDE_PLUGIN_ROOT}`."""
    return ROOT_NAMES.sub(lambda _: str(root), command)


def root_refusal(plugin: Plugin) -> str | None:
    """Why the plugin's folder cannot be written into its commands, or None."""
    if any(c in SHELL_SPECIAL for c in str(plugin.root)):
        return (
            f"the path of {plugin.root} holds a character a shell reads in a command "
            '(", $, `, \\ or a line break): move the plugin to carry its hooks'
        )
    return None


def claude_object(
    plugin: Plugin,
    hooks: Sequence[Hook],
    events: Mapping[str, str] | None = None,
    matcher: Any = None,
) -> dict[str, list[dict[str, Any]]]:
    """The hooks in Claude Code's format (`{Event: [{matcher, hooks: [...]}]}`), each command
    with the plugin's folder written in; `events` renames the events (None: as they are),
    `matcher` (a function of a hook) gives its group's matcher instead."""
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
        command: dict[str, Any] = {"type": "command", "command": expand(hook.command, plugin.root)}
        if hook.timeout is not None:
            command["timeout"] = hook.timeout
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
