"""A plugin's `userConfig`, the values its user gives, and its `dependencies`, the plugins it
needs (SPEC §14), read from plugin.json and
from a marketplace entry as Claude Code 2.1.332 reads them: its manifest schema, which
`claude plugin validate` applies and `claude plugin install` refuses a plugin over. An
option that breaks it is an error and is not read; a server or hook that names it is then
held, as one that names an option the plugin does not declare.

What a value given for an option must be (`configure`, `add --config`) is checked here too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skilltool.model import Problem, Severity

# an option's key becomes an environment variable's name in Claude Code's hooks
OPTION_KEY = r"[A-Za-z_][A-Za-z0-9_]*"
OPTION_TYPES = ("string", "number", "boolean", "directory", "file")
OPTION_FIELDS = frozenset(
    {
        "type",
        "title",
        "description",
        "required",
        "default",
        "multiple",
        "sensitive",
        "min",
        "max",
        "options",
    }
)
# what Claude Code does with a plugin whose userConfig breaks its schema
REFUSED = "Claude Code refuses to install the plugin"


def read_user_config(
    declared: list[tuple[Mapping[str, Any] | None, Path | None]],
) -> tuple[dict[str, dict[str, Any]], list[Problem]]:
    """Every option of `userConfig` in plugin.json, then in a marketplace entry (`declared`
    pairs the fields with the file that holds them); an option declared twice is the first.
    An option that breaks Claude Code's schema is left out, with an error."""
    from skilltool.parse_servers import json_text, key_line

    found: dict[str, dict[str, Any]] = {}
    problems: list[Problem] = []
    for fields, where in declared:
        if not isinstance(fields, Mapping) or "userConfig" not in fields or where is None:
            continue
        text = json_text(where) or ""
        value = fields["userConfig"]
        if not isinstance(value, Mapping):
            shape = 'must be an object of options, e.g. {"token": {"type": "string", ...}}'
            line = key_line(text, "userConfig")
            problems.append(Problem(where, f"{shape}; {REFUSED}", "userConfig", line))
            continue
        for key, option in value.items():
            line = key_line(text, str(key)) or key_line(text, "userConfig")
            why = option_problem(str(key), option)
            if why is not None:
                problems.append(Problem(where, f"{why}; {REFUSED}", f"userConfig.{key}", line))
                continue
            found.setdefault(str(key), dict(option))
    return found, problems


def option_problem(key: str, option: object) -> str | None:
    """Why Claude Code's schema refuses an option, or None."""
    if re.fullmatch(OPTION_KEY, key) is None:
        return "not a key Claude Code takes: letters, digits and '_', not starting with a digit"
    if not isinstance(option, Mapping):
        return 'must be an object: {"type": "string", "title": "…", "description": "…"}'
    unknown = sorted(set(option) - OPTION_FIELDS)
    if unknown:
        return f"{unknown[0]!r} is not a field of an option; remove it"
    if option.get("type") not in OPTION_TYPES:
        return f"type: must be one of {', '.join(OPTION_TYPES)}"
    for field in ("title", "description"):
        if not isinstance(option.get(field), str):
            return f"{field}: missing or not a string; every option needs one"
    for field in ("required", "multiple", "sensitive"):
        if field in option and not isinstance(option[field], bool):
            return f"{field}: must be true or false"
    for field in ("min", "max"):
        if field in option and not _number(option[field]):
            return f"{field}: must be a number"
    if "default" in option and not _default_shape(option["default"]):
        return "default: must be a string, a number, true or false, or a list of strings"
    if "options" in option:
        return _choices_problem(option)
    return None


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _default_shape(value: object) -> bool:
    if isinstance(value, list):
        return all(isinstance(v, str) for v in value)
    return isinstance(value, str | bool) or _number(value)


def _choices_problem(option: Mapping[str, Any]) -> str | None:
    """Claude Code's rules for `options`: the only values a plain string field takes."""
    choices = option["options"]
    if not isinstance(choices, list) or not choices:
        return "options: must be a list of at least one value"
    for choice in choices:
        if not isinstance(choice, str) or not 0 < len(choice) <= 64:
            return "options: each must be a string of 1-64 characters"
        if choice.strip() != choice or re.search(r"[\x00-\x1f\x7f-\x9f]", choice):
            return f"options: {choice!r} starts or ends with a space or holds a control character"
    if len({c.lower() for c in choices}) != len(choices):
        return "options: a value repeats (in some letter case)"
    if option["type"] != "string" or option.get("multiple") or option.get("sensitive"):
        return 'options: only for a field of type "string" that is neither multiple nor sensitive'
    if "default" not in option:
        if option.get("required") is not True:
            return "default: a field with options needs a default among them, or required: true"
        return None
    if option["default"] not in choices:
        return f"default: must be one of the options: {', '.join(choices)}"
    return None


def is_sensitive(option: Mapping[str, Any]) -> bool:
    return option.get("sensitive") is True


