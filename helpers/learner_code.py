"""Which line of an error is the learner's, and what the error says, for one-line messages (the
model_fn checker's findings and the exercise checks' failures).

``learner_line(error)`` is the innermost line of the learner's code an error came from: where
TensorFlow built the failing op, else the error's traceback, else the frames TensorFlow lists in
its message. ``where(line)`` names it; ``error_text(error)`` is the error's type and the one line
of its message that says what went wrong.
"""

from __future__ import annotations

import linecache
import os
import re
import sys
import sysconfig
import traceback
from pathlib import Path
from types import FrameType
from typing import NamedTuple

from .language import _, current
from .paths import PROJECT_ROOT

# Code that is not the learner's: the helpers package, and Python's and the environment's libraries.
_LIBRARIES = tuple(
    sorted(
        {
            os.path.realpath(path) + os.sep
            for path in (
                os.path.dirname(os.path.abspath(__file__)),
                sys.prefix,
                sys.base_prefix,
                sys.exec_prefix,
                *(
                    sysconfig.get_paths().get(key)
                    for key in ("stdlib", "platstdlib", "purelib", "platlib")
                ),
            )
            if path
        }
    )
)
_LONGEST_LINE = 80  # characters of the learner's line quoted in a message
_LONGEST_TEXT = 200  # characters of an error's message quoted in a message


class Line(NamedTuple):
    """One line of code an error came through: its file, line number, function and (for a
    traceback's frame) the frame, whose names a message may look up."""

    filename: str
    lineno: int
    function: str
    frame: FrameType | None = None

    @property
    def source(self) -> str:
        return linecache.getline(self.filename, self.lineno).strip()

    @property
    def namespace(self) -> dict:
        """The frame's globals and locals (empty for a line of an op's creation stack)."""
        return {**self.frame.f_globals, **self.frame.f_locals} if self.frame else {}


def is_learners(filename: str) -> bool:
    """Whether code from ``filename`` is the learner's: a notebook cell, or a file outside the
    helpers and the installed libraries (a test's answers, a learner's own module)."""
    if filename.startswith("<"):  # IPython's cells without ipykernel's file names
        return filename.startswith("<ipython-input-")
    if "__autograph_generated" in filename or re.search(
        r"[\\/](site|dist)-packages[\\/]", filename
    ):
        return False  # AutoGraph's copies; a library installed elsewhere (the user's site)
    return not (os.path.realpath(filename) + os.sep).startswith(_LIBRARIES)


def learner_line(error: BaseException, not_learners=()) -> Line | None:
    """The innermost line of the learner's code ``error`` came from, or None: where the failing
    op was built (an error TensorFlow raised running a graph), else the error's traceback (and a
    ``SyntaxError``'s own line), else the frames TensorFlow's message lists. Frames of the code
    objects in ``not_learners`` (a check's own) are not the learner's, wherever they are.
    """
    traced = [
        Line(frame.f_code.co_filename, lineno, frame.f_code.co_name, frame)
        for frame, lineno in traceback.walk_tb(error.__traceback__)
        if frame.f_code not in not_learners
    ]
    if isinstance(error, SyntaxError) and error.filename and error.lineno:
        traced.append(Line(error.filename, error.lineno, "<module>"))
    listed = re.findall(r'File "([^"]+)", line (\d+), in (\S+)', str(getattr(error, "message", "")))
    for lines in (
        _op_lines(getattr(error, "op", None)),
        traced,
        [Line(path, int(lineno), function) for path, lineno, function in listed],
    ):
        if learners := [line for line in lines if is_learners(line.filename)]:
            return learners[-1]
    return None


def op_line(op) -> Line | None:
    """The innermost line of the learner's code that built ``op``, or None."""
    learners = [line for line in _op_lines(op) if is_learners(line.filename)]
    return learners[-1] if learners else None


def _op_lines(op) -> list:
    """The lines of ``op``'s creation stack, outermost first (none without an op)."""
    try:
        return [Line(f.filename, f.lineno, f.name) for f in op.traceback] if op is not None else []
    except Exception:  # noqa: BLE001 - an op without a creation stack
        return []


def where(line: Line) -> str:
    """``line 5 of `model_fn` in notebooks/my_model.py: `code```: the file is named only when it
    lies in the project, the function unless it is a cell's (``<module>``), the code cut at 80
    characters, its backticks replaced."""
    path = Path(line.filename).resolve()
    template = {
        (True, True): _("line {lineno} of `{function}` in {path}"),
        (True, False): _("line {lineno} of `{function}`"),
        (False, True): _("line {lineno} in {path}"),
        (False, False): _("line {lineno}"),
    }[(line.function != "<module>", path.is_relative_to(PROJECT_ROOT) and path.exists())]
    place = template.format(
        lineno=line.lineno,
        function=line.function,
        path=path.relative_to(PROJECT_ROOT).as_posix() if path.is_relative_to(PROJECT_ROOT) else "",
    )
    code = line.source.replace("`", "'")
    code = code[: _LONGEST_LINE - 3] + "…" if len(code) > _LONGEST_LINE else code
    colon = "：" if current() == "zh_TW" else ": "
    return f"{place}{colon}`{code}`" if code else place


def error_text(error: BaseException) -> str:
    """``InvalidArgumentError: Incompatible shapes: [10] vs. [4]``: the error's type and the first
    line of its message that says what, without TensorFlow's lines about where, the project's
    folder or a final period, cut at 200 characters."""
    message = str(getattr(error, "message", None) or error).replace(f"{PROJECT_ROOT}{os.sep}", "")
    lines = [
        re.sub(r"\s*\[\[\{\{node [^}]*\}\}\]\].*$", "", line).strip()
        for line in shorten_graph_message(message).splitlines()
    ]
    said = [line for line in lines if line and not re.match(r"Graph execution error:|Node: ", line)]
    kind = type(error).__name__
    if said[:1] == ["in user code:"]:  # AutoGraph's header, then the frames: the error is last
        named = re.match(r"(\w+(?:Error|Exception)): (.*)", said[-1])
        kind, said = (named[1], [named[2]]) if named else (kind, said[-1:])
    text = re.sub(r" for '\{\{node .*$", "", (said or [""])[0]).rstrip(".")
    text = text[: _LONGEST_TEXT - 1] + "…" if len(text) > _LONGEST_TEXT else text
    return f"{kind}: {text}" if text else kind


def shorten_graph_message(message: str) -> str:
    """``message`` without its "Detected at node … defined at (most recent call last)" line and the
    file lines under it."""
    kept, skipping = [], False
    for line in message.splitlines():
        if line.startswith("Detected at node") and "defined at" in line:
            skipping = True
        elif skipping and (not line.strip() or line.lstrip().startswith("File ")):
            continue  # a tf.function's error puts a blank line after each file line
        else:
            skipping = False
            kept.append(line)
    return "\n".join(kept).strip()
