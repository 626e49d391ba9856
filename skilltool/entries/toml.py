"""TOML: find the `[table.<name>]` sections of an entry in the text, and splice.

tomlkit validates the file and gives its values; a small lexer finds where each
header and key/value statement sits (tomlkit keeps no positions). An entry is
written as one `[table.<name>]` section with its nested tables inline, the shape
`codex` reads, and updated key by key, so the comments in it stay; an existing entry
in dotted keys or inside an inline table is an EntryError rather than a guess.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import tomlkit
import tomlkit.exceptions

from skilltool.entries.base import (
    EntryError,
    blank_lines_before,
    content_end,
    cut_lines,
    eol_of,
    line_of,
    line_start,
    splice,
)

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_DATETIME = re.compile(
    r"\d{4}-\d\d-\d\d(?:[Tt ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:[Zz]|[+-]\d\d:\d\d)?)?"
    r"|\d\d:\d\d(?::\d\d(?:\.\d+)?)?"
)
_SCALAR = re.compile(r"[^\s,\]\}#]+")
_ESCAPES = {
    "b": "\b",
    "t": "\t",
    "n": "\n",
    "f": "\f",
    "r": "\r",
    '"': '"',
    "\\": "\\",
    "e": "\x1b",
}


@dataclass
class Statement:
    kind: str  # "table", "array" (an array-of-tables header) or "keyval"
    path: tuple[str, ...]
    start: int  # where its line begins
    end: int  # after its value and comment, before trailing whitespace
    value_start: int = 0
    value_end: int = 0


@dataclass
class Section:
    path: tuple[str, ...]
    header: Statement | None
    body: list[Statement] = field(default_factory=list)

    @property
    def end(self) -> int:
        """After the content of its last statement."""
        if self.body:
            return self.body[-1].end
        return self.header.end if self.header is not None else 0


def _decode_basic(raw: str) -> str:
    def escape(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] in "uUx":
            return chr(int(code[1:], 16))
        return _ESCAPES[code]

    return re.sub(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|.)", escape, raw)


class _Lexer:
    """Statement positions of a TOML text that tomlkit has already accepted."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def blank(self, newlines: bool = False) -> None:
        text = self.text
        while self.i < len(text):
            char = text[self.i]
            if char in " \t" or (newlines and char in "\r\n"):
                self.i += 1
            elif char == "#" and newlines:
                self.i = self.line_end()
            else:
                return

    def line_end(self) -> int:
        end = self.text.find("\n", self.i)
        return len(self.text) if end < 0 else end

    def key(self) -> tuple[str, ...]:
        parts: list[str] = []
        while True:
            self.blank()
            text, i = self.text, self.i
            if text.startswith('"', i):
                close = self.basic_end(i + 1)
                parts.append(_decode_basic(text[i + 1 : close - 1]))
                self.i = close
            elif text.startswith("'", i):
                close = text.index("'", i + 1)
                parts.append(text[i + 1 : close])
                self.i = close + 1
            else:
                match = _BARE.match(text, i)
                if match is None:
                    raise EntryError("a key skilltool cannot read: edit by hand", line_of(text, i))
                parts.append(match.group(0))
                self.i = match.end()
            self.blank()
            if not self.text.startswith(".", self.i):
                return tuple(parts)
            self.i += 1

    def basic_end(self, i: int) -> int:
        """Just after the closing quote of a one-line basic string whose content starts at `i`."""
        while self.text[i] != '"':
            i += 2 if self.text[i] == "\\" else 1
        return i + 1

    def multiline_end(self, i: int, quote: str) -> int:
        text = self.text
        while not text.startswith(quote * 3, i):
            i += 2 if quote == '"' and text[i] == "\\" else 1
        end = i + 3
        while end < len(text) and text[end] == quote and end - i < 5:
            end += 1
        return end

    def value(self) -> None:
        text, i = self.text, self.i
        if text.startswith('"""', i) or text.startswith("'''", i):
            self.i = self.multiline_end(i + 3, text[i])
        elif text.startswith('"', i):
            self.i = self.basic_end(i + 1)
        elif text.startswith("'", i):
            self.i = text.index("'", i + 1) + 1
        elif text.startswith("[", i) or text.startswith("{", i):
            self.container("]" if text[i] == "[" else "}")
        else:
            match = _DATETIME.match(text, i) or _SCALAR.match(text, i)
            if match is None:
                raise EntryError("a value skilltool cannot read: edit by hand", line_of(text, i))
            self.i = match.end()

    def container(self, close: str) -> None:
        self.i += 1
        while True:
            self.blank(newlines=True)
            if self.text.startswith(close, self.i):
                self.i += 1
                return
            if close == "}":
                self.key()
                self.blank()
                self.i += 1  # the "="
                self.blank()
            self.value()
            self.blank(newlines=True)
            if self.text.startswith(",", self.i):
                self.i += 1

    def statement(self) -> Statement | None:
        text, start = self.text, line_start(self.text, self.i)
        self.blank()
        if self.i >= len(text) or text[self.i] in "#\r\n":
            self.i = self.line_end()
            return None
        if text.startswith("[", self.i):
            kind = "array" if text.startswith("[[", self.i) else "table"
            self.i += 2 if kind == "array" else 1
            path = self.key()
            self.i += 2 if kind == "array" else 1
            found = Statement(kind, path, start, self.i)
        else:
            path = self.key()
            self.i += 1  # the "="
            self.blank()
            value_start = self.i
            self.value()
            found = Statement("keyval", path, start, self.i, value_start, self.i)
        self.blank()
        if text.startswith("#", self.i):
            self.i = self.line_end()
            found.end = content_end(text, self.i)
        return found

    def sections(self) -> list[Section]:
        sections = [Section((), None)]
        while self.i < len(self.text):
            found = self.statement()
            if found is not None and found.kind == "keyval":
                sections[-1].body.append(found)
            elif found is not None:
                sections.append(Section(found.path, found))
            self.i = self.line_end() + 1
        return sections


