"""A repository with a plugin's items in its own folders, for the project-scope findings
(test_project_<harness>.py, docs/findings-project-b.md).

The files are skilltool's own renderings: `render(root, side)` runs the real
`python -m skilltool plugins install --home` for a plugin `proj` (skill `proj-skill`, agent
`proj-agent`, command `proj-cmd`, MCP server `proj-srv`) into a throwaway home where OpenCode,
Kilo, Gemini and Qwen are set up; each test module copies what it needs from there into the
repository's folders. `side` ("home" or "project") is written into every description and
body, and the MCP server is a recorder that appends `<side> <cwd>` to `started.log` when it
is launched (and answers `initialize` and `tools/list`), so that a listing or a model
request says which of two same-named items the harness took, and the log says which server
it started.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tests.conformance.homes import REPO, TIMEOUT, harness_dirs
from tests.conformance.sandbox import harness_env, make_home
from tests.conformance.stub import mcp_log_recorder

PLUGIN = "proj"
SKILL, AGENT, COMMAND, SERVER = "proj-skill", "proj-agent", "proj-cmd", "proj-srv"
HARNESSES = ("opencode", "kilo", "gemini", "qwen")
RECORDER = mcp_log_recorder("started.log", cwd=True)


def skilltool_in(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real `python -m skilltool <args>` as a subprocess in `cwd`, HOME the temp home."""
    env = harness_env(home)
    env.update(PYTHONPATH=str(REPO), XDG_DATA_DIRS=str(home.parent / "no-system-plugins"))
    done = subprocess.run(
        [sys.executable, "-m", "skilltool", *args],
        env=env, cwd=cwd, capture_output=True, encoding="utf-8", timeout=TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    return done


def plugin(root: Path, side: str) -> Path:
    """The plugin `proj`, every text naming `side`; its server is the recorder."""
    base = root / "plugins" / PLUGIN
    files = {
        ".claude-plugin/plugin.json": json.dumps({"name": PLUGIN, "version": "1.0.0"}) + "\n",
        f"skills/{SKILL}/SKILL.md": f"---\nname: {SKILL}\ndescription: The {side} skill. Use in "
        f"tests.\n---\n\n# {SKILL}\n\nBody of the {side} skill.\n",
        f"agents/{AGENT}.md": f"---\nname: {AGENT}\ndescription: The {side} agent\n"
        f"tools: Read, Grep\n---\n\nYou are the {side} agent. Answer briefly and carefully.\n",
        f"commands/{COMMAND}.md": f"---\ndescription: The {side} command\n---\n"
        f"Run the {side} command on $ARGUMENTS.\n",
        ".mcp.json": json.dumps(
            {
                "mcpServers": {
                    SERVER: {
                        "command": sys.executable,
                        "args": ["${CLAUDE_PLUGIN_ROOT}/bin/rec.py", side],
                    }
                }
            }
        )
        + "\n",
        "bin/rec.py": RECORDER,
    }
    for relative, text in files.items():
        (base / relative).parent.mkdir(parents=True, exist_ok=True)
        (base / relative).write_text(text, encoding="utf-8")
    return base


def render(root: Path, side: str, harnesses: tuple[str, ...] = HARNESSES) -> Path:
    """A home after the real `skilltool plugins install` of `proj` (`side` texts)."""
    root.mkdir(parents=True, exist_ok=True)
    plugin(root, side)
    home = make_home(root)
    harness_dirs(home, AGENT, harnesses)
    env = harness_env(home, {"PYTHONPATH": str(REPO), "SKILLTOOL_PLUGINS": str(root / "plugins"),
                             "XDG_DATA_DIRS": str(root / "no-system-plugins")})  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "skilltool", "plugins", "install", "--home", str(home)],
        env=env, cwd=home, capture_output=True, encoding="utf-8", timeout=TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    return home


def started(log: Path) -> list[str]:
    """The recorder's log: `<side> <cwd>` per launch."""
    return log.read_text().splitlines() if log.exists() else []


