"""Slash commands (SPEC §10): read as Claude Code reads them, translated per harness, and
rendered under the same ownership rules as every other rendered file (SPEC §5)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skilltool import markers, parse_commands, slash
from skilltool.harnesses import NAMES, Harness, registry
from skilltool.model import SlashCommand
from skilltool.paths import Home
from skilltool.placeholders import Translation
from tests.helpers import build_file_tree, harness_roots, run, scrub, toml_loads

# where each harness that has user commands reads them, for a command named `review`
TARGETS = {
    "opencode": ".config/opencode/command/review.md",
    "pi": ".pi/agent/prompts/review.md",
    "claude": ".claude/commands/review.md",
    "gemini": ".gemini/commands/review.toml",
    "kilo": ".config/kilo/command/review.md",
    "qwen": ".qwen/commands/review.toml",
    "droid": ".factory/commands/review.md",
    "cline": ".cline/workflows/review.md",
    "auggie": ".augment/commands/review.md",
    "qoder": ".qoder/commands/review.md",
}
ROOTS = harness_roots()
REVIEW = (
    "---\n"
    "description: Review a file with care\n"
    "argument-hint: '[file]'\n"
    "allowed-tools: Read, Grep, Bash(git diff:*)\n"
    "model: sonnet\n"
    "---\n"
    "Review $ARGUMENTS carefully.\n"
)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A plugin with three commands (one in a subfolder) and a hooks file, on the path."""
    return build_file_tree(tmp_path / "src/demo", {
        ".claude-plugin/plugin.json": '{"name": "demo"}\n',
        "commands/review.md": REVIEW,
        "commands/compare.md": "---\ndescription: Compare two things\n---\nCompare $0 with $1.\n",
        "commands/git/commit.md": "# Commit the staged work\n\nWrite a good message.\n",
        "hooks/hooks.json": '{"hooks": {}}\n',
    })  # fmt: skip


def every_harness(home: Path) -> None:
    for relative in ROOTS.values():
        (home / relative).mkdir(parents=True, exist_ok=True)


def skilltool(home: Path, source: Path, *args: str) -> tuple[int, list[str]]:
    result = run("plugins", *args, "--home", home, env={"SKILLTOOL_PLUGINS": str(source)})
    assert "Traceback" not in result.stderr
    said = [line for line in result.stderr.splitlines() if "SKILLTOOL_PLUGINS is set" not in line]
    return result.code, result.stdout.splitlines() + said


def command(tmp_path: Path, text: str, name: str = "review") -> tuple[SlashCommand | None, list[str]]:  # fmt: skip
    path = build_file_tree(tmp_path / "p", {f"commands/{name}.md": text}) / f"commands/{name}.md"
    found, problems = parse_commands.read_command(path, name.replace("/", ":"))
    return found, [str(p).replace(str(tmp_path), "<tmp>") for p in problems]


# --------------------------------------------------------------------------- reading


def test_a_command_is_read_with_its_frontmatter(tmp_path: Path) -> None:
    found, problems = command(tmp_path, REVIEW)
    assert problems == []
    assert found is not None
    assert found.description == "Review a file with care"
    assert found.argument_hint == "[file]"
    assert found.allowed_tools == ("Read", "Grep", "Bash(git diff:*)")
    assert found.model == "sonnet"
    assert found.body == "Review $ARGUMENTS carefully.\n"


def test_a_command_without_frontmatter_is_described_by_its_first_line(tmp_path: Path) -> None:
    found, problems = command(tmp_path, "\n# Commit the work\r\n\r\nThen push $ARGUMENTS.\r\n")
    assert problems == [] and found is not None
    assert found.description == "Commit the work"
    assert found.body == "\n# Commit the work\r\n\r\nThen push $ARGUMENTS.\r\n"


def test_allowed_tools_may_be_a_list(tmp_path: Path) -> None:
    found, _ = command(tmp_path, "---\nallowed-tools: [Read, 'Bash(ls:*)']\n---\nList.\n")
    assert found is not None and found.allowed_tools == ("Read", "Bash(ls:*)")


