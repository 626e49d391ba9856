"""The registry: a harness not set up is a stand-in that answers as the harness would."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from skilltool.harnesses import NAMES, ROOTS, NotSetUp, harnesses, load
from skilltool.model import Agent
from skilltool.paths import Home
from tests.helpers import HARNESS_DIRS, plugin_tree, run

AGENT = Agent("helper", Path("/p/agents/helper.md"), "Helps.", "Body.\n", tools=("Read", "Bash"))


def test_every_harness_has_a_root_in_the_registry() -> None:
    assert tuple(ROOTS) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_a_harness_not_set_up_answers_as_its_class(name: str, home: Path) -> None:
    where = Home(home, explicit=True)
    stand_in = harnesses(where)[NAMES.index(name)]
    real = load(name)(where)
    assert isinstance(stand_in, NotSetUp)
    assert (stand_in.name, stand_in.root(), stand_in.absent(AGENT)) == (
        real.name,
        real.root(),
        real.absent(AGENT),
    )
    # anything else is the harness's own answer
    assert stand_in.title == real.title
    assert stand_in.tools_note(AGENT) == real.tools_note(AGENT)
    assert stand_in.mcp_place() == real.mcp_place()
    assert copy.copy(stand_in).root() == real.root()
    # set up since: a run's harnesses keep the answer its plan was made with; the next
    # run's is the harness itself, which no longer says it is absent
    said = stand_in.absent(AGENT)
    (home / HARNESS_DIRS[name]).mkdir(parents=True)
    assert stand_in.absent(AGENT) == real.absent(AGENT) == said
    again = harnesses(where)[NAMES.index(name)]
    assert not isinstance(again, NotSetUp)
    assert again.absent(AGENT) == load(name)(where).absent(AGENT) != said


def test_a_harness_is_found_where_its_variable_points(home: Path, tmp_path: Path) -> None:
    plugin_tree(home / ".local/share/skilltool/plugins", "team", agents=("helper",))
    elsewhere = tmp_path / "codex-home"
    elsewhere.mkdir()
    result = run("plugins", "install", env={"CODEX_HOME": str(elsewhere)})
    assert result.code == 0, result.stderr
    assert (elsewhere / "skilltool/helper.md").is_file()
    assert not (home / ".codex").exists()


def test_status_reports_an_edited_rendering_beside_harnesses_not_set_up(home: Path) -> None:
    plugin_tree(home / ".local/share/skilltool/plugins", "team", agents=("helper",))
    (home / ".codex").mkdir()
    assert run("plugins", "install").code == 0
    rendered = home / ".codex/skilltool/helper.md"
    rendered.write_text(rendered.read_text() + "\nA line of my own.\n")
    lines = run("plugins", "status", "-v").stdout.splitlines()
    codex = [ln.split() for ln in lines if ln.split()[:1] == ["codex"]]
    assert ["codex", "edited", "~/.codex/skilltool/helper.md"] in [c[:3] for c in codex]
    [absent] = [ln for ln in lines if ln.startswith("absent    ")]
    assert "gemini" in absent.split(": ", 1)[1].split(", ")
    # without -v, the plugin's line counts the edit, and the edit is said under it
    short = run("plugins", "status").lines
    assert "plugin    team (user): 1 agent: 1 problem" in short
    assert any(ln.startswith("  left      ~/.codex/skilltool/helper.md: ") for ln in short)
    (home / ".gemini").mkdir()  # set up now: its rendering is due
    lines = run("plugins", "status", "-v").stdout.splitlines()
    assert any(ln.split()[:2] == ["gemini", "missing"] for ln in lines), lines
