"""YAML: find a mapping's entries in the text through PyYAML's node marks, and splice.

PyYAML is what Hermes reads its `config.yaml` with (`yaml.safe_load`), so a file is
taken exactly when Hermes would take it, with the same values. Its composer gives
every node's start and end in the text; comments are never parsed, only kept,
because nothing outside the edited span is rewritten. A table written as a flow
mapping (`mcp_servers: {}`) gets flow entries; a flow mapping with a comment
inside, an explicit `null`, more than one document, a mapping on the way that an
anchor and an alias share, or the edited mapping taking keys with `<<` is an EntryError.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Mapping
from typing import Any

import yaml

from skilltool.entries.base import (
    EntryError,
    content_end,
    cut_lines,
    eol_of,
    indent_unit,
    line_indent,
    line_of,
    line_start,
    splice,
    starts_line,
)

_PLAIN = re.compile(r"[A-Za-z_/][A-Za-z0-9_/.@+-]*")
_UNSAFE = re.compile(
    "[^\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]|[\u2028\u2029]"
)
Pair = tuple[yaml.Node, yaml.Node]


def _error(text: str, error: yaml.YAMLError) -> EntryError:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    if isinstance(error, yaml.reader.ReaderError):
        code = error.character if isinstance(error.character, int) else ord(error.character)
        problem = f"a character YAML does not allow, U+{code:04X}"
        line = line_of(text, error.position)
    else:
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        line = mark.line + 1 if mark is not None else 1
    return EntryError(f"this is not YAML ({problem}): fix the file", line)


@functools.lru_cache(maxsize=16)
def document(text: str) -> Any:
    """The file's values as `yaml.safe_load` gives them (cached; never mutate them)."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise _error(text, error) from None
    except (ValueError, TypeError) as error:  # a scalar of its type that is no value: 2001-02-30
        raise EntryError(f"this is not YAML ({error}): fix the file", _bad_scalar(text)) from None


def _bad_scalar(text: str) -> int:
    """The line of the first scalar PyYAML cannot make a value of."""
    loader = yaml.SafeLoader("")
    stack = [_compose(text)]
    while stack:
        node = stack.pop(0)
        if isinstance(node, yaml.ScalarNode):
            try:
                loader.construct_object(node)
            except (ValueError, TypeError, yaml.YAMLError):
                return int(node.start_mark.line) + 1
        elif isinstance(node, yaml.MappingNode):
            stack = [part for pair in node.value for part in pair] + stack
        elif isinstance(node, yaml.SequenceNode):
            stack = list(node.value) + stack
    return 1


@functools.lru_cache(maxsize=16)
def _compose(text: str) -> yaml.Node | None:
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        raise _error(text, error) from None


def read(text: str, table: tuple[str, ...]) -> dict[str, Any] | None:
    _walk(text, _compose(text), table)  # a table that is not a mapping is an error with its line
    node: Any = document(text)
    for depth, key in enumerate(table):
        if node is None and depth == 0:
            return None
        if not isinstance(node, dict):
            raise EntryError(
                f"{'.'.join(table[:depth]) or 'the top level'} is not a mapping: make it one"
            )
        if key not in node:
            return None
        node = node[key]
    if node is None:
        return {}
    if not isinstance(node, dict):
        raise EntryError(f"{'.'.join(table)} is not a mapping: make it one, or remove it")
    return dict(node)


def _find(text: str, mapping: yaml.MappingNode, key: str) -> Pair | None:
    found = [
        pair
        for pair in mapping.value
        if isinstance(pair[0], yaml.ScalarNode) and pair[0].value == key
    ]
    if len(found) > 1:
        raise EntryError(
            f"the key {key!r} appears twice: remove one",
            line_of(text, found[1][0].start_mark.index),
        )
    return found[0] if found else None