def test_frontmatter_claude_code_repairs_is_read_as_it_reads_it(tmp_path: Path) -> None:
    found, problems = command(tmp_path, "---\ndescription: Fix: the bug\n---\nFix it.\n")
    assert found is not None and found.description == "Fix: the bug"
    assert problems and "(warning)" not in problems[0] and "Claude Code reads it" in problems[0]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("---\ndescription: [a, b]\n---\nx\n",
         "<tmp>/p/commands/review.md:2: description: must be a string, not a list; quote the value"),
        ("---\nallowed-tools: {a: 1}\n---\nx\n",
         "<tmp>/p/commands/review.md:2: allowed-tools: must be a string or a list of strings, "
         "e.g. 'allowed-tools: Read, Grep'"),
        ("---\ndescription: d\nmodel: 3\n---\nx\n",
         "<tmp>/p/commands/review.md:3: model: must be a string, not a number; quote the value"),
        ("---\ndescription: d\n",
         "<tmp>/p/commands/review.md:1: frontmatter not closed; end it with a '---' line"),
    ],
)  # fmt: skip
def test_a_bad_field_is_one_line_naming_file_line_and_field(
    tmp_path: Path, text: str, said: str
) -> None:
    found, problems = command(tmp_path, text)
    assert found is None
    assert problems == [said]


def test_an_unknown_key_is_a_warning_and_kept(tmp_path: Path) -> None:
    found, problems = command(tmp_path, "---\ndescription: d\nflavour: mint\n---\nx\n")
    assert found is not None and found.fields["flavour"] == "mint"
    assert problems[0].startswith("<tmp>/p/commands/review.md:3: flavour: not a command field")


def test_a_name_that_cannot_be_a_file_name_is_refused(tmp_path: Path) -> None:
    found, problems = command(tmp_path, "Do it.\n", name="-rf")
    assert found is None
    assert problems[0].startswith("<tmp>/p/commands/-rf.md:1: name: '-rf' cannot be a file name")


def test_a_plugin_reads_subfolders_as_namespaces_and_listed_paths(tmp_path: Path) -> None:
    root = build_file_tree(tmp_path / "src/listed", {
        ".claude-plugin/plugin.json": '{"name": "listed", "commands": ["./extra/one.md", "./more"]}',
        "commands/ignored.md": "Not read: plugin.json lists its commands.\n",
        "extra/one.md": "One.\n",
        "more/sub/two.md": "Two.\n",
        "more/.draft.md": "Hidden.\n",
    })  # fmt: skip
    result = run("plugins", "status", "--json", env={"SKILLTOOL_PLUGINS": str(root.parent)})
    [plugin] = json.loads(result.stdout)["plugins"]
    assert [c["name"] for c in plugin["slash_commands"]] == ["one", "sub:two"]
    assert any("more/.draft.md" in p["path"] for p in plugin["problems"])


def test_a_command_both_listed_and_in_its_folder_is_one_command(tmp_path: Path) -> None:
    # a strict:false marketplace entry lists a file of commands/, which is read as well
    root = build_file_tree(tmp_path / "src/market", {
        ".claude-plugin/marketplace.json": json.dumps({"name": "m", "owner": {"name": "o"},
            "plugins": [{"name": "kit", "source": "./kit", "strict": False,
                         "commands": ["./commands/scaffold.md"]}]}),
        "kit/commands/scaffold.md": "---\ndescription: Scaffold\n---\nScaffold $ARGUMENTS.\n",
    })  # fmt: skip
    result = run("plugins", "status", "--json", env={"SKILLTOOL_PLUGINS": str(root)})
    [plugin] = json.loads(result.stdout)["plugins"]
    assert [c["name"] for c in plugin["slash_commands"]] == ["scaffold"]
    assert plugin["problems"] == []


# --------------------------------------------------------------------------- placeholders


