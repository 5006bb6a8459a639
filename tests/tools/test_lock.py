"""The locks pin each environment whole, and are up to date with their input.

`make lock` (tools/lock) writes `requirements.lock` from `requirements.txt` and
`requirements-latest.lock` from `requirements-latest.txt`: every package with
its hashes, one universal file whose markers choose each machine's packages.
Its header records the input's SHA-256, so that editing the input without
re-locking fails here, offline and in milliseconds. The other tests read the
lock as pip would on each platform and Python version its header names.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests import ROOT

LOCKS = {
    "requirements.lock": "requirements.txt",
    "requirements-latest.lock": "requirements-latest.txt",
    "requirements-teacher.lock": "requirements-teacher.txt",
    "requirements-hub.lock": "requirements-hub.txt",
}

# What pip's environment markers read on each platform that tools/lock checks (uv's names).
PLATFORMS = {
    "x86_64-manylinux": {
        "sys_platform": "linux",
        "platform_system": "Linux",
        "platform_machine": "x86_64",
        "os_name": "posix",
    },
    "aarch64-manylinux": {
        "sys_platform": "linux",
        "platform_system": "Linux",
        "platform_machine": "aarch64",
        "os_name": "posix",
    },
    "x86_64-apple-darwin": {
        "sys_platform": "darwin",
        "platform_system": "Darwin",
        "platform_machine": "x86_64",
        "os_name": "posix",
    },
    "aarch64-apple-darwin": {
        "sys_platform": "darwin",
        "platform_system": "Darwin",
        "platform_machine": "arm64",
        "os_name": "posix",
    },
    "x86_64-pc-windows-msvc": {
        "sys_platform": "win32",
        "platform_system": "Windows",
        "platform_machine": "AMD64",
        "os_name": "nt",
    },
}


def parse_lock(text: str) -> list[tuple[Requirement, list[str]]]:
    """The lock's requirements, each with its hashes."""
    entries = []
    for line in text.splitlines():
        if line.startswith("    --hash="):
            entries[-1][1].append(line.split("=", 1)[1].rstrip(" \\"))
        elif line and not line[0].isspace() and not line.startswith("#"):
            entries.append((Requirement(line.rstrip(" \\")), []))
    return entries


def parse_header(text: str) -> dict:
    """What the header says: the input and its hash, the Pythons and platforms covered."""
    input_line = re.search(r"^# input: (\S+) sha256 ([0-9a-f]{64})$", text, flags=re.M)
    cover = re.search(r"^# for Python ([\d. ]+) on ([\w ._-]+)\.$", text, flags=re.M)
    assert input_line and cover, "the lock has no header from tools/lock: run make lock"
    return {
        "input": input_line.group(1),
        "sha256": input_line.group(2),
        "pythons": cover.group(1).split(),
        "platforms": cover.group(2).split(),
    }


def environment(platform: str, python: str) -> dict:
    """Marker values of `platform` (a uv platform name such as x86_64-manylinux_2_17)."""
    key = re.sub(r"_\d+_\d+$", "", platform)
    assert key in PLATFORMS, f"the test knows no marker values for the platform {platform}"
    return {
        **PLATFORMS[key],
        "python_version": python,
        "python_full_version": f"{python}.0",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "extra": "",
    }


def chosen(entries, env: dict) -> dict:
    """{name: [pinned version, ...]} of the entries whose marker holds in `env`."""
    picked: dict[str, list[str]] = {}
    for requirement, _ in entries:
        if requirement.marker is None or requirement.marker.evaluate(env):
            (version,) = [spec.version for spec in requirement.specifier]
            picked.setdefault(canonicalize_name(requirement.name), []).append(version)
    return picked


