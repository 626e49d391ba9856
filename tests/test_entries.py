"""Entries of a user's config file: every byte outside our entry is kept, and removal is exact."""

from __future__ import annotations

import json

import pytest
import tomlkit
import yaml

from skilltool.entries import (
    EntryError,
    entry_digest,
    fresh_text,
    put_entry,
    read_entries,
    remove_entry,
)

SERVER = {"command": "npx", "args": ["-y", "some-server"], "env": {"API_KEY": "x"}}

CODEX = ("toml", ("mcp_servers",))
GEMINI = ("json", ("mcpServers",))
OPENCODE = ("jsonc", ("mcp",))
HERMES = ("yaml", ("mcp_servers",))
CONTINUE = ("yaml-list", ("mcpServers",))  # a list of `- name: …` items

USER_FILES = [
    (*CODEX, ""),
    (*CODEX, 'model = "o3"\n'),
    (*CODEX, "[mcp_servers]\n"),
    (
        *CODEX,
        '# mine\r\nmodel = "o3"\r\n\r\n[mcp_servers.docs]\r\ncommand = "x"  # why\r\n\r\n'
        '[mcp_servers.docs.env]\r\nK = "v"\r\n\r\n# profiles\r\n[profiles.fast]\r\nmodel = "o4"',
    ),
    (*GEMINI, "{}"),
    (*GEMINI, "{}\n"),
    (*GEMINI, '{\n  "theme": "Dark"\n}\n'),
    (*GEMINI, '{"theme": "Dark"}'),
    (*GEMINI, '{\n\t"mcpServers": {\n\t\t"docs": {"command": "x"}\n\t} // mine\n}'),
    (*GEMINI, '{"mcpServers": {}}'),
    (*GEMINI, '\ufeff{\r\n  // mine\r\n  "theme": "Dark"\r\n}\r\n'),
    (*OPENCODE, '{\n  "theme": "Dark", // mine\n}\n'),
    (*OPENCODE, "{ /* nothing yet */ }"),
    (*HERMES, ""),
    (*HERMES, "model:\n  default: foo/bar  # mine\n"),
    (*HERMES, "mcp_servers: {}\n"),
    (*HERMES, "mcp_servers:\n  # none yet\nother: 1\n"),
    (*HERMES, "mcp_servers:\n  docs:\n    command: x\n    note: |\n      hi\n\n# end\n"),
    (*HERMES, "---\nmodel: x\n"),
    (*HERMES, "mcp_servers: {docs: {command: x}}"),
    (*CONTINUE, ""),
    (*CONTINUE, "name: Local  # mine\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: m\n"),
    (*CONTINUE, "mcpServers:\n  - name: docs  # mine\n    command: x\n\nprompts: []\n"),
    (*CONTINUE, "mcpServers:\n- name: docs\n  command: x\n  args: [a]\n"),
    (*CONTINUE, "mcpServers:\r\n  - name: docs\r\n    command: x\r\n# end\r\n"),
]


@pytest.mark.parametrize(("fmt", "table", "text"), USER_FILES)
def test_put_then_remove_gives_back_the_users_file(fmt, table, text):
    put = put_entry(text, fmt, table, "some-server", SERVER)

    assert read_entries(put.text, fmt, table)["some-server"] == SERVER
    assert remove_entry(put.text, fmt, table, "some-server", put.created_table) == text
    assert put_entry(put.text, fmt, table, "some-server", SERVER).text == put.text


@pytest.mark.parametrize(("fmt", "table"), [CODEX, GEMINI, OPENCODE, HERMES, CONTINUE])
def test_a_file_that_does_not_exist_gets_only_the_entry_and_returns_to_nothing(fmt, table):
    put = put_entry(None, fmt, table, "some-server", SERVER)

    assert put.created_table
    assert read_entries(put.text, fmt, table) == {"some-server": SERVER}
    assert remove_entry(put.text, fmt, table, "some-server", drop_table=True) == fresh_text(fmt)


