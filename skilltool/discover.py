"""Search path -> plugins, in order, with shadowing (SPEC §2).

An entry is a plugin itself (it has a manifest, `skills/` or `agents/`) or a
directory of plugins. The first plugin of a name wins; later ones are kept,
marked as shadowed, so that `status` can show them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from skilltool import parse
from skilltool.model import Agent, Catalogue, Origin, Plugin, Problem, SearchEntry, Skill


class Reader(Protocol):
    """Reads one skill or agent file: parse's functions, or a cache in front of them."""

    def read_skill(self, directory: Path) -> tuple[Skill | None, list[Problem]]: ...

    def read_agent(self, path: Path) -> tuple[Agent | None, list[Problem]]: ...

    def read_manifest(self, path: Path) -> tuple[dict[str, Any] | None, list[Problem]]: ...


def looks_like_plugin(path: Path) -> bool:
    return (
        (path / "skills").is_dir()
        or (path / "agents").is_dir()
        or any((path / place).is_file() for place in parse.MANIFEST_PLACES)
    )


def _entries(directory: Path) -> list[os.DirEntry[str]]:
    with os.scandir(directory) as it:
        return sorted((e for e in it if not e.name.startswith(".")), key=lambda e: e.name)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _inside(path: Path, root: Path) -> bool:
    real, real_root = os.path.realpath(path), os.path.realpath(root)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def read_plugin(root: Path, origin: Origin, reader: Reader = parse) -> Plugin:
    """One plugin directory -> a Plugin with every usable skill and agent, and its problems."""
    problems: list[Problem] = []
    manifest, ignored = parse.find_manifest(root)
    name = root.name
    for extra in ignored:
        problems.append(
            Problem(extra, f"ignored: {manifest} is used; remove one", severity="warning")
        )
    if manifest is not None:
        data, found = reader.read_manifest(manifest)
        problems += found
        if data is not None:
            name = data["name"]
    if manifest is None and not parse.is_safe_name(name):
        problems.append(
            Problem(
                root,
                f"directory name {name!r} is not a valid plugin name; "
                f'rename it or add a manifest with a valid "name" ({parse.NAME_RULE})',
            )
        )
    skills = _read_skills(root, problems, reader)
    agents = _read_agents(root, problems, reader)
    return Plugin(name, root, origin, manifest, tuple(skills), tuple(agents), tuple(problems))


def _read_skills(root: Path, problems: list[Problem], reader: Reader) -> list[Skill]:
    skills_dir = root / "skills"
    if not skills_dir.is_dir():
        return []
    try:
        entries = _entries(skills_dir)
    except OSError as err:
        problems.append(
            Problem(skills_dir, f"cannot be listed ({err.strerror}); check its permissions")
        )
        return []
    skills = []
    for entry in entries:
        directory = skills_dir / entry.name
        if not _is_dir(entry):
            kind = "a broken or looping link" if entry.is_symlink() else "not a directory"
            problems.append(
                Problem(
                    directory,
                    f"{kind}; a skill is a directory with a SKILL.md",
                    severity="warning" if kind == "not a directory" else "error",
                )
            )
            continue
        if entry.is_symlink() and not _inside(directory, root):
            problems.append(
                Problem(
                    directory,
                    "a link that leads outside the plugin; put the skill inside the plugin",
                )
            )
            continue
        skill, found = reader.read_skill(directory)
        problems += found
        if skill is not None:
            skills.append(skill)
    return skills


def _read_agents(root: Path, problems: list[Problem], reader: Reader) -> list[Agent]:
    agents_dir = root / "agents"
    if not agents_dir.is_dir():
        return []
    try:
        entries = _entries(agents_dir)
    except OSError as err:
        problems.append(
            Problem(agents_dir, f"cannot be listed ({err.strerror}); check its permissions")
        )
        return []
    agents: list[Agent] = []
    seen: dict[str, Path] = {}
    for entry in entries:
        if not entry.name.endswith(".md"):
            continue
        path = agents_dir / entry.name
        if entry.is_symlink() and not _inside(path, root):
            problems.append(
                Problem(
                    path,
                    "a link that leads outside the plugin; put the agent file inside the plugin",
                )
            )
            continue
        agent, found = reader.read_agent(path)
        problems += found
        if agent is None:
            continue
        if agent.name in seen:
            problems.append(
                Problem(
                    path,
                    f"agent name {agent.name!r} is also used by {seen[agent.name]}; rename one",
                    "name",
                )
            )
            continue
        seen[agent.name] = path
        agents.append(agent)
    return agents


def plugins_in(entry: SearchEntry, reader: Reader = parse) -> tuple[list[Plugin], list[Problem]]:
    """The plugins one search-path entry holds."""
    path = entry.path
    if not path.exists():
        # a missing default location is normal; a missing override is worth a line
        if entry.origin == "argument":
            return [], [Problem(path, "does not exist; give the path of a plugin")]
        if entry.origin == "override":
            return [], [Problem(path, "does not exist", severity="warning")]
        return [], []
    if not path.is_dir():
        return [], [Problem(path, "is a file, not a plugin directory or a directory of plugins")]
    if looks_like_plugin(path):
        return [read_plugin(path, entry.origin, reader)], []
    try:
        children = _entries(path)
    except OSError as err:
        return [], [
            Problem(
                path,
                f"cannot be listed ({err.strerror}); check its permissions",
                severity="warning",
            )
        ]
    plugins, problems = [], []
    for child in children:
        child_path = path / child.name
        if not _is_dir(child):
            problems.append(
                Problem(
                    child_path,
                    "is not a directory, so not a plugin; move it away",
                    severity="warning",
                )
            )
        elif not looks_like_plugin(child_path):
            problems.append(
                Problem(
                    child_path,
                    "not a plugin: it has no manifest, skills/ or agents/",
                    severity="warning",
                )
            )
        else:
            plugins.append(read_plugin(child_path, entry.origin, reader))
    return plugins, problems


def shadow(plugins: Iterable[Plugin]) -> list[Plugin]:
    """Mark every plugin whose name an earlier one already has."""
    winners: dict[str, Path] = {}
    result = []
    for plugin in plugins:
        if plugin.name in winners:
            plugin = plugin._replace(shadowed_by=winners[plugin.name])
        else:
            winners[plugin.name] = plugin.root
        result.append(plugin)
    return result


def discover(entries: Iterable[SearchEntry], reader: Reader = parse) -> Catalogue:
    entries = tuple(entries)
    plugins: list[Plugin] = []
    problems: list[Problem] = []
    for entry in entries:
        found, trouble = plugins_in(entry, reader)
        problems += trouble
        plugins += found
    return Catalogue(entries, tuple(shadow(plugins)), tuple(problems))
