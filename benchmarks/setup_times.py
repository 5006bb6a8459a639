"""Set-up time of the course's environment: uv vs pip, cold vs warm cache, on a fresh clone.

Run it with ``make benchmark-setup`` (or ``python3 benchmarks/setup_times.py``).
It clones the repository (its committed state) into a temporary folder and
there sets up a fresh virtual environment from ``requirements.lock`` four times,
as ``tools/make-venv`` does: create the venv (``uv venv --seed`` / ``python -m
venv``), then install the lock with hash checking (``uv pip install`` / ``pip
install``). In this order: uv with an empty cache (cold), uv again with the
cache that run filled (warm), then pip cold and pip warm. The caches are
temporary folders (``UV_CACHE_DIR``, ``PIP_CACHE_DIR``), so the user's caches
neither help nor change; pip runs without the machine's pip configuration
(``PIP_CONFIG_FILE`` is the null device, ``PIP_FIND_LINKS`` and the like
removed), so both download from PyPI as on a learner's machine. A cold run's
time is mostly the download, so it depends on the network as much as on the
installer.

The measurements go to ``benchmarks/setup_times.json``, replacing the
previous run's (git keeps those), and, with ``--update-docs``, into the
generated ``setup-times`` section of INSTALL.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from reporting import describe, load_average, machine, timestamp, write_section  # noqa: E402

INSTALL = ROOT / "INSTALL.md"
SECTION = "setup-times"  # INSTALL.md's generated section
RESULTS = ROOT / "benchmarks" / "setup_times.json"
LOCK = "requirements.lock"
INSTALLERS = ("uv", "pip")
CACHES = ("cold", "warm")


def clean_environment(cache_variable: str, cache: Path) -> dict:
    """The environment without this machine's pip and uv settings, with ``cache`` as the cache."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PIP_", "UV_", "VIRTUAL_ENV")) or key == "PIP_CERT"
    }
    env.update(
        {
            "PIP_CONFIG_FILE": os.devnull,
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "UV_NO_CONFIG": "1",
            cache_variable: str(cache),
        }
    )
    return env


def set_up_commands(installer: str, python: str, uv: str, venv: Path) -> list[list[str]]:
    """What tools/make-venv runs to set up ``venv`` from the lock with ``installer``."""
    if installer == "uv":
        return [
            [uv, "venv", "-q", "--seed", "--python", python, str(venv)],
            [
                uv,
                "pip",
                "install",
                "-q",
                "--compile-bytecode",
                "--require-hashes",
                "--python",
                str(venv / "bin" / "python"),
                "-r",
                LOCK,
            ],
        ]
    return [
        [python, "-m", "venv", str(venv)],
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--require-hashes",
            "-r",
            LOCK,
        ],
    ]


def folder_size(folder: Path) -> int:
    return sum(
        path.stat().st_size
        for path in folder.rglob("*")
        if path.is_file() and not path.is_symlink()
    )


def time_set_up(installer: str, clone: Path, python: str, uv: str, cache: Path, index: int) -> dict:
    """Seconds to set up a fresh venv in ``clone`` with ``installer`` and ``cache``."""
    venv = clone / f".venv-{installer}-{index}"
    env = clean_environment("UV_CACHE_DIR" if installer == "uv" else "PIP_CACHE_DIR", cache)
    load_before = load_average()
    started = time.perf_counter()
    for command in set_up_commands(installer, python, uv, venv):
        subprocess.run(command, cwd=clone, env=env, check=True)
    seconds = time.perf_counter() - started
    packages = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "list", "--format=freeze"],
        cwd=clone,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return {
        "seconds": round(seconds, 1),
        "packages": len(packages.split()),
        "cache_mb": round(folder_size(cache) / 1e6),
        "load_before": load_before,
        "load_after": load_average(),
    }


def versions(python: str, uv: str) -> dict:
    def output(command):
        return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()

    return {
        "python": output([python, "-c", "import platform; print(platform.python_version())"]),
        "uv": output([uv, "--version"]).split()[1],
        "pip": re.search(r"pip (\S+)", output([python, "-m", "pip", "--version"])).group(1),
    }


