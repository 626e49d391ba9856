"""cache: parsed files are reused only while their stat is unchanged."""

from __future__ import annotations

import os
from pathlib import Path

from skilltool import parse
from skilltool.cache import ParseCache
from tests.helpers import agent_md, build_file_tree


def test_an_unchanged_file_is_not_parsed_again_and_a_changed_one_is(
    tmp_path: Path, monkeypatch
) -> None:
    build_file_tree(tmp_path, {"agents/a.md": agent_md("a")})
    store = tmp_path / "parsed.marshal"
    first = ParseCache(store)
    agent, _ = first.read_agent(tmp_path / "agents/a.md")
    assert agent is not None
    first.save()
    calls: list[Path] = []
    real = parse.read_agent
    monkeypatch.setattr(parse, "read_agent", lambda p: (calls.append(p), real(p))[1])
    again, _ = ParseCache(store).read_agent(tmp_path / "agents/a.md")
    assert again == agent and calls == []
    (tmp_path / "agents/a.md").write_text(agent_md("a", body="Changed.\n"))
    os.utime(tmp_path / "agents/a.md", ns=(1, 1))
    changed, _ = ParseCache(store).read_agent(tmp_path / "agents/a.md")
    assert changed is not None and changed.body == "Changed.\n" and len(calls) == 1


def test_a_damaged_cache_costs_only_time(tmp_path: Path) -> None:
    store = tmp_path / "parsed.marshal"
    store.write_bytes(b"\x00not marshal")
    build_file_tree(tmp_path, {"agents/a.md": agent_md("a")})
    agent, problems = ParseCache(store).read_agent(tmp_path / "agents/a.md")
    assert agent is not None and problems == []
