"""What a plugin would have a harness run, wherever it is declared, as the user is shown it:
an MCP server started as a command, a language server, a hook, and what an agent's, a
skill's or a slash command's frontmatter declares (its hooks, its MCP servers, a permission
mode that turns the harness's own prompts off), and a skill folder that is itself a Claude
Code plugin.

Each is digested with the plugin's files that run (`running_files`): every file of the
plugin's folder outside its `skills/`, `agents/`, `commands/` and `.claude-plugin/`
folders (but the files that only declare servers and hooks, whose every command is digested
on its own), and any file a command names elsewhere in the plugin. What is approved is then
what runs: a new `server.js` under an approved `node ${CLAUDE_PLUGIN_ROOT}/server.js` is a
change, as a new command is. consent.py decides what is approved.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from skilltool.model import EMPTY, Hook, McpServer, Plugin
from skilltool.record import NamedTuple

PLUGIN_ROOT = "${CLAUDE_PLUGIN_ROOT}"
# the folders of a plugin that hold what a harness reads, not what it runs
NOT_RUN = frozenset({"skills", "agents", "commands", ".claude-plugin", ".git"})
# a file of the plugin's that a command names: ${CLAUDE_PLUGIN_ROOT}/PATH
NAMED = re.compile(r"\$\{?CLAUDE_PLUGIN_ROOT\}?/([^\s\"'`;|&<>()$]+)")
# a permission mode under which Claude Code asks nothing before a tool runs
QUIET_MODES = {
    "bypassPermissions": "every tool",
    "acceptEdits": "an edit of a file",
    "dontAsk": "a tool it would ask about",
    "auto": "a tool its classifier lets through",
}


class Runnable(NamedTuple):
    """One thing of a fetched plugin that a harness would run, as the user is shown it."""

    source: str  # the name of the source it comes from
    plugin: str
    key: str  # what the lockfile's approval of the plugin names it by ("server:NAME", ...)
    shown: str  # the command line, its environment and folder, as a person reads it
    digest: str  # of the plugin, the key, what is shown, and the plugin's files that run
    path: Path  # the file that declares it
    # the plugin's files that run, as the digest took them: path -> "MODE sha256:HEX"
    files: Mapping[str, str] = EMPTY
    note: str = ""  # what no digest covers (a command that runs what a registry serves)


def label(key: str) -> str:
    """What a runnable is, in words: `MCP server 'name'`, `hook`, `agent 'x': hook`, ..."""
    kind, _, rest = key.partition(":")
    if kind == "hook":
        return "hook"
    if kind == "server":
        return f"MCP server {rest!r}"
    if kind == "lsp":
        return f"language server {rest!r}"
    name, _, what = rest.partition(":")
    whose = f"{kind} {name!r}"
    if what == "plugin":
        return f"{whose}: a Claude Code plugin of its own"
    if what == "permissionMode":
        return f"{whose}: permission mode"
    return f"{whose}: {label(what)}"


def digest_of(plugin: str, key: str, shown: str, files: Mapping[str, str]) -> str:
    """The digest an approval records: of what was shown and of the files that run, so that
    the command text and file list kept readable in a lockfile can be checked against it."""
    import hashlib
    import json

    canonical = json.dumps(
        {"plugin": plugin, "key": key, "shown": shown, "files": dict(files)}, sort_keys=True
    )
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def unexpanded(text: str, root: str) -> str:
    """A value as the plugin wrote it: its own folder as ${CLAUDE_PLUGIN_ROOT}, so that what
    is shown is the same in every checkout."""
    return text.replace(root, PLUGIN_ROOT)


# --------------------------------------------------------------------------- what runs


class Declared(NamedTuple):
    """A runnable before its digest: key, what is shown, the file that declares it."""

    key: str
    shown: str
    path: Path
    note: str = ""
    folder: Path | None = None  # a folder whose every file runs too (a skill that is a plugin)


def server_shown(
    command: str, args: Iterable[str], env: Mapping[str, str], cwd: str | None, root: str
) -> str:
    import shlex

    argv = [unexpanded(v, root) for v in (command, *args)]
    shown = shlex.join(argv)
    values = {k: unexpanded(v, root) for k, v in sorted(env.items())}
    if values:
        shown += "  (env " + " ".join(f"{k}={shlex.quote(v)}" for k, v in values.items()) + ")"
    if cwd is not None:
        shown += f"  (in {unexpanded(cwd, root)})"
    return shown


def hook_shown(hook: Hook, root: str) -> str:
    on = f" on {hook.matcher}" if hook.matcher not in ("", "*") else ""
    timeout = f"  (timeout {hook.timeout} s)" if hook.timeout is not None else ""
    return f"{hook.event}{on}: {unexpanded(hook.command, root)}{timeout}"


def _server(server: McpServer, root: str) -> Declared | None:
    if server.transport != "stdio" or server.command is None:
        return None  # HTTP, SSE: runs nothing here
    shown = server_shown(server.command, server.args, server.env, server.cwd, root)
    return Declared(
        f"server:{server.name}", shown, server.path, registry_note(server.command, server.args)
    )


def _frontmatter_hooks(value: Any, path: Path, root: str, prefix: str) -> Iterator[Declared]:
    from skilltool.parse_hooks import events

    if not isinstance(value, Mapping):
        return
    for hook in events(value, path):
        yield Declared(f"{prefix}:{hook.key}", hook_shown(hook, root), path)


def _frontmatter_servers(value: Any, path: Path, root: str, prefix: str) -> Iterator[Declared]:
    """An agent's `mcpServers`: a list of server names (the user's own servers) and inline
    definitions (`{name: {command: ...}}`), or one mapping of them."""
    items = value if isinstance(value, list) else [value]
    for item in items:
        if not isinstance(item, Mapping):
            continue  # a name: a server the user configured, nothing new
        for name, config in item.items():
            if not isinstance(config, Mapping) or not isinstance(config.get("command"), str):
                continue
            args = config.get("args", [])
            env = config.get("env", {})
            cwd = config.get("cwd")
            args = [str(a) for a in args] if isinstance(args, list) else []
            env = {str(k): str(v) for k, v in env.items()} if isinstance(env, Mapping) else {}
            shown = server_shown(
                config["command"], args, env, cwd if isinstance(cwd, str) else None, root
            )
            note = registry_note(config["command"], args)
            yield Declared(f"{prefix}:server:{name}", shown, path, note)


def _skill_plugin(folder: Path) -> str | None:
    """What makes a skill folder a Claude Code plugin of its own, or None."""
    found = [
        what
        for what, rel in (
            ("a plugin manifest", ".claude-plugin/plugin.json"),
            ("hooks", "hooks/hooks.json"),
            ("MCP servers", ".mcp.json"),
            ("LSP servers", ".lsp.json"),
        )
        if os.path.isfile(folder / rel)
    ]
    return ", ".join(found) if found else None


def declared(plugin: Plugin) -> list[Declared]:
    """Everything of the plugin a harness would run, in a stable order."""
    root = str(plugin.root)
    found = [d for s in plugin.mcp_servers if (d := _server(s, root)) is not None]
    found += [Declared(h.key, hook_shown(h, root), h.path) for h in plugin.hook_commands]
    for lsp in plugin.lsp_servers:  # a language server is a command a harness starts
        shown = server_shown(lsp.command, lsp.args, lsp.env, None, root)
        found.append(
            Declared(f"lsp:{lsp.name}", shown, lsp.path, registry_note(lsp.command, lsp.args))
        )
    for agent in plugin.agents:
        prefix = f"agent:{agent.name}"
        found += _frontmatter_hooks(agent.fields.get("hooks"), agent.path, root, prefix)
        found += _frontmatter_servers(agent.fields.get("mcpServers"), agent.path, root, prefix)
        mode = agent.fields.get("permissionMode")
        if isinstance(mode, str) and mode in QUIET_MODES:
            shown = (
                f"permissionMode: {mode} (Claude Code asks nothing before {QUIET_MODES[mode]} "
                "runs for this agent)"
            )
            found.append(Declared(f"{prefix}:permissionMode", shown, agent.path))
    for skill in plugin.skills:
        prefix = f"skill:{skill.name}"
        found += _frontmatter_hooks(
            skill.fields.get("hooks"), skill.path / "SKILL.md", root, prefix
        )
        what = _skill_plugin(skill.path)
        if what is not None:
            shown = (
                f"its folder holds {what}: Claude Code loads it as a plugin of its own, and "
                "runs what it declares"
            )
            found.append(Declared(f"{prefix}:plugin", shown, skill.path, folder=skill.path))
    for command in plugin.slash_commands:
        prefix = f"command:{command.name}"
        found += _frontmatter_hooks(command.fields.get("hooks"), command.path, root, prefix)
    return found


def of_plugin(source: str, plugin: Plugin) -> list[Runnable]:
    """The plugin's runnables, each with its digest (none: nothing of it runs)."""
    found = declared(plugin)
    if not found:
        return []
    named = {m for d in found for m in NAMED.findall(d.shown)}
    folders = [d.folder for d in found if d.folder is not None]
    # the files that declare them are not taken whole: each thing they declare is, by what
    # is shown of it, so that a change to one command holds that one alone
    declaring = {str(s.path) for s in plugin.mcp_servers} | {str(p) for p in plugin.hooks}
    files = running_files(plugin.root, named, folders, declaring)
    return [
        Runnable(
            source, plugin.name, d.key, d.shown, digest_of(plugin.name, d.key, d.shown, files),
            d.path, files, d.note,
        )
        for d in found
    ]  # fmt: skip


