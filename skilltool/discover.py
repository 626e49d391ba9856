"""Search path -> plugins, in order, with shadowing (SPEC §2).

An entry is a plugin itself (it has a manifest, `skills/` or `agents/`) or a
directory of plugins. The first plugin of a name wins; later ones are kept,
marked as shadowed, so that `status` can show them.
"""

from __future__ import annotations

import errno
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
    # os.path, not Path methods: those raise on a directory that cannot be searched
    return (
        os.path.isdir(path / "skills")
        or os.path.isdir(path / "agents")
        or any(os.path.isfile(path / place) for place in parse.MANIFEST_PLACES)
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


def _escapes(path: Path, root: Path) -> bool:
    """A link that leads outside the plugin: what it points at is not the plugin's to ship."""
    return os.path.islink(path) and not _inside(path, root)


def _outside(path: Path, what: str) -> Problem:
    return Problem(path, f"a link that leads outside the plugin; put the {what} inside the plugin")


def _broken(path: Path, want: str) -> Problem:
    return Problem(path, f"a broken or looping link; point it at {want}, or remove it")


def read_plugin(root: Path, origin: Origin, reader: Reader = parse) -> Plugin:
    """One plugin directory -> a Plugin with every usable skill and agent, and its problems."""
    problems: list[Problem] = []
    manifest, ignored = parse.find_manifest(root)
    name = root.name
    for extra in ignored:
        problems.append(
            Problem(extra, f"ignored: {manifest} is used; remove one", severity="warning")
        )
    if manifest is not None and (_escapes(manifest, root) or _escapes(manifest.parent, root)):
        problems.append(_outside(manifest, "manifest"))
        manifest = None
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
    if not os.path.isdir(skills_dir):
        if os.path.islink(skills_dir):
            problems.append(_broken(skills_dir, "a directory inside the plugin"))
        return []
    if _escapes(skills_dir, root):
        problems.append(_outside(skills_dir, "skills"))
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
            if entry.is_symlink():
                problems.append(_broken(directory, "a skill directory inside the plugin"))
            else:
                problems.append(
                    Problem(
                        directory,
                        "not a directory; a skill is a directory with a SKILL.md",
                        severity="warning",
                    )
                )
            continue
        if entry.is_symlink() and not _inside(directory, root):
            problems.append(_outside(directory, "skill"))
            continue
        if _escapes(directory / parse.SKILL_FILE, root):
            problems.append(_outside(directory / parse.SKILL_FILE, "SKILL.md"))
            continue
        skill, found = reader.read_skill(directory)
        problems += found
        if skill is not None:
            skills.append(skill)
    return skills


def _read_agents(root: Path, problems: list[Problem], reader: Reader) -> list[Agent]:
    agents_dir = root / "agents"
    if not os.path.isdir(agents_dir):
        if os.path.islink(agents_dir):
            problems.append(_broken(agents_dir, "a directory inside the plugin"))
        return []
    if _escapes(agents_dir, root):
        problems.append(_outside(agents_dir, "agents"))
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
            problems.append(_outside(path, "agent file"))
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
                    agent.lines.get("name"),
                )
            )
            continue
        seen[agent.name] = path
        agents.append(agent)
    return agents


def plugins_in(entry: SearchEntry, reader: Reader = parse) -> tuple[list[Plugin], list[Problem]]:
    """The plugins one search-path entry holds."""
    path = entry.path
    if not os.path.exists(path):
        # a missing default location is normal; a missing override is worth a line
        if entry.origin == "argument":
            return [], [Problem(path, "does not exist; give the path of a plugin")]
        if entry.origin == "override":
            return [], [Problem(path, "does not exist", severity="warning")]
        return [], []
    if not os.path.isdir(path):
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
        elif not os.access(child_path, os.R_OK | os.X_OK):
            problems.append(
                Problem(
                    child_path,
                    f"cannot be read ({os.strerror(errno.EACCES)}); check its permissions",
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
        if entry.only:  # an entry limited to some plugins: the others are not used
            found = [p for p in found if p.name in entry.only]
        problems += trouble
        plugins += found
    return Catalogue(entries, tuple(shadow(plugins)), tuple(problems))
