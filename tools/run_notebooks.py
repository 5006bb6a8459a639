"""Re-execute notebooks in place, so committed outputs are the committed code's output.

    python -m tools.run_notebooks notebooks/00_setup_and_data.ipynb ...
    python -m tools.run_notebooks notebooks/zh-TW/00_setup_and_data.ipynb ...   # the zh-TW edition
    python -m tools.run_notebooks --force ...     # even when nothing changed
    python -m tools.run_notebooks --fast ...      # WORKBOOK_FAST=1 (not for committing)
    python -m tools.run_notebooks --fast --out /tmp/fast ...   # write copies elsewhere (timing)
    python -m tools.run_notebooks --with-edition notebooks/07_early_stopping.ipynb   # and its zh-TW

`make notebooks` calls this in full mode, on the English notebooks and then on the zh-TW
edition's. `make sync` calls it once with ``--with-edition`` and the English notebooks: each
notebook whose English and zh-TW copies are both stale runs in both at the same time, on the
two cores a notebook alone leaves half idle (its kernel waits on Python between TensorFlow's
ops), unless it measures speed (``ALONE``): beside another run its figures would be a shared
machine's. The zh-TW run then works in a temporary copy of ``helpers/`` (on the kernel's
``PYTHONPATH``), so that its ``models/`` folders are its own and its paths print as in place.

Each notebook runs top to bottom in its own kernel with the working directory its own folder
(cells tagged `nbval-skip` are left unexecuted), in the language the helpers speak there
(helpers/language.py: zh_TW in a `zh-TW` folder, else English; set for the kernel with
WORKBOOK_LANGUAGE, so a value in the caller's environment does not leak into committed outputs).
Stream outputs are coalesced (one block per training cell, not hundreds), widget metadata is
removed, and a run stamp is stored in the notebook's metadata (``workbook``): a hash of the code
cells, a hash of the `helpers/` files the notebook runs (tools/helpers_deps.py), for a zh-TW
notebook also of the helpers' catalogue it speaks from, the mode, and (when not English) the
language. A notebook whose stamp is current is skipped, so running the target twice does no work
twice. The tests compare the stored hashes with today's code and helpers
(tests/notebooks/hygiene.py, tests/notebooks/test_helpers_hash.py), so a notebook edited, or run
with helpers that have changed since, fails the tests until it is re-executed.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tools import helpers_deps, notebook_code

KERNEL_NAME = "estimator-workbook"
LANGUAGE_ENV = "WORKBOOK_LANGUAGE"  # helpers/language.py's
ENGLISH = "en"
# The folder whose notebooks speak zh_TW, and the catalogue the helpers translate their messages
# from (helpers/language.py's CATALOGUES / language / DOMAIN.po; tests/tools/test_run_notebooks.py
# checks that the two agree).
LANGUAGE_FOLDERS = {"zh-TW": "zh_TW"}
HELPERS_CATALOGUE = "translations/{language}/helpers.po"
KERNEL_DISPLAY_NAME = "Estimator workbook (TF 2.15)"
CELL_TIMEOUT_SECONDS = 1800
ROOT = notebook_code.ROOT
EDITION = ROOT / "notebooks" / "zh-TW"
# Notebooks whose lesson is a speed or a timing (input pipeline, latency, clusters, Keras against
# the Estimator, training speed): never run beside another.
ALONE = frozenset(
    {
        "02_input_fn.ipynb",
        "08_predict_export_tflite.ipynb",
        "09_more_than_one_machine.ipynb",
        "10_migrating_to_keras.ipynb",
        "11_training_speed.ipynb",
    }
)
DATASETS_ENV = "WORKBOOK_DATASETS"  # helpers/paths.py's: a relative folder is the checkout's


def code_hash(notebook) -> str:
    """SHA-256 of the notebook's code cells (their sources, in order)."""
    digest = hashlib.sha256()
    for source in notebook_code.code_sources(notebook):
        digest.update(source.encode("utf-8") + b"\0")
    return digest.hexdigest()


def notebook_language(path: Path) -> str:
    """The language the helpers speak in a kernel run from ``path``'s folder: ``"zh_TW"`` in a
    ``zh-TW`` folder (notebooks/zh-TW/ and its student/), else ``"en"``."""
    for folder in reversed(Path(path).resolve().parent.parts):
        if folder in LANGUAGE_FOLDERS:
            return LANGUAGE_FOLDERS[folder]
    return ENGLISH


def helpers_stamp(notebook, language: str = ENGLISH) -> dict:
    """The helpers files this notebook runs, each with its SHA-256, and one hash of them all; in
    another language than English, the helpers' catalogue of that language too (when it exists
    and the notebook runs helpers/language.py): a hash of the translations its outputs can show
    (:func:`catalogue_digest`)."""
    root = helpers_deps.ROOT
    files = helpers_deps.file_digests(notebook_code.code_sources(notebook), root)
    catalogue = root / HELPERS_CATALOGUE.format(language=language)
    if language != ENGLISH and "helpers/language.py" in files and catalogue.is_file():
        said = frozenset(files)
        text = catalogue.read_text(encoding="utf-8")
        files[catalogue.relative_to(root).as_posix()] = catalogue_digest(text, said)
    return {"helpers_sha256": helpers_deps.combined_hash(files), "helpers_files": files}


