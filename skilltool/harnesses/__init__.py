"""The harnesses: the base every harness module builds on (`Harness`: the defaults of every
surface: agents, skills, commands, MCP entries, verdicts, launch), and the registry.

A harness module defines one subclass of `Harness` holding everything specific to that
harness; adding one is its module, one line of the registry (`ROOTS`), one template folder
under templates/, its snapshots and its conformance file.
"""

from __future__ import annotations

import abc
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from skilltool import markers
from skilltool.model import (
    BARE_REFERENCE,
    EMPTY,
    Agent,
    Hook,
    LspServer,
    McpPlace,
    McpServer,
    Plugin,
    Problem,
    Rendering,
    SearchEntry,
    Skill,
    SlashCommand,
    field_references,
)
from skilltool.paths import HARNESS_ROOTS, Project, Scope, package_data
from skilltool.placeholders import Translation
from skilltool.record import NamedTuple

if TYPE_CHECKING:
    import jinja2

    from skilltool.folders import FolderItems, Ours


# the model aliases Claude Code 2.1.332 resolves ('default' is sent as it is, and fails)
CLAUDE_ALIASES = frozenset({"haiku", "sonnet", "opus", "fable", "best", "inherit", "opusplan"})
CLAUDE_LONG_CONTEXT = frozenset({"sonnet", "opus", "fable"})  # also as '<alias>[1m]'


class Verdict(NamedTuple):
    """What one harness does with a skill or agent that is not plain: skips it, or loads it
    in a way the user should know of."""

    skips: bool
    # skipped: why ("no description"); loaded: what it does, a verb in its base form
    # ("cut its description to 1024 characters"), said of one harness or several
    why: str


class Note(NamedTuple):
    """Something to tell the user about a rendering that is not a file action."""

    target: Path
    text: str


class Launch(NamedTuple):
    """How to start the harness as the agent over ACP."""

    command: list[str]
    env: Mapping[str, str] = EMPTY
    notes: Sequence[str] = ()
    # the agent is chosen inside each session, by the session's `agent` config option
    # (`skilltool acp` relays the session and chooses it)
    choose: bool = False
    # (variable, text): a system prompt the harness reads from a file the variable names;
    # `skilltool acp` writes the text into its own cache and sets the variable to that file
    prompt: tuple[str, str] | None = None


class Listing(NamedTuple):
    """What a harness's binary said it loads (`skilltool doctor`): each skill by the folder it
    was found in (its link's name) with where it was read from, each agent by name; None
    where the probe cannot tell."""

    skills: Mapping[str, Sequence[str]] | None = None  # name -> every place it was listed from
    agents: Mapping[str, Sequence[str]] | None = None
    errors: Sequence[str] = ()  # what the binary said it could not load


class Probe(NamedTuple):
    """One command of a harness's own that lists what it loads, run in a throwaway home;
    `read` turns its stdout and stderr into a Listing."""

    argv: Sequence[str]
    read: Callable[[str, str], Listing]
    env: Mapping[str, str] = EMPTY  # added to a clean environment: placeholders, never a key
    into_file: bool = False  # stdout into a file: the binary exits before a pipe is drained
    input: str | None = None  # written to its stdin, then closed (a request it answers)
    # a harness that shows what it loaded only to a model: `{model}` in `env` is a model on
    # loopback that keeps the first request and refuses it, and `read` gets that request
    model: bool = False
    # made ready in the throwaway home first: (the harness's folder there, the model's URL)
    prepare: Callable[[Path, str], None] | None = None
    what: str = ""  # the command as the report names it


