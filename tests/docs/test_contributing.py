"""CONTRIBUTING.md names only make targets and files that exist (but its example, notebook 11)."""

from __future__ import annotations

import re

from tests import ROOT

GUIDE = (ROOT / "CONTRIBUTING.md").read_text()
MAKEFILE = (ROOT / "Makefile").read_text()
EXAMPLE = re.compile(
    r"11|<"
)  # notebook 11 and its files do not exist yet; <module> is a placeholder
PATH = re.compile(r"(?<![\w/.])((?:helpers|tests|tools|notebooks|benchmarks)/[\w./<>*-]*\w)")


def missing_targets(text: str) -> list:
    targets = set(re.findall(r"^([\w-]+):", MAKEFILE, flags=re.M))
    named = set(re.findall(r"(?:^|`)make ([a-z][\w-]*)", text, flags=re.M))
    return sorted(named - targets)


def missing_files(text: str) -> list:
    named = set(PATH.findall(text))
    return sorted(path for path in named if not EXAMPLE.search(path) and not any(ROOT.glob(path)))


def test_every_make_target_it_names_exists():
    assert re.search(r"(?:^|`)make [a-z]", GUIDE, flags=re.M)
    missing = missing_targets(GUIDE)
    assert not missing, f"CONTRIBUTING.md names targets the Makefile lacks: {missing}"


def test_every_file_it_names_exists():
    assert PATH.search(GUIDE)
    missing = missing_files(GUIDE)
    assert not missing, f"CONTRIBUTING.md names files that do not exist: {missing}"


def test_a_stale_name_is_found():
    text = (
        "Run `make unit`, then `make bench-old`; see tests/docs/test_gone.py and benchmarks/*.json."
    )
    assert missing_targets(text) == ["bench-old"]
    assert missing_files(text) == ["tests/docs/test_gone.py"]
    assert missing_files("tests/helpers/test_<module>.py, notebooks/11_serving.ipynb") == []
