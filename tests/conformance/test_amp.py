"""Amp loads what skilltool writes for it, as its own listings show (a prompt needs an account
at ampcode.com, so no model is asked): `amp skill list --json` lists the skills linked into
~/.agents/skills, once each though Claude Code's ~/.claude/skills links them too; `amp mcp list`
lists the plugin's server beside the user's own, and `amp tools list` starts it and lists its
tool (the server records the values it was given); no agent or command is written, and the
user's settings.json is left as it was.

The listings need AMP_API_KEY and AMP_URL: any key, and a local port where nothing answers.
One home holds every plugin, and the three listings run side by side, once."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("skilltool.harnesses.amp")

from tests.conformance.homes import (
    AMP,
    REPO,
    TIMEOUT,
    AgentCase,
    bundled_case,
    harness_dirs,
    tricky_case,
)
from tests.conformance.sandbox import DEAD_PROXY, harness_env, make_home, side_by_side
from tests.conformance.stub import mcp_server
from tests.conformance.support import Proven, need
from tests.helpers import build_file_tree

pytestmark = pytest.mark.conformance

SERVER = "plugin-srv"
USER = {"amp.showCosts": False, "amp.mcpServers": {"mine": {"command": "/bin/true"}}}
LISTINGS = (("skill", "list", "--json"), ("mcp", "list"), ("tools", "list"))
# any key, and Amp's server at a port where nothing listens: its listings run offline
OFFLINE = {"AMP_API_KEY": "sk-conformance", "AMP_URL": DEAD_PROXY, "AMP_SKT_PROBE": "expanded"}


@dataclass
class World:
    root: Path
    home: Path
    cases: tuple[AgentCase, ...]
    env: dict[str, str]  # skilltool's
    install: str  # install's output
    listed: dict[str, str]  # "skill" / "mcp" / "tools" -> that listing's stdout (+ stderr)
    seen: Path  # what the plugin's server was given
    settings_before: bytes  # the user's settings.json before install


def skilltool_run(world_env: dict[str, str], home: Path, *args: str) -> str:
    argv = [sys.executable, "-m", "skilltool", "plugins", *args, "--home", str(home)]
    done = subprocess.run(
        argv, env=world_env, cwd=home, capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    return done.stdout + done.stderr


def listings(home: Path, cwd: Path) -> dict[str, str]:
    """Amp's three listings, run side by side in `cwd`; the skills' JSON is stdout alone."""
    env = harness_env(home, OFFLINE)
    done = side_by_side([(("amp", *argv), cwd) for argv in LISTINGS], env, TIMEOUT)
    return {
        argv[0]: d.stdout if argv[0] == "skill" else d.stdout + d.stderr
        for argv, d in zip(LISTINGS, done, strict=True)
    }


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    need("amp")
    root = tmp_path_factory.mktemp("conformance-amp")
    cases = (bundled_case(), tricky_case(root))
    home = make_home(root)
    harness_dirs(home, cases[0].name, AMP)
    (home / ".claude").mkdir()  # Claude Code set up too: the skills are linked there as well
    seen = root / "seen.txt"
    script = root / "srv.py"
    record = f'open({str(seen)!r}, "a").write(sys.argv[1] + " " + os.environ["PROBE"] + "\\n")\n'
    script.write_text(mcp_server(record, ping=True))
    server = {
        "command": sys.executable,
        "args": [str(script), "${AMP_SKT_PROBE}"],
        "env": {"PROBE": "${AMP_SKT_PROBE}"},
    }
    cmds = build_file_tree(
        root / "cmds",
        {
            ".claude-plugin/plugin.json": '{"name": "cmds", "version": "1.0.0"}\n',
            ".mcp.json": json.dumps({"mcpServers": {SERVER: server}}) + "\n",
            "commands/greet.md": "---\ndescription: Greet someone\n---\nSay hello\n",
        },
    )
    settings = home / ".config/amp/settings.json"
    settings.write_text(json.dumps(USER, indent=2) + "\n")
    before = settings.read_bytes()
    env = harness_env(home, {"PYTHONPATH": str(REPO)})
    env["XDG_DATA_DIRS"] = str(root / "no-system-plugins")
    env["SKILLTOOL_PLUGINS"] = ":".join(str(c.plugin) for c in cases) + f":{cmds}"
    output = skilltool_run(env, home, "install")
    work = root / "work"
    work.mkdir()
    return World(root, home, cases, env, output, listings(home, work), seen, before)


def test_the_linked_skills_are_listed_once_each_from_agents_skills(
    world: World, proven: Proven
) -> None:
    listed = json.loads(world.listed["skill"])
    mine = [s for s in listed["skills"] if s["source"] != "builtin"]
    names = [s["name"] for s in mine]
    skills = [skill for case in world.cases for skill in case.skills]
    assert sorted(names) == sorted(skills), listed  # once each, nothing else
    for skill in mine:
        assert skill["baseDir"] == (world.home / ".agents/skills" / skill["name"]).as_uri()
    assert not listed["errors"], listed["errors"]
    for skill in skills:  # Claude Code's links, which Amp reads too, and lists no second time
        assert (world.home / ".claude/skills" / skill).is_symlink()
    assert sorted(p.name for p in (world.home / ".config/amp").iterdir()) == ["settings.json"]
    proven(
        "amp",
        f"`amp skill list --json`: the {len(skills)} skills linked into ~/.agents/skills, each "
        "once though ~/.claude/skills links them too, with no error; nothing else is written "
        "into ~/.config/amp for them",
    )


def test_the_plugins_server_is_listed_and_started_with_its_variables_expanded(
    world: World, proven: Proven
) -> None:
    out = world.install
    assert f"added     amp      mcp {SERVER} in ~/.config/amp/settings.json" in out, out
    listed = world.listed["mcp"]
    assert f"  {SERVER}  command  {sys.executable} " in listed, listed
    assert "  mine " in listed and "/bin/true" in listed, listed
    tools = world.listed["tools"]
    # it started the server and asked its tools; a tool's name has "_" for the server's "-"
    assert f"mcp__{SERVER.replace('-', '_')}__ping  ping" in tools, tools
    assert set(world.seen.read_text().splitlines()) == {"expanded expanded"}
    document = json.loads((world.home / ".config/amp/settings.json").read_text())
    assert document["amp.showCosts"] is False and "amp" not in document
    assert document["amp.mcpServers"]["mine"] == {"command": "/bin/true"}
    proven(
        "amp",
        f'the server {SERVER} is an entry under the one key "amp.mcpServers" of '
        "~/.config/amp/settings.json beside the user's own server and key; `amp mcp list` lists "
        "both; `amp tools list` starts it and lists its tool, and it gets ${VAR} in args and env "
        "expanded",
    )


def test_agents_and_commands_are_not_written_and_said_once(world: World, proven: Proven) -> None:
    said = [line for line in world.install.splitlines() if line.startswith("skipped   amp:")]
    assert any("reads no agent files" in line for line in said), world.install
    assert any("reads no command files" in line for line in said), world.install
    proven(
        "amp",
        "no agent or command is written for Amp (none of its listings shows such files); "
        "install says so in a line for the agents and one for the plugin's commands",
    )


def test_launch_refuses(world: World, proven: Proven) -> None:
    case = world.cases[0]
    argv = [sys.executable, "-m", "skilltool", "plugins", "launch", case.name]
    argv += ["--harness", "amp", "--home", str(world.home)]
    done = subprocess.run(argv, env=world.env, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 1, done.stdout
    assert "Amp cannot start as an agent over ACP" in done.stderr, done.stderr
    proven("amp", "`skilltool plugins launch --harness amp` says why it cannot and exits 1")


def test_the_users_settings_are_left_alone(world: World, proven: Proven) -> None:
    home = world.home
    skilltool_run(world.env, home, "uninstall")
    assert (home / ".config/amp/settings.json").read_bytes() == world.settings_before
    skilltool_run(world.env, home, "install")  # as it was, for the other rows
    proven(
        "amp",
        "uninstall leaves ~/.config/amp/settings.json byte for byte as it was (the user's own "
        "server and key)",
    )
