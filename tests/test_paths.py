"""paths: the search path and every location, from one home."""

from __future__ import annotations

from pathlib import Path

import pytest

from skilltool import paths
from skilltool.errors import UsageError


def test_the_default_search_path_order(home: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_DATA_DIRS", f"{tmp_path}/a:{tmp_path}/b")
    entries = paths.search_path(paths.Home.resolve(None))
    assert [(e.origin, str(e.path)) for e in entries] == [
        ("user", f"{home}/.local/share/skilltool/plugins"),
        ("system", f"{tmp_path}/a/skilltool/plugins"),
        ("system", f"{tmp_path}/b/skilltool/plugins"),
        ("bundled", str(paths.bundled_plugins())),
    ]


def test_an_explicit_home_ignores_the_real_homes_xdg(
    home: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "real-config"))
    (tmp_path / "other").mkdir()
    other = paths.Home.resolve(str(tmp_path / "other"))
    assert other.config_home == tmp_path / "other/.config"
    assert not other.is_real
    assert paths.Home.resolve(None).config_home == tmp_path / "real-config"
    assert paths.Home.resolve(str(home)).is_real


@pytest.mark.parametrize("value", ["", "/nonexistent"])
def test_a_named_path_that_is_not_there_is_a_usage_error(value: str) -> None:
    with pytest.raises(UsageError):
        paths.named_path(value, "--home")


def test_tilde_is_expanded(home: Path) -> None:
    (home / "x").mkdir()
    assert paths.named_directory("~/x", "--dir") == home / "x"


def test_an_empty_override_is_refused(monkeypatch) -> None:
    monkeypatch.setenv(paths.OVERRIDE_VARIABLE, ":")
    with pytest.raises(UsageError):
        paths.override_entries()


def test_a_path_is_shown_under_the_home_as_tilde_and_a_sibling_is_not(tmp_path: Path) -> None:
    (tmp_path / "al").mkdir()
    home = paths.Home.resolve(str(tmp_path / "al"))
    assert home.show(tmp_path / "al") == "~"
    assert home.show(tmp_path / "al" / ".codex" / "x.md") == "~/.codex/x.md"
    assert home.show(tmp_path / "alice" / "x.md") == str(tmp_path / "alice" / "x.md")
    assert home.show(Path("relative/x.md")) == "relative/x.md"
