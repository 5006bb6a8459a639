"""Run a ``model_fn`` through PREDICT, EVAL and TRAIN on a tiny batch and say what to change
(notebook 03; early stopping's pre-flight check runs its EVAL branch). Each mode's graph is built
by ``model_graph`` as Estimator builds it.

- ``branches``: runs the model_fn as Estimator does (``check_model_fn``, ``check_branch``): its
  parameter names, then each mode's branch, built and run once;
- ``diagnoses``: what the graph and values of a branch that runs show is wrong (a softmax fed to
  the loss, skipped moving averages, predictions, randomness, bool casts, variables);
- ``tf_errors``: TensorFlow's and Estimator's error texts turned into sentences (``SPEC_ERRORS``
  is their table);
- ``report``: ``Finding``, ``Branch``, ``ModelFnReport`` and its verdict, text, HTML and table.
"""

from .branches import (
    _not_a_spec_for,
    check_branch,
    check_model_fn,
    check_signature,
    wrong_mode_comparisons,
)
from .diagnoses import (
    FIX_KERAS_UPDATES,
    FIX_UPDATE_OPS,
    _differences,
    _is_argmax_over_batch,
    _largest_change,
    _twice,
    check_bool_casts,
    check_moving_averages,
    check_softmax_logits,
    check_variables,
    skipped_updates,
)
from .report import Branch, Finding, ModelFnReport, _listed, _with_shapes
from .tf_errors import explain_build_error, explain_run_error, features_as_tensor

__all__ = [  # what the notebooks, helpers.early_stopping and the tests import
    "Branch",
    "FIX_KERAS_UPDATES",
    "FIX_UPDATE_OPS",
    "Finding",
    "ModelFnReport",
    "_differences",
    "_is_argmax_over_batch",
    "_largest_change",
    "_listed",
    "_not_a_spec_for",
    "_twice",
    "_with_shapes",
    "check_bool_casts",
    "check_branch",
    "check_model_fn",
    "check_moving_averages",
    "check_signature",
    "check_softmax_logits",
    "check_variables",
    "explain_build_error",
    "explain_run_error",
    "features_as_tensor",
    "skipped_updates",
    "wrong_mode_comparisons",
]