def _empty(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.start_mark.index == node.end_mark.index


def _walk(
    text: str, root: yaml.Node | None, table: tuple[str, ...]
) -> tuple[yaml.Node | None, int, Pair | None]:
    """(deepest mapping on the path, how many keys it covers, the pair holding the table)."""
    if root is None or _empty(root):  # no document, or `---` with nothing after it
        return None, 0, None
    if not isinstance(root, yaml.MappingNode):
        raise EntryError("the file's top level is not a mapping: skilltool edits only mappings", 1)
    node: yaml.Node = root
    pair: Pair | None = None
    for depth, key in enumerate(table):
        if not isinstance(node, yaml.MappingNode):
            raise EntryError(
                f"{'.'.join(table[:depth])} is not a mapping: make it one, or remove it",
                line_of(text, node.start_mark.index),
            )
        found = _find(text, node, key)
        if found is None:
            return node, depth, pair
        pair, node = found, found[1]
    if not isinstance(node, yaml.MappingNode) and not _empty(node):
        raise EntryError(
            f"{'.'.join(table)} is not a mapping: write a mapping there, or remove the line",
            line_of(text, node.start_mark.index),
        )
    return node, len(table), pair


MERGE = "tag:yaml.org,2002:merge"


def _reached(root: yaml.Node) -> dict[int, list[int]]:
    """Where each node of the document is reached (by id): the start of the key or item that
    holds it, once for each time; an alias reaches its anchor's node again."""
    places: dict[int, list[int]] = {}
    stack = [(root, root.start_mark.index)]
    while stack:
        node, at = stack.pop()
        seen = places.setdefault(id(node), [])
        seen.append(at)
        if len(seen) > 1:
            continue  # its members were walked the first time it was reached
        if isinstance(node, yaml.MappingNode):
            stack += [(value, key.start_mark.index) for key, value in node.value]
        elif isinstance(node, yaml.SequenceNode):
            stack += [(item, item.start_mark.index) for item in node.value]
    return places


def _unshared(text: str, root: yaml.Node | None, table: tuple[str, ...]) -> None:
    """Raise when an edit of `table` would change what another key holds too: a mapping on
    the way that an anchor and an alias share, or a mapping edited that takes keys with `<<`."""
    if root is None or not isinstance(root, yaml.MappingNode):
        return
    places = _reached(root)
    mapping, depth = root, 0
    for depth, key in enumerate(table, 1):
        found = _find(text, mapping, key)
        if found is None:
            depth -= 1
            break
        node = found[1]
        if len(places.get(id(node), ())) > 1:
            lines = sorted({line_of(text, at) for at in places[id(node)]})
            said = ", ".join(map(str, lines[:-1])) + f" and {lines[-1]}"
            raise EntryError(
                f"{'.'.join(table[:depth])} is shared through a YAML anchor and alias (lines "
                f"{said}): an entry put in it or taken out would change both; edit the file "
                "by hand",
                line_of(text, found[0].start_mark.index),
            )
        if not isinstance(node, yaml.MappingNode):
            return
        mapping = node
    merged = [k for k, _ in mapping.value if isinstance(k, yaml.ScalarNode) and k.tag == MERGE]
    if merged:
        raise EntryError(
            f"{'.'.join(table[:depth]) or 'the top level'} takes entries from another mapping "
            "with a merge key (<<): which mapping holds an entry is not clear; edit the file "
            "by hand",
            line_of(text, merged[0].start_mark.index),
        )


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        text = repr(value)
        return text if "." in text else text.replace("e", ".0e")
    return _string(str(value))


def _string(value: str) -> str:
    """Plain when PyYAML reads it back as the same string, else a double-quoted scalar."""
    if _PLAIN.fullmatch(value) and yaml.safe_load(value) == value:
        return value
    quoted = json.dumps(value, ensure_ascii=False)
    return _UNSAFE.sub(lambda match: f"\\u{ord(match.group(0)):04x}", quoted)


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_string(str(k))}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(item) for item in value) + "]"
    return _scalar(value)


def _lines(key: str, value: Any, indent: str, unit: str) -> list[str]:
    """Block lines of `key: value` at `indent`."""
    head = indent + _string(key) + ":"
    if isinstance(value, dict) and value:
        return [head] + [
            line for k, v in value.items() for line in _lines(str(k), v, indent + unit, unit)
        ]
    if isinstance(value, list) and value:
        return [head] + [line for item in value for line in _item(item, indent + unit, unit)]
    return [head + " " + _flow(value)]


