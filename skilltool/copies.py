"""Skills copied into a project: a skill of a git source lives in the project's ignored
checkout (`.skilltool/sources/`), which a teammate's clone does not have; a project that
commits what skilltool writes (the default) gets a copy of it instead of a link, so that
every harness finds it right after `git clone`, skilltool or not. And skills copied into the
own skills dir of a harness that passes over a link there (Continue CLI's ~/.continue/skills),
each marker naming its source by its absolute path.

A copy is skilltool's by its marker file (`.skilltool-copy`, beside `SKILL.md`): the
source it was copied from, as the project records it, and the digest of every other file
in the folder. A folder whose files no longer match it was edited by hand, and is left as
it is (`--force` replaces it); a folder without one is someone else's.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from skilltool.fs import TEMP_PREFIX, read_link

if TYPE_CHECKING:
    from skilltool.model import Skill
    from skilltool.paths import Project, Scope
    from skilltool.plan import Action, Change, Evidence, State

MARKER = ".skilltool-copy"
LINKED = "link"  # what a plan saw at a copy's place that was our link to the same skill
LINE = re.compile(r"copied by skilltool from (.+) \(sha256:([0-9a-f]{64})\)")


def digest(folder: Path) -> str:
    """Every file's path, executable bit and bytes (a link's text) under a folder, its
    marker file left out: the same on every checkout of the same files."""
    import hashlib

    total = hashlib.sha256()
    for here, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files + [d for d in dirs if os.path.islink(os.path.join(here, d))]):
            full = os.path.join(here, name)
            rel = os.path.relpath(full, folder)
            if rel == MARKER:
                continue
            total.update(rel.encode("utf-8", "surrogateescape") + b"\0")
            if os.path.islink(full):
                total.update(b"link\0" + os.fsencode(os.readlink(full)) + b"\0")
                continue
            executable = os.stat(full).st_mode & 0o100
            with open(full, "rb") as handle:
                content = hashlib.sha256(handle.read()).hexdigest()
            total.update(f"{'x' if executable else '-'}{content}\0".encode())
    return total.hexdigest()


def marker_of(folder: Path) -> tuple[str, str] | None:
    """(source, digest) of a copy's marker file, or None when it has none."""
    try:
        with open(folder / MARKER, encoding="utf-8") as handle:
            match = LINE.fullmatch(handle.read().strip())
    except (OSError, UnicodeDecodeError):
        return None
    return (match.group(1), match.group(2)) if match else None


def copied(project: Project, skill_path: Path) -> bool:
    """Whether a skill reaches the project as a copy: it lives in the project's ignored
    checkouts, and the project commits what skilltool writes."""
    return project.copies and skill_path.is_relative_to(project.sources_dir)


def plan(
    scope: Scope,
    winners: dict[str, Skill],
    skills_dir: Path,
    remove: bool,
    force: bool,
    evidence: Evidence,
    owner: str = "skill",
    digests: dict[Path, str] | None = None,
) -> list[Action]:
    """The copies of `winners` in `skills_dir` (or their removal), and copies of ours no
    winning skill needs any more. `digests`: each skill folder's digest, kept by the
    caller across the skills dirs of one plan, so that a skill is read once."""
    known = {} if digests is None else digests
    from skilltool.plan import Action

    actions: list[Action] = []
    for name in sorted(winners):
        source = winners[name].path
        target = skills_dir / name
        mine = marker_of(target) if os.path.isdir(target) else None
        if not os.path.lexists(target):
            if not remove:
                actions.append(Action("copy", owner, name, target, "missing", "create", source))
            continue
        if os.path.islink(target) and read_link(target) == str(source):
            # our link to this very skill, from `skills = "link"`: the copy takes its place
            actions.append(
                Action("copy", owner, name, target, "stale", "replace", source, seen=LINKED)
            )
            continue
        if os.path.islink(target) or mine is None:
            why = "not a copy made by skilltool; move it away to copy this skill"
            actions.append(
                Action("copy", owner, name, target, "foreign", "none", source, reason=why)
            )
            continue
        now = digest(target)
        intact = now == mine[1]
        if remove:
            change: Change = "remove" if intact or force else "none"
            state: State = "current" if intact else "edited"
            why = "" if intact or force else "edited by hand (--force removes it)"
            actions.append(
                Action("copy", owner, name, target, state, change, source, reason=why, seen=now)
            )
            continue
        if source not in known:
            known[source] = digest(source)
        if intact and now == known[source]:
            actions.append(Action("copy", owner, name, target, "current", "none", source, seen=now))
        elif intact or force:
            actions.append(
                Action(
                    "copy",
                    owner,
                    name,
                    target,
                    "stale",
                    "replace",
                    source,
                    reason="outdated",
                    seen=now,
                )
            )
        else:
            why = "edited by hand since skilltool copied it (--force replaces it)"
            actions.append(
                Action("copy", owner, name, target, "edited", "none", source, reason=why, seen=now)
            )
    actions += _orphans(scope, winners, skills_dir, remove, force, evidence, owner)
    return actions


