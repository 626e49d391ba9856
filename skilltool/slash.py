"""A plugin's slash commands (SPEC §10): `commands/**/*.md` read as Claude Code reads them,
their argument placeholders translated to each harness's syntax, one rendered file each.

Rendering follows the rules of every other rendered file (SPEC §5): the same marker, the
same states (`plan._file_action`), the same apply; only where the files go and what they
hold is decided here.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from skilltool import markers, parse, probe
from skilltool.model import Catalogue, Plugin, Problem, SlashCommand
from skilltool.record import NamedTuple

if TYPE_CHECKING:
    from skilltool.cache import RenderCache
    from skilltool.harnesses import Harness, Verdict
    from skilltool.model import Rendering
    from skilltool.plan import Action, Plan

COMMAND_SIZE_LIMIT = 1024 * 1024
COMMAND_DEPTH = 4  # commands/a/b/c/x.md is `a:b:c:x`; deeper folders are not read
# Claude Code's command keys; a command is also a skill there, so the skill keys count too
COMMAND_FIELDS = parse.SKILL_FIELDS | {"disable-model-invocation", "argument-hint", "model"}
NOT_CARRIED = " not carried: "  # between what a harness takes none of and why
DESCRIPTION_LIMIT = 100  # a description taken from the body: its first line, cut as Claude's

# Claude Code 2.1.332: `$ARGUMENTS[N]` and `$N` are word N counted from 0, `$ARGUMENTS` all;
# a `$N` with no word N (fewer words typed) it leaves as written
PLACEHOLDER = r"\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$(\d+)(?!\w)"
# `$150`, `$4,050`, `$3.50`: an amount, which Claude Code leaves as written (it never gets
# that many words); OpenCode, Kilo and pi would put an argument or nothing in its place
AMOUNT = r"\$(?:\d{2,}|\d(?=[.,]\d))(?![\w])"
# what Gemini CLI (and Qwen Code) would run or replace in a prompt: shell, file, arguments
GEMINI_ACTIVE = r"!\{|@\{|\{\{args\}\}"
PI_ACTIVE = r"\$@|\$\{@"  # pi's own placeholders, which Claude Code leaves alone
# a harness's placeholder syntax: how it spells all the arguments and word N (from 1)
Syntax = Literal["claude", "opencode", "pi", "gemini"]


# --------------------------------------------------------------------------- reading


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
            out.add(f"{part!r} cannot be a file name; {parse.COMPONENT_RULE}", "name", 1)
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


# --------------------------------------------------------------------------- placeholders


class Translation(NamedTuple):
    """A command's body in one harness's syntax, or why it cannot be said there."""

    body: str | None  # None: the harness cannot express it; `why` says so
    why: str = ""  # skipped: why; rendered: what the harness does differently, a verb first


def used(body: str) -> tuple[bool, dict[str, int]]:
    """Whether the body takes all the arguments, and each positional placeholder it uses
    with the word it stands for (counted from 0, as Claude Code counts)."""
    every, positional = False, dict[str, int]()
    for match in re.finditer(PLACEHOLDER, body):
        index = match.group(1) or match.group(2)
        if index is None:
            every = True
        elif not re.compile(AMOUNT).match(body, match.start()):
            positional.setdefault(match.group(), int(index))
    return every, positional


def _shifted(match: re.Match[str]) -> str:
    """Claude Code's word N (from 0) as `$N+1`, the other harnesses' word N (from 1)."""
    index = match.group(1) or match.group(2)
    return match.group() if index is None else f"${int(index) + 1}"


def translate(body: str, syntax: str) -> Translation:
    """The body with Claude Code's placeholders spelled as `syntax` (a Syntax) spells them."""
    if syntax == "claude":
        return Translation(body)
    every, positional = used(body)
    active = {"gemini": GEMINI_ACTIVE, "pi": PI_ACTIVE}.get(syntax)
    found = re.search(active, body) if active is not None else None
    if found is not None:
        return Translation(
            None,
            f"its body holds {found.group()!r}, which it would run or replace (a shell command, "
            "a file or the arguments); write it another way to have the command here",
        )
    amount = re.search(AMOUNT, body) if syntax != "gemini" else None
    if amount is not None:  # Gemini CLI and Qwen Code leave it as written, as Claude Code does
        return Translation(
            None,
            f"its body holds {amount.group()!r}, an amount it seems, which Claude Code leaves as "
            "written and this harness would replace with an argument or with nothing; write it "
            f"another way (e.g. 'USD {amount.group()[1:]}') to have the command here",
        )
    if syntax == "gemini":
        if positional:
            return Translation(
                None,
                f"it uses {_listed(list(positional))}, and this harness has only {{{{args}}}} "
                "(all the arguments at once); use $ARGUMENTS to have the command here",
            )
        return Translation(body.replace("$ARGUMENTS", "{{args}}"))
    text = re.sub(PLACEHOLDER, _shifted, body)
    if syntax == "pi" and not every and not positional:
        # Claude Code adds the arguments typed after a command that has no placeholder;
        # pi would drop them
        text = text.rstrip("\r\n") + "\n\nARGUMENTS: $ARGUMENTS\n"
    if not positional:
        return Translation(text)
    missing = "a missing argument nothing (Claude Code leaves that $N as written)"
    if syntax == "opencode":
        last = max(positional.values()) + 1
        return Translation(
            text, f"give its last positional placeholder (${last} there) the rest of the "
            f"arguments and {missing}"
        )  # fmt: skip
    return Translation(text, f"give {missing}")


