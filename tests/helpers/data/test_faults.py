"""``helpers.data`` when the disk refuses, and a dataset in another form.

File-system faults, on fetch (a copy from ``WORKBOOK_DATASETS`` or a download) and on
first use of the cache, each end in one ``StorageProblem`` line that names the folder
(a display path: relative here, as inside the project), the cause and the fix, and
leave no partial file. Real faults where the machine allows them:

* no space left: a 64 KiB tmpfs mounted over the cache, inside
  ``unshare --user --map-root-user --mount`` (works unprivileged where user
  namespaces are allowed);
* read-only file system: the cache bind-mounted read-only in such a namespace;
* permission denied: as root, the loader runs as ``nobody`` (``setpriv``); as any
  other user, the folder or file is simply made unreadable or unwritable.

Each of these runs the loader in a child process and is skipped, with the reason,
where the machine cannot do it. Injected faults (an ``OSError`` with the right
errno from the write, the rename, the listing of the cache folder or the read) run
everywhere: the same three, an operation not permitted, a disk quota, an
input/output error (a USB stick pulled out, or a failing cache disk), a stale
network-drive handle, a file locked by another program (Windows' sharing
violation, ``winerror`` 32, and lock violation, 33), a datasets folder that may
not be looked into. A source file that
vanishes mid-copy is deleted for real between the moment it is found and the
moment it is read.

A dataset in another form: unpacked IDX files (``train-images-idx3-ubyte``),
Kaggle's names (``train-images.idx3-ubyte``, and the unpacked file in a folder of
its own name), torchvision's ``MNIST/raw/`` and ``FashionMNIST/raw/`` folders are
accepted (checked against the SHA-256 of the IDX bytes, stored gzipped); Keras'
``mnist.npz`` and files put directly in the named folder are named in one line
with the fix.
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from helpers import data, paths
from helpers.data import DatasetSpec, FileSpec
from helpers.problems import DatasetProblem, StorageProblem
from tests.support.datasets import (
    ENV,
    FILENAMES,
    IMAGES,
    SHARED_DATASETS,
    cached_files,
    gz,
    idx_bytes,
    one_line,
    sha256,
    write_folder,
)

FULL = (
    "no space left on the disk); nothing was kept: free space on that disk "
    "(about 42 MB for both datasets), then run again"
)
WRITABLE = (
    "make it writable for you, or have someone who can write there run `python -m helpers.data "
    "fetch` once, or work in a copy of the course in a folder you can write to"
)
NOBODY = 65534


# --- a dataset too big for a 64 KiB disk -------------------------------------------------------


@dataclasses.dataclass
class Big:
    spec: DatasetSpec
    raw: dict


def build_big(name: str = "big") -> Big:
    """Like the tiny dataset, with 100 train images:
    its train images (78 KB) do not fit in 64 KiB."""
    rng = np.random.default_rng(7)
    arrays = {
        "train_images": rng.integers(0, 256, (100, 28, 28), np.uint8),
        "train_labels": rng.integers(0, 10, 100, np.uint8),
        "test_images": rng.integers(0, 256, (3, 28, 28), np.uint8),
        "test_labels": rng.integers(0, 10, 3, np.uint8),
    }
    raw = {key: idx_bytes(array) for key, array in arrays.items()}
    files = {key: FileSpec(FILENAMES[key], arrays[key].shape, sha256(raw[key])) for key in arrays}
    return Big(DatasetSpec(name, (), tuple("abcdefghij"), **files), raw)


def lay_out(root: Path, big: Big) -> Path:
    (root / big.spec.name).mkdir(parents=True, exist_ok=True)
    for key, filename in FILENAMES.items():
        (root / big.spec.name / filename).write_bytes(gz(big.raw[key]))
    return root


# --- running the loader in a child process, under a real fault ---------------------------------

CHILD = r"""
import json, sys
from pathlib import Path
from helpers import data
from helpers.problems import DatasetProblem
task = json.loads(sys.argv[1])
files = (data.FileSpec(name, tuple(shape), digest) for name, shape, digest in task["files"])
spec = data.DatasetSpec(task["name"], tuple(task["mirrors"]), tuple("abcdefghij"), *files)
cache = Path(task["cache"])
result = {"problem": None, "kind": None}
try:
    getattr(data, task["call"])(spec, cache)
