"""Input functions that read the IDX files with ``tf.data``.

Introduced in notebook 02, where the learner builds them step by step; the
notebooks after it use these. An ``input_fn`` returns a ``tf.data.Dataset`` of
``(features, labels)`` with ``features = {"image": float32 [batch, 28, 28]}``
(pixels scaled to 0–1) and ``labels`` int32 ``[batch]``.

The images are read from the verified ``.gz`` files with
``FixedLengthRecordDataset``, never embedded as arrays: embedding the training
set with ``from_tensor_slices(numpy)`` puts it into the graph, and the graph
is written into ``model_dir`` at every checkpoint (notebook 02 measures it).

``tf.data`` itself checks nothing: it skips the header, so a file whose count
is wrong, or whose gzip stream lost bytes in the middle, would be read without
an error (a short test set, images and labels out of step). So every time an
``input_fn`` builds its dataset, ``image_dataset`` first calls
``data.ensure``: once per file per process the ``.gz`` bytes are hashed and
compared with the record made when the file entered the cache (0.02 s for
MNIST, 0.04 s for Fashion-MNIST), after that only ``os.stat`` is compared. A
file that changed is checked in full, and removed and fetched again if it
fails (see ``helpers.data``).

The ``make_*_input_fn`` functions *return* an ``input_fn``: call them, and pass
their result to ``train`` / ``evaluate`` / ``predict``.
"""

from __future__ import annotations

from collections.abc import Callable

import tensorflow as tf

from . import data
from .problems import UsageProblem
from .settings import SEED

IMAGE_BYTES = 28 * 28
IMAGES_HEADER_BYTES = 16  # magic, count, rows, columns
LABELS_HEADER_BYTES = 8  # magic, count
FEATURE = "image"
InputFn = Callable[[], tf.data.Dataset]


def _decode_image(record):
    pixels = tf.io.decode_raw(record, tf.uint8)
    return tf.reshape(tf.cast(pixels, tf.float32) / 255.0, [28, 28])


def _decode_label(record):
    return tf.cast(tf.io.decode_raw(record, tf.uint8)[0], tf.int32)


def image_dataset(dataset: str = "mnist", split: str = "train") -> tf.data.Dataset:
    """``(image, label)`` pairs of one split, read from the IDX files (fetched and verified first)."""
    if split not in ("train", "test"):
        raise UsageProblem(f"split must be 'train' or 'test', not {split!r}")
    paths = data.ensure(dataset)
    images = tf.data.FixedLengthRecordDataset(
        str(paths[f"{split}_images"]), IMAGE_BYTES,
        header_bytes=IMAGES_HEADER_BYTES, compression_type="GZIP",
    ).map(_decode_image, num_parallel_calls=tf.data.AUTOTUNE)
    labels = tf.data.FixedLengthRecordDataset(
        str(paths[f"{split}_labels"]), 1,
        header_bytes=LABELS_HEADER_BYTES, compression_type="GZIP",
    ).map(_decode_label)
    return tf.data.Dataset.zip((images, labels))


def _as_features(image, label):
    return {FEATURE: image}, label


def make_train_input_fn(dataset: str = "mnist", batch_size: int = 100, epochs: int | None = None,
                        shuffle_buffer: int = 10_000, seed: int = SEED) -> InputFn:
    """An ``input_fn`` for training: cached, shuffled, repeated ``epochs`` times (None: forever)."""

    def train_input_fn():
        return (
            image_dataset(dataset, "train")
            .cache()
            .shuffle(shuffle_buffer, seed=seed, reshuffle_each_iteration=True)
            .repeat(epochs)
            .batch(batch_size)
            .map(_as_features)
            .prefetch(tf.data.AUTOTUNE)
        )

    return train_input_fn


def _examples(dataset: str, split: str, count: int | None, skip: int) -> tf.data.Dataset:
    """The ``(image, label)`` pairs of ``split`` after the first ``skip``, the first ``count`` of them if given."""
    pairs = image_dataset(dataset, split)
    if skip:
        pairs = pairs.skip(skip)
    return pairs if count is None else pairs.take(count)


def make_eval_input_fn(dataset: str = "mnist", split: str = "test", batch_size: int = 500,
                       count: int | None = None, skip: int = 0) -> InputFn:
    """An ``input_fn`` for evaluation: one pass, in order, after the first ``skip`` examples.

    ``count`` keeps only the first ``count`` of them. Notebook 07 evaluates the
    chosen model on the test images after the ones the hook watched (``skip``).
    """

    def eval_input_fn():
        return _examples(dataset, split, count, skip).batch(batch_size).map(_as_features).prefetch(tf.data.AUTOTUNE)

    return eval_input_fn


def make_predict_input_fn(dataset: str = "mnist", split: str = "test", batch_size: int = 500,
                          count: int | None = None) -> InputFn:
    """An ``input_fn`` for prediction: features only, in order."""

    def predict_input_fn():
        return _examples(dataset, split, count, 0).map(lambda image, label: {FEATURE: image}).batch(batch_size)

    return predict_input_fn
