"""Broken plugins (tests/hostile/corpus.py): each gives its exact one-line problems naming
the file, the plugins beside it are still installed, exit codes follow SPEC §4, and no run
ever shows a traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from skilltool import parse
from tests.helpers import Result, agent_md, build_file_tree, run, skill_md
from tests.hostile import corpus
from tests.hostile.tally import COUNTS

CASES = sorted(set(corpus.fixture_cases()) | set(corpus.RECIPES))
HARNESS_DIRS = (".config/opencode", ".codex", ".pi/agent", ".hermes/profiles/good-agent")
# each agent of the good plugin, as every harness renders it
GOOD_RENDERINGS = (
    ".config/opencode/agent/good-agent.md",
    ".hermes/profiles/good-agent/SOUL.md",
    ".codex/skilltool/good-agent.md",
    ".codex/skilltool/good-agent.json",
    ".codex/good-agent.config.toml",
    ".pi/agent/skilltool/good-agent.md",
    ".pi/agent/skilltool/good-agent",
)


def as_user(command: list[str]) -> list[str]:
    """Run so that file modes apply: root gives up the capabilities that ignore them."""
    if os.geteuid() != 0:
        return command
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: no file is unreadable")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]


def subprocess_run(*args: str | Path, home: Path, permissions: bool = False) -> Result:
    """The CLI as a user runs it: its own process, strict UTF-8 output, a timeout."""
    command = [sys.executable, "-m", "skilltool", *map(str, args)]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "HOME": str(home)}
    done = subprocess.run(
        as_user(command) if permissions else command,
        env=env,
        capture_output=True,
        text=True,
        errors="surrogateescape",
        timeout=120,
    )
    return Result(done.returncode, done.stdout, done.stderr)


def problem_lines(lines: list[str]) -> list[str]:
    """validate's lines without its verdicts (what each harness does with an item, and the
    line that says a harness takes no agent at all)."""
    return [line for line in lines if ": verdict: " not in line and " takes none: " not in line]


def as_run_says(line: str) -> str:
    """A line of validate's as install and status print it: its severity first."""
    if line.endswith(" (warning)"):
        return f"warning   {line.removesuffix(' (warning)')}"
    return f"error     {line}"


def in_a_plugin(line: str) -> str:
    """A line of validate's as status prints it under its plugin."""
    severity, text = as_run_says(line).split(None, 1)
    return f"  {severity:<7} {text}"


def no_traceback(result: Result) -> None:
    for text in (result.stdout, result.stderr):
        assert "Traceback" not in text, text
        assert "skilltool: error:" not in text, text


class Corpus:
    """A search path holding the good plugin and some cases, and a home with every harness."""

    def __init__(self, tmp_path: Path, home: Path) -> None:
        # the conftest points XDG_DATA_DIRS at tmp_path/system: these are system plugins
        self.plugins = tmp_path / "system/skilltool/plugins"
        self.outside = self.plugins.parent / "outside"
        self.home = home
        self.roots: dict[str, Path] = {}
        build_file_tree(
            self.plugins / "good",
            {
                "skills/good-skill/SKILL.md": skill_md("good-skill"),
                "agents/good-agent.md": agent_md("good-agent"),
            },
        )
        for directory in HARNESS_DIRS:
            (home / directory).mkdir(parents=True, exist_ok=True)

    def add(self, case: str) -> Path:
        self.roots[case] = corpus.build(case, self.plugins, self.outside)
        return self.roots[case]

    def problems(self, case: str) -> list[str]:
        return corpus.expected_lines(case, self.roots[case], self.outside)

    def linked(self, root: Path) -> set[str]:
        skills = self.home / ".agents/skills"
        if not skills.is_dir():
            return set()
        prefix = str(root) + os.sep
        return {n for n in os.listdir(skills) if os.readlink(skills / n).startswith(prefix)}

    def rendered(self, root: Path) -> set[str]:
        """Agents of a plugin rendered for OpenCode (the harness every agent goes to)."""
        found = set()
        for path in (self.home / ".config/opencode/agent").glob("*.md"):
            marker = f"rendered by skilltool from {root}{os.sep}agents{os.sep}"
            if marker in path.read_text(encoding="utf-8", errors="surrogateescape"):
                found.add(path.stem)
        return found

    def good_is_installed(self) -> None:
        link = self.home / ".agents/skills/good-skill"
        assert os.readlink(link) == str(self.plugins / "good/skills/good-skill")
        for rendering in GOOD_RENDERINGS:
            assert (self.home / rendering).is_file(), rendering

    def nothing_left(self) -> None:
        skills = self.home / ".agents/skills"
        assert not skills.is_dir() or os.listdir(skills) == []
        for rendering in GOOD_RENDERINGS:
            assert not (self.home / rendering).exists(), rendering


@pytest.fixture
def world(tmp_path: Path, home: Path) -> Iterator[Corpus]:
    made = Corpus(tmp_path, home)
    yield made
    for root in made.roots.values():
        corpus.restore_modes(root)


