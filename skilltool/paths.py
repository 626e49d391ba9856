"""Every location skilltool reads or writes: the search path, the skills dir, the state dir.

All of them derive from one value, the scope a run acts on (`Scope`): a `Home`, the real one
(honouring the XDG variables) or the directory given with `--home`, where the XDG variables
of the real home are ignored and every default is taken under that directory; or a
`Project`, a folder with a manifest (`skilltool.toml`) whose files live in the folder itself.
A harness asks the scope where it is (`harnesses.root_of`); the planner, the ledger, the
caches and the sources commands take every path they use from it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from skilltool.model import SearchEntry
from skilltool.record import NamedTuple

# every harness skilltool writes for, and where its own folder is: under the home or under
# the config home (XDG_CONFIG_HOME), its name there, and the variable that moves it; the
# registry of harnesses (harnesses/__init__.py takes its names from here)
HARNESS_ROOTS: dict[str, tuple[Literal["home", "config"], str, str | None]] = {
    "opencode": ("config", "opencode", None),  # XDG_CONFIG_HOME moves it, as every config
    "hermes": ("home", ".hermes", "HERMES_HOME"),
    "codex": ("home", ".codex", "CODEX_HOME"),
    "pi": ("home", ".pi/agent", "PI_CODING_AGENT_DIR"),
    "claude": ("home", ".claude", "CLAUDE_CONFIG_DIR"),
    "gemini": ("home", ".gemini", "GEMINI_CLI_HOME"),  # a home: its .gemini is the folder
    "copilot": ("home", ".copilot", "COPILOT_HOME"),
    "kilo": ("config", "kilo", None),
    "qwen": ("home", ".qwen", "QWEN_HOME"),  # also read from ~/.qwen/.env or ~/.env
    "vibe": ("home", ".vibe", "VIBE_HOME"),
    "kimi": ("home", ".kimi-code", "KIMI_CODE_HOME"),
    "droid": ("home", ".factory", "FACTORY_HOME_OVERRIDE"),  # a home: its .factory is the folder
    "cline": ("home", ".cline", "CLINE_DIR"),
    "auggie": ("home", ".augment", None),  # it reads $HOME/.augment, no variable of its own
    "qoder": ("home", ".qoder", "QODER_CONFIG_DIR"),
    # OPENHANDS_PERSISTENCE_DIR moves its settings and mcp.json, not its agents and skills
    "openhands": ("home", ".openhands", None),
    "continue": ("home", ".continue", "CONTINUE_GLOBAL_DIR"),  # the folder itself
    "amp": ("config", "amp", None),  # XDG_CONFIG_HOME moves it; AMP_SETTINGS_FILE names a file
}
HARNESS_NAMES = tuple(HARNESS_ROOTS)

DEFAULT_NAMESPACE = "skilltool"
OVERRIDE_VARIABLE = "SKILLTOOL_PLUGINS"
NAMESPACE_VARIABLE = "SKILLTOOL_NAMESPACE"


def package_data(name: str) -> Path:
    """A data folder shipped with skilltool: inside the installed package, else the repo's."""
    here = Path(__file__).resolve().parent
    inside = here / name
    return inside if inside.is_dir() else here.parent / name


def bundled_plugins() -> Path:
    return package_data("resources") / "plugins"


