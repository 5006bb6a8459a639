"""Exercise checks of notebook 01 (the training log's times, a real input_fn)."""

from __future__ import annotations

import fractions
import functools
import hashlib
import logging
import math
import numbers
import re
from pathlib import Path
from typing import NoReturn

import numpy as np

from .. import data
from ..language import all_of
from .common import correct, fail, reporting_learner_errors, require_answer

__all__ = ["logged_seconds", "fixed_input_fn"]

SECONDS = re.compile(r"^loss = [^,]+, step = (?P<step>\d+) \((?P<seconds>\d+\.\d+) sec\)$")
RATE = re.compile(r"^global_step/sec: (?P<rate>\S+)")


class _TrainingLogs(logging.Filter):
    """The ``loss = …, step = … (x.xxx sec)`` lines TensorFlow logged, one list per call that built
    a graph ('Calling model_fn.'): the check's own copy of each training log, kept from the moment
    the Setup cell imports this module, which an answer cell that rebinds or edits `lines` does
    not change. It lets every record through; the newest 20 runs are kept."""

    def __init__(self):
        super().__init__("workbook-notebook01-training-logs")
        self.runs: list[list[str]] = []

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: logging reports it, not this copy
            return True
        if message.startswith("Calling model_fn"):
            self.runs = [*self.runs[-19:], []]
        elif SECONDS.match(message) and self.runs:
            self.runs[-1].append(message)
        return True


def _training_logs() -> _TrainingLogs:
    """The one ``_TrainingLogs`` on TensorFlow's logger (the logger ``tf.get_logger()`` returns)."""
    logger = logging.getLogger("tensorflow")
    for existing in logger.filters:
        if getattr(existing, "name", None) == "workbook-notebook01-training-logs":
            return existing
    recorder = _TrainingLogs()
    logger.addFilter(recorder)
    return recorder


TRAINING_LOGS = _training_logs()
PLAIN_NUMBERS = (int, float, fractions.Fraction)


def _plain_number(answer) -> bool:
    """An int, a float, a Fraction or a numpy scalar, none of them a subclass that could say
    another value than it holds."""
    return type(answer) in PLAIN_NUMBERS or (
        type(answer).__module__ == "numpy" and isinstance(answer, (np.floating, np.integer))
    )


def _judge_seconds_type(answer) -> None:
    """Refuse in one line an answer that is no plain number of seconds."""
    if isinstance(answer, (str, bytes)):
        fail(
            "`logged_seconds` is the text {answer!r}: turn the numbers into floats with float(...)",
            answer=answer,
        )
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        fail(
            "`logged_seconds` should be a number of seconds, not {kind}", kind=type(answer).__name__
        )
    if not _plain_number(answer):
        fail(
            "`logged_seconds` should be a plain number (a float), not {kind}, a number type of "
            "its own",
            kind=type(answer).__name__,
        )
    if not math.isfinite(float(answer)):  # NaN or an infinity: no sum of logged times
        fail(
            "`logged_seconds` is {answer}, which is no finite number of seconds: add the "
            "'(… sec)' times on the loss lines, each a finite number",
            answer=float(answer),
        )


