"""Notebook 05's exercise checks on right answers and on a bank of plausible wrong ones:
no wrong answer passes, no right one fails, and each message names the mistake without handing
over the answer.

Exercise 1's graph is the notebook's: the small course CNN, whose output layer the learner finds
by name; exercise 2 trains a one-variable model with the learner's stopping hook; exercise 3 is
arithmetic.
"""

import numpy as np
import pytest
import tensorflow as tf

from helpers import model_graph, models, tensor_names
from helpers.checks import notebook05 as checks
from tests.support.banks import bank, by_name, entry
from tests.support.checks import assert_names_the_mistake, failure, notebook_headings, zh_tw_heading
from tests.support.models import SMALL_CNN

# The kinds that do not apply, argued (tests/support/banks.py).
NOT_APPLICABLE = {
    1: {
        "hard-coded from an output above": (
            "tensor names, read off tensor_table as asked: no number"
        ),
        "forbidden API": "the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "names in the notebook's one graph: no other graph they must work in"
        ),
    },
    2: {
        "wrong unit": (
            "the answer is not a quantity (an Estimator, a train op, a hook, a config): no unit"
        ),
        "hard-coded from an output above": "a hook class: the check gives its tensor and threshold",
    },
    3: {
        "copy of a nearby cell": "no cell above runs these two calls",
        "forbidden API": (
            "a value: the check cannot see how it was found (the prompt asks to work it out "
            "without running)"
        ),
        "right on the notebook's data, wrong in general": (
            "a value: the check sees no code it could run on other data"
        ),
    },
}


# --------------------------------------------------------------------------- exercise 1

GRAPHS = {}


@pytest.fixture(autouse=True)
def one_graph_per_model(monkeypatch):
    """The check builds the CNN's graph for every answer (0.6 s each): here it is built once per
    model_fn and params, and only looked up in (nothing the check does changes it)."""
    build = model_graph.build_graph

    def built_once(model_fn, params=None, *args, **kwargs):
        key = (model_fn, repr(params), repr(args), repr(sorted(kwargs.items())))
        if key not in GRAPHS:
            GRAPHS[key] = build(model_fn, params, *args, **kwargs)
        return GRAPHS[key]

    monkeypatch.setattr(model_graph, "build_graph", built_once)


RIGHT = {"logits": "dense_1/BiasAdd", "output bias": "dense_1/bias/Read/ReadVariableOp"}


@pytest.mark.parametrize(
    "answer",
    [
        RIGHT,
        pytest.param(
            {tag: name + ":0" for tag, name in RIGHT.items()},
            marks=bank(1, "right, written otherwise"),
        ),
        {"logits": "dense_1/BiasAdd", "output bias": "dense_1/BiasAdd/ReadVariableOp"},
    ],
    ids=["names", "with :0", "the read inside BiasAdd"],
)
def test_exercise_1_right_answers_pass(capsys, answer):
    checks.output_layer_tensors(answer, models.cnn_model_fn, SMALL_CNN)
    assert capsys.readouterr().out.startswith(
        "Correct: both names are in the graph: logits -> dense_1/BiasAdd:0, output bias -> dense_1/"
    )


EXERCISE_1_WRONG = {
    "blank": (None, "`output_tensors` is still None"),
    "a list": (["dense_1/BiasAdd", "dense_1/bias"], "should be a dict {tag: tensor name}"),
    "a tag renamed": (
        {"logits": "dense_1/BiasAdd", "bias": "dense_1/bias"},
        "should have the tags",
    ),
    "a tensor, not a name": (
        {"logits": "dense_1/BiasAdd", "output bias": 3},
        "should be a tensor *name*",
    ),
    "the break-it names": pytest.param(
        {"logits": "logits", "output bias": "dense_1/bias"},
        "'logits' names no tensor in the CNN's graph, so a hook would fail when training starts:"
        " tensor_table lists the names there (section 'Naming tensors so a hook can find them')",
        marks=bank(1, "copy of a nearby cell"),
    ),
    "the layer's name": (
        {"logits": "dense_1", "output bias": RIGHT["output bias"]},
        "names no tensor",
    ),
    "a second output": (
        {"logits": "dense_1/BiasAdd:1", "output bias": RIGHT["output bias"]},
        "names no tensor",
    ),
    # probabilities where logits are asked
    "the probabilities": pytest.param(
        {"logits": "softmax_tensor", "output bias": RIGHT["output bias"]},
        "is the probabilities",
        marks=bank(1, "wrong unit"),
    ),
    "before the bias": (
        {"logits": "dense_1/MatMul", "output bias": RIGHT["output bias"]},
        "before the output layer adds its bias",
    ),
    # dense for dense_1
    "the hidden layer": pytest.param(
        {"logits": "dense/BiasAdd", "output bias": RIGHT["output bias"]},
        "belongs to the hidden layer",
        marks=bank(1, "off by one"),
    ),
    "the classes": (
        {"logits": "classes", "output bias": RIGHT["output bias"]},
        "is not the output layer's result",
    ),
    "the bias variable": (
        {"logits": "dense_1/BiasAdd", "output bias": "dense_1/bias"},
        "names a variable: a hook would get its handle (dtype resource), not its value "
        "(section 'A variable's name is not its value')",
    ),
    "the bias with :0": (
        {"logits": "dense_1/BiasAdd", "output bias": "dense_1/bias:0"},
        "names a variable",
    ),
    "the hidden bias": (
        {"logits": "dense_1/BiasAdd", "output bias": "dense/bias/Read/ReadVariableOp"},
        "the hidden layer's",
    ),
    "the kernel": (
        {"logits": "dense_1/BiasAdd", "output bias": "dense_1/kernel/Read/ReadVariableOp"},
        "is a kernel",
    ),
    "the logits as bias": (
        {"logits": "dense_1/BiasAdd", "output bias": "dense_1/BiasAdd"},
        "one row per example",
    ),
    # the bias's shape, not its value
    "Adam's slot": pytest.param(
        {"logits": "dense_1/BiasAdd", "output bias": "dense_1/bias/Adam/Read/ReadVariableOp"},
        "has the bias's shape but is not its value",
        marks=bank(1, "right shape, wrong content"),
    ),
}


