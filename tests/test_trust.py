"""The catalogue cache and the links trusted by stat: a run whose every recorded stamp is
unchanged builds nothing anew, and no change to a file or folder discovery or the install
touched can hide from it (the trust rule, README "Decisions where the spec is silent")."""

from __future__ import annotations

import ast
import json
import marshal
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skilltool import discover, paths, plan, probe
from skilltool.trusted import PackedSkills, decode, encode
from tests.helpers import agent_md, build_file_tree, plugin_tree, run, skill_md

REPO = Path(__file__).resolve().parent.parent
CATALOGUE = ".cache/skilltool/catalogue.marshal"
OLD = 946_684_800  # 2000-01-01: an mtime far outside any racy window


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every stamp taken counts as old enough: the clock the racy rule reads runs ahead."""
    monkeypatch.setattr(probe, "clock", lambda: time.time_ns() + 10 * 10**9)


def plugins_dir(home: Path) -> Path:
    return home / ".local/share/skilltool/plugins"


def status(home: Path) -> list[str]:
    """`status -v`: each skill's link, which the plugin lines of plain `status` only count."""
    result = run("plugins", "status", "-v", "--home", home)
    return result.lines


def uncached(home: Path) -> list[str]:
    """What status says with no cache at all (the caches it writes are removed after)."""
    saved = home / ".cache-kept"
    shutil.move(home / ".cache", saved)
    try:
        return status(home)
    finally:
        shutil.rmtree(home / ".cache", ignore_errors=True)
        shutil.move(saved, home / ".cache")


def fresh_catalogue(home: Path) -> object:
    return discover.discover(paths.search_path(paths.Home.resolve(home)))


def cached_catalogue(home: Path) -> tuple[object, bool]:
    catalogue, caches = discover.found(paths.Home.resolve(home), [], keep=False)
    return catalogue, caches.trust.catalogue is not None


def installed(home: Path) -> None:
    assert run("plugins", "install", "--home", home).code in (0, 1)  # 1: a plugin's problem
    assert run("plugins", "status", "--home", home).code in (0, 1)  # records the links seen
    assert (home / CATALOGUE).is_file()


def a_home(tmp_path: Path) -> Path:
    home = tmp_path / "h"
    plugin_tree(plugins_dir(home), "tools", skills=("alpha", "beta"), agents=("helper",))
    (home / ".claude").mkdir()
    return home


# --------------------------------------------------------------------------- the recorder


FILE_SYSTEM = {
    "isdir", "isfile", "exists", "lexists", "islink", "realpath", "scandir", "listdir",
    "lstat", "stat", "access", "open", "read_bytes", "read_text", "iterdir", "glob",
    "rglob", "is_dir", "is_file", "read_regular",
}  # fmt: skip
# the functions discovery runs, module by module (all of discover.py)
DISCOVERY = {
    "discover": None,
    "parse": {"_read", "find_manifest"},
    "parse_servers": {"read_servers", "_declared", "json_text", "_read_file", "json_object"},
    "parse_hooks": {"read_hooks", "_read_file"},
    "parse_commands": {"read_commands", "_command_files", "_inside"},
}


def test_discovery_reaches_the_file_system_only_through_the_recorder() -> None:
    """A check of the source: a question asked around the recorder would not be remembered,
    and a change to its answer would not be seen by the catalogue cache."""
    found = []
    for module, functions in DISCOVERY.items():
        tree = ast.parse((REPO / "skilltool" / f"{module}.py").read_text())
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef):
                continue
            if functions is not None and node.name not in functions:
                continue
            for call in ast.walk(node):
                if not isinstance(call, ast.Call):
                    continue
                func = call.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                owner = ast.unparse(func.value) if isinstance(func, ast.Attribute) else ""
                # a listed entry's own type (not a link's) is its folder's listing: covered
                allowed = owner == "probe.now" or (owner == "entry" and name == "is_dir")
                # parse._read opens, then hands the descriptor to probe.now.opened
                allowed = allowed or (node.name == "_read" and owner == "os" and name == "open")
                if name in FILE_SYSTEM and not allowed:
                    found.append(f"{module}.{node.name}: {ast.unparse(call)}")
    assert found == []