def change_settings_copy(settings: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """A harness's JSON settings file, in doctor's throwaway home, changed for a probe (its
    comments and layout are not kept: the copy is deleted after). A file that cannot be read
    is left for the harness to say what it makes of it, as it would to the user."""
    import json

    from skilltool.entries import EntryError, jsonc

    try:
        text = settings.read_text(encoding="utf-8-sig") if settings.exists() else "{}"
        document = jsonc.document(text, "jsonc")
    except (OSError, UnicodeDecodeError, EntryError):
        return
    if isinstance(document, dict):
        change(document)
        settings.write_text(json.dumps(document), encoding="utf-8")


def skills_by_folder(locations: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Each `<folder>/SKILL.md` (or `<folder>`) a harness named, by the folder's name: every
    place one of that name was listed from, in the harness's order."""
    found: dict[str, tuple[str, ...]] = {}
    for location in locations:
        path = location[: -len("/SKILL.md")] if location.endswith("/SKILL.md") else location
        name = os.path.basename(path.rstrip("/"))
        found[name] = (*found.get(name, ()), path)
    return found


def json_line(stdout: str, key: str, value: str) -> dict[str, Any] | None:
    """The first line of a harness's JSON-lines output that is an object with `key` =
    `value` (an event, an answer), or None."""
    import json

    for line in stdout.splitlines():
        try:
            found = json.loads(line)
        except ValueError:
            continue
        if isinstance(found, dict) and found.get(key) == value:
            return found
    return None


McpValue = dict[str, Any]
# the fields of a server in which Gemini CLI, Qwen Code and Copilot CLI expand `${VAR}`
EXPANDED_FIELDS = frozenset({"command", "args", "env", "url", "headers"})
# where Gemini CLI, Copilot CLI and Qwen Code were seen to put in a bare `$NAME`'s value
BARE_FIELDS = frozenset({"args", "env", "url", "headers"})


class Harness(abc.ABC):
    """What every harness module fills in: the abstract methods, and the class names."""

    name: ClassVar[str]
    title: ClassVar[str]
    enforces_tools: ClassVar[bool] = False
    # a harness that renders Claude's tools by names of its own: those without one are left out
    tool_names: ClassVar[Mapping[str, Any] | None] = None
    tool_vocabulary: ClassVar[str] = ""  # whose names they are, as the lines say ("a pi name")
    # the harness's own agents, as its binary lists them in a clean home (SPEC §6: a plugin
    # agent never replaces one), and the version they were read from
    builtin_agents: ClassVar[frozenset[str]] = frozenset()
    builtin_version: ClassVar[str] = ""
    # whether it reads an agent file that is a symbolic link (doctor's reason when not)
    agent_links: ClassVar[bool] = True

    # in a project: where and when the binary reads what skilltool writes there, when not
    # from any folder of it without asking (`status` says it; proven in test_project_<name>)
    project_reach: ClassVar[str] = ""
    # which one the binary uses when a skill or an agent of one name is in both the home and
    # the project: "project", "home", or "both" (it lists the two); proven in the same files
    precedence: ClassVar[Mapping[str, str]] = {"skill": "project", "agent": "project"}

    # slash commands (SPEC §10): the family of placeholders the harness's user commands use
    # (its `translate_command` says them), or None when it has no place for them, and then
    # why, in one clause; the suffix of a command's file
    command_syntax: ClassVar[str | None] = None
    no_commands: ClassVar[str] = ""
    # why a harness takes no skill (or no agent) at all, said once rather than beside each
    no_skills: ClassVar[str] = ""
    no_agents: ClassVar[str] = ""
    command_suffix: ClassVar[str] = ".md"
    # a harness whose own skills dir passes over a skill folder that is a link: its skills
    # are copies there, each skilltool's by its marker file and digest (copies.py)
    copies_skills: ClassVar[bool] = False

    # hooks (hooks.py, docs/hooks-harnesses.md): Claude Code's events the harness runs a
    # plugin's hooks on, each by the harness's own name (None: every event, as Claude Code
    # names it; empty: it is given no hooks, and `no_hooks` says why in one clause)
    hook_events: ClassVar[Mapping[str, str] | None] = {}
    no_hooks: ClassVar[str] = "skilltool carries no hooks to it"
    # in a project: whether the binary runs the hooks skilltool writes into the project (proven
    # in tests/conformance/test_project_hooks.py), and why not when it does not
    project_hooks: ClassVar[bool] = False
    no_project_hooks: ClassVar[str] = "no place in a project where it runs hooks is proven yet"

    # a team's own project folder of this harness read as a source (folders.py): the keys of
    # an agent's frontmatter its format shares with Claude Code's, kept as they are; the
    # others are the harness's own (`Agent.native`), carried where a harness has them
    shared_agent_keys: ClassVar[frozenset[str]] = frozenset()
    # the keys of another harness's agent (`Agent.native`) this one writes: {key: its name}
    takes_native: ClassVar[Mapping[str, str]] = {}

    def __init__(self, home: Scope) -> None:
        self.home = home
        self.skills_dir = home.skills_dir
        self._root: Path | None = None
        self._places: tuple[str, ...] | None = None
        self._present: bool | None = None

    @classmethod
    def read_folder(cls, folder: Path, ours: Ours, reader: Any) -> FolderItems:
        """A team's own project folder of this harness, in its own format (`.claude`,
        `.gemini`, ...): the skills, agents, commands, MCP servers and hooks it holds that
        are not skilltool's. By default its `skills/` alone."""
        from skilltool import folders

        problems: list[Problem] = []
        found = folders.skills(folder / "skills", ours, reader, problems)
        return folders.FolderItems(skills=tuple(found), problems=tuple(problems))

    def root(self) -> Path:
        """The harness's own directory: rendering happens only when it exists."""
        if self._root is None:  # asked for each agent, command and server
            self._root = root_of(self.name, self.home)
        return self._root

    def present(self) -> bool:
        """Whether skilltool writes for this harness here: in a home, when its directory
        exists; in a project, when the manifest names it and it reads a project's files.
        Looked at once by a harness object (one run's): the answer its plan is made with,
        asked again for each agent, command and server."""
        if self._present is None:
            self._present = present(self.name, self.home, self.root())
        return self._present

    def absent(self, agent: Agent) -> str | None:
        """Why nothing can be rendered for this agent here, or None when it can."""
        if not self.present():
            return not_set_up(self.home, self.root(), self.name)
        return self.builtin_clash(agent) or self.refusal(agent)

    def builtin_name(self, agent: Agent) -> str:
        """The name the harness would know the rendering by."""
        return agent.name

    def builtin_clash(self, agent: Agent) -> str | None:
        """Why the agent is not rendered here when it is named like one of the harness's own."""
        name = self.builtin_name(agent)
        if name not in self.builtin_agents:
            return None
        return (
            f"{name!r} is the name of a built-in agent of {self.title} "
            f"({self.builtin_version}), which a plugin agent never replaces; "
            "rename the agent (its 'name:') to have it here"
        )

    def places(self) -> tuple[str, ...]:
        """Where this harness is: what makes its files for the same agent differ from one
        home (or skills dir) to another. Asked for each agent and command: made once."""
        if self._places is None:
            home = self.home
            where = (self.root(), self.skills_dir, home.path, home.config_home)
            self._places = tuple(map(str, where))
        return self._places

    @abc.abstractmethod
    def render(self, agent: Agent) -> list[Rendering]:
        """Every file this harness needs for the agent."""

    def skill_verdict(self, skill: Skill) -> Verdict | None:
        """Whether this harness loads a linked skill as written (None) or not."""
        return None

    def agent_verdict(self, agent: Agent) -> Verdict | None:
        """Whether this harness loads skilltool's rendering of the agent as written (None)."""
        why = self.builtin_clash(agent) or self.refusal(agent)
        if why is not None:
            return Verdict(True, why)
        return self.tools_verdict(agent)

    def refusal(self, agent: Agent) -> str | None:
        """Why this harness cannot take the agent at all (nothing is rendered), or None."""
        return self.no_agents or None

    def takes(self) -> list[str]:
        """The kinds of a plugin's parts this harness takes here, as a line names them."""
        kinds = [] if self.no_agents else ["agents"]
        kinds += [] if self.no_skills else ["skills"]
        kinds += [] if self.command_syntax is None else ["commands"]
        kinds += ["MCP servers"] if self.takes_mcp() else []
        return kinds + ([] if self.hook_events == {} else ["hooks"])

    def tools_verdict(self, agent: Agent) -> Verdict | None:
        """How the agent's tool list fares here, when not as written."""
        if not self.tools_enforced(agent):
            return Verdict(False, "give it its default tools (its tool list is not enforced)")
        missing, whose = self.unnamed_tools(agent), self.tool_vocabulary
        if not missing:
            return None
        if len(missing) == len(agent.tools):
            return Verdict(False, f"give it no tools (none of its tools has a {whose} name)")
        return Verdict(False, f"leave out {', '.join(missing)} (no {whose} name)")

    def tools_note(self, agent: Agent) -> str | None:
        """What `status` says of the agent's tools here, when they are not as written."""
        if not self.tools_enforced(agent):
            return "tools not enforced"
        missing, whose = self.unnamed_tools(agent), self.tool_vocabulary
        if not missing:
            return None
        if len(missing) == len(agent.tools):
            return f"no tools: none of its tools has a {whose} name"
        return f"without {', '.join(missing)}: no {whose} name"

    def unnamed_tools(self, agent: Agent) -> list[str]:
        """The agent's tools this harness has no name for (left out of the rendering)."""
        if self.tool_names is None:
            return []
        return [t for t in agent.tools if t not in self.tool_names]

    def notes(self, agent: Agent) -> list[Note]:
        return []

    # `skilltool doctor`: the command the harness is started with, and its listings
    binary: ClassVar[str] = ""  # default: the harness's name
    not_probed: ClassVar[str] = "skilltool has no listing of this harness's to ask yet"
    proven_version: ClassVar[str] = ""  # the version the conformance suite runs, when not
    # builtin_version's

    def proven(self) -> str:
        """The version of the harness skilltool's renderings are proven with."""
        return self.proven_version or self.builtin_version

    def probes(self) -> list[Probe]:
        """The harness's own listings of its skills and agents, for `skilltool doctor`."""
        return []

    def own_skills_dir(self) -> Path | None:
        """A skills dir of the harness's own, for a harness that does not read ~/.agents/skills."""
        return None

    @abc.abstractmethod
    def owned_places(self) -> list[Path]:
        """Files that may be renderings of this harness, to find ones no agent needs any more."""

    @abc.abstractmethod
    def launch(self, agent: Agent) -> Launch:
        """How to start the harness as the agent over ACP."""

    def launch_by_system_prompt(self, agent: Agent, variable: str) -> Launch:
        """`launch` for a harness with no agent option over ACP that reads its whole system
        prompt from the file `variable` names: the agent's body (`skilltool acp` writes it)."""
        model = self.model(agent)
        return Launch(
            [self.binary or self.name, "--acp", *(["-m", model] if model else [])],
            {},
            [
                f"start it with 'skilltool acp {agent.name} --harness {self.name}': {self.title} "
                "has no agent option over ACP, so the agent's body becomes its whole system "
                f"prompt ({variable}); its tool list is not applied there",
                f"in a terminal: {self.binary or self.name}, then ask for the {agent.name} agent",
            ],
            prompt=(variable, agent.body.strip() + "\n"),
        )

    # MCP servers (SPEC §10): each harness module that has a place for them fills these in

    # why a harness with no place skilltool writes MCP servers to takes none
    mcp_unsupported: str = "has no MCP server configuration skilltool writes"

    def mcp_place(self) -> McpPlace | None:
        """The config file and table this harness reads user MCP servers from, or None."""
        return None

    def mcp_place_of(self, plugin: Plugin) -> McpPlace | None:
        """Where one plugin's servers go: the harness's one config file, unless it reads
        servers plugin by plugin (Claude Code: a generated plugin of its own per plugin)."""
        return self.mcp_place()

    def takes_mcp(self) -> bool:
        """Whether the harness has a place skilltool writes MCP servers to."""
        return self.mcp_place() is not None

    def mcp_file(self, place: McpPlace) -> bool:
        """Whether `place` (from a ledger record) is one `mcp_place_of` gives in this run: a
        record naming any other file, table or format is never edited through."""
        return place == self.mcp_place()

    def mcp_manifest(self, config: Path) -> Path | None:
        """A file the harness needs beside a config file of `mcp_place_of` to read it at all
        (the plugin.json of Claude Code's generated plugin), or None: it lives and goes
        with the entries of that file, and is skilltool's by its marker."""
        return None

    def mcp_manifest_content(self, plugin: Plugin) -> bytes:
        """The manifest's content for a plugin's config file, marker included."""
        raise NotImplementedError

    def mcp_value(self, server: McpServer) -> McpValue | Verdict:
        """The entry for one server in this harness's format, or why it is skipped here."""
        return Verdict(True, self.mcp_unsupported)

    # the fields of a server in which the harness itself expands `${VAR}` when it starts it
    # (proven in its binary by tests/conformance/test_mcp.py), and whether `${VAR:-default}`
    # too; a reference anywhere else would reach the server as its literal text
    env_fields: ClassVar[frozenset[str]] = frozenset()
    env_defaults: ClassVar[bool] = False
    env_proof: ClassVar[str] = "not proven to expand them"  # what was seen, for the line
    # the fields in which the harness also puts in the value of a bare `$NAME` (no braces)
    # when the variable is set, which Claude Code passes on as written (proven likewise)
    bare_fields: ClassVar[frozenset[str]] = frozenset()

    def mcp_refusal(self, server: McpServer) -> Verdict | None:
        """Why a server cannot be carried here as written: `${VAR}` references the harness
        does not expand where they are."""
        if not self.takes_mcp():
            return Verdict(True, self.mcp_unsupported)  # the whole reason, for every server
        left = [
            (field, ref)
            for field, refs in field_references(server).items()
            for ref in refs
            if field not in self.env_fields or (":-" in ref and not self.env_defaults)
        ]
        if not left:
            return None
        shown = ", ".join(dict.fromkeys(f"{ref} in {field}" for field, ref in left))
        options = [server.variables.get(ref[2:-1]) for _, ref in left]
        if all(options):  # each one skilltool wrote for a plugin option, in place of its value
            keys = ", ".join(dict.fromkeys(str(key) for key in options))
            return Verdict(
                True,
                f"its option(s) {keys} can reach it only as {shown}, which {self.title} would "
                f"pass on as written ({self.env_proof}); held here (no file skilltool writes "
                "may hold the value)",
            )
        return Verdict(
            True,
            f"its values hold {shown}, which {self.title} would pass on as written "
            f"({self.env_proof}); write the value itself in the plugin's server",
        )

    def not_portable(self, server: McpServer) -> Verdict | None:
        """In a project, why a server cannot be written as it is: its values name a path of
        this checkout (the plugin's folder, `${CLAUDE_PLUGIN_ROOT}` expanded), which would
        be another person's on every other checkout."""
        if self.home.kind != "project":
            return None
        root = str(self.home.path)
        values = [server.command or "", *server.args, *server.env.values(), server.url or ""]
        values += [server.cwd or "", *server.headers.values()]
        if not any(root in value for value in values):
            return None
        return Verdict(
            True,
            "its values name a file of the plugin (${CLAUDE_PLUGIN_ROOT}), a path that differs "
            "on every checkout; a project carries servers that name no file of their plugin",
        )

    def mcp_verdict(self, server: McpServer) -> Verdict | None:
        """`validate`'s verdict on a server: why it is skipped here, in the words install
        uses; carried, what the harness does to it that Claude Code does not; else None."""
        refused = self.not_portable(server) or self.mcp_refusal(server)
        if refused is not None:
            return refused
        value = self.mcp_value(server)
        return value if isinstance(value, Verdict) else self.mcp_note(server)

    def mcp_note(self, server: McpServer) -> Verdict | None:
        """A carried server's bare `$NAME`s that this harness replaces, Claude Code not."""
        found = [
            f"{ref} in {field}"
            for field, refs in field_references(server, BARE_REFERENCE).items()
            if field in self.bare_fields
            for ref in refs
        ]
        if not found:
            return None
        return Verdict(
            False,
            f"put in the value of {', '.join(found)} when the variable is set (Claude Code "
            "passes it on as written)",
        )

    def commands_dir(self) -> Path | None:
        """Where the harness reads a user's slash commands, when it has such a place."""
        return None

    def command_target(self, name: str) -> Path:
        """The file a command is rendered to: a `sub:x` command in a subfolder `sub/`."""
        folder = self.commands_dir()
        assert folder is not None
        return folder.joinpath(*name.split(":")[:-1], name.split(":")[-1] + self.command_suffix)

    def translate_command(self, body: str) -> Translation:
        """A command's body with Claude Code's placeholders as this harness spells them (or
        why it cannot say it); Claude Code's own spelling unless the module says otherwise."""
        return Translation(body)

    def render_command(self, command: SlashCommand) -> Rendering:
        """The file the harness reads the command from (only for a command it can take):
        `templates/<harness>/command.md.j2` with the source's keys as YAML lines."""
        body = self.translate_command(command.body).body
        assert body is not None
        fields = frontmatter_lines(command.fields)
        return self.command_file(command, "command.md.j2", body=body, fields=fields)

    def command_file(self, command: SlashCommand, template: str, **values: Any) -> Rendering:
        """A command's template rendered, stamped with its marker, at its target."""
        model = command.model if command.model and self.accepts_model(command.model) else None
        text = (
            environment()
            .get_template(f"{self.name}/{template}")
            .render(marker=markers.SLOT, command=command, model=model, **values)
        )
        source = self.home.stored(command.path)
        return Rendering(self.command_target(command.name), markers.stamp(text, source))

    def command_note(self, name: str) -> str | None:
        """How the harness names or refuses a command, when not as Claude Code does: a
        verdict's words ("name it /sub/x"), or None."""
        return None

    def command_refusal(self, name: str) -> str | None:
        """Why the harness cannot take a command of this name at all, or None."""
        return None

    def command_rivals(self, name: str) -> list[Path]:
        """Other files the harness would read as a command of the same name."""
        return []

    # hooks: each harness module that carries them fills these in

    def hooks_refusal(self) -> str | None:
        """Why the harness is given no hooks here, or None."""
        if self.hook_events is not None and not self.hook_events:
            return self.no_hooks
        if self.home.kind == "project" and not self.project_hooks:
            return self.no_project_hooks
        return None

    def hook_command(self, plugin: Plugin, command: str) -> str:
        """A hook's command as the harness is given it: in a home, the plugin's folder written
        in for `${CLAUDE_PLUGIN_ROOT}`; in a project, where that folder's path differs from
        one checkout to the next, set at run time from what the harness knows of the project
        (`plugin_reach`), or, where the generated plugin sets it itself, named as written."""
        from skilltool.hook_format import expand, exported, quoted_references

        if self.home.kind != "project":
            written = expand(command, plugin.root)
            assert written is not None, "a hook root_refusal refuses is never rendered"
            return written
        root = self.plugin_reach(plugin)
        return quoted_references(command) if root is None else exported(command, root)

    def plugin_reach(self, plugin: Plugin) -> str | None:
        """In a project, the plugin's folder as a shell word a hook command reaches it by at
        run time (`hook_format.reach`: a variable the harness sets and a path from there);
        None where skilltool's generated plugin sets `CLAUDE_PLUGIN_ROOT` itself."""
        return None

    def hook_loss(self, hook: Hook) -> str | None:
        """Why one hook cannot be carried to the harness (an event it has no equivalent of),
        or None."""
        if self.hook_events is not None and hook.event not in self.hook_events:
            return f"{self.title} has no {hook.event} event"
        return None

    def plugin_hooks_refusal(self, plugin: Plugin) -> str | None:
        """Why none of this plugin's hooks can be carried to the harness, or None."""
        return None

    def hooks_waiting(self, plugin: Plugin) -> str | None:
        """What the user must do before the harness runs the hooks written for a plugin (a
        step that is theirs to take), or None."""
        return None

    def render_hooks(self, plugin: Plugin, hooks: Sequence[Hook]) -> list[Rendering]:
        """The files that carry a plugin's hooks (those on events the harness has) to it."""
        raise NotImplementedError

    def hook_files(self) -> list[Path]:
        """Files that may be hook renderings of this harness, to find ones no plugin needs."""
        return []

    # its hook renderings are folders (a plugin or extension each), `hook_files` their files
    hooks_in_folders: ClassVar[bool] = False

    def hook_runners(self) -> list[Path]:
        """What starts hook commands when the harness starts, files or folders: skilltool's
        hook renderings, and a file of the user's hooks that it reads. Doctor's throwaway
        home leaves them out, so that asking a harness runs no hook."""
        if self.hooks_in_folders:
            return sorted({p.parent for p in self.hook_files()})
        return self.hook_files()

    def plugin_only_note(self, plugin: Plugin) -> str | None:
        """What of the plugin only this harness's own plugin loader takes (`Plugin.claude_only`)
        and skilltool does not carry, said once per plugin; None where there is nothing."""
        return None

    # language servers (SPEC §14): where a harness reads them, as entries of its config file
    # (lsp.py), and why a harness with no such place is given none
    no_lsp: ClassVar[str] = (
        "it reads no language server from a file skilltool writes (none proven in its binary)"
    )

    def lsp_place(self) -> McpPlace | None:
        """The config file and table the harness reads language servers from, or None."""
        return None

    def lsp_value(self, server: LspServer) -> McpValue:
        """The entry for one language server in this harness's format."""
        raise NotImplementedError

    def hook_place(self) -> McpPlace | None:
        """The user's config file and table where the harness reads its hooks, for a harness
        that runs them only from there (each an entry skilltool records, as MCP entries)."""
        return None

    def hook_entries(self, plugin: Plugin, hooks: Sequence[Hook]) -> list[tuple[str, McpValue]]:
        """The entries of `hook_place` that run a plugin's hooks: (name, value) each."""
        return []

    def hook_plugin(self, path: Path) -> str:
        """The plugin a hook rendering of `hook_files` is for."""
        return path.name.partition(".")[0]

    def hooks_script(
        self, template: str, plugin: Plugin, hooks: Sequence[Hook], at: Path, **extra: Any
    ) -> bytes:
        """A generated plugin or extension that runs the hooks (`templates/<template>`), the
        file `at`: Claude Code's hooks object in it, the events as Claude Code names them. In
        a home it names the plugin's folder (`root`); in a project, the plugin's folder and
        the project's (`project`) from its own folder, which it finds as it loads."""
        from skilltool.hook_format import claude_object, relative

        here = at.parent
        project = self.home.kind == "project"
        text = (
            environment()
            .get_template(template)
            .render(
                marker=markers.SLOT,
                plugin=plugin,
                harness=self,
                hooks=claude_object(plugin, hooks, command=lambda c: self.hook_command(plugin, c)),
                root=relative(plugin.root, here) if project else str(plugin.root),
                project=relative(self.home.path, here) if project else None,
                **extra,
            )
        )
        return markers.stamp(text, self.home.stored(plugin.hooks[0]))

    # helpers for the modules

    def model(self, agent: Agent) -> str | None:
        """The per-harness override, else the agent's model when this harness can use it."""
        override = agent.model_for(self.name)
        if override:
            return override
        if agent.model and self.accepts_model(agent.model):
            return agent.model
        return None

    def accepts_model(self, model: str) -> bool:
        return False

    def tools_enforced(self, agent: Agent) -> bool:
        """Whether the harness limits the agent to its tool list (trivially, with no list)."""
        return not agent.tools or self.enforces_tools

    def template(self, name: str, agent: Agent, **extra: Any) -> bytes:
        """Render templates/<harness>/<name> for an agent and stamp its marker."""
        text = (
            environment()
            .get_template(f"{self.name}/{name}")
            .render(agent=agent, marker=markers.SLOT, harness=self, **extra)
        )
        source = self.home.stored(agent.path)
        return markers.stamp(text, source, escape=name.endswith(".json.j2"))


def named(skill: Skill, shown: str | None = None, extra: str = "") -> Verdict | None:
    """For a harness that names a skill by its frontmatter: a verdict when that differs from
    the directory it is linked as."""
    declared = skill.declared
    if declared is None or declared == skill.name:
        return None
    return Verdict(False, f"name it {shown or repr(declared)}{extra}")


def named_or_skipped(skill: Skill) -> Verdict | None:
    """For a harness that repairs frontmatter as Claude Code does (or reads it line by line)
    and names a skill by it: a skill with no `name` is skipped, the rest load as named."""
    if "name" not in skill.fields:
        return Verdict(True, "no name")
    return named(skill)


def verdict_line(verdicts: Mapping[str, Verdict | None]) -> str:
    """'loads everywhere', or e.g. 'OpenCode and Codex load it; pi skips it: no description'.

    `verdicts` maps each harness's title to its verdict, in the registry's order."""
    loads = [title for title, v in verdicts.items() if v is None or not v.skips]
    if all(v is None for v in verdicts.values()):
        return "loads everywhere"
    parts = []
    if len(loads) == len(verdicts):
        parts.append("loads everywhere")
    elif loads:
        parts.append(f"{_titles(loads)} load{'s' if len(loads) == 1 else ''} it")
    by_reason: dict[tuple[bool, str], list[str]] = {}
    for title, verdict in verdicts.items():
        if verdict is not None:
            by_reason.setdefault((verdict.skips, verdict.why), []).append(title)
    for (skips, why), titles in by_reason.items():
        one = len(titles) == 1
        if skips:
            parts.append(f"{_titles(titles)} skip{'s' if one else ''} it: {why}")
        else:
            verb, _, rest = why.partition(" ")
            parts.append(f"{_titles(titles)} {verb}{'s' if one else ''} {rest}")
    return "; ".join(parts)


def _titles(titles: Sequence[str]) -> str:
    return titles[0] if len(titles) == 1 else f"{', '.join(titles[:-1])} and {titles[-1]}"


def heading(agent: Agent) -> str:
    """The Markdown heading a plain file needs before the body."""
    return f"# {agent.name}\n\n{agent.description}\n"


def frontmatter_lines(fields: dict[str, Any] | Any) -> str:
    """Every frontmatter key of the source as YAML lines (for Claude Code, the source format)."""
    if not fields:
        return ""
    import yaml

    text: str = yaml.dump(
        dict(fields),
        Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=False,
        width=1 << 30,
    )
    return text


def toml_string_table(values: dict[str, str]) -> str:
    """Top-level `key = "value"` lines that read back exactly (CRLF included)."""
    import tomlkit

    document = tomlkit.document()
    for key, value in values.items():
        multiline = "\n" in value and "\r" not in value and '"""' not in value
        document[key] = tomlkit.string(value, multiline=multiline)
    text = tomlkit.dumps(document)
    # read back by a TOML parser (tomlkit's: tomllib is not in Python 3.10)
    if tomlkit.parse(text).unwrap() != values:  # a multiline string TOML would read differently
        document = tomlkit.document()
        for key, value in values.items():
            document[key] = tomlkit.string(value)
        text = tomlkit.dumps(document)
    return text


def _yaml_scalar(value: str) -> str:
    import json

    # a JSON string is a valid YAML double-quoted scalar, whatever it holds
    return json.dumps(value, ensure_ascii=False)


_environment: list[jinja2.Environment] = []


def environment() -> jinja2.Environment:
    if not _environment:
        import json
        import shlex

        import jinja2

        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(package_data("templates"))),
            keep_trailing_newline=True,
            autoescape=False,
            undefined=jinja2.StrictUndefined,
        )
        env.filters["yaml"] = _yaml_scalar
        env.filters["json"] = lambda v: json.dumps(v, ensure_ascii=False)
        env.filters["sh"] = shlex.quote
        env.filters["py"] = repr  # a Python literal
        env.globals["heading"] = heading
        _environment.append(env)
    return _environment[0]


