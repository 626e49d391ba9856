"""Codex loads what skilltool renders: the skills, the profile's developer_instructions with no
config warning, and codex-acp delivers the session JSON's instructions to the model."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import tomlkit

from tests.conformance.acp import AcpClient
from tests.conformance.homes import (
    ACP_TIMEOUT,
    Installed,
    bundled_case,
    harness_dirs,
    left_alone,
    text,
)
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import OpenAIStub
from tests.conformance.support import Proven, need
from tests.helpers import toml_loads

pytestmark = pytest.mark.conformance

CATALOGUE_MODEL = "gpt-6.1-sol"  # in the catalogue of codex-acp's bundled Codex: no warning
IGNORED = re.compile(r"is ignored|unrecognized configuration", re.I)


@pytest.fixture(autouse=True)
def _codex() -> None:
    need("codex")


def codex(
    env: dict[str, str], home: Path, *args: str, check: bool = True
) -> subprocess.CompletedProcess[str]:
    done = run(["codex", *args], env, home, timeout=60)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def prompt_input(env: dict[str, str], home: Path, *profile: str) -> list[dict[str, Any]]:
    """`codex [-p NAME] debug prompt-input hi`: every item the model would get."""
    items: list[dict[str, Any]] = json.loads(
        codex(env, home, *profile, "debug", "prompt-input", "hi").stdout
    )
    return items


def developer_texts(items: list[dict[str, Any]]) -> list[list[str]]:
    """The input_text parts of each developer message, in order."""
    return [
        [c.get("text", "") for c in item.get("content", [])]
        for item in items
        if item.get("role") == "developer" and item.get("type") == "message"
    ]


def rendered(installed: Installed) -> tuple[dict[str, Any], dict[str, Any], str]:
    """The profile (TOML), the session JSON, and the instructions file skilltool wrote."""
    codex_home, name = installed.home / ".codex", installed.case.name
    profile = toml_loads(text(codex_home / f"{name}.config.toml"))
    session = json.loads(text(codex_home / "skilltool" / f"{name}.json"))
    return profile, session, text(codex_home / "skilltool" / f"{name}.md")


def test_rendered_files_carry_the_instructions(installed: Installed, proven: Proven) -> None:
    case = installed.case
    profile, session, instructions = rendered(installed)
    assert profile["developer_instructions"] == case.instructions
    assert session["developer_instructions"] == case.instructions
    assert "model_instructions_file" not in profile and "model_instructions_file" not in session
    marker, rest = instructions.split("\n", 1)
    assert marker.startswith("<!-- rendered by skilltool from ") and rest == case.instructions
    model = case.models.get("codex")
    assert profile.get("model") == model and session.get("model") == model
    proven(
        "codex",
        f"[{case.key}] profile, session JSON and instructions file hold heading + body exactly",
    )


def test_prompt_input_lists_the_linked_skills(installed: Installed, proven: Proven) -> None:
    case, home = installed.case, installed.home
    texts = [t for parts in developer_texts(prompt_input(installed.env(), home)) for t in parts]
    [skills] = [t for t in texts if t.startswith("<skills_instructions>")]
    roots = dict(re.findall(r"^- `(r\d+)` = `([^`]+)`$", skills, re.M))
    for skill in case.skills:
        match = re.search(rf"^- (?:[\w.-]+:)?{skill}: .*\(file: (r\d+)/{skill}/SKILL\.md\)$", skills, re.M)  # fmt: skip
        assert match, skills
        assert roots[match.group(1)] == str(home / ".agents/skills")
    proven(
        "codex",
        f"[{case.key}] `codex debug prompt-input hi` lists {', '.join(case.skills)} "
        "under the root ~/.agents/skills",
    )


def test_profile_adds_a_developer_message(installed: Installed, proven: Proven) -> None:
    case, home = installed.case, installed.home
    profile, _session, _text = rendered(installed)
    messages = developer_texts(prompt_input(installed.env(), home, "-p", case.name))
    firsts = [parts[0] for parts in messages]
    assert profile["developer_instructions"] in firsts
    at = firsts.index(profile["developer_instructions"])
    # appended: Codex's own prompt (it depends on the model) stays and comes first
    assert at > 0 and firsts[0].startswith("You are Codex")
    assert not any(case.body in text for text in firsts[:at])
    proven(
        "codex",
        f"[{case.key}] `codex -p {case.name} debug prompt-input hi`: a developer message whose "
        "text == the rendered developer_instructions, after Codex's own prompt",
    )


def config_load(env: dict[str, str], home: Path) -> dict[str, Any]:
    """`codex doctor --json` (exit 1 offline): its checks."config.load"."""
    done = codex(env, home, "doctor", "--json", check=False)
    check: dict[str, Any] = json.loads(done.stdout)["checks"]["config.load"]
    return check


def as_config_home(root: Path, content: str) -> tuple[dict[str, str], Path]:
    """A scratch home whose ~/.codex/config.toml is `content` (doctor refuses -p)."""
    home = make_home(root)
    (home / ".codex/config.toml").write_bytes(content.encode("utf-8"))
    return harness_env(home), home


def test_doctor_config_load_has_no_warning(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case = installed.case
    check = config_load(installed.env(), installed.home)
    assert check["status"] == "ok", check
    assert "startup warning" not in json.dumps(check), check
    # the same check on skilltool's files as the main config: the profile, and the session
    # JSON written as TOML (the marker there is the `tui.skilltool` key)
    profile = text(installed.home / ".codex" / f"{case.name}.config.toml")
    session = json.loads(text(installed.home / ".codex/skilltool" / f"{case.name}.json"))
    for which, content in (("profile", profile), ("session", tomlkit.dumps(session))):
        env, home = as_config_home(tmp_path / which, content)
        check = config_load(env, home)
        assert check["status"] == "ok", (which, check)
        assert "startup warning" not in json.dumps(check), (which, check)
    # control: the check sees a key Codex does not know
    env, home = as_config_home(tmp_path / "control", profile + "bogus_key = 1\n")
    check = config_load(env, home)
    assert check["status"] == "warning" and "bogus_key" in json.dumps(check), check
    proven(
        "codex",
        f"[{case.key}] `codex doctor --json` config.load ok with no startup warning: in the "
        "installed home, and with the profile / the session JSON as config.toml "
        "(control: a bogus key is flagged)",
    )


def stub_provider(stub: OpenAIStub) -> dict[str, Any]:
    return {
        "model_provider": "stub",
        "model_providers": {
            "stub": {
                "name": "Stub",
                "base_url": stub.base_url,
                "wire_api": "responses",
                "env_key": "STUB_API_KEY",
            }
        },
    }


def exec_args(stub: OpenAIStub) -> list[str]:
    provider = stub_provider(stub)["model_providers"]["stub"]
    args = ["-c", 'model_provider="stub"']
    for key, value in provider.items():
        args += ["-c", f"model_providers.stub.{key}={json.dumps(value)}"]
    return args


def test_profile_keys_draw_no_warning_in_exec(
    installed: Installed, tmp_path: Path, proven: Proven
) -> None:
    case, home = installed.case, installed.home
    profile, _session, _text = rendered(installed)
    with OpenAIStub(reply="ok") as stub:
        env = installed.env({"STUB_API_KEY": "dummy"})
        done = codex(env, home, "-p", case.name, "exec", "--skip-git-repo-check", *exec_args(stub), "hi")  # fmt: skip
        assert not IGNORED.search(done.stderr), done.stderr
        request = stub.wait_for(timeout=30)
        assert profile["developer_instructions"] in request.system_texts()
        if "model" in profile:
            assert request.json["model"] == profile["model"]
        # control: the same profile plus a key Codex does not know, in a scratch home
        scratch = make_home(tmp_path)
        shutil.copy(home / ".codex" / f"{case.name}.config.toml", scratch / ".codex/control.config.toml")  # fmt: skip
        with open(scratch / ".codex/control.config.toml", "a", encoding="utf-8") as f:
            f.write("bogus_key = 1\n")
        env = harness_env(scratch, {"STUB_API_KEY": "dummy"})
        done = codex(env, scratch, "-p", "control", "exec", "--skip-git-repo-check", *exec_args(stub), "hi")  # fmt: skip
        assert "`bogus_key` is ignored" in done.stderr, done.stderr
    proven(
        "codex",
        f"[{case.key}] `codex -p {case.name} exec` (stub provider): no 'is ignored' / "
        "'unrecognized' warning, the instructions reach the model request"
        + (f", model {profile['model']} (per-harness override)" if "model" in profile else "")
        + " (control: a bogus key is reported)",
    )


def test_codex_acp_delivers_the_instructions(installed: Installed, proven: Proven) -> None:
    need("codex", "codex-acp")
    case, home = installed.case, installed.home
    how = installed.launch("codex")
    assert how["command"] == ["codex-acp"]
    session_file = home / ".codex/skilltool" / f"{case.name}.json"
    assert how["env"]["CODEX_CONFIG"] in (
        f"{{file:{session_file}}}",
        f"{{file:~/.codex/skilltool/{case.name}.json}}",
    )
    config = json.loads(text(session_file))
    logs = installed.root / f"codex-acp-logs-{case.key}"
    with OpenAIStub(reply="stub reply") as stub:
        merged = {"model": CATALOGUE_MODEL, **config, **stub_provider(stub)}
        env = installed.env({"CODEX_CONFIG": json.dumps(merged), "STUB_API_KEY": "dummy"})
        env["APP_SERVER_LOGS"] = str(logs)
        with AcpClient(how["command"], env=env, cwd=home) as acp:
            acp.initialize()
            session = acp.new_session(home)
            result = acp.prompt(session["sessionId"], "hi", timeout=ACP_TIMEOUT)
            assert result["stopReason"] == "end_turn"
        request = stub.wait_for(timeout=30)
        assert config["developer_instructions"] in request.system_texts()
        assert request.json["model"] == config.get("model", CATALOGUE_MODEL)
        assert "rendered by skilltool" not in request.text
    log = (logs / "app-server.log").read_text(encoding="utf-8", errors="replace")
    assert not IGNORED.search(log), [line for line in log.splitlines() if IGNORED.search(line)]
    proven(
        "codex",
        f"[{case.key}] codex-acp with CODEX_CONFIG = the session JSON (+ stub provider): "
        "initialize, session/new, session/prompt -> end_turn; the request carries "
        "developer_instructions exactly, not the marker; app-server.log has no 'is ignored'",
    )


FOREIGN_PROFILE = 'developer_instructions = "My own Codex profile, not skilltool\'s. ✓"\n'


def test_a_foreign_profile_is_left_alone(tmp_path: Path, proven: Proven) -> None:
    case = bundled_case()
    home = make_home(tmp_path)
    harness_dirs(home, case.name, ("codex",))
    target = home / ".codex" / f"{case.name}.config.toml"
    target.write_bytes(FOREIGN_PROFILE.encode("utf-8"))
    env = harness_env(home)

    def loads_the_users_profile() -> None:
        messages = developer_texts(prompt_input(env, home, "-p", case.name))
        firsts = [parts[0] for parts in messages]
        assert "My own Codex profile, not skilltool's. ✓" in firsts
        assert case.instructions not in firsts

    left_alone(
        home, case, tmp_path, target, f"~/.codex/{case.name}.config.toml", loads_the_users_profile
    )
    proven(
        "codex",
        "a user's own ~/.codex/<name>.config.toml is byte-for-byte untouched by install and "
        "uninstall, and `codex -p <name>` gets the user's developer_instructions before, "
        "between and after",
    )
