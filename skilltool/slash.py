"""A plugin's slash commands planned (SPEC §10): one rendered file each, where a harness
has user commands (its module translates and renders them; parse_commands reads them).

Rendering follows the rules of every other rendered file (SPEC §5): the same marker, the
same states (`plan._file_action`), the same apply; which commands win, where their files
are and which are ours is decided here.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skilltool import markers
from skilltool.model import Catalogue, Plugin, Problem, SlashCommand

if TYPE_CHECKING:
    from skilltool.cache import RenderCache
    from skilltool.harnesses import Harness, Verdict
    from skilltool.model import Rendering
    from skilltool.plan import Action, Evidence, Plan

NOT_CARRIED = " not carried: "  # between what a harness takes none of and why


# --------------------------------------------------------------------------- placeholders


# --------------------------------------------------------------------------- per harness


def verdict(harness: Harness, command: SlashCommand) -> Verdict | None:
    """What one harness does with a command: None when it takes it as Claude Code does."""
    from skilltool.harnesses import Verdict

    why = refusal(harness, command)
    if why is not None:
        return Verdict(True, why)
    notes = [harness.command_note(command.name), harness.translate_command(command.body).why]
    said = [note for note in notes if note]
    return Verdict(False, " and ".join(said)) if said else None


def refusal(harness: Harness, command: SlashCommand) -> str | None:
    """Why nothing is rendered for the command in this harness, or None."""
    if harness.command_syntax is None:
        return harness.no_commands
    why = harness.command_refusal(command.name)
    if why is not None:
        return why
    translation = harness.translate_command(command.body)
    return translation.why if translation.body is None else None


def _rendered(harness: Harness, command: SlashCommand) -> list[Rendering]:
    return [harness.render_command(command)]


# --------------------------------------------------------------------------- planning


def winning_commands(
    catalogue: Catalogue,
) -> tuple[list[tuple[Plugin, SlashCommand]], list[Problem]]:
    """Every command to render, with its plugin: the first active plugin on the path wins a name."""
    winners: dict[str, SlashCommand] = {}
    found, problems = [], []
    for plugin in catalogue.active:
        for command in plugin.slash_commands:
            first = winners.get(command.name)
            if first is not None:
                problems.append(
                    Problem(
                        command.path,
                        f"command /{command.name} is also {first.path}, which comes first on "
                        "the search path; this one is not rendered",
                        severity="warning",
                    )
                )
                continue
            winners[command.name] = command
            found.append((plugin, command))
    return found, problems


def plan_commands(
    catalogue: Catalogue,
    harnesses: list[Harness],
    remove: bool = False,
    force: bool = False,
    renders: RenderCache | None = None,
    evidence: Evidence | None = None,
) -> Plan:
    """Every command's file in every harness given that has commands, a line for each that
    has none, and our command files no command needs any more.

    With `renders`, a command file that is on disk as it would be made again is read, not made."""
    from skilltool.plan import Evidence, Plan

    commands, problems = winning_commands(catalogue)
    read = evidence or Evidence(catalogue)
    actions: list[Action] = []
    for harness in harnesses:
        try:
            actions += _harness_actions(harness, commands, remove, force, read, renders)
        except OSError as err:  # a folder of the harness that cannot be read: skip it
            where = Path(err.filename) if err.filename else harness.root()
            why = f"cannot be read ({err.strerror}), so no command is rendered for {harness.title}"
            problems.append(Problem(where, f"{why}; check its permissions"))
    return Plan(tuple(actions), tuple(problems))


def _harness_actions(
    harness: Harness,
    commands: list[tuple[Plugin, SlashCommand]],
    remove: bool,
    force: bool,
    read: Evidence,
    renders: RenderCache | None = None,
) -> list[Action]:
    from skilltool.plan import Action, _file_action

    root = harness.root()
    if not harness.present():
        from skilltool.harnesses import not_set_up

        absent = not_set_up(harness.home, root, harness.name)
        return [
            Action("command", harness.name, c.name, root, "absent", "none", c.path, reason=absent)
            for _, c in commands
        ]
    if harness.command_syntax is None:
        return [] if remove else _not_carried(harness, commands)
    actions: list[Action] = []
    wanted: set[Path] = set()
    for _, command in commands:
        refused = refusal(harness, command)
        if refused is not None and remove:
            continue  # nothing of it was ever written there: uninstall has nothing to say
        if refused is not None:
            skipped = f"command /{command.name}: {refused}"
            actions.append(
                Action(
                    "command",
                    harness.name,
                    command.name,
                    root,
                    "unready",
                    "none",
                    command.path,
                    reason=skipped,
                )
            )
            continue
        make = functools.partial(_rendered, harness)
        made, on_disk = (
            renders.made(harness.name, harness.places(), command, make)
            if renders
            else (make(command), False)
        )
        rendering = made[0]
        wanted.add(rendering.target)
        rival = _rival(harness, command.name)
        if rival is not None and not remove:
            actions.append(
                Action(
                    "command",
                    harness.name,
                    command.name,
                    rendering.target,
                    "foreign",
                    "none",
                    command.path,
                    reason=rival,
                )
            )
            continue
        known = renders.known.get(rendering.target) if renders and on_disk else None
        action = _file_action(harness.name, command.name, rendering, remove, force, on_disk, known)
        if not (remove and action.state == "missing"):
            actions.append(action._replace(kind="command", source=command.path))
    return actions + _orphans(harness, wanted, force, read)


def _not_carried(harness: Harness, commands: list[tuple[Plugin, SlashCommand]]) -> list[Action]:
    """One line per plugin for a harness with no commands: what is not carried there, and why."""
    from skilltool.plan import Action

    by_plugin: dict[str, list[SlashCommand]] = {}
    for plugin, command in commands:
        by_plugin.setdefault(plugin.name, []).append(command)
    found = []
    for name, listed in by_plugin.items():
        count = f"{len(listed)} command{'s' if len(listed) > 1 else ''}"
        why = f"plugin {name}'s {count}{NOT_CARRIED}{harness.no_commands}"
        found.append(
            Action(
                "command",
                harness.name,
                name,
                harness.root(),
                "unready",
                "none",
                listed[0].path,
                reason=why,
            )
        )
    return found


def _rival(harness: Harness, name: str) -> str | None:
    """A file not ours that the harness would also read as this command (OpenCode's other
    folder): the command is then not written, so the user's own one is what runs."""
    from skilltool.fs import read_regular

    for path in harness.command_rivals(name):
        if not os.path.lexists(path):
            continue
        data = read_regular(path)
        if data is None or markers.find(data) is None:
            shown = harness.home.show(path)
            return f"{shown} is a command of that name not written by skilltool; left alone"
    return None


