"""The one exception type the course raises for a problem the user can fix.

Introduced in notebook 00. A ``WorkbookProblem`` carries one sentence that says
what is wrong and what to do. In Jupyter it is shown as that one line instead of
a stack trace (IPython calls ``_render_traceback_`` when an exception has it);
in a script or a test it is an ordinary exception with the same message.
"""


class WorkbookProblem(Exception):
    """A problem with the learner's set-up or input, explained in one line."""

    def _render_traceback_(self):
        return [f"{type(self).__name__}: {self}"]


class EnvironmentProblem(WorkbookProblem):
    """Wrong Python or TensorFlow for this course (notebook 00)."""


class DatasetProblem(WorkbookProblem):
    """A dataset file is missing, corrupt or cannot be fetched (notebook 00)."""


class CheckFailed(WorkbookProblem, AssertionError):
    """An exercise answer is not right yet; the message says what is wrong."""


class UsageProblem(WorkbookProblem, ValueError):
    """A helper was given an argument it cannot use (still a ``ValueError``)."""


class NotReady(WorkbookProblem, RuntimeError):
    """A helper was used before what it needs exists (still a ``RuntimeError``)."""


class MetricsProblem(UsageProblem):
    """A metric was given inputs it cannot measure (shapes, ``num_classes``), found while building the graph."""
