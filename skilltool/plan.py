"""Model + what is on disk -> a list of Actions. Reads, never writes.

`status` prints a plan, `install` and `uninstall` apply one, `--dry-run` prints the
plan an apply would carry out: one code path for all of them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

from skilltool import markers
from skilltool.fs import TEMP_PREFIX, child, digest, gone, read_regular
from skilltool.model import (
    Agent,
    Catalogue,
    EntryRecord,
    Plugin,
    Problem,
    SearchEntry,
    Skill,
    named_paths,
    quoted,
)
from skilltool.record import NamedTuple

if TYPE_CHECKING:
    from skilltool.cache import RenderCache
    from skilltool.harnesses import Harness
    from skilltool.model import Rendering
    from skilltool.paths import Escape, Scope
    from skilltool.trusted import CatalogueCache

Named = TypeVar("Named", Skill, Agent)
BACKUP_SUFFIX = ".before-skilltool"
# where an installed skilltool keeps its bundled plugins, whatever the prefix
BUNDLED_TAIL = os.sep + os.path.join("skilltool", "resources", "plugins")

# what is at a target path now
State = Literal[
    "missing",  # nothing there
    "current",  # ours, and already what it should be
    "stale",  # ours, but not what it should be (outdated rendering, link to another target)
    "edited",  # ours, changed by hand since it was written
    "foreign",  # not ours: never written, never removed
    "placeholder",  # a seed the harness wrote itself: replaced, the original kept beside it
    "absent",  # the harness is not installed in this home
    "unready",  # the harness is here, but not set up for this agent (no Hermes profile)
    "unsupported",  # the harness cannot take this (an MCP transport it does not run)
    "unparsable",  # the config file an entry goes in does not parse: left alone
]
# what applying the plan does there
Change = Literal["create", "replace", "remove", "none"]


class Action(NamedTuple):
    """One decision about one path."""

    # a command: a slash command's file; a copy: a skill's folder copied into a project
    # a hook: a file that carries a plugin's hooks to a harness (hooks.py)
    kind: Literal["link", "file", "command", "entry", "copy", "hook"]
    owner: str  # "skill" for a link in the skills dir, else the harness (its file or its link)
    name: str  # the skill or agent the action is for
    target: Path
    state: State
    change: Change
    source: Path | None = None  # a link's destination, or the agent file a rendering comes from
    content: bytes | None = None
    mode: int = 0o644
    reason: str = ""
    backup: Path | None = None  # where a replaced harness placeholder is kept
    seen: str | None = None  # what the plan saw there: a link's destination or a file's digest
    keep: Path | None = None  # a hand-edited file --force replaces is first copied here
    # an entry of a shared config file (kind "entry"): the record the ledger keeps of it;
    # `content` is then the whole file after the edit (None: the file is removed)
    entry: EntryRecord | None = None
    label: str = ""  # what such an entry is, when not an MCP server or a hook: "lsp"

    @property
    def writes(self) -> bool:
        return self.change != "none"


class Settled(NamedTuple):
    """The links of a skills dir found as the last run planned them (trusted by its stamp):
    `links` links, each current. A plan that shows no unchanged item holds this in their
    stead, so that a no-op makes nothing per skill."""

    owner: str  # as an Action's
    skills_dir: Path
    links: int


class Outcome(NamedTuple):
    """What became of one action (`apply` makes them; a dry run says each would be done)."""

    action: Action
    done: bool  # the change was made (or there was none to make)
    error: str = ""


class Plan(NamedTuple):
    actions: tuple[Action, ...]
    problems: tuple[Problem, ...]
    settled: tuple[Settled, ...] = ()


def _first_of_each_name(
    catalogue: Catalogue,
    members: Callable[[Plugin], Sequence[Named]],
    clash: Callable[[Named, Plugin, Named, Plugin], Problem | None],
) -> tuple[dict[str, Named], list[Problem]]:
    """Name -> the first skill or agent of that name among the active plugins, in path order;
    a later one of the same name loses, and `clash` says so (the loser and its plugin, then
    the winner and its), or says nothing (None)."""
    winners: dict[str, tuple[Named, Plugin]] = {}
    problems = []
    for plugin in catalogue.active:
        for member in members(plugin):
            if member.name in winners:
                problem = clash(member, plugin, *winners[member.name])
                if problem is not None:
                    problems.append(problem)
                continue
            winners[member.name] = (member, plugin)
    return {name: member for name, (member, _) in winners.items()}, problems


def _entry_of(catalogue: Catalogue, plugin: Plugin) -> SearchEntry | None:
    """The search-path entry a plugin was found in."""
    for entry in catalogue.entries:
        if plugin.root == entry.path or entry.path in plugin.root.parents:
            return entry
    return None


def _how_to_pick(catalogue: Catalogue, loser: Plugin, winner: Plugin) -> str:
    """What decides between two plugins of added sources, and how to have the loser's item:
    neither is the user's to rename. The first source added comes first on the search path
    (the order of the lockfile); within one source, that source's own order."""
    theirs, mine = _entry_of(catalogue, winner), _entry_of(catalogue, loser)
    first = theirs.source if theirs is not None else None
    if first is None:
        return "rename one of them"
    # one plugin picked of a marketplace among others: it alone can go
    alone = theirs is not None and winner.name in theirs.only and len(theirs.only) > 1
    remove = f"'skilltool plugins remove {winner.name if alone else first}'"
    if mine is not None and mine.source not in (None, first):
        again = "" if alone else f", then add it again to have it after {quoted(mine.source)}"
        return (
            f"source {quoted(first)} was added before {quoted(mine.source)}, and sources are "
            f"searched in the order they were added: to have this one, {remove}{again}"
        )
    if alone:
        return f"both come from source {quoted(first)}: to have this one, {remove}"
    return (
        f"both come from source {quoted(first)}, whose own order decides: to have this one, "
        f"{remove}, then add it again with --plugin naming the plugins to keep, "
        f"leaving out {quoted(winner.name)}"
    )


