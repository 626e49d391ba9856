"""No name from a plugin makes skilltool write, link or delete outside the skills dir and
the harness directories: generated plugin trees full of hostile names, every file-system
change recorded by an audit hook."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from skilltool import parse
from skilltool.fs import TEMP_PREFIX
from tests.conftest import written_paths
from tests.helpers import run
from tests.hostile.tally import COUNTS

# the paths each run being watched wrote to, changed or removed
_log: list[list[tuple[str, str]]] = []


def _record(event: str, args: tuple[Any, ...]) -> None:
    if not _log:
        return
    base = os.getcwd()
    if (
        event in ("os.remove", "os.rmdir")
        and len(args) > 1
        and isinstance(args[1], int)
        and args[1] >= 0
    ):
        # a name relative to a folder's descriptor, as shutil.rmtree removes a tree
        base = os.readlink(f"/proc/self/fd/{args[1]}")
    for path in written_paths(event, args):
        if path is not None and not isinstance(path, int):
            _log[-1].append((event, os.path.normpath(os.path.join(base, os.fsdecode(path)))))


sys.addaudithook(_record)

HOSTILE = [
    "..", ".", "...", "../x", "../../.bashrc", "../../../../../../tmp/escaped", "a/b", "/etc/passwd",
    "/", "~", "~root", "-x", "x-", "a--b", "Helper", "has space", "h\u0435lper", "\uff50\uff44\uff46",
    "x\ny", "tab\tx", "nul\x00x", "$HOME", "`id`", "$(id)", "*", "?", "x" * 65, "", " ",
    ".hidden", "x.md", "x.config", "skilltool", "profiles", "agent", "SOUL.md", "..\\x", "con",
    "caf\u00e9", "\u202eevil", "x\u2028y", "\ufeffbom",
]  # fmt: skip
SAFE = st.from_regex(r"[a-z0-9]{1,6}(-[a-z0-9]{1,6}){0,2}", fullmatch=True)
NAMES = st.one_of(SAFE, st.sampled_from(HOSTILE), st.text(max_size=10))
# what a file name can be: one component, not empty, no '/', no NUL (names starting with
# '.' are hidden and skipped by skilltool; they are kept to check that they are)
FILE_NAMES = NAMES.filter(
    lambda n: n not in ("", ".", "..") and "/" not in n and "\x00" not in n
    and len(os.fsencode(n)) <= 200
)  # fmt: skip
LINK_TARGETS = st.sampled_from(
    ["..", "../..", "../../..", "/", "/etc", "{outside}", "{outside}/skill", "../../other/skills/x"]
)


@st.composite
def plugin_specs(draw: st.DrawFn) -> dict[str, Any]:
    """A plugin as data: its manifest name, skills, agents, and links."""
    return {
        "dir": draw(st.one_of(SAFE, FILE_NAMES)),
        "manifest": draw(st.one_of(st.none(), NAMES)),
        "skills": draw(st.lists(st.tuples(FILE_NAMES, st.one_of(st.none(), NAMES)), max_size=4)),
        "agents": draw(
            st.lists(
                st.tuples(
                    FILE_NAMES,
                    st.one_of(st.none(), NAMES),
                    st.one_of(st.none(), NAMES),  # a Hermes profile override
                ),
                max_size=4,
            )
        ),
        "links": draw(st.lists(st.tuples(FILE_NAMES, LINK_TARGETS), max_size=2)),
    }


def _yaml(value: str) -> str:
    return json.dumps(value)  # a JSON string is a YAML double-quoted scalar


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError:
        pass  # a name the file system refuses (too long once joined, ...): not a case


def build(spec: dict[str, Any], plugins: Path, outside: Path) -> Path:
    root = plugins / spec["dir"]
    root.mkdir(parents=True, exist_ok=True)
    if spec["manifest"] is not None:
        _write(root / ".claude-plugin/plugin.json", json.dumps({"name": spec["manifest"]}))
    for directory, name in spec["skills"]:
        fm = f"name: {_yaml(directory if name is None else name)}\n"
        _write(root / "skills" / directory / "SKILL.md", f"---\n{fm}description: d\n---\nBody.\n")
    for stem, name, profile in spec["agents"]:
        fm = "" if name is None else f"name: {_yaml(name)}\n"
        if profile is not None:
            fm += f"harnesses:\n  hermes:\n    profile: {_yaml(profile)}\n"
        _write(root / "agents" / f"{stem}.md", f"---\n{fm}description: d\n---\nYou help.\n")
    for name, target in spec["links"]:
        for kind in ("skills", "agents"):
            link = root / kind / (name if kind == "skills" else f"{name}.md")
            link.parent.mkdir(parents=True, exist_ok=True)
            if not os.path.lexists(link):
                link.symlink_to(target.replace("{outside}", str(outside)))
    return root


def names_in(specs: list[dict[str, Any]]) -> set[str]:
    found: set[str] = set()
    for spec in specs:
        found |= {d for d, _ in spec["skills"]} | {s for s, _, _ in spec["agents"]}
        found |= {n for _, n in spec["skills"] if n} | {n for _, n, _ in spec["agents"] if n}
        found |= {p for _, _, p in spec["agents"] if p}
    return found


def snapshot(root: Path) -> dict[str, object]:
    found: dict[str, object] = {}
    for directory, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(directory, name)
            if os.path.islink(path):
                found[path] = ("link", os.readlink(path))
            elif os.path.isfile(path):
                with open(path, "rb") as handle:
                    found[path] = ("file", handle.read())
            else:
                found[path] = ("dir",)
    return found


# every fixed name skilltool itself puts in a path below a harness root or the skills dir;
# any other component must be a safe name, alone or before a known suffix
# the names skilltool gives itself (`.skilltool-copy`: the marker file of a skill it copied)
FIXED = {"agent", "agents", "skills", "profiles", "skilltool", "SOUL.md", "config.yaml",
         ".skilltool-copy"}  # fmt: skip
SUFFIXES = (".before-skilltool", ".config.toml", ".agent.md", ".md", ".json")


def harness_roots(home: Path) -> list[Path]:
    """Every harness's own directory in this home, as skilltool itself computes it."""
    from skilltool.harnesses import registry
    from skilltool.paths import Home

    where = Home(home, explicit=True)  # the home may not exist yet
    return [harness(where).root() for harness in registry().values()]