def test_codex_gets_one_section_per_server_with_nested_tables_inline():
    text = put_entry('model = "o3"\n', *CODEX, "some-server", SERVER).text

    assert text == (
        'model = "o3"\n\n[mcp_servers.some-server]\ncommand = "npx"\n'
        'args = ["-y", "some-server"]\nenv = { API_KEY = "x" }\n'
    )
    assert tomlkit.parse(text).unwrap()["mcp_servers"]["some-server"] == SERVER


def test_an_entry_of_the_same_name_is_replaced_in_place():
    text = '[mcp_servers.a]\ncommand = "old"\n\n[mcp_servers.some-server]\ncommand = "old"\n\n[z]\nk = 1\n'

    put = put_entry(text, *CODEX, "a", SERVER)

    assert put.text.startswith('[mcp_servers.a]\ncommand = "npx"\nargs')
    assert put.text.endswith('\n\n[mcp_servers.some-server]\ncommand = "old"\n\n[z]\nk = 1\n')


def test_strict_json_stays_strict_json():
    text = put_entry('{"theme": "Dark"}\n', *GEMINI, "some-server", SERVER).text

    assert json.loads(text) == {"theme": "Dark", "mcpServers": {"some-server": SERVER}}


def test_hermes_yaml_reads_back_with_pyyaml():
    text = put_entry(
        "model:\n  default: x\n", *HERMES, "odd name: yes", {"args": ["on", "1", ""]}
    ).text

    assert yaml.safe_load(text)["mcp_servers"] == {"odd name: yes": {"args": ["on", "1", ""]}}


@pytest.mark.parametrize(
    ("fmt", "table", "text", "line", "words"),
    [
        (*CODEX, 'model = "o3"\n[mcp_servers.x\n', 2, "not TOML"),
        (*GEMINI, '{\n  "a": 1,\n}\n', 2, "trailing comma"),
        (*GEMINI, '{\n  "a": \n', 3, "ends too early"),
        (*GEMINI, '{"mcpServers": []}', 1, "not an object"),
        (*GEMINI, "[]", 1, "top level"),
        (*OPENCODE, "", 1, "no JSON value"),
        (*HERMES, "a: [\n", 2, "not YAML"),
        (*HERMES, "mcp_servers: {\n  # mine\n  a: 1}\n", 1, "comment inside a flow mapping"),
        (*HERMES, "mcp_servers: 3\n", 1, "not a mapping"),
        (*CONTINUE, "mcpServers: [{name: a, command: x}]\n", 1, "flow style"),
        (*CONTINUE, "mcpServers:\n  - name: a\n  - name: a\n", 1, "'a' twice"),
        (*CONTINUE, "mcpServers:\n  - command: x\n", 1, "no string name"),
        (*CONTINUE, "mcpServers:\n  docs: {}\n", 1, "not a list"),
        (*CODEX, "mcp_servers = { a = 1 }\n", 1, "inline table"),
        (*CODEX, "model = 'o3'\n\nmcp_servers = 3\n", 3, "mcp_servers is not a table"),
        (*CODEX, "[[mcp_servers]]\nname = 'a'\n", 1, "mcp_servers is not a table"),
    ],
)
def test_a_file_that_cannot_be_edited_exactly_is_an_error_with_its_line(
    fmt, table, text, line, words
):
    with pytest.raises(EntryError) as raised:
        put_entry(text, fmt, table, "some-server", SERVER)

    assert raised.value.line == line
    assert words in raised.value.message


def test_digest_compares_values_not_formatting():
    assert entry_digest({"b": [1], "a": "x"}) == entry_digest({"a": "x", "b": [1]})
    assert entry_digest({"a": "x"}) != entry_digest({"a": "y"})
    assert entry_digest({}).startswith("sha256:")