@functools.lru_cache(maxsize=16)
def document(text: str) -> dict[str, Any]:
    """The file's values (cached: an edit reads the same text several times; never mutate them)."""
    try:
        parsed: dict[str, Any] = tomlkit.parse(text).unwrap()
    except tomlkit.exceptions.TOMLKitError as error:
        said = str(error).split(" at line")[0]
        line = getattr(error, "line", None)
        if "already exists" in said:  # a key defined twice: tomlkit gives no position, or the
            key = said.split('"')[1] if said.count('"') >= 2 else ""  # end of its table (0.15.3)
            line = _naming(text, key)
        raise EntryError(f"this is not TOML ({said}): fix the file", line) from None
    return parsed


def _naming(text: str, key: str) -> int:
    """The last line that names `key` as a key or in a header (where it is defined again)."""
    found = 1
    for number, line in enumerate(text.splitlines(), 1):
        head = line.split("=", 1)[0] if "=" in line else line
        if key and key in head and (head.lstrip().startswith("[") or "=" in line):
            found = number
    return found


def read(text: str, table: tuple[str, ...]) -> dict[str, Any] | None:
    node: Any = document(text)
    for depth, key in enumerate(table):
        if key not in node:
            return None
        node = node[key]
        if not isinstance(node, dict):
            where = table[: depth + 1]
            raise EntryError(
                f"{'.'.join(where)} is not a table: make it one, or remove it",
                _line_of_key(text, where) or _naming(text, key),
            )
    return dict(node)


def _line_of_key(text: str, path: tuple[str, ...]) -> int | None:
    for section in _Lexer(text).sections():
        if section.header is not None and section.path == path:
            return line_of(text, section.header.start)
        for statement in section.body:
            if section.path + statement.path == path:
                return line_of(text, statement.start)
    return None


def quote_key(key: str) -> str:
    return key if _BARE.fullmatch(key) else _string(key)


