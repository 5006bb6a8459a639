"""Input functions reading the IDX files with ``tf.data``, never arrays in the graph (notebook 02).

Features ``{"image": float32 [batch, 28, 28]}`` in 0–1, labels int32 ``[batch]``. ``tf.data`` checks
nothing, so ``image_dataset`` calls ``data.ensure`` first.
"""

from __future__ import annotations

from collections.abc import Callable

import tensorflow as tf

from . import data
from .language import _
from .problems import UsageProblem
from .settings import SEED

InputFn = Callable[[], tf.data.Dataset]


def _decode_image(record: tf.Tensor) -> tf.Tensor:
    return tf.reshape(tf.cast(tf.io.decode_raw(record, tf.uint8), tf.float32) / 255.0, [28, 28])


def image_dataset(name: str | data.DatasetSpec = "mnist", split: str = "train") -> tf.data.Dataset:
    """``(image, label)`` pairs of one split, read from the IDX files (fetched, verified first)."""
    if split not in ("train", "test"):
        raise UsageProblem(_("split must be 'train' or 'test', not {split!r}").format(split=split))
    paths = data.ensure(name)
    images = tf.data.FixedLengthRecordDataset(  # a header of magic, count, rows, columns
        str(paths[f"{split}_images"]), 28 * 28, header_bytes=16, compression_type="GZIP"
    )
    labels = tf.data.FixedLengthRecordDataset(  # a header of magic, count
        str(paths[f"{split}_labels"]), 1, header_bytes=8, compression_type="GZIP"
    )
    return tf.data.Dataset.zip(
        (
            images.map(_decode_image, num_parallel_calls=tf.data.AUTOTUNE),
            labels.map(lambda record: tf.cast(tf.io.decode_raw(record, tf.uint8)[0], tf.int32)),
        )
    )


def _as_features(image: tf.Tensor, label: tf.Tensor) -> tuple[dict[str, tf.Tensor], tf.Tensor]:
    return {"image": image}, label


def make_train_input_fn(
    name: str = "mnist",
    batch_size: int = 100,
    epochs: int | None = None,
    shuffle_buffer: int = 10_000,
    seed: int = SEED,
) -> InputFn:
    """An ``input_fn`` for training: cached, shuffled, repeated ``epochs`` times (None: forever)."""

    def train_input_fn():
        return (
            image_dataset(name, "train")
            .cache()
            .shuffle(shuffle_buffer, seed=seed, reshuffle_each_iteration=True)
            .repeat(epochs)
            .batch(batch_size)
            .map(_as_features)
            .prefetch(tf.data.AUTOTUNE)
        )

    return train_input_fn


def make_eval_input_fn(
    name: str = "mnist",
    split: str = "test",
    batch_size: int = 500,
    count: int | None = None,
    skip: int = 0,
) -> InputFn:
    """An ``input_fn`` for evaluation: one pass in order over ``count`` examples (None: all) after
    ``skip``."""
    return lambda: (
        image_dataset(name, split)
        .skip(skip)
        .take(-1 if count is None else count)
        .batch(batch_size)
        .map(_as_features)
        .prefetch(tf.data.AUTOTUNE)
    )


def make_predict_input_fn(
    name: str = "mnist", split: str = "test", batch_size: int = 500, count: int | None = None
) -> InputFn:
    """An ``input_fn`` for prediction: the evaluation batches' features only, in order."""
    return lambda: make_eval_input_fn(name, split, batch_size, count)().map(
        lambda features, labels: features
    )
