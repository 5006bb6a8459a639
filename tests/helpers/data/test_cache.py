"""``helpers.data`` and ``helpers.inputs``: what is verified when a cached file is read.

What is tested:

* a cached file damaged after a good fetch (bytes cut from the middle of the
  gzip stream; an IDX header whose count says 9999; one byte changed with size
  and times put back) is never handed to the ``tf.data`` input functions: it is
  removed with one printed line and fetched again, or, when it cannot be
  fetched, a ``DatasetProblem`` says so in one line — in the same process that
  fetched it, and in a later one (an empty in-process memo);
* a file is checked in full on its first use in a process, and after that only
  by ``os.stat`` (device, inode, size, modification and change times);
* the real MNIST test images, cut in the middle (9,822 examples instead
  of 10,000: a download cut short), come back as 10,000 verified examples;
* a complete, verified cache keeps working when ``WORKBOOK_DATASETS`` names a
  folder that is gone; the folder is named only when a file is missing.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from helpers import data, inputs, paths
from helpers.problems import DatasetProblem
from tests.support.datasets import (
    ENV,
    FILENAMES,
    IMAGES,
    SHARED_DATASETS,
    cached_files,
    gz,
    idx_bytes,
    one_line,
)


@pytest.fixture
def filled(good_source, cache, tiny, monkeypatch) -> Path:
    """A cache filled (and verified) from the good folder; ``data/`` points there."""
    monkeypatch.setattr(data, "DATA_DIR", cache)
    data.ensure(tiny.spec, progress=False)
    return cache / tiny.spec.name


def new_process(monkeypatch) -> None:
    """Forget what this process verified, as a later process would start."""
    monkeypatch.setattr(data, "_verified_here", {})


def read_split(spec, split: str) -> tuple:
    """Every (image, label) the course's tf.data pipeline yields, as uint8 images and labels."""
    batches = list(inputs.image_dataset(spec, split).batch(100_000).as_numpy_iterator())
    assert len(batches) == 1
    images, labels = batches[0]
    return np.round(images * 255).astype(np.uint8), labels


# --- damage done to a cached file ------------------------------------------------------


def cut_from_the_middle(path: Path, tiny) -> None:
    blob = path.read_bytes()
    middle = len(blob) // 2
    path.write_bytes(blob[: middle - 50] + blob[middle + 50 :])


def count_9999(path: Path, tiny) -> None:
    path.write_bytes(gz(idx_bytes(tiny.arrays["train_images"], dims=(9999, 28, 28))))


def one_byte_same_size_and_times(path: Path, tiny) -> None:
    status = path.stat()
    time.sleep(0.05)  # the inode's change time is kept at clock-tick resolution: let one pass
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0xFF
    path.write_bytes(bytes(blob))
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))


DAMAGE = {
    "cut-in-the-middle": cut_from_the_middle,
    "count-9999": count_9999,
    "one-byte-same-size-and-times": one_byte_same_size_and_times,
}


@pytest.mark.parametrize("later_process", [False, True], ids=["same-process", "later-process"])
@pytest.mark.parametrize("damage", DAMAGE.values(), ids=DAMAGE.keys())
def test_input_function_refetches_a_damaged_cached_file(
    filled, tiny, capsys, monkeypatch, damage, later_process
):
    damage(filled / IMAGES, tiny)
    if later_process:
        new_process(monkeypatch)

    images, labels = read_split(tiny.spec, "train")

    np.testing.assert_array_equal(images, tiny.arrays["train_images"])
    np.testing.assert_array_equal(labels, tiny.arrays["train_labels"])
    printed = capsys.readouterr().out.strip().splitlines()
    assert len(printed) == 1 and printed[0].startswith(f"{paths.display_path(filled / IMAGES)}")
    assert printed[0].endswith("-- removed from the cache; fetching it again")
    np.testing.assert_array_equal(  # and the cache holds the good file again
        data.read_verified(filled / IMAGES, tiny.spec.train_images), tiny.arrays["train_images"]
    )


