"""The harnesses' own Claude-plugin loaders (Claude Code, Copilot CLI, Codex, Qwen Code, Qoder
CLI, Auggie), each beside skilltool's rendering of the same plugin in the same binary: the
findings behind the route each harness gets (docs/harnesses.md, "The harnesses' own
Claude-plugin loaders"). Factory Droid's loader row is in test_hooks_droid.py.

One local marketplace (`team-market`) holds one plugin, `kit`, with a skill, an agent, a
command, a SessionStart hook writing `${CLAUDE_PLUGIN_ROOT}/fired`, and an MCP server started
as `${CLAUDE_PLUGIN_ROOT}/srv.py ${CLAUDE_PLUGIN_ROOT}/started` (it writes that file when it
starts). Home A takes it through the harness's loader (`plugin marketplace add DIR`, `plugin
install kit@team-market`, or the harness's own words for them), home B through the real
`skilltool plugins install` of a copy of the same plugin; each binary is then asked what it
loaded. Offline: a dead or loopback model (a stub of Augment's API for Auggie), or, for Qoder,
which needs a sign-in for a prompt, its listings."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.conformance import augment_stub
from tests.conformance import carried as C
from tests.conformance.augment_stub import AugmentStub, skills_of, tools_of
from tests.conformance.homes import QWEN_SETTINGS, TIMEOUT
from tests.conformance.sandbox import harness_env, make_home, run
from tests.conformance.stub import MCP_FLAG_RECORDER, AnthropicStub, OpenAIStub
from tests.conformance.support import Proven, need
from tests.helpers import build_file_tree, toml_loads

pytestmark = pytest.mark.conformance

ROOT = "${CLAUDE_PLUGIN_ROOT}"
KIT = {
    ".claude-plugin/plugin.json": '{"name": "kit", "version": "1.0.0"}',
    "skills/kit-skill/SKILL.md": "---\nname: kit-skill\ndescription: KIT SKILL\n---\nB.\n",
    "agents/kit-agent.md": "---\nname: kit-agent\ndescription: KIT AGENT\n---\nKIT AGENT BODY\n",
    "commands/kit-cmd.md": "---\ndescription: KIT CMD\n---\nKIT COMMAND $ARGUMENTS\n",
    "hooks/hooks.json": json.dumps({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": f"echo fired > {ROOT}/fired"}]}]}}),
    ".mcp.json": json.dumps({"mcpServers": {"kit-srv": {
        "command": sys.executable, "args": [f"{ROOT}/srv.py", f"{ROOT}/started"]}}}),
    "srv.py": MCP_FLAG_RECORDER,
}  # fmt: skip


class Homes:
    """The marketplace, the plugin's live folder in it, and the two homes: `loader` (empty but
    for the harness's folder) and `rendered` (skilltool installed a copy of the plugin,
    `plugin`, from its user plugin folder)."""

    def __init__(self, root: Path, folder: str) -> None:
        market = {"name": "team-market", "owner": {"name": "t"},
                  "plugins": [{"name": "kit", "source": "./plugins/kit"}]}  # fmt: skip
        self.market = root / "mkt"
        self.live = build_file_tree(self.market / "plugins/kit", KIT)
        build_file_tree(self.market, {".claude-plugin/marketplace.json": json.dumps(market)})
        self.loader, self.rendered = make_home(root / "a"), make_home(root / "b")
        for home in (self.loader, self.rendered):
            (home / folder).mkdir(exist_ok=True)  # make_home makes .codex
        self.plugin = self.rendered / C.USER_PLUGINS / "kit"
        shutil.copytree(self.live, self.plugin)
        self.work = root / "work"
        self.work.mkdir()

    def install(self, harness: str, env: dict[str, str]) -> None:
        """The loader's two commands in the loader home; skilltool's install in the other."""
        self.load(env, [harness, "plugin", "marketplace", "add", str(self.market)],
                  [harness, "plugin", "install", "kit@team-market"])  # fmt: skip
        C.skilltool(self.rendered, "install")

    def load(self, env: dict[str, str], *argvs: list[str]) -> None:
        """The loader's own commands, in order, in the loader home."""
        for argv in argvs:
            done = run(argv, env, self.loader, TIMEOUT)
            assert done.returncode == 0, done.stdout + done.stderr