def _orphans(
    scope: Scope,
    winners: dict[str, Skill],
    skills_dir: Path,
    remove: bool,
    force: bool,
    evidence: Evidence,
    owner: str,
) -> list[Action]:
    """Copies of ours under names no winning skill has: removed when the place their
    skill came from was read and it is gone there."""
    from skilltool.plan import Action

    found: list[Action] = []
    try:
        names = sorted(os.listdir(skills_dir))
    except OSError:
        return found
    for name in names:
        target = skills_dir / name
        if name in winners or os.path.islink(target) or not os.path.isdir(target):
            continue
        if name.startswith(TEMP_PREFIX):  # a killed run's: swept when copies are written
            continue
        mine = marker_of(target)
        if mine is None:
            continue
        source = scope.restored(mine[0])
        unknown = evidence.unknown(str(source))
        if unknown is not None:
            why = f"its skill {mine[0]} {unknown}; kept"
            found.append(Action("copy", owner, name, target, "stale", "none", source, reason=why))
            continue
        now = digest(target)
        if now == mine[1] or force:
            found.append(
                Action(
                    "copy",
                    owner,
                    name,
                    target,
                    "stale",
                    "remove",
                    source,
                    reason="its skill is gone",
                    seen=now,
                )
            )
        else:
            why = "its skill is gone, but it was edited by hand (--force removes it)"
            found.append(Action("copy", owner, name, target, "edited", "none", source, reason=why))
    return found


def write(action: Action, within: Path | None) -> None:
    """Carry out a copy action: the new copy is made beside its place and renamed into it;
    one it replaces or removes is renamed aside first, so no half of either is ever seen
    under the skill's name. `within`: the project, whose paths the marker records."""
    import shutil  # here: only a run that copies a skill needs it

    target = action.target
    sweep(target.parent)
    aside = target.parent / f"{TEMP_PREFIX}gone-{os.getpid()}-{target.name}"
    if action.change == "remove":
        os.rename(target, aside)
        shutil.rmtree(aside, ignore_errors=True)
        return
    assert action.source is not None
    fresh = target.parent / f"{TEMP_PREFIX}{os.getpid()}-{target.name}"
    shutil.copytree(action.source, fresh, symlinks=True, copy_function=_copy_file)
    for here, dirs, _ in os.walk(fresh):
        for name in dirs:
            if not os.path.islink(os.path.join(here, name)):
                os.chmod(os.path.join(here, name), 0o755)
    source = action.source
    said = os.path.relpath(source, within).replace(os.sep, "/") if within else str(source)
    line = f"copied by skilltool from {said} (sha256:{digest(fresh)})\n"
    with open(fresh / MARKER, "w", encoding="utf-8") as handle:
        handle.write(line)
    if action.change == "replace":
        os.rename(target, aside)
        os.rename(fresh, target)
        if os.path.islink(aside):
            os.unlink(aside)
        shutil.rmtree(aside, ignore_errors=True)
        return
    os.rename(fresh, target)


def sweep(folder: Path) -> None:
    """The half copies and set-aside copies a killed run left in a skills dir: every
    folder there named with skilltool's temporary prefix is one (the run holds the lock)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    import shutil

    for name in names:
        path = folder / name
        if name.startswith(TEMP_PREFIX) and os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)


def _copy_file(source: str, destination: str) -> None:
    """A file's bytes, with the mode git keeps: executable or not."""
    import shutil

    shutil.copyfile(source, destination, follow_symlinks=False)
    executable = os.stat(source).st_mode & 0o100
    os.chmod(destination, 0o755 if executable else 0o644)
