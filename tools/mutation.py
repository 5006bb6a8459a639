"""Mutation testing of helpers/: change one operator or constant of a helper, run the tests that
reach it, see whether one fails (`make mutation`; CONTRIBUTING.md, "Mutation testing").

    python -m tools.mutation helpers/metrics.py --sample 40 --seed 1   a seeded sample
    python -m tools.mutation helpers/metrics.py                        every mutant of a module
    python -m tools.mutation helpers/metrics.py --survivors   only the last run's survivors again
    python -m tools.mutation                                           every module of helpers/
    python -m tools.mutation --report                   the table of the runs kept in .mutation/

A small runner on the standard library's ``ast`` and pytest, not mutmut or cosmic-ray: importing
TensorFlow takes seconds, so one interpreter per module imports TensorFlow, helpers and the tested
module once, then forks a child per mutant. The child compiles the mutated module, puts the
mutated function's code onto the live function object (``f.__code__ = ...``: every
``from helpers.x import f`` binding sees it), rebinds a mutated module-level constant or default
argument, and runs, with ``pytest.main``, the tests of the module that reached the mutated
function in a first, traced run (fastest first, ``-x``). A child that outlives its time limit is
killed and its mutant counted as killed by a timeout (reported apart). TensorFlow must not run
an operation in the parent: a forked child of a process whose eager context has started hangs
in its first operation, so the traced run happens in a child too.

Each module's latest run is kept in ``.mutation/results.json`` (git-ignored: a tool's output, not
the course's); a run prints its survivors, which you judge (CONTRIBUTING.md says how).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import fcntl
import gc
import importlib
import json
import os
import random
import re
import select
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / ".mutation" / "results.json"
PREIMPORT = (
    "numpy",
    "tensorflow",
    "tensorflow.python.autograph.impl.conversion",
    "matplotlib",
    "pytest",
)
MAX_NAMING = 8
RETRY_FACTOR = 4
# tests/conftest.py fails a test over 30 s; on a busy machine that would count slow tests as
# kills: the runner's own time limit (three times the traced time) stands in for it
NO_TEST_TIME_LIMIT = "1000000"
PYTEST_ARGS = ("-x", "-q", "-p", "no:cacheprovider", "-m", "not slow", "--no-header")

COMPARE_SWAP = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
BINOP_SWAP = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
}
SYMBOL = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.And: "and",
    ast.Or: "or",
}


@dataclass
class Mutant:
    """One change: the ``index``-th node of ``ast.walk`` over the module, changed by ``op``.
    ``scope`` is where it applies: ``def`` (the body of the function ``unit``, a qualified name),
    ``default`` (a default argument of ``unit``) or ``module`` (a module-level assignment)."""

    id: int
    index: int
    op: str
    line: int
    scope: str
    unit: str
    description: str


@dataclass
class Outcome:
    mutant: Mutant
    status: str  # killed, survived, timeout, uncovered (no test reaches it), error
    seconds: float
    tests: int = 0
    detail: str = ""


# ---------------------------------------------------------------------------------------------
# Finding the mutants


def _constant_mutation(node: ast.Constant):
    """(op, new value, description) for a constant, or None."""
    value = node.value
    if isinstance(value, bool):
        return "bool", (not value), f"{value} -> {not value}"
    if isinstance(value, int):
        return "number", value + 1, f"{value} -> {value + 1}"
    if isinstance(value, float):
        new = value * 2 if value else 1.0
        return "number", new, f"{value!r} -> {new!r}"
    if isinstance(value, str):
        new = "" if value else "XX"  # a message gone: wrapping it would still match=
        return "string", new, f"{_short(value)!r} -> {_short(new)!r}"
    return None


def _short(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _node_mutations(node: ast.AST, skip: set[int]):
    """(op, description) for each way this node can be changed."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in COMPARE_SWAP:
        old = type(node.ops[0])
        yield "compare", f"{SYMBOL[old]} -> {SYMBOL[COMPARE_SWAP[old]]}"
    elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in BINOP_SWAP:
        old = type(node.op)
        yield "arith", f"{SYMBOL[old]} -> {SYMBOL[BINOP_SWAP[old]]}"
    elif isinstance(node, ast.BoolOp):
        old, new = (ast.And, ast.Or) if isinstance(node.op, ast.And) else (ast.Or, ast.And)
        yield "boolop", f"{SYMBOL[old]} -> {SYMBOL[new]}"
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "not", "not x -> x"
    elif isinstance(node, ast.Constant) and id(node) not in skip:
        found = _constant_mutation(node)
        if found:
            yield found[0], found[2]
    elif (
        isinstance(node, ast.Return)
        and node.value is not None
        and not (isinstance(node.value, ast.Constant) and node.value.value is None)
    ):
        yield "return", "return x -> return None"
    elif isinstance(node, ast.Raise):
        yield "raise", "raise -> pass"


