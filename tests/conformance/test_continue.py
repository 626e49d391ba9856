"""What Continue CLI (`cn` 1.5.47) reads, against a loopback model (a model of
~/.continue/config.yaml with `provider: openai` and `apiBase` on the stub), from one
`cn -p` run: an MCP server that skilltool's editor puts as an item of the `mcpServers` list of
a user's config.yaml is started, with its env, and offered as its tools, the user's lines kept;
a skill folder in ~/.continue/skills is offered in its Skills tool, but not one that is a link
(as skilltool links skills) nor one of ~/.agents/skills; and a command of config.yaml's
`prompts` is not expanded by `cn -p`, which sends `/name` as typed.

These are the facts a Continue harness stands on; skilltool does not register one yet
(docs/harnesses.md, "Continue CLI")."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from skilltool.entries import put_entry, read_entries
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import OpenAIStub, Recorded, mcp_server
from tests.conformance.support import Proven, need

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


class Run:
    def __init__(self, home: Path, config: Path, flag: Path, request: Recorded) -> None:
        self.home, self.config, self.flag, self.request = home, config, flag, request

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
    with OpenAIStub(reply="done") as stub:
        config = home / ".continue/config.yaml"
        text = USERS_CONFIG.format(base=stub.base_url)
        value = {"command": sys.executable, "args": [str(server), str(flag)]}
        value["env"] = {"PROBE_VALUE": "from-the-entry"}
        config.write_text(put_entry(text, "yaml-list", ("mcpServers",), "probe", value).text)
        env = harness_env(home)
        done = run(["cn", "-p", "/mycmd hello", "--auto"], env, home, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
    return Run(home, config, flag, request)


def test_an_mcp_server_put_into_a_users_config_yaml_is_started_with_its_env_and_offered(
    ran: Run, proven: Proven
) -> None:
    assert "ping" in ran.tools()
    assert ran.flag.read_text() == "from-the-entry"
    text = ran.config.read_text()
    assert text.startswith("# my assistant\nname: Local  # mine\n")
    assert list(read_entries(text, "yaml-list", ("mcpServers",)) or {}) == ["probe"]
    proven(
        "continue",
        "an item skilltool puts into the mcpServers list of a user's config.yaml is started "
        "with its env and offered as its tools",
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


def test_cn_print_sends_a_prompt_command_as_typed(ran: Run, proven: Proven) -> None:
    assert any("/mycmd hello" in said for said in ran.users())
    assert "PROMPT-BODY-OF-MYCMD" not in ran.request.text
    proven("continue", "cn -p does not expand a command of config.yaml's prompts")


def test_continue_global_dir_is_where_it_reads(tmp_path: Path, proven: Proven) -> None:
    """CONTINUE_GLOBAL_DIR in place of ~/.continue: its config.yaml and skills are read."""
    need("continue")
    home = make_home(tmp_path)
    moved = tmp_path / "moved"
    skill(moved / "skills/moved-skill", "moved-skill", "MOVED-SKILL")
    with OpenAIStub(reply="done") as stub:
        moved.mkdir(exist_ok=True)
        (moved / "config.yaml").write_text(USERS_CONFIG.format(base=stub.base_url))
        env = harness_env(home, {"CONTINUE_GLOBAL_DIR": os.fspath(moved)})
        done = run(["cn", "-p", "hello", "--auto"], env, home, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
    assert "MOVED-SKILL" in request.text
    assert not (home / ".continue/config.yaml").exists()
    proven("continue", "CONTINUE_GLOBAL_DIR moves the folder it reads config.yaml and skills from")