def measure() -> dict:
    with tempfile.TemporaryDirectory(prefix="setup-times-") as folder:
        clone = Path(folder) / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=clone,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        find, uv = (
            subprocess.run(["sh", f"tools/{tool}"], cwd=clone, capture_output=True, text=True)
            for tool in ("find-python", "find-uv")
        )
        if find.returncode or uv.returncode:
            raise SystemExit(
                "The set-up benchmark needs a Python 3.9-3.11 and uv "
                "(tools/find-python, tools/find-uv found none): run make setup "
                "first, which says what is missing"
            )
        python, uv = find.stdout.strip(), uv.stdout.strip()
        results = {
            "versions": versions(python, uv),
            "commit": commit,
            "measured": timestamp(),
            "machine": machine(),
            "runs": {},
        }
        for index, installer in enumerate(INSTALLERS):
            cache = Path(folder) / f"cache-{installer}"
            cache.mkdir()
            for state in CACHES:  # cold: the empty cache; warm: the same one, filled by cold
                print(f"{installer}, {state} cache …", flush=True)
                number = index * 2 + CACHES.index(state)
                run = time_set_up(installer, clone, python, uv, cache, number)
                print(f"  {run['seconds']} s, {run['packages']} packages", flush=True)
                results["runs"][f"{installer} {state}"] = run
        return results


def report(results: dict) -> str:
    """INSTALL.md's generated section: the four set-ups of the latest run."""
    runs, found = results["runs"], results["versions"]

    def cell(name: str) -> str:
        run = runs[name]
        uncached = name.endswith("warm") and run["cache_mb"] == 0
        return f"{run['seconds']:.0f} s" + (" ¹" if uncached else "")

    ratio = runs["pip cold"]["seconds"] / runs["uv cold"]["seconds"]
    lines = [
        f"Set-up of a fresh `.venv` from `{LOCK}` ({runs['uv cold']['packages']} packages, "
        f"Python {found['python']}) on a fresh clone, measured by `make benchmark-setup` "
        "([benchmarks/setup_times.py](benchmarks/setup_times.py)):",
        "",
        "| installer | cold cache (downloads everything) | warm cache (a second set-up) |",
        "|---|---:|---:|",
        f"| uv {found['uv']} | {cell('uv cold')} | {cell('uv warm')} |",
        f"| pip {found['pip']} | {cell('pip cold')} | {cell('pip warm')} |",
        "",
        f"With a cold cache uv set up the environment **{ratio:.1f}×** as fast as pip; uv's "
        f"second set-up took {runs['uv warm']['seconds']:.0f} s (its cache then held "
        f"{runs['uv cold']['cache_mb']:,} MB of unpacked packages).",
        "",
    ]
    uncached = [
        name.split()[0] for name in runs if name.endswith("warm") and runs[name]["cache_mb"] == 0
    ]
    if uncached:
        lines += [
            f"¹ {' and '.join(uncached)}'s cache stayed empty: the package index the "
            "measuring machine reaches serves files without caching headers, so this second "
            "set-up downloaded everything again (a second cold set-up, not a warm one).",
            "",
        ]
    loads = [run["load_before"] for run in runs.values()] + [runs["pip warm"]["load_after"]]
    lines.append(
        f"_Measured {results['measured']} on {describe(results['machine'])}, load average "
        f"(1 min) {' → '.join(load.split(' / ')[0] for load in loads)} across the four "
        "runs._"
    )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument(
        "--update-docs",
        action="store_true",
        help="write the figures into INSTALL.md's generated section",
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="measure nothing: write the report of the saved results",
    )
    args = parser.parse_args(argv)
    if args.report_only:
        results = json.loads(args.results.read_text())
    else:
        results = measure()  # the latest run only: the file's previous run is replaced
        args.results.write_text(json.dumps(results, indent=2) + "\n")
    text = report(results)
    print(text)
    if args.update_docs:
        write_section(INSTALL, SECTION, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
