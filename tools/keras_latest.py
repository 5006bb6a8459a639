"""Run notebook 10's own Keras cells on the newest TensorFlow: ``make keras-latest``.

The Makefile builds ``.venv-latest`` from ``requirements-latest.txt`` (the
newest TensorFlow and Keras 3, no ``tensorflow-estimator``) and runs this
script there. It reads notebook 10 and runs its code cells tagged
``keras-latest`` — the Keras side of the lesson, as the notebook has it — in
order, in one namespace, as a kernel would, from the notebook's folder. What
the notebook's first cell does besides checking for TensorFlow 2.15 is done
first: the log filter, the seeds, fast mode. The cells assert their own
results (accuracy, early stopping, the resumed epochs, the exported model);
the first error or failed assertion ends the run with one line naming the
cell, and exit status 1.

Before running anything it checks that the tagged cells stand on their own:
no IPython syntax (``%``, ``!``), and no name used that only an untagged cell
(the Estimator side) defines.

Fast mode is the default; ``--full`` runs the notebook's full step counts.
The datasets come from ``WORKBOOK_DATASETS`` when it is set (``make
keras-latest DATASETS=…``). The cells are read by ``tools/notebook_code.py``, the
one reader of notebook code; ``definitions()`` gives the functions and classes
the tagged cells define (``build_cnn``, the callbacks) to tests and benchmarks.
"""

from __future__ import annotations

import argparse
import builtins
import os
import sys
import time
import traceback
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import notebook_code  # noqa: E402  (the checkout's root, just added)

NOTEBOOK = ROOT / "notebooks" / "10_migrating_to_keras.ipynb"
TAG = "keras-latest"


def tagged_cells(notebook=NOTEBOOK) -> list:
    """``(index, source)`` of the notebook's code cells tagged ``TAG``, in order (``index``
    counts every cell from 0)."""
    return [(cell.index, cell.source) for cell in notebook_code.code_cells(notebook, TAG)]


def problems(cells: list) -> list:
    """Why these cells cannot run on their own, one line each (an empty list when they can)."""
    found = []
    known = set(dir(builtins))
    for index, source in cells:
        magic = [
            line.strip() for line in source.splitlines() if line.lstrip().startswith(("%", "!"))
        ]
        if magic:
            found.append(
                f"cell {index} uses IPython syntax ({magic[0]}): only plain Python runs here"
            )
            continue
        try:
            defined, used, later = notebook_code.cell_names(source)
            used = used | later
        except SyntaxError as error:
            found.append(f"cell {index} is not valid Python: {error.msg} (line {error.lineno})")
            continue
        missing = sorted(used - known - defined)
        if missing:
            found.append(
                f"cell {index} uses {', '.join(missing)}, which no earlier {TAG} cell defines: "
                f"tag the cell that defines it, or move the definition into a tagged cell"
            )
        known |= defined
    if not cells:
        found.append(f"no code cell is tagged {TAG}")
    return found


def _failure(index: int, source: str, error: BaseException) -> str:
    """One line: the cell, the line of it that failed, and the error."""
    filename = f"<{TAG} cell {index}>"
    lines = [
        frame.lineno
        for frame in traceback.extract_tb(error.__traceback__)
        if frame.filename == filename
    ]
    where = f", line {lines[-1]}: {source.splitlines()[lines[-1] - 1].strip()}" if lines else ""
    message = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return f"FAILED in cell {index}{where} -> {message}"


def run(cells: list) -> int:
    """Execute the cells in order in one namespace; 0 when all ran, else 1 after a one-line
    report on stderr."""
    namespace = {"__name__": "__main__"}
    for index, source in cells:
        first = next((line for line in source.splitlines() if line.strip()), "")
        print(f"\n--- cell {index}: {first[:70]}", flush=True)
        try:
            filename = notebook_code.register(source, f"<{TAG} cell {index}>")
            exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - the notebook's own cells
        except Exception as error:  # noqa: BLE001 - every failure ends the run with one line
            sys.stdout.flush()
            print(_failure(index, source, error), file=sys.stderr)
            return 1
        sys.stdout.flush()
    return 0


def definitions(notebook=NOTEBOOK) -> dict:
    """The imports, functions, classes and constants of the tagged cells, executed without the
    rest: the notebook's ``build_cnn`` and callbacks for a test or a benchmark, nothing trained."""
    return notebook_code.definitions(notebook, tag=TAG)


def prepare(fast: bool) -> None:
    """What the notebook's setup cell does but the TensorFlow 2.15 check: logs, seeds, fast mode."""
    os.environ["WORKBOOK_FAST"] = "1" if fast else "0"
    os.chdir(NOTEBOOK.parent)  # the notebook's working directory: its paths print as ../models/...
    import helpers  # noqa: F401  (quiets TensorFlow's C++ start-up messages)
    import keras
    import tensorflow as tf

    from helpers import logs, settings

    logs.install_noise_filter(tf.get_logger())
    # Keras 3 warns that fit's default shuffle=True is ignored for a tf.data dataset (it shuffles
    # itself), and "Your input ran out of data" once when a finite dataset of unknown length (the
    # test digits) ends: as intended.
    warnings.filterwarnings("ignore", message=r"`shuffle=True` was passed")
    warnings.filterwarnings("ignore", message=r"Your input ran out of data")
    settings.seed_everything()
    print(
        f"tensorflow {tf.__version__} | keras {keras.__version__} | "
        f"mode {'fast' if fast else 'full'}"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--full", action="store_true", help="the notebook's full step counts (default: fast mode)"
    )
    parser.add_argument("--notebook", type=Path, default=NOTEBOOK, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    cells = tagged_cells(args.notebook.resolve())
    found = problems(cells)
    if found:
        print("\n".join(f"FAILED: {line}" for line in found), file=sys.stderr)
        return 1
    prepare(fast=not args.full)
    started = time.perf_counter()
    status = run(cells)
    if status == 0:
        print(
            f"\nAll {len(cells)} {TAG} cells of {args.notebook.name} ran, their assertions held "
            f"({time.perf_counter() - started:.0f} s)."
        )
    return status


if __name__ == "__main__":
    sys.exit(main())
