"""Files -> model objects and Problems: frontmatter, manifests, and the rules of SPEC §3.

Loading is lenient (a skill or agent with an error is returned as None, with its
problems) and every rule is checked the same way for `status`, `install` and
`validate`; only what is done with the problems differs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Set
from pathlib import Path
from types import MappingProxyType
from typing import Any

from skilltool.model import (
    EMPTY,
    Agent,
    Marketplace,
    MarketplaceEntry,
    Problem,
    Severity,
    Skill,
    quoted,
)
from skilltool.paths import HARNESS_NAMES
from skilltool.record import NamedTuple

# patterns are strings that `re` compiles on first use: a run that never needs one pays
# nothing for it (compiling them all took a few ms of every start)
SAFE_NAME = r"[a-z0-9]+(?:-[a-z0-9]+)*"
NAME_RULE = "use 1-64 characters of a-z, 0-9 and single hyphens, not starting or ending with '-'"
# what may reach a file path as one component: no separator, no leading '.' or '-'
# (hidden, '..', an option), no space or shell character; capitals, '.' and '_' are fine
SAFE_COMPONENT = r"[A-Za-z0-9_][A-Za-z0-9._-]*"
COMPONENT_RULE = (
    "use 1-64 characters of letters, digits, '.', '_' and '-', starting with a letter, "
    "a digit or '_'"
)
MANIFEST_PLACES = (".claude-plugin/plugin.json", ".plugin/plugin.json", "plugin.json")
SKILL_FILE = "SKILL.md"

# a SKILL.md is read only this far: its frontmatter must close within it
SKILL_READ_LIMIT = 256 * 1024
AGENT_SIZE_LIMIT = 4 * 1024 * 1024
MANIFEST_SIZE_LIMIT = 1024 * 1024

# the Agent Skills fields, then Claude Code's own skill fields (code.claude.com/docs, skills)
SKILL_FIELDS = frozenset(
    {
        "name",
        "description",
        "license",
        "compatibility",
        "metadata",
        "allowed-tools",
        "when_to_use",
        "argument-hint",
        "arguments",
        "disable-model-invocation",
        "user-invocable",
        "model",
        "effort",
        "context",
        "agent",
        "hooks",
        "paths",
        "shell",
        "version",
    }
)
SKILL_DESCRIPTION_LIMIT = 1024  # the Agent Skills rule: Copilot CLI skips a longer one
AGENT_DESCRIPTION_LIMIT = 64 * 1024  # no harness limits it; a sanity bound only
# the Claude Code subagent keys, plus skilltool's own 'harnesses'
AGENT_FIELDS = frozenset(
    {
        "name",
        "description",
        "tools",
        "disallowedTools",
        "skills",
        "model",
        "harnesses",
        "color",
        "permissionMode",
        "mcpServers",
        "hooks",
        "memory",
        "maxTurns",
        "background",
        "effort",
        "isolation",
        "initialPrompt",
    }
)
HARNESS_OVERRIDE_FIELDS = frozenset({"model", "profile"})


# what cannot stand in one line of output or of a marker: C0/C1 controls, line and
# paragraph separators, and the lone surrogates that stand for bytes not valid in UTF-8
UNPRINTABLE = r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]"


def is_safe_name(name: object) -> bool:
    """A name by the Agent Skills rules: lower-case letters, digits, single hyphens."""
    return (
        isinstance(name, str) and 0 < len(name) <= 64 and re.fullmatch(SAFE_NAME, name) is not None
    )


def is_safe_component(name: object) -> bool:
    """A name that can stand as one component of a file path (SPEC §3), whatever else it is."""
    return (
        isinstance(name, str)
        and 0 < len(name) <= 64
        and re.fullmatch(SAFE_COMPONENT, name) is not None
    )


class Problems:
    """Collects the problems of one file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.items: list[Problem] = []

    def add(
        self,
        message: str,
        field: str | None = None,
        line: int | None = None,
        severity: Severity = "error",
    ) -> None:
        self.items.append(Problem(self.path, message, field, line, severity))

    @property
    def failed(self) -> bool:
        return any(p.severity == "error" for p in self.items)


class Frontmatter(NamedTuple):
    data: dict[str, Any]
    lines: dict[str, int]  # key -> line number in the file
    body: str
    start: int  # line number of the opening '---'
    repaired: bool = False  # not valid YAML: read as Claude Code repairs it


def kind_of(value: object) -> str:
    """A YAML value's type as a person would name it."""
    names = {
        bool: "true/false",
        int: "number",
        float: "number",
        str: "string",
        list: "list",
        dict: "mapping",
    }
    return "a " + names.get(type(value), type(value).__name__)