def component_ok(component: str) -> bool:
    if component.startswith(TEMP_PREFIX) or component in FIXED:
        return True
    for suffix in SUFFIXES:
        if component.endswith(suffix):
            component = component[: -len(suffix)]
            if component in FIXED or parse.is_safe_component(component):
                return True
    return parse.is_safe_component(component)


def check_writes(writes: list[tuple[str, str]], home: Path) -> None:
    skills = home / ".agents/skills"
    harnesses = harness_roots(home)
    own = [home / ".local/state/skilltool", home / ".cache/skilltool"]
    for event, written in writes:
        path = Path(written)
        real = Path(os.path.realpath(path.parent)) / path.name
        for place in (path, real):
            root = next((r for r in [skills, *harnesses, *own] if r == place or r in place.parents), None)  # fmt: skip
            if root is None:
                # only skilltool's own directories may be made on the way to these (and
                # removed by uninstall once empty)
                assert event in ("os.mkdir", "os.rmdir") and any(place in r.parents for r in [skills, *own]), (event, place)  # fmt: skip
                continue
            if root in own:
                continue
            relative = place.relative_to(root).parts
            assert all(component_ok(c) for c in relative), (event, place)
        COUNTS["path-safety writes"] += 1


@settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(plugin_specs(), min_size=1, max_size=3))
@example(
    [
        {
            "dir": "evil",
            "manifest": "../../../../etc",
            "skills": [("..x", "../../.bashrc"), ("x", "x/../../../../tmp/escaped")],
            "agents": [
                ("helper", "../../../../../../tmp/escaped", None),
                ("other", None, "../../../.ssh"),
                ("ok", "ok", "../.."),
            ],
            "links": [("out", "/etc"), ("up", "../..")],
        }
    ]
)
def test_no_plugin_name_reaches_outside_the_skills_dir_and_the_harnesses(
    specs: list[dict[str, Any]],
) -> None:
    COUNTS["path-safety examples"] += 1
    with tempfile.TemporaryDirectory(prefix="skilltool-paths-") as scratch:
        base = Path(scratch)
        plugins, outside, home = base / "plugins", base / "outside", base / "home"
        (outside / "skill").mkdir(parents=True)
        (outside / "skill/SKILL.md").write_text("---\nname: skill\ndescription: d\n---\n")
        for spec in specs:
            build(spec, plugins, outside)
        for root in harness_roots(home):  # every harness is set up
            root.mkdir(parents=True)
        (home / ".hermes/profiles").mkdir()
        for name in names_in(specs) | {"ok"}:
            profile = home / ".hermes/profiles" / name
            if name not in ("", ".", "..") and "/" not in name and "\x00" not in name:
                with contextlib.suppress(OSError):
                    profile.mkdir()
        before = snapshot(base)
        env = {"SKILLTOOL_PLUGINS": str(plugins)}
        _log.append([])
        try:
            for command in ("install", "install", "status", "uninstall"):
                result = run("plugins", command, "--home", home, env=env)
                assert result.code in (0, 1), result.stdout + result.stderr
                assert "Traceback" not in result.stderr
        finally:
            writes = _log.pop()
        check_writes(writes, home)
        # nothing outside the home changed: the plugins and what their links point at
        after = snapshot(base)
        outside_home = {k: v for k, v in before.items() if not k.startswith(str(home))}
        assert {k: v for k, v in after.items() if not k.startswith(str(home))} == outside_home
