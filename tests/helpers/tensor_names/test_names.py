"""helpers.tensor_names (checked tensor names) and the hooks notebook 05 defines in its cells with
it.

Names are resolved in small hand-made graphs. The hooks run in real Estimator trainings of the
one-variable model of ``tests/support/models.py``, so collected values can be compared with a
formula.
"""

import io
import logging
from operator import itemgetter

import numpy as np
import pytest
import tensorflow as tf

from helpers import logs, model_graph, models, tensor_names
from helpers.problems import WorkbookProblem
from tools.notebook_code import definitions
from tests.support.models import (
    finite_input_fn,
    tiny_estimator,
    tiny_input_fn,
    tiny_model_fn,
    weight_at,
)

# HookList calls the notebook's describe_hook
NAMES = (
    "CheckedLoggingTensorHook",
    "ProgressBar",
    "Collector",
    "HookList",
    "describe_hook",
    "tensor_table",
)
CheckedLoggingTensorHook, ProgressBar, Collector, HookList, _, tensor_table = itemgetter(*NAMES)(
    definitions("05_hooks.ipynb", NAMES)
)


@pytest.fixture
def info_log():
    with logs.logger_level(logging.INFO):
        yield


def small_graph():
    graph = tf.Graph()
    with graph.as_default():
        logits = tf.constant([[1.0, 2.0, 3.0]])
        tf.nn.softmax(logits, name="softmax_tensor")
        with tf.name_scope("monitor"):
            tf.reduce_max(logits, name="confidence")
    return graph


# --- names --------------------------------------------------------------------


def test_resolves_plain_scoped_and_indexed_names_and_tensors():
    graph = small_graph()
    tensor = graph.get_tensor_by_name("softmax_tensor:0")
    found = tensor_names.resolve_tensors(
        {"a": "softmax_tensor", "b": "softmax_tensor:0", "c": "monitor/confidence", "d": tensor},
        graph,
    )
    assert {tag: t.name for tag, t in found.items()} == {
        "a": "softmax_tensor:0",
        "b": "softmax_tensor:0",
        "c": "monitor/confidence:0",
        "d": "softmax_tensor:0",
    }
    assert list(tensor_names.resolve_tensors(["softmax_tensor"], graph)) == ["softmax_tensor"]


def test_uses_the_default_graph():
    with small_graph().as_default():
        assert tensor_names.resolve_tensors({"p": "softmax_tensor"})["p"].name == "softmax_tensor:0"


def test_misspelled_name_names_the_similar_one():
    with pytest.raises(tensor_names.MissingTensor) as caught:
        tensor_names.resolve_tensors({"probabilities": "sofmax_tensor"}, small_graph())
    assert (
        str(caught.value)
        == "no tensor named 'sofmax_tensor' in the graph; similar names: softmax_tensor"
    )


def test_forgotten_scope_suggests_the_scoped_name():
    with pytest.raises(
        tensor_names.MissingTensor,
        match=r"no tensor named 'confidence' in the graph; similar names: "
        r"monitor/confidence",
    ):
        tensor_names.resolve_tensors({"c": "confidence"}, small_graph())


def test_name_with_suffix_and_no_similar_name():
    with pytest.raises(tensor_names.MissingTensor) as caught:
        tensor_names.resolve_tensors({"q": "zzz:0"}, small_graph())
    assert str(caught.value) == (
        "no tensor named 'zzz:0' in the graph, and no similar name: name it in the "
        "model_fn, e.g. tf.identity(x, name='zzz')"
    )


def test_output_index_that_does_not_exist():
    with pytest.raises(
        tensor_names.MissingTensor,
        match=r"the operation 'softmax_tensor' has 1 output, "
        r"so there is no tensor 'softmax_tensor:1'",
    ):
        tensor_names.resolve_tensors({"p": "softmax_tensor:1"}, small_graph())


