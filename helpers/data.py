"""MNIST and Fashion-MNIST: fetch, verify, cache and read the IDX ``.gz`` files (notebook 00).

``python -m helpers.data fetch|verify`` fills or re-checks ``data/``; ``data/README.md`` says what is checked when.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import hashlib
import http.client
import json
import os
import re
import shutil
import socket
import sys
import time
import urllib.request
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .problems import DatasetProblem
from .settings import DATA_DIR, DATASETS_ENV, PROJECT_ROOT, display_path

DOWNLOAD_TIMEOUT_SECONDS = 60
PARTIAL_PREFIX = ".partial-"
STALE_PARTIAL_SECONDS = 600  # a fetch that is running writes far more often than this
USER_AGENT = "estimator-workbook/1.0 (+python urllib)"
HOST = re.sub(r"[^A-Za-z0-9._]", "_", socket.gethostname()) or "host"  # as it appears in partial files' names
KEYS = ("train_images", "train_labels", "test_images", "test_labels")


@dataclass(frozen=True)
class FileSpec:
    """One IDX file: its name, shape ((count, 28, 28) or (count,)) and the SHA-256 of its decompressed bytes."""
    filename: str
    shape: tuple[int, ...]
    sha256: str


@dataclass(frozen=True)
class DatasetSpec:
    """A dataset: its name, mirrors, class names and four files."""
    name: str
    mirrors: tuple[str, ...]
    class_names: tuple[str, ...]
    train_images: FileSpec
    train_labels: FileSpec
    test_images: FileSpec
    test_labels: FileSpec

    @property
    def files(self) -> dict[str, FileSpec]:
        return {key: getattr(self, key) for key in KEYS}


def _spec(name: str, mirrors: tuple[str, ...], class_names: tuple[str, ...], *sha256s: str) -> DatasetSpec:
    """A dataset with the four files of the MNIST layout, given the SHA-256 of each one's IDX bytes."""
    names = ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
             "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")
    shapes = ((60000, 28, 28), (60000,), (10000, 28, 28), (10000,))
    return DatasetSpec(name, mirrors, class_names, *map(FileSpec, names, shapes, sha256s))


MNIST = _spec(
    "mnist",
    ("https://storage.googleapis.com/cvdf-datasets/mnist/", "https://ossci-datasets.s3.amazonaws.com/mnist/"),
    tuple("0123456789"),
    "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
    "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
    "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
    "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
)
FASHION_MNIST = _spec(
    "fashion-mnist",
    ("http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
     "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"),
    ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"),
    "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888",
    "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9",
    "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b",
    "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34",
)
DATASETS = {spec.name: spec for spec in (MNIST, FASHION_MNIST)}


class Dataset(NamedTuple):
    """A loaded dataset: uint8 images (N, 28, 28), uint8 labels (N,), class names."""
    name: str
    train_images: np.ndarray
    train_labels: np.ndarray
    test_images: np.ndarray
    test_labels: np.ndarray
    class_names: tuple[str, ...]


def spec_for(name: str | DatasetSpec) -> DatasetSpec:
    """The ``DatasetSpec`` for a dataset name ('mnist' or 'fashion-mnist')."""
    if isinstance(name, DatasetSpec):
        return name
    if name not in DATASETS:
        raise DatasetProblem(f"unknown dataset {name!r}; the course has {', '.join(map(repr, DATASETS))}")
    return DATASETS[name]


