"""``helpers.data`` and ``helpers.inputs``: what is verified when a cached file is read.

What is tested:

* a cached file damaged after a good fetch (bytes cut from the middle of the
  gzip stream; an IDX header whose count says 9999; one byte changed with size
  and times put back) is never handed to the ``tf.data`` input functions: it is
  removed with one printed line and fetched again, or, when it cannot be
  fetched, a ``DatasetProblem`` says so in one line — in the same process that
  fetched it, and in a later one (an empty in-process memo);
* a file that verified before is not decompressed again: a later process only
  hashes the ``.gz`` bytes against the record written at fetch time (or at the
  first full check of a file without one); a record made for another checksum is
  not trusted;
* the real MNIST test images, cut in the middle (9,822 examples instead
  of 10,000: a download cut short), come back as 10,000 verified examples;
* a complete, verified cache keeps working when ``WORKBOOK_DATASETS`` names a
  folder that is gone; the folder is named only when a file is missing;
* ``.partial-*.gz`` files left by a killed fetch are removed by later runs,
  while a partial that a running fetch is writing is kept, and that fetch's
  process is sent no signal (on Windows, where asking would end it, only the
  partial's age counts).

The tiny synthetic dataset and fixtures come from ``tests/helpers/data/test_reading.py``.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import shutil
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
import pytest

from helpers import data, inputs, settings
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
    with_records,
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
    assert len(printed) == 1 and printed[0].startswith(f"{settings.display_path(filled / IMAGES)}")
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
    assert f"{settings.display_path(filled / IMAGES)} is not in the cache and {ENV}=" in message
    assert "is not a folder" in message
    assert "removed from the cache" in capsys.readouterr().out
    assert IMAGES not in [Path(f).name for f in cached_files(filled.parent)]  # never read again


def no_full_check(*args):
    raise AssertionError("a file that verified before was checked in full again")


def test_a_verified_file_is_only_hashed_in_a_later_process(filled, tiny, monkeypatch):
    """The cheap route: the .gz bytes against the record, no decompression, no IDX check."""
    new_process(monkeypatch)
    monkeypatch.setattr(data, "_checked", no_full_check)
    hashed = []
    real_read_bytes = Path.read_bytes
    monkeypatch.setattr(
        Path, "read_bytes", lambda self: hashed.append(self.name) or real_read_bytes(self)
    )

    paths = data.ensure(tiny.spec)
    data.ensure(tiny.spec)  # the second call in the same process only looks at os.stat

    assert sorted(hashed) == sorted(FILENAMES.values())
    assert {key: path.name for key, path in paths.items()} == FILENAMES


def test_a_file_without_record_is_checked_in_full_once(filled, tiny, monkeypatch):
    """A cache filled before records existed: checked in full, then recorded."""
    for name in FILENAMES.values():
        (filled / f".{name}.verified").unlink()
    new_process(monkeypatch)

    data.ensure(tiny.spec)

    assert cached_files(filled.parent) == with_records(
        f"tiny/{name}" for name in FILENAMES.values()
    )
    new_process(monkeypatch)  # and the records it wrote spare the next process the full check
    monkeypatch.setattr(data, "_checked", no_full_check)
    assert set(data.ensure(tiny.spec)) == set(FILENAMES)


def test_a_record_made_for_another_checksum_is_not_trusted(filled, tiny, monkeypatch):
    """The course's table changed (a corrected file): a file recorded against the old sum is
    checked against the new one, not waved through by its record."""
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
        f"{settings.display_path(filled / IMAGES)} is not in the cache and "
        f"{ENV}={good_source} is not a folder; "
    )
    assert message.endswith(
        "name the folder that holds mnist/ and fashion-mnist/, or unset it to download"
    )


# --- 4. partial files left by a killed fetch ----------------------------------------------


def _dead_pid() -> int:
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(finished.stdout)


def _partial(folder: Path, name: str, age_seconds: float = 0) -> Path:
    path = folder / name
    path.write_bytes(b"\x1f\x8b" + b"\0" * 100)
    then = time.time() - age_seconds
    os.utime(path, (then, then))
    return path


def test_partial_left_by_a_killed_fetch_is_removed_by_the_next_run(filled, tiny):
    """A process that opened its partial file the way fetch_file does, then was killed (SIGKILL)."""
    script = (
        "import os, signal, tempfile, sys\n"
        "from helpers import data\n"
        "handle, name = tempfile.mkstemp(prefix=data._partial_prefix(), suffix='.gz', "
        "dir=sys.argv[1])\nos.write(handle, b'half a download')\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    killed = subprocess.run(
        [sys.executable, "-c", script, str(filled)], cwd=Path(data.__file__).parent.parent
    )
    assert killed.returncode == -signal.SIGKILL
    left = [f for f in cached_files(filled.parent) if ".partial-" in f]
    assert len(left) == 1

    data.ensure(tiny.spec)

    assert cached_files(filled.parent) == with_records(
        f"tiny/{name}" for name in FILENAMES.values()
    )


def test_only_stale_partials_are_removed(filled, tiny, other_process):
    """``running_elsewhere``: another kernel's fetch (not the test runner's parent, which a wrong
    signal would end); whether it runs is asked with signal 0, which sends nothing."""
    host = data._partial_prefix().split("@", 1)[1]  # "<host>-"
    dead = _partial(filled, f".partial-{_dead_pid()}@{host}abcd1234.gz")
    old = _partial(filled, ".partial-k3j4h5g6.gz", age_seconds=data.STALE_PARTIAL_SECONDS + 60)
    running_here = _partial(filled, f"{data._partial_prefix()}abcd1234.gz")
    running_elsewhere = _partial(filled, f".partial-{other_process.pid}@{host}abcd1234.gz")
    other_host = _partial(filled, f".partial-{_dead_pid()}@another.host-abcd1234.gz")
    unknown_owner = _partial(filled, ".partial-q1w2e3r4.gz", age_seconds=60)

    data.ensure(tiny.spec)

    assert not dead.exists() and not old.exists()
    assert running_here.exists() and running_elsewhere.exists()
    assert other_host.exists() and unknown_owner.exists()  # younger than STALE_PARTIAL_SECONDS
    other_process.terminate()  # a signal the loader sent before this one would have ended it
    assert other_process.wait(timeout=10) == -signal.SIGTERM


def test_on_windows_only_the_age_of_a_partial_counts(filled, monkeypatch):
    """There ``os.kill(pid, 0)`` ends the process instead of asking about it: no owner is asked."""

    def kill(pid, signal_number):
        raise AssertionError(f"os.kill({pid}, {signal_number}) on Windows ends process {pid}")

    monkeypatch.setattr(data, "os", types.SimpleNamespace(name="nt", getpid=os.getpid, kill=kill))
    host = data._partial_prefix().split("@", 1)[1]
    young = _partial(filled, f".partial-{os.getpid() + 1}@{host}abcd1234.gz")
    old = _partial(
        filled,
        f".partial-{os.getpid() + 1}@{host}efgh5678.gz",
        age_seconds=data.STALE_PARTIAL_SECONDS + 60,
    )

    assert not data._is_stale(young)
    assert data._is_stale(old)
