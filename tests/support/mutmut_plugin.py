"""A pytest plugin that only `make mutation` loads (pyproject.toml, ``[tool.mutmut]``).

mutmut 3 puts a wrapper taking ``(*args, **kwargs)`` around each function of its mutated copy of
helpers/. Two things of the course's tests see through that copy, and this plugin mends them:

- TensorFlow reads the parameter names of a ``model_fn``, an ``input_fn`` or a ``metric_fn``
  (``inspect.getfullargspec``, which does not follow ``__wrapped__``): each wrapper of a helpers
  function gets its function's signature as ``__signature__``, which it does follow.
- While mutmut records which tests reach which function (its "stats" run), a wrapper looks up
  mutmut's settings in ``pyproject.toml`` of the current folder, which a helpers subprocess
  started elsewhere lacks (tests/helpers/data/test_faults.py): the stats run goes on without the
  environment variable that asks for it, which subprocesses inherit; mutmut's own process keeps
  its copy. Those subprocesses import the course's helpers, not the mutated copy: they never
  counted.
"""

from __future__ import annotations

import inspect
import os
import sys


def _show_signatures() -> None:
    for name, module in list(sys.modules.items()):
        if name == "helpers" or name.startswith("helpers."):
            for value in list(vars(module).values()):
                wrapped = getattr(value, "__wrapped__", None)
                if inspect.isfunction(value) and wrapped and "__signature__" not in vars(value):
                    value.__signature__ = inspect.signature(wrapped)


def pytest_runtest_setup(item) -> None:
    _show_signatures()
    if os.environ.get("MUTANT_UNDER_TEST") == "stats":
        del os.environ["MUTANT_UNDER_TEST"]