def test_a_catalogue_round_trips_through_the_cache(tmp_path: Path) -> None:
    home = a_home(tmp_path)
    build_file_tree(
        plugins_dir(home) / "tools", {".mcp.json": '{"mcpServers": {"s": {"command": "x"}}}'}
    )
    catalogue = fresh_catalogue(home)
    assert decode(encode(catalogue)) == catalogue  # type: ignore[arg-type]


# --------------------------------------------------------------------------- trusted runs


def test_a_no_op_walks_nothing_when_every_stamp_holds(
    tmp_path: Path, settled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = a_home(tmp_path)
    installed(home)
    before = status(home)
    cache = (home / CATALOGUE).stat()

    def walked(*args: object) -> None:
        raise AssertionError("walked the search path")

    monkeypatch.setattr(discover, "read_entry", walked)
    monkeypatch.setattr(plan, "SkillsDir", walked)  # nor read the skills dir link by link
    again = run("plugins", "install", "--home", home)
    assert again.code == 0 and again.lines[-1].startswith("12 unchanged")
    assert status(home) == before
    assert (home / CATALOGUE).stat().st_mtime_ns == cache.st_mtime_ns  # not rewritten


def test_a_no_op_makes_no_skill_when_its_skills_dirs_are_as_planned(
    tmp_path: Path, settled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A skills dir found as planned is counted, not listed: a plain or quiet install, and
    status, make no `Skill` and no Action per link (at ten thousand skills, most of a
    no-op's time); -v and --json still list every link, each unchanged."""
    home = a_home(tmp_path)
    installed(home)
    before = status(home)
    with monkeypatch.context() as patched:

        def unpacked(self: PackedSkills) -> object:
            raise AssertionError("made the skills of a plugin")

        patched.setattr(PackedSkills, "_unpacked", unpacked)
        for flags in ((), ("-q",), ("--dry-run",)):
            again = run("plugins", "install", *flags, "--home", home)
            assert again.code == 0, again.stderr
            assert again.lines[-1].removeprefix("dry-run: ").startswith("12 unchanged")
        assert status(home) == before
        assert run("plugins", "status", "--json", "--home", home).code == 0
    verbose = run("plugins", "install", "-v", "--home", home).lines
    for name in ("alpha", "beta"):
        for listed in (["unchanged", "skill", name], ["unchanged", "claude", "skill", name]):
            assert listed in [line.split() for line in verbose], verbose
    report = json.loads(run("plugins", "install", "--json", "--home", home).stdout)
    links = [(a["owner"], a["name"], a["state"]) for a in report["actions"] if a["kind"] == "link"]
    assert {(o, n, "current") for o in ("skill", "claude") for n in ("alpha", "beta")} <= set(links)
    assert len(links) == 10 and {state for *_, state in links} == {"current"}  # bundled: 3
    assert report["summary"]["unchanged"] == 12


def test_skills_dirs_holding_skills_installed_by_hand_are_trusted_but_not_beside_a_foreign_link(
    tmp_path: Path, settled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder or file that is not a link, under a name no skill has, is left alone whatever
    it holds: the skills dir beside it is still taken as planned (Claude Code's own folder
    often holds skills made by hand). A link of someone else's makes every run read the
    folder: whether a link is ours can change with its target."""
    home = a_home(tmp_path)
    for skills in (home / ".agents/skills", home / ".claude/skills"):
        build_file_tree(skills, {"mine/SKILL.md": skill_md("mine"), "notes.txt": "mine\n"})
    installed(home)
    before = status(home)

    def walked(*args: object) -> None:
        raise AssertionError("read a skills dir link by link")

    with monkeypatch.context() as patched:
        patched.setattr(plan, "SkillsDir", walked)
        again = run("plugins", "install", "--home", home)
        assert again.code == 0 and again.lines[-1].startswith("12 unchanged:"), again.stdout
        assert status(home) == before
    (home / "mine").mkdir()
    (home / ".agents/skills/theirs").symlink_to(home / "mine")
    installed(home)  # the link was found and left alone; the next run reads the folder again
    with monkeypatch.context() as patched:
        patched.setattr(plan, "SkillsDir", walked)
        with pytest.raises(AssertionError, match="link by link"):
            run("plugins", "install", "--home", home)
    assert run("plugins", "install", "--home", home).lines[-1].startswith("12 unchanged:")
    assert (home / ".agents/skills/theirs").readlink() == home / "mine"
    assert (home / ".agents/skills/mine/SKILL.md").is_file()


def test_status_of_a_skills_dir_as_planned_says_which_of_two_skills_of_a_name_is_linked(
    tmp_path: Path, settled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Status over a skills dir trusted as planned (no link read, no `Skill` made) says what
    status without any cache says: the first plugin's skill linked, the second's not."""
    home = a_home(tmp_path)
    plugin_tree(plugins_dir(home), "zeta", skills=("alpha", "gamma"))
    installed(home)
    with monkeypatch.context() as patched:

        def unpacked(self: PackedSkills) -> object:
            raise AssertionError("made the skills of a plugin")

        patched.setattr(PackedSkills, "_unpacked", unpacked)
        lines = status(home)
    assert lines == uncached(home)
    zeta = lines[lines.index(next(line for line in lines if "plugin    zeta" in line)) :]
    assert [line.split()[1:] for line in zeta[1:3]] == [
        ["alpha", "not", "linked;", "claude:", "not", "linked"],
        ["gamma", "linked;", "claude:", "linked"],
    ]


@pytest.fixture
def racy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every stamp counts as taken within the racy window (whatever the machine's speed)."""
    monkeypatch.setattr(probe, "racy_window", lambda ctime: 10**12)


def test_a_racy_stamp_is_not_trusted(tmp_path: Path, racy: None) -> None:
    """Files changed within the racy window of the run that saw them: walked next time."""
    home = a_home(tmp_path)
    assert run("plugins", "install", "--home", home).code == 0
    assert not (home / CATALOGUE).exists()
    _, trusted = cached_catalogue(home)
    assert not trusted


def test_the_racy_window_is_the_granularity_a_stamp_shows() -> None:
    """A change may hide within the file system's timestamp granularity (FAT's 2 s, ext3's
    and HFS+'s 1 s, exFAT's 10 ms) and the tick the kernel's stamps lag by."""
    second = 1_700_000_000 * 10**9
    assert probe.racy_window(second) > 2 * 10**9  # whole seconds: FAT may keep two
    assert probe.racy_window(second + 120_000_000) > 10**7 + probe.TICK_NS  # hundredths
    assert probe.racy_window(second + 123_456_789) < 10**8  # nanoseconds: a tick
    assert probe.old_enough(second, second, second + 3 * 10**9)
    assert not probe.old_enough(second, second, second + 10**9)
    assert probe.old_enough(second + 1, second + 1, second + 10**8)


def test_the_first_no_op_after_an_install_leaves_the_cache_the_next_one_trusts(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a user runs it (no --home, no --dir, the bundled plugin on the path), each run a
    third of a second after the one before: the fresh install keeps the catalogue, the first
    no-op the skills dir it found as planned, and the second reads neither again nor rewrites
    the cache. (A racy window of 2 s kept every run within 2 s of a change on the slow path.)"""
    if probe.racy_window(os.stat(home).st_ctime_ns) > 300_000_000:
        pytest.skip("the temporary folder's file system stamps whole seconds")
    monkeypatch.setattr(probe, "clock", lambda: time.time_ns() + 300_000_000)
    plugin_tree(plugins_dir(home), "tools", skills=("alpha", "beta"))
    assert run("plugins", "install").code == 0
    assert (home / CATALOGUE).is_file()
    assert run("plugins", "install").lines[-1].startswith("5 unchanged")
    kept = marshal.loads((home / CATALOGUE).read_bytes())
    assert str(home / ".agents/skills") in kept["links"]
    cache = (home / CATALOGUE).stat()

    def walked(*args: object) -> None:
        raise AssertionError("walked the search path or read the skills dir link by link")

    monkeypatch.setattr(discover, "read_entry", walked)
    monkeypatch.setattr(plan, "SkillsDir", walked)
    again = run("plugins", "install")
    assert again.code == 0 and again.lines[-1].startswith("5 unchanged"), again.stdout
    now = (home / CATALOGUE).stat()
    assert (now.st_ino, now.st_mtime_ns) == (cache.st_ino, cache.st_mtime_ns)  # not rewritten


def test_a_damaged_catalogue_cache_costs_only_time(tmp_path: Path, settled: None) -> None:
    home = a_home(tmp_path)
    installed(home)
    (home / CATALOGUE).write_bytes(b"\x00damaged")
    assert status(home) == uncached(home)


def test_a_catalogue_cache_damaged_inside_a_plugins_packed_skills_is_not_used(
    tmp_path: Path, settled: None
) -> None:
    """The skills are unpacked only when read, in the middle of a command: a file whose
    packed skills are not what was written is set aside at the start, as a damaged one."""
    home = a_home(tmp_path)
    installed(home)
    kept = marshal.loads((home / CATALOGUE).read_bytes())
    plugins = list(kept["catalogue"][1])
    named, rest = plugins[0][4]
    plugins[0] = (*plugins[0][:4], (named, rest[:-1] + b"\x01"), *plugins[0][5:])
    kept["catalogue"] = (kept["catalogue"][0], tuple(plugins), *kept["catalogue"][2:])
    (home / CATALOGUE).write_bytes(marshal.dumps(kept))
    _, trusted = cached_catalogue(home)
    assert not trusted
    assert status(home) == uncached(home)


def edit_in_place(path: Path, old: bytes, new: bytes) -> None:
    """The same size, the mtime set back: only the ctime tells."""
    assert len(old) == len(new)
    before = path.stat()
    path.write_bytes(path.read_bytes().replace(old, new))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_a_skill_edited_in_place_with_its_mtime_set_back_is_noticed(
    tmp_path: Path, settled: None
) -> None:
    home = a_home(tmp_path)
    installed(home)
    skill = plugins_dir(home) / "tools/skills/alpha/SKILL.md"
    edit_in_place(skill, b"name: alpha", b"name: alphx")  # now at odds with its folder
    catalogue, trusted = cached_catalogue(home)
    assert not trusted and catalogue == fresh_catalogue(home)
    assert status(home) == uncached(home)
    assert any("alphx" in line for line in status(home))


@pytest.mark.parametrize(
    "change",
    [
        "add skill",
        "remove skill",
        "plugin.json",
        "plugin.json beside",
        ".mcp.json",
        "agent",
        "rename plugin",
    ],
)
def test_a_change_to_the_plugins_is_noticed(tmp_path: Path, settled: None, change: str) -> None:
    home = a_home(tmp_path)
    spec = {
        "bare/skills/gamma/SKILL.md": skill_md("gamma"),
        "stray/skills/eps/SKILL.md": skill_md("eps"),
        "stray/.claude-plugin/README.md": "Notes for the plugin's maintainers.\n",
    }
    build_file_tree(plugins_dir(home), spec)
    installed(home)
    tools, bare = plugins_dir(home) / "tools", plugins_dir(home) / "bare"
    stray = plugins_dir(home) / "stray"
    if change == "add skill":
        build_file_tree(tools, {"skills/delta/SKILL.md": skill_md("delta")})
    elif change == "remove skill":
        shutil.rmtree(tools / "skills/beta")
    elif change == "plugin.json":  # where there was none: the plugin's name is the manifest's
        build_file_tree(bare, {".claude-plugin/plugin.json": '{"name": "renamed"}\n'})
    elif change == "plugin.json beside":  # in a folder there already: only its stamp tells
        build_file_tree(stray, {".claude-plugin/plugin.json": '{"name": "renamed"}\n'})
    elif change == ".mcp.json":
        build_file_tree(bare, {".mcp.json": '{"mcpServers": {"db": {"command": "db"}}}\n'})
    elif change == "agent":
        build_file_tree(bare, {"agents/second.md": agent_md("second")})
    else:
        bare.rename(plugins_dir(home) / "other")
    catalogue, trusted = cached_catalogue(home)
    assert not trusted and catalogue == fresh_catalogue(home)
    assert status(home) == uncached(home)


@pytest.mark.parametrize("change", ["link replaced", "foreign folder", "link removed"])
def test_a_change_in_the_skills_dir_is_noticed(tmp_path: Path, settled: None, change: str) -> None:
    home = a_home(tmp_path)
    installed(home)
    skills = home / ".agents/skills"
    elsewhere = build_file_tree(tmp_path / "mine", {"alpha/SKILL.md": skill_md("alpha")})
    if change == "link replaced":
        (skills / "alpha").unlink()
        (skills / "alpha").symlink_to(elsewhere / "alpha")
    elif change == "foreign folder":
        build_file_tree(skills, {"mine/SKILL.md": skill_md("mine")})
    else:
        (skills / "beta").unlink()
    os.utime(skills, (OLD, OLD))
    lines = status(home)
    assert lines == uncached(home)
    if change == "link replaced":
        assert any("alpha" in line and "not one made by skilltool" in line for line in lines), lines
    elif change == "link removed":
        assert run("plugins", "install", "--home", home).code == 0
        assert (skills / "beta").is_symlink()


def test_a_rendering_edited_by_hand_with_its_mtime_restored_is_noticed(
    tmp_path: Path, settled: None
) -> None:
    home = a_home(tmp_path)
    installed(home)
    rendered = home / ".claude/agents/helper.md"
    edit_in_place(rendered, b"You help", b"You hurt")
    lines = status(home)
    assert lines == uncached(home)
    assert any("helper" in line and "edited" in line for line in lines), lines


# --------------------------------------------------------------------------- the property


@st.composite
def trees(draw: st.DrawFn) -> dict[str, str]:
    """A search path's worth of plugins in the shapes real ones have."""
    spec: dict[str, str] = {}
    names = draw(st.lists(st.sampled_from("abcde"), min_size=1, max_size=3, unique=True))
    for plugin in names:
        root = f"p{plugin}"
        if draw(st.booleans()):
            spec[f"{root}/.claude-plugin/plugin.json"] = json.dumps({"name": f"plug-{plugin}"})
        for skill in draw(st.lists(st.sampled_from("stuv"), max_size=3, unique=True)):
            spec[f"{root}/skills/{plugin}{skill}/SKILL.md"] = skill_md(f"{plugin}{skill}")
        if draw(st.booleans()):  # a folder without its SKILL.md (yet)
            spec[f"{root}/skills/{plugin}w/notes.txt"] = "Work in progress.\n"
        for agent in draw(st.lists(st.sampled_from("xy"), max_size=2, unique=True)):
            spec[f"{root}/agents/{plugin}{agent}.md"] = agent_md(f"{plugin}{agent}")
        for command in draw(st.lists(st.sampled_from("mn"), max_size=1, unique=True)):
            spec[f"{root}/commands/{command}.md"] = "---\ndescription: A command.\n---\nDo it.\n"
        if draw(st.booleans()):
            spec[f"{root}/.mcp.json"] = json.dumps({"mcpServers": {plugin: {"command": "srv"}}})
    if draw(st.booleans()):
        listed = [{"name": f"m{n}", "source": f"./m{n}"} for n in names[:2]]
        market = {"name": "market", "owner": {"name": "t"}, "plugins": listed}
        spec["market/.claude-plugin/marketplace.json"] = json.dumps(market)
        for n in names[:2]:
            spec[f"market/m{n}/skills/mk{n}/SKILL.md"] = skill_md(f"mk{n}")
    return spec


ADDED = {
    ".mcp.json": json.dumps({"mcpServers": {"added": {"command": "srv"}}}),
    ".claude-plugin/plugin.json": json.dumps({"name": "added"}),
    "agents/added.md": agent_md("added"),
    "hooks/hooks.json": "{}",
}
MUTATIONS = (
    "edit", "append", "remove", "rename", "link", "chmod",
    *(f"add {name}" for name in ("SKILL.md", "new/SKILL.md", *ADDED)),
)  # fmt: skip


def mutate(home: Path, choice: int, how: str) -> None:
    """One change to a file or folder discovery or the install touched, its mtimes set into
    the past (the ctime is now: what the rule relies on)."""
    places = [plugins_dir(home), home / ".agents/skills", home / ".claude"]
    found = sorted(p for place in places for p in place.rglob("*"))
    target = found[choice % len(found)]
    parent = target.parent
    if how == "edit" and target.is_file() and not target.is_symlink():
        data = target.read_bytes()
        edit_in_place(target, data[-2:-1], b"Z" if data[-2:-1] != b"Z" else b"Y")
    elif how == "append" and target.is_file() and not target.is_symlink():
        with target.open("ab") as handle:
            handle.write(b"\nmore\n")
    elif how == "remove":
        shutil.rmtree(target) if target.is_dir() and not target.is_symlink() else target.unlink()
    elif how.startswith("add "):  # into a folder that lacked it: a negative probe's answer
        where = target if target.is_dir() and not target.is_symlink() else parent
        name = how[len("add ") :]
        build_file_tree(where, {name: ADDED.get(name, skill_md(where.name))})
        target = where / name.partition("/")[0]
    elif how == "rename":
        target.rename(parent / f"{target.name}-renamed")
    elif how == "link":
        other = found[(choice + 1) % len(found)]
        shutil.rmtree(target) if target.is_dir() and not target.is_symlink() else target.unlink()
        target.symlink_to(other)
    else:
        mode = target.lstat().st_mode
        if not target.is_symlink():
            target.chmod(stat.S_IMODE(mode) ^ 0o044)
    for path in (target, parent):
        if os.path.lexists(path):
            os.utime(path, (OLD, OLD), follow_symlinks=False)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    tree=trees(), choice=st.integers(min_value=0, max_value=10_000), how=st.sampled_from(MUTATIONS)
)
def test_a_cached_run_sees_what_a_run_without_cache_sees(
    tmp_path: Path, settled: None, tree: dict[str, str], choice: int, how: str
) -> None:
    home = Path(tempfile.mkdtemp(dir=tmp_path)) / "h"
    build_file_tree(plugins_dir(home), tree)
    (home / ".claude").mkdir(parents=True)
    installed(home)
    mutate(home, choice, how)
    catalogue, _ = cached_catalogue(home)
    assert catalogue == fresh_catalogue(home)
    assert status(home) == uncached(home)


def test_a_rendering_just_written_is_read_again_until_its_stamp_is_old(
    tmp_path: Path, racy: None
) -> None:
    """Its stamp is kept only once it is older than the racy window: till then it is read
    and digested on every run, as without the stamps."""
    from skilltool.cache import STAMPS, RenderCache

    home = a_home(tmp_path)
    assert run("plugins", "install", "--home", home).code == 0
    assert run("plugins", "status", "--home", home).code == 0
    renders = RenderCache(home / ".cache/skilltool/rendered.marshal")
    assert renders.old and renders.stamps == {}
    assert STAMPS not in renders.old


def test_a_value_marshal_cannot_store_keeps_the_catalogue_out_of_the_cache(
    tmp_path: Path, settled: None
) -> None:
    """An explicit `!!timestamp` in a frontmatter cannot be kept: runs walk, as without it."""
    home = a_home(tmp_path)
    extra = "metadata:\n  released: !!timestamp 2024-05-01\n"
    build_file_tree(
        plugins_dir(home), {"dated/skills/when/SKILL.md": skill_md("when", extra=extra)}
    )
    assert run("plugins", "install", "--home", home).code == 0
    assert not (home / CATALOGUE).exists()
    assert status(home) == uncached(home)


def test_a_marketplaces_renames_and_a_plugins_default_round_trip_through_the_cache(
    tmp_path: Path,
) -> None:
    home = a_home(tmp_path)
    build_file_tree(
        plugins_dir(home) / "market",
        {
            ".claude-plugin/marketplace.json": json.dumps(
                {
                    "name": "market",
                    "owner": {"name": "T"},
                    "plugins": [{"name": "new", "source": "./new", "defaultEnabled": False}],
                    "renames": {"old": "new", "gone": None},
                }
            ),
            "new/skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\n",
        },
    )
    catalogue = fresh_catalogue(home)
    [market] = catalogue.marketplaces
    assert dict(market.renames) == {"old": "new", "gone": None}
    assert [p.default_enabled for p in catalogue.plugins if p.name == "new"] == [False]
    assert decode(encode(catalogue)) == catalogue  # type: ignore[arg-type]
