"""What a sources command asks the person running it: which plugins of a marketplace to
install, and whether to approve what a fetched plugin would have a harness run. On a
terminal it asks; without one it decides nothing and says how to decide."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from skilltool import discover, paths, report
from skilltool.commands.common import Options
from skilltool.errors import UsageError
from skilltool.model import Plugin, quoted
from skilltool.report import carried

if TYPE_CHECKING:
    from skilltool.consent import Held
    from skilltool.sources import Pick


def _descriptions(at: Path) -> dict[str, str]:
    """Each plugin's description, as the marketplace lists it."""
    from skilltool import parse

    market, _ = parse.read_marketplace(at / parse.MARKETPLACE_FILE)
    if market is None:
        return {}
    said = {e.name: e.fields.get("description") for e in market.entries}
    return {k: v for k, v in said.items() if isinstance(v, str)}


def offer_lines(source_name: str, at: Path, offered: Sequence[Plugin]) -> list[str]:
    """The plugins a marketplace offers, one line each: number, name, description, what
    each carries."""
    told = _descriptions(at)
    lines = [f"offers    {source_name}: {len(offered)} plugin(s)"]
    for number, plugin in enumerate(offered, 1):
        about = told.get(plugin.name, "")
        about = about if len(about) <= 60 else about[:59] + "…"
        lines.append(f"  {number:>3}  {plugin.name:<24} {about}  [{carried(plugin)}]")
    return lines


def picker(opts: Options, all_of_it: bool, said: list[str]) -> Pick | None:
    """How a marketplace added with no plugin named is picked from: `--all` takes every
    plugin; on a terminal the user picks; otherwise none is installed, and the lines say
    what it offers and how to pick."""
    if all_of_it:
        return None
    from skilltool import sources

    def ask(source: sources.Source, at: Path, offered: Sequence[Plugin]) -> tuple[str, ...]:
        report.clear_progress()
        for line in offer_lines(source.name, at, offered):
            sys.stdout.write(line + "\n")
        sys.stdout.write("pick      numbers or names (separated by spaces), 'all', or nothing: ")
        sys.stdout.flush()
        return _chosen(sys.stdin.readline(), offered)

    def none(source: sources.Source, at: Path, offered: Sequence[Plugin]) -> tuple[str, ...]:
        said.extend(offer_lines(source.name, at, offered))
        said.append(
            f"pick      none installed: add --plugin NAME (repeatable) or --all, or "
            f"'skilltool plugins add NAME@{source.name}'"
        )
        return ()

    tty = sys.stdin.isatty() and sys.stdout.isatty() and not opts.json and not opts.dry_run
    return ask if tty else none


def _chosen(answer: str, offered: Sequence[Plugin]) -> tuple[str, ...]:
    """The plugins an answer names (numbers or names); an unknown word is a usage error."""
    words = answer.replace(",", " ").split()
    if words == ["all"]:
        return tuple(p.name for p in offered)
    names = [p.name for p in offered]
    chosen = []
    for word in words:
        if word.isdigit() and 1 <= int(word) <= len(names):
            chosen.append(names[int(word) - 1])
        elif word in names:
            chosen.append(word)
        else:
            raise UsageError(f"{quoted(word)} is not one of the plugins offered; nothing was added")
    return tuple(dict.fromkeys(chosen))


def consent(opts: Options, home: paths.Scope, names: Sequence[str], said: list[str]) -> None:
    """What the sources named (fetched from a URL) would have a harness run: each command
    not approved in its exact form is shown, with each server's URL it sends requests to;
    `--yes`, or a yes on a terminal, approves what is shown (recorded in the lockfile),
    else the install leaves them out and says how to approve them."""
    from skilltool import consent, sources

    chosen = {p: s for p, s in consent.fetched(home).items() if s.name in names}
    for place, source in chosen.items():
        if source.nothing:  # a marketplace none of whose plugins is picked: nothing runs
            continue
        plugins = discover.discover([sources.entry(home, source)]).plugins
        for plugin in plugins:
            said += [
                f"sends     {plugin.name}: MCP server {server.name!r} sends the harness's "
                f"requests to {server.url}"
                for server in plugin.mcp_servers
                if server.url is not None
            ]
        items = consent.runnables(plugins, {place: source})
        held = consent.waiting(items, source.approved)
        if not held:
            continue
        said += held_lines(held)
        if opts.dry_run or not (opts.yes or _asked(said, f"approve what {source.name} runs")):
            said.append(
                f"held      {source.name}: {len(held)} command(s) no harness is given until "
                f"approved: 'skilltool plugins approve {source.name}' (--yes for scripts)"
            )
            continue
        approved = consent.approve([h.runnable for h in held], items, source.approved)
        sources.write_lock(
            home,
            [
                s._replace(approved=approved) if s.name == source.name else s
                for s in sources.read_lock(home)
            ],
        )
        said.append(f"approved  {source.name}: {len(held)} command(s)")


def held_lines(held: Sequence[Held]) -> list[str]:
    """What waits for approval, as `add`, `update` and `approve` show it: each command, the
    old form beside one that changed, the plugin's files that changed under one that did
    not, and what no digest can cover."""
    from skilltool.runnables import label

    said = []
    for each in held:
        item = each.runnable
        what = label(item.key)
        if each.was is None:
            said.append(f"runs      {item.plugin}: {what}: {item.shown}")
        elif each.was == item.shown:
            said.append(f"runs      {item.plugin}: {what}: {item.shown}")
            said.append(
                f"  files   changed since you approved them: {', '.join(each.files) or 'none'}"
            )
        else:
            said += [
                f"runs      {item.plugin}: {what} changed since you approved it:",
                f"  -       {each.was}",
                f"  +       {item.shown}",
            ]
            if each.files:
                said.append(f"  files   changed too: {', '.join(each.files)}")
        if item.note:
            said.append(f"  note    {item.note}")
    return said


def _asked(said: list[str], question: str) -> bool:
    """On a terminal: the lines so far, then a yes-or-no question; False without one."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    report.clear_progress()
    for line in said:
        sys.stdout.write(line + "\n")
    said.clear()
    sys.stdout.write(f"ask       {question}? [y/N] ")
    sys.stdout.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")
