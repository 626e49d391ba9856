"""A marketplace installs what is picked: `--plugin`, `--all`, a choice on a terminal, or,
without one, nothing (the marketplace recorded, and the lines saying how to pick)."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitrepos import Repo, isolate_git, plugin_files
from tests.helpers import run
from tests.test_sources import links, lock, marketplace


def added(home: Path) -> set[str]:
    """The skills linked from added sources (not the bundled plugin's)."""
    return {name for name, to in links(home).items() if "/resources/plugins/" not in to}


@pytest.fixture(autouse=True)
def _git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate_git(tmp_path, monkeypatch)


@pytest.fixture
def market(tmp_path: Path) -> Repo:
    elsewhere = Repo(tmp_path, "elsewhere")
    elsewhere.commit(plugin_files("tools", ("gamma",)))
    elsewhere.push()
    return marketplace(tmp_path, elsewhere)


def test_without_a_terminal_nothing_is_installed_and_the_lines_say_how_to_pick(
    home: Path, market: Repo
) -> None:
    result = run("plugins", "add", market.url)
    assert result.code == 0, result.stderr
    assert added(home) == set()
    assert lock(home)["market"]["plugins"] == []  # recorded, none picked
    assert (
        "added     market "
        f"{market.url} @ {market.head()[:12]} "
        "(a marketplace: none of its plugins picked, nothing installed)"
    ) in result.lines
    assert "offers    market: 2 plugin(s)" in result.lines
    assert any(
        line.split()[:2] == ["1", "alpha-tools"] and line.endswith("[1 skill]")
        for line in result.lines
    ), result.stdout
    assert (
        "pick      none installed: add --plugin NAME (repeatable) or --all, or "
        "'skilltool plugins add NAME@market'"
    ) in result.lines
    # a later add names one; PLUGIN@MARKETPLACE another
    more = run("plugins", "add", market.url, "--plugin", "beta-tools")
    assert more.code == 0, more.stderr
    assert lock(home)["market"]["plugins"] == ["beta-tools"]
    assert added(home) == {"beta"}
    assert run("plugins", "add", "alpha-tools@market").code == 0
    assert lock(home)["market"]["plugins"] == ["beta-tools", "alpha-tools"]
    assert added(home) == {"alpha", "beta"}


def test_all_installs_every_plugin_of_the_marketplace(home: Path, market: Repo) -> None:
    result = run("plugins", "add", market.url, "--all")
    assert result.code == 0, result.stderr
    assert added(home) == {"alpha", "beta"}
    assert "plugins" not in lock(home)["market"]  # all of it, as before


def test_a_large_marketplace_added_whole_names_a_few_plugins_and_says_where_the_rest_are(
    home: Path, tmp_path: Path
) -> None:
    big = Repo(tmp_path, "big")
    names = [f"p{n:02d}" for n in range(12)]
    files: dict[str, str | bytes] = {}
    for name in names:
        files.update(plugin_files(name, (f"{name}-skill",), prefix=f"{name}/"))
    entries = [{"name": name, "source": f"./{name}"} for name in names]
    files[".claude-plugin/marketplace.json"] = json.dumps(
        {"name": "big", "owner": {"name": "T"}, "plugins": entries}
    )
    big.commit(files)
    big.push()
    result = run("plugins", "add", big.url, "--all")
    assert result.code == 0, result.stderr
    [line] = [line for line in result.lines if line.startswith("added ")]
    assert line.endswith(
        "(12 plugin(s): p00, p01, p02, p03, p04, p05 and 6 more: see 'skilltool plugins list')"
    )
    listed = run("plugins", "list").stdout
    assert all(f"{name} " in listed for name in names)


def _on_a_terminal(args: list[str], answer: str, home: Path) -> tuple[int, str]:
    """skilltool run with a pseudo-terminal for stdin and stdout: `answer` typed at the
    prompt; its exit code and what the terminal showed."""
    main, other = pty.openpty()
    env = {**os.environ, "HOME": str(home), "COLUMNS": "200"}
    child = subprocess.Popen(
        [sys.executable, "-m", "skilltool", *args],
        stdin=other,
        stdout=other,
        stderr=subprocess.PIPE,
        env=env,
    )
    os.close(other)
    shown = b""
    while b"pick      " not in shown:
        ready, _, _ = select.select([main], [], [], 30)
        assert ready, f"no prompt: {shown!r}"
        shown += os.read(main, 4096)
    os.write(main, answer.encode() + b"\n")
    while True:
        ready, _, _ = select.select([main], [], [], 30)
        try:
            chunk = os.read(main, 4096) if ready else b""
        except OSError:  # the child closed the terminal
            chunk = b""
        if not chunk:
            break
        shown += chunk
    code = child.wait(30)
    os.close(main)
    return code, shown.decode("utf-8", "replace")


def test_on_a_terminal_the_user_picks(home: Path, market: Repo) -> None:
    code, shown = _on_a_terminal(["plugins", "add", market.url], "2", home)
    assert code == 0, shown
    assert "alpha-tools" in shown and "beta-tools" in shown  # listed before the question
    assert added(home) == {"beta"}
    assert lock(home)["market"]["plugins"] == ["beta-tools"]


def test_on_a_terminal_an_unknown_answer_adds_nothing(home: Path, market: Repo) -> None:
    code, shown = _on_a_terminal(["plugins", "add", market.url], "gamma-tools", home)
    assert code == 2
    assert not (home / ".local/share/skilltool/plugins.lock").exists()
    assert added(home) == set()


def test_json_says_what_the_marketplace_offers(home: Path, market: Repo) -> None:
    import json

    result = run("plugins", "add", market.url, "--json")
    assert result.code == 0, result.stderr
    notes = json.loads(result.stdout)["notes"]
    assert "offers    market: 2 plugin(s)" in notes
    assert added(home) == set()
