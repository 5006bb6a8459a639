"""What every check shares (helpers/checks/common.py): an error in the learner's code is one line.

(a) A learner's typo that hits another global (``metric.`` for ``metrics.``), raised inside the
    learner's function while a check calls it, is reported as one ``CheckFailed`` line naming the
    error and the learner's line, not a traceback through the check module;
    ``helpers.checks`` wraps every check so.
(b) When the solution cell raised, the check says so and names the error, instead of "`x` is still
    None: write your code"; a stale error (a ``raises-exception`` demonstration earlier, or the same
    cell since re-run) is not taken for it. The cells run in a real IPython shell with ipykernel's
    compiler, as in Jupyter: IPython keeps the last uncaught error in ``sys.last_value``.
(c) A whole number is an int or a float such as 500.0, never a bool (notebooks 04, 05, 07, 09).
(d) A learner's ``{key: (value, update_op)}`` metric (notebooks 03 and 06): each wrong shape of
    answer is one line, ending where the line ends when the check adds no hint; TensorFlow's own
    errors about the learner's arguments name them ``labels`` and ``classes``.
(e) A zh-TW learner reads the success line and the missing-answer message in Chinese.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import traceback
import types

import pytest

from helpers.checks.common import (
    correct,
    is_whole_number,
    reporting_learner_errors,
    require_answer,
    run_metric_pair,
)
from helpers.problems import CheckFailed
from tests import ROOT


@reporting_learner_errors
def accuracy_check(metric_fn):
    """A check like notebook 03's: it calls the learner's metric function (here on plain lists: no
    TensorFlow, which takes tens of seconds to import on a loaded machine)."""
    require_answer(metric_fn, "accuracy_ops")
    value = metric_fn([0, 1, 2, 3], [0, 1, 2, 0])["accuracy"]
    if abs(value - 0.75) > 1e-6:
        raise CheckFailed(f"the accuracy is {value:.4f}, not 0.75")
    correct("0.75")


@reporting_learner_errors
def number_check(answer):
    """A check like notebook 02's first: it only reads a value."""
    require_answer(answer, "share")
    correct(f"{answer}")


@pytest.fixture(scope="module")
def shell():
    """An IPython shell as ipykernel runs it
    (cells named by ipykernel's compiler), its history in memory."""
    from IPython.core.interactiveshell import InteractiveShell
    from ipykernel.compiler import XCachingCompiler
    from traitlets.config import Config

    saved = sys.displayhook, sys.excepthook
    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=config, compiler_class=XCachingCompiler)
    shell.user_ns.update(accuracy_check=accuracy_check, number_check=number_check)
    yield shell
    InteractiveShell.clear_instance()
    sys.displayhook, sys.excepthook = saved
    for name in ("last_type", "last_value", "last_traceback"):
        sys.__dict__.pop(name, None)


def run(shell, source: str):
    """Run one cell as Jupyter would; the error it raised, or None."""
    result = shell.run_cell(source, store_history=True)
    return result.error_in_exec or result.error_before_exec


# (a) an error raised in the learner's code while the check runs it


def test_every_exported_check_reports_learner_errors_in_one_line():
    """Each notebook's module decorates its checks itself (no loop over a package's globals)."""
    unwrapped = []
    for path in sorted((ROOT / "helpers" / "checks").glob("notebook*.py")):
        module = importlib.import_module(f"helpers.checks.{path.stem}")
        functions = [name for name in module.__all__ if inspect.isfunction(getattr(module, name))]
        assert functions, path
        unwrapped += [
            f"{path.stem}.{name}"
            for name in functions
            if not hasattr(getattr(module, name), "__wrapped__")
        ]
    assert unwrapped == [], (
        f"these checks lack @reporting_learner_errors (helpers/checks/common.py): {unwrapped}"
    )


