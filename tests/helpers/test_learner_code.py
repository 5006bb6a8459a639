"""helpers.learner_code: which line of an error is the learner's, how a message names it, and what
TensorFlow's error says in one line (the model_fn checker and the exercise checks both use it).

(a) ``is_learners``: a notebook cell or a file of the learner's is; the helpers, Python's and any
    installed library's files, AutoGraph's copies and other ``<…>`` code are not.
(b) ``learner_line``: the innermost learner's line: where the failing op was built, else the
    traceback (without a check's own code), a ``SyntaxError``'s own line, else the frames
    TensorFlow's message lists.
(c) ``where``: ``line N of `function` in path: `code```, the path only inside the project, the
    code cut at 80 characters.
(d) ``error_text`` and ``shorten_graph_message``: TensorFlow's message without its lines about
    where.
"""

import sys
import traceback
import types

import pytest
import tensorflow as tf

from helpers import learner_code
from helpers.learner_code import (
    Line,
    error_text,
    is_learners,
    learner_line,
    op_line,
    shorten_graph_message,
    where,
)
from helpers.paths import PROJECT_ROOT

HERE = "tests/helpers/test_learner_code.py"

# (a) whose code


@pytest.mark.parametrize(
    "filename, learners",
    [
        (__file__, True),  # a test's answers, a learner's own module
        ("/tmp/ipykernel_4242/1234567.py", True),  # a Jupyter cell
        ("<ipython-input-3-abc>", True),  # a cell of IPython without ipykernel
        (learner_code.__file__, False),  # the helpers
        (traceback.__file__, False),  # Python's library
        (tf.__file__, False),  # the environment's libraries
        ("/home/ada/.local/lib/python3.11/site-packages/keras/src/layers/core/dense.py", False),
        ("C:\\Users\\ada\\AppData\\Roaming\\Python\\site-packages\\keras\\layer.py", False),
        ("/tmp/__autograph_generated_file1a2b.py", False),
        ("<frozen importlib._bootstrap>", False),
        ("<string>", False),
    ],
)
def test_whose_code_a_file_is(filename, learners):
    assert is_learners(filename) is learners


# (b) the learner's line of an error


def _learners_function(value):
    return {"a": 1}[value]  # the learner's line


def test_the_innermost_learners_line_of_a_traceback_through_libraries():
    with pytest.raises(KeyError) as caught:
        list(map(_learners_function, ["a", "b"]))  # map: a call through Python's own code
    line = learner_line(caught.value)
    assert (line.function, line.source) == (
        "_learners_function",
        'return {"a": 1}[value]  # the learner\'s line',
    )
    assert line.namespace["value"] == "b" and line.namespace["pytest"] is pytest


def test_a_checks_own_code_is_not_the_learners_wherever_it_is():
    def check(answer):
        return answer()

    with pytest.raises(ZeroDivisionError) as caught:
        check(lambda: 1 / 0)
    assert learner_line(caught.value, {check.__code__}).function == "<lambda>"
    assert learner_line(ZeroDivisionError("never raised")) is None  # no traceback, no op


def test_a_syntax_errors_own_line_is_the_learners(tmp_path):
    cell = tmp_path / "cell.py"
    cell.write_text("share = None\nshare = (1 + 2\n")
    with pytest.raises(SyntaxError) as caught:
        compile(cell.read_text(), str(cell), "exec")
    line = learner_line(caught.value)
    assert (line.lineno, line.function, line.source) == (2, "<module>", "share = (1 + 2")


class GraphError(Exception):
    """What ``learner_line`` reads of a ``tf.errors.OpError``: its message and its op."""

    def __init__(self, message):
        super().__init__(message)
        self.message, self.op = message, None


def test_an_ops_creation_stack_comes_before_the_traceback_and_the_message():
    code = _learners_function.__code__
    built_at = [
        traceback.FrameSummary(code.co_filename, code.co_firstlineno + 1, "_learners_function"),
        traceback.FrameSummary(sys.modules["json"].__file__, 1, "library_code"),
    ]
    error = GraphError(f"Detected at node 'x' defined at:\n  File \"{__file__}\", line 1, in other")
    assert learner_line(error).function == "other"  # no op: the frames the message lists
    error.op = types.SimpleNamespace(traceback=built_at)  # as TensorFlow's OpError.op gives it
    assert learner_line(error).lineno == code.co_firstlineno + 1
    assert op_line(error.op) == learner_line(error)
    assert op_line(None) is None and op_line(types.SimpleNamespace()) is None  # no stack


def test_a_real_ops_line_is_the_one_that_built_it():
    with tf.Graph().as_default():
        product = tf.matmul(tf.ones([2, 3]), tf.ones([3, 1]))  # the learner's op
    assert (
        op_line(product.op).source
        == "product = tf.matmul(tf.ones([2, 3]), tf.ones([3, 1]))  # the learner's op"
    )


# (c) how a message names the line


