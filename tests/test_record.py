"""The value types' base: what code and the parse cache rely on of a named tuple."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import pytest

from skilltool.model import Problem, SearchEntry, Skill
from skilltool.record import NamedTuple


class Pair(NamedTuple):
    """A record made in a test, so its first instance is made here."""

    left: int
    right: str = "r"

    def both(self) -> str:
        return f"{self.left}{self.right}"


def test_a_record_is_built_and_read_as_a_named_tuple() -> None:
    pair = Pair(1)
    assert pair == (1, "r") and Pair(left=1, right="r") == pair
    assert (pair.left, pair.right, pair[1], pair.both()) == (1, "r", "r", "1r")
    left, right = pair
    assert (left, right) == (1, "r")
    assert repr(pair) == "Pair(left=1, right='r')"
    assert Pair._fields == ("left", "right") and Pair._field_defaults == {"right": "r"}
    assert pair._asdict() == {"left": 1, "right": "r"}
    assert Pair._make([2, "x"]) == Pair(2, "x")
    assert Pair.__doc__ == "A record made in a test, so its first instance is made here."
    assert isinstance(pair, tuple) and hash(pair) == hash((1, "r"))


def test_a_record_made_often_is_made_alike() -> None:
    made = [Pair(i, right=str(i)) for i in range(200)]  # past the first ones, a compiled __new__
    assert made[199] == (199, "199") and Pair(left=5) == (5, "r") and Pair(3, "x") == (3, "x")
    assert Pair.__new__.__qualname__ == "Pair.__new__"
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'wrong'"):
        Pair(1, wrong=2)  # type: ignore[call-arg]


def test_a_record_is_immutable_and_replaced_by_a_copy() -> None:
    pair = Pair(1)
    with pytest.raises(AttributeError):
        pair.left = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        pair.other = 2  # type: ignore[attr-defined]
    assert pair._replace(right="s") == Pair(1, "s") and pair == Pair(1)
    with pytest.raises(TypeError, match="unexpected field names: \\['wrong'\\]"):
        pair._replace(wrong=1)  # type: ignore[call-arg]


def test_a_record_refuses_what_a_named_tuple_refuses() -> None:
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'left'"):
        Pair()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Pair(1, "r", 3)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="Expected 2 arguments, got 1"):
        Pair._make([1])
    with pytest.raises(TypeError, match="fields with a default must come last"):

        class Bad(NamedTuple):
            first: int = 0
            second: int


def test_the_model_types_survive_copying_and_pickling() -> None:
    problem = Problem(Path("/p/SKILL.md"), "bad", "name", 3)
    assert pickle.loads(pickle.dumps(problem)) == problem
    assert copy.deepcopy(problem) == problem and str(problem) == "/p/SKILL.md:3: name: bad"
    entry = SearchEntry(Path("/p"), "user")
    assert entry.only == () and entry._replace(only=("a",)).only == ("a",)
    skill = Skill("a", Path("/p/a"), "d")
    match skill:
        case Skill(name, path):
            assert (name, path) == ("a", Path("/p/a"))
