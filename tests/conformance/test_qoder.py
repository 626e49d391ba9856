"""Qoder CLI loads what skilltool renders, as its own listings show (a prompt needs a login to
Qoder, so no model is asked): `qodercli skills list` lists the skills linked into
~/.agents/skills and the commands of ~/.qoder/commands, `qodercli agents list` the rendered
agents, `qodercli mcp list` the plugin's server, which it starts (a server records the values
it was given); a user's own agent file and MCP entries are left alone; its ACP server starts no
session before a sign-in.

One home holds every plugin, and its three listings run side by side: each takes about ten
seconds, most of it waiting for Qoder's own servers, which are out of reach here."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("skilltool.harnesses.qoder")

from tests.conformance.acp import AcpClient, AcpError
from tests.conformance.homes import (
    QODER,
    REPO,
    TIMEOUT,
    AgentCase,
    bundled_case,
    harness_dirs,
    rendered_agent,
    tricky_case,
)
from tests.conformance.sandbox import harness_env, make_home, side_by_side
from tests.conformance.stub import mcp_server
from tests.conformance.support import Proven, need
from tests.helpers import build_file_tree

pytestmark = pytest.mark.conformance

COMMANDS = {
    "greet.md": "---\ndescription: Greet someone\n---\nSay hello to $ARGUMENTS\n",
    "pair.md": "---\ndescription: Compare two\n---\nCompare $0 with $1.\n",
    "git/commit.md": "---\ndescription: Commit the work\n---\nCommit $ARGUMENTS\n",
}
SERVER = "plugin-srv"
MINE = "---\nname: mine\ndescription: The user's own agent\n---\nMINE.\n"
LISTINGS = (("skills", "list"), ("agents", "list"), ("mcp", "list"))


@dataclass
class World:
    root: Path
    home: Path
    cases: tuple[AgentCase, ...]
    env: dict[str, str]  # skilltool's
    install: str  # install's output
    listed: dict[str, str]  # "skills" / "agents" / "mcp" -> that listing's stdout + stderr
    seen: Path  # what the plugin's server was given
    settings_before: bytes  # the user's settings.json before install
    doctor: subprocess.CompletedProcess[str]  # `skilltool doctor qoder --json`, run beside them
    qoder_before: dict[Path, bytes]  # ~/.qoder's files (not its logs) before the runs


def skilltool_run(world_env: dict[str, str], home: Path, *args: str) -> str:
    argv = [sys.executable, "-m", "skilltool", "plugins", *args, "--home", str(home)]
    done = subprocess.run(
        argv, env=world_env, cwd=home, capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    return done.stdout + done.stderr


def listings(
    home: Path,
    cwd: Path,
    extra: dict[str, str] | None = None,
    which: tuple[tuple[str, ...], ...] = LISTINGS,
) -> dict[str, str]:
    """Qoder's listings (by default its three), run side by side in `cwd`."""
    env = harness_env(home, {"QODER_SKT_PROBE": "expanded", **(extra or {})})
    done = side_by_side([(("qodercli", *argv), cwd) for argv in which], env, TIMEOUT)
    return {argv[0]: d.stdout + d.stderr for argv, d in zip(which, done, strict=True)}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    need("qoder")
    root = tmp_path_factory.mktemp("conformance-qoder")
    cases = (bundled_case(), tricky_case(root))
    home = make_home(root)
    harness_dirs(home, cases[0].name, QODER)
    (home / ".qoder/agents").mkdir()
    (home / ".qoder/agents/mine.md").write_text(MINE)
    seen = root / "seen.txt"
    script = root / "srv.py"
    record = (
        f'open({str(seen)!r}, "a").write(sys.argv[1] + " " + os.environ["PROBE"] + " " '
        '+ os.environ["BARE"] + "\\n")\n'
    )
    script.write_text(mcp_server(record, ping=True))
    server = {
        "command": sys.executable,
        "args": [str(script), "${QODER_SKT_PROBE}"],
        "env": {"PROBE": "${QODER_SKT_MISSING:-fallback}", "BARE": "$QODER_SKT_PROBE"},
    }
    cmds = build_file_tree(
        root / "cmds",
        {
            ".claude-plugin/plugin.json": '{"name": "cmds", "version": "1.0.0"}\n',
            ".mcp.json": json.dumps({"mcpServers": {SERVER: server}}) + "\n",
            **{f"commands/{name}": text for name, text in COMMANDS.items()},
        },
    )
    # the user's own settings: a server of theirs, and a key of Qoder's
    settings = home / ".qoder/settings.json"
    user = {"theme": "dark", "mcpServers": {"mine": {"command": "/bin/true"}}}
    settings.write_text(json.dumps(user, indent=2) + "\n")
    before = settings.read_bytes()
    env = harness_env(home, {"PYTHONPATH": str(REPO)})
    env["XDG_DATA_DIRS"] = str(root / "no-system-plugins")
    env["SKILLTOOL_PLUGINS"] = ":".join(str(c.plugin) for c in cases) + f":{cmds}"
    output = skilltool_run(env, home, "install")
    work = root / "work"
    work.mkdir()
    qoder_before = qoder_files(home)
    doctor = ["python", "-m", "skilltool", "doctor", "qoder", "--json"]
    with ThreadPoolExecutor(1) as pool:  # doctor asks Qoder while the listings run
        asked = pool.submit(subprocess.run, [sys.executable, *doctor[1:]], env=env, cwd=home,
                            capture_output=True, text=True, timeout=TIMEOUT)  # fmt: skip
        listed = listings(home, work)
        said = asked.result()
    return World(root, home, cases, env, output, listed, seen, before, said, qoder_before)


