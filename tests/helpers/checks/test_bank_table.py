"""A bank for every exercise, in seven kinds (issue 39, point 2): which kinds of wrong answer each
exercise's check is tried on, read from its tests, and why a kind does not apply.

``BANKS`` has one row per exercise, keyed by (notebook, exercise number, check function), and one
cell per column of ``KINDS``: the seven kinds of wrong answer of the issue, then a right answer
written otherwise than the solution. A cell is one of

- a pytest id, ``test_notebookNN.py::name[param]`` as ``pytest --collect-only -q`` prints it (the
  row's own notebook's test file): a test that tries an answer of that kind (``NOTES`` says how it
  fits, where that is not plain from its name);
- ``"n/a: <why>"``: the kind does not apply to this exercise;
- ``"MISSING"``: the kind applies and no test tries it; ``WANTED`` says what such a test would try.
  Nothing here writes those tests, and nothing here counts an answer as covered that its tests do
  not try.

The tests below check that the table has exactly the exercises the notebooks have (a new exercise
without a row fails), that every cited test exists (collected once, in a subprocess), that every
cell has one of the three forms, and that ``BANKS.md`` beside this file is the table as ``render()``
writes it; ``python -m tests.helpers.checks.test_bank_table`` (from the project's folder) rewrites
it after a change here. ``totals()`` gives the counts, which ``test_the_totals`` prints.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from pathlib import Path

from tests import ROOT

HERE = Path(__file__).resolve().parent
BANKS_MD = HERE / "BANKS.md"

KINDS = (
    "off by one",
    "wrong unit",
    "hard-coded from an output above",
    "copy of a nearby cell",
    "right shape, wrong content",
    "forbidden API",
    "right on the notebook's data, wrong in general",
    "right, written otherwise",
)
MISSING = "MISSING"
NOT_APPLICABLE = "n/a: "

BANKS = {
    ("00", 1, "majority_accuracy"): {
        "off by one": "n/a: a fraction of the test set: no count or index to be off by one",
        "wrong unit": (
            "test_notebook00.py::test_majority_accuracy_explains_mistakes[25.0-percentage]"
        ),
        "hard-coded from an output above": (
            "test_notebook00.py::"
            "test_majority_accuracy_explains_mistakes[1-is a count of test images]"
        ),
        "copy of a nearby cell": (
            "test_notebook00.py::test_majority_accuracy_explains_mistakes[0.3-how often the digit "
            "occurs in the training set]"
        ),
        "right shape, wrong content": (
            "n/a: a single number: every wrong number has the right shape"
        ),
        "forbidden API": "n/a: the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "n/a: a value: the check sees no code it could run on other data"
        ),
        "right, written otherwise": "test_notebook00.py::test_majority_accuracy_correct",
    },
    ("00", 2, "brightest_class"): {
        "off by one": "test_notebook00.py::test_brightest_class_explains_mistakes[k - 1]",
        "wrong unit": "test_notebook00.py::test_brightest_class_explains_mistakes[the index]",
        "hard-coded from an output above": "n/a: no output above shows a brightness per class",
        "copy of a nearby cell": (
            "test_notebook00.py::test_brightest_class_explains_mistakes[the commonest class]"
        ),
        "right shape, wrong content": (
            "test_notebook00.py::test_brightest_class_explains_mistakes[another class]"
        ),
        "forbidden API": "n/a: the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "n/a: a value: the check sees no code it could run on other data"
        ),
        "right, written otherwise": "test_notebook00.py::test_brightest_class_correct[numpy str]",
    },
    ("01", 1, "logged_seconds"): {
        "off by one": (
            "test_notebook01.py::test_seconds_wrong_answers_are_named[1.736-the time on one loss "
            "line: each line times only the steps since the line before]"
        ),
        "wrong unit": (
            "test_notebook01.py::test_seconds_wrong_answers_are_named[120.923-global_step/sec "
            "lines, which are rates, not times]"
        ),
        "hard-coded from an output above": (
            "test_notebook01.py::"
            "test_seconds_wrong_answers_are_named[1.585-the time on one loss line]"
        ),
        "copy of a nearby cell": (
            "test_notebook01.py::"
            "test_seconds_wrong_answers_are_named[60.4615-global_step/sec lines, which are rates]"
        ),
        "right shape, wrong content": (
            "n/a: a single number: every wrong number has the right shape"
        ),
        "forbidden API": "n/a: the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "n/a: a value: the check sees no code it could run on other data"
        ),
        "right, written otherwise": "test_notebook01.py::test_seconds_correct[answer1]",
    },
    ("01", 2, "fixed_input_fn"): {
        "off by one": "test_notebook01.py::test_fixed_too_few_steps[4]",
        "wrong unit": (
            "n/a: the answer is not a quantity (an Estimator, a train op, a hook, a config): no "
            "unit"
        ),
        "hard-coded from an output above": (
            "test_notebook01.py::test_fixed_trained_once_for_a_step_count_typed_in[12]"
        ),
        "copy of a nearby cell": "test_notebook01.py::test_fixed_never_trained",
        "right shape, wrong content": (
            "test_notebook01.py::test_fixed_trained_on_other_data[_zeros-did not train on the "
            r"MNIST training files \\(its training graph reads none]"
        ),
        "forbidden API": "n/a: the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "n/a: an Estimator trained on the notebook's data: no code the check could run "
            "elsewhere"
        ),
        "right, written otherwise": (
            "test_notebook01.py::test_fixed_correct[_right_written_otherwise]"
        ),
    },
    ("02", 1, "steps_for_epochs"): {
        "off by one": "test_notebook02.py::test_steps_wrong_answers_are_named[703-words2]",
        "wrong unit": "test_notebook02.py::test_steps_wrong_answers_are_named[180000-words5]",
        "hard-coded from an output above": (
            "test_notebook02.py::test_steps_wrong_answers_are_named[235-words3]"
        ),
        "copy of a nearby cell": (
            "test_notebook02.py::test_steps_wrong_answers_are_named[705-words1]"
        ),
        "right shape, wrong content": (
            "n/a: a single number: every wrong number has the right shape"
        ),
        "forbidden API": (
            "n/a: a value: the check cannot see how it was found (the prompt asks not to type it)"
        ),
        "right on the notebook's data, wrong in general": (
            "n/a: a value: the check sees no code it could run on other data"
        ),
        "right, written otherwise": "test_notebook02.py::test_steps_correct[704.0]",
    },
    ("02", 2, "eval_input_fn"): {
        "off by one": (
            "test_notebook02.py::test_eval_input_fn_wrong_answers_are_named[<lambda>-words3]"
        ),
        "wrong unit": (
            "test_notebook02.py::test_eval_input_fn_wrong_answers_are_named[input_fn-words7]"
        ),
        "hard-coded from an output above": "n/a: the prompt gives its only number, the batch size",
        "copy of a nearby cell": (
            "test_notebook02.py::test_eval_input_fn_wrong_answers_are_named[input_fn-words4]"
        ),
        "right shape, wrong content": (
            "test_notebook02.py::test_eval_input_fn_wrong_answers_are_named[input_fn-words6]"
        ),
        "forbidden API": (
            "test_notebook02.py::"
            "test_eval_input_fn_from_make_eval_input_fn_is_refused[its input function]"
        ),
        "right on the notebook's data, wrong in general": (
            "n/a: the answer reads one fixed split: no other data it must work on"
        ),
        "right, written otherwise": "test_notebook02.py::test_eval_input_fn_correct",
    },
    ("02", 3, "class_id_input_fn"): {
        "off by one": "n/a: class ids are positions read off the one-hot labels: nothing to count",
        "wrong unit": (
            "test_notebook02.py::test_class_id_input_fn_wrong_answers_are_named[<lambda>-words3]"
        ),
        "hard-coded from an output above": "n/a: an input function: no number in it",
        "copy of a nearby cell": (
            "test_notebook02.py::"
            "test_class_id_input_fn_wrong_answers_are_named[one_hot_input_fn-words0]"
        ),
        "right shape, wrong content": (
            "test_notebook02.py::test_class_id_input_fn_wrong_answers_are_named[<lambda>-words4]"
        ),
        "forbidden API": (
            "test_notebook02.py::test_class_id_input_fn_that_reads_the_data_again_is_refused"
        ),
        "right on the notebook's data, wrong in general": (
            "n/a: the answer converts the notebook's one input function: no other data it must "
            "work on"
        ),
        "right, written otherwise": "test_notebook02.py::test_class_id_input_fn_int32_is_fine",
    },
    ("03", 1, "clipped_training_step"): {
        "off by one": (
            "test_notebook03.py::test_exercise_1_wrong_answers_fail_and_say_why[advanced twice]"
        ),
        "wrong unit": (
            "n/a: the answer is not a quantity (an Estimator, a train op, a hook, a config): no "
            "unit"
        ),
        "hard-coded from an output above": (
            "n/a: the prompt gives both numbers (0.1, 1); no output above shows one"
        ),
        "copy of a nearby cell": (
            "test_notebook03.py::"
            "test_exercise_1_wrong_answers_fail_and_say_why[the break-it minimize]"
        ),
        "right shape, wrong content": (
            "test_notebook03.py::test_exercise_1_wrong_answers_fail_and_say_why[gradient ascent]"
        ),
        "forbidden API": (
            "test_notebook03.py::test_exercise_1_wrong_answers_fail_and_say_why[not clipped]"
        ),
        "right on the notebook's data, wrong in general": (
            "test_notebook03.py::test_exercise_1_wrong_answers_fail_and_say_why[clipped by value]"
        ),
        "right, written otherwise": (
            "test_notebook03.py::test_exercise_1_right_answers_pass[clip_by_global_norm]"
        ),
    },
    ("03", 2, "top_predictions_per_example"): {
        "off by one": (
            "test_notebook03.py::"
            "test_exercise_2_wrong_answers_fail_and_say_why[confidence of the runner-up]"
        ),
        "wrong unit": (
            "test_notebook03.py::"
            "test_exercise_2_wrong_answers_fail_and_say_why[confidence as a logit]"
        ),
        "hard-coded from an output above": (
            "n/a: a function of logits the check makes: no output above gives its numbers"
        ),
        "copy of a nearby cell": (
            "test_notebook03.py::test_exercise_2_wrong_answers_fail_and_say_why[other keys]"
        ),
        "right shape, wrong content": (
            "test_notebook03.py::"
            "test_exercise_2_wrong_answers_fail_and_say_why[top_2 sorted by class id]"
        ),
        "forbidden API": "n/a: the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "n/a: the exercise has no data of the notebook's: the check makes the logits"
        ),
        "right, written otherwise": (
            "test_notebook03.py::test_exercise_2_right_answers_pass[argsort]"
        ),
    },
    ("03", 3, "error_rate_metric_ops"): {
        "off by one": "n/a: a rate over all examples: no count or index",
        "wrong unit": (
            "test_notebook03.py::test_exercise_3_wrong_answers_fail_and_say_why[count, not rate]"
        ),
        "hard-coded from an output above": (
            "n/a: a metric function: no output above gives a number for it"
        ),
        "copy of a nearby cell": (
            "test_notebook03.py::test_exercise_3_wrong_answers_fail_and_say_why[accuracy]"
        ),
        "right shape, wrong content": (
            "test_notebook03.py::test_exercise_3_wrong_answers_fail_and_say_why[last batch]"
        ),
        "forbidden API": (
            "test_notebook03.py::test_exercise_3_wrong_answers_fail_and_say_why[keras]"
        ),
        "right on the notebook's data, wrong in general": (
            "test_notebook03.py::"
            "test_exercise_3_wrong_answers_fail_and_say_why[mean of batch means]"
        ),
        "right, written otherwise": (
            "test_notebook03.py::test_exercise_3_right_answers_pass[1 - accuracy]"
        ),
    },
    ("04", 1, "global_steps_after"): {
        "off by one": (
            "test_notebook04.py::"
            "test_exercise_1_messages[answer4-has 3 numbers: give one per train() call, 4 in all]"
        ),
        "wrong unit": "n/a: global steps: counts, with no other unit",
        "hard-coded from an output above": "n/a: no output above shows these four calls",
        "copy of a nearby cell": "n/a: no cell above runs these four calls",
        "right shape, wrong content": (
            "test_notebook04.py::test_exercise_1_messages[answer8-call 4, train(..., steps=100): "
            "700 is not it; the model was at 500]"
        ),
        "forbidden API": (
            "n/a: a value: the check cannot see how it was found (the prompt asks to work it out "
            "without running)"
        ),
        "right on the notebook's data, wrong in general": (
            "n/a: a value: the check sees no code it could run on other data"
        ),
        "right, written otherwise": "test_notebook04.py::test_exercise_1_accepts_whole_floats",
    },
    ("04", 2, "steps_after_rerun"): {
        "off by one": (
            "test_notebook04.py::"
            "test_exercise_2_messages[answer7-1600 is not it; find the last checkpoint]"
        ),
        "wrong unit": "n/a: global steps: counts, with no other unit",
        "hard-coded from an output above": "n/a: no output above shows this scenario",
        "copy of a nearby cell": (
            "test_notebook04.py::"
            "test_exercise_2_messages[answer5-steps=1000 adds 1000 steps to the restored model]"
        ),
        "right shape, wrong content": (
            "test_notebook04.py::"
            "test_exercise_2_messages[answer9-after_rerun['max_steps']: 1700 is not it]"
        ),
        "forbidden API": "n/a: the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "n/a: a value: the check sees no code it could run on other data"
        ),
        "right, written otherwise": (
            "test_notebook04.py::test_exercise_2_right_written_otherwise[numpy integers]"
        ),
    },
    ("04", 3, "fixed_estimator"): {
        "off by one": "n/a: the step count is given (EXERCISE_STEPS): nothing to count",
        "wrong unit": (
            "n/a: the answer is not a quantity (an Estimator, a train op, a hook, a config): no "
            "unit"
        ),
        "hard-coded from an output above": (
            "n/a: an Estimator: no number in it comes from an output"
        ),
        "copy of a nearby cell": "test_notebook04.py::test_exercise_3_old_model_dir",
        "right shape, wrong content": (
            "test_notebook04.py::test_exercise_3_cold_start_with_a_step_0_checkpoint"
        ),
        "forbidden API": "n/a: the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "test_notebook04.py::"
            "test_exercise_3_a_kept_layer_left_cold_is_named[warm0-dense_1/bias]"
        ),
        "right, written otherwise": (
            "test_notebook04.py::test_exercise_3_correct_without_a_step_0_checkpoint"
        ),
    },
    ("05", 1, "output_layer_tensors"): {
        "off by one": (
            "test_notebook05.py::test_exercise_1_wrong_answers_fail_and_say_why[the hidden layer]"
        ),
        "wrong unit": (
            "test_notebook05.py::test_exercise_1_wrong_answers_fail_and_say_why[the probabilities]"
        ),
        "hard-coded from an output above": (
            "n/a: tensor names, read off tensor_table as asked: no number"
        ),
        "copy of a nearby cell": (
            "test_notebook05.py::test_exercise_1_wrong_answers_fail_and_say_why[the break-it names]"
        ),
        "right shape, wrong content": (
            "test_notebook05.py::test_exercise_1_wrong_answers_fail_and_say_why[Adam's slot]"
        ),
        "forbidden API": "n/a: the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "n/a: names in the notebook's one graph: no other graph they must work in"
        ),
        "right, written otherwise": (
            "test_notebook05.py::test_exercise_1_right_answers_pass[with :0]"
        ),
    },
    ("05", 2, "stop_below_hook"): {
        "off by one": (
            "test_notebook05.py::test_exercise_2_wrong_answers_fail_and_say_why[one step late]"
        ),
        "wrong unit": (
            "n/a: the answer is not a quantity (an Estimator, a train op, a hook, a config): no "
            "unit"
        ),
        "hard-coded from an output above": (
            "n/a: a hook class: the check gives its tensor and threshold"
        ),
        "copy of a nearby cell": (
            "test_notebook05.py::test_exercise_2_stopping_late_by_more_than_a_step"
        ),
        "right shape, wrong content": (
            "test_notebook05.py::"
            "test_exercise_2_wrong_answers_fail_and_say_why[comparison reversed]"
        ),
        "forbidden API": "n/a: the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "test_notebook05.py::test_exercise_2_wrong_answers_fail_and_say_why"
            "[a threshold of its own (0.5, the notebook's)]"
        ),
        "right, written otherwise": (
            "test_notebook05.py::test_exercise_2_right_answers_pass[get_tensor_by_name]"
        ),
    },
    ("05", 3, "logged_steps"): {
        "off by one": (
            "test_notebook05.py::test_exercise_3_wrong_answers_fail_and_say_why[after the update]"
        ),
        "wrong unit": "n/a: global steps: counts, with no other unit",
        "hard-coded from an output above": "n/a: no output above shows this hook's steps",
        "copy of a nearby cell": "n/a: no cell above runs these two calls",
        "right shape, wrong content": (
            "test_notebook05.py::test_exercise_3_wrong_answers_fail_and_say_why[by the global step]"
        ),
        "forbidden API": (
            "n/a: a value: the check cannot see how it was found (the prompt asks to work it out "
            "without running)"
        ),
        "right on the notebook's data, wrong in general": (
            "n/a: a value: the check sees no code it could run on other data"
        ),
        "right, written otherwise": "test_notebook05.py::test_exercise_3_correct[numpy array]",
    },
    ("06", 1, "macro_precision_metric"): {
        "off by one": "test_notebook06.py::test_macro_precision_explains_mistakes[nine digits]",
        "wrong unit": "n/a: a fraction (a precision, an F1): no other unit",
        "hard-coded from an output above": (
            "n/a: a streaming metric function: a number from an output cannot stand in for one"
        ),
        "copy of a nearby cell": (
            "test_notebook06.py::test_macro_precision_explains_mistakes[binary]"
        ),
        "right shape, wrong content": (
            "test_notebook06.py::test_macro_precision_explains_mistakes[weighted]"
        ),
        "forbidden API": "test_notebook06.py::test_macro_precision_explains_mistakes[course]",
        "right on the notebook's data, wrong in general": (
            "test_notebook06.py::test_macro_precision_explains_mistakes[predicted only]"
        ),
        "right, written otherwise": "test_notebook06.py::test_macro_precision_correct[counts]",
    },
    ("06", 2, "sample_f1_at_best_test_step"): {
        "off by one": "test_notebook06.py::test_sample_f1_explains_mistakes[one step late]",
        "wrong unit": "n/a: a fraction (a precision, an F1): no other unit",
        "hard-coded from an output above": (
            "test_notebook06.py::test_sample_f1_explains_mistakes[hard-coded]"
        ),
        "copy of a nearby cell": "test_notebook06.py::test_sample_f1_explains_mistakes[test best]",
        "right shape, wrong content": (
            "test_notebook06.py::test_sample_f1_explains_mistakes[sample accuracy]"
        ),
        "forbidden API": "n/a: the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "test_notebook06.py::test_sample_f1_explains_mistakes[sample best]"
        ),
        "right, written otherwise": "test_notebook06.py::test_sample_f1_correct[right_filters]",
    },
    ("06", 3, "most_confused_pair"): {
        "off by one": "n/a: digits are the matrix's own indices: nothing to count",
        "wrong unit": "n/a: digits: no unit",
        "hard-coded from an output above": (
            "n/a: the pair read off the printed matrix is the right answer"
        ),
        "copy of a nearby cell": (
            "test_notebook06.py::test_most_confused_pair_explains_mistakes[diagonal]"
        ),
        "right shape, wrong content": (
            "test_notebook06.py::test_most_confused_pair_explains_mistakes[smaller]"
        ),
        "forbidden API": "n/a: the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "n/a: a value: the check sees no code it could run on other data"
        ),
        "right, written otherwise": (
            "test_notebook06.py::test_most_confused_pair_correct[list of numpy]"
        ),
    },
    ("07", 1, "hook_decision"): {
        "off by one": (
            "test_notebook07.py::"
            "test_exercise_1_messages[answer12-is 1801, the step where training ends]"
        ),
        "wrong unit": "n/a: global steps: counts, with no other unit",
        "hard-coded from an output above": (
            "test_notebook07.py::test_exercise_1_the_sections_run_copied_is_named"
            "[requested at 1800]"
        ),
        "copy of a nearby cell": (
            "n/a: the cell that would fit, replay, gives the right answer (the prompt keeps it for "
            "afterwards)"
        ),
        "right shape, wrong content": (
            "test_notebook07.py::test_exercise_1_messages[answer10-decision['best_step'] is 1000, "
            "which is not the hook's best]"
        ),
        "forbidden API": (
            "n/a: a value: the check cannot see how it was found (the prompt asks to work it out "
            "without running)"
        ),
        "right on the notebook's data, wrong in general": (
            "n/a: a value: the check sees no code it could run on other data"
        ),
        "right, written otherwise": "test_notebook07.py::test_exercise_1_accepts_whole_floats",
    },
    ("07", 2, "stopped_early"): {
        "off by one": "n/a: its numbers are given (PATIENCE_DEMO, EVERY): nothing to count",
        "wrong unit": "test_notebook07.py::test_exercise_2_wrong_hooks[patience in evaluations]",
        "hard-coded from an output above": (
            "test_notebook07.py::"
            "test_exercise_2_a_run_that_max_steps_ended_where_the_hook_would_is_refused"
        ),
        "copy of a nearby cell": (
            "test_notebook07.py::test_exercise_2_wrong_hooks[the broken run's name kept]"
        ),
        "right shape, wrong content": (
            "test_notebook07.py::test_exercise_2_wrong_hooks[the accuracy instead of the precision]"
        ),
        "forbidden API": "test_notebook07.py::test_exercise_2_wrong_hooks[a hook of its own rule]",
        "right on the notebook's data, wrong in general": (
            "test_notebook07.py::test_exercise_2_wrong_hooks[decrease hook on the loss]"
        ),
        "right, written otherwise": (
            "test_notebook07.py::test_exercise_2_accepts_a_hook_that_looks_more_often"
        ),
    },
    ("08", 1, "fixed_serving_export"): {
        "off by one": "n/a: an export directory: no count",
        "wrong unit": (
            "test_notebook08.py::test_exercise_1_a_receiver_that_changes_the_images[divided by 255]"
        ),
        "hard-coded from an output above": "test_notebook08.py::test_exercise_1_no_saved_model",
        "copy of a nearby cell": "test_notebook08.py::test_exercise_1_clients_must_not_change",
        "right shape, wrong content": (
            "test_notebook08.py::test_exercise_1_a_receiver_that_changes_the_images[transposed]"
        ),
        "forbidden API": "n/a: the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "n/a: an export of the notebook's one model: no other model it must work for"
        ),
        "right, written otherwise": "test_notebook08.py::test_exercise_1_accepts_bytes",
    },
    ("08", 2, "first_wrong_digit"): {
        "off by one": "test_notebook08.py::test_exercise_2_wrong_answers[counted from 1]",
        "wrong unit": "n/a: a position: no unit",
        "hard-coded from an output above": (
            "test_notebook08.py::"
            "test_exercise_2_right_position_read_the_wrong_way[hard-coded from an output above]"
        ),
        "copy of a nearby cell": (
            "test_notebook08.py::test_exercise_2_right_position_read_the_wrong_way[from the "
            "reference table, no predict at all]"
        ),
        "right shape, wrong content": (
            "test_notebook08.py::test_exercise_2_wrong_answers[the last wrong digit]"
        ),
        "forbidden API": (
            "test_notebook08.py::test_exercise_2_right_position_read_the_wrong_way[whole batches]"
        ),
        "right on the notebook's data, wrong in general": (
            "n/a: a position in the notebook's one test set: no other data"
        ),
        "right, written otherwise": (
            "test_notebook08.py::"
            "test_exercise_2_right_readings_pass[the key as a string, next() in a loop]"
        ),
    },
    ("09", 1, "second_worker_config"): {
        "off by one": (
            "test_notebook09.py::test_exercise_1_messages[answer6-index 0 is the first worker]"
        ),
        "wrong unit": (
            "n/a: the answer is not a quantity (an Estimator, a train op, a hook, a config): no "
            "unit"
        ),
        "hard-coded from an output above": (
            "test_notebook09.py::test_exercise_1_messages[answer3-change only the 'task' part]"
        ),
        "copy of a nearby cell": (
            "test_notebook09.py::test_exercise_1_messages[answer7-index 2 is not the second "
            "worker: indexes count from 0]"
        ),
        "right shape, wrong content": (
            "test_notebook09.py::"
            "test_exercise_1_messages[answer5-the task type should be 'worker', not 'chief']"
        ),
        "forbidden API": "n/a: the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "n/a: a value: the check sees no code it could run on other data"
        ),
        "right, written otherwise": "test_notebook09.py::test_exercise_1_accepts_the_json_string",
    },
    ("09", 2, "late_workers_rule"): {
        "off by one": (
            "test_notebook09.py::"
            "test_exercise_2_wrong_answers_fail_and_say_why[waits counted from index 0]"
        ),
        "wrong unit": (
            "test_notebook09.py::test_exercise_2_wrong_answers_fail_and_say_why[role names]"
        ),
        "hard-coded from an output above": (
            "n/a: the numbers above (5 s, 60 s) are the rule itself: using them is right"
        ),
        "copy of a nearby cell": (
            "n/a: no cell above computes a wait: the rule is in the roles table"
        ),
        "right shape, wrong content": (
            "test_notebook09.py::test_exercise_2_as_many_workers_but_not_the_late_ones"
        ),
        "forbidden API": "n/a: the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "test_notebook09.py::test_exercise_2_the_message_quotes_the_call_that_shows_the_slip"
            "[the 13 workers of the question hard-coded]"
        ),
        "right, written otherwise": (
            "test_notebook09.py::"
            "test_exercise_2_right_answers_pass[NumPy (np.minimum gives NumPy integers)]"
        ),
    },
    ("10", 1, "keras_macro_precision"): {
        "off by one": (
            "test_notebook10.py::test_exercise_1_wrong_answers_fail_and_say_why"
            "[nine classes, range(9): off by one]"
        ),
        "wrong unit": "n/a: a fraction (a precision, an F1): no other unit",
        "hard-coded from an output above": (
            "test_notebook10.py::test_exercise_1_wrong_answers_fail_and_say_why"
            "[the macro precision printed above, returned as a constant]"
        ),
        "copy of a nearby cell": (
            "test_notebook10.py::test_exercise_1_wrong_answers_fail_and_say_why[Precision() on "
            "one-hot labels: threshold 0.5, all columns]"
        ),
        "right shape, wrong content": (
            "test_notebook10.py::"
            "test_exercise_1_wrong_answers_fail_and_say_why[Recall(class_id=k, top_k=1), averaged]"
        ),
        "forbidden API": (
            "test_notebook10.py::"
            "test_exercise_1_wrong_answers_fail_and_say_why[scikit-learn's precision_score]"
        ),
        "right on the notebook's data, wrong in general": (
            "test_notebook10.py::"
            "test_exercise_1_wrong_answers_fail_and_say_why[the notebook's one_hot inside]"
        ),
        "right, written otherwise": (
            "test_notebook10.py::"
            "test_exercise_1_right_answers_pass[one-hot predictions through Precision(class_id=k)]"
        ),
    },
    ("10", 2, "piecewise_schedule"): {
        "off by one": (
            "test_notebook10.py::"
            "test_exercise_2_wrong_answers_fail_and_say_why[boundaries exclusive (<)]"
        ),
        "wrong unit": "n/a: rates and boundaries are given, in the units the schedule takes",
        "hard-coded from an output above": (
            "n/a: the prompt gives every number; no output above shows a rate"
        ),
        "copy of a nearby cell": (
            "test_notebook10.py::"
            "test_exercise_2_wrong_answers_fail_and_say_why[the course's own decay]"
        ),
        "right shape, wrong content": (
            "test_notebook10.py::"
            "test_exercise_2_wrong_answers_fail_and_say_why[values in the wrong order]"
        ),
        "forbidden API": "n/a: the prompt allows any schedule class or function of the step",
        "right on the notebook's data, wrong in general": (
            "test_notebook10.py::"
            "test_exercise_2_wrong_answers_fail_and_say_why[a third boundary that keeps falling]"
        ),
        "right, written otherwise": (
            "test_notebook10.py::test_exercise_2_right_answers_pass[a function with <=]"
        ),
    },
    ("11", 1, "backward_share"): {
        "off by one": "n/a: a share of time: no count or index",
        "wrong unit": (
            "test_notebook11.py::test_exercise_1_wrong_answers_fail_and_say_why[a percentage]"
        ),
        "hard-coded from an output above": (
            "test_notebook11.py::"
            "test_exercise_1_wrong_answers_fail_and_say_why[the convolutions' gradients only]"
        ),
        "copy of a nearby cell": (
            "test_notebook11.py::"
            r"test_exercise_1_wrong_answers_fail_and_say_why[op types named \u2026Grad]"
        ),
        "right shape, wrong content": (
            "n/a: a single number: every wrong number has the right shape"
        ),
        "forbidden API": "n/a: the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "n/a: a value: the check sees no code it could run on other data"
        ),
        "right, written otherwise": (
            "test_notebook11.py::test_exercise_1_right_answers_pass[contains the scope]"
        ),
    },
    ("11", 2, "mixed_logits"): {
        "off by one": (
            "test_notebook11.py::test_exercise_2_wrong_answers_fail_and_say_why[11 classes, the "
            "first 10 kept (right shape, wrong content)]"
        ),
        "wrong unit": (
            "test_notebook11.py::"
            "test_exercise_2_wrong_answers_fail_and_say_why[probabilities, not logits]"
        ),
        "hard-coded from an output above": "n/a: a network: no number in it comes from an output",
        "copy of a nearby cell": (
            "test_notebook11.py::test_exercise_2_wrong_answers_fail_and_say_why[the global policy "
            "around the layers, set back (forbidden API)]"
        ),
        "right shape, wrong content": (
            "test_notebook11.py::test_exercise_2_wrong_answers_fail_and_say_why[a scaled output "
            "(right on shapes and types, wrong values)]"
        ),
        "forbidden API": (
            "test_notebook11.py::test_exercise_2_wrong_answers_fail_and_say_why[the global policy "
            "imported by name, set back]"
        ),
        "right on the notebook's data, wrong in general": (
            "test_notebook11.py::"
            "test_exercise_2_wrong_answers_fail_and_say_why[layers made outside the function]"
        ),
        "right, written otherwise": (
            "test_notebook11.py::"
            "test_exercise_2_right_answers_pass[a Sequential model ending in a float32 layer]"
        ),
    },
}

WANTED = {}

NOTES = {
    ("00", 1, "hard-coded from an output above"): (
        "the count of test 1s: 1135 in the class-balance table above"
    ),
    ("00", 1, "copy of a nearby cell"): "the class-balance cell's 'train %' column",
    ("00", 1, "right, written otherwise"): "a float, where the solution gives np.float64",
    ("00", 2, "wrong unit"): "an index where a name is asked",
    ("01", 1, "off by one"): "the timed lines from the second on: a loop that starts one line late",
    ("01", 1, "wrong unit"): "steps per second where seconds are asked",
    ("01", 1, "hard-coded from an output above"): (
        "the first timed line, the one the printed log shows (1.984 s in the notebook)"
    ),
    ("01", 1, "copy of a nearby cell"): (
        "the mean of the rate column of the table cell that pairs rates with seconds"
    ),
    ("01", 1, "right, written otherwise"): "np.float32(total)",
    ("01", 2, "off by one"): "one step short",
    ("01", 2, "hard-coded from an output above"): (
        "a step count typed in, trained once (3000 or 200 in the notebook)"
    ),
    ("01", 2, "copy of a nearby cell"): "`broken` itself, as the cell above left it",
    ("01", 2, "right shape, wrong content"): (
        "an Estimator trained to the right step, on made-up data"
    ),
    ("02", 1, "off by one"): "rounded down",
    ("02", 1, "wrong unit"): "examples, not steps",
    ("02", 1, "hard-coded from an output above"): "one epoch's steps, in the table above",
    ("02", 1, "copy of a nearby cell"): "the table's steps per epoch times 3: batch, then repeat",
    ("02", 1, "right, written otherwise"): "a float, where math.ceil gives an int",
    ("02", 2, "off by one"): "drop_remainder: one batch short",
    ("02", 2, "wrong unit"): "pixels 0-255, not 0-1",
    ("02", 2, "copy of a nearby cell"): "MNIST's test split: an MNIST cell copied",
    ("02", 2, "right shape, wrong content"): "right shapes, wrong labels",
    ("02", 2, "right, written otherwise"): (
        "maps, then batches, from tensors: not the solution's order"
    ),
    ("02", 3, "wrong unit"): "one-hot cast to int32, for class ids",
    ("02", 3, "copy of a nearby cell"): "one_hot_input_fn itself",
    ("02", 3, "right shape, wrong content"): "argmin",
    ("02", 3, "forbidden API"): "the prompt asks for one_hot_input_fn()'s batches",
    ("03", 1, "off by one"): "global step 2, not 1",
    ("03", 1, "forbidden API"): "minimize, which the prompt rules out",
    ("03", 1, "right on the notebook's data, wrong in general"): (
        "the same as clip_by_norm on real images' small gradients; the check feeds over-bright ones"
    ),
    ("03", 2, "off by one"): "index 1 for index 0",
    ("03", 2, "copy of a nearby cell"): "the PREDICT branch's classes, copied",
    ("03", 3, "copy of a nearby cell"): "the notebook's accuracy metric",
    ("03", 3, "right on the notebook's data, wrong in general"): (
        "right when the batches are of one size, as the notebook's are"
    ),
    ("04", 1, "off by one"): "one call left out",
    ("04", 2, "copy of a nearby cell"): "the resume cell's max_steps outcome, taken for steps too",
    ("04", 3, "copy of a nearby cell"): "the broken cell's model_dir kept",
    ("04", 3, "right shape, wrong content"): "the right model and steps, nothing warm-started",
    ("04", 3, "right on the notebook's data, wrong in general"): (
        "the test's own words: right on the notebook's first layer, wrong in general"
    ),
    ("05", 1, "off by one"): "dense for dense_1",
    ("05", 1, "wrong unit"): "probabilities where logits are asked",
    ("05", 1, "right shape, wrong content"): "the bias's shape, not its value",
    ("05", 2, "copy of a nearby cell"): (
        "LoggingTensorHook's every_n_iter, from the sections above, carried over"
    ),
    ("06", 1, "off by one"): "range(1, 10)",
    ("06", 1, "copy of a nearby cell"): "the article_precision cell",
    ("06", 1, "right on the notebook's data, wrong in general"): (
        "right when every digit is predicted, as on the notebook's test set"
    ),
    ("06", 2, "off by one"): "the next evaluation",
    ("06", 2, "copy of a nearby cell"): "one run read, as the cells above read it",
    ("06", 3, "copy of a nearby cell"): "the diagonal, as the recall cells read it",
    ("07", 2, "hard-coded from an output above"): "max_steps=41, typed from the output above",
    ("07", 2, "forbidden API"): (
        "make_early_stopping_hook, where the prompt keeps stop_if_no_increase_hook"
    ),
    ("07", 2, "right on the notebook's data, wrong in general"): (
        "stops the notebook's frozen model at the same step"
    ),
    ("08", 1, "hard-coded from an output above"): (
        "a folder typed in ('../models/08_export', printed above) that holds no export itself"
    ),
    ("08", 1, "copy of a nearby cell"): "the section's receiver, with 'image'",
    ("08", 1, "right, written otherwise"): "what export_saved_model returns, not as text",
    ("08", 2, "copy of a nearby cell"): "the reference table of a cell above",
    ("08", 2, "forbidden API"): "the prompt asks for one example at a time",
    ("09", 1, "hard-coded from an output above"): (
        "another cluster, as copying the local cluster printed above gives"
    ),
    ("09", 1, "copy of a nearby cell"): "the broken cell's config",
    ("09", 2, "wrong unit"): "'worker:i' where indexes are asked",
    ("10", 1, "copy of a nearby cell"): "the break-it cell's metric, as it comes",
    ("10", 2, "copy of a nearby cell"): "build_cnn's ExponentialDecay",
    ("10", 2, "right on the notebook's data, wrong in general"): "right up to step 1500",
    ("11", 1, "hard-coded from an output above"): (
        "the Backprop rows' shares of the top-ops table above"
    ),
    ("11", 1, "copy of a nearby cell"): "selection by op type, as the top-ops cell groups",
    ("11", 2, "off by one"): "11 units for 10",
    ("11", 2, "copy of a nearby cell"): "bf16_cnn_model_fn's way, copied",
    ("11", 2, "right on the notebook's data, wrong in general"): (
        "right in the notebook's kernel, which made the layers once"
    ),
}


# --- what the notebooks have -----------------------------------------------------------------

EXERCISE_HEADING = re.compile(r"^(?:\*\*|#+ )Exercise (\d+)\b", re.M)
CHECK_CALL = re.compile(r"\bchecks\.(\w+)\(")


def notebook_exercises() -> set:
    """(notebook, number, check) of every exercise of notebooks/NN_*.ipynb: the number from the
    last "**Exercise N" or "### Exercise N" above its solution cell, the check from the first
    ``checks.<name>(`` in a code cell after it (a break-it cell's call before the solution is not
    the exercise's check)."""
    found = set()
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        number = solved = None
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "markdown":
                numbers = EXERCISE_HEADING.findall(source)
                number = int(numbers[-1]) if numbers else number
            elif "### BEGIN SOLUTION" in source:
                solved = number
            elif solved is not None and CHECK_CALL.search(source):
                found.add((path.name[:2], solved, CHECK_CALL.search(source)[1]))
                solved = None
    return found


@functools.lru_cache(maxsize=None)
def collected_ids() -> frozenset:
    """Every test id of tests/helpers/checks/test_notebookNN.py, as ``test_notebookNN.py::...``,
    from one ``pytest --collect-only -q`` in a subprocess (imports, no test run)."""
    files = sorted(str(p.relative_to(ROOT)) for p in HERE.glob("test_notebook[0-9][0-9].py"))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    prefix = "tests/helpers/checks/"
    return frozenset(
        line[len(prefix) :] for line in result.stdout.splitlines() if line.startswith(prefix)
    )


def cells(form=None):
    """(row, kind, cell) of every cell of BANKS; of one form only: "test", "n/a" or MISSING."""
    for row, columns in BANKS.items():
        for kind in KINDS:
            cell = columns.get(kind)
            if form is None or form == form_of(cell):
                yield row, kind, cell


def form_of(cell) -> str:
    if cell == MISSING:
        return MISSING
    if isinstance(cell, str) and cell.startswith(NOT_APPLICABLE) and cell[len(NOT_APPLICABLE) :]:
        return "n/a"
    if isinstance(cell, str) and re.fullmatch(r"test_notebook\d\d\.py::test_\w+(\[.+\])?", cell):
        return "test"
    return "neither"


def totals() -> dict:
    """How many cells are covered by a test, not applicable, MISSING: in all and per kind."""
    count = {form: sum(1 for _ in cells(form)) for form in ("test", "n/a", MISSING)}
    per_kind = {
        kind: {form: sum(1 for _, k, _ in cells(form) if k == kind) for form in count}
        for kind in KINDS
    }
    return {"exercises": len(BANKS), **count, "per kind": per_kind}


# --- the tests -------------------------------------------------------------------------------


def test_the_table_has_exactly_the_exercises_of_the_notebooks():
    exercises = notebook_exercises()
    assert exercises, "no exercise found in notebooks/NN_*.ipynb"
    assert set(BANKS) == exercises, (
        f"exercises without a row: {sorted(exercises - set(BANKS))}; "
        f"rows without an exercise: {sorted(set(BANKS) - exercises)}"
    )


def test_every_cell_is_a_test_of_its_notebook_or_n_a_with_a_reason_or_missing():
    for row, columns in BANKS.items():
        assert tuple(columns) == KINDS, (row, tuple(columns))
    wrong = [(row, kind, cell) for row, kind, cell in cells("neither")]
    assert not wrong, f'cells neither a test id, "n/a: <why>" nor "MISSING": {wrong}'
    elsewhere = [
        (row, kind, cell)
        for row, kind, cell in cells("test")
        if not cell.startswith(f"test_notebook{row[0]}.py::")
    ]
    assert not elsewhere, f"tests cited from another notebook's file: {elsewhere}"


def test_every_cited_test_exists():
    collected = collected_ids()
    gone = sorted({cell for _, _, cell in cells("test")} - collected)
    assert not gone, (
        "cited in BANKS, not collected (renamed, removed, or a positional id such as "
        f"[input_fn-words4] that moved): {gone}"
    )


def test_each_missing_cell_says_what_its_test_would_try():
    missing = {(row[0], row[1], kind) for row, kind, _ in cells(MISSING)}
    assert set(WANTED) == missing, (sorted(missing - set(WANTED)), sorted(set(WANTED) - missing))
    assert all(WANTED.values())


def test_each_note_is_on_a_cell_a_test_covers():
    covered = {(row[0], row[1], kind) for row, kind, _ in cells("test")}
    assert set(NOTES) <= covered, sorted(set(NOTES) - covered)


def test_the_totals(capsys):
    count = totals()
    assert count["test"] + count["n/a"] + count[MISSING] == len(BANKS) * len(KINDS)
    with capsys.disabled():
        print(
            f"\nbanks: {count['exercises']} exercises, {count['test']} cells covered, "
            f"{count['n/a']} n/a, {count[MISSING]} MISSING"
        )


def test_banks_md_is_the_table_rendered():
    assert BANKS_MD.read_text(encoding="utf-8") == render(), (
        "BANKS.md is not the table: run python -m tests.helpers.checks.test_bank_table"
    )


# --- BANKS.md --------------------------------------------------------------------------------

COLUMNS = (
    "1 off by one",
    "2 wrong unit",
    "3 hard-coded",
    "4 nearby copy",
    "5 right shape",
    "6 forbidden API",
    "7 notebook only",
    "R right, otherwise",
)

INTRO = """\
# A bank for every exercise, in seven kinds

Generated from `BANKS` in `test_bank_table.py` by `python -m tests.helpers.checks.test_bank_table`;
`test_banks_md_is_the_table_rendered` fails when the two differ. Edit the table there, not here.

Issue 39 asks that each check's tests hold wrong answers of each kind that applies, and a right
answer written otherwise than the solution. The table says, for each of the 29 exercises, which test
tries each kind (✓ and its short name: the parameter of a bank's entry or the test's name, or, where
that is only a position such as `words3`, what the answer is), why a kind does not apply (n/a, with
the reason numbered below), or that it applies and no test tries it (**MISSING**, with what such a
test would try below). A test is cited for a kind when the wrong answer it tries is of that kind;
the full ids, and how each fits where its name does not say, are at the end. A kind applies when a
learner could plausibly give such an answer to this exercise:

1. **off by one**: the answer holds a count, an index, a position or a boundary.
2. **wrong unit**: the right quantity in another unit or form: a percentage for a fraction, rates
   for seconds, an index for a name, probabilities for logits, one-hot for class ids.
3. **hard-coded**: a number typed from an output above (for a function: a function that returns it).
4. **nearby copy**: a copy of a nearby cell, most often the exercise's own break-it cell.
5. **right shape**: the right type and shape with the wrong content (n/a for a single number, where
   every wrong answer has the right shape).
6. **forbidden API**: only where the prompt rules an API out or asks for one.
7. **notebook only**: code that is right on the notebook's data and wrong in general; n/a for a
   value (the check sees no code) and for code bound to one fixed dataset, graph or model.
8. **R, right, otherwise**: a right answer in another form or way than the solution (for a value:
   another type, such as a float where the solution gives `np.float64`).

Some cited ids are positional (`[input_fn-words4]`, `[answer8-…]`): they name an entry by its place
in a list, so an entry inserted before it moves the id to another answer without failing this test.
Explicit `ids=` in those tests would pin them.
"""


def short(test_id: str, note: str = "") -> str:
    """The cell's short name: the parameter of a bank's entry without its position (``answer8-``),
    or the test's name without ``test_``; the note instead where that says nothing but a position
    or a number (``input_fn-words7``, ``answer1``, ``703``)."""
    name = test_id.split("::", 1)[1]
    function, _, parameter = name.partition("[")
    text = re.sub(r"^test_(exercise_\d+_)?", "", function)
    if parameter:
        text = re.sub(r"^(answer\d+|None)-", "", parameter[:-1])
        if note and re.search(r"words\d+$|^answer\d+$|^[\d.]+$", text):
            return note
    # pytest's escapes, undone for the reader: a doubled backslash, \u2026
    text = re.sub(r"\\u([0-9a-f]{4})", lambda m: chr(int(m[1], 16)), text.replace("\\\\", "\\"))
    return text if len(text) <= 40 else text[:39] + "…"


def markdown(text: str) -> str:
    return text.replace("|", "\\|")


def render() -> str:
    reasons: dict = {}
    rows = []
    cited = []
    for (notebook, number, check), columns in BANKS.items():
        shown = []
        for kind in KINDS:
            cell = columns[kind]
            if form_of(cell) == "test":
                note = NOTES.get((notebook, number, kind), "")
                name = short(cell, note)
                shown.append(f"✓ `{name}`" if "`" not in name and name != note else f"✓ {name}")
                cited.append(
                    f"- {notebook}·{number}, {kind}: `{cell}`" + (f" ({note})" if note else "")
                )
            elif form_of(cell) == "n/a":
                why = cell[len(NOT_APPLICABLE) :]
                shown.append(f"n/a ({reasons.setdefault(why, len(reasons) + 1)})")
            else:
                shown.append("**MISSING**")
        rows.append(f"| {notebook}·{number} `{check}` | " + " | ".join(map(markdown, shown)) + " |")
    count = totals()
    per_kind = [f"{c['test']} / {c['n/a']} / {c[MISSING]}" for c in count["per kind"].values()]
    lines = [
        INTRO,
        "| exercise | " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * (len(COLUMNS) + 1),
        *rows,
        "| **✓ / n/a / MISSING** | " + " | ".join(per_kind) + " |",
        "",
        f"**Totals:** {count['exercises']} exercises × {len(KINDS)} columns = "
        f"{count['exercises'] * len(KINDS)} cells: {count['test']} covered by a test, "
        f"{count['n/a']} n/a, {count[MISSING]} MISSING.",
        "",
        "## MISSING: what a test would try",
        "",
        *(
            [
                f"- {notebook}·{number}, {kind}: {markdown(would)}"
                for (notebook, number, kind), would in WANTED.items()
            ]
            or ["None: every kind that applies to an exercise is tried by a test."]
        ),
        "",
        "## Why n/a",
        "",
        *(f"{n}. {why}" for why, n in reasons.items()),
        "",
        "## The cited tests",
        "",
        "<details><summary>Every cited test id, and how it fits where its name does not say"
        "</summary>",
        "",
        *cited,
        "",
        "</details>",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    BANKS_MD.write_text(render(), encoding="utf-8")
    print(f"wrote {BANKS_MD.relative_to(ROOT)}")
