"""A plugin's MCP servers planned as entries of each harness's own config file, under the
entry rule of SPEC §5: only an entry the ledger (ledger.py) records as ours, unchanged
since, is changed or removed. Each harness says where its entries go and what they hold;
parse_servers reads the servers, apply.py carries the edits out.
"""

from __future__ import annotations

import contextlib
import os
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from skilltool import markers
from skilltool.fs import Unwritable, digest, edit_target, read_regular
from skilltool.ledger import Ledger
from skilltool.model import (
    Catalogue,
    EntryRecord,
    McpServer,
    Plugin,
    Problem,
)
from skilltool.paths import Escape, escapes
from skilltool.plan import Action, Change, Evidence, Plan, State
from skilltool.record import NamedTuple

if TYPE_CHECKING:
    from skilltool.entries import EntryError, Format
    from skilltool.harnesses import Harness
    from skilltool.model import McpPlace

FORMATS = ("toml", "toml-array", "json", "jsonc", "yaml", "yaml-list", "json-hooks")
# the largest config file skilltool edits: its parsers take a few seconds at this size (TOML
# and YAML about 10 s a MB, and more than linearly), and a config file is a few kB
MAX_CONFIG_BYTES = 256 * 1024


def server_dict(server: McpServer) -> dict[str, Any]:
    """A server as status --json shows it."""
    data: dict[str, Any] = {"name": server.name, "path": str(server.path), "line": server.line}
    data["transport"] = server.transport
    if server.transport == "stdio":
        data.update(command=server.command, args=list(server.args), env=dict(server.env))
        data["cwd"] = server.cwd
    else:
        data.update(url=server.url, headers=dict(server.headers))
    return data


# --------------------------------------------------------------------------- planning


def winning_servers(catalogue: Catalogue) -> tuple[dict[str, McpServer], list[Problem]]:
    """Server name -> the server carried under it: the first active plugin on the path wins,
    since every harness keeps its servers in one table."""
    winners: dict[str, McpServer] = {}
    problems = []
    for plugin in catalogue.active:
        for server in plugin.mcp_servers:
            first = winners.get(server.name)
            if first is None:
                winners[server.name] = server
                continue
            problems.append(
                Problem(
                    server.path,
                    f"MCP server {server.name!r} is also declared in {first.path}, which comes "
                    "first on the search path; this one is not carried: rename one of them",
                    f"mcpServers.{server.name}",
                    server.line,
                    severity="warning",
                )
            )
    return winners, problems


class ConfigFile:
    """One harness config file as planning sees it: its text, edited in memory action after
    action, so that several entries of one file chain into one final text."""

    def __init__(
        self, place: McpPlace, show: Callable[[Path], str] = str, out: Escape | None = None
    ) -> None:
        self.place = place
        self.path = place.path
        self.format: Format = place.format
        # the file's text as planned so far, None when there is none; one cell for every
        # view of the file in a run (`config_file`), so that one planner's edits are the
        # text the next one edits
        self.cell: list[str | None] = [None]
        self.problem: tuple[State, str] | None = None
        self.manifest: Path | None = None  # a file the harness needs beside it (mcp_manifest)
        self.plugin: Plugin | None = None  # the plugin whose servers it holds, when one does
        # the file has other names (a link to it, hard links): emptied, never removed
        self.tied = False
        if out is not None:  # a project's file that leads out of it: never read
            self.problem = ("foreign", out.line())
            return
        if not os.path.lexists(self.path):
            return
        real, unwritable = edit_target(self.path)
        if unwritable:
            self.problem = ("foreign", _unwritable(unwritable, show(real), real != self.path))
            return
        data = read_regular(real)
        if data is None:
            self.problem = ("foreign", "not a regular file; nothing is changed in it")
            return
        with contextlib.suppress(OSError):
            self.tied = real != self.path or os.stat(real).st_nlink > 1
        if len(data) > MAX_CONFIG_BYTES:
            why = f"is {_size(len(data))}, above the {_size(MAX_CONFIG_BYTES)} skilltool edits"
            self.problem = ("foreign", f"{why}; nothing is changed in it: {BY_HAND}")
            return
        from skilltool.entries import EntryError

        try:
            self.text = data.decode("utf-8")
            self.current()
        except UnicodeDecodeError:
            self.problem = ("unparsable", "is not UTF-8 text; nothing is changed in it")
        except EntryError as err:  # said in one line; the file is never taken for empty
            at = f"line {err.line}: " if err.line else ""
            why = f"does not parse ({at}{err.message}); nothing is changed in it"
            why += ": fix it, then run again"
            self.problem = ("unparsable", why)

    @property
    def text(self) -> str | None:
        return self.cell[0]

    @text.setter
    def text(self, value: str | None) -> None:
        self.cell[0] = value

    def current(self) -> dict[str, Any]:
        from skilltool import entries

        if self.text is None:
            return {}
        found = entries.read_entries(self.text, self.format, self.place.table)
        return dict(found or {})

    def seen(self) -> str | None:
        return digest(self.text.encode("utf-8")) if self.text is not None else None


