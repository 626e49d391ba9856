"""Consent for what a harness will run: whatever a plugin fetched from git would have a
harness run (runnables.py: an MCP server started as a command, a hook, what an agent's, a
skill's or a slash command's frontmatter declares, a skill folder that is a plugin of its
own) is carried only once the user approved exactly it: the command as shown and the
plugin's files that run. The approval is recorded in the lockfile, beside the commit, per
plugin, as the digest of what was shown, so that a `sync --frozen` elsewhere carries exactly
what was approved; a command or a file that changes, or a plugin no approval names, waits.

What the user's own hands put there runs as it is: their plugins folder, a local path they
added, a project's own folder, what a distribution ships, the bundled plugin. Only a source
fetched from a URL asks. A lockfile that cannot be read approves nothing. The same line says
whose an error is (`upstream`): one in a fetched plugin's files is for its authors to fix,
and does not fail a run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from skilltool.model import Agent, Catalogue, Plugin, Problem, SlashCommand
from skilltool.record import NamedTuple
from skilltool.runnables import Runnable, changed_files, label, of_plugin

if TYPE_CHECKING:
    from skilltool import paths
    from skilltool.sources import PluginApproval, Source

__all__ = ["Runnable", "label"]
Named = TypeVar("Named", Agent, SlashCommand)


class Held(NamedTuple):
    """A runnable left out of every harness: not approved, or changed since it was."""

    runnable: Runnable
    was: str | None  # approved once in another form: that form, as it was shown
    files: tuple[str, ...] = ()  # the plugin's files that run that changed since, as said

    @property
    def changed(self) -> bool:
        return self.was is not None


def fetched(home: paths.Scope) -> dict[Path, Source]:
    """The lockfile's sources fetched from a URL, by the folder their plugins are read from;
    none when there is no lockfile (or one that cannot be read: the commands say why)."""
    return {place: s for place, s in _locked(home).items() if s.path is None}


# the source a plugin of a checkout is taken from when the lockfile cannot be read: one that
# approves nothing, so that nothing fetched runs until the lockfile is mended
UNREADABLE = "(lockfile that cannot be read)"


def fetched_or_closed(home: paths.Scope) -> tuple[dict[Path, Source], Problem | None]:
    """`fetched`, failing closed: when the lockfile is there but cannot be read, every
    folder a fetched plugin can be read from (the whole of the checkouts' folder) is taken
    for a source that approves nothing, and the problem says which line of which file."""
    import os

    if not os.path.lexists(home.lockfile):
        return {}, None
    from skilltool import sources

    try:
        found = sources.read_lock(home)
    except sources.SourceError as err:
        closed = sources.Source(UNREADABLE, url=UNREADABLE)
        said, line = str(err).removeprefix(f"{home.lockfile}:"), None
        number, colon, rest = said.partition(": ")
        if colon and number.isdigit():
            said, line = rest, int(number)
        why = (
            f"{said.strip()}; nothing fetched is given to a harness (no MCP server or hook of "
            "a plugin from git runs) until it is fixed"
        )
        return {home.sources_dir: closed}, Problem(home.lockfile, why, line=line)
    by_place = {sources.entry(home, s).path: s for s in found}
    return {place: s for place, s in by_place.items() if s.path is None}, None


def added(home: paths.Scope) -> dict[Path, Source]:
    """The sources whose files are their authors' to fix, by the same folders: every source
    of the lockfile (from a URL, or in the user's home a local path added with `add`, as
    often as not someone else's checkout), but a project's paths, the repository's own."""
    own = home.kind == "project"
    return {place: s for place, s in _locked(home).items() if s.path is None or not own}


def _locked(home: paths.Scope) -> dict[Path, Source]:
    import os

    if not os.path.lexists(home.lockfile):
        return {}
    from skilltool import sources

    try:
        found = sources.read_lock(home)
    except sources.SourceError:
        return {}
    return {sources.entry(home, s).path: s for s in found}


def source_of(plugin: Plugin, by_place: Mapping[Path, Source]) -> Source | None:
    """The fetched source a plugin was read from, or None (the user's own)."""
    for place, source in by_place.items():
        if plugin.root == place or place in plugin.root.parents:
            return source
    return None


def upstream(problems: Iterable[Problem], by_place: Mapping[Path, Source]) -> dict[Problem, str]:
    """The errors in the files of a plugin added with `add` (`by_place`: from `added`),
    each with the name of its source: its authors' to fix, not the user's, so a run skips
    the item and goes on without failing (unless --strict). A problem of the checkout's own
    folder (missing, unreadable) is the user's: `sync` brings it back."""
    found = {}
    for problem in problems:
        if problem.severity != "error":
            continue
        parents = problem.path.parents
        source = next((s for place, s in by_place.items() if place in parents), None)
        if source is not None:
            found[problem] = source.name
    return found


def runnables(plugins: Iterable[Plugin], by_place: Mapping[Path, Source]) -> list[Runnable]:
    """Every runnable of the plugins that come from a fetched source."""
    found = []
    for plugin in plugins:
        source = source_of(plugin, by_place)
        if source is not None:
            found += of_plugin(source.name, plugin)
    return found


def is_approved(item: Runnable, approved: Mapping[str, PluginApproval]) -> bool:
    mine = approved.get(item.plugin)
    known = mine.runs.get(item.key) if mine is not None else None
    return known is not None and known.digest == item.digest


def waiting(items: Iterable[Runnable], approved: Mapping[str, PluginApproval]) -> list[Held]:
    """The runnables whose exact form the user has not approved (the command, and the
    plugin's files that run), each with what changed since an approval it once had."""
    held = []
    for item in items:
        if is_approved(item, approved):
            continue
        mine = approved.get(item.plugin)
        known = mine.runs.get(item.key) if mine is not None else None
        if mine is None or known is None:
            held.append(Held(item, None))
            continue
        held.append(Held(item, known.command, tuple(changed_files(mine.files, item.files))))
    return held


def approved_only(
    by_place: Mapping[Path, Source], catalogue: Catalogue
) -> tuple[Catalogue, list[Problem]]:
    """The catalogue with everything the user has not approved left out of its plugins
    (`by_place`: the fetched sources, from `fetched`), and a line for each: what it runs,
    and how to approve it. A server or a hook is left out; an agent's or a slash command's
    frontmatter loses what declares it (its hooks, its MCP servers, its permission mode); a
    skill is linked nowhere. What skilltool wrote for what is left out is then removed, as
    for anything gone."""
    if not by_place:
        return catalogue, []
    held: dict[tuple[str, str], Held] = {}
    for plugin in catalogue.plugins:
        source = source_of(plugin, by_place)
        if source is None:
            continue
        for item in waiting(of_plugin(source.name, plugin), source.approved):
            held[(plugin.name, item.runnable.key)] = item
    if not held:
        return catalogue, []
    plugins = [_without_held(p, {k for n, k in held if n == p.name}) for p in catalogue.plugins]
    # a lockfile that cannot be read is said once, by itself: nothing there can be approved
    problems = [held_problem(i) for i in held.values() if i.runnable.source != UNREADABLE]
    return catalogue._replace(plugins=tuple(plugins)), problems


def _without_held(plugin: Plugin, keys: set[str]) -> Plugin:
    """The plugin without what declares each held runnable (`keys`)."""
    if not keys:
        return plugin
    servers = tuple(s for s in plugin.mcp_servers if f"server:{s.name}" not in keys)
    lsp = tuple(s for s in plugin.lsp_servers if f"lsp:{s.name}" not in keys)
    hooks = tuple(h for h in plugin.hook_commands if h.key not in keys)
    skills = [s for s in plugin.skills if not any(k.startswith(f"skill:{s.name}:") for k in keys)]
    agents = tuple(_stripped(a, f"agent:{a.name}:", keys) for a in plugin.agents)
    commands = tuple(_stripped(c, f"command:{c.name}:", keys) for c in plugin.slash_commands)
    return plugin._replace(
        mcp_servers=servers,
        lsp_servers=lsp,
        hook_commands=hooks,
        skills=tuple(skills) if len(skills) != len(plugin.skills) else plugin.skills,
        agents=agents,
        slash_commands=commands,
    )


# the frontmatter key that declares a held runnable of an agent or a command, by its kind
DECLARING = {"hook": "hooks", "server": "mcpServers", "permissionMode": "permissionMode"}


def _stripped(item: Named, prefix: str, keys: set[str]) -> Named:
    """An agent or a slash command without the frontmatter keys that declare what is held."""
    dropped = {DECLARING[k[len(prefix) :].split(":", 1)[0]] for k in keys if k.startswith(prefix)}
    if not dropped:
        return item
    fields = {k: v for k, v in item.fields.items() if k not in dropped}
    return item._replace(fields=fields)


def held_problem(held: Held) -> Problem:
    item = held.runnable
    why = "changed since you approved it" if held.changed else "which you have not approved"
    if held.files and held.was == item.shown:
        why = f"whose files changed since you approved them ({', '.join(held.files)})"
    kind, _, rest = item.key.partition(":")
    name = rest.split(":", 1)[0]
    if kind == "hook":
        said = f"hook `{item.shown}` runs a command {why}"
        left = "no harness is given it"
    elif kind in ("server", "lsp"):
        what = "MCP server" if kind == "server" else "language server"
        said = f"{what} {name!r} runs `{item.shown}`, {why}"
        left = "no harness is given it"
    elif kind == "skill":
        said = f"skill {name!r}: {label(item.key).split(': ', 1)[1]} `{item.shown}`, {why}"
        left = "the skill is linked nowhere"
    else:
        said = f"{label(item.key)} `{item.shown}`, {why}"
        left = f"the {kind} is carried without it"
    note = f" ({item.note})" if item.note else ""
    return Problem(
        item.path,
        f"{said}{note}; {left}: 'skilltool plugins approve {item.source}' shows it and asks",
        severity="warning",
    )


def approve(
    items: Iterable[Runnable], every: Iterable[Runnable], approved: Mapping[str, PluginApproval]
) -> dict[str, PluginApproval]:
    """The approvals after approving `items`: per plugin, each of its runnables (`every`)
    that is approved now, with the plugin's files as they are; a plugin that runs nothing
    any more loses its approval."""
    from skilltool.sources import Approval, PluginApproval

    approving = {(i.plugin, i.key) for i in items}
    result: dict[str, PluginApproval] = {}
    for item in every:
        if (item.plugin, item.key) not in approving and not is_approved(item, approved):
            continue
        mine = result.get(item.plugin) or PluginApproval(item.files, {})
        runs = {**mine.runs, item.key: Approval(item.digest, item.shown)}
        result[item.plugin] = mine._replace(runs=runs)
    return dict(sorted(result.items()))
