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

The measurements go to ``benchmarks/setup_times.json`` and, with
``--update-readme``, into the README's "Two commands" section between its
set-up markers.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from run import load_average, update_readme  # noqa: E402  (the course benchmark's helpers)

README_START = "<!-- setup-times:start -->"
README_END = "<!-- setup-times:end -->"
RESULTS = ROOT / "benchmarks" / "setup_times.json"
LOCK = "requirements.lock"
INSTALLERS = ("uv", "pip")
CACHES = ("cold", "warm")


def clean_environment(cache_variable: str, cache: Path) -> dict:
    """The environment without the machine's pip and uv settings, with ``cache`` as the cache."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PIP_", "UV_", "VIRTUAL_ENV")) or key == "PIP_CERT"}
    env.update({"PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1",
                "UV_NO_CONFIG": "1", cache_variable: str(cache)})
    return env


def set_up_commands(installer: str, python: str, uv: str, venv: Path) -> list[list[str]]:
    """What tools/make-venv runs to set up ``venv`` from the lock with ``installer``."""
    if installer == "uv":
        return [[uv, "venv", "-q", "--seed", "--python", python, str(venv)],
                [uv, "pip", "install", "-q", "--require-hashes", "--python", str(venv / "bin" / "python"),
                 "-r", LOCK]]
    return [[python, "-m", "venv", str(venv)],
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--require-hashes", "-r", LOCK]]


def folder_size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def time_set_up(installer: str, clone: Path, python: str, uv: str, cache: Path, index: int) -> dict:
    """Seconds to set up a fresh venv in ``clone`` with ``installer`` and ``cache``."""
    venv = clone / f".venv-{installer}-{index}"
    env = clean_environment("UV_CACHE_DIR" if installer == "uv" else "PIP_CACHE_DIR", cache)
    load_before = load_average()
    started = time.perf_counter()
    for command in set_up_commands(installer, python, uv, venv):
        subprocess.run(command, cwd=clone, env=env, check=True)
    seconds = time.perf_counter() - started
    packages = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "list", "--format=freeze"],
                              cwd=clone, env=env, check=True, capture_output=True, text=True).stdout
    return {"seconds": round(seconds, 1), "packages": len(packages.split()),
            "cache_mb": round(folder_size(cache) / 1e6), "load_before": load_before,
            "load_after": load_average()}


def versions(python: str, uv: str) -> dict:
    def output(command):
        return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()
    return {"python": output([python, "-c", "import platform; print(platform.python_version())"]),
            "uv": output([uv, "--version"]).split()[1],
            "pip": re.search(r"pip (\S+)", output([python, "-m", "pip", "--version"])).group(1)}


def measure() -> dict:
    with tempfile.TemporaryDirectory(prefix="setup-times-") as folder:
        clone = Path(folder) / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, check=True,
                                capture_output=True, text=True).stdout.strip()
        find = subprocess.run(["sh", "tools/find-python"], cwd=clone, capture_output=True, text=True)
        uv = subprocess.run(["sh", "tools/find-uv"], cwd=clone, capture_output=True, text=True)
        if find.returncode or uv.returncode:
            raise SystemExit("The set-up benchmark needs a Python 3.9-3.11 and uv (tools/find-python, "
                             "tools/find-uv found none): run make setup first, which says what is missing")
        python, uv = find.stdout.strip(), uv.stdout.strip()
        results = {"versions": versions(python, uv), "commit": commit,
                   "measured": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
                   "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform(terse=True)}",
                   "runs": {}}
        for index, installer in enumerate(INSTALLERS):
            cache = Path(folder) / f"cache-{installer}"
            cache.mkdir()
            for state in CACHES:  # cold: the empty cache; warm: the same cache, filled by the cold run
                print(f"{installer}, {state} cache …", flush=True)
                run = time_set_up(installer, clone, python, uv, cache, index * 2 + CACHES.index(state))
                print(f"  {run['seconds']} s, {run['packages']} packages", flush=True)
                results["runs"][f"{installer} {state}"] = run
        return results


def report(results: dict) -> str:
    runs, found = results["runs"], results["versions"]

    def cell(name: str) -> str:
        run = runs[name]
        uncached = name.endswith("warm") and run["cache_mb"] == 0
        return f"{run['seconds']:.0f} s" + (" ¹" if uncached else "")

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
        f"With a cold cache uv set up the environment **{runs['pip cold']['seconds'] / runs['uv cold']['seconds']:.1f}×** "
        f"as fast as pip; uv's second set-up took {runs['uv warm']['seconds']:.0f} s "
        f"(its cache then held {runs['uv cold']['cache_mb']:,} MB of unpacked packages).",
        "",
    ]
    uncached = [name.split()[0] for name in runs if name.endswith("warm") and runs[name]["cache_mb"] == 0]
    if uncached:
        lines.append(f"¹ {' and '.join(uncached)}'s cache stayed empty: the package index the measuring machine "
                     "reaches serves files without caching headers, so this second set-up downloaded everything "
                     "again (a second cold set-up, not a warm one).")
        lines.append("")
    for earlier in results.get("earlier", []):
        lines += [f"An earlier run ({earlier['measured']}, load average {earlier['load'].split(' / ')[0]} at its "
                  f"start): uv {earlier['uv cold']:.0f} s cold, {earlier['uv warm']:.0f} s warm; "
                  f"pip {earlier['pip cold']:.0f} s cold, {earlier['pip warm']:.0f} s for the second set-up.", ""]
    loads = [run["load_before"] for run in runs.values()] + [runs["pip warm"]["load_after"]]
    lines += [
        f"_Measured {results['measured']} on {results['machine']}, load average (1 min) "
        f"{' → '.join(load.split(' / ')[0] for load in loads)} across the four runs._",
        "",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update-readme", action="store_true", help="write the figures into README.md")
    parser.add_argument("--report-only", action="store_true", help="re-write the report from the saved results")
    args = parser.parse_args(argv)
    if args.report_only:
        results = json.loads(RESULTS.read_text())
    else:
        results = measure()
        if RESULTS.exists():  # keep the earlier runs' times: on a shared machine they vary
            previous = json.loads(RESULTS.read_text())
            results["earlier"] = previous.get("earlier", []) + [
                {"measured": previous["measured"], "load": previous["runs"]["uv cold"]["load_before"],
                 **{name: run["seconds"] for name, run in previous["runs"].items()}}]
        RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    text = report(results)
    print(text)
    if args.update_readme:
        update_readme(text, start=README_START, end=README_END, where="its Two commands section")
    return 0


if __name__ == "__main__":
    sys.exit(main())
