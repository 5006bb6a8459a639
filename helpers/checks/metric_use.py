"""A learner's streaming metric used as the lessons use it (notebooks 03 and 06): its
``{key: (value, update_op)}`` in the ``eval_metric_ops`` of a real ``EstimatorSpec``, evaluated by
``Estimator.evaluate`` from a checkpoint, over the check's batches. What only a real evaluation
shows is then the learner's to fix: totals kept in global variables, which the checkpoint does
not hold, and a value that reads the current batch.
"""

from __future__ import annotations

from .checkpoint import scratch_model_dir
from .common import _metric_pair, fail


def evaluated(build, answer: str, key: str, batches, section: str = ""):
    """The value ``Estimator.evaluate`` reports for ``build(labels, classes)[key]`` over
    ``batches`` (pairs of label and class lists), each wrong shape of answer one line, which ends
    by citing ``section`` (a heading of the notebook) when one is given."""
    import numpy as np
    import tensorflow as tf

    from ..logs import logger_level

    pairs = [
        (np.asarray(labels, np.int32), np.asarray(classes, np.int32)) for labels, classes in batches
    ]

    def input_fn():
        spec = tf.TensorSpec([None], tf.int32)
        data = tf.data.Dataset.from_generator(lambda: iter(pairs), output_signature=(spec, spec))
        return data.map(lambda labels, classes: ({"classes": classes}, labels))

    def model_fn(features, labels, mode):
        ops = build(labels, features["classes"])
        if not isinstance(ops, dict):
            fail(
                '`{answer}` returned a {kind}: return a dict, {{"{key}": (value, update_op)}}',
                answer=answer,
                kind=type(ops).__name__,
                key=key,
            )
        if key not in ops:
            fail("the dict has the keys {keys}: name the metric '{key}'", keys=sorted(ops), key=key)
        pair = _metric_pair(ops[key], key, section)
        if _reads(pair[0], {labels.op, features["classes"].op}):
            fail(
                "the value needs the current batch to be computed: it must read the totals that "
                "the update op accumulates"
            )
        tf.compat.v1.train.get_or_create_global_step()
        # a loss that reads the batch, so that evaluate() ends when the input does, whatever
        # the update op reads (one that reads neither would otherwise never end)
        loss = tf.reduce_sum(tf.cast(labels, tf.float32)) * 0.0
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={key: pair})

    with scratch_model_dir(checkpoint=True) as folder, logger_level("ERROR"):
        estimator = tf.estimator.Estimator(model_fn, config=tf.estimator.RunConfig(folder))
        try:
            result = estimator.evaluate(input_fn)
        except tf.errors.NotFoundError:
            fail(
                "in a real evaluate() your metric fails: it keeps its totals in global "
                "variables, which evaluate() restores from the checkpoint, and the checkpoint "
                "has none; keep them in local variables, as tf.compat.v1.metrics does "
                "(collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES])"
            )
        except (tf.errors.OutOfRangeError, tf.errors.InvalidArgumentError):
            fail(
                "the value needs the current batch to be computed: it must read the totals that "
                "the update op accumulates"
            )
    return np.asarray(result[key])


def _reads(tensor, batch_ops) -> bool:
    """Whether computing ``tensor`` runs any of ``batch_ops`` (the ops that give the batch): then
    evaluate() would read one more batch for the final value, after the last."""
    import tensorflow as tf

    return isinstance(tensor, tf.Tensor) and not ops_run(tensor).isdisjoint(batch_ops)


def ops_run(op_or_tensor) -> set:
    """The ops that running ``op_or_tensor`` (a tensor, an op, anything with an ``op``, or a list
    of them) runs, through inputs and control dependencies."""
    import tensorflow as tf

    # what a resource variable's assign returns in a graph has the assign as its op
    pending = [x if isinstance(x, tf.Operation) else x.op for x in tf.nest.flatten(op_or_tensor)]
    seen = set()
    while pending:
        op = pending.pop()
        if op not in seen:
            seen.add(op)
            pending.extend(tensor.op for tensor in op.inputs)
            pending.extend(op.control_inputs)
    return seen
