"""Mistral Vibe in a project (a git repository): which project folders it reads, what its
trusted folders gate, which of user and project wins, and that a folder outside the repository
sees none of it.

Project files are written by hand in the shapes skilltool renders into ~/.vibe (an agent
`.toml` with the marker as a TOML comment and `system_prompt_id`, its prompt `.md`, a
`[[mcp_servers]]` element with the command as a list). What Vibe loaded is read from the
request `vibe -p hi` sends to the loopback stub (`<available-skills>`, the agent's prompt in
the system message) and from a recorder MCP server that appends its argument to a file when
started (Vibe passes it none of its own environment, so the file sits beside the script).
Trust is set only in the throwaway home (`~/.vibe/trusted_folders.toml`) or with `--trust`,
by the test."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("skilltool.harnesses.vibe")

from tests.conformance.acp import AcpClient
from tests.conformance.homes import TIMEOUT
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import OpenAIStub
from tests.conformance.support import Proven, need
from tests.conformance.team_project import AGENT_BODY, team_project
from tests.conformance.test_project_pi import RECORDER, skill
from tests.helpers import build_file_tree, toml_loads

pytestmark = pytest.mark.conformance

MARK = f"(sha256:{'0' * 64})"
UNTRUSTED = "is not trusted; project configuration (.agents/, .vibe/) will be ignored"


@pytest.fixture(autouse=True)
def _vibe() -> None:
    need("vibe")


def agent_toml(name: str, description: str) -> str:
    return (
        f"# rendered by skilltool from /plugins/p/agents/{name}.md {MARK}\n"
        f"# The agent {name} of Mistral Vibe: vibe --agent {name}\n"
        f'agent_type = "agent"\ndescription = "{description}"\nsystem_prompt_id = "{name}.md"\n'
    )


def agent_prompt(name: str, line: str) -> str:
    return (
        f"<!-- rendered by skilltool from /plugins/p/agents/{name}.md {MARK} -->\n"
        f"# {name}\n\nAn agent\n\n{line}\n"
    )


def mcp_server(name: str, recorder: Path, tag: str) -> str:
    return (
        f'[[mcp_servers]]\nname = "{name}"\ntransport = "stdio"\n'
        f'command = ["{recorder}"]\nargs = ["{tag}"]\n'
    )


class Vibe:
    """A throwaway home with ~/.vibe in `tmp`, and `vibe -p hi` run in it against the stub;
    the recorder's log is `tmp/rec.log`."""

    def __init__(self, tmp: Path, home: Path | None = None) -> None:
        self.tmp = tmp
        self.home = home or make_home(tmp)
        (self.home / ".vibe").mkdir(exist_ok=True)

    def trust(self, *folders: Path) -> None:
        """~/.vibe/trusted_folders.toml as Vibe's trust prompt saves it (the test writes it)."""
        listed = ", ".join(f'"{f}"' for f in folders)
        (self.home / ".vibe/trusted_folders.toml").write_text(
            f"trusted = [{listed}]\nuntrusted = []\n"
        )

    def config(self, stub: OpenAIStub, extra: str = "") -> None:
        (self.home / ".vibe/config.toml").write_text(
            'active_model = "stub"\nenable_telemetry = false\nenable_update_checks = false\n'
            f'[[providers]]\nname = "stub"\napi_base = "{stub.base_url}"\n'
            'api_key_env_var = "STUB_API_KEY"\n'
            '[[models]]\nname = "stub-model"\nprovider = "stub"\nalias = "stub"\n' + extra
        )

    def env(self) -> dict[str, str]:
        return harness_env(self.home, {"STUB_API_KEY": "dummy"})

    def run(
        self, cwd: Path, *args: str, user: str = "", ok: bool = True
    ) -> tuple[subprocess.CompletedProcess[str], str, list[str]]:
        """`vibe -p hi ARGS` in cwd: the run, the text Vibe sent the model, servers started."""
        log = self.tmp / "rec.log"
        log.unlink(missing_ok=True)
        # Vibe does not start a server whose tools it has cached
        shutil.rmtree(self.home / ".vibe/logs/mcp-descriptors", ignore_errors=True)
        sent = ""
        with OpenAIStub(reply="vibe done") as stub:
            self.config(stub, user)
            done = run(["vibe", "-p", "hi", *args], self.env(), cwd, timeout=TIMEOUT)
            if ok:
                assert done.returncode == 0, done.stdout + done.stderr
                sent = stub.wait_for(lambda r: r.kind == "chat", timeout=30).text
        time.sleep(0.3)
        return done, sent, log.read_text().split() if log.exists() else []