# Beyond the bank that notebook 05's closing note counts: tensors few learners pick, which the
# messages' last cases are for.
EXERCISE_1_ODD_ONES = {
    # tensor_table(graph, "softmax") lists it, and its op is "...WithLogits"
    "the loss op's second output": (
        {
            "logits": "sparse_softmax_cross_entropy_loss/xentropy/xentropy:1",
            "output bias": RIGHT["output bias"],
        },
        "(a SparseSoftmaxCrossEntropyWithLogits op, shape (None, 10)) is not the output layer's "
        "result",
    ),
    # the name exercise 2 gives as an example
    "the loss as the bias": (
        {"logits": "dense_1/BiasAdd", "output bias": "sparse_softmax_cross_entropy_loss/value"},
        "(a DivNoNan op, shape ()) is not the value of the output layer's bias",
    ),
}


@pytest.mark.parametrize("name", by_name(EXERCISE_1_WRONG, EXERCISE_1_ODD_ONES))
def test_exercise_1_wrong_answers_fail_and_say_why(name):
    answer, words = entry({**EXERCISE_1_WRONG, **EXERCISE_1_ODD_ONES}[name])
    message = failure(checks.output_layer_tensors, answer, models.cnn_model_fn, SMALL_CNN)
    assert words in message, message
    assert "BiasAdd'" not in message.replace(
        f"'{answer.get('logits') if isinstance(answer, dict) else ''}", ""
    )
    assert "Read/ReadVariableOp" not in message or "Read/ReadVariableOp" in str(answer), message


def test_exercise_1_right_names_are_in_the_graph_the_hook_sees():
    """The expected tensors exist in the CNN's training graph,
    as `tensor_names.resolve_tensors` finds them."""
    from helpers.model_graph import build_graph

    found = tensor_names.resolve_tensors(
        list(RIGHT.values()), build_graph(models.cnn_model_fn, SMALL_CNN)
    )
    assert [tensor.name for tensor in found.values()] == [
        "dense_1/BiasAdd:0",
        "dense_1/bias/Read/ReadVariableOp:0",
    ]


# --------------------------------------------------------------------------- exercise 2


class StopBelow(tf.estimator.SessionRunHook):
    """The notebook's solution."""

    def __init__(self, tensor_name, threshold):
        self.tensor_name, self.threshold = tensor_name, threshold

    def begin(self):
        self.tensor = tensor_names.resolve_tensors([self.tensor_name])[self.tensor_name]

    def before_run(self, run_context):
        return tf.estimator.SessionRunArgs(self.tensor)

    def after_run(self, run_context, run_values):
        if run_values.results < self.threshold:
            run_context.request_stop()


def full_name(name):
    """A tensor's name as the graph takes it: with the index of the op's output, ':0' if none."""
    return name if ":" in name else name + ":0"


class ByGraphName(StopBelow):
    def begin(self):
        graph = tf.compat.v1.get_default_graph()
        self.tensor = graph.get_tensor_by_name(full_name(self.tensor_name))


class FixedThreshold(StopBelow):  # right on the notebook's threshold, 0.5, wrong in general
    def after_run(self, run_context, run_values):
        if run_values.results < 0.5:
            run_context.request_stop()


class Never(StopBelow):
    def after_run(self, run_context, run_values):
        pass


class Reversed(StopBelow):
    def after_run(self, run_context, run_values):
        if run_values.results > self.threshold:
            run_context.request_stop()


class Late(StopBelow):
    """Remembers the value and asks to stop before the next run."""

    below = False

    def before_run(self, run_context):
        if self.below:
            run_context.request_stop()
        return super().before_run(run_context)

    def after_run(self, run_context, run_values):
        self.below = run_values.results < self.threshold


class ReadsAgain(StopBelow):
    """Reads the tensor in a run of its own after the step: the loss with the updated weight."""

    def before_run(self, run_context):
        return None

    def after_run(self, run_context, run_values):
        if run_context.session.run(self.tensor) < self.threshold:
            run_context.request_stop()


class Swapped(StopBelow):
    def __init__(self, threshold, tensor_name):
        super().__init__(tensor_name, threshold)


class BareName(StopBelow):
    def begin(self):
        self.tensor = tf.compat.v1.get_default_graph().get_tensor_by_name(self.tensor_name)


class NoArguments(StopBelow):
    def __init__(self):
        super().__init__("tiny/loss", 0.5)


class TypoInInit(StopBelow):
    def __init__(self, tensor_name, threshold):
        self.tensor_name, self.treshold = tensor_name, threshhold  # noqa: F821 - the learner's typo


class EveryTenRuns(StopBelow):
    """Fetches the value every 10th run only, as LoggingTensorHook's every_n_iter does."""

    runs = 0

    def before_run(self, run_context):
        self.runs += 1
        return super().before_run(run_context) if self.runs % 10 == 1 else None

    def after_run(self, run_context, run_values):
        if run_values.results is not None:
            super().after_run(run_context, run_values)


class OpName(StopBelow):
    """Fetches the name as it was given, an op's name without ':0' (issue 32): session.run gives
    None for it, and the comparison raised a bare TypeError."""

    def before_run(self, run_context):
        return tf.estimator.SessionRunArgs(self.tensor_name)