@reporting_learner_errors
def logged_seconds(answer, lines: list[str]) -> None:
    """Notebook 01, exercise 1: the sum of the ``(x.xxx sec)`` times on the training log's loss
    lines. ``lines`` names the training; the times come from the check's own copy of its log."""
    require_answer(answer, "logged_seconds")
    _judge_seconds_type(answer)
    given = [line for line in map(str, lines) if SECONDS.match(line)]
    if not given:
        fail(
            "the log passed to the check has no 'loss = …, step = … (x.xxx sec)' line: run the "
            "training cell, whose `lines` hold the training log"
        )
    if given not in TRAINING_LOGS.runs:
        fail(
            "the `lines` passed to the check are not the log the training cell captured: its "
            "timed loss lines differ from those TensorFlow logged; leave `lines` as that cell "
            "made it (run it again) and compute `logged_seconds` from it"
        )
    timed = [float(SECONDS.match(line)["seconds"]) for line in given]
    expected = sum(timed)
    answer = float(answer)
    near = lambda value: abs(answer - value) <= 1e-6 * max(1.0, abs(value))  # noqa: E731
    rates = [float(match["rate"]) for match in map(RATE.match, map(str, lines)) if match]
    if near(expected):
        correct(
            "the {count} timed loss lines add up to {total:.3f} s; the step-0 line has no "
            "time, because no earlier line started the clock",
            count=len(timed),
            total=expected,
        )
        return
    if answer == 0:  # a sum over nothing: the pattern that picks the loss lines matched none
        fail(
            "`logged_seconds` is 0, the sum of no time at all, as if no loss line matched: check "
            "that what picks the loss lines and their '(… sec)' times finds them in `lines`"
        )
    if near(timed[-1]) or near(timed[0]):
        fail(
            "{answer} is the time on one loss line: each line times only the steps since the "
            "line before, so add them all",
            answer=answer,
        )
    elif near(expected / len(timed)):
        fail("{answer} is the mean time per line: the exercise asks for the total", answer=answer)
    elif rates and (near(sum(rates)) or near(sum(rates) / len(rates))):
        fail(
            "{answer} comes from the global_step/sec lines, which are rates, not times: take "
            "the seconds in parentheses on the loss lines",
            answer=answer,
        )
    elif answer.is_integer() and abs(answer - expected) < 1:  # int(), round() or ceil() of it
        if near(len(timed)) or near(len(timed) + 1):  # both readings give this number: say both
            fail(
                "{answer} is a count of lines or the total cut to whole seconds: add the seconds "
                "the loss lines show, keeping every digit",
                answer=answer,
            )
        fail(
            "{answer} is a whole number of seconds, but the loss lines time their steps to the "
            "millisecond: add them, keeping every digit",
            answer=answer,
        )
    elif near(len(timed)) or near(len(timed) + 1):
        fail("{answer} is a count of lines: add the seconds they show", answer=answer)
    elif any(
        near(cut(expected * 10**digits) / 10**digits)
        for digits in (1, 2)
        for cut in (round, math.floor, math.ceil)
    ):
        fail("{answer} is close but rounded: keep every digit the log shows", answer=answer)
    off = (answer - expected) / max(expected, 1e-3)  # a log's times are >= 0.001 s
    if abs(off) < 0.01:
        fail(
            "{answer} is within 1 % of the sum of the '(… sec)' times on the loss lines, but "
            "neither equal to it nor that sum rounded: add exactly those numbers, as the log "
            "prints them, not times worked out from other lines",
            answer=answer,
        )
    # more or less, never by how much: a ratio would give the sum away
    if off > 0:
        fail(
            "{answer} is more than the sum of the '(… sec)' times on the loss lines: find the "
            "loss lines that end with '(… sec)' and add the numbers in the parentheses (section "
            "'The training log, line by line')",
            answer=answer,
        )
    fail(
        "{answer} is less than the sum of the '(… sec)' times on the loss lines: find the loss "
        "lines that end with '(… sec)' and add the numbers in the parentheses (section 'The "
        "training log, line by line')",
        answer=answer,
    )


