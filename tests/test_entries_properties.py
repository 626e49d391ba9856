"""Property tests of the entry editors over generated user config files.

Each strategy writes a file the way a person or a harness might: comments before,
inside and after the table, odd spacing, tabs where the format takes them, unicode
keys and values, CRLF, a byte-order mark, no final newline, unrelated entries and
tables, an empty table, an entry of the same name. The properties: put then remove
gives the file back byte for byte; put only inserts (or, for an entry of that name,
replaces one span); read gives the value back and the other entries unchanged; a
second put changes nothing; the result parses with the format's reference parser
and never gains a trailing comma; and a file that does not parse is an EntryError
with a line, never a text.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

import pytest
import tomlkit
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from skilltool.entries import EntryError, put_entry, read_entries, remove_entry

# SKILLTOOL_ENTRY_EXAMPLES=1000 for a deeper run than the suite's
SETTINGS = settings(
    max_examples=int(os.environ.get("SKILLTOOL_ENTRY_EXAMPLES", "30")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TABLES = {
    "toml": ("mcp_servers",),
    "toml-array": ("mcp_servers",),
    "json": ("mcpServers",),
    "jsonc": ("mcp",),
    "yaml": ("mcp_servers",),
}

_letters = st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp", "Co", "Cn"))
words = st.text(_letters, max_size=8)
names = st.one_of(
    st.sampled_from(
        ["some-server", "docs", "a.b", "with space", "ünï-códe", 'q"uote', "x:y", "1", "true"]
    ),
    st.text(_letters, min_size=1, max_size=8),
)
keys = st.one_of(st.from_regex(r"[a-z][a-z0-9_-]{0,6}", fullmatch=True), words)
comments = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")), max_size=10
)


def plain_values(null: bool) -> st.SearchStrategy[Any]:
    scalars = st.one_of(words, st.integers(-(10**6), 10**12), st.booleans())
    if null:
        scalars = st.one_of(scalars, st.none())
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
        max_leaves=6,
    )


def servers(null: bool) -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.just({"command": "npx", "args": ["-y", "srv"], "env": {"API_KEY": "ü"}}),
        st.dictionaries(keys, plain_values(null), max_size=4),
    )


# ---- JSON and JSONC -------------------------------------------------------------


@st.composite
def json_files(draw: Any, fmt: str, name: str, with_name: bool) -> str:
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    unit = draw(st.sampled_from(["  ", "    ", "\t", " "]))

    def gap(indent: str, pretty: bool) -> str:
        choices = ["", " ", "\t", "/* c */", " /*" + draw(comments).replace("*/", "") + "*/ "]
        if pretty:
            choices.append(" //" + draw(comments) + eol + indent)
        return draw(st.sampled_from(choices))

    def render(value: Any, indent: str) -> str:
        if isinstance(value, dict | list) and value:
            pretty = draw(st.booleans())
            inner = indent + unit if pretty else ""
            parts = [
                (
                    json.dumps(k, ensure_ascii=draw(st.booleans()))
                    + gap(inner, False)
                    + ":"
                    + draw(st.sampled_from(["", " ", "  "]))
                    if isinstance(value, dict)
                    else ""
                )
                + render(v, inner)
                for k, v in (value.items() if isinstance(value, dict) else enumerate(value))
            ]
            open_, close = "{}" if isinstance(value, dict) else "[]"
            lead = (eol + inner) if pretty else gap("", False)
            separator = (
                ("," + gap(inner, True) + eol + inner)
                if pretty
                else ("," + draw(st.sampled_from(["", " "])))
            )
            trailing = "," if fmt == "jsonc" and draw(st.booleans()) else ""
            tail = (trailing + gap(inner, True) + eol + indent) if pretty else trailing
            return open_ + lead + separator.join(parts) + tail + close
        if isinstance(value, dict | list):
            return draw(
                st.sampled_from(
                    [
                        "{}" if isinstance(value, dict) else "[]",
                        "{ }" if isinstance(value, dict) else "[ ]",
                    ]
                )
            )
        return json.dumps(value, ensure_ascii=draw(st.booleans()))

    root = draw(st.dictionaries(keys, plain_values(True), max_size=4))
    table = TABLES[fmt][0]
    root.pop(table, None)
    mode = draw(st.sampled_from(["absent", "empty", "entries"]))
    if mode != "absent":
        entries = (
            draw(st.dictionaries(names, servers(True), max_size=3)) if mode == "entries" else {}
        )
        entries.pop(name, None)
        if with_name:
            entries[name] = {"command": "theirs"}
        items = list(root.items())
        items.insert(draw(st.integers(0, len(items))), (table, entries))
        root = dict(items)
    elif with_name:
        root[table] = {name: {"command": "theirs"}}
    text = draw(st.sampled_from(["", "\ufeff"])) + gap("", True) + render(root, "") + gap("", True)
    return text + (eol if draw(st.booleans()) else "")


# ---- TOML ---------------------------------------------------------------------


def _toml_key(key: str) -> str:
    return (
        key
        if re.fullmatch(r"[A-Za-z0-9_-]+", key)
        else json.dumps(key, ensure_ascii=False).replace("\x7f", "\\u007f")
    )


@st.composite
def toml_values(draw: Any, eol: str) -> str:
    value = draw(plain_values(False))

    def render(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, str):
            style = draw(st.sampled_from(["basic", "literal", "multi"]))
            if style == "literal" and "'" not in value and not re.search(r"[\x00-\x1f\x7f]", value):
                return f"'{value}'"
            if style == "multi":
                return (
                    '"""'
                    + eol
                    + json.dumps(value, ensure_ascii=False)[1:-1].replace("\x7f", "\\u007f")
                    + '"""'
                )
            return (
                _toml_key(value)
                if False
                else json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
            )
        if isinstance(value, list):
            if value and draw(st.booleans()):
                return (
                    "["
                    + eol
                    + ("," + draw(st.sampled_from(["", "  # c"])) + eol).join(
                        "  " + render(v) for v in value
                    )
                    + eol
                    + "]"
                )
            return "[" + ", ".join(render(v) for v in value) + "]"
        return "{" + ", ".join(f"{_toml_key(k)} = {render(v)}" for k, v in value.items()) + "}"

    return render(value)


