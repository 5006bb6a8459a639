"""Unit tests for ``helpers.data``: fetching, verifying, caching and reading IDX files.

Most tests build a tiny synthetic dataset (5 train and 3 test images of 28x28,
random uint8, labels 0-9) as gzip'd IDX files and a ``DatasetSpec`` whose
SHA-256 sums match it, so they run in milliseconds and never touch the network.
What is tested:

* the local folder route (``WORKBOOK_DATASETS``): a good folder loads and fills
  the cache; a file with a wrong SHA-256 (the line gives both sums' first digits),
  a truncated gzip stream, a wrong magic number, a wrong shape/count or size, a
  header with no data after it, a missing file, and a setting that is not a folder
  each raise a ``DatasetProblem``;
* the download route, against a small HTTP server on 127.0.0.1: a good file, one
  sent without a Content-Length, a response cut short of its Content-Length, a
  wrong SHA-256, a 404 on the first mirror with a good second mirror, every mirror
  failing (the whole line), and a closed port ("no network");
* a corrupt file already in the cache is removed and fetched again by ``load``;
* the command line (``main``): what ``fetch`` and ``verify`` print, ``fetch`` on a
  complete cache only hashing, its usage line and help; unknown dataset names;
* the datasheet: ``data/README.md``'s sums and sizes are the ones the loader checks,
  each label has a name, each dataset has two mirrors;
* the real MNIST and Fashion-MNIST files, when ``../shared/datasets`` exists.

Every failure must be a ``DatasetProblem`` with a one-line message that names
the file and a fix, and must leave nothing behind in the cache: neither the bad
file nor a partial temporary file. A good file is cached alone: nothing else beside it.

The tiny dataset is built by ``tests/support/datasets.py``; the fixtures that
lay it out or serve it are in ``conftest.py``. What the input functions verify on
each read is tested in ``test_cache.py``, faults of the disk and of the files in
``test_faults.py``, and the one-line messages for set-up mistakes in
``test_messages.py``.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import re
import socket
import time
import urllib.parse
from pathlib import Path

import numpy as np
import pytest

from helpers import data, paths
from helpers.problems import DatasetProblem
from tests import ROOT
from tests.support.datasets import (
    ENV,
    FILENAMES,
    IMAGES,
    SHARED_DATASETS,
    Tiny,
    assert_no_partials,
    cached_files,
    gz,
    idx_bytes,
    one_line,
    sha256,
)

# --- reading -------------------------------------------------------------------


def test_idx_builder_writes_the_header_the_loader_expects(tiny):
    raw = tiny.raw["train_images"]
    assert raw[:16] == bytes.fromhex("00000803000000050000001c0000001c")
    assert tiny.raw["test_labels"][:8] == bytes.fromhex("0000080100000003")
    assert len(raw) == 16 + 5 * 28 * 28


def test_read_verified_returns_the_array(tmp_path, tiny):
    path = tmp_path / IMAGES
    path.write_bytes(tiny.gz("train_images"))
    array = data.read_verified(path, tiny.spec.train_images)
    assert array.dtype == np.uint8 and array.shape == (5, 28, 28)
    np.testing.assert_array_equal(array, tiny.arrays["train_images"])


# --- 1. a good local folder ----------------------------------------------------


def test_load_from_a_good_local_folder(good_source, cache, tiny):
    arrays = data.load(tiny.spec, cache)

    assert arrays.name == "tiny"
    assert arrays.class_names == tiny.spec.class_names
    for key, expected in tiny.arrays.items():
        array = getattr(arrays, key)
        assert array.dtype == np.uint8, key
        assert array.shape == expected.shape, key
        np.testing.assert_array_equal(array, expected, err_msg=key)
    assert arrays.train_images.shape == (5, 28, 28)
    assert arrays.test_labels.shape == (3,)
    assert cached_files(cache) == sorted(f"tiny/{name}" for name in FILENAMES.values())


def test_relative_datasets_folder_is_relative_to_the_project_root(
    good_source, monkeypatch, tmp_path
):
    monkeypatch.chdir(tmp_path)  # not the project root: the setting must not depend on it
    monkeypatch.setenv(ENV, os.path.relpath(good_source, paths.PROJECT_ROOT))
    assert data.local_source("x").resolve() == good_source.resolve()


def test_ensure_uses_cached_files_without_fetching(good_source, cache, tiny, tmp_path, monkeypatch):
    first = data.ensure(tiny.spec, cache, progress=False)
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv(ENV, str(empty))  # would fail if anything were fetched again
    assert data.ensure(tiny.spec, cache, progress=False) == first


# --- 2.-5. a bad file in the local folder ------------------------------------------


def _one_pixel_changed(tiny: Tiny) -> bytes:
    raw = bytearray(tiny.raw["train_images"])
    raw[-1] ^= 0xFF  # same header, same size, different content
    return gz(bytes(raw))


def _wrong_magic(tiny: Tiny) -> bytes:
    return gz(idx_bytes(tiny.arrays["train_images"], magic=0x00000801))


def _wrong_count(tiny: Tiny) -> bytes:
    return gz(idx_bytes(tiny.arrays["train_images"], dims=(4, 28, 28)))


def _wrong_image_size(tiny: Tiny) -> bytes:
    return gz(idx_bytes(tiny.arrays["train_images"], dims=(5, 28, 27)))


def _extra_bytes(tiny: Tiny) -> bytes:
    return gz(tiny.raw["train_images"] + b"\0")


def _too_short(tiny: Tiny) -> bytes:
    return gz(tiny.raw["train_images"][:10])


def _truncated_gzip(tiny: Tiny) -> bytes:
    whole = tiny.gz("train_images")
    return whole[: len(whole) // 2]


def _not_gzip(tiny: Tiny) -> bytes:
    return tiny.raw["train_images"]  # IDX bytes, never compressed


def _header_only(tiny: Tiny) -> bytes:
    return gz(tiny.raw["train_images"][:16])  # a right header, and not one image after it


BAD_FILES = {
    "checksum": (_one_pixel_changed, "SHA-256"),
    "truncated-gzip": (_truncated_gzip, "not a complete gzip"),
    "not-gzip": (
        _not_gzip,
        "is not gzip-compressed (it starts with 0000, not the gzip signature 1f8b); "
        "it holds the IDX bytes uncompressed: gzip it",
    ),
    "magic": (_wrong_magic, "magic number 0x00000801, expected 0x00000803"),
    "count": (_wrong_count, "holds shape (4, 28, 28), expected (5, 28, 28)"),
    "image-size": (_wrong_image_size, "holds shape (5, 28, 27), expected (5, 28, 28)"),
    "extra-bytes": (_extra_bytes, "after decompression, expected 3936"),
    "too-short": (_too_short, "too short to be an IDX file"),
    "header-only": (_header_only, "has 16 bytes after decompression, expected 3936"),
}


@pytest.mark.parametrize("make_bad, says", BAD_FILES.values(), ids=BAD_FILES.keys())
def test_bad_file_in_local_folder_is_refused_and_not_cached(
    bad_source, cache, tiny, make_bad, says
):
    bad_source({"train_images": make_bad(tiny)})

    with pytest.raises(DatasetProblem) as caught:
        data.load(tiny.spec, cache)

    message = one_line(caught.value)
    assert says in message
    assert f"tiny/{IMAGES}" in message  # names the file
    assert "replace it with a good copy" in message  # and the fix
    assert cached_files(cache) == []  # neither the bad file nor a .partial-* file


def test_wrong_checksum_names_both_sums_as_the_datasheet_lists_them(tmp_path, tiny):
    """The first 12 hex digits of the sum found and of the one expected, to compare with
    data/README.md's table (``zcat … | sha256sum``)."""
    path = tmp_path / IMAGES
    path.write_bytes(_one_pixel_changed(tiny))
    found = sha256(gzip.decompress(path.read_bytes()))

    with pytest.raises(DatasetProblem) as caught:
        data.read_verified(path, tiny.spec.train_images)

    assert one_line(caught.value) == (
        f"{paths.display_path(path)}: SHA-256 of the decompressed data is {found[:12]}…, "
        f"expected {tiny.spec.train_images.sha256[:12]}… (not the official file)"
    )


