"""fs: the primitives every writer and reader uses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skilltool import fs


def test_read_regular_refuses_links_fifos_and_directories(tmp_path: Path) -> None:
    (tmp_path / "file").write_bytes(b"data")
    (tmp_path / "link").symlink_to(tmp_path / "file")
    os.mkfifo(tmp_path / "fifo")
    assert fs.read_regular(tmp_path / "file") == b"data"
    assert fs.read_regular(tmp_path / "link") is None  # never followed
    assert fs.read_regular(tmp_path / "fifo") is None  # never blocks
    assert fs.read_regular(tmp_path) is None
    assert fs.read_regular(tmp_path / "missing") is None


def test_write_file_never_clobbers_without_replace(tmp_path: Path) -> None:
    tmp_path = tmp_path / "w"
    tmp_path.mkdir()
    target = tmp_path / "t"
    fs.write_file(target, b"one", 0o644, replace=False)
    with pytest.raises(FileExistsError):
        fs.write_file(target, b"two", 0o644, replace=False)
    assert target.read_bytes() == b"one"
    fs.write_file(target, b"three", 0o755, replace=True)
    assert (target.read_bytes(), target.stat().st_mode & 0o777) == (b"three", 0o755)
    assert [p.name for p in tmp_path.iterdir()] == ["t"]  # no temporary file left


def test_write_file_replaces_a_link_rather_than_writing_through_it(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").write_bytes(b"theirs")
    (tmp_path / "t").symlink_to(tmp_path / "elsewhere")
    fs.write_file(tmp_path / "t", b"ours", 0o644, replace=True)
    assert (tmp_path / "elsewhere").read_bytes() == b"theirs"


def test_sweep_removes_only_temporary_files(tmp_path: Path) -> None:
    tmp_path = tmp_path / "w"
    tmp_path.mkdir()
    (tmp_path / f"{fs.TEMP_PREFIX}x").write_bytes(b"left by a killed run")
    (tmp_path / f"{fs.TEMP_PREFIX}dir").mkdir()
    (tmp_path / "kept").write_bytes(b"")
    fs.sweep([tmp_path, tmp_path / "missing"])
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{fs.TEMP_PREFIX}dir", "kept"]


def test_read_link_is_absolute_and_follows_nothing(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to("b/../c")
    assert fs.read_link(tmp_path / "a") == str(tmp_path / "c")
    assert fs.read_link(tmp_path / "none") is None


def test_the_lock_is_taken_in_the_state_dir(tmp_path: Path) -> None:
    with fs.locked(tmp_path / "state"):
        assert (tmp_path / "state/lock").is_file()


def test_a_digest_is_sha256_before_and_after_a_run_grows_large() -> None:
    import hashlib

    small, large = b"a rendering\n", b"x" * (fs.SMALL_RUN + 1)
    # the first bytes by Python's own SHA-256, the rest by OpenSSL's: the same digests
    for data in (small, large, small):
        assert fs.digest(data) == hashlib.sha256(data).hexdigest()


_part = st.sampled_from(["a", "b.c", ".hidden", "x y", "ü", "..x"])


@given(st.sampled_from(["/", "", "."]), st.lists(_part, max_size=3), _part)
def test_a_child_path_is_the_path_pathlib_makes(start: str, parts: list[str], name: str) -> None:
    """`fs.child` (which skips pathlib's parsing) gives the same path, string and parts."""
    parent = Path(start + "/".join(parts)) if start != "." else Path(*parts)
    made = fs.child(parent, name)
    assert (made, str(made), made.parts, made.name) == (
        parent / name,
        str(parent / name),
        (parent / name).parts,
        name,
    )
    assert os.fspath(made.parent) == os.fspath(parent)


@given(st.lists(st.lists(st.sampled_from(["a", "b.c", ".hidden", ".", "..", "", "ü"]), max_size=4)))
def test_a_path_made_from_its_folders_path_is_the_path_pathlib_makes(
    paths: list[list[str]],
) -> None:
    """`fs.path_in`, which reuses the Path of a folder seen before, gives `Path(text)`."""
    folders: dict[str, Path] = {}
    for parts in paths:
        for text in ("/" + "/".join(parts), "/".join(parts)):
            made = fs.path_in(text, folders)
            assert (made, str(made), made.parts) == (Path(text), str(Path(text)), Path(text).parts)
