"""skilltool's own settings file, `~/.config/skilltool/config.toml`: what the user turned off.

    leave-alone = ["hermes"]        # harnesses skilltool never writes to nor removes from

    [disabled.plugins]              # a plugin, in every harness ("*") or in some
    superpowers = ["claude", "codex"]

    [disabled.skills]               # one skill of a plugin, by its name
    brainstorming = ["*"]

    [disabled.agents]               # one agent, by its name
    code-reviewer = ["pi"]

    [enabled.plugins]               # a plugin off by its own default (defaultEnabled: false),
    linter = ["*"]                  # turned on by the user: in every harness, or in some

    [config.github-tools]           # the values given for a plugin's options (userConfig)
    org = "acme"

`plugins disable` and `plugins enable` edit it through tomlkit, so the user's comments and
order stay; the user may edit it too. Only a home has one: a project's manifest already
names its plugins and harnesses.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple

from skilltool import paths
from skilltool.errors import SkilltoolError
from skilltool.fs import write_file

FILE = "config.toml"
EVERY = "*"  # every harness
Kind = Literal["plugins", "skills", "agents"]
KINDS: tuple[Kind, ...] = ("plugins", "skills", "agents")


class Settings(NamedTuple):
    leave_alone: frozenset[str] = frozenset()
    # kind -> name -> the harnesses it is turned off in (EVERY: all of them)
    disabled: Mapping[Kind, Mapping[str, frozenset[str]]] = {}
    # plugin -> option key -> the value given for it (never a sensitive one's: parse_options)
    config: Mapping[str, Mapping[str, Any]] = {}
    # a plugin off by its own default (`defaultEnabled: false`) -> the harnesses the user
    # turned it on in (EVERY: all of them)
    enabled: Mapping[str, frozenset[str]] = {}

    def off(self, kind: Kind, name: str, harness: str) -> bool:
        """Whether the user turned this plugin, skill or agent off in `harness`."""
        where = self.disabled.get(kind, {}).get(name, frozenset())
        return EVERY in where or harness in where

    def everywhere(self, kind: Kind, name: str) -> bool:
        return EVERY in self.disabled.get(kind, {}).get(name, frozenset())

    def where(self, kind: Kind, name: str) -> frozenset[str]:
        return self.disabled.get(kind, {}).get(name, frozenset())

    @property
    def any_disabled(self) -> bool:
        return any(self.disabled.get(kind) for kind in KINDS)

    def renamed(self, renames: Mapping[str, str]) -> Settings:
        """These settings with what is kept under a plugin's old name (renames: old -> new)
        applied to its new name too, unless the new name has its own."""
        if not renames:
            return self

        def moved(table: Mapping[str, Any]) -> dict[str, Any]:
            now = dict(table)
            for old, new in renames.items():
                if old in table and new not in table:
                    now[new] = table[old]
            return now

        disabled = {**self.disabled, "plugins": moved(self.disabled.get("plugins", {}))}
        return self._replace(
            disabled=disabled, enabled=moved(self.enabled), config=moved(self.config)
        )

    def defaulted(self, off_by_default: Iterable[str], every: Sequence[str]) -> Settings:
        """These settings with each plugin that is off by its own default (`defaultEnabled:
        false`) off where the user did not turn it on (`[enabled.plugins]`), as Claude Code
        reads it: what the user set, on or off, wins. `every`: the harnesses known."""
        plugins = dict(self.disabled.get("plugins", {}))
        for name in off_by_default:
            on = self.enabled.get(name, frozenset())
            if EVERY in on:
                continue
            off = plugins.get(name, frozenset())
            if EVERY not in off:
                off = off | (frozenset(every) - on)
            plugins[name] = frozenset({EVERY}) if set(every) <= off else off
        if plugins == self.disabled.get("plugins", {}):
            return self
        return self._replace(disabled={**self.disabled, "plugins": plugins})


def place(home: paths.Scope) -> Path:
    """The settings file of a home (asked for each harness, each time one is planned for)."""
    return _place(home, os.environ.get("XDG_CONFIG_HOME"))


@functools.lru_cache(maxsize=8)
def _place(home: paths.Scope, config: str | None) -> Path:
    return home.config_home / home.namespace / FILE


# no settings: one value, asked for each harness many times a run
NONE = Settings()


def read(home: paths.Scope) -> Settings:
    """The settings of a home (none for a project, or when the file is absent)."""
    if home.kind != "home":
        return NONE
    where = place(home)
    try:
        stamp = os.stat(where)
    except OSError:
        return NONE
    return _read(where, stamp.st_mtime_ns, stamp.st_size)


@functools.lru_cache(maxsize=4)
def _read(where: Path, mtime: int, size: int) -> Settings:
    data = _document(where)
    alone = data.get("leave-alone", [])
    if not _names(alone):
        raise SkilltoolError(
            f"{where}: leave-alone: must be a list of harness names, e.g. leave-alone = "
            '["hermes"]; fix the file'
        )
    disabled_table = data.get("disabled", {})
    if not isinstance(disabled_table, dict):
        raise SkilltoolError(f"{where}: disabled: must be a table; fix the file")
    disabled: dict[Kind, dict[str, frozenset[str]]] = {}
    for kind in KINDS:
        table = disabled_table.get(kind, {})
        if not isinstance(table, dict):
            raise SkilltoolError(f"{where}: disabled.{kind}: must be a table; fix the file")
        for name, harnesses in table.items():
            if not _names(harnesses):
                raise SkilltoolError(
                    f"{where}: disabled.{kind}.{name}: must be a list of harness names or "
                    '["*"] for all of them; fix the file'
                )
            disabled.setdefault(kind, {})[name] = frozenset(harnesses)
    enabled_table = data.get("enabled", {})
    plugins = enabled_table.get("plugins", {}) if isinstance(enabled_table, dict) else None
    if not isinstance(plugins, dict) or set(enabled_table) - {"plugins"}:
        raise SkilltoolError(
            f"{where}: enabled: must hold one table, [enabled.plugins]; fix the file"
        )
    enabled = {}
    for name, harnesses in plugins.items():
        if not _names(harnesses):
            raise SkilltoolError(
                f"{where}: enabled.plugins.{name}: must be a list of harness names or "
                '["*"] for all of them; fix the file'
            )
        enabled[name] = frozenset(harnesses)
    config = _config(where, data.get("config", {}))
    return Settings(frozenset(alone), disabled, config, enabled)


def _config(where: Path, table: object) -> dict[str, dict[str, Any]]:
    """The `[config.<plugin>]` tables: each option's value a string, a number, true or false,
    or a list of strings (whether the plugin's option takes it is said where it is used)."""
    if not isinstance(table, dict):
        raise SkilltoolError(f"{where}: config: must be a table of plugins; fix the file")
    found: dict[str, dict[str, Any]] = {}
    for plugin, values in table.items():
        if not isinstance(values, dict):
            raise SkilltoolError(
                f'{where}: config.{plugin}: must be a table of options, e.g. mode = "fast"; '
                "fix the file"
            )
        for key, value in values.items():
            plain = isinstance(value, str | int | float | bool) or (
                isinstance(value, list) and all(isinstance(v, str) for v in value)
            )
            if not plain:
                raise SkilltoolError(
                    f"{where}: config.{plugin}.{key}: must be a string, a number, true or "
                    "false, or a list of strings; fix the file"
                )
        found[plugin] = {str(k): _plain(v) for k, v in values.items()}
    return found


def _plain(value: Any) -> Any:
    """A value of tomlkit's own types as the Python value it stands for."""
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, list):
        return [str(v) for v in value]
    return str(value)


