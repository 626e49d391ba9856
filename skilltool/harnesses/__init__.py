"""The harness registry: what each harness is, where it lives, what it renders for an agent.

A harness module defines one subclass of `Harness`; adding a harness is one module,
one template folder under templates/, one snapshot test and one conformance row.
"""

from __future__ import annotations

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


class Harness:
    """What every harness module fills in."""

    name: ClassVar[str]
    title: ClassVar[str]
    enforces_tools: ClassVar[bool] = False

    def __init__(self, home: Home, skills_dir: Path) -> None:
        self.home = home
        self.skills_dir = skills_dir

    def root(self) -> Path:
        """The harness's own directory: rendering happens only when it exists."""
        raise NotImplementedError

    def absent(self, agent: Agent) -> str | None:
        """Why nothing can be rendered for this agent here, or None when it can."""
        if not self.root().is_dir():
            return f"{self.home.show(self.root())} does not exist (the harness is not set up here)"
        return None

    def render(self, agent: Agent) -> list[Rendering]:
        raise NotImplementedError

    def notes(self, agent: Agent) -> list[Note]:
        return []

    def own_skills_dir(self) -> Path | None:
        """A skills dir of the harness's own, for a harness that does not read ~/.agents/skills."""
        return None

    def owned_places(self) -> list[Path]:
        """Files that may be renderings of this harness, to find ones no agent needs any more."""
        raise NotImplementedError

    def launch(self, agent: Agent) -> Launch:
        raise NotImplementedError

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


def registry() -> dict[str, type[Harness]]:
    from skilltool.harnesses import claude, codex, copilot, gemini, hermes, opencode, pi

    found = (
        opencode.OpenCode,
        hermes.Hermes,
        codex.Codex,
        pi.Pi,
        claude.Claude,
        gemini.Gemini,
        copilot.Copilot,
    )
    return {h.name: h for h in found}


NAMES = ("opencode", "hermes", "codex", "pi", "claude", "gemini", "copilot")