@reporting_learner_errors
def fixed_input_fn(answer, broken, steps: int) -> None:
    """Notebook 01, exercise 2: the model the exercise's first cell makes, trained ``steps`` steps
    in its folder with a real input_fn over the training set. The check judges what was trained:
    the variables of the latest checkpoint against those of its own copy of the notebook's
    ``make_classifier`` (an answer cell may rebind ``broken``, which is therefore not trusted), and
    the examples of the training graph's own input pipeline, run again, against MNIST's training
    set."""
    require_answer(answer, "fixed_estimator")
    if isinstance(answer, type):
        fail(
            "`fixed_estimator` should be the Estimator you trained, not {kind} (a class)",
            kind=type(answer).__name__,
        )
    if not callable(getattr(answer, "latest_checkpoint", None)):
        fail(
            "`fixed_estimator` should be the Estimator you trained, not {kind}",
            kind=type(answer).__name__,
        )
    folder = Path(answer.model_dir).resolve()
    if folder != Path(_exercise_model_dir()).resolve():
        fail(
            "`fixed_estimator` is not `broken`: it keeps its checkpoints in another folder than "
            "the one the exercise's first cell gave `broken` (`models/{name}`); train `broken` "
            "itself and store what train() returns",
            name=EXERCISE_MODEL_DIR,
        )
    _judge_class(answer)
    checkpoint = answer.latest_checkpoint()
    if checkpoint is None:
        fail(
            "`fixed_estimator` has no checkpoint yet, so it has not trained: train() needs the "
            "input function that the factory returns, not the factory (section 'The input "
            "function')"
        )
    _judge_model(checkpoint)
    reached = int(answer.get_variable_value("global_step"))
    graph = _judge_steps(answer.model_dir, reached, steps)
    _judge_data(graph, steps)
    correct(
        "trained to global step {reached} on the MNIST training files: train() got an input "
        "function, not the factory that makes one",
        reached=reached,
    )


EXERCISE_MODEL_DIR = "01_exercise"  # settings.fresh_model_dir("01_exercise"), the notebook's
# The examples of the training pipeline the check compares with MNIST's training set: the first
# batches train() took, until at least this many examples (or the batches of every step).
EXAMPLES_COMPARED = 1000
# The largest graph.pbtxt the check parses. The exercise's model trained with the factory's input
# function writes one of 0.4 MB; MNIST's training images given as arrays make one of 709 MB, whose
# parsing took ~24 GB (about 34 times its size) and killed the kernel. 16 MB: 40 times the real
# graph, about half a GB to parse.
GRAPH_BYTES = 16 * 2**20


def _exercise_model_dir() -> Path:
    """The folder the exercise's first cell gives `broken`, which an answer cell cannot rebind."""
    from ..paths import MODELS_DIR

    return MODELS_DIR / EXERCISE_MODEL_DIR


def _make_classifier(model_dir):
    """The notebook's ``make_classifier`` (the cell that defines it, copied): the model `broken`
    is, which an answer cell that rebinds `broken` or ``make_classifier`` does not change."""
    import tensorflow as tf

    from ..settings import SEED

    return tf.estimator.DNNClassifier(
        feature_columns=[tf.feature_column.numeric_column("image", shape=(28, 28))],
        hidden_units=[128, 64],
        n_classes=10,
        optimizer="Adam",
        model_dir=model_dir,
        config=tf.estimator.RunConfig(tf_random_seed=SEED),
    )


def _class_name(estimator_class) -> str:
    """``LinearClassifier``, not TensorFlow's ``LinearClassifierV2``."""
    return estimator_class.__name__.removesuffix("V2")


def _judge_class(answer) -> None:
    """Refuse an Estimator of another class than ``make_classifier``'s."""
    import tensorflow as tf

    expected = tf.estimator.DNNClassifier  # the class _make_classifier makes
    if type(answer) is expected:
        return
    kind, expected_kind = _class_name(type(answer)), _class_name(expected)
    if kind == expected_kind:  # tf.compat.v1.estimator.DNNClassifier: both their own names
        kind, expected_kind = type(answer).__name__, expected.__name__
    fail(
        "`fixed_estimator` is another model ({kind}) than `broken` ({expected}): the "
        "exercise fixes how `broken` is trained, not its model",
        kind=kind,
        expected=expected_kind,
    )