def direct_requirements(input_text: str) -> list[Requirement]:
    lines = (line.split("#", 1)[0].strip() for line in input_text.splitlines())
    return [Requirement(line) for line in lines if line]


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_the_lock_is_made_from_its_input_as_it_is_now(lock):
    header = parse_header((ROOT / lock).read_text())
    assert header["input"] == LOCKS[lock]
    digest = hashlib.sha256((ROOT / LOCKS[lock]).read_bytes()).hexdigest()
    assert header["sha256"] == digest, f"{lock} is out of date with {LOCKS[lock]}: run make lock"


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_every_package_is_pinned_with_hashes(lock):
    entries = parse_lock((ROOT / lock).read_text())
    assert len(entries) > 20
    for requirement, hashes in entries:
        assert [spec.operator for spec in requirement.specifier] == ["=="], str(requirement)
        assert hashes and all(h.startswith("sha256:") for h in hashes), (
            f"{requirement.name} has no hash"
        )


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_on_every_platform_and_python_each_package_has_one_version_and_the_inputs_pins_hold(lock):
    text = (ROOT / lock).read_text()
    entries, header = parse_lock(text), parse_header(text)
    direct = direct_requirements((ROOT / LOCKS[lock]).read_text())
    assert header["platforms"] and header["pythons"]
    for platform in header["platforms"]:
        for python in header["pythons"]:
            env = environment(platform, python)
            picked = chosen(entries, env)
            doubles = {name: versions for name, versions in picked.items() if len(versions) > 1}
            assert not doubles, f"{platform}, Python {python}: more than one version of {doubles}"
            for requirement in direct:
                if requirement.marker is not None and not requirement.marker.evaluate(env):
                    continue
                name = canonicalize_name(requirement.name)
                assert name in picked, f"{platform}, Python {python}: {name} is not in {lock}"
                assert requirement.specifier.contains(picked[name][0]), (
                    f"{platform}, Python {python}: {lock} has {name} {picked[name][0]}, "
                    f"{LOCKS[lock]} asks for {requirement.specifier}: run make lock"
                )


def test_the_platform_packages_of_tensorflow_2_15_are_in_the_lock():
    # PyPI's tensorflow 2.15.1 for Windows and Linux aarch64 is a shim wheel: without
    # these the lock installs a TensorFlow that cannot be imported there.
    entries = parse_lock((ROOT / "requirements.lock").read_text())
    assert chosen(entries, environment("x86_64-pc-windows-msvc", "3.11"))["tensorflow-intel"] == [
        "2.15.1"
    ]
    assert chosen(entries, environment("aarch64-manylinux_2_17", "3.9"))["tensorflow-cpu-aws"] == [
        "2.15.1"
    ]
    linux = chosen(entries, environment("x86_64-manylinux_2_17", "3.10"))
    assert "tensorflow-intel" not in linux and "tensorflow-cpu-aws" not in linux


def test_a_stale_or_incomplete_lock_is_caught():
    # The parsers above on a lock that lost a platform's package and a hash.
    text = (ROOT / "requirements.lock").read_text()
    without_intel = re.sub(r"^tensorflow-intel==.*?(?=^\S)", "", text, flags=re.M | re.S)
    windows = chosen(parse_lock(without_intel), environment("x86_64-pc-windows-msvc", "3.11"))
    assert "tensorflow-intel" not in windows
    doubled = text + "numpy==1.26.3 \\\n    --hash=sha256:" + "0" * 64 + "\n"
    picked = chosen(parse_lock(doubled), environment("x86_64-manylinux_2_17", "3.11"))
    assert picked["numpy"] == ["1.26.4", "1.26.3"]


def test_the_environment_can_start_tensorboard():
    # tensorboard 2.15's program (what %tensorboard runs) imports pkg_resources, which
    # setuptools 81+ lacks: requirements.txt pins a setuptools that has it.
    result = subprocess.run(
        [sys.executable, "-c", "import tensorboard.default, tensorboard.main"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr.strip().splitlines()[-1]
    assert "Warning" not in result.stderr, result.stderr


def test_the_readme_states_how_many_packages_the_lock_installs():
    text = (ROOT / "requirements.lock").read_text()
    entries, header = parse_lock(text), parse_header(text)
    counts = [
        len(chosen(entries, environment(platform, python)))
        for platform in header["platforms"]
        for python in header["pythons"]
    ]
    stated = re.search(
        r"direct or not \((\d+) to\s+(\d+) of them", (ROOT / "INSTALL.md").read_text()
    )
    assert stated, "INSTALL.md's paragraph on the lock no longer says how many packages it pins"
    assert (int(stated.group(1)), int(stated.group(2))) == (min(counts), max(counts)), (
        f"INSTALL.md: the lock installs {min(counts)} to {max(counts)} packages"
    )