def _decode(raw: bytes, out: Problems, truncated: bool = False) -> str | None:
    if b"\x00" in raw:
        out.add("binary content (a NUL byte); save it as UTF-8 text")
        return None
    try:
        if truncated:  # the read limit may cut a character in two: leave its start out
            import codecs

            text = codecs.getincrementaldecoder("utf-8")().decode(raw, final=False)
        else:
            text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        out.add(f"not valid UTF-8 (byte {err.start}); save the file as UTF-8", line=line)
        return None
    return text.removeprefix("\ufeff")


def _is_fence(line: str) -> bool:
    """A '---' line (its '\n' already taken off), allowing CR and trailing blanks."""
    return line.rstrip("\r \t") == "---"


def split_frontmatter(raw: bytes, out: Problems, truncated: bool = False) -> Frontmatter | None:
    """The YAML mapping between the '---' lines, and every character after the closing one."""
    text = _decode(raw, out, truncated)
    if text is None:
        return None
    # walk the frontmatter line by line, and only it: the body may be large.
    # Only '\n' ends a line here (str.splitlines would also split on U+2028 and the like).
    start = 0
    end = text.find("\n")
    if not _is_fence(text[: len(text) if end < 0 else end]):
        if text.startswith("---\r"):  # '---' then a bare CR: lines end the classic Mac way
            out.add("its lines end in a bare CR; save it with LF or CRLF line ends", line=1)
        else:
            out.add("no frontmatter; start the file with a '---' line, YAML, then '---'", line=1)
        return None
    while end >= 0:
        start, end = end + 1, text.find("\n", end + 1)
        if _is_fence(text[start : len(text) if end < 0 else end]):
            yaml_text = text[text.find("\n") + 1 : start]
            body = "" if end < 0 else text[end + 1 :]
            break
    else:
        where = f" in the first {SKILL_READ_LIMIT // 1024} KiB" if truncated else ""
        out.add(f"frontmatter not closed{where}; end it with a '---' line", line=1)
        return None
    parsed = _load_mapping(yaml_text, out, first_line=2)
    if parsed is None:
        return None
    data, key_lines, repaired = parsed
    return Frontmatter(data, key_lines, body, 1, repaired)


# Claude Code's repair of frontmatter that is not valid YAML (read in 2.1.332): a top-level
# 'key: value' line whose unquoted value holds one of these is double-quoted, unless the
# value is a YAML list on its own ('tools: ["Read", "Grep"]' stays a list)
CLAUDE_REPAIR_LINE = r"([A-Za-z_-]+):\s+(.+)"
CLAUDE_SPECIAL = r"[{}\[\]*&#!|>%@`]|: "


def claude_repair(text: str) -> tuple[str, tuple[str, ...]]:
    """The frontmatter as Claude Code retries it when YAML fails, and the keys it quoted."""
    lines, quoted = [], []
    for line in text.split("\n"):
        indent = len(line) - len(line.lstrip("\t"))
        line = "  " * indent + line[indent:]  # leading tabs become spaces
        # JavaScript's '.' stops at a CR: a CRLF line is never matched, so never quoted
        match = re.fullmatch(CLAUDE_REPAIR_LINE, line) if "\r" not in line else None
        if match is not None:
            key, value = match.groups()
            wrapped = value[0] == value[-1] and value[0] in "\"'" and len(value) > 1
            if not wrapped and not _is_list(value) and re.search(CLAUDE_SPECIAL, value):
                escaped = value.replace("\\", "\\\\").replace('"', '\\"')
                line = f'{key}: "{escaped}"'
                quoted.append(key)
        lines.append(line)
    return "\n".join(lines), tuple(quoted)


def _is_list(value: str) -> bool:
    """A value that reads as a YAML list by itself, which Claude Code's repair leaves as is."""
    if not (value.startswith("[") and value.endswith("]")):
        return False
    parsed = _parse_yaml(value)
    return not isinstance(parsed, YamlError) and isinstance(parsed[0], list)


def _loader() -> Any:
    """The safe loader, reading timestamps as the strings written (as YAML 1.2 parsers do):
    a date then renders back as written, and the parse cache can store it."""
    if not _LOADER:
        import yaml

        base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        loader: Any = type("FrontmatterLoader", (base,), {})
        loader.yaml_implicit_resolvers = {
            first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
            for first, resolvers in base.yaml_implicit_resolvers.items()
        }
        _LOADER.append(loader)
    return _LOADER[0]


_LOADER: list[Any] = []


class YamlError(NamedTuple):
    message: str
    line: int | None  # 0-based, within the YAML text


