"""The hostile corpus: broken plugins, each with the exact problem lines skilltool must print.

Most cases are committed under tests/fixtures/hostile/<case>/. What git cannot hold, or
should not (symlink loops, links out of the plugin, unreadable modes, FIFOs, 50 MB files,
names with line breaks or bytes that are not UTF-8), is made by a recipe here. Either way
the expected lines live in one table, tests/fixtures/hostile/expected.json, where `{plugin}`
stands for the case's plugin directory and `{outside}` for a directory outside every plugin.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skilltool import parse
from tests.helpers import agent_md, build_file_tree, skill_md

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "hostile"
EXPECTED: dict[str, dict[str, Any]] = json.loads(
    (FIXTURES / "expected.json").read_text(encoding="utf-8")
)
MB = 1024 * 1024

# (the directory of plugins, a directory outside every plugin) -> the plugin's root
Recipe = Callable[[Path, Path], Path]


def _manifest(root: Path, name: str) -> None:
    build_file_tree(root, {".claude-plugin/plugin.json": json.dumps({"name": name}) + "\n"})


def _sparse(path: Path, head: bytes, size: int = 50 * MB) -> None:
    """A file of `size` bytes of which only `head` is written: the rest is a hole that
    reads as NUL bytes, so a run that read past what it needs would call the file binary."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(head)
        handle.truncate(size)