def test_every_missing_name_is_reported_on_one_line():
    with pytest.raises(tensor_names.MissingTensor) as caught:
        tensor_names.resolve_tensors(
            {"p": "sofmax_tensor", "c": "confidence", "ok": "softmax_tensor"}, small_graph()
        )
    message = str(caught.value)
    assert "\n" not in message
    assert message.count("no tensor named") == 2 and " | " in message


def test_a_variable_name_is_its_handle_and_is_refused():
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.get_variable("w", initializer=1.0)
        tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[], name="bare")
    with pytest.raises(tensor_names.VariableHandle) as caught:
        tensor_names.resolve_tensors({"w": "w"}, graph)
    assert str(caught.value) == (
        "'w' is a variable, and the tensor 'w:0' is its handle (dtype resource), "
        "not its value: log 'w/Read/ReadVariableOp', its value"
    )
    with pytest.raises(
        tensor_names.VariableHandle, match=r"log tf.identity\(bare\) named in the model_fn"
    ):
        tensor_names.resolve_tensors({"b": "bare:0"}, graph)
    with pytest.raises(tensor_names.VariableHandle) as both:  # one line, one part per handle
        tensor_names.resolve_tensors({"w": "w", "b": "bare:0"}, graph)
    assert [part.split(" is a variable")[0] for part in str(both.value).split(" | ")] == [
        "'w'",
        "'bare:0'",
    ]
    assert (
        tensor_names.resolve_tensors({"w": "w/Read/ReadVariableOp"}, graph)["w"].dtype == tf.float32
    )
    assert issubclass(tensor_names.VariableHandle, tensor_names.TensorNameProblem)
    assert issubclass(tensor_names.MissingTensor, tensor_names.TensorNameProblem)


def test_the_course_graph_global_step_is_a_handle():
    graph = model_graph.build_graph(models.cnn_model_fn, {"filters": (8, 16), "dense_units": 32})
    table = tensor_table(graph, r"^global_step(/Read/ReadVariableOp)?$").set_index("name")
    assert table.loc["global_step", "dtype"] == "resource"
    assert table.loc["global_step/Read/ReadVariableOp", "dtype"] == "int64"
    with pytest.raises(
        tensor_names.VariableHandle, match="log 'global_step/Read/ReadVariableOp', its value"
    ):
        tensor_names.resolve_tensors({"step": "global_step"}, graph)


def test_missing_tensor_is_a_one_line_workbook_problem():
    problem = tensor_names.MissingTensor("no tensor named 'x' in the graph")
    assert isinstance(problem, WorkbookProblem) and isinstance(problem, LookupError)
    assert problem._render_traceback_() == ["MissingTensor: no tensor named 'x' in the graph"]


def test_graph_of_the_course_cnn_and_its_tensor_table():
    graph = model_graph.build_graph(models.cnn_model_fn, {"filters": (8, 16), "dense_units": 32})
    table = tensor_table(graph, r"^(softmax_tensor|classes)$").set_index("name")
    assert table.loc["softmax_tensor", "shape"] == "(None, 10)"
    assert table.loc["classes", "dtype"] == "int32"
    assert not tensor_table(graph)["tensor"].str.startswith("gradients/").any()


# --- the checked logging hook in a real training ----------------------------------------


def test_stock_hook_raises_keyerror_and_checked_hook_raises_missing_tensor(tmp_path):
    with pytest.raises(
        KeyError, match=r"The name 'monitor/wieght:0' refers to a Tensor which does not exist"
    ):
        tiny_estimator(tmp_path / "stock").train(
            tiny_input_fn,
            steps=2,
            hooks=[tf.estimator.LoggingTensorHook({"w": "monitor/wieght"}, every_n_iter=1)],
        )
    with pytest.raises(
        tensor_names.MissingTensor,
        match=r"^no tensor named 'monitor/wieght' in the graph; "
        r"similar names: monitor/weight",
    ):
        tiny_estimator(tmp_path / "checked").train(
            tiny_input_fn,
            steps=2,
            hooks=[CheckedLoggingTensorHook({"w": "monitor/wieght"}, every_n_iter=1)],
        )