def claude_env(home: Path) -> dict[str, str]:
    keys = {"ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
            "CLAUDE_CODE_MAX_RETRIES": "0"}  # fmt: skip
    return harness_env(home, keys)


def claude_init(home: Path, work: Path) -> dict[str, Any]:
    """The `init` event of `claude -p --output-format stream-json --verbose` (the model at a
    dead port: the event comes first, after the SessionStart hooks)."""
    argv = ["claude", "-p", "--output-format", "stream-json", "--verbose", "hi"]
    done = run(argv, claude_env(home), work, TIMEOUT)
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    init: dict[str, Any] = next(e for e in events if e.get("subtype") == "init")
    return init


def kits(init: dict[str, Any]) -> dict[str, set[str]]:
    """Of the init event, the names of kit's parts: skills, agents, slash commands, and the MCP
    servers with their status."""
    found = {kind: {n for n in init[kind] if "kit" in n}
             for kind in ("skills", "agents", "slash_commands")}  # fmt: skip
    found["mcp_servers"] = {f"{s['name']} {s['status']}" for s in init["mcp_servers"]}
    return found


def test_claude_codes_loader_prefixes_every_name_and_runs_the_live_folder(
    tmp_path: Path, proven: Proven
) -> None:
    need("claude")
    homes = Homes(tmp_path, ".claude")
    homes.install("claude", claude_env(homes.loader))
    claude = homes.loader / ".claude"
    directory = {"source": "directory", "path": str(homes.market)}
    assert json.loads((claude / "settings.json").read_text()) == {
        "extraKnownMarketplaces": {"team-market": {"source": directory}},
        "enabledPlugins": {"kit@team-market": True},
    }
    known = json.loads((claude / "plugins/known_marketplaces.json").read_text())
    assert known["team-market"]["installLocation"] == str(homes.market)
    installed = json.loads((claude / "plugins/installed_plugins.json").read_text())
    [record] = installed["plugins"]["kit@team-market"]
    copy = claude / "plugins/cache/team-market/kit/1.0.0"
    assert record["installPath"] == str(copy) and (copy / "commands/kit-cmd.md").is_file()

    loaded, rendered = (kits(claude_init(h, homes.work)) for h in (homes.loader, homes.rendered))
    assert loaded == {
        "skills": {"kit:kit-skill"},
        "agents": {"kit:kit-agent"},
        "slash_commands": {"kit:kit-cmd", "kit:kit-skill"},
        "mcp_servers": {"plugin:kit:kit-srv connected"},
    }
    assert rendered == {
        "skills": {"kit-skill"},
        "agents": {"kit-agent"},
        "slash_commands": {"kit-cmd", "kit-skill"},
        "mcp_servers": {"plugin:kit:kit-srv connected"},
    }
    # the loader ran the plugin from the marketplace's folder, not from its own copy
    assert {p.name for p in homes.live.iterdir()} >= {"fired", "started"}
    assert not (copy / "fired").exists() and not (copy / "started").exists()
    assert (homes.plugin / "fired").is_file() and (homes.plugin / "started").is_file()
    assert (claude / "plugins/data/kit-team-market").is_dir()  # the plugin's data folder
    proven(
        "claude",
        "its Claude-plugin loader: `claude plugin marketplace add DIR` + `plugin install "
        "kit@team-market` write settings.json (extraKnownMarketplaces, enabledPlugins), "
        "known_marketplaces.json, installed_plugins.json and a copy in plugins/cache, yet run "
        "the marketplace's own folder (${CLAUDE_PLUGIN_ROOT}: the hook fires, the MCP server "
        "connects); every name is prefixed: kit:kit-skill, kit:kit-agent, /kit:kit-cmd, where "
        "skilltool's rendering gives kit-skill, kit-agent, /kit-cmd (the MCP server and hook "
        "alike in both)",
    )


def copilot_env(home: Path, base_url: str) -> dict[str, str]:
    provider = {"COPILOT_PROVIDER_BASE_URL": base_url, "COPILOT_PROVIDER_API_KEY": "dummy",
                "COPILOT_MODEL": "gpt-4.1", "COPILOT_OFFLINE": "true"}  # fmt: skip
    return harness_env(home, provider)