def _loses(
    catalogue: Catalogue, what: str, loser: Plugin, winner: Plugin, not_used: str
) -> str | None:
    """The end of the line that says one skill or agent loses to another of its name, or None
    when nothing is to be said at every run: the bundled plugin's loses to anything the user
    chose (`status` says so, once: `bundled_not_used`)."""
    if loser.origin == "bundled":
        return None
    if loser.origin == "added" and winner.origin == "added":
        return f"{what}, which comes first: {not_used}; {_how_to_pick(catalogue, loser, winner)}"
    return f"{what}, which comes first on the search path; {not_used}: rename one of them"


def winning_skills(catalogue: Catalogue) -> tuple[dict[str, Skill], list[Problem]]:
    """Skill name -> the skill linked under it: the first active plugin on the path wins."""

    def clash(skill: Skill, mine: Plugin, first: Skill, plugin: Plugin) -> Problem | None:
        what = f"skill {quoted(skill.name)} is also in plugin {quoted(plugin.name)} ({first.path})"
        said = _loses(catalogue, what, mine, plugin, "this one is not linked")
        return None if said is None else Problem(skill.path, said, severity="warning")

    return _first_of_each_name(catalogue, lambda plugin: plugin.skills, clash)


def bundled_not_used(catalogue: Catalogue) -> list[tuple[str, str, str]]:
    """Each skill and agent of the bundled plugin that another plugin's of its name takes the
    place of: (`skill` or `agent`, its name, the other plugin's name). Not a warning at every
    run: the user chose the other one, and the bundled plugin is no one's to rename. By name
    only: no `Skill` is made of a plugin's skills kept packed."""
    if not any(p.origin == "bundled" for p in catalogue.active):
        return []
    lost: list[tuple[str, str, str]] = []
    kinds: list[tuple[str, Callable[[Plugin], Iterable[str]]]] = [
        ("skill", lambda plugin: (name for name, _ in named_paths(plugin.skills))),
        ("agent", lambda plugin: (agent.name for agent in plugin.agents)),
    ]
    for kind, names in kinds:
        first: dict[str, Plugin] = {}
        for plugin in catalogue.active:
            for name in names(plugin):
                winner = first.setdefault(name, plugin)
                if winner is not plugin and plugin.origin == "bundled":
                    lost.append((kind, name, winner.name))
    return lost


def absolute(path: str, base: str | None = None) -> str:
    """`path` made absolute against `base` (the working directory) and normalised, as
    `normpath(join(base, path))`; the usual path, absolute and normal already (ten thousand
    of them at scale), is taken as it is without a call."""
    if path[:1] == "/" and "//" not in path and path[-1:] != "/" and _no_dot_parts(path):
        return path  # no '.', '..', doubled or trailing '/': normpath would return it as it is
    return os.path.normpath(os.path.join(os.getcwd() if base is None else base, path))