def _parse_yaml(text: str) -> tuple[Any, Any] | YamlError:
    """(data, root node) of one YAML document, or what went wrong."""
    import yaml

    loader = _loader()(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        if err.problem == "could not find expected ':'" and err.context_mark:
            mark = err.context_mark  # found at the next line: the line without a key is the one
        return YamlError(err.problem or err.context or "syntax error", mark.line if mark else None)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as err:
        return YamlError(str(err), 0)
    finally:
        loader.dispose()
    return data, node


def _load_mapping(
    text: str, out: Problems, first_line: int
) -> tuple[dict[str, Any], dict[str, int], bool] | None:
    """The frontmatter mapping, its key lines, and whether it was read as Claude Code repairs it."""
    parsed = _parse_yaml(text)
    was_repaired = False
    if isinstance(parsed, YamlError):
        failed = parsed
        retry, repaired = claude_repair(text)
        parsed = _parse_yaml(retry) if retry != text else failed
        line = first_line + failed.line if failed.line is not None else None
        if isinstance(parsed, YamlError) or not isinstance(parsed[0], dict):
            out.add(f"invalid YAML: {failed.message}; fix the frontmatter syntax", line=line)
            return None
        how = "its leading tabs as spaces: indent with spaces"
        if repaired:
            keys = [f"'{k}'" for k in dict.fromkeys(repaired)]
            if len(keys) == 1:
                how = f"the value of {keys[0]} in double quotes: quote it yourself"
            else:
                listed = f"{', '.join(keys[:-1])} and {keys[-1]}"
                how = f"the values of {listed} in double quotes: quote them yourself"
        out.add(
            f"frontmatter is not valid YAML ({failed.message}); Claude Code reads it with {how}",
            line=line,
            severity="warning",
        )
        was_repaired = True
    data, node = parsed
    if data is None:
        data = {}
    if not isinstance(data, dict):
        what = kind_of(data)
        out.add(f"frontmatter is {what}, not a mapping; write 'key: value' lines", line=first_line)
        return None
    lines: dict[str, int] = {}
    _key_lines(node, "", first_line, lines, depth=3)
    if not all(isinstance(k, str) for k in data):
        out.add("frontmatter keys must be strings; quote every key", line=first_line)
        return None
    return data, lines, was_repaired


def _key_lines(node: object, prefix: str, first: int, lines: dict[str, int], depth: int) -> None:
    """The line of every key, nested ones as 'outer.inner', a few levels deep."""
    import yaml

    if depth == 0 or not isinstance(node, yaml.MappingNode):
        return
    for key_node, value_node in node.value:
        if isinstance(key_node, yaml.ScalarNode):
            name = f"{prefix}{key_node.value}"
            lines.setdefault(name, first + key_node.start_mark.line)
            _key_lines(value_node, f"{name}.", first, lines, depth - 1)


def _read(path: Path, out: Problems, limit: int) -> tuple[bytes, bool] | None:
    """At most `limit` bytes of a regular file, and whether there was more.

    Opened without blocking and checked to be a regular file first: a FIFO or a device
    named SKILL.md must not hang a run or feed it without end.
    """
    import errno
    import stat

    from skilltool import probe

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        probe.now.stat(path)  # remembered missing: the catalogue cache sees it appear
        if probe.now.islink(path):
            out.add("a broken link; point it at a file inside the plugin, or remove it")
        else:
            out.add(f"missing; add a {path.name} with 'name' and 'description' frontmatter")
        return None
    except OSError as err:
        probe.now.stat(path)
        if err.errno == errno.ELOOP:
            out.add("a link that loops back on itself; point it at a file, or remove it")
        else:
            out.add(f"cannot be read ({err.strerror}); check its permissions")
        return None
    try:
        mode = probe.now.opened(path, fd).st_mode
        if stat.S_ISDIR(mode):
            out.add("is a directory, not a file; replace it with a text file")
            return None
        if not stat.S_ISREG(mode):
            out.add("is not a regular file (a FIFO, socket or device); replace it with a text file")
            return None
        chunks, size = [], 0
        while size <= limit and (chunk := os.read(fd, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
    except OSError as err:
        out.add(f"cannot be read ({err.strerror}); check the file and its disk")
        return None
    finally:
        os.close(fd)
    raw = b"".join(chunks)
    return raw[:limit], len(raw) > limit


def _text(fm: Frontmatter, out: Problems, key: str, *, required: bool, limit: int) -> str | None:
    value = fm.data.get(key)
    line = fm.lines.get(key, fm.start)
    if value is None:
        if required:
            out.add(f"missing; add '{key}:' to the frontmatter", field=key, line=line)
        return None
    if not isinstance(value, str):
        out.add(f"must be a string, not {kind_of(value)}; quote the value", field=key, line=line)
        return None
    if required and not value.strip():
        out.add("is empty; write what it is and when to use it", field=key, line=line)
        return None
    if len(value) > limit:
        out.add(f"{len(value)} characters, over the limit of {limit}; shorten it", key, line)
        return None
    return value


def _unknown_keys(fm: Frontmatter, out: Problems, known: frozenset[str], kind: str) -> None:
    for key in fm.data:
        if key not in known:
            out.add(
                f"not {'an' if kind[0] in 'aeiou' else 'a'} {kind} field; remove it "
                f"(known: {', '.join(sorted(known))})",
                field=key,
                line=fm.lines.get(key),
                severity="warning",
            )


def read_skill(directory: Path) -> tuple[Skill | None, list[Problem]]:
    """A skill directory -> the Skill (None if it cannot be used) and its problems.

    A skill is linked under its directory's name; a `name` that breaks the Agent Skills
    rules is a warning (the harnesses still load it), a directory name that cannot stand
    in a path is an error.
    """
    path = directory / SKILL_FILE
    out = Problems(path)
    got = _read(path, out, SKILL_READ_LIMIT)
    if got is None:
        return None, out.items
    raw, truncated = got
    fm = split_frontmatter(raw, out, truncated)
    if fm is None:
        return None, out.items
    if not is_safe_component(directory.name):
        out.add(f"its directory name {quoted(directory.name)} cannot be linked; {COMPONENT_RULE}")
    else:
        _skill_name(fm, out, directory.name)
    description = _text(fm, out, "description", required=True, limit=1 << 20)
    if description is not None and len(description) > SKILL_DESCRIPTION_LIMIT:
        out.add(
            f"{len(description)} characters, over the Agent Skills limit of "
            f"{SKILL_DESCRIPTION_LIMIT}; shorten it",
            "description",
            fm.lines.get("description"),
            "warning",
        )
    _text(fm, out, "license", required=False, limit=1 << 20)
    _text(fm, out, "compatibility", required=False, limit=500)
    _allowed_tools(fm, out)
    if isinstance(fm.data.get("argument-hint"), list):
        out.add(
            "a list; Copilot CLI refuses the skill: write it as one string, "
            "e.g. 'argument-hint: \"[file] [format]\"'",
            "argument-hint",
            fm.lines.get("argument-hint"),
            "warning",
        )
    metadata = fm.data.get("metadata")
    if metadata is not None and not (
        isinstance(metadata, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())
    ):
        out.add(
            "must map strings to strings; quote every key and value",
            field="metadata",
            line=fm.lines.get("metadata"),
            severity="warning",
        )
    _unknown_keys(fm, out, SKILL_FIELDS, "skill")
    if out.failed or description is None:
        return None, out.items
    return Skill(directory.name, directory, description, fm.data, fm.repaired), out.items


def _skill_name(fm: Frontmatter, out: Problems, folder: str) -> None:
    """The Agent Skills rules for `name`: broken ones are warnings, the skill keeps its folder."""
    name = fm.data.get("name")
    line = fm.lines.get("name", fm.start)
    if name is None:
        # Claude Code, Codex, pi and Copilot CLI name it by its folder; OpenCode and Gemini skip it
        out.add(
            f"missing; add 'name: {folder}' (the Agent Skills rules want one); "
            f"it goes by its folder, {folder!r}",
            "name",
            line,
            "warning",
        )
    elif not isinstance(name, str):
        out.add(f"must be a string, not {kind_of(name)}; quote the value", "name", line)
    elif not is_safe_name(name):
        out.add(
            f"{name!r} breaks the Agent Skills rules ({NAME_RULE}); "
            f"it goes by its folder, {folder!r}",
            "name",
            line,
            "warning",
        )
    elif name != folder:
        out.add(
            f"{name!r} differs from its directory {folder!r}, which it goes by; make them equal",
            "name",
            line,
            "warning",
        )


def _allowed_tools(fm: Frontmatter, out: Problems) -> None:
    value = fm.data.get("allowed-tools")
    if value is None or isinstance(value, str) or _string_list(value) is not None:
        return
    out.add(
        "must be a string or a list of strings, e.g. 'allowed-tools: Read, Grep'",
        "allowed-tools",
        fm.lines.get("allowed-tools"),
    )


def _string_list(value: object) -> tuple[str, ...] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value if v.strip())
    return None


def read_agent(path: Path) -> tuple[Agent | None, list[Problem]]:
    """An agents/<file>.md -> the Agent (None if it cannot be used) and its problems."""
    out = Problems(path)
    if re.search(UNPRINTABLE, str(path)):
        # the path is written into the marker line of every rendering (a comment in a
        # shell script, YAML, TOML): a line break there would end the comment
        out.add(
            "its path holds a line break, a control character or bytes that are not UTF-8, "
            "and it would be written into every rendering; rename the file or its directory"
        )
        return None, out.items
    got = _read(path, out, AGENT_SIZE_LIMIT)
    if got is None:
        return None, out.items
    raw, too_big = got
    if too_big:
        out.add(f"over {AGENT_SIZE_LIMIT // (1024 * 1024)} MiB; an agent's prompt must be smaller")
        return None, out.items
    fm = split_frontmatter(raw, out)
    if fm is None:
        return None, out.items
    name = fm.data.get("name", path.stem)
    if not is_safe_component(name):
        source = "name" if "name" in fm.data else "file name"
        out.add(
            f"{quoted(name)} cannot be a file name ({source}); {COMPONENT_RULE}",
            "name",
            fm.lines.get("name", fm.start),
        )
    description = _text(fm, out, "description", required=True, limit=AGENT_DESCRIPTION_LIMIT)
    if description is not None:
        # Claude Code turns each literal \n of an agent's description into a line break
        description = description.replace("\\n", "\n")
    tools, skills = _agent_tools(fm, out), _agent_skills(fm, out)
    model = _text(fm, out, "model", required=False, limit=200)
    overrides = _overrides(fm, out)
    _unknown_keys(fm, out, AGENT_FIELDS, "agent")
    if out.failed or description is None or not isinstance(name, str):
        return None, out.items
    agent = Agent(
        name, path, description, fm.body, tools, skills, model, overrides, fm.lines, fm.data,
        fm.repaired,
    )  # fmt: skip
    return agent, out.items


def _agent_tools(fm: Frontmatter, out: Problems) -> tuple[str, ...]:
    value = fm.data.get("tools")
    if value is None:
        return ()
    if isinstance(value, str):
        return split_tools(value)
    listed = _string_list(value)
    if listed is None:
        rule = "must be a comma-separated string or a list of strings"
        out.add(rule, "tools", fm.lines.get("tools"))
    return listed or ()


def _agent_skills(fm: Frontmatter, out: Problems) -> tuple[str, ...]:
    if "skills" not in fm.data:
        return ()
    listed = _string_list(fm.data["skills"])
    if listed is None:
        rule = "must be a YAML list, e.g. 'skills: [pdf-tools]'"
        out.add(rule, "skills", fm.lines.get("skills"))
    return listed or ()


def split_tools(text: str) -> tuple[str, ...]:
    """A tools string as Claude Code splits it: at commas and blanks outside parentheses,
    so `Bash(git log:*)` and `Agent(a, b)` stay one entry each."""
    found, depth, start = [], 0, 0
    for index, char in enumerate(text + ","):
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        elif depth == 0 and (char == "," or char.isspace()):
            if text[start:index].strip():
                found.append(text[start:index].strip())
            start = index + 1
    return tuple(found)


def _overrides(fm: Frontmatter, out: Problems) -> dict[str, dict[str, str]]:
    value = fm.data.get("harnesses")
    line = fm.lines.get("harnesses")
    if value is None:
        return {}
    if not isinstance(value, dict):
        out.add(
            "must be a mapping of harness name to settings, e.g. 'codex: {model: gpt-5}'",
            "harnesses",
            line,
        )
        return {}
    result: dict[str, dict[str, str]] = {}
    for harness, settings in value.items():
        field = f"harnesses.{harness}"
        line = fm.lines.get(field, fm.lines.get("harnesses"))
        if harness not in HARNESS_NAMES:
            out.add(
                f"unknown harness; use one of {', '.join(HARNESS_NAMES)}", field, line, "warning"
            )
            continue
        if not isinstance(settings, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in settings.items()
        ):
            out.add("must map setting names to strings, e.g. 'model: gpt-5'", field, line)
            continue
        for key in settings:
            if key not in HARNESS_OVERRIDE_FIELDS:
                out.add(
                    f"unknown setting; known: {', '.join(sorted(HARNESS_OVERRIDE_FIELDS))}",
                    f"{field}.{key}",
                    fm.lines.get(f"{field}.{key}", line),
                    "warning",
                )
        profile = settings.get("profile")
        if profile is not None and not is_safe_name(profile):
            out.add(
                f"{profile!r} is not a valid profile name; {NAME_RULE}",
                f"{field}.profile",
                fm.lines.get(f"{field}.profile", line),
            )
            continue
        result[harness] = {k: v for k, v in settings.items() if k in HARNESS_OVERRIDE_FIELDS}
    return result


def find_manifest(root: Path) -> tuple[Path | None, list[Path]]:
    """The manifest used for a plugin, and any others beside it that are ignored."""
    from skilltool import probe

    found = [root / p for p in MANIFEST_PLACES if probe.now.isfile(os.path.join(root, p))]
    return (found[0] if found else None), found[1:]


def _json_line(text: str, key: str) -> int | None:
    """The line of a top-level key of a JSON object (not a nested key of the same name)."""
    import json

    depth, index, end = 0, 0, len(text)
    while index < end:
        char = text[index]
        if char == '"':
            value, after = json.decoder.scanstring(text, index + 1)  # type: ignore[attr-defined]
            rest = text[after:].lstrip()
            if depth == 1 and value == key and rest.startswith(":"):
                return text.count("\n", 0, index) + 1
            index = after
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        index += 1
    return None


def _read_json(path: Path, out: Problems, what: str) -> tuple[Any, str] | None:
    """A JSON file's value and its text, or None with the problem said."""
    got = _read(path, out, MANIFEST_SIZE_LIMIT)
    if got is None:
        return None
    if got[1]:
        out.add(f"over {MANIFEST_SIZE_LIMIT // (1024 * 1024)} MiB; {what} must be smaller")
        return None
    text = _decode(got[0], out)
    if text is None:
        return None
    import json

    try:
        return json.loads(text), text
    except json.JSONDecodeError as err:
        out.add(f"invalid JSON: {err.msg}; fix the syntax", line=err.lineno)
    except RecursionError:
        out.add("invalid JSON: nested too deeply; flatten it", line=1)
    return None


# the component paths of plugin.json (and of a marketplace entry), as Claude Code reads them
COMPONENT_FIELDS = ("skills", "agents", "commands")


def component_paths(value: object) -> list[str] | None:
    """A component field's paths: one string or a list of strings; None if it is neither."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def component_path_problem(field: str, path: str) -> str | None:
    """Why Claude Code refuses one component path (it then loads none of the plugin), or None."""
    if ".." in path.split("/") or path.startswith("/"):
        return f"{path!r} leaves the plugin; put what it names inside the plugin"
    if not path.startswith("./"):
        return f'{path!r} must start with "./" (relative to the plugin root); write "./{path}"'
    if field == "agents" and not path.endswith(".md"):
        return f'{path!r} is not an agent file; list each agent file, e.g. "./agents/helper.md"'
    return None


def _component_problems(
    data: Mapping[str, Any], text: str, out: Problems, where: str = "", at: int | None = None
) -> None:
    for key in COMPONENT_FIELDS:
        if key not in data:
            continue
        line = _json_line(text, key) if text else at
        paths = component_paths(data[key])
        if paths is None:
            out.add(f'must be a path or a list of paths, e.g. "./{key}/"', where + key, line)
            continue
        for index, item in enumerate(paths):
            why = component_path_problem(key, item)
            field = f"{where}{key}[{index}]" if isinstance(data[key], list) else where + key
            if why is not None:
                out.add(why, field, line)


def read_manifest(path: Path) -> tuple[dict[str, Any] | None, list[Problem]]:
    """A plugin.json -> its fields (None if it cannot be used) and its problems.

    A bad component path is a problem of its own: the path is not read, the rest is.
    """
    out = Problems(path)
    got = _read_json(path, out, "a manifest")
    if got is None:
        return None, out.items
    data, text = got
    if not isinstance(data, dict):
        out.add('must be a JSON object, e.g. {"name": "my-plugin"}', line=1)
        return None, out.items
    name = data.get("name")
    if name is None:
        out.add('missing; add "name": "<plugin-name>"', field="name", line=1)
    elif not is_safe_name(name):
        out.add(
            f"{name!r} is not a valid plugin name; {NAME_RULE}", "name", _json_line(text, "name")
        )
    for key in ("version", "description", "homepage", "repository", "license"):
        if key in data and not isinstance(data[key], str):
            out.add("must be a string", key, _json_line(text, key))
    if "keywords" in data and _string_list(data["keywords"]) is None:
        out.add("must be a list of strings", "keywords", _json_line(text, "keywords"))
    author = data.get("author")
    if author is not None and not (
        isinstance(author, str)
        or (isinstance(author, Mapping) and isinstance(author.get("name"), str))
    ):
        out.add('must be an object with a "name" string', "author", _json_line(text, "author"))
    failed = out.failed
    _component_problems(data, text, out)
    _manifest_keys(data, text, out)
    if failed:
        return None, out.items
    return data, out.items


# every key of plugin.json that Claude Code 2.1.332 knows (`claude plugin validate` names any
# other "Unknown field ... Claude Code ignores it at load time"), and those of a marketplace
# entry that it ignores in plugin.json
MANIFEST_FIELDS = frozenset({
    "$schema", "name", "version", "description", "author", "homepage", "repository", "license",
    "keywords", "icon", "displayName", "commands", "agents", "skills", "hooks", "mcpServers",
    "lspServers", "outputStyles", "themes", "workflows", "monitors", "channels", "settings",
    "userConfig", "defaultEnabled", "experimental", "dependencies", "optionalDependencies",
    "metadata", "engines", "network",
})  # fmt: skip
ENTRY_FIELDS = frozenset({"source", "strict", "category", "tags"})


def _manifest_keys(data: Mapping[str, Any], text: str, out: Problems) -> None:
    """A warning for each key of plugin.json that Claude Code ignores, as its validator
    says it."""
    for key in data:
        if key in MANIFEST_FIELDS:
            continue
        if key in ENTRY_FIELDS:
            why = "belongs in the plugin's marketplace entry (marketplace.json); Claude Code "
            why += "ignores it in plugin.json: move it there or remove it"
        else:
            why = "not a plugin.json field; Claude Code ignores it: remove it or fix its name"
        out.add(why, key, _json_line(text, key), severity="warning")


MARKETPLACE_FILE = ".claude-plugin/marketplace.json"


# remote plugin sources Claude Code knows (2.1.332 adds `archive`, a zip over HTTPS, and
# `command`, a shell command that makes the plugin): kept in the catalogue, listed as not
# fetched; `plugins add` fetches the git ones, `npm` (npm.py) and `archive` (archive.py)
# ones, and refuses the others with a line
REMOTE_SOURCES = ("github", "url", "git-subdir", "npm", "archive", "command", "git", "pip")


def _item_lines(text: str, key: str) -> list[int]:
    """The line where each element of the top-level array `key` starts."""
    import json

    depth, index, end, found, inside = 0, 0, len(text), [], False
    expect = False  # the next value at depth 2 starts an element
    while index < end:
        char = text[index]
        if char == '"':
            value, after = json.decoder.scanstring(text, index + 1)  # type: ignore[attr-defined]
            if inside and depth == 2 and expect:
                found.append(text.count("\n", 0, index) + 1)
                expect = False
            if depth == 1 and value == key and text[after:].lstrip().startswith(":"):
                inside = True
            index = after
            continue
        if char in "{[":
            if inside and depth == 2 and expect:
                found.append(text.count("\n", 0, index) + 1)
                expect = False
            depth += 1
            if inside and depth == 2 and char == "[":
                expect = True
        elif char in "}]":
            depth -= 1
            if inside and depth == 1:
                return found
        elif char == "," and inside and depth == 2:
            expect = True
        elif inside and depth == 2 and expect and not char.isspace():
            found.append(text.count("\n", 0, index) + 1)
            expect = False
        index += 1
    return found


def _marketplace_entry(
    item: object, field: str, line: int | None, plugin_root: str | None, out: Problems
) -> MarketplaceEntry | None:
    """One element of "plugins": a usable entry, or None with the problem said."""
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        out.add('must be an object with a "name" string', field, line)
        return None
    name = item["name"]
    if not is_safe_name(name):
        out.add(f"{name!r} is not a valid plugin name; {NAME_RULE}", f"{field}.name", line)
        return None
    source = item.get("source")
    if isinstance(source, str):
        if not source.startswith("./") and plugin_root is None:
            out.add(
                f'{source!r} must start with "./" (relative to the marketplace root), '
                'or set "metadata.pluginRoot" for bare names',
                f"{field}.source",
                line,
            )
            return None
    elif isinstance(source, dict):
        kind = source.get("source")
        if kind not in REMOTE_SOURCES:
            out.add(
                f"unknown source kind {kind!r}; use one of {', '.join(REMOTE_SOURCES)}",
                f"{field}.source.source",
                line,
            )
            return None
    else:
        out.add(
            'must be a relative path ("./plugins/x") or a source object',
            f"{field}.source",
            line,
        )
        return None
    strict = item.get("strict", True)
    if not isinstance(strict, bool):
        out.add("must be true or false", f"{field}.strict", line)
        return None
    _component_problems(item, "", out, f"{field}.", line)
    return MarketplaceEntry(name, source, strict, item, line)


def read_marketplace(path: Path) -> tuple[Marketplace | None, list[Problem]]:
    """A .claude-plugin/marketplace.json -> the Marketplace (None if unusable) and its problems.

    An entry with a problem is left out; the others are used.
    """
    out = Problems(path)
    got = _read_json(path, out, "a marketplace")
    if got is None:
        return None, out.items
    data, text = got
    if not isinstance(data, dict) or not isinstance(data.get("plugins"), list):
        out.add('must be a JSON object with a "plugins" list', line=1)
        return None, out.items
    root = path.parent.parent
    name = data.get("name")
    if not isinstance(name, str) or not name:
        out.add('missing; add "name": "<marketplace-name>"', field="name", line=1)
        name = root.name
    metadata = data.get("metadata")
    plugin_root = metadata.get("pluginRoot") if isinstance(metadata, dict) else None
    if plugin_root is not None and (
        not isinstance(plugin_root, str) or ".." in plugin_root.split("/")
    ):
        out.add(
            'must be a path inside the marketplace, e.g. "./plugins"',
            "metadata.pluginRoot",
            _json_line(text, "metadata"),
        )
        plugin_root = None
    allows = data.get("allowCrossMarketplaceDependenciesOn", [])
    if not isinstance(allows, list) or not all(isinstance(a, str) for a in allows):
        out.add(
            'must be a list of marketplace names, e.g. ["other-marketplace"]',
            "allowCrossMarketplaceDependenciesOn",
            _json_line(text, "allowCrossMarketplaceDependenciesOn"),
        )
        allows = []
    lines = _item_lines(text, "plugins")
    entries = []
    for index, item in enumerate(data["plugins"]):
        line = lines[index] if index < len(lines) else _json_line(text, "plugins")
        entry = _marketplace_entry(item, f"plugins[{index}]", line, plugin_root, out)
        if entry is not None:
            entries.append(entry)
    renames = _renames(data.get("renames"), data["plugins"], text, out)
    market = Marketplace(name, root, path, plugin_root, tuple(entries), tuple(allows), renames)
    return market, out.items


RENAME_DEPTH = 16  # the longest chain of renames Claude Code 2.1.332 follows


def follow_rename(name: str, renames: Mapping[str, object], listed: Set[str]) -> str | None:
    """Where a chain of `renames` from `name` ends, as Claude Code follows it: a name the
    marketplace lists, or None (a null: the plugin was removed). ValueError with the reason
    ("a cycle", ...) when it ends nowhere."""
    seen: set[str] = set()
    at = name
    for _ in range(RENAME_DEPTH):
        if at in seen:
            raise ValueError("it goes round in a cycle")
        seen.add(at)
        if at not in renames:
            if at in listed:
                return at
            raise ValueError(f"{at!r} is not a plugin the marketplace lists")
        step = renames[at]
        if step is None:
            return None
        if not isinstance(step, str):
            raise ValueError(f"{step!r} is not a plugin name")
        at = step
    raise ValueError(f"it is longer than the {RENAME_DEPTH} steps Claude Code follows")


def renames_of(
    value: object, plugins: object
) -> tuple[dict[str, str | None], list[tuple[str, str]]]:
    """A marketplace's `renames` and its `plugins` list as written -> each name it no longer
    lists, mapped to the name it lists the plugin under now (None: removed), and for each key
    that leads nowhere the reason. A name still listed is that plugin, whatever `renames` says
    of it (as Claude Code's loader reads it)."""
    if not isinstance(value, dict):
        return {}, []
    items = plugins if isinstance(plugins, list) else []
    listed = {i["name"] for i in items if isinstance(i, dict) and isinstance(i.get("name"), str)}
    found: dict[str, str | None] = {}
    wrong: list[tuple[str, str]] = []
    for old in value:
        try:
            new = follow_rename(old, value, listed)
        except ValueError as err:
            wrong.append((old, str(err)))
            continue
        if old not in listed and (new is None or is_safe_name(new)):
            found[old] = new
    return found, wrong


def _renames(
    value: object, plugins: list[Any], text: str, out: Problems
) -> Mapping[str, str | None]:
    """`renames`, read: a problem for each key whose chain leads to no plugin (Claude Code's
    validator refuses it), the others followed to their end."""
    if value is None:
        return EMPTY
    line = _json_line(text, "renames")
    if not isinstance(value, dict):
        out.add("must be an object of old plugin name -> new name (or null)", "renames", line)
        return EMPTY
    for old, new in value.items():
        if new is not None and not isinstance(new, str):
            out.add(f"must be a plugin name or null, not {kind_of(new)}", f"renames.{old}", line)
    found, wrong = renames_of(value, plugins)
    for old, why in wrong:
        if not isinstance(value.get(old), (str, type(None))):
            continue  # said above
        out.add(
            f'leads to no plugin: {why}; name a plugin of "plugins", another key of '
            '"renames", or null for one removed',
            f"renames.{old}",
            line,
        )
    return MappingProxyType(found)