@pytest.mark.parametrize(
    ("body", "syntax", "expected"),
    [
        ("All: $ARGUMENTS.", "claude", "All: $ARGUMENTS."),
        ("All: $ARGUMENTS.", "opencode", "All: $ARGUMENTS."),
        ("All: $ARGUMENTS.", "pi", "All: $ARGUMENTS."),
        ("All: $ARGUMENTS.", "gemini", "All: {{args}}."),
        # Claude Code counts words from 0 ($0, $ARGUMENTS[0]); the others from 1
        ("$0 then $1, $ARGUMENTS[2]", "claude", "$0 then $1, $ARGUMENTS[2]"),
        ("$0 then $1, $ARGUMENTS[2]", "opencode", "$1 then $2, $3"),
        ("$0 then $1, $ARGUMENTS[2]", "pi", "$1 then $2, $3"),
        ("$0 then $1", "gemini", None),
        ("cost: $10x and $HOME", "opencode", "cost: $10x and $HOME"),
        # an amount: Claude Code and Gemini leave it as written, OpenCode and pi would not
        ("$ARGUMENTS at $150/hour, $4,050 in all, $3.50 each", "gemini",
         "{{args}} at $150/hour, $4,050 in all, $3.50 each"),
        ("$ARGUMENTS at $150/hour", "opencode", None),
        ("$ARGUMENTS, $4,050 in all", "pi", None),
        ("Costs $3.50 for $0.", "opencode", None),
        ("Step $1. Then $ARGUMENTS[12], $0,", "opencode", "Step $2. Then $13, $1,"),
        # no placeholder: Claude Code adds the typed arguments, and so do OpenCode and Gemini;
        # pi drops them, so its rendering asks for them as Claude Code adds them
        ("Plain.\n", "opencode", "Plain.\n"),
        ("Plain.\n", "gemini", "Plain.\n"),
        ("Plain.\n", "pi", "Plain.\n\nARGUMENTS: $ARGUMENTS\n"),
        ("Plain.\r\n", "pi", "Plain.\n\nARGUMENTS: $ARGUMENTS\n"),
        # what the harness itself would run or replace
        ("Run !{ls} now", "gemini", None),
        ("Read @{file.txt}", "gemini", None),
        ("Literal {{args}}", "gemini", None),
        ("All of $@", "pi", None),
        ("From ${@:2}", "pi", None),
        ("All of $@", "opencode", "All of $@"),
    ],
)  # fmt: skip
def test_placeholders_are_translated_per_harness(
    body: str, syntax: str, expected: str | None
) -> None:
    assert translate(body, syntax).body == expected


def test_opencode_says_its_last_placeholder_takes_the_rest() -> None:
    assert "$2 there" in translate("$0 and $1", "opencode").why
    assert translate("$ARGUMENTS", "opencode").why == ""


def test_a_missing_argument_is_nothing_in_opencode_and_pi_and_the_verdict_says_so() -> None:
    for syntax in ("opencode", "pi"):
        assert "a missing argument nothing (Claude Code leaves that $N as written)" in (
            translate("$0 and $1", syntax).why
        )
    why = translate("Bill $150/hour for $ARGUMENTS", "opencode").why
    assert why.startswith("its body holds '$150', an amount it seems")
    assert "(e.g. 'USD 150')" in why


# --------------------------------------------------------------------------- rendering


def harness(name: str, home: Path) -> Harness:
    return registry()[name](Home(home, explicit=True))


def translate(body: str, syntax: str) -> Translation:
    """A body as the harnesses of one family of placeholders spell it (each says the same)."""
    found = {
        harness(name, Path("/home/user")).translate_command(body)
        for name in NAMES
        if registry()[name].command_syntax == syntax
    }
    assert len(found) == 1, found
    return found.pop()


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_rendering_snapshot(name: str, tmp_path: Path, snapshot) -> None:  # type: ignore[no-untyped-def]
    path = (
        build_file_tree(tmp_path, {"demo/commands/review.md": REVIEW}) / "demo/commands/review.md"
    )
    found, _ = parse_commands.read_command(path, "review")
    assert found is not None
    rendering = harness(name, Path("/home/user")).render_command(found)
    assert str(rendering.target) == f"/home/user/{TARGETS[name]}"
    assert scrub(rendering.content.decode(), tmp_path) == snapshot
    assert markers.find(rendering.content).intact  # type: ignore[union-attr]


