"""`plugins validate` (SPEC §3-4): every problem in one line, exit 1 on error, --strict, --json."""

from __future__ import annotations

import json
import re
from pathlib import Path

from syrupy.assertion import SnapshotAssertion

from tests.helpers import agent_md, build_file_tree, plugin_tree, run, scrub, skill_md

# path:line: field: message, and a "(warning)" suffix for a warning
PROBLEM_LINE = re.compile(r"^(?P<path>/[^:]+):(?P<line>\d+): (?P<field>[a-z][\w.-]*): (?P<msg>.+)$")
SUMMARY = re.compile(r"^checked \d+ plugin\(s\), \d+ valid skill\(s\), \d+ valid agent\(s\): ")


def _error_tree(root: Path) -> Path:
    """One plugin with problems in its manifest, two skills and an agent; one skill is fine."""
    return build_file_tree(
        root / "docs",
        {
            ".claude-plugin/plugin.json": '{\n  "name": "Docs_Plugin",\n  "version": 2\n}\n',
            "skills/pdf-tools/SKILL.md": skill_md("pdf-tools"),
            "skills/Bad-Name/SKILL.md": skill_md("Bad-Name"),
            "skills/docx/SKILL.md": (
                "---\nname: word\nmetadata:\n  version: 2\nshiny: yes\n---\nBody.\n"
            ),
            "agents/reviewer.md": agent_md(
                "reviewer", extra="tools: 5\nskills: pdf-tools\nmodel: [a]\n"
            ),
            "agents/helper.md": agent_md("helper", extra="skills: [pdf-tools]\n"),
        },
    )


def _warning_tree(root: Path) -> Path:
    return build_file_tree(
        root / "notes",
        {
            "skills/notes/SKILL.md": skill_md("notes", extra="version: 1.0\n"),
            "agents/scribe.md": agent_md(
                "scribe", extra="colour: red\nharnesses:\n  vim: {model: x}\n"
            ),
        },
    )


def _problem_lines(stdout: str) -> list[str]:
    *problems, summary = stdout.splitlines()
    assert SUMMARY.match(summary), summary
    return [line for line in problems if ": verdict: " not in line]


def _verdict_lines(stdout: str) -> dict[str, str]:
    """File -> what each harness does with it, from the lines `validate` adds to problems."""
    pairs = (line.split(": verdict: ", 1) for line in stdout.splitlines() if ": verdict: " in line)
    return dict(pairs)


def test_clean_plugin_passes(tmp_path: Path) -> None:
    root = plugin_tree(tmp_path, "docs", skills=("pdf-tools", "docx"), agents=("helper",))
    result = run("plugins", "validate", root)
    assert result.code == 0
    assert result.lines == [
        "checked 1 plugin(s), 2 valid skill(s), 1 valid agent(s): 0 error(s), 0 warning(s)"
    ]
    assert run("plugins", "validate", "--strict", root).code == 0


def test_errors_exit_1_and_each_is_one_line_with_path_line_and_field(tmp_path: Path) -> None:
    root = _error_tree(tmp_path)
    result = run("plugins", "validate", root)
    assert result.code == 1
    lines = _problem_lines(result.stdout)
    parsed = [PROBLEM_LINE.match(line) for line in lines]
    assert all(parsed), lines
    found = {(m["path"], int(m["line"]), m["field"]) for m in parsed if m}
    manifest = str(root / ".claude-plugin/plugin.json")
    docx = str(root / "skills/docx/SKILL.md")
    reviewer = str(root / "agents/reviewer.md")
    assert found == {
        (manifest, 2, "name"),
        (manifest, 3, "version"),
        (str(root / "skills/Bad-Name/SKILL.md"), 2, "name"),
        (docx, 2, "name"),
        (docx, 1, "description"),
        (docx, 3, "metadata"),
        (docx, 5, "shiny"),
        (reviewer, 4, "tools"),
        (reviewer, 5, "skills"),
        (reviewer, 6, "model"),
    }
    warned = {line.split(": ", 2)[1] for line in lines if line.endswith("(warning)")}
    assert warned == {"name", "metadata", "shiny"}
    assert f"{docx}:5: shiny: not a skill field; remove it (known: " in result.stdout
    assert result.lines[-1] == (
        "checked 1 plugin(s), 2 valid skill(s), 1 valid agent(s): 6 error(s), 4 warning(s)"
    )
    # the skill with a name that breaks the rules is linked, and said where it loads
    verdicts = _verdict_lines(result.stdout)
    assert verdicts == {
        str(root / "skills/Bad-Name/SKILL.md"): (
            "OpenCode, Hermes, Codex, pi, Claude Code, Gemini CLI, Copilot CLI, Kilo Code CLI, "
            "Qwen Code, Kimi Code, Cline CLI, Qoder CLI and Continue CLI load it; pi warns that its name breaks the Agent Skills rules; "
            "Mistral Vibe skips it: name breaks the Agent Skills rules; Factory Droid skips it: "
            "name is not lowercase letters, digits and hyphens; Auggie, OpenHands and Amp skip it: "
            "name is not lowercase letters, digits and single hyphens"
        )
    }