def _string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def render(value: Any) -> str:
    """One TOML value on one line: nested tables inline, the way `codex` reads them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return (
            ("inf" if value > 0 else "-inf")
            if math.isinf(value)
            else "nan"
            if math.isnan(value)
            else repr(value)
        )
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ", ".join(render(item) for item in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{quote_key(k)} = {render(v)}" for k, v in value.items()) + " }"
    raise EntryError(f"TOML cannot hold the value {value!r}: the entry needs another value")


def _block(table: tuple[str, ...], name: str, value: Mapping[str, Any], eol: str) -> str:
    header = "[" + ".".join(quote_key(key) for key in (*table, name)) + "]"
    return eol.join([header, *(f"{quote_key(k)} = {render(v)}" for k, v in value.items())])


@dataclass
class _Entry:
    sections: list[int]  # indexes of the entry's own sections, in order
    inline: list[Statement]  # key/value statements that define (part of) it


def _locate(text: str, sections: list[Section], table: tuple[str, ...], name: str) -> _Entry:
    own = (*table, name)
    entry = _Entry([], [])
    for index, section in enumerate(sections):
        if section.path[: len(own)] == own:
            entry.sections.append(index)
        for statement in section.body:
            full = section.path + statement.path
            if full[: len(own)] == own and section.path[: len(own)] != own:
                entry.inline.append(statement)
            if full == table or (len(full) < len(table) and table[: len(full)] == full):
                raise EntryError(
                    f"{'.'.join(table)} is an inline table or dotted keys: skilltool adds "
                    f"only [{'.'.join(table)}.<name>] sections; edit the file by hand",
                    line_of(text, statement.start),
                )
    if entry.sections and entry.inline:
        raise EntryError(
            f"{name!r} is written in two places: edit it by hand",
            line_of(text, entry.inline[0].start),
        )
    if entry.sections:
        first = sections[entry.sections[0]]
        header = first.header
        assert header is not None
        if (
            first.path != own
            or header.kind != "table"
            or entry.sections != list(range(entry.sections[0], entry.sections[-1] + 1))
        ):
            raise EntryError(
                f"{name!r} is split over sections that are not together: edit it by hand",
                line_of(text, header.start),
            )
    return entry


def put(text: str, table: tuple[str, ...], name: str, value: Mapping[str, Any]) -> tuple[str, bool]:
    created = read(text, table) is None
    sections = _Lexer(text).sections()
    entry = _locate(text, sections, table, name)
    eol = eol_of(text)
    if entry.inline:
        if len(entry.inline) > 1 or entry.inline[0].path[-1:] != (name,):
            raise EntryError(
                f"{name!r} is written as dotted keys: edit it by hand",
                line_of(text, entry.inline[0].start),
            )
        statement = entry.inline[0]
        return splice(text, statement.value_start, statement.value_end, render(dict(value))), False
    block = _block(table, name, value, eol)
    if entry.sections:
        first, last = sections[entry.sections[0]], sections[entry.sections[-1]]
        assert first.header is not None
        old = (read(text, table) or {}).get(name)
        if len(entry.sections) == 1 and isinstance(old, dict) and plain_keys(first):
            return update(text, first, old, value, eol), False
        return splice(text, first.header.start, last.end, block), False
    under = [s for s in sections if s.path[: len(table)] == table and s.header is not None]
    position = under[-1].end if under else content_end(text, len(text))
    if position == 0:
        return splice(text, 0, 0, block + eol), created
    return splice(text, position, position, eol + eol + block), created


def plain_keys(section: Section) -> bool:
    """Every statement of the section sets one plain key (none is dotted)."""
    return all(len(statement.path) == 1 for statement in section.body)


def same(one: Any, other: Any) -> bool:
    """Equal values of equal types (`1` is not `true`, nor `1.0`)."""
    return json.dumps(one, sort_keys=True, default=str) == json.dumps(
        other, sort_keys=True, default=str
    )


def update(
    text: str, section: Section, old: Mapping[str, Any], new: Mapping[str, Any], eol: str
) -> str:
    """`text` with the section's keys set to `new` one by one: a key whose value changes gets
    its new value in place, one no longer there loses its line, a new one goes after the
    last; so the comments in the section stay, and so do the keys that stay the same."""
    assert section.header is not None
    edits: list[tuple[int, int, str]] = []
    last = section.header.end
    for statement in section.body:
        key = statement.path[0]
        if key not in new:
            end = text.find("\n", statement.end)
            start = line_start(text, statement.start)
            if end < 0:  # the file's last line: the line break before it goes instead
                end, start = len(text), start - (2 if text[start - 2 : start] == "\r\n" else 1)
            edits.append((max(start, 0), end + 1 if end < len(text) else end, ""))
            continue
        last = statement.end
        if not same(old.get(key), new[key]):
            edits.append((statement.value_start, statement.value_end, render(new[key])))
    there = {statement.path[0] for statement in section.body}
    added = "".join(f"{eol}{quote_key(k)} = {render(v)}" for k, v in new.items() if k not in there)
    if added:
        edits.append((last, last, added))
    for start, end, replacement in sorted(edits, reverse=True):
        text = splice(text, start, end, replacement)
    return text


def remove(text: str, table: tuple[str, ...], name: str) -> str:
    document(text)
    sections = _Lexer(text).sections()
    entry = _locate(text, sections, table, name)
    if entry.inline:
        statement = entry.inline[-1] if len(entry.inline) == 1 else None
        if statement is None or statement.path[-1:] != (name,):
            raise EntryError(
                f"{name!r} is written as dotted keys: edit it by hand",
                line_of(text, entry.inline[0].start),
            )
        end = text.find("\n", statement.end)
        return splice(text, statement.start, len(text) if end < 0 else end + 1, "")
    if not entry.sections:
        return text
    first, last = sections[entry.sections[0]], sections[entry.sections[-1]]
    assert first.header is not None
    start = blank_lines_before(text, first.header.start)
    return cut_lines(text, start, last.end, break_before=start > 0)