def _not_mutated(tree: ast.AST) -> set[int]:
    """ids of the constants left alone: docstrings, f-strings' pieces, and annotations."""
    skip = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            skip.add(id(body[0].value))
        if isinstance(node, ast.JoinedStr):
            skip.update(id(sub) for sub in ast.walk(node))
        for annotation in (getattr(node, "annotation", None), getattr(node, "returns", None)):
            if annotation is not None:
                skip.update(id(sub) for sub in ast.walk(annotation))
    return skip


def _units(tree: ast.Module):
    """(qualified name, def node) of each module-level function and each method."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield f"{node.name}.{item.name}", item


def find_mutants(source: str) -> list[Mutant]:
    """Every mutant of a module's source, in a fixed order (their ids)."""
    tree = ast.parse(source)
    index = {id(node): i for i, node in enumerate(ast.walk(tree))}
    skip = _not_mutated(tree)
    found: list[tuple] = []

    def add(nodes, scope, unit):
        for node in nodes:
            for op, description in _node_mutations(node, skip):
                found.append((index[id(node)], op, node.lineno, scope, unit, description))

    for unit, fn in _units(tree):
        for statement in fn.body:
            add(ast.walk(statement), "def", unit)
        defaults = [
            d
            for d in fn.args.defaults + fn.args.kw_defaults
            if isinstance(d, ast.Constant) and d.value is not None
        ]
        add(defaults, "default", unit)
    for statement in tree.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if all(isinstance(t, ast.Name) and t.id != "__all__" for t in targets):
                add(ast.walk(statement.value), "module", ast.unparse(targets[0]))
    found.sort(key=lambda f: (f[2], f[0], f[1]))
    return [Mutant(i, *f[:3], *f[3:]) for i, f in enumerate(found)]


# ---------------------------------------------------------------------------------------------
# Applying one


def _mutate_node(node: ast.AST, op: str):
    """The node that replaces ``node`` (itself, changed in place, or a new one)."""
    if op == "compare":
        node.ops = [COMPARE_SWAP[type(node.ops[0])]()]
    elif op == "arith":
        node.op = BINOP_SWAP[type(node.op)]()
    elif op == "boolop":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif op == "not":
        return node.operand
    elif op in ("bool", "number", "string"):
        node.value = _constant_mutation(node)[1]
    elif op == "return":
        node.value = ast.Constant(None)
    elif op == "raise":
        return ast.Pass()
    return node


def mutated_tree(source: str, mutant: Mutant) -> tuple[ast.Module, ast.AST]:
    """The module's tree with the mutant applied, and the node that replaced the original."""
    tree = ast.parse(source)
    nodes = list(ast.walk(tree))
    target = nodes[mutant.index]
    replacement = _mutate_node(target, mutant.op)
    if replacement is not target:
        for parent in nodes:
            for name, value in ast.iter_fields(parent):
                if value is target:
                    setattr(parent, name, replacement)
                elif isinstance(value, list) and any(v is target for v in value):
                    setattr(parent, name, [replacement if v is target else v for v in value])
        ast.copy_location(replacement, target)
    ast.fix_missing_locations(tree)
    return tree, replacement


def live_functions(module) -> dict[str, object]:
    """The module's functions and methods by qualified name, unwrapped from decorators."""
    found = {}
    filename = module.__file__

    def take(obj):
        for _ in range(10):  # down the chain of __wrapped__
            code = getattr(obj, "__code__", None)
            if code is not None and code.co_filename == filename:
                found.setdefault(code.co_qualname, obj)
            for inner in (
                getattr(obj, "__func__", None),
                getattr(obj, "fget", None),
                getattr(obj, "fset", None),
            ):
                if inner is not None:
                    take(inner)
            obj = getattr(obj, "__wrapped__", None)
            if obj is None:
                return

    for value in list(vars(module).values()):
        if isinstance(value, type) and value.__module__ == module.__name__:
            for member in list(vars(value).values()):
                take(member)
        else:
            take(value)
    return found