class OpObject(StopBelow):
    """Fetches the operation the name resolves to, not its output."""

    def begin(self):
        self.tensor = tf.compat.v1.get_default_graph().get_operation_by_name(self.tensor_name)


class NotAHook:
    def __init__(self, tensor_name, threshold):
        pass


class FetchesGlobalStep(StopBelow):
    """Fetches the global step, as the notebook's CallOrder hook does, and compares it."""

    def begin(self):
        self.tensor = tf.compat.v1.train.get_global_step()


class FetchesStepByName(StopBelow):
    """Fetches the step the notebook's LoggingTensorHook logs, by its name."""

    def before_run(self, run_context):
        return tf.estimator.SessionRunArgs("global_step/Read/ReadVariableOp:0")


class FetchesTheWeight(StopBelow):
    """Fetches the model's one trainable variable, whatever its name."""

    def begin(self):
        self.tensor = tf.compat.v1.trainable_variables()[0]


class ComparesTheStepBeside(StopBelow):
    """Fetches the tensor and the global step, as LoggingTensorHook's dict, and compares the
    step."""

    def before_run(self, run_context):
        step = tf.compat.v1.train.get_global_step()
        return tf.estimator.SessionRunArgs({"value": self.tensor, "step": step})

    def after_run(self, run_context, run_values):
        if run_values.results["step"] < self.threshold:
            run_context.request_stop()


class TheLossWhateverTheName(StopBelow):
    """Watches the Estimator's loss (the LOSSES collection), not the tensor it is given."""

    def begin(self):
        self.tensor = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.LOSSES)[0]


class TheNotebooksLossName(StopBelow):
    """Looks up the name the prompt gives as an example, not the one it is given."""

    def begin(self):
        graph = tf.compat.v1.get_default_graph()
        self.tensor = graph.get_tensor_by_name("sparse_softmax_cross_entropy_loss/value:0")


class RaisesStopIteration(StopBelow):
    def after_run(self, run_context, run_values):
        if run_values.results < self.threshold:
            raise StopIteration


class RaisesOutOfRange(StopBelow):
    def after_run(self, run_context, run_values):
        if run_values.results < self.threshold:
            raise tf.errors.OutOfRangeError(None, None, "below the threshold")


class AlwaysStops(StopBelow):
    def after_run(self, run_context, run_values):
        run_context.request_stop()


class ListOfOne(StopBelow):
    """Fetches a list of the one tensor, and compares the list."""

    def before_run(self, run_context):
        return tf.estimator.SessionRunArgs([self.tensor])


class DictFetch(StopBelow):
    def before_run(self, run_context):
        return tf.estimator.SessionRunArgs({"value": full_name(self.tensor_name)})

    def after_run(self, run_context, run_values):
        if run_values.results["value"] < self.threshold:
            run_context.request_stop()


class ListFetch(StopBelow):
    def before_run(self, run_context):
        return tf.estimator.SessionRunArgs([self.tensor])

    def after_run(self, run_context, run_values):
        if run_values.results[0] < self.threshold:
            run_context.request_stop()


class LooksUpInTheSession(StopBelow):
    """Looks the tensor up once the session exists, in the session's graph; compares as "not at
    or above"."""

    def begin(self):
        pass

    def after_create_session(self, session, coord):
        self.tensor = session.graph.as_graph_element(full_name(self.tensor_name))

    def after_run(self, run_context, run_values):
        if not float(run_values.results) >= self.threshold:
            run_context.request_stop()


class ThroughTheCoordinator(StopBelow):
    """Keeps the coordinator that after_create_session is given, and stops with it."""

    def after_create_session(self, session, coord):
        self.coord = coord

    def after_run(self, run_context, run_values):
        if run_values.results < self.threshold:
            self.coord.request_stop()


class ReadsBeforeTheStep(StopBelow):
    """Reads the value in a run of its own before the step (the same weights), and asks to stop
    there: that step still runs, and the run ends after it, where the check's model (one example,
    for ever) ends it; a real input gives that run a batch of its own, which training skips."""

    def before_run(self, run_context):
        if run_context.session.run(self.tensor) < self.threshold:
            run_context.request_stop()

    def after_run(self, run_context, run_values):
        pass


@pytest.mark.parametrize(
    "answer",
    [
        StopBelow,
        pytest.param(ByGraphName, marks=bank(2, "right, written otherwise")),
        pytest.param(DictFetch, marks=bank(2, "right, written otherwise")),
        pytest.param(ListFetch, marks=bank(2, "right, written otherwise")),
        pytest.param(LooksUpInTheSession, marks=bank(2, "right, written otherwise")),
        pytest.param(ThroughTheCoordinator, marks=bank(2, "right, written otherwise")),
    ],
    ids=[
        "resolve_tensors",
        "get_tensor_by_name, ':0' added when missing",
        "a dict fetch",
        "a list fetch",
        "looked up in after_create_session, not at or above",
        "stopped through the coordinator",
    ],
)
def test_exercise_2_right_answers_pass(capsys, answer):
    checks.stop_below_hook(answer)
    assert capsys.readouterr().out.startswith(
        "Correct: on a model whose loss falls below 0.5 in the step that "
        "starts at global step 18, training should end at global step 19"
    )


