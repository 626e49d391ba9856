"""`configure`, and `add --config` / `approve --config`: the values a person gives for a
plugin's options (`userConfig`), checked as Claude Code checks them and kept in skilltool's
settings, per plugin (settings.py). A sensitive option's value is never taken: the plugin's
servers are given a variable in its place (user_config.py). A project keeps no value."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from skilltool import parse_options, paths, report
from skilltool.commands.common import Options
from skilltool.errors import UsageError
from skilltool.model import Plugin, quoted


def pairs_of(words: Sequence[str]) -> dict[str, str]:
    """`KEY=VALUE` words -> {KEY: VALUE}; anything else is a usage error."""
    found: dict[str, str] = {}
    for word in words:
        key, equals, value = word.partition("=")
        if not equals or not key:
            raise UsageError(f"--config {quoted(word)}: give KEY=VALUE, e.g. --config mode=fast")
        found[key] = value
    return found


def no_project(home: paths.Scope) -> None:
    if home.kind == "project":
        raise UsageError(
            "a project keeps no value of a plugin's options: each teammate sets the variables "
            "'skilltool plugins status' names; leave out --config (or give --user)"
        )


def checked(plugin: Plugin, given: Mapping[str, str], home: paths.Scope) -> dict[str, Any]:
    """The values given for a plugin's options, as kept; a usage error for a key it does not
    declare, a sensitive one, or a value the option does not take."""
    from skilltool.user_config import variable

    values: dict[str, Any] = {}
    for key, text in given.items():
        option = plugin.user_config.get(key)
        if option is None:
            has = ", ".join(plugin.user_config) or "none"
            raise UsageError(
                f"{key}: plugin {plugin.name} declares no such option (it has: {has}); "
                "nothing was kept"
            )
        if parse_options.is_sensitive(option):
            raise UsageError(
                f"{key}: option of plugin {plugin.name} is sensitive: skilltool keeps no value "
                f"of it; set {variable(plugin.name, key)} in the environment the harnesses "
                "start from; nothing was kept"
            )
        try:
            values[key] = parse_options.value_of(option, text)
        except ValueError as err:
            raise UsageError(f"{key}={text}: {err}; nothing was kept") from None
    return values


def shown(value: Any) -> str:
    return repr(parse_options.text_of(value))


def option_lines(plugin: Plugin, kept: Mapping[str, Any]) -> list[str]:
    """Each option of a plugin and what it stands at: given, the default, a variable, none."""
    from skilltool.user_config import variable

    lines = []
    for key, option in plugin.user_config.items():
        title = option.get("title")
        if parse_options.is_sensitive(option):
            state = f"sensitive: from ${variable(plugin.name, key)}"
        elif key in kept:
            state = f"= {shown(kept[key])}"
        elif "default" in option:
            state = f"= {shown(option['default'])} (the plugin's default)"
        else:
            state = "no value: its servers wait for one"
        lines.append(f"option    {plugin.name}: {key} ({title}) {state}")
    return lines


def terminal(opts: Options) -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty() and not opts.json and not opts.dry_run


def _asked(plugin: Plugin, kept: Mapping[str, Any], given: Mapping[str, str]) -> dict[str, str]:
    """On a terminal, a value for each option not sensitive and not given on the command line
    (an empty answer keeps what it has)."""
    report.clear_progress()
    answers: dict[str, str] = {}
    for key, option in plugin.user_config.items():
        if parse_options.is_sensitive(option) or key in given:
            continue
        now = kept.get(key, option.get("default"))
        about = f"{option.get('title')}: {option.get('description')}"
        hint = f" [{parse_options.text_of(now)}]" if now is not None else ""
        choices = option.get("options")
        if isinstance(choices, list):
            hint = f" ({'/'.join(map(str, choices))}){hint}"
        sys.stdout.write(f"ask       {plugin.name}: {key} ({about}){hint}: ")
        sys.stdout.flush()
        answer = sys.stdin.readline().strip()
        if answer:
            answers[key] = answer
    return answers


def keep(
    opts: Options, home: paths.Scope, plugin: Plugin, given: Mapping[str, str], said: list[str]
) -> None:
    """The values given (and, on a terminal, asked for) kept for a plugin, each said."""
    from skilltool import settings

    kept = settings.read(home).config.get(plugin.name, {})
    if terminal(opts):
        asked = dict(given)
        while True:  # asked again until the answers are values the options take
            answers = _asked(plugin, kept, asked)
            try:
                checked(plugin, answers, home)
            except UsageError as err:
                sys.stdout.write(f"error     {err}\n")
                continue
            asked.update(answers)
            break
        given = asked
    values = checked(plugin, given, home)
    changed = {k: v for k, v in values.items() if kept.get(k) != v}
    if changed and not opts.dry_run:
        settings.configure(home, plugin.name, changed)
    where = home.show(settings.place(home))
    prefix = "dry-run: " if opts.dry_run else ""
    said += [
        f"{prefix}set       {plugin.name}: {key} = {shown(value)} (kept in {where})"
        for key, value in changed.items()
    ]


def after_add(
    opts: Options,
    home: paths.Scope,
    plugins: Sequence[Plugin],
    words: Sequence[str],
    said: list[str],
) -> None:
    """`add --config`, `approve --config`: each KEY=VALUE given to every plugin of the source
    that declares the option (one that none declares is a usage error, nothing kept); on a
    terminal, the options not given are asked for."""
    given = pairs_of(words)
    if given:
        no_project(home)
    if home.kind == "project":
        return
    with_options = [p for p in plugins if p.user_config]
    unknown = [k for k in given if not any(k in p.user_config for p in with_options)]
    if unknown:
        has = sorted({k for p in with_options for k in p.user_config}) or ["none"]
        raise UsageError(
            f"--config {unknown[0]}: no plugin added declares that option (they have: "
            f"{', '.join(has)}); nothing was kept: 'skilltool plugins configure PLUGIN "
            "KEY=VALUE'"
        )
    for plugin in with_options:  # every value is checked before any is kept
        checked(plugin, {k: v for k, v in given.items() if k in plugin.user_config}, home)
    for plugin in with_options:
        mine = {k: v for k, v in given.items() if k in plugin.user_config}
        keep(opts, home, plugin, mine, said)