BY_HAND = "add or remove the entry by hand"
KEPT = "nothing is changed in it"
# what to do about a link to a file skilltool cannot write, whoever made it
ELSEWHERE = "or put a file of your own in place of the link"


def _unwritable(why: Unwritable, shown: str, linked: bool) -> str:
    """Why a config file (or the file its link resolves to, `shown`) is left alone."""
    link = f"a link to {shown}, " if linked else ""
    if why == "dangling":
        return f"{link}which does not exist; {KEPT}: make the file, or remove the link"
    if why == "read-only-fs":
        return (
            f"{link}on a read-only file system; {KEPT}: change the entry where that file is "
            f"made (home-manager makes a Nix store's), {ELSEWHERE}"
        )
    if why == "not-yours":
        return f"{link}a file of another user; {KEPT}: change the entry as its owner, {ELSEWHERE}"
    if why == "unwritable-folder":
        folder = os.path.dirname(shown)
        return (
            f"{link}in a folder skilltool cannot write in; {KEPT}: make {folder} writable, "
            f"{ELSEWHERE}"
        )
    if why == "read-only" and linked:
        return (
            f"{link}which is read-only; {KEPT}: make it writable (chmod u+w {shown}), or change "
            "the entry where that file is made"
        )
    if why == "read-only":
        return (
            f"is read-only; {KEPT}: make it writable (chmod u+w {shown}) to have skilltool edit it"
        )
    if why == "not-regular":
        return (
            f"{link}which is not a regular file; {KEPT}"
            if linked
            else f"not a regular file; {KEPT}"
        )
    return f"{link}which cannot be read; {KEPT}" if linked else f"cannot be read; {KEPT}"


def _size(size: int) -> str:
    """A file's size in KB or MB, rounded up: a size above a limit never reads as the limit."""
    if size < 1 << 20:
        return f"{-(-size // 1024)} KB"
    return f"{-(-size * 10 // (1 << 20)) / 10:.1f} MB"


def _value_digest(value: Any) -> str:
    from skilltool import entries

    return entries.entry_digest(value)


def _digest_in(config: ConfigFile) -> Callable[[str], str | None]:
    """The digest of the entry of a name in the file as read, None when there is none (the
    file parsed again only when the ledger asks)."""
    found: list[dict[str, Any]] = []

    def digest_of(name: str) -> str | None:
        if not found:
            found.append(config.current())
        return _value_digest(found[0][name]) if name in found[0] else None

    return digest_of


def _refused(err: EntryError, name: str, label: str = "mcp") -> tuple[State, str]:
    """An edit the editor cannot make exactly: the file is left alone, said in one line."""
    at = f"line {err.line}: " if err.line else ""
    return "unparsable", (
        f"{label} {name}: cannot be edited exactly ({at}{err.message}); nothing is changed in it"
    )


# the table of a harness's config file that holds hooks, not MCP servers (Mistral Vibe's
# `[[hooks]]` in hooks.toml): its entries are said as hooks (hooks.py plans them)
HOOKS_TABLE = ("hooks",)


def label(table: tuple[str, ...]) -> str:
    """What an entry of this table is, as a line says it: `mcp`, `hook` or `lsp`."""
    names: dict[tuple[str, ...], str] = {HOOKS_TABLE: "hook", ("lsp",): "lsp"}
    return names.get(table, "mcp")