def _twin_in_tinys_place(tmp_path, tiny, monkeypatch) -> str:
    """The problem with a file of another dataset, "twin", where tiny's should be."""
    monkeypatch.setitem(data.DATASETS, "twin", dataclasses.replace(tiny.spec, name="twin"))
    wanted = dataclasses.replace(tiny.spec.train_images, sha256="0" * 64)
    path = tmp_path / "tiny" / IMAGES
    path.parent.mkdir()
    path.write_bytes(tiny.gz("train_images"))
    with pytest.raises(DatasetProblem) as caught:
        data.read_verified(path, wanted)
    return one_line(caught.value).removeprefix(paths.display_path(path))


def test_the_other_datasets_file_is_named(tmp_path, tiny, monkeypatch):
    """MNIST and Fashion-MNIST use the same file names: a file of one in the other's folder is
    named as the other's file, not only as "not the official file"."""
    assert _twin_in_tinys_place(tmp_path, tiny, monkeypatch) == (
        f" holds twin's {IMAGES} (the two datasets use the same file names): it belongs in the "
        "twin/ folder"
    )


def test_the_other_datasets_file_is_named_in_the_learners_language(
    tmp_path, tiny, monkeypatch, zh_tw
):
    zh_tw()
    assert _twin_in_tinys_place(tmp_path, tiny, monkeypatch) == (
        f" 其實是 twin 的 {IMAGES}（兩個資料集的檔名相同）：它應該放在 twin/ 資料夾"
    )


