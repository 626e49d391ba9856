"""Caches never stop or hang a run: a cache file is read only when it is a regular file (not a
FIFO, not through a link), and one holding values of other types than skilltool writes there
is no cache (made again by the run), never an error. Each run is compared with one without
any cache."""

from __future__ import annotations

import contextlib
import marshal
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from skilltool import discover, parse, paths, probe
from skilltool.cache import STAMPS
from skilltool.harnesses import Harness
from skilltool.trusted import WRONG_SHAPE, _packed_check
from tests.helpers import Result, agent_md, build_file_tree, run, skill_md

CACHE = Path(".cache/skilltool")
PARSED, RENDERED, CATALOGUE = "parsed.marshal", "rendered.marshal", "catalogue.marshal"
FILES = (PARSED, RENDERED, CATALOGUE)
VERBS = ("status", "install")
REVIEW = "---\ndescription: Review a file\nmodel: sonnet\n---\nReview $ARGUMENTS carefully.\n"
# a hang fails the test after this long rather than stopping the suite (a run takes < 1 s)
TIMEOUT = 20

Outcome = tuple[int, list[str]]  # what a user sees of a run: its exit code and its lines


def a_home(tmp_path: Path) -> Path:
    """Claude Code and Gemini CLI set up; a plugin with skills, an agent and a command."""
    home = tmp_path / "h"
    build_file_tree(home / ".local/share/skilltool/plugins/tools", {
        ".claude-plugin/plugin.json": '{"name": "tools", "version": "1.0.0"}\n',
        "skills/alpha/SKILL.md": skill_md("alpha"),
        "skills/beta/SKILL.md": skill_md("beta"),
        "agents/helper.md": agent_md("helper", extra="tools: Read, Grep\n"),
        "commands/review.md": REVIEW,
    })  # fmt: skip
    for harness in (".claude", ".gemini"):
        (home / harness).mkdir()
    return home


def in_process(home: Path, verb: str) -> Result:
    return run("plugins", verb, "--home", home)


def real(home: Path, verb: str) -> Result:
    """The real entry point in its own process: a run that hangs fails the test."""
    done = subprocess.run(
        [sys.executable, "-m", "skilltool", "plugins", verb, "--home", str(home)],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(home)},
        timeout=TIMEOUT,
    )
    return Result(done.returncode, done.stdout, done.stderr)


def outcome(done: Result) -> Outcome:
    assert done.stderr == "", done.stderr  # no traceback, no error line
    return done.code, done.lines


def uncached(home: Path, runner: Callable[[Path, str], Result]) -> dict[str, Outcome]:
    """What status and install say with no cache at all (the caches they write are removed)."""
    saved = home / ".cache-kept"
    shutil.move(home / ".cache", saved)
    try:
        return {verb: outcome(runner(home, verb)) for verb in VERBS}
    finally:
        shutil.rmtree(home / ".cache", ignore_errors=True)
        shutil.move(saved, home / ".cache")


def settle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every stamp taken counts as old enough: the catalogue is kept, and trusted next run."""
    monkeypatch.setattr(probe, "clock", lambda: time.time_ns() + 10 * 10**9)


def unsettle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every stamp counts as racy: no catalogue is kept, so every run reads the parse cache."""
    monkeypatch.setattr(probe, "racy_window", lambda ctime: 10**12)