@functools.lru_cache(maxsize=1)
def _reference_variables() -> tuple:
    """``(name, shape, value)`` of each variable a checkpoint of ``make_classifier``'s model holds,
    ``value`` for the optimizer's settings (its scalars but the global step), else None: built as
    train() builds the model (nothing trains), once per Python process."""
    import tensorflow as tf

    from ..logs import logger_level
    from ..model_graph import build_graph
    from .checkpoint import scratch_model_dir

    with scratch_model_dir(checkpoint=False) as folder, logger_level("ERROR"):
        graph = build_graph(_make_classifier(folder).model_fn)  # it logs "Calling model_fn."
    variables = graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
    settings = [v for v in variables if v.shape.rank == 0 and v.op.name != "global_step"]
    with tf.compat.v1.Session(graph=graph) as session:
        session.run(tf.compat.v1.variables_initializer(settings))
        values = dict(zip([v.op.name for v in settings], session.run(settings)))
    return tuple((v.op.name, tuple(v.shape.as_list()), values.get(v.op.name)) for v in variables)


def _hidden_units(shapes: dict) -> list:
    """The width of each hidden layer of a DNN whose checkpoint holds variables of ``shapes``."""
    widths = []
    while f"dnn/hiddenlayer_{len(widths)}/kernel" in shapes:
        widths.append(shapes[f"dnn/hiddenlayer_{len(widths)}/kernel"][-1])
    return widths


def _optimizers(shapes: dict) -> set:
    """The optimizers whose variables a checkpoint holds (``training/Adam/...``: Adam)."""
    return {name.split("/")[1] for name in shapes if name.startswith("training/")}


def _judge_model(checkpoint: str) -> None:
    """Refuse a checkpoint of another model than ``make_classifier``'s, naming how it differs:
    its layers, its input, its classes, its optimizer or that optimizer's settings."""
    import tensorflow as tf

    reader = tf.train.load_checkpoint(checkpoint)
    shapes = {name: tuple(shape) for name, shape in reader.get_variable_to_shape_map().items()}
    reference = _reference_variables()
    expected = {name: shape for name, shape, _ in reference}
    if shapes != expected:
        _judge_layers(shapes, expected)
    changed = sorted(
        name.rsplit("/", 1)[-1]
        for name, _, value in reference
        if value is not None and not np.allclose(reader.get_tensor(name), value)
    )
    if changed:
        fail(
            "`fixed_estimator` is another model than `broken` as the exercise's first cell makes "
            "it: the settings of its optimizer differ from those of `make_classifier`'s model "
            "({names}); the exercise fixes how `broken` is trained, not its model: run that cell "
            "again, then train `broken`",
            names=all_of(f"`{name}`" for name in changed),
        )


def _judge_layers(shapes: dict, expected: dict) -> NoReturn:
    """Refuse variables of other names or shapes than ``expected``, naming the difference."""
    widths, expected_widths = _hidden_units(shapes), _hidden_units(expected)
    if widths != expected_widths:
        fail(
            "`fixed_estimator` is another model than `broken` as the exercise's first cell makes "
            "it: its `hidden_units` are `{widths}`, those of `make_classifier`'s model "
            "`{expected}`; the exercise fixes how `broken` is trained, not its model: run that "
            "cell again, then train `broken`",
            widths=widths,
            expected=expected_widths,
        )
    first = "dnn/hiddenlayer_0/kernel" if widths else "dnn/logits/kernel"
    logits = "dnn/logits/kernel"
    if first in shapes and shapes[first][0] != expected[first][0]:
        fail(
            "`fixed_estimator` is another model than `broken` as the exercise's first cell makes "
            "it: its first layer takes {count} numbers per example, that of `make_classifier`'s "
            "model {expected}, one per pixel; the exercise fixes how `broken` is trained, not its "
            "model: run that cell again, then train `broken`",
            count=shapes[first][0],
            expected=expected[first][0],
        )
    if logits in shapes and shapes[logits][-1] != expected[logits][-1]:
        fail(
            "`fixed_estimator` is another model than `broken` as the exercise's first cell makes "
            "it: its logits layer has {count} outputs, that of `make_classifier`'s model "
            "{expected}, one per class; the exercise fixes how `broken` is trained, not its model: "
            "run that cell again, then train `broken`",
            count=shapes[logits][-1],
            expected=expected[logits][-1],
        )
    if _optimizers(shapes) and _optimizers(shapes) != _optimizers(expected):
        fail(
            "`fixed_estimator` is another model than `broken` as the exercise's first cell makes "
            "it: it is trained by {optimizer}, `make_classifier`'s model by {expected}; the "
            "exercise fixes how `broken` is trained, not its model: run that cell again, then "
            "train `broken`",
            optimizer=all_of(sorted(_optimizers(shapes))),
            expected=all_of(sorted(_optimizers(expected))),
        )
    differing = sorted(set(shapes.items()) ^ set(expected.items()))
    fail(
        "`fixed_estimator` is another model than `broken` as the exercise's first cell makes it: "
        "its variables differ from those of `make_classifier`'s model (in {names}); the exercise "
        "fixes how `broken` is trained, not its model: run that cell again, then train `broken`",
        names=all_of(sorted({f"`{name}`" for name, _ in differing})[:3]),
    )


