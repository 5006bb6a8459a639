"""Each notebook's outputs were made with today's helpers (the ``helpers_sha256`` run stamp).

``tools/run_notebooks.py`` (``make notebooks``) stores in every notebook's
metadata the SHA-256 of each ``helpers/`` file the notebook runs — the modules
its cells import (read by ``tools/notebook_code.py``) and everything they
import, found by ``tools/helpers_deps.py`` — and one hash of them all. Here the
stored hash is compared with today's files: after a helper changes, the
notebooks that run it fail until they are re-executed, and the message names the
files that changed. The zh-TW edition's notebooks are run in zh_TW: their stamp
covers the helpers' catalogue too, whose sentences their outputs show. The search
itself is tried on a small made-up package.
"""

from __future__ import annotations

from tests import ROOT
import copy

import nbformat
import pytest

from tools import helpers_deps
from tools.run_notebooks import HELPERS_CATALOGUE, helpers_stamp, notebook_language

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
ZH_TW_NOTEBOOKS = sorted((ROOT / "notebooks" / "zh-TW").glob("[0-9][0-9]_*.ipynb"))


def stale_helpers(notebook, number: str, language: str = "en") -> str | None:
    """Why this notebook's outputs are not from today's helpers, in one line; None when they are."""
    stored = notebook.metadata.get("workbook", {})
    today = helpers_stamp(notebook, language)
    if stored.get("helpers_sha256") == today["helpers_sha256"]:
        return None
    fix = f"re-execute notebook {number} with make sync"
    if "helpers_files" not in stored:
        return f"notebook {number}: its run stamp does not list the helpers files it ran: {fix}"
    before, now = stored["helpers_files"], today["helpers_files"]
    changed = [name for name in sorted(set(before) | set(now)) if before.get(name) != now.get(name)]
    return (
        f"notebook {number}: its outputs were made with other helpers than today's "
        f"(changed since: {', '.join(changed)}): {fix}"
    )


@pytest.mark.parametrize(
    "path", NOTEBOOKS + ZH_TW_NOTEBOOKS, ids=lambda p: p.relative_to(ROOT / "notebooks").as_posix()
)
def test_outputs_were_made_with_todays_helpers(path):
    number = f"zh-TW/{path.name[:2]}" if "zh-TW" in path.parts else path.name[:2]
    problem = stale_helpers(nbformat.read(path, as_version=4), number, notebook_language(path))
    assert problem is None, problem


def test_a_changed_helper_is_named_with_the_fix():
    notebook = nbformat.read(NOTEBOOKS[0], as_version=4)
    notebook.metadata["workbook"] = {
        **notebook.metadata.get("workbook", {}),
        **helpers_stamp(notebook),
    }
    assert stale_helpers(notebook, "00") is None
    edited = copy.deepcopy(notebook)
    edited.metadata["workbook"]["helpers_files"]["helpers/course_setup.py"] = "0" * 64
    edited.metadata["workbook"]["helpers_sha256"] = helpers_deps.combined_hash(
        edited.metadata["workbook"]["helpers_files"]
    )
    problem = stale_helpers(edited, "00")
    assert problem.endswith(
        "(changed since: helpers/course_setup.py): re-execute notebook 00 with make sync"
    )
    edited.metadata["workbook"] = {"helpers_sha256": "old"}
    assert "re-execute notebook 00 with make sync" in stale_helpers(edited, "00")


CATALOGUE_ENTRIES = """\
#: helpers/logs.py:3
msgid "Quiet, {name}."
msgstr "{name}，安靜。"

#: helpers/cluster.py:9 helpers/cluster_task.py:2
msgid "A worker stopped."
msgstr "有個 worker 停了。"

#, fuzzy
#: helpers/logs.py:5
msgid "Loud."
msgstr "大聲。"
"""


def test_a_zh_tw_run_s_stamp_covers_the_translations_it_can_show(package, monkeypatch):
    """A changed translation of a sentence a notebook's helpers say changes its zh-TW outputs, not
    an English notebook's, nor a notebook whose helpers never say it; a moved line, a fuzzy entry
    (shown in English) or another layout changes nothing."""
    (package / "helpers" / "language.py").write_text("import gettext\n")
    (package / "helpers" / "logs.py").write_text("from . import language\n")
    catalogue = package / HELPERS_CATALOGUE.format(language="zh_TW")
    catalogue.parent.mkdir(parents=True)
    catalogue.write_text(CATALOGUE_ENTRIES, encoding="utf-8")
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("from helpers import course_setup")]
    )
    monkeypatch.setattr(helpers_deps, "ROOT", package)
    english, chinese = helpers_stamp(notebook), helpers_stamp(notebook, "zh_TW")
    assert set(chinese["helpers_files"]) - set(english["helpers_files"]) == {
        "translations/zh_TW/helpers.po"
    }

    def stamp_after(old, new):
        catalogue.write_text(CATALOGUE_ENTRIES.replace(old, new), encoding="utf-8")
        assert helpers_stamp(notebook) == english
        return helpers_stamp(notebook, "zh_TW")["helpers_sha256"]

    before = chinese["helpers_sha256"]
    assert (
        stamp_after("{name}，安靜。", "{name}，請安靜。") != before
    )  # said by logs.py, which it runs
    assert (
        stamp_after("有個 worker 停了。", "一個 worker 停止了。") == before
    )  # cluster.py: not run
    assert stamp_after("logs.py:3", "logs.py:30") == before  # a moved line
    assert stamp_after('msgstr "大聲。"', 'msgstr "很大聲。"') == before  # fuzzy: shown in English
    assert stamp_after('msgstr "{name}，安靜。"', 'msgstr ""\n"{name}，安靜。"') == before  # layout
    (package / "helpers" / "logs.py").write_text("import os\n")  # language.py no longer run
    assert helpers_stamp(notebook, "zh_TW")["helpers_files"].keys() == {
        "helpers/__init__.py",
        "helpers/logs.py",
        "helpers/course_setup.py",
        "helpers/data.py",
        "helpers/problems.py",
    }


