"""CONTRIBUTING.md names only make targets and files that exist (but its example, notebook 12)."""

from __future__ import annotations

import re
import subprocess

from tests import ROOT

GUIDE = (ROOT / "CONTRIBUTING.md").read_text()
MAKEFILE = (ROOT / "Makefile").read_text()
# notebook 12 and its files do not exist yet; <module>, notebookNN and NN_name are placeholders
EXAMPLE = re.compile(r"12|<|notebookNN|NN_name")
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
    assert missing_files("tests/helpers/test_<module>.py, notebooks/12_serving.ipynb") == []


def make_help() -> dict:
    """``{target: its line}`` as `make help` prints them."""
    listed = subprocess.run(
        ["make", "--no-print-directory", "-s", "help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return dict(re.findall(r"^make ([\w-]+) +(\S.*)$", listed, flags=re.M))


def test_make_help_lists_every_target_the_guide_names_with_one_line_each():
    listed = make_help()
    assert {"sync", "lib", "unit", "lint", "test", "mutation", "help"} <= set(listed)
    named = set(re.findall(r"(?:^|`)make ([a-z][\w-]*)", GUIDE, flags=re.M))
    assert not named - set(listed), (
        f"CONTRIBUTING.md names targets make help does not list: {sorted(named - set(listed))}: "
        "give each a '## ' comment on its line in the Makefile"
    )


def test_make_sync_runs_each_generating_step_in_order():
    recipe = re.search(r"^sync:(.*)\n((?:\t.*\n)+)", MAKEFILE, flags=re.M)
    assert recipe, "the Makefile has no sync target"
    steps = recipe.group(1) + recipe.group(2)
    # the edition before the runs (a stale zh-TW notebook is executed beside its English one),
    # the student copies after them
    order = ["lib", "tools.run_times", " po", " zh-tw", "run_notebooks --with-edition", " student"]
    found = [steps.find(step) for step in order]
    assert -1 not in found and found == sorted(found), (
        f"make sync must run {order} in this order: {dict(zip(order, found))}"
    )


def test_the_guide_does_not_send_a_contributor_to_a_mutation_run_to_land_a_change():
    adding = GUIDE.split("## Adding a notebook", 1)[1]
    assert "mutation" not in adding.lower()
    assert "(git-ignored)" in GUIDE.split("## Mutation testing", 1)[1].split("\n## ", 1)[0]


WHOLE_GENERATED = (
    "notebooks/student/00_setup_and_data.ipynb",
    "notebooks/zh-TW/00_setup_and_data.ipynb",
    "notebooks/zh-TW/student/00_setup_and_data.ipynb",
    "README.zh-TW.md",
    "TEACHING.zh-TW.md",
    "requirements.lock",
    "benchmarks/results.json",
)


def test_whole_generated_files_are_marked_generated_and_sources_are_not():
    marked = subprocess.run(
        ["git", "check-attr", "linguist-generated", "--", *WHOLE_GENERATED, "README.md"]
        + ["notebooks/00_setup_and_data.ipynb", "translations/zh_TW/README.po"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    value = dict(re.findall(r"^(.*): linguist-generated: (\S+)$", marked, flags=re.M))
    assert all(value[path] == "true" for path in WHOLE_GENERATED), value
    assert value["README.md"] == value["notebooks/00_setup_and_data.ipynb"] == "unspecified"
    assert value["translations/zh_TW/README.po"] == "unspecified"  # translated by hand