# the harness modules, in the order everything is shown and done: the one list of names.
# Each module defines one Harness subclass whose `name` is the module's name.
# the registry: every harness (its module is skilltool/harnesses/<name>.py), in the order
# runs act for them, and where it keeps its own directory: under the home or the XDG config
# home, and the environment variable that moves it as the harness's binary reads it (each
# proven in tests/conformance/test_moved_homes.py). Kept here, not in the modules, so that a
# harness that is not set up costs no import of its module
ROOTS = HARNESS_ROOTS  # the registry: one line a harness, in paths.py (where each one is)
# the variables that name a home for the harness, under which its folder keeps its own name
HOME_VARIABLES = frozenset({"GEMINI_CLI_HOME", "FACTORY_HOME_OVERRIDE"})
LOCATION_VARIABLES = tuple(v for _, _, v in ROOTS.values() if v)  # each harness's own
NAMES = tuple(ROOTS)


# where each harness reads a project's files, relative to the project's folder (proven in
# its binary by tests/conformance/test_project_<name>.py), or why it reads none there
PROJECT_ROOTS: dict[str, str | None] = {
    "opencode": ".opencode",
    "hermes": None,
    "codex": ".codex",
    "pi": ".pi",
    "claude": ".claude",
    "gemini": ".gemini",
    "copilot": ".github",
    "kilo": ".kilo",
    "qwen": ".qwen",
    "vibe": ".vibe",
    "kimi": ".kimi-code",
    "droid": ".factory",
    "cline": ".cline",
    "auggie": ".augment",
    "qoder": ".qoder",
    "openhands": ".openhands",
    "continue": None,
    "amp": None,
}
NO_PROJECT = {
    "hermes": "Hermes reads no project folder: its agents, skills and MCP servers are its home's",
    "continue": (
        "Continue CLI reads from a project only its skills (.continue/skills, and Claude "
        "Code's .claude/skills), no MCP servers: skilltool writes no project folder for it"
    ),
    "amp": "Amp's project files are not proven in its binary yet: skilltool writes only its home's",
}