def qoder_files(home: Path) -> dict[Path, bytes]:
    """~/.qoder's files and their bytes, but for the logs Qoder writes on each run."""
    found = (home / ".qoder").rglob("*")
    return {p: p.read_bytes() for p in found if p.is_file() and "logs" not in p.parts}


@pytest.fixture(params=["bundled", "tricky"])
def case(request: pytest.FixtureRequest, world: World) -> AgentCase:
    return next(c for c in world.cases if c.key == request.param)


def test_the_rendered_agent_is_claudes_format_and_qoder_lists_it(
    world: World, case: AgentCase, proven: Proven
) -> None:
    path = world.home / ".qoder/agents" / f"{case.name}.md"
    rendered = rendered_agent(path)
    marker = rendered.marker()
    assert marker is not None and marker.group(1) == str(case.source)
    want: dict[str, object] = {"name": case.name, "description": case.description}
    if case.tools:
        want["tools"] = ", ".join(case.tools)
    assert rendered.front == want, rendered.front
    assert rendered.body == case.body
    listed = world.listed["agents"]
    user = listed.split("User:", 1)[1].split("Built-in:", 1)[0]
    assert f"  {case.name} · " in user, listed
    assert "error loading agent" not in listed, listed
    proven(
        "qoder",
        f"[{case.key}] ~/.qoder/agents/{case.name}.md: the marker a YAML comment; name, "
        f"description{', tools as written' if case.tools else ''}; the body byte for byte; "
        "`qodercli agents list` lists it under User, with no agent that failed to load",
    )


def test_the_skills_are_listed_from_agents_skills_and_the_commands_beside_them(
    world: World, proven: Proven
) -> None:
    listed = world.listed["skills"]
    for case in world.cases:
        for skill in case.skills:
            where = world.home / ".agents/skills" / skill / "SKILL.md"
            assert f"  Location:    {where}" in listed, (skill, listed)
    assert not (world.home / ".qoder/skills").exists()  # linked into ~/.agents/skills only
    commands = world.home / ".qoder/commands"
    for name, shown, description in (
        ("greet", "greet.md", "Greet someone"),
        ("pair", "pair.md", "Compare two"),
        ("git:commit", "git/commit.md", "Commit the work"),
    ):
        block = f"{name} [Enabled]\n  Description: {description}\n  Location:    {commands / shown}"
        assert block in listed, (name, listed)
    assert (commands / "pair.md").read_text().endswith("Compare $0 with $1.\n")
    skills = sum(len(c.skills) for c in world.cases)
    proven(
        "qoder",
        f"`qodercli skills list`: the {skills} skills linked into ~/.agents/skills (none into "
        "~/.qoder/skills), and each command of ~/.qoder/commands by its name (git/commit.md as "
        "git:commit) with its description; its bodies keep Claude Code's placeholders",
    )


