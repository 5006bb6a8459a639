"""helpers.cnn_params: the course CNN's defaults, importable without TensorFlow (notebook 10's Keras
form runs on the newest TensorFlow, where ``helpers.models`` cannot be imported)."""

import subprocess
import sys

from tests import ROOT


def test_importing_it_loads_no_tensorflow():
    code = ("import sys, helpers.cnn_params\n"
            "print(sorted(m for m in sys.modules if m.startswith('tensorflow')))")
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_every_param_the_model_reads_has_a_default():
    from helpers import cnn_params

    assert set(cnn_params.DEFAULT_PARAMS) == {
        "learning_rate",
        "decay_steps",
        "filters",
        "dense_units",
        "dropout",
    }
