"""The exercises' checks, one module per notebook (introduced in notebook 00).

A notebook imports its own module and nothing else of this package, so that a change to one
notebook's checks makes only that notebook stale (tools/helpers_deps.py)::

    from helpers.checks import notebook07 as checks
    checks.hook_decision(answer)

A check prints one line starting ``Correct:`` or raises ``CheckFailed`` with one sentence on what to
change, and first catches an exercise left blank. Each check is decorated with
``@reporting_learner_errors`` (common.py), so that an error raised in the learner's code while the
check runs it is one sentence too, naming the error and the learner's line, not a traceback
through the check module.
"""