def test_the_plugins_server_is_listed_and_started_with_its_variables_expanded(
    world: World, proven: Proven
) -> None:
    out = world.install
    assert f"added     qoder    mcp {SERVER} in ~/.qoder/settings.json" in out, out
    listed = world.listed["mcp"]
    assert f"{SERVER}: {sys.executable} " in listed and "mine: /bin/true" in listed, listed
    assert f"✓ {SERVER}" in listed, listed  # it answered Qoder's initialize
    # ${VAR} in args, ${VAR:-default} and a bare $VAR in env, as `qodercli mcp list` gave them
    assert set(world.seen.read_text().splitlines()) == {"expanded fallback expanded"}
    document = json.loads((world.home / ".qoder/settings.json").read_text())
    assert document["theme"] == "dark" and document["mcpServers"]["mine"] == {
        "command": "/bin/true"
    }
    proven(
        "qoder",
        f"the server {SERVER} is an entry of ~/.qoder/settings.json beside the user's own "
        "server and keys; `qodercli mcp list` lists both and starts the plugin's (connected), "
        "which gets ${VAR} in args, ${VAR:-default} and a bare $VAR in env expanded",
    )


def test_launch_refuses_and_acp_starts_no_session_before_a_sign_in(
    world: World, tmp_path: Path, proven: Proven
) -> None:
    case = world.cases[0]
    argv = [sys.executable, "-m", "skilltool", "plugins", "launch", case.name]
    argv += ["--harness", "qoder", "--home", str(world.home)]
    done = subprocess.run(argv, env=world.env, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 1, done.stdout
    assert "Qoder CLI cannot start as an agent over ACP" in done.stderr, done.stderr
    cwd = tmp_path / "work"
    cwd.mkdir()
    # a home of its own: an ACP start rewrites ~/.qoder/settings.json (it adds securityScan)
    home = make_home(tmp_path)
    with AcpClient(["qodercli", "--acp"], env=harness_env(home), cwd=cwd) as acp:
        acp.initialize()
        with pytest.raises(AcpError) as refused:
            acp.new_session(cwd)
    proven(
        "qoder",
        f"`qodercli --acp`: initialize answers, session/new is refused before a sign-in "
        f"({str(refused.value)[:80]!r}); `skilltool plugins launch --harness qoder` says why "
        "and exits 1",
    )


def test_doctor_asks_its_listings_and_starts_no_server(world: World, proven: Proven) -> None:
    """`skilltool doctor qoder`: the skills and agents its listings show, in a copy of ~/.qoder
    whose settings.json has no server (a listing starts every server there). Its environment
    has no QODER_SKT_PROBE: a server it started would have recorded an empty one."""
    done = world.doctor
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    [found] = json.loads(done.stdout)["harnesses"]
    assert found["failed"] is None and not found["not_loaded"], found
    assert found["version"] == found["proven"] == "1.1.52", found
    skills = {s for c in world.cases for s in c.skills}
    assert skills <= set(found["skills"]), found
    assert {c.name for c in world.cases} <= set(found["agents"]), found
    assert all(line.startswith("expanded ") for line in world.seen.read_text().splitlines())
    after = qoder_files(world.home)  # and what Qoder's own runs added beside them
    assert {p: after.get(p) for p in world.qoder_before} == world.qoder_before
    proven(
        "qoder",
        "`skilltool doctor qoder` asks `qodercli skills list` and `agents list` in a copy of "
        f"~/.qoder and finds the {len(skills)} skills and the agents loaded; no MCP server of "
        "settings.json is started, and ~/.qoder is as it was",
    )


def test_a_users_own_agent_and_settings_are_left_alone(world: World, proven: Proven) -> None:
    assert "  mine · " in world.listed["agents"], world.listed["agents"]
    home = world.home
    scratch = {**world.env}
    skilltool_run(scratch, home, "uninstall")
    assert (home / ".qoder/settings.json").read_bytes() == world.settings_before
    assert (home / ".qoder/agents/mine.md").read_text() == MINE
    assert sorted(p.name for p in (home / ".qoder/agents").iterdir()) == ["mine.md"]
    assert not list((home / ".qoder/commands").rglob("*.md"))
    skilltool_run(scratch, home, "install")  # as it was, for the other rows
    proven(
        "qoder",
        "a user's own ~/.qoder/agents/mine.md is listed and untouched; uninstall leaves "
        "~/.qoder/settings.json byte for byte as it was and removes every agent and command "
        "it wrote",
    )