# The files as the harnesses write them themselves (`codex mcp add`, `gemini mcp add -s user`,
# `pi mcp add`, `copilot mcp add`, OpenCode's first run, Hermes's save_config), in their shapes.
CODEX_WRITES = (
    '[mcp_servers.mine]\ncommand = "/bin/echo"\nargs = ["hi", "there"]\n\n'
    '[mcp_servers.mine.env]\nA = "b"\n\n[mcp_servers.remote]\nurl = "http://127.0.0.1:9/mcp"\n'
)
GEMINI_WRITES = (
    '{\n  "mcpServers": {\n    "mine": {\n      "command": "/bin/echo",\n      "args": [\n'
    '        "hi"\n      ],\n      "env": {\n        "A": "b"\n      }\n    }\n  }\n}'
)
COPILOT_WRITES = (
    '{\n  "mcpServers": {\n    "mine": {\n      "tools": [\n        "*"\n      ],\n'
    '      "type": "local",\n      "command": "/bin/echo",\n      "args": [\n        "hi"\n      ]\n    }\n  }\n}\n'
)
OPENCODE_WRITES = '{\n  "$schema": "https://opencode.ai/config.json"\n}'
HERMES_WRITES = (
    "model:\n  default: foo/bar\n_config_version: 33\nmcp_servers:\n  mine:\n    command: /bin/echo\n"
    "    args:\n      - hi\n      - there\n    env:\n      A: b\n\n"
    "# ── Notes ──────────────\n# settings left out on purpose:\n#\n# security:\n#   redact: true\n"
)


@pytest.mark.parametrize(
    ("fmt", "table", "text"),
    [
        (*CODEX, CODEX_WRITES),
        (*GEMINI, GEMINI_WRITES),
        ("json", ("mcpServers",), COPILOT_WRITES),
        (*OPENCODE, OPENCODE_WRITES),
        (*HERMES, HERMES_WRITES),
    ],
)
def test_the_harnesses_own_files_round_trip(fmt, table, text):
    put = put_entry(text, fmt, table, "plugin-server", SERVER)

    assert not put.created_table or table == ("mcp",)
    assert set(read_entries(put.text, fmt, table)) >= {"plugin-server"}
    assert remove_entry(put.text, fmt, table, "plugin-server", put.created_table) == text


def test_a_server_joins_codex_servers_in_the_shape_codex_writes():
    text = put_entry(CODEX_WRITES, *CODEX, "plugin-server", SERVER).text

    assert text == CODEX_WRITES + (
        '\n[mcp_servers.plugin-server]\ncommand = "npx"\nargs = ["-y", "some-server"]\n'
        'env = { API_KEY = "x" }\n'
    )


def test_a_server_joins_gemini_servers_indented_like_gemini():
    text = put_entry(GEMINI_WRITES, *GEMINI, "plugin-server", {"command": "x", "args": ["a"]}).text

    assert text == GEMINI_WRITES.replace(
        "\n    }\n  }\n}",
        '\n    },\n    "plugin-server": {\n      "command": "x",\n      "args": [\n        "a"\n      ]\n    }\n  }\n}',
    )


def test_a_server_joins_hermes_servers_above_its_trailing_comments():
    text = put_entry(HERMES_WRITES, *HERMES, "plugin-server", {"command": "x", "args": ["a"]}).text

    assert text == HERMES_WRITES.replace(
        "      A: b\n", "      A: b\n  plugin-server:\n    command: x\n    args:\n      - a\n"
    )


def test_opencode_gets_its_mcp_table_after_the_schema():
    text = put_entry(
        OPENCODE_WRITES, *OPENCODE, "plugin-server", {"type": "local", "command": ["x"]}
    ).text

    assert text == (
        '{\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": {\n    "plugin-server": {\n'
        '      "type": "local",\n      "command": [\n        "x"\n      ]\n    }\n  }\n}'
    )