class Home(NamedTuple):
    """A home directory and the XDG locations that go with it: the user's scope."""

    path: Path
    namespace: str = DEFAULT_NAMESPACE
    explicit: bool = False  # given with --home: ignore the real home's XDG variables
    dir: Path | None = None  # the skills dir given with --dir

    @classmethod
    def resolve(
        cls, home: str | Path | None, namespace: str | None = None, skills_dir: str | None = None
    ) -> Home:
        """The home a run names (`--home`, else the user's), with the skills dir of `--dir`;
        a named path that is not there is a usage error, before anything is read."""
        ns = namespace or os.environ.get(NAMESPACE_VARIABLE) or DEFAULT_NAMESPACE
        if home is not None:
            found = cls(named_directory(str(home), "--home"), ns, explicit=True)
        else:
            found = cls(Path(os.path.expanduser("~")), ns)
        if skills_dir is None:
            return found
        return found._replace(dir=named_directory(skills_dir, "--dir"))

    @property
    def kind(self) -> str:
        return "home"

    @property
    def is_real(self) -> bool:
        """Whether this is the user's own home (reports name any other)."""
        real = os.path.expanduser("~")
        return not self.explicit or os.path.realpath(self.path) == os.path.realpath(real)

    def _xdg(self, variable: str, default: str) -> Path:
        value = None if self.explicit else os.environ.get(variable)
        # the XDG spec: a relative value is invalid and must be ignored
        if value and os.path.isabs(value):
            return Path(value)
        return self.path / default

    @property
    def data_home(self) -> Path:
        if not self.explicit and sys.platform != "linux":
            import platformdirs  # only where the layout is not the XDG one

            return Path(platformdirs.user_data_dir())
        return self._xdg("XDG_DATA_HOME", ".local/share")

    @property
    def config_home(self) -> Path:
        return self._xdg("XDG_CONFIG_HOME", ".config")

    @property
    def state_home(self) -> Path:
        if not self.explicit and sys.platform != "linux":
            import platformdirs

            return Path(platformdirs.user_state_dir())
        return self._xdg("XDG_STATE_HOME", ".local/state")

    @property
    def cache_dir(self) -> Path:
        if not self.explicit and sys.platform != "linux":
            import platformdirs

            return Path(platformdirs.user_cache_dir(self.namespace))
        return self._xdg("XDG_CACHE_HOME", ".cache") / self.namespace

    @property
    def state_dir(self) -> Path:
        return self.state_home / self.namespace

    @property
    def skills_dir(self) -> Path:
        """Where skills are linked: `--dir`, else ~/.agents/skills."""
        return self.dir if self.dir is not None else self.path / ".agents" / "skills"

    @property
    def data_dir(self) -> Path:
        """skilltool's own data: the user's plugins, the lockfile, the sources."""
        return self.data_home / self.namespace

    @property
    def lockfile(self) -> Path:
        """The lockfile of the sources `plugins add` brought in (SPEC §9)."""
        return self.data_dir / "plugins.lock"

    @property
    def sources_dir(self) -> Path:
        """Where git sources are checked out; beside, not inside, the user's plugins dir."""
        return self.data_dir / "sources"

    @property
    def ledger(self) -> Path:
        """The record of every entry skilltool wrote into a config file it shares."""
        return self.state_dir / "mcp-entries.json"

    def variable(self, name: str) -> str | None:
        """A harness's own location variable (CODEX_HOME, ...), ignored under --home."""
        return None if self.explicit else os.environ.get(name) or None

    def expand(self, value: str) -> Path:
        """A location a harness reads from a variable: `~` is this home, a relative path is
        taken from the working folder, as the harnesses take it."""
        if value == "~" or value.startswith("~/"):
            return self.path / value[2:]
        return Path(os.path.abspath(value))

    def show(self, path: Path) -> str:
        """A path as a person reads it: under the home, written with '~'."""
        # on strings, as Path.relative_to decides it: called for every line of a run
        text, root = str(path), str(self.path)
        if text == root:
            return "~"
        inside = root.rstrip(os.sep) + os.sep
        return f"~/{text[len(inside) :]}" if text.startswith(inside) else text

    def stored(self, path: Path) -> str:
        """A path as the lockfile, a marker or the ledger records it: as it is."""
        return str(path)

    def restored(self, text: str) -> Path:
        """A recorded path back as a path."""
        return Path(text)

    def line(self) -> str:
        """The first line of every report: which scope the run acts on."""
        return f"home      {'~' if self.is_real else self.path}"


MANIFEST = "skilltool.toml"
PROJECT_LOCK = "skilltool.lock"
PROJECT_DATA = ".skilltool"  # skilltool's own folder in a project


