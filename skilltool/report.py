"""Plans, outcomes and problems -> the lines a person reads, or the JSON a program reads.

One line per thing decided, with stable wording: the first word says what
happened, so that output can be grepped and compared across runs.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from skilltool import slash
from skilltool.errors import SkilltoolError
from skilltool.model import Catalogue, McpServer, Plugin, Problem, named_paths, quoted
from skilltool.parse import UNPRINTABLE
from skilltool.paths import Project, Scope
from skilltool.plan import Action, Outcome, absolute
from skilltool.record import NamedTuple

if TYPE_CHECKING:
    from skilltool.harnesses import Launch

# the version of every JSON document's shape (README, "JSON output"); bumped on a change
# that could break a reader: a field removed, renamed or given another type
SCHEMA = 1


class Result(NamedTuple):
    """What one command has to say, before it is printed as text or as JSON."""

    code: int
    data: dict[str, Any]  # the JSON document (schema and command are added on output)
    lines: tuple[str, ...] = ()  # stdout, for a person
    problems: tuple[str, ...] = ()  # stderr, for a person; in the JSON document's data already
    warnings: tuple[str, ...] = ()  # stderr, whatever the format
    raw: bytes | None = None  # printed exactly as it is instead of the lines (render)


def _painted(line: str) -> str:
    """The first word in colour: green for a change, yellow for a thing left, red for a failure."""
    word = line.split(" ", 1)[0]
    colour = COLOURS.get(word.rstrip(":"))
    return f"\x1b[{colour}m{word}\x1b[0m{line[len(word) :]}" if colour else line


COLOURS = {
    "linked": "32",
    "relinked": "32",
    "wrote": "32",
    "rewrote": "32",
    "unlinked": "33",
    "removed": "33",
    "left": "33",
    "skipped": "2",
    "failed": "31",
    "problem": "31",
    "error": "31",
    "warning": "33",
}


def _colour(stream: Any) -> bool:
    import os

    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class Progress:
    """One line on a terminal's stderr that a long run updates in place (`installing
    120/583`), cleared before the run's own lines print; never in a pipe, with -q or --json."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream  # None: nothing is shown
        self.shown = False
        self.last = 0.0

    def say(self, text: str) -> None:
        if self.stream is None:
            return
        import shutil
        import time

        width = shutil.get_terminal_size().columns - 1  # a wrapped line cannot be taken back
        self.stream.write(f"\r\x1b[K{printable(text)[:width]}")
        self.stream.flush()
        self.shown, self.last = True, time.monotonic()
        _showing[:] = [self]

    def steps(self, verb: str, actions: Sequence[Action]) -> Callable[[int], None] | None:
        """What counts the changes of a plan as they are made (`verb N/M`), a few times a
        second; none when nothing is shown or nothing is to be changed."""
        total = sum(a.writes for a in actions) if self.stream is not None else 0
        if not total:
            return None
        import time

        self.say(f"{verb} 0/{total:,}")

        def step(done: int) -> None:
            if done == total or time.monotonic() - self.last >= 0.1:
                self.say(f"{verb} {done:,}/{total:,}")

        return step

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


_showing: list[Progress] = []  # the progress line on the terminal, if any


def clear_progress() -> None:
    """Take the progress line off the terminal, before a question is asked there."""
    for line in _showing:
        line.clear()


@contextlib.contextmanager
def progress(quiet: bool) -> Iterator[Progress]:
    """A progress line for the run in the body, on stderr when it is a terminal and the run
    is not `quiet` (-q, --json); cleared when the body ends, however it ends."""
    isatty = getattr(sys.stderr, "isatty", None)
    shown = not quiet and bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"
    line = Progress(sys.stderr if shown else None)
    try:
        yield line
    finally:
        with contextlib.suppress(OSError, ValueError):
            line.clear()


# characters a write holds at most: no more bytes than a pipe takes whole (PIPE_BUF, 4,096 on
# Linux) for ASCII, so that under PYTHONUNBUFFERED, where a short write would be dropped
# unseen, a write is whole or fails; a line to itself at ten thousand lines cost a third
WRITE_CHARS = 4000


def write_lines(lines: Iterable[str], stream: Any) -> None:
    """The lines, each made printable (and painted on a terminal), a few thousand
    characters a write."""
    colour = _colour(stream)
    batch: list[str] = []
    size = 0
    for line in lines:
        text = _painted(printable(line)) if colour else printable(line)
        if batch and size + len(text) >= WRITE_CHARS:  # (a longer line is a write of its own)
            stream.write("\n".join(batch) + "\n")
            batch, size = [], 0
        batch.append(text)
        size += len(text) + 1
    if batch:
        stream.write("\n".join(batch) + "\n")
    stream.flush()


def emit(command: str, result: Result, as_json: bool) -> int:
    """Print a command's result: the only place output is written. Returns its exit code."""
    if as_json:
        emit_json({"schema": SCHEMA, "command": command, **result.data})
    elif result.raw is not None:
        sys.stdout.flush()
        sys.stdout.buffer.write(result.raw)
        sys.stdout.buffer.flush()
    else:
        write_lines(result.lines, sys.stdout)
    if not as_json:
        write_lines(result.problems, sys.stderr)
    write_lines(result.warnings, sys.stderr)
    return result.code


def emit_error(command: str, err: SkilltoolError, as_json: bool) -> int:
    """A command that could not run at all: one line, or one JSON error object."""
    if as_json:
        error = {"message": err.message, "exit_code": err.exit_code}
        emit_json({"schema": SCHEMA, "command": command, "error": error})
    else:
        # not "skilltool: error:", which stands for a failure of skilltool itself (runs.guarded)
        write_lines([f"skilltool: {err.message}"], sys.stderr)
    return err.exit_code


DONE_VERBS = {
    ("link", "create"): "linked",
    ("link", "replace"): "relinked",
    ("link", "remove"): "unlinked",
    ("copy", "create"): "copied",
    ("copy", "replace"): "recopied",
    ("copy", "remove"): "removed",
    ("file", "create"): "wrote",
    ("file", "replace"): "rewrote",
    ("file", "remove"): "removed",
    ("entry", "create"): "added",
    ("entry", "replace"): "updated",
    ("entry", "remove"): "removed",
    ("command", "create"): "wrote",
    ("command", "replace"): "rewrote",
    ("command", "remove"): "removed",
    ("hook", "create"): "wrote",
    ("hook", "replace"): "rewrote",
    ("hook", "remove"): "removed",
}
STATUS_WORDS = {
    "missing": "not linked",
    "current": "linked",
    "stale": "stale",
    "foreign": "left alone",
}


COPY_WORDS = {"missing": "not copied", "current": "copied", "foreign": "left alone"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if "\udc80" <= char <= "\udcff":  # a byte that is not UTF-8, as the file system gave it
        return f"\\x{ord(char) - 0xDC00:02x}"
    return ascii(char)[1:-1]


def printable(line: str) -> str:
    """A line as it can be printed: a name's line breaks, control characters and bytes that
    are not UTF-8 are shown escaped, so one thing decided stays one line and never fails
    to encode."""
    if line.isprintable():  # holds none of UNPRINTABLE: the pattern is not compiled at all
        return line
    return re.sub(UNPRINTABLE, _escape, line)


def _what(action: Action, home: Scope) -> str:
    if action.kind in ("link", "copy"):
        # a link in a harness's own skills dir says whose it is
        return (
            f"skill {action.name}"
            if action.owner == "skill"
            else f"{action.owner:<8} skill {action.name}"
        )
    if action.kind == "entry":
        return (
            f"{action.owner:<8} {entry_label(action)} {action.name} in {home.show(action.target)}"
        )
    return f"{action.owner:<8} {home.show(action.target)}"


SKIPPED = ("absent", "unready", "unsupported")  # the harness takes nothing here: "skipped"


def action_line(action: Action, home: Scope, error: str = "") -> str:
    """The line for one action: what was (or would be) done, or why nothing was."""
    where = home.show(action.target)
    if error:
        return f"{'failed':<9} {where}: {error}"
    if action.state in SKIPPED:
        return f"{'skipped':<9} {action.owner}: {action.reason}"
    if action.change == "none":
        if action.state == "current":
            return f"{'unchanged':<9} {_what(action, home)}"
        return f"{'left':<9} {where}: {action.reason}"
    verb = DONE_VERBS[(action.kind, action.change)]
    if action.kind == "link" and action.change != "remove":
        to = home.show(action.source) if action.source is not None else ""
        return f"{verb:<9} {_what(action, home)} -> {to}"
    if action.kind == "copy" and action.change != "remove":
        return f"{verb:<9} {_what(action, home)} from {home.show(action.source or action.target)}"
    if action.change == "remove" or action.reason:
        return (
            f"{verb:<9} {_what(action, home)} ({action.reason})"
            if action.reason
            else f"{verb:<9} {_what(action, home)}"
        )
    return f"{verb:<9} {_what(action, home)}"


Verbosity = Literal["quiet", "normal", "verbose"]


def outcome_lines(
    outcomes: Iterable[Outcome], home: Scope, dry_run: bool, verbosity: Verbosity = "verbose"
) -> list[str]:
    """One line per thing decided: changes, things left and failures; `unchanged` lines only
    when verbose, failures only when quiet; an absent harness once, not once per agent."""
    prefix = "dry-run: " if dry_run else ""
    outcomes = list(outcomes)
    lines, said = [], set()
    uncarried = _uncarried(outcomes, home)
    alike = _alike_skips(outcomes)
    for outcome in outcomes:
        action = outcome.action
        if (action.owner, action.kind) in uncarried and _is_uncarried(action):
            line = uncarried.pop((action.owner, action.kind))
            lines += [] if verbosity == "quiet" and outcome.done else [prefix + line]
            continue
        if _is_uncarried(action):
            continue  # said in the harness's one line above
        key = _skip_key(action)
        if key is not None and key in alike:
            if alike[key]:  # said once, where its first agent comes
                lines += [] if verbosity == "quiet" and outcome.done else [prefix + alike[key]]
                alike[key] = ""
            continue
        if verbosity == "quiet" and outcome.done:
            continue
        if (
            verbosity == "normal"
            and outcome.done
            and not action.writes
            and action.state == "current"
        ):
            continue
        if (
            verbosity == "normal"
            and isinstance(home, Project)
            and action.state == "absent"
            and action.owner not in home.harnesses
        ):
            continue  # a harness the manifest does not name: the team's choice, counted below
        line = action_line(action, home, outcome.error)
        if action.state in SKIPPED:
            if line in said:
                continue
            said.add(line)
        lines.append(prefix + line)
    return lines


def _skip_key(action: Action) -> tuple[str, str] | None:
    """A harness's reason for skipping an agent with the agent's name taken out (Hermes: "profile
    'x' does not exist (create it: hermes profile create x)"), to say such skips once."""
    if action.kind != "file" or action.state not in SKIPPED or not action.name:
        return None
    if action.name not in action.reason:
        return None  # (cheap: a pattern per agent would also churn `re`'s cache of patterns)
    name = re.escape(action.name)
    reason = re.sub(rf"(?<![\w.-]){name}(?![\w-])", "<name>", action.reason)
    return (action.owner, reason) if reason != action.reason else None


def _alike_skips(outcomes: list[Outcome]) -> dict[tuple[str, str], str]:
    """One line for the agents a harness skips for the same reason but their names."""
    by: dict[tuple[str, str], list[str]] = {}
    for outcome in outcomes:
        key = _skip_key(outcome.action)
        if key is not None:
            names = by.setdefault(key, [])
            if outcome.action.name not in names:
                names.append(outcome.action.name)
    return {
        key: f"{'skipped':<9} {key[0]}: {len(names)} agents: {key[1]}: {', '.join(names)}"
        for key, names in by.items()
        if len(names) > 1
    }


def _is_uncarried(action: Action) -> bool:
    """A plugin's commands, all left by a harness that takes none (`slash._not_carried`), or
    its hooks, by a harness that runs none here (hooks.py: "unsupported")."""
    if action.kind == "hook":
        return action.state == "unsupported"
    return action.kind == "command" and action.reason.startswith(f"plugin {action.name}'s ")


def _uncarried(outcomes: list[Outcome], home: Scope) -> dict[tuple[str, str], str]:
    """A harness that takes no command (or runs no hook): one line for all the plugins'
    commands (hooks) it leaves."""
    by: dict[tuple[str, str], list[Action]] = {}
    for outcome in outcomes:
        if _is_uncarried(outcome.action):
            by.setdefault((outcome.action.owner, outcome.action.kind), []).append(outcome.action)
    lines = {}
    for (owner, kind), actions in by.items():
        if len(actions) == 1:
            lines[(owner, kind)] = action_line(actions[0], home)
            continue
        why = actions[0].reason.partition(slash.NOT_CARRIED)[2]
        plugins = f"the {kind}s of {len(actions)} plugins"
        lines[(owner, kind)] = f"{'skipped':<9} {owner}: {plugins}{slash.NOT_CARRIED}{why}"
    return lines


SUMMARY_WORDS = {
    ("link", "create"): "linked",
    ("link", "replace"): "linked",
    ("link", "remove"): "unlinked",
    ("copy", "create"): "copied",
    ("copy", "replace"): "copied",
    ("copy", "remove"): "removed",
    ("file", "create"): "rendered",
    ("file", "replace"): "rendered",
    ("file", "remove"): "removed",
    ("entry", "create"): "configured",
    ("entry", "replace"): "configured",
    ("entry", "remove"): "removed",
    ("command", "create"): "rendered",
    ("command", "replace"): "rendered",
    ("command", "remove"): "removed",
    ("hook", "create"): "rendered",
    ("hook", "replace"): "rendered",
    ("hook", "remove"): "removed",
}
SUMMARY_ORDER = (
    "linked",
    "unlinked",
    "copied",
    "rendered",
    "configured",
    "removed",
    "unchanged",
    "left_alone",
    "failed",
)


def counts(outcomes: Iterable[Outcome], settled: int = 0) -> dict[str, int]:
    """How many things each word of the summary line stands for, and harnesses absent;
    `settled`: the links of the plan's `Settled` dirs, each unchanged."""
    found = dict.fromkeys(SUMMARY_ORDER, 0)
    found["unchanged"] = settled
    absent: set[str] = set()
    for outcome in outcomes:
        action = outcome.action
        if not outcome.done:
            found["failed"] += 1
        elif action.state == "absent":
            absent.add(action.owner)
        elif action.change != "none":
            found[SUMMARY_WORDS[(action.kind, action.change)]] += 1
        elif action.state == "current":
            found["unchanged"] += 1
        elif action.state not in ("unready", "unsupported"):
            found["left_alone"] += 1
    found["harnesses_absent"] = len(absent)
    return found


def summary_line(found: dict[str, int], dry_run: bool) -> str:
    """`12 linked, 3 rendered, 2,031 unchanged, 1 left alone: 2 harnesses absent`, then the
    problems `problem_counts` counted: `; 1 error, 36 warnings: see ...`."""
    parts = [f"{found[key]:,} {key.replace('_', ' ')}" for key in SUMMARY_ORDER if found[key]]
    text = ", ".join(parts) or "nothing to do"
    absent = found["harnesses_absent"]
    if absent:
        text += f": {absent} harness{'es' if absent > 1 else ''} absent"
    told = [
        f"{found[key]:,} {words[found[key] > 1]}"
        for key, words in PROBLEM_WORDS.items()
        if found.get(key)
    ]
    if told:
        text += f"; {', '.join(told)}: see 'skilltool plugins validate'"
    return ("dry-run: " if dry_run else "") + text


# the summary line's words for the problems of a run, in one and in many
PROBLEM_WORDS = {
    "errors": ("error", "errors"),
    "errors_in_fetched": (
        "error in an added plugin (skipped)",
        "errors in added plugins (skipped)",
    ),
    "warnings": ("warning", "warnings"),
}


def problem_counts(problems: Iterable[Problem], fetched: Mapping[Problem, str]) -> dict[str, int]:
    """The problems of a run for its summary: the user's errors, the errors in plugins
    added with `add` (`fetched`, from consent.upstream), the warnings."""
    found = dict.fromkeys(PROBLEM_WORDS, 0)
    for problem in problems:
        key = "warnings" if problem.severity == "warning" else "errors"
        found["errors_in_fetched" if problem in fetched else key] += 1
    return found


def problem_said(problem: Problem, fetched: str | None = None) -> str:
    """A problem as a run prints it, its first word `error` or `warning` so the two never
    read alike; one in a plugin added with `add` names its source (`fetched`)."""
    if problem.severity == "warning":
        return f"{'warning':<9} {problem}"
    tail = f" (added with {quoted(fetched)}: skipped; its authors' to fix)" if fetched else ""
    return f"{'error':<9} {problem}{tail}"


def problem_lines(problems: Iterable[Problem], fetched: Mapping[Problem, str]) -> list[str]:
    """Each problem's line, warnings first and the user's errors last, nearest the prompt:
    the lines to act on are the ones left in view."""

    def rank(problem: Problem) -> int:
        return 0 if problem.severity == "warning" else 1 if problem in fetched else 2

    return [problem_said(p, fetched.get(p)) for p in sorted(problems, key=rank)]


def problem_dict(problem: Problem, fetched: Mapping[Problem, str]) -> dict[str, object]:
    """A problem in a run's JSON: `fetched` names the source of an error in a fetched plugin
    (skipped, and the run does not fail for it unless --strict)."""
    return {**problem.as_dict(), "fetched": fetched.get(problem)}


def next_step(actions: Iterable[Action]) -> str:
    """What `install` would do now, as the closing line of `status`."""
    found = counts(Outcome(a, True) for a in actions)
    words = ("linked", "unlinked", "rendered", "configured", "removed")
    work = [f"{found[w]:,} {w}" for w in words if found[w]]
    if not work:
        return "next      nothing to install: every skill and rendering is current"
    return f"next      'skilltool plugins install' would do: {', '.join(work)}"


def diff_lines(actions: Iterable[Action], home: Scope) -> list[str]:
    """A unified diff of every rendering that would be rewritten: what --force discards."""
    import difflib

    from skilltool.fs import read_regular

    lines: list[str] = []
    for action in actions:
        if (
            action.kind not in ("file", "command", "hook")
            or action.state not in ("stale", "edited")
            or not action.content
        ):
            continue
        old = read_regular(action.target)
        if old is None:
            continue
        where = home.show(action.target)
        lines += difflib.unified_diff(
            old.decode("utf-8", "replace").splitlines(),
            action.content.decode("utf-8", "replace").splitlines(),
            f"{where} (on disk)",
            f"{where} ({'would be written' if action.writes else 'with --force'})",
            lineterm="",
        )
    return lines + entry_diff_lines(actions, home)


def new_file_lines(actions: Iterable[Action], home: Scope) -> list[str]:
    """A unified diff of every rendering that would be made or removed, and a line for
    every link that would be made, changed or removed: what `check` shows beside
    `diff_lines`."""
    import difflib

    from skilltool.fs import read_regular

    lines: list[str] = []
    for action in actions:
        if not action.writes or action.kind == "entry":
            continue
        where = home.show(action.target)
        if action.kind == "link":
            to = home.show(action.source) if action.source is not None else ""
            said = {"create": "new link", "replace": "link now", "remove": "link removed"}
            lines.append(f"{said.get(action.change, action.change)}: {where} -> {to}")
            continue
        if action.change == "create" and action.content is not None:
            new = action.content.decode("utf-8", "replace").splitlines()
            lines += difflib.unified_diff([], new, "/dev/null", where, lineterm="")
        elif action.change == "remove":
            old = read_regular(action.target) or b""
            gone = old.decode("utf-8", "replace").splitlines()
            lines += difflib.unified_diff(gone, [], where, "/dev/null", lineterm="")
    return lines


def entry_diff_lines(actions: Iterable[Action], home: Scope) -> list[str]:
    """A unified diff of each config file whose entries would change: the file on disk
    against its text after every edit planned in it (an edit chains on the one before)."""
    import difflib

    from skilltool.fs import read_config

    final: dict[Path, bytes | None] = {}
    for action in actions:
        if action.kind == "entry" and action.writes:
            final[action.target] = action.content
    lines: list[str] = []
    for target, after in final.items():
        old = read_config(target) if os.path.lexists(target) else None
        where = home.show(target)
        lines += difflib.unified_diff(
            (old or b"").decode("utf-8", "replace").splitlines(),
            (after or b"").decode("utf-8", "replace").splitlines(),
            f"{where} ({'on disk' if old is not None else 'not there yet'})",
            f"{where} ({'would be written' if after is not None else 'would be removed'})",
            lineterm="",
        )
    return lines


def emptied_line(path: Path, home: Scope, dry_run: bool = False) -> str:
    """A directory uninstall removed (or would): skilltool made it, and nothing is left in it."""
    prefix = "dry-run: " if dry_run else ""
    return f"{prefix}{'removed':<9} {home.show(path)} (an empty directory skilltool made)"


class Purged(NamedTuple):
    """One of skilltool's own folders `uninstall --purge` removed, or kept or failed to."""

    path: Path
    what: str  # what the folder holds
    verb: Literal["removed", "kept", "failed"] = "removed"
    reason: str = ""  # why it is kept, or what failed
    failure: bool = False  # the run fails: kept for a reason the user must act on, or failed

    def as_dict(self) -> dict[str, str]:
        return {"path": str(self.path), "result": self.verb, "reason": self.reason}


def purged_line(purged: Purged, home: Scope, dry_run: bool = False) -> str:
    """A folder of skilltool's own that `uninstall --purge` removed (or would), or did not."""
    where = home.show(purged.path)
    if purged.verb != "removed":
        return f"{purged.verb:<9} {where}: {purged.reason}"
    prefix = "dry-run: " if dry_run else ""
    return f"{prefix}{'removed':<9} {where} ({purged.what})"


def problem_line(problem: Problem) -> str:
    suffix = " (warning)" if problem.severity == "warning" else ""
    return f"{problem}{suffix}"


def action_dict(action: Action, home: Scope, outcome: Outcome | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "kind": action.kind,
        "owner": action.owner,
        "name": action.name,
        "target": str(action.target),
        "state": action.state,
        "change": action.change,
        "source": str(action.source) if action.source else None,
        "reason": action.reason,
        "line": action_line(action, home, outcome.error if outcome else ""),
    }
    if outcome is not None:
        data["done"] = outcome.done
        data["error"] = outcome.error or None
    return data


def emit_json(data: object) -> None:
    import json

    json.dump(data, sys.stdout, indent=2, sort_keys=False)
    sys.stdout.write("\n")


FILE_WORDS = {
    "missing": "missing",
    "current": "current",
    "stale": "outdated",
    "edited": "edited",
    "foreign": "foreign",
    "absent": "harness absent",
    "unready": "skipped",
    "placeholder": "missing",
    "unsupported": "not supported",
    "unparsable": "unparsable",
}


class SkillPaths:
    """The absolute paths of a plugin's skills by name, made when first asked for, once a
    plugin (a walk of all its skills for each skill was quadratic, at a hundred skills a
    plugin); a skill whose link is its own path as written never asks."""

    __slots__ = ("_paths", "plugin")

    def __init__(self, plugin: Plugin) -> None:
        self.plugin = plugin
        self._paths: dict[str, set[str]] | None = None

    def of(self, name: str) -> set[str]:
        if self._paths is None:
            self._paths = {}
            for each, path in named_paths(self.plugin.skills):
                self._paths.setdefault(each, set()).add(absolute(path))
        return self._paths.get(name, set())


# skill name -> its link in a skills dir: an Action, or where a current link points, as the
# catalogue writes the path (a `plan.Settled` dir, whose links were never made into Actions)
Links = Mapping[str, Action | str]


def skill_state(
    plugin: Plugin, name: str, path: str, links: Links, mine: SkillPaths
) -> tuple[str, str]:
    """How one skill of a plugin (its name and path as the catalogue writes it) stands in a
    skills dir, as words and a reason (`mine`: the plugin's `SkillPaths`)."""
    if not plugin.active:
        return "shadowed", f"by {plugin.shadowed_by}"
    link = links.get(name)
    if isinstance(link, str):
        ours = link == path or absolute(link) in mine.of(name)
        return ("linked", "") if ours else (NOT_LINKED, NOT_LINKED_WHY)
    if link is None or link.source is None:
        return NOT_LINKED, NOT_LINKED_WHY
    source = str(link.source)
    if source != path and source not in mine.of(name):
        return NOT_LINKED, NOT_LINKED_WHY
    if link.kind == "copy":
        return COPY_WORDS.get(link.state, link.state), link.reason
    return STATUS_WORDS[link.state], link.reason


NOT_LINKED, NOT_LINKED_WHY = "not linked", "another plugin's skill of that name comes first"


def settled_links(catalogue: Catalogue) -> dict[str, str]:
    """Where each winning skill's link points, as `plan` makes it (the first active plugin on
    the path wins a name), the path as the catalogue writes it: the links of a `Settled` dir,
    without making a `Skill`."""
    links: dict[str, str] = {}
    for plugin in catalogue.active:
        for name, path in named_paths(plugin.skills):
            links.setdefault(name, path)
    return links


def fetch_command(plugin: str, marketplace: str) -> str:
    """The command that brings a remote marketplace entry in (SPEC §9)."""
    return f"skilltool plugins add {plugin}@{marketplace}"


def _kind_note(plugin: Plugin) -> str:
    """What a plugin was taken for, when it is more than a plugin directory."""
    if plugin.kind == "marketplace plugin":
        return f", marketplace {plugin.marketplace}"
    return "" if plugin.kind == "plugin" else f", {plugin.kind}"


def _count(number: int, what: str) -> str:
    """ "2 commands", "1 MCP server", or "" for none."""
    return "" if not number else f"{number} {what}{'' if number == 1 else 's'}"


def carried(plugin: Plugin) -> str:
    """What a plugin carries, in words: `3 skills, 1 agent, 1 MCP server, 2 hooks`."""
    counts = [
        (len(plugin.skills), "skill"),
        (len(plugin.agents), "agent"),
        (len(plugin.slash_commands), "command"),
        (len(plugin.mcp_servers), "MCP server"),
        (len(plugin.hook_commands), "hook"),
    ]
    said = [_count(n, what) for n, what in counts if n]
    return ", ".join(said) or "nothing skilltool carries"


# an item install leaves as it is, which only the user can settle: not ours, edited by hand,
# or in a config file that does not parse
NEEDS_USER = ("foreign", "edited", "unparsable")


class PluginState(NamedTuple):
    """One plugin in one line (`status`, `list`): where it comes from, what it carries, and
    how it stands: all current, what install would do for it, what needs the user."""

    plugin: Plugin
    source: str  # its origin, or the name of the source it was added with
    to_do: int  # the things install would do for it
    left: tuple[Action, ...]  # its items install leaves, for the user to settle (NEEDS_USER)
    off: str = ""  # what of it the user turned off, and where: "off in claude; agent x off in pi"

    @property
    def problems(self) -> int:
        return len(self.left) + len(self.plugin.problems)

    @property
    def needs_user(self) -> bool:
        return self.plugin.active and bool(self.to_do or self.problems)

    @property
    def state(self) -> Literal["current", "to do", "problems", "shadowed"]:
        if not self.plugin.active:
            return "shadowed"
        return "problems" if self.problems else "to do" if self.to_do else "current"

    def words(self, home: Scope) -> str:
        """`all current`, `3 to do`, `3 to do, 1 problem`, or whose plugin it gives way to."""
        if self.plugin.shadowed_by is not None:
            return f"shadowed by {home.show(self.plugin.shadowed_by)}"
        said = [f"{self.to_do:,} to do" if self.to_do else "", _count(self.problems, "problem")]
        state = ", ".join(w for w in said if w) or "all current"
        return f"{state}; {self.off}" if self.off else state

    def line(self, home: Scope, path: bool = False) -> str:
        """`plugin    docs (user): 2 skills, 1 agent: all current`; with `path`, its folder
        after the parenthesis."""
        plugin = self.plugin
        # the source's name, when it is not the plugin's own
        source = "" if self.source in (plugin.origin, plugin.name) else f" from {self.source}"
        taken = f"{plugin.origin}{source}{_kind_note(plugin)}"
        where = f" {home.show(plugin.root)}" if path else ""
        return f"plugin    {plugin.name} ({taken}){where}: {carried(plugin)}: {self.words(home)}"

    def as_dict(self) -> dict[str, Any]:
        plugin = self.plugin
        return {
            "name": plugin.name,
            "origin": plugin.origin,
            "source": self.source,
            "kind": plugin.kind,
            "path": str(plugin.root),
            "skills": len(plugin.skills),
            "agents": len(plugin.agents),
            "commands": len(plugin.slash_commands),
            "mcp_servers": len(plugin.mcp_servers),
            "hooks": len(plugin.hook_commands),
            "state": self.state,
            "to_do": self.to_do,
            "problems": self.problems,
            "shadowed_by": str(plugin.shadowed_by) if plugin.shadowed_by else None,
            "off": self.off or None,
        }


class StatusView(NamedTuple):
    """What `status` shows: the search path, each plugin, its skills' links, its agents' files."""

    catalogue: Catalogue
    links: dict[str, Action]  # skill name -> its link in the skills dir
    harness_links: dict[tuple[str, str], Action]  # (harness, skill) -> its link there
    files: list[Action]
    # (harness, agent) -> how its tool list fares there, e.g. "gives it no tools"; None: as written
    tools: dict[tuple[str, str], str | None]
    home: Scope
    skills_dir: Path
    entries: tuple[Action, ...] = ()  # each MCP server's entry in each harness's config
    commands: Sequence[Action] = ()  # each command's file in each harness (slash.plan_commands)
    hooks: Sequence[Action] = ()  # each plugin's hook files in each harness (hooks.plan_hooks)
    settled: tuple[str, ...] = ()  # the owners of the skills dirs the plan found as planned
    # the harnesses not set up here, said once at the top: name -> "" for those listed in one
    # line, else why (a harness the project names that reads no project: a line of its own)
    absent: Mapping[str, str] | None = None
    sources: Mapping[str, str] | None = None  # an added plugin's folder -> its source's name
    # the harnesses whose folder a variable moves: name -> (the folder, the variable)
    moved: Mapping[str, tuple[Path, str]] | None = None
    off: Mapping[str, str] | None = None  # a plugin -> what of it the user turned off, where

    def _entries_of(self, server: McpServer) -> list[Action]:
        return [a for a in self.entries if a.name == server.name and a.source == server.path]

    def _server_lines(self, plugin: Plugin) -> list[str]:
        """`  mcp     <server>  <file>`, then one line per harness: its entry's state."""
        lines = []
        for server in plugin.mcp_servers:
            lines.append(f"  mcp     {server.name:<24} {self.home.show(server.path)}")
            if not plugin.active:
                continue
            entries = self._entries_of(server)
            if not entries:
                lines.append(f"    {'shadowed':<25} by another plugin's server of that name")
            for action in entries:
                if action.state == "absent":  # said once, at the top
                    continue
                word = FILE_WORDS[action.state]
                where = self.home.show(action.target)
                why = action.reason.removeprefix(f"mcp {server.name}: ")
                tail = f": {why}" if why and action.state not in ("current", "missing") else ""
                if action.state in SKIPPED:
                    where, tail = why, ""
                lines.append(f"    {action.owner:<9} {word:<15} {where}{tail}")
        return lines

    def _server_dicts(self, plugin: Plugin) -> list[dict[str, Any]]:
        from skilltool.mcp import server_dict

        return [
            {
                **server_dict(server),
                "entries": [
                    {
                        "harness": a.owner,
                        "state": FILE_WORDS[a.state],
                        "target": str(a.target),
                        "reason": a.reason or None,
                    }
                    for a in self._entries_of(server)
                ],
            }
            for server in plugin.mcp_servers
        ]

    def _link_maps(self) -> tuple[Links, dict[str, Links]]:
        """The links in the skills dir by skill name, and those in each harness's own skills
        dir (Claude Code's), the harnesses in name order: made once a view, not once a skill."""
        current = settled_links(self.catalogue) if self.settled else {}
        own: dict[str, dict[str, Action]] = {}
        for (owner, name), action in self.harness_links.items():
            own.setdefault(owner, {})[name] = action
        by: dict[str, Links] = {owner: current for owner in self.settled if owner != "skill"}
        by.update(own)
        links = current if "skill" in self.settled else self.links
        return links, {owner: by[owner] for owner in sorted(by)}

    def _skills(
        self, plugin: Plugin, links: Links, by_harness: dict[str, Links]
    ) -> Iterator[tuple[str, str, str, str, dict[str, str]]]:
        """Each skill of the plugin (name, path), how it stands in the skills dir (words,
        reason), and in each harness's own skills dir (words)."""
        mine = SkillPaths(plugin)
        for name, path in named_paths(plugin.skills):
            state, reason = skill_state(plugin, name, path, links, mine)
            states = {
                owner: skill_state(plugin, name, path, there, mine)[0]
                for owner, there in by_harness.items()
            }
            yield name, path, state, reason, states

    def _files_of(self, agent: str) -> list[Action]:
        return [a for a in self.files if a.name == agent]

    def _winners(self) -> dict[str, Path]:
        """Agent name -> the file of the agent rendered under it (the first on the path)."""
        from skilltool.plan import winning_agents

        return {a.name: a.path for a in winning_agents(self.catalogue)[0]}

    def _tools_note(self, action: Action) -> str:
        note = self.tools.get((action.owner, action.name))
        return "" if note is None or action.state in ("absent", "unready") else f" ({note})"

    def _link_of(self, name: str, path: str, links: Links, mine: SkillPaths) -> Action | None:
        """The action for one skill's link in a skills dir, when it is this skill's (as
        `skill_state` decides it); None for a link of a settled dir, current as planned."""
        link = links.get(name)
        if isinstance(link, str) or link is None or link.source is None:
            return None
        source = str(link.source)
        return link if source == path or source in mine.of(name) else None

    def _actions_of(
        self,
        plugin: Plugin,
        links: Links,
        by_harness: dict[str, Links],
        winners: dict[str, Path],
        by_source: Mapping[Path | None, list[Action]],
    ) -> list[Action]:
        """Every action of the plan for the plugin's items: its skills' links, its agents'
        files, its commands', servers' and hooks', and the files made for the plugin as a
        whole (Claude Code's manifest beside its servers); none for a shadowed plugin.
        `by_source`: the plan's files and commands by the file they come from."""
        if not plugin.active:
            return []
        found: list[Action] = []
        mine = SkillPaths(plugin)
        for name, path in named_paths(plugin.skills):
            for there in (links, *by_harness.values()):
                link = self._link_of(name, path, there, mine)
                found += [link] if link is not None else []
        for agent in plugin.agents:
            if winners.get(agent.name) == agent.path:
                found += [a for a in by_source.get(agent.path, []) if a.name == agent.name]
        for command in plugin.slash_commands:
            found += by_source.get(command.path, [])
        found += by_source.get(plugin.root, [])
        for server in plugin.mcp_servers:
            found += self._entries_of(server)
        return found + _hooks_of(plugin, self.hooks)

    def states(
        self, made: tuple[Links, dict[str, Links], dict[str, Path]] | None = None
    ) -> list[PluginState]:
        """Each plugin in one line's worth: what install would do for it, what needs the user.
        `made`: the link maps and the winning agents, when the caller has them already."""
        links, by_harness, winners = made or (*self._link_maps(), self._winners())
        by_source: dict[Path | None, list[Action]] = {}
        for action in (*self.files, *self.commands):
            by_source.setdefault(action.source, []).append(action)
        sources = self.sources or {}
        found = []
        for plugin in self.catalogue.plugins:
            actions = self._actions_of(plugin, links, by_harness, winners, by_source)
            left = tuple(a for a in actions if not a.writes and a.state in NEEDS_USER)
            source = sources.get(str(plugin.root), plugin.origin)
            off = (self.off or {}).get(plugin.name, "")
            found.append(PluginState(plugin, source, sum(a.writes for a in actions), left, off))
        return found

    def _detail_lines(
        self, plugin: Plugin, links: Links, by_harness: dict[str, Links], winners: dict[str, Path]
    ) -> list[str]:
        """Each item of a plugin and how it stands in each harness set up here."""
        show = self.home.show
        lines = []
        mine = SkillPaths(plugin)
        for name, path in named_paths(plugin.skills):  # as _skills, without a record each
            state, reason = skill_state(plugin, name, path, links, mine)
            tail = f": {reason}" if reason and state not in ("linked", "not linked") else ""
            for owner, there in by_harness.items():
                tail += f"; {owner}: {skill_state(plugin, name, path, there, mine)[0]}"
            lines.append(f"  skill   {name:<24} {state}{tail}")
        for agent in plugin.agents:
            lines.append(f"  agent   {agent.name:<24} {show(agent.path)}")
            told: set[str] = set()
            if not plugin.active:
                continue
            winner = winners.get(agent.name)
            if winner != agent.path:  # another plugin's agent of that name is rendered
                lines.append(f"    {'shadowed':<25} by {show(winner) if winner else '?'}")
                continue
            for action in self._files_of(agent.name):
                if action.state == "absent":  # said once, at the top
                    continue
                word = FILE_WORDS[action.state]
                where = action.reason if action.state == "unready" else show(action.target)
                # the tools note once per harness: it is about the agent, not each file
                note = "" if action.owner in told else self._tools_note(action)
                told.add(action.owner)
                lines.append(f"    {action.owner:<9} {word:<15} {where}{note}")
        lines += self._server_lines(plugin)
        if plugin.active:
            lines += slash.status_lines(plugin, self.commands, show)
            lines += hook_lines(plugin, self.hooks, show)
        if plugin.claude_only:
            parts = ", ".join(plugin.claude_only)
            said = "only Claude Code's own loader takes them; not carried"
            lines.append(f"  parts   {parts}: {said}")
        return lines

    def absent_lines(self) -> list[str]:
        """The harnesses not set up here in one line, rather than one under every item; one
        the project names but that reads no project, on a line of its own with why."""
        absent = self.absent or {}
        names = [name for name, why in absent.items() if not why]
        where = "in this project" if self.home.kind == "project" else "here"
        said = f"{len(names)} harness{'es' if len(names) > 1 else ''} not set up {where}"
        lines = [f"absent    {said}: {', '.join(names)}"] if names else []
        return lines + [f"absent    {name}: {why}" for name, why in absent.items() if why]

    def lines(self, named: Collection[str] = (), verbosity: Verbosity = "normal") -> list[str]:
        """One line per plugin (its folder and every item too when verbose or named);
        `named`: only those plugins; quiet: only the plugins that need the user, no header."""
        show = self.home.show
        quiet = verbosity == "quiet"
        lines = []
        if not quiet:
            lines.append(f"skills    {show(self.skills_dir)}")
            lines += [
                f"moved     {name}: {show(root)} (${variable})"
                for name, (root, variable) in (self.moved or {}).items()
            ]
            layouts = self.catalogue.layouts
            lines += [
                f"search    {e.origin:<8} {show(e.path)} ({layouts.get(e.path, 'not read')})"
                for e in self.catalogue.entries
            ]
            lines += self.absent_lines()
            if not self.catalogue.plugins:
                lines.append("no plugins found on the search path")
        links, by_harness = self._link_maps()
        winners = self._winners()
        for state in self.states((links, by_harness, winners)):
            plugin = state.plugin
            if (named and plugin.name not in named) or (quiet and not state.needs_user):
                continue
            detail = not quiet and (verbosity == "verbose" or plugin.name in named)
            lines.append(state.line(self.home, path=detail))
            if detail:
                lines += self._detail_lines(plugin, links, by_harness, winners)
            else:
                lines += [f"  {action_line(a, self.home)}" for a in state.left]
            lines += [f"  {p.severity:<7} {p}" for p in plugin.problems]
        if quiet or named:
            return lines
        for market, entry in self.catalogue.not_fetched():
            lines.append(
                f"remote    {entry.name} (marketplace {market.name}): not fetched; "
                f"fetch it with: {fetch_command(entry.name, market.name)}"
            )
        return lines

    def as_dict(self) -> dict[str, Any]:
        plugins = []
        winners = self._winners()
        links, by_harness = self._link_maps()
        for plugin in self.catalogue.plugins:
            skills = []
            for name, path, state, reason, states in self._skills(plugin, links, by_harness):
                skills.append(
                    {
                        "name": name,
                        "path": path,
                        "link": state,
                        "reason": reason or None,
                        "harness_links": states,
                    }
                )
            agents = []
            for agent in plugin.agents:
                winner = winners.get(agent.name)
                shadowed = plugin.active and winner != agent.path
                renderings = (
                    []
                    if not plugin.active or shadowed
                    else [
                        {
                            "harness": a.owner,
                            "state": FILE_WORDS[a.state],
                            "target": str(a.target),
                            "reason": a.reason or None,
                            "tools_enforced": self.tools.get((a.owner, a.name)) is None,
                            "tools": self.tools.get((a.owner, a.name)),
                        }
                        for a in self._files_of(agent.name)
                    ]
                )
                agents.append(
                    {
                        "name": agent.name,
                        "path": str(agent.path),
                        "description": agent.description,
                        "renderings": renderings,
                        # the agent rendered instead, when another plugin's comes first
                        "shadowed_by": str(winner) if shadowed else None,
                    }
                )
            plugins.append(
                {
                    "name": plugin.name,
                    "origin": plugin.origin,
                    "path": str(plugin.root),
                    "manifest": str(plugin.manifest) if plugin.manifest else None,
                    "kind": plugin.kind,
                    "marketplace": plugin.marketplace,
                    "commands": [str(c) for c in plugin.commands],
                    "shadowed_by": str(plugin.shadowed_by) if plugin.shadowed_by else None,
                    "off": (self.off or {}).get(plugin.name),
                    "skills": skills,
                    "agents": agents,
                    "mcp_servers": self._server_dicts(plugin),
                    **slash.status_dict(plugin, self.commands),
                    "hooks": hook_dict(plugin, self.hooks),
                    "claude_only": list(plugin.claude_only),
                    "problems": [p.as_dict() for p in plugin.problems],
                }
            )
        return {
            "search_path": [
                {
                    "path": str(e.path),
                    "origin": e.origin,
                    "layout": self.catalogue.layouts.get(e.path, "not read"),
                }
                for e in self.catalogue.entries
            ],
            "skills_dir": str(self.skills_dir),
            "harness_homes": {
                name: {"path": str(root), "variable": variable}
                for name, (root, variable) in (self.moved or {}).items()
            },
            "plugins": plugins,
            "problems": [p.as_dict() for p in self.catalogue.problems],
            "not_fetched": [
                {
                    "name": entry.name,
                    "marketplace": market.name,
                    "source": entry.source if isinstance(entry.source, str) else dict(entry.source),
                    "command": fetch_command(entry.name, market.name),
                }
                for market, entry in self.catalogue.not_fetched()
            ],
        }


def entry_label(action: Action) -> str:
    """What an entry of a config file runs: a hook's entry is named `<plugin>:<event>-…`
    (Mistral Vibe's hooks.toml), which no MCP server's name can be."""
    return action.label or ("hook" if ":" in action.name else "mcp")


def _hooks_of(plugin: Plugin, actions: Sequence[Action]) -> list[Action]:
    return [
        a
        for a in actions
        if (a.name == plugin.name or a.name.startswith(f"{plugin.name}:"))
        and a.source in plugin.hooks
    ]


def hook_lines(plugin: Plugin, actions: Sequence[Action], show: Any) -> list[str]:
    """A plugin's hooks: how many on which events, then each harness's file for them, or
    why a harness runs none (or none on some event)."""
    if not plugin.hooks:
        return []
    events = ", ".join(dict.fromkeys(h.event for h in plugin.hook_commands))
    said = f"{_count(len(plugin.hook_commands), 'command') or 'no command'}"
    said += f" on {events}" if events else ""
    lines = [f"  hooks   {said}: " + ", ".join(show(p) for p in plugin.hooks)]
    for action in _hooks_of(plugin, actions):
        if action.state == "absent":
            continue
        word = FILE_WORDS[action.state]
        there = action.reason if action.state in SKIPPED else show(action.target)
        lines.append(f"    {action.owner:<9} {word:<15} {there}")
    return lines


def hook_dict(plugin: Plugin, actions: Sequence[Action]) -> dict[str, Any]:
    """The JSON of a plugin's hooks: the commands, and each harness's files or reason."""
    return {
        "files": [str(p) for p in plugin.hooks],
        "commands": [
            {
                "event": h.event,
                "matcher": h.matcher,
                "command": h.command,
                "timeout": h.timeout,
                "path": str(h.path),
            }
            for h in plugin.hook_commands
        ],
        "renderings": [
            {
                "harness": a.owner,
                "state": FILE_WORDS[a.state],
                "target": None if a.state in SKIPPED else str(a.target),
                "reason": a.reason or None,
            }
            for a in _hooks_of(plugin, actions)
        ],
    }


def bundled_line(lost: Sequence[tuple[str, str, str]]) -> str:
    """`status`'s one line for the bundled plugin's skills and agents that plugins the user
    chose take the place of (plan.bundled_not_used): `note      the bundled skill …`."""
    said = []
    for kind in ("skill", "agent"):
        names = [name for k, name, _ in lost if k == kind]
        if names:
            said.append(f"{kind}{'s' if len(names) > 1 else ''} {', '.join(names)}")
    whose = sorted({by for *_, by in lost})
    if len(whose) > 1:
        theirs = f"plugins {', '.join(whose)} have their own, which come first"
    else:
        theirs = f"plugin {whose[0]} has its own, which comes first"
    verb = "is" if len(lost) == 1 else "are"
    return f"note      the bundled {' and '.join(said)} {verb} not used: {theirs}"


def source_line(row: dict[str, Any]) -> str:
    """One added source, as `status` shows it: where from, ref, commit, local changes."""
    if row["name"] is None:
        return f"problem   {row['problem']}"
    ref = f" ref {row['ref']}" if row["ref"] and row["ref"] != row["commit"] else ""
    ref = "" if row.get("archive") else ref  # its digest, said as sha256
    ref = " default branch" if row["commit"] and not row["ref"] else ref
    commit = f" commit {row['commit'][:12]}" if row["commit"] else ""
    commit = f" version {row['version']}" if row.get("version") else commit
    commit = f" sha256 {row['sha256'][:12]}" if row.get("sha256") else commit
    commit += f" plugins {', '.join(row['plugins'])}" if row["plugins"] else ""
    commit += f" skills {', '.join(row['skills'])} alone" if row.get("skills") else ""
    changes = row["local_changes"]
    tail = f" ({len(changes)} local change(s): {', '.join(changes[:3])})" if changes else ""
    tail += f" ({row['problem']})" if row["problem"] else ""
    return f"source    {row['name']} {row['source']}{ref}{commit}{tail}"


def runs_line(run: Mapping[str, Any]) -> str:
    """What a fetched source has a harness run, and whether it is approved as it is."""
    from skilltool.runnables import label

    state = "approved" if run["approved"] else "not approved: no harness is given it"
    note = f" ({run['note']})" if run.get("note") else ""
    return f"  runs    {run['plugin']}: {label(str(run['what']))}: {run['command']} ({state}){note}"


def host_snippet(host: str, title: str, agent: str, argv: list[str], env: dict[str, str]) -> str:
    """The entry for one ACP host's configuration file that starts `argv` as an agent."""
    import json

    import tomlkit

    if host in ("zed", "jetbrains", "json"):
        server: dict[str, object] = {"command": argv[0], "args": argv[1:], "env": env}
        if host == "zed":  # settings.json
            server = {"agent_servers": {title: {"type": "custom", **server}}}
        elif host == "jetbrains":  # ~/.jetbrains/acp.json
            server = {"agent_servers": {title: server}}
        return json.dumps(server, indent=2, ensure_ascii=False)
    document = tomlkit.document()
    if host == "agentd":  # an argv, run directly: no shell, no environment
        document["argv"] = argv
        return tomlkit.dumps(document).rstrip("\n")
    block = tomlkit.table()  # otto's ~/.config/otto/agents.toml
    block.update(id=agent, name=title, command=argv[0], args=argv[1:])
    if env:
        table = tomlkit.inline_table()
        table.update(env)
        block["env"] = table
    document.append("agents", tomlkit.aot())
    document["agents"].append(block)
    return tomlkit.dumps(document).rstrip("\n")


def mix_string(text: str) -> str:
    """A string of agentd's strict-data ("mix") syntax: double-quoted, escaped as JSON is."""
    import json

    return json.dumps(text, ensure_ascii=False)


def agentd_snippet(name: str, argv: list[str], roots: list[str], policy: str) -> str:
    """The agent's entry of agentd's configuration, in its own syntax: a key of its `agents:`
    map (letters, digits and '_'), an argv run with no shell and no environment, the folders
    a session may run in, and whether it asks before a tool runs."""
    key = re.sub(r"[^A-Za-z0-9_]", "_", name)
    items = ", ".join(mix_string(a) for a in argv)
    folders = ", ".join(mix_string(r) for r in roots)
    return "\n".join(
        [
            "# agentd: under `agents:` in its configuration ($MIXOS_AGENTD_CONF, else "
            "/agent.conf.mix); agentd runs the argv as it is, with no environment",
            f"{key}: {{argv: [{items}], roots: [{folders}], policy: {mix_string(policy)}}}",
        ]
    )


def otto_snippet(entry: Mapping[str, Any]) -> str:
    """An `[[agents]]` entry of otto's agents.toml (~/.config/otto/agents.toml)."""
    import tomlkit

    block = tomlkit.table()
    for key in ("id", "name", "description", "command", "args", "skills", "agent"):
        if key in entry:
            block[key] = entry[key]
    if entry.get("env"):
        table = tomlkit.inline_table()
        table.update(entry["env"])
        block["env"] = table
    for key in ("enter", "enter_new"):
        if key in entry:
            block[key] = entry[key]
    document = tomlkit.document()
    document.append("agents", tomlkit.aot())
    document["agents"].append(block)
    lines = [
        "# otto: ~/.config/otto/agents.toml",
        *tomlkit.dumps(document).rstrip("\n").split("\n"),
    ]
    return "\n".join([*lines, *(f"# {note}" for note in entry.get("notes", []))])


def launch_lines(agent: str, harness: str, how: Launch) -> list[str]:
    """The command, its environment, and an agents.toml block for an ACP host."""
    import shlex

    import tomlkit

    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in how.env.items())
    command = " ".join(shlex.quote(c) for c in how.command)
    lines = [f"# start {harness} as the agent {agent} over ACP", f"{env} {command}".strip(), ""]
    block = tomlkit.table()
    block["id"] = agent
    block["name"] = f"{agent} ({harness})"
    block["command"] = how.command[0]
    block["args"] = how.command[1:]
    if how.env:
        env_table = tomlkit.inline_table()
        env_table.update(how.env)
        block["env"] = env_table
    document = tomlkit.document()
    document.append("agents", tomlkit.aot())
    document["agents"].append(block)
    lines += ["# agents.toml", *tomlkit.dumps(document).rstrip("\n").split("\n")]
    lines += [f"# {note}" for note in how.notes]
    return lines
