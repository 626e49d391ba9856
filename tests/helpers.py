"""Helpers the tests share that are not fixtures: fixture trees, the CLI run as a user
types it, output scrubbing, TOML reading on every Python."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from skilltool.cli import app, register

REPO = Path(__file__).resolve().parent.parent


# the directory each harness needs before skilltool renders for it ('helper': a Hermes profile)
def harness_roots() -> dict[str, str]:
    """Each harness's own directory in a home, relative to it, as skilltool finds it."""
    from skilltool.harnesses import NAMES, root_of
    from skilltool.paths import Home

    home = Home(Path("/home/user"), explicit=True)
    return {name: str(root_of(name, home).relative_to(home.path)) for name in NAMES}


# what makes each harness present in a test's home (Hermes renders into the profile of the
# agent the tests use, which must exist)
HARNESS_DIRS = {**harness_roots(), "hermes": ".hermes/profiles/helper"}


def toml_loads(text: str) -> dict[str, Any]:
    """TOML read by Python's own parser where it has one (3.11+), else by tomlkit's."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomlkit

        return tomlkit.parse(text).unwrap()
    return tomllib.loads(text)


def build_file_tree(root: Path, spec: Mapping[str, str | bytes | Path]) -> Path:
    """Make files under `root`: text or bytes make a file, a Path makes a symlink to it."""
    for relative, value in spec.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(value, Path):
            path.symlink_to(value)
        elif isinstance(value, bytes):
            path.write_bytes(value)
        else:
            path.write_text(value, encoding="utf-8", newline="")
    return root


def skill_md(
    name: str, description: str = "Does a thing. Use when testing.", extra: str = ""
) -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n# {name}\n\nBody.\n"


def agent_md(name: str, body: str = "You help with the tests.\n", extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: An agent for tests.\n{extra}---\n{body}"


def plugin_tree(
    root: Path,
    name: str,
    skills: tuple[str, ...] = (),
    agents: tuple[str, ...] = (),
    manifest: bool = True,
) -> Path:
    spec: dict[str, str | bytes | Path] = {}
    if manifest:
        spec[".claude-plugin/plugin.json"] = f'{{"name": "{name}", "version": "1.0.0"}}\n'
    for skill in skills:
        spec[f"skills/{skill}/SKILL.md"] = skill_md(skill)
    for agent in agents:
        spec[f"agents/{agent}.md"] = agent_md(agent)
    return build_file_tree(root / name, spec)


class Result:
    def __init__(self, code: int, stdout: str, stderr: str) -> None:
        self.code, self.stdout, self.stderr = code, stdout, stderr

    @property
    def scope(self) -> str | None:
        """The first line, naming the scope the run acted on (a home or a project)."""
        first = self.stdout.split("\n", 1)[0]
        return first if SCOPE.fullmatch(first) else None

    @property
    def lines(self) -> list[str]:
        """The report's lines after its scope line."""
        every = self.stdout.splitlines()
        return every[1:] if self.scope is not None else every

    @property
    def decided(self) -> list[str]:
        """The lines of an install or uninstall without its closing summary line."""
        *lines, summary = self.lines
        assert SUMMARY.fullmatch(summary), self.stdout
        return lines


# the first line of a report: `home      ~`, `home      /some/home`, `project   /a/repo`
SCOPE = re.compile(r"(home      |project   )\S.*")
# the closing line of install and uninstall: `12 linked, 3 rendered: 2 harnesses absent`, and
# the problems counted: `; 1 error, 2 warnings: see 'skilltool plugins validate'`
SUMMARY = re.compile(
    r"(dry-run: )?(nothing to do|[0-9,]+ [a-z ]+(, [0-9,]+ [a-z ]+)*)(: [0-9]+ harness(es)? absent)?"
    r"(; [0-9,]+ [a-z ()]+(, [0-9,]+ [a-z ()]+)*: see 'skilltool plugins validate')?"
)


def _runner() -> CliRunner:
    """A runner that keeps stderr apart: click 8.1 (typer 0.15) needs asking, 8.2 always does."""
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


def run(*args: str | Path, env: Mapping[str, str] | None = None) -> Result:
    """Run the real CLI in this process, the way a user would type it."""
    words = [str(a) for a in args]
    register(words)  # the commands a run of these words builds, as `skilltool` does
    result = _runner().invoke(app, words, env=dict(env or {}), catch_exceptions=False)
    return Result(result.exit_code, result.stdout, result.stderr)


def scrub(text: str, *roots: Path) -> str:
    """Output with machine-specific paths replaced by stable names, for snapshots."""
    text = text.replace(str(REPO), "<repo>")
    for index, root in enumerate(roots):
        text = text.replace(str(root), f"<tmp{index or ''}>")
    return text