def test_error_report_snapshot(tmp_path: Path, snapshot: SnapshotAssertion) -> None:
    root = _error_tree(tmp_path)
    result = run("plugins", "validate", root)
    assert result.code == 1
    assert scrub(result.stdout, tmp_path) == snapshot


def test_error_report_json_snapshot(tmp_path: Path, snapshot: SnapshotAssertion) -> None:
    root = _error_tree(tmp_path)
    result = run("plugins", "validate", "--json", root)
    assert result.code == 1
    data = json.loads(scrub(result.stdout, tmp_path))
    assert (data["errors"], data["warnings"]) == (6, 4)
    assert data == snapshot


def test_warnings_pass_unless_strict(tmp_path: Path) -> None:
    root = _warning_tree(tmp_path)
    result = run("plugins", "validate", root)
    assert result.code == 0
    lines = _problem_lines(result.stdout)
    assert len(lines) == 2
    assert all(PROBLEM_LINE.match(line) and line.endswith(" (warning)") for line in lines)
    assert result.lines[-1].endswith(": 0 error(s), 2 warning(s)")

    strict = run("plugins", "validate", "--strict", root)
    assert strict.code == 1
    strict_lines = _problem_lines(strict.stdout)
    assert strict_lines == [line.removesuffix(" (warning)") for line in lines]
    assert strict.lines[-1].endswith(": 2 error(s), 0 warning(s)")


def test_strict_json_counts_warnings_as_errors(tmp_path: Path) -> None:
    root = _warning_tree(tmp_path)
    data = json.loads(run("plugins", "validate", "--json", root).stdout)
    assert (data["errors"], data["warnings"]) == (0, 2)
    result = run("plugins", "validate", "--json", "--strict", root)
    assert result.code == 1
    data = json.loads(result.stdout)
    assert (data["errors"], data["warnings"]) == (2, 0)
    assert {p["severity"] for p in data["problems"]} == {"error"}


def test_one_bad_plugin_among_several_fails_the_run(tmp_path: Path) -> None:
    good = plugin_tree(tmp_path / "a", "good", skills=("fine",))
    bad = build_file_tree(tmp_path / "b" / "bad", {"skills/oops/SKILL.md": "no frontmatter\n"})
    result = run("plugins", "validate", good, bad)
    assert result.code == 1
    assert result.lines[0].startswith(f"{bad / 'skills/oops/SKILL.md'}:1: no frontmatter")
    assert result.lines[-1].startswith("checked 2 plugin(s), 1 valid skill(s)")


def test_without_path_the_bundled_plugin_passes_strict(home: Path) -> None:
    result = run("plugins", "validate", "--strict", "--json")
    assert result.code == 0, result.stdout
    data = json.loads(result.stdout)
    assert [(p["name"], p["origin"]) for p in data["plugins"]] == [("skilltool", "bundled")]
    assert data["problems"] == []
    assert data["plugins"][0]["skills"] and data["plugins"][0]["agents"]