def _trained_once(model_dir) -> bool:
    """Whether one train() call made every step in ``model_dir``: each call saves a checkpoint at
    the step it starts from (and one at its end), so a second call leaves one between 0 and the
    last. (A run of over ten minutes saves timed ones too, and is then taken for several calls.)"""
    from ..model_dirs import checkpoint_steps

    return all(step == 0 for step in checkpoint_steps(model_dir)[:-1])


def _judge_steps(model_dir, reached: int, steps: int):
    """Refuse a model at another global step than ``steps``, saying how it got there; return the
    training graph (which tells a pipeline that ran out)."""
    once = _trained_once(model_dir)
    if reached == steps + 1 and once:
        fail(
            "`fixed_estimator` is at global step {reached}, one step past {steps}: train() makes "
            "exactly the number of steps it is given, so give it EXERCISE_STEPS itself; run the "
            "exercise's first cell again (it starts a fresh model_dir), then train once",
            reached=reached,
            steps=steps,
        )
    if reached > steps and once:
        fail(
            "`fixed_estimator` is at global step {reached}, not {steps}: it was trained once, "
            "for a step count typed in or taken from the training above rather than the "
            "exercise's EXERCISE_STEPS; run the exercise's first cell again (it starts a fresh "
            "model_dir), then train once",
            reached=reached,
            steps=steps,
        )
    if reached > steps:
        fail(
            "`fixed_estimator` is at global step {reached}, not {steps}: steps add up when "
            "train() runs more than once on one model_dir; run the exercise's first cell again "
            "(it starts a fresh model_dir), then train once",
            reached=reached,
            steps=steps,
        )
    graph = _training_graph(model_dir)
    if reached < steps and once and "RepeatDataset" not in _training_reads(graph)[1]:
        fail(
            "`fixed_estimator` is at global step {reached}, not {steps}: its input function ran "
            "out of batches after {reached} steps (its pipeline has no repeat(), and train() "
            "stops when the data ends); train it on the whole training set, which the factory's "
            "input function repeats",
            reached=reached,
            steps=steps,
        )
    ends = _pipeline_ends(graph) if reached < steps and once else False
    if ends:
        fail(
            "`fixed_estimator` is at global step {reached}, not {steps}: its input function ran "
            "out of batches after {reached} steps (its pipeline ends, through a take() or a "
            "repeat() with a count, and train() stops when the data ends); train it on the whole "
            "training set, which the factory's input function repeats without end",
            reached=reached,
            steps=steps,
        )
    if ends is None:  # the check cannot tell whether the pipeline ends: both causes
        fail(
            "`fixed_estimator` is at global step {reached}, not {steps}: either train() was given "
            "fewer steps than EXERCISE_STEPS or its input function ran out of batches after "
            "{reached} steps (train() stops when the data ends); train it with "
            "steps=EXERCISE_STEPS on the factory's input function",
            reached=reached,
            steps=steps,
        )
    if reached < steps:
        fail(
            "`fixed_estimator` is at global step {reached}, not {steps}: train it with "
            "steps=EXERCISE_STEPS",
            reached=reached,
            steps=steps,
        )
    return graph


