"""Run the Keras part of notebook 10 on the newest TensorFlow: ``make keras-latest``.

The Makefile builds ``.venv-latest`` from ``requirements-latest.txt`` (the
newest TensorFlow and Keras 3, no ``tensorflow-estimator``) and runs this
script there. It calls ``helpers.keras_migration.run_keras_part`` — the same
file the notebook uses under TensorFlow 2.15, unchanged — prints the versions
and the results, and exits with status 1 when a result does not hold:

* the test accuracy of the CNN trained with ``fit`` (at least 98.5 % in full
  mode, 97.5 % in fast mode);
* ``EarlyStopping`` fired before the epoch limit and restored the best weights;
* ``BackupAndRestore`` resumed a crashed ``fit`` at its third epoch;
* the reloaded ``model.export`` SavedModel predicts what the model predicts;
* ``keras.metrics.F1Score`` equals the macro F1 computed with NumPy.

Fast mode (500 training steps instead of 1,500) is the default; ``--full``
runs the notebook's full step count. The datasets come from
``WORKBOOK_DATASETS`` when it is set (``make keras-latest DATASETS=…``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="the notebook's full step count (default: fast mode)")
    args = parser.parse_args(argv)
    os.environ["WORKBOOK_FAST"] = "0" if args.full else "1"
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)

    import helpers  # noqa: F401  (quiets TensorFlow's C++ start-up messages)
    from helpers import keras_migration, settings

    # Keras 3 warns that fit's default shuffle=True is ignored for a tf.data dataset (it shuffles itself).
    warnings.filterwarnings("ignore", message=r"`shuffle=True` was passed")
    # Keras 3 also warns "Your input ran out of data" once, when a finite dataset of unknown length
    # (the test or validation digits, read with tf.data from the IDX files) ends: that is the intended end.
    warnings.filterwarnings("ignore", message=r"Your input ran out of data")
    settings.seed_everything()
    fast = settings.fast_mode()
    steps = settings.steps(1500, 500)
    print("versions:", keras_migration.versions(), "| mode:", "fast" if fast else "full", f"| {steps} training steps")

    started = time.perf_counter()
    results = keras_migration.run_keras_part(train_steps=steps)
    print(f"\nThe Keras part ran in {time.perf_counter() - started:.0f} s. Results:")
    for key, value in results.items():
        shown = f"{value:.4f}" if isinstance(value, float) else value
        print(f"  {key:28} {shown}")

    problems = keras_migration.check_results(results, min_accuracy=0.975 if fast else 0.985)
    if problems:
        print("\nFAILED:", "; ".join(problems), file=sys.stderr)
        return 1
    print("\nAll checks hold: accuracy, early stopping, resume, export, F1Score.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