@st.composite
def toml_files(draw: Any, name: str, with_name: bool) -> str:
    eol = draw(st.sampled_from(["\n", "\r\n"]))

    def body(count: int) -> list[str]:
        lines: list[str] = []
        for key in draw(st.lists(keys, max_size=count, unique=True)):
            indent = draw(st.sampled_from(["", "", "  ", "\t"]))
            spacing = draw(st.sampled_from([" = ", "=", "\t=  "]))
            trailing = draw(st.sampled_from(["", "", "  # " + draw(comments), "\t"]))
            dotted = _toml_key(key) + draw(st.sampled_from(["", "", ".sub", ' . "ü b"']))
            lines.append(indent + dotted + spacing + draw(toml_values(eol)) + trailing)
            if draw(st.integers(0, 4)) == 0:
                lines.append(draw(st.sampled_from(["", "# " + draw(comments), "   "])))
        return lines

    sections: list[list[str]] = []
    for table in draw(st.lists(keys.filter(lambda k: k != "mcp_servers"), max_size=3, unique=True)):
        sections.append([f"[{_toml_key(table)}]", *body(3)])
        if draw(st.integers(0, 3)) == 0:
            sections.append([f"[[{_toml_key(table)}.items]]", *body(2)])
            sections.append([f"[[{_toml_key(table)}.items]]", *body(2)])
    mode = draw(st.sampled_from(["absent", "header", "entries", "inline"]))
    entries = (
        [n for n in draw(st.lists(names, max_size=3, unique=True)) if n != name]
        if mode != "absent"
        else []
    )
    ours: list[list[str]] = []
    if mode == "header" or (mode == "inline" and (entries or with_name)):
        header = ["[mcp_servers]" + draw(st.sampled_from(["", "  # servers"]))]
        if mode == "inline":
            header += [f'{_toml_key(n)} = {{ command = "x" }}' for n in entries]
            entries = []
        ours.append(header)
    for entry in [*entries, *([name] if with_name and mode != "inline" else [])]:
        ours.append([f"[mcp_servers.{_toml_key(entry)}]", *body(3)])
        if draw(st.booleans()):
            ours.append([f"[mcp_servers.{_toml_key(entry)}.env]", *body(2)])
    if with_name and mode == "inline":
        ours[0].append(f'{_toml_key(name)} = {{ command = "theirs" }}')
    where = draw(st.integers(0, len(sections)))
    sections[where:where] = ours
    lines = [draw(st.sampled_from(["", "# " + draw(comments)])), *body(3)]
    for section in sections:
        lines += [draw(st.sampled_from(["", "", "# about it", "\t"])), *section]
    text = draw(st.sampled_from(["", "\ufeff"])) + eol.join(lines)
    return text + (eol if draw(st.booleans()) else "")


