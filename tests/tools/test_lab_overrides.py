"""The course's JupyterLab asks no "Would you like to get notified about official Jupyter news?".

tools/jupyterlab_overrides.json sets the notification plugin's `fetchNews` to
"false" (Never; the default "none" means Ask) and `checkForUpdates` to false;
`make setup` copies it into the venv's `share/jupyter/lab/settings/overrides.d/`,
where JupyterLab reads it as its defaults. These fast tests check the file
against the installed JupyterLab's own schema and that the copy is in place;
tests/tools/test_make_lab.py asks a running `make lab` server for the setting.
"""

import json
import subprocess
import sys
from pathlib import Path

import jsonschema

from tests import ROOT

OVERRIDES = ROOT / "tools" / "jupyterlab_overrides.json"
LAB_SETTINGS = ROOT / ".venv" / "share" / "jupyter" / "lab" / "settings"
INSTALLED = LAB_SETTINGS / "overrides.d" / "estimator-workbook.json"
SCHEMAS = Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas"
NOTIFICATION = "@jupyterlab/apputils-extension:notification"


def _schema(plugin_id: str) -> dict:
    package, plugin = plugin_id.split(":")
    path = SCHEMAS / package / f"{plugin}.json"
    assert path.exists(), (
        f"the installed JupyterLab has no plugin {plugin_id} ({path.name} missing)"
    )
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_overrides_set_real_settings_to_valid_values():
    overrides = json.loads(OVERRIDES.read_text(encoding="utf-8"))
    assert overrides[NOTIFICATION]["fetchNews"] == "false"
    for plugin_id, settings in overrides.items():
        properties = _schema(plugin_id)["properties"]
        for name, value in settings.items():
            assert name in properties, f"{plugin_id} has no setting {name!r}"
            jsonschema.validate(value, properties[name])
    never = [
        choice
        for choice in _schema(NOTIFICATION)["properties"]["fetchNews"]["oneOf"]
        if choice["const"] == "false"
    ]
    assert [choice["title"] for choice in never] == ["Never"]


def test_make_setup_installed_the_overrides():
    assert INSTALLED.exists(), f"run `make setup`: {INSTALLED.relative_to(ROOT)} is missing"
    assert INSTALLED.read_bytes() == OVERRIDES.read_bytes()
    target = INSTALLED.relative_to(ROOT).as_posix()
    plan = subprocess.run(
        ["make", "--no-print-directory", "-n", target],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "cp " not in plan, plan  # up to date with tools/jupyterlab_overrides.json
