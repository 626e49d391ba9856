"""The agents the conformance suite installs, and throwaway homes to install them into.

An `AgentCase` is what an agent *should* look like to a harness, read straight from
its source file (not through skilltool's parser): name, description, the body
exactly as written. An `Installed` is a temporary home where every harness's own
directory exists (the Hermes profile made by the real `hermes profile create`) and
the real `skilltool plugins install --home` has run, as a subprocess.

`install_home(root, key)` makes the first wave's directories (OpenCode, Codex, pi,
Hermes); `install_home(root, key, SECOND_WAVE)` makes ~/.claude, ~/.gemini (with the
settings.json that points Gemini at an API key and turns its usage statistics off)
and ~/.copilot instead; `THIRD_WAVE`, ~/.config/kilo and ~/.qwen (with a settings.json that
turns Qwen's usage statistics and update check off).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.conformance import sandbox

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
DUMP_EXTENSION = HERE / "pi_dump_prompt.ts"
BUNDLED_PLUGIN = REPO / "resources/plugins/skilltool"

FIRST_WAVE = ("opencode", "codex", "pi", "hermes")
SECOND_WAVE = ("claude", "gemini", "copilot")
THIRD_WAVE = ("kilo", "qwen")
FOURTH_WAVE = ("vibe",)
KIMI = ("kimi",)
DROID = ("droid",)
CLINE = ("cline",)
AUGGIE = ("auggie",)
QODER = ("qoder",)
OPENHANDS = ("openhands",)
AMP = ("amp",)
# ~/.gemini/settings.json for an offline run: API-key auth (GEMINI_API_KEY + the stub's
# GOOGLE_GEMINI_BASE_URL), no usage statistics
GEMINI_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
}
# ~/.qwen/settings.json: no usage statistics, no update check
QWEN_SETTINGS = {
    "general": {"enableAutoUpdate": False},
    "privacy": {"usageStatisticsEnabled": False},
}

TIMEOUT = 60.0  # any one harness command
ACP_TIMEOUT = 90.0  # any one ACP request that asks the stub model

# CRLF line endings, unicode, `---` lines inside the body, quotes (and a '#', a
# backslash, Jinja braces, a TOML triple quote) in the description and body, a
# Claude tools string and model alias, and per-harness model overrides.
TRICKY_AGENT = (
    "---\r\n"
    "name: tricky\r\n"
    "description: 'Says \"hi\" and it''s: ünïcødé — ✓ # not a comment'\r\n"
    "tools: Read, Grep\r\n"
    "skills: [tricky-notes, quote-checker]\r\n"
    "model: sonnet\r\n"
    "harnesses:\r\n"
    "  opencode: {model: stub/stub-model}\r\n"
    "  codex: {model: gpt-6.1-sol}\r\n"
    "  kilo: {model: stub/stub-model}\r\n"
    "---\r\n"
    "\r\n"
    "You are tricky. ✓ ünïcødé — \"double\" and 'single' quotes, `$HOME`, \\back\\slash, {{ braces }}.\r\n"
    "---\r\n"
    'A line of three dashes is above; a """triple quote""" here; another dash line below.\r\n'
    "---\r\n"
    "  indented, with trailing spaces   \r\n"
    "no final newline"
)
TRICKY_SKILLS = {
    "tricky-notes": 'Take notes with ünïcødé ✓ and "quotes". Use when a test needs notes.',
    "quote-checker": "Check 'single' and \"double\" quotes. Use when quoting is in doubt.",
}


@dataclass(frozen=True)
class AgentCase:
    key: str  # "bundled" or "tricky": the test id
    name: str
    description: str
    body: str  # every character after the closing '---' line, exactly
    source: Path  # the agent file
    plugin: Path
    skills: tuple[str, ...]  # the plugin's skills, all linked into ~/.agents/skills
    override: str | None  # SKILLTOOL_PLUGINS, or None for the default search path
    tools: tuple[str, ...] = ()  # Claude tool names, as written
    models: dict[str, str] = field(default_factory=dict)  # harness -> model override
    model: str | None = None  # the agent's own `model:` (a Claude Code value)
    agent_skills: tuple[str, ...] = ()  # the agent's `skills:` list, as written

    @property
    def instructions(self) -> str:
        """Heading + body: Codex's developer_instructions and pi's prompt (after the marker)."""
        return f"# {self.name}\n\n{self.description}\n\n{self.body}"


_FRONTMATTER = re.compile(r"\A---\r?\n(.*?)\r?\n---\r?\n(.*)\Z", re.S)


def read_case(key: str, source: Path, plugin: Path, override: str | None) -> AgentCase:
    text = source.read_bytes().decode("utf-8")
    match = _FRONTMATTER.match(text)
    assert match, f"{source}: no frontmatter"
    front: dict[str, Any] = yaml.safe_load(match.group(1))
    skills = tuple(sorted(p.parent.name for p in (plugin / "skills").glob("*/SKILL.md")))
    models = {h: v["model"] for h, v in (front.get("harnesses") or {}).items() if "model" in v}
    tools = front.get("tools") or ()
    if isinstance(tools, str):
        tools = [t.strip() for t in tools.split(",") if t.strip()]
    return AgentCase(
        key,
        front.get("name", source.stem),
        front["description"],
        match.group(2),
        source,
        plugin,
        skills,
        override,
        tuple(tools),
        models,
        front.get("model"),
        tuple(front.get("skills") or ()),
    )


def bundled_case() -> AgentCase:
    return read_case(
        "bundled", BUNDLED_PLUGIN / "agents/plugin-author.md", BUNDLED_PLUGIN, override=None
    )


def tricky_case(root: Path) -> AgentCase:
    """The tricky plugin, under a path holding the word 'system' (Hermes's injection scan)."""
    plugin = root / "system-tools/plugins/tricky-plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin/plugin.json").write_text(
        '{"name": "tricky-plugin", "version": "1.0.0"}\n'
    )
    (plugin / "agents").mkdir()
    (plugin / "agents/tricky.md").write_bytes(TRICKY_AGENT.encode("utf-8"))
    for name, description in TRICKY_SKILLS.items():
        (plugin / "skills" / name).mkdir(parents=True)
        (plugin / "skills" / name / "SKILL.md").write_bytes(
            f"---\r\nname: {name}\r\ndescription: {json.dumps(description, ensure_ascii=False)}\r\n"
            f"---\r\n\r\n# {name}\r\n\r\nBody of {name} ✓.\r\n".encode()
        )
    return read_case("tricky", plugin / "agents/tricky.md", plugin, override=str(plugin))


