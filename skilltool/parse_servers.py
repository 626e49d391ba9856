"""A plugin's MCP servers read as Claude Code reads them: `.mcp.json`, plugin.json's
`mcpServers`, a marketplace entry's, with `${CLAUDE_PLUGIN_ROOT}` expanded (SPEC §10)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skilltool import probe
from skilltool.model import LspServer, McpServer, McpTransport, Problem

if TYPE_CHECKING:
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
        declared.append((manifest, data["mcpServers"], json_text(manifest) or ""))
    if entry is not None and "mcpServers" in entry.fields and listing is not None:
        declared.append((listing, entry.fields["mcpServers"], json_text(listing) or ""))
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
    line = key_line(text, "mcpServers")
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


def servers_of_file(
    path: Path,
    key: tuple[str, ...],
    root: Path,
    problems: list[Problem],
    fmt: str = "jsonc",
    convert: Any = None,
) -> list[McpServer]:
    """The servers under `key` of a harness's own config file (JSON with comments, or TOML:
    `fmt` as entries/ reads it), each read as a server of `.mcp.json` is."""
    read = config_value(path, key, problems, fmt)
    if read is None:
        return []
    found, text = read
    servers = found or {}
    if convert is not None:
        servers = {name: convert(value) for name, value in servers.items()}
    return _servers(servers, path, text, root, problems)


def config_value(
    path: Path, key: tuple[str, ...], problems: list[Problem], fmt: str = "jsonc"
) -> tuple[Any, str] | None:
    """The value under `key` of a harness's own config file (None where it has none), read
    as the harness reads the file (`fmt` as entries/ reads it: JSON with comments, TOML), and
    the file's text; None, with a problem, when the file cannot be read or does not parse."""
    from skilltool import entries
    from skilltool.entries import EntryError

    data = probe.now.read_regular(path)
    text = data.decode("utf-8-sig", "replace") if data is not None else None
    if text is None or data is None or len(data) > SIZE_LIMIT:
        problems.append(Problem(path, "cannot be read as text under 1 MiB; fix the file"))
        return None
    try:
        return entries.read_entries(text, fmt, key), text  # type: ignore[arg-type]
    except EntryError as err:
        problems.append(Problem(path, f"does not parse ({err}); fix it", line=err.line))
        return None


def json_text(path: Path) -> str | None:
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
    found = json_object(path, "mcpServers", problems)
    if found is None:
        return []
    value, text = found
    if "mcpServers" in value:
        servers = value["mcpServers"]
        if not isinstance(servers, dict):
            line = key_line(text, "mcpServers")
            problems.append(Problem(path, "must be an object of servers", "mcpServers", line))
            return []
        return _servers(servers, path, text, root, problems)
    return _servers(value, path, text, root, problems)


def json_object(path: Path, key: str, problems: list[Problem]) -> tuple[dict[str, Any], str] | None:
    """A plugin's JSON file that must hold an object (`{"<key>": {...}}`, as its line says),
    and its text; None, with a problem, when it cannot be read or is not one."""
    text = json_text(path)
    if text is None:
        problems.append(Problem(path, "cannot be read as UTF-8 text under 1 MiB; fix the file"))
        return None
    import json  # here, not at the top: a run that reads no such file does not import it

    try:
        value = json.loads(text)
    except ValueError as err:
        line = getattr(err, "lineno", None)
        problems.append(Problem(path, f"is not valid JSON ({err}); fix it", line=line))
        return None
    if not isinstance(value, dict):
        problems.append(Problem(path, f'must be a JSON object: {{"{key}": {{...}}}}', line=1))
        return None
    return value, text


def _servers(
    servers: Mapping[str, Any], path: Path, text: str, root: Path, problems: list[Problem]
) -> list[McpServer]:
    found = []
    for name, value in servers.items():
        line = key_line(text, name)
        server = _server(str(name), value, path, line, root, problems)
        if server is not None:
            found.append(server)
    return found


def key_line(text: str, key: str) -> int | None:
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


# --------------------------------------------------------------------------- language servers

