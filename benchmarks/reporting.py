"""What every benchmark of the course reports alongside its figures, and where it writes them.

* ``machine()``: the computer a figure was measured on (CPU, cores, memory,
  operating system, Python), as a dict kept in the benchmark's JSON file, and
  ``describe(machine)``, the same in one line for a report;
* ``load_average()`` and ``timestamp()``: the load and the time around a
  measurement (a busy machine slows it);
* ``duration(seconds)``: a time as the reports write it (``1 min 05 s``);
* ``write_section(doc, name, text)``: a generated section of a doc, the text
  between the markers ``<!-- name:start -->`` and ``<!-- name:end -->``, which
  holds the latest run only (git keeps the earlier ones); ``section(doc, name)``
  reads it back.

The benchmarks import it as ``from reporting import …`` (their folder is on
``sys.path`` when they run as scripts).
"""

from __future__ import annotations

import datetime
import os
import platform
import re
from pathlib import Path


def machine() -> dict:
    """The computer this process runs on: CPU, cores it may use, memory, system, Python."""
    cpu = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = re.findall(r"^model name\s*:\s*(.+)$", cpuinfo.read_text(), flags=re.M)
        if names:
            cpu = names[0].strip()
    memory = "unknown memory"
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        total = re.search(r"^MemTotal:\s+(\d+) kB", meminfo.read_text(), flags=re.M)
        if total:
            memory = f"{int(total.group(1)) / 2**20:.0f} GiB"
    if hasattr(os, "sched_getaffinity"):
        cores = len(os.sched_getaffinity(0))
    else:  # pragma: no cover (macOS, Windows)
        cores = os.cpu_count()
    return {
        "cpu": cpu,
        "cores": cores,
        "memory": memory,
        "os": platform.platform(terse=True),
        "python": platform.python_version(),
    }


def describe(machine: dict) -> str:
    """``machine()`` in one line: ``Intel(R) Xeon(R), 2 cores, 24 GiB, Linux-…, Python 3.11.7``.

    A record that kept only some of the keys is described by those.
    """
    parts = [
        machine.get("cpu"),
        f"{machine['cores']} cores" if "cores" in machine else None,
        machine.get("memory"),
        machine.get("os"),
        f"Python {machine['python']}" if "python" in machine else None,
    ]
    return ", ".join(part for part in parts if part)


def load_average() -> str:
    """The load average over 1, 5 and 15 minutes: ``0.31 / 1.55 / 1.82``."""
    return " / ".join(f"{value:.2f}" for value in os.getloadavg())


def timestamp() -> str:
    """The local time to the minute: ``2026-12-03 14:02``."""
    return datetime.datetime.now().strftime("%Y-%m-%d %H:%M")


def duration(seconds: float) -> str:
    """``8 s``, ``59 s``, ``1 min 05 s``: how the reports write a measured time."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    return f"{whole // 60} min {whole % 60:02d} s"


def markers(name: str) -> tuple:
    """The two lines that enclose the generated section ``name`` of a doc."""
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def _split(content: str, doc: Path, name: str) -> tuple:
    start, end = markers(name)
    once = content.count(start) == 1 and content.count(end) == 1
    if not once or content.index(start) > content.index(end):
        raise SystemExit(
            f"{Path(doc).name} needs one {start} line and, after it, one {end} line "
            f"where its generated '{name}' section goes: add them"
        )
    before, rest = content.split(start, 1)
    inside, after = rest.split(end, 1)
    return before, inside, after


def section(doc: Path, name: str) -> str:
    """The text of the generated section ``name`` of ``doc``, without its markers."""
    content = Path(doc).read_text(encoding="utf-8")
    return _split(content, doc, name)[1].strip("\n") + "\n"


def write_section(doc: Path, name: str, text: str) -> None:
    """Replace the generated section ``name`` of ``doc`` by ``text``, keeping the rest."""
    content = Path(doc).read_text(encoding="utf-8")
    before, _, after = _split(content, doc, name)
    start, end = markers(name)
    Path(doc).write_text(f"{before}{start}\n{text.rstrip(chr(10))}\n{end}{after}", encoding="utf-8")