def _no_dot_parts(path: str) -> bool:
    """No part of `path` is '.' or '..' (a dot folder such as ~/.local is no such part)."""
    if "/." not in path:
        return True
    return "/./" not in path and "/../" not in path and not path.endswith(("/.", "/.."))


class SkillsDir:
    """What is in a skills dir, read once: one scandir, one readlink per entry.

    Plain strings rather than Path objects: at ten thousand links that is most of the time.
    """

    def __init__(self, path: Path, catalogue: Catalogue, evidence: Evidence) -> None:
        self.path = path
        self.root = str(path)
        # the search-path entries read whole this run: a skill gone from one is gone
        self.read = evidence.read
        self.places: set[str] = set()  # folders whose subfolders were read as skills
        self.paths: set[str] = set()  # skill folders read one by one
        for plugin in catalogue.plugins:
            self.places.add(os.path.join(os.path.abspath(plugin.root), "skills"))
            self.places.update(os.path.abspath(p) for p in plugin.skill_places)
            self.paths.update(os.path.abspath(p) for p in plugin.skill_paths)
        self.entries: dict[str, os.DirEntry[str]] = {}
        try:
            with os.scandir(path) as it:
                self.entries = {e.name: e for e in it}
        except OSError:
            pass

    def dest(self, name: str) -> str | None:
        try:
            return absolute(os.readlink(self.entries[name].path), self.root)
        except (OSError, KeyError):
            return None

    def is_ours(self, name: str, dest: str) -> bool:
        """Whether a link can be proven to be one skilltool made, from the link itself.

        skilltool links `<dir>/<skill>` to a skill folder of the same name that it read this
        run: one inside a folder it read skills from (`<plugin>/skills`, a folder listed in
        plugin.json, a skill collection or its category folders) or one named on its own.
        A link to a folder that is gone is ours when it points inside a search-path entry
        read whole this run: that the folder is gone is then known, not guessed.
        A link made by hand to another name, or into a place no longer searched, is left
        alone. One exception, also read from the link: a link into the plugins bundled with
        an installed skilltool (`.../skilltool/resources/plugins/<plugin>/skills/<skill>`), so
        that reinstalling skilltool elsewhere does not strand the links the old copy made.
        """
        parent, base = os.path.split(dest)
        if base != name:
            return False
        if dest in self.paths or parent in self.places:
            return True
        grandparent, leaf = os.path.split(parent)
        if leaf == "skills" and os.path.dirname(grandparent).endswith(BUNDLED_TAIL):
            return True
        return gone(dest) is True and dest.startswith(self.read)

    def state(self, name: str, want: str | None) -> tuple[State, str, str | None]:
        """(state, reason, where the link points) for the entry `name`."""
        entry = self.entries.get(name)
        if entry is None:
            return "missing", "", None
        if not entry.is_symlink():
            return "foreign", _foreign_entry(entry), None
        dest = self.dest(name)
        if dest is None or not self.is_ours(name, dest):
            why = f"a link to {dest}, not one made by skilltool; remove it to link this skill"
            return "foreign", why, None
        if dest == want:
            return "current", "", dest
        missing = gone(dest)
        if missing is None:  # cannot be looked at now: no evidence either way
            return "foreign", f"a link to {dest}, which cannot be read now; left as it is", None
        if missing or not os.path.isdir(dest):
            return "stale", f"its skill {dest} is gone", dest
        if want is None:
            why = "invalid, or another skill of that name wins"
            return "stale", f"{dest} is no longer used: {why}", dest
        return "stale", f"it points to {dest}", dest


def _foreign_entry(entry: os.DirEntry[str]) -> str:
    """What is in the way of a link, said so that a person knows what to do with it."""
    if not entry.is_dir():
        return "a file, not a link made by skilltool; move it away to link this skill"
    if os.path.isfile(os.path.join(entry.path, "SKILL.md")):
        return (
            "a directory, not a link made by skilltool: a skill installed by hand or by another "
            "tool; keep it, or remove it to link the plugin's skill of that name"
        )
    return "a directory, not a link made by skilltool; move it away to link this skill"


