"""Helpers the tests share that are not fixtures."""

from __future__ import annotations

from typing import Any


def toml_loads(text: str) -> dict[str, Any]:
    """TOML read by Python's own parser where it has one (3.11+), else by tomlkit's."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomlkit

        return tomlkit.parse(text).unwrap()
    return tomllib.loads(text)
