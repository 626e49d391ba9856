"""Auggie: its subagent files, commands and MCP entries as skilltool writes them, and what it
says of commands and skills it cannot take as written (tests/conformance/test_auggie.py
proves these in the binary)."""

from __future__ import annotations

from pathlib import Path

import yaml

from skilltool.harnesses.auggie import Auggie, auggie_name
from skilltool.model import McpServer
from skilltool.parse import read_skill
from skilltool.paths import Home
from tests.harnesses.test_renderings import tricky_agent
from tests.helpers import build_file_tree

SRC = Path("/plugin/.mcp.json")


def auggie(home: Path) -> Auggie:
    return Auggie(Home(home, explicit=True))


def test_an_agent_is_its_name_description_and_body(home: Path, tmp_path: Path) -> None:
    [rendering] = auggie(home).render(tricky_agent(tmp_path))
    assert rendering.target == home / ".augment/agents/tricky.md"
    text = rendering.content.decode("utf-8")
    fields = yaml.safe_load(text.split("---\n")[1])
    assert set(fields) == {"name", "description"}  # no tools or model it is not proven to take
    assert text.endswith("no final newline")


def test_placeholders_are_counted_from_one_and_braces_are_refused(home: Path) -> None:
    harness = auggie(home)
    assert harness.translate_command("Plain.\n") == ("Plain.\n", "")
    every = harness.translate_command("Review $ARGUMENTS.\n")
    assert every.body == "Review $ARGUMENTS.\n" and "nothing is typed" in every.why
    words = harness.translate_command("Compare $0 with $ARGUMENTS[1].\n")
    assert words.body == "Compare $1 with $2.\n" and "missing argument" in words.why
    braces = harness.translate_command("Print f'{name}'.\n")
    assert braces.body is None and "'{name}'" in braces.why
    amount = harness.translate_command("It costs $150.\n")
    assert amount.body is None and "'$150'" in amount.why


def test_servers_go_to_settings_json_and_a_cwd_is_refused(home: Path) -> None:
    harness = auggie(home)
    place = harness.mcp_place()
    assert place is not None and place.path == home / ".augment/settings.json"
    stdio = McpServer("srv", SRC, "stdio", command="srv", args=("-v",))
    assert harness.mcp_value(stdio) == {"type": "stdio", "command": "srv", "args": ["-v"]}
    remote = McpServer("web", SRC, "http", url="https://h.invalid/mcp")
    assert harness.mcp_value(remote) == {"type": "http", "url": "https://h.invalid/mcp"}
    in_dir = harness.mcp_value(McpServer("d", SRC, "stdio", command="srv", cwd="/tmp"))
    assert getattr(in_dir, "skips", False)


def test_skill_names_and_descriptions_it_leaves_out(home: Path, tmp_path: Path) -> None:
    harness = auggie(home)
    root = build_file_tree(
        tmp_path / "skills",
        {
            "double/SKILL.md": "---\nname: a--b\ndescription: D.\n---\nB.\n",
            "edge/SKILL.md": "---\nname: -edge\ndescription: D.\n---\nB.\n",
            "long/SKILL.md": f"---\nname: long\ndescription: {'d' * 1025}\n---\nB.\n",
            "fine/SKILL.md": "---\nname: fine\ndescription: D.\n---\nB.\n",
        },
    )
    said = {}
    for folder in root.iterdir():
        skill = read_skill(folder)[0]
        assert skill is not None
        said[folder.name] = harness.skill_verdict(skill)
    assert said["fine"] is None
    assert said["double"] == (True, "name is not lowercase letters, digits and single hyphens")
    assert said["edge"] == (True, "name is not lowercase letters, digits and single hyphens")
    assert said["long"] == (True, "description is longer than 1024 characters")


def test_an_agent_name_with_other_characters_is_said_as_auggie_offers_it() -> None:
    assert auggie_name("my.agent") == "my-agent"
    assert auggie_name(" Two  words ") == "Two-words"
    assert auggie_name("plugin-author") == "plugin-author"