def plan_entries(
    catalogue: Catalogue,
    found: list[Harness],
    ledger: Ledger,
    remove: bool = False,
    force: bool = False,
    evidence: Evidence | None = None,
) -> Plan:
    """Every MCP server of the active plugins as an entry of each harness's config, and the
    removal of our entries no server needs any more (all of them, for uninstall)."""
    servers, problems = winning_servers(catalogue)
    if ledger.problem is not None:  # not used: every entry is foreign, none is written
        problems.append(ledger.problem)
    owners = {
        s.name: p for p in catalogue.active for s in p.mcp_servers if servers.get(s.name) is s
    }
    read = evidence or Evidence(catalogue)
    carried = Carried(servers, owners, ledger, remove, force, read, problems)
    actions: list[Action] = []
    for harness in found:
        actions += _harness_entries(harness, carried)
    from skilltool.harnesses import NAMES

    for record in ledger.records():
        if record.harness not in NAMES:
            problems.append(_stray(ledger, record, "names a harness skilltool does not know"))
    return Plan(tuple(actions), tuple(problems))


class Carried(NamedTuple):
    """What one plan carries into each harness: the winning servers and their plugins."""

    servers: dict[str, McpServer]
    owners: dict[str, Plugin]
    ledger: Ledger
    remove: bool
    force: bool
    read: Evidence
    problems: list[Problem]  # said once, for the whole plan


def _stray(ledger: Ledger, record: EntryRecord, why: str) -> Problem:
    """A record of the ledger that is never acted on, and why: kept as it is."""
    assert ledger.path is not None
    what = f"the record of {record.harness}'s MCP entry {record.name!r} {why}"
    fix = "the record is kept and never acted on: remove it if skilltool did not write it"
    return Problem(ledger.path, f"{what}; {fix}", "entries", severity="warning")


def _note(harness: Harness, server: McpServer, target: Path, state: State, why: str) -> Action:
    """A server that gets no entry in this harness, and why."""
    return Action(
        "entry", harness.name, server.name, target, state, "none", server.path, reason=why
    )


def _harness_entries(harness: Harness, run: Carried) -> list[Action]:
    servers, ledger = run.servers, run.ledger
    if not servers and not ledger.every(harness.name):
        return []  # nothing to carry, nothing of ours: the user's files are not even read
    root = harness.root()
    here = harness.present()
    if not here or not harness.takes_mcp():
        if run.remove:
            return []
        if here:  # one line for the harness, whatever the number of servers
            why = f"MCP servers: {harness.mcp_unsupported}"
            return [_note(harness, s, root, "unsupported", why) for s in servers.values()]
        # the same words as an agent's: the line is said once per harness
        from skilltool.harnesses import not_set_up

        why = not_set_up(harness.home, root, harness.name)
        return [_note(harness, s, root, "absent", why) for s in servers.values()]
    from skilltool.model import McpPlace

    files: dict[Path, ConfigFile] = {}
    for server in [] if run.remove else servers.values():
        plugin = run.owners[server.name]
        place = harness.mcp_place_of(plugin)
        assert place is not None
        if place.path not in files:
            files[place.path] = config_file(harness, place, ledger, plugin)
    usable: set[tuple[str, tuple[str, ...], str]] = set()  # the records that may be acted on
    for record in ledger.every(harness.name):  # an entry of ours in a file no longer the place
        place = McpPlace(record.file, cast("Format", record.format), record.table)
        if place in (harness.hook_place(), harness.lsp_place()):
            continue  # an entry of a hook (hooks.py) or of a language server (lsp.py)
        if record.format not in FORMATS or not harness.mcp_file(place):
            why = f"names {record.file}, which is not where {harness.name} keeps them here"
            run.problems.append(_stray(ledger, record, why))
            continue
        usable.add(record.key)
        if record.file not in files:
            files[record.file] = config_file(harness, place, ledger)
    actions: list[Action] = []
    wanted: set[tuple[Path, str]] = set()
    for server in [] if run.remove else servers.values():
        place = harness.mcp_place_of(run.owners[server.name])
        assert place is not None
        config = files[place.path]
        value = (
            harness.not_portable(server) or harness.mcp_refusal(server) or harness.mcp_value(server)
        )
        if not isinstance(value, dict):
            why = f"mcp {server.name}: {value.why}"
            actions.append(_note(harness, server, place.path, "unsupported", why))
            continue
        if config.problem is not None:
            state, why = config.problem
            actions.append(_note(harness, server, place.path, state, f"mcp {server.name}: {why}"))
            continue
        wanted.add((place.path, server.name))
        actions.append(put(harness, config, server.name, server.path, value, ledger, run.force))
    for record in ledger.of(harness.name):  # settled when its file was read
        if record.key not in usable or (record.file, record.name) in wanted:
            continue
        action = take_out(files[record.file], record, ledger, run.remove, run.force, run.read)
        if action is not None:
            actions.append(action)
    # a new generated folder gets its manifest (skilltool's by its marker) before anything
    # else, so that a run killed while filling it leaves a folder the next run knows is ours
    made = _manifests(harness, files, run)
    first = [a for a in made if a.change == "create"]
    return first + actions + [a for a in made if a.change != "create"]