class Project(NamedTuple):
    """A folder with a manifest (`skilltool.toml`): a repository's scope. Everything
    skilltool writes for it is inside the folder, and every path it records there is
    relative to it, so that what is committed is the same whoever wrote it, wherever."""

    path: Path  # the folder of the manifest
    namespace: str = DEFAULT_NAMESPACE
    harnesses: tuple[str, ...] = ()  # the harnesses the manifest names
    copies: bool = True  # a git source's skills are copied in (committed), not linked
    withheld: tuple[tuple[str, str], ...] = ()  # (harness, source) not written for it

    @property
    def kind(self) -> str:
        return "project"

    @property
    def explicit(self) -> bool:
        return True

    @property
    def dir(self) -> None:
        return None

    @property
    def is_real(self) -> bool:
        return False

    @property
    def manifest(self) -> Path:
        return self.path / MANIFEST

    @property
    def lockfile(self) -> Path:
        return self.path / PROJECT_LOCK

    @property
    def skills_dir(self) -> Path:
        return self.path / ".agents" / "skills"

    @property
    def data_dir(self) -> Path:
        """skilltool's own folder: the entry ledger (committed) and, ignored by git, the
        checkouts, the caches and the lock of this checkout."""
        return self.path / PROJECT_DATA

    @property
    def sources_dir(self) -> Path:
        return self.data_dir / "sources"

    @property
    def state_dir(self) -> Path:
        return self.data_dir / "state"

    @property
    def cache_dir(self) -> Path:
        return self.data_dir / "cache"

    @property
    def ledger(self) -> Path:
        return self.data_dir / "entries.json"

    @property
    def config_home(self) -> Path:
        return self.path

    def variable(self, name: str) -> str | None:
        """A harness's location variable moves its home folder, never a project's."""
        return None

    def expand(self, value: str) -> Path:
        return Path(os.path.abspath(value))

    def show(self, path: Path) -> str:
        """A path as a person reads it: inside the project, relative to its folder."""
        text, root = str(path), str(self.path)
        if text == root:
            return "."
        inside = root.rstrip(os.sep) + os.sep
        return text[len(inside) :] if text.startswith(inside) else text

    def stored(self, path: Path) -> str:
        """A path as the project's files record it: inside the project, relative to its
        folder with '/' (the same on every checkout); outside it, as it is."""
        shown = self.show(path)
        return shown.replace(os.sep, "/") if shown != str(path) else shown

    def restored(self, text: str) -> Path:
        return self.path / text if not os.path.isabs(text) else Path(text)

    def line(self) -> str:
        return f"project   {self.path}"


# the value every location comes from: the user's home, or a project
Scope = Home | Project


