"""Where the files that carry hooks lie, and what a harness calls its events: the half of
`hook_format` a run asks of every harness present (which of its files are hooks
skilltool wrote), kept apart so that a run that writes no hook (a `status`, a no-op
`install`) does not import the half that formats them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def same_names(*events: str) -> Mapping[str, str]:
    """`Harness.hook_events` of a harness that calls these events as Claude Code does."""
    return {event: event for event in events}


def files_under(folder: Path, pattern: str) -> list[Path]:
    """The files of `folder` matching `pattern` (a glob, may hold one '/'), sorted; none when
    the folder is not there."""
    if not os.path.isdir(folder):
        return []
    return sorted(folder.glob(pattern))


# the folder of a plugin or an extension skilltool generates to hold one plugin's hooks (Claude
# Code, Qwen Code, Gemini CLI): `<plugin>.hooks/`, its manifest, and `hooks/hooks.json`
HOOKS_FOLDER = "{plugin}.hooks"
HOOKS_FILE = "hooks/hooks.json"


def hooks_folder_files(parent: Path, manifest: str) -> list[Path]:
    """The files of every generated hooks folder in `parent` (`hook_files`)."""
    folders = HOOKS_FOLDER.format(plugin="*")
    return files_under(parent, f"{folders}/{manifest}") + files_under(
        parent, f"{folders}/{HOOKS_FILE}"
    )


def hooks_folder_plugin(path: Path) -> str:
    """The plugin a file of a generated hooks folder is for (`hook_plugin`)."""
    suffix = HOOKS_FOLDER.format(plugin="")
    folder = next(p for p in path.parents if p.name.endswith(suffix))
    return folder.name.removesuffix(suffix)
