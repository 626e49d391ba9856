"""Claude Code's argument placeholders in a slash command's body (`$ARGUMENTS`,
`$ARGUMENTS[N]`, `$N`), found and spelled again: what each harness module makes its
translation of a command from (SPEC §10)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from skilltool.record import NamedTuple

# Claude Code 2.1.332: `$ARGUMENTS[N]` and `$N` are word N counted from 0, `$ARGUMENTS` all;
# a `$N` with no word N (fewer words typed) it leaves as written
PLACEHOLDER = r"\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$(\d+)(?!\w)"
# `$150`, `$4,050`, `$3.50`: an amount, which Claude Code leaves as written (it never gets
# that many words); OpenCode, Kilo and pi would put an argument or nothing in its place
AMOUNT = r"\$(?:\d{2,}|\d(?=[.,]\d))(?![\w])"
# what a harness whose placeholders are 1-based words does with a word not typed
MISSING = "a missing argument nothing (Claude Code leaves that $N as written)"


class Translation(NamedTuple):
    """A command's body in one harness's syntax, or why it cannot be said there."""

    body: str | None  # None: the harness cannot express it; `why` says so
    why: str = ""  # skipped: why; rendered: what the harness does differently, a verb first


def used(body: str) -> tuple[bool, dict[str, int]]:
    """Whether the body takes all the arguments, and each positional placeholder it uses
    with the word it stands for (counted from 0, as Claude Code counts), in the order they
    first appear in the body."""
    every, positional = False, dict[str, int]()
    for match in re.finditer(PLACEHOLDER, body):
        index = match.group(1) or match.group(2)
        if index is None:
            every = True
        elif not re.compile(AMOUNT).match(body, match.start()):
            positional.setdefault(match.group(), int(index))
    return every, positional


def _shifted(match: re.Match[str]) -> str:
    index = match.group(1) or match.group(2)
    return match.group() if index is None else f"${int(index) + 1}"


def counted_from_one(body: str) -> str:
    """Claude Code's word N (from 0) as `$N+1`, the other harnesses' word N (from 1)."""
    return re.sub(PLACEHOLDER, _shifted, body)


def active(body: str, pattern: str) -> Translation | None:
    """A refusal when the body holds what the harness itself would run or replace."""
    found = re.search(pattern, body)
    if found is None:
        return None
    return Translation(
        None,
        f"its body holds {found.group()!r}, which it would run or replace (a shell command, "
        "a file or the arguments); write it another way to have the command here",
    )


def amount(body: str) -> Translation | None:
    """A refusal when the body holds an amount (`$150`), which a harness that counts words
    from 1 would replace with an argument or with nothing."""
    found = re.search(AMOUNT, body)
    if found is None:
        return None
    return Translation(
        None,
        f"its body holds {found.group()!r}, an amount it seems, which Claude Code leaves as "
        "written and this harness would replace with an argument or with nothing; write it "
        f"another way (e.g. 'USD {found.group()[1:]}') to have the command here",
    )


def listed(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