def _find_code(code, qualname: str, firstlineno: int):
    if code.co_qualname == qualname and code.co_firstlineno == firstlineno:
        return code
    for const in code.co_consts:
        if hasattr(const, "co_qualname"):
            hit = _find_code(const, qualname, firstlineno)
            if hit is not None:
                return hit
    return None


class NotApplicable(Exception):
    """The mutant has no live function to go into (a KeyError or IndexError raised while
    applying a mutant is the mutated module failing, as an import of it would)."""


def apply(module, source: str, mutant: Mutant) -> None:
    """Change the live module: raises when the mutant cannot be applied."""
    tree, replacement = mutated_tree(source, mutant)
    functions = live_functions(module)
    if mutant.scope == "module":
        statement = next(s for s in tree.body if s.lineno <= mutant.line <= s.end_lineno)
        for changed in _reassign(tree, statement, module, mutant.unit):
            _rebind_defaults(tree, module, functions, changed)
        return
    function = functions.get(mutant.unit)
    if function is None:
        raise NotApplicable(f"no live function {mutant.unit}")
    if mutant.scope == "default":
        value = eval(compile(ast.Expression(replacement), module.__file__, "eval"), vars(module))
        _set_default(function, tree, mutant, value)
        return
    code = compile(tree, module.__file__, "exec")
    new = _find_code(code, mutant.unit, function.__code__.co_firstlineno)
    if new is None:
        raise NotApplicable(f"no compiled code for {mutant.unit}")
    function.__code__ = new


def _reassign(tree: ast.Module, statement: ast.stmt, module, name: str) -> list[str]:
    """Execute the mutated assignment of ``name``, then every later module-level assignment
    whose value uses a name changed so far (``_FIXES = {..., DISK_NEEDED, ...}``), as an import
    would; the names changed."""
    changed = [name]
    for node in tree.body[tree.body.index(statement) :]:
        if node is not statement:
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                continue
            used = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
            if not used & set(changed):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            changed += [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        exec(compile(ast.Module([node], []), module.__file__, "exec"), vars(module))
    return changed


def _rebind_defaults(tree: ast.Module, module, functions: dict, name: str) -> None:
    """Re-evaluate the defaults that use the module constant ``NAME`` (``f(x=NAME)``,
    ``f(x=NAME["key"])``) in the mutated module, as an import would."""

    def uses(node) -> bool:
        return node is not None and any(
            isinstance(sub, ast.Name) and sub.id == name for sub in ast.walk(node)
        )

    def value(node):
        expression = ast.fix_missing_locations(ast.Expression(node))
        return eval(compile(expression, module.__file__, "eval"), vars(module))

    for unit, fn in _units(tree):
        function = functions.get(unit)
        if function is None:
            continue
        positional = fn.args.defaults
        if any(uses(d) for d in positional):
            function.__defaults__ = tuple(
                value(d) if uses(d) else current
                for d, current in zip(positional, function.__defaults__)
            )
        for arg, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults):
            if uses(d):
                function.__kwdefaults__ = {**function.__kwdefaults__, arg.arg: value(d)}


def _set_default(function, tree: ast.Module, mutant: Mutant, value) -> None:
    fn = dict(_units(tree))[mutant.unit]
    positional = fn.args.defaults
    nodes = list(ast.walk(tree))
    target = nodes[mutant.index]
    if any(d is target for d in positional):
        defaults = list(function.__defaults__)
        defaults[[i for i, d in enumerate(positional) if d is target][0]] = value
        function.__defaults__ = tuple(defaults)
    else:
        name = fn.args.kwonlyargs[
            [i for i, d in enumerate(fn.args.kw_defaults) if d is target][0]
        ].arg
        function.__kwdefaults__ = {**function.__kwdefaults__, name: value}


# ---------------------------------------------------------------------------------------------
# Running


