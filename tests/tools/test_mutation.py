"""tools/mutation.py, the mutation runner (`make mutation`), on a tiny module of its own: it finds
the mutants, kills one, lets an equivalent one survive, and stops one that loops forever. No test
here needs a mutation run of helpers/: the runs' results are the runner's output, not committed."""

import re
import subprocess
import sys
import textwrap

import pytest

from tests import ROOT
from tools import mutation

MODULE = '''\
"""A docstring is not mutated."""

LIMIT = 10


def clamp(x, low=0, high=LIMIT):
    if x < low:
        return low
    return min(x, high)


def spin(n):
    while n:
        n -= 1


def unreached(flag):
    if not flag:
        raise ValueError("no flag")
    return flag and True
'''

TESTS = """\
from tinymod import clamp, spin


def test_clamp():
    assert clamp(-5) == 0
    assert clamp(3) == 3
    assert clamp(12) == 10


def test_spin():
    assert spin(2) is None
"""


def test_finds_the_usual_mutants_and_leaves_docstrings():
    found = {(m.line, m.scope, m.unit, m.description) for m in mutation.find_mutants(MODULE)}
    assert (3, "module", "LIMIT", "10 -> 11") in found
    assert (6, "default", "clamp", "0 -> 1") in found
    assert (7, "def", "clamp", "< -> <=") in found
    assert (8, "def", "clamp", "return x -> return None") in found
    assert (14, "def", "spin", "- -> +") in found
    assert (18, "def", "unreached", "not x -> x") in found
    assert (19, "def", "unreached", "raise -> pass") in found
    assert (19, "def", "unreached", "'no flag' -> ''") in found
    assert (20, "def", "unreached", "and -> or") in found
    assert (20, "def", "unreached", "True -> False") in found
    assert not any("docstring" in description for *_, description in found)


def test_a_constant_is_run_against_the_tests_of_the_functions_that_use_it():
    source = MODULE + textwrap.dedent("""
        SCALE = LIMIT * 2
        UNUSED = 3


        class Box:
            size = SCALE

            def area(self):
                return self.size ** 2
        """)
    users = mutation.constant_users(source)
    assert users["LIMIT"] == {"clamp", "Box.area"}  # a default, and through SCALE
    assert users["SCALE"] == {"Box.area"} and users["UNUSED"] == set()


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    (tmp_path / "tinymod.py").write_text(MODULE)
    (tmp_path / "test_tinymod.py").write_text(TESTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "tinymod", raising=False)
    yield tmp_path
    sys.modules.pop("tinymod", None)


def test_kills_a_mutant_lets_an_equivalent_survive_and_times_out_a_loop(tiny):
    run = mutation.measure(
        "tinymod.py",
        tests=["test_tinymod.py"],
        root=tiny,
        preimport=(),
        min_timeout=0.5,
        log=lambda line: None,
    )
    by_change = {(s["unit"], s["description"]): s["status"] for s in run["survivors"]}
    # x < 0 and x <= 0 agree on every value the test tries: the mutant survives
    assert by_change[("clamp", "< -> <=")] == "survived"
    # no test calls unreached(): its mutants are reported as reached by no test
    assert by_change[("unreached", "raise -> pass")] == "uncovered"
    # n += 1 loops forever: killed by the time limit, after a second try 4 times as long
    assert run["timeout"] == 1
    [looping] = run["timeouts"]
    assert looping["unit"] == "spin"
    assert re.fullmatch(r"over \d+ s, then over \d+ s", looping["detail"])
    assert by_change[("spin", "1 -> 2")] == "survived"  # 2, 0: spin(2) ends all the same
    assert run["killed"] == 4  # LIMIT = 11 (high's default too), low=1, both returns -> None
    assert ("clamp", "return x -> return None") not in by_change
    assert run["error"] == 0
    assert run["killed"] + run["timeout"] + run["survived"] + run["uncovered"] == run["run"]
    assert run["mode"] == "full" and run["mutants"] == run["run"]


def test_a_sample_is_seeded(tiny):
    def sampled(seed):
        run = mutation.measure(
            "tinymod.py",
            tests=["test_tinymod.py"],
            root=tiny,
            sample=1,
            seed=seed,
            preimport=(),
            min_timeout=2.0,
            log=lambda line: None,
        )
        assert run["mode"] == "sample" and run["run"] == 1
        return run

    assert sampled(1)["seed"] == 1


def test_the_tests_of_a_helpers_module():
    assert "tests/helpers/metrics/test_mistakes.py" in mutation.tests_of("helpers/metrics.py")
    assert mutation.tests_of("helpers/checks/notebook03.py") == [
        "tests/helpers/checks/test_blank_answers.py",
        "tests/helpers/checks/test_notebook03.py",
    ]
    # problems: most test files import it; its own tests are the ones run
    assert mutation.tests_of("helpers/problems.py") == ["tests/helpers/test_problems.py"]


def test_a_rerun_of_the_survivors_keeps_the_other_outcomes(tiny):
    # without spin(), whose looping mutant would take its time limit in both runs
    (tiny / "test_tinymod.py").write_text(TESTS.split("\n\n\ndef test_spin")[0] + "\n")

    def measure(previous=None):
        return mutation.measure(
            "tinymod.py",
            tests=["test_tinymod.py"],
            root=tiny,
            preimport=(),
            min_timeout=2.0,
            log=lambda line: None,
            previous=previous,
        )

    full = measure()
    again = measure(full)
    assert again["rerun"]["mutants"] == len(full["survivors"]) < full["run"]
    for key in ("run", "killed", "timeout", "survived", "uncovered", "error", "score"):
        assert again[key] == full[key], key
    assert again["survivors"] == full["survivors"]
    (tiny / "tinymod.py").write_text(MODULE.replace("LIMIT = 10", "LIMIT = 10\nOTHER = 3"))
    with pytest.raises(SystemExit, match="has changed since its latest run"):
        measure(full)


