"""Each harness's built-in agents, read from the real binary in a clean home, are the ones
skilltool's harness module knows (SPEC §6: a plugin agent never replaces one), so that a
harness version that adds one is caught here."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from skilltool.harnesses import Harness, registry
from tests.conformance.homes import REPO, TIMEOUT
from tests.conformance.sandbox import DEAD_PROXY, harness_cache, harness_env, make_home, run
from tests.conformance.stub import AnthropicStub, GeminiStub, OpenAIStub
from tests.conformance.support import Proven, need

pytestmark = pytest.mark.conformance

AGENT_LINE = re.compile(r"^(\S+) \((primary|subagent|all)\)$", re.M)
# Qwen Code lists its agent types in its `agent` tool as `- **<name>**: <description>` lines
QWEN_AGENT_LINE = re.compile(r"^- \*\*(\S+)\*\*: ", re.M)
# Gemini 2.5 models get the subagents as `- <name> -> <description>` lines
GEMINI_SUBAGENT = re.compile(r"^- (\S+) -> ", re.M)


def known(harness: str) -> type[Harness]:
    return registry()[harness]


def opencode_builtins(home: Path) -> set[str]:
    # into a file: `opencode agent list` through a pipe can stop short
    listing = home / "agent-list.txt"
    with listing.open("w") as out:
        subprocess.run(["opencode", "agent", "list"], env=harness_env(home), cwd=home,
                       stdout=out, stderr=subprocess.DEVNULL, timeout=TIMEOUT, check=True)  # fmt: skip
    return set(dict(AGENT_LINE.findall(listing.read_text())))


def claude_builtins(home: Path) -> set[str]:
    env = harness_env(home, {"ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": DEAD_PROXY,
                             "CLAUDE_CODE_MAX_RETRIES": "0"})  # fmt: skip
    done = run(["claude", "-p", "--output-format", "stream-json", "--verbose", "hi"], env, home, timeout=TIMEOUT)  # fmt: skip
    event: dict[str, Any] = json.loads(done.stdout.splitlines()[0])
    assert event["subtype"] == "init", event
    return set(event["agents"])


def copilot_builtins(home: Path) -> set[str]:
    """The `agent_type` values of the `task` tool Copilot offers the model."""
    with OpenAIStub(reply="ok") as stub:
        env = harness_env(home, {"COPILOT_PROVIDER_BASE_URL": stub.base_url,
                                 "COPILOT_PROVIDER_API_KEY": "dummy", "COPILOT_MODEL": "gpt-4.1",
                                 "COPILOT_OFFLINE": "true"})  # fmt: skip
        done = run(["copilot", "-p", "hi"], env, home, timeout=TIMEOUT)
        assert done.returncode == 0, done.stderr
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
    [task] = [t["function"] for t in request.json["tools"] if t["function"]["name"] == "task"]
    return set(task["parameters"]["properties"]["agent_type"]["enum"])


def gemini_builtins(home: Path) -> set[str]:
    settings = {"security": {"auth": {"selectedType": "gemini-api-key"}},
                "privacy": {"usageStatisticsEnabled": False}}  # fmt: skip
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini/settings.json").write_text(json.dumps(settings))
    with GeminiStub(reply="done") as stub:
        env = harness_env(home, {"GEMINI_API_KEY": "fake", "GOOGLE_GEMINI_BASE_URL": stub.base_url})
        done = run(["gemini", "-p", "hi", "--skip-trust", "-m", "gemini-2.5-pro"], env, home, timeout=TIMEOUT)  # fmt: skip
        assert done.returncode == 0, done.stderr
        request = stub.wait_for(lambda r: r.kind == "generate", timeout=30)
    text = "\n".join(request.system_texts())
    listed = text.split("The following sub-agents are available:", 1)[1].split("\n\n\n", 1)[0]
    return set(GEMINI_SUBAGENT.findall(listed.split("Remember that", 1)[0]))


def hermes_builtins(home: Path) -> set[str]:
    """The profiles `hermes profile create` refuses as built in (only `default` is listed)."""
    env = harness_env(home, {"HERMES_DISABLE_LAZY_INSTALLS": "1"})
    done = run(["hermes", "profile", "list"], env, home, timeout=TIMEOUT)
    # rows are `  ◆default   —  stopped …`; the header row starts with a capital
    listed = set(re.findall(r"^\s*◆?([a-z0-9][a-z0-9_-]*)\s", done.stdout, re.M))
    assert listed, done.stdout
    found = set()
    for name in listed:
        refused = run(["hermes", "profile", "create", name, "--no-alias"], env, home, timeout=TIMEOUT)  # fmt: skip
        if "it is the built-in profile" in refused.stdout + refused.stderr:
            found.add(name)
    return found


def kilo_builtins(home: Path) -> set[str]:
    env = harness_env(home, {"KILO_TELEMETRY_LEVEL": "off"})
    listing = home / "agent-list.txt"
    with listing.open("w") as out:  # into a file: Kilo exits before a pipe is drained
        subprocess.run(["kilo", "agent", "list"], env=env, cwd=home, stdout=out,
                       stderr=subprocess.DEVNULL, timeout=TIMEOUT, check=True)  # fmt: skip
    return set(dict(AGENT_LINE.findall(listing.read_text())))


def qwen_builtins(home: Path) -> set[str]:
    """The agent types of the `agent` tool Qwen offers the model, as Qwen matches them (in any
    case), and `fork`, which its description names as a subagent_type of its own."""
    (home / "work").mkdir()
    with AnthropicStub(reply="ok") as stub:
        env = harness_env(home, {"ANTHROPIC_API_KEY": "dummy", "ANTHROPIC_BASE_URL": stub.base_url,
                                 "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"})  # fmt: skip
        argv = ["qwen", "-p", "hi", "--auth-type", "anthropic", "-m", "claude-sonnet-4-5"]
        done = run(argv, env, home / "work", timeout=TIMEOUT)
        assert done.returncode == 0, done.stderr
        request = stub.wait_for(lambda r: "agent" in _anthropic_tools(r), timeout=30)
    text = _anthropic_tools(request)["agent"]
    found = {name.lower() for name in QWEN_AGENT_LINE.findall(text)}
    return found | ({"fork"} if '`subagent_type: "fork"`' in text else set())


def _anthropic_tools(request: Any) -> dict[str, str]:
    return {t.get("name"): t.get("description", "") for t in (request.json or {}).get("tools", [])}


def vibe_builtins(home: Path) -> set[str]:
    """Vibe's BUILTIN_AGENTS, read by the Python of the installed Vibe."""
    python = harness_cache() / "vibe-venv/bin/python"
    code = "from vibe.core.agents.models import BUILTIN_AGENTS as b; print(*sorted(b))"
    done = run([str(python), "-c", code], harness_env(home), home, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


def kimi_builtins(home: Path) -> set[str]:
    """The agent types of the Agent tool Kimi Code offers the model."""
    from tests.conformance.test_kimi import agent_types, kimi_env

    (home / "work").mkdir()
    with OpenAIStub(reply="ok") as stub:
        done = run(["kimi", "-p", "hi"], kimi_env(home, stub), home / "work", timeout=TIMEOUT)
        assert done.returncode == 0, done.stderr
        request = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
    return set(agent_types(request))


def droid_builtins(home: Path) -> set[str]:
    """Droid's built-in subagent types, as its first request to a model lists them, and the
    droids it writes into ~/.factory/droids itself on its start (over any file of that name)."""
    from tests.conformance.test_droid import droid_exec, said, section

    _, request = droid_exec(home, home / "work", "hi")
    listed = section(said(request), "Built-in subagent types")
    written = {p.stem for p in (home / ".factory/droids").glob("*.md")}
    return set(re.findall(r"^- (\S+): ", listed, re.M)) | written


def auggie_builtins(home: Path) -> set[str]:
    """The subagents Auggie offers the model (`sub-agent-<name>` tools) in a clean home."""
    from tests.conformance.augment_stub import AugmentStub, tools_of
    from tests.conformance.test_auggie import auggie_run

    with AugmentStub(reply="ok") as stub:
        _, [request] = auggie_run(home, stub, home / "work", "hi")
    return {n.removeprefix("sub-agent-") for n in tools_of(request) if n.startswith("sub-agent-")}


def qoder_builtins(home: Path) -> set[str]:
    """The names under "Built-in:" of `qodercli agents list`."""
    (home / "work").mkdir()
    done = run(["qodercli", "agents", "list"], harness_env(home), home / "work", timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    listed = done.stdout.split("Built-in:", 1)[1]
    return set(re.findall(r"^  (\S+) · ", listed, re.M))


# agents a harness has in its code but does not list (Kilo 7.7.7: `build`, `scout`; Kimi Code
# 2.1.0: `agent`, the one its sessions start as, which it does not offer as a subagent)
UNLISTED = {"kilo": {"build", "scout"}, "kimi": {"agent"}}

READERS = {
    "opencode": (opencode_builtins, "`opencode agent list`"),
    "claude": (claude_builtins, "the init event of `claude -p --output-format stream-json`"),
    "copilot": (copilot_builtins, "the `task` tool's agent_type enum (stub model request)"),
    "gemini": (gemini_builtins, "the sub-agents of the system prompt (stub model request)"),
    "hermes": (hermes_builtins, "`hermes profile list` + `hermes profile create` refusing it"),
    "kilo": (kilo_builtins, "`kilo agent list`"),
    "qwen": (qwen_builtins, "the agent types of its `agent` tool (stub model request)"),
    "vibe": (vibe_builtins, "BUILTIN_AGENTS of its agent loader"),
    "kimi": (kimi_builtins, "the agent types of its Agent tool (stub model request)"),
    "auggie": (auggie_builtins, "its sub-agent-<name> tools (Augment stub request)"),
    "droid": (
        droid_builtins,
        "its 'Built-in subagent types' (stub model request) and the "
        "droids it writes into ~/.factory/droids on its start",
    ),
    "qoder": (qoder_builtins, "`qodercli agents list`"),
}


@pytest.mark.parametrize("harness", sorted(READERS))
def test_the_built_in_agents_are_the_ones_skilltool_knows(
    harness: str, tmp_path: Path, proven: Proven
) -> None:
    need(harness)
    reader, how = READERS[harness]
    found = reader(make_home(tmp_path))
    cls = known(harness)
    assert found == set(cls.builtin_agents) - UNLISTED.get(harness, set()), (
        f"{cls.title} now has the built-in agents {sorted(found)}: update builtin_agents "
        f"and builtin_version in skilltool/harnesses/{harness}.py"
    )
    proven(harness, f"built-in agents, from {how} in a clean home: {', '.join(sorted(found))}")


def test_codex_and_pi_have_no_agent_a_rendering_could_replace() -> None:
    # skilltool writes Codex profiles and session files, and pi wrappers: no namespace of
    # built-in agents; `codex -p default` takes ~/.codex/default.config.toml as any other
    assert not known("codex").builtin_agents and not known("pi").builtin_agents


def test_an_explore_agent_leaves_opencodes_own_explore(tmp_path: Path, proven: Proven) -> None:
    need("opencode")
    home = make_home(tmp_path)
    plugin = tmp_path / "plugins/scout"
    (plugin / "agents").mkdir(parents=True)
    (plugin / "agents/explore.md").write_text(
        "---\nname: explore\ndescription: The plugin's explorer\n---\nPLUGIN EXPLORE BODY\n"
    )
    (home / ".config/opencode").mkdir(parents=True)
    env = {**harness_env(home), "PYTHONPATH": str(REPO), "SKILLTOOL_PLUGINS": str(plugin.parent)}
    done = subprocess.run([sys.executable, "-m", "skilltool", "plugins", "install", "--home", str(home)],
                          env=env, cwd=home, capture_output=True, text=True, timeout=TIMEOUT)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "skipped   opencode: 'explore' is the name of a built-in agent" in done.stdout
    shown = run(["opencode", "debug", "agent", "explore"], harness_env(home), home, timeout=TIMEOUT)
    data = json.loads(shown.stdout)
    # a user file of that name is merged into the native agent: its body would be the prompt
    assert data["native"] is True and data["mode"] == "subagent"
    assert (
        "PLUGIN EXPLORE BODY" not in shown.stdout and data["description"] != "The plugin's explorer"
    )
    proven("opencode", "a plugin agent `explore` is skipped: `opencode debug agent explore` "
           "keeps the native subagent's own prompt and description")  # fmt: skip
