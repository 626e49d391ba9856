"""Continue CLI (`cn` 1.5.47) loads what skilltool writes, against a loopback model (a model
of ~/.continue/config.yaml with `provider: openai` and `apiBase` on the stub), from one
`cn -p` run: a plugin's MCP server that `skilltool plugins install` puts as an item of the
`mcpServers` list of the user's config.yaml is started, with its env, and offered as its
tools (uninstall gives the file back byte for byte); a skill folder in ~/.continue/skills is
offered in its Skills tool, but not one that is a link nor one of ~/.agents/skills, which is
why skilltool copies a plugin's skill there (its copy is offered; uninstall gives the folder
back byte for byte, the user's own skills in it untouched); and a command of config.yaml's
`prompts` is not expanded by `cn -p`, which sends `/name` as typed, which is why skilltool
carries no command to it (docs/harnesses.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from skilltool.entries import read_entries
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import OpenAIStub, Recorded, mcp_server
from tests.conformance.support import Proven, need
from tests.helpers import build_file_tree

pytestmark = pytest.mark.conformance

USERS_CONFIG = """\
# my assistant
name: Local  # mine
version: 1.0.0
schema: v1
models:
  - name: stub
    provider: openai
    model: stub-model
    apiKey: loopback
    apiBase: {base}
    roles: [chat]
prompts:
  - name: mycmd
    description: My command
    prompt: "PROMPT-BODY-OF-MYCMD "
"""
SKILL = "---\nname: {name}\ndescription: {description}\n---\nDo the thing.\n"
RECORD_ENV = 'with open(sys.argv[1], "w") as f:\n    f.write(os.environ.get("PROBE_VALUE", "-"))\n'


def skill(folder: Path, name: str, description: str) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL.format(name=name, description=description))


def files(folder: Path) -> dict[str, bytes]:
    """Every file and link under `folder` (a link as its target), by its relative path."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            found[str(path.relative_to(folder))] = b"-> " + os.fsencode(os.readlink(path))
        elif path.is_file():
            found[str(path.relative_to(folder))] = path.read_bytes()
    return found


class Run:
    def __init__(self, home: Path, config: str, flag: Path, request: Recorded, out: str) -> None:
        self.home, self.config, self.flag, self.request = home, config, flag, request
        self.out = out  # what install said
        self.skills_before: dict[str, bytes] = {}
        self.skills_after: dict[str, bytes] = {}

    def tools(self) -> dict[str, Any]:
        found = self.request.json.get("tools") or []
        return {t["function"]["name"]: t["function"] for t in found}

    def users(self) -> list[str]:
        said = []
        for message in self.request.json.get("messages", []):
            if message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, list):
                    content = "".join(p.get("text", "") for p in content)
                said.append(str(content))
        return said


