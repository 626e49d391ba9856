"""The provenance marker every rendered file carries: make it, find it, verify it.

The marker is one line, in the comment syntax of the file's format:

    # rendered by skilltool from /usr/share/.../agents/helper.md (sha256:...)

The digest covers the whole file except the marker line itself, so skilltool can
tell a file it wrote and nobody touched (digest matches) from one edited by hand.
"""

from __future__ import annotations

import re
from pathlib import Path

from skilltool import fs
from skilltool.record import NamedTuple

# stands where the marker goes while a rendering is built; never in a finished file
SLOT = "\x00skilltool-marker\x00"
PATTERN = rb"rendered by skilltool from (.+?) \(sha256:([0-9a-f]{64})\)"


class Marker(NamedTuple):
    source: str
    digest: str
    intact: bool  # the digest matches the content: nobody edited the file


def _without_line(data: bytes, start: int, end: int) -> bytes:
    line_start = data.rfind(b"\n", 0, start) + 1
    line_end = data.find(b"\n", end)
    line_end = len(data) if line_end == -1 else line_end + 1
    return data[:line_start] + data[line_end:]


def stamp(rendered: str, source: Path | str, escape: bool = False) -> bytes:
    """Put the marker in the slot a template left for it (a line of its own); `source` as
    the scope records it (in a project, relative to its folder)."""
    data = rendered.encode("utf-8")
    slot = SLOT.encode("utf-8")
    start = data.index(slot)
    digest = fs.digest(_without_line(data, start, start + len(slot)))
    text = f"rendered by skilltool from {source} (sha256:{digest})"
    if escape:  # inside a JSON string
        import json

        text = json.dumps(text)[1:-1]
    return data.replace(slot, text.encode("utf-8"), 1)


def find(data: bytes) -> Marker | None:
    """The marker of a file, and whether its digest still matches, or None if it has none."""
    match = re.search(PATTERN, data)
    if match is None:
        return None
    digest = match.group(2).decode("ascii")
    rest = _without_line(data, match.start(), match.end())
    intact = fs.digest(rest) == digest
    return Marker(match.group(1).decode("utf-8", "replace"), digest, intact)
