"""Codex in a project: which of a repository's folders it reads, started in a subfolder
(repo/src/deep) of a git repository, against a loopback OpenAI stub (`codex exec`) or with
`codex debug prompt-input` / `codex mcp list --json`.

The project's files are skilltool's renderings for Codex (the real `skilltool plugins
install --home` of a fixture plugin): the skill linked as `.agents/skills/demo-skill` (a
relative link into `plugins/demo/skills/demo-skill`), the `[mcp_servers.demo-srv]` table of
`~/.codex/config.toml` written into the project's `.codex/config.toml`, and the agent's
profile `~/.codex/helper.config.toml` copied to `.codex/helper.config.toml`. Codex's own
custom-agent format, `.codex/agents/<name>.toml`, is written by hand.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.homes import TIMEOUT
from tests.conformance.project_scope_a import (
    AGENT,
    SERVER,
    SKILL,
    TEAM_AGENT,
    TEAM_COMMAND,
    TEAM_SERVER,
    TEAM_SKILL,
    copy_plugin,
    git_repo,
    relative_link,
    rendered,
    skill_file,
    team_project,
    team_status,
    write,
)
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import OpenAIStub
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

UNTRUSTED = "Untrusted project-local configuration is disabled"


@pytest.fixture(autouse=True)
def _codex() -> None:
    need("codex")


@dataclass
class World:
    root: Path
    user: Path  # skilltool's USER rendering
    clean: Path
    repo: Path
    flags: Path
    project_table: str  # the [mcp_servers.demo-srv] table as rendered

    @property
    def deep(self) -> Path:
        return self.repo / "src/deep"

    def flag(self, name: str) -> Path:
        return self.flags / name


def role(name: str, tag: str) -> str:
    return (
        f'name = "{name}"\ndescription = "{tag} role {name}"\n'
        f'developer_instructions = "{tag} instructions of {name}."\n'
    )


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = tmp_path_factory.mktemp("project-codex")
    flags = root / "flags"
    flags.mkdir()
    user = rendered(root / "user", "USER", ("codex",), flags / "user")
    source = rendered(root / "proj", "PROJECT", ("codex",), flags / "project")
    repo = git_repo(root / "work/repo")
    skill = copy_plugin((source / ".agents/skills" / SKILL).resolve(), repo)
    relative_link(repo / ".agents/skills" / SKILL, skill)
    table = (source / ".codex/config.toml").read_text()
    assert f"[mcp_servers.{SERVER}]" in table, table
    write(repo / ".codex/config.toml", table)
    write(repo / ".codex" / f"{AGENT}.config.toml", (source / ".codex" / f"{AGENT}.config.toml").read_text())  # fmt: skip
    write(repo / ".codex/agents/projrole.toml", role("projrole", "PROJECT"))
    write(repo / ".codex/agents/duprole.toml", role("duprole", "PROJECT"))
    write(user / ".codex/agents/duprole.toml", role("duprole", "USER"))
    write(repo / ".codex/prompts/pprompt.md", "PROJECT PROMPT BODY\n")
    for folder in (".claude", ".github", ".copilot"):
        name = f"only-{folder[1:]}"
        write(repo / folder / "skills" / name / "SKILL.md", skill_file(name, "Another folder."))
    write(repo / ".codex/skills/codex-skill/SKILL.md", skill_file("codex-skill", "Codex folder."))
    write(repo / "src/.agents/skills/nested-skill/SKILL.md", skill_file("nested-skill", "Nested."))
    work = root / "work"
    write(work / ".agents/skills/above-skill/SKILL.md", skill_file("above-skill", "Above."))
    write(work / "plain/.agents/skills/plain-skill/SKILL.md", skill_file("plain-skill", "Up."))
    write(work / "plain/a/b/.agents/skills/cwd-skill/SKILL.md", skill_file("cwd-skill", "Here."))
    (work / "sibling").mkdir()
    clean = make_home(root / "clean")
    return World(root, user, clean, repo, flags, table)


def skills_block(home: Path, cwd: Path, *args: str) -> tuple[dict[str, str], dict[str, str]]:
    """`codex debug prompt-input hi`: skill -> description, and each skill's root folder."""
    done = run(["codex", *args, "debug", "prompt-input", "hi"], harness_env(home), cwd, timeout=TIMEOUT)  # fmt: skip
    assert done.returncode == 0, done.stderr
    items: list[dict[str, Any]] = json.loads(done.stdout)
    text = "\n".join(c.get("text", "") for i in items for c in i.get("content", []) if isinstance(c, dict))  # fmt: skip
    roots = dict(re.findall(r"^- `(r\d+)` = `([^`]+)`$", text, re.M))
    found: dict[str, str] = {}
    where: dict[str, str] = {}
    for name, description, r in re.findall(r"^- ([\w.:-]+): (.*) \(file: (r\d+)/", text, re.M):
        found.setdefault(name, description)
        where.setdefault(name, roots[r])
    return found, where