def test_a_line_is_named_with_its_function_its_file_in_the_project_and_its_code(tmp_path):
    short = "loss = f(x)  # see `tf.nn`"
    exactly_80 = "x = " + "a" * 76
    cell = tmp_path / "cell.py"
    cell.write_text(f"    {short}\n{exactly_80}\n{exactly_80}b\n")
    assert where(Line(str(cell), 1, "model_fn")) == (
        "line 1 of `model_fn`: `loss = f(x)  # see 'tf.nn'`"
    )
    assert where(Line(str(cell), 2, "model_fn")) == f"line 2 of `model_fn`: `{exactly_80}`"
    assert where(Line(str(cell), 3, "<module>")) == f"line 3: `{exactly_80[:77]}…`"  # 81: cut
    assert where(Line(str(cell), 9, "model_fn")) == "line 9 of `model_fn`"  # no such line
    first = open(__file__).readline().strip()  # longer than 80 characters: cut
    assert where(Line(__file__, 1, "<module>")) == f"line 1 in {HERE}: `{first[:77]}…`"
    assert where(Line(__file__, 1, "f")).startswith(f"line 1 of `f` in {HERE}: ")
    gone = PROJECT_ROOT / "notebooks" / "no_such_cell.py"
    assert where(Line(str(gone), 4, "model_fn")) == "line 4 of `model_fn`"


# (d) what the error says


def test_error_text_is_the_line_that_says_what_without_where_or_the_final_period():
    error = tf.errors.InvalidArgumentError(
        None,
        None,
        "Graph execution error:\n\nDetected at node 'x' defined at (most recent call last):\n"
        "  File \"model.py\", line 2, in model_fn\nNode: 'x'\nThe tensor is not ready.\n"
        "\t [[{{node x}}]]",
    )
    assert error_text(error) == "InvalidArgumentError: The tensor is not ready"
    inline = tf.errors.InvalidArgumentError(None, None, "Incompatible shapes [[{{node Equal}}]]")
    assert error_text(inline) == "InvalidArgumentError: Incompatible shapes"


def test_error_text_leaves_the_project_folder_out_and_cuts_a_long_message():
    missing = FileNotFoundError(f"{PROJECT_ROOT}/data/missing.bin; No such file or directory")
    assert error_text(missing) == "FileNotFoundError: data/missing.bin; No such file or directory"
    long = error_text(ValueError("x" * 300))
    assert long == "ValueError: " + "x" * 199 + "…"
    assert error_text(ValueError("y" * 200)) == "ValueError: " + "y" * 200
    assert error_text(KeyError()) == "KeyError"
    assert error_text(NameError("name 'x' is not defined\nsecond line")) == (
        "NameError: name 'x' is not defined"
    )


def _session_error() -> tf.errors.OpError:
    """A real error of a graph run in a session (as Estimator runs one)."""
    with tf.Graph().as_default():
        a = tf.compat.v1.placeholder(tf.float32, [None, None])
        b = tf.compat.v1.placeholder(tf.float32, [None, None])
        product = tf.matmul(a, b)
        with tf.compat.v1.Session() as session:
            try:
                session.run(product, {a: [[1, 2, 3]], b: [[1, 2]]})
            except tf.errors.OpError as error:
                return error
    raise AssertionError("the product of a [1, 3] and a [1, 2] matrix ran")


@tf.function(input_signature=[tf.TensorSpec([None, None]), tf.TensorSpec([None, None])])
def _product(a, b):
    return tf.matmul(a, b)


def _function_error() -> tf.errors.OpError:
    """A real error of a tf.function (its file lines have blank lines between them)."""
    try:
        _product(tf.ones([2, 3]), tf.ones([4, 5]))
    except tf.errors.OpError as error:
        return error
    raise AssertionError("the product of a [2, 3] and a [4, 5] matrix ran")


@pytest.mark.parametrize("make_error", [_session_error, _function_error])
def test_shorten_graph_message_drops_the_file_lines_only(make_error):
    message = make_error().message
    assert "Detected at node" in message and 'File "' in message  # what there is to shorten
    short = shorten_graph_message(message)
    assert "Detected at node" not in short and "File " not in short and __file__ not in short
    assert short.startswith("Graph execution error:")
    assert "Matrix size-incompatible: In[0]:" in short


def test_shorten_graph_message_leaves_a_plain_message_alone():
    assert shorten_graph_message("Matrix size-incompatible: In[0]: [50,1568]") == (
        "Matrix size-incompatible: In[0]: [50,1568]"
    )


def test_shorten_graph_message_line_by_line():
    message = "\n".join(
        [
            'File "notes.txt" is not a file line of a trace: the message starts with it',
            "Graph execution error:",
            "",
            "Detected at node 'MatMul' defined at (most recent call last):",
            '  File "train.py", line 1, in <module>',
            "",
            '  File "model.py", line 2, in model_fn',
            "Node: 'MatMul'",
            "the tensors defined at the top stay",
            "",
            "Detected at node 'Other' (no file lines follow)",
            "  File-like text stays",
        ]
    )
    assert shorten_graph_message(message).splitlines() == [
        'File "notes.txt" is not a file line of a trace: the message starts with it',
        "Graph execution error:",
        "",
        "Node: 'MatMul'",
        "the tensors defined at the top stay",
        "",
        "Detected at node 'Other' (no file lines follow)",
        "  File-like text stays",
    ]


def test_an_error_in_a_dataset_map_is_its_own_line_not_autographs_header():
    """tf.data traces a map function with AutoGraph, whose message starts "in user code:" and
    lists frames; the line a learner needs is the error at its end (issue 46: "ValueError: in
    user code:" was all a check showed)."""
    import tensorflow as tf

    def reshape(x):
        return tf.reshape(x, [2, 2])

    with pytest.raises(ValueError) as raised:
        tf.data.Dataset.range(3).map(reshape)
    assert error_text(raised.value) == (
        "ValueError: Cannot reshape a tensor with 1 elements to shape [2,2] (4 elements)"
    )
