"""Exercise checks of notebook 01 (the training log's times, a real input_fn)."""

from __future__ import annotations

import fractions
import logging
import math
import numbers
import re
from pathlib import Path

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
    if off > 0:
        fail(
            "{answer} is about {percent} % more than the sum of the '(… sec)' times on the loss "
            "lines: find the loss lines that end with '(… sec)' and add the numbers in the "
            "parentheses (section 'The training log, line by line')",
            answer=answer,
            percent=round(100 * off),
        )
    fail(
        "{answer} is about {percent} % less than the sum of the '(… sec)' times on the loss "
        "lines: find the loss lines that end with '(… sec)' and add the numbers in the "
        "parentheses (section 'The training log, line by line')",
        answer=answer,
        percent=round(-100 * off),
    )


@reporting_learner_errors
def fixed_input_fn(answer, broken, steps: int) -> None:
    """Notebook 01, exercise 2: ``broken`` (or another of its kind) trained ``steps`` steps with a
    real input_fn over the training set, as its training graph shows."""
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
    if type(answer) is not type(broken):
        fail(
            "`fixed_estimator` is another model ({kind}) than `broken` ({expected}): the "
            "exercise fixes how `broken` is trained, not its model",
            kind=_class_name(answer),
            expected=_class_name(broken),
        )
    if answer.latest_checkpoint() is None:
        fail(
            "`fixed_estimator` has no checkpoint yet, so it has not trained: train() needs the "
            "input function that the factory returns, not the factory (section 'The input "
            "function')"
        )
    reached = int(answer.get_variable_value("global_step"))
    once = _trained_once(answer.model_dir)
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
    files, ops = _training_reads(answer.model_dir)
    if reached < steps and once and "RepeatDataset" not in ops:
        fail(
            "`fixed_estimator` is at global step {reached}, not {steps}: its input function ran "
            "out of batches after {reached} steps (its pipeline has no repeat(), and train() "
            "stops when the data ends); train it on the whole training set, which the factory's "
            "input function repeats",
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
    if not training <= {Path(name).resolve() for name in files if Path(name).name}:
        fail(
            "`fixed_estimator` did not train on the MNIST training files (its training graph "
            "reads none of them): train it with the input function the course's factory "
            "returns, not with data made up in the cell"
        )
    if ops & {"TakeDataset", "SkipDataset", "FilterDataset", "ShardDataset"}:
        fail(
            "`fixed_estimator`'s input pipeline keeps only part of the training set (a take(), "
            "skip(), filter() or shard() in its training graph): train it with the whole set, "
            "as the factory's input function reads it"
        )
    correct(
        "trained to global step {reached} on the MNIST training files: train() got an input "
        "function, not the factory that makes one",
        reached=reached,
    )


EXERCISE_MODEL_DIR = "01_exercise"  # settings.fresh_model_dir("01_exercise"), the notebook's


def _exercise_model_dir() -> Path:
    """The folder the exercise's first cell gives `broken`, which an answer cell cannot rebind."""
    from ..paths import MODELS_DIR

    return MODELS_DIR / EXERCISE_MODEL_DIR


def _class_name(estimator) -> str:
    """``LinearClassifier``, not TensorFlow's ``LinearClassifierV2``."""
    return type(estimator).__name__.removesuffix("V2")


def _trained_once(model_dir) -> bool:
    """Whether one train() call made every step in ``model_dir``: each call saves a checkpoint at
    the step it starts from (and one at its end), so a second call leaves one between 0 and the
    last. (A run of over ten minutes saves timed ones too, and is then taken for several calls.)"""
    from ..model_dirs import checkpoint_steps

    return all(step == 0 for step in checkpoint_steps(model_dir)[:-1])


def _training_reads(model_dir) -> tuple[set, set]:
    """The dataset files (names) the training graph in ``model_dir`` reads, and its op types:
    ``graph.pbtxt``, which each train() call writes."""
    from google.protobuf import text_format
    from tensorflow.core.framework import graph_pb2

    path = Path(model_dir) / "graph.pbtxt"
    if not path.is_file():  # train() writes it into model_dir; someone removed it since
        fail(
            "`fixed_estimator`'s model_dir has no graph.pbtxt, the training graph train() writes "
            "there: run the exercise's cells again from its first one, then train once"
        )
    graph = text_format.Parse(path.read_text(encoding="utf-8"), graph_pb2.GraphDef())
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
