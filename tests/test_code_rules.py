"""The code stays carryable: short functions, no asserts, imports at the top unless laziness is explained.

An AST walk over the package's sources (app/ and widgets/): these are the project's rules, and this
test keeps them from eroding.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
FOLDERS = ("app", "widgets")
MAX_FUNCTION_LINES = 80


def sources() -> Iterator[tuple[str, list[str], ast.Module]]:
    """Each source file of the package: its name, lines and syntax tree."""
    for folder in FOLDERS:
        for path in sorted((PROJECT / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            yield path.relative_to(PROJECT).as_posix(), text.splitlines(), ast.parse(text)


def functions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function and method of a module, nested ones too."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def test_no_function_is_longer_than_80_lines():
    long = [
        f"{name}:{fn.lineno} {fn.name} ({(fn.end_lineno or fn.lineno) - fn.lineno + 1} lines)"
        for name, _lines, tree in sources()
        for fn in functions(tree)
        if (fn.end_lineno or fn.lineno) - fn.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == []


def test_no_assert_statements_in_the_app():
    """Invariants are real error paths: `python -O` removes asserts."""
    found = [
        f"{name}:{node.lineno}"
        for name, _lines, tree in sources()
        for node in ast.walk(tree)
        if isinstance(node, ast.Assert)
    ]
    assert found == []


def test_imports_inside_functions_say_why_they_are_lazy():
    """An import belongs at the top of its module; one inside a function carries the reason (the time it
    saves, or the platform it needs) as a comment on its line or the line above."""
    bare = []
    for name, lines, tree in sources():
        for fn in functions(tree):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    here, above = lines[node.lineno - 1], lines[node.lineno - 2]
                    if "#" not in here and not above.strip().startswith("#"):
                        bare.append(f"{name}:{node.lineno}: {here.strip()}")
    assert bare == []
