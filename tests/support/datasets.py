"""The tiny synthetic dataset the tests of ``helpers.data`` share: gzip'd IDX files of 5 train and 3
test images (random uint8, labels 0-9) and a ``DatasetSpec`` whose SHA-256 sums match them, and what
reads a cache back. The fixtures that lay it out in a folder or serve it are in
``tests/helpers/data/conftest.py``."""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import struct
from pathlib import Path

import numpy as np

from helpers import paths
from helpers.data import DatasetSpec, FileSpec

ENV = paths.DATASETS_ENV  # "WORKBOOK_DATASETS"
SHARED_DATASETS = Path(paths.PROJECT_ROOT).parent / "shared" / "datasets"

FILENAMES = {
    "train_images": "train-images-idx3-ubyte.gz",
    "train_labels": "train-labels-idx1-ubyte.gz",
    "test_images": "t10k-images-idx3-ubyte.gz",
    "test_labels": "t10k-labels-idx1-ubyte.gz",
}
IMAGES = FILENAMES["train_images"]  # the first file that load() fetches


# --- building a tiny dataset -------------------------------------------------


def idx_bytes(array, magic: int | None = None, dims: tuple | None = None) -> bytes:
    """An uncompressed IDX file: big-endian uint32 magic and dims, then the uint8 data.

    ``magic`` and ``dims`` default to the right values for ``array``; pass others
    to build a broken header.
    """
    array = np.asarray(array, dtype=np.uint8)
    magic = 0x00000800 + array.ndim if magic is None else magic
    dims = array.shape if dims is None else dims
    return struct.pack(f">{1 + len(dims)}I", magic, *dims) + array.tobytes()


def gz(raw: bytes) -> bytes:
    return gzip.compress(raw, mtime=0)  # mtime=0: the same bytes on every run


def sha256(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


@dataclasses.dataclass
class Tiny:
    """A synthetic dataset: its spec, its arrays and their IDX bytes, by file key."""

    spec: DatasetSpec
    arrays: dict
    raw: dict

    def gz(self, key: str) -> bytes:
        return gz(self.raw[key])


def build_tiny(name: str = "tiny") -> Tiny:
    rng = np.random.default_rng(20240101)
    arrays = {
        "train_images": rng.integers(0, 256, size=(5, 28, 28), dtype=np.uint8),
        "train_labels": rng.integers(0, 10, size=5, dtype=np.uint8),
        "test_images": rng.integers(0, 256, size=(3, 28, 28), dtype=np.uint8),
        "test_labels": rng.integers(0, 10, size=3, dtype=np.uint8),
    }
    raw = {key: idx_bytes(array) for key, array in arrays.items()}
    files = {key: FileSpec(FILENAMES[key], arrays[key].shape, sha256(raw[key])) for key in arrays}
    # No mirrors: a test that reached the download route by mistake fails at
    # once instead of going to the internet.
    spec = DatasetSpec(name, (), tuple("abcdefghij"), **files)
    return Tiny(spec, arrays, raw)


def write_folder(root: Path, tiny: Tiny, replace: dict | None = None) -> Path:
    """Lay the dataset out as ``<root>/<name>/<file>.gz``; ``replace`` maps key -> .gz bytes."""
    folder = root / tiny.spec.name
    folder.mkdir(parents=True, exist_ok=True)
    for key, filename in FILENAMES.items():
        (folder / filename).write_bytes((replace or {}).get(key) or tiny.gz(key))
    return root


def cached_files(cache: Path) -> list:
    """Every file under the cache (hidden ones too), as sorted relative paths."""
    if not cache.exists():
        return []
    return sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file())


def assert_no_partials(cache: Path) -> None:
    assert not [f for f in cached_files(cache) if "partial" in f]


def one_line(problem: BaseException) -> str:
    """The problem's message, after checking that it is a single line."""
    message = str(problem)
    assert message and "\n" not in message and "\r" not in message, repr(message)
    return message
