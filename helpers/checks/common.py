"""What the exercise checks share: the answer-missing message, the success line, the one line that
reports an error in the learner's own code, and running a learner's streaming metric (notebooks 03
and 06).
"""

from __future__ import annotations

import functools
import numbers
import re
import sys
import traceback
from typing import NoReturn

from ..language import _
from ..learner_code import error_text, learner_line, where
from ..problems import CheckFailed, WorkbookProblem


def _raised(error: BaseException, not_learners=()) -> str:
    """``NameError: name 'x' is not defined, at line 2: `share = x```: the error, and the learner's
    line it came from when there is one."""
    line = learner_line(error, not_learners)
    if line is None:
        return error_text(error)
    return _("{error}, at {line}").format(error=error_text(error), line=where(line))


def require_answer(answer, name: str) -> None:
    """Fail plainly when the exercise has no answer yet (still None): because the cell that sets it
    raised, naming the error and the line, or because it was left blank.
    """
    if answer is None:
        error = solution_cell_error(name)
        if error is not None and not isinstance(error, NotImplementedError):
            fail(
                "`{name}` is still None because the cell that sets it raised {error}: fix "
                "that line and run the cell again",
                name=name,
                error=_raised(error),
            )
        fail(
            "`{name}` is still None: write your code where the exercise says "
            "`# YOUR CODE HERE` (and remove `raise NotImplementedError()`)",
            name=name,
        )


def reporting_learner_errors(check):
    """``check``, reporting an error raised in the learner's code while it runs as one line that
    names the error and the learner's line, instead of a traceback through the check module. An
    error that did not come through the learner's code is the check's own and is raised unchanged,
    and so is a ``CheckFailed``.
    """
    own = {check.__code__}

    @functools.wraps(check)
    def checked(*args, **kwargs):
        try:
            return check(*args, **kwargs)
        except WorkbookProblem:
            raise
        except (Exception, SystemExit) as error:  # sys.exit() in an answer is the learner's too
            if learner_line(error, own) is None:
                raise
            raise CheckFailed(
                _("your code raised {error}: fix it and run its cell again").format(
                    error=_raised(error, own)
                )
            ) from None

    return checked


# name -> (execution count of the cell that set it and raised, the error)
_SOLUTION_ERRORS: dict = {}


def solution_cell_error(name: str):
    """The error the cell that sets ``name`` raised when it last ran, if that is the latest run of a
    cell that sets ``name``; else None (no IPython, no error, or a stale one: another cell's, or one
    since re-run).

    IPython keeps the last uncaught error in ``sys.last_value`` until another replaces it, so an
    error shown on purpose earlier (a ``raises-exception`` cell) stays there: the cell it came from
    is found by its file name (IPython's compiler maps it to the execution count) and must be one
    that assigns ``name``. The check's own failure then replaces it, so it is remembered for the
    next run of the check.
    """
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    if shell is None:
        return None
    history = shell.user_ns.get("In", [])
    sets_name = re.compile(
        rf"^\s*(?:(?:def|class)\s+{re.escape(name)}\b|{re.escape(name)}\s*(?::[^=]*)?=(?!=))",
        re.MULTILINE,
    )
    error = getattr(sys, "last_value", None)
    if error is not None:
        numbers_by_file = getattr(shell.compile, "_filename_map", {})
        files = [summary.filename for summary in traceback.extract_tb(error.__traceback__)]
        files += [error.filename] if isinstance(error, SyntaxError) else []
        cells = [numbers_by_file[filename] for filename in files if filename in numbers_by_file]
        if cells and 0 < cells[0] < len(history) and sets_name.search(history[cells[0]]):
            _SOLUTION_ERRORS[name] = (cells[0], error)
    count, error = _SOLUTION_ERRORS.get(name, (0, None))
    if error is None or count >= len(history):
        return None
    if any(sets_name.search(source) for source in history[count + 1 : shell.execution_count]):
        return None  # a cell that sets the answer ran since, without an error reaching IPython
    return error


