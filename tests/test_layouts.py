"""The layouts real repositories use (SPEC §2): marketplaces, component paths in plugin.json,
skill collections, single skills, hidden folders; what `status` and `validate` say of each.

Every fixture is written here, in the shape the public repositories have.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skilltool import discover, parse
from skilltool.model import Catalogue, SearchEntry
from tests.helpers import agent_md, build_file_tree, run, skill_md

Tree = dict[str, str | bytes | Path]


def _catalogue(*paths: Path) -> Catalogue:
    return discover.discover([SearchEntry(p, "override") for p in paths])


def _names(catalogue: Catalogue) -> dict[str, tuple[list[str], list[str]]]:
    return {
        p.name: (sorted(s.name for s in p.skills), sorted(a.name for a in p.agents))
        for p in catalogue.plugins
    }


def _messages(catalogue: Catalogue) -> list[str]:
    found = list(catalogue.problems) + [q for p in catalogue.plugins for q in p.problems]
    return [str(p) for p in found]


def _status(*paths: Path) -> dict[str, Any]:
    env = {"SKILLTOOL_PLUGINS": ":".join(str(p) for p in paths)}
    result = run("plugins", "status", "--json", env=env)
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def _manifest(name: str, **fields: object) -> str:
    return json.dumps({"name": name, "version": "1.0.0", **fields}, indent=2) + "\n"


def _marketplace(plugins: list[dict[str, Any]], **fields: object) -> str:
    data = {"name": "acme-tools", "owner": {"name": "Acme"}, **fields, "plugins": plugins}
    return json.dumps(data, indent=2) + "\n"


# --- marketplaces --------------------------------------------------------------------------------


@pytest.fixture
def market(tmp_path: Path) -> Path:
    """An official-marketplace shape: plugins under plugins/, two entries sharing ./ with
    strict:false skill lists, a remote github entry and a url entry."""
    root = tmp_path / "acme"
    entries: list[dict[str, Any]] = [
        {"name": "code-review", "source": "./plugins/code-review", "description": "Reviews"},
        {"name": "pr-tools", "source": "./plugins/pr-tools"},
        {
            "name": "document-skills",
            "source": "./",
            "strict": False,
            "skills": ["./skills/xlsx", "./skills/docx"],
        },
        {"name": "example-skills", "source": "./", "strict": False, "skills": ["./skills/brand"]},
        {"name": "far-away", "source": {"source": "github", "repo": "acme/far-away"}},
        {"name": "tarball", "source": {"source": "url", "url": "https://example.com/x.git"}},
    ]
    build_file_tree(
        root,
        {
            ".claude-plugin/marketplace.json": _marketplace(entries),
            "README.md": "# Acme tools\n",
            "plugins/code-review/.claude-plugin/plugin.json": _manifest("code-review"),
            "plugins/code-review/agents/reviewer.md": agent_md("reviewer"),
            "plugins/code-review/commands/review.md": "---\ndescription: Review\n---\nReview $ARGUMENTS\n",
            "plugins/pr-tools/.claude-plugin/plugin.json": _manifest("pr-tools"),
            "plugins/pr-tools/skills/pr-summary/SKILL.md": skill_md("pr-summary"),
            "skills/xlsx/SKILL.md": skill_md("xlsx"),
            "skills/docx/SKILL.md": skill_md("docx"),
            "skills/brand/SKILL.md": skill_md("brand"),
            "skills/unlisted/SKILL.md": skill_md("unlisted"),
        },
    )
    return root


def test_a_marketplace_yields_each_local_entry_under_its_name(market: Path) -> None:
    catalogue = _catalogue(market)
    assert _names(catalogue) == {
        "code-review": ([], ["reviewer"]),
        "pr-tools": (["pr-summary"], []),
        "document-skills": (["docx", "xlsx"], []),
        "example-skills": (["brand"], []),
    }
    assert {p.kind for p in catalogue.plugins} == {"marketplace plugin"}
    assert {p.marketplace for p in catalogue.plugins} == {"acme-tools"}
    assert _messages(catalogue) == []
    [code_review] = [p for p in catalogue.plugins if p.name == "code-review"]
    assert code_review.commands == (market / "plugins/code-review/commands",)


def test_status_lists_remote_entries_as_not_fetched_with_the_command(market: Path) -> None:
    data = _status(market)
    assert data["search_path"][0]["layout"] == "marketplace"
    assert [(r["name"], r["command"]) for r in data["not_fetched"]] == [
        ("far-away", "skilltool plugins add far-away@acme-tools"),
        ("tarball", "skilltool plugins add tarball@acme-tools"),
    ]
    assert data["not_fetched"][0]["source"] == {"source": "github", "repo": "acme/far-away"}
    kinds = {p["name"]: (p["kind"], p["marketplace"]) for p in data["plugins"]}
    assert kinds["document-skills"] == ("marketplace plugin", "acme-tools")

    text = run("plugins", "status", "-v", env={"SKILLTOOL_PLUGINS": str(market)}).stdout
    assert f"search    override {market} (marketplace)" in text
    assert (
        f"plugin    pr-tools (override, marketplace acme-tools) {market}/plugins/pr-tools: " in text
    )
    assert (
        "remote    far-away (marketplace acme-tools): not fetched; "
        "fetch it with: skilltool plugins add far-away@acme-tools"
    ) in text


def test_plugin_root_is_prepended_to_bare_names_only(tmp_path: Path) -> None:
    entries = [{"name": "bare", "source": "bare"}, {"name": "dotted", "source": "./dotted"}]
    root = build_file_tree(
        tmp_path / "m",
        {
            ".claude-plugin/marketplace.json": _marketplace(
                entries, metadata={"pluginRoot": "./plugins"}
            ),
            "plugins/bare/skills/in-root/SKILL.md": skill_md("in-root"),
            "dotted/skills/at-top/SKILL.md": skill_md("at-top"),
            "plugins/dotted/skills/not-this/SKILL.md": skill_md("not-this"),
        },
    )
    assert _names(_catalogue(root)) == {"bare": (["in-root"], []), "dotted": (["at-top"], [])}


def test_a_bare_name_without_plugin_root_is_a_problem(tmp_path: Path) -> None:
    entries = [{"name": "bare", "source": "bare"}]
    root = build_file_tree(
        tmp_path / "m",
        {
            ".claude-plugin/marketplace.json": _marketplace(entries),
            "bare/skills/s/SKILL.md": skill_md("s"),
        },
    )
    catalogue = _catalogue(root)
    assert catalogue.plugins == ()
    [message] = _messages(catalogue)
    assert message.startswith(f"{root}/.claude-plugin/marketplace.json:7: plugins[0].source: ")
    assert 'must start with "./"' in message and "pluginRoot" in message


def test_a_source_leaving_the_marketplace_is_refused(tmp_path: Path) -> None:
    build_file_tree(tmp_path / "outside/skills/theirs", {"SKILL.md": skill_md("theirs")})
    entries = [{"name": "escape", "source": "./../outside"}, {"name": "ok", "source": "./ok"}]
    root = build_file_tree(
        tmp_path / "m",
        {
            ".claude-plugin/marketplace.json": _marketplace(entries),
            "ok/skills/mine/SKILL.md": skill_md("mine"),
        },
    )
    catalogue = _catalogue(root)
    assert _names(catalogue) == {"ok": (["mine"], [])}
    [message] = _messages(catalogue)
    assert "leads outside the marketplace" in message
    assert message.startswith(f"{root}/.claude-plugin/marketplace.json:")


def test_strict_false_with_components_in_plugin_json_too_loads_nothing(tmp_path: Path) -> None:
    entries = [{"name": "both", "source": "./both", "strict": False, "skills": ["./more"]}]
    root = build_file_tree(
        tmp_path / "m",
        {
            ".claude-plugin/marketplace.json": _marketplace(entries),
            "both/.claude-plugin/plugin.json": _manifest("both", skills=["./own"]),
            "both/skills/s/SKILL.md": skill_md("s"),
            "both/more/m/SKILL.md": skill_md("m"),
        },
    )
    catalogue = _catalogue(root)
    assert _names(catalogue) == {"both": ([], [])}
    [message] = _messages(catalogue)
    assert "Claude Code loads neither" in message and "strict" in message


def test_strict_false_lists_replace_skills_but_add_to_agents_and_commands(tmp_path: Path) -> None:
    entry = {
        "name": "kit",
        "source": "./",
        "strict": False,
        "skills": ["./skills/listed"],
        "agents": ["./roles/extra.md"],
        "commands": ["./cmds/go.md"],
    }
    root = build_file_tree(
        tmp_path / "m",
        {
            ".claude-plugin/marketplace.json": _marketplace([entry]),
            "skills/listed/SKILL.md": skill_md("listed"),
            "skills/default/SKILL.md": skill_md("default"),
            "agents/in-default.md": agent_md("in-default"),
            "roles/extra.md": agent_md("extra"),
            "commands/dflt.md": "Do it\n",
            "cmds/go.md": "Go\n",
        },
    )
    [plugin] = _catalogue(root).plugins
    assert [s.name for s in plugin.skills] == ["listed"]
    assert sorted(a.name for a in plugin.agents) == ["extra", "in-default"]
    assert plugin.commands == (root / "commands", root / "cmds/go.md")


def test_marketplace_json_is_read_from_the_cache_when_unchanged(
    market: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {"SKILLTOOL_PLUGINS": str(market)}
    assert run("plugins", "status", env=env).code == 0
    calls: list[Path] = []
    real = parse.read_marketplace

    def counted(path: Path) -> Any:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(parse, "read_marketplace", counted)
    first = run("plugins", "status", "--json", env=env)
    assert calls == []
    (market / ".claude-plugin/marketplace.json").write_text(
        _marketplace([{"name": "only-one", "source": "./plugins/pr-tools"}])
    )
    second = run("plugins", "status", "--json", env=env)
    assert calls == [market / ".claude-plugin/marketplace.json"]
    assert len(json.loads(first.stdout)["plugins"]) == 4
    assert [p["name"] for p in json.loads(second.stdout)["plugins"]] == ["only-one"]


# --- component paths in plugin.json ------------------------------------------------------------


def test_an_agent_collection_listing_its_agents_yields_every_one(tmp_path: Path) -> None:
    categories = ("development", "infrastructure", "quality", "data")
    tree: Tree = {}
    listed = []
    for index in range(158):
        path = f"agents/{categories[index % 4]}/agent-{index:03}.md"
        tree[path] = agent_md(f"agent-{index:03}")
        listed.append(f"./{path}")
    tree["agents/not-listed.md"] = agent_md("not-listed")
    tree[".claude-plugin/plugin.json"] = _manifest("subagents", agents=listed)
    root = build_file_tree(tmp_path / "subagents", tree)
    [plugin] = _catalogue(root).plugins
    assert len(plugin.agents) == 158
    assert "not-listed" not in {a.name for a in plugin.agents}  # a list replaces agents/


def test_skills_paths_add_to_the_skills_folder(tmp_path: Path) -> None:
    root = build_file_tree(
        tmp_path / "p",
        {
            ".claude-plugin/plugin.json": _manifest("p", skills=["./extra", "./lib/single"]),
            "skills/default-one/SKILL.md": skill_md("default-one"),
            "extra/from-folder/SKILL.md": skill_md("from-folder"),
            "lib/single/SKILL.md": skill_md("single"),
        },
    )
    [plugin] = _catalogue(root).plugins
    assert sorted(s.name for s in plugin.skills) == ["default-one", "from-folder", "single"]
    assert plugin.skill_places == (root / "skills", root / "extra")
    assert plugin.skill_paths == (root / "lib/single",)


def test_component_paths_claude_code_refuses_are_problems(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    manifest = _manifest(
        "p", skills=["../outside", "nodot"], agents=["./roles/"], commands="./missing"
    )
    root = build_file_tree(
        tmp_path / "p",
        {".claude-plugin/plugin.json": manifest, "roles/a.md": agent_md("a")},
    )
    catalogue = _catalogue(root)
    [plugin] = catalogue.plugins
    assert plugin.name == "p"
    text = "\n".join(_messages(catalogue))
    assert "skills[0]: '../outside' leaves the plugin" in text
    assert "skills[1]: 'nodot' must start with \"./\"" in text
    assert "agents[0]: './roles/' is not an agent file; list each agent file" in text
    assert "commands: './missing' is not in" in text
    assert f"{root}/.claude-plugin/plugin.json:" in text


def test_a_linked_component_path_leading_out_is_refused(tmp_path: Path) -> None:
    build_file_tree(tmp_path / "outside/theirs", {"SKILL.md": skill_md("theirs")})
    root = build_file_tree(
        tmp_path / "p",
        {
            ".claude-plugin/plugin.json": _manifest("p", skills=["./linked"]),
            "linked": tmp_path / "outside",
        },
    )
    catalogue = _catalogue(root)
    assert catalogue.plugins[0].skills == ()
    assert any("'./linked' leads outside the plugin" in m for m in _messages(catalogue))


# --- skill collections, single skills, hidden folders --------------------------------------------


@pytest.fixture
def collection(tmp_path: Path) -> Path:
    """A flat skill repository: skills at the top, one category deeper, and the usual clutter."""
    return build_file_tree(
        tmp_path / "Awesome_Skills",
        {
            "README.md": "# skills\n",
            "LICENSE": "MIT\n",
            "pdf-tools/SKILL.md": skill_md("pdf-tools"),
            "git-helper/SKILL.md": skill_md("git-helper"),
            "writing/copy-edit/SKILL.md": skill_md("copy-edit"),
            "writing/copy-edit/reference.md": "more\n",
            "writing/notes.txt": "not a skill\n",
            "node_modules/pkg/SKILL.md": skill_md("pkg"),
            ".git/hooks/SKILL.md": skill_md("hooks"),
            "docs/guide.md": "# guide\n",
        },
    )


def test_a_skill_collection_is_one_plugin_named_after_its_directory(collection: Path) -> None:
    catalogue = _catalogue(collection)
    assert _names(catalogue) == {"awesome-skills": (["copy-edit", "git-helper", "pdf-tools"], [])}
    assert catalogue.plugins[0].kind == "skill collection"
    assert catalogue.layouts[collection] == "skill collection"
    # only the folder that holds nothing is named, with what was looked for
    [message] = _messages(catalogue)
    assert message.startswith(f"{collection}/docs: not a plugin or a skill: looked for ")
    assert "SKILL.md" in message and "marketplace.json" in message


def test_a_single_skill_folder_is_a_plugin_of_one_skill(tmp_path: Path) -> None:
    root = build_file_tree(tmp_path / "pdf-tools", {"SKILL.md": skill_md("pdf-tools")})
    data = _status(root)
    assert data["search_path"][0]["layout"] == "single skill"
    [plugin] = data["plugins"]
    assert (plugin["name"], plugin["kind"]) == ("pdf-tools", "single skill")
    assert [s["name"] for s in plugin["skills"]] == ["pdf-tools"]


def test_hidden_skill_folders_are_read_and_hidden_shelves_named(tmp_path: Path) -> None:
    root = build_file_tree(
        tmp_path / "p",
        {
            "skills/plain/SKILL.md": skill_md("plain"),
            "skills/.curated/gh-fix-ci/SKILL.md": skill_md("gh-fix-ci"),
            "skills/.curated/notion/SKILL.md": skill_md("notion"),
            "skills/.system/installer/SKILL.md": skill_md("installer"),
            "skills/.DS_Store": b"\x00",
        },
    )
    catalogue = _catalogue(root)
    assert _names(catalogue) == {"p": (["plain"], [])}
    lines = _messages(catalogue)
    assert len(lines) == 2
    assert lines[0].startswith(
        f"{root}/skills/.curated: skipped: it holds 2 skill folder(s) (gh-fix-ci, notion)"
    )
    assert 'list "./skills/.curated" in plugin.json "skills"' in lines[0]
    assert lines[1].startswith(f"{root}/skills/.system: skipped: it holds 1 skill folder(s)")
    # named on the search path, the shelf is a collection of its own
    assert _names(_catalogue(root / "skills/.curated")) == {
        "curated": (["gh-fix-ci", "notion"], [])
    }


def test_a_hidden_plugin_in_a_directory_of_plugins_is_named(tmp_path: Path) -> None:
    root = build_file_tree(
        tmp_path / "plugins",
        {
            ".old/skills/s/SKILL.md": skill_md("s"),
            ".cache/junk.bin": b"\x00",
            "real/skills/r/SKILL.md": skill_md("r"),
        },
    )
    catalogue = _catalogue(root)
    assert _names(catalogue) == {"real": (["r"], [])}
    [message] = _messages(catalogue)
    assert message.startswith(f"{root}/.old: skipped: a hidden folder, though it holds a plugin")


def test_a_directory_that_is_none_of_these_says_what_was_looked_for(tmp_path: Path) -> None:
    root = build_file_tree(tmp_path / "notes", {"README.md": "hi\n"})
    result = run("plugins", "validate", root)
    assert result.code == 1
    assert result.lines[0].startswith(f"{root}: no plugin, marketplace or skill found: looked for")
    assert "move it away" not in result.stdout


def test_agents_in_subfolders_are_read_as_claude_code_reads_them(tmp_path: Path) -> None:
    root = build_file_tree(
        tmp_path / "p",
        {
            "agents/top.md": agent_md("top"),
            "agents/backend/api-designer.md": agent_md("api-designer"),
            "agents/node_modules/x/dep.md": agent_md("dep"),
        },
    )
    assert _names(_catalogue(root)) == {"p": ([], ["api-designer", "top"])}


# --- status and validate on each layout ----------------------------------------------------------


def test_status_says_what_each_entry_was_taken_for(
    market: Path, collection: Path, tmp_path: Path
) -> None:
    single = build_file_tree(tmp_path / "lone", {"SKILL.md": skill_md("lone")})
    plugin = build_file_tree(tmp_path / "plug", {"skills/one/SKILL.md": skill_md("one")})
    many = build_file_tree(tmp_path / "many", {"a/skills/two/SKILL.md": skill_md("two")})
    data = _status(market, collection, single, plugin, many)
    assert [e["layout"] for e in data["search_path"]] == [
        "marketplace",
        "skill collection",
        "single skill",
        "plugin",
        "directory of plugins",
    ]
    # a default place that is not there (a named one that is not there stops the run)
    default = json.loads(run("plugins", "status", "--json").stdout)
    assert default["search_path"][0]["layout"] == "missing"


@pytest.mark.parametrize(
    ("layout", "counts"),
    [
        ("market", "checked 4 plugin(s), 4 valid skill(s), 1 valid agent(s)"),
        ("collection", "checked 1 plugin(s), 3 valid skill(s), 0 valid agent(s)"),
        ("single", "checked 1 plugin(s), 1 valid skill(s), 0 valid agent(s)"),
    ],
)
def test_validate_works_on_each_layout(
    layout: str, counts: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    if layout == "single":
        target = build_file_tree(tmp_path / "lone", {"SKILL.md": skill_md("lone")})
    else:
        target = request.getfixturevalue(layout)
    result = run("plugins", "validate", target)
    assert result.lines[-1].startswith(counts), result.stdout


def test_skills_listed_one_by_one_inside_skills_are_read_once(tmp_path: Path) -> None:
    listed = ["./skills/deck-context", "./skills/quality-gates"]
    root = build_file_tree(
        tmp_path / "deck",
        {
            ".claude-plugin/plugin.json": _manifest("deck", skills=listed),
            "skills/deck-context/SKILL.md": skill_md("deck-context"),
            "skills/quality-gates/SKILL.md": skill_md("quality-gates"),
        },
    )
    catalogue = _catalogue(root)
    assert [s.name for s in catalogue.plugins[0].skills] == ["deck-context", "quality-gates"]
    assert _messages(catalogue) == []


def test_a_collection_skill_linked_from_outside_is_refused(tmp_path: Path) -> None:
    build_file_tree(tmp_path / "elsewhere/theirs", {"SKILL.md": skill_md("theirs")})
    root = build_file_tree(
        tmp_path / "mine",
        {"ours/SKILL.md": skill_md("ours"), "theirs": tmp_path / "elsewhere/theirs"},
    )
    catalogue = _catalogue(root)
    assert _names(catalogue) == {"mine": (["ours"], [])}
    assert any("leads outside the plugin" in m for m in _messages(catalogue))


def test_status_lines_name_the_kind_of_each_plugin(collection: Path, tmp_path: Path) -> None:
    single = build_file_tree(tmp_path / "lone", {"SKILL.md": skill_md("lone")})
    env = {"SKILLTOOL_PLUGINS": f"{collection}:{single}"}
    lines = run("plugins", "status", env=env).lines
    assert f"search    override {collection} (skill collection)" in lines
    assert f"search    override {single} (single skill)" in lines
    assert "plugin    lone (override, single skill): 1 skill: 1 to do" in lines
    detail = run("plugins", "status", "-v", env=env).lines
    assert any(
        line.startswith(f"plugin    awesome-skills (override, skill collection) {collection}: ")
        for line in detail
    )
    assert f"plugin    lone (override, single skill) {single}: 1 skill: 1 to do" in detail


def test_an_entry_limited_to_some_plugins_reads_only_those(market: Path) -> None:
    catalogue = discover.discover([SearchEntry(market, "added", ("pr-tools", "far-away"))])
    assert [p.name for p in catalogue.plugins] == ["pr-tools"]
    assert [e.name for _, e in catalogue.not_fetched()] == ["far-away"]
