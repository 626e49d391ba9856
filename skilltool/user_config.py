"""A plugin's options (`userConfig`) put into what it runs, as Claude Code puts them in: each
`${user_config.KEY}` of an MCP or language server becomes the option's value, and each hook
of a plugin with options gets them as `CLAUDE_PLUGIN_OPTION_<KEY>` in its environment.

The values are the user's, kept in skilltool's settings (settings.py), the plugin's default
standing in for one not given. A value no file may hold is never written: a sensitive
option's, anywhere, and every option's in a project (committed files are the same from
every clone, and each teammate gives their own). Such an option reaches a server as
`${VAR}`, an environment variable the harness puts in when it starts the server (where a
harness is not proven to, the server is held there, as any reference: harnesses/__init__),
and a line says which variable to set. A server that names an option with no value, or one
the plugin does not declare, is held everywhere, as Claude Code does not start it either.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from skilltool import parse_options, paths
from skilltool.model import Catalogue, LspServer, McpServer, Plugin, Problem
from skilltool.record import NamedTuple

REFERENCE = r"\$\{user_config\.([^}]+)\}"
MARK = "${user_config."
HOOK_VARIABLE = "CLAUDE_PLUGIN_OPTION_"  # Claude Code's name for an option in a hook


def variable(plugin: str, key: str) -> str:
    """The environment variable that stands for an option no file may hold: the plugin's
    name and the key, upper-case, `_` for anything else (a leading digit gets a `_`)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", f"{plugin}_{key}").upper()
    return f"_{name}" if name[0].isdigit() else name


def hook_variable(key: str) -> str:
    return HOOK_VARIABLE + re.sub(r"[^A-Za-z0-9_]", "_", key).upper()


class Variable(NamedTuple):
    """An option given as a variable the harness puts in."""

    name: str


class Unset(NamedTuple):
    """An option with no value given and no default."""

    why: str


Value = str | Variable | Unset


def _mentions(plugin: Plugin) -> bool:
    """Whether any server or hook of the plugin names an option."""
    texts: list[str] = []
    for server in plugin.mcp_servers:
        texts += [server.command or "", *server.args, *server.env.values(), server.cwd or ""]
        texts += [server.url or "", *server.headers.values()]
    for lsp in plugin.lsp_servers:
        texts += [lsp.command, *lsp.args, *lsp.env.values()]
    texts += [hook.command for hook in plugin.hook_commands]
    return any(MARK in text for text in texts)


def configured(home: paths.Scope, catalogue: Catalogue) -> tuple[Catalogue, list[Problem]]:
    """The catalogue with each active plugin's options put in (held servers and hooks left
    out), and the lines that say what was held and which variables to set."""
    if not any(p.user_config or _mentions(p) for p in catalogue.active):
        return catalogue, []
    from skilltool import settings

    renames = settings.renames_in(catalogue)  # values kept under a plugin's old name
    given = settings.read(home).renamed(renames).config if home.kind == "home" else {}
    where = settings.place(home)
    problems: list[Problem] = []
    plugins = []
    for plugin in catalogue.plugins:
        if plugin.active and (plugin.user_config or _mentions(plugin)):
            values = _values(home, plugin, given.get(plugin.name, {}), where, problems)
            plugin = _put_in(plugin, values, problems)
        plugins.append(plugin)
    return catalogue._replace(plugins=tuple(plugins)), problems


def _values(
    home: paths.Scope,
    plugin: Plugin,
    given: Mapping[str, Any],
    where: Path,
    problems: list[Problem],
) -> dict[str, Value]:
    """Each option's value as text, the variable that stands for it, or why it has none."""
    values: dict[str, Value] = {}
    for key, option in plugin.user_config.items():
        if home.kind == "project" or parse_options.is_sensitive(option):
            values[key] = Variable(variable(plugin.name, key))
        if key in given:
            why = parse_options.stored_problem(option, given[key])
            if why is not None:
                field = f"config.{plugin.name}.{key}"
                problems.append(Problem(where, f"{why}; fix the file", field))
            elif key not in values:
                values[key] = parse_options.text_of(given[key])
                continue
        if key in values:
            continue
        if "default" in option:
            values[key] = parse_options.text_of(option["default"])
            continue
        values[key] = Unset(
            f"a value for option {key} ({option.get('title')}), which has none and no default: "
            f"'skilltool plugins configure {plugin.name} {key}=VALUE'"
        )
    return values


