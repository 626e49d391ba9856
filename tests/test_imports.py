"""The package's imports run one way: read from the source, every `import` counted (those
inside functions too), so that a module can be understood, and tested, from the ones below it."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import REPO

PACKAGE = REPO / "skilltool"


def modules() -> dict[str, Path]:
    found = {}
    for file in PACKAGE.rglob("*.py"):
        parts = file.relative_to(REPO).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = file
    return found


def _named(node: ast.Import | ast.ImportFrom, here: str, known: dict[str, Path]) -> set[str]:
    """The modules of the package an import statement needs (the longest known prefix of each
    name: `from skilltool.entries import toml` needs the package and its module `toml`)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = here.split(".")
            if known[here].name != "__init__.py":
                package = package[:-1]
            package = package[: len(package) - node.level + 1]
            base = ".".join([*package, base] if base else package)
        names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
    needed = set()
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != here:
            needed.add(name)
    return needed


def graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Each module -> the modules it imports when it runs, and those it imports only for the
    type checker (`if TYPE_CHECKING:`)."""
    known = modules()
    running: dict[str, set[str]] = {m: set() for m in known}
    typing: dict[str, set[str]] = {m: set() for m in known}
    for name, file in known.items():
        tree = ast.parse(file.read_text())
        checked = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for statement in node.body
            for inner in ast.walk(statement)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                into = typing if id(node) in checked else running
                into[name] |= _named(node, name, known)
    return running, typing


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or not (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(edges[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    return found


def test_no_module_imports_one_that_imports_it_back() -> None:
    running, _ = graph()
    assert circles(running) == []


def test_the_imports_for_the_type_checker_run_the_same_way() -> None:
    running, typing = graph()
    both = {m: running[m] | typing[m] for m in running}
    assert circles(both) == []


def test_the_graph_sees_a_circle_where_there_is_one() -> None:
    """The check above is only as good as its reading of the imports: made to fail here."""
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    running, _ = graph()
    assert "skilltool.model" in running["skilltool.harnesses"]
    assert "skilltool.commands.install" in running["skilltool.cli.install"]  # a function-local one


def test_no_module_is_named_by_how_often_it_runs() -> None:
    words = ("_more", "_hot", "_cold", "_fast", "_slow", "_rare", "_extra", "_misc", "util")
    named = [m for m in modules() if any(w in m.rpartition(".")[2] for w in words)]
    assert named == []
