"""CONTRIBUTING.md names only make targets and files that exist (apart from its example, notebook 11)."""

from __future__ import annotations

import re

from tests import ROOT

GUIDE = (ROOT / "CONTRIBUTING.md").read_text()
MAKEFILE = (ROOT / "Makefile").read_text()
EXAMPLE = re.compile(r"11|<")  # notebook 11 and its files do not exist yet; <module> is a placeholder


def test_every_make_target_it_names_exists():
    targets = set(re.findall(r"^([\w-]+):", MAKEFILE, flags=re.M))
    named = set(re.findall(r"(?:^|`)make ([a-z][\w-]*)", GUIDE, flags=re.M))
    assert named and named <= targets, f"CONTRIBUTING.md names targets the Makefile lacks: {sorted(named - targets)}"


def test_every_file_it_names_exists():
    named = set(re.findall(r"(?<![\w/.])((?:helpers|tests|tools|notebooks|benchmarks)/[\w./<>-]*\w)", GUIDE))
    missing = sorted(path for path in named if not EXAMPLE.search(path) and not (ROOT / path).exists())
    assert named and not missing, f"CONTRIBUTING.md names files that do not exist: {missing}"
