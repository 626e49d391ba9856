"""Hooks as entries of a JSON settings file (entries/json_hooks.py): each a named element of
an event's array, put and removed without a byte of the user's changing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from skilltool.entries import EntryError, put_entry, read_entries, remove_entry

TABLE = ("hooks",)


def entry(command: str, event: str = "BeforeTool", matcher: str | None = None) -> dict[str, Any]:
    value: dict[str, Any] = {"event": event}
    if matcher is not None:
        value["matcher"] = matcher
    value["hooks"] = [{"type": "command", "command": command, "timeout": 9000}]
    return value


MINE = """{
  // my settings
  "mcpServers": {"docs": {"command": "docs"}},
  "hooks": {
    "BeforeTool": [
      {"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh"}]}
    ]
  }
}
"""


@pytest.mark.parametrize(
    "text",
    [
        "{}\n",
        '{\n  "general": {"vimMode": true}\n}\n',
        MINE,
        MINE.replace("\n", "\r\n"),
        '{\n  "hooks": {\n    "AfterAgent": []\n  }\n}\n',
    ],
    ids=["empty", "no-hooks", "the-users-hooks", "crlf", "other-event"],
)
def test_an_entry_put_then_removed_gives_the_file_back_byte_for_byte(text: str) -> None:
    value = entry("echo x", matcher="^(run_shell_command)$")
    put = put_entry(text, "json-hooks", TABLE, "team:PreToolUse-0-0", value)
    data = json.loads(put.text.replace("// my settings", ""))
    element = data["hooks"]["BeforeTool"][-1]
    assert element == {
        "matcher": "^(run_shell_command)$",
        "hooks": [{"name": "team:PreToolUse-0-0", "type": "command", "command": "echo x",
                   "timeout": 9000}],
    }  # fmt: skip
    assert read_entries(put.text, "json-hooks", TABLE) == {"team:PreToolUse-0-0": value}
    assert ("\r\n" in put.text) == ("\r\n" in text)
    back = remove_entry(put.text, "json-hooks", TABLE, "team:PreToolUse-0-0", put.created_table)
    assert back == text


def test_the_users_elements_are_no_entries_and_stay_as_they_are() -> None:
    text = put_entry(MINE, "json-hooks", TABLE, "a", entry("one")).text
    text = put_entry(text, "json-hooks", TABLE, "b", entry("two", "AfterAgent")).text
    assert set(read_entries(text, "json-hooks", TABLE) or {}) == {"a", "b"}
    # changed in place, then moved to another event
    changed = put_entry(text, "json-hooks", TABLE, "a", entry("uno")).text
    hooks = json.loads(changed.replace("// my settings", ""))["hooks"]
    assert [e["hooks"][0]["command"] for e in hooks["BeforeTool"]] == ["./lint.sh", "uno"]
    moved = put_entry(changed, "json-hooks", TABLE, "a", entry("uno", "AfterAgent")).text
    hooks = json.loads(moved.replace("// my settings", ""))["hooks"]
    assert [e["hooks"][0]["command"] for e in hooks["BeforeTool"]] == ["./lint.sh"]
    assert [e["hooks"][0]["command"] for e in hooks["AfterAgent"]] == ["two", "uno"]
    # the same value again: the same bytes
    assert put_entry(moved, "json-hooks", TABLE, "a", entry("uno", "AfterAgent")).text == moved
    gone = remove_entry(moved, "json-hooks", TABLE, "a", drop_table=False)
    assert remove_entry(gone, "json-hooks", TABLE, "b", drop_table=False) == MINE


def test_a_file_it_cannot_edit_exactly_is_an_error() -> None:
    with pytest.raises(EntryError):  # strict JSON: a trailing comma is Gemini's error too
        put_entry('{"hooks": {},}\n', "json-hooks", TABLE, "a", entry("x"))
    with pytest.raises(EntryError, match=r"hooks\.BeforeTool is not an array"):
        put_entry('{"hooks": {"BeforeTool": {}}}\n', "json-hooks", TABLE, "a", entry("x"))
    named = {"hooks": [{"name": "a", "type": "command", "command": "x"}]}
    twice = {"hooks": {"BeforeTool": [named, named]}}
    with pytest.raises(EntryError, match="two hooks are named 'a'"):
        read_entries(json.dumps(twice), "json-hooks", TABLE)
