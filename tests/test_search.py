"""`plugins search`: the catalogues of the marketplaces added, read from disk only: each
entry's name, description and keywords; whether it is installed; how to add it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.gitrepos import Repo, isolate_git, plugin_files
from tests.helpers import run


@pytest.fixture(autouse=True)
def _git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate_git(tmp_path, monkeypatch)


@pytest.fixture
def markets(tmp_path: Path) -> tuple[Repo, Repo, Repo]:
    """Two marketplaces: `docs` with two plugins of its own tree and one remote, `misc`
    with one; and the repository `docs`'s remote entry comes from."""
    elsewhere = Repo(tmp_path, "pdf-reader")
    elsewhere.commit(plugin_files("pdf-reader", ("read-pdf",)))
    elsewhere.push()
    pdf = plugin_files("pdf-tools", ("pdf-fill",), prefix="pdf-tools/")
    pdf["pdf-tools/.claude-plugin/plugin.json"] = json.dumps(
        {"name": "pdf-tools", "description": "Fill and merge forms", "keywords": ["Acrobat"]}
    )
    sheets = plugin_files("sheets", ("xlsx",), prefix="sheets/")
    docs = Repo(tmp_path, "docs")
    docs.commit(
        {
            **pdf,
            **sheets,
            ".claude-plugin/marketplace.json": json.dumps(
                {
                    "name": "docs",
                    "owner": {"name": "T"},
                    "plugins": [
                        {"name": "pdf-tools", "source": "./pdf-tools"},
                        {
                            "name": "sheets",
                            "source": "./sheets",
                            "description": "Spreadsheets, tables and CSV",
                            "tags": ["excel"],
                        },
                        {
                            "name": "pdf-reader",
                            "source": {"source": "url", "url": elsewhere.url},
                            "description": "Read a PDF aloud",
                        },
                        {
                            "name": "from-npm",
                            "source": {"source": "npm", "package": "@x/pdf"},
                            "description": "PDF by npm",
                        },
                    ],
                }
            ),
        }
    )
    docs.push()
    misc = Repo(tmp_path, "misc")
    misc.commit(
        {
            **plugin_files("notes", ("jot",), prefix="notes/"),
            ".claude-plugin/marketplace.json": json.dumps(
                {
                    "name": "misc",
                    "owner": {"name": "T"},
                    "plugins": [
                        {"name": "notes", "source": "./notes", "description": "Notes, not PDF"}
                    ],
                }
            ),
        }
    )
    misc.push()
    return docs, misc, elsewhere


def test_no_marketplace_added_is_one_line_saying_how_to_add_one(home: Path) -> None:
    done = run("plugins", "search", "pdf")
    assert done.code == 0
    assert done.lines == [
        "none      no marketplace is added: add one with 'skilltool plugins add OWNER/REPO' "
        "(a repository with .claude-plugin/marketplace.json), then search again"
    ]
    data = json.loads(run("plugins", "search", "pdf", "--json").stdout)
    assert data["marketplaces"] == [] and data["hits"] == []


def test_hits_across_marketplaces_with_their_state(
    home: Path, markets: tuple[Repo, Repo, Repo]
) -> None:
    docs, misc, _ = markets
    assert run("plugins", "add", docs.url, "--plugin", "sheets").code == 0
    assert run("plugins", "add", misc.url).code == 0  # nothing picked
    done = run("plugins", "search", "PDF")
    assert done.code == 0, done.stderr
    assert done.lines == [
        # a word in the name first, then in the marketplaces' order
        "pdf-tools@docs   Fill and merge forms  (not installed)",
        "pdf-reader@docs  Read a PDF aloud  "
        "(remote: fetch with skilltool plugins add pdf-reader@docs)",
        "from-npm@docs    PDF by npm  (remote: fetch with skilltool plugins add from-npm@docs)",
        "notes@misc       Notes, not PDF  (not installed)",
        "found     4 plugin(s) matching 'PDF' in 2 marketplaces",
    ]
    # every word must be there: in the name, the description, or the keywords and tags
    assert [ln.split()[0] for ln in run("plugins", "search", "acrobat", "fill").lines] == [
        "pdf-tools@docs",
        "found",
    ]
    assert run("plugins", "search", "EXCEL").lines[0] == (
        "sheets@docs  Spreadsheets, tables and CSV  (installed)"
    )
    assert run("plugins", "search", "nothing-like-it").lines == [
        "found     no plugin matching 'nothing-like-it' in 2 marketplaces"
    ]