def clock_for(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    (settle if name == CATALOGUE else unsettle)(monkeypatch)


def warm(home: Path) -> None:
    """Installed, and every cache written by a run that found it as it is now."""
    for verb in ("install", "install", "status"):
        assert in_process(home, verb).code == 0


def parsed_anew(home: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many files a status parses (none when the parse cache holds them all)."""
    calls = []
    with monkeypatch.context() as patch:
        for reader in ("read_skill", "read_agent", "read_manifest"):
            real_reader = getattr(parse, reader)
            patch.setattr(parse, reader, lambda *a, r=real_reader: (calls.append(a), r(*a))[1])
        assert in_process(home, "status").code == 0
    return len(calls)


def works(home: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache `name` is, again, one the next run uses."""
    if name == PARSED:
        assert parsed_anew(home, monkeypatch) == 0
    elif name == RENDERED:

        def refuse(*args: object, **kwargs: object) -> bytes:
            raise AssertionError("rendered on a no-op run")

        with monkeypatch.context() as patch:
            patch.setattr(Harness, "template", refuse)
            done = in_process(home, "install")
        assert done.code == 0 and done.lines[-1].split(":")[0].endswith(" unchanged")
    else:
        _, caches = discover.found(paths.Home.resolve(home), [], keep=False)
        assert caches.trust.catalogue is not None


# --------------------------------------------------------------------------- not a regular file


@pytest.mark.parametrize("name", FILES)
def test_a_fifo_in_place_of_a_cache_file_neither_hangs_nor_changes_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    home = a_home(tmp_path)
    settle(monkeypatch)
    warm(home)
    if name == PARSED:  # a trusted catalogue would spare the parse cache: nothing trusted
        (home / CACHE / CATALOGUE).unlink()
    without = uncached(home, real)
    fifo = home / CACHE / name
    fifo.unlink(missing_ok=True)
    os.mkfifo(fifo)
    for verb in VERBS:
        assert outcome(real(home, verb)) == without[verb]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # not skilltool's file: left as it is


@pytest.mark.parametrize("name", FILES)
def test_a_link_in_place_of_a_cache_file_is_neither_read_nor_written_through_nor_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    home = a_home(tmp_path)
    clock_for(name, monkeypatch)
    warm(home)
    without = uncached(home, in_process)
    cached = home / CACHE / name
    elsewhere = tmp_path / "elsewhere" / name
    elsewhere.parent.mkdir()
    elsewhere.write_bytes(b"someone else's file")
    cached.unlink(missing_ok=True)
    cached.symlink_to(elsewhere)
    for verb in VERBS:
        assert outcome(in_process(home, verb)) == without[verb]
    assert os.readlink(cached) == str(elsewhere)
    assert elsewhere.read_bytes() == b"someone else's file"


# --------------------------------------------------------------------------- wrong shapes

Tamper = Callable[[dict[str, Any]], None]


def each_entry(data: dict[str, Any], ending: str, change: Callable[[Any], Any]) -> None:
    """Every entry of a parse or rendering cache whose key ends with `ending`, changed."""
    entries = data["entries"]
    for key in [k for k in entries if k != STAMPS and k.endswith(ending)]:
        entries[key] = change(entries[key])


def in_catalogue(data: dict[str, Any], index: int, change: Callable[[Any], Any]) -> None:
    """One part of the cached catalogue (0 entries, 1 plugins, 2 problems, 3 layouts, 4
    marketplaces, 5 what was read whole) changed."""
    parts = list(data["catalogue"])
    parts[index] = change(parts[index])
    data["catalogue"] = tuple(parts)


def in_plugins(data: dict[str, Any], field: int, value: Callable[[Any], Any]) -> None:
    """One field of every cached plugin changed."""
    in_catalogue(
        data,
        1,
        lambda plugins: tuple((*p[:field], value(p[field]), *p[field + 1 :]) for p in plugins),
    )


def in_links(data: dict[str, Any], change: Callable[[tuple[Any, ...]], Any]) -> None:
    assert data["links"]  # status saw the skills dirs as planned
    data["links"] = {k: change(v) for k, v in data["links"].items()}


TAMPERS: dict[str, tuple[str, Tamper]] = {
    "a skill's frontmatter a list where a dict was": (PARSED, lambda d: each_entry(
        d, "SKILL.md", lambda e: (e[0], ((*e[1][0][:2], list(e[1][0][2].items()), e[1][0][3]), e[1][1])),
    )),
    "an agent's row one field short": (PARSED, lambda d: each_entry(
        d, "helper.md", lambda e: (e[0], (e[1][0][:-1], e[1][1])),
    )),
    "an agent's tools a string where a list was": (PARSED, lambda d: each_entry(
        d, "helper.md", lambda e: (e[0], ((*e[1][0][:3], "Read, Grep", *e[1][0][4:]), e[1][1])),
    )),
    "a dict where an entry's pair was": (PARSED, lambda d: each_entry(
        d, ".md", lambda e: {"stamp": e[0], "parsed": e[1]},
    )),
    "strings where a stamp's ints were": (PARSED, lambda d: each_entry(
        d, ".md", lambda e: (tuple(map(str, e[0])), e[1]),
    )),
    "a manifest a list where a dict was": (PARSED, lambda d: each_entry(
        d, "plugin.json", lambda e: (e[0], (list(e[1][0]), e[1][1])),
    )),
    "no entries": (PARSED, lambda d: d.pop("entries")),
    "a dict where a list of renderings was": (RENDERED, lambda d: each_entry(
        d, "", lambda kept: {"target": kept[0][0]},
    )),
    "lists where a rendering's tuple of 5 was": (RENDERED, lambda d: each_entry(
        d, "", lambda kept: [list(one) for one in kept],
    )),
    "a string where a rendering's mode was": (RENDERED, lambda d: each_entry(
        d, "", lambda kept: [(t, str(mode), *rest) for t, mode, *rest in kept],
    )),
    "a rendering one field short": (RENDERED, lambda d: each_entry(
        d, "", lambda kept: [one[:4] for one in kept],
    )),
    "an int where a key was": (RENDERED, lambda d: d["entries"].update({7: []})),
    "the stamps a list": (RENDERED, lambda d: d["entries"].update({STAMPS: [1, 2]})),
    "garbage where the plugins were": (CATALOGUE, lambda d: in_catalogue(
        d, 1, lambda plugins: ("garbage", 5, None),
    )),
    "a plugin's name an int": (CATALOGUE, lambda d: in_plugins(d, 0, lambda name: 7)),
    "a plugin's agents a dict": (CATALOGUE, lambda d: in_plugins(d, 5, lambda agents: {"a": 1})),
    "a plugin's root an int": (CATALOGUE, lambda d: in_plugins(d, 1, lambda root: 3)),
    "a plugin's agent one field short": (CATALOGUE, lambda d: in_plugins(
        d, 5, lambda agents: tuple(a[:-1] for a in agents),
    )),
    "the layouts a list": (CATALOGUE, lambda d: in_catalogue(d, 3, lambda m: list(m.items()))),
    "the search path a string": (CATALOGUE, lambda d: in_catalogue(d, 0, lambda e: "path")),
    "no links": (CATALOGUE, lambda d: d.pop("links")),
    "a skills dir's count a string": (CATALOGUE, lambda d: in_links(
        d, lambda seen: (seen[0], str(seen[1]), seen[2]),
    )),
    "a skills dir's problems a list of ints": (CATALOGUE, lambda d: in_links(
        d, lambda seen: (seen[0], seen[1], [1, 2]),
    )),
    "a skills dir seen a list": (CATALOGUE, lambda d: in_links(d, list)),
}  # fmt: skip


def write_cache(home: Path, name: str, data: dict[str, Any]) -> None:
    """`data` as the cache `name`; a catalogue with the check of its packed skills made again,
    so that what is tampered with is read, not set aside for damage."""
    if name == CATALOGUE:
        with contextlib.suppress(*WRONG_SHAPE):  # set aside at the start anyway
            data["packed"] = _packed_check(data["catalogue"])
    (home / CACHE / name).write_bytes(marshal.dumps(data))


@pytest.mark.parametrize("tamper", TAMPERS)
def test_a_cache_of_the_right_format_with_wrong_shapes_inside_is_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tamper: str
) -> None:
    name, change = TAMPERS[tamper]
    home = a_home(tmp_path)
    clock_for(name, monkeypatch)
    warm(home)
    without = uncached(home, in_process)
    data = marshal.loads((home / CACHE / name).read_bytes())
    change(data)
    write_cache(home, name, data)
    for verb in VERBS:
        assert outcome(in_process(home, verb)) == without[verb]
    works(home, name, monkeypatch)


# --------------------------------------------------------------------------- any value, anywhere

# what marshal stores; None only inside another value: many fields may be None
SCALARS = (
    st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.complex_numbers(allow_nan=False) | st.text(max_size=8) | st.binary(max_size=8)
)  # fmt: skip
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner | st.none(), max_size=3)
        | st.lists(inner | st.none(), max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=4), inner | st.none(), max_size=3)
        | st.frozensets(st.integers(), max_size=3)
    ),
    max_leaves=8,
)

