"""Entries of a user's config file: read them, put one, remove one, keeping every other byte.

A harness keeps its MCP servers as entries of a table inside a file that belongs to
the user (`[mcp_servers.<name>]` in Codex's `config.toml`, `mcpServers` in Gemini's
`settings.json`, `mcp` in OpenCode's `opencode.jsonc`, `mcp_servers` in Hermes's
`config.yaml`). This package edits one entry at a time:

- `read_entries(text, fmt, table)`: the plain values of every entry under the key
  path `table`, None when the table is absent.
- `put_entry(text, fmt, table, name, value)`: the text with entry `name` set to
  `value`; an existing entry is replaced in place, a new one goes after the table's
  last entry (the table is added at the end when absent: `created_table`).
- `remove_entry(text, fmt, table, name, drop_table)`: the exact inverse, byte for
  byte: `remove_entry(put_entry(t, ...).text, ..., drop_table=created_table) == t`.
- `entry_digest(value)`: compares values, not formatting.
- `fresh_text(fmt)`: the text of a file holding nothing, which `put_entry(None, ...)`
  starts from; a file that equals it after a removal held only our entries.

Nothing is re-dumped: each editor parses the text to validate it and to find spans,
then splices. Every edit is checked by parsing its result again: when the values
are not exactly the old ones with that one entry changed, or the file does not
parse, or a shape cannot be edited exactly (a comment inside a YAML flow mapping,
an entry written as TOML dotted keys), `EntryError` is raised with the line, and no
text is returned. The caller then leaves the file alone and shows
`<file>:<error.line>: <error.message>`.

Formats: `toml`; `toml-array`, a TOML array of tables whose elements are keyed by
their `name` (`[[mcp_servers]]`, Mistral Vibe): one element is one entry; `json`,
strict JSON as Gemini CLI reads it (comments are taken, a trailing comma is an
error); `jsonc`, with comments and trailing commas
(OpenCode); `yaml`, as PyYAML's `safe_load` reads it (Hermes); `json-hooks`, the hooks of
a strict JSON settings file, each a named element of an event's array (Gemini CLI's and
Qwen Code's project `settings.json`, table `("hooks",)`: json_hooks.py). No edit ever writes
a comment or a trailing comma. A byte-order mark, CRLF line endings, the file's
indentation and a missing final newline are kept.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, TypeVar

from skilltool.entries import json_hooks, jsonc, toml, toml_array, yaml_list, yaml_text
from skilltool.entries.base import BOM, EntryError, line_of
from skilltool.model import Format as Format

# toml-array: a TOML array of tables whose elements are keyed by `name` (Mistral Vibe)
T = TypeVar("T")

__all__ = [
    "EntryError",
    "Format",
    "Put",
    "entry_digest",
    "fresh_text",
    "put_entry",
    "read_entries",
    "remove_entry",
]


class Put(NamedTuple):
    text: str
    created_table: bool  # the table was absent: pass it as drop_table when removing


def entry_digest(value: Any) -> str:
    """`sha256:<hex>` of the canonical JSON of a plain value: equal values, equal digests.

    A value read from a user's file may hold what JSON has no word for (a TOML or YAML
    date, a YAML key that is a number): those are taken as their text.
    """
    canonical = json.dumps(
        _canonical(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _canonical(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(key): _canonical(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_canonical(item) for item in value]
    return value


def fresh_text(fmt: Format) -> str:
    """What a file of this format holding nothing looks like."""
    return "{}\n" if fmt in ("json", "jsonc", "json-hooks") else ""  # toml, yaml: empty


def _document(text: str, fmt: Format, table: tuple[str, ...] = ()) -> Any:
    if fmt == "toml":
        return toml.document(text)
    if fmt == "toml-array":
        return toml_array.document(text, table)
    if fmt == "yaml":
        return yaml_text.document(text)
    if fmt == "yaml-list":
        return yaml_list.document(text, table)
    return jsonc.document(text, fmt)


def read_entries(text: str, fmt: Format, table: tuple[str, ...]) -> dict[str, Any] | None:
    """The plain values of the entries under `table`; None when it is absent."""
    body = _strip_bom(text)[1]
    if fmt == "json-hooks":
        return copy.deepcopy(_guarded(lambda: json_hooks.read(body)))
    return copy.deepcopy(_guarded(lambda: _read(body, fmt, table)))


def _read(text: str, fmt: Format, table: tuple[str, ...]) -> dict[str, Any] | None:
    if fmt == "toml":
        return toml.read(text, table)
    if fmt == "toml-array":
        node: Any = toml_array.document(text, table)
        for key in table:
            if not isinstance(node, dict) or key not in node:
                return None
            node = node[key]
        return dict(node) if isinstance(node, dict) else None
    if fmt == "yaml":
        return yaml_text.read(text, table)
    if fmt == "yaml-list":
        return yaml_list.read(text, table)
    return jsonc.read(text, fmt, table)


def put_entry(
    text: str | None, fmt: Format, table: tuple[str, ...], name: str, value: Mapping[str, Any]
) -> Put:
    """`text` with entry `name` of `table` set to `value`; None for a file that does not exist."""
    bom, body = _strip_bom(fresh_text(fmt) if text is None else text)
    plain = _plain(value)
    if fmt == "json-hooks":  # entries that are elements of arrays: checked there
        after, made = _guarded(lambda: json_hooks.put(body, name, plain))
        return Put(bom + after, made)

    def edit() -> tuple[str, bool]:
        before = _document(body, fmt, table)
        current = _read(body, fmt, table)
        if current is not None and name in current and current[name] == plain:
            return body, False  # already so: the same bytes, nothing to write
        if fmt == "toml":
            after, created = toml.put(body, table, name, plain)
        elif fmt == "toml-array":
            after, created = toml_array.put(body, table, name, plain)
        elif fmt == "yaml":
            after, created = yaml_text.put(body, table, name, plain)
        elif fmt == "yaml-list":
            after, created = yaml_list.put(body, table, name, plain)
        else:
            after, created = jsonc.put(body, fmt, table, name, plain)
        expected = _with_entry(before, table, name, plain)
        _check(body, after, fmt, expected, (*table, name), loose=False)
        return after, created

    after, created = _guarded(edit)
    return Put(bom + after, created)


def remove_entry(
    text: str, fmt: Format, table: tuple[str, ...], name: str, drop_table: bool
) -> str:
    """`text` without entry `name` of `table`; the table too, when `drop_table` and it is empty."""
    bom, body = _strip_bom(text)
    if fmt == "json-hooks":
        return bom + _guarded(lambda: json_hooks.remove(body, name, drop_table))

    def edit() -> str:
        before = _document(body, fmt, table)
        expected = _without_entry(before, table, name)
        loose = drop_table or fmt in ("toml", "toml-array")
        if fmt == "toml":
            after = toml.remove(body, table, name)
        elif fmt == "toml-array":
            after = toml_array.remove(body, table, name)
        elif fmt == "yaml":
            after = yaml_text.remove(body, table, name, drop_table)
            try:
                _check(body, after, fmt, expected, (*table, name), loose)
            except EntryError:
                # the line before may be a block scalar's, whose trailing spaces are content
                after = yaml_text.remove(body, table, name, drop_table, whole_lines=True)
        elif fmt == "yaml-list":
            after = yaml_list.remove(body, table, name, drop_table)
        else:
            after = jsonc.remove(body, fmt, table, name, drop_table)
        _check(body, after, fmt, expected, (*table, name), loose)
        return after

    return bom + _guarded(edit)


def _strip_bom(text: str) -> tuple[str, str]:
    return (BOM, text[1:]) if text.startswith(BOM) else ("", text)


def _plain(value: Mapping[str, Any]) -> dict[str, Any]:
    try:
        plain: dict[str, Any] = json.loads(json.dumps(dict(value), allow_nan=True))
    except (TypeError, ValueError) as error:
        raise EntryError(
            f"the entry's value is not plain data ({error}): give dicts, lists, strings, numbers"
        ) from None
    return plain


def _guarded(work: Callable[[], T]) -> T:
    """Run an edit; a parser's recursion limit is an EntryError like any other."""
    try:
        return work()
    except RecursionError:
        raise EntryError("the file nests too deeply to edit: edit it by hand", 1) from None


