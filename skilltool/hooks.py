"""A plugin's hooks planned: the commands it runs on Claude Code's events, carried to each
harness that runs hooks in a file skilltool can own whole (a generated plugin, extension or
hooks file per plugin: `Harness.render_hooks`), under the rules of every rendered file
(SPEC §5): the same marker, the same states (`plan._file_action`), the same apply.

What is carried is only what the user may run: a fetched plugin's hooks reach here only once
approved (consent.py). Each harness renames the events it has; a hook on an event it has not
is said, one line per plugin and harness (the loss report), never dropped in silence. In a
home, the plugin's folder is written into each command in place of `${CLAUDE_PLUGIN_ROOT}`,
which no harness but Claude Code sets for a hook, and which Claude Code sets to the generated
folder. In a project, whose files must be the same bytes in every checkout, each command
sets `CLAUDE_PLUGIN_ROOT` from a folder the harness names at run time, or the generated
plugin finds it from its own place (`Harness.hook_command`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from skilltool.hook_format import root_refusal
from skilltool.model import Catalogue, Hook, Plugin, Problem
from skilltool.slash import NOT_CARRIED

if TYPE_CHECKING:
    from skilltool.harnesses import Harness, McpValue, Verdict
    from skilltool.ledger import Ledger
    from skilltool.plan import Action, Evidence, Plan, State


# --------------------------------------------------------------------------- planning


def winning(catalogue: Catalogue) -> list[Plugin]:
    """The active plugins with hooks to carry."""
    return [p for p in catalogue.active if p.hook_commands]


def loss_line(plugin: Plugin, lost: Mapping[Hook, str]) -> str:
    """One line for the hooks a harness cannot carry: on which events, and why."""
    whys = "; ".join(dict.fromkeys(lost.values()))
    names = ", ".join(dict.fromkeys(h.event for h in lost))
    return f"plugin {plugin.name}'s {_count(list(lost))} on {names}{NOT_CARRIED}{whys}"


def _count(hooks: Sequence[Hook]) -> str:
    return f"{len(hooks)} hook{'s' if len(hooks) > 1 else ''}"


def verdict(harness: Harness, plugin: Plugin, hook: Hook) -> Verdict | None:
    """What one harness does with one hook (validate): None when it runs it, else why not."""
    from skilltool.harnesses import Verdict

    why = (
        harness.hooks_refusal()
        or _root_refusal(harness, plugin, [hook])
        or harness.plugin_hooks_refusal(plugin)
        or harness.hook_loss(hook)
    )
    return None if why is None else Verdict(True, why)


def _root_refusal(harness: Harness, plugin: Plugin, hooks: Sequence[Hook]) -> str | None:
    """Why the plugin's folder cannot be named in these hooks' commands for the harness."""
    project = harness.home.path if harness.home.kind == "project" else None
    return root_refusal(plugin, hooks, project)


def plan_hooks(
    catalogue: Catalogue,
    harnesses: list[Harness],
    remove: bool = False,
    force: bool = False,
    evidence: Evidence | None = None,
    ledger: Ledger | None = None,
) -> Plan:
    """Every plugin's hooks in every harness given that runs them, a line where a harness
    runs none or has no event for some, and our hook files no plugin needs any more."""
    from skilltool.plan import Evidence, Plan

    plugins = winning(catalogue)
    read = evidence or Evidence(catalogue)
    actions: list[Action] = []
    problems: list[Problem] = []
    for harness in harnesses:
        try:
            actions += _harness_actions(harness, plugins, remove, force, read, ledger)
        except OSError as err:  # a folder of the harness that cannot be read: skip it
            where = Path(err.filename) if err.filename else harness.root()
            why = f"cannot be read ({err.strerror}), so no hook is carried to {harness.title}"
            problems.append(Problem(where, f"{why}; check its permissions"))
    return Plan(tuple(actions), tuple(problems))


def _skipped(harness: Harness, plugin: Plugin, state: State, why: str) -> Action:
    """A line for hooks not carried: the harness is absent, takes none, or lacks an event."""
    from skilltool.plan import Action

    source = plugin.hooks[0]
    return Action(
        "hook", harness.name, plugin.name, harness.root(), state, "none", source, reason=why
    )


def _harness_actions(
    harness: Harness,
    plugins: list[Plugin],
    remove: bool,
    force: bool,
    read: Evidence,
    ledger: Ledger | None = None,
) -> list[Action]:
    from skilltool.plan import _file_action

    if not harness.present():
        if remove:
            return []
        from skilltool.harnesses import not_set_up

        absent = not_set_up(harness.home, harness.root(), harness.name)
        return [_skipped(harness, p, "absent", absent) for p in plugins]
    why = harness.hooks_refusal()
    if why is not None:
        if remove:
            return []
        return [
            _skipped(
                harness,
                p,
                "unsupported",
                f"plugin {p.name}'s {_count(p.hook_commands)}{NOT_CARRIED}{why}",
            )
            for p in plugins
        ]
    actions: list[Action] = []
    wanted: set[Path] = set()
    entries: list[tuple[str, Path, McpValue]] = []  # in the harness's own config file
    for plugin in plugins:
        gone = {h: why for h in plugin.hook_commands if (why := harness.hook_loss(h)) is not None}
        carried = [h for h in plugin.hook_commands if h not in gone]
        refused = (
            _root_refusal(harness, plugin, carried) or harness.plugin_hooks_refusal(plugin)
            if carried
            else None
        )
        if not remove and gone:
            actions.append(_skipped(harness, plugin, "unready", loss_line(plugin, gone)))
        if refused is not None and not remove:
            why = f"plugin {plugin.name}'s {_count(carried)}{NOT_CARRIED}{refused}"
            actions.append(_skipped(harness, plugin, "unready", why))
        if not carried or refused is not None:
            continue
        waiting = None if remove else harness.hooks_waiting(plugin)
        if waiting is not None:
            why = f"plugin {plugin.name}'s {_count(carried)}: {waiting}"
            actions.append(_skipped(harness, plugin, "unready", why))
        for rendering in harness.render_hooks(plugin, carried):
            wanted.add(rendering.target)
            action = _file_action(harness.name, plugin.name, rendering, remove, force)
            if not (remove and action.state == "missing"):
                actions.append(action._replace(kind="hook", source=plugin.hooks[0]))
        entries += [(n, plugin.hooks[0], v) for n, v in harness.hook_entries(plugin, carried)]
    actions += _entries(harness, [] if remove else entries, ledger, remove, force, read)
    return actions + _orphans(harness, wanted, force, read)


def _entries(
    harness: Harness,
    wanted: list[tuple[str, Path, McpValue]],
    ledger: Ledger | None,
    remove: bool,
    force: bool,
    read: Evidence,
) -> list[Action]:
    """The entries of the harness's config file that run hooks (`Harness.hook_place`), under
    the rule of MCP entries: only one the ledger records as ours, unchanged since, is
    changed or removed."""
    place = harness.hook_place()
    if place is None or ledger is None:
        return []
    mine = [r for r in ledger.every(harness.name) if (r.file, r.table) == (place.path, place.table)]
    if not wanted and not mine:
        return []  # nothing to carry, nothing of ours: the user's file is not even read
    from skilltool import mcp
    from skilltool.plan import Action

    config = mcp.config_file(harness, place, ledger)
    actions = []
    for name, source, value in wanted:
        if config.problem is not None:
            state, why = config.problem
            actions.append(
                Action(
                    "entry",
                    harness.name,
                    name,
                    place.path,
                    state,
                    "none",
                    source,
                    reason=f"hook {name}: {why}",
                )
            )
            continue
        actions.append(mcp.put(harness, config, name, source, value, ledger, force))
    names = {name for name, _, _ in wanted}
    for record in ledger.of(harness.name):
        if (record.file, record.table) != (place.path, place.table) or record.name in names:
            continue
        action = mcp.take_out(config, record, ledger, remove, force, read)
        if action is not None:
            actions.append(action)
    return actions


def _orphans(harness: Harness, wanted: set[Path], force: bool, read: Evidence) -> list[Action]:
    """Our hook files that no plugin needs any more (plan.orphan)."""
    from skilltool.plan import orphan

    found = []
    for path in harness.hook_files():
        name = harness.hook_plugin(path)
        action = (
            None
            if path in wanted
            else orphan("hook", harness.name, name, path, harness.home, read, force, "its hooks")
        )
        if action is not None:
            found.append(action)
    return found