class Project(Vibe):
    def __init__(self, tmp: Path) -> None:
        super().__init__(tmp)
        self.recorder = tmp / "rec.py"
        self.recorder.write_text(f"#!{sys.executable}\n{RECORDER}")
        self.recorder.chmod(0o755)
        self.repo = tmp / "repo"
        self.deep = self.repo / "src/deep"
        tree: dict[str, str | Path] = {
            "plugins/p/skills/linked-skill/SKILL.md": skill("linked-skill", "Via a link"),
            ".agents/skills/linked-skill": Path("../../plugins/p/skills/linked-skill"),
            "src/mid/.keep": "",
        }
        for where, tag in (("", "root"), ("src/deep/", "deep")):
            tree.update(
                {
                    f"{where}.agents/skills/{tag}-agents/SKILL.md": skill(
                        f"{tag}-agents", f"{tag} .agents skill"
                    ),
                    f"{where}.vibe/skills/{tag}-vibe/SKILL.md": skill(
                        f"{tag}-vibe", f"{tag} .vibe skill"
                    ),
                    f"{where}.vibe/agents/{tag}-agent.toml": agent_toml(
                        f"{tag}-agent", f"{tag} agent"
                    ),
                    f"{where}.vibe/prompts/{tag}-agent.md": agent_prompt(
                        f"{tag}-agent", f"PROMPT OF {tag.upper()} AGENT"
                    ),
                    f"{where}.vibe/config.toml": mcp_server(f"{tag}-srv", self.recorder, tag),
                }
            )
        build_file_tree(self.repo, tree)
        subprocess.run(["git", "init", "-q", str(self.repo)], check=True)


def skills(sent: str) -> dict[str, tuple[str, str]]:
    """<available-skills>: name -> (description, path), Vibe's own vibe:* left out."""
    found = re.findall(
        r"<name>([^<]+)</name>\s*<description>([^<]*)</description>\s*<path>([^<]+)</path>",
        sent.replace("\\n", "\n"),
    )
    return {n: (d, p) for n, d, p in found if not n.startswith("vibe")}