class Escape(NamedTuple):
    """A path a project names that leads out of it: through `link`, the first link on the
    way that leads out (None: the path itself is not in the project), to `leads`."""

    path: Path
    link: Path | None
    leads: Path

    @property
    def at(self) -> Path:
        """The path to name: the link that leads out, else the path itself."""
        return self.link if self.link is not None else self.path

    def line(self) -> str:
        """Why nothing is read or written there, and what to do, in one clause."""
        if self.link is None:
            return f"{self.path} is outside the project: nothing is read or written there"
        return (
            f"a link to {self.leads}, outside the project: nothing is read or written through "
            "it; put the project's own file or folder in its place, or remove the link"
        )


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def escape(root: Path, path: Path) -> Escape | None:
    """Whether `path`, named by the project in `root`, leads out of it once every link on the
    way is followed (None: it stays inside; a link that stays inside is fine). The one test
    every path a project names passes before it is read or written: a repository is someone
    else's input, and a link it commits must not make skilltool act on the cloner's home."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    if _within(real, real_root):
        return None
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return Escape(path, None, Path(real))
    here = root
    for part in parts:
        here = here / part
        if os.path.islink(here):
            leads = os.path.realpath(here)
            if not _within(leads, real_root):
                return Escape(path, here, Path(leads))
    return Escape(path, None, Path(real))


def escapes(home: Scope, path: Path) -> Escape | None:
    """`escape` for a project; a home's paths are the user's own, links and all."""
    return escape(home.path, path) if isinstance(home, Project) else None


def nearest(start: Path, name: str, there: Callable[[Path], bool] = os.path.lexists) -> Path | None:
    """The nearest folder at or above `start` holding `name` (as `there` tells), as git
    finds its repository; None at the root."""
    for here in (start, *start.parents):
        if there(here / name):
            return here
    return None


def find_project(start: Path) -> Path | None:
    """The nearest folder at or above `start` that holds a manifest."""
    return nearest(start, MANIFEST, os.path.isfile)


def repository_of(start: Path) -> Path | None:
    """The top of the git repository `start` is in (a folder holding `.git`), or None."""
    return nearest(start, ".git")


def named_path(text: str, what: str) -> Path:
    """A path the user named: `~` expanded, made absolute; one that does not exist (or an
    empty one) is a usage error, so that nothing is decided from a typo."""
    from skilltool.errors import UsageError

    if not text:
        raise UsageError(f"{what} is empty; give a path")
    path = Path(os.path.abspath(os.path.expanduser(text)))
    if not os.path.lexists(path):
        raise UsageError(f"{text} does not exist; check {what}, or create it first")
    return path


def named_directory(text: str, what: str) -> Path:
    from skilltool.errors import UsageError

    path = named_path(text, what)
    if not os.path.isdir(path):
        raise UsageError(f"{text} is not a directory; give a directory for {what}")
    return path


def data_dirs() -> list[Path]:
    # system-wide, so honoured under --home too
    value = os.environ.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share"
    return [Path(p) for p in value.split(":") if p and os.path.isabs(p)]


def override_entries() -> list[SearchEntry] | None:
    """The entries of SKILLTOOL_PLUGINS, or None when it is not set."""
    value = os.environ.get(OVERRIDE_VARIABLE)
    if value is None:
        return None
    if not value.strip(":"):
        from skilltool.errors import UsageError

        raise UsageError(f"{OVERRIDE_VARIABLE} is set but empty; unset it, or name plugin folders")
    # a plugin folder named here that is not there stops the run: taken as empty, it
    # would have every link and rendering of the missing plugins removed
    return [
        SearchEntry(named_path(p, OVERRIDE_VARIABLE), "override") for p in value.split(":") if p
    ]


def load_toml(raw: bytes) -> dict[str, object]:
    """A TOML document as plain values; ValueError when it does not parse."""
    try:
        import tomllib
    except ImportError:  # Python 3.10: tomlkit reads it, more slowly
        import tomlkit

        try:
            return dict(tomlkit.parse(raw.decode("utf-8")).unwrap())
        except Exception as err:
            raise ValueError(str(err)) from err
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise ValueError("not UTF-8") from err


def source_entry(
    home: Scope,
    name: str,
    path: Path | None,
    plugins: tuple[str, ...] = (),
    skills: tuple[str, ...] = (),
    harness: str | None = None,
) -> SearchEntry:
    """The search-path entry of an added source: its local path, or its current checkout."""
    where = path if path is not None else home.sources_dir / name / "current" / name
    return SearchEntry(where, "added", plugins, skills, name, harness)


def _names(value: object) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def added_entries(home: Scope) -> list[SearchEntry]:
    """The entries of the sources in the lockfile, in its order.

    A lockfile that cannot be read adds nothing here; the `plugins` commands say why.
    """
    try:
        data = load_toml(home.lockfile.read_bytes())
    except (OSError, ValueError):
        return []
    tables = data.get("sources")
    if not isinstance(tables, dict):
        return []
    entries = []
    for name, table in tables.items():
        if not isinstance(table, dict) or "/" in name or name in ("", ".", ".."):
            continue
        if table.get("plugins", None) == []:  # a marketplace none of whose plugins is picked
            continue
        path = table.get("path")
        only, skills = _names(table.get("plugins", [])), _names(table.get("skills", []))
        local = home.restored(path) if isinstance(path, str) else None
        harness = table.get("harness") if local is not None else None
        harness = harness if isinstance(harness, str) else None
        entries.append(source_entry(home, name, local, only, skills, harness))
    return entries


def search_path(home: Scope) -> list[SearchEntry]:
    """The ordered search path of SPEC §2 (first plugin of a name wins), the added first; a
    project's is its own sources alone: what its manifest names, and nothing of a home's."""
    if isinstance(home, Project):
        return added_entries(home)
    override = override_entries()
    if override is not None:
        return override
    entries = added_entries(home)
    entries.append(SearchEntry(home.data_dir / "plugins", "user"))
    entries += [SearchEntry(d / home.namespace / "plugins", "system") for d in data_dirs()]
    entries.append(SearchEntry(bundled_plugins(), "bundled"))
    return entries
