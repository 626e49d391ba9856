"""The harness registry: what each harness is, where it lives, what it renders for an agent.

A harness module defines one subclass of `Harness`; adding a harness is one module,
one template folder under templates/, one snapshot test and one conformance row.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from skilltool import markers
from skilltool.model import EMPTY, Agent
from skilltool.paths import Home, package_data

if TYPE_CHECKING:
    import jinja2

CLAUDE_ALIASES = frozenset({"haiku", "sonnet", "opus", "inherit", "default", "opusplan"})


class Rendering(NamedTuple):
    """One file a harness needs for an agent."""

    target: Path
    content: bytes
    mode: int = 0o644
    only_if_absent: bool = False  # a file the harness may own: written once, never replaced
    placeholders: frozenset[str] = frozenset()  # digests of seeds the harness wrote itself


class Note(NamedTuple):
    """Something to tell the user about a rendering that is not a file action."""

    target: Path
    text: str


class Launch(NamedTuple):
    """How to start the harness as the agent over ACP."""

    command: list[str]
    env: Mapping[str, str] = EMPTY
    notes: Sequence[str] = ()


class Harness(abc.ABC):
    """What every harness module fills in: the abstract methods, and the class names."""

    name: ClassVar[str]
    title: ClassVar[str]
    enforces_tools: ClassVar[bool] = False

    def __init__(self, home: Home, skills_dir: Path) -> None:
        self.home = home
        self.skills_dir = skills_dir

    @abc.abstractmethod
    def root(self) -> Path:
        """The harness's own directory: rendering happens only when it exists."""

    def absent(self, agent: Agent) -> str | None:
        """Why nothing can be rendered for this agent here, or None when it can."""
        if not self.root().is_dir():
            return f"{self.home.show(self.root())} does not exist (the harness is not set up here)"
        return None

    @abc.abstractmethod
    def render(self, agent: Agent) -> list[Rendering]:
        """Every file this harness needs for the agent."""

    def notes(self, agent: Agent) -> list[Note]:
        return []

    def own_skills_dir(self) -> Path | None:
        """A skills dir of the harness's own, for a harness that does not read ~/.agents/skills."""
        return None

    @abc.abstractmethod
    def owned_places(self) -> list[Path]:
        """Files that may be renderings of this harness, to find ones no agent needs any more."""

    @abc.abstractmethod
    def launch(self, agent: Agent) -> Launch:
        """How to start the harness as the agent over ACP."""

    # helpers for the modules

    def model(self, agent: Agent) -> str | None:
        """The per-harness override, else the agent's model when this harness can use it."""
        override = agent.model_for(self.name)
        if override:
            return override
        if agent.model and self.accepts_model(agent.model):
            return agent.model
        return None

    def accepts_model(self, model: str) -> bool:
        return False

    def tools_enforced(self, agent: Agent) -> bool:
        """Whether the harness limits the agent to its tool list (trivially, with no list)."""
        return not agent.tools or self.enforces_tools

    def template(self, name: str, agent: Agent, **extra: Any) -> bytes:
        """Render templates/<harness>/<name> for an agent and stamp its marker."""
        text = (
            environment()
            .get_template(f"{self.name}/{name}")
            .render(agent=agent, marker=markers.SLOT, harness=self, **extra)
        )
        return markers.stamp(text, agent.path, escape=name.endswith(".json.j2"))


def heading(agent: Agent) -> str:
    """The Markdown heading a plain file needs before the body."""
    return f"# {agent.name}\n\n{agent.description}\n"


def _yaml_scalar(value: str) -> str:
    import json

    # a JSON string is a valid YAML double-quoted scalar, whatever it holds
    return json.dumps(value, ensure_ascii=False)


_environment: list[jinja2.Environment] = []


def environment() -> jinja2.Environment:
    if not _environment:
        import json
        import shlex

        import jinja2

        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(package_data("templates"))),
            keep_trailing_newline=True,
            autoescape=False,
            undefined=jinja2.StrictUndefined,
        )
        env.filters["yaml"] = _yaml_scalar
        env.filters["json"] = lambda v: json.dumps(v, ensure_ascii=False)
        env.filters["sh"] = shlex.quote
        env.globals["heading"] = heading
        _environment.append(env)
    return _environment[0]


# the harness modules, in the order everything is shown and done: the one list of names.
# Each module defines one Harness subclass whose `name` is the module's name.
NAMES = ("opencode", "hermes", "codex", "pi", "claude", "gemini", "copilot", "kilo", "qwen")


def registry() -> dict[str, type[Harness]]:
    """Harness name -> its class, imported from its module (only when a command needs them)."""
    import importlib

    found: dict[str, type[Harness]] = {}
    for name in NAMES:
        module = importlib.import_module(f"skilltool.harnesses.{name}")
        [harness] = [
            v
            for v in vars(module).values()
            if isinstance(v, type) and issubclass(v, Harness) and v.__module__ == module.__name__
        ]
        found[harness.name] = harness
    return found