def _checked(path: Path, spec: FileSpec, where: str) -> tuple[bytes, np.ndarray]:
    """The file's bytes and a read-only view of its array, after checking gzip, IDX header, size and SHA-256."""
    if path.is_dir():
        raise DatasetProblem(f"{where} is a folder, not a file: name the .gz file itself")
    if not path.is_file():
        raise DatasetProblem(f"{where} does not exist: run `python -m helpers.data fetch` to fetch it")
    try:
        blob = path.read_bytes()
    except OSError as error:
        raise DatasetProblem(f"{where} cannot be read ({error.strerror or error})") from None
    if not blob:
        raise DatasetProblem(f"{where} is empty (0 bytes)")
    if not blob.startswith(b"\x1f\x8b"):
        idx = "; it holds the IDX bytes uncompressed: gzip it" if blob[:3] == b"\0\0\x08" else ""
        raise DatasetProblem(f"{where} is not gzip-compressed (it starts with {blob[:2].hex()}, "
                             f"not the gzip signature 1f8b){idx}")
    try:
        raw = gzip.decompress(blob)
    except (EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise DatasetProblem(f"{where} is not a complete gzip file ({error})") from None
    header = 4 + 4 * len(spec.shape)
    if len(raw) < header:
        raise DatasetProblem(f"{where} is too short to be an IDX file ({len(raw)} bytes)")
    magic = int.from_bytes(raw[:4], "big")
    expected = 0x00000800 + len(spec.shape)  # unsigned bytes, N dimensions
    if magic != expected:
        raise DatasetProblem(f"{where} is not an IDX file of this kind: magic number 0x{magic:08x}, "
                             f"expected 0x{expected:08x}")
    dims = tuple(int.from_bytes(raw[i:i + 4], "big") for i in range(4, header, 4))
    if dims != tuple(spec.shape):
        raise DatasetProblem(f"{where} holds shape {dims}, expected {tuple(spec.shape)}")
    size = header + int(np.prod(spec.shape))
    if len(raw) != size:
        raise DatasetProblem(f"{where} has {len(raw)} bytes after decompression, expected {size}")
    digest = hashlib.sha256(raw).hexdigest()
    if digest != spec.sha256:
        raise DatasetProblem(f"{where}: SHA-256 of the decompressed data is {digest[:12]}…, "
                             f"expected {spec.sha256[:12]}… (not the official file)")
    return blob, np.frombuffer(raw, dtype=np.uint8, offset=header).reshape(spec.shape)


def read_verified(path: str | Path, spec: FileSpec) -> np.ndarray:
    """A writable copy (learners change pixels in place) of the array in one IDX ``.gz`` file, after the full check."""
    return _checked(Path(path), spec, display_path(path))[1].copy()


_verified_here: dict[Path, tuple] = {}  # path -> its os.stat key when its bytes verified in this process


def _stat_key(path: Path) -> tuple:
    status = path.stat()  # ctime changes with any write, also when the times are set back by hand
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def _record_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.verified")


def _remember(path: Path, spec: FileSpec, blob: bytes) -> None:
    """Note that ``path``, holding ``blob``, verified: in this process and, by a record beside it, for later ones."""
    _verified_here[path] = _stat_key(path)
    record = {"size": len(blob), "gz_sha256": hashlib.sha256(blob).hexdigest(), "idx_sha256": spec.sha256}
    with contextlib.suppress(OSError):  # a read-only cache: each process then checks the file in full
        _record_path(path).write_text(json.dumps(record) + "\n")


def _still_verified(path: Path, spec: FileSpec) -> bool:
    """Unchanged since it verified in this process, or its ``.gz`` bytes match its record (hashed once a process)."""
    try:
        key = _stat_key(path)
        if _verified_here.get(path) == key:
            return True
        record = json.loads(_record_path(path).read_text())
        same = isinstance(record, dict) and record.get("idx_sha256") == spec.sha256 and record.get("size") == key[2]
        if not same or hashlib.sha256(path.read_bytes()).hexdigest() != record.get("gz_sha256"):
            return False
    except (OSError, ValueError):  # no record, or the file is gone: the full check says what is wrong
        return False
    _verified_here[path] = key
    return True


def _cache_path(spec: DatasetSpec, file_spec: FileSpec, cache_dir: Path | None) -> Path:
    """``<cache>/<dataset>/<file>``, after removing stale ``.partial-*`` files from its folder."""
    folder = Path(DATA_DIR if cache_dir is None else cache_dir) / spec.name
    path = folder / file_spec.filename
    if folder.exists() and not folder.is_dir():
        raise DatasetProblem(f"{display_path(folder)} is a file where the cache keeps the folder {spec.name}/: "
                             "remove or rename it, then run again")
    if path.is_dir():
        raise DatasetProblem(f"{display_path(path)} is a folder, where the cache keeps the file {spec.name}/"
                             f"{file_spec.filename}: remove or rename that folder, then run again to fetch the file")
    for partial in folder.glob(f"{PARTIAL_PREFIX}*.gz"):
        if _is_stale(partial):
            with contextlib.suppress(OSError):  # removed meanwhile, or not ours to remove
                partial.unlink()
    return path


def _partial_prefix() -> str:
    return f"{PARTIAL_PREFIX}{os.getpid()}@{HOST}-"


def _is_stale(partial: Path) -> bool:
    """A partial file whose fetch is over: it is old, or its process (on this host) is gone."""
    owner = re.fullmatch(re.escape(PARTIAL_PREFIX) + r"(\d+)@(.+)-[^-]+\.gz", partial.name)
    try:
        if time.time() - partial.stat().st_mtime > STALE_PARTIAL_SECONDS:
            return True
        if owner and owner[2] == HOST and int(owner[1]) != os.getpid() and os.name != "nt":
            os.kill(int(owner[1]), 0)  # on Windows this would end the process: only the age counts there
    except ProcessLookupError:
        return True
    except OSError:  # the file is gone already, or its process belongs to someone else
        pass
    return False


def local_source(needed: str | None = None) -> Path | None:
    """The folder named by ``WORKBOOK_DATASETS``, or None; ``needed`` names the missing file for the message."""
    value = os.environ.get(DATASETS_ENV, "").strip()
    if not value:
        return None
    given = Path(value).expanduser()
    folder = given if given.is_absolute() else PROJECT_ROOT / given
    if folder.is_dir():
        return folder
    looked = ""
    if not given.is_absolute():
        looked = f" (a relative path is taken from the project folder: looked for {display_path(folder)}"
        if (Path.cwd() / given).is_dir():
            looked += f"; to use {display_path(Path.cwd() / given)} in the current folder, give its full path"
        looked += ")"
    missing = f"{needed} is not in the cache and " if needed else ""
    raise DatasetProblem(f"{missing}{DATASETS_ENV}={value} is not a folder{looked}; name the folder that holds "
                         "mnist/ and fashion-mnist/, or unset it to download")


def fetch_file(spec: DatasetSpec, key: str, cache_dir: Path | None = None, source: Path | None = None,
               mirrors: tuple[str, ...] | None = None, progress: bool = True) -> Path:
    """Put one file into the cache from ``source`` or the mirrors, via a ``.partial-`` file renamed once verified."""
    file_spec = spec.files[key]
    final = _cache_path(spec, file_spec, cache_dir)
    final.parent.mkdir(parents=True, exist_ok=True)
    temporary = final.with_name(f"{_partial_prefix()}{os.urandom(4).hex()}.gz")
    try:
        if source is not None:
            blob = _copy_from_folder(spec, file_spec, source, temporary)
        else:
            blob = _download_from_mirrors(spec, file_spec, temporary, mirrors or spec.mirrors, progress)
        os.replace(temporary, final)
        _remember(final, file_spec, blob)  # replaces any record: it holds the SHA-256 of the bytes it vouches for
        return final
    finally:
        temporary.unlink(missing_ok=True)


def _copy_from_folder(spec: DatasetSpec, file_spec: FileSpec, source: Path, temporary: Path) -> bytes:
    """Copy ``<source>/<dataset>/<file>`` to ``temporary`` and verify the copy; return its bytes."""
    name = f"{spec.name}/{file_spec.filename}"
    original = source / name
    if not original.is_file():
        if original.is_dir():
            why = f"has {name} as a folder, not a file: put the .gz file itself there"
        elif source.name in {spec.name, *DATASETS}:
            why = (f"is the {source.name}/ folder itself: name its parent, the folder that holds mnist/ and "
                   "fashion-mnist/")
        elif (source / file_spec.filename).exists():
            why = (f"holds {file_spec.filename} directly: put the files of {spec.name} in its {spec.name}/ "
                   "subfolder (see data/README.md)")
        else:
            why = f"has no {name}: copy the dataset there (see data/README.md) or unset {DATASETS_ENV} to download"
        raise DatasetProblem(f"{DATASETS_ENV} folder {display_path(source)} {why}")
    shutil.copyfile(original, temporary)
    try:
        return _checked(temporary, file_spec, display_path(original))[0]
    except DatasetProblem as problem:
        raise DatasetProblem(f"{problem}; it was not copied: replace it with a good copy "
                             "(checksums in data/README.md)") from None


def _download_from_mirrors(spec: DatasetSpec, file_spec: FileSpec, temporary: Path, mirrors: tuple[str, ...],
                           progress: bool) -> bytes:
    """Download the file to ``temporary`` from the first mirror whose copy verifies; return its bytes."""
    from tqdm.std import tqdm  # a plain-text bar: never a widget
    label = f"{spec.name}/{file_spec.filename}"
    failures = []
    for url in (base + file_spec.filename for base in mirrors):
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
        try:
            with urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT_SECONDS) as response:
                total = int(response.headers.get("Content-Length") or 0) or None
                with open(temporary, "wb") as out, tqdm(total=total, unit="B", unit_scale=True, file=sys.stdout,
                                                        desc=label, disable=not progress) as bar:
                    while chunk := response.read(1 << 16):
                        bar.update(out.write(chunk))
                    if total is not None and out.tell() != total:
                        raise DatasetProblem(f"download of {url} stopped after {out.tell()} of {total} bytes; "
                                             "try again")
            return _checked(temporary, file_spec, url)[0]
        except DatasetProblem as problem:
            failures.append(str(problem))
        except (OSError, http.client.HTTPException) as error:  # urllib's URLError is an OSError
            failures.append(f"{url}: {getattr(error, 'reason', None) or error}")
    raise DatasetProblem(f"could not fetch {label} ({'; '.join(failures)}); nothing was "
                         f"kept: try again, or without internet set {DATASETS_ENV} to a folder holding the dataset "
                         "files (see data/README.md)")