def value_of(option: Mapping[str, Any], text: str) -> Any:
    """A value typed for an option (`KEY=VALUE`), as Claude Code keeps it: a number, true or
    false, a list for a `multiple` one (comma-separated); ValueError saying why it is not
    one the option takes."""
    kind = option.get("type")
    if kind == "boolean":
        said = text.strip().lower()
        if said in ("true", "yes", "1", "on"):
            return True
        if said in ("false", "no", "0", "off"):
            return False
        raise ValueError("must be true or false")
    if kind == "number":
        try:
            number = float(text)
        except ValueError:
            raise ValueError("must be a number") from None
        if not math.isfinite(number):
            raise ValueError("must be a number")
        low, high = option.get("min"), option.get("max")
        if isinstance(low, int | float) and number < low:
            raise ValueError(f"must be at least {low}")
        if isinstance(high, int | float) and number > high:
            raise ValueError(f"must be at most {high}")
        return int(number) if number.is_integer() else number
    if option.get("multiple") is True:
        return [part.strip() for part in text.split(",") if part.strip()]
    choices = option.get("options")
    if isinstance(choices, list) and text not in choices:
        raise ValueError(f"must be one of {', '.join(map(str, choices))}")
    return text


def stored_problem(option: Mapping[str, Any], value: object) -> str | None:
    """Why a value kept in the settings file is not one the option takes, or None."""
    if is_sensitive(option):
        return "is sensitive: skilltool keeps no value of it; remove it from the file"
    kind = option.get("type")
    if kind == "boolean":
        return None if isinstance(value, bool) else "must be true or false"
    if kind == "number":
        return None if _number(value) else "must be a number"
    if option.get("multiple") is True:
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        return None if ok else "must be a list of strings"
    if not isinstance(value, str):
        return "must be a string"
    choices = option.get("options")
    if isinstance(choices, list) and value not in choices:
        return f"must be one of {', '.join(map(str, choices))}"
    return None


def text_of(value: object) -> str:
    """A value as Claude Code writes it into a server (JavaScript's `String(value)`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ",".join(text_of(v) for v in value)
    return str(value)


# a plugin named by a dependency, and the marketplace it may name (Claude Code's pattern)
DEPENDENCY_NAME = r"[A-Za-z0-9][-A-Za-z0-9._]*"
# a string dependency: `name`, `name@marketplace`, either with `@^range` after it
DEPENDENCY = rf"({DEPENDENCY_NAME})(?:@({DEPENDENCY_NAME}))?(?:@(\^[^@]*))?"


def read_dependencies(
    declared: list[tuple[Mapping[str, Any] | None, Path | None]],
    key: str = "dependencies",
) -> tuple[dict[str, dict[str, str]], list[Problem]]:
    """Each plugin the plugin needs, from `dependencies` of plugin.json then of a marketplace
    entry: `name` or `name@marketplace` -> {"version": the range} (or {} for any version).
    One Claude Code's schema refuses is an error, and is not read. With `key`
    "optionalDependencies", the plugins it takes when it can: Claude Code leaves out an item
    it cannot read (a warning here), and refuses only a value that is not a list."""
    from skilltool import semver
    from skilltool.parse_servers import json_text, key_line

    optional = key != "dependencies"
    left = "Claude Code leaves it out" if optional else REFUSED
    found: dict[str, dict[str, str]] = {}
    problems: list[Problem] = []
    for fields, where in declared:
        if not isinstance(fields, Mapping) or key not in fields or where is None:
            continue
        text = json_text(where) or ""
        line = key_line(text, key)
        items = fields[key]
        if not isinstance(items, list):
            why = 'must be a list of plugin names or {"name", "version"} objects'
            problems.append(Problem(where, why, key, line))
            continue
        severity: Severity = "warning" if optional else "error"
        for index, item in enumerate(items):
            field = f"{key}[{index}]"
            got = _dependency(item)
            if isinstance(got, str):
                problems.append(Problem(where, f"{got}; {left}", field, line, severity))
                continue
            name, version = got
            if version is not None and not semver.valid_range(version):
                why = f"version: {version!r} is not a version range (e.g. ^2.0, ~2.1.0, >=1.4)"
                problems.append(Problem(where, f"{why}; {left}", field, line, severity))
                continue
            found.setdefault(name, {} if version is None else {"version": version})
    return found, problems


def _dependency(item: object) -> tuple[str, str | None] | str:
    """A dependency -> (`name` or `name@marketplace`, its range or None), or why not one."""
    if isinstance(item, str):
        match = re.fullmatch(DEPENDENCY, item)
        if match is None:
            return f"{item!r} is not a plugin name, optionally with @marketplace"
        name, market, version = match.groups()
        return (f"{name}@{market}" if market else name), version
    if not isinstance(item, Mapping):
        return 'must be a plugin name or an object {"name": …, "version": …}'
    name, market, version = item.get("name"), item.get("marketplace"), item.get("version")
    if not isinstance(name, str) or re.fullmatch(DEPENDENCY_NAME, name) is None:
        return "name: missing, or not a plugin name"
    if market is not None and (
        not isinstance(market, str) or re.fullmatch(DEPENDENCY_NAME, market) is None
    ):
        return "marketplace: not a marketplace name"
    if version is not None and not isinstance(version, str):
        return "version: must be a string, a version range"
    return (f"{name}@{market}" if market else name), version
