"""Hooks as entries of a JSON settings file (Gemini CLI's and Qwen Code's `settings.json`):
`"hooks": {"<Event>": [{"matcher": …, "hooks": [{"name": …, "type": "command", …}]}]}`.

An entry is one element of an event's array that runs one command and names it: the name
is the entry's, and its value is the element without that name, with its event first
(`{"event": …, "matcher": …, "hooks": [{"type": "command", "command": …}]}`). Every other
element (a group of several commands, or one without a name: the user's) is no entry and
is never touched. A new entry goes last in its event's array (made when there is none); a
removal that leaves an event's array empty takes the array out too, and the `hooks` object
when it is empty and `drop_table` says skilltool made it. Strict JSON, as both harnesses
read it: comments are kept, no edit writes a trailing comma. Every edit is parsed again and
must hold exactly the values expected, or an EntryError is raised and no text returned.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

import skilltool.entries.jsonc as jsonc
from skilltool.entries.base import (
    EntryError,
    line_indent,
    line_of,
    line_start,
    splice,
    starts_line,
)

FORMAT = "json"  # what the file is, to the JSON parser
KEY = "name"  # the key of the element's one command that names the entry


def _named(element: Any) -> str | None:
    """The name of an element that is an entry, else None."""
    if not isinstance(element, dict) or not isinstance(element.get("hooks"), list):
        return None
    commands = element["hooks"]
    if len(commands) != 1 or not isinstance(commands[0], dict):
        return None
    name = commands[0].get(KEY)
    return name if isinstance(name, str) else None


def _value(element: dict[str, Any], event: str) -> dict[str, Any]:
    """An entry's value: the element with its event, its command without the name."""
    value: dict[str, Any] = {"event": event}
    for key, item in element.items():
        value[key] = [{k: v for k, v in item[0].items() if k != KEY}] if key == "hooks" else item
    return value


