"""What every format's editor shares: the error it raises and the text primitives.

An editor never re-dumps a file: it parses the text to find where things are, then
splices, so every byte outside the one span it inserts, replaces or deletes is kept
by construction.
"""

from __future__ import annotations

import copy
import re
from typing import Any

BOM = "\ufeff"


class EntryError(Exception):
    """The file cannot be edited safely: it does not parse, or a shape cannot be edited exactly.

    `line` is 1-based (None when no line applies); `message` is one line naming what
    is wrong and the fix.
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line is not None else message)
        self.message = message
        self.line = line


def keyed_by(data: Any, table: tuple[str, ...], key: str, shape: str, item: str) -> Any:
    """The document with the list of mappings at `table` (TOML's array of tables, YAML's list
    of `- name: …` items) seen as a table of its items by their `key`, so that the checks
    every editor shares compare values, not positions; a null list is an empty one. `shape`
    and `item` word the errors, `{where}` in them the list's dotted path: what the list
    must be, and what one of its items is called."""
    node: Any = data
    for name in table[:-1]:
        node = node.get(name) if isinstance(node, dict) else None
    if not isinstance(node, dict) or table[-1] not in node:
        return data
    items = node[table[-1]]
    where = ".".join(table)
    if items is None:
        items = []
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise EntryError(f"{shape.format(where=where)}: edit it by hand")
    found: dict[str, Any] = {}
    for each in items:
        name = each.get(key)
        if not isinstance(name, str) or name in found:
            why = "has no string name" if not isinstance(name, str) else f"{name!r} twice"
            raise EntryError(f"{item.format(where=where)} {why}: edit it by hand")
        found[name] = {k: v for k, v in each.items() if k != key}
    view = copy.deepcopy(data)
    parent = view
    for name in table[:-1]:
        parent = parent[name]
    parent[table[-1]] = found
    return view


def line_of(text: str, index: int) -> int:
    """The 1-based line of position `index` in `text`."""
    return text.count("\n", 0, max(0, index)) + 1


def eol_of(text: str) -> str:
    """The file's own line ending: that of its first line, LF when it has none."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def line_start(text: str, index: int) -> int:
    """Where the line holding `index` begins."""
    return text.rfind("\n", 0, index) + 1


def line_indent(text: str, index: int) -> str:
    """The leading spaces and tabs of the line holding `index`."""
    start = line_start(text, index)
    match = re.match(r"[ \t]*", text[start:])
    return match.group(0) if match else ""


def starts_line(text: str, index: int) -> bool:
    """Only spaces or tabs come before `index` on its line."""
    return text[line_start(text, index) : index].strip(" \t") == ""


def content_end(text: str, index: int) -> int:
    """`index` moved back over trailing whitespace and line breaks."""
    while index > 0 and text[index - 1] in " \t\r\n":
        index -= 1
    return index


def indent_unit(lines_indents: list[str], default: str = "  ") -> str:
    """The file's indentation step: its shortest non-empty leading whitespace."""
    found = [indent for indent in lines_indents if indent]
    if not found:
        return default
    shortest = min(found, key=len)
    return "\t" if shortest.startswith("\t") else shortest


def splice(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def blank_lines_before(text: str, start: int) -> int:
    """Where the blank lines right before `start` (a line's start) begin: they go with a block."""
    while start > 0 and not text[line_start(text, start - 1) : start].strip():
        start = line_start(text, start - 1)
    return start


def cut_lines(text: str, start: int, end: int, break_before: bool) -> str:
    """The text without the lines `start:end`, and one line break: the one before them, or
    (at the top of the file, or when asked) the blanks and the one after."""
    if break_before:
        start -= 2 if text[start - 2 : start] == "\r\n" else 1
    else:
        while end < len(text) and text[end] in " \t":
            end += 1
        end += 2 if text.startswith("\r\n", end) else 1 if text.startswith("\n", end) else 0
    return splice(text, start, end, "")
