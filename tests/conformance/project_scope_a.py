"""Project scope (Claude Code, Codex, Copilot CLI): a fixture plugin rendered by the real
`skilltool plugins install --home`, and a git repository to copy the renderings into.

`rendered(root, tag, harnesses)` installs the plugin `demo` (skill `demo-skill`, agent
`helper`, command `hello`, MCP server `demo-srv`) into a fresh home that has only those
harnesses' directories and returns that home: its files are the exact shapes skilltool
writes, which the tests copy into a repository's folders. `tag` goes into every
description and body (`USER`, `PROJECT`) so a test can tell two copies of one name apart.

The MCP server is `RECORDER` (stub.py's `MCP_FLAG_RECORDER`), a stdio server that appends a line to the file named by its
first argument when it starts (and answers `initialize` and `tools/list` with one tool,
`ping`): a file that exists proves the harness started it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.conformance import sandbox
from tests.conformance.homes import REPO, TIMEOUT
from tests.conformance.projects import skilltool_in
from tests.conformance.stub import MCP_FLAG_RECORDER as RECORDER

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


# -- the real `skilltool plugins add ./plugins/team --project` --------------------------------

TEAM = "team"
TEAM_SKILL, TEAM_AGENT, TEAM_COMMAND, TEAM_SERVER = "team-skill", "team-agent", "team-cmd", "team-srv"  # fmt: skip


@dataclass
class Team:
    """`root/work/repo` (git, `plugins/team` added by skilltool with --project), its sibling
    `root/work/sibling`, the home skilltool ran in (only the named harnesses' folders), and
    the file the team's MCP server writes when started (the recorder lives outside the repo:
    skilltool does not carry a server naming the project's own path)."""

    root: Path
    home: Path
    repo: Path
    sibling: Path
    flag: Path
    added: str  # what `plugins add` printed

    @property
    def deep(self) -> Path:
        return self.repo / "src/deep"


def team_plugin(repo: Path, recorder: Path, flag: Path) -> Path:
    """`repo/plugins/team`: a skill, an agent, a command and a stdio MCP server, each text
    marked TEAM."""
    plugin = repo / "plugins" / TEAM
    write(plugin / ".claude-plugin/plugin.json", json.dumps({"name": TEAM, "version": "1.0.0"}))
    write(
        plugin / "skills" / TEAM_SKILL / "SKILL.md",
        f"---\nname: {TEAM_SKILL}\ndescription: TEAM skill. Use when testing.\n---\n"
        "TEAM skill body.\n",
    )
    write(
        plugin / "agents" / f"{TEAM_AGENT}.md",
        f"---\nname: {TEAM_AGENT}\ndescription: TEAM agent\ntools: Read, Grep\n---\n"
        "TEAM agent body.\n",
    )
    write(
        plugin / "commands" / f"{TEAM_COMMAND}.md",
        "---\ndescription: TEAM command\n---\nTEAM COMMAND BODY $ARGUMENTS.\n",
    )
    server = {"command": sys.executable, "args": [str(recorder), str(flag)]}
    write(plugin / ".mcp.json", json.dumps({"mcpServers": {TEAM_SERVER: server}}, indent=2))
    return plugin


def team_project(root: Path, harnesses: tuple[str, ...]) -> Team:
    """A git repository with `plugins/team`, and `skilltool plugins add ./plugins/team
    --project` run in it; the home has only those harnesses' folders (besides make_home's
    ~/.codex), so the manifest is written with `harnesses = [...]` naming just them."""
    work = root / "work"
    repo = git_repo(work / "repo")
    sibling = work / "sibling"
    sibling.mkdir()
    recorder = write(root / "outside/recorder.py", RECORDER)
    flag = root / "outside/started"
    team_plugin(repo, recorder, flag)
    listed = ", ".join(f'"{h}"' for h in harnesses)
    write(repo / "skilltool.toml", f"harnesses = [{listed}]\n")
    home = sandbox.make_home(root)
    for harness in harnesses:
        (home / f".{harness}").mkdir(exist_ok=True)
    done = skilltool_in(repo, home, "plugins", "add", f"./plugins/{TEAM}", "--project")
    assert done.stdout.startswith(f"project   {repo}\n"), done.stdout
    return Team(root, home, repo, sibling, flag, done.stdout)


def team_status(team: Team, harness: str) -> dict[str, tuple[str, str | None]]:
    """`skilltool plugins status --json` run in repo/src/deep: for `harness`, each of the
    team's items -> (state, where): a skill's is its harness link's (Claude's, where "<harness>
    link") or the shared `.agents/skills` link's; an item not carried there is ("not carried",
    reason)."""
    done = skilltool_in(team.deep, team.home, "plugins", "status", "--json")
    report = json.loads(done.stdout)
    assert report["home"] == str(team.repo), report["home"]
    [plugin] = [p for p in report["plugins"] if p["name"] == TEAM]
    found: dict[str, tuple[str, str | None]] = {}
    [skill] = plugin["skills"]
    if harness in skill["harness_links"]:  # its own folder's link (Claude's .claude/skills)
        found[f"skill {skill['name']}"] = (skill["harness_links"][harness], f"{harness} link")
    else:  # the shared .agents/skills
        found[f"skill {skill['name']}"] = (skill["link"], report["skills_dir"])
    for kind, key, items in (
        ("agent", "renderings", plugin["agents"]),
        ("command", "renderings", plugin["slash_commands"]),
        ("mcp", "entries", plugin["mcp_servers"]),
    ):
        for item in items:
            for entry in item[key]:
                if entry["harness"] == harness:
                    found[f"{kind} {item['name']}"] = (entry["state"], entry["target"] or entry["reason"])  # fmt: skip
    for entry in plugin["commands_not_carried"]:
        if entry["harness"] == harness:
            found[f"command {TEAM_COMMAND}"] = ("not carried", entry["reason"])
    return found