def _element(name: str, value: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The event and the element an entry's value is written as."""
    event, commands = value.get("event"), value.get("hooks")
    if not isinstance(event, str) or not isinstance(commands, list) or len(commands) != 1:
        raise EntryError("a hook entry needs an event and one command")
    element = {k: v for k, v in value.items() if k != "event"}
    element["hooks"] = [{KEY: name, **commands[0]}]
    return event, element


def _hooks(text: str, root: jsonc.Node) -> tuple[jsonc.Obj, jsonc.Member | None]:
    """The top object and its `hooks` member (None when absent), which must be an object."""
    if not isinstance(root, jsonc.Obj):
        raise EntryError("the file's top level is not an object: skilltool edits only objects", 1)
    member = jsonc._find(text, root, "hooks")
    if member is not None and not isinstance(member.node, jsonc.Obj):
        raise EntryError("hooks is not an object: make it one", line_of(text, member.key_start))
    return root, member


def _find(text: str) -> dict[str, tuple[jsonc.Member, int]]:
    """Each entry of the file by name: its event's member (holding an array) and its place."""
    _, hooks = _hooks(text, jsonc.parse(text, FORMAT))
    found: dict[str, tuple[jsonc.Member, int]] = {}
    if hooks is None:
        return found
    assert isinstance(hooks.node, jsonc.Obj)
    for member in hooks.node.members:
        if not isinstance(member.node, jsonc.Arr):
            continue
        for index, item in enumerate(member.node.items):
            name = _named(item.value)
            if name is None:
                continue
            if name in found:
                raise EntryError(
                    f"two hooks are named {name!r}: rename one", line_of(text, item.start)
                )
            found[name] = (member, index)
    return found


def read(text: str) -> dict[str, Any] | None:
    """Every entry's value by name; None when the file has no `hooks`."""
    root = jsonc.parse(text, FORMAT)
    if _hooks(text, root)[1] is None:
        return None
    return {
        name: _value(member.node.value[index], member.key)
        for name, (member, index) in _find(text).items()
    }


def put(text: str, name: str, value: Mapping[str, Any]) -> tuple[str, bool]:
    """`text` with the entry `name` set to `value` (in place when its event is the same), and
    whether the `hooks` object was made."""
    plain = json.loads(json.dumps(dict(value)))
    event, element = _element(name, plain)
    if (read(text) or {}).get(name) == plain:
        return text, False  # already so: the same bytes
    found = _find(text).get(name)
    expected = _expected(jsonc.document(text, FORMAT), name, event, element)
    style = jsonc._Style(text)
    created = False
    if found is not None and found[0].key == event:
        member, index = found
        assert isinstance(member.node, jsonc.Arr)
        after = _replace_item(text, member.node, index, element, style)
    else:
        if found is not None:  # moved to another event: out of the one, into the other
            text = remove(text, name, drop_table=False)
        after, created = _append(text, event, element, style)
    _check(after, expected, name)
    return after, created


def remove(text: str, name: str, drop_table: bool) -> str:
    """`text` without the entry `name`; its event's array too when it held only the entry,
    and the `hooks` object when that leaves it empty and `drop_table`."""
    found = _find(text).get(name)
    if found is None:
        return text
    member, index = found
    array = member.node
    assert isinstance(array, jsonc.Arr)
    data = jsonc.document(text, FORMAT)
    expected = copy.deepcopy(data)
    del expected["hooks"][member.key][index]
    if len(array.items) > 1:
        after = _delete_item(text, array, index)
    else:
        del expected["hooks"][member.key]
        root, hooks = _hooks(text, jsonc.parse(text, FORMAT))
        assert hooks is not None and isinstance(hooks.node, jsonc.Obj)
        if drop_table and len(hooks.node.members) == 1:
            del expected["hooks"]
            after = jsonc._delete_member(text, root, hooks)
        else:
            after = jsonc._delete_member(text, hooks.node, member)
    _check(after, expected, name)
    return after


def _expected(data: Any, name: str, event: str, element: dict[str, Any]) -> Any:
    """The document's values once the entry is set: in place, or last in its event's array."""
    expected = copy.deepcopy(data)
    hooks = expected.setdefault("hooks", {})
    for key, items in list(hooks.items()):
        found = [i for i, item in enumerate(items) if _named(item) == name]
        if not isinstance(items, list) or not found:
            continue
        if key == event:
            items[found[0]] = element
            return expected
        del items[found[0]]
        if not items:
            del hooks[key]
    items = hooks.setdefault(event, [])
    if not isinstance(items, list):
        raise EntryError(f"hooks.{event} is not an array: make it one")
    items.append(element)
    return expected


def _append(
    text: str, event: str, element: dict[str, Any], style: jsonc._Style
) -> tuple[str, bool]:
    """The element added last to its event's array, which is made (with `hooks`) if absent."""
    root, hooks = _hooks(text, jsonc.parse(text, FORMAT))
    if hooks is None:
        return jsonc._insert(text, root, "hooks", {event: [element]}, style), True
    assert isinstance(hooks.node, jsonc.Obj)
    member = jsonc._find(text, hooks.node, event)
    if member is None:
        return jsonc._insert(text, hooks.node, event, [element], style), False
    if not isinstance(member.node, jsonc.Arr):
        where = line_of(text, member.key_start)
        raise EntryError(f"hooks.{event} is not an array: make it one", where)
    return _append_item(text, member.node, element, style), False


def _append_item(text: str, array: jsonc.Arr, value: Any, style: jsonc._Style) -> str:
    if not array.items:
        outer = line_indent(text, array.start)
        inner = outer + style.unit
        new = style.eol + inner + style.render(value, inner, True) + style.eol + outer
        return splice(text, array.start + 1, array.start + 1, new)
    last = array.items[-1]
    multiline = "\n" in text[array.start : array.end]
    if multiline and starts_line(text, last.start):
        indent = line_indent(text, last.start)
        gap = style.eol + indent
    elif multiline:
        indent = line_indent(text, last.start) + style.unit
        gap = style.eol + indent
    else:
        indent, gap = "", " "
    return splice(text, last.end, last.end, "," + gap + style.render(value, indent, multiline))


def _replace_item(text: str, array: jsonc.Arr, index: int, value: Any, style: jsonc._Style) -> str:
    item = array.items[index]
    multiline = "\n" in text[array.start : array.end]
    new = style.render(value, line_indent(text, item.start), multiline)
    return splice(text, item.start, item.end, new)


def _delete_item(text: str, array: jsonc.Arr, index: int) -> str:
    """`text` without item `index` of an array of two or more, and the comma that went with
    it: on lines of its own, with its lines."""
    item = array.items[index]
    if index == len(array.items) - 1:
        before, comma = array.items[index - 1], array.commas[index - 1]
        assert comma is not None
        between = text[before.end : item.start].replace(",", "", 1)
        if not between.strip(" \t\r\n"):
            return splice(text, before.end, item.end, "")
        start = item.start
        while start > 0 and text[start - 1] in " \t":
            start -= 1
        text = splice(text, start, item.end, "")
        return splice(text, comma, comma + 1, "")
    comma, after = array.commas[index], array.items[index + 1]
    assert comma is not None
    if starts_line(text, item.start) and starts_line(text, after.start):
        next_line = text.find("\n", comma) + 1
        rest = text[comma + 1 : next_line].strip(" \t\r\n")
        if next_line > 0 and (not rest or rest.startswith("//")):
            return splice(text, line_start(text, item.start), next_line, "")
    cut = comma + 1
    while cut < len(text) and text[cut] in " \t":
        cut += 1
    return splice(text, item.start, cut, "")


def _check(after: str, expected: Any, name: str) -> None:
    """The edited text parses and holds exactly the expected values."""
    try:
        actual = jsonc.document(after, FORMAT)
    except EntryError as error:
        raise EntryError(
            f"skilltool cannot edit this file exactly here (the edit would not parse: "
            f"{error.message}); edit it by hand",
            line_of(after, after.find("hooks")),
        ) from None
    if actual != expected:
        raise EntryError(
            f"skilltool cannot edit the hook {name} exactly here (the edit would change other "
            "values); edit it by hand",
            line_of(after, after.find("hooks")),
        )
