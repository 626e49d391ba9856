"""`plugins new`: a plugin folder in the Claude Code shape to start from: its manifest, and
a skill or an agent per name asked for, each a file that passes `validate` and says in its
own words what to write in it. What is there already is never written over."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from skilltool import paths
from skilltool.commands.common import Options
from skilltool.errors import OK, SkilltoolError, UsageError
from skilltool.fs import TEMP_PREFIX, write_file
from skilltool.parse import MANIFEST_PLACES, NAME_RULE, SKILL_FILE, is_safe_name
from skilltool.record import NamedTuple
from skilltool.report import Result

MANIFEST = ".claude-plugin/plugin.json"


def manifest_text(name: str) -> str:
    fields = {
        "name": name,
        "version": "0.1.0",
        "description": "Say in one sentence what this plugin is for.",
    }
    return json.dumps(fields, indent=2) + "\n"


def skill_text(name: str) -> str:
    # the description is what an agent reads to decide whether to load the skill
    return (
        "---\n"
        f"name: {name}\n"
        "description: Say what this skill does and when to use it; an agent reads only this "
        "line to decide whether to load the skill.\n"
        "---\n\n"
        f"# {name}\n\n"
        "Write here what an agent should do once this skill is loaded: the steps in order, the\n"
        "commands to run, and how to check the work is done. Keep it short; put long reference\n"
        "material in files beside this one and say here when to read each.\n"
    )


def agent_text(name: str) -> str:
    # the body is the agent's system prompt, byte for byte in every harness
    return (
        "---\n"
        f"name: {name}\n"
        "description: Say what this agent is for and when to choose it.\n"
        "---\n"
        "Write this agent's system prompt here: who it is, what it works on, how it goes about\n"
        "it, and what it must not do. Add `tools:` above to limit the tools it may use, and\n"
        "`skills:` to name the skills it relies on.\n"
    )


class NewFile(NamedTuple):
    """One file the scaffold writes, relative to the plugin folder."""

    relative: str
    text: str


def files_of(name: str, skills: list[str], agents: list[str], manifest: bool) -> list[NewFile]:
    made = [NewFile(MANIFEST, manifest_text(name))] if manifest else []
    made += [NewFile(f"skills/{s}/{SKILL_FILE}", skill_text(s)) for s in skills]
    made += [NewFile(f"agents/{a}.md", agent_text(a)) for a in agents]
    return made


def _names(given: list[str], what: str) -> list[str]:
    """Names asked for, each once; one that breaks the naming rules is a usage error."""
    for name in given:
        if not is_safe_name(name):
            raise UsageError(f"{name!r} cannot name {what}; {NAME_RULE}")
    return list(dict.fromkeys(given))


def _plugin_name(folder: Path) -> str | None:
    """The name of the plugin in an existing folder (its manifest's, else the folder's), or
    None when the folder holds no plugin."""
    from skilltool import discover, parse

    if not discover.looks_like_plugin(folder):
        return None
    for place in MANIFEST_PLACES:
        if os.path.isfile(folder / place):
            fields, _ = parse.read_manifest(folder / place)
            named = fields.get("name") if fields else None
            return named if isinstance(named, str) else folder.name
    return folder.name


def _taken(folder: Path, made: list[NewFile]) -> str | None:
    """The first of the new files (or a skill's folder) that is there already."""
    for each in made:
        path = folder / each.relative
        there = path.parent if each.relative.startswith("skills/") else path
        if os.path.lexists(there):
            return str(there)
    return None


def new(name: str, skills: list[str], agents: list[str], into: str | None, opts: Options) -> Result:
    if not is_safe_name(name):
        raise UsageError(f"{name!r} cannot name a plugin; {NAME_RULE}")
    skills, agents = _names(skills, "a skill"), _names(agents, "an agent")
    home = opts.user_home
    default = home.data_dir / "plugins"
    parent = default if into is None else paths.named_directory(into, "--dir")
    folder = parent / name
    adding = os.path.lexists(folder)
    if adding:
        if not (skills or agents):
            raise SkilltoolError(
                f"{folder} exists; nothing was written (--skill or --agent adds to a plugin)"
            )
        found = _plugin_name(folder) if os.path.isdir(folder) else None
        if found != name:
            what = "no plugin" if found is None else f"the plugin {found!r}"
            raise SkilltoolError(f"{folder} exists and holds {what}; nothing was written")
    made = files_of(name, skills, agents, manifest=not adding)
    taken = _taken(folder, made) if adding else None
    if taken is not None:
        raise SkilltoolError(f"{taken} exists; nothing was written")
    if not opts.dry_run:
        _write(folder, made, adding)
    on_path = parent == default
    prefix = "dry-run: " if opts.dry_run else ""
    lines = [home.line()] if on_path else []
    lines += [f"{prefix}{'wrote':<9} {home.show(folder / f.relative)}" for f in made]
    lines.append(_next_line(name, folder, on_path, home, bool(skills or agents or adding)))
    warnings = [] if opts.dry_run else _unread(folder, skills, agents)
    data = {
        "home": str(home.path),
        "scope": home.kind,
        "plugin": name,
        "path": str(folder),
        "added_to": adding,
        "wrote": [str(folder / f.relative) for f in made],
        "dry_run": opts.dry_run,
    }
    return Result(OK, data, tuple(lines), warnings=tuple(warnings))


def _next_line(name: str, folder: Path, on_path: bool, home: paths.Home, holds: bool) -> str:
    """What to do next: write the files, check them, and use them."""
    shown = home.show(folder)
    if not holds:  # a manifest alone: nothing to link or render yet
        into = "" if on_path else f" --dir {home.show(folder.parent)}"
        again = f"skilltool plugins new {name}{into} --skill NAME"
        return f"next      give it a skill or an agent: {again} (or --agent NAME)"
    use = "skilltool plugins install" if on_path else f"skilltool plugins add {shown}"
    check = f"skilltool plugins validate {shown}"
    return f"next      write the descriptions and bodies, then: {check}; {use}"


def _write(folder: Path, made: list[NewFile], adding: bool) -> None:
    """A new plugin is written whole beside its place, then renamed into it, so that a
    failure leaves no half of it; files added to a plugin are each written or not."""
    if adding:
        for each in made:
            path = folder / each.relative
            path.parent.mkdir(parents=True, exist_ok=True)
            write_file(path, each.text.encode(), 0o644, replace=False)
        return
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = folder.parent / f"{TEMP_PREFIX}new-{folder.name}-{os.getpid()}"
    try:
        for each in made:
            path = staging / each.relative
            path.parent.mkdir(parents=True, exist_ok=True)
            write_file(path, each.text.encode(), 0o644, replace=False)
        if os.path.lexists(folder):  # made meanwhile: never written over
            raise SkilltoolError(f"{folder} exists; nothing was written")
        os.rename(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _unread(folder: Path, skills: list[str], agents: list[str]) -> list[str]:
    """A skill or agent written where the plugin's manifest does not look (its `skills` or
    `agents` field names other folders): a warning saying so."""
    from skilltool import discover
    from skilltool.model import SearchEntry

    plugins = discover.discover([SearchEntry(folder, "argument")]).plugins
    seen_skills = {s.name for p in plugins for s in p.skills}
    seen_agents = {a.name for p in plugins for a in p.agents}
    missed = [f"skill {s}" for s in skills if s not in seen_skills]
    missed += [f"agent {a}" for a in agents if a not in seen_agents]
    return [
        f"warning: {folder}: {what} is not read: the manifest names other folders; list the new "
        "one in it"
        for what in missed
    ]