# --------------------------------------------------------------------------- the files that run


def _entry(path: str) -> str | None:
    """A file as the digest takes it: its mode (git's: 100644, 100755, 120000) and bytes."""
    import hashlib
    import stat

    try:
        info = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISLNK(info.st_mode):
        data, mode = os.fsencode(os.readlink(path)), "120000"
    elif stat.S_ISREG(info.st_mode):
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        mode = "100755" if info.st_mode & 0o111 else "100644"
    else:
        return None
    return f"{mode} sha256:{hashlib.sha256(data).hexdigest()}"


def running_files(
    root: Path,
    named: Iterable[str] = (),
    folders: Iterable[Path] = (),
    declaring: Iterable[str] = (),
) -> dict[str, str]:
    """The plugin's files that run, by their path in it: every file outside the folders it
    reads (`NOT_RUN`), each file a command names, and every file of `folders`; not the
    files that only declare what runs (`declaring`: its .mcp.json, its hooks.json)."""
    found: dict[str, str] = {}
    top = str(root)
    skipped = set(declaring)

    def add(path: str) -> None:
        rel = os.path.relpath(path, top).replace(os.sep, "/")
        if rel in found or rel.startswith("../") or path in skipped:
            return
        entry = _entry(path)
        if entry is not None:
            found[rel] = entry

    def walk(folder: str, skip: frozenset[str]) -> None:
        for here, dirs, files in os.walk(folder):
            if here == folder:
                dirs[:] = [d for d in dirs if d not in skip]
            dirs.sort()
            for name in [
                *sorted(files),
                *(d for d in dirs if os.path.islink(os.path.join(here, d))),
            ]:
                add(os.path.join(here, name))

    walk(top, NOT_RUN)
    for folder in folders:
        walk(str(folder), frozenset())
    for rel in named:
        path = os.path.normpath(os.path.join(top, rel))
        if path.startswith(top + os.sep) and os.path.lexists(path):
            if os.path.isdir(path) and not os.path.islink(path):
                walk(path, frozenset())
            else:
                add(path)
    return dict(sorted(found.items()))