def tests_of(module_path: str, root: Path = ROOT) -> list[str]:
    """The test files of a helpers module: tests/helpers/test_<name>.py or tests/helpers/<name>/
    (tests/helpers/checks/test_<name>.py for helpers/checks/), and every other test file of
    tests/helpers/ that imports it by name, unless more than ``MAX_NAMING`` do (problems,
    models, settings: most tests use them, their own tests test them). ``checks/common.py``, the
    checks' shared code, is tested through every test of the checks."""
    relative = Path(module_path).with_suffix("")
    name = relative.name
    dotted = ".".join(relative.parts)
    parent = relative.parent.name
    own = root / "tests" / relative.parent / f"test_{name}.py"
    folder = root / "tests" / relative
    files = {own} if own.exists() else set()
    if folder.is_dir():
        files.update(folder.rglob("test_*.py"))
    imports = re.compile(
        rf"(\b{re.escape(dotted)}\b|from {re.escape('.'.join(relative.parent.parts))} import "
        rf"[^\n]*\b{name}\b|from {re.escape(parent)} import [^\n]*\b{name}\b)"
    )
    if name == "common":  # checks/common.py: the shared code of the checks, tested through them
        files.update((root / "tests" / relative.parent).glob("test_*.py"))
    elif parent == "checks":  # test_blank_answers.py finds every checks module itself
        files.update((root / "tests" / relative.parent).glob("test_blank_answers.py"))
    naming = {
        candidate
        for candidate in (root / "tests" / "helpers").rglob("test_*.py")
        if imports.search(candidate.read_text())
    } - files
    if not files or len(naming) <= MAX_NAMING:
        files |= naming
    return sorted(str(f.relative_to(root)) for f in files)


class _Tracer:
    """A pytest plugin: which test reaches which function of the module, and how long each test
    takes."""

    def __init__(self, filename: str):
        self.filename = filename
        self.current = None
        self.phase = None
        self.reached: dict[str, set[str]] = {}
        self.in_setup: dict[str, set[str]] = {}  # reached while a fixture was set up
        self.seconds: dict[str, float] = {}
        self.failed: list[str] = []

    def _profile(self, frame, event, arg):
        if event == "call" and self.current and frame.f_code.co_filename == self.filename:
            unit = frame.f_code.co_qualname.split(".<locals>")[0]
            self.reached.setdefault(self.current, set()).add(unit)
            if self.phase == "setup":
                self.in_setup.setdefault(self.current, set()).add(unit)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item):
        self.phase = "setup"

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item):
        self.phase = "call"

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_teardown(self, item):
        self.phase = "teardown"

    def pytest_runtest_protocol(self, item):
        import threading

        self.current = item.nodeid
        self.reached.setdefault(item.nodeid, set())
        sys.setprofile(self._profile)
        threading.setprofile(self._profile)

    def pytest_runtest_logreport(self, report):
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration
        if report.failed:
            self.failed.append(report.nodeid)
        if report.when == "teardown":
            sys.setprofile(None)


def _in_child(function, timeout: float, quiet: bool = True):
    """Run ``function()`` in a forked child; (exit status or "timeout", its JSON answer)."""
    read, write = os.pipe()
    gc.freeze()  # the child's collections skip the parent's objects: no copy of their pages
    pid = os.fork()
    if pid == 0:  # the child
        status = 70
        try:
            os.close(read)
            os.setpgid(0, 0)
            if quiet:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                os.dup2(devnull, 2)
                sys.stdout = sys.stderr = open(os.devnull, "w")  # until os._exit
            status, answer = function()
            with os.fdopen(write, "w") as out:
                json.dump(answer, out)
        except BaseException as error:  # noqa: BLE001 (any failure is the child's status)
            try:
                os.write(write, json.dumps({"error": repr(error)}).encode())
            except OSError:
                pass
        finally:
            os._exit(int(status))
    os.close(write)
    chunks, deadline = [], time.monotonic() + timeout
    with os.fdopen(read, "rb") as pipe:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if select.select([pipe], [], [], 0.05)[0]:
                chunk = os.read(pipe.fileno(), 1 << 16)
                if chunk:
                    chunks.append(chunk)
            if done:
                chunks.append(pipe.read())
                break
            if time.monotonic() > deadline:
                _kill_group(pid)
                return "timeout", {}
    try:
        os.killpg(pid, signal.SIGKILL)  # what the tests left running
    except OSError:
        pass
    text = b"".join(chunks).decode() or "{}"
    return os.waitstatus_to_exitcode(status), json.loads(text)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    os.waitpid(pid, 0)