def measure_module(folder, monkeypatch, name, source, tests):
    """The runner's run of module ``name`` (``source``) against one test file (``tests``)."""
    (folder / f"{name}.py").write_text(source)
    (folder / f"test_{name}.py").write_text(tests)
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, name, raising=False)
    try:
        return mutation.measure(
            f"{name}.py",
            tests=[f"test_{name}.py"],
            root=folder,
            preimport=(),
            min_timeout=2.0,
            log=lambda line: None,
        )
    finally:
        sys.modules.pop(name, None)


CLEANER = """\
import os


def clean(path, keep=True):
    if not keep:
        os.remove(path)
    return path
"""


def test_a_mutant_that_deletes_the_dataset_cache_has_it_put_back(tmp_path, monkeypatch):
    # keep=True -> False deletes the file: the next mutants must still find data/ as it was
    cached = tmp_path / "data" / "mnist" / "train-images-idx3-ubyte.gz"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"images")
    run = measure_module(
        tmp_path,
        monkeypatch,
        "cleanermod",
        CLEANER,
        (
            "from pathlib import Path\nfrom cleanermod import clean\n\n"
            "def test_clean():\n"
            "    path = Path('data/mnist/train-images-idx3-ubyte.gz')\n"
            "    assert clean(path) == path and path.read_bytes() == b'images'\n"
        ),
    )
    assert cached.read_bytes() == b"images"
    assert run["survived"] == 0 and run["killed"] == run["run"]


CHAINED = """\
WORD = "disk"
FIXES = {"full": "free " + WORD}


def fix(kind):
    return FIXES[kind]
"""


def test_a_constant_built_from_a_mutated_one_is_built_again(tmp_path, monkeypatch):
    # 'disk' -> '': FIXES is made from WORD when the module is imported, so it changes too
    run = measure_module(
        tmp_path,
        monkeypatch,
        "chainedmod",
        CHAINED,
        ("from chainedmod import fix\n\ndef test_fix():\n    assert fix('full') == 'free disk'\n"),
    )
    assert run["survived"] == 0 and run["killed"] == run["run"] == 5


KEYED = """\
CASES = {"low": 1}


def first(low=CASES["low"]):
    return low
"""


def test_a_constant_whose_default_no_longer_evaluates_is_killed(tmp_path, monkeypatch):
    # 'low' -> '': the default CASES["low"] raises KeyError, as importing the module would
    run = measure_module(
        tmp_path,
        monkeypatch,
        "keyedmod",
        KEYED,
        ("from keyedmod import first\n\ndef test_first():\n    assert first() == 1\n"),
    )
    assert run["error"] == 0 and run["survived"] == 0
    assert run["killed"] == run["run"]


RUN = {
    "module": "helpers/events.py",
    "mode": "full",
    "seed": None,
    "mutants": 4,
    "run": 4,
    "killed": 3,
    "timeout": 0,
    "survived": 1,
    "uncovered": 0,
    "error": 0,
    "score": 75.0,
    "seconds": 12.0,
    "survivors": [
        {
            "id": 2,
            "line": 9,
            "unit": "load",
            "description": "< -> <=",
            "status": "survived",
            "detail": "",
        }
    ],
}


def test_the_latest_run_of_each_module_is_kept_and_tabled(tmp_path):
    results = tmp_path / ".mutation" / "results.json"
    mutation.save(
        {**RUN, "mode": "sample", "seed": 1, "run": 2, "killed": 1, "score": 50.0}, results
    )
    mutation.save(
        {**RUN, "killed": 4, "survived": 0, "score": 100.0, "seconds": 90.0, "survivors": []},
        results,
    )
    assert list(mutation.load(results)) == ["helpers/events.py"]
    table = mutation.table(results)
    assert "| `helpers/events.py` | full | 4 of 4 | 4 | 0 | 0 (0) | 100 % | 1.5 min |" in table
    assert "| `helpers/data.py` | not measured |" in table
    assert table.count("\n") == len(mutation.modules()) + 1
    mutation.save({**RUN, "mode": "sample", "seed": 3, "run": 2}, results)
    assert "| `helpers/events.py` | sample of 2 (seed 3) | 2 of 4 |" in mutation.table(results)


def test_the_survivors_are_printed_in_the_modules_order():
    first = RUN["survivors"][0]
    unreached = {**first, "id": 1, "line": 4, "unit": "save", "status": "uncovered"}
    assert mutation.survivors({**RUN, "survivors": [first, unreached]}) == (
        "  line 4 `save`: < -> <= (uncovered) \n  line 9 `load`: < -> <= (survived) \n"
    )
    assert mutation.survivors({**RUN, "survivors": []}) == ""


def test_make_mutation_keeps_its_runs_out_of_git():
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", str(mutation.RESULTS)], cwd=ROOT, check=False
    )
    assert ignored.returncode == 0, ".gitignore must ignore .mutation/ (make mutation's runs)"