@st.composite
def toml_array_files(draw: Any, name: str, with_name: bool) -> str:
    """Mistral Vibe's shape: `[[mcp_servers]]` elements named by a `name` key, among other
    tables and arrays of tables (`[[providers]]`), an element's own `[mcp_servers.env]`."""
    eol = draw(st.sampled_from(["\n", "\r\n"]))

    def body(count: int) -> list[str]:
        lines: list[str] = []
        for key in draw(st.lists(keys.filter(lambda k: k != "name"), max_size=count, unique=True)):
            spacing = draw(st.sampled_from([" = ", "=", "\t=  "]))
            trailing = draw(st.sampled_from(["", "", "  # " + draw(comments), "\t"]))
            lines.append(_toml_key(key) + spacing + draw(toml_values(eol)) + trailing)
            if draw(st.integers(0, 4)) == 0:
                lines.append(draw(st.sampled_from(["", "# " + draw(comments), "   "])))
        return lines

    def element(table: str, element_name: str) -> list[list[str]]:
        named = "name = " + json.dumps(element_name, ensure_ascii=False).replace("\x7f", "\\u007f")
        head = [f"[[{table}]]" + draw(st.sampled_from(["", "  # one"]))]
        own = [*head, *draw(st.permutations([named, *body(3)]))]
        if draw(st.integers(0, 3)) == 0:
            return [own, [f"[{table}.env]", *body(2)]]
        return [own]

    sections: list[list[str]] = []
    for table in draw(st.lists(keys.filter(lambda k: k != "mcp_servers"), max_size=3, unique=True)):
        sections.append([f"[{_toml_key(table)}]", *body(3)])
    for provider in draw(st.lists(names, max_size=2, unique=True)):
        sections += element("providers", provider)
    others = [n for n in draw(st.lists(names, max_size=3, unique=True)) if n != name]
    ours: list[list[str]] = []
    for entry in draw(st.permutations([*others, *([name] if with_name else [])])):
        ours += element("mcp_servers", entry)
    where = draw(st.integers(0, len(sections)))
    sections[where:where] = ours
    lines = [draw(st.sampled_from(["", "# " + draw(comments)])), *body(3)]
    for section in sections:
        lines += [draw(st.sampled_from(["", "", "# about it", "\t"])), *section]
    text = draw(st.sampled_from(["", "\ufeff"])) + eol.join(lines)
    return text + (eol if draw(st.booleans()) else "")


# ---- YAML ---------------------------------------------------------------------

_YAML_SPECIAL = re.compile(r"(?i)y|n|yes|no|on|off|true|false|null|~")


def _yaml_key(key: str) -> str:
    if re.fullmatch(r"[a-z][a-z0-9_-]*", key) and not _YAML_SPECIAL.fullmatch(key):
        return key
    return json.dumps(key, ensure_ascii=False)  # YAML reads "\ud800\udc00" as two surrogates