def test_skills_from_a_subfolder(world: World, proven: Proven) -> None:
    found, where = skills_block(world.clean, world.deep)
    assert found[SKILL] == "PROJECT demo skill. Use when testing."
    assert where[SKILL] == str(world.repo / ".agents/skills")
    assert where["nested-skill"] == str(world.repo / "src/.agents/skills")
    assert where["codex-skill"] == str(world.repo / ".codex/skills")
    for name in ("only-claude", "only-github", "only-copilot"):
        assert name not in found, name
    proven(
        "codex",
        "project, started in repo/src/deep, untrusted: .agents/skills of every folder from the "
        "git root down to the working directory (a relative symlinked skill followed) and "
        ".codex/skills; not .claude/.github/.copilot skills",
    )


def test_git_root_bounds_skills_and_without_git_only_the_folder_itself(
    world: World, proven: Proven
) -> None:
    found, _ = skills_block(world.clean, world.deep)
    assert "above-skill" not in found
    found, _ = skills_block(world.clean, world.root / "work/plain/a/b")
    assert "cwd-skill" in found and "plain-skill" not in found, sorted(found)
    proven(
        "codex",
        ".agents/skills above the git root is not read; outside a git repository only the "
        "working directory's own .agents/skills is read (not its parents')",
    )


def test_a_sibling_folder_loads_nothing_of_the_project(world: World, proven: Proven) -> None:
    found, _ = skills_block(world.clean, world.root / "work/sibling")
    assert SKILL not in found and "nested-skill" not in found
    assert mcp_names(world.clean, world.root / "work/sibling") == []
    proven("codex", "started in a sibling folder of the repo: none of its items is loaded")


def test_skills_of_one_name_in_home_and_project_are_both_listed(
    world: World, proven: Proven
) -> None:
    done = run(["codex", "debug", "prompt-input", "hi"], harness_env(world.user), world.deep, timeout=TIMEOUT)  # fmt: skip
    text = done.stdout.replace("\\n", "\n")
    lines = re.findall(rf"^- ((?:[\w.-]+:)?{SKILL}): (\w+) demo skill", text, re.M)
    # the home's link resolves into the plugin (.claude-plugin/plugin.json beside skills/):
    # Codex names that one <plugin>:<skill>
    assert (SKILL, "PROJECT") in lines and (f"demo:{SKILL}", "USER") in lines, lines
    proven(
        "codex",
        "same skill name in ~/.agents/skills and the project: both are listed to the model, "
        f"the project's as {SKILL}, skilltool's home link (into the plugin) as demo:{SKILL}",
    )