def _no_autograph_for(filename: str) -> None:
    """Let TensorFlow call the module's functions as they are, not AutoGraph's conversion of
    their source file (which would ignore a mutated ``__code__``, and which the tracer cannot
    see): its functions passed to ``Dataset.map`` or ``tf.function`` run unconverted."""
    conversion = sys.modules.get("tensorflow.python.autograph.impl.conversion")
    if conversion is None:
        return
    unsupported = conversion.is_unsupported

    def is_unsupported(entity):
        code = getattr(getattr(entity, "__func__", entity), "__code__", None)
        return (code is not None and code.co_filename == filename) or unsupported(entity)

    conversion.is_unsupported = is_unsupported


def trace(module, tests: list[str], root: Path = ROOT, timeout: float = 3600) -> _Tracer:
    """Run the module's tests once, in a child, tracing which test reaches which function."""

    tracer = _Tracer(module.__file__)

    def run():
        os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # 2 s a child (nbval, anyio: unused)
        os.environ["WORKBOOK_UNIT_SECONDS"] = NO_TEST_TIME_LIMIT
        os.chdir(root)
        _no_autograph_for(module.__file__)
        status = pytest.main([*tests, *PYTEST_ARGS[1:]], plugins=[tracer])
        return status, {
            "reached": {k: sorted(v) for k, v in tracer.reached.items()},
            "in_setup": {k: sorted(v) for k, v in tracer.in_setup.items()},
            "seconds": tracer.seconds,
            "failed": tracer.failed,
        }

    status, answer = _in_child(run, timeout)
    if status != 0 or "reached" not in answer:
        raise RuntimeError(
            f"the tests of {module.__name__} fail unmutated ({status}): "
            f"{answer.get('failed') or answer.get('error')}"
        )
    tracer.reached = {k: set(v) for k, v in answer["reached"].items()}
    tracer.in_setup = {k: set(v) for k, v in answer["in_setup"].items()}
    tracer.seconds = answer["seconds"]
    return tracer


def constant_users(source: str) -> dict[str, set[str]]:
    """Module constant -> the functions and methods (qualified names) that name it, directly or
    through another module-level assignment or a class body that does."""
    tree = ast.parse(source)

    def names(node) -> set[str]:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

    values: dict[str, set[str]] = {}
    for statement in tree.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                for name in names(target):
                    values[name] = names(statement.value)
    named = {unit: names(node) for unit, node in _units(tree)}
    for node in tree.body:  # a class attribute made from a constant: its methods use it
        if isinstance(node, ast.ClassDef):
            body = set().union(
                *(
                    names(item)
                    for item in node.body
                    if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                ),
                set(),
            )
            for unit in named:
                if unit.startswith(f"{node.name}."):
                    named[unit] |= body
    users = {}
    for constant in values:
        closure, todo = {constant}, [constant]
        while todo:
            current = todo.pop()
            for other, used in values.items():
                if current in used and other not in closure:
                    closure.add(other)
                    todo.append(other)
        users[constant] = {unit for unit, used in named.items() if used & closure}
    return users


def selection(
    mutant: Mutant, tracer: _Tracer, users: dict[str, set[str]] | None = None, root: Path = ROOT
) -> list[str]:
    """The tests a mutant is run against, fastest first: those that reached its function; for a
    module constant, those that reached a function using it (``users``) and every test of a
    file that names it, or every test when neither finds one."""
    if mutant.scope == "module":
        units = (users or {}).get(mutant.unit, set())
        chosen = _reaching(units, tracer)
        naming = {t.split("::")[0] for t in tracer.reached}
        naming = {f for f in naming if mutant.unit in (root / f).read_text(encoding="utf-8")}
        chosen += [t for t in tracer.reached if t.split("::")[0] in naming and t not in chosen]
        if not chosen:
            chosen = list(tracer.reached)
    else:
        chosen = _reaching({mutant.unit}, tracer)
    return sorted(chosen, key=lambda t: tracer.seconds.get(t, 0.0))


def _reaching(units: set[str], tracer: _Tracer) -> list[str]:
    chosen = [t for t, reached in tracer.reached.items() if units & set(reached)]
    # reached while a module- or session-wide fixture was set up: what it made is used by every
    # test of that file after it, so they all run
    files = {t.split("::")[0] for t, reached in tracer.in_setup.items() if units & set(reached)}
    return chosen + [t for t in tracer.reached if t.split("::")[0] in files and t not in chosen]


