"""Write the files a command generates, or check that the committed ones are current.

    stale = update({path: text, ...}, check=False)   # writes what differs; returns those paths

One place for what `make po` and `make zh-tw` do with their output: a file is written only
when its text changed (so an unchanged file keeps its timestamp and git sees nothing), and
``check=True`` writes nothing and returns the files that are not current.
"""

from __future__ import annotations

from pathlib import Path


def update(files: dict, check: bool = False) -> list[Path]:
    """Write each ``path: text`` whose file differs (unless ``check``); the paths that differ."""
    stale = []
    for path, text in files.items():
        path = Path(path)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(path)
        if not check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return stale
