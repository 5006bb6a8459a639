"""The functions an exercise's prompt rules out, watched while the learner's code runs (notebooks
06 and 10): the check says which one was called instead of judging a value it did not compute.
"""

from __future__ import annotations

import contextlib
import types

# (what the message calls it, the module that holds it, its name there): the course's streaming
# metrics, through which classification_metrics and course_metrics count too
COURSE_METRICS = (
    ("helpers.metrics.precision_recall_f1", "helpers.metrics", "precision_recall_f1"),
)
# scikit-learn's precision and what computes it for it: precision_score, and the others through
# precision_recall_fscore_support, which they call
SCIKIT_LEARN_PRECISION = tuple(
    (f"sklearn.metrics.{name}", "sklearn.metrics._classification", name)
    for name in (
        "precision_score",
        "recall_score",
        "f1_score",
        "fbeta_score",
        "classification_report",
        "precision_recall_fscore_support",
    )
)


@contextlib.contextmanager
def watching(answer, functions=(), members=()):
    """While it lasts, each of ``functions`` (``(shown, module, name)``) and ``members``
    (``(shown, owner, name)``: a class's) records its ``shown`` name in the list this gives when
    it is called, then does what it does. Each is replaced where it is defined, in the modules
    that import it under its name, and among the globals of ``answer`` (the learner's function),
    so that ``from ... import`` reaches the watched one too. A module not imported yet is not
    watched: the learner's code cannot have reached it.
    """
    import sys

    called: list = []
    undo: list = []  # (namespace dict, name, the value to put back)

    def watched(shown, original):
        def function(*args, **kwargs):
            called.append(shown)
            return original(*args, **kwargs)

        return function

    def replace(namespace: dict, name: str, value) -> None:
        undo.append((namespace, name, namespace[name]))
        namespace[name] = value

    learners = getattr(answer, "__globals__", None)
    try:
        for shown, module_name, name in functions:
            module = sys.modules.get(module_name)
            original = getattr(module, name, None)
            if original is None:
                continue
            stand_in = watched(shown, original)
            namespaces = [vars(module), *_importers(module_name, name, original)]
            if isinstance(learners, dict) and learners not in namespaces:
                namespaces.append(learners)
            for namespace in namespaces:
                for key, value in list(namespace.items()):
                    if value is original:
                        replace(namespace, key, stand_in)
        for shown, owner, name in members:
            raw = vars(owner).get(name)
            if raw is None:
                continue
            function = raw.__func__ if isinstance(raw, staticmethod) else raw
            stand_in = watched(shown, function)
            undo.append((owner, name, raw))
            setattr(
                owner, name, staticmethod(stand_in) if isinstance(raw, staticmethod) else stand_in
            )
        yield called
    finally:
        for namespace, name, value in reversed(undo):
            if isinstance(namespace, dict):
                namespace[name] = value
            else:
                setattr(namespace, name, value)


def _importers(module_name: str, name: str, original) -> list:
    """The namespaces of the other loaded modules of the same package that hold ``original`` under
    ``name`` (``sklearn.metrics`` for ``sklearn.metrics._classification``'s)."""
    import sys

    package = module_name.split(".")[0]
    return [
        vars(module)
        for key, module in list(sys.modules.items())
        if isinstance(module, types.ModuleType)
        and key != module_name
        and (key == package or key.startswith(package + "."))
        and getattr(module, name, None) is original
    ]