def make_case(key: str, root: Path) -> AgentCase:
    return bundled_case() if key == "bundled" else tricky_case(root)


# -- running skilltool, the real CLI, as a subprocess --


def skilltool_env(home: Path, case: AgentCase, root: Path) -> dict[str, str]:
    env = sandbox.harness_env(home)
    env["PYTHONPATH"] = str(REPO)
    # no system-wide plugins of this machine: the bundled one is found on the default path
    env["XDG_DATA_DIRS"] = str(root / "no-system-plugins")
    if case.override is not None:
        env["SKILLTOOL_PLUGINS"] = case.override
    return env


def skilltool(
    home: Path, case: AgentCase, root: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """`python -m skilltool plugins ARGS --home HOME`; fails the test on a traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "skilltool", "plugins", *args, "--home", str(home)],
        env=skilltool_env(home, case, root),
        cwd=home,
        capture_output=True,
        encoding="utf-8",
        timeout=TIMEOUT,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def launch(home: Path, case: AgentCase, root: Path, harness: str) -> dict[str, Any]:
    """What `skilltool plugins launch AGENT --harness H --json` says to run."""
    done = skilltool(home, case, root, "launch", case.name, "--harness", harness, "--json")
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


# -- homes --


def hermes_profile(home: Path, profile: str) -> None:
    """`hermes profile create NAME --no-alias`, the real one (it seeds SOUL.md)."""
    env = sandbox.harness_env(home, {"HERMES_DISABLE_LAZY_INSTALLS": "1"})
    done = sandbox.run(
        ["hermes", "profile", "create", profile, "--no-alias"], env, home, timeout=TIMEOUT
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (home / ".hermes/profiles" / profile / "SOUL.md").is_file()


def harness_dirs(home: Path, profile: str, harnesses: tuple[str, ...]) -> None:
    """Make each harness's own directory, as if the user had set it up."""
    if "opencode" in harnesses:
        (home / ".config/opencode").mkdir(parents=True, exist_ok=True)
    if "codex" in harnesses:
        (home / ".codex").mkdir(parents=True, exist_ok=True)
    if "pi" in harnesses:
        # the prompt-dumping extension is pi's own business: ~/.pi/agent/extensions
        (home / ".pi/agent/extensions").mkdir(parents=True, exist_ok=True)
        shutil.copy(DUMP_EXTENSION, home / ".pi/agent/extensions" / DUMP_EXTENSION.name)
    if "hermes" in harnesses and sandbox.have("hermes"):
        hermes_profile(home, profile)
    if "claude" in harnesses:
        (home / ".claude").mkdir(parents=True, exist_ok=True)
    if "gemini" in harnesses:
        (home / ".gemini").mkdir(parents=True, exist_ok=True)
        settings = home / ".gemini/settings.json"
        if not settings.exists():
            settings.write_text(json.dumps(GEMINI_SETTINGS, indent=2) + "\n", encoding="utf-8")
    if "copilot" in harnesses:
        (home / ".copilot").mkdir(parents=True, exist_ok=True)
    if "kilo" in harnesses:
        (home / ".config/kilo").mkdir(parents=True, exist_ok=True)
    if "vibe" in harnesses:
        (home / ".vibe").mkdir(parents=True, exist_ok=True)
    if "kimi" in harnesses:
        (home / ".kimi-code").mkdir(parents=True, exist_ok=True)
    if "droid" in harnesses:
        (home / ".factory").mkdir(parents=True, exist_ok=True)
    if "cline" in harnesses:
        (home / ".cline").mkdir(parents=True, exist_ok=True)
    if "auggie" in harnesses:
        (home / ".augment").mkdir(parents=True, exist_ok=True)
    if "qoder" in harnesses:
        (home / ".qoder").mkdir(parents=True, exist_ok=True)
    if "openhands" in harnesses:
        (home / ".openhands").mkdir(parents=True, exist_ok=True)
    if "amp" in harnesses:
        (home / ".config/amp").mkdir(parents=True, exist_ok=True)
    if "continue" in harnesses:
        (home / ".continue").mkdir(parents=True, exist_ok=True)
    if "qwen" in harnesses:
        (home / ".qwen").mkdir(parents=True, exist_ok=True)
        settings = home / ".qwen/settings.json"
        if not settings.exists():
            settings.write_text(json.dumps(QWEN_SETTINGS, indent=2) + "\n", encoding="utf-8")


@dataclass
class Installed:
    """A home where `skilltool plugins install --home` ran for one agent."""

    case: AgentCase
    root: Path
    home: Path
    output: str  # install's stdout + stderr
    seeded_soul: bytes | None  # SOUL.md as `hermes profile create` made it

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        return sandbox.harness_env(self.home, extra)

    def launch(self, harness: str) -> dict[str, Any]:
        return launch(self.home, self.case, self.root, harness)


def install_home(root: Path, key: str, harnesses: tuple[str, ...] = FIRST_WAVE) -> Installed:
    """A home with each harness's own directory, after the real `skilltool plugins install`."""
    root.mkdir(parents=True, exist_ok=True)
    case = make_case(key, root)
    home = sandbox.make_home(root)
    harness_dirs(home, case.name, harnesses)
    soul = home / ".hermes/profiles" / case.name / "SOUL.md"
    seeded = soul.read_bytes() if soul.is_file() else None
    done = skilltool(home, case, root, "install")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    return Installed(case, root, home, output, seeded)


# the provenance line skilltool puts in a rendered file, as a YAML comment
MARKER = re.compile(r"^# rendered by skilltool from (.+) \(sha256:[0-9a-f]{64}\)$")


@dataclass(frozen=True)
class RenderedAgent:
    """An agent file with YAML frontmatter, as a harness will read it."""

    front: dict[str, Any]  # the frontmatter, parsed
    lines: list[str]  # the frontmatter's lines, as written
    body: str  # every character after the closing '---' line, exactly

    def marker(self) -> re.Match[str] | None:
        """The marker comment line of the frontmatter, if there is one."""
        for line in self.lines:
            match = MARKER.match(line)
            if match:
                return match
        return None


def rendered_agent(path: Path) -> RenderedAgent:
    match = _FRONTMATTER.match(text(path))
    assert match, f"{path}: no frontmatter"
    front = yaml.safe_load(match.group(1)) or {}
    assert isinstance(front, dict), f"{path}: frontmatter is not a mapping"
    return RenderedAgent(front, match.group(1).splitlines(), match.group(2))


def with_front_line(path: Path, line: str, target: Path) -> None:
    """Copy an agent file to `target` with one more frontmatter line right after the
    opening `---` (a control: the same file with a key the harness should complain about)."""
    first, rest = text(path).split("\n", 1)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(f"{first}\n{line}\n{rest}".encode())


def lines_about(output: str, path: str) -> list[str]:
    return [line for line in output.splitlines() if path in line]


def left_alone(
    home: Path,
    case: AgentCase,
    tmp_path: Path,
    target: Path,
    shown: str,
    still_loads: Callable[[], None],
) -> None:
    """A user's own file at a target path: `install` says it is left and `install` and
    `uninstall` keep it byte for byte (mode too); the harness loads it before, between
    and after."""
    before = content_and_mode(target)
    still_loads()
    for command in ("install", "uninstall"):
        done = skilltool(home, case, tmp_path, command)
        assert done.returncode == 0, done.stderr
        if command == "install":
            left = re.compile(rf"left\s+{re.escape(shown)}: ")
            assert any(left.match(line) for line in done.stdout.splitlines()), done.stdout
        assert content_and_mode(target) == before
        still_loads()


def content_and_mode(path: Path) -> tuple[bytes, int]:
    """A file's content and mode, to prove it was not touched."""
    return path.read_bytes(), os.lstat(path).st_mode


def text(path: Path) -> str:
    """A file's exact text: no newline translation (read_text would turn CRLF into LF)."""
    return path.read_bytes().decode("utf-8")