@st.composite
def yaml_files(draw: Any, name: str, with_name: bool) -> str:
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    unit = draw(st.sampled_from(["  ", "    ", " "]))

    def scalar(value: Any) -> str:
        if isinstance(value, str):
            return _yaml_key(value) if draw(st.booleans()) else json.dumps(value)
        return json.dumps(value)

    def block(mapping: dict[str, Any], indent: str) -> list[str]:
        lines: list[str] = []
        for key, value in mapping.items():
            head = indent + _yaml_key(key) + ":"
            trailing = draw(st.sampled_from(["", "", "  # " + draw(comments), " ", "\t# tab"]))
            if isinstance(value, dict) and value and draw(st.booleans()):
                lines += [head + trailing, *block(value, indent + unit)]
            elif (
                isinstance(value, list)
                and value
                and all(not isinstance(v, dict | list) for v in value)
            ):
                dash = indent + draw(st.sampled_from(["", unit]))
                lines += [head + trailing, *(dash + "- " + scalar(v) for v in value)]
            elif (
                isinstance(value, str)
                and "\n" not in value
                and value.strip()
                and draw(st.integers(0, 5)) == 0
            ):
                lines += [head + " |" + trailing, indent + unit + json.dumps(value)]
            else:
                lines.append(head + " " + json.dumps(value) + trailing)
            if draw(st.integers(0, 4)) == 0:
                lines.append(draw(st.sampled_from(["", indent + "# " + draw(comments), "# x"])))
        return lines

    root = draw(st.dictionaries(keys, plain_values(True), max_size=4))
    root.pop("mcp_servers", None)
    lines = block(root, "")
    mode = draw(st.sampled_from(["absent", "flow", "null", "block", "flow-entries"]))
    if with_name and mode in ("absent", "flow", "null"):
        mode = "block"
    entries = {
        n: v
        for n, v in draw(st.dictionaries(names, servers(True), max_size=3)).items()
        if n != name
    }
    if with_name:
        entries[name] = {"command": "theirs"}
    table: list[str] = []
    if mode == "flow":
        table = ["mcp_servers: {}" + draw(st.sampled_from(["", "  # none"]))]
    elif mode == "null":
        table = [
            "mcp_servers:",
            *draw(st.lists(st.sampled_from([unit + "# old: x", "", "#"]), max_size=2)),
        ]
    elif mode == "flow-entries" and entries:
        table = ["mcp_servers: " + json.dumps(entries, ensure_ascii=False)]
    elif mode != "absent" and entries:
        table = ["mcp_servers:", *block(entries, unit)]
    where = draw(st.integers(0, len(lines)))
    while where < len(lines) and lines[where].startswith((" ", "-")):
        where += 1  # a top-level key goes between top-level entries
    lines[where:where] = table
    if draw(st.integers(0, 3)) == 0:
        lines[:0] = ["base: &base", unit + "k: v", "derived:", unit + "<<: *base", unit + "x: 1"]
    if table and draw(st.booleans()):
        lines.insert(
            lines.index(table[0]) + 1, draw(st.sampled_from(["  # about these", "# x", ""]))
        )
    start = draw(st.sampled_from(["", "---" + eol, "# mine" + eol, "\ufeff"]))
    end = draw(st.sampled_from(["", "", eol + "..."]))
    text = start + eol.join(lines) + end
    return text + (eol if draw(st.booleans()) else "")


# ---- the properties -----------------------------------------------------------


def _values(text: str, fmt: str) -> object:
    assert fmt == "yaml"
    return yaml.safe_load(text.removeprefix("\ufeff"))


def _parses(text: str, fmt: str) -> bool:
    body = text.removeprefix("\ufeff")
    try:
        if fmt in ("toml", "toml-array"):
            tomlkit.parse(body)
        elif fmt == "yaml":
            yaml.safe_load(body)
        else:
            json.loads(body)
    except (ValueError, yaml.YAMLError, tomlkit.exceptions.TOMLKitError):
        return False  # TOMLKitError: a parse error, or a key defined twice (KeyAlreadyPresent)
    return True


def _inserted(before: str, after: str) -> bool:
    """`after` is `before` with one span inserted."""
    prefix = 0
    while prefix < len(before) and before[prefix] == after[prefix]:
        prefix += 1
    return after.endswith(before[prefix:])