def plan_links(
    catalogue: Catalogue,
    skills_dir: Path,
    remove: bool = False,
    owner: str = "skill",
    trust: CatalogueCache | None = None,
    detail: bool = True,
    evidence: Evidence | None = None,
    copied: frozenset[str] = frozenset(),
) -> Plan:
    """The links of every winning skill in `skills_dir` (or their removal), and our stale links;
    `copied`: skills a project copies in instead (see copies.py), not linked.

    `owner` is "skill" for the shared skills dir, or the harness whose own skills dir it is.
    `trust`: the catalogue cache the catalogue came from; a skills dir with the stamp it had
    when every entry in it was a link as planned is taken as it was, without a readlink, and
    without `detail` as one `Settled` rather than an Action per link.
    """
    taken, stamp = _folder_stamp(skills_dir) if trust is not None else (0, None)
    known = trust.links_as_planned(skills_dir, stamp) if trust is not None and not remove else None
    if known is not None and not detail:
        count, clashes = known
        return Plan((), clashes, (Settled(owner, skills_dir, count),))
    winners, problems = winning_skills(catalogue)
    for name in copied:
        winners.pop(name, None)
    if known is not None:
        return Plan(_current(owner, winners, skills_dir), tuple(problems))
    if os.path.lexists(skills_dir) and not os.path.isdir(skills_dir):
        problems.append(
            Problem(
                skills_dir,
                "is not a directory (a dangling link or a file); "
                "fix it, or give another skills dir with --dir",
            )
        )
        return Plan((), tuple(problems))
    evidence = evidence or Evidence(catalogue)
    # whose links these are is proven from every plugin read, those turned off included
    here = SkillsDir(skills_dir, evidence.catalogue, evidence)
    actions = _link_actions(here, winners, remove, owner, evidence)
    if copied:  # a copied skill's place, our link there included, is the copy planner's
        actions = [a for a in actions if a.name not in copied]
    if trust is not None and not remove and _as_planned(here, winners, actions):
        trust.saw_links(skills_dir, stamp, taken, len(winners), problems)
    return Plan(tuple(actions), tuple(problems))


def _folder_stamp(folder: Path) -> tuple[int, tuple[int, int, int, int, int] | None]:
    """When, and the stamp of `folder` then (taken before it is listed)."""
    from skilltool import probe

    taken = probe.clock()
    try:
        return taken, probe.stamp_of(os.stat(folder))
    except OSError:
        return taken, None


def _current(owner: str, winners: dict[str, Skill], skills_dir: Path) -> tuple[Action, ...]:
    """The links of the skills, there as planned: what `_link_actions` says of each."""
    actions = []
    for name in sorted(winners):
        found = winners[name].path
        want = absolute(os.fspath(found))
        source = found if str(found) == want else Path(want)  # most are absolute already
        target = child(skills_dir, name)
        actions.append(Action("link", owner, name, target, "current", "none", source, seen=want))
    return tuple(actions)


def _as_planned(here: SkillsDir, winners: dict[str, Skill], actions: list[Action]) -> bool:
    """Every winning skill's link is there and current, and every other entry of the folder
    is one left alone for what it is, not where it points: a file or folder that is not a
    link (a skill installed by hand, as Claude Code's own folder often holds). No temporary
    file of a killed run, no link of a skill gone, no link of someone else's (whether it is
    ours can change with its target, which the folder's stamp does not see)."""
    if len(actions) != len(winners) or any(a.state != "current" for a in actions):
        return False
    return not any(
        name.startswith(TEMP_PREFIX) or entry.is_symlink()
        for name, entry in here.entries.items()
        if name not in winners
    )


def _link_actions(
    here: SkillsDir, winners: dict[str, Skill], remove: bool, owner: str, evidence: Evidence
) -> list[Action]:
    skills_dir = here.path
    actions: list[Action] = []
    # the skills dir as it resolves: a team's `.claude/skills` may be a link to `.agents/skills`
    real = os.path.realpath(skills_dir) if os.path.islink(skills_dir) else here.root
    for name in sorted(winners):
        found = winners[name].path
        want = absolute(os.fspath(found))
        folder, base = os.path.split(want)
        if base == name and folder in (here.root, real):
            continue  # the skill is in this folder itself (a team's own `.agents/skills`)
        state, reason, dest = here.state(name, want)
        if remove and state == "missing":
            continue
        if remove:
            change: Change = "remove" if state in ("current", "stale") else "none"
        else:
            change = {"missing": "create", "stale": "replace"}.get(state, "none")  # type: ignore[assignment]
        actions.append(
            Action(
                "link",
                owner,
                name,
                skills_dir / name,
                state,
                change,
                found if str(found) == want else Path(want),  # most are absolute already
                reason=reason,
                seen=dest,
            )
        )
    # links of ours under names no winning skill has: their plugin was removed or shadowed
    for name in sorted(here.entries):
        if name in winners or not here.entries[name].is_symlink():
            continue
        state, reason, dest = here.state(name, None)
        if not remove and dest is not None and evidence.unknown(dest) is not None:
            continue  # kept: a folder that holds no plugin now, or cannot be read, says so
        if state == "stale" and dest is not None:
            actions.append(
                Action(
                    "link",
                    owner,
                    name,
                    skills_dir / name,
                    state,
                    "remove",
                    Path(dest),
                    reason=reason,
                    seen=dest,
                )
            )
    return actions


