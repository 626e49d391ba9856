"""What the conformance tests share outside fixtures: which harness needs what, the skip
rule, and the record of what was proven (printed by conftest's terminal summary)."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conformance import sandbox

VARIABLE = "SKILLTOOL_CONFORMANCE"
REQUIRED = os.environ.get(VARIABLE) == "required"

# harness -> (title, its launcher, npm packages of its ACP adapter whose versions are shown)
HARNESSES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "opencode": ("OpenCode", "opencode", ()),
    "codex": ("Codex", "codex", ("@agentclientprotocol/codex-acp",)),
    "pi": ("pi", "pi", ("pi-acp",)),
    "hermes": ("Hermes", "hermes", ()),
    "claude": ("Claude Code", "claude", ("@agentclientprotocol/claude-agent-acp",)),
    "gemini": ("Gemini CLI", "gemini", ()),
    "copilot": ("Copilot CLI", "copilot", ()),
    "kilo": ("Kilo Code CLI", "kilo", ()),
    "qwen": ("Qwen Code", "qwen", ()),
    "vibe": ("Mistral Vibe", "vibe", ()),
    "kimi": ("Kimi Code", "kimi", ()),
    "droid": ("Factory Droid", "droid", ()),
    "cline": ("Cline CLI", "cline", ()),
    "auggie": ("Auggie", "auggie", ()),
    "qoder": ("Qoder CLI", "qodercli", ()),
    "openhands": ("OpenHands", "openhands", ()),
    "continue": ("Continue CLI", "cn", ()),
    "amp": ("Amp", "amp", ()),
}

Proven = Callable[[str, str], None]
PROOFS: dict[str, list[str]] = {}  # harness -> claims, from passing tests, in order
VERSIONS: dict[str, str] = {}  # harness -> what was tested


def need(harness: str, *also: str) -> None:
    """Skip (or, with SKILLTOOL_CONFORMANCE=required, fail) when a harness's launcher, or
    another command the test runs (an ACP adapter), is not installed."""
    missing = [c for c in (HARNESSES[harness][1], *also) if not sandbox.have(c)]
    if not missing:
        if harness not in VERSIONS:
            VERSIONS[harness] = version(harness)
        return
    message = f"{', '.join(missing)} not in {sandbox.harness_bin()}: run scripts/install-harnesses"
    if REQUIRED:
        pytest.fail(f"{VARIABLE}=required: {message}", pytrace=False)
    pytest.skip(message)


def version(harness: str) -> str:
    """`<launcher> --version` in a throwaway home, plus the ACP adapters' package versions."""
    shown = []
    launcher = HARNESSES[harness][1]
    with tempfile.TemporaryDirectory(prefix="skilltool-version-") as scratch:
        home = sandbox.make_home(Path(scratch))
        env = sandbox.harness_env(home, {"HERMES_DISABLE_LAZY_INSTALLS": "1", "PI_OFFLINE": "1"})
        try:
            done = sandbox.run([launcher, "--version"], env, home, timeout=60)
            lines = (done.stdout.strip() or done.stderr.strip() or "?").splitlines()
            shown.append(f"{launcher} --version: {lines[0]}")
        except Exception as err:  # a version is worth no failure
            shown.append(f"{launcher} --version: failed ({err})")
    for package in HARNESSES[harness][2]:
        # npm/: the first wave's adapters; npm24/: the ones installed with Node 24
        manifests = [
            sandbox.harness_cache() / group / "node_modules" / package / "package.json"
            for group in ("npm", "npm24")
        ]
        try:
            manifest = next(m for m in manifests if m.is_file())
            shown.append(f"{package} {json.loads(manifest.read_text())['version']}")
        except (StopIteration, OSError, ValueError, KeyError):
            shown.append(f"{package} ?")
    return "; ".join(shown)


def record(harness: str, claim: str) -> None:
    claims = PROOFS.setdefault(harness, [])
    if claim not in claims:
        claims.append(claim)
