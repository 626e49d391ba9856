"""Claude Code reads plugin layouts as skilltool's search does: component paths in plugin.json,
hidden and nested folders (`claude plugin validate --json`, "provides"), and a marketplace
with shared, strict:false, pluginRoot and strict entries (added, installed, and listed in the
`init` event of `claude -p`). Offline: a fake key, a dead loopback API, a throwaway home."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from skilltool import discover
from skilltool.model import Catalogue, SearchEntry
from tests.conformance.homes import TIMEOUT
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.support import Proven, need
from tests.helpers import agent_md, build_file_tree, skill_md

pytestmark = pytest.mark.conformance

Tree = dict[str, str | bytes | Path]


@pytest.fixture(autouse=True)
def _claude() -> None:
    need("claude")


def _env(home: Path) -> dict[str, str]:
    keys = {
        "ANTHROPIC_API_KEY": "sk-ant-fake",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",  # nothing listens: the init event comes first
        "CLAUDE_CODE_MAX_RETRIES": "0",
    }
    return harness_env(home, keys)


def _found(path: Path) -> Catalogue:
    return discover.discover([SearchEntry(path, "argument")])


def provides(home: Path, plugin: Path) -> dict[str, set[str]]:
    """What `claude plugin validate --json` says Claude Code takes from a plugin, by kind,
    each as the last part of its id (`plugin:sub:name` -> `name`)."""
    done = run(["claude", "plugin", "validate", "--json", str(plugin)], _env(home), home, TIMEOUT)
    report: dict[str, Any] = json.loads(done.stdout)
    assert report["success"], done.stdout
    return {kind: {i.rsplit(":", 1)[-1] for i in ids} for kind, ids in report["provides"].items()}


def _plugin_tree(root: Path) -> Path:
    listed = {"skills": ["./extra", "./lib/single"], "agents": ["./roles/listed.md"]}
    tree: Tree = {
        ".claude-plugin/plugin.json": json.dumps({"name": "paths", "version": "1.0.0", **listed}),
        "skills/default-one/SKILL.md": skill_md("default-one"),
        "skills/.curated/shelved/SKILL.md": skill_md("shelved"),
        "skills/topic/nested/SKILL.md": skill_md("nested"),
        "extra/from-folder/SKILL.md": skill_md("from-folder"),
        "lib/single/SKILL.md": skill_md("single"),
        "agents/in-default.md": agent_md("in-default"),
        "roles/listed.md": agent_md("listed"),
        "roles/unlisted.md": agent_md("unlisted"),
    }
    return build_file_tree(root, tree)


def test_component_paths_are_read_as_claude_code_reads_them(tmp_path: Path, proven: Proven) -> None:
    home = make_home(tmp_path)
    plugin = _plugin_tree(tmp_path / "paths")
    claude = provides(home, plugin)
    [found] = _found(plugin).plugins
    assert (
        {s.name for s in found.skills}
        == claude["skills"]
        == {
            "default-one",
            "from-folder",
            "single",
        }
    )
    assert {a.name for a in found.agents} == claude["agents"] == {"listed"}
    proven(
        "claude",
        'plugin.json "skills" adds to skills/, "agents" replaces agents/; skills one folder '
        "deeper (skills/.curated/x, skills/topic/x) are not loaded: skilltool reads the same",
    )


def test_agents_in_subfolders_and_hidden_ones_are_read_as_claude_code_reads_them(
    tmp_path: Path, proven: Proven
) -> None:
    home = make_home(tmp_path)
    plugin = build_file_tree(
        tmp_path / "nested",
        {
            ".claude-plugin/plugin.json": '{"name": "nested", "version": "1.0.0"}',
            "agents/top.md": agent_md("top"),
            "agents/backend/api-designer.md": agent_md("api-designer"),
            "agents/.drafts/draft.md": agent_md("draft"),
        },
    )
    [found] = _found(plugin).plugins
    assert {a.name for a in found.agents} == provides(home, plugin)["agents"]
    proven("claude", "agents/ is read with its subfolders, hidden ones too: skilltool does so")


# Claude Code's "provides" kinds that are its own parts, as skilltool names them
CLAUDE_ONLY = {"outputStyles": "output styles", "themes": "themes", "workflows": "workflows",
               "monitors": "monitors", "bin": "bin/"}  # fmt: skip


def test_the_parts_only_claude_code_takes_are_those_skilltool_names(
    tmp_path: Path, proven: Proven
) -> None:
    """Each part Claude Code's validator says it takes and no other harness has (output
    styles, themes, workflows, monitors, bin/) is one skilltool names as carried nowhere; a
    key Claude Code calls unknown is one skilltool warns of too."""
    home = make_home(tmp_path)
    plugin = build_file_tree(
        tmp_path / "styled",
        {
            ".claude-plugin/plugin.json": json.dumps(
                {"name": "styled", "version": "1.0.0", "frobnicate": 1}
            ),
            "output-styles/terse.md": "---\nname: Terse\ndescription: Short.\n---\nBe terse.\n",
            "themes/dark.json": '{"name": "dark", "base": "dark", "overrides": {}}',
            "bin/styled-tool": "#!/bin/sh\necho hi\n",
            "skills/tidy/SKILL.md": skill_md("tidy"),
        },
    )
    done = run(["claude", "plugin", "validate", "--json", str(plugin)], _env(home), home, TIMEOUT)
    report: dict[str, Any] = json.loads(done.stdout)
    theirs = {CLAUDE_ONLY[k] for k, ids in report["provides"].items() if k in CLAUDE_ONLY and ids}
    [found] = _found(plugin).plugins
    assert theirs == set(found.claude_only) == {"output styles", "themes", "bin/"}
    unknown = {w["path"] for w in report["manifest"]["warnings"] if "Unknown field" in w["message"]}
    assert unknown == {p.field for p in found.problems if "Claude Code ignores it" in p.message}
    proven(
        "claude",
        "the parts only Claude Code takes (provides: outputStyles, themes, bin) are those "
        "skilltool names as carried nowhere; its unknown plugin.json keys are skilltool's",
    )


def _marketplace_tree(root: Path) -> Path:
    entries = [
        {
            "name": "docs",
            "source": "./",
            "strict": False,
            "skills": ["./skills/xlsx"],
            "agents": ["./roles/writer.md"],
        },
        {"name": "brand", "source": "./", "strict": False, "skills": ["./skills/brand"]},
        {"name": "kit", "source": "./kit", "skills": ["./more"]},
        {"name": "bare", "source": "bare"},
        {"name": "remote", "source": {"source": "github", "repo": "acme/remote"}},
    ]
    market = {
        "name": "layouts-test",
        "owner": {"name": "skilltool tests"},
        "metadata": {"pluginRoot": "./plugins"},
        "plugins": entries,
    }
    tree: Tree = {
        ".claude-plugin/marketplace.json": json.dumps(market, indent=2),
        "skills/xlsx/SKILL.md": skill_md("xlsx"),
        "skills/brand/SKILL.md": skill_md("brand"),
        "skills/not-listed/SKILL.md": skill_md("not-listed"),
        "agents/root-agent.md": agent_md("root-agent"),
        "roles/writer.md": agent_md("writer"),
        "kit/.claude-plugin/plugin.json": '{"name": "kit", "agents": ["./roles/kit-agent.md"]}',
        "kit/skills/kit-skill/SKILL.md": skill_md("kit-skill"),
        "kit/more/kit-extra/SKILL.md": skill_md("kit-extra"),
        "kit/roles/kit-agent.md": agent_md("kit-agent"),
        "kit/agents/replaced.md": agent_md("replaced"),
        "plugins/bare/skills/bare-skill/SKILL.md": skill_md("bare-skill"),
    }
    return build_file_tree(root, tree)


def _claude_loads(home: Path, market: Path, names: list[str]) -> dict[str, dict[str, set[str]]]:
    """Plugin -> {"skills", "agents"} Claude Code lists once the marketplace's are installed."""
    env = _env(home)
    done = run(["claude", "plugin", "marketplace", "add", str(market)], env, home, TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in names:
        done = run(["claude", "plugin", "install", f"{name}@layouts-test"], env, home, TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
    done = run(["claude", "-p", "--output-format", "stream-json", "--verbose", "hi"], env, home, TIMEOUT)  # fmt: skip
    event = json.loads(done.stdout.splitlines()[0])
    loaded: dict[str, dict[str, set[str]]] = {n: {"skills": set(), "agents": set()} for n in names}
    for kind in ("skills", "agents"):
        for item in event[kind]:
            plugin, _, rest = item.partition(":")
            if plugin in loaded:
                loaded[plugin][kind].add(rest.rsplit(":", 1)[-1])
    return loaded


def test_a_marketplace_is_read_as_claude_code_installs_it(tmp_path: Path, proven: Proven) -> None:
    home = make_home(tmp_path)
    market = _marketplace_tree(tmp_path / "market")
    catalogue = _found(market)
    ours = {
        p.name: {"skills": {s.name for s in p.skills}, "agents": {a.name for a in p.agents}}
        for p in catalogue.plugins
    }
    assert sorted(ours) == ["bare", "brand", "docs", "kit"]
    assert [e.name for _, e in catalogue.not_fetched()] == ["remote"]
    assert _claude_loads(home, market, sorted(ours)) == ours
    proven(
        "claude",
        "marketplace: strict:false skill lists replace skills/, agent lists add to agents/; "
        "a strict entry's lists join plugin.json's; pluginRoot serves bare names only",
    )


def test_renames_that_lead_nowhere_are_those_claude_code_refuses(
    tmp_path: Path, proven: Proven
) -> None:
    """A marketplace's `renames`: the keys Claude Code's validator calls unresolved are the
    ones skilltool says lead to no plugin, and those it follows end where skilltool's do."""
    home = make_home(tmp_path)
    renames = {"a": "b", "b": "a", "c": "nowhere", "old": "mid", "mid": "tools", "gone": None}
    market = build_file_tree(
        tmp_path / "renamed",
        {
            ".claude-plugin/marketplace.json": json.dumps(
                {
                    "name": "renamed",
                    "owner": {"name": "T"},
                    "plugins": [{"name": "tools", "source": "./tools"}],
                    "renames": renames,
                }
            ),
            "tools/skills/tidy/SKILL.md": skill_md("tidy"),
        },
    )
    done = run(["claude", "plugin", "validate", "--json", str(market)], _env(home), home, TIMEOUT)
    report: dict[str, Any] = json.loads(done.stdout)
    theirs = {e["path"] for e in report["manifest"]["errors"] if e["path"].startswith("renames.")}
    catalogue = _found(market)
    ours = {p.field for p in catalogue.problems if (p.field or "").startswith("renames.")}
    assert theirs == ours == {"renames.a", "renames.b", "renames.c"}
    [read] = catalogue.marketplaces
    assert dict(read.renames) == {"old": "tools", "mid": "tools", "gone": None}
    proven("claude", "marketplace renames: the chains it refuses are skilltool's errors")


def test_default_enabled_is_read_as_claude_code_installs_it(tmp_path: Path, proven: Proven) -> None:
    """`defaultEnabled: false` in plugin.json or the marketplace entry: `claude plugin
    install` records the plugin off; the entry's value wins over plugin.json's. skilltool's
    reading of each plugin is Claude Code's."""
    home = make_home(tmp_path)
    plugins = [
        {"name": "by-manifest", "source": "./by-manifest"},
        {"name": "by-entry", "source": "./by-entry", "defaultEnabled": False},
        {"name": "entry-wins", "source": "./entry-wins", "defaultEnabled": True},
        {"name": "plain", "source": "./plain"},
    ]
    manifests = {"by-manifest": False, "entry-wins": False}
    tree: Tree = {
        ".claude-plugin/marketplace.json": json.dumps(
            {"name": "layouts-test", "owner": {"name": "T"}, "plugins": plugins}
        )
    }
    for plugin in plugins:
        name = str(plugin["name"])
        manifest: dict[str, Any] = {"name": name}
        if name in manifests:
            manifest["defaultEnabled"] = manifests[name]
        tree[f"{name}/.claude-plugin/plugin.json"] = json.dumps(manifest)
        tree[f"{name}/skills/{name}-skill/SKILL.md"] = skill_md(f"{name}-skill")
    market = build_file_tree(tmp_path / "defaults", tree)
    env = _env(home)
    done = run(["claude", "plugin", "marketplace", "add", str(market)], env, home, TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    for plugin in plugins:
        done = run(["claude", "plugin", "install", f"{plugin['name']}@layouts-test"], env, home, TIMEOUT)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
    enabled = json.loads((home / ".claude/settings.json").read_text())["enabledPlugins"]
    theirs = {key.split("@")[0]: value for key, value in enabled.items()}
    ours = {p.name: p.default_enabled for p in _found(market).plugins}
    assert (
        theirs
        == ours
        == {
            "by-manifest": False,
            "by-entry": False,
            "entry-wins": True,
            "plain": True,
        }
    )
    proven(
        "claude", "defaultEnabled: false installs a plugin off; the entry's wins over plugin.json's"
    )


def test_optional_dependencies_are_taken_as_claude_code_installs_them(
    tmp_path: Path, proven: Proven
) -> None:
    """`claude plugin install` of a plugin with `optionalDependencies` installs those it can
    have (one off by its default, off; a range only choosing the version) and leaves out one
    its marketplaces do not list: `skilltool plugins add` adds the same, with the same off."""
    from tests.test_optional_dependencies import market

    home = make_home(tmp_path)
    root = market(tmp_path / "omk", ["helper", "quiet@^2.0", "nope", 5])
    env = _env(home)
    done = run(["claude", "plugin", "marketplace", "add", str(root)], env, home, TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    done = run(["claude", "plugin", "install", "main@omk"], env, home, TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "optional dependency left out: nope@omk" in done.stdout + done.stderr
    enabled = json.loads((home / ".claude/settings.json").read_text())["enabledPlugins"]
    theirs = {key.split("@")[0]: value for key, value in enabled.items()}
    assert theirs == {"main": True, "helper": True, "quiet": False}
    ours_home = tmp_path / "ours"
    ours_home.mkdir()
    ours_env = {"HOME": str(ours_home), "PATH": os.environ.get("PATH", "")}
    skilltool = [sys.executable, "-m", "skilltool", "plugins", "add"]
    assert run([*skilltool, str(root)], ours_env, ours_home, TIMEOUT).returncode == 0
    added = run([*skilltool, "main@omk"], ours_env, ours_home, TIMEOUT)
    assert added.returncode == 0, added.stdout + added.stderr
    assert "left out  nope, optional for main" in added.stdout
    ours = {p.name: p.default_enabled for p in _found(root).plugins if p.name in theirs}
    picked = (ours_home / ".local/share/skilltool/plugins.lock").read_text()
    assert 'plugins = ["main", "helper", "quiet"]' in picked
    assert ours == theirs
    proven(
        "claude",
        "optionalDependencies: those it can have are installed with the plugin (one off by its "
        "default, off), one not listed is left out, as skilltool adds them",
    )


def _official_tree(root: Path) -> Path:
    """A marketplace in the shape of claude-plugins-official: a `strict: false` LSP entry over
    a folder with no plugin.json, a plugin with `.lsp.json`, plugins of commands, agents and
    skills, of hooks, of an MCP server (under external_plugins/), a `strict: false` entry
    listing its skills and commands, and `git-subdir` and `url` entries."""
    sha = "bc781f96be8ce17a2972e8a9a3ef38b1ca7e8cc4"
    pyright = {"command": "pyright-langserver", "args": ["--stdio"]}
    pyright["extensionToLanguage"] = {".py": "python", ".pyi": "python"}  # type: ignore[assignment]
    entries: list[dict[str, Any]] = [
        {
            "name": "pyright-lsp",
            "description": "Python language server (Pyright)",
            "version": "1.0.0",
            "source": "./plugins/pyright-lsp",
            "category": "development",
            "strict": False,
            "lspServers": {"pyright": pyright},
        },
        {"name": "gopls-lsp", "source": "./plugins/gopls-lsp", "description": "Go"},
        {"name": "agent-sdk-dev", "source": "./plugins/agent-sdk-dev", "description": "SDK"},
        {"name": "security-guidance", "source": "./plugins/security-guidance"},
        {"name": "asana", "source": "./external_plugins/asana", "category": "productivity"},
        {
            "name": "document-skills",
            "source": "./",
            "strict": False,
            "skills": ["./skills/xlsx", "./skills/pdf"],
            "commands": ["./extra-commands/convert.md"],
        },
        {
            "name": "api-security-testing",
            "source": {
                "source": "git-subdir",
                "url": "https://github.com/acme/claude-plugins.git",
                "path": "plugins/api-security-testing",
                "ref": "v1.5.5",
                "sha": sha,
            },
        },
        {
            "name": "adlc",
            "source": {"source": "url", "url": "https://github.com/acme/adlc.git", "sha": sha},
        },
    ]
    market = {
        "$schema": "https://anthropic.com/claude-code/marketplace.schema.json",
        "name": "official-shape",
        "description": "A directory of plugins",
        "owner": {"name": "skilltool tests", "email": "tests@example.com"},
        "plugins": entries,
    }
    hooks = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}}
    hooks["hooks"]["PreToolUse"] = [
        {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "true"}]}
    ]
    gopls = {"go": {"command": "gopls", "extensionToLanguage": {".go": "go"}}}
    tree: Tree = {
        ".claude-plugin/marketplace.json": json.dumps(market, indent=2),
        "plugins/pyright-lsp/README.md": "# pyright-lsp\n",
        "plugins/gopls-lsp/.claude-plugin/plugin.json": '{"name": "gopls-lsp"}',
        "plugins/gopls-lsp/.lsp.json": json.dumps(gopls),
        "plugins/agent-sdk-dev/.claude-plugin/plugin.json": '{"name": "agent-sdk-dev"}',
        "plugins/agent-sdk-dev/commands/new-sdk-app.md": "---\ndescription: New app\n---\nGo.\n",
        "plugins/agent-sdk-dev/agents/agent-sdk-verifier-py.md": agent_md("agent-sdk-verifier-py"),
        "plugins/agent-sdk-dev/skills/sdk-basics/SKILL.md": skill_md("sdk-basics"),
        "plugins/security-guidance/.claude-plugin/plugin.json": '{"name": "security-guidance"}',
        "plugins/security-guidance/hooks/hooks.json": json.dumps(hooks),
        "external_plugins/asana/.claude-plugin/plugin.json": '{"name": "asana"}',
        "external_plugins/asana/.mcp.json": json.dumps(
            {"asana": {"type": "http", "url": "https://mcp.asana.com/sse"}}
        ),
        "skills/xlsx/SKILL.md": skill_md("xlsx"),
        "skills/pdf/SKILL.md": skill_md("pdf"),
        "skills/not-listed/SKILL.md": skill_md("not-listed"),
        "extra-commands/convert.md": "---\ndescription: Convert\n---\nConvert it.\n",
    }
    return build_file_tree(root, tree)


KINDS = {"Skills": "skills", "Agents": "agents", "Hooks": "hooks", "MCP servers": "mcp"}
KINDS["LSP servers"] = "lsp"


def _details(home: Path, plugin: str) -> dict[str, set[str]]:
    """`claude plugin details P@M`'s component inventory: kind -> names (its Skills are
    the plugin's skills and its commands, its Hooks the events hooked)."""
    done = run(["claude", "plugin", "details", plugin], _env(home), home, TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    found: dict[str, set[str]] = {}
    for line in done.stdout.splitlines():
        label, _, rest = line.strip().partition(" (")
        if label in KINDS:
            count, _, names = rest.partition(")")
            listed = names.split("  (")[0].strip()
            found[KINDS[label]] = {n.strip() for n in listed.split(",") if n.strip()}
            assert len(found[KINDS[label]]) == int(count), line
    assert set(found) == set(KINDS.values()), done.stdout
    return found


def test_the_official_marketplace_is_read_as_claude_code_installs_it(
    tmp_path: Path, proven: Proven
) -> None:
    """The oracle: every plugin of a marketplace in claude-plugins-official's shape that
    Claude Code installs offline, with every component `claude plugin details` lists of it
    (agents, hook events, MCP and LSP servers) and every skill and command a session offers,
    is the plugin skilltool reads, component for component; its remote entries are those
    skilltool lists as not fetched."""
    home = make_home(tmp_path)
    market = _official_tree(tmp_path / "market")
    catalogue = _found(market)
    ours = {
        p.name: {
            "skills": {s.name for s in p.skills} | {c.name for c in p.slash_commands},
            "agents": {a.name for a in p.agents},
            "hooks": {h.event for h in p.hook_commands},
            "mcp": {s.name for s in p.mcp_servers},
            "lsp": {s.name for s in p.lsp_servers},
        }
        for p in catalogue.plugins
    }
    assert [p.problems for p in catalogue.plugins if p.problems] == []
    assert sorted(e.name for _, e in catalogue.not_fetched()) == ["adlc", "api-security-testing"]
    env = _env(home)
    done = run(["claude", "plugin", "marketplace", "add", str(market)], env, home, TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    theirs = {}
    for name in sorted(ours):
        done = run(["claude", "plugin", "install", f"{name}@official-shape"], env, home, TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        theirs[name] = _details(home, f"{name}@official-shape")
    # `details` leaves out the commands a strict:false entry lists, which a session loads:
    # the skills and commands are taken from the session's init event
    done = run(["claude", "-p", "--output-format", "stream-json", "--verbose", "hi"], env, home, TIMEOUT)  # fmt: skip
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    [event] = [e for e in events if e.get("subtype") == "init"]  # after the hooks' own events
    for name, kinds in theirs.items():
        listed = {c.partition(":")[2] for c in event["slash_commands"] if c.startswith(f"{name}:")}
        assert kinds["skills"] <= listed
        kinds["skills"] = listed
    assert theirs == ours
    assert ours["pyright-lsp"]["lsp"] == {"pyright"} and ours["gopls-lsp"]["lsp"] == {"go"}
    proven(
        "claude",
        "the official marketplace's shape (strict:false LSP entries, .lsp.json, commands, "
        "agents, skills, hooks, MCP, git-subdir and url entries) read as `claude plugin "
        "details` lists what it installs",
    )
