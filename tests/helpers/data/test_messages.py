"""``helpers.data``: one line, naming what is actually there, for set-up mistakes.

What is tested:

* a folder standing where a cached file (or the dataset's cache folder) should
  be, and a folder standing where a source file should be: one line each that
  says it is a folder — no ``IsADirectoryError`` traceback, no "has no …";
* a relative ``WORKBOOK_DATASETS`` that does not exist: the line says that a
  relative path is taken from the project folder and where it looked, and
  points at the folder of that name in the current directory when there is one;
* ``WORKBOOK_DATASETS`` naming the ``mnist/`` folder itself (or torchvision's
  ``MNIST/``): name its parent;
  the files put directly in the named folder: put them in ``<dataset>/``;
* an uncompressed IDX file named ``.gz`` (also an empty one): "not
  gzip-compressed" (or "empty"), not "not a complete gzip file";
* paths in messages: relative inside the project, ``~/…`` under the home
  folder, absolute elsewhere — never a ``../../../`` chain.
"""

from __future__ import annotations

import os

import pytest

from helpers import data, paths
from helpers.problems import DatasetProblem
from tests.support.datasets import ENV, IMAGES, cached_files, gz, one_line, write_folder


def problem_of(call, *args, **kwargs) -> str:
    with pytest.raises(DatasetProblem) as caught:
        call(*args, **kwargs)
    return one_line(caught.value)


# --- 3. a folder where a file should be -------------------------------------------------


@pytest.mark.parametrize("call", ["ensure", "load", "fetch_file"])
def test_folder_where_a_cached_file_should_be(good_source, cache, tiny, call):
    in_the_way = cache / "tiny" / IMAGES
    (in_the_way / "notes").mkdir(parents=True)
    arguments = {
        "ensure": (tiny.spec, cache),
        "load": (tiny.spec, cache),
        "fetch_file": (tiny.spec, "train_images", cache, good_source),
    }[call]

    message = problem_of(getattr(data, call), *arguments)

    assert message == (
        f"{paths.display_path(in_the_way)} is a folder, where the cache keeps the file "
        f"tiny/{IMAGES}: remove or rename that folder, then run again to fetch the file"
    )
    assert (in_the_way / "notes").is_dir()  # nothing of the learner's is deleted
    assert not [f for f in cached_files(cache) if "partial" in f]


def test_file_where_the_cache_folder_should_be(good_source, cache, tiny):
    cache.mkdir()
    (cache / "tiny").write_bytes(b"not a folder")

    message = problem_of(data.load, tiny.spec, cache)

    assert message == (
        f"{paths.display_path(cache / 'tiny')} is a file where the cache keeps the folder "
        "tiny/: remove or rename it, then run again"
    )


def test_folder_where_a_source_file_should_be(bad_source, cache, tiny):
    source = bad_source({})
    (source / "tiny" / IMAGES).unlink()
    (source / "tiny" / IMAGES).mkdir()

    message = problem_of(data.load, tiny.spec, cache)

    assert message == (
        f"{ENV} folder {paths.display_path(source)} has tiny/{IMAGES} as a folder, not a "
        "file: put the .gz file itself there"
    )
    assert cached_files(cache) == []


def test_read_verified_on_a_folder(tmp_path, tiny):
    message = problem_of(data.read_verified, tmp_path, tiny.spec.train_images)
    assert message.endswith("is a folder, not a file: name the .gz file itself")


# --- 5. the WORKBOOK_DATASETS setting ----------------------------------------------------


