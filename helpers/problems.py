"""The course's exceptions: a ``WorkbookProblem`` says in one sentence what is wrong, what to do.

Introduced in notebook 00. Jupyter shows it as that one line, not a stack trace (IPython calls
``_render_traceback_``); elsewhere it is an ordinary exception with the same message.
"""


class WorkbookProblem(Exception):
    """A problem with the learner's set-up or input, explained in one line."""

    def _render_traceback_(self):
        return [f"{type(self).__name__}: {self}"]


class EnvironmentProblem(WorkbookProblem):
    """Wrong Python or TensorFlow for this course (notebook 00)."""


class DatasetProblem(WorkbookProblem):
    """A dataset file is missing, corrupt or cannot be fetched (notebook 00)."""


class StorageProblem(DatasetProblem):
    """The disk refused a dataset file: no space left, read-only, no permission, locked or gone
    (notebook 00)."""


class CheckFailed(WorkbookProblem, AssertionError):
    """An exercise answer is not right yet; the message says what is wrong."""


class UsageProblem(WorkbookProblem, ValueError):
    """A helper was given an argument it cannot use (still a ``ValueError``)."""


class NotReady(WorkbookProblem, RuntimeError):
    """A helper was used before what it needs exists (still a ``RuntimeError``)."""


class MetricsProblem(UsageProblem):
    """A metric was given inputs it cannot measure (shapes, ``num_classes``), found while building
    the graph."""


def similar_names(name: str, candidates, limit: int = 3) -> list:
    """Up to ``limit`` candidates that ``name`` may be a typo of, closest first (ties in name
    order).

    The course's one rule for "did you mean" (hooks, early stopping, the model_fn checker):
    difflib's ratio at least 0.5, and within 0.1 of the closest one.
    """
    import difflib

    scored = [
        (difflib.SequenceMatcher(None, name, c).ratio(), c) for c in set(candidates) if c != name
    ]
    best = max((score for score, _ in scored), default=0.0)
    close = [(-score, c) for score, c in scored if score >= 0.5 and score >= best - 0.1]
    return [c for _, c in sorted(close)][:limit]