def test_the_real_datasets_files_are_told_apart(tmp_path):
    """The course's own two: Fashion-MNIST's labels in MNIST's place (real checksums)."""
    fashion = SHARED_DATASETS / "fashion-mnist" / "train-labels-idx1-ubyte.gz"
    if not fashion.is_file():
        pytest.skip(f"no {fashion} beside the project")
    path = tmp_path / "mnist" / fashion.name
    path.parent.mkdir()
    path.write_bytes(fashion.read_bytes())

    with pytest.raises(DatasetProblem, match=r"holds fashion-mnist's train-labels-idx1-ubyte.gz"):
        data.read_verified(path, data.MNIST.train_labels)


def test_bad_labels_file_is_refused_by_fetch_file(bad_source, cache, tiny):
    """The labels file's magic number is checked too."""
    images_header = idx_bytes(tiny.arrays["test_labels"], magic=0x00000803)
    source = bad_source({"test_labels": gz(images_header)})

    with pytest.raises(DatasetProblem, match="magic number 0x00000803, expected 0x00000801"):
        data.fetch_file(tiny.spec, "test_labels", cache, source=source, progress=False)

    assert cached_files(cache) == []


# --- 6.-7. the local folder setting -----------------------------------------------


def test_missing_file_in_local_folder(bad_source, cache, tiny):
    source = bad_source({})
    (source / "tiny" / IMAGES).unlink()

    with pytest.raises(DatasetProblem) as caught:
        data.load(tiny.spec, cache)

    message = one_line(caught.value)
    assert f"has no tiny/{IMAGES}" in message
    assert ENV in message
    assert "copy the dataset there" in message and f"unset {ENV} to download" in message
    assert cached_files(cache) == []


@pytest.mark.parametrize("kind", ["a file", "nothing"])
def test_datasets_setting_that_is_not_a_folder(tmp_path, monkeypatch, cache, tiny, kind):
    target = tmp_path / "datasets.zip"
    if kind == "a file":
        target.write_bytes(b"PK")
    monkeypatch.setenv(ENV, str(target))

    with pytest.raises(DatasetProblem) as caught:
        data.load(tiny.spec, cache)

    message = one_line(caught.value)
    assert f"{ENV}={target} is not a folder" in message
    assert "unset it to download" in message
    assert cached_files(cache) == []