def root_of(name: str, home: Scope) -> Path:
    """A harness's own directory in `home` (in a project, its folder there), from its name."""
    return moved_root(name, home)[0]


def moved_root(name: str, home: Scope) -> tuple[Path, str | None]:
    """A harness's own directory, and the variable that moved it from its default (None when
    it is where it always is), read as the harness reads it."""
    if home.kind == "project":
        return home.path / (PROJECT_ROOTS[name] or f".{name}"), None
    _, place, variable = ROOTS[name]
    default = default_root(name, home)
    if variable is None:
        return default, None
    value = home.variable(variable)
    if value is None and name == "qwen":
        value = qwen_env_home(home.path)
    if not value:
        return default, None
    moved = home.expand(value)
    if variable in HOME_VARIABLES:
        moved = moved / place
    return (default, None) if moved == default else (moved, variable)


def default_root(name: str, home: Scope) -> Path:
    """A harness's own directory in a home when no variable moves it."""
    base, place, _ = ROOTS[name]
    return (home.config_home if base == "config" else home.path) / place


def qwen_env_home(home: Path) -> str | None:
    """QWEN_HOME as Qwen Code reads it when the environment has none: the first of
    ~/.qwen/.env and ~/.env that sets it (`QWEN_HOME=`, `export QWEN_HOME=` or `QWEN_HOME:`)."""
    for candidate in (home / ".qwen/.env", home / ".env"):
        try:
            text = candidate.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            continue
        for line in text.splitlines():
            words = line.strip().removeprefix("export ").lstrip()
            key, sep, value = words.partition("=")
            if not sep:
                key, sep, value = words.partition(":")
            if sep and key.strip() == "QWEN_HOME":
                value = value.strip()
                if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) > 1:
                    value = value[1:-1]
                else:
                    value = value.split(" #", 1)[0].strip()
                if value:
                    return value
    return None


