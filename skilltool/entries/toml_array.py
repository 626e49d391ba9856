"""TOML arrays of tables keyed by a `name` key (`[[mcp_servers]]` in Mistral Vibe's
config.toml): one element is one entry, spliced as one `[[table]]` block.

The entries are seen as a table keyed by each element's `name` (`keyed`), so that the
checks every editor shares compare values, not positions. An element's block is its
`[[table]]` header and every section after it that belongs to it (`[table.env]`),
up to the next other header. An array written inline (`table = [...]`), an element
without a string `name`, or two elements of one name are an EntryError.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import skilltool.entries.toml as toml
from skilltool.entries.base import (
    EntryError,
    blank_lines_before,
    content_end,
    cut_lines,
    eol_of,
    keyed_by,
    splice,
)

KEY = "name"


def keyed(data: dict[str, Any], table: tuple[str, ...]) -> dict[str, Any]:
    """The document with the array at `table` as a table of its elements by name."""
    view: dict[str, Any] = keyed_by(
        data,
        table,
        KEY,
        "{where} is not an array of tables ([[{where}]])",
        "an element of [[{where}]]",
    )
    return view


def document(text: str, table: tuple[str, ...]) -> dict[str, Any]:
    try:
        return keyed(toml.document(text), table)
    except EntryError as error:  # a shape of the array: said at its first line
        raise EntryError(error.message, error.line or toml._line_of_key(text, table) or 1) from None


def _spans(
    sections: list[toml.Section], blocks: dict[str, tuple[int, int]]
) -> dict[str, tuple[int, int]]:
    """Each element's block, by name: its header's line start to its last statement's end."""
    spans = {}
    for name, (head, last) in blocks.items():
        header = sections[head].header
        assert header is not None
        spans[name] = (header.start, sections[last].end)
    return spans


def _blocks(
    text: str, table: tuple[str, ...]
) -> tuple[list[toml.Section], dict[str, tuple[int, int]]]:
    """The file's sections, and each element's by name: the first and last of its block."""
    sections = toml._Lexer(text).sections()
    raw = toml.document(text)
    node: Any = raw
    for key in table:
        node = node.get(key, []) if isinstance(node, dict) else []
    items = node if isinstance(node, list) else []
    heads = [
        i
        for i, s in enumerate(sections)
        if s.header is not None and s.header.kind == "array" and s.path == table
    ]
    if len(heads) != len(items):
        where = ".".join(table)
        raise EntryError(
            f"{where} is written inline, not as [[{where}]] blocks: edit it by hand",
            toml._line_of_key(text, table),
        )
    blocks = {}
    for item, head in zip(items, heads, strict=True):
        last = head
        while (
            last + 1 < len(sections)
            and sections[last + 1].path[: len(table)] == table
            and not (
                sections[last + 1].header is not None
                and sections[last + 1].header.kind == "array"  # type: ignore[union-attr]
                and sections[last + 1].path == table
            )
        ):
            last += 1  # a `[table.env]` section belongs to the element above it
        blocks[item[KEY]] = (head, last)
    return sections, blocks


def _block(table: tuple[str, ...], name: str, value: Mapping[str, Any], eol: str) -> str:
    header = "[[" + ".".join(toml.quote_key(key) for key in table) + "]]"
    lines = [f"{KEY} = {toml.render(name)}"]
    lines += [f"{toml.quote_key(k)} = {toml.render(v)}" for k, v in value.items()]
    return eol.join([header, *lines])


def put(text: str, table: tuple[str, ...], name: str, value: Mapping[str, Any]) -> tuple[str, bool]:
    if KEY in value:
        raise EntryError(f"the entry's value holds {KEY!r}, which is its name here")
    sections, blocks = _blocks(text, table)
    spans = _spans(sections, blocks)
    created = not spans
    eol = eol_of(text)
    if name in spans:
        head, last = blocks[name]
        if head == last and toml.plain_keys(sections[head]):  # key by key: its comments stay
            old: Any = document(text, table)
            for key in table:
                old = old[key]
            new = {KEY: name, **value}
            return toml.update(text, sections[head], {KEY: name, **old[name]}, new, eol), False
        start, end = spans[name]
        return splice(text, start, end, _block(table, name, value, eol)), False
    block = _block(table, name, value, eol)
    position = max(end for _, end in spans.values()) if spans else content_end(text, len(text))
    if position == 0:
        return splice(text, 0, 0, block + eol), created
    return splice(text, position, position, eol + eol + block), created


def remove(text: str, table: tuple[str, ...], name: str) -> str:
    spans = _spans(*_blocks(text, table))
    if name not in spans:
        return text
    start, end = spans[name]
    start = blank_lines_before(text, start)
    return cut_lines(text, start, end, break_before=start > 0)