def _item(value: Any, indent: str, unit: str) -> list[str]:
    if isinstance(value, dict) and value:
        inner = [line for k, v in value.items() for line in _lines(str(k), v, indent + "  ", unit)]
        return [indent + "- " + inner[0].lstrip(" "), *inner[1:]]
    return [indent + "- " + _flow(value)]


def _after_colon(text: str, key: yaml.Node) -> int:
    return text.index(":", key.end_mark.index) + 1


def _last_end(text: str, node: yaml.Node) -> int:
    """After the last character of a node's own text (a block collection's end mark runs on)."""
    if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
        key, value = node.value[-1]
        return _after_colon(text, key) if _empty(value) else _last_end(text, value)
    if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
        return _last_end(text, node.value[-1])
    return node.end_mark.index


def _last_leaf(node: yaml.Node) -> yaml.Node:
    if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
        return _last_leaf(node.value[-1][1])
    if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
        return _last_leaf(node.value[-1])
    return node


def _last_line_end(text: str, start: int, end: int) -> int:
    """The end of the last line in `text[start:end]` that is not blank, trailing spaces kept."""
    lines = text[start:end].split("\n")
    while len(lines) > 1 and not lines[-1].strip():
        lines.pop()
    return start + len("\n".join(lines).removesuffix("\r"))


def _pair_end(text: str, pair: Pair) -> int:
    """After a block entry's text, with a comment that ends its last line."""
    key, value = pair
    if _empty(value):
        end = _after_colon(text, key)
    else:
        end = _last_end(text, value)
        last = _last_leaf(value)
        if isinstance(last, yaml.ScalarNode) and last.style in ("|", ">"):
            end = _last_line_end(text, last.start_mark.index, end)  # its spaces are content
        else:
            end = content_end(text, end)
    line_end = text.find("\n", end)
    rest = text[end : len(text) if line_end < 0 else line_end]
    # YAML's blanks are spaces and tabs: a no-break space in a comment is the comment's
    if not rest.strip(" \t\r") or rest.lstrip(" \t").startswith("#"):
        end += len(rest.rstrip(" \t\r"))
    return end


class _Style:
    def __init__(self, text: str) -> None:
        self.eol = eol_of(text)
        self.unit = indent_unit(re.findall(r"^( +)[^\s#]", text, re.MULTILINE))


def _flow_gaps_clean(text: str, mapping: yaml.MappingNode) -> bool:
    """No comment sits between the items of a flow mapping."""
    position = mapping.start_mark.index + 1
    for key, value in mapping.value:
        if "#" in text[position : key.start_mark.index]:
            return False
        position = max(key.end_mark.index, value.end_mark.index)
    return "#" not in text[position : mapping.end_mark.index]


def _insert(text: str, mapping: yaml.Node | None, key: str, value: Any, style: _Style) -> str:
    """`text` with `key: value` added as the last entry of `mapping` (None: the empty document)."""
    if mapping is None:
        block = style.eol.join(_lines(key, value, "", style.unit))
        position = content_end(text, len(text))
        marker = line_start(text, position)
        if text[marker:position] == "...":  # the document's end marker: the entry goes before it
            return splice(text, marker, marker, block + style.eol)
        return (
            splice(text, 0, 0, block + style.eol)
            if position == 0
            else splice(text, position, position, style.eol + block)
        )
    if isinstance(mapping, yaml.MappingNode) and mapping.flow_style:
        if not _flow_gaps_clean(text, mapping):
            raise EntryError(
                "a comment inside a flow mapping ({...}), which skilltool cannot edit exactly: "
                "write the mapping in block style, or edit it by hand",
                line_of(text, mapping.start_mark.index),
            )
        member = f"{_string(key)}: {_flow(value)}"
        if not mapping.value:
            return splice(text, mapping.start_mark.index + 1, mapping.start_mark.index + 1, member)
        end = mapping.value[-1][1].end_mark.index
        return splice(text, end, end, ", " + member)
    assert isinstance(mapping, yaml.MappingNode)
    first_key = mapping.value[0][0]
    if not starts_line(text, first_key.start_mark.index):
        raise EntryError(
            "a mapping skilltool cannot extend exactly: edit it by hand",
            line_of(text, first_key.start_mark.index),
        )
    block = style.eol.join(
        _lines(key, value, line_indent(text, first_key.start_mark.index), style.unit)
    )
    end = _pair_end(text, mapping.value[-1])
    return splice(text, end, end, style.eol + block)