except DatasetProblem as problem:
    result.update(problem=str(problem), kind=type(problem).__name__)
result["files"] = sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file())
print(json.dumps(result))
"""


def run_child(
    prefix: list,
    base: Path,
    spec: DatasetSpec,
    call: str = "ensure",
    source: Path | None = None,
    mirrors: tuple = (),
) -> dict:
    """Run ``data.<call>(spec, base / "cache")`` after ``prefix``
    (a namespace or another user), in ``base``."""
    task = {
        "name": spec.name,
        "mirrors": list(mirrors),
        "cache": str(base / "cache"),
        "call": call,
        "files": [[f.filename, list(f.shape), f.sha256] for f in spec.files.values()],
    }
    env = {**os.environ, "PYTHONPATH": str(paths.PROJECT_ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop(ENV, None)
    if source is not None:
        env[ENV] = str(source)
    finished = subprocess.run(
        [*prefix, sys.executable, "-c", CHILD, json.dumps(task)],
        cwd=base,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode == 0, finished.stderr[-3000:]  # today's code: an OSError traceback
    return json.loads(finished.stdout.splitlines()[-1])


def namespace(mount: str) -> list:
    """A prefix that runs the child in new user and mount namespaces
    after ``mount`` (sh, $CACHE set)."""
    return [
        "unshare",
        "--user",
        "--map-root-user",
        "--mount",
        "sh",
        "-c",
        f'{mount} && exec "$@"',
        "sh",
    ]


@functools.cache
def why_no_namespace() -> str | None:
    """Why a tmpfs cannot be mounted in a user namespace here, or None when it can."""
    if shutil.which("unshare") is None:
        return "no unshare command"
    with tempfile.TemporaryDirectory() as folder:
        tried = subprocess.run(
            namespace(f"mount -t tmpfs -o size=4k tmpfs {folder}") + ["true"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    return (
        None
        if tried.returncode == 0
        else f"user namespaces are not allowed here: {tried.stderr.strip()}"
    )


@functools.cache
def other_user() -> list | None:
    """A prefix that runs the child as a user the faults apply to:
    ``nobody`` for root, else the user itself."""
    if os.name == "nt":  # chmod does not stop writes there
        return None
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        return None
    prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    tried = subprocess.run(
        [*prefix, sys.executable, "-c", "import helpers.data"],
        cwd="/",
        env={**os.environ, "PYTHONPATH": str(paths.PROJECT_ROOT)},
        capture_output=True,
    )
    return prefix if tried.returncode == 0 else None


def needs_namespace():
    if why_no_namespace():
        pytest.skip(why_no_namespace())


@pytest.fixture
def base():
    """A folder another user can enter (pytest's own tmp_path is private to its user)."""
    folder = Path(tempfile.mkdtemp(prefix="data-faults-"))
    folder.chmod(0o755)
    yield folder
    for path in folder.rglob("*"):  # give write permission back, so that it can be removed
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)
    shutil.rmtree(folder)


@pytest.fixture
def big() -> Big:
    return build_big()


def fill(base: Path, big: Big) -> Path:
    """A cache at ``base/cache`` filled from a good folder, as a finished fetch leaves it."""
    data.ensure(big.spec, base / "cache", progress=False)
    return base / "cache" / big.spec.name


# --- 4. real faults -------------------------------------------------------------------------------