def test_gemini_prompt_is_the_translated_body_exactly(tmp_path: Path) -> None:
    body = 'Quotes "x" \'y\' """ and \\ back\r\nCRLF $ARGUMENTS ✓'
    found, _ = command(tmp_path, f"---\ndescription: d\n---\n{body}")
    assert found is not None
    for name in ("gemini", "qwen"):
        rendering = harness(name, tmp_path).render_command(found)
        table = toml_loads(rendering.content.decode())
        assert table == {"description": "d", "prompt": body.replace("$ARGUMENTS", "{{args}}")}


def test_claude_code_keeps_every_key_of_the_source(tmp_path: Path) -> None:
    found, _ = command(tmp_path, REVIEW.replace("model: sonnet\n", "model: sonnet\nflavour: x\n"))
    assert found is not None
    text = harness("claude", tmp_path).render_command(found).content.decode()
    assert "flavour: x\n" in text and "model: sonnet\n" in text
    assert text.endswith("---\nReview $ARGUMENTS carefully.\n")


# --------------------------------------------------------------------------- install


def test_install_renders_every_command_where_it_can_and_says_where_not(
    home: Path, source: Path
) -> None:
    every_harness(home)
    code, lines = skilltool(home, source, "install")
    assert code == 0
    for target in TARGETS.values():
        assert (home / target).is_file(), target
    assert (home / ".claude/commands/git/commit.md").is_file()
    assert (home / ".augment/commands/git/commit.md").is_file()  # Auggie's /git:commit
    assert (home / ".gemini/commands/git/commit.toml").is_file()
    assert (home / ".config/opencode/command/git/commit.md").is_file()
    assert not (home / ".gemini/commands/compare.toml").exists()
    assert not (home / ".pi/agent/prompts/git").exists()
    gemini = "skipped   gemini: command /compare: it uses $0 and $1, and this harness has only "
    assert any(line.startswith(gemini) for line in lines), lines
    assert "skipped   pi: command /git:commit: pi reads no subfolders of prompts/ (the command " \
        "is in a subfolder)" in lines  # fmt: skip
    droid = "skipped   droid: command /compare: its body holds '$0', which Factory Droid leaves "
    assert any(line.startswith(droid) for line in lines), lines
    assert "skipped   droid: command /git:commit: Factory Droid names a command in a subfolder " \
        "by its file alone (/commit), the name of any other command so named: move it out of " \
        "its subfolder to have it here" in lines  # fmt: skip
    cline = "skipped   cline: command /compare: its body holds '$0', and Cline CLI has no "
    assert any(line.startswith(cline) for line in lines), lines
    assert "skipped   cline: command /git:commit: Cline CLI reads no workflow in a subfolder: " \
        "move the command out of its subfolder to have it here" in lines  # fmt: skip
    for name in ("codex", "copilot", "hermes", "vibe"):
        said = [line for line in lines if line.startswith(f"skipped   {name}: plugin demo's")]
        assert len(said) == 1, lines  # one line per plugin, not one per command
        assert "3 commands not carried" in said[0]
    assert lines[-1] == "23 rendered"


def test_a_harness_that_takes_no_command_is_one_line_for_all_plugins(
    home: Path, source: Path
) -> None:
    build_file_tree(source.parent / "other", {"commands/go.md": "Go.\n"})
    (home / ".codex").mkdir()
    code, lines = skilltool(home, source.parent, "install")
    assert code == 0
    said = [line for line in lines if line.startswith("skipped   codex:")]
    assert said == [
        "skipped   codex: the commands of 2 plugins not carried: Codex reads no user "
        "commands (~/.codex/prompts is no longer read)"
    ]
    _, shown = skilltool(home, source.parent, "status", "-v")  # per plugin there, as before
    assert sum("not supported   plugin " in line for line in shown) == 2


def test_a_second_install_writes_nothing(home: Path, source: Path) -> None:
    every_harness(home)
    skilltool(home, source, "install")
    before = {t: (home / t).stat().st_mtime_ns for t in TARGETS.values()}
    code, lines = skilltool(home, source, "install")
    assert code == 0 and lines[-1] == "23 unchanged"
    assert before == {t: (home / t).stat().st_mtime_ns for t in TARGETS.values()}


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_a_users_own_command_of_that_name_is_left_alone(
    home: Path, source: Path, name: str
) -> None:
    (home / ROOTS[name]).mkdir(parents=True)
    mine = home / TARGETS[name]
    mine.parent.mkdir(parents=True, exist_ok=True)
    mine.write_text("My own review command.\n")
    code, lines = skilltool(home, source, "install", "--only", name)
    assert code == 0
    assert f"left      ~/{TARGETS[name]}: not written by skilltool" in lines
    code, lines = skilltool(home, source, "uninstall", "--only", name)
    assert mine.read_text() == "My own review command.\n"


