"""Foreign-file safety as a property: in generated homes (files, directories, links, FIFOs
at the target paths and at their parents, with and without markers, with edited markers),
`install`, a second `install`, `uninstall`, and the same with `--force`, never change or
remove a byte skilltool did not write; and `uninstall` leaves nothing of its own behind."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import Any, NamedTuple

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skilltool.plan import BACKUP_SUFFIX, EDITED_SUFFIX
from tests.helpers import agent_md, build_file_tree, run, skill_md
from tests.hostile.tally import COUNTS

SKILLS = ("s1", "s2", "s3")
AGENTS = ("helper", "scribe")
ROOTS = {
    "opencode": ".config/opencode",
    "hermes": ".hermes",
    "codex": ".codex",
    "pi": ".pi/agent",
}
OWN = (".local/state/skilltool", ".cache/skilltool")  # skilltool's lock and parse cache
# what may stand at a rendering's path, and at a skill link's path
FILE_KINDS = (
    "absent", "foreign-bytes", "edited", "old-ours", "current-ours", "directory",
    "link-to-file", "dangling-link", "fifo", "read-only", "empty",
)  # fmt: skip
LINK_KINDS = (
    "absent", "directory", "file", "link-outside", "dangling-link", "ours-current",
    "ours-stale", "lookalike-elsewhere",
)  # fmt: skip
# what may stand where a directory of renderings belongs
PARENT_KINDS = ("directory", "directory", "absent", "file", "link-to-directory")
OURS = {"old-ours", "current-ours", "ours-current", "ours-stale"}

Entry = tuple[Any, ...]


def listing(base: Path) -> dict[str, Entry]:
    """Every entry under base, links not followed: type, then bytes or target, and mode."""
    found: dict[str, Entry] = {}
    for directory, dirnames, filenames in os.walk(base):
        for name in dirnames + filenames:
            path = os.path.join(directory, name)
            info = os.lstat(path)
            mode = stat.S_IMODE(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                found[path] = ("link", os.readlink(path))
            elif stat.S_ISREG(info.st_mode):
                with open(path, "rb") as handle:
                    found[path] = ("file", handle.read(), mode)
            elif stat.S_ISDIR(info.st_mode):
                found[path] = ("dir", mode)
            else:
                found[path] = ("other", stat.S_IFMT(info.st_mode), mode)
    return found


class World(NamedTuple):
    base: Path
    plugins: Path
    home: Path
    outside: Path
    old: dict[str, bytes]  # rendering path (relative to home) -> an earlier version's bytes
    new: dict[str, bytes]  # rendering path -> what install writes now
    links: dict[str, str]  # skill link path -> the skill it points at


def _install_into(home: Path, plugins: Path) -> dict[str, bytes]:
    for root in ROOTS.values():
        (home / root).mkdir(parents=True, exist_ok=True)
    for agent in (*AGENTS, "gone"):
        (home / ".hermes/profiles" / agent).mkdir(parents=True, exist_ok=True)
    result = run("plugins", "install", "--home", home, env={"SKILLTOOL_PLUGINS": str(plugins)})
    assert result.code == 0, result.stdout + result.stderr
    found = {}
    for path, entry in listing(home).items():
        relative = os.path.relpath(path, home)
        if entry[0] == "file" and not relative.startswith(OWN):
            found[relative] = entry[1]
    return found


def make_world(base: Path) -> World:
    """The plugin, and what an earlier and the current version of it render in a home
    at the path every example uses."""
    plugins, home = base / "plugins", base / "home"
    kit = plugins / "kit"
    old = {f"agents/{a}.md": agent_md(a, "Old instructions.\n") for a in (*AGENTS, "gone")}
    build_file_tree(kit, {**old, **{f"skills/{s}/SKILL.md": skill_md(s) for s in SKILLS}})
    earlier = _install_into(home, plugins)
    shutil.rmtree(home)
    (kit / "agents/gone.md").unlink()
    build_file_tree(kit, {f"agents/{a}.md": agent_md(a, "New instructions.\n") for a in AGENTS})
    current = _install_into(home, plugins)
    links = {os.path.relpath(p, home): os.readlink(p) for p in (home / ".agents/skills").iterdir()}
    shutil.rmtree(home)
    assert set(links) == {f".agents/skills/{s}" for s in SKILLS}
    return World(base, plugins, home, base / "outside", earlier, current, links)


def _parent_of(relative: str) -> str:
    return os.path.dirname(relative)


@st.composite
def homes(draw: st.DrawFn, world: World) -> dict[str, Any]:
    """A home as data: which harnesses exist, what stands at each parent and target."""
    present = draw(st.sets(st.sampled_from(sorted(ROOTS))))
    targets = sorted(set(world.old) | set(world.new))
    parents = sorted(({_parent_of(t) for t in targets} | {".agents/skills"}) - set(ROOTS.values()))
    parent_kinds = {p: draw(st.sampled_from(PARENT_KINDS)) for p in parents}
    files = {t: draw(st.sampled_from(FILE_KINDS)) for t in targets}
    links = {f".agents/skills/{s}": draw(st.sampled_from(LINK_KINDS)) for s in (*SKILLS, "gone")}
    junk = draw(st.binary(min_size=1, max_size=40))
    return {"present": present, "parents": parent_kinds, "files": files, "links": links, "junk": junk}  # fmt: skip


def _harness_of(relative: str) -> str | None:
    return next((h for h, r in ROOTS.items() if relative.startswith(r + "/")), None)


def build_home(world: World, spec: dict[str, Any]) -> tuple[set[str], set[str]]:
    """Make the home; the paths of what skilltool may treat as its own, and of placeholders."""
    home, outside, junk = world.home, world.outside, spec["junk"]
    ours: set[str] = set()
    placeholders: set[str] = set()
    (outside / "file").parent.mkdir(parents=True, exist_ok=True)
    (outside / "file").write_bytes(b"someone else's file\n" + junk)
    home.mkdir()
    for harness in spec["present"]:
        (home / ROOTS[harness]).mkdir(parents=True)
    for index, (parent, kind) in enumerate(sorted(spec["parents"].items())):
        harness = _harness_of(parent + "/")
        if harness is not None and harness not in spec["present"]:
            continue
        path = home / parent
        if kind == "directory" or (kind == "absent" and parent.startswith(".hermes/")):
            path.mkdir(parents=True, exist_ok=True)
        elif kind == "file":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"a file where a directory belongs\n" + junk)
        elif kind == "link-to-directory":
            elsewhere = outside / f"dir{index}"
            elsewhere.mkdir(parents=True)
            (elsewhere / "theirs.txt").write_bytes(junk)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.symlink_to(elsewhere)
    for index, (target, kind) in enumerate(sorted(spec["files"].items())):
        path = home / target
        if kind == "absent" or not path.parent.is_dir():
            continue
        fresh = world.new.get(target)
        if kind == "foreign-bytes":
            path.write_bytes(b"written by hand\n" + junk)
        elif kind == "empty":
            path.write_bytes(b"")
            if path.name == "SOUL.md":
                placeholders.add(target)  # Hermes's own seed: replaced, kept beside, put back
        elif kind == "edited" and (fresh or world.old.get(target)):
            path.write_bytes((fresh or world.old[target]) + b"\nmy own line\n")
        elif kind == "old-ours" and target in world.old:
            path.write_bytes(world.old[target])
            ours.add(target)
        elif kind == "current-ours" and fresh is not None:
            path.write_bytes(fresh)
            ours.add(target)
        elif kind == "directory":
            path.mkdir()
            (path / "inside.txt").write_bytes(junk)
        elif kind == "link-to-file":
            path.symlink_to(outside / "file")
        elif kind == "dangling-link":
            path.symlink_to(outside / f"nothing{index}")
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "read-only":
            path.write_bytes(b"read-only, by hand\n" + junk)
            path.chmod(0o444)
    for target, kind in sorted(spec["links"].items()):
        path = home / target
        name = path.name
        if kind == "absent" or not path.parent.is_dir():
            continue
        if kind == "directory":
            path.mkdir()
            (path / "SKILL.md").write_bytes(junk)
        elif kind == "file":
            path.write_bytes(junk)
        elif kind == "link-outside":
            path.symlink_to(outside)
        elif kind == "dangling-link":
            path.symlink_to(outside / "no-such-skill")
        elif kind == "ours-current" and target in world.links:
            path.symlink_to(world.links[target])
            ours.add(target)
        elif kind == "ours-stale":
            path.symlink_to(world.plugins / "removed-plugin" / "skills" / name)
            ours.add(target)
        elif kind == "lookalike-elsewhere":
            # the shape of our link, into a place that is not on the search path
            path.symlink_to(world.base / "not-searched" / "kit" / "skills" / name)
    return ours, placeholders


def where(world: World, relative: str) -> str:
    """Where a target of the home really is: its parent may be a link to elsewhere."""
    path = world.home / relative
    return os.path.join(os.path.realpath(path.parent), path.name)


def check(
    world: World,
    before: dict[str, Entry],
    protected: dict[str, Entry],
    placeholders: dict[str, bytes],
    after_uninstall: bool,
) -> None:
    after = listing(world.base)
    changed = 0
    for path, entry in protected.items():
        if after.get(path) != entry:
            changed += len(entry[1]) if entry[0] == "file" else 1
            raise AssertionError(f"{path}: was {entry!r:.200}, now {after.get(path)!r:.200}")
    COUNTS["foreign bytes changed"] += changed
    for path, data in placeholders.items():
        if after_uninstall:
            assert after.get(path) == ("file", data, 0o644), path
        else:
            kept = after.get(path + BACKUP_SUFFIX) or after.get(path)
            assert kept is not None and kept[:2] == ("file", data), path
    if after_uninstall:
        # nothing of skilltool's own is left: only what was there, directories, its state
        own = tuple(str(world.home / o) for o in OWN)
        left = {p for p, e in after.items() if e[0] != "dir" and p not in before}
        # a hand-edited rendering --force removed is kept beside it, exactly as it was
        kept = {
            p
            for p in left
            if EDITED_SUFFIX in p and after[p] == before.get(p.split(EDITED_SUFFIX)[0])
        }
        assert {p for p in left - kept if not p.startswith(own)} == set()


def test_foreign_files_are_never_changed(tmp_path: Path) -> None:
    world = make_world(tmp_path / "world")

    @settings(
        max_examples=80,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(homes(world))
    def one_home(spec: dict[str, Any]) -> None:
        COUNTS["foreign examples"] += 1
        for leftover in (world.home, world.outside):
            if leftover.exists():
                shutil.rmtree(leftover)
        ours, placeholder_paths = build_home(world, spec)
        before = listing(world.base)
        mine = {where(world, p) for p in ours | placeholder_paths}
        foreign = {p: e for p, e in before.items() if p not in mine and not p.startswith(str(world.plugins))}  # fmt: skip
        edited = {where(world, t) for t, k in spec["files"].items() if k == "edited"}
        placeholders = {where(world, p): before[where(world, p)][1] for p in placeholder_paths}
        COUNTS["foreign entries"] += len(foreign)
        COUNTS["foreign bytes watched"] += sum(len(e[1]) for e in foreign.values() if e[0] == "file")  # fmt: skip
        for step, force, uninstalls in (
            ("install", False, False),
            ("install", False, False),
            ("uninstall", False, True),
            ("install", True, False),
            ("uninstall", True, True),
        ):
            args = ["plugins", step, "--home", str(world.home), *(["--force"] if force else [])]
            result = run(*args, env={"SKILLTOOL_PLUGINS": str(world.plugins)})
            assert result.code in (0, 1), result.stdout + result.stderr
            assert "Traceback" not in result.stderr
            # --force may replace a rendering edited by hand (ours, marker and all), no more
            protected = {p: e for p, e in foreign.items() if not (force and p in edited)}
            check(world, before, protected, placeholders, uninstalls)

    one_home()
    COUNTS["foreign bytes changed"] += 0