def copilot_loads(home: Path, work: Path) -> dict[str, set[str]]:
    """What Copilot has of kit in `home`: `skill list --json` (name and source), the agents
    `--agent nonexistent` names, and one `copilot -p` whose request shows the MCP tools."""
    from tests.conformance.test_copilot import available_agents

    with OpenAIStub(reply="done") as stub:
        env = copilot_env(home, stub.base_url)
        done = run(["copilot", "skill", "list", "--json"], env, work, TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        skills = {f"{s['name']} {s['source']}" for s in json.loads(done.stdout) if "kit" in s["name"]}  # fmt: skip
        done = run(["copilot", "-p", "hi", "--allow-all-tools"], env, work, TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        [request] = stub.model_requests()
    tools = {t["function"]["name"] for t in (request.json or {})["tools"]}
    return {
        "skills": skills,
        "agents": {a for a in available_agents(home, work) if "kit" in a},
        "tools": {t for t in tools if "kit" in t},
    }


def test_copilots_loader_runs_the_live_folder_and_prefixes_the_agent(
    tmp_path: Path, proven: Proven
) -> None:
    need("copilot")
    homes = Homes(tmp_path, ".copilot")
    homes.install("copilot", copilot_env(homes.loader, "http://127.0.0.1:9/v1"))
    copilot = homes.loader / ".copilot"
    directory = {"source": "directory", "path": str(homes.market)}
    assert json.loads((copilot / "settings.json").read_text()) == {
        "extraKnownMarketplaces": {"team-market": {"source": directory}},
        "enabledPlugins": {"kit@team-market": True},
    }
    assert not [p for p in copilot.rglob("*") if p.name in ("kit-cmd.md", "srv.py")]  # no copy

    loaded, rendered = (copilot_loads(h, homes.work) for h in (homes.loader, homes.rendered))
    assert loaded == {
        "skills": {"kit-skill plugin", "kit-cmd plugin"},
        "agents": {"kit:kit-agent"},
        "tools": {"kit-srv-ping"},
    }
    assert rendered["agents"] == {"kit-agent"} and rendered["tools"] == {"kit-srv-ping"}
    assert {s.split()[0] for s in rendered["skills"]} == {"kit-skill"}  # no command: none
    assert (homes.live / "fired").is_file() and (homes.live / "started").is_file()
    assert (homes.plugin / "fired").is_file() and (homes.plugin / "started").is_file()
    assert (copilot / "plugin-data/team-market/kit").is_dir()  # the plugin's data folder
    proven(
        "copilot",
        "its Claude-plugin loader: `copilot plugin marketplace add DIR` + `plugin install "
        "kit@team-market` write only settings.json (extraKnownMarketplaces, enabledPlugins, "
        "Claude Code's shape) and copy nothing; it runs the marketplace's folder "
        "(${CLAUDE_PLUGIN_ROOT}: the hook fires, the MCP server starts, tool kit-srv-ping); "
        "skill kit-skill and the command as a skill kit-cmd, agent kit:kit-agent, where "
        "skilltool's rendering gives kit-skill, agent kit-agent, the same MCP tool and hook, "
        "and no command",
    )


def codex_app_server(home: Path, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
    """The results of `calls` (method, params) to one `codex app-server` (JSON-RPC over stdio)."""
    hello = {"clientInfo": {"name": "skilltool-test", "version": "0"}}
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello},
             {"jsonrpc": "2.0", "method": "initialized"}]  # fmt: skip
    lines += [{"jsonrpc": "2.0", "id": n, "method": m, "params": p} for n, (m, p) in enumerate(calls, 1)]  # fmt: skip
    proc = subprocess.Popen(
        ["codex", "app-server"], env=harness_env(home), cwd=home, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    results: dict[int, Any] = {}
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(x) + "\n" for x in lines))
        proc.stdin.flush()
        for line in proc.stdout:
            message = json.loads(line)
            if message.get("id") in range(1, len(calls) + 1):
                results[message["id"]] = message["result"]
            if len(results) == len(calls):
                return [results[n] for n in range(1, len(calls) + 1)]
        raise AssertionError(f"codex app-server ended after answering {sorted(results)}")
    finally:
        proc.kill()
        proc.wait(timeout=10)