def run_mutant(
    module,
    source: str,
    mutant: Mutant,
    tracer: _Tracer,
    root: Path = ROOT,
    min_timeout: float = 20.0,
) -> Outcome:
    """Run one mutant's tests in a child: its time limit is three times what they took in the
    traced run, plus ``min_timeout`` seconds; a mutant over it is tried again with a limit
    ``RETRY_FACTOR`` times as long (the machine may have got busier since the traced run) and
    counted as a timeout only when it is over that one too."""

    tests = selection(mutant, tracer, constant_users(source), root)
    if not tests:
        return Outcome(mutant, "uncovered", 0.0)
    budget = sum(tracer.seconds.get(t, 0.0) for t in tests)
    timeout = 3 * budget + min_timeout

    def run():
        os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        os.environ["WORKBOOK_UNIT_SECONDS"] = NO_TEST_TIME_LIMIT
        os.chdir(root)  # the node ids are relative to it
        _no_autograph_for(module.__file__)
        try:
            apply(module, source, mutant)
        except NotApplicable as error:
            return 71, {"error": repr(error)}
        except Exception as error:  # noqa: BLE001 (a mutant that cannot be applied)
            if mutant.scope != "def":  # a constant or default that raises: no import
                return 72, {"error": repr(error)}
            return 71, {"error": repr(error)}
        return pytest.main([*tests, *PYTEST_ARGS]), {}

    start = time.monotonic()
    status, answer = _in_child(run, timeout)
    if status == "timeout":  # a busy machine, or a loop: a second try, RETRY_FACTOR as long
        status, answer = _in_child(run, RETRY_FACTOR * timeout)
    seconds = time.monotonic() - start
    if status == "timeout":
        return Outcome(
            mutant,
            "timeout",
            seconds,
            len(tests),
            f"over {timeout:.0f} s, then over {RETRY_FACTOR * timeout:.0f} s",
        )
    if status == 0:
        return Outcome(mutant, "survived", seconds, len(tests))
    if status == 1:
        return Outcome(mutant, "killed", seconds, len(tests))
    if status == 72:  # the module would not even import
        return Outcome(mutant, "killed", seconds, len(tests), f"import fails: {answer['error']}")
    return Outcome(mutant, "error", seconds, len(tests), f"{status} {answer.get('error', '')}")


def import_module_of(path: str, root: Path = ROOT):
    dotted = ".".join(Path(path).with_suffix("").parts)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    module = importlib.import_module(dotted)
    if not Path(module.__file__).resolve().is_relative_to(root.resolve()):
        raise ImportError(f"{dotted} was imported from {module.__file__}, not from {root}")
    return module


def eager_started() -> bool:
    """Whether TensorFlow's eager context has started in this process (then forks hang)."""
    context = sys.modules.get("tensorflow.python.eager.context")
    return bool(context and context.context()._context_handle is not None)


def measure(
    path: str,
    tests: list[str] | None = None,
    sample: int | None = None,
    seed: int = 1,
    root: Path = ROOT,
    preimport=PREIMPORT,
    min_timeout: float = 20.0,
    log=print,
    previous: dict | None = None,
) -> dict:
    """Measure one module; the run as a dict (results file entry). With ``previous`` (a run of
    the module), run only its survivors and keep its other outcomes."""
    start = time.monotonic()
    for name in preimport:
        importlib.import_module(name)
    module = import_module_of(path, root)
    if "tensorflow" in preimport and eager_started():  # (a module without TensorFlow forks well)
        raise RuntimeError("TensorFlow ran an operation in the runner's process: forks would hang")
    tests = tests if tests is not None else tests_of(path, root)
    source = Path(module.__file__).read_text()
    mutants = find_mutants(source)
    chosen = mutants
    if previous is not None:
        chosen = _previous_survivors(previous, mutants)
    elif sample and sample < len(mutants):
        chosen = sorted(random.Random(seed).sample(mutants, sample), key=lambda m: m.id)
    log(f"{path}: {len(mutants)} mutants, running {len(chosen)}; tests: {' '.join(tests)}")
    traced = time.monotonic()
    tracer = trace(module, tests, root)
    log(f"  traced run: {time.monotonic() - traced:.1f} s, {len(tracer.reached)} tests")
    outcomes = []
    guard = DataGuard(root)
    for number, mutant in enumerate(chosen, 1):
        outcome = run_mutant(module, source, mutant, tracer, root, min_timeout)
        restored = guard.restore()
        if restored:
            outcome.detail = f"{outcome.detail} (it changed data/: {', '.join(restored)} put back)"
        outcomes.append(outcome)
        log(
            f"  [{number}/{len(chosen)}] #{mutant.id} line {mutant.line} {mutant.unit}: "
            f"{mutant.description} -> {outcome.status} ({outcome.seconds:.1f} s, "
            f"{outcome.tests} tests) {outcome.detail}"
        )
    guard.close()
    if previous is not None:
        return rerun_summary(previous, outcomes, time.monotonic() - start)
    return summary(path, tests, mutants, chosen, outcomes, sample, seed, time.monotonic() - start)