def _with_entry(data: Any, table: tuple[str, ...], name: str, value: Any) -> Any:
    expected = copy.deepcopy(data) if data is not None else {}
    node = expected
    for key in table:
        if node.get(key) is None:
            node[key] = {}
        node = node[key]
    node[name] = value
    return expected


def _without_entry(data: Any, table: tuple[str, ...], name: str) -> Any:
    expected = copy.deepcopy(data)
    node = expected
    for key in table:
        if not isinstance(node, dict) or key not in node:
            return expected
        node = node[key]
    if isinstance(node, dict):
        node.pop(name, None)
    return expected


def _prune(data: Any, table: tuple[str, ...]) -> Any:
    """`data` with empty tables along the path `table` taken out, deepest first."""
    pruned = copy.deepcopy(data)
    for depth in range(len(table), 0, -1):
        node = pruned
        for key in table[: depth - 1]:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict) and node.get(table[depth - 1]) == {}:
            del node[table[depth - 1]]
    return pruned


def _null_tables(data: Any, table: tuple[str, ...]) -> Any:
    """YAML's `key:` with nothing after it is an empty table, like `key: {}`."""
    data = {} if data is None else copy.deepcopy(data)
    node = data
    for key in table:
        if not isinstance(node, dict) or key not in node:
            break
        if node[key] is None:
            node[key] = {}
        node = node[key]
    return data


def _line_hint(text: str, keys: tuple[str, ...]) -> int:
    """The line where the keys on the way to an entry appear in turn (a hint for a message)."""
    position = 0
    for key in keys:
        found = text.find(key, position)
        if found < 0:
            break
        position = found
    return line_of(text, position)


def _check(
    before: str, after: str, fmt: Format, expected: Any, keys: tuple[str, ...], loose: bool
) -> None:
    """Parse the edited text again: it holds exactly the expected values, or no text is returned."""
    table = keys[:-1]
    try:
        actual = _document(after, fmt, table)
    except EntryError as error:
        raise EntryError(
            f"skilltool cannot edit this file exactly here (the edit would not parse: "
            f"{error.message}); edit it by hand",
            _line_hint(before, keys),
        ) from None
    if fmt in ("yaml", "yaml-list"):
        actual, expected = _null_tables(actual, table), _null_tables(expected, table)
    same = actual == expected or (loose and _prune(actual, table) == _prune(expected, table))
    if not same:
        raise EntryError(
            "skilltool cannot edit this file exactly here (the edit would change other values); "
            "edit it by hand",
            _line_hint(before, keys),
        )
