"""pi in a project (a git repository, pi started in its subfolder `src/deep`): which project
folders it reads, what project trust gates, which of user and project wins, and that a
folder outside the repository sees none of it.

Every project file is written by hand in the shape skilltool renders into a home (a command
with the marker comment in its frontmatter, `mcp.json` as `{"mcpServers": …}`, the agent's
wrapper and prompt file). What pi loaded is read from `get_commands` (--mode rpc: skills as
`skill:<name>`, prompt templates by name, each with its path and scope), the prompt dump of
`pi_dump_prompt.ts`, and a recorder MCP server that appends its argument to a file when pi
starts it. Trust is granted only in the throwaway home, by the test."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.homes import DUMP_EXTENSION, TIMEOUT, text
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import mcp_log_recorder
from tests.conformance.support import Proven, need
from tests.conformance.team_project import team_project
from tests.conformance.test_pi import get_commands
from tests.helpers import build_file_tree, toml_loads

pytestmark = pytest.mark.conformance

MARK = f"(sha256:{'0' * 64})"
# a stdio MCP server that appends its first argument to rec.log beside it when started, then
# answers initialize and tools/list (pi's startup waits for both)
RECORDER = mcp_log_recorder("rec.log")


@pytest.fixture(autouse=True)
def _pi() -> None:
    need("pi")


def skill(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\nBody of {name}.\n"


def command(name: str, description: str) -> str:
    """A prompt template as skilltool renders one into ~/.pi/agent/prompts."""
    return (
        f"---\n# rendered by skilltool from /plugins/p/commands/{name}.md {MARK}\n"
        f'description: "{description}"\n---\nDo {name} with $ARGUMENTS\n'
    )


def mcp_json(servers: dict[str, Any]) -> str:
    """mcp.json as skilltool writes it (strict JSON, indented)."""
    return json.dumps({"mcpServers": servers}, indent=2) + "\n"


def server(recorder: Path, tag: str) -> dict[str, Any]:
    return {"command": str(recorder), "args": [tag]}


class Project:
    def __init__(self, tmp: Path, git: bool = True) -> None:
        self.tmp = tmp
        self.home = make_home(tmp)
        extensions = self.home / ".pi/agent/extensions"
        extensions.mkdir(parents=True)
        (extensions / DUMP_EXTENSION.name).write_bytes(DUMP_EXTENSION.read_bytes())
        self.recorder = tmp / "rec.py"
        self.recorder.write_text(f"#!{sys.executable}\n{RECORDER}")
        self.recorder.chmod(0o755)
        self.repo = tmp / "repo"
        self.deep = self.repo / "src/deep"
        build_file_tree(
            self.home, {".agents/skills/user-skill/SKILL.md": skill("user-skill", "The user's")}
        )
        build_file_tree(
            self.repo,
            {
                "plugins/p/skills/linked-skill/SKILL.md": skill("linked-skill", "Via a link"),
                ".agents/skills/linked-skill": Path("../../plugins/p/skills/linked-skill"),
                ".agents/skills/root-agents/SKILL.md": skill("root-agents", "Root .agents"),
                "src/.agents/skills/mid-agents/SKILL.md": skill("mid-agents", "Mid .agents"),
                ".pi/skills/root-pi/SKILL.md": skill("root-pi", "Root .pi skill"),
                ".pi/prompts/root-cmd.md": command("root-cmd", "Root command"),
                ".pi/mcp.json": mcp_json({"root-srv": server(self.recorder, "root-srv")}),
                "src/deep/.pi/skills/deep-pi/SKILL.md": skill("deep-pi", "Deep .pi skill"),
                "src/deep/.pi/prompts/deep-cmd.md": command("deep-cmd", "Deep command"),
                "src/deep/.pi/mcp.json": mcp_json({"deep-srv": server(self.recorder, "deep-srv")}),
            },
        )
        # above the repository: what a walk past the git root would find
        build_file_tree(tmp, {".agents/skills/above/SKILL.md": skill("above", "Above the repo")})
        if git:
            subprocess.run(["git", "init", "-q", str(self.repo)], check=True)

    def load(self, cwd: Path, *args: str) -> tuple[dict[str, dict[str, Any]], str, list[str]]:
        """pi started in `cwd`: its commands by name, its system prompt, the servers started."""
        log = self.tmp / "rec.log"
        log.unlink(missing_ok=True)
        dump = self.tmp / "dump.txt"
        env = harness_env(self.home, {"PI_OFFLINE": "1", "PI_DUMP_PROMPT_FILE": str(dump)})
        commands = get_commands(["pi", *args], env, cwd, dump)
        started = wait_for_log(log)
        by_name = {c["name"]: c for c in commands if c.get("source") in ("skill", "prompt")}
        return by_name, text(dump), started

    def trust(self, folder: Path, decision: bool = True) -> None:
        """What pi's /trust saves: ~/.pi/agent/trust.json (the test writes it, never skilltool)."""
        store = self.home / ".pi/agent/trust.json"
        data = json.loads(store.read_text()) if store.exists() else {}
        data[str(folder)] = decision
        store.write_text(json.dumps(data, indent=2) + "\n")