def codex_loads(home: Path) -> dict[str, set[str]]:
    """What Codex has of kit in `home`, by its app-server: the skills, the hooks (event and
    trust) and the MCP servers (their tools, or that they failed to start)."""
    cwds = {"cwds": [str(home)]}
    skills, hooks, servers = codex_app_server(
        home, ("skills/list", cwds), ("hooks/list", cwds), ("mcpServerStatus/list", {})
    )
    return {
        "skills": {s["name"] for s in skills["data"][0]["skills"] if "kit" in s["name"]},
        "hooks": {f"{h['eventName']} {h['trustStatus']}" for h in hooks["data"][0]["hooks"]},
        "servers": {
            f"{s['name']} {' '.join(sorted(s['tools'])) or 'failed'}" for s in servers["data"]
        },
    }


def codex_prompt(home: Path, *profile: str) -> str:
    """All the model would be given, `codex [-p NAME] debug prompt-input hi`, as one text."""
    done = run(["codex", *profile, "debug", "prompt-input", "hi"], harness_env(home), home, TIMEOUT)
    assert done.returncode == 0, done.stderr
    return done.stdout


def codex_exec(home: Path, *flags: str) -> None:
    """`codex exec hi` against a loopback Responses stub that answers `done`."""
    with OpenAIStub(reply="done") as stub:
        provider = {"name": "Stub", "base_url": stub.base_url, "wire_api": "responses",
                    "env_key": "STUB_API_KEY"}  # fmt: skip
        argv = ["codex", "exec", "--skip-git-repo-check", *flags,
                "-c", 'model_provider="stub"', "-c", 'model="gpt-6.1-sol"']  # fmt: skip
        for key, value in provider.items():
            argv += ["-c", f"model_providers.stub.{key}={json.dumps(value)}"]
        env = harness_env(home, {"STUB_API_KEY": "dummy"})
        done = run([*argv, "hi"], env, home, TIMEOUT)
        assert done.returncode == 0, done.stderr


def test_codexs_loader_copies_the_plugin_and_leaves_out_the_agent_and_command(
    tmp_path: Path, proven: Proven
) -> None:
    need("codex")
    homes = Homes(tmp_path, ".codex")
    env = harness_env(homes.loader)
    homes.load(env, ["codex", "plugin", "marketplace", "add", str(homes.market)],
               ["codex", "plugin", "add", "kit@team-market"])  # fmt: skip
    C.skilltool(homes.rendered, "install")
    codex = homes.loader / ".codex"
    assert toml_loads((codex / "config.toml").read_text()) == {
        "marketplaces": {"team-market": {"source_type": "local", "source": str(homes.market)}},
        "plugins": {"kit@team-market": {"enabled": True}},
    }
    copy = codex / "plugins/cache/team-market/kit/1.0.0"
    assert (copy / "commands/kit-cmd.md").is_file() and (copy / "agents/kit-agent.md").is_file()

    loaded, rendered = codex_loads(homes.loader), codex_loads(homes.rendered)
    assert loaded == {
        "skills": {"kit:kit-skill"},
        "hooks": {"sessionStart untrusted"},
        "servers": {"kit-srv failed"},  # its args name ${CLAUDE_PLUGIN_ROOT}, not expanded
    }
    listed = run(["codex", "mcp", "list", "--json"], env, homes.loader)
    [server] = json.loads(listed.stdout)
    assert server["transport"]["args"] == [f"{ROOT}/srv.py", f"{ROOT}/started"]
    # skilltool's: the same skill name, the server started (no hook: Codex would want trust)
    assert rendered == {"skills": {"kit:kit-skill"}, "hooks": set(), "servers": {"kit-srv ping"}}
    # neither the agent nor the command reaches the model by the loader; the rendered agent
    # is the profile `codex -p kit-agent`
    prompt = codex_prompt(homes.loader)
    assert "kit:kit-skill: KIT SKILL" in prompt
    assert not [w for w in ("kit-agent", "KIT AGENT", "kit-cmd", "KIT CMD", "KIT COMMAND") if w in prompt]  # fmt: skip
    assert "KIT AGENT BODY" in codex_prompt(homes.rendered, "-p", "kit-agent")
    # the hook runs only when trusted, then from the copy (${CLAUDE_PLUGIN_ROOT} its folder)
    codex_exec(homes.loader)
    assert not (copy / "fired").exists()
    codex_exec(homes.loader, "--dangerously-bypass-hook-trust")
    assert (copy / "fired").is_file() and not (homes.live / "fired").exists()
    assert not (copy / "started").exists() and not (homes.live / "started").exists()
    proven(
        "codex",
        "its Claude-plugin loader: `codex plugin marketplace add DIR` + `plugin add "
        'kit@team-market` write [marketplaces.team-market] and [plugins."kit@team-market"] in '
        "config.toml and copy the plugin into plugins/cache; app-server lists skill "
        "kit:kit-skill, the SessionStart hook (untrusted: it fires only with the trust "
        "bypassed, in the copy) and the MCP server kit-srv, which fails to start (its args keep "
        "${CLAUDE_PLUGIN_ROOT}); neither the agent nor the command reaches the model; "
        "skilltool's rendering gives the same skill name, the server started (tool ping) and "
        "the agent as the profile kit-agent",
    )


