"""Project scope (Claude Code, Codex, Copilot CLI): a fixture plugin rendered by the real
`skilltool plugins install --home`, and a git repository to copy the renderings into.

`rendered(root, tag, harnesses)` installs the plugin `demo` (skill `demo-skill`, agent
`helper`, command `hello`, MCP server `demo-srv`) into a fresh home that has only those
harnesses' directories and returns that home: its files are the exact shapes skilltool
writes, which the tests copy into a repository's folders. `tag` goes into every
description and body (`USER`, `PROJECT`) so a test can tell two copies of one name apart.

The MCP server is `RECORDER`, a stdio server that appends a line to the file named by its
first argument when it starts (and answers `initialize` and `tools/list` with one tool,
`ping`): a file that exists proves the harness started it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conformance import sandbox
from tests.conformance.homes import REPO, TIMEOUT

RECORDER = """import json, sys
with open(sys.argv[1], "a") as f:
    f.write("started\\n")
for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        result = {"protocolVersion": message.get("params", {}).get("protocolVersion", "2024-11-05"),
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "recorder", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "ping", "description": "ping",
                             "inputSchema": {"type": "object", "properties": {}}}]}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\\n")
    sys.stdout.flush()
"""

SKILL = "demo-skill"
AGENT = "helper"
COMMAND = "hello"
SERVER = "demo-srv"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def make_plugin(root: Path, tag: str, flag: Path) -> Path:
    """The plugin `demo`, its texts marked with `tag`; its server writes `flag` on start."""
    plugin = root / "plugins" / "demo"
    write(plugin / ".claude-plugin/plugin.json", '{"name": "demo", "version": "1.0.0"}\n')
    write(
        plugin / "skills" / SKILL / "SKILL.md",
        f"---\nname: {SKILL}\ndescription: {tag} demo skill. Use when testing.\n---\n"
        f"{tag} skill body.\n",
    )
    write(
        plugin / "agents" / f"{AGENT}.md",
        f"---\nname: {AGENT}\ndescription: {tag} helper agent\ntools: Read, Grep\n"
        f"skills: [{SKILL}]\n---\n{tag} helper body.\n",
    )
    write(
        plugin / "commands" / f"{COMMAND}.md",
        f"---\ndescription: {tag} hello command\n---\n{tag} HELLO BODY $ARGUMENTS.\n",
    )
    server = {"command": "${CLAUDE_PLUGIN_ROOT}/bin/srv", "args": [str(flag)]}
    write(plugin / ".mcp.json", json.dumps({"mcpServers": {SERVER: server}}, indent=2) + "\n")
    srv = write(plugin / "bin/srv", f"#!{sys.executable}\n{RECORDER}")
    srv.chmod(0o755)
    return plugin


def rendered(root: Path, tag: str, harnesses: tuple[str, ...], flag: Path) -> Path:
    """A home after the real `skilltool plugins install --home` of the plugin marked `tag`."""
    plugin = make_plugin(root / "src", tag, flag)
    home = sandbox.make_home(root)
    for harness in harnesses:
        (home / f".{harness}").mkdir(parents=True, exist_ok=True)
    env = sandbox.harness_env(home)
    env.update(
        PYTHONPATH=str(REPO),
        XDG_DATA_DIRS=str(root / "no-system-plugins"),
        SKILLTOOL_PLUGINS=str(plugin.parent),
    )
    done = subprocess.run(
        [sys.executable, "-m", "skilltool", "plugins", "install", "--home", str(home)],
        env=env,
        cwd=home,
        capture_output=True,
        encoding="utf-8",
        timeout=TIMEOUT,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    return home


def git_repo(path: Path) -> Path:
    """`git init` at `path`, with the subfolder src/deep (the tests' working directory)."""
    (path / "src/deep").mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=TIMEOUT)
    return path


def copy_plugin(plugin_skill: Path, repo: Path) -> Path:
    """The plugin's skill folder, copied into repo/plugins/demo/skills/<skill>."""
    target = repo / "plugins/demo/skills" / plugin_skill.name
    target.mkdir(parents=True, exist_ok=True)
    for f in plugin_skill.iterdir():
        (target / f.name).write_bytes(f.read_bytes())
    return target


def relative_link(link: Path, target: Path) -> None:
    """`link -> <relative path to target>`, as a committed symlink in a repository would be."""
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(os.path.relpath(target, link.parent))


def skill_file(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\nBody of {name}.\n"


def with_flag(entry: dict[str, object], flag: Path) -> dict[str, object]:
    """An MCP entry as rendered, its recorder writing another flag file."""
    return {**entry, "args": [str(flag)]}
