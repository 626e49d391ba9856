"""Helpers for the tests that a plugin's hooks, as the real `skilltool plugins install` carries
them, run in the real harness (`test_skilltool_carries_a_plugins_hooks_and_uninstall_gives_the_
folder_back` in `test_hooks_<harness>.py`), and that uninstall gives the harness's folder back.

The plugin `guard` lives in skilltool's user plugin folder (`~/.local/share/skilltool/plugins`)
of a throwaway home. Its `hooks/hooks.json` runs scripts of its own, named through
`${CLAUDE_PLUGIN_ROOT}`: the label recorder of hooks.py (`rec.py`, copied into the plugin) on
PreToolUse (matcher `Bash`), PostToolUse (`Bash`), UserPromptSubmit, SessionStart and Stop, and a
gate (`gate.py`) on PreToolUse that exits 2 when the tool's input holds `BLOCKME`. The model
(a loopback stub) runs two shell commands: `touch <work>/BLOCKME`, which the gate blocks, then
`touch <work>/ran`, which runs; then it answers `done`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conformance import hooks as H
from tests.conformance.homes import REPO, TIMEOUT
from tests.conformance.sandbox import harness_env

PLUGIN = "guard"
USER_PLUGINS = ".local/share/skilltool/plugins"
EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop")
GATE = """\
import sys
if "BLOCKME" in sys.stdin.read():
    sys.stderr.write("guard blocks BLOCKME\\n")
    sys.exit(2)
"""


def guard_plugin(home: Path) -> Path:
    """The plugin `guard` in the home's user plugin folder, its hooks naming its own scripts
    through `${CLAUDE_PLUGIN_ROOT}`."""
    root = home / USER_PLUGINS / PLUGIN
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin/plugin.json").write_text(json.dumps({"name": PLUGIN}) + "\n")
    H.recorder(root)
    (root / "gate.py").write_text(GATE)

    def group(event: str, *commands: str) -> dict[str, object]:
        found: dict[str, object] = {"matcher": "Bash"} if "Tool" in event else {}
        found["hooks"] = [{"type": "command", "command": c} for c in commands]
        return found

    rec = "python3 ${CLAUDE_PLUGIN_ROOT}/rec.py {event} 0"
    hooks = {e: [group(e, rec.replace("{event}", e))] for e in EVENTS}
    hooks["PreToolUse"].append(group("PreToolUse", "python3 ${CLAUDE_PLUGIN_ROOT}/gate.py"))
    (root / "hooks").mkdir()
    (root / "hooks/hooks.json").write_text(json.dumps({"hooks": hooks}, indent=2) + "\n")
    return root


def skilltool(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real `python -m skilltool plugins ARGS --home HOME`, HOME and XDG in the sandbox,
    no system-wide plugin folder; it must exit 0 with no traceback."""
    env = harness_env(home)
    env.update(PYTHONPATH=str(REPO), XDG_DATA_DIRS=str(home.parent / "no-system-plugins"))
    done = subprocess.run(
        [sys.executable, "-m", "skilltool", "plugins", *args, "--home", str(home)],
        env=env, cwd=home, capture_output=True, encoding="utf-8", timeout=TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    return done


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (symlinks as their target), by its path relative to it."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            found[str(path.relative_to(folder))] = b"-> " + str(path.readlink()).encode()
        elif path.is_file():
            found[str(path.relative_to(folder))] = path.read_bytes()
    return found


def written(output: str, home: Path) -> list[Path]:
    """The files `install` says it wrote (`~` for the home)."""
    found = []
    for line in output.splitlines():
        words = line.split()
        if len(words) == 3 and words[0] == "wrote":
            found.append(home / words[2].removeprefix("~/"))
    return found


def given_back(folder: Path, before: dict[str, bytes], wrote: list[Path]) -> list[str]:
    """Check the harness's folder after uninstall: every file that was there before install is
    there with the same bytes, none skilltool wrote is left, nor any file holding its marker,
    nor a new link (skilltool links skills). Returns the files that are new: the harness's own, written during its run."""
    after = snapshot(folder)
    assert {k: v for k, v in after.items() if k in before} == before
    assert [p for p in wrote if p.exists() or p.is_symlink()] == []
    assert [k for k, v in after.items() if b"rendered by skilltool" in v] == []
    assert [k for k in after if k not in before and (folder / k).is_symlink()] == []
    return sorted(set(after) - set(before))


def shell_command(done_calls: int, work: Path) -> str | None:
    """The shell command the model runs after `done_calls` results: the blocked one, the one
    that runs, then none."""
    commands = [f"touch {work}/BLOCKME", f"touch {work}/ran"]
    return commands[done_calls] if done_calls < len(commands) else None