def _trailing_commas(text: str) -> int:
    """Commas before a closing bracket, outside strings and comments."""
    stripped = re.sub(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?\*/', "0", text, flags=re.DOTALL)
    return len(re.findall(r",\s*[}\]]", stripped))


def _files(fmt: str, name: str, with_name: bool) -> st.SearchStrategy[str]:
    if fmt == "toml":
        return toml_files(name, with_name)
    if fmt == "toml-array":
        return toml_array_files(name, with_name)
    if fmt == "yaml":
        return yaml_files(name, with_name)
    return json_files(fmt, name, with_name)


@pytest.mark.parametrize("fmt", ["toml", "toml-array", "json", "jsonc", "yaml"])
@SETTINGS
@given(data=st.data())
def test_a_new_entry_is_one_insertion_and_its_removal_gives_the_file_back(fmt, data):
    name = data.draw(names)
    text = data.draw(_files(fmt, name, with_name=False))
    value = data.draw(servers(fmt not in ("toml", "toml-array")))
    table = TABLES[fmt]
    if fmt in ("toml", "toml-array", "yaml"):
        assume(_parses(text, fmt))
    assume(fmt != "toml-array" or "name" not in value)  # the element's name, not a value
    if fmt == "yaml":  # a block scalar at the very end: any line after it changes its value
        assume(_values(text + "\n", fmt) == _values(text, fmt))
    before = read_entries(text, fmt, table) or {}

    put = put_entry(text, fmt, table, name, value)

    assert _inserted(text, put.text)
    assert read_entries(put.text, fmt, table) == {**before, name: value}
    assert put_entry(put.text, fmt, table, name, value).text == put.text
    assert remove_entry(put.text, fmt, table, name, drop_table=put.created_table) == text
    assert _parses(put.text, fmt) or not _parses(text, fmt)
    if fmt in ("json", "jsonc"):
        assert _trailing_commas(put.text) == _trailing_commas(text)
    if fmt == "toml" and sys.version_info >= (3, 11):
        import tomllib

        assert tomllib.loads(put.text.removeprefix("\ufeff"))[table[0]][name] == value
    if fmt == "toml-array" and sys.version_info >= (3, 11):
        import tomllib

        there = tomllib.loads(put.text.removeprefix("\ufeff"))[table[0]]
        assert [e for e in there if e["name"] == name] == [{"name": name, **value}]


@pytest.mark.parametrize("fmt", ["toml", "toml-array", "json", "jsonc", "yaml"])
@SETTINGS
@given(data=st.data())
def test_an_entry_of_the_same_name_is_replaced_and_nothing_else_changes(fmt, data):
    name = data.draw(names)
    text = data.draw(_files(fmt, name, with_name=True))
    value = data.draw(servers(fmt not in ("toml", "toml-array")))
    table = TABLES[fmt]
    if fmt in ("toml", "toml-array", "yaml"):
        assume(_parses(text, fmt))
    assume(fmt != "toml-array" or "name" not in value)  # the element's name, not a value
    before = read_entries(text, fmt, table)
    assert before is not None
    assert name in before  # the file holds an entry of that very name

    put = put_entry(text, fmt, table, name, value)

    assert not put.created_table
    assert read_entries(put.text, fmt, table) == {**before, name: value}
    assert put_entry(put.text, fmt, table, name, value).text == put.text
    removed = remove_entry(put.text, fmt, table, name, drop_table=False)
    assert read_entries(removed, fmt, table) in (
        {k: v for k, v in before.items() if k != name},
        None,
    )


@pytest.mark.parametrize("fmt", ["toml", "toml-array", "json", "jsonc", "yaml"])
@SETTINGS
@given(data=st.data())
def test_a_file_that_does_not_parse_is_an_error_with_a_line(fmt, data):
    text = data.draw(_files(fmt, "some-server", with_name=False))
    cut = data.draw(st.integers(0, len(text)))
    broken = (
        text[:cut]
        + data.draw(st.sampled_from(["{", "[", '"', "'", "}", ":", "= =", "\x00", ",,"]))
        + text[cut:]
    )

    try:
        put = put_entry(broken, fmt, TABLES[fmt], "some-server", {"command": "x"})
    except EntryError as error:
        assert error.line is not None
        assert "\n" not in error.message
        return
    assert _parses(put.text, fmt) or fmt in ("json", "jsonc")
    if fmt != "jsonc" and not _parses(broken, fmt) and not (fmt == "json" and "/" in broken):
        pytest.fail("a file the reference parser rejects was edited")