def test_opencode_leaves_a_users_command_in_its_other_folder_alone(
    home: Path, source: Path
) -> None:
    (home / ".config/opencode/commands").mkdir(parents=True)
    (home / ".config/opencode/commands/review.md").write_text("Mine.\n")
    code, lines = skilltool(home, source, "install", "--only", "opencode")
    assert not (home / TARGETS["opencode"]).exists()
    assert (
        "left      ~/.config/opencode/command/review.md: ~/.config/opencode/commands/review.md "
        "is a command of that name not written by skilltool; left alone"
    ) in lines


def test_an_edited_command_is_left_alone_and_force_keeps_a_copy(home: Path, source: Path) -> None:
    (home / ".claude").mkdir()
    skilltool(home, source, "install", "--only", "claude")
    target = home / TARGETS["claude"]
    target.write_text(target.read_text() + "My addition.\n")
    code, lines = skilltool(home, source, "install", "--only", "claude")
    assert target.read_text().endswith("My addition.\n")
    assert any(
        line.startswith("left      ~/.claude/commands/review.md: edited by hand") for line in lines
    )
    code, lines = skilltool(home, source, "install", "--only", "claude", "--force")
    assert not target.read_text().endswith("My addition.\n")
    kept = target.with_name("review.md.skilltool-edited")
    assert kept.read_text().endswith("My addition.\n")


def test_a_command_whose_source_is_gone_is_removed(home: Path, source: Path) -> None:
    (home / ".gemini").mkdir()
    skilltool(home, source, "install", "--only", "gemini")
    assert (home / TARGETS["gemini"]).exists()
    (source / "commands/review.md").unlink()
    code, lines = skilltool(home, source, "install", "--only", "gemini")
    assert not (home / TARGETS["gemini"]).exists()
    assert "removed   gemini   ~/.gemini/commands/review.toml (its command is gone)" in lines


def test_a_command_from_a_place_not_read_is_kept(home: Path, source: Path, tmp_path: Path) -> None:
    (home / ".gemini").mkdir()
    skilltool(home, source, "install", "--only", "gemini")
    other = build_file_tree(tmp_path / "other", {"x/skills/a/SKILL.md": "---\nname: a\ndescription: d\n---\n"})  # fmt: skip
    code, lines = skilltool(home, other, "install", "--only", "gemini")
    assert (home / TARGETS["gemini"]).exists()


def test_uninstall_removes_our_commands_and_the_folders_we_made(home: Path, source: Path) -> None:
    every_harness(home)
    skilltool(home, source, "install")
    code, lines = skilltool(home, source, "uninstall")
    assert code == 0
    assert not [line for line in lines if line.startswith("skipped")], lines
    for target in TARGETS.values():
        assert not (home / target).exists(), target
    assert not (home / ".claude/commands").exists()
    assert (home / ".claude").is_dir()


def test_dry_run_shows_and_writes_nothing_and_diff_shows_an_edit(home: Path, source: Path) -> None:
    (home / ".config/opencode").mkdir(parents=True)
    code, lines = skilltool(home, source, "install", "--only", "opencode", "--dry-run")
    assert "dry-run: wrote     opencode ~/.config/opencode/command/review.md" in lines
    assert not (home / TARGETS["opencode"]).exists()
    skilltool(home, source, "install", "--only", "opencode")
    target = home / TARGETS["opencode"]
    target.write_text(target.read_text().replace("carefully", "quickly"))
    code, lines = skilltool(home, source, "install", "--only", "opencode", "--diff")
    assert "-Review $ARGUMENTS quickly." in lines and "+Review $ARGUMENTS carefully." in lines


# --------------------------------------------------------------------------- status, validate