def config_file(
    harness: Harness, place: McpPlace, ledger: Ledger, plugin: Plugin | None = None
) -> ConfigFile:
    """A config file as planning sees it; for a harness that needs a manifest beside it
    (Claude Code's generated plugin), a folder that is not skilltool's is left alone."""
    config = ConfigFile(place, harness.home.show, escapes(harness.home, place.path))
    config.manifest = harness.mcp_manifest(place.path)
    config.plugin = plugin
    if config.manifest is not None and config.problem is None:
        config.problem = _folder_problem(harness, config, ledger)
    if config.problem is None and not _ignored_here(harness, config):
        # what the file holds settles the ledger's records of it
        digest_of = _digest_in(config) if config.text is not None else None
        ledger.settle(harness.name, place, digest_of)
    if config.problem is None:
        # a file another table of which this run's plan has edited (a server's entry, then a
        # language server's or a hook's in the same opencode.json or settings.json): its edits
        # so far, or the actions planned on the file as read would undo each other
        texts = _PLANNED.setdefault(ledger, {})
        config.cell = texts.setdefault(place.path, config.cell)
    return config


# each run's config files as its plan has edited them so far, by the run's ledger (one a run)
_PLANNED: weakref.WeakKeyDictionary[Ledger, dict[Path, list[str | None]]] = (
    weakref.WeakKeyDictionary()
)


def _ignored_here(harness: Harness, config: ConfigFile) -> bool:
    """A project's config file this checkout lacks because git ignores it (a team that keeps
    `.mcp.json` out of git): its absence proves nothing of the committed records."""
    home = harness.home
    if config.text is not None or home.kind != "project" or os.path.lexists(config.path):
        return False
    from skilltool import gitignore

    return bool(gitignore.ignored(home.path, [config.path]))


def _folder_problem(
    harness: Harness, config: ConfigFile, ledger: Ledger
) -> tuple[State, str] | None:
    """Why the folder of a generated config file is not skilltool's to write in, or None."""
    assert config.manifest is not None
    folder, manifest = config.path.parent, config.manifest
    shown = harness.home.show(folder)
    why = f"{shown} is a folder skilltool did not make; nothing is changed in it (move it away)"
    if os.path.islink(folder) or (os.path.lexists(folder) and not os.path.isdir(folder)):
        return "foreign", why
    if os.path.lexists(manifest):
        data = read_regular(manifest)
        if data is None or markers.find(data) is None:
            return "foreign", why
        return None
    if config.text is not None and not ledger.created_file(config.path):
        return "foreign", why  # a .mcp.json of someone else's, with no plugin.json of ours
    return None


def _manifests(harness: Harness, files: dict[Path, ConfigFile], run: Carried) -> list[Action]:
    """The manifest beside each generated config file: there while the file is, removed
    with it; written and removed under the rule of rendered files (its marker)."""
    from skilltool.model import Rendering
    from skilltool.plan import file_action

    actions = []
    for config in files.values():
        if config.manifest is None or config.problem is not None:
            continue
        name = config.path.parent.name
        if config.text is not None and config.plugin is not None:
            made = Rendering(config.manifest, harness.mcp_manifest_content(config.plugin))
            action = file_action(harness.name, name, made, False, run.force)
            actions.append(action._replace(source=config.plugin.root))
        elif config.text is None and os.path.lexists(config.manifest):
            gone = file_action(harness.name, name, Rendering(config.manifest, b""), True, run.force)
            actions.append(gone if run.remove else gone._replace(reason="its MCP servers are gone"))
    return actions