def said(message: str, **values) -> str:
    """``message`` in the learner's language, its ``{names}`` filled from ``values`` (without
    values it is left as it is: braces in it are text)."""
    return _(message).format(**values) if values else _(message)


def fail(message: str, **values) -> NoReturn:
    """Refuse an answer in one line: ``message``, an English sentence that ``make po`` extracts as
    it does ``_("...")``, said with ``values``."""
    raise CheckFailed(said(message, **values))


def correct(message: str, **values) -> None:
    """Print the one success line of a check: ``message`` as ``fail`` takes it (a sentence already
    in the learner's language is printed as it is)."""
    print(_("Correct: {message}").format(message=said(message, **values)))


def is_whole_number(value) -> bool:
    """A whole number: an int (not a bool), or a float such as 500.0."""
    if isinstance(value, bool):
        return False
    if isinstance(value, numbers.Integral):
        return True
    return isinstance(value, numbers.Real) and float(value).is_integer()


def run_metric_pair(
    build,
    answer: str,
    key: str,
    batches,
    section: str = "",
):
    """Feed ``batches`` through ``build(labels, classes)``'s ``{key: (value, update_op)}`` (a
    learner's metric, notebooks 03 and 06) and return the value; each wrong shape of answer gets one
    line, which ends by citing the notebook's ``section`` (its heading) when one is given.
    """
    import numpy as np
    import tensorflow as tf

    with tf.Graph().as_default():
        labels = tf.compat.v1.placeholder(tf.int32, [None], name="labels")
        classes = tf.compat.v1.placeholder(tf.int32, [None], name="classes")
        ops = build(labels, classes)
        if not isinstance(ops, dict):
            fail(
                '`{answer}` returned a {kind}: return a dict, {{"{key}": (value, update_op)}}',
                answer=answer,
                kind=type(ops).__name__,
                key=key,
            )
        if key not in ops:
            fail("the dict has the keys {keys}: name the metric '{key}'", keys=sorted(ops), key=key)
        value, update_op = _metric_pair(ops[key], key, section)
        with tf.compat.v1.Session() as session:
            session.run(
                [
                    tf.compat.v1.global_variables_initializer(),
                    tf.compat.v1.local_variables_initializer(),
                ]
            )
            for batch_labels, batch_classes in batches:
                session.run(update_op, {labels: batch_labels, classes: batch_classes})
            try:
                return np.asarray(session.run(value))
            except tf.errors.InvalidArgumentError:
                if section:
                    message = _(
                        "the value needs the current batch to be computed: it must read the "
                        "totals that the update op accumulates (section '{section}')"
                    )
                else:
                    message = _(
                        "the value needs the current batch to be computed: it must read the "
                        "totals that the update op accumulates"
                    )
                raise CheckFailed(message.format(section=section)) from None


def _metric_pair(pair, key: str, section: str) -> tuple:
    """``(value, update_op)`` of the learner's ``ops[key]``; one line when it is not such a pair
    (citing ``section`` when one is given)."""
    import tensorflow as tf

    if isinstance(pair, tf.keras.metrics.Metric):
        if section:
            message = _(
                "that is a Keras Metric object: an EstimatorSpec keeps only "
                "`(metric.result(), metric.updates[0])`, and in a graph that update op is the last "
                "op update_state built, which may update only part of the metric (F1Score's "
                "stays 0.0); return a `(value, update_op)` pair (section '{section}')"
            )
        else:
            message = _(
                "that is a Keras Metric object: an EstimatorSpec keeps only "
                "`(metric.result(), metric.updates[0])`, and in a graph that update op is the last "
                "op update_state built, which may update only part of the metric (F1Score's "
                "stays 0.0); return a `(value, update_op)` pair"
            )
        raise CheckFailed(message.format(section=section))
    if not isinstance(pair, tuple) or len(pair) != 2:
        if section:
            message = _(
                "ops['{key}'] is a {kind}, not a `(value, update_op)` pair (section '{section}')"
            )
        else:
            message = _("ops['{key}'] is a {kind}, not a `(value, update_op)` pair")
        raise CheckFailed(message.format(key=key, kind=type(pair).__name__, section=section))
    return pair
