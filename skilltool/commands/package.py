"""`package`: the distro build step (SPEC §7)."""

from __future__ import annotations

import os
from pathlib import Path

from skilltool import paths, report
from skilltool.commands.common import Options
from skilltool.errors import FAILED, OK, UsageError
from skilltool.report import Result


def package(sources: list[str], destdir: str, prefix: str, strict: bool, opts: Options) -> Result:
    """The distro build step: validate strictly, then stage (SPEC §7)."""
    from skilltool import package as staging

    if not destdir:
        raise UsageError("--destdir is empty; give the staging directory")
    namespace = opts.namespace or paths.DEFAULT_NAMESPACE
    result = staging.package(
        [paths.named_path(s, "a plugin to package") for s in sources],
        Path(os.path.abspath(os.path.expanduser(destdir))),
        prefix,
        namespace,
        dry_run=opts.dry_run,
        strict=strict,
    )
    data = {
        "dry_run": opts.dry_run,
        "staged": not result.failed and not opts.dry_run,
        "plugins": [
            {
                "name": plugin.name,
                "source": str(plugin.root),
                "dest": str(dest),
                "files": [
                    str(s.path.relative_to(dest))
                    for s in result.staged
                    if s.kind != "dir" and dest in s.path.parents
                ],
            }
            for plugin, dest in result.plugins
        ],
        "problems": [p.as_dict() for p in result.problems],
    }
    lines = [report.problem_line(p) for p in result.problems]
    prefix_word = "dry-run: " if opts.dry_run else ""
    if result.failed:
        errors = sum(p.severity == "error" for p in result.problems)
        lines.append(f"not staged: {errors} error(s); nothing was written")
    else:
        for plugin, dest in result.plugins:
            count = sum(1 for s in result.staged if s.kind != "dir" and dest in s.path.parents)
            lines.append(f"{prefix_word}{'staged':<9} {plugin.name} -> {dest} ({count} files)")
    code = FAILED if result.failed or not result.plugins else OK
    return Result(code, data, tuple(lines))
