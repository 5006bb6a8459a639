"""Install uv from PyPI with nothing but a Python 3 (no pip, no venv module needed).

Usage: python3 tools/get_uv.py VERSION FOLDER   -> FOLDER/bin/uv

For a Python without pip (a Debian or Ubuntu one without python3-pip):
``tools/find-uv`` runs this when no Python 3 there has pip. It reads PyPI's
list of uv's files (the JSON simple API), picks the wheel built for this
machine, downloads it, checks it against the SHA-256 that PyPI lists, and
unpacks the ``uv`` program from it. Exits 1 with one line when it can't.
"""

import hashlib
import io
import json
import os
import platform
import re
import stat
import sys
import urllib.request
import zipfile

INDEX = os.environ.get("WORKBOOK_UV_INDEX", "https://pypi.org/simple")
ARCHES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}


def fits(tag, system, machine, libc):
    """Whether a wheel's platform tag runs on this system, machine and (name, version) of libc."""
    arch = ARCHES.get(machine.lower())
    if arch is None:
        return False
    if system == "darwin":
        return tag.startswith("macosx_") and tag.endswith(
            ("_arm64", "_universal2") if arch == "aarch64" else ("_x86_64", "_universal2")
        )
    if system != "linux" or not tag.endswith("_" + arch):
        return False
    name, version = libc
    if name == "glibc":
        if tag.startswith("manylinux2014_"):
            return version >= (2, 17)
        found = re.match(r"manylinux_(\d+)_(\d+)_", tag)
        return bool(found) and version >= (int(found.group(1)), int(found.group(2)))
    return tag.startswith("musllinux_")


def pick(files, version, system, machine, libc):
    """The first of PyPI's ``files`` that is uv ``version``'s wheel for this machine, or None."""
    prefix = "uv-{}-py3-none-".format(version)
    for entry in files:
        name = entry["filename"]
        if name.startswith(prefix) and name.endswith(".whl"):
            tags = name[len(prefix) : -len(".whl")].split(".")
            if any(fits(tag, system, machine, libc) for tag in tags):
                return entry
    return None


def this_machine():
    name, text = platform.libc_ver()
    version = (
        tuple(int(part) for part in text.split(".")[:2]) if name == "glibc" and text else (0, 0)
    )
    return sys.platform, platform.machine(), (name or "musl", version)


def unpack(wheel_bytes, version, folder):
    """Write the uv program of the wheel to ``folder``/bin/uv; return its path."""
    member = "uv-{}.data/scripts/uv".format(version)
    with zipfile.ZipFile(io.BytesIO(wheel_bytes)) as wheel:
        program = wheel.read(member)
    target = os.path.join(folder, "bin", "uv")
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "wb") as out:
        out.write(program)
    os.chmod(target, os.stat(target).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return target


def fetch(url, accept=None):
    request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read()


def main(argv):
    version, folder = argv
    try:
        listing = json.loads(
            fetch(INDEX.rstrip("/") + "/uv/", "application/vnd.pypi.simple.v1+json")
        )
        entry = pick(listing["files"], version, *this_machine())
        if entry is None:
            print(
                "PyPI has no uv {} wheel for {} {}: install uv yourself "
                "(https://docs.astral.sh/uv/)".format(version, sys.platform, platform.machine()),
                file=sys.stderr,
            )
            return 1
        wheel = fetch(entry["url"])
        if hashlib.sha256(wheel).hexdigest() != entry["hashes"]["sha256"]:
            print(
                "The uv wheel downloaded from PyPI does not match its SHA-256: run make again",
                file=sys.stderr,
            )
            return 1
        print(unpack(wheel, version, folder))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as problem:
        print(
            "Could not get uv from PyPI ({}): check the internet connection, or install uv "
            "(https://docs.astral.sh/uv/)".format(problem),
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