@dataclass
class World:
    """`root/outer/repo` (a git repository, started in `repo/src/deep`), `root/outside` (a
    sibling folder), a home with the harness set up but none of `proj` (`bare`), and one
    after `skilltool plugins install` of the `home` side (`user`)."""

    root: Path
    repo: Path
    deep: Path
    outside: Path
    bare: Path
    user: Path
    rendered: Path  # the home `render(…, "project")` made: the files the repo gets
    plugin_dir: Path  # the project side's plugin, copied into the repo
    log: Path  # the project side's recorder log (the rendered entry names the render's plugin)
    user_log: Path  # the home side's
    extra: dict[str, Path] = field(default_factory=dict)

    def started(self) -> list[str]:
        return started(self.log)

    def place(self, relative: str, source: Path | str) -> Path:
        """Copy a rendered file (or write a text) to `repo/relative`."""
        target = self.repo / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(source, Path):
            shutil.copyfile(source, target)
        else:
            target.write_text(source, encoding="utf-8")
        return target

    def link_skill(self, folder: str) -> Path:
        """`repo/<folder>/proj-skill -> ../../plugins/proj/skills/proj-skill` (relative)."""
        link = self.repo / folder / SKILL
        link.parent.mkdir(parents=True, exist_ok=True)
        depth = len(Path(folder).parts)
        os.symlink(os.path.join(*[".."] * depth, "plugins", PLUGIN, "skills", SKILL), link)
        return link

    def skill_copy(self, folder: str, name: str) -> Path:
        """A real folder `repo/<folder>/<name>/SKILL.md`: the project skill renamed."""
        text = (self.plugin_dir / "skills" / SKILL / "SKILL.md").read_text()
        return self.place(
            f"{folder}/{name}/SKILL.md", text.replace(f"name: {SKILL}", f"name: {name}")
        )


def world(root: Path, harnesses: tuple[str, ...] = HARNESSES) -> World:
    rendered = render(root / "render-project", "project", harnesses)
    user = render(root / "render-home", "home", harnesses)
    repo = root / "outer/repo"
    deep = repo / "src/deep"
    deep.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    plugin_dir = repo / "plugins" / PLUGIN
    shutil.copytree(root / "render-project/plugins" / PLUGIN, plugin_dir)
    outside = root / "outside"
    outside.mkdir()
    bare = make_home(root / "bare")
    harness_dirs(bare, AGENT, harnesses)
    return World(root, repo, deep, outside, bare, user, rendered, plugin_dir,
                 root / "render-project/plugins" / PLUGIN / "bin/started.log",
                 root / "render-home/plugins" / PLUGIN / "bin/started.log")  # fmt: skip


def json_entry(path: Path, *keys: str) -> object:
    """A value inside a rendered JSON config: its MCP entry, in the harness's own shape."""
    value: object = json.loads(path.read_text())
    for key in keys:
        assert isinstance(value, dict), value
        value = value[key]
    return value


# ---------------------------------------------------------------------------------------------
# skilltool's own project scope, end to end: `skilltool plugins add ./plugins/team --project`
# run in a repository, then the real harness started inside it and beside it.

TEAM = "team"
TEAM_SKILL, TEAM_AGENT, TEAM_COMMAND, TEAM_SERVER = "team-skill", "team-agent", "team-cmd", "team-srv"  # fmt: skip
# where skilltool renders each item for a harness, from the repo root (the brief of the project
# scope, and what docs/findings-project-b.md found each binary reads)
TEAM_FILES: dict[str, dict[str, str]] = {
    "opencode": {"agent": f".opencode/agent/{TEAM_AGENT}.md",
                 "command": f".opencode/command/{TEAM_COMMAND}.md",
                 "mcp": ".opencode/opencode.json"},
    "kilo": {"agent": f".kilo/agents/{TEAM_AGENT}.md", "command": f".kilo/command/{TEAM_COMMAND}.md",
             "mcp": ".kilo/kilo.jsonc"},
    "gemini": {"agent": f".gemini/agents/{TEAM_AGENT}.md",
               "command": f".gemini/commands/{TEAM_COMMAND}.toml", "mcp": ".gemini/settings.json"},
    "qwen": {"agent": f".qwen/agents/{TEAM_AGENT}.md",
             "command": f".qwen/commands/{TEAM_COMMAND}.toml", "mcp": ".qwen/settings.json"},
    "droid": {"agent": f".factory/droids/{TEAM_AGENT}.md",
              "command": f".factory/commands/{TEAM_COMMAND}.md", "mcp": ".factory/mcp.json"},
    "qoder": {"agent": f".qoder/agents/{TEAM_AGENT}.md",
              "command": f".qoder/commands/{TEAM_COMMAND}.md", "mcp": ".qoder/settings.json"},
}  # fmt: skip
_ITEM = re.compile(r"^  (skill|agent|mcp|command)\s+/?(\S+)\s+(.*)$")
_RENDERING = re.compile(r"^    (\w+)\s+(current|harness absent|\w+(?: \w+)*?)\s{2,}(.*)$")