def wait_for_log(log: Path, settle: float = 1.5) -> list[str]:
    """The servers started so far (pi connects them at startup, beside the RPC answer)."""
    time.sleep(settle)
    return log.read_text().split() if log.exists() else []


def project_names(commands: dict[str, dict[str, Any]]) -> set[str]:
    return {n for n, c in commands.items() if c.get("sourceInfo", {}).get("scope") == "project"}


def path_of(commands: dict[str, dict[str, Any]], name: str) -> str:
    return str(commands[name]["sourceInfo"]["path"])


def test_untrusted_project_loads_nothing(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    commands, prompt, started = p.load(p.deep)
    assert "skill:user-skill" in commands  # pi ran, and read the user's skills
    assert project_names(commands) == set(), sorted(commands)
    assert "root-agents" not in prompt and "linked-skill" not in prompt
    assert started == []
    proven(
        "pi",
        "project, untrusted (--mode rpc, no trust.json, defaultProjectTrust unset = ask): "
        "nothing of the project is loaded, not even .agents/skills; no project MCP server starts",
    )


def test_trusted_from_a_subfolder(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    commands, prompt, started = p.load(p.deep, "--approve")
    assert project_names(commands) == {
        "skill:mid-agents", "skill:root-agents", "skill:linked-skill",  # .agents/skills, walked up
        "skill:deep-pi", "deep-cmd",  # .pi of the working folder only
    }, sorted(commands)  # fmt: skip
    assert path_of(commands, "skill:linked-skill") == str(
        p.repo / ".agents/skills/linked-skill/SKILL.md"
    )  # the link is followed; the path shown is the link's, not its target's
    assert "<name>linked-skill</name>" in prompt and "<name>above</name>" not in prompt
    assert started == ["deep-srv"]  # the root's .pi/mcp.json is not read from a subfolder
    proven(
        "pi",
        "project, --approve, started in repo/src/deep: .agents/skills of every folder from the "
        "working folder up to the git root (a relative symlinked skill dir followed, listed at "
        "the link's path; nothing above the git root); .pi/skills, .pi/prompts, .pi/mcp.json "
        "only of the working folder itself: the repo root's .pi/ is NOT read from a subfolder",
    )


def test_trusted_at_the_root(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    commands, prompt, started = p.load(p.repo, "--approve")
    assert project_names(commands) == {
        "skill:root-agents", "skill:linked-skill", "skill:root-pi", "root-cmd"
    }, sorted(commands)  # fmt: skip
    assert commands["root-cmd"]["description"] == "Root command"
    assert "<name>root-pi</name>" in prompt
    assert started == ["root-srv"]
    proven(
        "pi",
        "project, --approve, started at the repo root: .agents/skills/<n>/SKILL.md, "
        ".pi/skills/<n>/SKILL.md, .pi/prompts/<name>.md (skilltool's command shape, marker "
        "comment in the frontmatter) and .pi/mcp.json ({mcpServers}) all load; the server starts",
    )


def test_without_git_the_walk_goes_past_the_project(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path, git=False)
    commands, _prompt, _started = p.load(p.deep, "--approve")
    assert "skill:above" in commands and "skill:root-agents" in commands, sorted(commands)
    assert "skill:root-pi" not in commands
    proven(
        "pi",
        "no git repository: .agents/skills is looked for in every ancestor up to / (a folder "
        "above the project was read); .pi/ still only in the working folder",
    )


@pytest.mark.parametrize("how", ["trust.json", "defaultProjectTrust", "project settings"])
def test_what_grants_trust(how: str, tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    if how == "trust.json":
        p.trust(p.repo)  # the repo root: the nearest saved decision of an ancestor applies
    elif how == "defaultProjectTrust":
        (p.home / ".pi/agent/settings.json").write_text('{"defaultProjectTrust": "always"}\n')
    else:  # a project cannot trust itself
        (p.deep / ".pi/settings.json").write_text('{"defaultProjectTrust": "always"}\n')
    commands, _prompt, started = p.load(p.deep)
    if how == "project settings":
        assert project_names(commands) == set() and started == []
    else:
        assert {"skill:root-agents", "skill:deep-pi", "deep-cmd"} <= project_names(commands)
        assert started == ["deep-srv"]
    said = {
        "trust.json": '~/.pi/agent/trust.json {"<repo root>": true} trusts its subfolders '
        "(nearest saved ancestor decision)",
        "defaultProjectTrust": '~/.pi/agent/settings.json defaultProjectTrust: "always" '
        "trusts every project",
        "project settings": "defaultProjectTrust in the project's .pi/settings.json is ignored "
        "(user-level setting only)",
    }[how]
    proven("pi", f"project trust: {said}")


def test_a_closer_distrust_wins(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    p.trust(p.repo)
    p.trust(p.deep, False)
    commands, _prompt, started = p.load(p.deep)
    assert project_names(commands) == set() and started == []
    proven("pi", "trust.json: a `false` for the subfolder beats a `true` for the repo root")


def test_project_wins_over_user(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    build_file_tree(
        p.home,
        {
            ".agents/skills/dup/SKILL.md": skill("dup", "USER .agents"),
            ".pi/agent/skills/dup-pi/SKILL.md": skill("dup-pi", "USER .pi"),
            ".pi/agent/prompts/dup-cmd.md": command("dup-cmd", "USER command"),
            ".pi/agent/mcp.json": mcp_json({"dup-srv": server(p.recorder, "user-dup")}),
        },
    )
    with open(p.repo / ".pi/mcp.json", "w") as f:
        f.write(mcp_json({"dup-srv": server(p.recorder, "project-dup")}))
    build_file_tree(
        p.repo,
        {
            ".agents/skills/dup/SKILL.md": skill("dup", "PROJECT .agents"),
            ".agents/skills/dup-pi/SKILL.md": skill("dup-pi", "PROJECT .agents"),
            ".pi/prompts/dup-cmd.md": command("dup-cmd", "PROJECT command"),
            # the same name in both project folders
            ".agents/skills/both/SKILL.md": skill("both", "PROJECT .agents"),
            ".pi/skills/both/SKILL.md": skill("both", "PROJECT .pi"),
        },
    )
    commands, prompt, started = p.load(p.repo, "--approve")
    assert commands["skill:dup"]["description"] == "PROJECT .agents"
    assert commands["skill:dup-pi"]["description"] == "PROJECT .agents"
    assert commands["dup-cmd"]["description"] == "PROJECT command"
    assert commands["skill:both"]["description"] == "PROJECT .pi"
    assert "USER .agents" not in prompt and "USER .pi" not in prompt
    assert started == ["project-dup"]
    proven(
        "pi",
        "same name in home and project: the project's skill (over ~/.agents/skills and "
        "~/.pi/agent/skills), prompt template and MCP server (the user's is not started) win; "
        "in the project .pi/skills beats .agents/skills",
    )


def test_outside_the_repository_nothing_of_it(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    p.trust(p.repo)
    commands, _prompt, started = p.load(sibling, "--approve")
    assert not {n for n in project_names(commands) if n != "skill:above"}, sorted(commands)
    assert started == []
    proven(
        "pi",
        "started in a sibling folder of the repo (--approve, repo trusted): nothing of the "
        "project (only an ancestor's .agents/skills, which the sibling shares)",
    )


WRAPPER = """#!/bin/sh
# rendered by skilltool from /plugins/p/agents/helper.md {mark}
# Starts pi as the agent helper: its instructions are appended to pi's own prompt.
prompt={prompt}
if [ ! -f "$prompt" ]; then
  echo "helper: $prompt is missing; run: skilltool plugins install --only pi" >&2
  exit 1
fi
exec pi --append-system-prompt "$prompt" "$@"
"""
AGENT_PROMPT = f"<!-- rendered by skilltool from /plugins/p/agents/helper.md {MARK} -->\n" \
    "# helper\n\nHelps with demo things\n\nYou are the project's helper.\n"  # fmt: skip


def test_an_agent_is_a_wrapper_pi_itself_never_looks_for(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    folder = p.repo / ".pi/skilltool"
    folder.mkdir(parents=True)
    (folder / "helper.md").write_text(AGENT_PROMPT)
    wrapper = folder / "helper"
    wrapper.write_text(WRAPPER.format(mark=MARK, prompt=folder / "helper.md"))
    wrapper.chmod(0o755)
    # untrusted, from the subfolder: the prompt comes through the command line, not discovery
    dump = tmp_path / "dump.txt"
    env = harness_env(p.home, {"PI_OFFLINE": "1", "PI_DUMP_PROMPT_FILE": str(dump)})
    listed = get_commands([str(wrapper)], env, p.deep, dump)
    prompt = text(dump)
    assert "<addendum>\n" + AGENT_PROMPT + "\n</addendum>" in prompt
    assert not [c for c in listed if c.get("sourceInfo", {}).get("scope") == "project"]
    # and pi alone, at the root, --approve'd: .pi/skilltool is nothing to it
    plain, root_prompt, _ = p.load(p.repo, "--approve")
    assert "project's helper" not in root_prompt
    assert not any("skilltool" in path_of(plain, n) for n in project_names(plain))
    proven(
        "pi",
        "agent: pi has no agent files; skilltool's wrapper (committed e.g. at .pi/skilltool/<name> "
        "+ <name>.md) appends the prompt with --append-system-prompt from any folder, with no "
        "project trust; pi never reads .pi/skilltool/ on its own",
    )


def test_pi_mcp_list_says_the_untrusted_project_is_ignored(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    env = harness_env(p.home, {"PI_OFFLINE": "1"})
    done = run(["pi", "mcp", "list", "--json"], env, p.repo, timeout=TIMEOUT)
    listing = json.loads(done.stdout)
    assert listing["servers"] == [], listing
    assert re.search(
        r"\.pi/mcp\.json is ignored because the project is not trusted", listing["note"]
    )
    p.trust(p.repo)
    done = run(["pi", "mcp", "list", "--json"], env, p.repo, timeout=TIMEOUT)
    servers = json.loads(done.stdout)["servers"]
    assert [(s["name"], s["scope"], s["state"]) for s in servers] == [
        ("root-srv", "project", "connected")
    ], servers
    assert os.path.exists(tmp_path / "rec.log")
    proven(
        "pi",
        "`pi mcp list --json` (no --approve option): an untrusted project's .pi/mcp.json is "
        "ignored with a note; once trust.json trusts the repo it lists root-srv, scope project",
    )


def test_skilltool_project_loads_inside_and_not_outside(tmp_path: Path, proven: Proven) -> None:
    home = make_home(tmp_path)
    (home / ".codex").rmdir()  # the home has pi and nothing else: the manifest names pi only
    extensions = home / ".pi/agent/extensions"
    extensions.mkdir(parents=True)
    (extensions / DUMP_EXTENSION.name).write_bytes(DUMP_EXTENSION.read_bytes())
    t = team_project(tmp_path, home)
    assert toml_loads((t.repo / "skilltool.toml").read_text())["harnesses"] == ["pi"]
    # what skilltool says it did for pi
    assert t.status.splitlines()[0] == f"project   {t.repo}", t.status
    rows = t.rows("pi")
    assert rows["skill team-skill"] == ("linked", ""), t.status
    assert rows["command team-cmd"] == ("current", ".pi/prompts/team-cmd.md"), t.status
    assert rows["mcp team-srv"] == ("current", ".pi/mcp.json"), t.status
    state, why = rows["agent team-agent"]
    assert state == "skipped" and why.startswith("pi has no agent files"), t.status
    refused = [line for line in t.added.splitlines() if line.startswith("skipped   pi:")]
    assert refused == [f"skipped   pi: {why}"], t.added
    assert (
        os.readlink(t.repo / ".agents/skills/team-skill") == "../../plugins/team/skills/team-skill"
    )
    assert not (t.repo / ".pi/skilltool").exists()
    assert not (home / ".pi/agent/trust.json").exists()  # skilltool grants no trust
    assert sorted(p.name for p in home.iterdir()) == [".cache", ".config", ".local", ".pi", "tmp"]
    trust = home / ".pi/agent/trust.json"  # what pi's /trust saves; the test writes it
    trust.write_text(json.dumps({str(t.repo): True}) + "\n")

    dump = tmp_path / "dump.txt"
    env = harness_env(home, {"PI_OFFLINE": "1", "PI_DUMP_PROMPT_FILE": str(dump)})

    def load(cwd: Path, *args: str) -> tuple[dict[str, dict[str, Any]], str, list[str]]:
        t.log.unlink(missing_ok=True)
        listed = get_commands(["pi", *args], env, cwd, dump)
        by_name = {c["name"]: c for c in listed if c.get("source") in ("skill", "prompt")}
        return by_name, text(dump), wait_for_log(t.log)

    # at the root: the skill, the command and the server; no agent
    commands, prompt, started = load(t.repo)
    assert project_names(commands) == {"skill:team-skill", "team-cmd"}, sorted(commands)
    assert path_of(commands, "skill:team-skill") == str(
        t.repo / ".agents/skills/team-skill/SKILL.md"
    )
    assert commands["team-cmd"]["description"] == "The team command"
    assert path_of(commands, "team-cmd") == str(t.repo / ".pi/prompts/team-cmd.md")
    assert "<name>team-skill</name>" in prompt and "TEAM AGENT" not in prompt
    assert started == ["team"]
    # in a subfolder: the skill only. skilltool writes .pi/ at the root, and pi reads .pi/ of
    # the working folder alone: the command and the server, `current` in the status, are
    # not loaded here
    commands, prompt, started = load(t.repo / "src/deep")
    assert project_names(commands) == {"skill:team-skill"}, sorted(commands)
    assert "<name>team-skill</name>" in prompt and started == []
    # beside the repository, with --approve: nothing of it
    commands, prompt, started = load(t.sibling, "--approve")
    assert not any(n in commands for n in ("skill:team-skill", "team-cmd")), sorted(commands)
    assert "team-skill" not in prompt and started == []
    proven(
        "pi",
        '`skilltool plugins add ./plugins/team --project` (manifest harnesses = ["pi"] from '
        "~/.pi/agent): its .agents/skills link, .pi/prompts/<cmd>.md and .pi/mcp.json load in pi "
        "started at the repo root once the repo is trusted (the server starts); from src/deep "
        "only the skill; in a sibling folder none; the agent is refused with one line and "
        "nothing of it is written",
    )