# --- 8. a corrupt file in the cache --------------------------------------------------


@pytest.mark.parametrize(
    "make_bad", [_truncated_gzip, _one_pixel_changed], ids=["truncated", "checksum"]
)
def test_corrupt_cached_file_is_removed_and_fetched_again(
    good_source, cache, tiny, capsys, make_bad
):
    folder = cache / "tiny"
    folder.mkdir(parents=True)
    (folder / IMAGES).write_bytes(make_bad(tiny))

    arrays = data.load(tiny.spec, cache)

    np.testing.assert_array_equal(arrays.train_images, tiny.arrays["train_images"])
    np.testing.assert_array_equal(
        data.read_verified(folder / IMAGES, tiny.spec.train_images), tiny.arrays["train_images"]
    )
    assert "removed from the cache; fetching it again" in capsys.readouterr().out
    assert len(cached_files(cache)) == 4
    assert_no_partials(cache)


# --- 9. downloads -------------------------------------------------------------------


def test_download_good_file(server, cache, tiny):
    server.serve("a", IMAGES, tiny.gz("train_images"))

    path = data.fetch_file(
        tiny.spec, "train_images", cache, mirrors=(server.mirror("a"),), progress=False
    )

    assert path == cache / "tiny" / IMAGES
    np.testing.assert_array_equal(
        data.read_verified(path, tiny.spec.train_images), tiny.arrays["train_images"]
    )
    assert cached_files(cache) == sorted([f"tiny/{IMAGES}"])
    assert server.requests == [f"/a/{IMAGES}"]


def _download_problem(server, cache, tiny, mirrors) -> str:
    with pytest.raises(DatasetProblem) as caught:
        data.fetch_file(tiny.spec, "train_images", cache, mirrors=mirrors, progress=False)
    message = one_line(caught.value)
    assert f"could not fetch tiny/{IMAGES}" in message  # names the file
    assert "nothing was kept" in message and "try again" in message  # and the fix
    assert ENV in message
    assert cached_files(cache) == []
    return message