def put(
    harness: Harness,
    config: ConfigFile,
    name: str,
    source: Path,
    value: dict[str, Any],
    ledger: Ledger,
    force: bool,
) -> Action:
    """The entry of one server (or hook), declared in `source`: added, kept, updated, or
    left alone (SPEC §5)."""
    place = config.place
    what = label(place.table)
    current = config.current()
    record = ledger.get(config.path, place.table, name)
    if record is not None and (record.harness, record.format) != (harness.name, place.format):
        record = None  # another harness's record, or one of another format: never ours here
    want = EntryRecord(
        harness.name,
        config.path,
        place.format,
        place.table,
        name,
        _value_digest(value),
        source,
    )
    state: State = "missing"
    why = ""
    if name in current:
        there = _value_digest(current[name])
        if record is None:
            state = "foreign"
            why = (
                f"{what} {name}: an entry of that name that skilltool did not write is there; "
                "left alone (rename or remove it to have the plugin's)"
            )
        elif there != record.digest:
            state = "edited"
            why = f"{what} {name}: edited since skilltool wrote it (--force rewrites it)"
        else:
            state = "current" if there == want.digest else "stale"
    change: Change = {"missing": "create", "stale": "replace"}.get(state, "none")  # type: ignore[assignment]
    if state == "edited" and force:
        change, why = "replace", "it was edited by hand; --force replaced it"
    if change != "none" and ledger.problem is not None:
        change, why = "none", f"{what} {name}: not written while the ledger cannot be used"
        why += f" ({ledger.problem.path.name}: see the problem line)"
    action = Action("entry", harness.name, name, config.path, state, change, source, reason=why)
    if change == "none":
        return action
    from skilltool import entries
    from skilltool.entries import EntryError

    before, seen = config.text, config.seen()
    try:
        put = entries.put_entry(before, config.format, place.table, name, value)
    except EntryError as err:
        state, why = _refused(err, name, what)
        return action._replace(state=state, change="none", reason=why)
    config.text = put.text
    made = want._replace(created_file=before is None, created_table=put.created_table)
    return action._replace(content=put.text.encode("utf-8"), seen=seen, entry=made)


def take_out(
    config: ConfigFile,
    record: EntryRecord,
    ledger: Ledger,
    remove: bool,
    force: bool,
    read: Evidence,
) -> Action | None:
    """The removal of one entry of ours no server needs (or, uninstalling, any): only when
    its value is the one recorded, and, on install, only when its server is seen gone."""
    place, name = config.place, record.name
    what = label(record.table)
    item = "hook" if what == "hook" else "language server" if what == "lsp" else "server"
    base = Action("entry", record.harness, name, record.file, "stale", "none", record.source)
    if config.problem is not None:
        state, why = config.problem
        return base._replace(state=state, reason=f"{what} {name}: {why}")
    current = config.current()
    if name not in current:
        return None  # already gone: its record was dropped when the file was read
    unknown = None if remove else read.unknown(str(record.source))
    if unknown is not None:
        return base._replace(
            reason=f"{what} {name}: its {item}'s file {record.source} {unknown}; kept"
        )
    edited = _value_digest(current[name]) != record.digest
    if edited and not force:
        verb = "uninstall" if remove else f"its {item} is gone, but it"
        why = f"{what} {name}: {verb} was edited since skilltool wrote it (--force removes it)"
        return base._replace(state="edited", reason=why)
    assert config.text is not None
    others = [key for key in current if key != name]
    drop_table = ledger.created_table(record.file, place.table) and not others
    from skilltool import entries
    from skilltool.entries import EntryError

    before, seen = config.text, config.seen()
    try:
        after = entries.remove_entry(before, config.format, place.table, name, drop_table)
    except EntryError as err:
        state, why = _refused(err, name, what)
        return base._replace(state=state, reason=why)
    gone = ledger.created_file(record.file) and _blank(after, config.format) and not config.tied
    config.text = None if gone else after
    return base._replace(
        state="edited" if edited else ("current" if remove else "stale"),
        change="remove",
        content=None if gone else after.encode("utf-8"),
        seen=seen,
        reason="" if remove else f"its {item} is gone",
        entry=record._replace(created_file=gone, created_table=drop_table),
    )


def _blank(text: str, fmt: Format) -> bool:
    """Whether a file holds nothing but what an empty file of its format is (`{}`): a file
    skilltool created that is so afterwards is removed, not left behind."""
    from skilltool import entries

    return not text.strip() or text.strip() == entries.fresh_text(fmt).strip()