def test_disk_full_while_copying_from_the_datasets_folder(base, big):
    needs_namespace()
    source = lay_out(base / "source", big)
    (base / "cache").mkdir()

    result = run_child(
        namespace(f"mount -t tmpfs -o size=64k tmpfs {base / 'cache'}"),
        base,
        big.spec,
        source=source,
    )

    assert result["kind"] == "StorageProblem"
    assert result["problem"] == (
        "could not write big/train-images-idx3-ubyte.gz to the cache folder cache/big (" + FULL
    )
    assert result["files"] == []  # no partial file


def test_disk_full_while_downloading(base, big, server):
    needs_namespace()
    for key, filename in FILENAMES.items():
        server.serve("a", filename, gz(big.raw[key]))
    (base / "cache").mkdir()

    result = run_child(
        namespace(f"mount -t tmpfs -o size=64k tmpfs {base / 'cache'}"),
        base,
        big.spec,
        mirrors=(server.mirror("a"),),
    )

    assert result["problem"] == (
        "could not write big/train-images-idx3-ubyte.gz to the cache folder cache/big (" + FULL
    )
    assert result["files"] == []
    # a local fault is not blamed on the mirror: no second try
    assert server.requests == [f"/a/{IMAGES}"]


def test_read_only_cache_on_fetch(base, big):
    needs_namespace()
    source = lay_out(base / "source", big)
    (base / "cache").mkdir()

    result = run_child(
        namespace(f"mount --bind -o ro {base / 'cache'} {base / 'cache'}"),
        base,
        big.spec,
        source=source,
    )

    assert result["problem"] == (
        "could not write big/train-images-idx3-ubyte.gz to the cache folder cache/big "
        f"(it is on a read-only file system); nothing was kept: {WRITABLE}"
    )
    assert result["files"] == []


def test_read_only_cache_on_first_use(base, big, monkeypatch):
    """A shared install: a complete cache still loads; a damaged file cannot be removed."""
    needs_namespace()
    monkeypatch.setenv(ENV, str(lay_out(base / "source", big)))
    folder = fill(base, big)
    read_only = namespace(f"mount --bind -o ro {base / 'cache'} {base / 'cache'}")
    listing = cached_files(base / "cache")

    assert run_child(read_only, base, big.spec, call="load") == {
        "problem": None,
        "kind": None,
        "files": listing,
    }

    (folder / IMAGES).write_bytes(gz(big.raw["train_images"])[:-40])
    result = run_child(read_only, base, big.spec, call="load")

    assert result["problem"].startswith(f"cache/big/{IMAGES} is not a complete gzip file (")
    assert result["problem"].endswith(
        "), and it could not be removed from the cache folder cache/big (it is on a "
        f"read-only file system); {WRITABLE}"
    )
    assert result["files"] == listing


def as_other_user() -> list:
    prefix = other_user()
    if prefix is None:
        pytest.skip("running as root, and setpriv cannot run the loader as nobody here")
    return prefix


def test_permission_denied_on_the_cache_folder(base, big):
    prefix = as_other_user()
    source = lay_out(base / "source", big)
    (base / "cache").mkdir()
    (base / "cache").chmod(0o555)  # nobody (or this user) cannot write in it

    result = run_child(prefix, base, big.spec, source=source)

    assert result["problem"] == (
        "could not write big/train-images-idx3-ubyte.gz to the cache folder cache/big "
        f"(permission denied); nothing was kept: {WRITABLE}"
    )
    assert result["files"] == []


def test_permission_denied_on_first_use_of_the_cache_folder(base, big):
    prefix = as_other_user()
    (base / "cache" / "big").mkdir(parents=True)
    (base / "cache").chmod(0o000)  # not even its listing

    try:
        result = run_child(prefix, base, big.spec)
    finally:
        (base / "cache").chmod(0o755)

    assert (
        result["problem"]
        == f"could not open the cache folder cache/big (permission denied); {WRITABLE}"
    )
    assert result["files"] == []


