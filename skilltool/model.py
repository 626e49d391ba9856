"""The things skilltool reasons about: plugins, skills, agents, problems, actions.

Everything here is a frozen value; the pipeline passes them from one stage to the next.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Origin = Literal["user", "system", "bundled", "override", "argument"]
Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input, said in one line: file, line, field, what to do."""

    path: Path
    message: str
    field: str | None = None
    line: int | None = None
    severity: Severity = "error"

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        what = f"{self.field}: {self.message}" if self.field else self.message
        return f"{where}: {what}"

    def as_dict(self) -> dict[str, object]:
        return {
            "path": str(self.path),
            "line": self.line,
            "field": self.field,
            "message": self.message,
            "severity": self.severity,
        }


@dataclass(frozen=True)
class SearchEntry:
    """One directory of the search path and where it came from."""

    path: Path
    origin: Origin


@dataclass(frozen=True)
class Skill:
    name: str
    path: Path  # the skill's directory, as found on the search path
    description: str


@dataclass(frozen=True)
class Agent:
    name: str
    path: Path  # the agents/<file>.md it was read from
    description: str
    body: str  # every character after the closing '---' line, exactly
    tools: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    model: str | None = None
    # per-harness settings from the 'harnesses:' key, e.g. {"codex": {"model": "gpt-5"}}
    overrides: dict[str, dict[str, str]] = field(default_factory=dict, hash=False, compare=False)
    lines: dict[str, int] = field(default_factory=dict, hash=False, compare=False)  # key -> line

    def model_for(self, harness: str) -> str | None:
        """The model a harness was told to use for this agent, if any."""
        return self.overrides.get(harness, {}).get("model")


@dataclass(frozen=True)
class Plugin:
    name: str
    root: Path
    origin: Origin
    manifest: Path | None = None
    skills: tuple[Skill, ...] = ()
    agents: tuple[Agent, ...] = ()
    problems: tuple[Problem, ...] = ()
    shadowed_by: Path | None = None  # root of the plugin of the same name that wins

    @property
    def active(self) -> bool:
        return self.shadowed_by is None


@dataclass(frozen=True)
class Catalogue:
    """What the search path holds: every plugin in order, and what went wrong finding them."""

    entries: tuple[SearchEntry, ...]
    plugins: tuple[Plugin, ...]
    problems: tuple[Problem, ...] = ()

    @property
    def active(self) -> tuple[Plugin, ...]:
        return tuple(p for p in self.plugins if p.active)

    @property
    def roots(self) -> frozenset[Path]:
        return frozenset(p.root for p in self.plugins)