def present(name: str, home: Scope, root: Path) -> bool:
    """Whether skilltool writes for a harness in `home` (see `Harness.present`): never for
    one the user's settings leave alone."""
    if isinstance(home, Project):
        return name in home.harnesses and PROJECT_ROOTS[name] is not None
    return root.is_dir() and not left_alone(name, home)


def left_alone(name: str, home: Scope) -> bool:
    from skilltool import settings

    # a name it does not know stops the run, said once
    return name in settings.check_names(home, NAMES).leave_alone


def not_set_up(home: Scope, root: Path, name: str) -> str:
    """Why nothing is written for a harness here: the words every line uses."""
    if home.kind != "project" and left_alone(name, home):
        from skilltool import settings

        where = home.show(settings.place(home))
        return f"left alone: {where} names it in leave-alone (nothing there is written or removed)"
    if home.kind != "project":
        return f"{home.show(root)} does not exist (the harness is not set up here)"
    if PROJECT_ROOTS[name] is None:
        return NO_PROJECT[name]
    return f"not among the project's harnesses (add {name!r} to 'harnesses' in skilltool.toml)"


# the project folders skilltool reads as a source in their harness's own format: the harness,
# by its folder; `.agents` is the folder of no one harness (its skills are read by many)
FOLDER_READERS: dict[str, str] = {
    ".agents": "agents",
    ".claude": "claude",
    ".github": "copilot",
    ".gemini": "gemini",
    ".opencode": "opencode",
    ".codex": "codex",
    ".factory": "droid",
}