def test_without_path_the_search_path_is_validated(home: Path) -> None:
    build_file_tree(
        home / ".local/share/skilltool/plugins/mine", {"skills/bad/SKILL.md": skill_md("bad", "''")}
    )
    result = run("plugins", "validate")
    assert result.code == 1
    skill = home / ".local/share/skilltool/plugins/mine/skills/bad/SKILL.md"
    assert result.lines[0].startswith(f"{skill}:3: description: is empty")
    assert result.lines[-1].startswith("checked 2 plugin(s), ")


def test_odd_files_are_problems_not_crashes(tmp_path: Path) -> None:
    root = build_file_tree(
        tmp_path / "odd",
        {
            "plugin.json": '{"name": "odd"}',
            ".claude-plugin/plugin.json": '{"name": "odd"',
            "skills/stray.txt": "not a skill\n",
            "skills/broken": tmp_path / "nowhere",
            "skills/lonely/README.md": "a skill dir without SKILL.md\n",
            "agents/bin.md": b"\x00\x01",
            "agents/latin1.md": b"---\nname: latin1\ndescription: caf\xe9\n---\n",
        },
    )
    (root / "skills/dir-skill/SKILL.md").mkdir(parents=True)
    result = run("plugins", "validate", root)
    assert result.code == 1
    assert "Traceback" not in result.stdout + result.stderr
    problems = _problem_lines(result.stdout)
    named = {line.split(":", 1)[0] for line in problems}
    assert named == {
        str(root / ".claude-plugin/plugin.json"),
        str(root / "plugin.json"),
        str(root / "skills/stray.txt"),
        str(root / "skills/broken"),
        str(root / "skills/lonely/SKILL.md"),
        str(root / "skills/dir-skill/SKILL.md"),
        str(root / "agents/bin.md"),
        str(root / "agents/latin1.md"),
    }
    assert f"{root / 'agents/latin1.md'}:3: not valid UTF-8" in result.stdout


def test_skill_dir_without_skill_md_says_it_is_missing(tmp_path: Path) -> None:
    root = build_file_tree(tmp_path / "p", {"skills/lonely/README.md": "notes\n"})
    result = run("plugins", "validate", root)
    [line] = _problem_lines(result.stdout)
    assert line.startswith(f"{root / 'skills/lonely/SKILL.md'}: ")
    assert "permissions" not in line
    assert "missing" in line or "no SKILL.md" in line


def test_missing_path_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    result = run("plugins", "validate", missing)
    assert result.code == 2
    assert (
        result.stderr
        == f"skilltool: {missing} does not exist; check a path to validate, or create it first\n"
    )
    failed = run("plugins", "validate", missing, "--json")
    assert failed.code == 2
    assert json.loads(failed.stdout) == {
        "schema": 1,
        "command": "validate",
        "error": {
            "message": f"{missing} does not exist; check a path to validate, or create it first",
            "exit_code": 2,
        },
    }


def test_an_empty_folder_says_why_it_fails(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = run("plugins", "validate", tmp_path / "empty")
    assert result.code == 1
    assert result.lines[-1].endswith(f"no plugin found in {tmp_path / 'empty'}: nothing to check")


def test_skills_alias_validates_too(tmp_path: Path) -> None:
    root = _error_tree(tmp_path)
    plugins = run("plugins", "validate", root)
    skills = run("skills", "validate", root)
    assert (skills.code, skills.stdout) == (plugins.code, plugins.stdout)


def test_agent_naming_an_unknown_skill_is_a_warning(tmp_path: Path) -> None:
    root = build_file_tree(
        tmp_path / "p", {"agents/helper.md": agent_md("helper", extra="skills: [ghost]\n")}
    )
    result = run("plugins", "validate", root)
    assert result.code == 0
    [line] = _problem_lines(result.stdout)
    assert "'ghost' is not a skill of any plugin found" in line
    assert line.endswith(" (warning)")
    assert run("plugins", "validate", "--strict", root).code == 1


def test_agent_naming_an_unknown_skill_is_reported_at_the_skills_line(tmp_path: Path) -> None:
    root = build_file_tree(
        tmp_path / "p", {"agents/helper.md": agent_md("helper", extra="skills: [ghost]\n")}
    )
    [line] = _problem_lines(run("plugins", "validate", root).stdout)
    match = PROBLEM_LINE.match(line)
    assert match is not None, line
    assert (match["line"], match["field"]) == ("4", "skills")