Where = tuple[Any, ...]  # the keys and indexes that lead to a value in a cache
# the dicts of each cache whose values are of skilltool's making (the rest hold data as read:
# a frontmatter's keys, a manifest, the line of each key, where any value is one)
BOOKKEEPING: dict[str, set[Where]] = {
    PARSED: {(), ("entries",)},
    RENDERED: {(), ("entries",), ("entries", STAMPS)},
    CATALOGUE: {(), ("catalogue", 3), ("links",), ("identity",)},
}


def values_in(value: Any, descend: set[Where], where: Where = ()) -> Iterator[tuple[Where, Any]]:
    """Every value inside `value` and where it is, containers before what they hold."""
    if isinstance(value, (tuple, list)):
        items: Any = enumerate(value)
    elif isinstance(value, dict) and where in descend:
        items = value.items()
    else:
        return
    for key, inner in items:
        yield (*where, key), inner
        yield from values_in(inner, descend, (*where, key))


def put(value: Any, where: Where, new: Any) -> Any:
    """`value` with what is at `where` replaced by `new` (tuples made anew on the way)."""
    if not where:
        return new
    key, rest = where[0], where[1:]
    if isinstance(value, tuple):
        return (*value[:key], put(value[key], rest, new), *value[key + 1 :])
    copy = list(value) if isinstance(value, list) else dict(value)
    copy[key] = put(value[key], rest, new)
    return copy


