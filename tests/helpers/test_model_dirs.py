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


def test_each_file_gets_its_kind(tmp_path):
    names = {
        "checkpoint": model_dirs.KINDS[r"^checkpoint$"],
        "model.ckpt-5.index": "checkpoint: which variable is where in the data file",
        "model.ckpt-5.data-00000-of-00001": "checkpoint: the variables' values",
        "model.ckpt-5.meta": "checkpoint: the graph (MetaGraphDef) to restore into",
        "graph.pbtxt": "the training graph, as text",
        "eval/events.out.tfevents.1796225224.vm": "summaries for TensorBoard (loss, steps/s, metrics)",  # noqa: E501
        "export/1/fingerprint.json": "export metadata",
        "checkpoint.bak": "other",
        "notes.txt": "other",
    }
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    table = model_dirs.listing(tmp_path)
    assert dict(zip(table["file"], table["kind"])) == names
    assert names["checkpoint"] == "checkpoint state: the list of kept checkpoints, newest last"
