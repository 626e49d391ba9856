"""A plugin's MCP servers: reading them (`.mcp.json`, plugin.json's `mcpServers`, a
marketplace entry's), and planning them as entries of each harness's own config file
under the entry rule of SPEC §5, with the ledger that proves which entries are ours.

Reading, the ledger and planning live here; apply.py carries the edits out.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from skilltool import markers, probe
from skilltool.fs import digest, read_regular, write_file
from skilltool.model import (
    Catalogue,
    EntryRecord,
    McpServer,
    McpTransport,
    Plugin,
    Problem,
)
from skilltool.plan import Action, Change, Plan, State, read_places, seen_gone
from skilltool.record import NamedTuple

if TYPE_CHECKING:
    from skilltool.entries import EntryError, Format
    from skilltool.harnesses import Harness, McpPlace
    from skilltool.model import MarketplaceEntry

MCP_FILE = ".mcp.json"
PLUGIN_ROOT = "${CLAUDE_PLUGIN_ROOT}"
# a server's name becomes a key in every harness's config (a TOML table, a JSON key)
SERVER_NAME = r"[A-Za-z0-9_-]{1,64}"
# the keys of a server skilltool carries to the harnesses; any other is said not carried
STDIO_KEYS = frozenset({"type", "command", "args", "env", "cwd"})
REMOTE_KEYS = frozenset({"type", "url", "headers"})
NAME_RULE = "1-64 characters of A-Z, a-z, 0-9, '_' and '-'"
SIZE_LIMIT = 1 << 20
FORMATS = ("toml", "toml-array", "json", "jsonc", "yaml")


# --------------------------------------------------------------------------- reading


def read_servers(
    root: Path,
    manifest: Path | None,
    data: Mapping[str, Any] | None,
    entry: MarketplaceEntry | None = None,
    listing: Path | None = None,
) -> tuple[list[McpServer], list[Problem]]:
    """Every MCP server a plugin declares, as Claude Code 2.1.332 loads them all together:
    `.mcp.json`, then plugin.json's `mcpServers` (servers, a path, or a list of either),
    then a marketplace entry's; `${CLAUDE_PLUGIN_ROOT}` is expanded to the plugin's folder.
    A later server of a name already read is not used."""
    problems: list[Problem] = []
    servers: list[McpServer] = []
    if probe.now.isfile(root / MCP_FILE):
        servers += _read_file(root / MCP_FILE, root, problems)
    declared: list[tuple[Path, Any, str]] = []
    if data is not None and "mcpServers" in data and manifest is not None:
        declared.append((manifest, data["mcpServers"], _read_text(manifest) or ""))
    if entry is not None and "mcpServers" in entry.fields and listing is not None:
        declared.append((listing, entry.fields["mcpServers"], _read_text(listing) or ""))
    for where, value, text in declared:
        items = value if isinstance(value, list) else [value]
        for item in items:
            servers += _declared(item, where, text, root, problems)
    first: dict[str, McpServer] = {}
    for server in servers:
        first.setdefault(server.name, server)
    return list(first.values()), problems


def _declared(
    item: Any, where: Path, text: str, root: Path, problems: list[Problem]
) -> list[McpServer]:
    """One item of a `mcpServers` field: an object of servers, or a path to a file of them."""
    line = _key_line(text, "mcpServers")
    if isinstance(item, Mapping):
        return _servers(item, where, text, root, problems)
    if not isinstance(item, str):
        why = 'must be an object of servers, a path, or a list of them, e.g. "./.mcp.json"'
        problems.append(Problem(where, why, "mcpServers", line))
        return []
    full = Path(os.path.normpath(root / item))
    if root != full and root not in full.parents:
        why = f"{item!r} leads outside the plugin; put it inside"
        problems.append(Problem(where, why, "mcpServers", line))
        return []
    if not probe.now.isfile(full):
        why = f"{item!r} is not a file in {root}; fix the path"
        problems.append(Problem(where, why, "mcpServers", line))
        return []
    if full == root / MCP_FILE:
        return []  # read already
    return _read_file(full, root, problems)


def _read_text(path: Path) -> str | None:
    data = probe.now.read_regular(path)
    if data is None or len(data) > SIZE_LIMIT:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def _read_file(path: Path, root: Path, problems: list[Problem]) -> list[McpServer]:
    """The servers of one `.mcp.json`-shaped file: `{"mcpServers": {...}}`, or the bare
    `{name: {...}}` shape Claude Code also loads."""
    text = _read_text(path)
    if text is None:
        problems.append(Problem(path, "cannot be read as UTF-8 text under 1 MiB; fix the file"))
        return []
    import json  # here, not at the top: a run that reads no such file does not import it

    try:
        value = json.loads(text)
    except ValueError as err:
        line = getattr(err, "lineno", None)
        problems.append(Problem(path, f"is not valid JSON ({err}); fix it", line=line))
        return []
    if not isinstance(value, dict):
        problems.append(Problem(path, 'must be a JSON object: {"mcpServers": {...}}', line=1))
        return []
    if "mcpServers" in value:
        servers = value["mcpServers"]
        if not isinstance(servers, dict):
            line = _key_line(text, "mcpServers")
            problems.append(Problem(path, "must be an object of servers", "mcpServers", line))
            return []
        return _servers(servers, path, text, root, problems)
    return _servers(value, path, text, root, problems)


def _servers(
    servers: Mapping[str, Any], path: Path, text: str, root: Path, problems: list[Problem]
) -> list[McpServer]:
    found = []
    for name, value in servers.items():
        line = _key_line(text, name)
        server = _server(str(name), value, path, line, root, problems)
        if server is not None:
            found.append(server)
    return found


def _key_line(text: str, key: str) -> int | None:
    """The line where `"key":` first appears in a JSON text (None if it does not)."""
    import json

    match = re.search(re.escape(json.dumps(key)) + r"\s*:", text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def _server(
    name: str, value: Any, path: Path, line: int | None, root: Path, problems: list[Problem]
) -> McpServer | None:
    """One server entry -> an McpServer, or None with its problems said."""
    said = len(problems)

    def bad(field: str, message: str) -> None:
        problems.append(Problem(path, message, f"mcpServers.{name}.{field}", line))

    if re.fullmatch(SERVER_NAME, name) is None:
        why = f"{name!r} is not a server name every harness takes as a key; {NAME_RULE}"
        problems.append(Problem(path, why, f"mcpServers.{name}", line))
        return None
    if not isinstance(value, dict):
        problems.append(Problem(path, "must be an object", f"mcpServers.{name}", line))
        return None
    kind = value.get("type", "stdio" if "command" in value or "url" not in value else None)
    if kind is None:
        bad("type", 'missing for a server with a url: set "http" or "sse"')
        return None
    if kind not in ("stdio", "http", "sse"):
        bad("type", f'{kind!r} is not a transport; use "stdio", "http" or "sse"')
        return None
    carried = STDIO_KEYS if kind == "stdio" else REMOTE_KEYS
    for key in sorted(set(value) - carried):  # headersHelper, oauth, timeout…: Claude Code's own
        problems.append(
            Problem(
                path,
                f"not carried to other harnesses (skilltool writes {', '.join(sorted(carried))}); "
                "the server is written without it, so it may not work there",
                f"mcpServers.{name}.{key}",
                line,
                "warning",
            )
        )
    said = len(problems)  # a warning above does not stop the server
    expand = _expander(root)
    if kind == "stdio":
        command = value.get("command")
        if not isinstance(command, str) or not command:
            bad("command", "missing: a stdio server needs the program to run")
        args = _strings(value.get("args", []), "args", bad)
        env = _string_map(value.get("env", {}), "env", bad)
        cwd = value.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            bad("cwd", "must be a string (a directory)")
        if len(problems) > said:
            return None
        assert isinstance(command, str)
        return McpServer(
            name,
            path,
            "stdio",
            command=expand(command),
            args=tuple(expand(a) for a in args),
            env={k: expand(v) for k, v in env.items()},
            cwd=expand(cwd) if isinstance(cwd, str) else None,
            line=line,
        )
    url = value.get("url")
    if not isinstance(url, str) or not re.match(r"https?://", url):
        bad("url", f"a {kind} server needs an http:// or https:// url")
    headers = _string_map(value.get("headers", {}), "headers", bad)
    if len(problems) > said:
        return None
    assert isinstance(url, str)
    transport: McpTransport = "http" if kind == "http" else "sse"
    return McpServer(
        name,
        path,
        transport,
        url=expand(url),
        headers={k: expand(v) for k, v in headers.items()},
        line=line,
    )


def _expander(root: Path) -> Any:
    where = str(root)
    return lambda text: text.replace(PLUGIN_ROOT, where)


def _strings(value: Any, field: str, bad: Any) -> list[str]:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    bad(field, "must be a list of strings")
    return []


def _string_map(value: Any, field: str, bad: Any) -> dict[str, str]:
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        return value
    bad(field, 'must be an object of strings, e.g. {"KEY": "value"}')
    return {}


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


# --------------------------------------------------------------------------- the ledger


def _json_loads(data: bytes) -> Any:
    """JSON read, imported only when there is a ledger to read (most runs have none)."""
    import json

    return json.loads(data)


LEDGER = "mcp-entries.json"  # in the state dir: every entry skilltool wrote, and its digest


class Ledger:
    """The entries skilltool wrote into config files it shares with the user, kept in the
    state dir: an entry is ours only when it is here and its value is still the one
    recorded. Saved before an entry is added and after one is removed, so that a crash
    never leaves an entry of ours unrecorded (a record of an entry not there is harmless)."""

    def __init__(self, state_dir: Path | None) -> None:
        self.path = state_dir / LEDGER if state_dir is not None else None
        self.entries: dict[tuple[str, tuple[str, ...], str], EntryRecord] = {}
        self.files: set[str] = set()  # config files skilltool created
        self.tables: set[tuple[str, tuple[str, ...]]] = set()  # tables skilltool created
        data = read_regular(self.path) if self.path is not None else None
        try:
            loaded = _json_loads(data) if data is not None else {}
        except ValueError:
            loaded = {}  # a damaged ledger proves nothing ours: every entry is then foreign
        for item in loaded.get("entries", []) if isinstance(loaded, dict) else []:
            try:
                record = EntryRecord(
                    item["harness"],
                    Path(item["file"]),
                    item["format"],
                    tuple(item["table"]),
                    item["name"],
                    item["digest"],
                    Path(item["source"]),
                )
            except (KeyError, TypeError):
                continue
            self.entries[record.key] = record
        if isinstance(loaded, dict):
            self.files = {f for f in loaded.get("created_files", []) if isinstance(f, str)}
            self.tables = {
                (t[0], tuple(t[1])) for t in loaded.get("created_tables", []) if len(t) == 2
            }

    def get(self, file: Path, table: tuple[str, ...], name: str) -> EntryRecord | None:
        return self.entries.get((str(file), table, name))

    def of(self, harness: str) -> list[EntryRecord]:
        return sorted((r for r in self.entries.values() if r.harness == harness), key=_order)

    def created_file(self, file: Path) -> bool:
        return str(file) in self.files

    def created_table(self, file: Path, table: tuple[str, ...]) -> bool:
        return (str(file), table) in self.tables

    def add(self, record: EntryRecord) -> None:
        self.entries[record.key] = record._replace(created_file=False, created_table=False)
        if record.created_file:
            self.files.add(str(record.file))
        if record.created_table:
            self.tables.add((str(record.file), record.table))
        self.save()

    def drop(self, record: EntryRecord) -> None:
        self.entries.pop(record.key, None)
        if record.created_file:  # the removal removed the file
            self.files.discard(str(record.file))
        if record.created_file or record.created_table:
            self.tables.discard((str(record.file), record.table))
        self.save()

    def save(self) -> None:
        if self.path is None:
            return
        data = {
            "version": 1,
            "entries": [
                {
                    "harness": r.harness,
                    "file": str(r.file),
                    "format": r.format,
                    "table": list(r.table),
                    "name": r.name,
                    "digest": r.digest,
                    "source": str(r.source),
                }
                for r in sorted(self.entries.values(), key=_order)
            ],
            "created_files": sorted(self.files),
            "created_tables": [[f, list(t)] for f, t in sorted(self.tables)],
        }
        import json

        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_file(self.path, text.encode("utf-8"), 0o644, replace=True)


def _order(record: EntryRecord) -> tuple[str, tuple[str, ...], str]:
    return record.key


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

    def __init__(self, place: McpPlace) -> None:
        self.place = place
        self.path = place.path
        self.format: Format = place.format
        self.text: str | None = None  # None: no file there
        self.problem: tuple[State, str] | None = None
        self.manifest: Path | None = None  # a file the harness needs beside it (mcp_manifest)
        self.plugin: Plugin | None = None  # the plugin whose servers it holds, when one does
        if os.path.islink(self.path):
            why = "a link; skilltool edits only a regular file, so nothing is changed in it"
            self.problem = ("foreign", why)
            return
        if not os.path.lexists(self.path):
            return
        data = read_regular(self.path)
        if data is None:
            self.problem = ("foreign", "not a regular file; nothing is changed in it")
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

    def current(self) -> dict[str, Any]:
        from skilltool import entries

        if self.text is None:
            return {}
        found = entries.read_entries(self.text, self.format, self.place.table)
        return dict(found or {})

    def seen(self) -> str | None:
        return digest(self.text.encode("utf-8")) if self.text is not None else None


def _value_digest(value: Any) -> str:
    from skilltool import entries

    return entries.entry_digest(value)


def _refused(err: EntryError, name: str) -> tuple[State, str]:
    """An edit the editor cannot make exactly: the file is left alone, said in one line."""
    at = f"line {err.line}: " if err.line else ""
    return "unparsable", (
        f"mcp {name}: cannot be edited exactly ({at}{err.message}); nothing is changed in it"
    )


def plan_entries(
    catalogue: Catalogue,
    found: list[Harness],
    ledger: Ledger,
    remove: bool = False,
    force: bool = False,
) -> Plan:
    """Every MCP server of the active plugins as an entry of each harness's config, and the
    removal of our entries no server needs any more (all of them, for uninstall)."""
    servers, problems = winning_servers(catalogue)
    owners = {
        s.name: p for p in catalogue.active for s in p.mcp_servers if servers.get(s.name) is s
    }
    read = read_places(catalogue)
    carried = Carried(servers, owners, ledger, remove, force, read)
    actions: list[Action] = []
    for harness in found:
        actions += _harness_entries(harness, carried)
    return Plan(tuple(actions), tuple(problems))


class Carried(NamedTuple):
    """What one plan carries into each harness: the winning servers and their plugins."""

    servers: dict[str, McpServer]
    owners: dict[str, Plugin]
    ledger: Ledger
    remove: bool
    force: bool
    read: tuple[str, ...]


def _note(harness: Harness, server: McpServer, target: Path, state: State, why: str) -> Action:
    """A server that gets no entry in this harness, and why."""
    return Action(
        "entry", harness.name, server.name, target, state, "none", server.path, reason=why
    )


def _harness_entries(harness: Harness, run: Carried) -> list[Action]:
    servers, ledger = run.servers, run.ledger
    if not servers and not ledger.of(harness.name):
        return []  # nothing to carry, nothing of ours: the user's files are not even read
    root = harness.root()
    if not os.path.isdir(root) or not harness.takes_mcp():
        if run.remove:
            return []
        if os.path.isdir(root):  # one line for the harness, whatever the number of servers
            why = f"MCP servers: {harness.mcp_unsupported}"
            return [_note(harness, s, root, "unsupported", why) for s in servers.values()]
        # the same words as an agent's: the line is said once per harness
        why = f"{harness.home.show(root)} does not exist (the harness is not set up here)"
        return [_note(harness, s, root, "absent", why) for s in servers.values()]
    from skilltool.harnesses import McpPlace

    files: dict[Path, ConfigFile] = {}
    actions: list[Action] = []
    wanted: set[tuple[Path, str]] = set()
    for server in [] if run.remove else servers.values():
        plugin = run.owners[server.name]
        place = harness.mcp_place_of(plugin)
        assert place is not None
        if place.path not in files:
            files[place.path] = _config(harness, place, ledger, plugin)
        config = files[place.path]
        value = harness.mcp_refusal(server) or harness.mcp_value(server)
        if not isinstance(value, dict):
            why = f"mcp {server.name}: {value.why}"
            actions.append(_note(harness, server, place.path, "unsupported", why))
            continue
        if config.problem is not None:
            state, why = config.problem
            actions.append(_note(harness, server, place.path, state, f"mcp {server.name}: {why}"))
            continue
        wanted.add((place.path, server.name))
        actions.append(_put(harness, config, server, value, ledger, run.force))
    for record in ledger.of(harness.name):  # an entry of ours in a file no longer the place
        if record.file not in files and record.format in FORMATS:
            fmt = cast("Format", record.format)
            place = McpPlace(record.file, fmt, record.table)
            files[record.file] = _config(harness, place, ledger)
    for record in ledger.of(harness.name):
        if (record.file, record.name) in wanted or record.file not in files:
            continue
        action = _take_out(files[record.file], record, ledger, run.remove, run.force, run.read)
        if action is not None:
            actions.append(action)
    return actions + _manifests(harness, files, run)


def _config(
    harness: Harness, place: McpPlace, ledger: Ledger, plugin: Plugin | None = None
) -> ConfigFile:
    """A config file as planning sees it; for a harness that needs a manifest beside it
    (Claude Code's generated plugin), a folder that is not skilltool's is left alone."""
    config = ConfigFile(place)
    config.manifest = harness.mcp_manifest(place.path)
    config.plugin = plugin
    if config.manifest is not None and config.problem is None:
        config.problem = _folder_problem(harness, config, ledger)
    return config


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


def _put(
    harness: Harness,
    config: ConfigFile,
    server: McpServer,
    value: dict[str, Any],
    ledger: Ledger,
    force: bool,
) -> Action:
    """The entry of one server: added, kept, updated, or left alone (SPEC §5)."""
    place, name = config.place, server.name
    current = config.current()
    record = ledger.get(config.path, place.table, name)
    want = EntryRecord(
        harness.name,
        config.path,
        place.format,
        place.table,
        name,
        _value_digest(value),
        server.path,
    )
    state: State = "missing"
    why = ""
    if name in current:
        there = _value_digest(current[name])
        if record is None:
            state = "foreign"
            why = (
                f"mcp {name}: an entry of that name that skilltool did not write is there; "
                "left alone (rename or remove it to have the plugin's)"
            )
        elif there != record.digest:
            state = "edited"
            why = f"mcp {name}: edited since skilltool wrote it (--force rewrites it)"
        else:
            state = "current" if there == want.digest else "stale"
    change: Change = {"missing": "create", "stale": "replace"}.get(state, "none")  # type: ignore[assignment]
    if state == "edited" and force:
        change, why = "replace", "it was edited by hand; --force replaced it"
    action = Action(
        "entry", harness.name, name, config.path, state, change, server.path, reason=why
    )
    if change == "none":
        return action
    from skilltool import entries
    from skilltool.entries import EntryError

    before, seen = config.text, config.seen()
    try:
        put = entries.put_entry(before, config.format, place.table, name, value)
    except EntryError as err:
        state, why = _refused(err, name)
        return action._replace(state=state, change="none", reason=why)
    config.text = put.text
    made = want._replace(created_file=before is None, created_table=put.created_table)
    return action._replace(content=put.text.encode("utf-8"), seen=seen, entry=made)


def _take_out(
    config: ConfigFile,
    record: EntryRecord,
    ledger: Ledger,
    remove: bool,
    force: bool,
    read: tuple[str, ...],
) -> Action | None:
    """The removal of one entry of ours no server needs (or, uninstalling, any): only when
    its value is the one recorded, and, on install, only when its server is seen gone."""
    place, name = config.place, record.name
    base = Action("entry", record.harness, name, record.file, "stale", "none", record.source)
    if config.problem is not None:
        state, why = config.problem
        return base._replace(state=state, reason=f"mcp {name}: {why}")
    current = config.current()
    if name not in current:
        return None  # already gone: a record of an entry not there is harmless
    if not remove and not seen_gone(str(record.source), read):
        why = (
            f"mcp {name}: its server's file {record.source} is not in a plugin folder "
            "read in this run; kept"
        )
        return base._replace(reason=why)
    edited = _value_digest(current[name]) != record.digest
    if edited and not force:
        verb = "uninstall" if remove else "its server is gone, but it"
        why = f"mcp {name}: {verb} was edited since skilltool wrote it (--force removes it)"
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
        state, why = _refused(err, name)
        return base._replace(state=state, reason=why)
    gone = ledger.created_file(record.file) and _blank(after, config.format)
    config.text = None if gone else after
    return base._replace(
        state="edited" if edited else ("current" if remove else "stale"),
        change="remove",
        content=None if gone else after.encode("utf-8"),
        seen=seen,
        reason="" if remove else "its server is gone",
        entry=record._replace(created_file=gone, created_table=drop_table),
    )


def _blank(text: str, fmt: Format) -> bool:
    """Whether a file holds nothing but what an empty file of its format is (`{}`): a file
    skilltool created that is so afterwards is removed, not left behind."""
    from skilltool import entries

    return not text.strip() or text.strip() == entries.fresh_text(fmt).strip()