def test_digest_takes_what_a_users_toml_or_yaml_entry_may_hold():
    toml_entry = read_entries("[mcp_servers.x]\nsince = 2024-01-01\n", *CODEX)["x"]
    yaml_entry = read_entries("mcp_servers:\n  x:\n    1: one\n    b: 2024-01-01\n", *HERMES)["x"]

    assert entry_digest(toml_entry) != entry_digest({"since": "2024-01-02"})
    assert entry_digest(yaml_entry) == entry_digest({"1": "one", "b": "2024-01-01"})


def test_a_yaml_entry_whose_comment_holds_a_no_break_space_is_replaced_whole() -> None:
    """YAML's blanks are spaces and tabs: the U+00A0 is the comment's, and goes with it."""
    text = 'mcp_servers:\n  srv: {"command": "theirs"}  # note\xa0\nother: 1\n'
    put = put_entry(text, "yaml", ("mcp_servers",), "srv", {"command": "ours"})
    assert put.text == "mcp_servers:\n  srv:\n    command: ours\nother: 1\n"


@pytest.mark.parametrize(
    ("fmt", "text", "line", "said"),
    [
        # tomlkit says a key defined twice with no position, and not as a ParseError
        ("toml", '[t]\nx = 1\n[t.x]\ny = 2\n', 3, 'Key "x" already exists'),
        ("toml", '[mcp_servers]\n"k" = 1\nk = 2\n', 3, 'Key "k" already exists'),
        # PyYAML makes no date of 2001-02-30, and says so as a ValueError
        ("yaml", "model: x\nwhen: 2001-02-30\n", 2, "day is out of range"),
    ],
)  # fmt: skip
def test_a_file_that_parses_but_holds_no_value_is_an_error_with_its_line(
    fmt: str, text: str, line: int, said: str
) -> None:
    table = ("mcp_servers",)
    with pytest.raises(EntryError) as raised:
        put_entry(text, fmt, table, "web", {"command": "x"})  # type: ignore[arg-type]
    assert raised.value.line == line
    assert said in raised.value.message and raised.value.message.endswith("fix the file")


# --------------------------------------------------------------------------- YAML anchors

OURS = "mcp_servers:\n  mine:\n    command: x\n  srv:\n    command: ours\n"


@pytest.mark.parametrize(
    ("table", "text", "line", "said"),
    [
        # the table is an anchor another key repeats: our entry would appear under both
        (("mcp_servers",), "mcp_servers: &s\n  mine:\n    command: x\nbackup: *s\n", 1,
         "mcp_servers is shared through a YAML anchor and alias (lines 1 and 4)"),
        # the table is itself an alias: the edit would land in the anchored mapping
        (("mcp_servers",), "base: &b\n  mine:\n    command: x\nmcp_servers: *b\n", 4,
         "mcp_servers is shared through a YAML anchor and alias (lines 1 and 4)"),
        # a mapping on the way to the table is shared
        (("tools", "mcp"), "tools: &t\n  mcp:\n    mine: {command: x}\nold: *t\n", 1,
         "tools is shared through a YAML anchor and alias (lines 1 and 4)"),
        # an empty table that is an anchor: the alias would gain the entry too
        (("mcp_servers",), "mcp_servers: &s {}\nbackup: *s\n", 1,
         "mcp_servers is shared through a YAML anchor and alias (lines 1 and 2)"),
        # the table takes keys from another mapping: which one holds an entry is not clear
        (("mcp_servers",), "base: &b\n  mine:\n    command: x\nmcp_servers:\n  <<: *b\n", 5,
         "mcp_servers takes entries from another mapping with a merge key (<<)"),
    ],
)  # fmt: skip
def test_a_yaml_mapping_shared_through_an_anchor_is_not_edited(
    table: tuple[str, ...], text: str, line: int, said: str
) -> None:
    with pytest.raises(EntryError) as raised:
        put_entry(text, "yaml", table, "srv", {"command": "ours"})
    assert raised.value.line == line
    assert raised.value.message.startswith(said)
    assert raised.value.message.endswith("edit the file by hand")


