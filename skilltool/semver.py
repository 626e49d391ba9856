"""Versions and version ranges as npm's `semver` reads them, which Claude Code uses for a
plugin's `dependencies` (`^2.0`, `~2.1.0`, `>=1.4 <2`, `1.2 - 1.4`, `1.x || 2.x`): a
range excludes a prerelease unless one of its comparators names a prerelease of the same
`major.minor.patch`."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

VERSION = re.compile(
    r"\s*[v=]?\s*(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?\s*"
)
PARTIAL = re.compile(
    r"[v=]?(\*|[xX]|\d+)(?:\.(\*|[xX]|\d+)(?:\.(\*|[xX]|\d+)(?:-([0-9A-Za-z.-]+))?"
    r"(?:\+[0-9A-Za-z.-]+)?)?)?"
)
COMPARATOR = re.compile(r"(<=|>=|<|>|=|\^|~>?)?\s*(\S+)")

Pre = tuple[tuple[int, int | str], ...]
Version = tuple[int, int, int, Pre]  # a release sorts after its prereleases (see `_key`)
Comparator = tuple[str, Version]  # an operator of <, <=, >, >=, = and a version


def parse(text: str) -> Version | None:
    """A full version (`1.2.3`, `v1.2.3-beta.1+build`), or None."""
    found = VERSION.fullmatch(text)
    if found is None:
        return None
    major, minor, patch, pre = found.groups()
    return int(major), int(minor), int(patch), _pre(pre)


def _pre(text: str | None) -> Pre:
    if not text:
        return ()
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in text.split("."))


def _key(version: Version) -> tuple[int, int, int, int, Pre]:
    major, minor, patch, pre = version
    return major, minor, patch, 0 if pre else 1, pre


ZERO: Pre = ((0, 0),)  # `-0`: the lowest prerelease, so that `<2.0.0-0` excludes 2.0.0's


def _bound(parts: Sequence[int]) -> Version:
    return parts[0], parts[1], parts[2], ZERO


def _set(text: str) -> list[Comparator] | None:
    """One set of comparators (a range between `||`), or None when it does not parse."""
    text = text.strip()
    hyphen = re.fullmatch(r"(\S+)\s+-\s+(\S+)", text)
    if hyphen:
        low, high = _partial(hyphen[1]), _partial(hyphen[2])
        if low is None or high is None:
            return None
        return [(">=", _floor(low)), *_upper(high, inclusive=True)]
    if text in ("", "*", "x", "X"):
        return []
    found: list[Comparator] = []
    words = re.sub(r"(<=|>=|<|>|=|\^|~>?)\s+", r"\1", text).split()
    for word in words:
        match = COMPARATOR.fullmatch(word)
        if match is None:
            return None
        made = _comparator(match[1] or "", match[2])
        if made is None:
            return None
        found += made
    return found


Partial = tuple[int | None, int | None, int | None, Pre]


def _partial(text: str) -> Partial | None:
    found = PARTIAL.fullmatch(text)
    if found is None:
        return None
    numbers: list[int | None] = []
    for part in found.groups()[:3]:
        numbers.append(None if part is None or part in "*xX" else int(part))
    for index in (1, 2):  # nothing after a wildcard
        if numbers[index - 1] is None:
            numbers[index] = None
    return numbers[0], numbers[1], numbers[2], _pre(found[4])


def _floor(version: Partial) -> Version:
    major, minor, patch, pre = version
    return major or 0, minor or 0, patch or 0, pre if patch is not None else ()


def _upper(version: Partial, inclusive: bool) -> list[Comparator]:
    """The comparator below (or at, `inclusive`) the top of a partial version."""
    major, minor, patch, pre = version
    if major is None:
        return []
    if minor is None:
        return [("<", _bound((major + 1, 0, 0)))]
    if patch is None:
        return [("<", _bound((major, minor + 1, 0)))]
    return [("<=" if inclusive else "<", (major, minor, patch, pre))]


def _comparator(operator: str, text: str) -> list[Comparator] | None:
    version = _partial(text)
    if version is None:
        return None
    major, minor, patch, _ = version
    low = _floor(version)
    if operator in ("", "="):
        if major is None:
            return []
        if patch is None:  # an x-range: 1.x, 1.2
            return [(">=", low), *_upper(version, inclusive=False)]
        return [("=", low)]
    if operator.startswith("~"):
        if major is None:
            return []
        top = (major + 1, 0, 0) if minor is None else (major, minor + 1, 0)
        return [(">=", low), ("<", _bound(top))]
    if operator == "^":
        if major is None:
            return []
        if major > 0 or minor is None:
            top = (major + 1, 0, 0)
        elif minor > 0 or patch is None:
            top = (0, minor + 1, 0)
        else:
            top = (0, 0, patch + 1)
        return [(">=", low), ("<", _bound(top))]
    if major is None:  # `>*` and `<*` match nothing; `>=*` and `<=*` everything
        return [("<", (0, 0, 0, ZERO))] if operator in (">", "<") else []
    if operator == ">":
        if patch is not None:
            return [(">", low)]
        top = (major + 1, 0, 0) if minor is None else (major, minor + 1, 0)
        return [(">=", (*top, ()))]
    if operator == "<=":
        return _upper(version, inclusive=True) if patch is not None else _upper(version, False)
    if operator == "<":
        return [("<", low if patch is not None else (*low[:3], ZERO))]
    return [(">=", low)]  # >=


def _holds(comparator: Comparator, version: Version) -> bool:
    operator, bound = comparator
    have, want = _key(version), _key(bound)
    return {
        "<": have < want,
        "<=": have <= want,
        ">": have > want,
        ">=": have >= want,
        "=": have == want,
    }[operator]


def valid_range(text: str) -> bool:
    return all(_set(part) is not None for part in text.split("||"))


def satisfies(version: Version, text: str) -> bool:
    """Whether a version is in a range (npm's rules); False for a range that does not parse."""
    for part in text.split("||"):
        comparators = _set(part)
        if comparators is None:
            return False
        if not all(_holds(c, version) for c in comparators):
            continue
        if not version[3]:
            return True
        # a prerelease only where a comparator names one of the same major.minor.patch
        if any(c[1][3] and c[1][:3] == version[:3] for c in comparators):
            return True
    return False


def highest(versions: Iterable[tuple[Version, str]], text: str) -> tuple[Version, str] | None:
    """The highest of `versions` (each with what it stands for, a tag) in the range."""
    found = [v for v in versions if satisfies(v[0], text)]
    return max(found, key=lambda v: _key(v[0])) if found else None