PREPARED: dict[Path, tuple[Path, dict[str, bytes], dict[str, Outcome]]] = {}


def prepared(tmp_path: Path, name: str) -> tuple[Path, dict[str, bytes], dict[str, Outcome]]:
    """A warm home (built once for all the examples), its caches as written, and what status
    and install say in it without any cache."""
    if tmp_path not in PREPARED:
        home = a_home(tmp_path)
        warm(home)
        good = {n: (home / CACHE / n).read_bytes() for n in FILES if (home / CACHE / n).exists()}
        assert name in good
        PREPARED[tmp_path] = home, good, uncached(home, in_process)
    return PREPARED[tmp_path]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much
    ],
)  # fmt: skip
@given(choice=st.integers(min_value=0, max_value=100_000), new=VALUES)
@pytest.mark.parametrize("name", FILES)
def test_a_value_of_another_type_anywhere_in_a_cache_is_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, choice: int, new: Any
) -> None:
    clock_for(name, monkeypatch)
    home, good, without = prepared(tmp_path, name)
    for kept in FILES:
        (home / CACHE / kept).unlink(missing_ok=True)
    for kept, data in good.items():
        (home / CACHE / kept).write_bytes(data)
    found = list(values_in(marshal.loads(good[name]), BOOKKEEPING[name]))
    where, old = found[choice % len(found)]
    assume(old is not None and type(new) is not type(old))
    write_cache(home, name, put(marshal.loads(good[name]), where, new))
    for verb in VERBS:
        assert outcome(in_process(home, verb)) == without[verb], where
    works(home, name, monkeypatch)
