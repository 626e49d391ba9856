"""A plugin's language servers (`.lsp.json`, `lspServers`) planned as entries of each harness's
own config file, under the entry rule of SPEC §5, as MCP servers are (mcp.py): only an entry
the ledger records as ours, unchanged since, is changed or removed. A harness with no place
for them is said once; a fetched plugin's server reaches a harness once approved (consent).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from skilltool.model import Catalogue, LspServer, Problem
from skilltool.plan import Action, Evidence, Plan, State

if TYPE_CHECKING:
    from skilltool.harnesses import Harness
    from skilltool.ledger import Ledger

TABLE = ("lsp",)  # the table of OpenCode's and Kilo's config that holds them


def winning(catalogue: Catalogue) -> tuple[dict[str, LspServer], list[Problem]]:
    """Each language server of the active plugins, the first on the search path winning a
    name (two plugins that serve one language: the first serves it)."""
    found: dict[str, LspServer] = {}
    problems: list[Problem] = []
    for plugin in catalogue.active:
        for server in plugin.lsp_servers:
            first = found.get(server.name)
            if first is None:
                found[server.name] = server
                continue
            problems.append(
                Problem(
                    server.path,
                    f"language server {server.name!r} is also declared in {first.path}, which "
                    "comes first on the search path; this one is not carried: rename one",
                    f"lspServers.{server.name}",
                    server.line,
                    "warning",
                )
            )
    return found, problems


def plan_lsp(
    catalogue: Catalogue,
    harnesses: list[Harness],
    ledger: Ledger,
    remove: bool = False,
    force: bool = False,
    evidence: Evidence | None = None,
) -> Plan:
    """Every language server as an entry of each harness that reads them, and the removal of
    our entries no server needs any more (all of them, for uninstall)."""
    servers, problems = winning(catalogue)
    read = evidence or Evidence(catalogue)
    actions: list[Action] = []
    for harness in harnesses:
        actions += _harness_entries(harness, servers, ledger, remove, force, read)
    return Plan(tuple(a._replace(label="lsp") for a in actions), tuple(problems))


def _note(harness: Harness, server: LspServer, target: Path, state: State, why: str) -> Action:
    """A server that gets no entry in this harness, and why."""
    return Action(
        "entry", harness.name, server.name, target, state, "none", server.path, reason=why
    )


def _harness_entries(
    harness: Harness,
    servers: dict[str, LspServer],
    ledger: Ledger,
    remove: bool,
    force: bool,
    read: Evidence,
) -> list[Action]:
    place = harness.lsp_place() if harness.present() else None
    if place is None:
        if remove or not servers or not harness.present():
            return []
        why = f"language servers: {harness.title} is given none: {harness.no_lsp}"
        return [_note(harness, s, harness.root(), "unsupported", why) for s in servers.values()]
    mine = [r for r in ledger.every(harness.name) if (r.file, r.table) == (place.path, TABLE)]
    if not servers and not mine:
        return []  # nothing to carry, nothing of ours: the user's file is not even read
    from skilltool import mcp

    config = mcp.config_file(harness, place, ledger)
    actions: list[Action] = []
    for server in [] if remove else servers.values():
        if config.problem is not None:
            state, why = config.problem
            actions.append(_note(harness, server, place.path, state, f"lsp {server.name}: {why}"))
            continue
        value = harness.lsp_value(server)
        actions.append(mcp.put(harness, config, server.name, server.path, value, ledger, force))
    wanted = set() if remove else set(servers)
    for record in ledger.of(harness.name):
        if (record.file, record.table) != (place.path, TABLE) or record.name in wanted:
            continue
        action = mcp.take_out(config, record, ledger, remove, force, read)
        if action is not None:
            actions.append(action)
    return actions