def all_problems(catalogue: Catalogue) -> list[Problem]:
    found = list(catalogue.problems)
    for plugin in catalogue.plugins:
        found += plugin.problems
    return found


def merge(plans: Iterable[Plan]) -> Plan:
    actions: list[Action] = []
    problems: list[Problem] = []
    settled: list[Settled] = []
    for plan in plans:
        actions += plan.actions
        problems += plan.problems
        settled += plan.settled
    return Plan(tuple(actions), tuple(once(problems)), tuple(settled))


class Boundary:
    """The project a plan acts in, asked whether each path it names leads out of it (a
    repository's links are its authors', not the cloner's): one answer a folder, and one
    line a link that leads out, however many actions it would have carried."""

    def __init__(self, root: Path | None) -> None:
        self.root = root  # None: a home, whose links are the user's own
        self.answers: dict[Path, Escape | None] = {}
        self.found: dict[Path, Problem] = {}

    def out(self, path: Path) -> bool:
        """Whether `path` leads out of the project; said once per link when it does."""
        if self.root is None:
            return False
        from skilltool import paths

        if path not in self.answers:
            self.answers[path] = paths.escape(self.root, path)
        found = self.answers[path]
        if found is None:
            return False
        if found.at not in self.found:
            self.found[found.at] = Problem(found.at, found.line())
        return True

    def action_out(self, action: Action) -> bool:
        """Whether an action reaches out of the project: a file or link is replaced where it
        is (its folder must lead nowhere else); a config file or a copied folder is written
        through (it must lead nowhere else itself)."""
        if action.kind in ("entry", "copy"):
            return self.out(action.target)
        return self.out(action.target.parent) or (
            action.backup is not None and self.out(action.backup.parent)
        )

    def said(self, action: Action) -> str:
        """Why an action that reaches out of the project is not carried out."""
        backup = action.backup.parent if action.backup is not None else None
        for path in (action.target, action.target.parent, backup):
            found = self.answers.get(path) if path is not None else None
            if found is not None:
                return f"{found.at}: {found.line()}"
        return "leads out of the project"

    def kept_inside(self, planned: Plan) -> Plan:
        """The plan without an action that reaches out of the project, and a line (an
        error: the run cannot do all it should) for each link that leads out."""
        if self.root is None:
            return planned
        actions = tuple(a for a in planned.actions if not self.action_out(a))
        problems = once([*planned.problems, *self.found.values()])
        return planned._replace(actions=actions, problems=tuple(problems))


def once(problems: Iterable[Problem]) -> list[Problem]:
    """Each problem once, in order: a skill clash is found again in every skills dir planned."""
    return list(dict.fromkeys(problems))


def winning_agents(catalogue: Catalogue) -> tuple[list[Agent], list[Problem]]:
    """Every agent to render: the first active plugin on the path wins a name."""

    def clash(agent: Agent, mine: Plugin, first: Agent, plugin: Plugin) -> Problem | None:
        what = f"agent {quoted(agent.name)} is also defined in {first.path}"
        said = _loses(catalogue, what, mine, plugin, "this one is not rendered")
        if said is None:
            return None
        return Problem(agent.path, said, "name", agent.lines.get("name"), severity="warning")

    winners, problems = _first_of_each_name(catalogue, lambda plugin: plugin.agents, clash)
    return list(winners.values()), problems


