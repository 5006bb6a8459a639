"""MNIST and Fashion-MNIST: fetch, verify, cache and read the IDX ``.gz`` files (notebook 00).

A file comes from the mirrors (downloaded with pooch) or from the folder named by
``WORKBOOK_DATASETS``, and is checked by the SHA-256 of its decompressed bytes before it enters the
cache and on its first use in each process. ``python -m helpers.data fetch|verify`` fills or
re-checks ``data/``; ``data/README.md`` says what is checked when. Its messages are in the
learner's language (``_()``, helpers/language.py).

Why not ``pooch.retrieve(known_hash=...)`` alone: a file also comes from a folder (a USB stick,
torchvision's or Kaggle's layout, unpacked), its checksum is that of the IDX bytes so that an
unpacked copy verifies too, and each disk fault gets one line that says what to do; pooch does
the download.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gzip
import hashlib
import io
import os
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
from tqdm.std import tqdm

from .language import _, listed, N_
from .problems import DatasetProblem, StorageProblem
from .paths import DATA_DIR, DATASETS_ENV, PROJECT_ROOT, display_path

DOWNLOAD_TIMEOUT_SECONDS = 60
KEYS = ("train_images", "train_labels", "test_images", "test_labels")
DISK_NEEDED = N_("about 42 MB for both datasets")
GZIP_LEVEL = 6  # an unpacked file is gzipped for the cache: 0.8 s for MNIST's train images
TORCHVISION = {"mnist": "MNIST/raw", "fashion-mnist": "FashionMNIST/raw"}  # torchvision's folders


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
        known = listed(map(repr, DATASETS))
        raise DatasetProblem(
            _("unknown dataset {name!r}; the course has {known}").format(name=name, known=known)
        )
    return DATASETS[name]


# --- checking the bytes: gzip stream, IDX header, size, SHA-256 ---------------------------------


def _checked(path: Path, spec: FileSpec) -> np.ndarray:
    """A read-only view of the array in the ``.gz`` file at ``path``, after the full check."""
    where = display_path(path)
    with _refused(N_("{where} cannot be read"), "read", where=where):
        if path.is_dir():
            raise DatasetProblem(
                _("{where} is a folder, not a file: name the .gz file itself").format(where=where)
            )
        if not path.is_file():
            raise DatasetProblem(
                _("{where} does not exist: run `python -m helpers.data fetch` to fetch it").format(
                    where=where
                )
            )
        blob = path.read_bytes()
    return _verified_gzip(blob, spec, where)


def _verified_gzip(blob: bytes, spec: FileSpec, where: str) -> np.ndarray:
    """The array in ``blob``, the bytes of an IDX ``.gz`` file, after checking the gzip stream and
    the IDX bytes."""
    start = blob[:2].hex()
    if not blob:
        raise DatasetProblem(_("{where} is empty (0 bytes)").format(where=where))
    if blob[:3] == b"\0\0\x08":
        raise DatasetProblem(
            _(
                "{where} is not gzip-compressed (it starts with {start}, not the gzip signature "
                "1f8b); it holds the IDX bytes uncompressed: gzip it"
            ).format(where=where, start=start)
        )
    if not blob.startswith(b"\x1f\x8b"):
        raise DatasetProblem(
            _(
                "{where} is not gzip-compressed (it starts with {start}, not the gzip signature "
                "1f8b)"
            ).format(where=where, start=start)
        )
    try:
        raw = gzip.decompress(blob)
    except (EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise DatasetProblem(
            _("{where} is not a complete gzip file ({error})").format(where=where, error=error)
        ) from None
    return _verified_idx(raw, spec, where)


def _verified_idx(raw: bytes, spec: FileSpec, where: str) -> np.ndarray:
    """A read-only view of the array in ``raw``, IDX bytes, after checking its header, size and
    SHA-256."""
    header, found = 4 + 4 * len(spec.shape), len(raw)
    if found < header:
        raise DatasetProblem(
            _("{where} is too short to be an IDX file ({found} bytes)").format(
                where=where, found=found
            )
        )
    magic = int.from_bytes(raw[:4], "big")
    expected = 0x00000800 + len(spec.shape)  # unsigned bytes, N dimensions
    if magic != expected:
        raise DatasetProblem(
            _(
                "{where} is not an IDX file of this kind: magic number {magic}, expected {expected}"
            ).format(where=where, magic=f"0x{magic:08x}", expected=f"0x{expected:08x}")
        )
    dims = tuple(int.from_bytes(raw[i : i + 4], "big") for i in range(4, header, 4))
    shape = tuple(spec.shape)
    if dims != shape:
        raise DatasetProblem(
            _("{where} holds shape {dims}, expected {shape}").format(
                where=where, dims=dims, shape=shape
            )
        )
    size = header + int(np.prod(spec.shape))
    if found != size:
        raise DatasetProblem(
            _("{where} has {found} bytes after decompression, expected {size}").format(
                where=where, found=found, size=size
            )
        )
    digest = hashlib.sha256(raw).hexdigest()
    if digest[:12] != spec.sha256[:12]:
        other = next(
            (s.name for s in DATASETS.values() for f in s.files.values() if f.sha256 == digest),
            None,
        )
        if other is not None:  # the two datasets use the same file names
            raise DatasetProblem(
                _(
                    "{where} holds {other}'s {filename} (the two datasets use the same file "
                    "names): it belongs in the {other}/ folder"
                ).format(where=where, other=other, filename=spec.filename)
            )
        raise DatasetProblem(
            _(
                "{where}: SHA-256 of the decompressed data is {digest}…, expected {wanted}… "
                "(not the official file)"
            ).format(where=where, digest=digest[:12], wanted=spec.sha256[:12])
        )
    return np.frombuffer(raw, dtype=np.uint8, offset=header).reshape(spec.shape)


def read_verified(path: str | Path, spec: FileSpec) -> np.ndarray:
    """A writable copy (learners change pixels in place) of the array in one IDX ``.gz`` file, after
    the full check."""
    return _checked(Path(path), spec).copy()


# --- what the disk refuses: one line saying what failed, why, and what to do ----------------------

_KINDS = {
    errno.ENOSPC: "full",
    getattr(errno, "EDQUOT", errno.ENOSPC): "full",
    errno.EROFS: "read-only",
    errno.EACCES: "denied",
    errno.EPERM: "denied",
    errno.ENOENT: "gone",
}
_CAUSES = {  # N_(): translated where the message is made
    "full": N_("no space left on the disk"),
    "read-only": N_("it is on a read-only file system"),
    "denied": N_("permission denied"),
    "locked": N_("another program has the file locked"),
    "gone": N_("the file vanished while it was in use"),
}
_WRITABLE = N_(
    "make it writable for you, or have someone who can write there run "
    "`python -m helpers.data fetch` once, or work in a copy of the course in a folder you can "
    "write to"
)
_UNLOCK = N_("close the program that has it open, then run again")
_UNSET = N_("{fix}, or unset {env} to download")
_READABLE = N_("make it readable for you, then run again")
_PUT_BACK = N_("put it back (is the USB stick still in?), then run again")
_CHECK_STICK = N_("check the disk or USB stick that holds it, then run again")
# side: "cache" writes into the cache, "read" reads a file, "source" reads WORKBOOK_DATASETS
# (each fix also says how to do without it); kind None: any other fault
_FIXES = {
    ("cache", "full"): N_("free space on that disk ({needed}), then run again"),
    ("cache", "read-only"): _WRITABLE,
    ("cache", "denied"): _WRITABLE,
    ("cache", "locked"): _UNLOCK,
    ("cache", None): N_("check that disk, then run again"),
    ("read", "denied"): _READABLE,
    ("read", "locked"): _UNLOCK,
    ("read", "gone"): _PUT_BACK,
    ("read", None): _CHECK_STICK,
    ("source", "denied"): _READABLE,
    ("source", "locked"): _UNLOCK,
    ("source", "gone"): _PUT_BACK,
    ("source", None): _CHECK_STICK,
}


@contextlib.contextmanager
def _refused(what: str, side: str, kept_nothing: bool = False, **values: str):
    """An ``OSError`` in the block becomes one ``StorageProblem`` line: ``what`` (a template filled
    with ``values``) failed, the cause (not the error's text: it holds absolute paths) and the fix
    for ``side``; ``kept_nothing`` says that nothing was kept."""
    try:
        yield
    except OSError as error:
        locked = getattr(error, "winerror", None) in (32, 33)  # Windows: sharing, lock violation
        kind = "locked" if locked else _KINDS.get(error.errno)
        cause = (
            _(_CAUSES[kind])
            if kind in _CAUSES
            else (error.strerror or "input/output error").lower()
        )
        fix = _(_FIXES.get((side, kind)) or _FIXES[(side, None)]).format(needed=_(DISK_NEEDED))
        if side == "source":
            fix = _(_UNSET).format(fix=fix, env=DATASETS_ENV)
        what = _(what).format(**values)
        if kept_nothing:
            raise StorageProblem(
                _("{what} ({cause}); nothing was kept: {fix}").format(
                    what=what, cause=cause, fix=fix
                )
            ) from None
        raise StorageProblem(
            _("{what} ({cause}); {fix}").format(what=what, cause=cause, fix=fix)
        ) from None


# --- the cache ------------------------------------------------------------------------------------

# path -> its os.stat key when it verified in this process: later calls (each input_fn) only stat it
_verified_here: dict[Path, tuple] = {}


def _stat_key(path: Path) -> tuple:
    status = path.stat()  # ctime changes with any write, also when the times are set back by hand
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def _cache_path(spec: DatasetSpec, file_spec: FileSpec, cache_dir: Path | None) -> Path:
    """``<cache>/<dataset>/<file>``, after checking that nothing of another kind is in its place."""
    folder = Path(DATA_DIR if cache_dir is None else cache_dir) / spec.name
    path = folder / file_spec.filename
    where, here, name, filename = display_path(folder), display_path(path), spec.name, path.name
    with _refused(N_("could not open the cache folder {folder}"), "cache", folder=where):
        if folder.exists() and not folder.is_dir():
            raise DatasetProblem(
                _(
                    "{where} is a file where the cache keeps the folder {name}/: remove or rename "
                    "it, then run again"
                ).format(where=where, name=name)
            )
        if path.is_dir():
            raise DatasetProblem(
                _(
                    "{here} is a folder, where the cache keeps the file {name}/{filename}: remove "
                    "or rename that folder, then run again to fetch the file"
                ).format(here=here, name=name, filename=filename)
            )
    return path


def local_source(needed: str) -> Path | None:
    """The folder named by ``WORKBOOK_DATASETS``, or None; ``needed`` names the missing file for the
    message."""
    value = os.environ.get(DATASETS_ENV, "").strip()
    if not value:
        return None
    given = Path(value).expanduser()
    folder = given if given.is_absolute() else PROJECT_ROOT / given
    with _refused(N_("{env}={value} could not be opened"), "source", env=DATASETS_ENV, value=value):
        if folder.is_dir():
            return folder
        here = Path.cwd() / given
        here_too = not given.is_absolute() and here.is_dir()
    values = {
        "needed": needed,
        "env": DATASETS_ENV,
        "value": value,
        "looked": display_path(folder),
        "here": display_path(here),
        "fix": _("name the folder that holds mnist/ and fashion-mnist/, or unset it to download"),
    }
    if given.is_absolute():
        raise DatasetProblem(
            _("{needed} is not in the cache and {env}={value} is not a folder; {fix}").format(
                **values
            )
        )
    if here_too:
        raise DatasetProblem(
            _(
                "{needed} is not in the cache and {env}={value} is not a folder (a relative path "
                "is taken from the project folder: looked for {looked}; to use {here} in the "
                "current folder, give its full path); {fix}"
            ).format(**values)
        )
    raise DatasetProblem(
        _(
            "{needed} is not in the cache and {env}={value} is not a folder (a relative path is "
            "taken from the project folder: looked for {looked}); {fix}"
        ).format(**values)
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
    # written beside the file, then renamed into place: the cache never holds half a file
    partial = final.with_name(f".{final.name}.{os.getpid()}.partial")
    where = f"{spec.name}/{file_spec.filename}"
    try:
        with _refused(
            N_("could not write {where} to the cache folder {folder}"),
            "cache",
            kept_nothing=True,
            where=where,
            folder=display_path(final.parent),
        ):
            final.parent.mkdir(parents=True, exist_ok=True)
            with open(partial, "wb") as out:
                out.write(blob)
            os.replace(partial, final)
    finally:
        with contextlib.suppress(OSError):  # never created (a read-only folder), or renamed
            partial.unlink(missing_ok=True)
    _verified_here[final] = _stat_key(final)
    return final


def _file_names(file_spec: FileSpec) -> tuple[str, str, str]:
    """The names a dataset file goes by: ``….gz``, unpacked (``…-idx3-ubyte``), unpacked with a dot
    (Kaggle)."""
    unpacked = file_spec.filename.removesuffix(".gz")
    return file_spec.filename, unpacked, unpacked.replace("-idx", ".idx")


def _find_in_source(spec: DatasetSpec, file_spec: FileSpec, source: Path) -> Path:
    """The first form of the file in ``source`` (in ``<dataset>/`` or torchvision's ``MNIST/raw/``,
    under any of its names, or unpacked in a folder of its own name as Kaggle's copy has it); when
    there is none, a problem that says what is there instead."""
    packed, unpacked, dotted = _file_names(file_spec)
    torchvision = [source / TORCHVISION[spec.name]] if spec.name in TORCHVISION else []
    names = (packed, unpacked, f"{unpacked}/{unpacked}", dotted)
    forms = [folder / name for folder in (source / spec.name, *torchvision) for name in names]
    where = display_path(source)
    with _refused(
        N_("{env} folder {where} could not be opened"), "source", env=DATASETS_ENV, where=where
    ):
        found = next((path for path in forms if path.is_file()), None)
        if found is None:
            raise DatasetProblem(_why_missing(spec, file_spec, source))
    return found


def _why_missing(spec: DatasetSpec, file_spec: FileSpec, source: Path) -> str:
    """What ``source`` holds instead of the file, and what to do."""
    name = spec.name
    wanted = f"{name}/{file_spec.filename}"
    top_folders = {name, *DATASETS, *(folder.split("/")[0] for folder in TORCHVISION.values())}
    flat = next((form for form in _file_names(file_spec) if (source / form).exists()), None)
    values = {"env": DATASETS_ENV, "where": display_path(source), "name": name, "wanted": wanted}
    if (source / wanted).is_dir():
        return _(
            "{env} folder {where} has {wanted} as a folder, not a file: put the .gz file itself "
            "there"
        ).format(**values)
    if source.name in top_folders:
        return _(
            "{env} folder {where} is the {folder}/ folder itself: name its parent, the folder that "
            "holds mnist/ and fashion-mnist/"
        ).format(folder=source.name, **values)
    if flat:
        return _(
            "{env} folder {where} holds {flat} directly: put the files of {name} in its {name}/ "
            "subfolder (see data/README.md)"
        ).format(flat=flat, **values)
    if (source / f"{name}.npz").is_file():
        return _(
            "{env} folder {where} holds {name}.npz (Keras' copy), which the course does not read: "
            "put the four IDX files of {name} in its {name}/ subfolder (see data/README.md) or "
            "unset {env} to download"
        ).format(**values)
    return _(
        "{env} folder {where} has no {wanted}: copy the dataset there (see data/README.md) or "
        "unset {env} to download"
    ).format(**values)


def _copy_from_folder(spec: DatasetSpec, file_spec: FileSpec, source: Path) -> bytes:
    """The verified ``.gz`` bytes of the file in ``source``; an unpacked one is verified, then
    gzipped."""
    original = _find_in_source(spec, file_spec, source)
    with _refused(
        N_("{env} folder {where}: could not read {name}"),
        "source",
        kept_nothing=True,
        env=DATASETS_ENV,
        where=display_path(source),
        name=original.relative_to(source).as_posix(),
    ):
        blob = original.read_bytes()
    try:
        if original.name == file_spec.filename or blob.startswith(b"\x1f\x8b"):
            _verified_gzip(blob, file_spec, display_path(original))
            return blob
        _verified_idx(blob, file_spec, display_path(original))
        return gzip.compress(blob, compresslevel=GZIP_LEVEL, mtime=0)
    except DatasetProblem as problem:
        raise DatasetProblem(
            _(
                "{problem}; it was not copied: replace it with a good copy (checksums in "
                "data/README.md)"
            ).format(problem=problem)
        ) from None


class _Bar(tqdm):
    """A plain-text bar that pooch can test for truth before it knows the size."""

    def __bool__(self) -> bool:
        return True


def _download_from_mirrors(
    spec: DatasetSpec, file_spec: FileSpec, mirrors: tuple[str, ...], progress: bool
) -> bytes:
    """The ``.gz`` bytes from the first mirror whose copy verifies, downloaded into memory by pooch
    with a plain-text progress bar (never a widget) on stdout."""
    import pooch
    import requests

    label, env = f"{spec.name}/{file_spec.filename}", DATASETS_ENV
    seconds = DOWNLOAD_TIMEOUT_SECONDS
    failures = []
    for url in (base + file_spec.filename for base in mirrors):
        body = io.BytesIO()
        bar = _Bar(desc=label, unit="B", unit_scale=True, file=sys.stdout) if progress else False
        download = pooch.HTTPDownloader(progressbar=bar, chunk_size=1 << 16, timeout=seconds)
        try:
            download(url, body, None)
            _verified_gzip(body.getvalue(), file_spec, url)
            return body.getvalue()
        except DatasetProblem as problem:
            failures.append(str(problem))
        except requests.HTTPError as error:
            failures.append(f"{url}: {error.response.reason}")
        except requests.Timeout:
            failures.append(
                _("{url}: no answer within {seconds} s").format(url=url, seconds=seconds)
            )
        except requests.ConnectionError:
            failures.append(_("{url}: could not connect").format(url=url))
        except requests.RequestException:  # the body ended before its Content-Length
            failures.append(
                _("{url}: the download stopped before the end of the file").format(url=url)
            )
        finally:
            if progress:
                bar.close()
    raise DatasetProblem(
        _(
            "could not fetch {label} ({failed}); nothing was kept: try again, or without internet "
            "set {env} to a folder holding the dataset files (see data/README.md)"
        ).format(label=label, failed="; ".join(failures), env=env)
    )


def _cached(
    spec: DatasetSpec, key: str, cache_dir: Path | None, progress: bool = True, read: bool = False
) -> tuple[Path, np.ndarray | None]:
    """One cached file's path, checked in full on its first use in this process (only ``os.stat``
    after that), and with ``read`` its array (checked in full); a bad file is removed and, like a
    missing one, fetched."""
    file_spec = spec.files[key]
    path = _cache_path(spec, file_spec, cache_dir)
    if path.exists():
        try:
            if not read and _verified_here.get(path) == _stat_key(path):
                return path, None
            array = _checked(path, file_spec)
            _verified_here[path] = _stat_key(path)
            return path, array
        except StorageProblem:  # a file the disk will not hand over is not a bad file: it stays
            raise
        except DatasetProblem as problem:
            _remove_damaged(path, problem)
    fetch_file(spec, key, cache_dir, local_source(display_path(path)), progress=progress)
    return path, (_checked(path, file_spec) if read else None)


def _remove_damaged(path: Path, problem: DatasetProblem) -> None:
    """Remove a cached file that failed its check, saying so in one printed line."""
    _verified_here.pop(path, None)
    with _refused(
        N_("{problem}, and it could not be removed from the cache folder {folder}"),
        "cache",
        problem=str(problem),
        folder=display_path(path.parent),
    ):
        path.unlink(missing_ok=True)
    print(_("{problem} -- removed from the cache; fetching it again").format(problem=problem))


def ensure(
    name: str | DatasetSpec, cache_dir: Path | None = None, progress: bool = True
) -> dict[str, Path]:
    """``{key: path}`` of a dataset's files, each in the cache and verified (``cache_dir`` defaults
    to ``data/``)."""
    spec = spec_for(name)
    return {key: _cached(spec, key, cache_dir, progress)[0] for key in KEYS}


def load(name: str | DatasetSpec = "mnist", cache_dir: Path | None = None) -> Arrays:
    """The four files of ``name`` as uint8 NumPy arrays, every file checked in full (fetched when
    missing or bad)."""
    spec = spec_for(name)
    arrays = (_cached(spec, key, cache_dir, read=True)[1].copy() for key in KEYS)
    return Arrays(spec.name, *arrays, spec.class_names)


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
            folder = display_path(Path(DATA_DIR) / name)
            if args.command == "fetch":
                ensure(name)
                print(_("{name}: 4 files in {folder}").format(name=name, folder=folder))
            else:
                load(name)
                print(
                    _("{name}: 4 files verified (SHA-256 of the IDX bytes) in {folder}").format(
                        name=name, folder=folder
                    )
                )
    except DatasetProblem as problem:
        print(_("error: {problem}").format(problem=problem), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
