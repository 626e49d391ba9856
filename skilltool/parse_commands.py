"""A plugin's slash commands read as Claude Code reads them: each `commands/**/*.md` (or a
file the manifest lists), subfolders as `sub:x`, frontmatter as parse reads it (SPEC §10)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from skilltool import parse, probe
from skilltool.model import Problem, SlashCommand, quoted

COMMAND_SIZE_LIMIT = 1024 * 1024
COMMAND_DEPTH = 4  # commands/a/b/c/x.md is `a:b:c:x`; deeper folders are not read
# Claude Code's command keys; a command is also a skill there, so the skill keys count too
COMMAND_FIELDS = parse.SKILL_FIELDS | {"disable-model-invocation", "argument-hint", "model"}
DESCRIPTION_LIMIT = 100  # a description taken from the body: its first line, cut as Claude's


CommandReader = Callable[[Path, str], "tuple[SlashCommand | None, list[Problem]]"]


def read_commands(
    places: Sequence[Path], root: Path, problems: list[Problem], read: CommandReader | None = None
) -> list[SlashCommand]:
    """Every command of a plugin: each `.md` of a listed file or folder, subfolders as `sub:x`.

    `read` reads one file (the parse cache's reader, or `read_command`)."""
    read = read or read_command
    found: list[SlashCommand] = []
    seen: dict[str, Path] = {}
    read_files: set[str] = set()  # a file both listed and in a listed folder is one command
    for place in places:
        files = [(place.stem, place)] if probe.now.isfile(place) else []
        if probe.now.isdir(place):
            files = _command_files(place, root, "", COMMAND_DEPTH, problems)
        for name, path in files:
            if os.path.normpath(path) in read_files:
                continue
            read_files.add(os.path.normpath(path))
            command, said = read(path, name)
            problems += said
            if command is None:
                continue
            if name in seen:
                problems.append(
                    Problem(path, f"command /{name} is also {seen[name]}; rename one", "name")
                )
                continue
            seen[name] = path
            found.append(command)
    return found


def _command_files(
    directory: Path, root: Path, prefix: str, depth: int, problems: list[Problem]
) -> list[tuple[str, Path]]:
    """(name, file) for every `.md` under a commands folder, as Claude Code names them."""
    try:
        entries = sorted(probe.now.scandir(directory), key=lambda e: e.name)
    except OSError as err:
        problems.append(Problem(directory, f"cannot be listed ({err.strerror}); check it"))
        return []
    files: list[tuple[str, Path]] = []
    for entry in entries:
        path = directory / entry.name
        if entry.name.startswith("."):
            why = "hidden, so not read as a command; rename it without the leading '.'"
            problems.append(Problem(path, why, severity="warning"))
        elif entry.name.endswith(".md") and not probe.now.entry_is_dir(entry):
            if entry.is_symlink() and not _inside(path, root):
                why = "a link that leads outside the plugin; put the command inside the plugin"
                problems.append(Problem(path, why))
                continue
            files.append((prefix + entry.name[: -len(".md")], path))
        elif not entry.is_symlink() and entry.is_dir() and depth > 1:
            files += _command_files(path, root, f"{prefix}{entry.name}:", depth - 1, problems)
    return files


def _inside(path: Path, root: Path) -> bool:
    real, real_root = probe.now.realpath(path), probe.now.realpath(root)
    return real.startswith(real_root.rstrip(os.sep) + os.sep)


def read_command(path: Path, name: str) -> tuple[SlashCommand | None, list[Problem]]:
    """One command file -> the SlashCommand (None if it cannot be used) and its problems.

    Frontmatter is optional (Claude Code then takes the description from the first line);
    when there is one it is read with parse's reader, Claude Code's YAML repair included."""
    out = parse.Problems(path)
    if re.search(parse.UNPRINTABLE, str(path)):
        out.add("its path holds a line break or a control character; rename the file")
        return None, out.items
    got = parse._read(path, out, COMMAND_SIZE_LIMIT)
    if got is None:
        return None, out.items
    if got[1]:
        out.add(f"over {COMMAND_SIZE_LIMIT // 1024} KiB; a command's prompt must be smaller")
        return None, out.items
    text = parse._decode(got[0], out)
    if text is None:
        return None, out.items
    first = text.split("\n", 1)[0]
    fm = parse.split_frontmatter(got[0], out) if parse._is_fence(first) else None
    if parse._is_fence(first) and fm is None:
        return None, out.items
    fields: dict[str, Any] = fm.data if fm is not None else {}
    lines = fm.lines if fm is not None else {}
    body = fm.body if fm is not None else text
    for part in name.split(":"):
        if not parse.is_safe_component(part):
            out.add(f"{quoted(part)} cannot be a file name; {parse.COMPONENT_RULE}", "name", 1)
    description = _string(fields, lines, "description", out)
    hint = fields.get("argument-hint")
    if hint is not None and not isinstance(hint, str):
        # only shown while typing: Claude Code still runs the command
        why = f"should be a string, not {parse.kind_of(hint)}; e.g. 'argument-hint: \"[file]\"'"
        out.add(why, "argument-hint", lines.get("argument-hint"), "warning")
        hint = None
    model = _string(fields, lines, "model", out)
    tools = _tools(fields, lines, out)
    if "disable-model-invocation" in fields and not isinstance(
        fields["disable-model-invocation"], bool
    ):
        out.add(
            "must be true or false",
            "disable-model-invocation",
            lines.get("disable-model-invocation"),
        )
    if fm is not None:
        parse._unknown_keys(fm, out, COMMAND_FIELDS, "command")
    if out.failed:
        return None, out.items
    return SlashCommand(
        name, path, description or described(body), body, hint, tools, model, lines, fields
    ), out.items


def _string(
    fields: dict[str, Any], lines: dict[str, int], key: str, out: parse.Problems
) -> str | None:
    value = fields.get(key)
    if value is None or isinstance(value, str):
        return value
    out.add(f"must be a string, not {parse.kind_of(value)}; quote the value", key, lines.get(key))
    return None


def _tools(fields: dict[str, Any], lines: dict[str, int], out: parse.Problems) -> tuple[str, ...]:
    value = fields.get("allowed-tools")
    if value is None:
        return ()
    if isinstance(value, str):
        return parse.split_tools(value)
    listed = parse._string_list(value)
    if listed is None:
        rule = "must be a string or a list of strings, e.g. 'allowed-tools: Read, Grep'"
        out.add(rule, "allowed-tools", lines.get("allowed-tools"))
    return listed or ()


def described(body: str) -> str:
    """The description Claude Code gives a command without one: its first non-empty line,
    a heading's text without the '#'s."""
    for line in body.split("\n"):
        text = line.strip()
        if text:
            text = re.sub(r"^#+\s+", "", text)
            return text if len(text) <= DESCRIPTION_LIMIT else text[: DESCRIPTION_LIMIT - 3] + "..."
    return ""
