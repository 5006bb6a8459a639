"""helpers.model_dirs lists what Estimator wrote: a real short training, its files by pattern."""

import pytest
import tensorflow as tf

from helpers import inputs, model_dirs, models, settings


def test_model_dir_listing_after_a_short_training(tmp_path):
    model_dir = str(tmp_path / "model")
    estimator = tf.estimator.Estimator(
        models.cnn_model_fn,
        model_dir=model_dir,
        params={"filters": (4, 4), "dense_units": 8},
        config=tf.estimator.RunConfig(
            tf_random_seed=settings.SEED, save_checkpoints_steps=2, keep_checkpoint_max=2
        ),
    )
    estimator.train(inputs.make_train_input_fn(batch_size=8), steps=5)
    assert model_dirs.checkpoint_steps(model_dir) == [4, 5]
    table = model_dirs.listing(model_dir)
    patterns = set(table["pattern"])
    assert {
        "checkpoint",
        "graph.pbtxt",
        "model.ckpt-<step>.index",
        "model.ckpt-<step>.meta",
        "model.ckpt-<step>.data-00000-of-00001",
        "events.out.tfevents.<time>.<host>",
    } <= patterns
    assert "other" not in set(table["kind"])
    assert model_dirs.size_bytes(model_dir) == table["bytes"].sum() > 0


def test_checkpoint_steps_of_an_empty_dir(tmp_path):
    assert model_dirs.checkpoint_steps(tmp_path) == []


@pytest.mark.parametrize(
    "name, pattern",
    [
        ("model.ckpt-1200.index", "model.ckpt-<step>.index"),
        ("eval/events.out.tfevents.1796225224.vm", "eval/events.out.tfevents.<time>.<host>"),
        ("graph.pbtxt", "graph.pbtxt"),
    ],
)
def test_normalise(name, pattern):
    assert model_dirs.normalise(name) == pattern
