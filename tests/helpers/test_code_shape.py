"""The shape of the code in helpers/: no function over 50 lines (from its ``def`` line to its last
line, docstring, comments and blank lines included), so that each reads on one screen."""

import ast
from pathlib import Path

from tests import ROOT

MAX_FUNCTION_LINES = 50


def long_functions(folder: Path, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """``path:line name (N lines)`` for every function or method under ``folder`` over ``limit``."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > limit:
                    where = path.relative_to(folder.parent).as_posix()
                    found.append(f"{where}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_in_helpers_is_over_50_lines():
    assert long_functions(ROOT / "helpers") == []


def test_a_function_of_51_lines_is_found(tmp_path):
    folder = tmp_path / "helpers"
    (folder / "checks").mkdir(parents=True)
    body = "".join(f"    x{i} = {i}\n" for i in range(49))
    method_body = body.replace("    x", "        x")
    (folder / "checks" / "module.py").write_text(
        "def fits():\n"
        + body
        + "\n\nclass A:\n    def too_long(self):\n"
        + method_body
        + "        pass\n\n\ndef also_fits():\n    pass\n"
    )
    # fits: 1 + 49 lines; too_long: 1 + 49 + 1 = 51 lines
    assert long_functions(folder) == ["helpers/checks/module.py:54 too_long (51 lines)"]
