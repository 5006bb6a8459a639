"""MNIST and Fashion-MNIST: fetch, verify, cache and read the IDX ``.gz`` files (notebook 00).

``python -m helpers.data fetch|verify`` fills or re-checks ``data/``; ``data/README.md`` says what
is checked when.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gzip
import hashlib
import http.client
import json
import os
import re
import socket
import sys
import time
import urllib.request
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .problems import DatasetProblem, StorageProblem
from .settings import DATA_DIR, DATASETS_ENV, PROJECT_ROOT, display_path

DOWNLOAD_TIMEOUT_SECONDS = 60
PARTIAL_PREFIX = ".partial-"
STALE_PARTIAL_SECONDS = 600  # a fetch that is running writes far more often than this
USER_AGENT = "estimator-workbook/1.0 (+python urllib)"
# the host name as it appears in partial files' names
HOST = re.sub(r"[^A-Za-z0-9._]", "_", socket.gethostname()) or "host"
KEYS = ("train_images", "train_labels", "test_images", "test_labels")
DISK_NEEDED = "about 42 MB for both datasets"  # the eight .gz files and their records
GZIP_LEVEL = (
    6  # unpacked files are gzipped for the cache: 0.8 s for MNIST's train images (level 9: 12 s)
)
TORCHVISION = {
    "mnist": "MNIST/raw",
    "fashion-mnist": "FashionMNIST/raw",
}  # where torchvision keeps the files


@dataclass(frozen=True)
class FileSpec:
    """One IDX file: its name, shape ((count, 28, 28) or (count,)) and the SHA-256 of its
    decompressed bytes."""

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


def _spec(
    name: str, mirrors: tuple[str, ...], class_names: tuple[str, ...], *sha256s: str
) -> DatasetSpec:
    """A dataset in the MNIST layout's four files, given the SHA-256 of each one's IDX bytes."""
    names = (
        "train-images-idx3-ubyte.gz",
        "train-labels-idx1-ubyte.gz",
        "t10k-images-idx3-ubyte.gz",
        "t10k-labels-idx1-ubyte.gz",
    )
    shapes = ((60000, 28, 28), (60000,), (10000, 28, 28), (10000,))
    return DatasetSpec(name, mirrors, class_names, *map(FileSpec, names, shapes, sha256s))


MNIST = _spec(
    "mnist",
    (
        "https://storage.googleapis.com/cvdf-datasets/mnist/",
        "https://ossci-datasets.s3.amazonaws.com/mnist/",
    ),
    tuple("0123456789"),
    "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
    "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
    "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
    "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
)
FASHION_MNIST = _spec(
    "fashion-mnist",
    (
        "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
        "https://storage.googleapis.com/tensorflow/tf-keras-datasets/",
    ),
    (
        "T-shirt/top",
        "Trouser",
        "Pullover",
        "Dress",
        "Coat",
        "Sandal",
        "Shirt",
        "Sneaker",
        "Bag",
        "Ankle boot",
    ),
    "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888",
    "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9",
    "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b",
    "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34",
)
DATASETS = {spec.name: spec for spec in (MNIST, FASHION_MNIST)}


class Arrays(NamedTuple):
    """What ``load`` returns: the name, uint8 images (N, 28, 28), uint8 labels (N,), class names."""

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
        raise DatasetProblem(
            f"unknown dataset {name!r}; the course has {', '.join(map(repr, DATASETS))}"
        )
    return DATASETS[name]


def _checked(path: Path, spec: FileSpec, where: str) -> tuple[bytes, np.ndarray]:
    """The file's bytes and a read-only view of its array, after checking gzip, IDX header, size and
    SHA-256."""
    with _refused(f"{where} cannot be read", "read"):
        if path.is_dir():
            raise DatasetProblem(f"{where} is a folder, not a file: name the .gz file itself")
        if not path.is_file():
            raise DatasetProblem(
                f"{where} does not exist: run `python -m helpers.data fetch` to fetch it"
            )
        blob = path.read_bytes()
    return blob, _verified_gzip(blob, spec, where)


def _verified_gzip(blob: bytes, spec: FileSpec, where: str) -> np.ndarray:
    """The array in ``blob``, the bytes of an IDX ``.gz`` file, after checking the gzip stream and
    the IDX bytes."""
    if not blob:
        raise DatasetProblem(f"{where} is empty (0 bytes)")
    if not blob.startswith(b"\x1f\x8b"):
        idx = "; it holds the IDX bytes uncompressed: gzip it" if blob[:3] == b"\0\0\x08" else ""
        raise DatasetProblem(
            f"{where} is not gzip-compressed (it starts with {blob[:2].hex()}, "
            f"not the gzip signature 1f8b){idx}"
        )
    try:
        raw = gzip.decompress(blob)
    except (EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise DatasetProblem(f"{where} is not a complete gzip file ({error})") from None
    return _verified_idx(raw, spec, where)


def _verified_idx(raw: bytes, spec: FileSpec, where: str) -> np.ndarray:
    """A read-only view of the array in ``raw``, IDX bytes, after checking its header, size and
    SHA-256."""
    header = 4 + 4 * len(spec.shape)
    if len(raw) < header:
        raise DatasetProblem(f"{where} is too short to be an IDX file ({len(raw)} bytes)")
    magic = int.from_bytes(raw[:4], "big")
    expected = 0x00000800 + len(spec.shape)  # unsigned bytes, N dimensions
    if magic != expected:
        raise DatasetProblem(
            f"{where} is not an IDX file of this kind: magic number 0x{magic:08x}, "
            f"expected 0x{expected:08x}"
        )
    dims = tuple(int.from_bytes(raw[i : i + 4], "big") for i in range(4, header, 4))
    if dims != tuple(spec.shape):
        raise DatasetProblem(f"{where} holds shape {dims}, expected {tuple(spec.shape)}")
    size = header + int(np.prod(spec.shape))
    if len(raw) != size:
        raise DatasetProblem(f"{where} has {len(raw)} bytes after decompression, expected {size}")
    digest = hashlib.sha256(raw).hexdigest()
    if digest != spec.sha256:
        raise DatasetProblem(
            f"{where}: SHA-256 of the decompressed data is {digest[:12]}…, "
            f"expected {spec.sha256[:12]}… (not the official file)"
        )
    return np.frombuffer(raw, dtype=np.uint8, offset=header).reshape(spec.shape)


def read_verified(path: str | Path, spec: FileSpec) -> np.ndarray:
    """A writable copy (learners change pixels in place) of the array in one IDX ``.gz`` file, after
    the full check."""
    return _checked(Path(path), spec, display_path(path))[1].copy()


# --- what the disk refuses: one line saying what failed, why, and what to do ----------------------

_KINDS = {
    errno.ENOSPC: "full",
    getattr(errno, "EDQUOT", errno.ENOSPC): "full",
    errno.EROFS: "read-only",
    errno.EACCES: "denied",
    errno.EPERM: "denied",
    errno.ENOENT: "gone",
}
_CAUSES = {
    "full": "no space left on the disk",
    "read-only": "it is on a read-only file system",
    "denied": "permission denied",
    "locked": "another program has the file locked",
    "gone": "the file vanished while it was in use",
}
_WRITABLE = (
    "make it writable for you, or have someone who can write there run "
    "`python -m helpers.data fetch` once, or work in a copy of the course in a folder you can "
    "write to"
)
_UNLOCK = "close the program that has it open, then run again"
# (side, kind): side "cache" writes into the cache, "read" reads a file; kind None: any other fault
_FIXES = {
    ("cache", "full"): f"free space on that disk ({DISK_NEEDED}), then run again",
    ("cache", "read-only"): _WRITABLE,
    ("cache", "denied"): _WRITABLE,
    ("cache", "locked"): _UNLOCK,
    ("cache", None): "check that disk, then run again",
    ("read", "denied"): "make it readable for you, then run again",
    ("read", "locked"): _UNLOCK,
    ("read", "gone"): "put it back (is the USB stick still in?), then run again",
    ("read", None): "check the disk or USB stick that holds it, then run again",
}


@contextlib.contextmanager
def _refused(what: str, side: str, after: str = ""):
    """An ``OSError`` in the block becomes one line: ``what`` failed, the cause (not the error's
    text: it holds absolute paths), ``after``, and the fix for ``side`` ("cache", "read", or
    "source": reading WORKBOOK_DATASETS)."""
    try:
        yield
    except OSError as error:
        # Windows: a sharing or lock violation
        locked = getattr(error, "winerror", None) in (32, 33)
        kind = "locked" if locked else _KINDS.get(error.errno)
        cause = _CAUSES.get(kind) or (error.strerror or "input/output error").lower()
        base = "cache" if side == "cache" else "read"
        fix = _FIXES.get((base, kind)) or _FIXES[(base, None)]
        fix += f", or unset {DATASETS_ENV} to download" if side == "source" else ""
        raise StorageProblem(f"{what} ({cause}); {after}{fix}") from None


def _writing(final: Path):
    """Faults while writing ``final`` into the cache, as one line that says nothing was kept."""
    return _refused(
        f"could not write {final.parent.name}/{final.name} to the cache folder "
        f"{display_path(final.parent)}",
        "cache",
        "nothing was kept: ",
    )


# --- the cache and its records ----------------------------------------------------------------


_verified_here: dict[
    Path, tuple
] = {}  # path -> its os.stat key when its bytes verified in this process


def _stat_key(path: Path) -> tuple:
    status = path.stat()  # ctime changes with any write, also when the times are set back by hand
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def _record_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.verified")


def _remember(path: Path, spec: FileSpec, blob: bytes) -> None:
    """Note that ``path``, holding ``blob``, verified: in this process and, by a record beside it,
    for later ones."""
    _verified_here[path] = _stat_key(path)
    record = {
        "size": len(blob),
        "gz_sha256": hashlib.sha256(blob).hexdigest(),
        "idx_sha256": spec.sha256,
    }
    try:
        _record_path(path).write_text(json.dumps(record) + "\n")
    except OSError:  # a read-only or full cache: each process then checks the file in full
        # no half-written record (a bad one would only cost a full check)
        with contextlib.suppress(OSError):
            _record_path(path).unlink(missing_ok=True)


def _still_verified(path: Path, spec: FileSpec) -> bool:
    """Unchanged since it verified in this process, or its ``.gz`` bytes match its record (hashed
    once a process)."""
    try:
        key = _stat_key(path)
        if _verified_here.get(path) == key:
            return True
        record = json.loads(_record_path(path).read_text())
        same = (
            isinstance(record, dict)
            and record.get("idx_sha256") == spec.sha256
            and record.get("size") == key[2]
        )
        if not same or hashlib.sha256(path.read_bytes()).hexdigest() != record.get("gz_sha256"):
            return False
    except (OSError, ValueError):
        # no record, or the file is gone: the full check says what is wrong
        return False
    _verified_here[path] = key
    return True


def _cache_path(spec: DatasetSpec, file_spec: FileSpec, cache_dir: Path | None) -> Path:
    """``<cache>/<dataset>/<file>``, after removing stale ``.partial-*`` files from its folder."""
    folder = Path(DATA_DIR if cache_dir is None else cache_dir) / spec.name
    path = folder / file_spec.filename
    with _refused(f"could not open the cache folder {display_path(folder)}", "cache"):
        if folder.exists() and not folder.is_dir():
            raise DatasetProblem(
                f"{display_path(folder)} is a file where the cache keeps the folder {spec.name}/: "
                "remove or rename it, then run again"
            )
        if path.is_dir():
            raise DatasetProblem(
                f"{display_path(path)} is a folder, where the cache keeps the file {spec.name}/"
                f"{file_spec.filename}: remove or rename that folder, then run again to fetch "
                "the file"
            )
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
            # on Windows this would end the process: only the age counts there
            os.kill(int(owner[1]), 0)
    except ProcessLookupError:
        return True
    except OSError:  # the file is gone already, or its process belongs to someone else
        pass
    return False


def local_source(needed: str | None = None) -> Path | None:
    """The folder named by ``WORKBOOK_DATASETS``, or None; ``needed`` names the missing file for the
    message."""
    value = os.environ.get(DATASETS_ENV, "").strip()
    if not value:
        return None
    given = Path(value).expanduser()
    folder = given if given.is_absolute() else PROJECT_ROOT / given
    with _refused(f"{DATASETS_ENV}={value} could not be opened", "source"):
        if folder.is_dir():
            return folder
        here = not given.is_absolute() and (Path.cwd() / given).is_dir()
    looked = ""
    if not given.is_absolute():
        looked = (
            f" (a relative path is taken from the project folder: looked for {display_path(folder)}"
        )
        if here:
            here_path = display_path(Path.cwd() / given)
            looked += f"; to use {here_path} in the current folder, give its full path"
        looked += ")"
    missing = f"{needed} is not in the cache and " if needed else ""
    raise DatasetProblem(
        f"{missing}{DATASETS_ENV}={value} is not a folder{looked}; name the folder that holds "
        "mnist/ and fashion-mnist/, or unset it to download"
    )


def fetch_file(
    spec: DatasetSpec,
    key: str,
    cache_dir: Path | None = None,
    source: Path | None = None,
    mirrors: tuple[str, ...] | None = None,
    progress: bool = True,
) -> Path:
    """Put one file into the cache from ``source`` or the mirrors: verified, then written whole or
    not at all."""
    file_spec = spec.files[key]
    final = _cache_path(spec, file_spec, cache_dir)
    if source is not None:
        blob = _copy_from_folder(spec, file_spec, source)
    else:
        blob = _download_from_mirrors(spec, file_spec, mirrors or spec.mirrors, progress)
    _store(final, blob)
    # replaces any record: it holds the SHA-256 of the bytes it vouches for
    _remember(final, file_spec, blob)
    return final


def _store(final: Path, blob: bytes) -> None:
    """Write ``blob`` to a ``.partial-`` file beside ``final`` and rename it into place; a fault
    leaves neither."""
    temporary = final.with_name(f"{_partial_prefix()}{os.urandom(4).hex()}.gz")
    try:
        with _writing(final):
            final.parent.mkdir(parents=True, exist_ok=True)
            with open(temporary, "wb") as out:
                out.write(blob)
            os.replace(temporary, final)
    finally:
        with contextlib.suppress(OSError):  # never created (a read-only folder), or already renamed
            temporary.unlink(missing_ok=True)


def _file_names(file_spec: FileSpec) -> tuple[str, str, str]:
    """The names a dataset file goes by: ``….gz``, unpacked (``…-idx3-ubyte``), unpacked with a dot
    (Kaggle)."""
    unpacked = file_spec.filename.removesuffix(".gz")
    return file_spec.filename, unpacked, unpacked.replace("-idx", ".idx")


def _source_forms(spec: DatasetSpec, file_spec: FileSpec, source: Path):
    """Where a file may lie in ``source``, in the order tried: in ``<dataset>/`` or torchvision's
    ``MNIST/raw/``, under any of its names, or unpacked in a folder of its own name (as Kaggle's
    copy has it)."""
    packed, unpacked, dotted = _file_names(file_spec)
    for folder in (
        source / spec.name,
        *([source / TORCHVISION[spec.name]] if spec.name in TORCHVISION else []),
    ):
        yield from (
            folder / packed,
            folder / unpacked,
            folder / unpacked / unpacked,
            folder / dotted,
        )


def _find_in_source(spec: DatasetSpec, file_spec: FileSpec, source: Path) -> Path:
    """The first form of the file in ``source``; when there is none, a problem that says what is
    there instead."""
    with _refused(f"{DATASETS_ENV} folder {display_path(source)} could not be opened", "source"):
        found = next(
            (path for path in _source_forms(spec, file_spec, source) if path.is_file()), None
        )
        if found is None:
            raise DatasetProblem(
                f"{DATASETS_ENV} folder {display_path(source)} "
                f"{_why_missing(spec, file_spec, source)}"
            )
    return found


def _why_missing(spec: DatasetSpec, file_spec: FileSpec, source: Path) -> str:
    """What ``source`` holds instead of the file, and what to do."""
    name = f"{spec.name}/{file_spec.filename}"
    top_folders = {spec.name, *DATASETS, *(folder.split("/")[0] for folder in TORCHVISION.values())}
    flat = [form for form in _file_names(file_spec) if (source / form).exists()]
    if (source / name).is_dir():
        return f"has {name} as a folder, not a file: put the .gz file itself there"
    if source.name in top_folders:
        return (
            f"is the {source.name}/ folder itself: name its parent, the folder that holds mnist/ "
            "and fashion-mnist/"
        )
    if flat:
        return (
            f"holds {flat[0]} directly: put the files of {spec.name} in its {spec.name}/ subfolder "
            "(see data/README.md)"
        )
    if (source / f"{spec.name}.npz").is_file():
        return (
            f"holds {spec.name}.npz (Keras' copy), which the course does not read: put the four "
            f"IDX files of {spec.name} in its {spec.name}/ subfolder (see data/README.md) or unset "
            f"{DATASETS_ENV} to download"
        )
    return (
        f"has no {name}: copy the dataset there (see data/README.md) or unset {DATASETS_ENV} "
        "to download"
    )


def _copy_from_folder(spec: DatasetSpec, file_spec: FileSpec, source: Path) -> bytes:
    """The verified ``.gz`` bytes of the file in ``source``; an unpacked one is verified, then
    gzipped."""
    original = _find_in_source(spec, file_spec, source)
    where = display_path(original)
    with _refused(
        f"{DATASETS_ENV} folder {display_path(source)}: could not read "
        f"{original.relative_to(source).as_posix()}",
        "source",
        "nothing was kept: ",
    ):
        blob = original.read_bytes()
    try:
        if original.name == file_spec.filename or blob.startswith(b"\x1f\x8b"):
            _verified_gzip(blob, file_spec, where)
            return blob
        _verified_idx(blob, file_spec, where)
        return gzip.compress(blob, compresslevel=GZIP_LEVEL, mtime=0)
    except DatasetProblem as problem:
        raise DatasetProblem(
            f"{problem}; it was not copied: replace it with a good copy "
            "(checksums in data/README.md)"
        ) from None


def _download_from_mirrors(
    spec: DatasetSpec, file_spec: FileSpec, mirrors: tuple[str, ...], progress: bool
) -> bytes:
    """The ``.gz`` bytes from the first mirror whose copy verifies."""
    label = f"{spec.name}/{file_spec.filename}"
    failures = []
    for url in (base + file_spec.filename for base in mirrors):
        try:
            blob = _download(url, label, progress)
            _verified_gzip(blob, file_spec, url)
            return blob
        except DatasetProblem as problem:
            failures.append(str(problem))
        except (OSError, http.client.HTTPException) as error:  # urllib's URLError is an OSError
            failures.append(f"{url}: {getattr(error, 'reason', None) or error}")
    raise DatasetProblem(
        f"could not fetch {label} ({'; '.join(failures)}); nothing was "
        f"kept: try again, or without internet set {DATASETS_ENV} to a folder holding the dataset "
        "files (see data/README.md)"
    )


def _download(url: str, label: str, progress: bool) -> bytes:
    """The whole body at ``url``, with a plain-text progress bar (never a widget) on stdout."""
    from tqdm.std import tqdm

    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    with urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT_SECONDS) as response:
        total = int(response.headers.get("Content-Length") or 0) or None
        body = bytearray()
        with tqdm(
            total=total,
            unit="B",
            unit_scale=True,
            file=sys.stdout,
            desc=label,
            disable=not progress,
        ) as bar:
            while chunk := response.read(1 << 16):
                body += chunk
                bar.update(len(chunk))
    if total is not None and len(body) != total:
        raise DatasetProblem(
            f"download of {url} stopped after {len(body)} of {total} bytes; try again"
        )
    return bytes(body)


def _cached(spec: DatasetSpec, key: str, cache_dir: Path | None, progress: bool = True) -> Path:
    """The path of one cached file that verified, or matches its record; a bad one is removed and,
    like a missing one, fetched."""
    file_spec = spec.files[key]
    path = _cache_path(spec, file_spec, cache_dir)
    if path.exists():
        try:
            if not _still_verified(path, file_spec):
                _remember(path, file_spec, _checked(path, file_spec, display_path(path))[0])
            return path
        except StorageProblem:  # a file the disk will not hand over is not a bad file: it stays
            raise
        except DatasetProblem as problem:
            _remove_damaged(path, problem)
    return fetch_file(
        spec, key, cache_dir, local_source(needed=display_path(path)), progress=progress
    )


def _remove_damaged(path: Path, problem: DatasetProblem) -> None:
    """Remove a cached file that failed its check, and its record, saying so in one printed line."""
    with _refused(
        f"{problem}, and it could not be removed from the cache folder {display_path(path.parent)}",
        "cache",
    ):
        _record_path(path).unlink(missing_ok=True)
        path.unlink(missing_ok=True)
    print(f"{problem} -- removed from the cache; fetching it again")


def ensure(
    name: str | DatasetSpec, cache_dir: Path | None = None, progress: bool = True
) -> dict[str, Path]:
    """``{key: path}`` of a dataset's files, each in the cache and verified (``cache_dir`` defaults
    to ``data/``)."""
    spec = spec_for(name)
    return {key: _cached(spec, key, cache_dir, progress) for key in KEYS}


def load(name: str | DatasetSpec = "mnist", cache_dir: Path | None = None) -> Arrays:
    """The four files of ``name`` as uint8 NumPy arrays, every file checked in full (fetched when
    missing or bad)."""
    spec = spec_for(name)
    paths = ensure(spec, cache_dir)
    return Arrays(
        spec.name, *(read_verified(paths[key], spec.files[key]) for key in KEYS), spec.class_names
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.data",
        description="fetch: download (or copy from "
        "WORKBOOK_DATASETS) and verify any missing file; verify: check every cached "
        "file again.",
    )
    parser.add_argument("command", choices=["fetch", "verify"])
    parser.add_argument("names", nargs="*", default=list(DATASETS))
    args = parser.parse_args(argv)
    try:
        for name in args.names:
            (ensure if args.command == "fetch" else load)(name)
            done = "in" if args.command == "fetch" else "verified (SHA-256 of the IDX bytes) in"
            print(f"{name}: 4 files {done} {display_path(Path(DATA_DIR) / name)}")
    except DatasetProblem as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