def test_an_entry_in_a_shared_yaml_mapping_is_not_removed() -> None:
    text = OURS.replace("mcp_servers:", "mcp_servers: &s") + "backup: *s\n"
    with pytest.raises(EntryError) as raised:
        remove_entry(text, "yaml", ("mcp_servers",), "srv", drop_table=False)
    assert "shared through a YAML anchor and alias" in raised.value.message


def test_an_anchor_no_alias_repeats_is_edited_and_kept() -> None:
    text = "mcp_servers: &s\n  mine:\n    command: x\nother: &o 1\nagain: *o\n"
    put = put_entry(text, "yaml", ("mcp_servers",), "srv", {"command": "ours"})
    assert put.text.startswith("mcp_servers: &s\n")
    assert yaml.safe_load(put.text)["mcp_servers"]["srv"] == {"command": "ours"}
    assert remove_entry(put.text, "yaml", ("mcp_servers",), "srv", drop_table=False) == text


def test_an_item_of_a_yaml_list_is_replaced_in_its_place_and_the_others_stay() -> None:
    text = "mcpServers:\n  - name: some-server  # old\n    command: y\n  - name: docs\n    command: x  # mine\n"
    put = put_entry(text, *CONTINUE, "some-server", SERVER)

    assert put.text.startswith("mcpServers:\n  - name: some-server\n    command: npx\n")
    assert put.text.endswith("  - name: docs\n    command: x  # mine\n")
    assert list(read_entries(put.text, *CONTINUE)) == ["some-server", "docs"]  # type: ignore[arg-type]
    assert remove_entry(put.text, *CONTINUE, "some-server", False) == (  # type: ignore[arg-type]
        "mcpServers:\n  - name: docs\n    command: x  # mine\n"
    )


# --------------------------------------------------------------------------- comments kept

NEW = {"command": "npx", "args": ["-y", "other-server"], "cwd": "/srv"}  # env gone, cwd new


@pytest.mark.parametrize(
    ("fmt", "table", "text", "comments"),
    [
        (*CODEX,
         '[mcp_servers.some-server]  # from the demo plugin\n# runs the docs server\n'
         'command = "npx"\nargs = ["-y", "some-server"]  # pinned\nenv = { API_KEY = "x" }\n'
         "\n[other]\nk = 1\n",
         ["  # from the demo plugin\n# runs the docs server\n", "  # pinned\n"]),
        ("toml-array", ("mcp_servers",),
         '[[mcp_servers]]  # from the demo plugin\nname = "some-server"\n# runs the docs server\n'
         'command = "npx"\nargs = ["-y", "some-server"]  # pinned\nenv = { API_KEY = "x" }\n',
         ["  # from the demo plugin\n", "# runs the docs server\n", "  # pinned\n"]),
        (*OPENCODE,
         '{\n  "mcp": {\n    "some-server": {\n      // runs the docs server\n'
         '      "command": "npx",\n      "args": ["-y", "some-server"], // pinned\n'
         '      "env": {"API_KEY": "x"}\n    }\n  }\n}\n',
         ["      // runs the docs server\n", ", // pinned\n"]),
        (*GEMINI,
         '{\n  "mcpServers": {\n    "some-server": {\n      /* runs the docs server */\n'
         '      "command": "npx",\n      "env": {\n        // the key\n        "API_KEY": "x"\n'
         '      },\n      "args": ["-y", "some-server"]\n    }\n  }\n}\n',
         ["      /* runs the docs server */\n"]),
    ],
)  # fmt: skip
def test_a_comment_inside_an_entry_survives_its_update(
    fmt: str, table: tuple[str, ...], text: str, comments: list[str]
) -> None:
    put = put_entry(text, fmt, table, "some-server", NEW)  # type: ignore[arg-type]

    assert read_entries(put.text, fmt, table)["some-server"] == NEW  # type: ignore[arg-type,index]
    for comment in comments:
        assert comment in put.text
    assert put_entry(put.text, fmt, table, "some-server", NEW).text == put.text  # type: ignore[arg-type]
