"""Consent for what a harness will run: a command a plugin fetched from git hands to a
harness (an MCP server started as a command) is carried only once the user approved that
exact command line. The approval is recorded in the lockfile, beside the commit, as the
digest of what was shown, so that a `sync --frozen` elsewhere carries exactly what was
approved; a command that changes is a new one, and waits.

What the user's own hands put there runs as it is: their plugins folder, a local path they
added, a project's own folder, what a distribution ships, the bundled plugin. Only a source
fetched from a URL asks. The same line says whose an error is (`upstream`): one in a fetched
plugin's files is for its authors to fix, and does not fail a run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from skilltool.model import Catalogue, Hook, McpServer, Plugin, Problem
from skilltool.record import NamedTuple

if TYPE_CHECKING:
    from skilltool import paths
    from skilltool.sources import Approval, Source

PLUGIN_ROOT = "${CLAUDE_PLUGIN_ROOT}"


class Runnable(NamedTuple):
    """One thing of a fetched plugin that a harness would run, as the user is shown it."""

    source: str  # the name of the source it comes from
    plugin: str
    key: str  # "server:NAME", "hook:EVENT:GROUP:INDEX": what the lockfile's `approved` names it by
    shown: str  # the command line, its environment and working folder, as a person reads it
    digest: str  # of exactly what is shown, the plugin's folder written as ${CLAUDE_PLUGIN_ROOT}
    path: Path  # the file that declares it


def label(key: str) -> str:
    """What a runnable is, in words: `MCP server 'name'`, or `hook`."""
    kind, _, name = key.partition(":")
    return "hook" if kind == "hook" else f"MCP server {name!r}"


class Held(NamedTuple):
    """A runnable left out of every harness: not approved, or changed since it was."""

    runnable: Runnable
    was: str | None  # approved once in another form: that form, as it was shown

    @property
    def changed(self) -> bool:
        return self.was is not None


def _unexpanded(text: str, root: str) -> str:
    """A value as the plugin wrote it: its own folder as ${CLAUDE_PLUGIN_ROOT}, so that the
    digest is the same in every checkout."""
    return text.replace(root, PLUGIN_ROOT)


def runnable(source: str, plugin: Plugin, server: McpServer) -> Runnable | None:
    """What a server runs, or None for one that runs nothing here (HTTP, SSE)."""
    if server.transport != "stdio" or server.command is None:
        return None
    import hashlib  # here: a run with no fetched source never needs them
    import json
    import shlex

    root = str(plugin.root)
    argv = [_unexpanded(v, root) for v in (server.command, *server.args)]
    env = {k: _unexpanded(v, root) for k, v in sorted(server.env.items())}
    cwd = _unexpanded(server.cwd, root) if server.cwd is not None else None
    shown = shlex.join(argv)
    if env:
        shown += "  (env " + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + ")"
    if cwd is not None:
        shown += f"  (in {cwd})"
    canonical = json.dumps({"argv": argv, "env": env, "cwd": cwd}, sort_keys=True)
    digest = "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    return Runnable(source, plugin.name, f"server:{server.name}", shown, digest, server.path)


def hook_runnable(source: str, plugin: Plugin, hook: Hook) -> Runnable:
    """What a hook runs, shown with the event and the tools it runs on."""
    import hashlib
    import json

    command = _unexpanded(hook.command, str(plugin.root))
    on = f" on {hook.matcher}" if hook.matcher not in ("", "*") else ""
    timeout = f"  (timeout {hook.timeout} s)" if hook.timeout is not None else ""
    shown = f"{hook.event}{on}: {command}{timeout}"
    canonical = json.dumps(
        {"event": hook.event, "matcher": hook.matcher, "command": command, "timeout": hook.timeout},
        sort_keys=True,
    )
    digest = "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    return Runnable(source, plugin.name, hook.key, shown, digest, hook.path)


def fetched(home: paths.Scope) -> dict[Path, Source]:
    """The lockfile's sources fetched from a URL, by the folder their plugins are read from;
    none when there is no lockfile (or one that cannot be read: the commands say why)."""
    return {place: s for place, s in _locked(home).items() if s.url is not None}


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
    return {place: s for place, s in by_place.items() if s.url is not None}, None


def added(home: paths.Scope) -> dict[Path, Source]:
    """The sources whose files are their authors' to fix, by the same folders: every source
    of the lockfile (from a URL, or in the user's home a local path added with `add`, as
    often as not someone else's checkout), but a project's paths, the repository's own."""
    own = home.kind == "project"
    return {place: s for place, s in _locked(home).items() if s.url is not None or not own}


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
        runs = plugin.mcp_servers or plugin.hook_commands
        source = source_of(plugin, by_place) if runs else None
        if source is None:
            continue
        for server in plugin.mcp_servers:
            item = runnable(source.name, plugin, server)
            if item is not None:
                found.append(item)
        found += [hook_runnable(source.name, plugin, hook) for hook in plugin.hook_commands]
    return found


def is_approved(item: Runnable, approved: Mapping[str, Approval]) -> bool:
    known = approved.get(item.key)
    return known is not None and known.digest == item.digest


def waiting(items: Iterable[Runnable], approved: Mapping[str, Approval]) -> list[Held]:
    """The runnables whose exact form the user has not approved."""
    return [
        Held(item, approved[item.key].command if item.key in approved else None)
        for item in items
        if not is_approved(item, approved)
    ]


def approved_only(
    by_place: Mapping[Path, Source], catalogue: Catalogue
) -> tuple[Catalogue, list[Problem]]:
    """The catalogue with every server the user has not approved left out of its plugins
    (`by_place`: the fetched sources, from `fetched`), and a line for each: what it runs,
    and how to approve it. Entries of ours of a server left out are then removed as those
    of any server gone."""
    if not by_place:
        return catalogue, []
    held: dict[tuple[str, str], Held] = {}
    for plugin in catalogue.plugins:
        runs = plugin.mcp_servers or plugin.hook_commands
        source = source_of(plugin, by_place) if runs else None
        if source is None:
            continue
        for item in waiting(runnables([plugin], by_place), source.approved):
            held[(plugin.name, item.runnable.key)] = item
    if not held:
        return catalogue, []
    plugins = []
    for plugin in catalogue.plugins:
        kept = tuple(s for s in plugin.mcp_servers if (plugin.name, f"server:{s.name}") not in held)
        hooks = tuple(h for h in plugin.hook_commands if (plugin.name, h.key) not in held)
        same = len(kept) == len(plugin.mcp_servers) and len(hooks) == len(plugin.hook_commands)
        plugins.append(plugin if same else plugin._replace(mcp_servers=kept, hook_commands=hooks))
    # a lockfile that cannot be read is said once, by itself: nothing there can be approved
    problems = [held_problem(i) for i in held.values() if i.runnable.source != UNREADABLE]
    return catalogue._replace(plugins=tuple(plugins)), problems


def held_problem(held: Held) -> Problem:
    item = held.runnable
    why = "changed since you approved it" if held.changed else "which you have not approved"
    if item.key.startswith("hook:"):
        said = f"hook `{item.shown}` runs a command {why}"
    else:
        said = f"MCP server {item.key.split(':', 1)[1]!r} runs `{item.shown}`, {why}"
    return Problem(
        item.path,
        f"{said}; no harness is given it: 'skilltool plugins approve {item.source}' shows it "
        "and asks",
        severity="warning",
    )


def approve(
    items: Iterable[Runnable], approved: Mapping[str, Approval], keep: Iterable[str]
) -> dict[str, Approval]:
    """The approvals after approving `items`: theirs recorded, those of things the source
    no longer has (not in `keep`) dropped."""
    kept = set(keep)
    result = {k: v for k, v in approved.items() if k in kept}
    from skilltool.sources import Approval

    result.update({item.key: Approval(item.digest, item.shown) for item in items})
    return dict(sorted(result.items()))
