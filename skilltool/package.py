"""The distro build step (SPEC §7): validate plugins strictly, then stage a clean,
reproducible copy of each into `<destdir><prefix>/share/<namespace>/plugins/<name>/`.

Nothing is staged unless every plugin passes. What is staged is plugin content only
(manifest, skills with their files, agents, commands, MCP servers, licences and readmes,
and every folder or file the manifest names for them), with normalised
modes, links kept only when they stay inside the plugin, and times clamped to
SOURCE_DATE_EPOCH when it is set, so that two builds of the same input are identical.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import stat
from pathlib import Path

from skilltool import discover, parse
from skilltool.model import Plugin, Problem, quoted
from skilltool.record import NamedTuple

# the top level of a plugin: what belongs to it; anything else is left out
TOP_LEVEL = (
    "skills",
    "agents",
    "commands",
    ".mcp.json",
    ".claude-plugin",
    ".plugin",
    "plugin.json",
)
TOP_LEVEL_PATTERNS = ("LICENSE*", "LICENCE*", "COPYING*", "NOTICE*", "README*")
# version control, caches, editor and OS leftovers: never part of a plugin
DEBRIS = (
    ".git",
    ".hg",
    ".svn",
    ".bzr",
    "_darcs",
    "CVS",
    "__pycache__",
    "*.pyc",
    "*.pyo",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".venv",
    ".DS_Store",
    "._*",
    "Thumbs.db",
    "desktop.ini",
    "*~",
    ".*.swp",
    ".*.swo",
    ".#*",
    "#*#",
    "*.orig",
    "*.rej",
    ".idea",
    ".vscode",
    ".gitignore",
    ".gitattributes",
    ".gitmodules",
)


class Staged(NamedTuple):
    """One path put into the staging tree."""

    path: Path
    kind: str  # "file", "dir" or "link"
    mode: int
    source: Path


class Result(NamedTuple):
    plugins: list[tuple[Plugin, Path]]  # each plugin and where it was (or would be) staged
    staged: list[Staged]
    problems: list[Problem]

    @property
    def failed(self) -> bool:
        return any(p.severity == "error" for p in self.problems)


def is_debris(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in DEBRIS)


def _belongs(name: str) -> bool:
    return name in TOP_LEVEL or any(fnmatch.fnmatchcase(name, p) for p in TOP_LEVEL_PATTERNS)


def _components(plugin: Plugin) -> frozenset[str]:
    """The paths, relative to the root, of every component the manifest places elsewhere
    (`"skills": ["./extra/"]`, `"agents": ["./custom/a.md"]`): staged with the defaults."""
    paths = [*plugin.skill_places, *plugin.skill_paths, *plugin.commands]
    paths += [skill.path for skill in plugin.skills] + [agent.path for agent in plugin.agents]
    found = set()
    for path in paths:
        relative = os.path.relpath(path, plugin.root)
        if relative != "." and not relative.startswith(".." + os.sep):
            found.add(relative)
    return frozenset(found)


def _wanted(path: Path, root: Path, components: frozenset[str]) -> bool | None:
    """Whether a path outside the default folders is staged: True for a component or
    anything inside one, None for a folder on the way to one (walked, not taken whole)."""
    relative = os.path.relpath(path, root)
    for component in components:
        if _inside(relative, component):
            return True
    if any(_inside(component, relative) for component in components):
        return None
    return False


def _epoch() -> int | None:
    value = os.environ.get("SOURCE_DATE_EPOCH")
    return int(value) if value and value.isdigit() else None


def _inside(target: str, root: str) -> bool:
    return target == root or target.startswith(root.rstrip(os.sep) + os.sep)


def plan_copy(plugin: Plugin, dest: Path) -> tuple[list[Staged], list[Problem]]:
    """Every path of the plugin that is staged, in order, and every reason it cannot be."""
    root = plugin.root
    real_root = os.path.realpath(root)
    staged = [Staged(dest, "dir", 0o755, root)]
    problems: list[Problem] = []
    components = _components(plugin)

    # whole: inside a folder that is staged with everything in it
    def walk(source: Path, target: Path, top: bool, whole: bool) -> None:
        try:
            names = sorted(os.listdir(source))
        except OSError as err:
            problems.append(
                Problem(source, f"cannot be listed ({err.strerror}); fix its permissions")
            )
            return
        for name in names:
            path, out = source / name, target / name
            if is_debris(name):
                continue
            wanted = whole or (top and _belongs(name)) or _wanted(path, root, components)
            if wanted is False:
                continue
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                resolved = os.path.realpath(path)
                if not _inside(resolved, real_root) or not os.path.exists(resolved):
                    problems.append(
                        Problem(
                            path,
                            "a link that leads outside the plugin (or "
                            "nowhere); replace it with the file itself",
                        )
                    )
                    continue
                link = os.path.relpath(resolved, os.path.realpath(path.parent))
                staged.append(Staged(out, "link", 0o777, Path(link)))
            elif stat.S_ISDIR(info.st_mode):
                staged.append(Staged(out, "dir", 0o755, path))
                walk(path, out, top=False, whole=wanted is True)
            elif wanted is None:
                continue  # a file beside the folder a component lives in
            elif stat.S_ISREG(info.st_mode):
                if not os.access(path, os.R_OK):
                    problems.append(Problem(path, "cannot be read; fix its permissions"))
                    continue
                executable = info.st_mode & 0o111
                staged.append(Staged(out, "file", 0o755 if executable else 0o644, path))
            else:
                problems.append(Problem(path, "not a regular file, directory or link; remove it"))

    walk(root, dest, top=True, whole=False)
    return staged, problems


def _write(item: Staged) -> None:
    if item.kind == "dir":
        item.path.mkdir(exist_ok=True)
    elif item.kind == "link":
        os.symlink(item.source, item.path)
    else:
        with open(item.source, "rb") as src, open(item.path, "xb") as out:
            shutil.copyfileobj(src, out)
    if item.kind != "link":
        os.chmod(item.path, item.mode)


def _clamp(items: list[Staged], epoch: int | None) -> None:
    """Times no later than SOURCE_DATE_EPOCH (directories last: writing inside moves them)."""
    if epoch is None:
        return
    for item in reversed(items):
        source_time = os.lstat(item.source).st_mtime if item.kind != "link" else epoch
        when = min(int(source_time), epoch)
        os.utime(item.path, (when, when), follow_symlinks=False)


def package(
    sources: list[Path],
    destdir: Path,
    prefix: str,
    namespace: str,
    dry_run: bool = False,
    strict: bool = False,
) -> Result:
    """Validate every source plugin; if none has an error, stage them all."""
    plugins_dir = destdir / prefix.strip("/") / "share" / namespace / "plugins"
    problems: list[Problem] = []
    found: list[tuple[Plugin, Path]] = []
    staged: list[Staged] = []
    names: dict[str, Path] = {}
    for source in sources:
        source = Path(os.path.abspath(source))
        if not source.is_dir() or not discover.looks_like_plugin(source):
            problems.append(Problem(source, "not a plugin: it has no manifest, skills/ or agents/"))
            continue
        plugin = discover.read_plugin(source, "argument")
        problems += [p._replace(severity="error") if strict else p for p in plugin.problems]
        if not parse.is_safe_name(plugin.name):
            continue
        if plugin.name in names:
            problems.append(
                Problem(
                    source,
                    f"plugin name {quoted(plugin.name)} is also used by {names[plugin.name]}; "
                    "rename one",
                    "name",
                )
            )
            continue
        names[plugin.name] = source
        dest = plugins_dir / plugin.name
        if os.path.lexists(dest):
            problems.append(Problem(dest, "already exists; stage into a clean --destdir"))
            continue
        items, trouble = plan_copy(plugin, dest)
        problems += trouble
        found.append((plugin, dest))
        staged += items
    result = Result(found, staged, problems)
    if result.failed or dry_run:
        return result
    epoch = _epoch()
    created = _make_parents(plugins_dir)
    for item in staged:
        _write(item)
    _clamp(staged, epoch)
    for directory in created:  # the share/<namespace>/plugins levels this run made
        if epoch is not None:
            os.utime(directory, (epoch, epoch))
    return result


def _make_parents(directory: Path) -> list[Path]:
    """mkdir -p with mode 0755 whatever the umask; the directories made, deepest first."""
    missing = []
    while not directory.exists():
        missing.append(directory)
        directory = directory.parent
    for path in reversed(missing):
        path.mkdir()
        os.chmod(path, 0o755)
    return missing
