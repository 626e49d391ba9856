"""What a repository's ignore rules keep out of git: a source file or an output that a
teammate's clone will not have (teams ignore `.mcp.json`, or `.gemini/*`). Asked of the
user's own git (`git check-ignore`), so that every rule git applies is applied: `.gitignore`
at each level, `.git/info/exclude`, the user's global excludes. A tracked file is never
ignored, as git never ignores one.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

# what a line about an ignored path says, after the path and the rule: what it means
CLONE = "a teammate's clone will not have it"


def ignored(root: Path, paths: Iterable[Path]) -> dict[Path, str]:
    """Each of `paths` (inside the repository at `root`) that git ignores, with the rule that
    does, as `.gitignore:12` (`file:line`); none outside a repository, or without git."""
    inside = []
    for path in dict.fromkeys(paths):
        try:
            inside.append((path, path.relative_to(root).as_posix()))
        except ValueError:
            continue
    if not inside or not os.path.lexists(root / ".git"):
        return {}
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "check-ignore", "-v", "-z", "--stdin"],
            input=b"".join(rel.encode("utf-8", "surrogateescape") + b"\0" for _, rel in inside),
            capture_output=True,
            env=env,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    if done.returncode not in (0, 1):
        return {}
    fields = done.stdout.split(b"\0")
    by_rel = {rel: path for path, rel in inside}
    found: dict[Path, str] = {}
    for at in range(0, len(fields) - 3, 4):
        source, line, pattern, rel = (
            f.decode("utf-8", "surrogateescape") for f in fields[at : at + 4]
        )
        if pattern.startswith("!") or rel not in by_rel:
            continue  # a negated rule matched: the path is kept, not ignored
        where = os.path.relpath(source, root) if os.path.isabs(source) else source
        found[by_rel[rel]] = f"{where}:{line}"
    return found


def said(path: str, rule: str) -> str:
    """The line a run says of an ignored path."""
    return f"is ignored by {rule}: {CLONE}; commit it (git add -f) or change the rule"