def changed_files(was: Mapping[str, str], now: Mapping[str, str]) -> list[str]:
    """The files that differ, as `git diff --stat` names them: `path (new)`, `path (gone)`,
    `path (changed)`."""
    said = []
    for path in sorted({*was, *now}):
        if path not in was:
            said.append(f"{path} (new)")
        elif path not in now:
            said.append(f"{path} (gone)")
        elif was[path] != now[path]:
            said.append(f"{path} (changed)")
    return said


# --------------------------------------------------------------------------- registries

# a command that fetches a package and runs it when it starts, and the registry it asks
LAUNCHERS = {"npx": "npm", "bunx": "npm", "pnpx": "npm", "uvx": "PyPI", "pipx": "PyPI"}
# options of those launchers that name the package (the rest of the words are its command)
PACKAGE_OPTIONS = {"--from", "--spec", "-p", "--package"}
# the options of `docker run` that take a value (the image is the first word after them)
DOCKER_VALUES = {
    "-e", "--env", "-v", "--volume", "-p", "--publish", "--name", "--network", "-w",
    "--workdir", "--entrypoint", "-u", "--user", "--mount", "--env-file", "-l", "--label",
}  # fmt: skip
PINNED = re.compile(
    r"(@?[^@]+@\d+\.\d+\.\d+([-+][\w.]+)?"  # npm: name@1.2.3
    r"|[^=]+==\d[\w.!+]*"  # PyPI: name==1.2.3
    r"|git\+.+@[0-9a-f]{40}"  # a git URL at a commit
    r"|.+@sha256:[0-9a-f]{64})"  # an image by its digest
)


def _package(launcher: str, words: list[str]) -> str | None:
    """The package a launcher fetches, as its command line names it."""
    if launcher in ("docker", "podman"):
        if words[:1] != ["run"]:
            return None
        rest = iter(words[1:])
        for word in rest:
            if word in DOCKER_VALUES:
                next(rest, None)
            elif not word.startswith("-"):
                return word
        return None
    if launcher in ("pnpm", "yarn", "bun"):
        words = words[1:] if words[:1] == ["dlx"] else []
    elif launcher == "pipx":
        words = words[1:] if words[:1] == ["run"] else []
    elif launcher not in LAUNCHERS:
        return None
    rest = iter(words)
    for word in rest:
        if word in PACKAGE_OPTIONS:
            return next(rest, None)
        if word.startswith(("--from=", "--spec=", "--package=")):
            return word.split("=", 1)[1]
        if not word.startswith("-"):
            return word
    return None


def registry_note(command: str, args: Iterable[str]) -> str:
    """What a command runs that no digest can cover (a package a registry serves when the
    harness starts it, at no fixed version), and how to pin it; "" when it runs only what
    the approval covers."""
    launcher = os.path.basename(command)
    package = _package(launcher, list(args))
    if package is None or PINNED.fullmatch(package):
        return ""
    registry = {"docker": "its registry", "podman": "its registry"}.get(
        launcher, LAUNCHERS.get(launcher, "npm")
    )
    if launcher in ("docker", "podman"):
        pin = f"{package.split(':')[0]}@sha256:…"
    elif package.startswith("git+"):
        pin = f"{package.split('@')[0]}@<commit>"
    elif registry == "PyPI":
        pin = f"{package}==<version>"
    else:
        pin = f"{package.rsplit('@', 1)[0] if package.rfind('@') > 0 else package}@<version>"
    return (
        f"runs whatever {registry} serves for {package} when the harness starts it: no digest "
        f"covers that; pinned ({pin}), it changes only with the plugin"
    )