def test_relative_setting_says_where_it_looked(tmp_path, tiny, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_folder(tmp_path / "src" / "good", tiny)  # exists here, not in the project folder
    monkeypatch.setenv(ENV, "src/good")

    message = problem_of(data.local_source, "data/tiny/x.gz")

    looked = paths.display_path(paths.PROJECT_ROOT / "src" / "good")
    assert message == (
        f"data/tiny/x.gz is not in the cache and {ENV}=src/good is not a folder (a relative path "
        "is taken from the project folder: "
        f"looked for {looked}; to use src/good in the current folder, give its full path); "
        "name the folder that holds mnist/ and fashion-mnist/, or unset it to download"
    )


def test_relative_setting_without_a_folder_of_that_name_here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(ENV, "no/such/folder")

    message = problem_of(data.local_source, "data/tiny/x.gz")

    assert "a relative path is taken from the project folder: looked for " in message
    assert "current folder" not in message


def test_setting_that_names_the_dataset_folder_itself(good_source, cache, tiny, monkeypatch):
    monkeypatch.setenv(ENV, str(good_source / "tiny"))

    message = problem_of(data.load, tiny.spec, cache)

    assert message == (
        f"{ENV} folder {paths.display_path(good_source / 'tiny')} is the tiny/ folder itself: "
        "name its parent, the folder that holds mnist/ and fashion-mnist/"
    )


def test_setting_that_names_the_mnist_folder_when_loading_fashion(tmp_path, cache, monkeypatch):
    (tmp_path / "usb" / "mnist").mkdir(parents=True)
    monkeypatch.setenv(ENV, str(tmp_path / "usb" / "mnist"))

    message = problem_of(data.ensure, "fashion-mnist", cache)

    assert "is the mnist/ folder itself: name its parent" in message


def test_setting_that_names_torchvisions_dataset_folder(tmp_path, cache, monkeypatch):
    """torchvision keeps ``<root>/MNIST/raw/``: naming ``MNIST/`` is naming the dataset folder."""
    (tmp_path / "torch-data" / "MNIST" / "raw").mkdir(parents=True)
    monkeypatch.setenv(ENV, str(tmp_path / "torch-data" / "MNIST"))

    message = problem_of(data.ensure, "mnist", cache)

    assert message.endswith(
        "is the MNIST/ folder itself: name its parent, the folder that holds mnist/ and "
        "fashion-mnist/"
    )


def test_files_put_directly_in_the_named_folder(tmp_path, cache, tiny, monkeypatch):
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / IMAGES).write_bytes(tiny.gz("train_images"))
    monkeypatch.setenv(ENV, str(flat))

    message = problem_of(data.load, tiny.spec, cache)

    assert message.endswith(
        f"holds {IMAGES} directly: put the files of tiny in its tiny/ "
        "subfolder (see data/README.md)"
    )


# --- 5. files that are not gzip-compressed --------------------------------------------------


@pytest.mark.parametrize(
    "content, says",
    [
        (
            lambda tiny: tiny.raw["train_images"],
            "is not gzip-compressed (it starts with 0000, not the gzip signature 1f8b); "
            "it holds the IDX bytes uncompressed: gzip it",
        ),
        (
            lambda tiny: b"PK\x03\x04zip",
            "is not gzip-compressed (it starts with 504b, not the gzip signature 1f8b)",
        ),
        (lambda tiny: b"", "is empty (0 bytes)"),
        (lambda tiny: tiny.gz("train_images")[:-30], "is not a complete gzip file ("),
    ],
    ids=["uncompressed-idx", "zip", "empty", "cut-gzip"],
)
def test_what_is_wrong_with_the_compression(tmp_path, tiny, content, says):
    path = tmp_path / IMAGES
    path.write_bytes(content(tiny))

    message = problem_of(data.read_verified, path, tiny.spec.train_images)

    if says.endswith("("):  # then zlib's own words, which vary with its version
        assert message.startswith(f"{paths.display_path(path)} {says}")
    else:  # the whole line
        assert message == f"{paths.display_path(path)} {says}"


def test_uncompressed_cached_file_is_refetched(good_source, cache, tiny, capsys):
    (cache / "tiny").mkdir(parents=True)
    (cache / "tiny" / IMAGES).write_bytes(tiny.raw["train_images"])

    data.ensure(tiny.spec, cache)

    assert "is not gzip-compressed" in capsys.readouterr().out
    assert data.read_verified(cache / "tiny" / IMAGES, tiny.spec.train_images).shape == (5, 28, 28)


# --- 5. paths in messages -------------------------------------------------------------------


def test_paths_outside_the_project_are_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(paths.PROJECT_ROOT)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    outside = tmp_path / "usb" / "datasets"
    assert paths.display_path(outside) == str(outside.resolve())


def test_paths_under_home_start_with_a_tilde(tmp_path, monkeypatch):
    monkeypatch.chdir(paths.PROJECT_ROOT)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert paths.display_path(tmp_path / "usb" / "datasets") == os.path.join("~", "usb", "datasets")


def test_paths_inside_the_project_are_relative(monkeypatch):
    monkeypatch.chdir(paths.PROJECT_ROOT / "notebooks")
    assert paths.display_path(paths.DATA_DIR / "mnist") == os.path.join("..", "data", "mnist")
    monkeypatch.chdir(paths.PROJECT_ROOT)
    assert paths.display_path(paths.DATA_DIR / "mnist") == os.path.join("data", "mnist")


def test_paths_under_the_current_folder_are_relative(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert paths.display_path(tmp_path / "src" / "good") == os.path.join("src", "good")


def test_message_for_a_source_outside_the_project_has_no_dot_dot_chain(
    bad_source, cache, tiny, monkeypatch
):
    monkeypatch.chdir(paths.PROJECT_ROOT / "notebooks")
    source = bad_source({"train_images": gz(tiny.raw["train_images"] + b"\0")})

    message = problem_of(data.load, tiny.spec, cache)

    assert "../" not in message
    assert message.startswith(f"{paths.display_path(source / 'tiny' / IMAGES)} has 3937 bytes")
    assert paths.display_path(source).startswith(("/", "~"))
