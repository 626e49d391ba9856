"""A plugin's hooks as skilltool carries them, for the tests that run the files it writes in the
real binaries (`test_skilltool_carries_a_plugins_hooks_and_uninstall_gives_the_folder_back` in
test_hooks_opencode.py, test_hooks_pi.py, test_hooks_qwen.py and test_hooks_vibe.py).

`guard_plugin(home)` makes the plugin `guard` in skilltool's user plugin folder
(`~/.local/share/skilltool/plugins/guard`) with the payload recorder of hooks.py written into
it and a `hooks/hooks.json` that runs it on PreToolUse (matcher `Bash`), PostToolUse (`Bash`),
UserPromptSubmit, SessionStart and Stop as `${CLAUDE_PLUGIN_ROOT}/rec.py
${CLAUDE_PLUGIN_ROOT}/records.jsonl <event>`: a record is there only when skilltool wrote the
plugin's folder in for both. The recorder exits 2 on a payload holding `BLOCKME` and denies one
holding `DENYME` (Claude's JSON answer).

`skilltool(home, …)` runs the real `python -m skilltool plugins …` with HOME and the XDG
variables in the sandbox; `files(folder)` is what a harness's folder holds (path → bytes), and
`given_back` checks that uninstall left it as it was before install, but for the files the
harness itself writes while it runs (named per harness by the caller).
"""

from __future__ import annotations

import json
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from tests.conformance.carried import snapshot as files
from tests.conformance.hooks import write_payload_recorder
from tests.conformance.projects import skilltool_in

PLUGIN = "guard"
EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
ROOT = "${CLAUDE_PLUGIN_ROOT}"


def guard_plugin(home: Path) -> tuple[Path, Path]:
    """The plugin's folder and the file its recorder appends to (inside it)."""
    folder = home / ".local/share/skilltool/plugins" / PLUGIN
    (folder / ".claude-plugin").mkdir(parents=True)
    manifest = {"name": PLUGIN, "version": "1.0.0"}
    (folder / ".claude-plugin/plugin.json").write_text(json.dumps(manifest) + "\n")
    _, out = write_payload_recorder(folder)

    def group(event: str) -> dict[str, Any]:
        command = f"{ROOT}/rec.py {ROOT}/{out.name} {event}"
        found: dict[str, Any] = {"hooks": [{"type": "command", "command": command}]}
        if event.endswith("ToolUse"):
            found = {"matcher": "Bash", **found}
        return found

    (folder / "hooks").mkdir()
    hooks = {"hooks": {event: [group(event)] for event in EVENTS}}
    (folder / "hooks/hooks.json").write_text(json.dumps(hooks, indent=2) + "\n")
    return folder, out


def skilltool(home: Path, *args: str) -> str:
    """`python -m skilltool plugins ARGS`, the real CLI; fails the test unless it exits 0."""
    done = skilltool_in(home, home, "plugins", *args)
    return done.stdout + done.stderr


def written(folder: Path, before: dict[str, bytes]) -> dict[str, bytes]:
    """The files install added to `folder`; it changed none that was there."""
    found = {k: v for k, v in files(folder).items() if before.get(k) != v}
    assert not set(found) & set(before), sorted(set(found) & set(before))
    return found


def given_back(
    folder: Path, before: dict[str, bytes], wrote: dict[str, bytes], runtime: tuple[str, ...]
) -> None:
    """After uninstall: every file skilltool wrote is gone, every file that was there before
    install is there with the same bytes, and any other file matches `runtime` (globs of the
    files the harness writes while it runs: sessions, caches, logs, its own bookkeeping)."""
    after = files(folder)
    assert not set(wrote) & set(after), sorted(set(wrote) & set(after))
    changed = sorted(k for k in before if after.get(k) != before[k])
    assert not changed, {k: after.get(k) for k in changed}
    others = sorted(k for k in after if k not in before)
    assert all(any(fnmatch(k, g) for g in runtime) for k in others), others