LSP_FILE = ".lsp.json"
# the keys of a language server skilltool reads: the rest are Claude Code's own (restart
# policy, timeouts, transport), named once in a warning
LSP_KEYS = frozenset(
    {"command", "args", "env", "extensionToLanguage", "initializationOptions", "settings"}
)


def read_lsp_servers(
    root: Path,
    manifest: Path | None,
    data: Mapping[str, Any] | None,
    entry: MarketplaceEntry | None = None,
    listing: Path | None = None,
) -> tuple[list[LspServer], list[Problem]]:
    """Every language server a plugin declares, as Claude Code loads them: `.lsp.json`, then
    plugin.json's `lspServers` (servers, a path, or a list of either), then a marketplace
    entry's (how the official marketplace's LSP plugins declare theirs); a later server of a
    name already read is not used."""
    problems: list[Problem] = []
    servers: list[LspServer] = []
    if probe.now.isfile(root / LSP_FILE):
        servers += _lsp_file(root / LSP_FILE, root, problems)
    declared: list[tuple[Path, Any]] = []
    if data is not None and "lspServers" in data and manifest is not None:
        declared.append((manifest, data["lspServers"]))
    if entry is not None and "lspServers" in entry.fields and listing is not None:
        declared.append((listing, entry.fields["lspServers"]))
    for where, value in declared:
        text = json_text(where) or ""
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, Mapping):
                servers += _lsp_servers(item, where, text, root, problems)
            elif isinstance(item, str):
                full = Path(os.path.normpath(root / item))
                if (full == root or root in full.parents) and probe.now.isfile(full):
                    if full != root / LSP_FILE:
                        servers += _lsp_file(full, root, problems)
                    continue
                why = f"{item!r} is not a file in {root}; fix the path"
                problems.append(Problem(where, why, "lspServers", key_line(text, "lspServers")))
            else:
                why = 'must be an object of servers, a path, or a list of them, e.g. "./.lsp.json"'
                problems.append(Problem(where, why, "lspServers", key_line(text, "lspServers")))
    first: dict[str, LspServer] = {}
    for server in servers:
        first.setdefault(server.name, server)
    return list(first.values()), problems


def _lsp_file(path: Path, root: Path, problems: list[Problem]) -> list[LspServer]:
    found = json_object(path, "go", problems)
    if found is None:
        return []
    value, text = found
    return _lsp_servers(value, path, text, root, problems)


def _lsp_servers(
    servers: Mapping[str, Any], path: Path, text: str, root: Path, problems: list[Problem]
) -> list[LspServer]:
    found = []
    expand = _expander(root)
    for name, value in servers.items():
        line = key_line(text, str(name))
        said = len(problems)

        def bad(field: str, message: str, name: object = name, line: int | None = line) -> None:
            problems.append(Problem(path, message, f"lspServers.{name}.{field}", line))

        if re.fullmatch(SERVER_NAME, str(name)) is None or not isinstance(value, dict):
            why = f"must be a server object under a name of {NAME_RULE}"
            problems.append(Problem(path, why, f"lspServers.{name}", line))
            continue
        command = value.get("command")
        if not isinstance(command, str) or not command:
            bad("command", "missing: a language server needs the program to run")
        args = _strings(value.get("args", []), "args", bad)
        env = _string_map(value.get("env", {}), "env", bad)
        extensions = _string_map(value.get("extensionToLanguage", {}), "extensionToLanguage", bad)
        if not extensions:
            bad("extensionToLanguage", 'missing: the files it serves, e.g. {".go": "go"}')
        for key in sorted(set(value) - LSP_KEYS):
            why = "Claude Code's own; not carried to other harnesses"
            problems.append(Problem(path, why, f"lspServers.{name}.{key}", line, "warning"))
        if len([p for p in problems[said:] if p.severity == "error"]) or not isinstance(
            command, str
        ):
            continue
        options = {k: value[k] for k in ("initializationOptions", "settings") if k in value}
        found.append(
            LspServer(
                str(name),
                path,
                expand(command),
                tuple(expand(a) for a in args),
                {k: expand(v) for k, v in env.items()},
                dict(extensions),
                line,
                options,
            )
        )
    return found