def skilltool(
    home: Path, root: Path, plugin: Path, verb: str, extra: dict[str, str] | None = None
) -> str:
    env = harness_env(home, {"PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    env.update(extra or {})
    env["XDG_DATA_DIRS"] = str(root / "no-system-plugins")
    env["SKILLTOOL_PLUGINS"] = str(plugin)
    # a variable moving the folder is read from the environment, as a shell gives it, when
    # skilltool finds the home from HOME (not with --home)
    argv = [sys.executable, "-m", "skilltool", "plugins", verb]
    argv += [] if extra else ["--home", str(home)]
    done = subprocess.run(argv, env=env, cwd=home, capture_output=True, text=True, timeout=120)
    out = done.stdout + done.stderr
    assert done.returncode == 0 and "Traceback" not in out, out
    return out


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> Run:
    need("continue")
    root = tmp_path_factory.mktemp("conformance-continue")
    home = make_home(root)
    elsewhere = root / "elsewhere"
    skill(home / ".continue/skills/real-folder", "real-folder", "REAL-FOLDER-SKILL")
    skill(elsewhere / "linked", "linked", "LINKED-SKILL")
    (home / ".continue/skills/linked").symlink_to(elsewhere / "linked")
    skill(home / ".agents/skills/shared", "shared", "AGENTS-SKILLS-SKILL")
    server = root / "server.py"
    server.write_text(mcp_server(RECORD_ENV, ping=True))
    flag = root / "started"
    value = {"command": sys.executable, "args": [str(server), str(flag)]}
    value["env"] = {"PROBE_VALUE": "from-the-plugin"}
    plugin = build_file_tree(
        root / "srv",
        {
            ".claude-plugin/plugin.json": '{"name": "srv", "version": "1.0.0"}\n',
            ".mcp.json": json.dumps({"mcpServers": {"probe": value}}) + "\n",
            "skills/srv-skill/SKILL.md": SKILL.format(name="srv-skill", description="SRV-SKILL"),
            "skills/srv-skill/scripts/run.sh": "#!/bin/sh\necho srv\n",
        },
    )
    work = root / "work"  # in the home itself, cn reads ~/.continue/skills twice
    work.mkdir()
    with OpenAIStub(reply="done") as stub:
        config = home / ".continue/config.yaml"
        config.write_text(USERS_CONFIG.format(base=stub.base_url))
        users, skills = config.read_bytes(), files(home / ".continue/skills")
        out = skilltool(home, root, plugin, "install")
        assert "added     continue mcp probe in ~/.continue/config.yaml" in out, out
        done = run(["cn", "-p", "/mycmd hello", "--auto"], harness_env(home), work, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
        installed = config.read_text()
        skilltool(home, root, plugin, "uninstall")
        assert config.read_bytes() == users  # byte for byte as the user had it
    ran = Run(home, installed, flag, request, out)
    ran.skills_before, ran.skills_after = skills, files(home / ".continue/skills")
    return ran


def test_an_mcp_server_skilltool_installs_into_a_users_config_yaml_is_started_and_offered(
    ran: Run, proven: Proven
) -> None:
    assert "ping" in ran.tools()
    assert ran.flag.read_text() == "from-the-plugin"
    assert ran.config.startswith("# my assistant\nname: Local  # mine\n")
    assert list(read_entries(ran.config, "yaml-list", ("mcpServers",)) or {}) == ["probe"]
    proven(
        "continue",
        "skilltool install puts the plugin's server as an item of the mcpServers list of the "
        "user's config.yaml: started with its env and offered as its tools; uninstall gives "
        "the file back byte for byte",
    )


def test_a_skill_folder_is_offered_but_not_a_link_to_one_nor_agents_skills(
    ran: Run, proven: Proven
) -> None:
    described = ran.tools()["Skills"]["description"]
    assert "REAL-FOLDER-SKILL" in described
    assert "LINKED-SKILL" not in described
    assert "AGENTS-SKILLS-SKILL" not in described
    proven(
        "continue",
        "~/.continue/skills is read, a skill folder there that is a link is not, "
        "nor ~/.agents/skills",
    )


def test_skilltool_copies_a_skill_into_its_folder_and_uninstall_gives_the_folder_back(
    ran: Run, proven: Proven
) -> None:
    assert "copied    continue skill srv-skill from " in ran.out, ran.out
    described = ran.tools()["Skills"]["description"]
    assert "name: srv-skill\ndescription: SRV-SKILL" in described, described
    assert "REAL-FOLDER-SKILL" in described  # the user's own, beside it
    assert ran.skills_after == ran.skills_before  # the user's folder and link, byte for byte
    proven(
        "continue",
        "skilltool install copies a plugin's skill into ~/.continue/skills (a folder with its "
        "marker file, not a link): cn offers it in its Skills tool beside the user's own; "
        "uninstall gives the folder back byte for byte",
    )


def test_cn_print_sends_a_prompt_command_as_typed(ran: Run, proven: Proven) -> None:
    assert any("/mycmd hello" in said for said in ran.users())
    assert "PROMPT-BODY-OF-MYCMD" not in ran.request.text
    proven("continue", "cn -p does not expand a command of config.yaml's prompts")


def test_continue_global_dir_is_where_it_reads_and_skilltool_writes(
    tmp_path: Path, proven: Proven
) -> None:
    """CONTINUE_GLOBAL_DIR in place of ~/.continue: install puts the server into its
    config.yaml and copies the plugin's skill into its skills folder, and cn reads that file
    and its skills."""
    need("continue")
    home = make_home(tmp_path)
    moved = tmp_path / "moved"
    skill(moved / "skills/moved-skill", "moved-skill", "MOVED-SKILL")
    server = tmp_path / "server.py"
    server.write_text(mcp_server(ping=True))
    value = {"command": sys.executable, "args": [str(server)]}
    plugin = build_file_tree(
        tmp_path / "srv",
        {
            ".claude-plugin/plugin.json": '{"name": "srv", "version": "1.0.0"}\n',
            ".mcp.json": json.dumps({"mcpServers": {"probe": value}}) + "\n",
            "skills/srv-skill/SKILL.md": SKILL.format(name="srv-skill", description="SRV-SKILL"),
        },
    )
    extra = {"CONTINUE_GLOBAL_DIR": os.fspath(moved)}
    with OpenAIStub(reply="done") as stub:
        (moved / "config.yaml").write_text(USERS_CONFIG.format(base=stub.base_url))
        out = skilltool(home, tmp_path, plugin, "install", extra)
        assert "added     continue mcp probe in " in out, out
        done = run(["cn", "-p", "hello", "--auto"], harness_env(home, extra), home, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
    assert "MOVED-SKILL" in request.text and "SRV-SKILL" in request.text
    assert (moved / "skills/srv-skill/.skilltool-copy").is_file()
    assert "ping" in {t["function"]["name"] for t in request.json.get("tools") or []}
    assert not (home / ".continue").exists()
    proven(
        "continue",
        "CONTINUE_GLOBAL_DIR moved: install puts the server into $CONTINUE_GLOBAL_DIR/config.yaml "
        "and a copy of the skill into its skills folder (no ~/.continue), and cn offers its "
        "tools and the skills of that folder",
    )