def test_every_case_has_an_expected_entry() -> None:
    assert set(corpus.EXPECTED) == set(CASES)
    COUNTS["corpus cases"] = len(CASES)
    for case, entry in corpus.EXPECTED.items():
        assert entry["source"] == ("recipe" if case in corpus.RECIPES else "fixture"), case
        assert entry["about"], case
        assert entry["validate"] == entry["install"] in (0, 1), case
        errors = [p for p in entry["problems"] if not p.endswith(" (warning)")]
        assert entry["validate"] == (1 if errors else 0), case
        # one line each, naming the file (or directory) the problem is in
        assert all(p.startswith("{plugin}") and "\n" not in p for p in entry["problems"]), case


@pytest.mark.parametrize("case", CASES)
def test_case_gives_its_exact_lines_and_spares_the_others(world: Corpus, case: str) -> None:
    root = world.add(case)
    expected = world.problems(case)
    entry = corpus.EXPECTED[case]
    in_subprocess = case in corpus.NEEDS_PERMISSIONS or case in corpus.MAY_HANG

    def cli(*args: str | Path) -> Result:
        COUNTS["corpus runs"] += 1
        if in_subprocess:
            result = subprocess_run(*args, home=world.home, permissions=True)
        else:
            result = run(*args)
        no_traceback(result)
        return result

    checked = cli("plugins", "validate")
    *lines, summary = checked.lines
    assert summary.startswith("checked "), checked.stdout
    assert problem_lines(lines) == expected
    assert checked.code == entry["validate"]

    installed = cli("plugins", "install", "--home", world.home)
    said = [as_run_says(line) for line in expected]  # the warnings first, then the errors
    assert installed.stderr.splitlines() == sorted(said, key=lambda x: x.startswith("error"))
    assert installed.code == entry["install"]
    assert "failed" not in installed.stdout
    world.good_is_installed()
    assert world.linked(root) == set(entry["linked"])
    assert world.rendered(root) == set(entry["rendered"])

    status = cli("plugins", "status", "--home", world.home)
    assert status.code == 0
    for line in expected:
        assert in_a_plugin(line) in status.lines or as_run_says(line) in status.lines, line

    removed = cli("plugins", "uninstall", "--home", world.home)
    assert removed.code == 0  # all of its own removed, whatever the plugins hold
    assert "failed" not in removed.stdout
    world.nothing_left()
    COUNTS["corpus problems"] += len(expected)


def test_the_whole_corpus_at_once_as_a_user_runs_it(world: Corpus) -> None:
    """Every case in one search path, in real processes with strict UTF-8 output, with file
    modes applied: each case's lines, nothing else, and the good plugin still installed."""
    for case in CASES:
        world.add(case)
    expected = sorted(line for case in CASES for line in world.problems(case))

    def cli(*args: str | Path) -> Result:
        COUNTS["corpus runs"] += 1
        result = subprocess_run(*args, home=world.home, permissions=True)
        no_traceback(result)
        return result

    checked = cli("plugins", "validate")
    assert checked.code == 1
    assert sorted(problem_lines(checked.lines[:-1])) == expected
    installed = cli("plugins", "install", "--home", world.home)
    assert installed.code == 1
    assert sorted(installed.stderr.splitlines()) == sorted(map(as_run_says, expected))
    world.good_is_installed()
    for case in CASES:
        assert world.linked(world.roots[case]) == set(corpus.EXPECTED[case]["linked"]), case
        assert world.rendered(world.roots[case]) == set(corpus.EXPECTED[case]["rendered"]), case
    assert cli("plugins", "status", "--home", world.home).code == 0
    assert cli("plugins", "status", "--json", "--home", world.home).code == 0
    assert cli("plugins", "uninstall", "--home", world.home).code == 0
    world.nothing_left()
    assert not Path("skilltool-pwned").exists()


def _bytes_read() -> int:
    with open("/proc/self/io", encoding="ascii") as handle:
        return int(next(line for line in handle if line.startswith("rchar:")).split()[1])


@pytest.mark.skipif(not os.path.exists("/proc/self/io"), reason="needs Linux /proc/self/io")
def test_huge_files_are_read_no_further_than_needed(world: Corpus) -> None:
    """Three 50 MB files: a run reads their heads (the agent's limit at most), not them."""
    root = world.add("huge-files")
    sizes = [p.stat().st_size for p in root.rglob("*.md")]
    assert sizes == [50 * corpus.MB] * 3
    before = _bytes_read()
    assert run("plugins", "validate", root).code == 1
    assert run("plugins", "install", "--home", world.home).code == 1
    read = _bytes_read() - before
    # two runs, each reading the two skills to their limit and the agent to its own, and
    # some slack for everything else; reading the files whole would be 300 MB
    budget = 2 * (2 * (parse.SKILL_READ_LIMIT + 1) + parse.AGENT_SIZE_LIMIT + 1) + 4 * corpus.MB
    assert read < budget, f"read {read} bytes"