def folder_harness(folder: str) -> str | None:
    """The harness whose own project folder this is (`.claude` -> "claude"), or None."""
    return FOLDER_READERS.get(folder)


def folder_plugin(entry: SearchEntry, reader: Any) -> Plugin:
    """A harness's own project folder, read in its format, as the plugin of its source: what
    the team wrote there, never what skilltool wrote (folders.Ours)."""
    from skilltool.folders import Ours

    assert entry.harness is not None
    folder = entry.path
    ours = Ours(folder.parent, folder)
    if entry.harness == "agents":
        items = Harness.read_folder(folder, ours, reader)
    else:
        items = load(entry.harness).read_folder(folder, ours, reader)
    return Plugin(
        entry.source or entry.harness,
        folder,
        entry.origin,
        None,
        items.skills,
        items.agents,
        items.problems,
        kind="harness folder",
        slash_commands=items.commands,
        mcp_servers=items.servers,
        hooks=items.hook_files,
        hook_commands=items.hooks,
        folder_of=entry.harness,
    )


def load(name: str) -> type[Harness]:
    """The class of one harness, imported from its module."""
    import importlib

    module = importlib.import_module(f"skilltool.harnesses.{name}")
    [harness] = [
        v
        for v in vars(module).values()
        # ABCMeta, not type: Python 3.10 takes an alias like `dict[str, Any]` for a type
        if isinstance(v, abc.ABCMeta)
        and issubclass(v, Harness)
        and v.__module__ == module.__name__
        and not getattr(v, "__abstractmethods__", None)  # a family's shared base
    ]
    return harness


