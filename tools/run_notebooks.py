"""Re-execute notebooks in place, so committed outputs are the committed code's output.

    python -m tools.run_notebooks notebooks/00_setup_and_data.ipynb ...
    python -m tools.run_notebooks --force ...     # even when nothing changed
    python -m tools.run_notebooks --fast ...      # WORKBOOK_FAST=1 (not for committing)
    python -m tools.run_notebooks --fast --out /tmp/fast ...   # write copies elsewhere (timing)

`make sync` and `make notebooks` call this in full mode. Each notebook runs top to bottom in
its own kernel with the working directory `notebooks/` (cells tagged
`nbval-skip` are left unexecuted), stream outputs are
coalesced (one block per training cell, not hundreds), widget metadata is
removed, and a hash of the code cells and of the `helpers/` files the notebook
runs (tools/helpers_deps.py) is stored in the notebook's metadata. A notebook
whose hashes are unchanged is skipped, so running the target twice does no work
twice. The tests compare the stored hashes with today's code and helpers
(tests/notebooks/hygiene.py, tests/notebooks/test_helpers_hash.py), so a notebook edited, or run
with helpers that have changed since, fails the tests until it is re-executed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tools import helpers_deps, notebook_code

KERNEL_NAME = "estimator-workbook"
KERNEL_DISPLAY_NAME = "Estimator workbook (TF 2.15)"
CELL_TIMEOUT_SECONDS = 1800


def code_hash(notebook) -> str:
    """SHA-256 of the notebook's code cells (their sources, in order)."""
    digest = hashlib.sha256()
    for source in notebook_code.code_sources(notebook):
        digest.update(source.encode("utf-8") + b"\0")
    return digest.hexdigest()


def helpers_stamp(notebook) -> dict:
    """The helpers files this notebook runs, each with its SHA-256, and one hash of them all."""
    files = helpers_deps.file_digests(notebook_code.code_sources(notebook))
    return {"helpers_sha256": helpers_deps.combined_hash(files), "helpers_files": files}


def clean_metadata(notebook) -> None:
    """Drop widget state and set the course's kernel, so GitHub renders it."""
    notebook.metadata.pop("widgets", None)
    notebook.metadata["kernelspec"] = {
        "name": KERNEL_NAME,
        "display_name": KERNEL_DISPLAY_NAME,
        "language": "python",
    }
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("widgets", None)


def execute(path: Path, fast: bool, force: bool, out: Path | None = None) -> bool:
    """Execute one notebook (in place, or into ``out``); return False when it was up to date."""
    notebook = nbformat.read(path, as_version=4)
    stamp = {
        "code_sha256": code_hash(notebook),
        **helpers_stamp(notebook),
        "mode": "fast" if fast else "full",
    }
    if not force and notebook.metadata.get("workbook", {}) == stamp:
        print(f"{path.name}: up to date, skipped")
        return False
    os.environ["WORKBOOK_FAST"] = "1" if fast else "0"
    started = time.perf_counter()
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_SECONDS,
        kernel_name=KERNEL_NAME,
        resources={"metadata": {"path": str(path.parent)}},
        coalesce_streams=True,
        record_timing=False,
        skip_cells_with_tag="nbval-skip",  # e.g. %tensorboard: never run, here or under test
    )
    client.execute()
    clean_metadata(notebook)
    notebook.metadata["workbook"] = stamp
    target = path if out is None else out / path.name
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target)
    seconds = time.perf_counter() - started
    size_kb = target.stat().st_size / 1024
    print(
        f"{path.name}: executed in {'fast' if fast else 'full'} mode in {seconds:.0f} s, "
        f"{size_kb:.0f} KB"
    )
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--fast", action="store_true", help="run with WORKBOOK_FAST=1")
    parser.add_argument("--force", action="store_true", help="execute even when up to date")
    parser.add_argument(
        "--out", type=Path, help="write the executed notebooks here instead of in place"
    )
    args = parser.parse_args(argv)
    for path in args.notebooks:
        execute(
            path.resolve(),
            fast=args.fast,
            force=args.force or args.out is not None,
            out=args.out.resolve() if args.out else None,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