def _names(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def check_names(home: paths.Scope, names: Sequence[str]) -> Settings:
    """The settings, once the run is stopped when they name a harness skilltool does not
    know (`claud`): a mistake to say, not to ignore, since ignored it would leave the harness
    it meant written to. `names`: the harnesses skilltool knows (the registry's)."""
    chosen = read(home)
    if not (chosen.leave_alone or chosen.disabled or chosen.enabled):  # no name to check
        return chosen
    where = place(home)
    _known(where, "leave-alone", chosen.leave_alone, names)
    for kind in KINDS:
        for name, harnesses in chosen.disabled.get(kind, {}).items():
            _known(where, f"disabled.{kind}.{name}", harnesses, (*names, EVERY))
    for name, harnesses in chosen.enabled.items():
        _known(where, f"enabled.plugins.{name}", harnesses, (*names, EVERY))
    return chosen


def _known(where: Path, field: str, names: Iterable[str], known: Sequence[str]) -> None:
    unknown = sorted(n for n in names if n not in known)
    if unknown:
        raise SkilltoolError(
            f"{where}: {field}: {unknown[0]!r} is not a harness skilltool knows; use one of "
            f"{', '.join(known)}"
        )


def _text(where: Path) -> str:
    """The file's text, through a link (a dotfiles repository's) to a regular file; anything
    else there (a FIFO, a folder) fails at once with one line, never waits."""
    from skilltool.fs import read_config

    data = read_config(where)
    if data is None:
        if not os.path.lexists(where):
            return ""
        raise SkilltoolError(
            f"{where}: not a regular file (or a link to one); replace it with your settings "
            "file, or remove it"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SkilltoolError(f"{where}: not UTF-8 text; fix or remove it") from None


def _document(where: Path) -> dict[str, Any]:
    try:
        return paths.load_toml(_text(where).encode("utf-8"))
    except ValueError as err:
        raise SkilltoolError(f"{where}: not valid TOML ({err}); fix the file") from None


def configure(
    home: paths.Scope, plugin: str, values: Mapping[str, Any], unset: Iterable[str] = ()
) -> None:
    """Keep these values of a plugin's options (and forget those `unset`) in the settings
    file, the rest of it as written."""
    import tomlkit

    where = place(home)
    text = _text(where)
    read(home)  # a file that does not read is said, and left as it is
    document = tomlkit.parse(text)
    config = document.setdefault("config", tomlkit.table(is_super_table=True))
    table = config.setdefault(plugin, tomlkit.table())
    for key, value in values.items():
        table[key] = value
    for key in unset:
        if key in table:
            del table[key]
    if not table:
        del config[plugin]
    if not config:
        del document["config"]
    _write(where, tomlkit.dumps(document))


def _write(where: Path, text: str) -> None:
    # a link (a dotfiles repository's) stays a link: the file it leads to is written
    target = Path(os.path.realpath(where))
    target.parent.mkdir(parents=True, exist_ok=True)
    write_file(target, text.encode("utf-8"), 0o644, replace=True)


def change(
    home: paths.Scope,
    kind: Kind,
    name: str,
    harnesses: Iterable[str],
    off: bool,
    every: Iterable[str],
    off_by_default: bool = False,
) -> frozenset[str]:
    """Turn `name` off (or back on) in `harnesses` (EVERY: all of `every`), keeping the rest
    of the file as written; the harnesses it is then off in. A plugin off by its own default
    is turned on in `[enabled.plugins]` (and off there again)."""
    import tomlkit

    where = place(home)
    text = _text(where)
    read(home)  # a file that does not read is said, and left as it is
    document = tomlkit.parse(text)
    every, asked = list(every), set(harnesses)
    disabled = document.setdefault("disabled", tomlkit.table(is_super_table=True))
    _switch(disabled.setdefault(kind, tomlkit.table()), name, asked, off, every)
    if kind == "plugins" and off_by_default:
        enabled = document.setdefault("enabled", tomlkit.table(is_super_table=True))
        _switch(enabled.setdefault("plugins", tomlkit.table()), name, asked, not off, every)
        if not enabled["plugins"]:
            del document["enabled"]
    _write(where, tomlkit.dumps(document))
    chosen = read(home)
    if kind == "plugins" and off_by_default:
        chosen = chosen.defaulted([name], every)
    return chosen.where(kind, name)


def _switch(table: Any, name: str, asked: set[str], add: bool, every: list[str]) -> None:
    """`name`'s list of harnesses in `table` with those `asked` added (or taken out)."""
    now = set(table.get(name, []))
    if add:
        now = {EVERY} if EVERY in asked | now else now | asked
    elif EVERY in asked:
        now = set()
    elif EVERY in now:  # taken out of some: still in every other
        now = set(every) - asked
    else:
        now -= asked
    if now:
        table[name] = sorted(now)
    elif name in table:
        del table[name]


def rename_plugins(home: paths.Scope, renamed: Mapping[str, str]) -> list[str]:
    """A plugin its marketplace renamed (old -> new) keeps what the user set for it: its
    `[disabled.plugins]` entry and its `[config.<plugin>]` values move to the new name, unless
    the new name has its own already (which wins; the old one goes). The keys moved."""
    import tomlkit

    where = place(home)
    if home.kind != "home" or not renamed or not os.path.lexists(where):
        return []
    read(home)  # a file that does not read is said, and left as it is
    document = tomlkit.parse(_text(where))
    disabled, config = document.get("disabled", {}), document.get("config", {})
    enabled = document.get("enabled", {})
    tables = [
        ("disabled.plugins", disabled.get("plugins", {})),
        ("enabled.plugins", enabled.get("plugins", {})),
        ("config", config),
    ]
    moved = []
    for field, table in tables:
        for old, new in renamed.items():
            if old not in table:
                continue
            if new not in table:
                table[new] = table[old]
                moved.append(f"{field}.{old}")
            del table[old]
    if moved:
        _write(where, tomlkit.dumps(document))
    return moved


def applied(
    home: paths.Scope,
    plugins: Iterable[Any],
    every: Sequence[str],
    renames: Mapping[str, str] = {},
) -> Settings:
    """The settings of a home as they apply to `plugins` (model.Plugin): what is kept under
    a name a marketplace renamed (`renames`, old -> new: renames_in) applies to the new
    name; each plugin off by its own default (`defaultEnabled: false`) is off where the user
    did not turn it on. A project has no settings: a plugin its manifest names is on."""
    chosen = read(home)
    if home.kind != "home":
        return chosen
    chosen = chosen.renamed(renames)
    return chosen.defaulted([p.name for p in plugins if not p.default_enabled], every)


def renames_in(catalogue: Any) -> dict[str, str]:
    """The plugins of a catalogue (model.Catalogue) that their marketplace renamed: old name
    -> the name it is found under now."""
    names = {p.name for p in catalogue.plugins}
    return {
        old: new
        for market in catalogue.marketplaces
        for old, new in market.renames.items()
        if new is not None and new in names and old not in names
    }


def stale_keys(home: paths.Scope, renames: Mapping[str, str]) -> list[str]:
    """The settings kept under a plugin's old name (`disabled.plugins.OLD`, ...), each said
    in one line: they apply to its new name, and `plugins update` moves them there."""
    if home.kind != "home" or not renames:
        return []
    chosen = read(home)
    tables = {
        "disabled.plugins": chosen.disabled.get("plugins", {}),
        "enabled.plugins": chosen.enabled,
        "config": chosen.config,
    }
    where = home.show(place(home))
    return [
        f"warning: {where}: {field}.{old}: its marketplace renamed plugin {old!r} to "
        f"{new!r}; read as {new} ('skilltool plugins update' records it)"
        for field, table in tables.items()
        for old, new in renames.items()
        if old in table
    ]