def _put_in(plugin: Plugin, values: dict[str, Value], problems: list[Problem]) -> Plugin:
    used: dict[str, str] = {}  # the variables carried servers are given: name -> option key
    servers = []
    for server in plugin.mcp_servers:
        filled = _server(plugin, server, values, problems, "mcpServers")
        if filled is not None:
            servers.append(filled)
            used.update(filled.variables)
    lsp = []
    for each in plugin.lsp_servers:
        made = _lsp(plugin, each, values, problems)
        if made is not None:
            lsp.append(made)
            used.update(made.variables)
    hooks = []
    for hook in plugin.hook_commands:
        if MARK in hook.command:  # Claude Code refuses it (the shell would read the value)
            key = re.search(REFERENCE, hook.command)
            named = key[1] if key else "KEY"
            problems.append(
                Problem(
                    hook.path,
                    f"its command names ${{user_config.{named}}}, which Claude Code refuses in a "
                    "shell command (the shell would read the value as a command); not carried: "
                    f"the hook reads ${hook_variable(named)} from its environment instead",
                    f"hooks.{hook.event}",
                    hook.line,
                    "warning",
                )
            )
            continue
        hooks.append(hook._replace(command=_exported(values) + hook.command))
    if hooks:  # each is given every option with a value
        used.update({v.name: k for k, v in values.items() if isinstance(v, Variable)})
    problems += _variable_lines(plugin, values, used)
    return plugin._replace(
        mcp_servers=tuple(servers), lsp_servers=tuple(lsp), hook_commands=tuple(hooks)
    )


def _exported(values: Mapping[str, Value]) -> str:
    """What a hook's command is preceded by: each option with a value, exported under
    Claude Code's name for it (a variable's, put in by the shell that runs the hook)."""
    parts = []
    for key, value in values.items():
        if isinstance(value, Unset):
            continue
        said = f'"${{{value.name}}}"' if isinstance(value, Variable) else shlex.quote(value)
        parts.append(f"export {hook_variable(key)}={said}; ")
    return "".join(parts)


def _filler(
    plugin: Plugin, values: Mapping[str, Value], held: list[str], used: dict[str, str]
) -> Callable[[str], str]:
    """A function that puts the options into one text of a server; why it cannot, into
    `held`; the variables it wrote, into `used`."""

    def put(match: re.Match[str]) -> str:
        key = match[1]
        value = values.get(key)
        if value is None:
            why = (
                f"names ${{user_config.{key}}}, which plugin {plugin.name} does not declare in "
                "userConfig (or declares wrongly), so Claude Code does not start it either"
            )
            held.append(why)
            return match[0]
        if isinstance(value, Unset):
            held.append(f"needs {value.why}")
            return match[0]
        if isinstance(value, Variable):
            used[value.name] = key
            return f"${{{value.name}}}"
        return value

    def fill(text: str) -> str:
        return re.sub(REFERENCE, put, text) if MARK in text else text

    return fill


def _held(server: McpServer | LspServer, field: str, held: list[str]) -> Problem:
    what = "MCP server" if field == "mcpServers" else "language server"
    return Problem(
        server.path,
        f"{what} {server.name!r} {'; '.join(dict.fromkeys(held))}; not carried to any harness",
        f"{field}.{server.name}",
        server.line,
        "warning",
    )


def _server(
    plugin: Plugin,
    server: McpServer,
    values: Mapping[str, Value],
    problems: list[Problem],
    field: str,
) -> McpServer | None:
    held: list[str] = []
    used: dict[str, str] = {}
    fill = _filler(plugin, values, held, used)
    filled = server._replace(
        command=fill(server.command) if server.command is not None else None,
        args=tuple(map(fill, server.args)),
        env={k: fill(v) for k, v in server.env.items()},
        cwd=fill(server.cwd) if server.cwd is not None else None,
        url=fill(server.url) if server.url is not None else None,
        headers={k: fill(v) for k, v in server.headers.items()},
    )
    if held:
        problems.append(_held(server, field, held))
        return None
    return filled._replace(variables=used) if used else filled


def _lsp(
    plugin: Plugin, server: LspServer, values: Mapping[str, Value], problems: list[Problem]
) -> LspServer | None:
    held: list[str] = []
    used: dict[str, str] = {}
    fill = _filler(plugin, values, held, used)
    filled = server._replace(
        command=fill(server.command),
        args=tuple(map(fill, server.args)),
        env={k: fill(v) for k, v in server.env.items()},
    )
    if held:
        problems.append(_held(server, "lspServers", held))
        return None
    return filled._replace(variables=used) if used else filled


def _variable_lines(
    plugin: Plugin, values: Mapping[str, Value], used: Mapping[str, str]
) -> list[Problem]:
    """For each variable a carried server or hook is given and this environment does not
    set: which one to set, and for which option."""
    lines = []
    where = plugin.manifest or plugin.root
    for name, key in used.items():
        if name in os.environ:
            continue
        option = plugin.user_config.get(key, {})
        if parse_options.is_sensitive(option):
            why = "sensitive: skilltool keeps no value of it"
        else:
            why = "a project keeps no value of it (each teammate gives their own)"
            if "default" in option:
                default = parse_options.text_of(option["default"])
                why += f"; the plugin's default is {default!r}"
        lines.append(
            Problem(
                where,
                f"{why}, so plugin {plugin.name}'s servers and hooks are given ${{{name}}} in "
                f"its place: set {name} in the environment the harnesses start from",
                f"userConfig.{key}",
                severity="warning",
            )
        )
    return lines
