"""helpers.cnn_params: the course CNN's defaults, importable without TensorFlow (notebook 10's Keras
form runs on the newest TensorFlow, where ``helpers.models`` cannot be imported)."""

import subprocess
import sys

from tests import ROOT


def test_importing_it_loads_no_tensorflow():
    code = (
        "import sys, helpers.cnn_params\n"
        "print(sorted(m for m in sys.modules if m.startswith('tensorflow')))"
    )
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


def test_notebook_03_was_run_with_these_defaults():
    """Notebook 03 prints the defaults, and its committed outputs (accuracies, run times, the
    figures TEACHING.md quotes) were computed with them: a changed default (32 filters -> 33,
    dropout 0.25 -> 0.5) is a decision that re-runs the notebooks, not a silent edit."""
    import json

    from helpers import cnn_params

    notebook = json.loads(next((ROOT / "notebooks").glob("03_*.ipynb")).read_text())
    printed = next(
        "".join(output["data"]["text/plain"])
        for cell in notebook["cells"]
        if cell["cell_type"] == "code"
        for output in cell.get("outputs", [])
        if "params key" in "".join(output.get("data", {}).get("text/plain", ""))
    )
    rows = dict(line.split(None, 1) for line in printed.splitlines()[2:])
    assert {name: value.strip() for name, value in rows.items()} == {
        name: str(value) for name, value in cnn_params.DEFAULT_PARAMS.items()
    }
