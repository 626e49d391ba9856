"""JSON and JSON with comments: find an object's members in the text, and splice.

Both formats take `//` and `/* */` comments (Gemini reads comments in its strict
`settings.json`); only `jsonc` takes trailing commas, and no edit ever adds one.
Strings, numbers and literals are decoded by the stdlib `json` module. An entry that
exists is updated member by member, so the comments inside it stay.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from skilltool.entries.base import (
    EntryError,
    eol_of,
    indent_unit,
    line_indent,
    line_of,
    line_start,
    splice,
    starts_line,
)

_TOKEN = re.compile(
    r"""(?P<ws>[ \t\r\n]+)
    |(?P<comment>//[^\n]*|/\*.*?\*/)
    |(?P<string>"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*")
    |(?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?![0-9A-Za-z_.]))
    |(?P<literal>(?:true|false|null)(?![0-9A-Za-z_]))
    |(?P<punct>[{}\[\]:,])""",
    re.VERBOSE | re.DOTALL,
)
_LITERALS = {"true": True, "false": False, "null": None}


@dataclass
class Node:
    start: int
    end: int
    value: Any = None


@dataclass
class Member:
    key: str
    key_start: int
    node: Node
    comma: int | None = None  # position of the comma after the value


@dataclass
class Obj(Node):
    members: list[Member] = field(default_factory=list)


@dataclass
class Arr(Node):
    items: list[Node] = field(default_factory=list)
    commas: list[int | None] = field(default_factory=list)  # after each item, or None


class _Parser:
    def __init__(self, text: str, fmt: str) -> None:
        self.text = text
        self.fmt = fmt
        self.tokens: list[tuple[str, int, int]] = []
        self.blanks: list[tuple[int, int]] = []  # whitespace, comments and trailing commas
        position = 0
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None:
                raise self.error(position, f"{text[position]!r} is not JSON here: fix the file")
            kind = match.lastgroup or ""
            if kind not in ("ws", "comment"):
                self.tokens.append((kind, match.start(), match.end()))
            else:
                self.blanks.append((match.start(), match.end()))
            position = match.end()
        self.index = 0

    def error(self, position: int, message: str) -> EntryError:
        return EntryError(message, line_of(self.text, position))

    def peek(self) -> tuple[str, int, int]:
        if self.index >= len(self.tokens):
            raise self.error(
                len(self.text), "the JSON ends too early: a value or a bracket is missing"
            )
        return self.tokens[self.index]

    def take(self, punct: str | None = None) -> tuple[str, int, int]:
        token = self.peek()
        if punct is not None and self.text[token[1] : token[2]] != punct:
            raise self.error(token[1], f"expected {punct!r} here: fix the JSON")
        self.index += 1
        return token

    def document(self) -> Node:
        if not self.tokens:
            raise self.error(0, "the file holds no JSON value: write {} in it, or remove it")
        node = self.value()
        if self.index < len(self.tokens):
            raise self.error(self.tokens[self.index][1], "more JSON after the end of the document")
        return node

    def value(self) -> Node:
        kind, start, end = self.take()
        source = self.text[start:end]
        if kind == "string" and "\\" not in source:
            return Node(start, end, source[1:-1])  # no escapes: the characters themselves
        if kind in ("string", "number"):
            return Node(start, end, json.loads(source))
        if kind == "literal":
            return Node(start, end, _LITERALS[source])
        if source == "{":
            return self.obj(start)
        if source == "[":
            return self.array(start)
        raise self.error(start, f"unexpected {source!r}: fix the JSON")

    def separator(self, close: str) -> tuple[bool, int | None]:
        """After a value: (the container closes, position of the comma or None)."""
        _, start, _ = token = self.take()
        source = self.text[token[1] : token[2]]
        if source == close:
            return True, None
        if source != ",":
            raise self.error(start, f"expected ',' or {close!r} here: fix the JSON")
        if self.text[self.peek()[1] : self.peek()[2]] == close:
            if self.fmt == "json":
                raise self.error(start, "a trailing comma, which this harness rejects: remove it")
            self.take()
            self.blanks.append((start, start + 1))
            return True, start
        return False, start

    def obj(self, start: int) -> Obj:
        node = Obj(start, start, {})
        if self.text[self.peek()[1] : self.peek()[2]] == "}":
            node.end = self.take()[2]
            return node
        while True:
            kind, key_start, key_end = self.take()
            if kind != "string":
                raise self.error(key_start, "an object key must be a string in double quotes")
            key = json.loads(self.text[key_start:key_end])
            self.take(":")
            member = Member(key, key_start, self.value())
            node.members.append(member)
            node.value[key] = member.node.value
            closed, member.comma = self.separator("}")
            if closed:
                node.end = self.tokens[self.index - 1][2]
                return node

    def array(self, start: int) -> Arr:
        node = Arr(start, start, [])
        if self.text[self.peek()[1] : self.peek()[2]] == "]":
            node.end = self.take()[2]
            return node
        while True:
            item = self.value()
            node.items.append(item)
            node.value.append(item.value)
            closed, comma = self.separator("]")
            node.commas.append(comma)
            if closed:
                node.end = self.tokens[self.index - 1][2]
                return node


@functools.lru_cache(maxsize=16)
def parse(text: str, fmt: str) -> Node:
    """The file's tree (cached: an edit reads the same text several times; never mutate it).

    Its values are checked against the stdlib `json` module's reading of the same text
    without its comments and trailing commas, so the scanner can only find positions,
    never decide values.
    """
    parser = _Parser(text, fmt)
    tree = parser.document()
    plain = list(text)
    for start, end in parser.blanks:
        plain[start:end] = " " * (end - start)
    try:
        same = json.loads("".join(plain)) == tree.value
    except ValueError:
        same = False
    if not same:
        raise EntryError("skilltool cannot read this JSON exactly: edit the file by hand", 1)
    return tree


def document(text: str, fmt: str) -> Any:
    return parse(text, fmt).value


def _find(text: str, obj: Obj, key: str) -> Member | None:
    found = [member for member in obj.members if member.key == key]
    if len(found) > 1:
        raise EntryError(
            f"the key {key!r} appears twice: remove one", line_of(text, found[1].key_start)
        )
    return found[0] if found else None


def _table(text: str, root: Node, table: tuple[str, ...]) -> tuple[Obj, int, Obj | None]:
    """(deepest object on the path, how many keys of `table` it covers, the table or None)."""
    if not isinstance(root, Obj):
        raise EntryError("the file's top level is not an object: skilltool edits only objects", 1)
    node: Obj = root
    for depth, key in enumerate(table):
        member = _find(text, node, key)
        if member is None:
            return node, depth, None
        if not isinstance(member.node, Obj):
            raise EntryError(
                f"{'.'.join(table[: depth + 1])} is not an object: make it one, or remove it",
                line_of(text, member.key_start),
            )
        node = member.node
    return node, len(table), node


def read(text: str, fmt: str, table: tuple[str, ...]) -> dict[str, Any] | None:
    _, _, found = _table(text, parse(text, fmt), table)
    return None if found is None else dict(found.value)


class _Style:
    """How the file indents and ends lines, for the text an edit inserts."""

    def __init__(self, text: str) -> None:
        self.eol = eol_of(text)
        indents = re.findall(r'^([ \t]+)["}\]]', text, re.MULTILINE)
        self.unit = indent_unit(indents)

    def render(self, value: Any, indent: str, multiline: bool) -> str:
        if not multiline:
            return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
        dumped = json.dumps(value, ensure_ascii=False, indent=self.unit)
        return dumped.replace("\n", self.eol + indent)


def _insert(text: str, obj: Obj, key: str, value: Any, style: _Style) -> str:
    """`text` with member `key: value` added as the last member of `obj`."""
    if not obj.members:
        outer = line_indent(text, obj.start)
        inner = outer + style.unit
        member = json.dumps(key, ensure_ascii=False) + ": " + style.render(value, inner, True)
        return splice(
            text, obj.start + 1, obj.start + 1, style.eol + inner + member + style.eol + outer
        )
    last = obj.members[-1]
    multiline = "\n" in text[obj.start : obj.end]
    if multiline and starts_line(text, last.key_start):
        indent, gap = (
            line_indent(text, last.key_start),
            style.eol + line_indent(text, last.key_start),
        )
    elif multiline:
        indent = line_indent(text, last.key_start) + style.unit
        gap = style.eol + indent
    else:
        indent, gap = "", " "
    member = json.dumps(key, ensure_ascii=False) + ": " + style.render(value, indent, multiline)
    return splice(text, last.node.end, last.node.end, "," + gap + member)


def put(
    text: str, fmt: str, table: tuple[str, ...], name: str, value: Mapping[str, Any]
) -> tuple[str, bool]:
    root = parse(text, fmt)
    holder, depth, found = _table(text, root, table)
    style = _Style(text)
    plain = json.loads(json.dumps(value))
    if found is None:
        rest = table[depth:]
        nested: Any = {name: plain}
        for key in reversed(rest[1:]):
            nested = {key: nested}
        return _insert(text, holder, rest[0], nested, style), True
    member = _find(text, found, name)
    if member is None:
        return _insert(text, found, name, plain, style), False
    return _update(text, fmt, (*table, name), plain, style), False


def _member(text: str, fmt: str, path: tuple[str, ...]) -> tuple[Obj, Member]:
    """The object holding the member at `path`, and the member."""
    _, _, found = _table(text, parse(text, fmt), path[:-1])
    assert found is not None
    member = _find(text, found, path[-1])
    assert member is not None
    return found, member


def _update(text: str, fmt: str, path: tuple[str, ...], value: Any, style: _Style) -> str:
    """`text` with the member at `path` set to `value`; an object that stays an object is set
    member by member (a member no longer there goes, a new one goes last, one whose value
    changes gets it in place), so the comments inside it stay, and so do the members that
    stay the same."""
    holder, member = _member(text, fmt, path)
    if not (isinstance(member.node, Obj) and member.node.members and isinstance(value, dict)):
        multiline = "\n" in text[holder.start : holder.end]
        new = style.render(value, line_indent(text, member.key_start), multiline)
        return splice(text, member.node.start, member.node.end, new)
    for key in [key for key in member.node.value if key not in value]:
        obj = _member(text, fmt, path)[1].node
        assert isinstance(obj, Obj)
        gone = _find(text, obj, key)
        assert gone is not None
        text = _drop(text, obj, gone)
    for key, item in value.items():
        obj = _member(text, fmt, path)[1].node
        assert isinstance(obj, Obj)
        inner = _find(text, obj, key)
        if inner is None:
            text = _append(text, obj, key, item, style)
        elif not _same(inner.node.value, item):
            text = _update(text, fmt, (*path, key), item, style)
    return text


def _line_rest(text: str, index: int) -> tuple[int, str]:
    """Where the line holding `index` ends (-1: the text does), and what is on it after."""
    end = text.find("\n", index)
    return end, text[index : len(text) if end < 0 else end].strip(" \t\r")


def _drop(text: str, obj: Obj, member: Member) -> str:
    """`text` without a member an update takes out: the last member, on lines of its own,
    goes with its lines, so a comment that ends the line before stays where it was."""
    index = obj.members.index(member)
    end, rest = _line_rest(text, member.node.end)
    own_lines = end >= 0 and not rest and starts_line(text, member.key_start)
    if member.comma is None and index > 0 and own_lines:
        before = obj.members[index - 1]
        assert before.comma is not None
        text = splice(text, line_start(text, member.key_start), end + 1, "")
        return splice(text, before.comma, before.comma + 1, "")
    return _delete_member(text, obj, member)


def _append(text: str, obj: Obj, key: str, value: Any, style: _Style) -> str:
    """Member `key` added last to an object being updated: after a line comment that ends the
    last member's line, so that the comment stays with its member."""
    last = obj.members[-1] if obj.members else None
    if last is not None and last.comma is None and starts_line(text, last.key_start):
        end, rest = _line_rest(text, last.node.end)
        if end >= 0 and rest.startswith("//"):
            indent = line_indent(text, last.key_start)
            member = json.dumps(key, ensure_ascii=False) + ": " + style.render(value, indent, True)
            text = splice(text, end + 1, end + 1, indent + member + style.eol)
            return splice(text, last.node.end, last.node.end, ",")
    return _insert(text, obj, key, value, style)