def test_download_cut_short_of_content_length(server, cache, tiny):
    whole = tiny.gz("train_images")
    half = whole[: len(whole) // 2]
    server.serve("a", IMAGES, half, length=len(whole))  # promise more, then hang up

    message = _download_problem(server, cache, tiny, (server.mirror("a"),))

    assert (
        f"{server.mirror('a')}{IMAGES}: the download stopped before the end of the file" in message
    )


def test_download_with_wrong_checksum(server, cache, tiny):
    server.serve("a", IMAGES, _one_pixel_changed(tiny))

    message = _download_problem(server, cache, tiny, (server.mirror("a"),))

    assert "SHA-256" in message
    assert server.mirror("a") + IMAGES in message


def test_download_of_truncated_gzip_without_length_check(server, cache, tiny):
    """A server that sends a cut .gz with a matching Content-Length: the gzip check catches it."""
    server.serve("a", IMAGES, _truncated_gzip(tiny))

    message = _download_problem(server, cache, tiny, (server.mirror("a"),))

    assert "not a complete gzip" in message


def test_download_falls_back_to_the_next_mirror(server, cache, tiny):
    server.serve("good", IMAGES, tiny.gz("train_images"))  # nothing under /missing/: 404

    path = data.fetch_file(
        tiny.spec,
        "train_images",
        cache,
        mirrors=(server.mirror("missing"), server.mirror("good")),
        progress=False,
    )

    assert server.requests == [f"/missing/{IMAGES}", f"/good/{IMAGES}"]
    np.testing.assert_array_equal(
        data.read_verified(path, tiny.spec.train_images), tiny.arrays["train_images"]
    )
    assert cached_files(cache) == sorted([f"tiny/{IMAGES}"])


def test_download_reports_every_failed_mirror(server, cache, tiny):
    server.serve("bad", IMAGES, _one_pixel_changed(tiny))

    message = _download_problem(
        server, cache, tiny, (server.mirror("missing"), server.mirror("bad"))
    )

    assert f"{server.mirror('missing')}{IMAGES}: Not Found" in message
    assert "SHA-256" in message


def test_every_mirror_failing_is_one_line_that_says_what_to_do(server, cache, tiny):
    first, second = server.mirror("gone"), server.mirror("moved")  # both answer 404

    message = _download_problem(server, cache, tiny, (first, second))

    assert message == (
        f"could not fetch tiny/{IMAGES} ({first}{IMAGES}: Not Found; {second}{IMAGES}: Not Found);"
        f" nothing was kept: try again, or without internet set {ENV} to a folder holding the "
        "dataset files (see data/README.md)"
    )
    assert server.requests == [f"/gone/{IMAGES}", f"/moved/{IMAGES}"]


def test_download_without_content_length(server, cache, tiny, capsys):
    """A mirror that streams the file without saying its length: read to the end, then checked."""
    server.serve("a", IMAGES, tiny.gz("train_images"), send_length=False)

    path = data.fetch_file(
        tiny.spec, "train_images", cache, mirrors=(server.mirror("a"),), progress=True
    )

    np.testing.assert_array_equal(
        data.read_verified(path, tiny.spec.train_images), tiny.arrays["train_images"]
    )
    assert cached_files(cache) == sorted([f"tiny/{IMAGES}"])


def test_no_network_says_to_set_the_datasets_folder(server, cache, tiny, closed_port):
    message = _download_problem(server, cache, tiny, (f"http://127.0.0.1:{closed_port}/",))

    assert f"set {ENV} to a folder holding the dataset files" in message
    assert f"http://127.0.0.1:{closed_port}/{IMAGES}: could not connect)" in message


def test_a_mirror_that_never_answers_is_given_up_after_the_timeout(
    server, cache, tiny, monkeypatch
):
    """A server that accepts the connection and then says nothing (a captive portal, a firewall
    that swallows packets): after DOWNLOAD_TIMEOUT_SECONDS the next mirror is asked."""
    monkeypatch.setattr(data, "DOWNLOAD_TIMEOUT_SECONDS", 0.5)
    server.serve("good", IMAGES, tiny.gz("train_images"))
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # the kernel completes the handshake; nobody ever reads or answers
        mute = f"http://127.0.0.1:{silent.getsockname()[1]}/"
        started = time.perf_counter()
        with pytest.raises(DatasetProblem) as caught:
            data.fetch_file(tiny.spec, "train_images", cache, mirrors=(mute,), progress=False)
        assert time.perf_counter() - started < 10  # not pooch's default of 30 s
        assert f"{mute}{IMAGES}: no answer within 0.5 s" in one_line(caught.value)

        path = data.fetch_file(
            tiny.spec, "train_images", cache, mirrors=(mute, server.mirror("good")), progress=False
        )

    assert cached_files(cache) == [f"tiny/{IMAGES}"] and path.name == IMAGES


def test_load_downloads_from_the_spec_mirrors(server, cache, tiny, capsys):
    """The whole route: no local folder, so load() downloads (with a progress bar)."""
    for key, filename in FILENAMES.items():
        server.serve("a", filename, tiny.gz(key))
    spec = dataclasses.replace(tiny.spec, mirrors=(server.mirror("a"),))

    arrays = data.load(spec, cache)

    for key, expected in tiny.arrays.items():
        np.testing.assert_array_equal(getattr(arrays, key), expected, err_msg=key)
    assert len(cached_files(cache)) == 4
    assert_no_partials(cache)
    assert "100%" in capsys.readouterr().out  # a plain-text tqdm bar went to stdout


def test_progress_bar_names_the_file(server, cache, tiny, capsys):
    server.serve("a", IMAGES, tiny.gz("train_images"))
    data.fetch_file(tiny.spec, "train_images", cache, mirrors=(server.mirror("a"),), progress=True)
    output = capsys.readouterr()
    assert "train-images-idx3-ubyte.gz" in output.out + output.err
    assert "partial" not in output.out + output.err


def test_cached_files_are_ordinary_files(cache, tiny, good_source):
    """mkstemp makes owner-only files; the cache keeps the usual permissions."""
    path = data.fetch_file(tiny.spec, "train_labels", cache, source=good_source)
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_missing_file_says_so(tmp_path, tiny):
    with pytest.raises(DatasetProblem, match="does not exist"):
        data.read_verified(tmp_path / "nothing.gz", tiny.spec.train_images)


def test_arrays_are_writable(cache, tiny, good_source):
    arrays = data.load(tiny.spec, cache)
    arrays.train_images[arrays.train_images > 0] = 255  # learners do this


# --- 10. the real datasets ----------------------------------------------------------


def _load_shared(name: str, monkeypatch, cache: Path):
    if not SHARED_DATASETS.is_dir():
        pytest.skip(f"no offline copy of the datasets in {SHARED_DATASETS}")
    monkeypatch.setenv(ENV, str(SHARED_DATASETS))
    return data.load(name, cache)


def test_real_mnist(monkeypatch, cache):
    mnist = _load_shared("mnist", monkeypatch, cache)

    assert mnist.train_images.shape == (60000, 28, 28) and mnist.train_images.dtype == np.uint8
    assert mnist.test_images.shape == (10000, 28, 28) and mnist.test_labels.dtype == np.uint8
    assert np.bincount(mnist.train_labels, minlength=10).tolist() == [
        5923,
        6742,
        5958,
        6131,
        5842,
        5421,
        5918,
        6265,
        5851,
        5949,
    ]
    assert np.bincount(mnist.test_labels, minlength=10).tolist() == [
        980,
        1135,
        1032,
        1010,
        982,
        892,
        958,
        1028,
        974,
        1009,
    ]
    assert mnist.train_labels[:10].tolist() == [5, 0, 4, 1, 9, 2, 1, 3, 1, 4]
    assert round(float(mnist.train_images.mean()), 3) == 33.318
    assert cached_files(cache) == sorted(f"mnist/{name}" for name in FILENAMES.values())


def test_real_mnist_from_a_folder_named_relative_to_the_project(monkeypatch, cache):
    """``WORKBOOK_DATASETS=../shared/datasets``, as a classroom's machine names a folder beside the
    course: taken from the project folder, whatever the current one (a notebook's is notebooks/)."""
    if not SHARED_DATASETS.is_dir():
        pytest.skip(f"no offline copy of the datasets in {SHARED_DATASETS}")
    monkeypatch.chdir(paths.PROJECT_ROOT / "notebooks")
    monkeypatch.setenv(ENV, os.path.relpath(SHARED_DATASETS, paths.PROJECT_ROOT))

    files = data.ensure("mnist", cache, progress=False)

    assert sorted(path.name for path in files.values()) == sorted(FILENAMES.values())
    assert cached_files(cache) == sorted(f"mnist/{name}" for name in FILENAMES.values())


def test_real_fashion_mnist(monkeypatch, cache):
    fashion = _load_shared("fashion-mnist", monkeypatch, cache)

    assert fashion.train_images.shape == (60000, 28, 28)
    assert fashion.test_images.shape == (10000, 28, 28)
    assert np.bincount(fashion.train_labels, minlength=10).tolist() == [6000] * 10
    assert np.bincount(fashion.test_labels, minlength=10).tolist() == [1000] * 10
    assert fashion.class_names[0] == "T-shirt/top" and len(fashion.class_names) == 10


# --- 11. the command line and dataset names -------------------------------------------


def test_main_reports_a_problem_on_one_line(tmp_path, monkeypatch, capsys):
    # An empty cache, so a file must be fetched; local_source then fails before
    # anything is fetched. (With a complete cache the folder is not needed at all.)
    monkeypatch.setattr(data, "DATA_DIR", tmp_path / "cache")
    monkeypatch.setenv(ENV, str(tmp_path / "no-such-folder"))

    assert data.main(["fetch", "mnist"]) == 1

    output = capsys.readouterr()
    assert output.out == ""
    lines = output.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert f"{ENV}=" in lines[0] and "is not a folder" in lines[0]


def test_main_verify_checks_every_cached_file(tmp_path, monkeypatch, capsys):
    """``verify`` is ``load``: every file checked in full (fetched first when missing)."""
    if not SHARED_DATASETS.is_dir():
        pytest.skip(f"no offline copy of the datasets in {SHARED_DATASETS}")
    monkeypatch.setattr(data, "DATA_DIR", tmp_path / "cache")
    monkeypatch.setenv(ENV, str(SHARED_DATASETS))

    assert data.main(["verify", "mnist"]) == 0

    assert capsys.readouterr().out.startswith(
        "mnist: 4 files verified (SHA-256 of the IDX bytes) in "
    )
    assert cached_files(tmp_path / "cache") == sorted(
        f"mnist/{name}" for name in FILENAMES.values()
    )


@pytest.fixture
def tiny_course(tmp_path, tiny, monkeypatch, good_source):
    """The command line's view: the tiny dataset is the course's only one, ``data/`` is
    ``cache/`` in the current folder, WORKBOOK_DATASETS names the good folder."""
    monkeypatch.setattr(data, "DATASETS", {"tiny": tiny.spec})
    monkeypatch.setattr(data, "DATA_DIR", tmp_path / "cache")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "cache" / "tiny"


def test_main_fetch_and_verify_say_what_they_did(tiny_course, capsys):
    assert data.main(["fetch"]) == 0  # no name: every dataset of the course
    assert capsys.readouterr().out == "tiny: 4 files in cache/tiny\n"

    assert data.main(["verify", "tiny"]) == 0
    assert capsys.readouterr().out == (
        "tiny: 4 files verified (SHA-256 of the IDX bytes) in cache/tiny\n"
    )


def test_main_fetch_on_a_complete_cache_fetches_nothing(tiny_course, tmp_path, monkeypatch, capsys):
    """``fetch`` is ``ensure``: in a later process, a complete cache is checked and kept as it is,
    without the datasets folder (the USB stick may be out)."""
    assert data.main(["fetch", "tiny"]) == 0
    before = {path: path.stat().st_mtime_ns for path in tiny_course.iterdir()}
    monkeypatch.setattr(data, "_verified_here", {})  # a later process
    monkeypatch.setenv(ENV, str(tmp_path / "usb-stick-pulled-out"))

    assert data.main(["fetch", "tiny"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "tiny: 4 files in cache/tiny"
    assert {path: path.stat().st_mtime_ns for path in tiny_course.iterdir()} == before


def test_main_tells_how_it_is_used(capsys):
    """A mistyped command gets the usage line under the name it is run by; --help says what each
    command does."""
    with pytest.raises(SystemExit) as exited:
        data.main(["fetsh"])
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith("usage: python -m helpers.data [-h] {fetch,verify}")
    assert "invalid choice: 'fetsh'" in error

    with pytest.raises(SystemExit) as exited:
        data.main(["--help"])
    assert exited.value.code == 0
    assert "verify: check every cached file again." in " ".join(capsys.readouterr().out.split())


def test_main_with_unknown_dataset(capsys):
    assert data.main(["fetch", "cifar"]) == 1
    assert capsys.readouterr().err.strip() == (
        "error: unknown dataset 'cifar'; the course has 'mnist', 'fashion-mnist'"
    )


def test_load_without_a_name_loads_mnist(good_source, cache, tiny, monkeypatch):
    """``data.load()`` in a cell: MNIST, the course's first dataset (the tiny one stands in)."""
    mnist = dataclasses.replace(tiny.spec, name="mnist")
    (good_source / "tiny").rename(good_source / "mnist")
    monkeypatch.setattr(data, "DATASETS", {"mnist": mnist})

    arrays = data.load(cache_dir=cache)

    assert arrays.name == "mnist"
    np.testing.assert_array_equal(arrays.test_labels, tiny.arrays["test_labels"])


def test_unknown_dataset_name_lists_the_known_ones(cache):
    with pytest.raises(DatasetProblem) as caught:
        data.load("cifar", cache)
    message = one_line(caught.value)
    assert "'cifar'" in message and "'mnist'" in message and "'fashion-mnist'" in message
    assert cached_files(cache) == []


def test_problem_renders_as_one_line_in_ipython(tmp_path, monkeypatch, cache, tiny):
    monkeypatch.setenv(ENV, str(tmp_path / "no-such-folder"))
    with pytest.raises(DatasetProblem) as caught:
        data.load(tiny.spec, cache)

    rendered = caught.value._render_traceback_()

    assert isinstance(rendered, list) and len(rendered) == 1
    assert rendered[0] == f"DatasetProblem: {caught.value}"
    assert "\n" not in rendered[0]


# --- 12. the datasheet (data/README.md) and the course's two datasets ------------------------


def _datasheet() -> tuple[dict, dict]:
    """data/README.md's tables: {"mnist/train-images-idx3-ubyte": SHA-256} in the table's order,
    and {"train-images-idx3-ubyte.gz": decompressed size in bytes}."""
    text = (ROOT / "data" / "README.md").read_text(encoding="utf-8")
    sums = dict(re.findall(r"^\| ([a-z-]+/[a-z0-9-]+) \| `([0-9a-f]{64})` \|$", text, re.M))
    sizes = {
        name: int(size.replace(",", ""))
        for name, size in re.findall(
            r"^\| `([a-z0-9-]+\.gz)` \| [^|]+ \| ([0-9,]+) bytes \|$", text, re.M
        )
    }
    return sums, sizes


def _course_specs() -> tuple:
    return data.MNIST, data.FASHION_MNIST


def test_the_loader_checks_the_sums_and_sizes_the_datasheet_lists():
    """A learner checks a copy by hand against data/README.md (``zcat … | sha256sum``): the
    loader must accept exactly what that table accepts."""
    sums, sizes = _datasheet()
    assert len(sums) == 8 and len(sizes) == 4  # the tables were read
    checked = {}
    for spec in _course_specs():
        for file in spec.files.values():
            checked[f"{spec.name}/{file.filename.removesuffix('.gz')}"] = file.sha256
            header = 4 + 4 * len(file.shape)
            assert header + int(np.prod(file.shape)) == sizes[file.filename], file.filename
        # the datasheet's sums, in its order, give the same four files
        in_order = [sums[f"{spec.name}/{name.removesuffix('.gz')}"] for name in FILENAMES.values()]
        assert data._spec(spec.name, spec.mirrors, spec.class_names, *in_order) == spec
    assert checked == sums
    assert [spec.name for spec in _course_specs()] == list(data.DATASETS)


def test_each_label_has_a_name():
    """Plots and notebook 00's check name a class by its label: ten names, none empty, none
    twice; MNIST's are the digits themselves."""
    for spec in _course_specs():
        names = spec.class_names
        assert len(names) == 10 and len(set(names)) == 10 and all(names), (spec.name, names)
    assert data.MNIST.class_names == tuple(str(digit) for digit in range(10))


def test_each_dataset_has_two_mirrors_to_download_from():
    """When one mirror fails the next is tried: each is a web address of a folder, to which the
    loader appends the file's name."""
    for spec in _course_specs():
        assert len(spec.mirrors) >= 2, spec.name
        for mirror in spec.mirrors:
            parts = urllib.parse.urlsplit(mirror)
            assert parts.scheme in ("http", "https") and parts.netloc, mirror
            assert mirror.endswith("/"), mirror