def test_a_typo_that_hits_another_global_is_one_line_naming_it_and_the_learners_line(shell):
    assert (
        run(shell, 'metric = {"name": "accuracy"}  # another global, say a loop variable') is None
    )
    assert (
        run(
            shell,
            "accuracy_ops = None\n"
            "def accuracy_ops(labels, classes):\n"
            "    return {'accuracy': metric.accuracy(labels, classes)}",
        )
        is None
    )
    error = run(shell, "accuracy_check(accuracy_ops)")
    assert isinstance(error, CheckFailed)
    assert str(error) == (
        "your code raised AttributeError: 'dict' object has no attribute 'accuracy', at line 3 "
        "of `accuracy_ops`: `return {'accuracy': metric.accuracy(labels, classes)}`: fix it and "
        "run its cell again"
    )
    assert error.__suppress_context__ and error._render_traceback_() == [f"CheckFailed: {error}"]


def test_a_name_error_in_a_learners_function_names_the_line():
    def accuracy_ops(labels, classes):
        return {"accuracy": metrics.accuracy(labels, classes)}  # noqa: F821 - the typo

    with pytest.raises(CheckFailed) as raised:
        accuracy_check(accuracy_ops)
    assert str(raised.value).startswith(
        "your code raised NameError: name 'metrics' is not defined, at line "
    )
    assert str(raised.value).endswith(  # a file of the project is named
        ' of `accuracy_ops` in tests/helpers/checks/test_common.py: `return {"accuracy": '
        "metrics.accuracy(labels, classes)}  # noqa: F821 - the typo`: fix it and run its cell "
        "again"
    )


class GraphExecutionError(Exception):
    """What tf.errors.OpError looks like to the check (measured on TF 2.15: session.run raises it
    from TensorFlow's frames only; ``error.op.traceback`` holds the frames where the op was built,
    the learner's among them)."""

    def __init__(self, built_at):
        super().__init__(
            "Graph execution error:\n\nDetected at node "
            "'assert_less/Assert/Assert' defined at (most "
            'recent call last):\n    File "x.py", line 3, in learner\nNode: \'assert_less/Assert/'
            "Assert'\nassertion failed: [labels must be 0 or 1] [Condition x < y did not hold]"
        )
        self.op = types.SimpleNamespace(traceback=built_at)


def test_an_error_tensorflow_raises_while_running_the_graph_names_the_line_that_built_the_op():
    def accuracy_ops(labels, classes):
        check = labels_below(2)  # the learner's line that builds the failing op
        return {"accuracy": check}

    def labels_below(limit):
        return limit

    code = accuracy_ops.__code__
    built_at = [
        traceback.FrameSummary(code.co_filename, code.co_firstlineno + 1, "accuracy_ops"),
        traceback.FrameSummary(sys.modules["json"].__file__, 1, "library_code"),
    ]

    @reporting_learner_errors
    def running_check(metric_fn):
        metric_fn([0], [0])
        # raised by session.run, in the check's (TensorFlow's) frames only
        raise GraphExecutionError(built_at)

    with pytest.raises(CheckFailed) as raised:
        running_check(accuracy_ops)
    assert str(raised.value) == (
        "your code raised GraphExecutionError: assertion failed: [labels must be 0 or 1] "
        "[Condition x < y did not hold], at line "
        f"{code.co_firstlineno + 1} of `accuracy_ops` in tests/helpers/checks/test_common.py: "
        "`check = labels_below(2)  # the learner's line that builds the failing op`: fix "
        "it and run its cell again"
    )


def test_an_error_of_the_check_itself_is_raised_unchanged():
    @reporting_learner_errors
    def broken_check(answer):
        return {}["missing"]

    with pytest.raises(KeyError):
        broken_check(1)


def test_a_wrong_answer_keeps_the_checks_own_message():
    def accuracy_ops(labels, classes):
        return {"accuracy": 1.0}

    with pytest.raises(CheckFailed, match=r"^the accuracy is 1\.0000, not 0\.75$"):
        accuracy_check(accuracy_ops)


