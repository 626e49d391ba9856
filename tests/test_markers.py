"""markers: the provenance line and its digest."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from skilltool import markers


def _stamped(body: str) -> bytes:
    return markers.stamp(f"---\n# {markers.SLOT}\nx: 1\n---\n{body}", Path("/p/agents/a.md"))


@given(st.text())
def test_a_stamped_file_is_found_intact_and_any_edit_breaks_it(body: str) -> None:
    data = _stamped(body)
    found = markers.find(data)
    assert found is not None and found.intact and found.source == "/p/agents/a.md"
    edited = markers.find(data + b"!")
    assert edited is not None and not edited.intact


def test_a_file_without_the_marker_is_not_ours() -> None:
    assert markers.find(b"---\ndescription: mine\n---\nhello\n") is None
