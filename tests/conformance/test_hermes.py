"""Hermes loads what skilltool renders: SOUL.md replaces the seeded identity, the skills come in
through skills.external_dirs, the injection scan lets it through, and `hermes acp` sends it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conformance.acp import AcpClient
from tests.conformance.homes import (
    ACP_TIMEOUT,
    TIMEOUT,
    Installed,
    bundled_case,
    content_and_mode,
    harness_dirs,
    left_alone,
    lines_about,
    skilltool,
    text,
)
from tests.conformance.sandbox import harness_cache, harness_env, make_home, run
from tests.conformance.stub import OpenAIStub
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

DEFAULT_IDENTITY = "You are Hermes Agent"
BLOCKED = "[BLOCKED"
# what `hermes -p NAME prompt-size` builds, printed in full (README: the same code path)
BUILD_PROMPT = (
    "from hermes_cli.prompt_size import _build_inspection_agent\n"
    "from agent.system_prompt import build_system_prompt\n"
    "import sys\n"
    "sys.stdout.buffer.write(build_system_prompt(_build_inspection_agent('cli')).encode())\n"
)


@pytest.fixture(autouse=True)
def _hermes() -> None:
    need("hermes")


def hermes_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    # COLUMNS: Rich tables must not cut the skill names
    return harness_env(home, {"HERMES_DISABLE_LAZY_INSTALLS": "1", "COLUMNS": "200", **(extra or {})})  # fmt: skip


def as_hermes_sees_it(text: str) -> str:
    """Hermes loads SOUL.md with CRLF turned into LF, stripped."""
    return text.replace("\r\n", "\n").strip()


def system_prompt(home: Path, profile: str) -> str:
    """Hermes's full system prompt for a profile, built offline with its own code."""
    python = harness_cache() / "hermes-venv/bin/python"
    env = hermes_env(home, {"HERMES_HOME": str(home / ".hermes/profiles" / profile)})
    done = subprocess.run(
        [str(python), "-c", BUILD_PROMPT], env=env, cwd=home, capture_output=True, timeout=TIMEOUT
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    return done.stdout.decode("utf-8")


def test_soul_md_replaces_the_seeded_one(installed: Installed, proven: Proven) -> None:
    case = installed.case
    profile = installed.home / ".hermes/profiles" / case.name
    said = lines_about(installed.output, f"~/.hermes/profiles/{case.name}/SOUL.md")
    assert said and said[0].startswith("rewrote"), installed.output
    marker, rest = text(profile / "SOUL.md").split("\n", 1)
    assert marker.startswith("[//]: # (rendered by skilltool from ")
    assert rest == case.instructions
    assert installed.seeded_soul is not None
    assert (profile / "SOUL.md.before-skilltool").read_bytes() == installed.seeded_soul
    proven(
        "hermes",
        f"[{case.key}] the SOUL.md seeded by `hermes profile create {case.name} --no-alias` is "
        "replaced (kept as SOUL.md.before-skilltool)",
    )


def test_skills_list_shows_the_linked_skills(installed: Installed, proven: Proven) -> None:
    case, home = installed.case, installed.home
    env = hermes_env(home)
    done = run(["hermes", "-p", case.name, "config", "get", "skills.external_dirs"], env, home)
    assert done.returncode == 0, done.stderr
    assert str(home / ".agents/skills") in done.stdout
    done = run(["hermes", "-p", case.name, "skills", "list"], env, home)
    assert done.returncode == 0, done.stderr
    rows = {m[0]: m[1] for m in re.findall(r"^│ (\S+)\s+│.*│\s+(\w+)\s+│$", done.stdout, re.M)}
    for skill in case.skills:
        assert rows.get(skill) == "enabled", done.stdout
    proven(
        "hermes",
        f"[{case.key}] `hermes -p {case.name} skills list` lists {', '.join(case.skills)} "
        "(enabled), through the skills.external_dirs of the config.yaml skilltool wrote",
    )


def test_system_prompt_starts_with_the_agent(installed: Installed, proven: Proven) -> None:
    case, home = installed.case, installed.home
    prompt = system_prompt(home, case.name)
    assert BLOCKED not in prompt
    assert DEFAULT_IDENTITY not in prompt
    soul = text(home / ".hermes/profiles" / case.name / "SOUL.md")
    assert prompt.startswith(as_hermes_sees_it(soul))  # the identity slot comes first
    assert as_hermes_sees_it(case.body) in prompt
    assert f"# {case.name}\n\n{case.description}" in prompt
    for skill in case.skills:
        assert f"- {skill}: " in prompt
    marker = soul.split("\n", 1)[0]
    claim = (
        f"[{case.key}] the system prompt (built offline with Hermes's own code) starts with "
        "SOUL.md (heading, body with CRLF -> LF), has no default identity, no [BLOCKED, "
        "and indexes the skills"
    )
    if "system" in marker:  # the plugin lives under .../system-tools/...
        claim += "; the marker names a path holding 'system' and passes the injection scan"
    proven("hermes", claim)


MODEL_BLOCK = (
    "model:\n"
    "  default: stub-model\n"
    "  provider: custom\n"
    "  base_url: {base_url}\n"
    "  api_key: dummy-key\n"
)


def test_acp_sends_the_agent(installed: Installed, proven: Proven) -> None:
    case, home = installed.case, installed.home
    how = installed.launch("hermes")
    assert how["command"] == ["hermes", "-p", case.name, "acp"]
    config = home / ".hermes/profiles" / case.name / "config.yaml"
    original = config.read_bytes()
    with OpenAIStub(reply="stub reply") as stub:
        # what a user does to pick a model: add it to the profile's config.yaml
        config.write_bytes(original + MODEL_BLOCK.format(base_url=stub.base_url).encode())
        try:
            env = hermes_env(home, how["env"])
            with AcpClient(how["command"], env=env, cwd=home) as acp:
                acp.initialize()
                session = acp.new_session(home)
                result = acp.prompt(session["sessionId"], "hi", timeout=ACP_TIMEOUT)
                assert result["stopReason"] == "end_turn"
        finally:
            config.write_bytes(original)
        body = as_hermes_sees_it(case.body)
        request = stub.wait_for(
            lambda r: r.kind == "chat" and any(body in t for t in r.system_texts()), timeout=30
        )
        system = "\n".join(request.system_texts())
        assert DEFAULT_IDENTITY not in system and BLOCKED not in system
    proven(
        "hermes",
        f"[{case.key}] `hermes -p {case.name} acp` (the `skilltool plugins launch` command, "
        "stub model added to config.yaml): initialize, session/new, session/prompt -> "
        "end_turn; the request's system message holds the body, not the default identity",
    )


def test_uninstall_puts_the_seed_back(tmp_path: Path, proven: Proven) -> None:
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, ("hermes",))
    soul = home / ".hermes/profiles" / case.name / "SOUL.md"
    seeded = content_and_mode(soul)
    for command in ("install", "uninstall"):
        done = skilltool(home, case, tmp_path, command)
        assert done.returncode == 0, done.stderr
    assert content_and_mode(soul) == seeded
    assert not soul.with_name("SOUL.md.before-skilltool").exists()
    assert not soul.with_name("config.yaml").exists()
    prompt = system_prompt(home, case.name)
    assert prompt.startswith(DEFAULT_IDENTITY) and case.body.strip() not in prompt
    proven(
        "hermes",
        "uninstall puts the seeded SOUL.md back byte for byte (and removes the config.yaml it "
        "wrote); Hermes is back to its default identity",
    )


FOREIGN_SOUL = "My own Hermes persona: a patient reviewer called Marvin. ✓\n"


def test_a_foreign_soul_md_is_left_alone(tmp_path: Path, proven: Proven) -> None:
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, ("hermes",))
    soul = home / ".hermes/profiles" / case.name / "SOUL.md"
    soul.write_bytes(FOREIGN_SOUL.encode("utf-8"))

    def loads_the_users_soul() -> None:
        prompt = system_prompt(home, case.name)
        assert prompt.startswith(FOREIGN_SOUL.strip())
        assert as_hermes_sees_it(case.body) not in prompt

    left_alone(
        home, case, tmp_path, soul, f"~/.hermes/profiles/{case.name}/SOUL.md", loads_the_users_soul
    )
    assert not soul.with_name("SOUL.md.before-skilltool").exists()
    proven(
        "hermes",
        "a user's own SOUL.md is byte-for-byte untouched by install and uninstall, and Hermes's "
        "prompt starts with the user's persona before, between and after",
    )