def test_status_shows_each_command_per_harness_and_the_hooks_file(home: Path, source: Path) -> None:
    (home / ".claude").mkdir()
    (home / ".gemini").mkdir()
    (home / ".codex").mkdir()
    skilltool(home, source, "install", "--only", "claude")
    code, lines = skilltool(home, source, "status", "-v")
    text = "\n".join(lines)
    assert "  command /review " in text
    assert "    claude    current         ~/.claude/commands/review.md" in lines
    assert "    gemini    missing         ~/.gemini/commands/review.toml" in lines
    assert any(
        line.startswith("    gemini    not supported   command /compare: it uses") for line in lines
    )
    assert any(
        line.startswith("    codex     not supported   plugin demo's 3 commands not carried")
        for line in lines
    )
    assert any(
        line.startswith("  hooks   no command: ") and line.endswith("hooks/hooks.json")
        for line in lines
    )
    result = run(
        "plugins", "status", "--json", "--home", home, env={"SKILLTOOL_PLUGINS": str(source)}
    )
    [plugin] = json.loads(result.stdout)["plugins"]
    review = next(c for c in plugin["slash_commands"] if c["name"] == "review")
    states = {r["harness"]: r["state"] for r in review["renderings"]}
    assert states["claude"] == "current" and states["gemini"] == "missing"
    assert states["opencode"] == "harness absent"
    assert plugin["hooks"]["commands"] == []
    assert plugin["hooks"]["files"] == [str(source / "hooks/hooks.json")]
    assert [r["harness"] for r in plugin["commands_not_carried"]] == ["codex"]


def test_inline_hooks_in_plugin_json_are_listed_as_the_manifest(home: Path, tmp_path: Path) -> None:
    root = build_file_tree(tmp_path / "src/hooked", {
        ".claude-plugin/plugin.json": '{"name": "hooked", "hooks": {"Stop": []}}\n',
        "commands/x.md": "X.\n",
    })  # fmt: skip
    result = run("plugins", "status", "--json", env={"SKILLTOOL_PLUGINS": str(root.parent)})
    [plugin] = json.loads(result.stdout)["plugins"]
    assert plugin["hooks"]["files"] == [str(root / ".claude-plugin/plugin.json")]


def test_validate_says_what_each_harness_does_with_a_command(source: Path) -> None:
    result = run("plugins", "validate", str(source))
    assert result.code == 0
    lines = result.stdout.splitlines()
    compare = next(
        line for line in lines if line.startswith(f"{source}/commands/compare.md: verdict")
    )
    assert "Gemini CLI and Qwen Code skip it: it uses $0 and $1" in compare
    assert "OpenCode and Kilo Code CLI give its last positional placeholder" in compare
    # a harness that takes no command at all is one line, not a part of every verdict
    assert "Codex" not in compare
    assert lines.count("commands: Codex takes none: Codex reads no user commands "
                       "(~/.codex/prompts is no longer read)") == 1  # fmt: skip
    verdicts = [line for line in lines if ": verdict: " in line]
    assert not [line for line in verdicts if line.startswith(f"{source}/commands/review.md")]
    assert lines[-1].startswith(
        "checked 1 plugin(s), 0 valid skill(s), 0 valid agent(s), 3 valid command(s)"
    )


def test_every_harness_has_commands_or_says_why_not() -> None:
    for name in NAMES:
        cls = registry()[name]
        assert cls.command_syntax is not None or cls.no_commands, name


def test_a_command_of_the_same_name_later_on_the_path_loses(
    home: Path, source: Path, tmp_path: Path
) -> None:
    later = build_file_tree(tmp_path / "later/other", {"commands/review.md": "Another.\n"})
    (home / ".claude").mkdir()
    paths = f"{source.parent}{os.pathsep}{later.parent}"
    result = run(
        "plugins", "install", "--home", home, "--only", "claude", env={"SKILLTOOL_PLUGINS": paths}
    )
    assert "Review $ARGUMENTS carefully." in (home / TARGETS["claude"]).read_text()
    assert "comes first on the search path; this one is not rendered" in result.stderr