def test_a_learner_error_the_check_reported_itself_keeps_the_checks_message():
    @reporting_learner_errors
    def schedule_check(schedule):
        try:
            schedule(0)
        except Exception as error:
            raise CheckFailed(
                f"calling `schedule(0)` failed with {type(error).__name__}: {error}"
            ) from None

    def schedule(step):
        return initial_rate * 0.1 ** (step / 1500)  # noqa: F821 - the learner's typo

    with pytest.raises(
        CheckFailed,
        match=r"^calling `schedule\(0\)` failed with NameError: name 'initial_rate' is "
        "not defined$",
    ):
        schedule_check(schedule)


# (b) the solution cell raised: say so, and name the error


def test_a_solution_cell_that_raised_is_named_with_its_error_and_line(shell):
    error = run(shell, "share = None\nshare = (mnist_labels == 1).mean()")
    assert isinstance(error, NameError)
    failed = run(shell, "number_check(share)")
    assert isinstance(failed, CheckFailed)
    assert str(failed) == (
        "`share` is still None because the cell that sets it raised NameError: name "
        "'mnist_labels' is not defined, at line 2: `share = (mnist_labels == 1).mean()`: fix that "
        "line and run the cell again"
    )


def test_running_the_check_again_names_the_error_again(shell):
    """The check's own failure replaces the solution cell's error in sys.last_value."""
    assert isinstance(run(shell, "share = None\nshare = mnist_labels.mean()"), NameError)
    first, second = run(shell, "number_check(share)"), run(shell, "number_check(share)")
    assert str(first) == str(second)
    assert str(second).startswith(
        "`share` is still None because the cell that sets it raised NameError: "
    )


def test_a_syntax_error_in_the_solution_cell_is_named(shell):
    assert isinstance(run(shell, "share = None\nshare = (1 + 2"), SyntaxError)
    failed = run(shell, "number_check(share)")
    assert str(failed).startswith(
        "`share` is still None because the cell that sets it raised SyntaxError: "
    )
    assert "at line 2: `share = (1 + 2`" in str(failed)


def test_an_untouched_solution_cell_gets_write_your_code(shell):
    assert isinstance(
        run(shell, "share = None\n# YOUR CODE HERE\nraise NotImplementedError()"),
        NotImplementedError,
    )
    assert str(run(shell, "number_check(share)")).startswith(
        "`share` is still None: write your code"
    )


def test_an_earlier_demonstration_error_is_not_taken_for_the_solution_cells(shell):
    assert isinstance(
        run(shell, "%xmode Minimal\nint('seven')  # raises-exception: shown on purpose"), ValueError
    )
    assert run(shell, "%xmode Context") is None
    assert (
        run(shell, "share = None\nshre = 0.11  # the learner's typo: no error, share stays None")
        is None
    )
    assert str(run(shell, "number_check(share)")).startswith(
        "`share` is still None: write your code"
    )


def test_a_solution_cell_run_again_without_an_error_is_not_blamed_for_its_old_one(shell):
    assert isinstance(run(shell, "share = None\nshare = (mnist_labels == 1).mean()"), NameError)
    assert run(shell, "share = None\nshre = 0.11") is None  # fixed the error, but not the name
    assert str(run(shell, "number_check(share)")).startswith(
        "`share` is still None: write your code"
    )


def test_an_error_of_another_cell_run_after_the_solution_cell_is_not_blamed_on_it(shell):
    """The solution cell raised, then another cell that does not set the answer: IPython kept only
    that cell's error, which is not the answer's, so the check says the plain thing."""
    assert isinstance(run(shell, "share = None\nshare = (mnist_labels == 1).mean()"), NameError)
    assert isinstance(run(shell, "print(undefined_name)"), NameError)
    assert str(run(shell, "number_check(share)")).startswith(
        "`share` is still None: write your code"
    )


