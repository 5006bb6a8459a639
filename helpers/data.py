"""MNIST and Fashion-MNIST: download, verify, cache and read (IDX format).

Introduced in notebook 00; notebook 02 reads the same files with ``tf.data``.

The files are kept in their canonical form, ``<name>-idx?-ubyte.gz``, under
``data/<dataset>/``. What is verified when:

* **fetch** (a file enters the cache): the bytes go to a temporary
  ``.partial-<pid>@<host>-….gz`` file and are checked in full: the file is
  gzip-compressed and its gzip stream is complete, its IDX header has the right
  magic number, count and shape, and the SHA-256 of the *decompressed* bytes
  matches the table below (the gzip wrapper differs between copies, the IDX
  bytes do not). Only then is it moved into place, and a record of it (size and
  SHA-256 of the ``.gz`` bytes) is written beside it as
  ``.<file>.verified``.
* **cache read** (``load``, ``verify``): the same full check on the bytes that
  are returned.
* **input functions** (``ensure``, which ``helpers.inputs`` calls every time an
  ``input_fn`` builds its dataset): once per file per process, the SHA-256 of
  the ``.gz`` bytes is compared with the record (about 0.02 s for MNIST's four
  files); later calls only compare ``os.stat`` (size, times, inode) with what
  was verified. A file without a matching record gets the full check.

A cached file that fails a check is removed (the line says so) and fetched
again. ``.partial-*`` files left behind by a fetch that was killed are removed
by later runs once their process is gone (or after 10 minutes).

Where files come from, in order:

1. the folder named by ``WORKBOOK_DATASETS`` (``make ... DATASETS=<folder>``),
   laid out as ``<folder>/<dataset>/<file>.gz``: a USB stick in a classroom, or
   ``../shared/datasets`` in CI. A relative path is taken from the project
   folder (the one holding ``helpers/``), not from the current one, so the same
   setting works in a terminal and in a notebook. When it is set, the network
   is never used; the folder is only looked at when a file must be fetched, so
   a complete cache keeps working after the USB stick is pulled out;
2. otherwise the official mirrors, over HTTPS, into a temporary file that is
   moved into place only after it verifies.

Every failure is a ``DatasetProblem`` whose one-line message names the file and
the fix. Messages name a path inside the project relative to the working
directory (``../data/mnist`` from a notebook), any other as ``~/…`` or in full.
Run ``python -m helpers.data fetch`` to fetch and verify everything.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import http.client
import json
import os
import re
import shutil
import socket
import sys
import tempfile
import time
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
GZIP_SIGNATURE = b"\x1f\x8b"
DOWNLOAD_TIMEOUT_SECONDS = 60
PARTIAL_PREFIX = ".partial-"
STALE_PARTIAL_SECONDS = 600  # a fetch that is running writes far more often than this
RECORD_SUFFIX = ".verified"
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


def _read_bytes(path: Path, where: str) -> bytes:
    if path.is_dir():
        raise DatasetProblem(f"{where} is a folder, not a file: name the .gz file itself")
    if not path.is_file():
        raise DatasetProblem(f"{where} does not exist: run `python -m helpers.data fetch` to fetch it")
    try:
        return path.read_bytes()
    except OSError as error:
        raise DatasetProblem(f"{where} cannot be read ({error.strerror or error})") from None


def _gunzip(blob: bytes, where: str) -> bytes:
    if not blob:
        raise DatasetProblem(f"{where} is empty (0 bytes)")
    if not blob.startswith(GZIP_SIGNATURE):
        looks = ""
        if int.from_bytes(blob[:4], "big") in (IMAGES_MAGIC, LABELS_MAGIC):
            looks = "; it holds the IDX bytes uncompressed: gzip it"
        raise DatasetProblem(
            f"{where} is not gzip-compressed (it starts with {blob[:2].hex()}, "
            f"not the gzip signature 1f8b){looks}"
        )
    try:
        return gzip.decompress(blob)
    except (EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise DatasetProblem(f"{where} is not a complete gzip file ({error})") from None


def _check_idx(raw: bytes, spec: FileSpec, where: str) -> np.ndarray:
    """Check header, size and hash of decompressed IDX bytes; return a read-only view of the array."""
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
    return np.frombuffer(raw, dtype=np.uint8, offset=header_size).reshape(spec.shape)


def _checked(path: Path, spec: FileSpec, where: str) -> tuple:
    """The file's bytes and its verified array (gzip, header, shape, SHA-256)."""
    blob = _read_bytes(path, where)
    return blob, _check_idx(_gunzip(blob, where), spec, where)


def read_verified(path: str | Path, spec: FileSpec, where: str | None = None) -> np.ndarray:
    """Read one IDX ``.gz`` file after checking gzip, header, shape and SHA-256.

    ``where`` names the file in error messages (default: its path).
    """
    # A writable copy: learners may change pixels in place.
    return _checked(Path(path), spec, where or display_path(path))[1].copy()