def _cached(spec: DatasetSpec, key: str, cache_dir: Path | None, progress: bool = True) -> Path:
    """The path of one cached file that verified, or matches its record; a bad one is removed and, like a missing
    one, fetched."""
    file_spec = spec.files[key]
    path = _cache_path(spec, file_spec, cache_dir)
    if path.exists():
        try:
            if not _still_verified(path, file_spec):
                _remember(path, file_spec, _checked(path, file_spec, display_path(path))[0])
            return path
        except DatasetProblem as problem:
            _record_path(path).unlink(missing_ok=True)
            path.unlink(missing_ok=True)
            print(f"{problem} -- removed from the cache; fetching it again")
    return fetch_file(spec, key, cache_dir, local_source(needed=display_path(path)), progress=progress)


def ensure(name: str | DatasetSpec, cache_dir: Path | None = None, progress: bool = True) -> dict[str, Path]:
    """``{key: path}`` of a dataset's files, each in the cache and verified (``cache_dir`` defaults to ``data/``)."""
    spec = spec_for(name)
    return {key: _cached(spec, key, cache_dir, progress) for key in KEYS}


def load(name: str | DatasetSpec = "mnist", cache_dir: Path | None = None) -> Dataset:
    """A dataset as uint8 NumPy arrays, every file checked in full (fetched when missing or bad)."""
    spec = spec_for(name)
    paths = ensure(spec, cache_dir)
    return Dataset(spec.name, *(read_verified(paths[key], spec.files[key]) for key in KEYS), spec.class_names)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m helpers.data", description="fetch: download (or copy from "
                                     "WORKBOOK_DATASETS) and verify any missing file; verify: check every cached "
                                     "file again.")
    parser.add_argument("command", choices=["fetch", "verify"])
    parser.add_argument("datasets", nargs="*", default=list(DATASETS))
    args = parser.parse_args(argv)
    try:
        for name in args.datasets:
            (ensure if args.command == "fetch" else load)(name)
            done = "in" if args.command == "fetch" else "verified (SHA-256 of the IDX bytes) in"
            print(f"{name}: 4 files {done} {display_path(Path(DATA_DIR) / name)}")
    except DatasetProblem as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