def _into_null(text: str, pair: Pair, name: str, value: Any, style: _Style) -> str:
    """A table written as `key:` with nothing after it gets a block mapping."""
    indent = line_indent(text, pair[0].start_mark.index) + style.unit
    end = _pair_end(text, pair)
    return splice(
        text, end, end, style.eol + style.eol.join(_lines(name, value, indent, style.unit))
    )


def put(text: str, table: tuple[str, ...], name: str, value: Mapping[str, Any]) -> tuple[str, bool]:
    document(text)
    root = _compose(text)
    style = _Style(text)
    _unshared(text, root, table)
    node, depth, pair = _walk(text, root, table)
    if depth < len(table):
        nested: Any = dict(value)
        for key in reversed((*table[depth + 1 :], name)):
            nested = {key: nested}
        return _insert(text, node, table[depth], nested, style), True
    assert node is not None and pair is not None
    if _empty(node):
        return _into_null(text, pair, name, dict(value), style), False
    assert isinstance(node, yaml.MappingNode)
    found = _find(text, node, name)
    if found is None:
        return _insert(text, node, name, dict(value), style), False
    return _replace(text, node, found, dict(value), style), False


def _replace(text: str, mapping: yaml.MappingNode, pair: Pair, value: Any, style: _Style) -> str:
    key = pair[0]
    if mapping.flow_style:
        if not _flow_gaps_clean(text, mapping):
            raise EntryError(
                "a comment inside a flow mapping ({...}), which skilltool cannot edit "
                "exactly: edit it by hand",
                line_of(text, mapping.start_mark.index),
            )
        return splice(text, pair[1].start_mark.index, pair[1].end_mark.index, _flow(value))
    if not starts_line(text, key.start_mark.index):
        raise EntryError(
            "an entry skilltool cannot replace exactly: edit it by hand",
            line_of(text, key.start_mark.index),
        )
    indent = line_indent(text, key.start_mark.index)
    block = style.eol.join(_lines(str(key.value), value, indent, style.unit))
    return splice(text, line_start(text, key.start_mark.index), _pair_end(text, pair), block)


def _delete(text: str, mapping: yaml.MappingNode, pair: Pair, whole_lines: bool) -> str:
    """`text` without the entry `pair` of `mapping`: from the end of the line before it, or
    (`whole_lines`) its own lines with their line breaks."""
    key = pair[0]
    index = mapping.value.index(pair)
    if mapping.flow_style:
        if index == len(mapping.value) - 1 and index > 0:
            before = mapping.value[index - 1][1].end_mark.index
            if not text[before : key.start_mark.index].replace(",", "", 1).strip():
                return splice(text, before, pair[1].end_mark.index, "")
        if index < len(mapping.value) - 1:
            return splice(
                text, key.start_mark.index, mapping.value[index + 1][0].start_mark.index, ""
            )
        return splice(text, key.start_mark.index, pair[1].end_mark.index, "")
    if not starts_line(text, key.start_mark.index):
        raise EntryError(
            "an entry skilltool cannot remove exactly: edit it by hand",
            line_of(text, key.start_mark.index),
        )
    start, end = line_start(text, key.start_mark.index), _pair_end(text, pair)
    return cut_lines(text, start, end, break_before=start > 0 and not whole_lines)


def remove(
    text: str, table: tuple[str, ...], name: str, drop_table: bool, whole_lines: bool = False
) -> str:
    document(text)
    node, depth, _ = _walk(text, _compose(text), table)
    if depth < len(table) or not isinstance(node, yaml.MappingNode):
        return text
    _unshared(text, _compose(text), table)
    found = _find(text, node, name)
    if found is None:
        return text
    text = _delete(text, node, found, whole_lines)
    while drop_table and table:
        root = _compose(text)
        node, depth, pair = _walk(text, root, table)
        if depth < len(table) or pair is None or not (_empty(pair[1]) or pair[1].value == []):
            break
        parent, _, _ = _walk(text, root, table[:-1])
        assert isinstance(parent, yaml.MappingNode)
        text = _delete(text, parent, pair, whole_lines)
        table = table[:-1]
    return text
