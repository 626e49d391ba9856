"""A marketplace entry of source `npm`, against Claude Code's real binary and a loopback
registry: `claude plugin install kit@npm-test` installs the package's files as its plugin,
and skilltool's `add kit@npm-test` fetches the same files (the package's root is the plugin),
whose skill Claude Code then loads; the package's install scripts run in neither. Offline:
a fake key, a dead loopback API, the registry on 127.0.0.1, a throwaway home each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conformance.homes import TIMEOUT
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.support import Proven, need
from tests.gitrepos import plugin_files
from tests.helpers import REPO, build_file_tree
from tests.npmregistry import Registry, tarball

pytestmark = pytest.mark.conformance

MARKET = "npm-test"


def env(home: Path, registry: Registry) -> dict[str, str]:
    keys = {"ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
            "CLAUDE_CODE_MAX_RETRIES": "0", "PYTHONPATH": str(REPO),
            # the loopback registry is the user's own; npm's cache and config the home's
            "npm_config_offline": "false", "npm_config_registry": registry.url,
            "npm_config_cache": str(home / ".npm"), "npm_config_fetch_retries": "0",
            "npm_config_userconfig": str(home / ".npmrc")}  # fmt: skip
    return harness_env(home, keys)


def files_of(root: Path) -> dict[str, bytes]:
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            found[str(path.relative_to(root))] = path.read_bytes()
    return found


def test_an_npm_entry_brings_the_files_claude_code_installs(tmp_path: Path, proven: Proven) -> None:
    need("claude")
    witness = tmp_path / "ran"
    manifest = {"name": "@acme/kit", "version": "1.2.0",
                "scripts": {"preinstall": f"touch {witness}", "postinstall": f"touch {witness}"}}  # fmt: skip
    files: dict[str, str | bytes] = {"package.json": json.dumps(manifest)}
    files.update({k: str(v) for k, v in plugin_files("kit", ("alpha",)).items()})
    registry = Registry()
    try:
        registry.publish("@acme/kit", "1.2.0", tarball(files))
        entry = {"name": "kit", "source": {"source": "npm", "package": "@acme/kit",
                                           "version": "^1.0.0"}}  # fmt: skip
        listing = {"name": MARKET, "owner": {"name": "o"}, "plugins": [entry]}
        market = build_file_tree(
            tmp_path / "market", {".claude-plugin/marketplace.json": json.dumps(listing)}
        )

        theirs = make_home(tmp_path / "claude")
        for args in (["marketplace", "add", str(market)], ["install", f"kit@{MARKET}"]):
            done = run(["claude", "plugin", *args], env(theirs, registry), theirs, TIMEOUT)
            assert done.returncode == 0, done.stdout + done.stderr
        cached = list((theirs / ".claude/plugins/cache" / MARKET / "kit").iterdir())
        assert len(cached) == 1
        installed = {k: v for k, v in files_of(cached[0]).items() if not k.startswith(".in_use")}

        ours = make_home(tmp_path / "skilltool")
        (ours / ".claude").mkdir()
        for args in (["add", str(market)], ["add", f"kit@{MARKET}"]):
            done = subprocess.run(
                [sys.executable, "-m", "skilltool", "plugins", *args],
                env=env(ours, registry), cwd=ours, capture_output=True, text=True,
                timeout=TIMEOUT,
            )  # fmt: skip
            assert done.returncode == 0, done.stdout + done.stderr
        checkout = ours / ".local/share/skilltool/sources/kit/current/kit"
        assert files_of(checkout) == installed
        loaded = run(["claude", "-p", "--output-format", "stream-json", "--verbose", "hi"],
                     env(ours, registry), ours, TIMEOUT)  # fmt: skip
        event = json.loads(loaded.stdout.splitlines()[0])
        assert "alpha" in {s.rsplit(":", 1)[-1] for s in event["skills"]}
        assert not witness.exists()
    finally:
        registry.server.shutdown()
        registry.server.server_close()
    proven(
        "claude",
        "npm sources: `add kit@M` of an `npm` entry fetches the files Claude Code's `plugin "
        "install` installs from the same registry (the package's root is the plugin), its "
        "skill loads, and no install script of the package runs in either",
    )
