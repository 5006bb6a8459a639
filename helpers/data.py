"""MNIST and Fashion-MNIST: download, verify, cache and read (IDX format).

Introduced in notebook 00; notebook 02 reads the same files with ``tf.data``.

The files are kept in their canonical form, ``<name>-idx?-ubyte.gz``, under
``data/<dataset>/``. A file enters that cache only after it verifies: its gzip
stream is complete, its IDX header has the right magic number, count and shape,
and the SHA-256 of the *decompressed* bytes matches the table below (the gzip
wrapper differs between copies, the IDX bytes do not). A cached file that no
longer verifies is removed and fetched again.

Where files come from, in order:

1. the folder named by ``WORKBOOK_DATASETS`` (``make ... DATASETS=<folder>``),
   laid out as ``<folder>/<dataset>/<file>.gz``: a USB stick in a classroom, or
   ``../shared/datasets`` in CI. When it is set, the network is never used;
2. otherwise the official mirrors, over HTTPS, into a temporary file that is
   moved into place only after it verifies.

Every failure is a ``DatasetProblem`` whose one-line message names the file and
the fix. Run ``python -m helpers.data fetch`` to fetch and verify everything.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import http.client
import os
import shutil
import sys
import tempfile
import urllib.error
import urllib.request
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .problems import DatasetProblem
from .settings import DATA_DIR, DATASETS_ENV, PROJECT_ROOT, display_path

IMAGES_MAGIC = 0x00000803  # unsigned bytes, 3 dimensions
LABELS_MAGIC = 0x00000801  # unsigned bytes, 1 dimension
DOWNLOAD_TIMEOUT_SECONDS = 60
USER_AGENT = "estimator-workbook/1.0 (+python urllib)"


@dataclass(frozen=True)
class FileSpec:
    """One IDX file: its name, what it holds, and its verified content hash."""

    filename: str
    shape: tuple  # (count, 28, 28) for images, (count,) for labels
    sha256: str  # of the decompressed IDX bytes

    @property
    def magic(self) -> int:
        return 0x00000800 + len(self.shape)


@dataclass(frozen=True)
class DatasetSpec:
    """A dataset: its name, mirrors, class names and four files."""

    name: str
    mirrors: tuple
    class_names: tuple
    train_images: FileSpec
    train_labels: FileSpec
    test_images: FileSpec
    test_labels: FileSpec

    @property
    def files(self) -> dict:
        return {
            "train_images": self.train_images,
            "train_labels": self.train_labels,
            "test_images": self.test_images,
            "test_labels": self.test_labels,
        }


MNIST = DatasetSpec(
    name="mnist",
    mirrors=(
        "https://storage.googleapis.com/cvdf-datasets/mnist/",
        "https://ossci-datasets.s3.amazonaws.com/mnist/",
    ),
    class_names=tuple(str(d) for d in range(10)),
    train_images=FileSpec(
        "train-images-idx3-ubyte.gz",
        (60000, 28, 28),
        "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
    ),
    train_labels=FileSpec(
        "train-labels-idx1-ubyte.gz",
        (60000,),
        "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
    ),
    test_images=FileSpec(
        "t10k-images-idx3-ubyte.gz",
        (10000, 28, 28),
        "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
    ),
    test_labels=FileSpec(
        "t10k-labels-idx1-ubyte.gz",
        (10000,),
        "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
    ),
)

FASHION_MNIST = DatasetSpec(
    name="fashion-mnist",
    mirrors=(
        "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
        "https://storage.googleapis.com/tensorflow/tf-keras-datasets/",
    ),
    class_names=(
        "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
        "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
    ),
    train_images=FileSpec(
        "train-images-idx3-ubyte.gz",
        (60000, 28, 28),
        "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888",
    ),
    train_labels=FileSpec(
        "train-labels-idx1-ubyte.gz",
        (60000,),
        "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9",
    ),
    test_images=FileSpec(
        "t10k-images-idx3-ubyte.gz",
        (10000, 28, 28),
        "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b",
    ),
    test_labels=FileSpec(
        "t10k-labels-idx1-ubyte.gz",
        (10000,),
        "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34",
    ),
)

DATASETS = {spec.name: spec for spec in (MNIST, FASHION_MNIST)}


class Dataset(NamedTuple):
    """A loaded dataset: uint8 images (N, 28, 28), uint8 labels (N,), class names."""

    name: str
    train_images: np.ndarray
    train_labels: np.ndarray
    test_images: np.ndarray
    test_labels: np.ndarray
    class_names: tuple


def spec_for(name: str | DatasetSpec) -> DatasetSpec:
    """The ``DatasetSpec`` for a dataset name ('mnist' or 'fashion-mnist')."""
    if isinstance(name, DatasetSpec):
        return name
    try:
        return DATASETS[name]
    except KeyError:
        known = ", ".join(repr(n) for n in DATASETS)
        raise DatasetProblem(f"unknown dataset {name!r}; the course has {known}") from None


# --- reading and verifying ---------------------------------------------------


def _decompress(path: Path, where: str) -> bytes:
    if not path.is_file():
        raise DatasetProblem(f"{where} does not exist: run `python -m helpers.data fetch` to fetch it")
    try:
        with gzip.open(path, "rb") as stream:
            return stream.read()
    except (EOFError, gzip.BadGzipFile, zlib.error, OSError) as error:
        raise DatasetProblem(f"{where} is not a complete gzip file ({error})") from None


def _check_idx(raw: bytes, spec: FileSpec, where: str) -> np.ndarray:
    """Check header, size and hash of decompressed IDX bytes; return the array."""
    ndim = len(spec.shape)
    header_size = 4 + 4 * ndim
    if len(raw) < header_size:
        raise DatasetProblem(f"{where} is too short to be an IDX file ({len(raw)} bytes)")
    magic = int.from_bytes(raw[:4], "big")
    if magic != spec.magic:
        raise DatasetProblem(
            f"{where} is not an IDX file of this kind: magic number 0x{magic:08x}, "
            f"expected 0x{spec.magic:08x}"
        )
    dims = tuple(int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim))
    if dims != tuple(spec.shape):
        raise DatasetProblem(f"{where} holds shape {dims}, expected {tuple(spec.shape)}")
    expected_size = header_size + int(np.prod(spec.shape))
    if len(raw) != expected_size:
        raise DatasetProblem(
            f"{where} has {len(raw)} bytes after decompression, expected {expected_size}"
        )
    digest = hashlib.sha256(raw).hexdigest()
    if digest != spec.sha256:
        raise DatasetProblem(
            f"{where}: SHA-256 of the decompressed data is {digest[:12]}…, "
            f"expected {spec.sha256[:12]}… (not the official file)"
        )
    # A writable copy: learners may change pixels in place.
    return np.frombuffer(raw, dtype=np.uint8, offset=header_size).reshape(spec.shape).copy()


def read_verified(path: str | Path, spec: FileSpec, where: str | None = None) -> np.ndarray:
    """Read one IDX ``.gz`` file after checking gzip, header, shape and SHA-256.

    ``where`` names the file in error messages (default: its path).
    """
    where = where or display_path(path)
    return _check_idx(_decompress(Path(path), where), spec, where)


# --- fetching ----------------------------------------------------------------


def local_source() -> Path | None:
    """The folder named by ``WORKBOOK_DATASETS`` (relative to the project), or None."""
    value = os.environ.get(DATASETS_ENV, "").strip()
    if not value:
        return None
    folder = Path(value).expanduser()
    if not folder.is_absolute():
        folder = PROJECT_ROOT / folder
    if not folder.is_dir():
        raise DatasetProblem(
            f"{DATASETS_ENV}={value} is not a folder; name the folder that holds "
            "mnist/ and fashion-mnist/, or unset it to download"
        )
    return folder


def _download(url: str, target: Path, progress: bool, label: str = "") -> None:
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    with urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT_SECONDS) as response:
        total = int(response.headers.get("Content-Length") or 0) or None
        bar = None
        if progress:
            from tqdm.std import tqdm  # plain-text bar: never a widget

            bar = tqdm(total=total, unit="B", unit_scale=True, desc=label or url.rsplit("/", 1)[-1], file=sys.stdout)
        received = 0
        with open(target, "wb") as out:
            while True:
                chunk = response.read(1 << 16)
                if not chunk:
                    break
                out.write(chunk)
                received += len(chunk)
                if bar is not None:
                    bar.update(len(chunk))
        if bar is not None:
            bar.close()
        if total is not None and received != total:
            raise DatasetProblem(
                f"download of {url} stopped after {received} of {total} bytes; try again"
            )


def fetch_file(
    spec: DatasetSpec,
    key: str,
    cache_dir: Path,
    source: Path | None = None,
    mirrors: tuple | None = None,
    progress: bool = True,
) -> Path:
    """Put one verified file into ``cache_dir/<dataset>/`` and return its path.

    The bytes go to a temporary file first, which is verified and only then
    moved into place; a file that fails verification is never kept.
    """
    file_spec = spec.files[key]
    folder = Path(cache_dir) / spec.name
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / file_spec.filename
    handle, temporary = tempfile.mkstemp(prefix=".partial-", suffix=".gz", dir=folder)
    os.close(handle)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes it owner-only; cache files are ordinary files
    temporary = Path(temporary)
    try:
        if source is not None:
            _copy_from_folder(spec, file_spec, source, temporary)
        else:
            _download_from_mirrors(spec, file_spec, temporary, mirrors or spec.mirrors, progress)
        os.replace(temporary, final)
        return final
    finally:
        temporary.unlink(missing_ok=True)


def _copy_from_folder(spec: DatasetSpec, file_spec: FileSpec, source: Path, temporary: Path):
    original = source / spec.name / file_spec.filename
    if not original.is_file():
        raise DatasetProblem(
            f"{DATASETS_ENV} folder {display_path(source)} has no "
            f"{spec.name}/{file_spec.filename}: copy the dataset there "
            f"(see data/README.md) or unset {DATASETS_ENV} to download"
        )
    shutil.copyfile(original, temporary)
    try:
        read_verified(temporary, file_spec, where=display_path(original))
    except DatasetProblem as problem:
        raise DatasetProblem(
            f"{problem}; it was not copied: replace it with a good copy "
            "(checksums in data/README.md)"
        ) from None


def _download_from_mirrors(spec, file_spec, temporary: Path, mirrors, progress: bool):
    failures = []
    for base in mirrors:
        url = base + file_spec.filename
        try:
            _download(url, temporary, progress, label=f"{spec.name}/{file_spec.filename}")
            read_verified(temporary, file_spec, where=url)
            return
        except DatasetProblem as problem:
            failures.append(str(problem))
        except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
            failures.append(f"{url}: {getattr(error, 'reason', None) or error}")
    raise DatasetProblem(
        f"could not fetch {spec.name}/{file_spec.filename} ({'; '.join(failures)}); "
        f"nothing was kept: try again, or without internet set {DATASETS_ENV} to a "
        "folder holding the dataset files (see data/README.md)"
    )


def ensure(name: str | DatasetSpec, cache_dir: Path = DATA_DIR, progress: bool = True) -> dict:
    """Make sure every file of a dataset is in the cache; return their paths.

    Files already cached are used as they are (``load`` verifies what it
    reads); missing ones are fetched and verified.
    """
    spec = spec_for(name)
    source = local_source()
    paths = {}
    for key, file_spec in spec.files.items():
        path = Path(cache_dir) / spec.name / file_spec.filename
        if not path.is_file():
            path = fetch_file(spec, key, Path(cache_dir), source=source, progress=progress)
        paths[key] = path
    return paths


def _read_or_refetch(spec: DatasetSpec, key: str, path: Path, cache_dir: Path) -> np.ndarray:
    try:
        return read_verified(path, spec.files[key])
    except DatasetProblem as problem:
        path.unlink(missing_ok=True)
        print(f"{problem} -- removed from the cache; fetching it again")
        fresh = fetch_file(spec, key, Path(cache_dir), source=local_source())
        return read_verified(fresh, spec.files[key])


def load(name: str | DatasetSpec = "mnist", cache_dir: Path = DATA_DIR) -> Dataset:
    """Load a dataset as uint8 NumPy arrays, fetching and verifying as needed."""
    spec = spec_for(name)
    paths = ensure(spec, cache_dir)
    arrays = {key: _read_or_refetch(spec, key, path, cache_dir) for key, path in paths.items()}
    return Dataset(name=spec.name, class_names=spec.class_names, **arrays)


def verify(name: str | DatasetSpec, cache_dir: Path = DATA_DIR) -> dict:
    """Verify every cached file of a dataset; return ``{filename: sha256}``."""
    spec = spec_for(name)
    paths = ensure(spec, cache_dir)
    for key, path in paths.items():
        _read_or_refetch(spec, key, path, cache_dir)
    return {spec.files[key].filename: spec.files[key].sha256 for key in paths}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.data",
        description="fetch: download (or copy from WORKBOOK_DATASETS) and verify any "
        "missing file; verify: check every cached file again.",
    )
    parser.add_argument("command", choices=["fetch", "verify"])
    parser.add_argument("datasets", nargs="*", default=list(DATASETS))
    args = parser.parse_args(argv)
    try:
        for name in args.datasets:
            if args.command == "fetch":
                ensure(name)
                print(f"{name}: 4 files in {display_path(DATA_DIR / name)}")
            else:
                verify(name)
                print(f"{name}: 4 files verified (SHA-256 of the IDX bytes) in {display_path(DATA_DIR / name)}")
    except DatasetProblem as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