def _judge_data(graph, steps: int) -> None:
    """Refuse a model trained on other data than the whole MNIST training set: by the files its
    training graph reads, then by the examples its input pipeline gives (run again)."""
    files, ops = _training_reads(graph)
    training = {
        Path(path).resolve()
        for key, path in data.ensure("mnist").items()
        if key.startswith("train")
    }
    if any(Path(name).name.startswith("t10k-") for name in files):
        fail(
            "`fixed_estimator` trained on the test set (its training graph reads {files}): "
            "test images are for measuring the model, never for training it",
            files=all_of(
                sorted(
                    {Path(name).name for name in files}
                    & {"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"}
                )
            ),
        )
    read = {Path(name).resolve() for name in files if Path(name).name and Path(name).is_file()}
    if not read:
        fail(
            "`fixed_estimator` did not train on the MNIST training files (its training graph "
            "reads no data file): its data was written into the graph (arrays) or made up in the "
            "cell rather than read from the training files; train it with the input function the "
            "course's factory returns"
        )
    if not training <= read:  # another data set's files (Fashion-MNIST's have the same names)
        fail(
            "`fixed_estimator` did not train on the MNIST training files: its training graph "
            "reads {files}, not {missing}; train it with the input function the course's factory "
            "returns, on MNIST's training files",
            files=_shown(read - training) or _shown(read),
            missing=_shown(training - read),
        )
    examples = _trained_examples(graph, steps)
    if examples is not None:  # None: a pipeline the check cannot run again, judged by its files
        _judge_examples(*examples)
    if _keeps_part(graph):
        fail(
            "`fixed_estimator`'s input pipeline keeps only part of the training set (a take(), "
            "skip(), filter() or shard() in its training graph): train it with the whole set, "
            "as the factory's input function reads it"
        )


def _shown(paths) -> str:
    """``mnist/train-images-idx3-ubyte.gz and …``: files named with their data set's folder
    (Fashion-MNIST's files have the same names as MNIST's)."""
    return all_of(sorted(f"{path.parent.name}/{path.name}" for path in paths))


def _training_graph(model_dir):
    """The training graph (a ``GraphDef``) in ``model_dir``'s ``graph.pbtxt``, which each
    train() call writes."""
    from google.protobuf import text_format
    from tensorflow.core.framework import graph_pb2

    path = Path(model_dir) / "graph.pbtxt"
    if not path.is_file():  # train() writes it into model_dir; someone removed it since
        fail(
            "`fixed_estimator`'s model_dir has no graph.pbtxt, the training graph train() writes "
            "there: run the exercise's cells again from its first one, then train once"
        )
    size = path.stat().st_size
    if size > GRAPH_BYTES:  # parsing it would take many times its size in memory
        fail(
            "`fixed_estimator`'s training graph holds the data itself ({size} MB): arrays given "
            "to `from_tensor_slices` become constants in the graph, the trap notebook 02 shows; "
            "train it with the input function the course's factory returns, which reads the files",
            size=round(size / 2**20),
        )
    return text_format.Parse(path.read_text(encoding="utf-8"), graph_pb2.GraphDef())


def _training_reads(graph) -> tuple[set, set]:
    """The dataset files (names) the training graph ``graph`` reads, and its op types."""
    nodes = [
        *graph.node,
        *(node for function in graph.library.function for node in function.node_def),
    ]
    files = {
        value.decode(errors="replace")
        for node in nodes
        if node.op == "Const"
        for value in node.attr["value"].tensor.string_val
    }
    return files, {node.op for node in nodes}