def test_without_ipython_the_message_is_the_plain_one(monkeypatch):
    import IPython

    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    monkeypatch.setattr(sys, "last_value", NameError("name 'x' is not defined"), raising=False)
    with pytest.raises(CheckFailed, match="^`share` is still None: write your code"):
        number_check(None)


# (c) whole numbers


@pytest.mark.parametrize(
    "value, whole",
    [
        (3, True),
        (500.0, True),
        (2.5, False),
        ("3", False),
        (None, False),
        (True, False),
        (False, False),
    ],
)
def test_a_whole_number_is_an_int_or_a_whole_float_and_never_a_bool(value, whole):
    assert is_whole_number(value) is whole


# (d) a learner's (value, update_op) metric, run on two batches

BATCHES = [([0, 1, 2, 3], [0, 1, 2, 0]), ([4, 5], [4, 4])]


def metric_message(build) -> str:
    """The one line ``run_metric_pair`` gives for ``build``, with no hint of a check's own."""
    with pytest.raises(CheckFailed) as caught:
        run_metric_pair(build, "precision_ops", "precision", BATCHES)
    return str(caught.value)


def test_each_wrong_shape_of_metric_is_one_line_with_no_hint_added_by_default():
    import tensorflow as tf

    def keras_metric(labels, classes):
        metric = tf.keras.metrics.Mean()
        metric.update_state(tf.cast(tf.equal(labels, classes), tf.float32))
        return {"precision": metric}

    def batch_value(labels, classes):
        return {
            "precision": (
                tf.reduce_mean(tf.cast(tf.equal(labels, classes), tf.float32)),
                tf.no_op(),
            )
        }

    assert metric_message(keras_metric).endswith(
        "(F1Score's stays 0.0); return a `(value, update_op)` pair"
    )
    bare = metric_message(lambda labels, classes: {"precision": tf.constant(1.0)})
    assert bare.startswith("ops['precision'] is a ") and bare.endswith(
        "Tensor, not a `(value, update_op)` pair"
    )
    assert metric_message(batch_value) == (
        "the value needs the current batch to be computed: it must read the totals that the "
        "update op accumulates"
    )


@pytest.mark.parametrize("argument", ["labels", "classes"])
def test_tensorflow_errors_about_the_learners_arguments_name_them(argument):
    """Indexing ``labels`` or ``classes`` as if one-hot: TensorFlow's message names the input by
    the argument's name, as the learner's function calls it."""
    import tensorflow as tf

    def one_hot_by_mistake(labels, classes):
        given = {"labels": labels, "classes": classes}[argument]
        return {"precision": tf.compat.v1.metrics.mean(given[:, 0])}

    with pytest.raises(ValueError, match=rf"\({argument}, strided_slice/stack"):
        run_metric_pair(one_hot_by_mistake, "precision_ops", "precision", BATCHES)


# (e) in zh-TW: the check's own words come from the catalogue


def test_a_zh_tw_learner_reads_correct_and_the_missing_answer_in_chinese(zh_tw, capsys):
    zh_tw(
        {
            "Correct: {message}": "正確：{message}",
            "`{name}` is still None: write your code where the exercise says `# YOUR CODE HERE` "
            "(and remove `raise NotImplementedError()`)": (
                "`{name}` 仍然是 None：請在練習標示 `# YOUR CODE HERE` 的地方寫你的程式碼"
                "（並刪掉 `raise NotImplementedError()`）"
            ),
        }
    )
    correct("0.75 是準確率")
    assert capsys.readouterr().out == "正確：0.75 是準確率\n"
    with pytest.raises(CheckFailed) as caught:
        require_answer(None, "accuracy_ops")
    assert str(caught.value) == (
        "`accuracy_ops` 仍然是 None：請在練習標示 `# YOUR CODE HERE` 的地方寫你的程式碼"
        "（並刪掉 `raise NotImplementedError()`）"
    )
