"""Fixtures the tests of several helpers modules share.

``trained_cnn``: the course CNN, made tiny (2 and 2 filters, 4 dense units), trained for one
step on random images in a temporary folder, once a session: a real model to export and
load (``helpers.export``, notebook 08's checks) in a few seconds.

``zh_tw``: the helpers speak zh-TW (``WORKBOOK_LANGUAGE=zh_TW``) for one test, from the committed
catalogue translations/zh_TW/helpers.po or from a made-up one.
"""

from __future__ import annotations

import numpy as np
import polib
import pytest
import tensorflow as tf

from helpers import language, models

COMMITTED_CATALOGUES = language.CATALOGUES  # translations/

TINY_CNN = {"filters": (2, 2), "dense_units": 4}


@pytest.fixture(scope="session")
def trained_cnn(tmp_path_factory) -> tf.estimator.Estimator:
    rng = np.random.default_rng(0)
    images = rng.random((8, 28, 28), dtype=np.float32)
    labels = rng.integers(0, 10, 8).astype(np.int32)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"image": images}, labels)).batch(4)

    model_dir = tmp_path_factory.mktemp("trained_cnn")
    estimator = tf.estimator.Estimator(
        models.cnn_model_fn,
        model_dir=str(model_dir),
        params=TINY_CNN,
        config=tf.estimator.RunConfig(tf_random_seed=1),
    )
    estimator.train(input_fn, steps=1)
    return estimator


@pytest.fixture
def zh_tw(tmp_path, monkeypatch):
    """``speak()``: the helpers speak zh-TW from the committed translations/zh_TW/helpers.po;
    ``speak({English template: zh-TW})``: from a catalogue of only those sentences, written in
    ``tmp_path``. Either returns the ``{English template: zh-TW}`` the helpers now use; the cache
    of read catalogues is emptied on each call and after the test."""

    def speak(sentences: dict | None = None) -> dict:
        folder = COMMITTED_CATALOGUES
        if sentences is not None:
            folder = tmp_path
            catalogue = polib.POFile()
            catalogue.metadata = {"Content-Type": "text/plain; charset=UTF-8", "Language": "zh_TW"}
            for msgid, msgstr in sentences.items():
                catalogue.append(polib.POEntry(msgid=msgid, msgstr=msgstr))
            (folder / "zh_TW").mkdir(exist_ok=True)
            catalogue.save(str(folder / "zh_TW" / f"{language.DOMAIN}.po"))
        monkeypatch.setattr(language, "CATALOGUES", folder)
        monkeypatch.setenv(language.LANGUAGE_ENV, "zh_TW")
        language.translations.cache_clear()
        in_use = polib.pofile(str(folder / "zh_TW" / f"{language.DOMAIN}.po"))
        return {entry.msgid: entry.msgstr for entry in in_use.translated_entries()}

    yield speak
    language.translations.cache_clear()