def huge_files(plugins: Path, outside: Path) -> Path:
    root = plugins / "huge-files"
    _manifest(root, "huge-files")
    past_limit = parse.SKILL_READ_LIMIT + 64 * 1024
    body = skill_md("huge-body").encode()
    _sparse(root / "skills/huge-body/SKILL.md", body + b"x" * (past_limit - len(body)))
    head = b"---\nname: huge-open\ndescription: d\n"
    _sparse(root / "skills/huge-open/SKILL.md", head + b"k: v\n" * (past_limit // 5))
    _sparse(root / "agents/huge-agent.md", agent_md("huge-agent").encode())
    return root


def symlink_loop(plugins: Path, outside: Path) -> Path:
    root = plugins / "symlink-loop"
    build_file_tree(root, {"skills/loop-ok/SKILL.md": skill_md("loop-ok"), "agents/.keep": ""})
    skills, agents = root / "skills", root / "agents"
    (skills / "self").symlink_to("self")
    (skills / "ping").symlink_to("pong")
    (skills / "pong").symlink_to("ping")
    (skills / "dangling").symlink_to("nowhere")
    (skills / "inner").mkdir()
    (skills / "inner/SKILL.md").symlink_to("SKILL.md")
    (skills / "gone").mkdir()
    (skills / "gone/SKILL.md").symlink_to("missing.md")
    (agents / "loop.md").symlink_to("loop.md")
    (agents / "dangling.md").symlink_to("nowhere.md")
    return root


def symlink_loop_dirs(plugins: Path, outside: Path) -> Path:
    root = plugins / "symlink-loop-dirs"
    _manifest(root, "symlink-loop-dirs")
    (root / "skills").symlink_to("skills")
    (root / "agents").symlink_to("nowhere")
    return root


def symlink_escape(plugins: Path, outside: Path) -> Path:
    build_file_tree(
        outside,
        {
            "escaped-skill/SKILL.md": skill_md("escaped-skill"),
            "secret.md": "---\nname: secret\ndescription: not yours\n---\n",
            "escaped-agent.md": agent_md("escaped-agent"),
        },
    )
    root = plugins / "symlink-escape"
    build_file_tree(
        root,
        {
            "skills/escape-ok/SKILL.md": skill_md("escape-ok"),
            "skills/escaped-skill": outside / "escaped-skill",
            "skills/secret/SKILL.md": outside / "secret.md",
            "skills/sneaky": Path("../../good/skills/good-skill"),
            "skills/climb": Path("../../../outside/escaped-skill"),
            "agents/escaped-agent.md": outside / "escaped-agent.md",
        },
    )
    return root


def symlink_escape_dirs(plugins: Path, outside: Path) -> Path:
    build_file_tree(
        outside,
        {
            "manifest/plugin.json": '{"name": "hijacked"}\n',
            "skills/outside-skill/SKILL.md": skill_md("outside-skill"),
            "agents/outside-agent.md": agent_md("outside-agent"),
        },
    )
    root = plugins / "symlink-escape-dirs"
    build_file_tree(
        root,
        {
            ".claude-plugin": outside / "manifest",
            "skills": outside / "skills",
            "agents": outside / "agents",
        },
    )
    return root


def unreadable_files(plugins: Path, outside: Path) -> Path:
    root = plugins / "unreadable-files"
    _manifest(root, "unreadable-files")
    build_file_tree(
        root,
        {
            "skills/locked-file/SKILL.md": skill_md("locked-file"),
            "skills/open-file/SKILL.md": skill_md("open-file"),
            "agents/locked-agent.md": agent_md("locked-agent"),
        },
    )
    for path in ("skills/locked-file/SKILL.md", "agents/locked-agent.md", ".claude-plugin/plugin.json"):  # fmt: skip
        (root / path).chmod(0)
    return root


def unreadable_dirs(plugins: Path, outside: Path) -> Path:
    root = plugins / "unreadable-dirs"
    build_file_tree(
        root,
        {
            "skills/locked-dir/SKILL.md": skill_md("locked-dir"),
            "skills/no-search/SKILL.md": skill_md("no-search"),
            "skills/open-dir/SKILL.md": skill_md("open-dir"),
            "agents/hidden-agent.md": agent_md("hidden-agent"),
        },
    )
    (root / "skills/locked-dir").chmod(0)
    (root / "skills/no-search").chmod(0o644)  # listable, but nothing in it can be opened
    (root / "agents").chmod(0)
    return root


def unreadable_skills_dir(plugins: Path, outside: Path) -> Path:
    root = plugins / "unreadable-skills-dir"
    _manifest(root, "unreadable-skills-dir")
    build_file_tree(root, {"skills/behind-lock/SKILL.md": skill_md("behind-lock")})
    (root / "skills").chmod(0)
    return root


def unreadable_plugin(plugins: Path, outside: Path) -> Path:
    root = plugins / "unreadable-plugin"
    build_file_tree(root, {"skills/locked-plugin/SKILL.md": skill_md("locked-plugin")})
    root.chmod(0)
    return root


def fifo(plugins: Path, outside: Path) -> Path:
    root = plugins / "fifo"
    build_file_tree(root, {"skills/fifo-ok/SKILL.md": skill_md("fifo-ok")})
    (root / "skills/fifo-skill").mkdir()
    os.mkfifo(root / "skills/fifo-skill/SKILL.md")
    (root / "agents").mkdir()
    os.mkfifo(root / "agents/fifo-agent.md")
    return root


def control_chars(plugins: Path, outside: Path) -> Path:
    root = plugins / "control-chars"
    build_file_tree(
        root,
        {
            "skills/new\nline/SKILL.md": skill_md('"new\\nline"'),
            "skills/\x1b[31mred/SKILL.md": skill_md('"\\e[31mred"'),
            "skills/key-newline/SKILL.md": skill_md("key-newline", extra='"bad\\nkey": 1\n'),
            "agents/tab\there.md": agent_md("tabbed"),
            "agents/ok-agent.md": agent_md("ok-agent"),
        },
    )
    return root


def non_utf8_names(plugins: Path, outside: Path) -> Path:
    root = plugins / "non-utf8-names"
    build_file_tree(root, {"skills/utf8-ok/SKILL.md": skill_md("utf8-ok")})
    skill = os.path.join(os.fsencode(root / "skills"), b"caf\xe9")
    os.mkdir(skill)
    with open(os.path.join(skill, b"SKILL.md"), "wb") as handle:
        handle.write(skill_md("caf").encode())
    (root / "agents").mkdir()
    with open(os.path.join(os.fsencode(root / "agents"), b"\xff.md"), "wb") as handle:
        handle.write(agent_md("undecodable").encode())
    return root


def plugin_dir_newline(plugins: Path, outside: Path) -> Path:
    # a line break in a plugin's path would end the marker comment of every rendering:
    # in pi's wrapper script the next line would run as a command
    root = plugins / "shell\ntouch skilltool-pwned\n"
    _manifest(root, "newline-plugin")
    build_file_tree(
        root,
        {"skills/newline-skill/SKILL.md": skill_md("newline-skill"), "agents/injected.md": agent_md("injected")},
    )  # fmt: skip
    return root


def plugin_json_deep(plugins: Path, outside: Path) -> Path:
    root = plugins / "plugin-json-deep"
    deep = '{"name": "plugin-json-deep", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
    build_file_tree(root, {".claude-plugin/plugin.json": deep, "skills/deep-ok/SKILL.md": skill_md("deep-ok")})  # fmt: skip
    return root


def plugin_json_huge(plugins: Path, outside: Path) -> Path:
    root = plugins / "plugin-json-huge"
    huge = '{"name": "plugin-json-huge", "pad": "' + "a" * (2 * MB) + '"}\n'
    build_file_tree(root, {".claude-plugin/plugin.json": huge, "skills/huge-ok/SKILL.md": skill_md("huge-ok")})  # fmt: skip
    return root


RECIPES: dict[str, Recipe] = {
    "huge-files": huge_files,
    "symlink-loop": symlink_loop,
    "symlink-loop-dirs": symlink_loop_dirs,
    "symlink-escape": symlink_escape,
    "symlink-escape-dirs": symlink_escape_dirs,
    "unreadable-files": unreadable_files,
    "unreadable-dirs": unreadable_dirs,
    "unreadable-skills-dir": unreadable_skills_dir,
    "unreadable-plugin": unreadable_plugin,
    "fifo": fifo,
    "control-chars": control_chars,
    "non-utf8-names": non_utf8_names,
    "plugin-dir-newline": plugin_dir_newline,
    "plugin-json-deep": plugin_json_deep,
    "plugin-json-huge": plugin_json_huge,
}
# cases whose point is a file mode: root ignores modes, so they run under setpriv
NEEDS_PERMISSIONS = frozenset(c for c in RECIPES if c.startswith("unreadable-"))
# cases that would hang a run that got them wrong: always in a subprocess with a timeout
MAY_HANG = frozenset({"fifo"})


def fixture_cases() -> list[str]:
    return sorted(p.name for p in FIXTURES.iterdir() if not p.name.startswith(".") and p.suffix != ".json")  # fmt: skip


def build(case: str, plugins: Path, outside: Path) -> Path:
    """Make the case's plugin in `plugins`; its root."""
    plugins.mkdir(parents=True, exist_ok=True)
    outside.mkdir(parents=True, exist_ok=True)
    if case in RECIPES:
        return RECIPES[case](plugins, outside)
    source = FIXTURES / case
    if source.is_dir():
        shutil.copytree(source, plugins / case, symlinks=True)
    else:
        shutil.copyfile(source, plugins / case)
    return plugins / case


def expected_lines(case: str, root: Path, outside: Path) -> list[str]:
    """The case's problem lines as skilltool prints them (escaped: one line each)."""
    from skilltool.report import printable

    return [
        line.replace("{plugin}", printable(str(root))).replace("{outside}", str(outside))
        for line in EXPECTED[case]["problems"]
    ]


def restore_modes(root: Path) -> None:
    """Give back the permissions a recipe took away, so the tree can be removed."""
    if not os.path.lexists(root):
        return
    os.chmod(root, 0o755)
    for directory, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(directory, name)
            if not os.path.islink(path):
                os.chmod(path, 0o755)
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(directory, d))]
