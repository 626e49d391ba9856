"""Reading files (SPEC §3): the Agent Skills rules, agent frontmatter, exact bodies, manifests."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skilltool import parse
from skilltool.model import Agent, Problem, Skill

Found = list[tuple[int | None, str | None, str]]


def _found(problems: list[Problem]) -> Found:
    """(line, field, severity) of each problem: what a person uses to find and fix it."""
    return [(p.line, p.field, p.severity) for p in problems]


def _skill(tmp_path: Path, text: str | bytes, dirname: str = "pdf-tools") -> tuple[object, Found]:
    directory = tmp_path / "skills" / dirname
    directory.mkdir(parents=True)
    raw = text if isinstance(text, bytes) else text.encode("utf-8")
    (directory / "SKILL.md").write_bytes(raw)
    skill, problems = parse.read_skill(directory)
    for problem in problems:
        assert problem.path == directory / "SKILL.md"
    return skill, _found(problems)


def _skill_problems(tmp_path: Path, text: str | bytes, dirname: str = "pdf-tools") -> list[Problem]:
    directory = tmp_path / "skills" / dirname
    directory.mkdir(parents=True)
    raw = text if isinstance(text, bytes) else text.encode("utf-8")
    (directory / "SKILL.md").write_bytes(raw)
    return parse.read_skill(directory)[1]


def _agent(tmp_path: Path, text: str | bytes, filename: str = "helper.md") -> tuple[object, Found]:
    path = tmp_path / "agents" / filename
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    agent, problems = parse.read_agent(path)
    for problem in problems:
        assert problem.path == path
    return agent, _found(problems)


def _read_agent(tmp_path: Path, raw: bytes, filename: str = "helper.md") -> Agent | None:
    path = tmp_path / filename
    path.write_bytes(raw)
    agent, problems = parse.read_agent(path)
    assert problems == []
    return agent


def _manifest(tmp_path: Path, text: str | bytes) -> tuple[dict | None, list[Problem]]:  # type: ignore[type-arg]
    path = tmp_path / "plugin.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    data, problems = parse.read_manifest(path)
    for problem in problems:
        assert problem.path == path
    return data, problems


# --- skills: name -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a", "7", "pdf", "pdf-tools", "a1-b2-c3", "x" * 64])
def test_skill_name_that_follows_the_rules_is_accepted(tmp_path: Path, name: str) -> None:
    skill, found = _skill(tmp_path, f"---\nname: '{name}'\ndescription: d\n---\n", dirname=name)
    assert found == []
    assert isinstance(skill, Skill)
    assert (skill.name, skill.path, skill.description) == (name, tmp_path / "skills" / name, "d")


@pytest.mark.parametrize(
    "name",
    [
        "''",
        "-pdf",
        "pdf-",
        "'-'",
        "pdf--tools",
        "PDF",
        "Pdf-Tools",
        "pdf_tools",
        "pdf.tools",
        "'pdf tools'",
        "x" * 65,
        "pdé",
        "../pdf",
        "'Caps Name'",
    ],
)
def test_skill_name_breaking_the_rules_is_a_warning_and_it_is_linked_by_its_folder(
    tmp_path: Path, name: str
) -> None:
    # every harness still loads such a skill (HARNESSES.md): it is linked as its directory
    text = f"---\ndescription: d\nname: {name}\n---\n"
    skill, found = _skill(tmp_path, text, dirname="pdf")
    assert isinstance(skill, Skill) and skill.name == "pdf"
    assert found == [(3, "name", "warning")]


@pytest.mark.parametrize("name", ["123", "true", "[pdf]"])
def test_skill_name_that_is_not_a_string_is_an_error(tmp_path: Path, name: str) -> None:
    skill, found = _skill(tmp_path, f"---\ndescription: d\nname: {name}\n---\n", dirname="pdf")
    assert skill is None
    assert found == [(3, "name", "error")]


def test_skill_name_warning_says_the_rule_and_the_name_it_is_linked_as(tmp_path: Path) -> None:
    [problem] = _skill_problems(tmp_path, "---\nname: pdf--tools\ndescription: d\n---\n", "pdf")
    assert "'pdf--tools' breaks the Agent Skills rules" in problem.message
    assert (
        "a-z, 0-9 and single hyphens" in problem.message
        and "goes by its folder, 'pdf'" in problem.message
    )


def test_skill_name_different_from_its_directory_is_linked_by_the_directory(
    tmp_path: Path,
) -> None:
    text = "---\ndescription: d\nlicense: MIT\nname: pdf\n---\n"
    skill, found = _skill(tmp_path, text, dirname="pdf-tools")
    assert isinstance(skill, Skill) and skill.name == "pdf-tools" and skill.declared == "pdf"
    assert found == [(4, "name", "warning")]
    [problem] = parse.read_skill(tmp_path / "skills/pdf-tools")[1]
    assert "'pdf'" in problem.message and "'pdf-tools', which it goes by" in problem.message


@pytest.mark.parametrize("dirname", ["My Skill", ".hidden", "-dash", "a$b"])
def test_skill_directory_that_cannot_stand_in_a_path_is_refused(
    tmp_path: Path, dirname: str
) -> None:
    skill, found = _skill(tmp_path, "---\nname: x\ndescription: d\n---\n", dirname=dirname)
    assert skill is None
    assert (None, None, "error") in found


def test_skill_without_name_is_a_warning_that_suggests_the_directory(tmp_path: Path) -> None:
    # Claude Code, Codex, pi and Copilot CLI load it by its folder; OpenCode and Gemini skip it
    [problem] = _skill_problems(tmp_path, "---\ndescription: d\n---\n", dirname="pdf-tools")
    assert (problem.line, problem.field, problem.severity) == (1, "name", "warning")
    assert (
        "name: pdf-tools" in problem.message
        and "goes by its folder, 'pdf-tools'" in problem.message
    )


# --- skills: the other fields ---------------------------------------------------------------


def test_skill_description_may_be_1024_characters(tmp_path: Path) -> None:
    skill, found = _skill(tmp_path, f"---\nname: pdf-tools\ndescription: {'d' * 1024}\n---\n")
    assert found == []
    assert skill is not None


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("description: ''", "is empty"),
        ("description: '   '", "is empty"),
        ("description: [a, b]", "must be a string"),
        ("description: 12", "must be a string"),
        ("description:", "missing"),
    ],
)
def test_skill_description_out_of_bounds_is_an_error(
    tmp_path: Path, line: str, expected: str
) -> None:
    text = f"---\nname: pdf-tools\n{line}\n---\n"
    [problem] = _skill_problems(tmp_path, text)
    assert (problem.line, problem.field, problem.severity) == (3, "description", "error")
    assert expected in problem.message
    assert parse.read_skill(tmp_path / "skills/pdf-tools")[0] is None


def test_skill_description_over_1024_characters_is_a_warning_and_it_is_still_linked(
    tmp_path: Path,
) -> None:
    skill, found = _skill(tmp_path, f"---\nname: pdf-tools\ndescription: {'d' * 1500}\n---\n")
    assert isinstance(skill, Skill) and len(skill.description) == 1500
    assert found == [(3, "description", "warning")]
    [problem] = parse.read_skill(tmp_path / "skills/pdf-tools")[1]
    assert "1500 characters, over the Agent Skills limit of 1024" in problem.message


def test_skill_without_description_is_an_error(tmp_path: Path) -> None:
    skill, found = _skill(tmp_path, "---\nname: pdf-tools\n---\n")
    assert skill is None
    assert found == [(1, "description", "error")]


def test_skill_optional_fields_within_limits_are_accepted(tmp_path: Path) -> None:
    text = (
        "---\nname: pdf-tools\ndescription: d\nlicense: Apache-2.0\n"
        f"compatibility: {'c' * 500}\nmetadata:\n  author: me\n  version: '1.0'\n"
        "allowed-tools: Bash(git:*) Read\n---\n"
    )
    skill, found = _skill(tmp_path, text)
    assert found == []
    assert skill is not None


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("compatibility", "c" * 501),
        ("compatibility", "[linux]"),
        ("allowed-tools", "[Read, 1]"),
        ("allowed-tools", "{Read: true}"),
        ("license", "{spdx: MIT}"),
    ],
)
def test_skill_optional_field_of_the_wrong_shape_is_an_error_on_its_line(
    tmp_path: Path, field: str, value: str
) -> None:
    text = f"---\nname: pdf-tools\ndescription: d\n{field}: {value}\n---\n"
    skill, found = _skill(tmp_path, text)
    assert skill is None
    assert found == [(4, field, "error")]


@pytest.mark.parametrize("value", ["{version: 1}", "[a, b]", "just text", "{tags: [a]}"])
def test_skill_metadata_of_another_shape_is_a_warning(tmp_path: Path, value: str) -> None:
    # no harness refuses a skill for it (Claude Code ignores the field)
    skill, found = _skill(
        tmp_path, f"---\nname: pdf-tools\ndescription: d\nmetadata: {value}\n---\n"
    )
    assert skill is not None
    assert found == [(4, "metadata", "warning")]


@pytest.mark.parametrize("value", ["[Read, Grep]", "\n  - Read\n  - Bash(git:*)", "Read Grep"])
def test_skill_allowed_tools_may_be_a_string_or_a_list(tmp_path: Path, value: str) -> None:
    skill, found = _skill(
        tmp_path, f"---\nname: pdf-tools\ndescription: d\nallowed-tools: {value}\n---\n"
    )
    assert skill is not None and found == []


def test_claude_code_skill_fields_are_known(tmp_path: Path) -> None:
    text = (
        "---\nname: pdf-tools\ndescription: d\nwhen_to_use: when a PDF is open\n"
        "argument-hint: '[file]'\narguments: [file]\ndisable-model-invocation: true\n"
        "user-invocable: false\nmodel: sonnet\neffort: high\ncontext: fork\nagent: Explore\n"
        "hooks: {PreToolUse: []}\npaths: '*.pdf'\nshell: bash\nversion: 1.0.0\n---\n"
    )
    skill, found = _skill(tmp_path, text)
    assert isinstance(skill, Skill) and found == []
    assert skill.fields["effort"] == "high"


def test_skill_argument_hint_as_a_list_is_a_warning(tmp_path: Path) -> None:
    # Copilot CLI refuses such a skill ("argument-hint must be a string"); the others load it
    skill, found = _skill(
        tmp_path, "---\nname: pdf-tools\ndescription: d\nargument-hint: [file]\n---\n"
    )
    assert skill is not None
    assert found == [(4, "argument-hint", "warning")]


def test_skill_unknown_field_is_a_warning_and_the_skill_is_still_used(tmp_path: Path) -> None:
    text = "---\nname: pdf-tools\ndescription: d\ntags: [a]\n---\n"
    skill, found = _skill(tmp_path, text)
    assert skill is not None
    assert found == [(4, "tags", "warning")]


def test_every_problem_of_a_skill_is_reported_at_its_own_line(tmp_path: Path) -> None:
    text = (
        "---\n"
        "# a comment line\n"
        "name: PDF\n"
        "description: ''\n"
        "\n"
        "compatibility: " + "c" * 600 + "\n"
        "metadata: {n: 1}\n"
        "allowed-tools: [1]\n"
        "tags: x\n"
        "---\n"
    )
    skill, found = _skill(tmp_path, text)
    assert skill is None
    assert sorted(found, key=lambda f: f[0] or 0) == [
        (3, "name", "warning"),
        (4, "description", "error"),
        (6, "compatibility", "error"),
        (7, "metadata", "warning"),
        (8, "allowed-tools", "error"),
        (9, "tags", "warning"),
    ]


def test_skill_key_lines_count_crlf_and_a_bom(tmp_path: Path) -> None:
    text = "\ufeff---\r\ndescription: d\r\n\r\nname: Nope\r\n---\r\nbody\r\n"
    skill, found = _skill(tmp_path, text)
    assert skill is not None
    assert found == [(4, "name", "warning")]


# --- agents -----------------------------------------------------------------------------


def test_agent_name_defaults_to_the_file_stem(tmp_path: Path) -> None:
    agent, found = _agent(tmp_path, "---\ndescription: d\n---\nbody\n", filename="code-review.md")
    assert found == []
    assert isinstance(agent, Agent)
    assert agent.name == "code-review"


def test_agent_name_in_frontmatter_wins_over_the_file_stem(tmp_path: Path) -> None:
    agent, found = _agent(tmp_path, "---\nname: reviewer\ndescription: d\n---\n", "x.md")
    assert found == []
    assert isinstance(agent, Agent)
    assert agent.name == "reviewer"


@pytest.mark.parametrize("name", ["Helper", "my_agent", "my.agent", "v2.1-Reviewer"])
def test_agent_name_with_capitals_dots_or_underscores_is_read(tmp_path: Path, name: str) -> None:
    # Claude Code, OpenCode and Copilot CLI load such names; the harnesses that do not are
    # named by the verdicts of `validate`
    agent, found = _agent(tmp_path, f"---\ndescription: d\nname: {name}\n---\n")
    assert isinstance(agent, Agent) and agent.name == name
    assert found == []


@pytest.mark.parametrize("name", ["../evil", "a/b", "..", "'.'", "'a b'", "-x", ".hidden", "a$b"])
def test_agent_name_that_is_not_one_safe_path_component_is_refused(
    tmp_path: Path, name: str
) -> None:
    agent, found = _agent(tmp_path, f"---\ndescription: d\nname: {name}\n---\n")
    assert agent is None
    assert found == [(3, "name", "error")]


def test_agent_file_stem_that_is_not_a_safe_name_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "My Agent.md"
    path.write_text("---\ndescription: d\n---\n", encoding="utf-8")
    agent, [problem] = parse.read_agent(path)
    assert agent is None
    assert (problem.line, problem.field) == (1, "name")
    assert "'My Agent'" in problem.message and "file name" in problem.message


@pytest.mark.parametrize(
    ("line", "expected"), [("", "missing"), ("description: ''", "is empty"), ("description: 3", "")]
)
def test_agent_description_is_required(tmp_path: Path, line: str, expected: str) -> None:
    agent, found = _agent(tmp_path, f"---\nname: helper\n{line}\n---\n")
    assert agent is None
    assert [(f[1], f[2]) for f in found] == [("description", "error")]


@pytest.mark.parametrize(
    ("value", "tools"),
    [
        ("Read, Grep,Bash ,  Edit", ("Read", "Grep", "Bash", "Edit")),
        ("Read", ("Read",)),
        ("[Read, Grep]", ("Read", "Grep")),
        ("\n  - Read\n  - Bash(git:*)", ("Read", "Bash(git:*)")),
        ("''", ()),
        ("[]", ()),
    ],
)
def test_agent_tools_are_a_comma_string_or_a_list(
    tmp_path: Path, value: str, tools: tuple[str, ...]
) -> None:
    agent, found = _agent(tmp_path, f"---\ndescription: d\ntools: {value}\n---\n")
    assert found == []
    assert isinstance(agent, Agent)
    assert agent.tools == tools


@pytest.mark.parametrize("value", ["5", "[Read, 1]", "{Read: true}", "[[Read]]"])
def test_agent_tools_of_another_shape_are_an_error(tmp_path: Path, value: str) -> None:
    agent, found = _agent(tmp_path, f"---\ndescription: d\ntools: {value}\n---\n")
    assert agent is None
    assert found == [(3, "tools", "error")]


def test_agent_skills_list_is_read(tmp_path: Path) -> None:
    agent, found = _agent(tmp_path, "---\ndescription: d\nskills:\n  - pdf\n  - docx\n---\n")
    assert found == []
    assert isinstance(agent, Agent)
    assert agent.skills == ("pdf", "docx")


@pytest.mark.parametrize("value", ["pdf", "'pdf, docx'", "[pdf, 2]", "{pdf: 1}"])
def test_agent_skills_that_are_not_a_list_of_strings_are_an_error(
    tmp_path: Path, value: str
) -> None:
    agent, found = _agent(tmp_path, f"---\ndescription: d\nname: helper\nskills: {value}\n---\n")
    assert agent is None
    assert found == [(4, "skills", "error")]


def test_agent_skills_error_says_to_write_a_list(tmp_path: Path) -> None:
    path = tmp_path / "helper.md"
    path.write_text("---\ndescription: d\nskills: pdf\n---\n", encoding="utf-8")
    [problem] = parse.read_agent(path)[1]
    assert "must be a YAML list" in problem.message


def test_agent_model_is_a_string(tmp_path: Path) -> None:
    agent, found = _agent(tmp_path, "---\ndescription: d\nmodel: sonnet\n---\n")
    assert found == []
    assert isinstance(agent, Agent)
    assert agent.model == "sonnet"
    agent, found = _agent(tmp_path, "---\ndescription: d\nmodel: [a]\n---\n", "other.md")
    assert agent is None
    assert found == [(3, "model", "error")]


def test_agent_harness_overrides_give_a_model_per_harness(tmp_path: Path) -> None:
    text = (
        "---\ndescription: d\nmodel: sonnet\nharnesses:\n"
        "  codex: {model: gpt-5}\n  opencode:\n    model: anthropic/claude-sonnet-4\n---\n"
    )
    agent, found = _agent(tmp_path, text)
    assert found == []
    assert isinstance(agent, Agent)
    assert agent.model_for("codex") == "gpt-5"
    assert agent.model_for("opencode") == "anthropic/claude-sonnet-4"
    assert agent.model_for("pi") is None
    assert agent.model == "sonnet"


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ("codex", "harnesses"),
        ("[codex]", "harnesses"),
        ("{codex: gpt-5}", "harnesses.codex"),
        ("{codex: {model: 5}}", "harnesses.codex"),
        ("{codex: {model: [a]}}", "harnesses.codex"),
    ],
)
def test_agent_harness_overrides_of_the_wrong_shape_are_an_error(
    tmp_path: Path, value: str, field: str
) -> None:
    agent, found = _agent(tmp_path, f"---\ndescription: d\nharnesses: {value}\n---\n")
    assert agent is None
    assert found == [(3, field, "error")]


def test_agent_unknown_harness_or_setting_is_a_warning_and_ignored(tmp_path: Path) -> None:
    text = "---\ndescription: d\nharnesses: {vim: {model: x}, codex: {model: m, tone: dry}}\n---\n"
    agent, found = _agent(tmp_path, text)
    assert isinstance(agent, Agent)
    assert found == [(3, "harnesses.vim", "warning"), (3, "harnesses.codex.tone", "warning")]
    assert agent.overrides == {"codex": {"model": "m"}}


def test_agent_unknown_keys_are_warnings_and_claude_keys_are_known(tmp_path: Path) -> None:
    text = (
        "---\ndescription: d\ncolor: blue\npermissionMode: plan\nmaxTurns: 3\n"
        "colour: red\nmode: primary\n---\nbody\n"
    )
    agent, found = _agent(tmp_path, text)
    assert isinstance(agent, Agent)
    assert found == [(6, "colour", "warning"), (7, "mode", "warning")]


def test_agent_unknown_key_warning_reads_as_english(tmp_path: Path) -> None:
    path = tmp_path / "helper.md"
    path.write_text("---\ndescription: d\ncolour: red\n---\n", encoding="utf-8")
    [problem] = parse.read_agent(path)[1]
    assert problem.message.startswith("not an agent field")


def test_agent_nested_override_problem_is_reported_at_its_own_line(tmp_path: Path) -> None:
    text = "---\ndescription: d\nharnesses:\n  codex:\n    model: gpt-5\n    tone: dry\n---\n"
    agent, found = _agent(tmp_path, text)
    assert isinstance(agent, Agent)
    assert found == [(6, "harnesses.codex.tone", "warning")]


# --- agents: the body is kept exactly -------------------------------------------------------

HEAD = "---\nname: helper\ndescription: d\n---\n"


@pytest.mark.parametrize(
    ("raw", "body"),
    [
        pytest.param(HEAD + "You help.\n", "You help.\n", id="plain"),
        pytest.param(HEAD + "You help.", "You help.", id="no-final-newline"),
        pytest.param(HEAD, "", id="empty"),
        pytest.param(HEAD[:-1], "", id="closing-fence-without-newline"),
        pytest.param(HEAD + "\n\nYou help.\n\n\n", "\n\nYou help.\n\n\n", id="blank-lines-kept"),
        pytest.param(
            HEAD + "intro\n---\nmore\n---\n", "intro\n---\nmore\n---\n", id="fence-lines-in-body"
        ),
        pytest.param(HEAD + "---\n", "---\n", id="body-is-a-fence"),
        pytest.param(
            HEAD.replace("\n", "\r\n") + "a\r\n---\r\nb\r\n",
            "a\r\n---\r\nb\r\n",
            id="crlf",
        ),
        pytest.param(HEAD + "a\r\nb\nc\rd", "a\r\nb\nc\rd", id="mixed-line-endings"),
        pytest.param(
            HEAD + "Ünïcödé ✓ 漢字 🧪 e\u0301 \u2028 \x85 \x0c tab\there  \n",
            "Ünïcödé ✓ 漢字 🧪 e\u0301 \u2028 \x85 \x0c tab\there  \n",
            id="unicode-and-odd-breaks",
        ),
        pytest.param(HEAD + "\ufeffinner bom\n", "\ufeffinner bom\n", id="bom-inside-body"),
        pytest.param("---  \nname: helper\ndescription: d\n--- \t\nx", "x", id="fence-spaces"),
    ],
)
def test_agent_body_is_every_character_after_the_closing_fence(
    tmp_path: Path, raw: str, body: str
) -> None:
    agent = _read_agent(tmp_path, raw.encode("utf-8"))
    assert agent is not None
    assert agent.body == body


def test_agent_file_starting_with_a_bom_is_read_and_the_body_is_intact(tmp_path: Path) -> None:
    raw = "\ufeff---\r\nname: helper\r\ndescription: d\r\n---\r\nYou help.\r\n".encode()
    agent = _read_agent(tmp_path, raw)
    assert agent is not None
    assert (agent.name, agent.description, agent.body) == ("helper", "d", "You help.\r\n")


_BODY_PIECES = st.one_of(
    st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=40),
    st.sampled_from(["---", "---\n", "---\r\n", "\r\n", "\n", "\r", " --- ", "\ufeff", "...\n"]),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_BODY_PIECES, max_size=12).map("".join))
def test_agent_body_round_trips_exactly(body: str) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "x.md"
        path.write_bytes(("---\nname: x\ndescription: d\n---\n" + body).encode("utf-8"))
        agent, problems = parse.read_agent(path)
    assert problems == []
    assert agent is not None
    assert agent.body == body


# --- files that cannot be read ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("yaml", "line"),
    [
        ("name: pdf-tools\n  bad: indent\n", 3),
        ("name: pdf-tools\n\tdescription: d\n", 3),
        ('name: "\\q"\n', 2),
        ("name: pdf-tools\ndescription: first line\nsecond line without a key\n", 4),
        ("name: pdf-tools\nmetadata:\n  note: indented: lines are not repaired\n", 4),
        ("name: pdf-tools\r\ndescription: a CRLF line: not repaired\r\n", 3),
        ("name: pdf-tools\ndescription: |\n  a block scalar\nx2: a: b\n", 5),
    ],
)
def test_invalid_yaml_is_one_problem_on_one_line_with_its_line_number(
    tmp_path: Path, yaml: str, line: int
) -> None:
    problems = _skill_problems(tmp_path, f"---\n{yaml}---\nbody\n")
    [problem] = problems
    assert problem.line == line
    assert problem.message.startswith("invalid YAML: ")
    assert "\n" not in str(problem)
    assert parse.read_skill(tmp_path / "skills/pdf-tools")[0] is None


def test_yaml_tags_never_run_code(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    text = f"---\nname: !!python/object/apply:os.system ['touch {marker}']\ndescription: d\n---\n"
    agent, found = _agent(tmp_path, text)
    # as Claude Code repairs it, the tag is text inside a quoted name, which is not a file name
    assert agent is None
    assert found == [(2, None, "warning"), (2, "name", "error")]
    assert not marker.exists()


# --- frontmatter Claude Code repairs -----------------------------------------------------------

# the shape Claude Code's own agent generator writes: one line holding `: `, literal \n
# escapes and <example> blocks with `user: "..."`
GENERATED_AGENT = (
    "---\n"
    "name: code-reviewer\n"
    "description: Use this agent after writing code. Examples:\\n\\n<example>\\nContext: a "
    'change\\nuser: "Review it"\\nassistant: "I will use the code-reviewer agent"\\n</example>\n'
    "model: inherit\n"
    "color: blue\n"
    "---\n"
    "You review code.\n"
)


def test_agent_frontmatter_claude_code_repairs_is_read_as_repaired_with_a_warning(
    tmp_path: Path,
) -> None:
    agent, found = _agent(tmp_path, GENERATED_AGENT)
    assert isinstance(agent, Agent) and agent.repaired
    # each literal \n becomes a line break, as Claude Code shows it to the model
    assert agent.description == (
        "Use this agent after writing code. Examples:\n\n<example>\nContext: a change\n"
        'user: "Review it"\nassistant: "I will use the code-reviewer agent"\n</example>'
    )
    assert agent.fields["color"] == "blue" and agent.body == "You review code.\n"
    assert found == [(3, None, "warning")]
    [problem] = parse.read_agent(tmp_path / "agents/helper.md")[1]
    assert "not valid YAML" in problem.message and "Claude Code reads it" in problem.message
    assert "'description'" in problem.message and "quote" in problem.message


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("description: Use it when: asked", "Use it when: asked"),
        ('description: a "quote" and a \\ backslash: kept', 'a "quote" and a \\ backslash: kept'),
        ("description: [not a list] but text", "[not a list] but text"),
        ('description: "quoted" then: more', '"quoted" then: more'),
        ("description: @mention first, then: more", "@mention first, then: more"),
        ("description: a\ttab: inside", "a\ttab: inside"),
    ],
)
def test_each_unquoted_value_claude_code_quotes_reads_as_it_does(
    tmp_path: Path, line: str, value: str
) -> None:
    agent, found = _agent(tmp_path, f"---\nname: helper\n{line}\n---\nbody\n")
    assert isinstance(agent, Agent) and agent.description == value
    assert found == [(3, None, "warning")]


@pytest.mark.parametrize(
    "tools",
    ['["Read", "Grep"]', "[Read, Grep]", "['Read', 'Grep']", '["Read","Grep"]'],
)
def test_a_tools_list_in_frontmatter_claude_code_repairs_stays_a_list(
    tmp_path: Path, tools: str
) -> None:
    # Claude Code 2.1.332 quotes no value that is a YAML list by itself: its agent has
    # exactly these tools (its agent listing says `(Tools: Read, Grep)`)
    text = f"---\nname: helper\ndescription: Use it when: asked\ntools: {tools}\n---\nbody\n"
    agent, found = _agent(tmp_path, text)
    assert isinstance(agent, Agent) and agent.repaired
    assert agent.tools == ("Read", "Grep")
    assert found == [(3, None, "warning")]
    [problem] = parse.read_agent(tmp_path / "agents/helper.md")[1]
    assert "'description' in double quotes" in problem.message


def test_a_skill_claude_code_repairs_is_linked_with_a_warning(tmp_path: Path) -> None:
    skill, found = _skill(tmp_path, "---\nname: pdf-tools\ndescription: Use: for PDFs\n---\n")
    assert isinstance(skill, Skill) and skill.repaired and skill.description == "Use: for PDFs"
    assert found == [(3, None, "warning")]


def test_literal_backslash_n_in_a_valid_agent_description_is_a_line_break(tmp_path: Path) -> None:
    agent, found = _agent(tmp_path, "---\nname: helper\ndescription: one\\ntwo\n---\n")
    assert isinstance(agent, Agent) and agent.description == "one\ntwo" and not agent.repaired
    assert found == []


def test_agent_description_has_no_1024_limit(tmp_path: Path) -> None:
    agent, found = _agent(tmp_path, f"---\nname: helper\ndescription: {'d' * 3000}\n---\n")
    assert isinstance(agent, Agent) and found == []


def test_dates_are_read_as_the_text_written(tmp_path: Path) -> None:
    agent, found = _agent(tmp_path, "---\nname: helper\ndescription: d\ncreated: 2024-01-31\n---\n")
    assert isinstance(agent, Agent) and agent.fields["created"] == "2024-01-31"


@pytest.mark.parametrize(
    ("value", "tools"),
    [
        (
            "Bash(git:*), Agent(a, b), mcp__srv__tool, Read",
            ("Bash(git:*)", "Agent(a, b)", "mcp__srv__tool", "Read"),
        ),
        ("Bash(git log:*) Read", ("Bash(git log:*)", "Read")),
        ("'Read, Grep: x'", ("Read", "Grep:", "x")),
    ],
)
def test_tools_split_as_claude_code_splits_them(
    tmp_path: Path, value: str, tools: tuple[str, ...]
) -> None:
    agent, found = _agent(tmp_path, f"---\nname: helper\ndescription: d\ntools: {value}\n---\n")
    assert isinstance(agent, Agent) and agent.tools == tools


@pytest.mark.parametrize("yaml", ["- a\n- b\n", "just words\n", "42\n", "[name, d]\n"])
def test_frontmatter_that_is_not_a_mapping_is_one_problem(tmp_path: Path, yaml: str) -> None:
    [problem] = _skill_problems(tmp_path, f"---\n{yaml}---\n")
    assert problem.line == 2
    assert "not a mapping" in problem.message


def test_frontmatter_that_is_never_closed_is_one_problem(tmp_path: Path) -> None:
    agent, found = _agent(tmp_path, "---\nname: helper\ndescription: d\n\nYou help.\n")
    assert agent is None
    assert found == [(1, None, "error")]
    [problem] = _skill_problems(tmp_path, "---\nname: pdf-tools\ndescription: d\n")
    assert "frontmatter not closed" in problem.message


def test_frontmatter_not_closed_message_reads_cleanly(tmp_path: Path) -> None:
    [problem] = _skill_problems(tmp_path, "---\nname: pdf-tools\ndescription: d\n")
    assert problem.message == "frontmatter not closed; end it with a '---' line"


@pytest.mark.parametrize("raw", [b"", b"# pdf-tools\n", b"\n---\nname: pdf-tools\n---\n"])
def test_file_without_frontmatter_is_one_problem(tmp_path: Path, raw: bytes) -> None:
    [problem] = _skill_problems(tmp_path, raw)
    assert problem.line == 1
    assert "no frontmatter" in problem.message


def test_invalid_utf8_is_reported_at_its_line(tmp_path: Path) -> None:
    raw = b"---\nname: pdf-tools\ndescription: caf\xe9\n---\n"
    skill, found = _skill(tmp_path, raw)
    assert skill is None
    assert found == [(3, None, "error")]
    agent, found = _agent(tmp_path, HEAD.encode() + b"ok\n\xff\xfe\n")
    assert agent is None
    assert found == [(6, None, "error")]


def test_nul_byte_is_refused_as_binary(tmp_path: Path) -> None:
    agent, found = _agent(tmp_path, HEAD.encode() + b"You\x00help\n")
    assert agent is None
    path = tmp_path / "agents/helper.md"
    [problem] = parse.read_agent(path)[1]
    assert "NUL" in problem.message


def test_skill_md_that_is_a_directory_is_one_problem(tmp_path: Path) -> None:
    (tmp_path / "pdf-tools/SKILL.md").mkdir(parents=True)
    skill, [problem] = parse.read_skill(tmp_path / "pdf-tools")
    assert skill is None
    assert "is a directory" in problem.message


def test_large_skill_with_multibyte_text_at_the_read_limit_is_valid(tmp_path: Path) -> None:
    head = b"---\nname: pdf-tools\ndescription: d\n---\n"
    pad = b"a" * (parse.SKILL_READ_LIMIT - len(head) - 1)
    raw = head + pad + "é".encode() * 1000  # the limit falls inside the first 'é'
    skill, found = _skill(tmp_path, raw)
    assert found == []
    assert skill is not None


# --- manifests -------------------------------------------------------------------------------


def test_valid_manifest_is_read(tmp_path: Path) -> None:
    text = (
        '\ufeff{"name": "docs", "version": "1.0.0", "description": "d", "keywords": ["a"],'
        ' "author": {"name": "Jane", "email": "j@example.org"}, "license": "MIT"}'
    )
    data, problems = _manifest(tmp_path, text)
    assert problems == []
    assert data is not None and data["name"] == "docs"


def test_manifest_author_may_be_a_string(tmp_path: Path) -> None:
    data, problems = _manifest(tmp_path, '{"name": "docs", "author": "Jane"}')
    assert problems == []
    assert data is not None


def test_invalid_json_is_reported_at_its_line(tmp_path: Path) -> None:
    data, [problem] = _manifest(tmp_path, '{\n  "name": "docs"\n  "version": "1"\n}\n')
    assert data is None
    assert problem.line == 3
    assert problem.message.startswith("invalid JSON: ")


@pytest.mark.parametrize("text", ["[1, 2]", '"docs"', "null", "3"])
def test_manifest_that_is_not_an_object_is_an_error(tmp_path: Path, text: str) -> None:
    data, [problem] = _manifest(tmp_path, text)
    assert data is None
    assert problem.line == 1
    assert "must be a JSON object" in problem.message


@pytest.mark.parametrize("name", ["My_Plugin", "Docs", "docs--x", "-docs", "../docs", ""])
def test_manifest_name_must_be_kebab_case(tmp_path: Path, name: str) -> None:
    data, [problem] = _manifest(tmp_path, f'{{\n  "version": "1",\n  "name": "{name}"\n}}')
    assert data is None
    assert (problem.line, problem.field, problem.severity) == (3, "name", "error")


def test_manifest_without_name_is_an_error(tmp_path: Path) -> None:
    data, [problem] = _manifest(tmp_path, '{"version": "1"}')
    assert data is None
    assert problem.field == "name"
    assert "missing" in problem.message


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("name", "5"),
        ("version", "1"),
        ("description", '["d"]'),
        ("homepage", "null"),
        ("repository", '{"url": "x"}'),
        ("license", "true"),
        ("keywords", '"pdf"'),
        ("keywords", '["pdf", 2]'),
        ("author", "5"),
        ("author", '{"email": "j@example.org"}'),
    ],
)
def test_manifest_field_of_the_wrong_type_is_an_error_on_its_line(
    tmp_path: Path, key: str, value: str
) -> None:
    before = '  "name": "docs",\n' if key != "name" else ""
    text = f'{{\n{before}  "{key}": {value}\n}}\n'
    data, problems = _manifest(tmp_path, text)
    assert data is None
    assert [(p.line, p.field) for p in problems] == [(3 if before else 2, key)]


def test_manifest_name_line_is_the_top_level_key(tmp_path: Path) -> None:
    text = '{\n  "author": {"name": "Jane"},\n  "name": "My Plugin"\n}\n'
    data, [problem] = _manifest(tmp_path, text)
    assert (problem.line, problem.field) == (3, "name")


# --- the parse cache --------------------------------------------------------------------------


def test_the_parse_cache_gives_back_every_field_a_fresh_parse_gives(tmp_path: Path) -> None:
    from skilltool.cache import ParseCache

    agent_path = tmp_path / "agents/helper.md"
    agent_path.parent.mkdir()
    agent_path.write_text(
        GENERATED_AGENT.replace("color: blue\n", "color: blue\ncreated: 2026-01-31\n"),
        encoding="utf-8",
    )
    skill_dir = tmp_path / "skills/pdf-tools"
    skill_dir.mkdir(parents=True)
    (skill_dir / "SKILL.md").write_text(
        "---\nname: Pdf Tools\ndescription: Use: PDFs\nargument-hint: [file]\n---\n"
    )
    file = tmp_path / "cache/parsed.marshal"
    first = ParseCache(file)
    fresh = (first.read_agent(agent_path), first.read_skill(skill_dir))
    first.save()
    second = ParseCache(file)
    assert second.old  # read from the file, not parsed again
    cached = (second.read_agent(agent_path), second.read_skill(skill_dir))
    assert cached == fresh
    (agent, _), (skill, _) = cached
    assert agent is not None and agent.repaired and agent.fields["created"] == "2026-01-31"
    assert skill is not None and skill.repaired and skill.declared == "Pdf Tools"


# --- plugin.json: keys Claude Code ignores --------------------------------------------------


def test_a_manifest_key_claude_code_ignores_is_a_warning_and_the_plugin_still_loads(
    tmp_path: Path,
) -> None:
    text = json.dumps(
        {"name": "p", "outputStyles": "./styles/", "frobnicate": 1, "category": "dev"}, indent=1
    )
    data, problems = _manifest(tmp_path, text)
    assert data is not None and data["name"] == "p"
    said = {p.field: (p.line, p.severity, p.message) for p in problems}
    assert set(said) == {"frobnicate", "category"}  # outputStyles is Claude Code's own key
    assert said["frobnicate"][:2] == (4, "warning")
    assert "not a plugin.json field; Claude Code ignores it" in said["frobnicate"][2]
    assert "belongs in the plugin's marketplace entry" in said["category"][2]
