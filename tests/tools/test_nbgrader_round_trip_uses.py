"""nbgrader grades a wrong answer at 0 points for each way a check uses an answer (issue 46).

A check runs the answer as the lesson does: an input function in a real ``Estimator.evaluate``
(02), a hook in a real training (05), a metric in a real ``EstimatorSpec`` evaluated from a
checkpoint (06), an export loaded back and served (08), a Keras schedule in a Keras optimizer
(10). For each, a submission with the other answers right and this one wrong is autograded in the
course's kernel (grading mode, as the course's config sets it), its check cell tagged to be
skipped (the config runs it all the same): it loses that exercise's point and only that one, and
no lesson cell raises. The wrong answers are mistakes of the checks' banks, written as a learner
would in the solution cell.
"""

from __future__ import annotations

import shutil

import pytest

from tests import ROOT
from tests.support.round_trip import (
    assert_no_lesson_errors,
    assert_points,
    check_failure,
    round_trip,
    scores,
)

pytestmark = pytest.mark.slow(
    reason="nbgrader releases five notebooks and autogrades one submission of each (minutes)"
)

STUDENTS = ("one_wrong",)
# notebook: (solution cell, the wrong answer, its check cell, words of the check's message)
USES = {
    "02_input_fn": (  # an input function, in Estimator.evaluate: the images inverted
        "nb02-ex2-solution",
        "def fashion_eval_input_fn():\n"
        '    dataset = inputs.image_dataset("fashion-mnist", "test").batch(300)\n'
        "    return dataset.map(as_features).map(\n"
        '        lambda features, label: ({"image": 1.0 - features["image"]}, label)\n'
        "    )\n",
        "nb02-ex2-check",
        "are inverted",
    ),
    "05_hooks": (  # a hook, in a real training: the comparison the wrong way round
        "nb05-ex2-solution",
        "class StopBelow(tf.estimator.SessionRunHook):\n"
        "    def __init__(self, tensor_name, threshold):\n"
        "        self.tensor_name, self.threshold = tensor_name, threshold\n\n"
        "    def begin(self):\n"
        "        names = tensor_names.resolve_tensors([self.tensor_name])\n"
        "        self.tensor = names[self.tensor_name]\n\n"
        "    def before_run(self, run_context):\n"
        "        return tf.estimator.SessionRunArgs(self.tensor)\n\n"
        "    def after_run(self, run_context, run_values):\n"
        "        if run_values.results > self.threshold:\n"
        "            run_context.request_stop()\n",
        "nb05-ex2-check",
        "",
    ),
    "06_metrics_and_tensorboard": (  # a metric, evaluated from a checkpoint: the largest class's
        "nb06-ex1-solution",
        "def macro_precision(labels, predictions):\n"
        '    classes = predictions["classes"]\n'
        "    per_digit = [\n"
        "        tf.compat.v1.metrics.precision(\n"
        "            labels=tf.equal(labels, digit), predictions=tf.equal(classes, digit)\n"
        "        )\n"
        "        for digit in range(10)\n"
        "    ]\n"
        "    values, updates = zip(*per_digit)\n"
        '    return {"precision": (tf.reduce_max(tf.stack(values)), tf.group(*updates))}\n',
        "nb06-ex1-check",
        "",
    ),
    "08_predict_export_tflite": (  # an export, served: a receiver that rescales the pixels
        "nb08-ex1-solution",
        "def fixed_receiver_fn():\n"
        '    pixels = tf.compat.v1.placeholder(tf.float32, [None, 28, 28], name="pixels")\n'
        "    return tf.estimator.export.ServingInputReceiver(\n"
        '        features={"image": pixels * 255.0}, receiver_tensors={"pixels": pixels}\n'
        "    )\n\n\n"
        'fixed_dir = settings.fresh_model_dir("08_exercise_1")\n'
        "exported_again = estimator.export_saved_model(fixed_dir, fixed_receiver_fn)\n"
        "fixed_export_dir = export.as_text_path(exported_again)\n",
        "nb08-ex1-check",
        "",
    ),
    "10_migrating_to_keras": (  # a Keras schedule, in a Keras optimizer: a boundary moved
        "nb10-ex2-solution",
        "schedule = keras.optimizers.schedules.PiecewiseConstantDecay(\n"
        "    [400, 1000], [2e-3, 1e-3, 5e-4]\n"
        ")\n",
        "nb10-ex2-check",
        "",
    ),
}


@pytest.fixture(scope="module")
def course():
    notebooks = [ROOT / "notebooks" / f"{name}.ipynb" for name in USES]
    wrong = {name: (solution, source, check) for name, (solution, source, check, _) in USES.items()}
    root = round_trip(notebooks, sorted(USES), STUDENTS, wrong)
    try:
        yield root
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)


@pytest.mark.parametrize("name", sorted(USES))
def test_the_wrong_answer_loses_its_point_and_only_it(course, name):
    assert_points(scores(course), name, STUDENTS)


@pytest.mark.parametrize("name", sorted(USES))
def test_its_check_says_why_in_one_line(course, name):
    message = check_failure(course, name, USES[name][2])
    assert USES[name][3] in message and "\n" not in message.strip(), message


@pytest.mark.parametrize("name", sorted(USES))
def test_no_lesson_cell_raises_when_graded(course, name):
    assert_no_lesson_errors(course, name, STUDENTS)