# --- what this process, and earlier ones, verified ------------------------------

# path -> os.stat key at the moment its bytes verified, in this process
_verified_here: dict = {}


def _stat_key(path: Path) -> tuple:
    # ctime changes with any write, and also when the times are set back by hand.
    status = path.stat()
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def _record_path(path: Path) -> Path:
    return path.with_name(f".{path.name}{RECORD_SUFFIX}")


def _remember(path: Path, spec: FileSpec, blob: bytes) -> None:
    """Note that ``path``, holding ``blob``, verified: for this process and for later ones."""
    _verified_here[path] = _stat_key(path)
    record = {"size": len(blob), "gz_sha256": hashlib.sha256(blob).hexdigest(), "idx_sha256": spec.sha256}
    try:
        _record_path(path).write_text(json.dumps(record) + "\n")
    except OSError:  # a read-only cache: each process then checks the file in full
        pass


def _forget(path: Path) -> None:
    _verified_here.pop(path, None)
    _record_path(path).unlink(missing_ok=True)


def _still_verified(path: Path, spec: FileSpec) -> bool:
    """True when ``path`` is unchanged since it verified in this process, or its
    ``.gz`` bytes match the record written when it verified (hashed once per process)."""
    try:
        key = _stat_key(path)
    except OSError:  # gone since it was listed: the full check says so
        return False
    if _verified_here.get(path) == key:
        return True
    try:
        record = json.loads(_record_path(path).read_text())
    except (OSError, ValueError):
        return False
    if not isinstance(record, dict) or record.get("idx_sha256") != spec.sha256 or record.get("size") != key[2]:
        return False
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return False
    if digest != record.get("gz_sha256"):
        return False
    _verified_here[path] = key
    return True


# --- the cache folder ---------------------------------------------------------------


def _cache_root(cache_dir: Path | None) -> Path:
    return Path(DATA_DIR if cache_dir is None else cache_dir)


def _cache_folder(spec: DatasetSpec, cache_dir: Path | None) -> Path:
    """``<cache>/<dataset>``, after removing stale ``.partial-*`` files from it."""
    folder = _cache_root(cache_dir) / spec.name
    if folder.exists() and not folder.is_dir():
        raise DatasetProblem(
            f"{display_path(folder)} is a file where the cache keeps the folder {spec.name}/: "
            "remove or rename it, then run again"
        )
    if folder.is_dir():
        _remove_stale_partials(folder)
    return folder


def _cache_path(spec: DatasetSpec, file_spec: FileSpec, folder: Path) -> Path:
    path = folder / file_spec.filename
    if path.is_dir():
        raise DatasetProblem(
            f"{display_path(path)} is a folder, where the cache keeps the file {spec.name}/{file_spec.filename}: "
            "remove or rename that folder, then run again to fetch the file"
        )
    return path


def _partial_prefix() -> str:
    host = re.sub(r"[^A-Za-z0-9._]", "_", socket.gethostname()) or "host"
    return f"{PARTIAL_PREFIX}{os.getpid()}@{host}-"


def _process_is_gone(pid: int) -> bool:
    if os.name == "nt" or pid == os.getpid():
        return False  # os.kill(pid, 0) would end the process on Windows: rely on age there
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # exists, owned by someone else
        return False
    return False


def _is_stale(partial: Path, now: float) -> bool:
    """A partial file whose fetch is over: its process (on this host) is gone, or it is old."""
    try:
        if now - partial.stat().st_mtime > STALE_PARTIAL_SECONDS:
            return True
    except OSError:  # already gone
        return False
    owner = re.fullmatch(re.escape(PARTIAL_PREFIX) + r"(\d+)@(.+)-[^-]+\.gz", partial.name)
    here = re.sub(r"[^A-Za-z0-9._]", "_", socket.gethostname()) or "host"
    return bool(owner) and owner[2] == here and _process_is_gone(int(owner[1]))


def _remove_stale_partials(folder: Path) -> None:
    now = time.time()
    for partial in folder.glob(f"{PARTIAL_PREFIX}*.gz"):
        if _is_stale(partial, now):
            try:
                partial.unlink()
            except OSError:  # removed meanwhile, or not ours to remove
                pass


# --- fetching ----------------------------------------------------------------