def test_the_notebooks_run_the_helpers_they_import():
    notebook = nbformat.read(NOTEBOOKS[0], as_version=4)
    files = helpers_stamp(notebook)["helpers_files"]
    imported = {"helpers/__init__.py", "helpers/course_setup.py", "helpers/checks/__init__.py"}
    assert imported <= set(files)
    assert "helpers/cluster.py" not in files  # notebook 00 starts no cluster


def test_a_change_to_one_notebooks_checks_makes_that_notebook_stale_and_no_other():
    """Each notebook imports its own checks module: notebook 02's checks are notebook 02's."""
    runs = {
        path.name[:2]: set(helpers_stamp(nbformat.read(path, as_version=4))["helpers_files"])
        for path in NOTEBOOKS
    }
    running = sorted(n for n, files in runs.items() if "helpers/checks/notebook02.py" in files)
    assert running == ["02"], running
    for number, files in runs.items():
        own = {f for f in files if f.startswith("helpers/checks/notebook")}
        assert own <= {f"helpers/checks/notebook{number}.py", "helpers/checks/notebook04.py"}, (
            number,
            own,
        )


@pytest.fixture
def package(tmp_path):
    """A made-up helpers package with every kind of import the search follows."""
    files = {
        "__init__.py": "from .logs import quiet\n",
        "logs.py": "import os\n",
        "course_setup.py": "from . import logs\nfrom .data import load as _load\n",
        "data.py": "def load():\n    from helpers.problems import Problem\n",
        "problems.py": "class Problem(Exception): pass\n",
        "cluster.py": "import subprocess\nCOMMAND = ['python', '-m', 'helpers.cluster_task']\n",
        "cluster_task.py": "from .models import cnn\n",
        "models.py": "cnn = None\n",
        "unused.py": "x = 1\n",
        "checks/__init__.py": "from ..problems import Problem\nfrom .notebook00 import *\n",
        "checks/notebook00.py": "from .common import say\n",
        "checks/common.py": "def say(): pass\n",
    }
    for name, text in files.items():
        path = tmp_path / "helpers" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def _deps(sources, root):
    return {
        path.relative_to(root / "helpers").as_posix()
        for path in helpers_deps.dependencies(sources, root)
    }


def test_search_follows_relative_absolute_and_function_imports(package):
    assert _deps(["from helpers import course_setup\nsetup.start()"], package) == {
        "__init__.py",
        "logs.py",
        "course_setup.py",
        "data.py",
        "problems.py",
    }


def test_search_follows_a_child_process_started_with_dash_m(package):
    assert {"cluster.py", "cluster_task.py", "models.py"} <= _deps(
        ["import helpers.cluster as c"], package
    )


def test_search_reads_cells_with_ipython_syntax_and_parenthesised_imports(package):
    cell = "%load_ext tensorboard\n!ls\nfrom helpers.checks import (\n    notebook00 as nb,\n)\n"
    assert _deps([cell], package) == {
        "__init__.py",
        "logs.py",
        "problems.py",
        "checks/__init__.py",
        "checks/notebook00.py",
        "checks/common.py",
    }


def test_an_attribute_is_not_taken_for_a_module(package):
    assert _deps(["helpers.models.cnn.fit()"], package) == {"__init__.py", "logs.py", "models.py"}


def test_a_change_to_a_file_the_notebook_runs_changes_the_hash_and_others_do_not(package):
    sources = ["from helpers import course_setup"]
    before = helpers_deps.combined_hash(helpers_deps.file_digests(sources, package))
    (package / "helpers" / "unused.py").write_text("x = 2\n")
    assert helpers_deps.combined_hash(helpers_deps.file_digests(sources, package)) == before
    (package / "helpers" / "problems.py").write_text("class Problem(ValueError): pass\n")
    assert helpers_deps.combined_hash(helpers_deps.file_digests(sources, package)) != before
