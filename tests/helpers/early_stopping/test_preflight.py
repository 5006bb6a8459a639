"""helpers.early_stopping's pre-flight: result dtypes, steps, the name it suggests, an EVAL graph
that cannot be built.

The dtype rule is checked against the installed tensorflow_estimator itself:
its ``_write_dict_to_summary`` writes a value as ``session.run`` returns it,
and its ``read_eval_metrics`` (what the hooks read) says whether it is there.
A real ``evaluate()`` and the real hook then show what the pre-flight predicts.
"""

from operator import itemgetter

import numpy as np
import pytest
import tensorflow as tf
from tensorflow_estimator.python.estimator import early_stopping as estimator_early_stopping
from tensorflow_estimator.python.estimator import estimator as estimator_lib

from helpers import early_stopping, inputs, metrics
from tools.notebook_code import definitions
from tests.support.models import linear_estimator, linear_model_fn

HookProbe, replay = itemgetter("HookProbe", "replay")(
    definitions("07_early_stopping.ipynb", ("HookProbe", "replay"))
)

DTYPES = [
    tf.float16,
    tf.bfloat16,
    tf.float32,
    tf.float64,
    tf.int8,
    tf.int16,
    tf.int32,
    tf.int64,
    tf.uint8,
    tf.uint16,
    tf.uint32,
    tf.uint64,
    tf.bool,
    tf.complex64,
    tf.complex128,
    tf.string,
]


def spec():
    return tf.estimator.EvalSpec(inputs.make_eval_input_fn(count=10))


# --- which dtypes Estimator writes where the hook reads ------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda dtype: dtype.name)
def test_written_as_scalar_follows_estimators_own_summary_writer(tmp_path, dtype):
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:  # as in evaluate(): graph mode
        value = session.run(tf.zeros([], dtype))  # what evaluation hands to the summary writer
        estimator_lib._write_dict_to_summary(str(tmp_path), {"m": value}, 7)
    found = "m" in estimator_early_stopping.read_eval_metrics(str(tmp_path)).get(7, {})
    assert early_stopping.written_as_scalar(dtype) == found


def test_the_written_dtypes_are_listed_from_the_rule():
    assert [dtype.name for dtype in DTYPES if early_stopping.written_as_scalar(dtype)] == [
        "float32",
        "float64",
        "int32",
        "int64",
    ]


def test_a_float16_metric_fails_the_preflight_as_the_real_hook_would_fail(tmp_path):
    estimator = linear_estimator(tmp_path)
    with pytest.raises(early_stopping.EarlyStoppingProblem) as caught:
        early_stopping.preflight(estimator, spec(), "accuracy_half")
    message = str(caught.value)
    assert message.startswith(
        "metric_name='accuracy_half' is a float16 scalar, and Estimator writes only "
        "float32, float64, int32 and int64 scalars to the event file"
    )
    assert "so the hook would raise KeyError: 'accuracy_half'" in message
    assert "tf.cast(value, tf.float32)" in message and "\n" not in message
    assert "accuracy_half" not in message.split("choose one of ")[1]  # not offered as a choice

    # What the pre-flight predicts: a real evaluation returns it, does not write it, and the hook
    # fails.
    estimator.train(inputs.make_train_input_fn(batch_size=10), steps=1)
    returned = estimator.evaluate(inputs.make_eval_input_fn(count=10))
    assert isinstance(returned["accuracy_half"], np.float16)
    written = estimator_early_stopping.read_eval_metrics(estimator.eval_dir())
    assert "accuracy_half" not in written[1] and "accuracy_double" in written[1]
    hook = tf.estimator.experimental.stop_if_no_increase_hook(
        estimator, "accuracy_half", 100, run_every_secs=None, run_every_steps=1
    )
    with HookProbe(hook) as probe, pytest.raises(KeyError, match="accuracy_half"):
        probe.asks_to_stop(2)


def test_float64_and_float32_scalars_pass(tmp_path):
    estimator = linear_estimator(tmp_path, metrics.course_metrics)
    report = early_stopping.preflight(estimator, spec(), "accuracy_double")
    assert report.results["accuracy_double"] == early_stopping.Result((), "float64")
    assert report.results["loss"] == early_stopping.Result((), "float32")
    assert (
        "accuracy_half" not in repr(report)
        and "accuracy, " in repr(report)
        and "f1_macro" in repr(report)
    )


# --- min_steps and max_steps ----------------------------------------------------------------


def test_min_steps_not_below_max_steps_is_caught(tmp_path):
    estimator = linear_estimator(tmp_path)
    with pytest.raises(early_stopping.EarlyStoppingProblem) as caught:
        early_stopping.preflight(estimator, spec(), "accuracy", min_steps=8000, max_steps=4000)
    assert str(caught.value) == (
        "min_steps=8000 is not below max_steps=4000: the hook ignores every evaluation before "
        "global step 8000 and training ends at step 4000, so it can never stop training early: "
        "lower min_steps (or raise max_steps)."
    )
    with pytest.raises(
        early_stopping.EarlyStoppingProblem, match="min_steps=4000 is not below max_steps=4000"
    ):
        early_stopping.preflight(estimator, spec(), "accuracy", min_steps=4000, max_steps=4000)


