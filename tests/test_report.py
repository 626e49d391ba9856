"""report: the only printer: lines, colour, the summary, JSON documents."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from skilltool import report
from skilltool.errors import UsageError
from skilltool.model import Problem
from skilltool.plan import Action, Outcome


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    terminal, pipe = Terminal(), io.StringIO()
    report.write_lines(["linked    skill x", "left      y: z"], terminal)
    report.write_lines(["linked    skill x"], pipe)
    assert (
        terminal.getvalue() == "\x1b[32mlinked\x1b[0m    skill x\n\x1b[33mleft\x1b[0m      y: z\n"
    )
    assert pipe.getvalue() == "linked    skill x\n"
    monkeypatch.setenv("NO_COLOR", "1")
    quiet = Terminal()
    report.write_lines(["linked    skill x"], quiet)
    assert quiet.getvalue() == "linked    skill x\n"


def _outcome(
    kind: str, change: str, state: str, owner: str = "skill", done: bool = True
) -> Outcome:
    action = Action(kind, owner, "n", Path("/t"), state, change)  # type: ignore[arg-type]
    return Outcome(action, done, "" if done else "broken")


class Writes(io.StringIO):
    """A pipe that records each write."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


def test_many_lines_go_out_whole_in_order_and_in_writes_a_pipe_takes_whole() -> None:
    """Status at ten thousand skills is as many lines: a write each cost a third of it, one
    write of them all may be cut short unseen under PYTHONUNBUFFERED."""
    lines = [f"  skill   skill-{n:05d}{'x' * (n % 90)}   linked" for n in range(3000)]
    lines.insert(1500, "left      " + "y" * 9000)  # longer than a write: one of its own
    pipe = Writes()
    report.write_lines(lines, pipe)
    assert pipe.getvalue() == "".join(line + "\n" for line in lines)
    assert len(pipe.writes) < len(lines) / 10
    assert all(len(w) <= report.WRITE_CHARS or w.count("\n") == 1 for w in pipe.writes)


def test_the_summary_line_counts_what_happened() -> None:
    outcomes = [
        *[_outcome("link", "create", "missing")] * 1200,
        _outcome("file", "replace", "stale", "codex"),
        _outcome("link", "none", "current"),
        _outcome("link", "none", "foreign"),
        _outcome("file", "none", "absent", "pi"),
        _outcome("file", "none", "absent", "pi"),
        _outcome("file", "none", "absent", "gemini"),
        _outcome("file", "create", "missing", "codex", done=False),
    ]
    found = report.counts(outcomes)
    assert report.summary_line(found, dry_run=False) == (
        "1,200 linked, 1 rendered, 1 unchanged, 1 left alone, 1 failed: 2 harnesses absent"
    )
    assert report.summary_line(report.counts([]), dry_run=True) == "dry-run: nothing to do"


def test_the_summary_counts_errors_and_warnings_and_whose_errors_they_are() -> None:
    mine = Problem(Path("/p/mine/agents/a.md"), "invalid YAML", line=5)
    theirs = Problem(Path("/s/tools/agents/b.md"), "invalid YAML", line=5)
    shadowed = Problem(Path("/p/mine/skills/x"), "another comes first", severity="warning")
    problems = [shadowed, theirs, mine, shadowed._replace(path=Path("/p/y"))]
    fetched = {theirs: "tools"}
    found = {**report.counts([_outcome("link", "create", "missing")])}
    found.update(report.problem_counts(problems, fetched))
    assert report.summary_line(found, dry_run=False) == (
        "1 linked; 1 error, 1 error in an added plugin (skipped), 2 warnings: "
        "see 'skilltool plugins validate'"
    )
    # warnings first, the user's errors last, nearest the prompt; each says what it is
    assert report.problem_lines(problems, fetched) == [
        "warning   /p/mine/skills/x: another comes first",
        "warning   /p/y: another comes first",
        "error     /s/tools/agents/b.md:5: invalid YAML (added with 'tools': skipped; "
        "its authors' to fix)",
        "error     /p/mine/agents/a.md:5: invalid YAML",
    ]
    assert report.problem_dict(theirs, fetched)["fetched"] == "tools"
    assert report.problem_dict(mine, fetched)["severity"] == "error"
    nothing = {**report.counts([]), **report.problem_counts(problems[:1], {})}
    assert report.summary_line(nothing, dry_run=False) == (
        "nothing to do; 1 warning: see 'skilltool plugins validate'"
    )


def test_an_error_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert report.emit_error("install", UsageError("no such home"), as_json=True) == 2
    assert json.loads(capsys.readouterr().out) == {
        "schema": report.SCHEMA,
        "command": "install",
        "error": {"message": "no such home", "exit_code": 2},
    }


def test_a_name_with_a_line_break_stays_one_line() -> None:
    assert report.printable("skill a\nb\x1b") == "skill a\\nb\\x1b"


def test_a_name_quoted_in_a_message_shows_bytes_as_a_path_shows_them() -> None:
    from skilltool.model import quoted

    name = "caf\udce9"  # b"caf\xe9" as the file system gives it: not UTF-8
    assert report.printable(name) == "caf\\xe9"
    assert quoted(name) == "'caf\\xe9'"
    assert quoted("a\\udce9") == repr("a\\udce9")  # a backslash in the name is not a byte
    assert quoted("it's\n") == repr("it's\n")


def test_a_file_name_that_is_not_utf8_is_shown_one_way_everywhere(home: Path) -> None:
    import os

    from tests.helpers import run, skill_md

    plugins = os.fsencode(home / ".local/share/skilltool/plugins")
    folder = plugins + b"/caf\xe9/skills/caf\xe9"
    os.makedirs(folder)
    Path(os.fsdecode(folder + b"/SKILL.md")).write_text(skill_md("cafe"))
    status = run("plugins", "status", "-v")  # with the plugin's folder
    assert "plugin    caf\\xe9 (user) ~/.local/share/skilltool/plugins/caf\\xe9: " in status.stdout
    for said in (status, run("plugins", "validate"), run("plugins", "install", "--dry-run")):
        shown = said.stdout + said.stderr
        assert "udc" not in shown, shown
        # the path and the name quoted in the message, alike
        assert "plugins/caf\\xe9: directory name 'caf\\xe9' is not a valid" in shown, shown
        assert "caf\\xe9/SKILL.md: its directory name 'caf\\xe9' cannot be linked" in shown


def test_a_link_under_the_home_is_shown_with_a_tilde_as_a_rendering_is(home: Path) -> None:
    from tests.helpers import agent_md, build_file_tree, plugin_tree, run

    (home / ".claude").mkdir()
    root = home / ".local/share/skilltool/plugins"
    plugin_tree(root, "docs", skills=("s1",))
    build_file_tree(root / "docs", {"agents/helper.md": agent_md("helper")})
    shown = "~/.local/share/skilltool/plugins/docs/skills/s1"
    for dry in (("--dry-run",), ()):
        lines = run("plugins", "install", *dry).lines
        prefix = "dry-run: " if dry else ""
        assert f"{prefix}linked    skill s1 -> {shown}" in lines
        assert f"{prefix}linked    claude   skill s1 -> {shown}" in lines
        assert f"{prefix}wrote     claude   ~/.claude/agents/helper.md" in lines