def mcp_names(home: Path, cwd: Path) -> list[str]:
    done = run(["codex", "mcp", "list", "--json"], harness_env(home), cwd, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    return sorted(s["name"] for s in json.loads(done.stdout))


def trust(home: Path, folder: Path) -> None:
    """What `codex exec --trust` (or the TUI's trust question) records: never skilltool."""
    config = home / ".codex/config.toml"
    before = config.read_text() if config.exists() else ""
    config.write_text(before + f'\n[projects."{folder}"]\ntrust_level = "trusted"\n')


def stub_args(stub: OpenAIStub) -> list[str]:
    return [
        "--skip-git-repo-check",
        "-c", 'model_provider="stub"',
        "-c", 'model_providers.stub.name="Stub"',
        "-c", f'model_providers.stub.base_url="{stub.base_url}"',
        "-c", 'model_providers.stub.wire_api="responses"',
        "-c", 'model_providers.stub.env_key="STUB_API_KEY"',
    ]  # fmt: skip


def exec_run(home: Path, cwd: Path, *extra: str, prompt: str = "hi") -> tuple[str, str]:
    """`codex exec` against the stub: its stderr and the text of the last model request."""
    with OpenAIStub(reply="ok") as stub:
        env = harness_env(home, {"STUB_API_KEY": "dummy"})
        done = run(["codex", "exec", *extra, *stub_args(stub), prompt], env, cwd, timeout=TIMEOUT)
        assert done.returncode == 0, done.stderr
        request = stub.wait_for(timeout=30)
    return done.stderr, request.text


def clear_flags(world: World) -> None:
    for f in world.flags.iterdir():
        f.unlink()


def test_project_config_needs_trust(world: World, tmp_path: Path, proven: Proven) -> None:
    home = make_home(tmp_path)
    clear_flags(world)
    assert mcp_names(home, world.deep) == []
    stderr, text = exec_run(home, world.deep)
    assert UNTRUSTED in stderr and "codex exec --trust" in stderr, stderr
    assert not world.flag("project").exists()
    assert "PROJECT role projrole" not in text  # .codex/agents is project config too
    # `codex exec --trust` writes the trust itself: that line is what skilltool must never write
    clear_flags(world)
    stderr, text = exec_run(home, world.deep, "--trust")
    config = (home / ".codex/config.toml").read_text()
    assert f'[projects."{world.repo}"]\ntrust_level = "trusted"' in config, config
    assert world.flag("project").exists()
    assert mcp_names(home, world.deep) == [SERVER]
    assert "PROJECT role projrole" in text
    proven(
        "codex",
        ".codex/config.toml [mcp_servers] and .codex/agents/*.toml of the project load only "
        'when ~/.codex/config.toml has [projects."<git root>"] trust_level = "trusted" (what '
        "`codex exec --trust` writes); untrusted, exec warns 'Untrusted project-local "
        "configuration is disabled' and starts nothing",
    )


def test_trust_of_a_subfolder_covers_only_what_is_below_it(
    world: World, tmp_path: Path, proven: Proven
) -> None:
    home = make_home(tmp_path)
    trust(home, world.repo / "src")
    assert mcp_names(home, world.deep) == []
    proven("codex", "trusting repo/src does not load the root's .codex/config.toml")


def test_custom_agents_and_not_profiles(world: World, tmp_path: Path, proven: Proven) -> None:
    home = make_home(tmp_path)
    trust(home, world.repo)
    _stderr, text = exec_run(home, world.deep)
    # the roles are offered in the spawn_agent tool's agent_type description
    assert "projrole: {\\nPROJECT role projrole\\n}" in text, text[:2000]
    # the rendered profile in the project's .codex is not a profile: -p finds nothing, silently
    done = run(["codex", "-p", AGENT, "debug", "prompt-input", "hi"], harness_env(home), world.deep, timeout=TIMEOUT)  # fmt: skip
    assert done.returncode == 0 and "PROJECT helper body" not in done.stdout, done.stderr
    proven(
        "codex",
        "project agents: .codex/agents/<name>.toml (name, description, developer_instructions) "
        "in a trusted project, offered as spawn_agent roles; a profile .codex/<name>.config.toml "
        "in the project is not read (`codex -p <name>` exits 0 with no profile, no warning)",
    )


def test_precedence_of_agents_and_mcp_servers(world: World, proven: Proven) -> None:
    home = world.root / "prec"
    if home.exists():
        shutil.rmtree(home)
    shutil.copytree(world.user, home, symlinks=True)
    trust(home, world.repo)
    clear_flags(world)
    _stderr, text = exec_run(home, world.deep)
    assert "duprole: {\\nPROJECT role duprole\\n}" in text and "USER role duprole" not in text
    assert world.flag("project").exists() and not world.flag("user").exists()
    proven(
        "codex",
        "same name in ~/.codex and a trusted project: the project's agent role and its "
        "[mcp_servers.<name>] win (only the project's server starts)",
    )


def test_no_project_prompts(world: World, tmp_path: Path, proven: Proven) -> None:
    home = make_home(tmp_path)
    trust(home, world.repo)
    _stderr, text = exec_run(home, world.deep, prompt="/prompts:pprompt go")
    assert "PROJECT PROMPT BODY" not in text
    proven("codex", "no project commands: .codex/prompts/<c>.md is not expanded (trusted or not)")


def test_skilltool_project_loads_inside_and_not_outside(tmp_path: Path, proven: Proven) -> None:
    """The real `skilltool plugins add ./plugins/team --project`, then Codex in repo/src/deep of
    the project the test trusted (skill, agent role and server) and in a sibling folder
    (nothing)."""
    team = team_project(tmp_path, ("codex",))
    status = team_status(team, "codex")
    state, reason = status.pop(f"command {TEAM_COMMAND}")
    assert state == "not carried" and "Codex reads no user commands" in str(reason), reason
    assert status == {
        f"skill {TEAM_SKILL}": ("linked", str(team.repo / ".agents/skills")),
        f"agent {TEAM_AGENT}": ("current", str(team.repo / f".codex/agents/{TEAM_AGENT}.toml")),
        f"mcp {TEAM_SERVER}": ("current", str(team.repo / ".codex/config.toml")),
    }
    assert mcp_names(team.home, team.deep) == []  # untrusted: the project's config is inert
    trust(team.home, team.repo)  # as `codex exec --trust` would: never skilltool
    found, where = skills_block(team.home, team.deep)
    # the link resolves into plugins/team (a .claude-plugin/plugin.json beside skills/):
    # Codex lists it as <plugin>:<skill>, not by the link's name
    assert TEAM_SKILL not in found, sorted(found)
    assert found.get(f"team:{TEAM_SKILL}") == "TEAM skill. Use when testing.", sorted(found)
    assert where[f"team:{TEAM_SKILL}"] == str(team.repo / ".agents/skills")
    assert mcp_names(team.home, team.deep) == [TEAM_SERVER]
    stderr, text = exec_run(team.home, team.deep)
    assert UNTRUSTED not in stderr, stderr
    assert f"{TEAM_AGENT}: {{\\nTEAM agent\\n}}" in text, text[:3000]
    assert team.flag.exists()
    # a sibling folder of the repository: none of it
    team.flag.unlink()
    found, _ = skills_block(team.home, team.sibling)
    assert not [name for name in found if TEAM_SKILL in name], sorted(found)
    assert mcp_names(team.home, team.sibling) == []
    _stderr, text = exec_run(team.home, team.sibling)
    assert TEAM_AGENT not in text and not team.flag.exists()
    proven(
        "codex",
        "after the real `skilltool plugins add ./plugins/team --project` (status: skill linked, "
        ".codex/agents/<a>.toml and .codex/config.toml server current, command not carried), "
        "Codex in repo/src/deep of the trusted project lists the skill (named team:team-skill: "
        "the link resolves into the plugin), offers the agent as a spawn_agent role and starts "
        "the server; in a sibling folder, none of them",
    )