def test_a_remote_entry_added_is_installed(home: Path, markets: tuple[Repo, Repo, Repo]) -> None:
    docs, _, _ = markets
    assert run("plugins", "add", docs.url, "--plugin", "pdf-tools").code == 0
    assert run("plugins", "add", "pdf-reader@docs").code == 0
    data = json.loads(run("plugins", "search", "pdf", "--json").stdout)
    states = {h["name"]: (h["state"], h["add"]) for h in data["hits"]}
    assert states == {
        "pdf-tools": ("installed", None),
        "pdf-reader": ("installed", None),
        "from-npm": ("remote", "skilltool plugins add from-npm@docs"),
    }
    assert data["marketplaces"][0]["name"] == "docs"
    hit = next(h for h in data["hits"] if h["name"] == "pdf-tools")
    assert hit["description"] == "Fill and merge forms" and hit["keywords"] == ["Acrobat"]


def test_search_reads_only_the_disk(
    home: Path, markets: tuple[Repo, Repo, Repo], tmp_path: Path
) -> None:
    """The remotes gone, the search answers the same: it fetches nothing."""
    docs, misc, _ = markets
    assert run("plugins", "add", docs.url, "--all").code == 0
    before = run("plugins", "search", "pdf").stdout
    for remote in (tmp_path / "remotes").iterdir():
        remote.rename(remote.with_name(remote.name + ".gone"))
    after = run("plugins", "search", "pdf")
    assert after.code == 0 and after.stdout == before


def test_a_source_not_checked_out_is_said_and_skipped(
    home: Path, markets: tuple[Repo, Repo, Repo]
) -> None:
    docs, _, _ = markets
    assert run("plugins", "add", docs.url, "--all").code == 0
    lock = home / ".local/share/skilltool/plugins.lock"
    lock.write_text(lock.read_text().replace("[sources.docs]", "[sources.docs-too]"))
    done = run("plugins", "search", "pdf")
    assert done.code == 0
    assert done.stderr.startswith("skipped   docs-too: not checked out here")
    assert done.lines[0].startswith("none      no marketplace is added")


def test_claudes_official_marketplace_is_searched_without_adding_it(
    home: Path, tmp_path: Path, _git: Path
) -> None:
    """The marketplace Claude Code knows by name is searched though not added (here a local
    copy that git's `insteadOf` stands in for), from its listing alone, kept a day in the
    cache: a second search finds it with the remote gone; no lockfile is written."""
    official = Repo(tmp_path, "claude-plugins-official")
    official.commit(
        {
            **plugin_files("pyright-lsp", (), prefix="plugins/pyright-lsp/"),
            ".claude-plugin/marketplace.json": json.dumps(
                {
                    "name": "claude-plugins-official",
                    "owner": {"name": "Anthropic"},
                    "plugins": [
                        {
                            "name": "pyright-lsp",
                            "source": "./plugins/pyright-lsp",
                            "description": "Python language server",
                        }
                    ],
                }
            ),
        }
    )
    official.push()
    _git.write_text(
        _git.read_text() + f'[url "{official.url}"]\n\tinsteadOf = '
        "https://github.com/anthropics/claude-plugins-official.git\n"
    )
    done = run("plugins", "search", "python")
    assert done.code == 0, done.stderr
    assert done.lines[0] == (
        "pyright-lsp@claude-plugins-official  Python language server  (not installed)"
    )
    assert not (home / ".local/share/skilltool/plugins.lock").exists()
    _git.write_text(_git.read_text().replace(official.url, "file:///gone"))
    again = json.loads(run("plugins", "search", "python", "--json").stdout)
    assert [h["name"] for h in again["hits"]] == ["pyright-lsp"]
    assert again["marketplaces"][0]["added"] is False
