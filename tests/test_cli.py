"""The command line as a user meets it: options, usage errors, JSON on failure, output size."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skilltool.harnesses import NAMES, registry
from tests.helpers import agent_md, build_file_tree, plugin_tree, run

COMMANDS = [
    ("plugins", "status"),
    ("plugins", "install"),
    ("plugins", "uninstall"),
    ("plugins", "validate"),
    ("plugins", "render", "x", "--harness", "pi"),
    ("plugins", "launch", "x", "--harness", "pi"),
    ("package", "x", "--destdir", "d"),
    ("plugins",),
    (),
]


@pytest.mark.parametrize("words", COMMANDS, ids=lambda w: " ".join(w) or "skilltool")
def test_version_is_answered_everywhere(words: tuple[str, ...]) -> None:
    from skilltool import __version__

    result = run(*words, "--version")
    assert (result.code, result.stdout) == (0, f"skilltool {__version__}\n")


def test_the_registry_is_the_one_list_of_harness_names() -> None:
    assert tuple(registry()) == NAMES
    assert all(cls.name == name for name, cls in registry().items())
    for command in ("render", "launch", "install", "uninstall", "status"):
        text = run("plugins", command, "--help").stdout
        assert all(name in text for name in NAMES), (command, text)
    assert "Render" not in run("plugins", "uninstall", "--help").stdout
    assert "remove renderings edited by hand" in run("plugins", "uninstall", "--help").stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--home", ""), "--home is empty; give a path"),
        (("--home", "/nonexistent/home"), "/nonexistent/home does not exist; check --home"),
        (("--dir", ""), "--dir is empty; give a path"),
    ],
)
def test_a_home_or_dir_that_is_not_there_is_a_usage_error(
    home: Path, args: tuple[str, ...], message: str
) -> None:
    before = sorted(p.name for p in home.iterdir())
    for command in ("install", "uninstall", "status"):
        result = run("plugins", command, *args)
        assert result.code == 2, result.stdout
        assert result.stdout == ""
        assert message in result.stderr
    assert sorted(p.name for p in home.iterdir()) == before
    assert not Path("~").exists()


def test_a_home_given_with_a_tilde_is_expanded_and_named(home: Path) -> None:
    (home / "other").mkdir()
    result = run("plugins", "install", "--home", "~/other", "--dry-run")
    assert result.code == 0, result.stderr
    assert result.scope == f"home      {home / 'other'}"
    assert not Path("~").exists()
    real = run("plugins", "install", "--home", home, "--dry-run")
    assert real.scope == "home      ~"  # the real home, named as a person writes it


def test_json_answers_in_json_when_the_command_fails(home: Path, tmp_path: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a home\n")
    failed = run("plugins", "install", "--home", a_file, "--json")
    assert failed.code == 2
    assert json.loads(failed.stdout) == {
        "schema": 1,
        "command": "install",
        "error": {
            "message": f"{a_file} is not a directory; give a directory for --home",
            "exit_code": 2,
        },
    }
    missing = run("plugins", "launch", "nosuch", "--harness", "claude", "--json")
    assert missing.code == 1
    error = json.loads(missing.stdout)["error"]
    assert error["exit_code"] == 1 and "no agent 'nosuch'" in error["message"]


def test_render_json_carries_every_file(home: Path) -> None:
    (home / ".codex").mkdir()
    result = run("plugins", "render", "plugin-author", "--harness", "codex", "--json")
    assert result.code == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["schema"], data["command"], data["agent"], data["harness"]) == (
        1,
        "render",
        "plugin-author",
        "codex",
    )
    names = [Path(f["target"]).name for f in data["files"]]
    assert names == ["plugin-author.md", "plugin-author.json", "plugin-author.config.toml"]
    text = run("plugins", "render", "plugin-author", "--harness", "codex").stdout
    assert all(f["content"] in text for f in data["files"])


def test_a_misspelt_agent_gets_did_you_mean() -> None:
    result = run("plugins", "launch", "plugin-autor", "--harness", "pi")
    assert result.code == 1
    assert "did you mean 'plugin-author'?" in result.stderr


def test_launch_warns_when_the_file_it_points_at_is_not_written(home: Path) -> None:
    (home / ".pi/agent").mkdir(parents=True)
    before = run("plugins", "launch", "plugin-author", "--harness", "pi")
    assert before.code == 0
    assert "is not rendered yet" in before.stderr
    assert run("plugins", "install", "--only", "pi").code == 0
    after = run("plugins", "launch", "plugin-author", "--harness", "pi")
    assert "not rendered" not in after.stderr


def test_launch_of_an_agent_edited_by_hand_says_so_and_how_to_keep_or_replace_it(
    home: Path,
) -> None:
    (home / ".pi/agent").mkdir(parents=True)
    assert run("plugins", "install", "--only", "pi").code == 0
    rendered = home / ".pi/agent/skilltool/plugin-author.md"
    rendered.write_text(rendered.read_text() + "\nAlso answer in French.\n")
    result = run("plugins", "launch", "plugin-author", "--harness", "pi")
    assert result.code == 0
    assert "edited by hand" in result.stderr
    assert "install --only pi --force" in result.stderr
    assert "not rendered" not in result.stderr
    data = json.loads(run("plugins", "launch", "plugin-author", "--harness", "pi", "--json").stdout)
    assert data["edited"] == [str(rendered)] and data["not_rendered"] == []


@pytest.fixture
def many(tmp_path: Path) -> dict[str, str]:
    """Forty skills and three agents on the search path, no harness set up."""
    root = tmp_path / "plugins"
    for index in range(4):
        plugin_tree(root, f"p{index}", skills=tuple(f"s{index}-{n}" for n in range(10)))
    build_file_tree(root / "p0", {f"agents/a{n}.md": agent_md(f"a{n}") for n in range(3)})
    return {"SKILLTOOL_PLUGINS": str(root)}


def test_output_says_what_changed_and_each_absent_harness_once(many: dict[str, str]) -> None:
    first = run("plugins", "install", env=many)
    assert first.code == 0
    assert first.lines[-1] == f"40 linked: {len(NAMES)} harnesses absent"
    skipped = [line for line in first.lines if line.startswith("skipped")]
    assert len(skipped) == len(NAMES)  # once per harness, not once per agent
    again = run("plugins", "install", env=many)
    assert again.lines == [*skipped, f"40 unchanged: {len(NAMES)} harnesses absent"]
    quiet = run("plugins", "install", "-q", env=many)
    assert quiet.lines == [f"40 unchanged: {len(NAMES)} harnesses absent"]
    verbose = run("plugins", "install", "-v", env=many)
    assert sum(line.startswith("unchanged skill ") for line in verbose.lines) == 40
    status = run("plugins", "status", env=many)
    assert status.lines[-1] == "next      nothing to install: every skill and rendering is current"


def test_status_says_what_install_would_do(many: dict[str, str]) -> None:
    result = run("plugins", "status", env=many)
    assert result.lines[-1] == "next      'skilltool plugins install' would do: 40 linked"
    assert (
        json.loads(run("plugins", "status", "--json", env=many).stdout)["install_would"]["linked"]
        == 40
    )


def test_a_missing_hermes_profile_is_not_an_absent_harness(home: Path) -> None:
    (home / ".hermes").mkdir()
    result = run("plugins", "status", "-v")
    [line] = [line for line in result.lines if line.strip().startswith("hermes")]
    assert "skipped" in line and "hermes profile create plugin-author" in line
    assert "harness absent" not in line
    installed = run("plugins", "install")
    assert installed.lines[-1].endswith(f": {len(NAMES) - 1} harnesses absent")


def test_usage_errors_keep_exit_code_2() -> None:
    assert run("plugins", "render", "plugin-author").code == 2  # no --harness
    assert run("plugins", "install", "--only", "nope").code == 2
    assert run("plugins", "nosuch").code == 2


@pytest.mark.parametrize(
    "word", ["install", "status", "uninstall", "add", "update", "remove", "validate", "sync"]
)
def test_a_command_of_plugins_typed_without_plugins_is_pointed_to(word: str) -> None:
    result = run(word, "--dry-run")
    assert result.code == 2
    *_, said = result.stderr.splitlines()
    assert said.startswith(f"Error: No such command '{word}'; did you mean '")
    assert said.endswith(f" plugins {word}'?")
    assert "did you mean" not in run("nosuch").stderr  # no plugins command: no hint


@pytest.mark.parametrize(
    "words",
    [("plugins", "add"), ("plugins", "render"), ("plugins", "remove"), ("package",)],
)
def test_a_usage_line_names_a_required_argument_as_the_others(words: tuple[str, ...]) -> None:
    usage = run(*words, "--help").stdout.splitlines()[0]
    assert "{" not in usage, usage
    assert usage.split()[-1] in ("SOURCE", "AGENT", "NAME", "SRC..."), usage
    assert "{" not in run(*words).stderr  # the usage line of an error too


def test_a_reader_that_stops_reading_is_no_failure(home: Path) -> None:
    import subprocess
    import sys

    # `skilltool plugins status | head -1`, with the pipe closed before anything is written
    reading, writing = os.pipe()
    os.close(reading)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "skilltool", "plugins", "status"],
            stdout=writing,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "HOME": str(home)},
            timeout=60,
        )
    finally:
        os.close(writing)
    assert (done.returncode, done.stderr) == (0, "")


def test_the_real_entry_point_answers_usage_errors_in_json(tmp_path: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "skilltool", "plugins", "render", "x", "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(tmp_path)},
        timeout=60,
    )
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"] == {
        "message": "Missing option '--harness'.",
        "exit_code": 2,
    }


def test_the_real_entry_point_builds_the_invoked_command_and_still_knows_the_others(
    tmp_path: Path,
) -> None:
    import subprocess
    import sys

    def real(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "skilltool", *args],
            capture_output=True,
            text=True,
            env={**os.environ, "HOME": str(tmp_path)},
            timeout=60,
        )

    listed = real("plugins", "--help").stdout
    assert all(word in listed for word in ("status", "install", "validate", "sync"))
    typo = real("plugins", "instal")
    assert typo.returncode == 2
    assert "No such command 'instal'" in typo.stderr
    said = real("install").stderr.splitlines()[-1]
    assert said.endswith("did you mean 'python -m skilltool plugins install'?"), said
    assert "install" in real("skills", "install", "--help").stdout
    shown = real("skills", "status", "--home", str(tmp_path))
    assert shown.returncode == 0
    assert "plugin    skilltool (bundled)" in shown.stdout
    # the commands other than status and install, built only when a run names one of them
    checked = real("plugins", "validate", "--home", str(tmp_path))
    assert (checked.returncode, checked.stderr) == (0, "")
    assert "--destdir" in real("package", "--help").stdout
    assert "Usage: python -m skilltool package" in real("package").stderr


def test_every_command_is_on_the_app_other_code_imports() -> None:
    import typer

    from skilltool.cli import app, register
    from skilltool.cli.install import validate_command

    register(["--help"])  # every command, as help lists them
    group: Any = typer.main.get_command(app)
    assert list(group.commands) == ["doctor", "acp", "package", "plugins"]
    assert list(group.commands["plugins"].commands) == [
        "status", "list", "install", "uninstall", "check", "validate", "render",
        "launch", "add", "update", "remove", "sync", "approve", "configure", "disable", "enable",
        "new", "search",
    ]  # fmt: skip
    assert callable(validate_command)


def test_a_plain_status_is_answered_without_typer_and_as_typer_answers_it(
    tmp_path: Path,
) -> None:
    """What a shell's start-up runs costs no parsing by typer; the collector, paused while
    the command is imported, is back on when it runs, by either road."""
    import subprocess
    import sys

    # the real entry point, with the command replaced by one that says how it was reached
    code = (
        "import gc, sys\n"
        "from skilltool import entry\n"
        "from skilltool.commands import install\n"
        "real = install.status\n"
        "def spy(opts, named):\n"
        "    on, typer = gc.isenabled(), 'typer' in sys.modules\n"
        "    sys.stderr.write(f'collector on: {on}, typer: {typer}\\n')\n"
        "    return real(opts, named)\n"
        "install.status = spy\n"
        "sys.argv = ['skilltool', *sys.argv[1:]]\n"
        "entry.main()\n"
    )
    said = {}
    for extra in ([], ["--namespace", "skilltool"]):
        words = ["plugins", "status", "--home", str(tmp_path), "-v", *extra]
        said[bool(extra)] = subprocess.run(
            [sys.executable, "-c", code, *words],
            capture_output=True,
            text=True,
            env={**os.environ, "HOME": str(tmp_path)},
            timeout=60,
        )
    assert (said[False].returncode, said[False].stderr) == (0, "collector on: True, typer: False\n")
    assert (said[True].returncode, said[True].stderr) == (0, "collector on: True, typer: True\n")
    assert "plugin    skilltool (bundled)" in said[False].stdout
    assert said[False].stdout == said[True].stdout


WORDS = ["name", "/tmp", "--json", "--user", "-v", "--verbose", "-q", "--quiet", "--home"]
WORDS += ["--home=/h", "--home=", "--dir", "--dir=/d", "--namespace", "--only", "claude", "-"]
WORDS += ["--", "-qv", "--project", "--help", "--version", "--debug", "-h"]


def _typer_reads(argv: list[str], environ: dict[str, str]) -> object:
    """The plugins named and the options `status` is given when typer parses `argv`."""
    from skilltool.cli import app, register
    from skilltool.commands import install

    class Read(Exception):
        pass

    def spy(opts: object, names: list[str]) -> object:
        raise Read((names, opts))

    real, install.status = install.status, spy  # type: ignore[assignment]
    kept = os.environ.pop("SKILLTOOL_NAMESPACE", None)
    os.environ.update(environ)
    try:
        register(argv)
        with pytest.raises(Read) as read:
            app(argv, standalone_mode=False)
    finally:
        install.status = real  # type: ignore[assignment]
        os.environ.pop("SKILLTOOL_NAMESPACE", None)
        if kept is not None:
            os.environ["SKILLTOOL_NAMESPACE"] = kept
    return read.value.args[0]


@pytest.mark.parametrize(
    ("words", "namespace"),
    [
        (["plugins", "status"], None),
        (["skills", "status", "--json", "-q"], "other"),
        (["plugins", "status", "--home", "/h", "--dir=/d", "--verbose", "one", "two"], ""),
        (["plugins", "status", "-v", "--quiet", "--user", "--home=/h"], None),
    ],
)
def test_a_status_read_without_typer_is_read_as_typer_reads_it(
    words: list[str], namespace: str | None
) -> None:
    """What a shell's start-up runs is read by the entry point itself, as typer reads it."""
    from skilltool import runs

    environ = {} if namespace is None else {"SKILLTOOL_NAMESPACE": namespace}
    plain = runs.plain_status(words, environ)
    assert plain is not None
    assert _typer_reads(words, environ) == plain


@settings(max_examples=300, deadline=None)
@given(
    group=st.sampled_from([["plugins", "status"], ["skills", "status"], ["plugins", "list"]]),
    words=st.lists(st.sampled_from(WORDS), max_size=6),
    namespace=st.sampled_from([None, "", "other"]),
)
def test_every_command_line_the_entry_point_reads_means_to_it_what_it_means_to_typer(
    group: list[str], words: list[str], namespace: str | None
) -> None:
    """The same plugins named, the same options; any other command line is left to typer."""
    from skilltool import runs

    argv = [*group, *words]
    environ = {} if namespace is None else {"SKILLTOOL_NAMESPACE": namespace}
    plain = runs.plain_status(argv, environ)
    if plain is not None:
        assert _typer_reads(argv, environ) == plain
