"""`render` and `launch`: one agent's (or slash command's) rendering for one harness, or
how to start that harness as the agent; nothing written."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skilltool import discover, paths, plan, report, slash
from skilltool.commands.common import Options, harnesses
from skilltool.errors import OK, SkilltoolError
from skilltool.model import Agent, Catalogue, quoted
from skilltool.placeholders import listed
from skilltool.record import NamedTuple
from skilltool.report import Result

if TYPE_CHECKING:
    from skilltool.harnesses import Harness, Launch


def find_agent(catalogue: Catalogue, name: str) -> Agent | None:
    agents, _ = plan.winning_agents(catalogue)
    return next((a for a in agents if a.name == name), None)


def _agent_for(
    agent_name: str,
    harness_name: str,
    opts: Options,
    warnings: list[str],
    catalogue: Catalogue | None = None,
) -> tuple[Agent, Harness]:
    """The agent of that name on the search path (or in `catalogue`) and the harness asked
    for."""
    home = opts.where
    if catalogue is None:
        catalogue = discover.find(home, warnings)
    agent = find_agent(catalogue, agent_name)
    if agent is None:
        import difflib

        names = [a.name for a in plan.winning_agents(catalogue)[0]]
        close = difflib.get_close_matches(agent_name, names, n=1)
        hint = f"did you mean {quoted(close[0])}? " if close else ""
        raise SkilltoolError(
            f"no agent {quoted(agent_name)} on the search path; {hint}"
            "'skilltool plugins status' lists them"
        )
    [harness] = harnesses(home, harness_name)
    return agent, harness


def render(agent_name: str, harness_name: str, opts: Options) -> Result:
    if agent_name.startswith("/"):  # a slash command, named as it is typed
        return render_command(agent_name[1:], harness_name, opts)
    warnings: list[str] = []
    agent, harness = _agent_for(agent_name, harness_name, opts, warnings)
    home = harness.home
    renderings = harness.render(agent)
    if not renderings:  # as for a command a harness has no file for: why, in one line
        why = harness.refusal(agent) or "it renders nothing for it"
        takes = harness.takes()
        said = f"; it takes {listed(takes)}" if harness.no_agents and takes else ""
        raise SkilltoolError(f"{harness.title} gets no file for {agent.name}: {why}{said}")
    data = {
        "agent": agent.name,
        "harness": harness.name,
        "files": [
            {"target": str(r.target), "mode": r.mode, "content": r.content.decode("utf-8")}
            for r in renderings
        ],
    }
    raw = b""
    for rendering in renderings:
        if len(renderings) > 1:
            raw += f"==> {home.show(rendering.target)} <==\n".encode()
        raw += rendering.content
        if len(renderings) > 1 and not rendering.content.endswith(b"\n"):
            raw += b"\n"
    return Result(OK, data, warnings=tuple(warnings), raw=raw)


def render_command(name: str, harness_name: str, opts: Options) -> Result:
    """`render /NAME`: a slash command's file for a harness, or why that harness has none."""
    warnings: list[str] = []
    home = opts.where
    catalogue = discover.find(home, warnings)
    found = {c.name: c for _, c in slash.winning_commands(catalogue)[0]}
    command = found.get(name)
    if command is None:
        listed = ", ".join(f"/{n}" for n in sorted(found)) or "none"
        raise SkilltoolError(f"no command /{name} on the search path (commands: {listed})")
    [harness] = harnesses(home, harness_name)
    why = slash.refusal(harness, command)
    if why is not None:
        raise SkilltoolError(f"{harness.title} gets no file for /{name}: {why}")
    rendering = harness.render_command(command)
    data = {
        "command": command.name,
        "harness": harness.name,
        "files": [{"target": str(rendering.target), "mode": rendering.mode,
                   "content": rendering.content.decode("utf-8")}],
    }  # fmt: skip
    return Result(OK, data, warnings=tuple(warnings), raw=rendering.content)


class AgentdSettings(NamedTuple):
    """What agentd's entry says beside the argv: the folders a session may run in, and
    whether it asks before the agent uses a tool."""

    roots: tuple[str, ...] = ()  # none given: the current project
    policy: str = "ask"