def test_permission_denied_on_a_source_file(base, big):
    prefix = as_other_user()
    source = lay_out(base / "source", big)
    (source / "big" / IMAGES).chmod(0o000)
    (base / "cache").mkdir(mode=0o777)
    (base / "cache").chmod(0o777)

    result = run_child(prefix, base, big.spec, source=source)

    assert result["problem"] == (
        f"{ENV} folder source: could not read big/{IMAGES} (permission denied); nothing "
        f"was kept: make it readable for you, then run again, or unset {ENV} to download"
    )
    assert result["files"] == []


def test_permission_denied_on_a_cached_file_on_first_use(base, big, monkeypatch):
    """A file the loader may not read is not a bad file: it is named, and left where it is."""
    prefix = as_other_user()
    monkeypatch.setenv(ENV, str(lay_out(base / "source", big)))
    folder = fill(base, big)
    (folder / IMAGES).chmod(0o000)
    folder.chmod(0o777)  # even where it could be removed, it is not
    listing = cached_files(base / "cache")

    result = run_child(prefix, base, big.spec, call="ensure")

    assert result["problem"] == (
        f"cache/big/{IMAGES} cannot be read (permission denied); make it readable for "
        "you, then run again"
    )
    assert result["files"] == listing


# --- 4. injected faults ---------------------------------------------------------------------------


def raising(error: OSError):
    """A stand-in for a file operation that the disk refuses with ``error``."""

    def refuse(*args, **kwargs):
        raise error

    return refuse


def failing(error_number: int, winerror: int | None = None) -> OSError:
    error = OSError(error_number, os.strerror(error_number), "/an/absolute/machine/path")
    if winerror is not None:
        error.winerror = winerror  # as Windows sets it; POSIX builds ignore the argument
    return error