def strings(node: Any) -> list[str]:
    """Every string value anywhere in a JSON document, in order."""
    if isinstance(node, dict):
        return [s for value in node.values() for s in strings(value)]
    if isinstance(node, list):
        return [s for item in node for s in strings(item)]
    return [node] if isinstance(node, str) else []


def qwen_loads(home: Path, work: Path) -> dict[str, set[str]]:
    """What Qwen Code has of kit in `home`: one `qwen -p '/kit-cmd go'` against a loopback
    Anthropic stub, whose main request lists the skills (and commands) by name, the agents
    in the `agent` tool, the MCP tools by name, and sends the command's text."""
    with AnthropicStub(reply="done") as stub:
        keys = {"ANTHROPIC_API_KEY": "dummy", "ANTHROPIC_BASE_URL": stub.base_url}
        argv = ["qwen", "-p", "/kit-cmd go", "--auth-type", "anthropic", "-m", "claude-sonnet-4-5"]  # fmt: skip
        done = run(argv, harness_env(home, keys), work, TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        requests = stub.model_requests()
    # the main request: the one whose tools hold `agent` (a memory task's has not)
    [(main, agent)] = [(r, t["description"]) for r in requests for t in r.json.get("tools", [])
                       if t["name"] == "agent"]  # fmt: skip
    said = "\n".join(strings(main.json))
    return {
        "skills": set(re.findall(r"<name>\n(\S*kit\S*)\n</name>", said)),
        "agents": {a for a in re.findall(r"^- \*\*(\S+)\*\*: ", agent, re.M) if "kit" in a},
        "tools": set(re.findall(r"mcp__kit[\w-]*", said)),
        "command": {t for t in main.texts() if "KIT COMMAND" in t},
    }


def test_qwens_loader_makes_an_extension_copy_without_the_server(
    tmp_path: Path, proven: Proven
) -> None:
    need("qwen")
    homes = Homes(tmp_path, ".qwen")
    for home in (homes.loader, homes.rendered):
        (home / ".qwen/settings.json").write_text(json.dumps(QWEN_SETTINGS))
    homes.load(harness_env(homes.loader), ["qwen", "extensions", "install", f"{homes.market}:kit", "--consent"])  # fmt: skip
    C.skilltool(homes.rendered, "install")
    copy = homes.loader / ".qwen/extensions/kit"
    assert json.loads((copy / "qwen-extension.json").read_text()) == {
        "name": "kit", "version": "1.0.0"}  # fmt: skip
    record = json.loads((copy / ".qwen-extension-install.json").read_text())
    assert record["source"] == str(homes.market) and record["originSource"] == "Claude"

    loaded, rendered = (qwen_loads(h, homes.work) for h in (homes.loader, homes.rendered))
    assert loaded == {
        "skills": {"kit:kit-skill", "kit-cmd"},
        "agents": {"kit-agent"},
        "tools": set(),
        "command": {"KIT COMMAND $ARGUMENTS\n\n/kit-cmd go"},  # no $ARGUMENTS put in
    }
    assert rendered == {
        "skills": {"kit-skill", "kit-cmd"},
        "agents": {"kit-agent"},
        "tools": {"mcp__kit-srv__ping"},
        "command": {"KIT COMMAND go\n"},
    }
    # the loader's hook ran in its copy, and no server started; skilltool's ran both in place
    assert (copy / "fired").is_file() and not (homes.live / "fired").exists()
    assert not (copy / "started").exists() and not (homes.live / "started").exists()
    assert (homes.plugin / "fired").is_file() and (homes.plugin / "started").is_file()
    proven(
        "qwen",
        "its Claude-plugin loader: `qwen extensions install DIR:kit --consent` converts kit "
        "into an extension copy ~/.qwen/extensions/kit (qwen-extension.json without the MCP "
        "server); `qwen -p '/kit-cmd go'` lists skill kit:kit-skill, command kit-cmd, agent "
        "kit-agent, sends 'KIT COMMAND $ARGUMENTS' with the line appended ($ARGUMENTS not put "
        "in), runs the hook in the copy, and has no MCP tool; skilltool's rendering gives "
        "kit-skill, kit-cmd sending 'KIT COMMAND go', kit-agent, mcp__kit-srv__ping and the hook",
    )


def qoder_loads(listed: dict[str, str]) -> dict[str, set[str]]:
    """Of Qoder's listings, kit's parts: skills (and commands) by name, agents by name and
    the heading they are listed under, MCP servers by their line, plugins by name and status."""
    heading, agents = "", set()
    for line in listed["agents"].splitlines():
        if line.endswith(":") and not line.startswith(" "):
            heading = line
        elif "kit" in line:
            agents.add(f"{heading} {line.split(' · ')[0].strip()}")
    found = {
        "skills": set(re.findall(r"^(\S*kit\S*) \[Enabled\]$", listed["skills"], re.M)),
        "agents": agents,
        "mcp": {line.split(": ")[0] for line in listed["mcp"].splitlines() if "kit" in line},
    }
    if "plugins" in listed:
        found["plugins"] = set(re.findall(r"^(kit\S*) .*\n.*\n\s+Status: (\w+)", listed["plugins"], re.M))  # fmt: skip
    return found


def test_qoders_loader_prefixes_the_names_and_lists_no_command_nor_server(
    tmp_path: Path, proven: Proven
) -> None:
    """Each Qoder command waits about ten seconds for Qoder's own servers, out of reach here:
    skilltool's home is listed while the loader's two commands run."""
    from tests.conformance.test_qoder import listings

    need("qoder")
    homes = Homes(tmp_path, ".qoder")
    qoder = ["qodercli", "plugins"]
    C.skilltool(homes.rendered, "install")
    with ThreadPoolExecutor(1) as pool:
        listing = pool.submit(listings, homes.rendered, homes.work)
        homes.load(harness_env(homes.loader), [*qoder, "marketplace", "add", str(homes.market)],
                   [*qoder, "install", "kit@team-market"])  # fmt: skip
        which = (("skills", "list"), ("agents", "list"), ("mcp", "list"), ("plugins", "list"))
        loaded = qoder_loads(listings(homes.loader, homes.work, which=which))
        rendered = qoder_loads(listing.result())
    settings = json.loads((homes.loader / ".qoder/settings.json").read_text())
    directory = {"source": "directory", "path": str(homes.market)}
    assert settings == {
        "extraKnownMarketplaces": {"team-market": {"source": directory}},
        "enabledPlugins": {"kit@team-market": True},
    }
    copy = homes.loader / ".qoder/plugins/cache/team-market/kit/1.0.0"
    assert (copy / "commands/kit-cmd.md").is_file() and (copy / ".mcp.json").is_file()
    assert loaded == {
        "skills": {"kit:kit-skill"},
        "agents": {"Plugin: kit:kit-agent"},
        "mcp": set(),
        "plugins": {("kit@team-market", "enabled")},
    }
    assert rendered == {
        "skills": {"kit-skill", "kit-cmd"},
        "agents": {"User: kit-agent"},
        "mcp": {"✓ kit-srv"},
    }
    # the skills and agents listings start the plugin's server, from the copy, unlisted
    assert (copy / "started").is_file() and not (homes.live / "started").exists()
    proven(
        "qoder",
        "its Claude-plugin loader: `qodercli plugins marketplace add DIR` + `plugins install "
        "kit@team-market` write extraKnownMarketplaces and enabledPlugins in settings.json and "
        "copy the plugin into plugins/cache; `skills list` gives kit:kit-skill and no command, "
        "`agents list` kit:kit-agent under Plugin, `mcp list` no server (though the skills and "
        "agents listings start it from the copy), `plugins list` kit@team-market enabled; "
        "skilltool's rendering gives kit-skill, the command kit-cmd, kit-agent under User and "
        "kit-srv connected",
    )


def auggie_loads(home: Path, work: Path, *flags: str) -> dict[str, set[str]]:
    """What Auggie has of kit in `home`: one `auggie --print '/kit-cmd go'` against a loopback
    stub of Augment's API, whose chat request lists the skills (and where each lives), the
    subagents and MCP tools among its tools, and the text it sends."""
    with AugmentStub(reply="done") as stub:
        argv = ["auggie", *flags, "--print", "--dont-save-session", "/kit-cmd go"]
        env = harness_env(home, {"AUGMENT_SESSION_AUTH": stub.session})
        done = run(argv, env, work, TIMEOUT)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        [chat] = stub.chats()
    nodes = chat.json.get("nodes", [])
    return {
        "skills": {f"{n} {s['location']}" for n, s in skills_of(chat).items() if "kit" in n},
        "tools": {n for n in tools_of(chat) if "kit" in n},
        "sent": {n["text_node"]["content"] for n in nodes if n.get("text_node")},
    }


def test_auggies_loader_runs_behind_a_server_flag_and_leaves_out_the_command_and_server(
    tmp_path: Path, proven: Proven, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--plugin-dir DIR` takes a marketplace folder and installs nothing; Auggie loads it only
    when Augment's /get-models turns on the feature flag `enable_plugin_marketplace`, as the
    stub does (and, for the last run, does not)."""
    need("auggie")
    homes = Homes(tmp_path, ".augment")
    C.skilltool(homes.rendered, "install")
    plugin_dir = ("--plugin-dir", str(homes.market))
    loaded = auggie_loads(homes.loader, homes.work, *plugin_dir)
    rendered = auggie_loads(homes.rendered, homes.work)
    assert loaded == {
        "skills": {f"kit:kit-skill {homes.live}/skills/kit-skill/SKILL.md"},
        "tools": {"sub-agent-kit-team-market-kit-agent"},
        "sent": {"/kit-cmd go"},  # no command: the line goes to the model as typed
    }
    assert rendered == {
        "skills": {f"kit-skill {homes.rendered}/.agents/skills/kit-skill/SKILL.md"},
        "tools": {"sub-agent-kit-agent", "ping_kit-srv"},
        "sent": {"KIT COMMAND go\n\n"},
    }
    # the loader's server (its args naming ${CLAUDE_PLUGIN_ROOT}) did not start; no hook ran
    assert not (homes.live / "started").exists() and (homes.plugin / "started").is_file()
    assert not (homes.live / "fired").exists()
    assert not [p for p in homes.loader.rglob("*") if "kit" in p.name]  # nothing copied in
    monkeypatch.setattr(augment_stub, "FLAGS", {"beachhead_enable_sub_agent_tool": True})
    unflagged = auggie_loads(homes.loader, homes.work, *plugin_dir)
    assert unflagged == {"skills": set(), "tools": set(), "sent": {"/kit-cmd go"}}
    proven(
        "auggie",
        "its Claude-plugin loader: `auggie --plugin-dir DIR` (a marketplace folder; nothing "
        "copied into the home) loads kit only when /get-models sends the feature flag "
        "enable_plugin_marketplace; then skill kit:kit-skill from the marketplace's folder and "
        "the agent as sub-agent-kit-team-market-kit-agent, but not the command (/kit-cmd go "
        "goes to the model as typed) and not the MCP server (its args name "
        "${CLAUDE_PLUGIN_ROOT}; it did not start); no hook ran; skilltool's rendering gives kit-skill, sub-agent-kit-agent, "
        "ping_kit-srv and the command's text",
    )
