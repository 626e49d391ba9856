"""A plugin's `dependencies` as Claude Code resolves them, against its real binary on one
local marketplace: `claude plugin install a@deps-test` installs the plugins `a` needs, and
`uninstall` + `prune` takes them away; skilltool's `add a@deps-test` adds the same plugins
(Claude Code then loads their skills from ~/.claude/skills) and its `remove a` takes them
away. Offline: a fake key, a dead loopback API, a throwaway home each."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.homes import TIMEOUT
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.support import Proven, need
from tests.helpers import REPO, build_file_tree, skill_md

pytestmark = pytest.mark.conformance

MARKET = "deps-test"
PLUGINS: dict[str, dict[str, Any]] = {
    "a": {"version": "1.0.0", "dependencies": ["b", {"name": "c", "version": "^1.0"}]},
    "b": {"version": "2.0.0"},
    "c": {"version": "1.4.0"},
    "lone": {"version": "1.0.0"},
}


def marketplace(root: Path) -> Path:
    tree: dict[str, str] = {}
    for name, manifest in PLUGINS.items():
        tree[f"{name}/.claude-plugin/plugin.json"] = json.dumps({"name": name, **manifest})
        tree[f"{name}/skills/{name}-skill/SKILL.md"] = skill_md(f"{name}-skill")
    entries = [{"name": name, "source": f"./{name}"} for name in PLUGINS]
    listing = {"name": MARKET, "owner": {"name": "o"}, "plugins": entries}
    tree[".claude-plugin/marketplace.json"] = json.dumps(listing)
    return build_file_tree(root, tree)


def env(home: Path) -> dict[str, str]:
    keys = {"ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
            "CLAUDE_CODE_MAX_RETRIES": "0", "PYTHONPATH": str(REPO)}  # fmt: skip
    return harness_env(home, keys)


def claude(home: Path, *args: str) -> str:
    done = run(["claude", *args], env(home), home, TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def installed(home: Path) -> set[str]:
    """The plugins Claude Code has installed (its own built-in ones aside)."""
    listed = json.loads(claude(home, "plugin", "list", "--json"))
    return {p["id"] for p in listed if not p["id"].endswith("@builtin")}


def skilltool(home: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "skilltool", "plugins", *args],
        env=env(home), cwd=home, capture_output=True, text=True, timeout=TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def skills_loaded(home: Path) -> set[str]:
    """The skills of the test's plugins in the `init` event of a `claude -p` run."""
    done = run(["claude", "-p", "--output-format", "stream-json", "--verbose", "hi"],
               env(home), home, TIMEOUT)  # fmt: skip
    event = json.loads(done.stdout.splitlines()[0])
    return {s.rsplit(":", 1)[-1] for s in event["skills"] if s.endswith("-skill")}


def test_a_dependency_is_installed_and_removed_with_its_dependent_as_claude_code_does(
    tmp_path: Path, proven: Proven
) -> None:
    need("claude")
    market = marketplace(tmp_path / "market")
    theirs = make_home(tmp_path / "claude")
    claude(theirs, "plugin", "marketplace", "add", str(market))
    claude(theirs, "plugin", "install", f"a@{MARKET}")
    want = {f"{name}@{MARKET}" for name in ("a", "b", "c")}
    assert installed(theirs) == want
    claude(theirs, "plugin", "uninstall", f"a@{MARKET}")
    claude(theirs, "plugin", "prune", "--yes")
    assert installed(theirs) == set()

    ours = make_home(tmp_path / "skilltool")
    (ours / ".claude").mkdir()
    skilltool(ours, "add", str(market))  # no terminal: none of its plugins picked
    said = skilltool(ours, "add", f"a@{MARKET}")
    assert "needed by a" in said, said
    assert skills_loaded(ours) == {"a-skill", "b-skill", "c-skill"}
    skilltool(ours, "remove", "a")
    assert skills_loaded(ours) == set()
    proven(
        "claude",
        "dependencies: `add a@M` adds the plugins Claude Code's `plugin install` installs with "
        "a (their skills load), and `remove a` takes those nothing else needs, as uninstall + "
        "prune does",
    )