def test_untrusted_project_loads_nothing(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    done, sent, started = p.run(p.repo)
    assert UNTRUSTED in done.stderr, done.stderr
    assert skills(sent) == {} and "PROMPT OF" not in sent and started == []
    refused, _, _ = p.run(p.repo, "--agent", "root-agent", ok=False)
    assert refused.returncode == 2 and "Agent 'root-agent' not found" in refused.stderr
    proven(
        "vibe",
        "project, untrusted: stderr `<cwd> is not trusted; project configuration (.agents/, "
        ".vibe/) will be ignored. Re-run with --trust…`; no project skill, agent (--agent: "
        "exit 2 `Agent '<name>' not found`) or MCP server",
    )


def test_trusted_at_the_root(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    _done, sent, started = p.run(p.repo, "--trust", "--agent", "root-agent")
    listed = skills(sent)
    assert set(listed) == {"root-agents", "root-vibe", "linked-skill"}, listed
    assert listed["linked-skill"][1] == str(p.repo / "plugins/p/skills/linked-skill/SKILL.md")
    assert "PROMPT OF ROOT AGENT" in sent
    assert started == ["root"]
    proven(
        "vibe",
        "project trusted (`--trust`, this run only), started at the root: "
        ".agents/skills and .vibe/skills (a relative symlinked skill dir followed, shown at its "
        "target's path), .vibe/agents/<n>.toml with system_prompt_id from .vibe/prompts "
        "(`--agent <n>`), and .vibe/config.toml [[mcp_servers]] (started)",
    )


def test_from_a_subfolder_only_the_config_walks_up(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    p.trust(p.repo)
    mid = p.repo / "src/mid"
    _done, sent, started = p.run(mid)
    assert skills(sent) == {}, skills(sent)
    assert started == ["root"]  # the repo root's .vibe/config.toml
    refused, _, _ = p.run(mid, "--agent", "root-agent", ok=False)
    assert "Agent 'root-agent' not found" in refused.stderr
    # a subfolder with a .vibe of its own: its items, and its config.toml instead of the root's
    _done, sent, started = p.run(p.deep, "--agent", "deep-agent")
    assert set(skills(sent)) == {"deep-agents", "deep-vibe"} and "PROMPT OF DEEP AGENT" in sent
    assert started == ["deep"]
    proven(
        "vibe",
        "started in a subfolder of a trusted repo: skills (.agents/skills, .vibe/skills), agents "
        "and prompts are read from the working folder ONLY (the root's are not found); "
        ".vibe/config.toml is looked for from the working folder upwards, the nearest one used "
        "(the root's MCP server started from src/mid; only deep's from src/deep)",
    )


def test_trust_flag_is_for_the_working_folder_only(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    done, _sent, started = p.run(p.repo / "src/mid", "--trust")
    assert started == [], done.stderr  # the root's config is not under the trusted folder
    stored = p.home / ".vibe/trusted_folders.toml"
    assert not stored.exists() or str(tmp_path) not in stored.read_text()
    proven(
        "vibe",
        "`--trust` trusts the working folder for that run only (not saved in "
        "trusted_folders.toml): from src/mid the root's .vibe/config.toml stays untrusted",
    )


def test_config_walk_is_not_bound_by_git(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    build_file_tree(tmp_path, {".vibe/config.toml": mcp_server("above-srv", p.recorder, "above")})
    (p.repo / ".vibe/config.toml").unlink()
    p.trust(tmp_path)
    _done, _sent, started = p.run(p.repo / "src/mid")
    assert started == ["above"]
    proven(
        "vibe",
        "the .vibe/config.toml walk does not stop at the git root (a trusted one above the repo "
        "was used; it stops at the home)",
    )


def test_project_wins_over_user(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    p.trust(p.repo)
    build_file_tree(
        p.home,
        {
            ".vibe/skills/dup/SKILL.md": skill("dup", "USER .vibe"),
            ".agents/skills/dup2/SKILL.md": skill("dup2", "USER .agents"),
            # the user's agent of that name names a prompt of its own
            ".vibe/agents/dup-agent.toml": agent_toml("dup-agent", "USER agent").replace(
                '"dup-agent.md"', '"dup-agent-user.md"'
            ),
            ".vibe/prompts/dup-agent-user.md": agent_prompt("dup-agent", "PROMPT OF USER AGENT"),
            # the prompt id of the project's agent, in the home too
            ".vibe/prompts/dup-agent.md": agent_prompt("dup-agent", "PROMPT OF USER COPY"),
        },
    )
    build_file_tree(
        p.repo,
        {
            ".vibe/skills/dup/SKILL.md": skill("dup", "PROJECT .vibe"),
            ".agents/skills/dup2/SKILL.md": skill("dup2", "PROJECT .agents"),
            ".vibe/agents/dup-agent.toml": agent_toml("dup-agent", "PROJECT agent"),
            ".vibe/prompts/dup-agent.md": agent_prompt("dup-agent", "PROMPT OF PROJECT AGENT"),
        },
    )
    with open(p.repo / ".vibe/config.toml", "a") as f:
        f.write(mcp_server("dup-srv", p.recorder, "project-dup"))
    user = mcp_server("dup-srv", p.recorder, "user-dup") + mcp_server("mine", p.recorder, "mine")
    _done, sent, started = p.run(p.repo, "--agent", "dup-agent", user=user)
    listed = skills(sent)
    assert listed["dup"][0] == "PROJECT .vibe" and listed["dup2"][0] == "PROJECT .agents"
    assert "PROMPT OF PROJECT AGENT" in sent
    assert "PROMPT OF USER AGENT" not in sent and "USER COPY" not in sent
    assert sorted(started) == ["mine", "project-dup", "root"]
    proven(
        "vibe",
        "same name in home and project: the project's skill, agent (.vibe/agents) and prompt "
        "(.vibe/prompts before ~/.vibe/prompts) win; [[mcp_servers]] merge by name, the "
        "project's element replacing the user's (theirs not started), the user's others kept",
    )


def test_outside_the_repository_nothing_of_it(tmp_path: Path, proven: Proven) -> None:
    p = Project(tmp_path)
    p.trust(p.repo)
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    _done, sent, started = p.run(sibling, "--trust")
    assert skills(sent) == {} and "PROMPT OF" not in sent and started == []
    proven("vibe", "started in a sibling folder (--trust): nothing of the trusted repo")


def test_acp_sessions_follow_the_same_trust(tmp_path: Path, proven: Proven) -> None:
    need("vibe", "vibe-acp")
    p = Project(tmp_path)

    def modes() -> list[str]:
        with OpenAIStub(reply="ok") as stub:
            p.config(stub)
            with AcpClient(["vibe-acp"], env=p.env(), cwd=p.repo) as acp:
                acp.initialize()
                session = acp.new_session(p.repo)
        return [m["id"] for m in session["modes"]["availableModes"]]

    assert "root-agent" not in modes()
    p.trust(p.repo)
    assert "root-agent" in modes()
    proven(
        "vibe",
        "vibe-acp: session/new at the repo root lists the project's agent as a mode only once "
        "~/.vibe/trusted_folders.toml trusts the repo",
    )


def test_skilltool_project_loads_inside_and_not_outside(tmp_path: Path, proven: Proven) -> None:
    v = Vibe(tmp_path)
    (v.home / ".codex").rmdir()  # the home has Vibe and nothing else: the manifest names it only
    t = team_project(tmp_path, v.home)
    assert toml_loads((t.repo / "skilltool.toml").read_text())["harnesses"] == ["vibe"]
    # what skilltool says it did for Vibe
    assert t.status.splitlines()[0] == f"project   {t.repo}", t.status
    rows = t.rows("vibe")
    assert rows["skill team-skill"] == ("linked", ""), t.status
    assert rows["agent team-agent"][0] == "current", t.status
    assert rows["agent team-agent"][1].startswith(".vibe/"), t.status
    assert rows["mcp team-srv"] == ("current", ".vibe/config.toml"), t.status
    state, why = rows["command team-cmd"]
    assert state == "not supported" and "command not carried" in why, t.status
    refused = [line for line in t.added.splitlines() if line.startswith("skipped   vibe:")]
    assert refused == [f"skipped   vibe: {why}"], t.added
    for written in (".vibe/agents/team-agent.toml", ".vibe/prompts/team-agent.md"):
        assert (t.repo / written).is_file(), written
    assert not (v.home / ".vibe/trusted_folders.toml").exists()  # skilltool grants no trust
    assert sorted(p.name for p in (v.home / ".vibe").iterdir()) == []
    v.trust(t.repo)  # what Vibe's trust prompt saves; the test writes it

    # at the root: the skill, the agent and the server
    _done, sent, started = v.run(t.repo, "--agent", "team-agent")
    listed = skills(sent)
    assert set(listed) == {"team-skill"}, listed
    # the link is followed; Vibe shows the target's path
    assert listed["team-skill"][1] == str(t.repo / "plugins/team/skills/team-skill/SKILL.md")
    assert AGENT_BODY in sent
    assert started == ["team"]
    # beside the repository, even with --trust: nothing of it
    _done, sent, started = v.run(t.sibling, "--trust")
    assert skills(sent) == {} and AGENT_BODY not in sent and started == []
    refused_agent, _, _ = v.run(t.sibling, "--trust", "--agent", "team-agent", ok=False)
    assert refused_agent.returncode == 2, refused_agent.stdout + refused_agent.stderr
    assert "Agent 'team-agent' not found" in refused_agent.stderr
    proven(
        "vibe",
        '`skilltool plugins add ./plugins/team --project` (manifest harnesses = ["vibe"] from '
        "~/.vibe): its .agents/skills link, .vibe/agents/<n>.toml + .vibe/prompts/<n>.md "
        "(`--agent <n>`) and .vibe/config.toml [[mcp_servers]] load in Vibe started at the "
        "repo root once trusted_folders.toml trusts it (the server starts); in a sibling "
        "folder (--trust) none (`--agent <n>`: not found); the command is refused with one line",
    )