def _same(one: Any, other: Any) -> bool:
    """Equal values of equal types (`1` is not `true`, nor `1.0`)."""
    return json.dumps(one, sort_keys=True) == json.dumps(other, sort_keys=True)


def _delete_member(text: str, obj: Obj, member: Member) -> str:
    """`text` without `member` of `obj`, and without the comma that went with it."""
    eol_cind = eol_of(text) + line_indent(text, obj.start)
    position = obj.members.index(member)
    end = member.node.end if member.comma is None else member.comma + 1
    if len(obj.members) == 1:
        start = obj.start + 1
        if text[start : member.key_start].strip(" \t\r\n"):
            start = (
                line_start(text, member.key_start)
                if starts_line(text, member.key_start)
                else member.key_start
            )
        elif text.startswith(eol_cind, end):
            end += len(eol_cind)  # the line break put_entry added before the closing brace
        return splice(text, start, end, "")
    if position == len(obj.members) - 1:
        before = obj.members[position - 1]
        assert before.comma is not None
        between = text[before.node.end : member.key_start].replace(",", "", 1)
        if not between.strip(" \t\r\n"):
            return splice(text, before.node.end, member.node.end, "")
        start = member.key_start
        while start > 0 and text[start - 1] in " \t":
            start -= 1
        text = splice(text, start, member.node.end, "")
        return splice(text, before.comma, before.comma + 1, "")
    after = obj.members[position + 1]
    assert member.comma is not None
    if starts_line(text, member.key_start) and starts_line(text, after.key_start):
        next_line = text.find("\n", member.comma) + 1
        rest = text[member.comma + 1 : next_line].strip(" \t\r\n")
        if not rest or rest.startswith("//"):
            return splice(text, line_start(text, member.key_start), next_line, "")
    cut = member.comma + 1
    while cut < len(text) and text[cut] in " \t":
        cut += 1
    return splice(text, member.key_start, cut, "")


def remove(text: str, fmt: str, table: tuple[str, ...], name: str, drop_table: bool) -> str:
    _, _, found = _table(text, parse(text, fmt), table)
    if found is None:
        return text
    member = _find(text, found, name)
    if member is None:
        return text
    text = _delete_member(text, found, member)
    if not drop_table:
        return text
    for depth in range(len(table), 0, -1):
        _, _, emptied = _table(text, parse(text, fmt), table[:depth])
        if emptied is None or emptied.members:
            break
        parent, _, _ = _table(text, parse(text, fmt), table[: depth - 1])
        own = _find(text, parent, table[depth - 1])
        assert own is not None
        text = _delete_member(text, parent, own)
    return text