def file_state(
    target: Path, new: bytes | None, placeholders: frozenset[str], remove: bool = False
) -> tuple[State, str, str | None]:
    """What is at a rendering's target: (state, reason, digest of what is there)."""
    if not os.path.lexists(target):
        blocker = None if remove else _not_a_directory(target)
        if blocker is not None:
            return "foreign", f"{blocker} is not a directory, so nothing is written there", None
        return "missing", "", None
    if os.path.islink(target):
        return "foreign", "a link, not a file written by skilltool", None
    data = read_regular(target)
    if data is None:
        return "foreign", "not a regular file written by skilltool", None
    seen = digest(data)
    marker = markers.find(data)
    if marker is None:
        if seen in placeholders:
            return "placeholder", "the harness's own seed, kept beside it", seen
        return "foreign", "not written by skilltool", seen
    if new is not None and data == new:
        return "current", "", seen
    if not marker.intact:
        forced = "removes" if remove else "replaces"
        why = f"edited by hand since skilltool wrote it (--force {forced} it, keeping a copy)"
        return "edited", why, seen
    return "stale", "outdated", seen


def _not_a_directory(target: Path) -> Path | None:
    """The parent of a missing target that exists but is not a directory (a file, a link
    to one, a dangling link), which keeps the target from ever being written."""
    if os.path.isdir(target.parent):
        return None
    for parent in target.parents:
        if os.path.lexists(parent):
            return None if os.path.isdir(parent) else parent
    return None


def _file_action(
    harness: str,
    agent: str,
    rendering: Rendering,
    remove: bool,
    force: bool,
    on_disk: bool = False,
    known: str | None = None,
) -> Action:
    """What to do at a rendering's target; `on_disk`: the rendering was just read from there
    (or trusted by its stamp: its content is then empty, and `known` its digest)."""
    target = rendering.target
    state: State
    reason: str
    seen: str | None
    if on_disk:  # a regular file, not a link, holding exactly this rendering and its marker
        state, reason = "current", ""
        seen = known if known is not None else digest(rendering.content)
    else:
        state, reason, seen = file_state(target, rendering.content, rendering.placeholders, remove)
    change: Change = "none"
    if remove:
        if state in ("current", "stale") or (state == "edited" and force):
            change = "remove"
    elif state == "missing":
        change = "create"
    elif state in ("stale", "placeholder") or (state == "edited" and force):
        change = "replace"
    keep = None
    if state == "placeholder" or remove:  # a Path made only when it may be needed
        backup = target.with_name(target.name + BACKUP_SUFFIX)
        keep = backup if state == "placeholder" or os.path.lexists(backup) else None
    edited = _edited_copy(target) if state == "edited" and change != "none" else None
    return Action(
        "file",
        harness,
        agent,
        target,
        state,
        change,
        rendering.target,
        rendering.content,
        rendering.mode,
        reason,
        keep,
        seen,
        edited,
    )


def orphan(
    kind: Literal["command", "hook"],
    owner: str,
    name: str,
    path: Path,
    home: Scope,
    read: Evidence,
    force: bool,
    what: str,
) -> Action | None:
    """A rendering of ours (a command's or hooks' file) that nothing on the search path needs
    any more: removed if unedited, and only when the place it came from was read this run
    (`what`: what is gone, "its command"); None for a file that is not ours."""
    if path.is_symlink() or path.name.startswith(TEMP_PREFIX):
        return None
    data = read_regular(path)
    marker = markers.find(data) if data is not None else None
    if data is None or marker is None:
        return None
    source = home.restored(marker.source)
    unknown = read.unknown(str(source))
    if unknown is not None:
        why = f"{what} {marker.source} {unknown}; kept"
        return Action(kind, owner, name, path, "stale", "none", reason=why)
    went = f"{what} {'are' if what.endswith('s') else 'is'} gone"
    if not (marker.intact or force):
        why = f"{went}, but it was edited by hand (--force removes it, keeping a copy)"
        return Action(kind, owner, name, path, "edited", "none", source, reason=why)
    return Action(
        kind,
        owner,
        name,
        path,
        "stale" if marker.intact else "edited",
        "remove",
        source,
        reason=went,
        seen=digest(data),
        keep=None if marker.intact else _edited_copy(path),
    )


file_action = _file_action  # for a file beside the entries of shared files (mcp.py)

EDITED_SUFFIX = ".skilltool-edited"


def _edited_copy(target: Path) -> Path:
    """Where a hand-edited rendering is kept before --force replaces or removes it: a name
    not yet taken, so that no earlier copy is ever overwritten."""
    candidate = target.with_name(target.name + EDITED_SUFFIX)
    number = 1
    while os.path.lexists(candidate):
        candidate = target.with_name(f"{target.name}{EDITED_SUFFIX}.{number}")
        number += 1
    return candidate