class HalfWritten:
    """``open`` for the loader's module:
    a file opened for writing takes half the bytes, then the disk refuses."""

    def __init__(self, error: OSError):
        self.error = error

    def __call__(self, file, mode="r"):
        self.handle = open(file, mode)
        return self

    def write(self, blob: bytes) -> int:
        self.handle.write(blob[: len(blob) // 2])
        self.handle.flush()  # really on the disk, as a full disk leaves it
        raise self.error

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.handle.close()


WRITE_FAULTS = {
    "full": (errno.ENOSPC, FULL.removeprefix("no space left on the disk")),
    "quota": (
        getattr(errno, "EDQUOT", errno.ENOSPC),
        FULL.removeprefix("no space left on the disk"),
    ),
    "read-only": (errno.EROFS, f"); nothing was kept: {WRITABLE}"),
    "denied": (errno.EACCES, f"); nothing was kept: {WRITABLE}"),
    "not-permitted": (errno.EPERM, f"); nothing was kept: {WRITABLE}"),
    "io-error": (errno.EIO, "); nothing was kept: check that disk, then run again"),
}
CAUSES = {
    "full": "no space left on the disk",
    "quota": "no space left on the disk",
    "read-only": "it is on a read-only file system",
    "denied": "permission denied",
    "not-permitted": "permission denied",
    "io-error": "input/output error",
}


@pytest.mark.parametrize("route", ["copy", "download"])
@pytest.mark.parametrize("fault", WRITE_FAULTS, ids=WRITE_FAULTS.keys())
def test_injected_fault_half_way_through_the_write(
    cache, tiny, server, tmp_path, monkeypatch, fault, route
):
    error_number, rest = WRITE_FAULTS[fault]
    monkeypatch.setattr(data, "open", HalfWritten(failing(error_number)), raising=False)
    if route == "copy":
        source, mirrors = write_folder(tmp_path / "source", tiny), None
    else:
        server.serve("a", IMAGES, tiny.gz("train_images"))
        source, mirrors = None, (server.mirror("a"),)
    monkeypatch.chdir(tmp_path)

    with pytest.raises(StorageProblem) as caught:
        data.fetch_file(
            tiny.spec, "train_images", cache, source=source, mirrors=mirrors, progress=False
        )

    assert one_line(caught.value) == (
        f"could not write tiny/{IMAGES} to the cache folder cache/tiny ({CAUSES[fault]}{rest}"
    )
    assert cached_files(cache) == []  # the half-written partial file is gone
    assert "/an/absolute" not in str(caught.value)


LOCKED = (
    "another program has the file locked",
    "close the program that has it open, then run again",
)
STEP_FAULTS = {
    "mkdir": (Path, "mkdir", failing(errno.EROFS), "it is on a read-only file system", WRITABLE),
    "replace": (os, "replace", failing(errno.EACCES), "permission denied", WRITABLE),
    # Windows: the file being replaced is open in another program (a sharing violation)
    "replace-locked": (os, "replace", failing(errno.EACCES, winerror=32), *LOCKED),
}


@pytest.mark.parametrize("step", STEP_FAULTS, ids=STEP_FAULTS.keys())
def test_injected_fault_creating_the_folder_or_renaming(
    cache, tiny, good_source, tmp_path, monkeypatch, step
):
    owner, name, error, cause, fix = STEP_FAULTS[step]
    monkeypatch.setattr(owner, name, raising(error))
    monkeypatch.chdir(tmp_path)

    with pytest.raises(StorageProblem) as caught:
        data.ensure(tiny.spec, cache)

    assert one_line(caught.value) == (
        f"could not write tiny/{IMAGES} to the cache folder cache/tiny ({cause}); "
        f"nothing was kept: {fix}"
    )
    assert cached_files(cache) == []


def test_cache_folder_that_cannot_be_listed_in_this_process(
    cache, tiny, good_source, tmp_path, monkeypatch
):
    """What the permission test above sees in a child process, seen here: looking into the cache
    folder is refused."""
    (cache / "tiny").mkdir(parents=True)
    real_exists = Path.exists
    monkeypatch.setattr(
        Path,
        "exists",
        lambda self: (
            raising(failing(errno.EACCES))() if "cache" in self.parts else real_exists(self)
        ),
    )
    monkeypatch.chdir(tmp_path)

    with pytest.raises(StorageProblem) as caught:
        data.ensure(tiny.spec, cache)

    assert one_line(caught.value) == (
        f"could not open the cache folder cache/tiny (permission denied); {WRITABLE}"
    )


SOURCE_FAULTS = {
    "denied": (
        failing(errno.EACCES),
        "permission denied",
        "make it readable for you, then run again",
    ),
    "locked": (failing(errno.EACCES, winerror=32), *LOCKED),
    # Windows: a lock on part of the file (ERROR_LOCK_VIOLATION)
    "lock-violation": (failing(errno.EACCES, winerror=33), *LOCKED),
    "io-error": (
        failing(errno.EIO),
        "input/output error",
        "check the disk or USB stick that holds it, then run again",
    ),
    "vanished": (
        failing(errno.ENOENT),
        "the file vanished while it was in use",
        "put it back (is the USB stick still in?), then run again",
    ),
}


def assert_source_unreadable(fetch, tiny, cache, fault):
    """``fetch(tiny.spec, cache)`` ends in one ``StorageProblem`` line that names the datasets
    folder's file and the ``fault``'s cause and fix; nothing is left in the cache."""
    _, cause, fix = SOURCE_FAULTS[fault]
    with pytest.raises(StorageProblem) as caught:
        fetch(tiny.spec, cache)

    assert one_line(caught.value) == (
        f"{ENV} folder source: could not read tiny/{IMAGES} ({cause}); nothing was "
        f"kept: {fix}, or unset {ENV} to download"
    )
    assert cached_files(cache) == []


@pytest.mark.parametrize("fault", SOURCE_FAULTS, ids=SOURCE_FAULTS.keys())
def test_injected_fault_reading_the_datasets_folder(
    cache, tiny, good_source, tmp_path, monkeypatch, fault
):
    error = SOURCE_FAULTS[fault][0]
    real_read_bytes = Path.read_bytes
    monkeypatch.setattr(
        Path,
        "read_bytes",
        lambda self: raising(error)() if "source" in self.parts else real_read_bytes(self),
    )
    monkeypatch.chdir(tmp_path)
    assert_source_unreadable(data.load, tiny, cache, fault)


@pytest.mark.parametrize("step", ["the folder", "its files"])
def test_datasets_folder_that_cannot_be_opened(
    cache, tiny, good_source, tmp_path, monkeypatch, step
):
    """Another user's USB stick (``/media/<them>/…``): the folder itself, or the dataset folder
    in it, may not be looked into."""
    if step == "the folder":
        checked, refused = "is_dir", f"{ENV}={good_source} could not be opened"
    else:
        checked, refused = "is_file", f"{ENV} folder source could not be opened"
    real = getattr(Path, checked)
    monkeypatch.setattr(
        Path,
        checked,
        lambda self: raising(failing(errno.EACCES))() if "source" in self.parts else real(self),
    )
    monkeypatch.chdir(tmp_path)

    with pytest.raises(StorageProblem) as caught:
        data.ensure(tiny.spec, cache)

    assert one_line(caught.value) == (
        f"{refused} (permission denied); make it readable for you, then run again, or unset "
        f"{ENV} to download"
    )
    assert cached_files(cache) == []


def test_source_file_vanishing_mid_copy_for_real(cache, tiny, good_source, tmp_path, monkeypatch):
    """The USB stick pulled out as the loader starts reading: the file it found is really gone."""
    real_read_bytes = Path.read_bytes

    def lose_then_read(self):
        if "source" in self.parts:
            self.unlink()
        return real_read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", lose_then_read)
    monkeypatch.chdir(tmp_path)
    assert_source_unreadable(data.ensure, tiny, cache, "vanished")


# a fault the loader has no words of its own for is named by the system's own (lower-cased):
# a failing disk, or a network drive that dropped the file (a stale NFS handle)
@pytest.mark.parametrize("error_number", [errno.EIO, errno.ESTALE], ids=["io-error", "stale"])
def test_cached_file_that_cannot_be_read_is_named_and_kept(
    cache, tiny, good_source, tmp_path, monkeypatch, capsys, error_number
):
    data.ensure(tiny.spec, cache)
    monkeypatch.setattr(data, "_verified_here", {})  # a later process
    real_read_bytes = Path.read_bytes
    monkeypatch.setattr(
        Path,
        "read_bytes",
        lambda self: (
            raising(failing(error_number))() if self.name == IMAGES else real_read_bytes(self)
        ),
    )
    monkeypatch.chdir(tmp_path)

    with pytest.raises(StorageProblem) as caught:
        data.load(tiny.spec, cache)

    assert one_line(caught.value) == (
        f"cache/tiny/{IMAGES} cannot be read ({os.strerror(error_number).lower()}); check the disk "
        "or USB stick that holds it, then run again"
    )
    assert (cache / "tiny" / IMAGES).exists() and "removed" not in capsys.readouterr().out


def test_damaged_file_that_cannot_be_removed(
    cache, tiny, good_source, tmp_path, monkeypatch, capsys
):
    data.ensure(tiny.spec, cache)
    (cache / "tiny" / IMAGES).write_bytes(b"")
    monkeypatch.setattr(Path, "unlink", raising(failing(errno.EROFS)))
    monkeypatch.chdir(tmp_path)

    with pytest.raises(StorageProblem) as caught:
        data.ensure(tiny.spec, cache)

    assert one_line(caught.value) == (
        f"cache/tiny/{IMAGES} is empty (0 bytes), and it could not be removed from "
        f"the cache folder cache/tiny (it is on a read-only file system); {WRITABLE}"
    )
    assert "removed from the cache; fetching" not in capsys.readouterr().out


def test_storage_problem_reaches_the_command_line_as_one_line(tmp_path, tiny, monkeypatch, capsys):
    monkeypatch.setattr(data, "DATASETS", {"tiny": tiny.spec})
    monkeypatch.setattr(data, "DATA_DIR", tmp_path / "cache")
    monkeypatch.setenv(ENV, str(write_folder(tmp_path / "source", tiny)))
    monkeypatch.setattr(data, "open", HalfWritten(failing(errno.ENOSPC)), raising=False)
    monkeypatch.chdir(tmp_path)

    assert data.main(["fetch", "tiny"]) == 1

    assert capsys.readouterr().err == (
        f"error: could not write tiny/{IMAGES} to the cache folder cache/tiny ({FULL}\n"
    )


# --- 5. a dataset in another form -----------------------------------------------------------------


def unpacked_name(filename: str) -> str:
    return filename.removesuffix(".gz")


FORMS = {
    "unpacked": lambda name: f"tiny/{unpacked_name(name)}",
    "kaggle-dotted": lambda name: f"tiny/{unpacked_name(name).replace('-idx', '.idx')}",
    "kaggle-folder": lambda name: f"tiny/{unpacked_name(name)}/{unpacked_name(name)}",
    "gzip-without-suffix": lambda name: f"tiny/{unpacked_name(name)}",
}


@pytest.mark.parametrize("form", FORMS, ids=FORMS.keys())
def test_dataset_in_another_form_is_accepted_and_cached_gzipped(
    tmp_path, cache, tiny, monkeypatch, form
):
    for key, filename in FILENAMES.items():
        path = tmp_path / "source" / FORMS[form](filename)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(tiny.gz(key) if form == "gzip-without-suffix" else tiny.raw[key])
    monkeypatch.setenv(ENV, str(tmp_path / "source"))

    arrays = data.load(tiny.spec, cache)

    for key, expected in tiny.arrays.items():
        np.testing.assert_array_equal(getattr(arrays, key), expected, err_msg=key)
    assert cached_files(cache) == sorted(f"tiny/{name}" for name in FILENAMES.values())
    assert gzip.decompress((cache / "tiny" / IMAGES).read_bytes()) == tiny.raw["train_images"]


@pytest.mark.parametrize("name, folder", [("mnist", "MNIST"), ("fashion-mnist", "FashionMNIST")])
def test_torchvision_raw_folder_is_accepted(tmp_path, cache, tiny, monkeypatch, name, folder):
    spec = dataclasses.replace(tiny.spec, name=name)
    raw = tmp_path / "torch-data" / folder / "raw"
    raw.mkdir(parents=True)
    for key, filename in FILENAMES.items():
        (raw / unpacked_name(filename)).write_bytes(tiny.raw[key])  # torchvision keeps both forms
        (raw / filename).write_bytes(tiny.gz(key))
    monkeypatch.setenv(ENV, str(tmp_path / "torch-data"))

    np.testing.assert_array_equal(data.load(spec, cache).test_labels, tiny.arrays["test_labels"])


def test_bad_unpacked_file_is_named_with_its_own_name(tmp_path, cache, tiny, monkeypatch):
    for key, filename in FILENAMES.items():
        raw = bytearray(tiny.raw[key])
        raw[-1] ^= 0xFF if key == "train_images" else 0
        (tmp_path / "source" / "tiny").mkdir(parents=True, exist_ok=True)
        (tmp_path / "source" / "tiny" / unpacked_name(filename)).write_bytes(bytes(raw))
    monkeypatch.setenv(ENV, str(tmp_path / "source"))
    monkeypatch.chdir(tmp_path)

    with pytest.raises(DatasetProblem) as caught:
        data.load(tiny.spec, cache)

    message = one_line(caught.value)
    assert message.startswith(
        "source/tiny/train-images-idx3-ubyte: SHA-256 of the decompressed data is "
    )
    assert message.endswith(
        "(not the official file); it was not copied: replace it with a good copy "
        "(checksums in data/README.md)"
    )
    assert cached_files(cache) == []


def test_kaggle_archive_named_as_it_unpacks(tmp_path, cache, tiny, monkeypatch):
    """Kaggle's archive unpacks to one folder holding train-images.idx3-ubyte and a folder
    train-images-idx3-ubyte/ holding the same file: no mnist/ level, so it is named with the fix."""
    archive = tmp_path / "archive"
    for key, filename in FILENAMES.items():
        (archive / unpacked_name(filename)).mkdir(parents=True)
        (archive / unpacked_name(filename) / unpacked_name(filename)).write_bytes(tiny.raw[key])
        (archive / unpacked_name(filename).replace("-idx", ".idx")).write_bytes(tiny.raw[key])
    monkeypatch.setenv(ENV, str(archive))

    with pytest.raises(DatasetProblem) as caught:
        data.load(tiny.spec, cache)

    assert one_line(caught.value) == (
        f"{ENV} folder {paths.display_path(archive)} holds train-images-idx3-ubyte "
        "directly: put the files of tiny in its tiny/ subfolder (see data/README.md)"
    )

    archive.rename(archive.with_name("tiny"))
    (tmp_path / "archive").mkdir()
    (tmp_path / "tiny").rename(tmp_path / "archive" / "tiny")  # the fix the line gives

    np.testing.assert_array_equal(
        data.load(tiny.spec, cache).train_images, tiny.arrays["train_images"]
    )


def test_keras_npz_is_named_with_the_fix(tmp_path, cache, tiny, monkeypatch):
    spec = dataclasses.replace(tiny.spec, name="mnist")
    keras = tmp_path / ".keras" / "datasets"
    keras.mkdir(parents=True)
    np.savez(keras / "mnist.npz", x_train=tiny.arrays["train_images"])
    monkeypatch.setenv(ENV, str(keras))

    with pytest.raises(DatasetProblem) as caught:
        data.load(spec, cache)

    assert one_line(caught.value) == (
        f"{ENV} folder {paths.display_path(keras)} holds mnist.npz (Keras' copy), "
        "which the course does not read: "
        "put the four IDX files of mnist in its mnist/ subfolder (see data/README.md) or unset "
        f"{ENV} to download"
    )


def test_real_mnist_unpacked(tmp_path, cache, monkeypatch):
    """The real files as a download leaves them once unpacked:
    verified against data/README.md's sums."""
    if not SHARED_DATASETS.is_dir():
        pytest.skip(f"no offline copy of the datasets in {SHARED_DATASETS}")
    (tmp_path / "usb" / "mnist").mkdir(parents=True)
    for filename in FILENAMES.values():
        raw = gzip.decompress((SHARED_DATASETS / "mnist" / filename).read_bytes())
        (tmp_path / "usb" / "mnist" / unpacked_name(filename)).write_bytes(raw)
    monkeypatch.setenv(ENV, str(tmp_path / "usb"))

    started = time.perf_counter()
    mnist = data.load("mnist", cache)
    seconds = time.perf_counter() - started

    assert mnist.train_labels[:10].tolist() == [5, 0, 4, 1, 9, 2, 1, 3, 1, 4]
    assert round(float(mnist.test_images.mean()), 3) == 33.791
    assert cached_files(cache) == sorted(f"mnist/{name}" for name in FILENAMES.values())
    assert seconds < 30, f"loading unpacked MNIST took {seconds:.1f} s"


def test_a_disk_fault_in_the_learners_language(cache, tiny, tmp_path, monkeypatch, zh_tw):
    """In a zh-TW notebook the whole line is Chinese: what failed, the cause and the fix."""
    zh_tw()
    monkeypatch.setattr(data, "open", HalfWritten(failing(errno.ENOSPC)), raising=False)
    source = write_folder(tmp_path / "source", tiny)
    monkeypatch.chdir(tmp_path)

    with pytest.raises(StorageProblem) as caught:
        data.fetch_file(tiny.spec, "train_images", cache, source=source, progress=False)

    assert one_line(caught.value) == (
        f"無法把 tiny/{IMAGES} 寫入快取資料夾 cache/tiny（原因：磁碟空間不足）；什麼都沒有留下："
        "請清出那個磁碟的空間（兩個資料集共約 42 MB），再執行一次"
    )