def local_source(needed: str | None = None) -> Path | None:
    """The folder named by ``WORKBOOK_DATASETS`` (relative: to the project folder), or None.

    ``needed`` names the file that is missing from the cache, for the message
    when the folder is not there.
    """
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
        in_cwd = Path.cwd() / given
        if in_cwd.is_dir():
            looked += f"; to use {display_path(in_cwd)} in the current folder, give its full path"
        looked += ")"
    missing = f"{needed} is not in the cache and " if needed else ""
    raise DatasetProblem(
        f"{missing}{DATASETS_ENV}={value} is not a folder{looked}; name the folder that holds "
        "mnist/ and fashion-mnist/, or unset it to download"
    )


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
    cache_dir: Path | None = None,
    source: Path | None = None,
    mirrors: tuple | None = None,
    progress: bool = True,
) -> Path:
    """Put one verified file into ``cache_dir/<dataset>/`` and return its path.

    The bytes go to a temporary file first, which is verified and only then
    moved into place; a file that fails verification is never kept.
    """
    file_spec = spec.files[key]
    folder = _cache_folder(spec, cache_dir)
    final = _cache_path(spec, file_spec, folder)
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=_partial_prefix(), suffix=".gz", dir=folder)
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
        _forget(final)
        os.replace(temporary, final)
        _remember(final, file_spec, final.read_bytes())
        return final
    finally:
        temporary.unlink(missing_ok=True)


def _missing_in_folder(spec: DatasetSpec, file_spec: FileSpec, source: Path) -> str:
    """Why ``source`` does not hold ``<dataset>/<file>``, and what to do."""
    name = f"{spec.name}/{file_spec.filename}"
    if (source / name).is_dir():
        return f"has {name} as a folder, not a file: put the .gz file itself there"
    if source.name in {spec.name, *DATASETS}:
        return (f"is the {source.name}/ folder itself: name its parent, the folder that holds "
                "mnist/ and fashion-mnist/")
    if (source / file_spec.filename).exists():
        return (f"holds {file_spec.filename} directly: put the files of {spec.name} in its "
                f"{spec.name}/ subfolder (see data/README.md)")
    return (f"has no {name}: copy the dataset there (see data/README.md) or unset "
            f"{DATASETS_ENV} to download")


def _copy_from_folder(spec: DatasetSpec, file_spec: FileSpec, source: Path, temporary: Path):
    original = source / spec.name / file_spec.filename
    if not original.is_file():
        raise DatasetProblem(
            f"{DATASETS_ENV} folder {display_path(source)} {_missing_in_folder(spec, file_spec, source)}"
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


# --- the cache, as the notebooks use it ----------------------------------------------


def _verified_copy(spec: DatasetSpec, key: str, folder: Path, progress: bool, read: bool):
    """``(path, array)`` of one cached file that verified, fetching it when missing or bad.

    ``read``: check the bytes in full and return the array; otherwise the array is
    None and a file that verified before is only compared with its record.
    """
    file_spec = spec.files[key]
    path = _cache_path(spec, file_spec, folder)
    if path.exists():
        try:
            if not read and _still_verified(path, file_spec):
                return path, None
            blob, array = _checked(path, file_spec, display_path(path))
            _remember(path, file_spec, blob)
            return path, (array.copy() if read else None)  # a writable copy for load()
        except DatasetProblem as problem:
            path.unlink(missing_ok=True)
            _forget(path)
            print(f"{problem} -- removed from the cache; fetching it again")
    source = local_source(needed=display_path(path))
    fresh = fetch_file(spec, key, folder.parent, source=source, progress=progress)
    return fresh, (read_verified(fresh, file_spec) if read else None)


def ensure(name: str | DatasetSpec, cache_dir: Path | None = None, progress: bool = True) -> dict:
    """Make sure every file of a dataset is in the cache and verified; return their paths.

    The input functions call this each time they build their dataset. Missing
    files are fetched; a cached file is checked against the record written when
    it entered the cache, once per process (a changed file is checked in full,
    and removed and fetched again if it fails). ``cache_dir`` defaults to
    ``data/``.
    """
    spec = spec_for(name)
    folder = _cache_folder(spec, cache_dir)
    return {key: _verified_copy(spec, key, folder, progress, read=False)[0] for key in spec.files}


def load(name: str | DatasetSpec = "mnist", cache_dir: Path | None = None) -> Dataset:
    """Load a dataset as uint8 NumPy arrays, fetching and verifying as needed."""
    spec = spec_for(name)
    folder = _cache_folder(spec, cache_dir)
    arrays = {key: _verified_copy(spec, key, folder, True, read=True)[1] for key in spec.files}
    return Dataset(name=spec.name, class_names=spec.class_names, **arrays)


def verify(name: str | DatasetSpec, cache_dir: Path | None = None) -> dict:
    """Check every cached file of a dataset in full; return ``{filename: sha256}``."""
    spec = spec_for(name)
    folder = _cache_folder(spec, cache_dir)
    for key in spec.files:
        _verified_copy(spec, key, folder, True, read=True)
    return {file_spec.filename: file_spec.sha256 for file_spec in spec.files.values()}


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
                print(f"{name}: 4 files in {display_path(_cache_root(None) / name)}")
            else:
                verify(name)
                print(f"{name}: 4 files verified (SHA-256 of the IDX bytes) in {display_path(_cache_root(None) / name)}")
    except DatasetProblem as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