@dataclass
class Team:
    """`root/outer/repo` (git, holding the plugin `plugins/team`), `root/outside` (a sibling
    folder), `home` (only the harness's own folder) and the recorder's log, kept outside the
    repository (a server naming the project's path is not carried into a project)."""

    root: Path
    repo: Path
    deep: Path
    outside: Path
    home: Path
    log: Path
    added: str = ""  # `plugins add`'s output
    status: str = ""  # `plugins status`'s output, run in repo/src/deep

    def started(self) -> list[str]:
        return started(self.log)

    def skilltool(self, *args: str, cwd: Path | None = None) -> str:
        """The real `python -m skilltool ARGS`, HOME the team's home, run in the repository."""
        done = skilltool_in(cwd or self.repo, self.home, *args)
        return done.stdout + done.stderr


def team_plugin(repo: Path, recorder: Path) -> Path:
    """`repo/plugins/team`: a skill, an agent, a command and a stdio server (the recorder)."""
    base = repo / "plugins" / TEAM
    server = {"command": sys.executable, "args": [str(recorder), "team"]}
    files = {
        ".claude-plugin/plugin.json": json.dumps({"name": TEAM, "version": "1.0.0"}) + "\n",
        f"skills/{TEAM_SKILL}/SKILL.md": f"---\nname: {TEAM_SKILL}\ndescription: The team "
        f"skill. Use in tests.\n---\n\n# {TEAM_SKILL}\n\nBody of the team skill.\n",
        f"agents/{TEAM_AGENT}.md": f"---\nname: {TEAM_AGENT}\ndescription: The team agent\n"
        "tools: Read, Grep\n---\n\nYou are the team agent. Answer briefly.\n",
        f"commands/{TEAM_COMMAND}.md": "---\ndescription: The team command\n---\n"
        "Run the team command on $ARGUMENTS.\n",
        ".mcp.json": json.dumps({"mcpServers": {TEAM_SERVER: server}}) + "\n",
    }
    for relative, text in files.items():
        (base / relative).parent.mkdir(parents=True, exist_ok=True)
        (base / relative).write_text(text, encoding="utf-8")
    return base


def team(root: Path, harness: str) -> Team:
    """The repository after the real `skilltool plugins add ./plugins/team --project`, run in
    it with a home where only `harness` is set up; then `skilltool plugins status` in
    repo/src/deep. The test grants any trust the harness asks for; skilltool grants none."""
    recorder = root / "server/rec.py"  # outside the repository: an absolute path
    recorder.parent.mkdir(parents=True)
    recorder.write_text(RECORDER, encoding="utf-8")
    repo = root / "outer/repo"
    (repo / "src/deep").mkdir(parents=True)
    (root / "outside").mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    team_plugin(repo, recorder)
    home = make_home(root)
    harness_dirs(home, TEAM_AGENT, (harness,))
    t = Team(root, repo, repo / "src/deep", root / "outside", home, recorder.parent / "started.log")
    t.added = t.skilltool("plugins", "add", f"./plugins/{TEAM}", "--project")
    t.status = t.skilltool("plugins", "status", "-v", cwd=t.deep)  # each item, per harness
    return t


def status_renderings(status: str) -> dict[tuple[str, str, str], tuple[str, str]]:
    """`plugins status`: (kind, item, harness) -> (state, where); a skill's harness is ''."""
    found: dict[tuple[str, str, str], tuple[str, str]] = {}
    item: tuple[str, str] | None = None
    for line in status.splitlines():
        if m := _ITEM.match(line):
            item = (m.group(1), m.group(2))
            if m.group(1) == "skill":
                found[("skill", m.group(2), "")] = (m.group(3).strip(), "")
        elif item and (m := _RENDERING.match(line)):
            found[(*item, m.group(1))] = (m.group(2), m.group(3).strip())
        elif not line.startswith("    "):
            item = None
    return found


def assert_team_current(t: Team, harness: str) -> None:
    """skilltool says it rendered the team's four items for `harness` into the repository,
    they are there, and nothing of them went to the home."""
    assert t.added.splitlines()[0] == f"project   {t.repo}", t.added
    assert t.status.splitlines()[0] == f"project   {t.repo}", t.status
    seen = status_renderings(t.status)
    assert seen[("skill", TEAM_SKILL, "")][0] == "linked", t.status
    files = TEAM_FILES[harness]
    for kind, name in (("agent", TEAM_AGENT), ("command", TEAM_COMMAND), ("mcp", TEAM_SERVER)):
        state, where = seen[(kind, name, harness)]
        assert state == "current" and where.split(" ")[0] == files[kind], (kind, t.status)
        assert (t.repo / files[kind]).is_file(), files[kind]
    link = t.repo / ".agents/skills" / TEAM_SKILL
    assert os.readlink(link) == f"../../plugins/{TEAM}/skills/{TEAM_SKILL}", os.readlink(link)
    assert not [p for p in t.home.rglob("*") if TEAM in p.name], "skilltool wrote into the home"