def registry() -> dict[str, type[Harness]]:
    """Harness name -> its class, imported from its module (only when a command needs them)."""
    return {name: load(name) for name in NAMES}


def harnesses(home: Scope, only: str | None = None) -> list[Harness]:
    """The harnesses a command acts for, in NAMES order: one not set up in `home` is a stand-in
    that imports its module only when asked more than its name, its root and `absent`."""
    found: list[Harness] = []
    for name in [only] if only else NAMES:
        if only or present(name, home, root_of(name, home)):
            found.append(load(name)(home))
        else:  # it answers as the harness does: every other attribute is the real one's
            found.append(cast(Harness, NotSetUp(name, home)))
    return found


class NotSetUp:
    """A harness whose directory does not exist, in the place of its class."""

    def __init__(self, name: str, home: Scope) -> None:
        self.name = name
        self.home = home
        self.skills_dir = home.skills_dir
        self._root = root_of(name, home)  # asked for each agent, command and server
        self._real: Harness | None = None

    def root(self) -> Path:
        return self._root

    def present(self) -> bool:
        return False  # what `harnesses` found: the answer the run's plan is made with

    def absent(self, agent: Agent) -> str | None:
        return not_set_up(self.home, self.root(), self.name)

    def _harness(self) -> Harness:
        if self._real is None:
            self._real = load(self.name)(self.home)
        return self._real

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):  # not half made (copy, pickle): its own, or missing
            raise AttributeError(attribute)
        return getattr(self._harness(), attribute)


def stdio_entry(server: McpServer, **extra: Any) -> McpValue:
    """`{command, args, env, cwd}` with only the keys the server has: the common shape."""
    value: McpValue = dict(extra)
    value["command"] = server.command
    if server.args:
        value["args"] = list(server.args)
    if server.env:
        value["env"] = dict(server.env)
    if server.cwd is not None:
        value["cwd"] = server.cwd
    return value


def remote_entry(server: McpServer, url_key: str = "url", **extra: Any) -> McpValue:
    value: McpValue = dict(extra)
    value[url_key] = server.url
    if server.headers:
        value["headers"] = dict(server.headers)
    return value