def _constants(nodes) -> dict:
    """``{name: value}`` of the integer scalar ``Const`` nodes among ``nodes`` (one scope: the
    graph's own nodes, or one function's)."""
    return {
        node.name: node.attr["value"].tensor.int64_val[0]
        for node in nodes
        if node.op == "Const" and len(node.attr["value"].tensor.int64_val) == 1
    }


def _count(node, constants: dict):
    """The count a ``TakeDataset``, ``SkipDataset`` or ``RepeatDataset`` node is given (its second
    input), or None when it is no constant of its scope."""
    if len(node.input) < 2:
        return None
    return constants.get(node.input[1].split(":")[0])


def _keeps_part(graph) -> bool:
    """Whether the training graph's pipeline keeps part of the set: a filter(), a shard(), a take()
    or a skip() but take(-1) and skip(0), which keep all (as ``make_eval_input_fn`` builds)."""
    scopes = [graph.node, *(function.node_def for function in graph.library.function)]
    for nodes in scopes:
        constants = _constants(nodes)
        for node in nodes:
            if node.op in ("FilterDataset", "ShardDataset"):
                return True
            if node.op in ("TakeDataset", "SkipDataset") and _count(node, constants) != {
                "TakeDataset": -1,
                "SkipDataset": 0,
            }.get(node.op):
                return True
    return False


# Datasets of a file's records or an array's rows: they end. (A source not named here may not.)
FINITE_SOURCES = {
    "TensorSliceDataset",
    "TensorDataset",
    "FixedLengthRecordDatasetV2",
    "TextLineDataset",
    "TFRecordDataset",
    "RangeDataset",
}


def _pipeline_ends(graph):
    """Whether the training graph's input pipeline (the datasets its ``MakeIterator`` reads) ends:
    True (a take() after its repeat(), a repeat() with a count, no repeat()), False (it repeats
    without end), or None when the check cannot tell."""
    nodes = {node.name: node for node in graph.node}
    constants = _constants(graph.node)
    makers = [node for node in graph.node if node.op == "MakeIterator"]
    memo: dict = {}

    def ends(name: str):
        if name not in memo:
            memo[name] = None  # no cycles in a graph; this only guards the walk
            memo[name] = judged(nodes[name]) if name in nodes else None
        return memo[name]

    def judged(node):
        inputs = [
            name
            for name in (source.split(":")[0] for source in node.input)
            if name in nodes and "Dataset" in nodes[name].op
        ]
        if node.op in FINITE_SOURCES:
            return True
        if not inputs:
            return None
        upstream = [ends(name) for name in inputs]
        if node.op == "ZipDataset":  # ends with its shortest input
            return (
                True if True in upstream else (False if all(u is False for u in upstream) else None)
            )
        if node.op == "ConcatenateDataset":
            return False if False in upstream else (True if all(upstream) else None)
        if len(upstream) != 1:
            return None
        count = _count(node, constants) if node.op in ("TakeDataset", "RepeatDataset") else -1
        if count is None:
            return None
        if node.op == "TakeDataset" and count >= 0:
            return True
        if node.op == "RepeatDataset" and count < 0:
            return False
        return upstream[0]

    if len(makers) != 1 or not makers[0].input:
        return None
    return ends(makers[0].input[0].split(":")[0])


def _trained_examples(graph, steps: int):
    """``(images, labels)``: the first examples the training graph's input pipeline gives, run
    again (the seeds of its shuffles are in the graph), images flattened to 784 numbers; None
    when the check cannot run it again (a file it read is gone, a Python function it called no
    longer there, no iterator the check knows)."""
    from ..logs import logger_level

    try:
        with logger_level("ERROR"):
            return _pulled(graph, steps)
    except Exception:  # quietly: the pipeline is then judged by the files its graph reads
        return None