def test_a_dotted_command_name_keeps_its_dot(home: Path, tmp_path: Path) -> None:
    root = build_file_tree(tmp_path / "src/dots", {"commands/v1.2.md": "Dotted $ARGUMENTS.\n"})
    (home / ".config/opencode/commands").mkdir(parents=True)
    (home / ".config/opencode/commands/v1.md").write_text("Mine, another name.\n")
    run("plugins", "install", "--home", home, "--only", "opencode",
        env={"SKILLTOOL_PLUGINS": str(root.parent)})  # fmt: skip
    assert (home / ".config/opencode/command/v1.2.md").is_file()


def test_render_prints_a_commands_file_or_says_why_there_is_none(source: Path) -> None:
    env = {"SKILLTOOL_PLUGINS": str(source)}
    result = run("plugins", "render", "/review", "--harness", "gemini", env=env)
    assert result.code == 0
    assert toml_loads(result.stdout)["prompt"] == "Review {{args}} carefully.\n"
    result = run("plugins", "render", "/compare", "--harness", "gemini", env=env)
    assert result.code == 1
    assert "skilltool: Gemini CLI gets no file for /compare: it uses $0 and $1" in result.stderr
    result = run("plugins", "render", "/nope", "--harness", "claude", env=env)
    assert "no command /nope on the search path (commands: /compare, /git:commit, /review)" in (
        result.stderr
    )


def test_a_command_linked_from_outside_the_plugin_is_not_read(tmp_path: Path) -> None:
    secret = build_file_tree(tmp_path / "elsewhere", {"secret.md": "Not the plugin's.\n"})
    root = build_file_tree(tmp_path / "src/linked", {
        "commands/ok.md": "Fine.\n",
        "commands/secret.md": secret / "secret.md",
    })  # fmt: skip
    result = run("plugins", "status", "--json", env={"SKILLTOOL_PLUGINS": str(root.parent)})
    [plugin] = json.loads(result.stdout)["plugins"]
    assert [c["name"] for c in plugin["slash_commands"]] == ["ok"]
    assert "leads outside the plugin" in plugin["problems"][0]["message"]


def test_a_second_run_reads_commands_from_the_parse_cache_as_the_first(
    home: Path, source: Path
) -> None:
    def commands() -> list[dict[str, object]]:
        result = run("plugins", "status", "--json", env={"SKILLTOOL_PLUGINS": str(source)})
        found: list[dict[str, object]] = json.loads(result.stdout)["plugins"][0]["slash_commands"]
        return found

    first = commands()
    assert list((home / ".cache").rglob("parsed.marshal"))
    assert commands() == first
    (source / "commands/review.md").write_text("---\ndescription: Changed\n---\nNew.\n")
    assert next(c for c in commands() if c["name"] == "review")["description"] == "Changed"


def test_a_list_argument_hint_is_a_warning_and_the_command_is_kept(tmp_path: Path) -> None:
    found, problems = command(tmp_path, "---\nargument-hint: [file, mode]\n---\nGo $ARGUMENTS.\n")
    assert found is not None and found.argument_hint is None
    assert problems == [
        "<tmp>/p/commands/review.md:2: argument-hint: should be a string, not a list; "
        "e.g. 'argument-hint: \"[file]\"'"
    ]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    body=st.lists(
        st.sampled_from(["$ARGUMENTS", "$0", "$1", "$ARGUMENTS[2]", "---", "\r\n", "\n", "x",
                         "✓", "'\"`\\", '"""', "{{", "$", "#"]),
        max_size=12,
    ).map("".join)
)  # fmt: skip
def test_every_rendering_reads_back_as_the_translated_body(body: str, home: Path) -> None:
    path = home / "p/commands/gen.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(("---\ndescription: generated\n---\n" + body).encode("utf-8"))
    found, problems = parse_commands.read_command(path, "gen")
    assert found is not None and found.body == body, problems
    for name in TARGETS:
        taker = harness(name, home)
        if slash.refusal(taker, found) is not None:
            continue
        content = taker.render_command(found).content
        assert markers.find(content).intact  # type: ignore[union-attr]
        expected = taker.translate_command(body).body
        text = content.decode("utf-8")
        if name in ("gemini", "qwen"):
            assert toml_loads(text)["prompt"] == expected
        else:
            assert text.split("\n---\n", 1)[1] == expected
