"""What every benchmark reports beside its figures (benchmarks/reporting.py): the machine, the load,
a time, and the generated section of a doc it writes them into."""

from __future__ import annotations

import re

import pytest


@pytest.fixture(scope="module")
def reporting(load_script):
    return load_script("benchmarks/reporting.py")


DOC = "intro\n<!-- figures:start -->\nold\nlines\n<!-- figures:end -->\nrest\n"


def test_write_section_replaces_only_what_is_between_the_markers(reporting, tmp_path):
    doc = tmp_path / "DOC.md"
    doc.write_text(DOC)
    reporting.write_section(doc, "figures", "new figures\n")
    assert (
        doc.read_text()
        == "intro\n<!-- figures:start -->\nnew figures\n<!-- figures:end -->\nrest\n"
    )
    assert reporting.section(doc, "figures") == "new figures\n"
    reporting.write_section(doc, "figures", "no newline at the end")  # written the same way
    assert reporting.section(doc, "figures") == "no newline at the end\n"


@pytest.mark.parametrize(
    "text",
    [
        "no markers\n",
        "<!-- figures:start -->\nonly the start\n",
        "<!-- figures:end -->\nin the wrong order\n<!-- figures:start -->\n",
        DOC + DOC,  # twice: which one to write?
    ],
)
def test_a_doc_without_one_pair_of_markers_is_left_alone_and_named(reporting, tmp_path, text):
    doc = tmp_path / "DOC.md"
    doc.write_text(text)
    with pytest.raises(
        SystemExit, match=r"DOC\.md needs one <!-- figures:start --> line .* add them"
    ):
        reporting.write_section(doc, "figures", "x\n")
    assert doc.read_text() == text


def test_the_machine_is_described_by_what_it_has(reporting):
    found = reporting.machine()
    assert set(found) == {"cpu", "cores", "memory", "os", "python"}
    assert found["cores"] >= 1 and re.fullmatch(r"\d+ GiB", found["memory"])
    assert reporting.describe(found).endswith(f", Python {found['python']}")
    assert (
        reporting.describe({"cores": 2, "memory": "24 GiB", "python": "3.11.7"})
        == "2 cores, 24 GiB, Python 3.11.7"
    )


@pytest.mark.parametrize(
    "seconds, text",
    [
        (8.3, "8 s"),
        (59.4, "59 s"),
        (59.6, "1 min 00 s"),
        (74.7, "1 min 15 s"),
        (119.7, "2 min 00 s"),
    ],
)
def test_durations_are_written_as_the_reports_write_them(reporting, seconds, text):
    assert reporting.duration(seconds) == text


def test_load_and_time_stamps(reporting):
    assert re.fullmatch(r"\d+\.\d\d / \d+\.\d\d / \d+\.\d\d", reporting.load_average())
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", reporting.timestamp())