def test_min_steps_plus_patience_not_below_max_steps_is_caught(tmp_path):
    estimator = linear_estimator(tmp_path)
    with pytest.raises(
        early_stopping.EarlyStoppingProblem,
        match=r"^min_steps \+ patience = 3000 \+ 1000 = 4000 is not below max_steps=4000: ",
    ):
        early_stopping.preflight(
            estimator, spec(), "accuracy", min_steps=3000, max_steps=4000, patience=1000
        )


def test_steps_that_leave_room_pass_and_say_so(tmp_path):
    estimator = linear_estimator(tmp_path)
    report = early_stopping.preflight(
        estimator, spec(), "accuracy", min_steps=1200, max_steps=4000, patience=400
    )
    assert repr(report).endswith(
        " It can stop training from step 1600 on (min_steps + patience), before max_steps=4000."
    )
    without_patience = early_stopping.preflight(
        estimator, spec(), "accuracy", min_steps=1200, max_steps=4000
    )
    assert repr(without_patience).endswith(
        " It counts the evaluations from step 1200 on, before max_steps=4000."
    )
    assert repr(early_stopping.preflight(estimator, spec(), "accuracy")).endswith(
        "where the evaluations are written."
    )
    assert repr(early_stopping.preflight(estimator, spec(), "accuracy", max_steps=4000)).endswith(
        " It counts the evaluations from step 0 on, before max_steps=4000."
    )


def test_the_real_hook_never_stops_when_min_steps_plus_patience_reach_max_steps(tmp_path):
    # max_steps=500, min_steps=300, patience=200: evaluations during training end at 400.
    timeline = {100: 0.9, 200: 0.1, 300: 0.5, 400: 0.4}
    assert early_stopping.steps_problem(300, 500, 200) is not None
    estimator = linear_estimator(tmp_path)
    table = replay(
        timeline,
        "accuracy",
        lambda: tf.estimator.experimental.stop_if_no_increase_hook(
            estimator, "accuracy", 200, min_steps=300, run_every_secs=None, run_every_steps=1
        ),
        estimator.eval_dir(),
        min_steps=300,
    )
    assert not table["hook asks to stop"].any()
    # 200 + 200 < 500: it could stop at 400
    assert early_stopping.steps_problem(200, 500, 200) is None


def test_an_eval_graph_that_cannot_be_built_is_named(tmp_path):
    def model_fn(features, labels, mode):
        if mode == tf.estimator.ModeKeys.EVAL:
            return None  # the EVAL branch forgot its return
        return linear_model_fn(features, labels, mode)

    estimator = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    with pytest.raises(early_stopping.EarlyStoppingProblem) as caught:
        early_stopping.preflight(estimator, spec(), "accuracy")
    # the finding after the colon is the model_fn checker's sentence
    assert str(caught.value).startswith(
        "the EVAL graph could not be built, so the hook has nothing to read: building the EVAL "
        "branch raised ValueError: model_fn should return an EstimatorSpec"
    )
    assert "\n" not in str(caught.value)


# --- the suggested name ------------------------------------------------------------------------


def test_f1_underscore_suggests_the_macro_f1_first(tmp_path):
    estimator = linear_estimator(tmp_path, metrics.course_metrics)
    with pytest.raises(
        early_stopping.EarlyStoppingProblem, match=r"\(did you mean 'f1_macro' or 'f1_micro'\?\)"
    ):
        early_stopping.preflight(estimator, spec(), "f1_")


# --- the sentences, from results as evaluation_results gives them ------------------------------

RESULTS = {
    "accuracy": early_stopping.Result((), "float32"),
    "loss": early_stopping.Result((), "float32"),
    "note": early_stopping.Result((), "string"),
}


def test_an_unknown_metric_with_no_close_name_gets_no_suggestion():
    assert early_stopping.metric_problem("zzz", RESULTS).endswith(
        "at its first check after an evaluation, in the middle of training."
    )


def test_a_string_metric_is_one_the_hook_parses_as_a_summary():
    sentence = early_stopping.metric_problem("note", RESULTS)
    assert "(a string result it parses as a serialized Summary)" in sentence
    assert "or choose one of accuracy, loss." in sentence


def test_the_folder_fix_for_the_default_evaluation(tmp_path):
    sentence = early_stopping.folder_problem(tmp_path / "eval", None, tmp_path / "other")
    assert sentence.endswith("pass eval_dir=estimator.eval_dir() (or leave it out).")


# --- what is not an Estimator; several problems at once ---------------------------------------


def test_a_model_fn_given_for_the_estimator_is_named():
    with pytest.raises(
        early_stopping.EarlyStoppingProblem,
        match=r"^expected a tf.estimator.Estimator, not function$",
    ):
        early_stopping.preflight(linear_model_fn, spec(), "accuracy")


def test_evaluation_results_refuses_what_is_not_an_estimator():
    """Its own refusal, which preflight reaches first (above)."""
    with pytest.raises(
        early_stopping.EarlyStoppingProblem,
        match=r"^expected a tf.estimator.Estimator, not function$",
    ):
        early_stopping.evaluation_results(linear_model_fn)


def test_every_problem_found_is_its_own_sentence(tmp_path):
    estimator = linear_estimator(tmp_path)
    with pytest.raises(early_stopping.EarlyStoppingProblem) as caught:
        early_stopping.preflight(
            estimator,
            spec(),
            "accuracy",
            eval_dir=tmp_path / "elsewhere",
            min_steps=8000,
            max_steps=4000,
        )
    assert "(or leave it out). min_steps=8000 is not below max_steps=4000" in str(caught.value)
