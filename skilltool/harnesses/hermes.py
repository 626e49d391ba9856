"""Hermes: SOUL.md in the agent's profile (the persona; Hermes keeps its own guidance),
and a config.yaml that points the profile at the skills dir when it has none."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from skilltool import markers
from skilltool.fs import read_regular
from skilltool.harnesses import (
    EXPANDED_FIELDS,
    Harness,
    Launch,
    Listing,
    McpValue,
    Note,
    Probe,
    Verdict,
    named,
    remote_entry,
    stdio_entry,
)
from skilltool.hook_places import files_under, same_names
from skilltool.model import Agent, Hook, McpPlace, McpServer, Plugin, Rendering, Skill

# digests of SOUL.md files Hermes seeds itself, carrying no one's intent: replaced, kept beside
# (Hermes 0.19's hermes_cli.default_soul: DEFAULT_SOUL_MD, which `hermes profile create` writes,
# and the two _LEGACY_TEMPLATE_SOULS older installers wrote; compared by digest, no copy kept)
SEEDED_SOUL = frozenset(
    {
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",  # an empty file
        "2765a846e1bb371d78d3b93b403dfb0f8d1ba1a9895edb5f608367abfe81194d",  # DEFAULT_SOUL_MD
        "82fa3438d86f8b95c6e96be89d853c8b561b3e6973ed61c90e70e0231dd24a7e",  # legacy template 1
        "6bc146a50e8fe3bd555e89a77e93af1f781cece8cf549f0d7a02ee2389811c72",  # legacy template 2
    }
)


# what `hermes profile create` accepts (0.19; it lower-cases capitals first)
PROFILE_NAME = r"[a-z0-9][a-z0-9_-]{0,63}"


def _enabled_plugins(config: Path) -> frozenset[str]:
    """The names in `plugins.enabled` of a Hermes config.yaml (none when it cannot be read)."""
    from skilltool.fs import read_regular

    data = read_regular(config) if config.exists() else None
    if data is None:
        return frozenset()
    import yaml

    try:
        value = yaml.safe_load(data)
    except yaml.YAMLError:
        return frozenset()
    plugins = value.get("plugins") if isinstance(value, dict) else None
    enabled = plugins.get("enabled") if isinstance(plugins, dict) else None
    return (
        frozenset(n for n in enabled if isinstance(n, str))
        if isinstance(enabled, list)
        else frozenset()
    )


def hermes_profiles(stdout: str, stderr: str) -> Listing:
    """The profile table: a rule of `─`, then a row per profile, the default marked `◆`."""
    rows = stdout.split("─")[-1].splitlines()
    names = [row.replace("◆", " ").split()[0] for row in rows if row.strip()]
    if not names:
        return Listing(errors=(f"no profiles listed: {(stderr or stdout)[-160:]!r}",))
    return Listing(agents={name: () for name in names})


def hermes_skills(stdout: str, stderr: str) -> Listing:
    rows = re.findall(r"^│ (.+?)\s+│.*│\s+(\w+)\s+│$", stdout, re.M)  # a name may have spaces
    return Listing(skills={name: () for name, status in rows if status == "enabled"})


class Hermes(Harness):
    name = "hermes"
    title = "Hermes"
    no_commands = "Hermes has no command files (it offers its skills as /name commands)"
    # `default` is the built-in profile, ~/.hermes itself ('hermes profile create' refuses it)
    builtin_agents = frozenset({"default"})
    builtin_version = "0.19.0"

    # ${VAR} in every field, seen in `hermes mcp test` (hermes-agent[acp,mcp] 0.19.0); a
    # `${VAR:-default}` is looked up as a variable of that whole name, so it stays as written
    env_fields = EXPANDED_FIELDS
    env_proof = "Hermes 0.19.0 expands ${VAR}, but leaves ${VAR:-default} as it is"

    # hooks: a generated Python plugin per plugin in ~/.hermes/plugins/, which runs Claude
    # Code's hooks from Hermes's plugin hooks; Hermes loads it once the user enables it
    # (proven in tests/conformance/test_hooks_hermes.py)
    hooks_in_folders = True
    no_project_hooks = (
        "Hermes reads no project folder (a project's plugins load only with "
        "HERMES_ENABLE_PROJECT_PLUGINS=1, which skilltool does not set)"
    )
    hook_events: ClassVar[Mapping[str, str] | None] = same_names(
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "SessionStart",
        "SessionEnd",
        "Stop",
        "SubagentStop",
    )

    def _hooks_folder(self, plugin: str) -> Path:
        return self.root() / "plugins" / f"{plugin}-hooks"

    def render_hooks(self, plugin: Plugin, hooks: Sequence[Hook]) -> list[Rendering]:
        folder = self._hooks_folder(plugin.name)
        name = f"{plugin.name}-hooks"
        return [
            Rendering(
                folder / "plugin.yaml",
                self.hooks_script(
                    "hermes/plugin.yaml.j2", plugin, hooks, folder / "plugin.yaml", name=name
                ),
            ),
            Rendering(
                folder / "__init__.py",
                self.hooks_script("hermes/hooks.py.j2", plugin, hooks, folder / "__init__.py"),
            ),
        ]

    def hook_files(self) -> list[Path]:
        folder = self.root() / "plugins"
        return files_under(folder, "*-hooks/plugin.yaml") + files_under(
            folder, "*-hooks/__init__.py"
        )

    def hook_plugin(self, path: Path) -> str:
        return path.parent.name.removesuffix("-hooks")

    def hooks_waiting(self, plugin: Plugin) -> str | None:
        """Hermes loads a user plugin only once its name is in `plugins.enabled` of
        config.yaml, which is the user's to do: the command, until they did."""
        name = f"{plugin.name}-hooks"
        if name in _enabled_plugins(self.root() / "config.yaml"):
            return None
        return (
            f"Hermes runs them only once you enable the plugin: hermes plugins enable {name} "
            "--no-allow-tool-override"
        )

    def mcp_place(self) -> McpPlace:
        # the default profile's config, which every profile started without -p reads
        return McpPlace(self.root() / "config.yaml", "yaml", ("mcp_servers",))

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        if server.transport != "stdio":
            return remote_entry(server)
        if server.cwd is not None:
            return Verdict(True, "Hermes has no working directory for a server (its 'cwd')")
        return stdio_entry(server)

    def profile(self, agent: Agent) -> str:
        return agent.overrides.get("hermes", {}).get("profile", agent.name)

    def profile_dir(self, agent: Agent) -> Path:
        return self.root() / "profiles" / self.profile(agent)

    def builtin_name(self, agent: Agent) -> str:
        return self.profile(agent)

    def refusal(self, agent: Agent) -> str | None:
        name = self.profile(agent)
        if re.fullmatch(PROFILE_NAME, name) is None:
            return (
                f"{name!r} is not a Hermes profile name (a-z, 0-9, '_', '-'); "
                "set one: 'harnesses: {hermes: {profile: <name>}}'"
            )
        return None

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        return named(skill)  # its own line parser reads what YAML refuses

    def absent(self, agent: Agent) -> str | None:
        if not self.present() or (self.builtin_clash(agent) or self.refusal(agent)):
            return super().absent(agent)
        if not self.profile_dir(agent).is_dir():
            name = self.profile(agent)
            return f"profile '{name}' does not exist (create it: hermes profile create {name})"
        return None

    def render(self, agent: Agent) -> list[Rendering]:
        profile = self.profile_dir(agent)
        return [
            Rendering(
                profile / "SOUL.md", self.template("SOUL.md.j2", agent), placeholders=SEEDED_SOUL
            ),
            Rendering(
                profile / "config.yaml",
                self.template("config.yaml.j2", agent, skills_dir=str(self.skills_dir)),
            ),
        ]

    def notes(self, agent: Agent) -> list[Note]:
        """A config.yaml of the user's own that does not list the skills dir: say how to add it."""
        config = self.profile_dir(agent) / "config.yaml"
        from skilltool import markers
        from skilltool.fs import read_regular

        data = read_regular(config)
        if data is None or markers.find(data) is not None:
            return []
        if str(self.skills_dir) in _external_dirs(data, self.home.path):
            return []
        return [
            Note(
                config,
                f"its skills.external_dirs does not list {self.skills_dir}; add it "
                "there so that Hermes sees the linked skills",
            )
        ]

    def probes(self) -> list[Probe]:
        """`hermes profile list`: the profiles, each an agent; and the skills the first profile
        skilltool wrote lists as enabled (`-p NAME skills list`: the shared folder reaches a
        profile through its `skills.external_dirs`, so the default profile says nothing)."""
        env = {"HERMES_DISABLE_LAZY_INSTALLS": "1", "COLUMNS": "200"}
        found = [Probe(("hermes", "profile", "list"), hermes_profiles, env)]
        for soul in sorted((self.root() / "profiles").glob("*/SOUL.md")):
            data = read_regular(soul)
            if data is not None and markers.find(data) is not None:
                argv = ("hermes", "-p", soul.parent.name, "skills", "list")
                found.append(Probe(argv, hermes_skills, env))
                break
        return found

    def owned_places(self) -> list[Path]:
        profiles = self.root() / "profiles"
        return sorted([*profiles.glob("*/SOUL.md"), *profiles.glob("*/config.yaml")])

    def launch(self, agent: Agent) -> Launch:
        name = self.profile(agent)
        return Launch(
            ["hermes", "-p", name, "acp"],
            {},
            ["'hermes acp' needs the acp extra: pip install 'hermes-agent[acp]'"],
        )


def _external_dirs(data: bytes, home: Path) -> list[str]:
    import os

    import yaml

    try:
        config: Any = yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return []
    skills = config.get("skills") if isinstance(config, dict) else None
    dirs = skills.get("external_dirs") if isinstance(skills, dict) else None
    if not isinstance(dirs, list):
        return []
    return [os.path.normpath(_expand_home(d, home)) for d in dirs if isinstance(d, str)]


def _expand_home(path: str, home: Path) -> str:
    return str(home) + path[1:] if path == "~" or path.startswith("~/") else path