def launch(
    agent_name: str,
    harness_name: str,
    opts: Options,
    host: str | None = None,
    agentd: AgentdSettings | None = None,
) -> Result:
    warnings: list[str] = []
    agent, harness = _agent_for(agent_name, harness_name, opts, warnings)
    how = launch_of(agent, harness)
    unwritten: list[Path] = []
    edited: list[Path] = []
    for rendering in harness.render(agent):
        state, _, _ = plan.file_state(rendering.target, rendering.content, rendering.placeholders)
        if state != "current":
            (edited if state == "edited" else unwritten).append(rendering.target)
            warnings.append(_launch_warning(harness, rendering.target, state))
    data = {
        "agent": agent.name,
        "harness": harness.name,
        "command": how.command,
        "env": dict(how.env),
        "notes": list(how.notes),
        "not_rendered": [str(t) for t in unwritten],
        "edited": [str(t) for t in edited],
    }
    if host is None:
        lines = report.launch_lines(agent.name, harness.name, how)
        return Result(OK, data, tuple(lines), warnings=tuple(warnings))
    if host == "otto":
        entry = otto_entry(agent, harness, how, opts)
        snippet = report.otto_snippet(entry)
        data.update(host=host, argv=[entry["command"], *entry.get("args", [])], snippet=snippet)
        data.update(host_env=dict(entry.get("env", {})), entry=entry)
        return Result(OK, data, tuple(snippet.splitlines()), warnings=tuple(warnings))
    argv, env = host_command(agent.name, harness.name, how, host, opts)
    if host == "agentd":
        settings = agentd or AgentdSettings()
        roots = [os.path.abspath(r) for r in settings.roots] or [str(_current_project(opts))]
        snippet = report.agentd_snippet(
            f"{agent.name}-{harness.name}", argv, roots, settings.policy
        )
        data.update(host=host, argv=argv, roots=roots, policy=settings.policy, snippet=snippet)
        return Result(OK, data, tuple(snippet.splitlines()), warnings=tuple(warnings))
    snippet = report.host_snippet(host, f"{agent.name} ({harness.name})", agent.name, argv, env)
    data.update(host=host, argv=argv, host_env=env, snippet=snippet)
    return Result(OK, data, tuple(snippet.splitlines()), warnings=tuple(warnings))


def _current_project(opts: Options) -> Path:
    """The folder a session may run in, when none is named: the project the scope is, else
    the git repository of the working directory, else the working directory."""
    where = opts.where
    if where.kind == "project":
        return where.path
    here = Path(os.getcwd())
    return paths.repository_of(here) or here


# the harnesses otto can start as the agent with their own command (and environment, with
# `{file:}` expanded by otto), and the argv that takes a session over in a terminal
OTTO_ENTER: dict[str, tuple[list[str], list[str] | None]] = {
    "claude": (["claude", "--agent", "{agent}", "--resume", "{session}"],
               ["claude", "--agent", "{agent}", "--session-id", "{session}"]),
    "codex": (["codex", "--profile", "{agent}", "resume", "{session}"], None),
}  # fmt: skip