def _iterator_outputs(graph):
    """The names of the training graph's ``MakeIterator`` and ``IteratorGetNext`` nodes and which
    of the latter's outputs the model reads as its image, which the head as its label."""
    makers = [node.name for node in graph.node if node.op == "MakeIterator"]
    getters = [node.name for node in graph.node if node.op == "IteratorGetNext"]
    if len(makers) != 1 or len(getters) != 1:
        return None
    outputs = {}
    for node in graph.node:
        for source in node.input:
            name, _, index = source.partition(":")
            if name == getters[0] and node.name.startswith(("head/", "dnn/input_from")):
                outputs.setdefault(node.name.split("/")[0], int(index or 0))
    if set(outputs) != {"dnn", "head"} or outputs["dnn"] == outputs["head"]:
        return None
    return makers[0], getters[0], outputs["dnn"], outputs["head"]


def _pulled(graph, steps: int):
    """``_trained_examples``'s work: the iterator's part of ``graph`` imported into a graph of its
    own and run in a session of its own."""
    import tensorflow as tf
    from tensorflow.python.framework.graph_util_impl import extract_sub_graph

    found = _iterator_outputs(graph)
    if found is None:
        return None
    maker, getter, image, label = found
    with tf.Graph().as_default() as pipeline:
        tf.compat.v1.import_graph_def(extract_sub_graph(graph, [maker, getter]), name="")
        batch = [pipeline.get_tensor_by_name(f"{getter}:{index}") for index in (image, label)]
        images, labels = [], []
        with tf.compat.v1.Session(graph=pipeline) as session:
            session.run(pipeline.get_operation_by_name(maker))
            while len(labels) < steps and sum(map(len, labels)) < EXAMPLES_COMPARED:
                try:
                    pixels, classes = session.run(batch)
                except tf.errors.OutOfRangeError:
                    break
                images.append(np.reshape(pixels, (len(pixels), -1)))
                labels.append(np.reshape(classes, -1))
    if not labels or any(len(x) != len(y) or x.shape[1] != 28 * 28 for x, y in zip(images, labels)):
        return None
    return np.concatenate(images).astype(np.float64), np.concatenate(labels)


def _digest(image: np.ndarray) -> bytes:
    """A fingerprint of a uint8 image's pixels."""
    return hashlib.blake2b(np.ascontiguousarray(image, np.uint8).tobytes(), digest_size=16).digest()


@functools.lru_cache(maxsize=1)
def _training_labels() -> dict:
    """``{fingerprint: label}`` of each image of MNIST's training set (no two are the same)."""
    arrays = data.load("mnist")
    return {
        _digest(image): int(label)
        for image, label in zip(arrays.train_images.reshape(-1, 28 * 28), arrays.train_labels)
    }


def _judge_examples(images: np.ndarray, labels: np.ndarray) -> None:
    """Refuse examples that are not MNIST's training images (in 0-1, as the course's pipeline
    gives them) with their labels."""
    total = len(labels)
    low, high = float(images.min()), float(images.max())
    if low < -1e-6 or high > 1 + 1e-6:  # pixels divided by 255 some other way: rounding
        fail(
            "the pixels of the images `fixed_estimator` trained on range from {low:g} to "
            "{high:g}: those of the images the factory's input function gives are in 0–1; train "
            "it on the training images as that input function gives them, unchanged",
            low=low,
            high=high,
        )
    pixels = images * 255
    whole = np.abs(pixels - np.round(pixels)).max(axis=1) <= 1e-3
    known = _training_labels()
    found = [
        known.get(_digest(np.round(row))) if exact else None for row, exact in zip(pixels, whole)
    ]
    strangers = sum(label is None for label in found)
    if strangers:
        fail(
            "{count} of the first {total} examples `fixed_estimator` trained on are no MNIST "
            "training image: train it on the training images as the factory's input function "
            "gives them, unchanged",
            count=strangers,
            total=total,
        )
    relabelled = int(np.sum(np.asarray(found) != labels))
    if relabelled:
        fail(
            "the labels of {count} of the first {total} examples `fixed_estimator` trained on "
            "differ from the training set's: train it on the training labels as the factory's "
            "input function gives them, unchanged",
            count=relabelled,
            total=total,
        )
