"""Check cells for the exercises (introduced in notebook 00), all reachable as ``checks.<name>``.

A check prints one line starting ``Correct:`` or raises ``CheckFailed`` with one sentence on what to
change, and first catches an exercise left blank. Each notebook's checks live in their own module;
here each check is wrapped, in this one place, so that an error raised in the learner's code while
the check runs it is one sentence too, naming the error and the learner's line
(``common.reporting_learner_errors``), not a traceback through the check module.
"""

import inspect as _inspect

from ..problems import CheckFailed
from . import (
    notebook00,
    notebook01,
    notebook02,
    notebook03,
    notebook04,
    notebook05,
    notebook06,
    notebook07,
    notebook08,
    notebook09,
    notebook10,
)
from .common import reporting_learner_errors as _reporting_learner_errors

__all__ = ["CheckFailed"]
_MODULES = (notebook00, notebook01, notebook02, notebook03, notebook04, notebook05, notebook06,
            notebook07, notebook08, notebook09, notebook10)
for _module in _MODULES:
    for _name in _module.__all__:
        _value = getattr(_module, _name)
        if _inspect.isfunction(_value):
            _value = _reporting_learner_errors(_value)
        globals()[_name] = _value
        __all__.append(_name)
del _MODULES, _module, _name, _value