@functools.lru_cache(maxsize=64)
def catalogue_digest(text: str, files: frozenset) -> str:
    """SHA-256 of the translations of the catalogue ``text`` that a run of the helpers ``files``
    can show: each entry translated and not fuzzy (what helpers/language.py uses) and said in one
    of those files (its ``#:`` references; an entry that names none counts for every run). The
    references' line numbers, comments, untranslated and fuzzy entries and the layout do not
    count: a line moved in helpers/cluster.py or a translation of a sentence of notebook 05's
    checks leaves the other notebooks' runs current."""
    import polib

    shown = []
    for entry in polib.pofile(text, wrapwidth=0).translated_entries():
        said = {where for where, _ in entry.occurrences}
        if said and not said & files:
            continue
        plural = sorted((int(k), v) for k, v in entry.msgstr_plural.items())
        shown.append([entry.msgctxt, entry.msgid, entry.msgid_plural, entry.msgstr, plural])
    shown.sort(key=json.dumps)
    return hashlib.sha256(json.dumps(shown, ensure_ascii=False).encode("utf-8")).hexdigest()


def run_stamp(notebook, language: str = ENGLISH, fast: bool = False) -> dict:
    """What a run of ``notebook`` today, in ``language`` and mode, stores in its metadata."""
    stamp = {
        "code_sha256": code_hash(notebook),
        **helpers_stamp(notebook, language),
        "mode": "fast" if fast else "full",
    }
    if language != ENGLISH:
        stamp["language"] = language
    return stamp


def stamp_is_current(stamp: dict, notebook, language: str) -> bool:
    """Whether ``stamp`` is that of a run of ``notebook``'s code with today's helpers (and
    catalogue) in ``language``, in either mode."""
    return dict(stamp or {}, mode=None) == dict(run_stamp(notebook, language), mode=None)


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


def is_current(path: Path, fast: bool) -> bool:
    """Whether the notebook's run stamp is that of a run of today's code and helpers in ``fast``'s
    mode: nothing to execute."""
    notebook = nbformat.read(path, as_version=4)
    stamp = run_stamp(notebook, notebook_language(path), fast)
    return notebook.metadata.get("workbook", {}) == stamp


def execute(path: Path, fast: bool, force: bool, out: Path | None = None) -> bool:
    """Execute one notebook (in place, or into ``out``); return False when it was up to date."""
    if not force and is_current(path, fast):
        print(f"{path.name}: up to date, skipped")
        return False
    notebook = nbformat.read(path, as_version=4)
    language = notebook_language(path)
    stamp = run_stamp(notebook, language, fast)
    # The kernel inherits these: the mode, and the language its folder speaks.
    os.environ["WORKBOOK_FAST"] = "1" if fast else "0"
    os.environ[LANGUAGE_ENV] = language
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
        f"{path.name}: executed in {'fast' if fast else 'full'} mode ({language}) in "
        f"{seconds:.0f} s, {size_kb:.0f} KB"
    )
    return True


def kernel_checkout(folder: Path) -> dict:
    """Make ``folder`` a checkout for kernels of their own: a copy of ``helpers/`` (so that their
    ``models/`` is ``folder/models``), ``data/`` and ``translations/`` linked; return the
    environment that makes a kernel import it (``folder`` first on ``PYTHONPATH``, the datasets'
    folder absolute). Used by ``--with-edition`` and by the nbgrader round-trip test."""
    folder = Path(folder)
    shutil.copytree(
        ROOT / "helpers", folder / "helpers", ignore=shutil.ignore_patterns("__pycache__")
    )
    for name in ("data", "translations"):
        (folder / name).symlink_to(ROOT / name, target_is_directory=True)
    path = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=path)
    if env.get(DATASETS_ENV):
        env[DATASETS_ENV] = str((ROOT / env[DATASETS_ENV]).resolve())
    return env


def side_by_side(english: Path, chinese: Path, fast: bool) -> None:
    """Execute both copies of a notebook at once, each in its own process; the zh-TW one in a
    temporary checkout (:func:`kernel_checkout`), copied back."""
    mode = ["--fast"] if fast else []
    with tempfile.TemporaryDirectory(prefix="zh-tw-run-") as folder:
        env = kernel_checkout(Path(folder))
        copy = Path(folder) / chinese.relative_to(ROOT)
        copy.parent.mkdir(parents=True)
        shutil.copyfile(chinese, copy)
        command = [sys.executable, "-m", "tools.run_notebooks", *mode]
        runs = [
            subprocess.Popen([*command, str(english)], cwd=ROOT),
            subprocess.Popen([*command, str(copy)], cwd=ROOT, env=env),
        ]
        failed = [run.args[-1] for run in runs if run.wait() != 0]
        if failed:
            raise SystemExit(f"{', '.join(failed)}: execution failed (above)")
        shutil.copyfile(copy, chinese)


def with_edition(notebooks: list, fast: bool) -> None:
    """Each English notebook and its zh-TW copy, the stale ones executed: side by side when both
    are, and the notebook is not one of ``ALONE``; else one after the other."""
    for english in notebooks:
        chinese = EDITION / english.name
        stale = [path for path in (english, chinese) if not is_current(path, fast)]
        if len(stale) == 2 and english.name not in ALONE:
            side_by_side(english, chinese, fast)
            continue
        for path in (english, chinese):
            execute(path, fast=fast, force=False)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--fast", action="store_true", help="run with WORKBOOK_FAST=1")
    parser.add_argument("--force", action="store_true", help="execute even when up to date")
    parser.add_argument(
        "--out", type=Path, help="write the executed notebooks here instead of in place"
    )
    parser.add_argument(
        "--with-edition",
        action="store_true",
        help="each notebook's zh-TW copy too, side by side when both are stale",
    )
    args = parser.parse_args(argv)
    if args.with_edition:
        with_edition([path.resolve() for path in args.notebooks], fast=args.fast)
        return 0
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