def plan_renderings(
    catalogue: Catalogue,
    harnesses: list[Harness],
    remove: bool = False,
    force: bool = False,
    renders: RenderCache | None = None,
    evidence: Evidence | None = None,
) -> Plan:
    """Every rendering of every agent for every harness given, and our renderings no agent needs.

    With `renders`, a rendering that is on disk as it would be made again is read, not made."""
    agents, problems = winning_agents(catalogue)
    read = evidence or Evidence(catalogue)
    actions: list[Action] = []
    for harness in harnesses:
        if not remove and harness.present():
            actions += native_losses(harness, agents)
            actions += plugin_only(harness, catalogue)
        try:
            actions += _harness_actions(harness, agents, remove, force, read, renders)
        except OSError as err:  # a directory of the harness that cannot be read: skip it
            where = Path(err.filename) if err.filename else harness.root()
            problems.append(
                Problem(
                    where,
                    f"cannot be read ({err.strerror}), so nothing is rendered for "
                    f"{harness.title}; check its permissions",
                )
            )
    return Plan(tuple(actions), tuple(problems))


def native_losses(harness: Harness, agents: Sequence[Agent]) -> list[Action]:
    """What an agent read from another harness's own folder holds that this harness has no
    setting for (OpenCode's `temperature`, a Gemini model): one line per key, naming the
    agents, so that nothing is dropped in silence."""
    by_key: dict[str, list[Agent]] = {}
    for agent in agents:
        if agent.native_of is None or agent.native_of == harness.name:
            continue
        for key in agent.native:
            by_key.setdefault(key, []).append(agent)
    actions = []
    for key, which in sorted(by_key.items()):
        names = ", ".join(a.name for a in which)
        noun = "agents" if len(which) > 1 else "agent"
        why = (
            f"{key} of {noun} {names}: {harness.title} has no such setting skilltool "
            f"writes; kept for {which[0].native_of} only"
        )
        actions.append(
            Action(
                "file",
                harness.name,
                names,
                which[0].path,
                "unsupported",
                "none",
                which[0].path,
                reason=why,
            )
        )
    return actions


def plugin_only(harness: Harness, catalogue: Catalogue) -> list[Action]:
    """A line for each plugin holding what only the harness's own plugin loader takes."""
    actions = []
    for plugin in catalogue.active:
        why = harness.plugin_only_note(plugin)
        if why is not None:
            root = plugin.root
            actions.append(
                Action(
                    "file", harness.name, plugin.name, root, "unsupported", "none", root, reason=why
                )
            )
    return actions


class Evidence:
    """What this run can tell is gone (removal needs evidence): a source is gone only when it
    lived in a search-path folder this run listed whole (a folder that is missing, such as an
    unmounted disk, proves nothing), one that still holds a plugin, and in nothing that
    could not be read. A folder that holds no plugin now (the mount point of a disk not
    mounted) and a file or folder that cannot be read are evidence of nothing, unless the
    user says what came from them is gone (`prune`: `install --prune`)."""

    def __init__(
        self, catalogue: Catalogue, prune: bool = False, repository: Path | None = None
    ) -> None:
        self.catalogue = catalogue
        self.prune = prune
        self.read = tuple(_folder(str(path)) for path in sorted(catalogue.read))
        self._held: tuple[tuple[str, str], ...] | None = None
        self.kept: dict[str, str] = {}  # a place that held back a removal -> what it is
        self.repository = repository  # a project's: what git ignores there proves nothing

    def unknown(self, source: str) -> str | None:
        """Why the absence of `source` proves nothing (a clause: "is not on ..."), or None
        when it is known to be gone."""
        if BUNDLED_TAIL + os.sep in source:  # an installed skilltool's own plugin, as for links
            return None
        if not source.startswith(self.read):
            return "is not on a plugin folder read in this run"
        if self.repository is not None and not os.path.lexists(source):
            from skilltool import gitignore

            rule = gitignore.ignored(self.repository, [Path(source)]).get(Path(source))
            if rule is not None:  # not in this clone: no evidence that it is gone
                return f"is ignored by {rule}, so a clone does not have it: it is not gone"
        if self.prune:
            return None
        for place, what in self.held():
            if source == place[:-1]:
                self.kept[source] = what
                return what
            if source.startswith(place):
                self.kept[place[:-1]] = what
                return f"lies in {place[:-1]}, which {what}"
        return None

    def held(self) -> tuple[tuple[str, str], ...]:
        """The places whose state holds back a removal, each with what it is: the folders
        read that hold no plugin now, and what could not be read (said by a problem)."""
        if self._held is None:
            rooted = {_folder(str(p.root)) for p in self.catalogue.plugins}
            # a source skilltool added holds what its commit holds: emptied, it is evidence
            added = {_folder(str(e.path)) for e in self.catalogue.entries if e.origin == "added"}
            empty = [
                (place, "holds no plugin now")
                for place in self.read
                if place not in added and not any(root.startswith(place) for root in rooted)
            ]
            unread = [
                (_folder(str(p.path)), "cannot be read")
                for p in all_problems(self.catalogue)
                if p.message.startswith(UNREADABLE)
            ]
            self._held = (*empty, *unread)
        return self._held

    def problems(self) -> list[Problem]:
        """A folder holding no plugin now that kept something: one warning naming it."""
        return [
            Problem(
                Path(place),
                "holds no plugin now, so what came from it is kept (a disk not mounted?); "
                "'skilltool plugins install --prune' removes it if it is gone for good",
                severity="warning",
            )
            for place, what in sorted(self.kept.items())
            if what == "holds no plugin now"
        ]