EXERCISE_2_WRONG = {
    "blank": (None, "`StopBelow` is still None"),
    "an instance": (StopBelow("tiny/loss", 0.5), "the class itself, not an instance"),
    "not a hook": (NotAHook, "should be a class that subclasses tf.estimator.SessionRunHook"),
    "a function": (lambda tensor_name, threshold: None, "should be a class"),
    "no arguments": (NoArguments, "it should take the tensor's name and the threshold"),
    "a threshold of its own (0.5, the notebook's)": pytest.param(
        FixedThreshold,
        "with the threshold 0.3, below which the loss falls in the step that starts at global "
        "step 30, training ended at global step 19, not 31",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    "never stops": (Never, "training ran all 100 steps: on a model whose loss falls below 0.5"),
    "comparison reversed": pytest.param(
        Reversed,
        "the comparison is the wrong way round",
        marks=bank(2, "right shape, wrong content"),
    ),
    "one step late": pytest.param(Late, "one step late", marks=bank(2, "off by one")),
    "reads again after the step": (ReadsAgain, "too early"),
    "arguments swapped": (
        Swapped,
        "and made as `StopBelow(0.5, 'tiny/loss')` the hook works: its __init__ takes the two "
        "arguments the other way round; the exercise makes it as "
        "`StopBelow(tensor_name, threshold)`",
    ),
    "a typo in __init__": (
        TypoInInit,
        "`StopBelow('tiny/loss', 0.5)` raised `NameError: name 'threshhold' is not defined`",
    ),
    "bare name to get_tensor_by_name": (
        BareName,
        "`StopBelow('tiny/loss', 0.5)` raised `ValueError: The name 'tiny/loss' refers to an "
        "Operation, not a Tensor.",
    ),
    # issue: told "the comparison is the wrong way round"; it compared the global step (0)
    "the global step, as CallOrder fetches it": pytest.param(
        FetchesGlobalStep,
        "`StopBelow('tiny/loss', 0.5)` fetched 'global_step:0', not the tensor named 'tiny/loss' "
        "that it is given, so it compared another value with the threshold",
        marks=bank(2, "copy of a nearby cell"),
    ),
    "the step the logging cell logs, by its name": pytest.param(
        FetchesStepByName,
        "fetched 'global_step/Read/ReadVariableOp:0', not the tensor named 'tiny/loss'",
        marks=bank(2, "copy of a nearby cell"),
    ),
    # had been told "training ran all 100 steps ... the hook never ended the run"
    "the model's variable": pytest.param(
        FetchesTheWeight,
        "fetched 'w:0', not the tensor named 'tiny/loss' that it is given",
        marks=bank(2, "right shape, wrong content"),
    ),
    "the step compared, fetched beside the tensor": pytest.param(
        ComparesTheStepBeside,
        "your hook asked to stop in the step that starts at global step 0, the first in which "
        "'global_step:0', which it fetches beside 'tiny/loss', is below 0.5: it compared "
        "'global_step:0', not the tensor it is given, with the threshold",
        marks=bank(2, "right shape, wrong content"),
    ),
    # had passed: the one-variable model's loss is the tensor the check gave
    "the Estimator's loss, whatever the name": pytest.param(
        TheLossWhateverTheName,
        "`StopBelow('tiny/gap', 0.5)` fetched 'tiny/loss:0', not the tensor named 'tiny/gap'",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    "the prompt's example name": pytest.param(
        TheNotebooksLossName,
        "your hook looked up 'sparse_softmax_cross_entropy_loss/value:0', which this model's "
        "graph does not have, not 'tiny/loss', the name `StopBelow('tiny/loss', 0.5)` is given: "
        "look that tensor up by the name it is given (section 'Naming tensors so a hook can find "
        "them')",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    # had passed: the session takes these for the end of the input
    "StopIteration raised": pytest.param(
        RaisesStopIteration,
        "your hook ended the run by raising `StopIteration`, which the session takes for the end "
        "of the input: the exercise asks for an end without an error, as `StopAtStepHook`'s",
        marks=bank(2, "forbidden API"),
    ),
    "OutOfRangeError raised": pytest.param(
        RaisesOutOfRange,
        "your hook ended the run by raising `OutOfRangeError`",
        marks=bank(2, "forbidden API"),
    ),
    # had passed: the one-variable model's input is the same example every run
    "read in a run of its own before the step": pytest.param(
        ReadsBeforeTheStep,
        "your hook reads 'tiny/loss' with a `session.run` of its own, which computes it again (in "
        "a real training on the next batch of the input, which the training then skips): compare "
        "the value that the training step itself computed (section 'What a hook is, and when it "
        "is called')",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    # had been told "the comparison is the wrong way round"
    "always stops": (AlwaysStops, "it ends there whatever the threshold"),
    "a list of one value compared": (
        ListOfOne,
        "in training with `StopBelow('tiny/loss', 0.5)`, your hook's `after_run()` raised "
        "`TypeError: '<' not supported between instances of 'list' and 'float'`",
    ),
    "an op name fetched, without :0": (
        OpName,
        "your hook's before_run asks for 'tiny/loss', the name of an operation, not of a tensor, "
        "so the value it gets back is None: a tensor's name ends in the index of the op's output, "
        "'tiny/loss:0' for its first",
    ),
}


@pytest.mark.parametrize("name", by_name(EXERCISE_2_WRONG))
def test_exercise_2_wrong_answers_fail_and_say_why(name):
    answer, words = entry(EXERCISE_2_WRONG[name])
    assert_names_the_mistake(
        failure(checks.stop_below_hook, answer), words, ("request_stop", "SessionRunArgs")
    )


def test_exercise_2_a_global_step_fetched_is_named_not_a_reversed_comparison():
    """Outside testers: a hook that fetched the global step was told "the comparison is the
    wrong way round"; its comparison was right, its fetch was the global step."""
    message = failure(checks.stop_below_hook, FetchesGlobalStep)
    assert "wrong way round" not in message, message
    assert "'global_step:0'" in message and "'tiny/loss'" in message, message
    assert message.endswith("(section 'Naming tensors so a hook can find them')"), message


def test_exercise_2_an_op_name_is_not_the_bare_type_error():
    """Issue 32: the op name fetched as it is gave "TypeError: '<' not supported between instances
    of 'NoneType' and 'float'"; now the message names the operation and the section."""
    message = failure(checks.stop_below_hook, OpName)
    assert "TypeError" not in message and "NoneType" not in message, message
    assert message.endswith("(section 'Naming tensors so a hook can find them')"), message


def test_exercise_2_an_operation_fetched_is_named():
    assert_names_the_mistake(
        failure(checks.stop_below_hook, OpObject),
        "your hook's before_run asks for the operation 'tiny/loss' rather than one of its tensors, "
        "so the value it gets back is None",
        ("request_stop", "SessionRunArgs"),
    )


def test_exercise_2_a_name_with_its_index_passes(capsys):
    """The string fetch that is right: the op's name with ':0' names its tensor (added only to a
    name without an index)."""

    class TensorName(StopBelow):
        def before_run(self, run_context):
            return tf.estimator.SessionRunArgs(full_name(self.tensor_name))

    checks.stop_below_hook(TensorName)
    assert capsys.readouterr().out.startswith("Correct: on a model whose loss falls below 0.5")


# LoggingTensorHook's every_n_iter, from the sections above, carried over
@bank(2, "copy of a nearby cell")
def test_exercise_2_stopping_late_by_more_than_a_step():
    """Beyond the counted bank: a hook that looks every 10th run stops at 21; the message says it
    looked only every 10 runs (it had been the check's last message, "ended at global step 21")."""
    assert_names_the_mistake(
        failure(checks.stop_below_hook, EveryTenRuns),
        "your hook fetched 'tiny/loss' only every 10 runs, from the one at global step 0: not in "
        "the step that starts at global step 18, the first in which it is below 0.5, so training "
        "ended at global step 21, not 19; look at the value in every step",
        ("request_stop", "SessionRunArgs"),
    )


# The blind adversary's finds (round 1, from the zh-TW student copy), beyond the bank that notebook
# 05's closing note counts: answers that passed, or were refused for another reason than theirs.


class AppendsZero(StopBelow):
    """Adds ':0' to any name: right for 'tiny/loss', not for 'tiny/loss:0' (find 1)."""

    def begin(self):
        self.tensor = tf.compat.v1.get_default_graph().get_tensor_by_name(self.tensor_name + ":0")


class FirstOutputOfTheOp(StopBelow):
    """The first output of the op named so: no op is named 'tiny/loss:0' (find 1)."""

    def begin(self):
        op = tf.compat.v1.get_default_graph().get_operation_by_name(self.tensor_name)
        self.tensor = op.outputs[0]


class IndexMadeZero(StopBelow):
    """Cuts the index off and adds ':0': 'op:1' becomes 'op:0', another tensor (find 1)."""

    def begin(self):
        graph = tf.compat.v1.get_default_graph()
        self.tensor = graph.get_tensor_by_name(self.tensor_name.split(":")[0] + ":0")


class AtOrBelow(StopBelow):
    """Stops at a value equal to the threshold too: "below" is strict (find 2)."""

    def after_run(self, run_context, run_values):
        if run_values.results <= self.threshold:
            run_context.request_stop()


class InTenths(StopBelow):
    """Compares in whole tenths, truncated: right on the notebook's numbers only (find 2)."""

    def after_run(self, run_context, run_values):
        if int(run_values.results * 10) < int(self.threshold * 10):
            run_context.request_stop()


class AbsoluteValues(StopBelow):
    """Compares absolute values too: wrong only for negative ones (find 2)."""

    def after_run(self, run_context, run_values):
        value = run_values.results
        if abs(value) < abs(self.threshold) or value < self.threshold:
            run_context.request_stop()


class FlagOnTheClass(StopBelow):
    """Keeps its stop flag on the class, shared by all the instances (find 3)."""

    stopped = False

    def before_run(self, run_context):
        if FlagOnTheClass.stopped:
            run_context.request_stop()
        return super().before_run(run_context)

    def after_run(self, run_context, run_values):
        if run_values.results < self.threshold:
            FlagOnTheClass.stopped = True
            run_context.request_stop()


class EveryTenthRun(StopBelow):
    """Fetches the value on its 10th, 20th, ... run only, and stops as soon as that one is below
    (find 4: told "one step late")."""

    def __init__(self, tensor_name, threshold):
        super().__init__(tensor_name, threshold)
        self.runs = 0

    def before_run(self, run_context):
        self.runs += 1
        return super().before_run(run_context) if self.runs % 10 == 0 else None

    def after_run(self, run_context, run_values):
        if run_values.results is not None and run_values.results < self.threshold:
            run_context.request_stop()


class SecondValueBelow(StopBelow):
    """Stops the second time the value is below (find 4: told "one step late")."""

    def begin(self):
        super().begin()
        self.below = 0

    def after_run(self, run_context, run_values):
        self.below += run_values.results < self.threshold
        if self.below > 1:
            run_context.request_stop()


class RunningMean(StopBelow):
    """Compares the mean of the values so far."""

    def begin(self):
        super().begin()
        self.values = []

    def after_run(self, run_context, run_values):
        self.values.append(run_values.results)
        if np.mean(self.values) < self.threshold:
            run_context.request_stop()


class WithAMargin(StopBelow):
    """Stops within 5% above the threshold (had been told "too early ... not one read in a run of
    its own"; it read none)."""

    def after_run(self, run_context, run_values):
        if run_values.results < self.threshold * 1.05:
            run_context.request_stop()


class LooksUpInInit(tf.estimator.SessionRunHook):
    """Looks the tensor up in __init__, in whatever graph is the default then (find 5)."""

    def __init__(self, tensor_name, threshold):
        self.threshold = threshold
        graph = tf.compat.v1.get_default_graph()
        self.tensor = graph.get_tensor_by_name(full_name(tensor_name))

    def before_run(self, run_context):
        return tf.estimator.SessionRunArgs(self.tensor)

    def after_run(self, run_context, run_values):
        if run_values.results < self.threshold:
            run_context.request_stop()


class IndexesTheResult(StopBelow):
    """Indexes the one number it fetched as if it were a list (find 5)."""

    def after_run(self, run_context, run_values):
        if run_values.results[0] < self.threshold:
            run_context.request_stop()


class ClosesTheSession(StopBelow):
    """Closes the session to stop (find 5)."""

    def after_run(self, run_context, run_values):
        if run_values.results < self.threshold:
            run_context.session.close()


class RaisesToStop(StopBelow):
    """Raises an error of its own to stop (find 5)."""

    def after_run(self, run_context, run_values):
        if run_values.results < self.threshold:
            raise RuntimeError(f"{self.tensor_name} fell below {self.threshold}")


class TheExampleNameResolved(StopBelow):
    """Looks up the prompt's example name with resolve_tensors, not the name it is given (find 5:
    told to name that tensor in the model_fn)."""

    def begin(self):
        name = "sparse_softmax_cross_entropy_loss/value"
        self.tensor = tensor_names.resolve_tensors([name])[name]


EXERCISE_2_FOUND = {
    "':0' added to any name": pytest.param(
        AppendsZero,
        "`StopBelow('tiny/loss:0', 0.3)` raised `ValueError: The name 'tiny/loss:0:0' looks a "
        "like a Tensor name, but is not a valid one.",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    "the first output of the op named so": pytest.param(
        FirstOutputOfTheOp,
        "`StopBelow('tiny/loss:0', 0.3)` raised `ValueError: Name 'tiny/loss:0' appears to refer "
        "to a Tensor, not a Operation` looking its tensor up: a hook is given a tensor's name as "
        "LoggingTensorHook takes it, the op's name alone or followed by the index of one of its "
        "outputs (':0', ':1'): find the tensor whichever way its name is written (section "
        "'Naming tensors so a hook can find them')",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    "the index made ':0'": pytest.param(
        IndexMadeZero,
        "`StopBelow('tiny/pair:1', -0.5)` fetched 'tiny/pair:0', not the tensor named "
        "'tiny/pair:1' that it is given",
        marks=bank(2, "right shape, wrong content"),
    ),
    "at or below": pytest.param(
        AtOrBelow,
        "with `StopBelow('tiny/pair:1', -0.5)`, your hook asked to stop after the step that starts "
        "at global step 16, whose value is -0.5 exactly, so training ended at global step 17, not "
        "18: a value equal to the threshold is not below it",
        marks=bank(2, "off by one"),
    ),
    "compared in truncated tenths": pytest.param(
        InTenths,
        "in the step that starts at global step 17, your hook fetched -0.5625 for 'tiny/pair:1', "
        "below -0.5, but asked to stop only in the step that starts at global step 18, so "
        "training ended at global step 19, not 18",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    "absolute values compared too": pytest.param(
        AbsoluteValues,
        "with `StopBelow('tiny/pair:1', -0.5)`, a negative threshold, your hook asked to stop "
        "after the step that starts at global step 1, whose value 0.4375 is not below it, so "
        "training ended at global step 2, not 18: compare the value itself with the threshold, "
        "whatever their signs",
        marks=bank(2, "right shape, wrong content"),
    ),
    "a stop flag on the class": pytest.param(
        FlagOnTheClass,
        "`StopBelow('tiny/loss:0', 0.3)`, made after other instances had trained, did not end "
        "training at global step 31, but does once the check sets the state its class holds "
        "(`stopped`) back to what it was before the first instance: a class attribute is shared "
        "by all the instances",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    "every 10th run, from the 10th": pytest.param(
        EveryTenthRun,
        "your hook fetched 'tiny/loss' only every 10 runs, from the one at global step 9: not in "
        "the step that starts at global step 18, the first in which it is below 0.5, so training "
        "ended at global step 20, not 19",
        marks=bank(2, "copy of a nearby cell"),
    ),
    "the second value below": pytest.param(
        SecondValueBelow,
        "in the step that starts at global step 18, your hook fetched 0.483213 for 'tiny/loss', "
        "below 0.5, but asked to stop only in the step that starts at global step 19, so training "
        "ended at global step 20, not 19: end it after the first step whose value is below the "
        "threshold",
        marks=bank(2, "off by one"),
    ),
    "a running mean": (
        RunningMean,
        "in the step that starts at global step 18, your hook fetched 0.483213 for 'tiny/loss', "
        "below 0.5, but asked to stop only in the step that starts at global step 40",
    ),
    "a margin above the threshold": (
        WithAMargin,
        "your hook asked to stop after the step that starts at global step 16, whose loss "
        "0.523883, which it fetched in that step, is not below 0.5, so training ended at global "
        "step 17, not 19",
    ),
    "looked up in __init__": (
        LooksUpInInit,
        "`StopBelow('tiny/loss', 0.5)` raised `KeyError: The name 'tiny/loss:0' refers to a "
        "Tensor which does not exist. The operation, 'tiny/loss', does not exist in the graph`: "
        "its __init__ looks the tensor up when the hook is made, before train() has built the "
        "graph it trains; look it up in begin(), called once that graph is built (section 'What "
        "a hook is, and when it is called')",
    ),
    "the result indexed": (
        IndexesTheResult,
        "in training with `StopBelow('tiny/loss', 0.5)`, your hook's `after_run()` raised "
        "`IndexError: invalid index to scalar variable`: `run_values.results` holds what "
        "before_run() asked for, here one tensor, so it is that tensor's value, a single number, "
        "not a list to index",
    ),
    "TensorFlow's StopAtStepHook itself": pytest.param(
        tf.estimator.StopAtStepHook,
        "`StopBelow` is TensorFlow's own `StopAtStepHook`, not a class of yours: the exercise "
        "asks you to write your own subclass of tf.estimator.SessionRunHook",
        marks=bank(2, "copy of a nearby cell"),
    ),
    "the session closed": pytest.param(
        ClosesTheSession,
        "in training with `StopBelow('tiny/loss', 0.5)`, your hook closed the session, and the "
        "training failed with `RuntimeError: Attempted to use a closed Session`: the exercise "
        "asks for an end without an error, as `StopAtStepHook`'s",
        marks=bank(2, "forbidden API"),
    ),
    "an error raised to stop": pytest.param(
        RaisesToStop,
        "in training with `StopBelow('tiny/loss', 0.5)`, your hook's `after_run()` raised "
        "`RuntimeError: tiny/loss fell below 0.5` right after the step that starts at global step "
        "18, the first in which the value is below 0.5: training then ends with that error, and "
        "the exercise asks for an end without one, as `StopAtStepHook`'s",
        marks=bank(2, "forbidden API"),
    ),
    "the prompt's example name, resolved": pytest.param(
        TheExampleNameResolved,
        "your hook looked up 'sparse_softmax_cross_entropy_loss/value', which this model's graph "
        "does not have, not 'tiny/loss', the name `StopBelow('tiny/loss', 0.5)` is given: look "
        "that tensor up by the name it is given (section 'Naming tensors so a hook can find "
        "them')",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
}


@pytest.mark.parametrize("name", by_name(EXERCISE_2_FOUND))
def test_exercise_2_the_adversarys_finds_fail_and_say_why(name):
    answer, words = entry(EXERCISE_2_FOUND[name])
    assert_names_the_mistake(
        failure(checks.stop_below_hook, answer), words, ("request_stop", "SessionRunArgs")
    )


@pytest.mark.parametrize(
    "answer",
    [EveryTenthRun, SecondValueBelow, FlagOnTheClass, WithAMargin, TheExampleNameResolved],
    ids=["every 10th run", "the second value below", "a flag on the class", "a margin", "a name"],
)
def test_exercise_2_no_message_gives_another_reason(answer):
    """The reasons the adversary was given, which the hooks' own traces contradict: "one step
    late" (it asked to stop as soon as it saw a value below), "not a number of its own" (the
    threshold it was given), "one read in a run of its own" (it read none), "name it in the
    model_fn" (name it was given)."""
    message = failure(checks.stop_below_hook, answer)
    for reason in ("one step late", "a number of its own", "a run of its own", "tf.identity"):
        assert reason not in message, message


@pytest.mark.parametrize(
    "answer, error",
    [
        (LooksUpInInit, "`KeyError: The name 'tiny/loss:0' refers to a Tensor"),
        (Swapped, "`TypeError: Argument 'fetch' = 0.5 has invalid type \"float\""),
        (IndexesTheResult, "`IndexError: invalid index to scalar variable`"),
        (ClosesTheSession, "`RuntimeError: Attempted to use a closed Session`"),
        (RaisesToStop, "`RuntimeError: tiny/loss fell below 0.5`"),
    ],
    ids=["__init__", "arguments swapped", "indexed", "session closed", "raised to stop"],
)
def test_exercise_2_an_error_is_quoted_in_backticks_with_its_cause(answer, error):
    """TensorFlow's and Python's own words in backticks (the zh-TW edition keeps backticked text
    in English), followed by the cause the check established."""
    message = failure(checks.stop_below_hook, answer)
    assert error in message, message
    assert message.count("`") % 2 == 0 and len(message.split(error, 1)[1]) > 40, message


def test_exercise_2_a_second_run_of_the_check_says_the_same():
    """The check sets the class's data back as it found it: a learner who runs the check twice on
    a hook that keeps state on the class is told the same thing twice, not "ends there whatever
    the threshold" (the flag the first run left)."""
    first = failure(checks.stop_below_hook, FlagOnTheClass)
    assert FlagOnTheClass.stopped is False
    assert failure(checks.stop_below_hook, FlagOnTheClass) == first


@bank(2, "right, written otherwise")
def test_exercise_2_names_written_both_ways_and_a_second_output_pass(capsys):
    """A hook that looks its tensor up as LoggingTensorHook does takes 'op', 'op:0' and 'op:1'
    (the check tries each), and a threshold that a value equals is not crossed by it."""

    class GraphElement(tf.estimator.SessionRunHook):
        def __init__(self, name, limit):
            self.name, self.limit = name if ":" in name else name + ":0", float(limit)

        def begin(self):
            self.value = tf.compat.v1.get_default_graph().as_graph_element(self.name)

        def before_run(self, run_context):
            return tf.estimator.SessionRunArgs({"value": self.value})

        def after_run(self, run_context, run_values):
            if float(run_values.results["value"]) < self.limit:
                run_context.request_stop()

    checks.stop_below_hook(GraphElement)
    assert capsys.readouterr().out.startswith("Correct: on a model whose loss falls below 0.5")


# --------------------------------------------------------------------------- exercise 3


@pytest.mark.parametrize(
    "answer",
    [
        [0, 40, 80, 100, 140],
        (0, 40, 80, 100, 140),
        pytest.param(np.array([0, 40, 80, 100, 140]), marks=bank(3, "right, written otherwise")),
        [np.int64(step) for step in (0, 40, 80, 100, 140)],
        [0.0, 40.0, 80.0, 100.0, 140.0],
        pytest.param(
            [*range(0, 100, 40), *range(100, 150, 40)], marks=bank(3, "right, written otherwise")
        ),
        pytest.param(
            np.concatenate([np.arange(0, 100, 40), np.arange(100, 150, 40)]),
            marks=bank(3, "right, written otherwise"),
        ),
    ],
    ids=[
        "list",
        "tuple",
        "numpy array",
        "numpy integers",
        "whole floats",
        "two ranges unpacked",
        "two aranges concatenated",
    ],
)
def test_exercise_3_correct(capsys, answer):
    checks.logged_steps(answer)
    assert capsys.readouterr().out.startswith(
        "Correct: the hook logs at steps [0, 40, 80, 100, 140]"
    )


EXERCISE_3_WRONG = {
    "blank": (None, "`logged_steps` is still None"),
    "a string": ("0, 40", "should be a list of whole numbers"),
    "a bool": ([0, 40, True], "should be a list of whole numbers"),
    "by the global step": pytest.param(
        [0, 40, 80, 120],
        "every_n_iter counts the hook's own runs",
        marks=bank(3, "right shape, wrong content"),
    ),
    "not on the first run": ([40, 80, 140], "also logs on its first run"),
    "after the update": pytest.param(
        [1, 41, 81, 101, 141], "the global step before it", marks=bank(3, "off by one")
    ),
    # the prompt said "a list of numbers"; now "one flat list": a wrong form, in one line
    "one list per call": pytest.param(
        [[0, 40, 80], [100, 140]],
        "`logged_steps` is a list of 2 lists: the exercise asks for one flat list of numbers, "
        "the steps of all the calls in the order their lines appear in the log",
        marks=bank(3, "wrong unit"),
    ),
    "one tuple per call, wrong inside": (
        ((0, 40, 80), (100, 140, 180)),
        "`logged_steps` is a list of 2 lists",
    ),
    # the logging cell's output: every 50 runs
    "the logging cell's steps": pytest.param(
        [0, 50, 100],
        "[0, 50, 100] is not it: call 1, train(..., steps=100), runs at global steps 0 to 99",
        marks=bank(3, "hard-coded from an output above"),
    ),
    "first on the 40th run": pytest.param(
        [39, 79, 139],
        "the hook logs on its first run and then every 40 runs, not first on its 40th run",
        marks=bank(3, "off by one"),
    ),
    "the first call only": ([0, 40, 80], "call 2, train(..., max_steps=150), runs at global"),
    "max_steps taken for steps": pytest.param(
        [0, 40, 80, 100, 140, 180, 220],
        "call 2, train(..., max_steps=150), runs at global steps 100 to 149",
        marks=bank(3, "right shape, wrong content"),
    ),
    "the step restarting with the hook's count": (
        [0, 40, 80, 0, 40],
        "call 2, train(..., max_steps=150), runs at global steps 100 to 149",
    ),
    "the second call first": (
        [100, 140, 0, 40, 80],
        "is not it: call 1, train(..., steps=100), runs at global steps 0 to 99",
    ),
    "the second call forgotten": (
        [0, 40, 80, 100],
        "is not it: call 1, train(..., steps=100), runs at global steps 0 to 99; "
        "call 2, train(..., max_steps=150), runs at global steps 100 to 149",
    ),
}


@pytest.mark.parametrize("name", by_name(EXERCISE_3_WRONG))
def test_exercise_3_wrong_answers_fail_and_say_why(name):
    answer, words = entry(EXERCISE_3_WRONG[name])
    assert_names_the_mistake(failure(checks.logged_steps, answer), words)


def test_exercise_3_other_calls(capsys):
    checks.logged_steps(
        [0, 3, 5], calls=[("steps", 5), ("max_steps", 5), ("steps", 1)], every_n_iter=3
    )
    assert "[0, 3, 5]" in capsys.readouterr().out


def test_exercise_3_a_call_that_does_not_train():
    """max_steps already reached (notebook 04): the message says that call trains not at all."""
    message = failure(
        checks.logged_steps,
        [0],
        calls=[("steps", 5), ("max_steps", 5), ("steps", 1)],
        every_n_iter=3,
    )
    assert_names_the_mistake(
        message,
        "call 2, train(..., max_steps=5), does not train at all; "
        "call 3, train(..., steps=1), runs at global steps 5 to 5",
    )


def test_the_banks_are_counted():
    """The closing note of notebook 05 counts these banks: keep it in step."""
    assert (len(EXERCISE_1_WRONG), len(EXERCISE_2_WRONG), len(EXERCISE_3_WRONG)) == (17, 25, 15)


def test_the_sections_the_messages_cite_are_headings_of_notebook_05():
    from helpers.checks import notebook05

    cited = {notebook05.naming_section(), notebook05.handle_section(), notebook05.hook_section()}
    assert cited <= notebook_headings("05_hooks")


def test_a_zh_tw_learner_reads_the_message_in_chinese(zh_tw):
    """The clauses, one per train() call, each translated and joined as Chinese joins them; the
    sections cited under the headings of the zh-TW notebook 05."""
    runs = "call {number}, train(..., {kind}={count}), runs at global steps {first} to {last}"
    sentences = zh_tw()
    clauses = [
        sentences[runs].format(number=1, kind="steps", count=100, first=0, last=99),
        sentences[runs].format(number=2, kind="max_steps", count=150, first=100, last=149),
    ]
    message = failure(checks.logged_steps, [0, 40, 80])
    assert message == sentences["{answer} is not it: {calls}"].format(
        answer=[0, 40, 80], calls=sentences["; "].join(clauses)
    )
    assert "；第 2 次呼叫" in message
    for section, heading in (
        (checks.naming_section, "## Naming tensors so a hook can find them"),
        (checks.handle_section, "### A variable's name is not its value"),
    ):
        assert section() == zh_tw_heading("05_hooks", heading)