def otto_entry(agent: Agent, harness: Harness, how: Launch, opts: Options) -> dict[str, Any]:
    """An `[[agents]]` entry of otto's agents.toml, by otto's own routes wherever they are
    enough: Claude Code's adapter loading the plugin itself (`skills = "claude"` + `agent`)
    when the plugin lies on otto's search path, a harness's own command with `{file:}` in
    its environment, and `skilltool acp` only where the agent is chosen inside the session
    or the prompt is a file skilltool keeps."""
    entry: dict[str, Any] = {
        "id": f"{agent.name}-{harness.name}",
        "name": f"{agent.name} ({harness.name})",
        "description": agent.description.split("\n", 1)[0][:200],
    }
    notes: list[str] = []
    if harness.name == "claude" and _on_ottos_path(agent, opts):
        entry.update(command="claude-agent-acp", skills="claude", agent=agent.name)
    elif harness.name == "claude" or how.choose or how.prompt:
        argv, _ = host_command(agent.name, harness.name, how, "agentd", opts)
        entry.update(command=argv[0], args=argv[1:])
        if harness.name == "claude":
            notes.append(
                "the plugin is not on otto's search path ($XDG_DATA_HOME/otto/plugins, "
                "/usr/share/otto/plugins): with it there (skilltool with "
                "SKILLTOOL_NAMESPACE=otto installs plugins there), otto starts Claude Code's "
                'adapter with skills = "claude" and agent itself'
            )
    else:
        entry.update(command=how.command[0], args=list(how.command[1:]))
        if how.env:
            entry["env"] = dict(how.env)
    enter = OTTO_ENTER.get(harness.name)
    if enter is not None:
        over, new = enter
        entry["enter"] = [w.replace("{agent}", agent.name) for w in over]
        if new is not None:
            entry["enter_new"] = [w.replace("{agent}", agent.name) for w in new]
    if not entry.get("args"):
        entry.pop("args", None)
    entry["notes"] = notes
    return entry


def _on_ottos_path(agent: Agent, opts: Options) -> bool:
    """Whether the agent's plugin lies where otto looks for plugins (otto's data folder,
    then the system's): skilltool run with the `otto` namespace installs there."""
    home = opts.user_home
    places = [
        home.data_home / "otto" / "plugins",
        *(d / "otto" / "plugins" for d in paths.data_dirs()),
    ]
    real = Path(os.path.realpath(agent.path))
    return any(real.is_relative_to(os.path.realpath(p)) for p in places)


def launch_of(agent: Agent, harness: Harness) -> Launch:
    """How to start the harness as the agent; an error where that would start the harness's
    own agent of that name instead."""
    clash = harness.builtin_clash(agent)
    if clash is not None:
        raise SkilltoolError(f"{harness.title} cannot start the plugin's {agent.name}: {clash}")
    return harness.launch(agent)


HOSTS = ("agentd", "otto", "zed", "jetbrains", "json")
TAKES_NO_ENV = frozenset({"agentd"})  # it runs an argv as it is, with no environment of its own


def host_command(
    agent: str, harness: str, how: Launch, host: str, opts: Options
) -> tuple[list[str], dict[str, str]]:
    """What the host runs: the harness's own command with its environment where the host
    takes one and nothing is chosen inside the session or read from a file skilltool keeps;
    `skilltool acp` everywhere else."""
    plain = not (how.choose or how.prompt) and not any(
        v.startswith("{file:") for v in how.env.values()
    )
    if plain and (not how.env or host not in TAKES_NO_ENV):
        return list(how.command), dict(how.env)
    argv = [*_skilltool(), "acp", agent, "--harness", harness]
    where = opts.where
    if where.kind == "project":
        argv += ["--project", str(where.path)]
    elif where.path != Path.home():
        argv += ["--home", str(where.path)]
    return argv, {}


def _skilltool() -> list[str]:
    """This skilltool, as a host that may not have the user's PATH finds it."""
    import shutil
    import sys

    started = sys.argv[0]
    if os.path.basename(started) == "skilltool" and os.path.isfile(started):
        return [os.path.abspath(started)]
    found = shutil.which("skilltool")
    if found is not None:
        return [os.path.abspath(found)]
    return [sys.executable, "-m", "skilltool"]


def _launch_warning(harness: Harness, target: Path, state: str) -> str:
    shown, only = harness.home.show(target), f"skilltool plugins install --only {harness.name}"
    if state == "edited":
        return (
            f"warning: {shown} was edited by hand since skilltool wrote it, so the harness "
            f"starts your edit; keep it as it is, or run '{only} --force' to replace it with "
            "the plugin's version (a copy of yours is kept beside it)"
        )
    if state in ("foreign", "placeholder"):
        return (
            f"warning: {shown} is a file skilltool did not write, so the harness starts that; "
            f"move it away and run '{only}' to start the plugin's agent"
        )
    what = "is outdated" if state == "stale" else "is not rendered yet"
    return f"warning: {shown} {what}; run '{only}' first"