def _folder(path: str) -> str:
    return os.path.abspath(path).rstrip(os.sep) + os.sep


# how a problem says that a file or folder is there but was not read
UNREADABLE = ("cannot be read", "cannot be listed")


def _harness_actions(
    harness: Harness,
    agents: list[Agent],
    remove: bool,
    force: bool,
    read: Evidence,
    renders: RenderCache | None = None,
) -> list[Action]:
    actions: list[Action] = []
    wanted: set[Path] = set()
    for agent in agents:
        why = harness.absent(agent)
        if why is not None:
            state: State = "absent" if not harness.present() else "unready"
            actions.append(
                Action("file", harness.name, agent.name, harness.root(), state, "none", reason=why)
            )
            continue
        made, on_disk = (
            renders.made(harness.name, harness.places(), agent, harness.render)
            if renders
            else (harness.render(agent), False)
        )
        for rendering in made:
            wanted.add(rendering.target)
            known = renders.known.get(rendering.target) if renders and on_disk else None
            action = _file_action(
                harness.name, agent.name, rendering, remove, force, on_disk, known
            )
            if action.state == "missing" and remove:
                continue
            actions.append(replace_source(action, agent.path))
        for note in harness.notes(agent):
            actions.append(
                Action(
                    "file",
                    harness.name,
                    agent.name,
                    note.target,
                    "foreign",
                    "none",
                    reason=note.text,
                )
            )
    if os.path.isdir(harness.root()):
        # listed first, so that one it cannot read is an OSError here: Path.glob in
        # owned_places() passes over an unreadable directory in silence (Python 3.13)
        os.listdir(harness.root())
        actions += _orphans(harness, wanted, force, read)
    return actions


def replace_source(action: Action, source: Path) -> Action:
    return action._replace(source=source)


def _orphans(harness: Harness, wanted: set[Path], force: bool, read: Evidence) -> list[Action]:
    """Our renderings that no agent on the search path needs any more: removed if unedited,
    and only when the place their agent lived in was read."""
    found = []
    for path in harness.owned_places():
        if path in wanted or os.path.islink(path) or path.name.startswith(TEMP_PREFIX):
            continue
        data = read_regular(path)
        marker = markers.find(data) if data is not None else None
        if data is None or marker is None:
            continue
        source = harness.home.restored(marker.source)
        name = source.stem
        unknown = read.unknown(str(source))
        if unknown is not None:
            why = f"its agent {marker.source} {unknown}; kept"
            found.append(Action("file", harness.name, name, path, "stale", "none", reason=why))
            continue
        backup = path.with_name(path.name + BACKUP_SUFFIX)
        keep = backup if os.path.lexists(backup) else None
        if marker.intact or force:
            found.append(
                Action(
                    "file",
                    harness.name,
                    name,
                    path,
                    "stale" if marker.intact else "edited",
                    "remove",
                    source,
                    reason="its agent is gone",
                    backup=keep,
                    seen=digest(data),
                    keep=None if marker.intact else _edited_copy(path),
                )
            )
        else:
            found.append(
                Action(
                    "file",
                    harness.name,
                    name,
                    path,
                    "edited",
                    "none",
                    source,
                    reason="its agent is gone, but it was edited by hand "
                    "(--force removes it, keeping a copy)",
                )
            )
    return found
