"""Actions -> disk. The only module that writes.

Every write is atomic (a temporary file in the same directory, fsync, rename) and
never follows a link at the target. Before each change the target is checked
again: if it is no longer what the plan saw, it is left alone. Runs against one
home are serialised by a lock in the user's state directory.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from skilltool import interrupt
from skilltool.fs import (
    TEMP_PREFIX,
    digest,
    edit_target,
    existing,
    fsync_dir,
    read_config,
    read_link,
    read_regular,
    sweep,
    write_file,
    write_in_place,
)
from skilltool.paths import escape
from skilltool.plan import Action, Boundary, Outcome

if TYPE_CHECKING:
    from skilltool.ledger import Ledger

MADE_DIRS = "made-dirs"  # in the state dir: each directory an apply made, one a line


class MadeDirs:
    """The directories skilltool made, recorded in the state dir as it makes them: known, not
    guessed, so that uninstall removes only those, and only when they are empty. A
    directory the user made is never in it."""

    def __init__(self, state_dir: Path | None, within: Path | None = None) -> None:
        self.record = state_dir / MADE_DIRS if state_dir is not None else None
        self.paths: list[Path] = []
        data = read_regular(self.record) if self.record is not None else None
        if data is not None:
            lines = data.decode("utf-8", "surrogateescape").splitlines()
            self.paths = [Path(line) for line in lines if os.path.isabs(line)]
        if within is not None:  # a project's record is its files': none of it names elsewhere
            self.paths = [p for p in self.paths if escape(within, p) is None]

    def make(self, directory: Path) -> None:
        """`mkdir -p`, recording each level before making it: a run killed between the two
        leaves a record of a directory that is not there, which `prune` passes over, never
        a directory of skilltool's that nothing says is its own. One that appears meanwhile
        (someone else's) is taken out of the record again."""
        missing = []
        for path in (directory, *directory.parents):
            if os.path.lexists(path):
                break
            missing.append(path)
        if not missing:
            return
        self.paths += reversed(missing)
        self.save()
        for path in reversed(missing):
            try:
                os.mkdir(path)
            except FileExistsError:
                self.paths.remove(path)
                self.save()
                if not os.path.isdir(path):
                    raise

    def prune(self, keep: frozenset[Path]) -> list[Path]:
        """Remove each recorded directory that is empty now, deepest first; never one in
        `keep` (a harness's own root, the home). Returns those removed."""
        removed, left = [], []
        for path in sorted(set(self.paths), key=lambda p: len(p.parts), reverse=True):
            if path in keep or not os.path.lexists(path):
                continue
            try:
                os.rmdir(path)  # only an empty directory goes; anything else raises
            except OSError:
                left.append(path)
                continue
            removed.append(path)
        if removed:
            self.paths = sorted(left)
            self.save()
        return removed

    def would_prune(self, keep: frozenset[Path], going: frozenset[Path]) -> list[Path]:
        """The directories `prune` would remove once every path in `going` is gone: what
        `uninstall --dry-run` says, without touching anything."""
        gone, removed = set(going), []
        for path in sorted(set(self.paths), key=lambda p: len(p.parts), reverse=True):
            if path in keep or not os.path.isdir(path) or os.path.islink(path):
                continue
            try:
                names = os.listdir(path)
            except OSError:
                continue
            if all(path / name in gone for name in names):
                gone.add(path)
                removed.append(path)
        return removed

    def save(self) -> None:
        if self.record is None:
            return
        text = "".join(f"{os.fsdecode(p)}\n" for p in dict.fromkeys(self.paths))
        self.record.parent.mkdir(parents=True, exist_ok=True)
        write_file(self.record, text.encode("utf-8", "surrogateescape"), 0o644, replace=True)


def _link(action: Action, made: MadeDirs, within: Path | None) -> None:
    assert action.source is not None
    link = action.target
    if action.change == "remove":
        os.unlink(link)
        return
    made.make(link.parent)
    to = link_text(action.source, link, within)
    if action.change == "create":
        os.symlink(to, link)
        return
    tmp = link.parent / f"{TEMP_PREFIX}{os.getpid()}-{link.name}"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    os.symlink(to, tmp)
    os.replace(tmp, link)


def link_text(source: Path, link: Path, within: Path | None) -> str:
    """What a link holds: its source's absolute path; in a project (`within`), a source
    inside it as a path relative to the link, the same in every checkout."""
    if within is not None and source.is_relative_to(within) and link.is_relative_to(within):
        return os.path.relpath(source, link.parent)
    return str(source)


def _file(action: Action, made: MadeDirs) -> None:
    target, backup = action.target, action.backup
    if action.keep is not None:  # a hand edit that --force discards: kept beside it first
        edited = read_regular(target)
        if edited is not None:
            write_file(action.keep, edited, 0o644, replace=False)
    if action.change == "remove":
        if backup is not None and read_regular(backup) is not None:
            os.replace(backup, target)  # the harness's own original comes back in one step
        else:
            os.unlink(target)
        fsync_dir(target.parent)
        return
    assert action.content is not None
    if backup is not None and not os.path.lexists(backup):
        original = read_regular(target)
        if original is not None:
            write_file(backup, original, 0o644, replace=False)
    made.make(target.parent)
    write_file(target, action.content, action.mode, replace=action.change == "replace")


def unwritable(actions: Iterable[Action]) -> dict[Path, str]:
    """The directories an apply of these actions must write in but cannot, and why.

    Checked before anything is written, so that a read-only or locked-down place stops
    the whole run instead of leaving it half done.
    """
    found: dict[Path, str] = {}
    parents: set[str] = set()
    checked: set[Path] = set()
    for action in actions:
        if not action.writes:  # first: a no-op at ten thousand links asks nothing more
            continue
        parent = os.path.dirname(action.target)
        if parent in parents:
            continue
        parents.add(parent)
        directory = existing(Path(parent))
        if directory in checked:
            continue
        checked.add(directory)
        if not os.path.isdir(directory) or os.access(directory, os.W_OK | os.X_OK):
            continue  # not a directory: the write fails on its own, with its own line
        try:
            read_only = bool(os.statvfs(directory).f_flag & os.ST_RDONLY)
        except OSError:
            read_only = False
        found[directory] = (
            "on a read-only file system" if read_only else "not writable (permission denied)"
        )
    return found


def _failure(err: OSError, target: Path) -> str:
    """What went wrong writing at `target`, and what to do about it, in one clause."""
    what = err.strerror or str(err)
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"{what}; free some space, then run again"
    if err.errno == errno.EROFS:
        return f"{what}; make {target.parent} writable, then run again"
    if err.errno in (errno.ENOTDIR, errno.EEXIST):
        blocker = next((p for p in target.parents if os.path.lexists(p)), target.parent)
        if not os.path.isdir(blocker):
            return f"{blocker} is not a directory; move it away, then run again"
    return f"{what}; check the permissions of {target.parent}"


def _still(action: Action) -> bool:
    """Whether the target is still what the plan saw."""
    if action.state == "missing":
        return not os.path.lexists(action.target)
    if action.kind == "link":
        return os.path.islink(action.target) and read_link(action.target) == action.seen
    if action.kind == "copy":
        from skilltool import copies

        if action.seen == copies.LINKED:  # our link to the skill, which the copy replaces
            return os.path.islink(action.target) and read_link(action.target) == str(action.source)
        return os.path.isdir(action.target) and copies.digest(action.target) == action.seen
    data = read_regular(action.target)
    return data is not None and digest(data) == action.seen


class _Changed(Exception):
    """The file is no longer what the plan saw: nothing was written."""


def _entry(action: Action, made: MadeDirs, ledger: Ledger) -> None:
    """One entry of a shared config file, recorded as pending in the ledger before the file
    is written and settled after: a crash in between leaves a record the next run settles by
    what the file holds, never an entry of ours unrecorded nor a record of one never written.
    The file keeps its mode: it may hold a token."""
    assert action.entry is not None
    target = action.target
    if action.change == "remove":
        ledger.begin(action.entry, removing=True)
        if action.content is None:
            os.unlink(target)
            fsync_dir(target.parent)
        else:
            _rewrite(target, action.content, action.seen)
        ledger.drop(action.entry)
        return
    assert action.content is not None
    ledger.begin(action.entry)
    if os.path.lexists(target):
        _rewrite(target, action.content, action.seen)
    else:
        made.make(target.parent)
        write_file(target, action.content, 0o644, replace=False)
    ledger.add(action.entry)


def _rewrite(target: Path, content: bytes, seen: str | None) -> None:
    """A config file rewritten with its mode (it may hold a token): through a link, the file
    it resolves to, in that file's folder; a file with hard links in place, so that its
    other names see the change too; any other atomically, by a rename."""
    real, why = edit_target(target)
    if why:
        raise _Changed
    info = os.stat(real)
    if info.st_nlink > 1:
        if not write_in_place(real, content, seen):
            raise _Changed
        return
    write_file(real, content, info.st_mode & 0o7777, replace=True)


def _entry_still(action: Action) -> bool:
    """Whether an entry's file is still what the plan saw (the whole file: one entry
    cannot be judged apart from the text it is edited in)."""
    if action.seen is None:
        return not os.path.lexists(action.target)
    data = read_config(action.target)
    return data is not None and digest(data) == action.seen


def carry_out(
    action: Action,
    made: MadeDirs | None = None,
    ledger: Ledger | None = None,
    within: Path | None = None,
) -> Outcome:
    """Carry out one action; `within`: the project whose links are written relative."""
    if not action.writes:
        return Outcome(action, True)
    if action.kind == "entry":
        return _carry_out_entry(action, made or MadeDirs(None), ledger)
    if not _still(action):
        return Outcome(action, False, "changed while skilltool was working; run again")
    try:
        made = made or MadeDirs(None)
        if action.kind == "link":
            _link(action, made, within)
        elif action.kind == "copy":
            from skilltool import copies

            made.make(action.target.parent)
            copies.write(action, within)
        else:
            _file(action, made)
    except OSError as err:
        if isinstance(err, FileExistsError) and os.path.lexists(action.target):
            why = "something appeared there while skilltool was working; run again"
            return Outcome(action, False, why)
        return Outcome(action, False, _failure(err, action.target))
    return Outcome(action, True)


def _carry_out_entry(action: Action, made: MadeDirs, ledger: Ledger | None) -> Outcome:
    if not _entry_still(action):
        return Outcome(action, False, "changed while skilltool was working; run again")
    if ledger is None:
        from skilltool.ledger import Ledger

        ledger = Ledger(None)
    try:
        _entry(action, made, ledger)
    except _Changed:
        return Outcome(action, False, "changed while skilltool was working; run again")
    except OSError as err:  # said of the folder written in: a linked file's own
        return Outcome(action, False, _failure(err, edit_target(action.target)[0]))
    return Outcome(action, True)


def _folders(actions: Iterable[Action]) -> set[str]:
    """The folders the actions are in, where a killed run may have left a temporary file;
    the links of one owner are all in its one skills dir (one path made a string, not 10,000)."""
    skipped = ("absent", "unready", "unsupported")
    found: set[str] = set()
    linked: set[str] = set()
    for action in actions:
        if action.state in skipped:
            continue
        if action.kind == "link":
            if action.owner in linked:
                continue
            linked.add(action.owner)
        found.add(os.path.dirname(action.target))
        if action.kind == "entry" and action.writes:  # a linked config is written beside its file
            found.add(os.path.dirname(os.path.realpath(action.target)))
    return found


def apply(
    actions: tuple[Action, ...],
    made: MadeDirs | None = None,
    ledger: Ledger | None = None,
    clean: Collection[str] = (),
    within: Path | None = None,
    step: Callable[[int], None] | None = None,
) -> list[Outcome]:
    """Carry out each action; `made` records the directories made on the way, `ledger` the
    entries written into shared config files. `clean`: folders not swept, known to hold no
    temporary file (a skills dir unchanged since every entry in it was a planned link).
    `within`: a project, whose links into itself are written relative. `step` is told how
    many changes were made so far, after each. After Ctrl-C (`interrupt.requested`) no
    action is begun: the outcomes are those of the actions carried out, in order."""
    # planned inside the project, and still inside when carried out: a link made meanwhile
    boundary = Boundary(within)
    led_out = {a for a in actions if a.writes and boundary.action_out(a)}
    sweep(sorted(_folders(a for a in actions if a not in led_out).difference(clean)))
    outcomes = []
    failed: dict[Path, str] = {}  # a config file whose edit failed, and why
    changes = 0
    for action in actions:
        if interrupt.requested():
            break
        why = failed.get(action.target) if action.kind == "entry" and action.writes else None
        if action in led_out:
            why = f"{boundary.said(action)}; run again"
        # the next edit of that file chains on the one that failed: the same reason stops it
        outcome = (
            carry_out(action, made, ledger, within) if why is None else Outcome(action, False, why)
        )
        if not outcome.done and action.kind == "entry":
            failed[action.target] = outcome.error
        outcomes.append(outcome)
        if action.writes and step is not None:
            changes += 1
            step(changes)
    return outcomes
