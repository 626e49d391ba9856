"""YAML lists of mappings keyed by a `name` key (`mcpServers:` in Continue's config.yaml,
a list of `- name: …` items): one item is one entry, spliced as its own lines.

The entries are seen as a table keyed by each item's `name` (`keyed`), so that the checks
every editor shares compare values, not positions. Only a block sequence is edited; a list
written in flow style (`[...]`) with items in it, an item that is not a mapping with a string
`name`, or two items of one name are an EntryError. Nothing outside the item's own lines is
rewritten, comments included (the parsing is yaml_text's).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import yaml

import skilltool.entries.yaml_text as yaml_text
from skilltool.entries.base import (
    EntryError,
    cut_lines,
    keyed_by,
    line_indent,
    line_of,
    splice,
    starts_line,
)

KEY = "name"


def keyed(data: Any, table: tuple[str, ...]) -> Any:
    """The document with the list at `table` as a table of its items by name."""
    return keyed_by(
        data, table, KEY, "{where} is not a list of mappings (- name: …)", "an item of {where}"
    )


def document(text: str, table: tuple[str, ...]) -> Any:
    try:
        return keyed(yaml_text.document(text), table)
    except EntryError as error:  # a shape of the list: said at the line of its key
        if error.line:
            raise
        found = re.search(rf"^[ \t]*{re.escape(table[-1])}[ \t]*:", text, re.MULTILINE)
        line = line_of(text, found.start()) if found else 1
        raise EntryError(error.message, line) from None


def read(text: str, table: tuple[str, ...]) -> dict[str, Any] | None:
    node: Any = document(text, table)
    for key in table:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return dict(node) if isinstance(node, dict) else None


def _sequence(text: str, table: tuple[str, ...]) -> tuple[Any, int, Any]:
    """(the list's node or the deepest mapping on the way, keys covered, the pair holding it)."""
    root = yaml_text._compose(text)
    yaml_text._unshared(text, root, table[:-1])
    parent, depth, _ = yaml_text._walk(text, root, table[:-1])
    if depth < len(table) - 1 or parent is None:
        return parent, depth, None
    assert isinstance(parent, yaml.MappingNode)
    pair = yaml_text._find(text, parent, table[-1])
    if pair is None:
        return parent, depth, None
    return pair[1], len(table), pair


def _items(text: str, node: yaml.SequenceNode, name: str) -> tuple[int, int] | None:
    """Where the item of `name` is: from its dash to the end of its last line."""
    for item in node.value:
        named = yaml_text._find(text, item, KEY) if isinstance(item, yaml.MappingNode) else None
        if named is None or named[1].value != name:
            continue
        return _span(text, item)
    return None


def _span(text: str, item: yaml.Node) -> tuple[int, int]:
    dash = text.rfind("-", 0, item.start_mark.index)
    if dash < 0 or not starts_line(text, dash) or not isinstance(item, yaml.MappingNode):
        raise EntryError(
            "an item skilltool cannot edit exactly: edit it by hand",
            line_of(text, item.start_mark.index),
        )
    return dash, yaml_text._pair_end(text, (item.value[0][0], item))


def _block(value: Mapping[str, Any], name: str, indent: str, style: Any) -> str:
    lines = yaml_text._item({KEY: name, **value}, indent, style.unit)
    return str(style.eol.join(lines))


def put(text: str, table: tuple[str, ...], name: str, value: Mapping[str, Any]) -> tuple[str, bool]:
    document(text, table)
    style = yaml_text._Style(text)
    node, depth, pair = _sequence(text, table)
    item = {KEY: name, **value}
    if pair is None:
        nested: Any = [item]
        for key in reversed(table[depth + 1 :]):
            nested = {key: nested}
        return yaml_text._insert(text, node, table[depth], nested, style), True
    if yaml_text._empty(node) or (isinstance(node, yaml.SequenceNode) and not node.value):
        parent, _, _ = yaml_text._walk(text, yaml_text._compose(text), table[:-1])
        assert isinstance(parent, yaml.MappingNode)
        return yaml_text._replace(text, parent, pair, [item], style), False
    assert isinstance(node, yaml.SequenceNode)
    if node.flow_style:
        raise EntryError(
            f"{'.'.join(table)} is a list in flow style ([...]), which skilltool cannot edit "
            "exactly: write it in block style (- name: …), or edit it by hand",
            line_of(text, node.start_mark.index),
        )
    found = _items(text, node, name)
    if found is not None:
        start, end = found
        indent = line_indent(text, start)
        block = _block(value, name, indent, style)
        return splice(text, start - len(indent), end, block), False
    start, end = _span(text, node.value[-1])
    block = _block(value, name, line_indent(text, start), style)
    return splice(text, end, end, style.eol + block), False


def remove(
    text: str, table: tuple[str, ...], name: str, drop_table: bool, whole_lines: bool = False
) -> str:
    document(text, table)
    node, _, pair = _sequence(text, table)
    if pair is None or not isinstance(node, yaml.SequenceNode) or node.flow_style:
        return text
    found = _items(text, node, name)
    if found is None:
        return text
    start, end = found
    start = start - len(line_indent(text, start))
    text = cut_lines(text, start, end, break_before=start > 0 and not whole_lines)
    if drop_table:
        node, _, pair = _sequence(text, table)
        if pair is not None and (yaml_text._empty(node) or node.value == []):
            parent, _, _ = yaml_text._walk(text, yaml_text._compose(text), table[:-1])
            assert isinstance(parent, yaml.MappingNode)
            text = yaml_text._delete(text, parent, pair, whole_lines)
    return text