def _listed(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


# --------------------------------------------------------------------------- per harness


def verdict(harness: Harness, command: SlashCommand) -> Verdict | None:
    """What one harness does with a command: None when it takes it as Claude Code does."""
    from skilltool.harnesses import Verdict

    why = refusal(harness, command)
    if why is not None:
        return Verdict(True, why)
    notes = [harness.command_note(command.name), translate(command.body, _syntax(harness)).why]
    said = [note for note in notes if note]
    return Verdict(False, " and ".join(said)) if said else None


def _syntax(harness: Harness) -> str:
    assert harness.command_syntax is not None
    return harness.command_syntax


def refusal(harness: Harness, command: SlashCommand) -> str | None:
    """Why nothing is rendered for the command in this harness, or None."""
    if harness.command_syntax is None:
        return harness.no_commands
    why = harness.command_refusal(command.name)
    if why is not None:
        return why
    translation = translate(command.body, harness.command_syntax)
    return translation.why if translation.body is None else None


def render(harness: Harness, command: SlashCommand) -> Rendering:
    """The file a harness reads the command from; only for a command it can take."""
    from skilltool.harnesses import environment
    from skilltool.model import Rendering

    body = translate(command.body, _syntax(harness)).body
    assert body is not None
    model = command.model if command.model and harness.accepts_model(command.model) else None
    values: dict[str, Any] = {"command": command, "body": body, "model": model}
    if harness.command_syntax == "gemini":
        from skilltool.harnesses.codex import toml_string_table

        values["table"] = toml_string_table({"description": command.description, "prompt": body})
        template = "command.toml.j2"
    else:
        values["fields"] = _yaml(command.fields)
        template = "command.md.j2"
    text = (
        environment()
        .get_template(f"{harness.name}/{template}")
        .render(marker=markers.SLOT, **values)
    )
    return Rendering(harness.command_target(command.name), markers.stamp(text, command.path))


def _rendered(harness: Harness, command: SlashCommand) -> list[Rendering]:
    return [render(harness, command)]


def _yaml(fields: dict[str, Any] | Any) -> str:
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


# --------------------------------------------------------------------------- planning


def winning_commands(
    catalogue: Catalogue,
) -> tuple[list[tuple[Plugin, SlashCommand]], list[Problem]]:
    """Every command to render, with its plugin: the first active plugin on the path wins a name."""
    winners: dict[str, SlashCommand] = {}
    found, problems = [], []
    for plugin in catalogue.active:
        for command in plugin.slash_commands:
            first = winners.get(command.name)
            if first is not None:
                problems.append(
                    Problem(
                        command.path,
                        f"command /{command.name} is also {first.path}, which comes first on "
                        "the search path; this one is not rendered",
                        severity="warning",
                    )
                )
                continue
            winners[command.name] = command
            found.append((plugin, command))
    return found, problems


def plan_commands(
    catalogue: Catalogue,
    harnesses: list[Harness],
    remove: bool = False,
    force: bool = False,
    renders: RenderCache | None = None,
) -> Plan:
    """Every command's file in every harness given that has commands, a line for each that
    has none, and our command files no command needs any more.

    With `renders`, a command file that is on disk as it would be made again is read, not made."""
    from skilltool.plan import Plan, read_places

    commands, problems = winning_commands(catalogue)
    read = read_places(catalogue)
    actions: list[Action] = []
    for harness in harnesses:
        try:
            actions += _harness_actions(harness, commands, remove, force, read, renders)
        except OSError as err:  # a folder of the harness that cannot be read: skip it
            where = Path(err.filename) if err.filename else harness.root()
            why = f"cannot be read ({err.strerror}), so no command is rendered for {harness.title}"
            problems.append(Problem(where, f"{why}; check its permissions"))
    return Plan(tuple(actions), tuple(problems))


def _harness_actions(
    harness: Harness,
    commands: list[tuple[Plugin, SlashCommand]],
    remove: bool,
    force: bool,
    read: tuple[str, ...],
    renders: RenderCache | None = None,
) -> list[Action]:
    from skilltool.plan import Action, _file_action

    root = harness.root()
    if not os.path.isdir(root):
        absent = f"{harness.home.show(root)} does not exist (the harness is not set up here)"
        return [
            Action("command", harness.name, c.name, root, "absent", "none", c.path, reason=absent)
            for _, c in commands
        ]
    if harness.command_syntax is None:
        return [] if remove else _not_carried(harness, commands)
    actions: list[Action] = []
    wanted: set[Path] = set()
    for _, command in commands:
        refused = refusal(harness, command)
        if refused is not None and remove:
            continue  # nothing of it was ever written there: uninstall has nothing to say
        if refused is not None:
            skipped = f"command /{command.name}: {refused}"
            actions.append(
                Action(
                    "command",
                    harness.name,
                    command.name,
                    root,
                    "unready",
                    "none",
                    command.path,
                    reason=skipped,
                )
            )
            continue
        made, on_disk = (
            renders.made(
                harness.name, harness.places(), command, functools.partial(_rendered, harness)
            )
            if renders
            else ([render(harness, command)], False)
        )
        rendering = made[0]
        wanted.add(rendering.target)
        rival = _rival(harness, command.name)
        if rival is not None and not remove:
            actions.append(
                Action(
                    "command",
                    harness.name,
                    command.name,
                    rendering.target,
                    "foreign",
                    "none",
                    command.path,
                    reason=rival,
                )
            )
            continue
        known = renders.known.get(rendering.target) if renders and on_disk else None
        action = _file_action(harness.name, command.name, rendering, remove, force, on_disk, known)
        if not (remove and action.state == "missing"):
            actions.append(action._replace(kind="command", source=command.path))
    return actions + _orphans(harness, wanted, force, read)


def _not_carried(harness: Harness, commands: list[tuple[Plugin, SlashCommand]]) -> list[Action]:
    """One line per plugin for a harness with no commands: what is not carried there, and why."""
    from skilltool.plan import Action

    by_plugin: dict[str, list[SlashCommand]] = {}
    for plugin, command in commands:
        by_plugin.setdefault(plugin.name, []).append(command)
    found = []
    for name, listed in by_plugin.items():
        count = f"{len(listed)} command{'s' if len(listed) > 1 else ''}"
        why = f"plugin {name}'s {count}{NOT_CARRIED}{harness.no_commands}"
        found.append(
            Action(
                "command",
                harness.name,
                name,
                harness.root(),
                "unready",
                "none",
                listed[0].path,
                reason=why,
            )
        )
    return found


def _rival(harness: Harness, name: str) -> str | None:
    """A file not ours that the harness would also read as this command (OpenCode's other
    folder): the command is then not written, so the user's own one is what runs."""
    from skilltool.fs import read_regular

    for path in harness.command_rivals(name):
        if not os.path.lexists(path):
            continue
        data = read_regular(path)
        if data is None or markers.find(data) is None:
            shown = harness.home.show(path)
            return f"{shown} is a command of that name not written by skilltool; left alone"
    return None


def _orphans(
    harness: Harness, wanted: set[Path], force: bool, read: tuple[str, ...]
) -> list[Action]:
    """Our command files that no command on the search path needs any more: removed if
    unedited, and only when the place their command lived in was read this run."""
    from skilltool.fs import TEMP_PREFIX, digest, read_regular
    from skilltool.plan import Action, _edited_copy, _seen_gone

    folder = harness.commands_dir()
    if folder is None or not os.path.isdir(folder):
        return []
    suffix = ".toml" if harness.command_syntax == "gemini" else ".md"
    found = []
    for path in sorted(folder.rglob(f"*{suffix}")):
        if path in wanted or path.is_symlink() or path.name.startswith(TEMP_PREFIX):
            continue
        data = read_regular(path)
        marker = markers.find(data) if data is not None else None
        if data is None or marker is None:
            continue
        name = ":".join(path.relative_to(folder).with_suffix("").parts)
        source = Path(marker.source)
        if not _seen_gone(marker.source, read):
            why = f"its command {marker.source} is not on a plugin folder read in this run; kept"
            found.append(Action("command", harness.name, name, path, "stale", "none", reason=why))
        elif marker.intact or force:
            found.append(
                Action(
                    "command",
                    harness.name,
                    name,
                    path,
                    "stale" if marker.intact else "edited",
                    "remove",
                    source,
                    reason="its command is gone",
                    seen=digest(data),
                    keep=None if marker.intact else _edited_copy(path),
                )
            )
        else:
            why = (
                "its command is gone, but it was edited by hand "
                "(--force removes it, keeping a copy)"
            )
            found.append(
                Action("command", harness.name, name, path, "edited", "none", source, reason=why)
            )
    return found


# --------------------------------------------------------------------------- status

# a command file's state as status says it; "unready" is a harness that cannot take it
STATE_WORDS = {
    "missing": "missing",
    "current": "current",
    "stale": "outdated",
    "edited": "edited",
    "foreign": "foreign",
    "absent": "harness absent",
    "unready": "not supported",
    "placeholder": "missing",
}
HOOKS_NOTE = "skilltool installs no hooks; they run only in Claude Code, from the plugin itself"


def _of(plugin: Plugin, actions: Sequence[Action]) -> tuple[dict[Path, list[Action]], list[Action]]:
    """The plugin's command actions: per command file, and the plugin's not-carried lines."""
    paths = {c.path for c in plugin.slash_commands}
    per: dict[Path, list[Action]] = {}
    whole = []
    for action in actions:
        if action.source not in paths:
            continue
        if action.reason.startswith(f"plugin {plugin.name}'s "):
            whole.append(action)
        elif action.source is not None and action.name in {c.name for c in plugin.slash_commands}:
            per.setdefault(action.source, []).append(action)
    return per, whole


def status_lines(plugin: Plugin, actions: Sequence[Action], show: Any) -> list[str]:
    """A plugin's commands in each harness, what is not carried where, and its hooks."""
    lines = []
    per, whole = _of(plugin, actions)
    for command in plugin.slash_commands:
        lines.append(f"  command /{command.name:<23} {show(command.path)}")
        mine = per.get(command.path)
        if not mine:  # another plugin's command of that name comes first on the path
            lines.append(f"    {'shadowed':<25} by another plugin's /{command.name}")
            continue
        for action in mine:
            if action.state == "absent":  # said once per harness, for the whole plugin
                continue
            word = STATE_WORDS[action.state]
            there = action.reason if action.state in ("absent", "unready") else show(action.target)
            lines.append(f"    {action.owner:<9} {word:<15} {there}")
    for action in whole:
        lines.append(f"    {action.owner:<9} {'not supported':<15} {action.reason}")
    if plugin.hooks:
        listed = ", ".join(show(path) for path in plugin.hooks)
        lines.append(f"  hooks   not carried: {listed} ({HOOKS_NOTE})")
    return lines


def status_dict(plugin: Plugin, actions: Sequence[Action]) -> dict[str, Any]:
    """The JSON of a plugin's commands and hooks, beside its skills and agents."""
    per, whole = _of(plugin, actions)
    return {
        "slash_commands": [
            {
                "name": command.name,
                "path": str(command.path),
                "description": command.description,
                "argument_hint": command.argument_hint,
                "renderings": [
                    {
                        "harness": a.owner,
                        "state": STATE_WORDS[a.state],
                        "target": None if a.state in ("absent", "unready") else str(a.target),
                        "reason": a.reason or None,
                    }
                    for a in per.get(command.path, [])
                ],
            }
            for command in plugin.slash_commands
        ],
        "commands_not_carried": [{"harness": a.owner, "reason": a.reason} for a in whole],
        "hooks": {"carried": False, "files": [str(p) for p in plugin.hooks], "note": HOOKS_NOTE},
    }