def _orphans(harness: Harness, wanted: set[Path], force: bool, read: Evidence) -> list[Action]:
    """Our command files that no command on the search path needs any more (plan.orphan)."""
    from skilltool.plan import orphan

    folder = harness.commands_dir()
    if folder is None or not os.path.isdir(folder):
        return []
    found = []
    for path in sorted(folder.rglob(f"*{harness.command_suffix}")):
        name = ":".join(path.relative_to(folder).with_suffix("").parts)
        action = (
            None
            if path in wanted
            else orphan(
                "command", harness.name, name, path, harness.home, read, force, "its command"
            )
        )
        if action is not None:
            found.append(action)
    return found


# --------------------------------------------------------------------------- status

# a command file's state as status says it; "unready" is a harness that cannot take it
STATE_WORDS = {
    "missing": "missing",
    "current": "current",
    "stale": "outdated",
    "edited": "edited",
    "foreign": "foreign",
    "absent": "harness absent",
    "unready": "not supported",
    "placeholder": "missing",
}


def _of(plugin: Plugin, actions: Sequence[Action]) -> tuple[dict[Path, list[Action]], list[Action]]:
    """The plugin's command actions: per command file, and the plugin's not-carried lines."""
    paths = {c.path for c in plugin.slash_commands}
    per: dict[Path, list[Action]] = {}
    whole = []
    for action in actions:
        if action.source not in paths:
            continue
        if action.reason.startswith(f"plugin {plugin.name}'s "):
            whole.append(action)
        elif action.source is not None and action.name in {c.name for c in plugin.slash_commands}:
            per.setdefault(action.source, []).append(action)
    return per, whole


def status_lines(plugin: Plugin, actions: Sequence[Action], show: Any) -> list[str]:
    """A plugin's commands in each harness, what is not carried where, and its hooks."""
    lines = []
    per, whole = _of(plugin, actions)
    for command in plugin.slash_commands:
        lines.append(f"  command /{command.name:<23} {show(command.path)}")
        mine = per.get(command.path)
        if not mine:  # another plugin's command of that name comes first on the path
            lines.append(f"    {'shadowed':<25} by another plugin's /{command.name}")
            continue
        for action in mine:
            if action.state == "absent":  # said once per harness, for the whole plugin
                continue
            word = STATE_WORDS[action.state]
            there = action.reason if action.state in ("absent", "unready") else show(action.target)
            lines.append(f"    {action.owner:<9} {word:<15} {there}")
    for action in whole:
        lines.append(f"    {action.owner:<9} {'not supported':<15} {action.reason}")
    return lines


def status_dict(plugin: Plugin, actions: Sequence[Action]) -> dict[str, Any]:
    """The JSON of a plugin's commands and hooks, beside its skills and agents."""
    per, whole = _of(plugin, actions)
    return {
        "slash_commands": [
            {
                "name": command.name,
                "path": str(command.path),
                "description": command.description,
                "argument_hint": command.argument_hint,
                "renderings": [
                    {
                        "harness": a.owner,
                        "state": STATE_WORDS[a.state],
                        "target": None if a.state in ("absent", "unready") else str(a.target),
                        "reason": a.reason or None,
                    }
                    for a in per.get(command.path, [])
                ],
            }
            for command in plugin.slash_commands
        ],
        "commands_not_carried": [{"harness": a.owner, "reason": a.reason} for a in whole],
    }