@pytest.mark.parametrize("damage", DAMAGE.values(), ids=DAMAGE.keys())
def test_damaged_file_that_cannot_be_fetched_again_stops_in_one_line(
    filled, tiny, tmp_path, capsys, monkeypatch, damage
):
    damage(filled / IMAGES, tiny)
    new_process(monkeypatch)
    monkeypatch.setenv(ENV, str(tmp_path / "usb-stick-pulled-out"))

    with pytest.raises(DatasetProblem) as caught:
        inputs.make_train_input_fn(tiny.spec, batch_size=2)()

    message = one_line(caught.value)
    assert f"{paths.display_path(filled / IMAGES)} is not in the cache and {ENV}=" in message
    assert "is not a folder" in message
    assert "removed from the cache" in capsys.readouterr().out
    assert IMAGES not in [Path(f).name for f in cached_files(filled.parent)]  # never read again


def no_full_check(*args):
    raise AssertionError("a file that verified before was checked in full again")


def test_a_verified_file_is_checked_in_full_once_a_process(filled, tiny, monkeypatch):
    """Every input_fn() calls ``ensure``: after the first full check in a process, later calls
    only look at ``os.stat``; a later process checks each file in full once again."""
    checked = []
    real_checked = data._checked
    monkeypatch.setattr(
        data, "_checked", lambda *args: checked.append(args[0].name) or real_checked(*args)
    )

    paths = data.ensure(tiny.spec)  # verified when it was fetched, in this process
    assert checked == []
    new_process(monkeypatch)
    data.ensure(tiny.spec)
    data.ensure(tiny.spec)

    assert sorted(checked) == sorted(FILENAMES.values())
    assert {key: path.name for key, path in paths.items()} == FILENAMES


def test_a_record_made_for_another_checksum_is_not_trusted(filled, tiny, monkeypatch):
    """The course's table changed (a corrected file): a later process checks the cached file
    against the new sum."""
    new_process(monkeypatch)
    file = dataclasses.replace(tiny.spec.train_images, sha256="0" * 64)
    spec = dataclasses.replace(tiny.spec, train_images=file)

    with pytest.raises(DatasetProblem) as caught:
        data.ensure(spec)

    assert "SHA-256 of the decompressed data is" in one_line(caught.value)


def test_real_mnist_cut_in_the_middle_is_not_read_silently(tmp_path, monkeypatch, capsys):
    """A cut download: 9,822 test images instead of 10,000, images and labels out of step."""
    if not SHARED_DATASETS.is_dir():
        pytest.skip(f"no offline copy of the datasets in {SHARED_DATASETS}")
    cache = tmp_path / "cache"
    monkeypatch.setattr(data, "DATA_DIR", cache)
    monkeypatch.setenv(ENV, str(SHARED_DATASETS))
    data.ensure("mnist", progress=False)
    damaged = cache / "mnist" / "t10k-images-idx3-ubyte.gz"
    blob = damaged.read_bytes()
    damaged.write_bytes(blob[: len(blob) // 2] + blob[len(blob) // 2 + 20_000 :])
    new_process(monkeypatch)

    images, labels = read_split("mnist", "test")

    assert len(images) == len(labels) == 10_000
    with gzip.open(SHARED_DATASETS / "mnist" / "t10k-labels-idx1-ubyte.gz") as stream:
        np.testing.assert_array_equal(labels, np.frombuffer(stream.read()[8:], np.uint8))
    assert "removed from the cache; fetching it again" in capsys.readouterr().out


# --- 2. a folder that is gone does not block a complete cache --------------------------------


def test_complete_cache_works_when_the_datasets_folder_is_gone(
    filled, good_source, tiny, monkeypatch
):
    shutil.rmtree(good_source)  # the USB stick is out
    new_process(monkeypatch)

    assert set(data.ensure(tiny.spec)) == set(FILENAMES)
    np.testing.assert_array_equal(data.load(tiny.spec).test_labels, tiny.arrays["test_labels"])
    np.testing.assert_array_equal(read_split(tiny.spec, "test")[1], tiny.arrays["test_labels"])


def test_gone_folder_is_named_when_a_file_is_missing(filled, good_source, tiny):
    shutil.rmtree(good_source)
    (filled / IMAGES).unlink()

    with pytest.raises(DatasetProblem) as caught:
        data.ensure(tiny.spec)

    message = one_line(caught.value)
    assert message.startswith(
        f"{paths.display_path(filled / IMAGES)} is not in the cache and "
        f"{ENV}={good_source} is not a folder; "
    )
    assert message.endswith(
        "name the folder that holds mnist/ and fashion-mnist/, or unset it to download"
    )
