"""The shape of the code in helpers/: no function over 40 statements, so that each reads on one
screen. Statements, not lines, are counted (Python's own parse of the code): a message written
out as a whole sentence, or a call that ``ruff format`` spreads over several lines, is one
statement, so no line is ever saved by cramming."""

import ast
from pathlib import Path

from tests import ROOT

MAX_STATEMENTS = 40


def statements(function: ast.AST) -> int:
    """The statements inside ``function`` (nested ones included), not counting its ``def``."""
    return sum(1 for node in ast.walk(function) if isinstance(node, ast.stmt)) - 1


def long_functions(folder: Path, limit: int = MAX_STATEMENTS) -> list[str]:
    """``path:line name (N statements)`` for every function or method under ``folder`` over
    ``limit``."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                count = statements(node)
                if count > limit:
                    where = path.relative_to(folder.parent).as_posix()
                    found.append(f"{where}:{node.lineno} {node.name} ({count} statements)")
    return found


def test_no_function_in_helpers_is_over_40_statements():
    assert long_functions(ROOT / "helpers") == []


def test_a_function_of_41_statements_is_found_however_it_is_laid_out(tmp_path):
    folder = tmp_path / "helpers"
    (folder / "checks").mkdir(parents=True)
    body = "".join(f"    x{i} = {i}\n" for i in range(40))
    method_body = body.replace("    x", "        x")
    long_message = (
        '    raise ValueError(\n        "a whole sentence "\n        "over lines"\n    )\n'
    )
    (folder / "checks" / "module.py").write_text(
        "def fits():\n"
        + body
        + long_message * 5
        + "\n\nclass A:\n    def too_long(self):\n"
        + method_body
        + "        pass\n\n\ndef also_fits():\n    pass\n"
    )
    # fits: 40 assignments + 5 raises over 20 lines = 45 statements; too_long: 40 + 1
    found = long_functions(folder)
    assert [line.split(" ", 1)[1] for line in found] == [
        "fits (45 statements)",
        "too_long (41 statements)",
    ]
    assert long_functions(folder, limit=45) == []