class DataGuard:
    """A copy of the project's dataset cache (``data/``), put back after a mutant that removed or
    changed one of its files: a mutant of helpers/data.py can delete it (a clean-up rule that
    matches every file), and every later mutant would then fail for want of the data, not
    for its own change."""

    def __init__(self, root: Path):
        self.folder = root / "data"
        self.backup = Path(tempfile.mkdtemp(prefix="mutation-data-"))
        self.files = {}
        if self.folder.is_dir():
            shutil.copytree(self.folder, self.backup, dirs_exist_ok=True)
            self.files = self._state()

    def _state(self) -> dict[Path, tuple[int, int]]:
        state = {}
        for path in self.folder.rglob("*"):
            with contextlib.suppress(OSError):
                if path.is_file():
                    stat = path.stat()
                    state[path.relative_to(self.folder)] = (stat.st_size, stat.st_mtime_ns)
        return state

    def restore(self) -> list[str]:
        """Put back what changed; the files put back, as data/... paths."""
        if not self.files:
            return []
        now = self._state()
        changed = [name for name, state in self.files.items() if now.get(name) != state]
        for name in changed:
            (self.folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(self.backup / name, self.folder / name)
        return [f"data/{name}" for name in changed]

    def close(self) -> None:
        shutil.rmtree(self.backup, ignore_errors=True)


def _previous_survivors(previous: dict, mutants: list[Mutant]) -> list[Mutant]:
    """The mutants that survived ``previous`` or timed out in it; refuses when the module has
    changed since."""
    by_id = {m.id: m for m in mutants}
    chosen = []
    for entry in previous["survivors"] + previous.get("timeouts", []):
        mutant = by_id.get(entry["id"])
        if (
            mutant is None
            or (mutant.line, mutant.unit, mutant.description)
            != (entry["line"], entry["unit"], entry["description"])
            or len(mutants) != previous["mutants"]
        ):
            raise SystemExit(
                f"{previous['module']} has changed since its latest run: run it "
                "again in full, without --survivors"
            )
        chosen.append(mutant)
    return chosen


def _outcomes(outcomes: list[Outcome]) -> dict:
    """The counts of each status, and the mutants that survived or timed out."""
    return {
        **{
            s: sum(o.status == s for o in outcomes)
            for s in ("killed", "survived", "uncovered", "timeout", "error")
        },
        "survivors": [
            {**asdict(o.mutant), "status": o.status, "detail": o.detail}
            for o in outcomes
            if o.status in ("survived", "uncovered", "error")
        ],
        "timeouts": [
            {**asdict(o.mutant), "detail": o.detail} for o in outcomes if o.status == "timeout"
        ],
    }


def _scored(run: dict) -> dict:
    """``run`` with its score: (killed + timeouts) / (mutants run - errors), in %."""
    valid = run["run"] - run["error"]
    run["score"] = round(100 * (run["killed"] + run["timeout"]) / valid, 1) if valid else None
    return run


def rerun_summary(previous: dict, outcomes: list[Outcome], seconds: float) -> dict:
    """``previous`` with its survivors' new outcomes: a mutant it counted as killed stays killed
    (the tests that killed it are still there)."""
    new = _outcomes(outcomes)
    # the previous timeouts were run again: only the ones listed (older runs did not list them)
    kept_timeouts = previous["timeout"] - len(previous.get("timeouts", []))
    return _scored(
        {
            **previous,
            **new,
            "killed": previous["killed"] + new["killed"],
            "timeout": kept_timeouts + new["timeout"],
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "rerun": {
                "of": previous["date"],
                "mutants": len(outcomes),
                "seconds": round(seconds, 1),
            },
        }
    )


def summary(path, tests, mutants, chosen, outcomes, sample, seed, seconds) -> dict:
    sampled = len(chosen) < len(mutants)
    return _scored(
        {
            "module": path,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "mode": "sample" if sampled else "full",
            "seed": seed if sampled else None,
            "mutants": len(mutants),
            "run": len(chosen),
            "seconds": round(seconds, 1),
            "tests": tests,
            **_outcomes(outcomes),
        }
    )


# ---------------------------------------------------------------------------------------------
# The runs kept, and what is printed


def save(run: dict, results: Path = RESULTS) -> None:
    """Keep ``run`` as its module's latest run, under a lock: modules can run side by side."""
    results.parent.mkdir(parents=True, exist_ok=True)
    results.touch()
    with open(results, "r+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        text = handle.read()
        data = json.loads(text) if text.strip() else {}
        data[run["module"]] = run
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps(data, indent=1) + "\n")


def load(results: Path = RESULTS) -> dict[str, dict]:
    """Module path -> its latest run."""
    text = results.read_text(encoding="utf-8") if results.exists() else ""
    return json.loads(text) if text.strip() else {}


def modules(root: Path = ROOT) -> list[str]:
    """Every module of helpers/ that has code to mutate."""
    found = []
    for path in sorted((root / "helpers").rglob("*.py")):
        if find_mutants(path.read_text()):
            found.append(str(path.relative_to(root)))
    return found


def table(results: Path = RESULTS, root: Path = ROOT) -> str:
    """Markdown: each module's latest run kept in ``results``, or "not measured"."""
    measured = load(results)
    lines = [
        "| module | mode | mutants run | killed | timeouts | survived (reached by no test) "
        "| score | wall time |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for path in modules(root):
        run = measured.get(path)
        if run is None:
            lines.append(f"| `{path}` | not measured | | | | | | |")
            continue
        mode = "full" if run["mode"] == "full" else f"sample of {run['run']} (seed {run['seed']})"
        score = "" if run["score"] is None else f"{run['score']:g} %"
        lines.append(
            f"| `{path}` | {mode} | {run['run']} of {run['mutants']} | {run['killed']} | "
            f"{run['timeout']} | {run['survived'] + run['uncovered']} ({run['uncovered']}) | "
            f"{score} | {_minutes(run['seconds'])} |"
        )
    return "\n".join(lines)


def survivors(run: dict) -> str:
    """One line per mutant the run left alive, in the module's order, to judge by reading."""
    return "".join(
        f"  line {m['line']} `{m['unit']}`: {m['description']} ({m['status']}) {m['detail']}\n"
        for m in sorted(run["survivors"], key=lambda m: (m["line"], m["id"]))
    )


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="helpers/x.py (default: every module)")
    parser.add_argument("--sample", type=int, help="run this many mutants, chosen at random")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--report", action="store_true", help="print the table of the kept runs, and stop"
    )
    parser.add_argument(
        "--survivors",
        action="store_true",
        help="run only the survivors of the module's latest run, keep the rest",
    )
    args = parser.parse_args(argv)
    if args.report:
        print(table())
        return 0
    os.environ.setdefault("WORKBOOK_FAST", "1")
    os.chdir(ROOT)
    paths = args.modules or modules()
    for path in paths:
        # each module in its own interpreter when several are asked for: no mutant of one
        # module sees another module's tests imported
        if len(paths) > 1:
            command = [sys.executable, "-m", "tools.mutation", path, "--seed", str(args.seed)]
            command += ["--sample", str(args.sample)] if args.sample else []
            command += ["--survivors"] if args.survivors else []
            status = os.spawnv(os.P_WAIT, sys.executable, command)
            if status:
                print(f"{path}: the runner failed ({status})", file=sys.stderr)
            continue
        previous = load().get(path) if args.survivors else None
        if args.survivors and previous is None:
            raise SystemExit(f"{path} has no run yet to take the survivors of: run it in full")
        run = measure(path, sample=args.sample, seed=args.seed, previous=previous)
        save(run)
        print(
            f"{path}: {run['killed']} killed, {run['timeout']} timeouts, {run['survived']} "
            f"survived, {run['uncovered']} reached by no test, {run['error']} errors of "
            f"{run['run']}: score {run['score']} % in {_minutes(run['seconds'])}; "
            f"survivors:\n{survivors(run) or '  none'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