def test_checked_hook_logs_like_the_stock_hook(tmp_path, info_log):
    with logs.captured_log() as lines:
        tiny_estimator(tmp_path).train(
            tiny_input_fn,
            steps=5,
            hooks=[CheckedLoggingTensorHook({"w": "monitor/weight"}, every_n_iter=2)],
        )
    logged = [float(line.split(" = ")[1].split()[0]) for line in lines if line.startswith("w = ")]
    assert logged == pytest.approx([weight_at(0), weight_at(2), weight_at(4)], abs=1e-6)


def test_checked_hook_keeps_the_argument_rules():
    with pytest.raises(ValueError, match="exactly one of every_n_iter and every_n_secs"):
        CheckedLoggingTensorHook({"w": "w"})
    CheckedLoggingTensorHook({"w": "w"}, at_end=True)


# --- the progress bar -------------------------------------------------------------------


class NaiveRecorder(tf.estimator.SessionRunHook):
    """The trap: the global step fetched together with train_op."""

    def __init__(self):
        self.steps = []

    def begin(self):
        self.global_step = tf.compat.v1.train.get_global_step()

    def before_run(self, run_context):
        return tf.estimator.SessionRunArgs(self.global_step)

    def after_run(self, run_context, run_values):
        self.steps.append(int(run_values.results))


def test_the_step_fetched_with_train_op_is_the_one_before_the_update(tmp_path):
    recorder = NaiveRecorder()
    estimator = tiny_estimator(tmp_path)
    estimator.train(tiny_input_fn, steps=5, hooks=[recorder])
    assert recorder.steps == [0, 1, 2, 3, 4]
    assert estimator.get_variable_value("global_step") == 5


def test_progress_bar_ends_at_n_of_n_then_resumes_with_max_steps_and_steps(tmp_path):
    output = io.StringIO()
    bar = ProgressBar(steps=7, file=output, mininterval=0)
    tiny_estimator(tmp_path).train(tiny_input_fn, steps=7, hooks=[bar])
    assert (bar.start, bar.target, bar.last_step, bar.bar.n, bar.bar.total) == (0, 7, 7, 7, 7)
    assert "7/7" in output.getvalue().split("\r")[-1]  # what the bar shows last

    resumed = ProgressBar(max_steps=12, file=io.StringIO(), mininterval=0)
    tiny_estimator(tmp_path).train(tiny_input_fn, max_steps=12, hooks=[resumed])
    assert (resumed.start, resumed.target, resumed.last_step, resumed.bar.n) == (7, 12, 12, 12)

    more = ProgressBar(steps=3, file=io.StringIO(), mininterval=0)
    tiny_estimator(tmp_path).train(tiny_input_fn, steps=3, hooks=[more])
    assert (more.start, more.target, more.last_step, more.bar.n) == (12, 15, 15, 15)


def test_progress_bar_shows_the_real_step_when_the_input_ends_first(tmp_path):
    bar = ProgressBar(steps=10, file=io.StringIO(), mininterval=0)
    tiny_estimator(tmp_path).train(finite_input_fn, steps=10, hooks=[bar])
    assert (bar.last_step, bar.bar.n, bar.target) == (3, 3, 10)


def test_progress_bar_arguments():
    with pytest.raises(ValueError, match="exactly one of steps= or max_steps="):
        ProgressBar()
    with pytest.raises(ValueError, match="exactly one of steps= or max_steps="):
        ProgressBar(steps=3, max_steps=4)
    with pytest.raises(ValueError, match="at least 1"):
        ProgressBar(steps=0)


# --- the collector ----------------------------------------------------------------------


def test_collector_rows_hold_the_steps_and_values_before_each_update(tmp_path):
    collector = Collector({"weight": "monitor/weight", "loss": "Mean"}, every_n_steps=3)
    tiny_estimator(tmp_path).train(tiny_input_fn, steps=10, hooks=[collector])
    assert [row["step"] for row in collector.rows] == [0, 3, 6, 9]
    for row in collector.rows:
        assert row["weight"] == pytest.approx(weight_at(row["step"]), abs=1e-6)
        assert row["loss"] == pytest.approx((2 - weight_at(row["step"])) ** 2, abs=1e-6)
        assert isinstance(row["weight"], float)

    tiny_estimator(tmp_path).train(tiny_input_fn, steps=5, hooks=[collector])  # 10 -> 15
    frame = collector.frame()
    assert list(frame.index) == [0, 3, 6, 9, 12] and list(frame.columns) == ["weight", "loss"]
    assert frame.loc[12, "weight"] == pytest.approx(weight_at(12), abs=1e-6)


def test_collector_keeps_arrays_and_checks_names(tmp_path):
    collector = Collector({"w": "monitor/weight", "pair": "monitor/pair"}, every_n_steps=1)

    def model_fn(features, labels, mode):
        spec = tiny_model_fn(features, labels, mode)
        tf.stack([spec.loss, spec.loss], name="monitor/pair")
        return spec

    estimator = tf.estimator.Estimator(
        model_fn, model_dir=str(tmp_path), config=tf.estimator.RunConfig(log_step_count_steps=None)
    )
    estimator.train(tiny_input_fn, steps=2, hooks=[collector])
    assert isinstance(collector.rows[0]["pair"], np.ndarray) and collector.rows[0][
        "pair"
    ].shape == (2,)

    with pytest.raises(tensor_names.MissingTensor, match="similar names: monitor/weight"):
        tiny_estimator(tmp_path / "bad").train(
            tiny_input_fn, steps=2, hooks=[Collector({"w": "weight"}, every_n_steps=1)]
        )


def test_collector_arguments():
    with pytest.raises(ValueError, match="dict"):
        Collector(["loss"], every_n_steps=1)
    with pytest.raises(ValueError, match="at least 1"):
        Collector({"loss": "loss"}, every_n_steps=0)


# --- the hooks of a session ------------------------------------------------------------------


def test_hook_list_shows_what_estimator_adds(tmp_path):
    lister = HookList()
    estimator = tf.estimator.Estimator(
        tiny_model_fn, model_dir=str(tmp_path), config=tf.estimator.RunConfig(tf_random_seed=1)
    )
    estimator.train(tiny_input_fn, steps=3, hooks=[lister])
    table = lister.table()
    assert set(table["hook"]) == {
        "CheckpointSaverHook",
        "StepCounterHook",
        "SummarySaverHook",
        "_DatasetInitializerHook",
        "HookList",
        "StopAtStepHook",
        "NanTensorHook",
        "LoggingTensorHook",
    }
    described = dict(zip(table["hook"], table["what it does"]))
    assert (
        described["CheckpointSaverHook"]
        == "saves a checkpoint at the start, every 600 s and at the end"
    )
    assert described["StopAtStepHook"] == "stops after 3 more steps (num_steps=3)"
    assert described["LoggingTensorHook"] == "logs loss, step every 100 of its runs"
    assert described["StepCounterHook"].endswith("every 100 steps")
    assert table.loc[table["hook"] == "HookList", "added by"].item() == "you: train(hooks=[...])"
    assert list(table.index) == list(range(1, len(table) + 1))


def test_hook_list_sees_max_steps_and_needs_to_run_first(tmp_path):
    with pytest.raises(RuntimeError, match="has not run yet"):
        HookList().table()
    lister = HookList()
    tiny_estimator(tmp_path).train(tiny_input_fn, max_steps=4, hooks=[lister])
    described = dict(zip(lister.table()["hook"], lister.table()["what it does"]))
    assert described["StopAtStepHook"] == "stops at global step 4 (last_step=4)"
    assert "StepCounterHook" not in described and "LoggingTensorHook" not in described
