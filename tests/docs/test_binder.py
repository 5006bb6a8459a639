"""The no-install ways in: Binder (binder/, read by repo2docker) and Codespaces (.devcontainer/).

Neither can be built here (no Docker engine). These tests keep both consistent
with what `make setup` does: the Python version, the lock, the kernel the
notebooks ask for, the set-up steps, and the dev container keys of the spec.
"""

from __future__ import annotations

import json
import os
import re
import subprocess

import nbformat

from tests import ROOT

BINDER = ROOT / "binder"
DEVCONTAINER = ROOT / ".devcontainer" / "devcontainer.json"


def makefile_install():
    """(lock file, accepted Python versions) of `make setup`'s install step."""
    match = re.search(
        r"tools/make-venv \$\(VENV\) (\S+) ([\d. ]+)$", (ROOT / "Makefile").read_text(), flags=re.M
    )
    assert match, (
        "the Makefile's install step is no longer `tools/make-venv $(VENV) <lock> <versions>`"
    )
    return match.group(1), match.group(2).split()


def notebook_kernel() -> str:
    names = {
        nbformat.read(path, as_version=4).metadata.kernelspec.name
        for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")
    }
    assert len(names) == 1, names
    return names.pop()


def test_binder_asks_for_a_python_the_course_installs_on():
    runtime = (BINDER / "runtime.txt").read_text().strip()
    assert re.fullmatch(r"python-3\.\d+", runtime), runtime
    _, versions = makefile_install()
    assert runtime.removeprefix("python-") == versions[0], (
        "Binder should use the course's preferred Python"
    )


def test_binder_installs_the_lock_that_make_installs():
    lock, _ = makefile_install()
    lines = [
        line.strip()
        for line in (BINDER / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert lines == [f"-r ../{lock}"]
    assert (ROOT / lock).is_file()
    assert "--hash=sha256:" in (ROOT / lock).read_text()  # pip checks every file it installs


def test_postbuild_runs_make_setup_on_the_image_python_and_installs_the_proxy_setting():
    post_build = BINDER / "postBuild"
    assert os.access(post_build, os.X_OK)
    subprocess.run(["bash", "-n", str(post_build)], check=True)
    text = post_build.read_text()
    assert 'make setup VENV="${NB_PYTHON_PREFIX}"' in text
    copied = re.search(
        r"^cp (\S+) \"\$\{NB_PYTHON_PREFIX\}/etc/ipython/ipython_kernel_config.py\"$",
        text,
        flags=re.M,
    )
    assert copied and (ROOT / copied.group(1)).is_file()


def test_make_setup_with_another_prefix_registers_the_kernel_the_notebooks_ask_for():
    prefix = "/srv/conda/envs/notebook"  # repo2docker's NB_PYTHON_PREFIX
    dry_run = subprocess.run(
        ["make", "-n", "--no-print-directory", "setup", f"VENV={prefix}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    # the helpers on the kernel's path (a .pth file), written by the prefix's own Python
    assert re.search(
        rf"^{prefix}/bin/python .*(link_helpers|estimator_workbook\.pth)", dry_run, flags=re.M
    ), dry_run
    kernel = re.search(
        rf"{prefix}/bin/python -m ipykernel install --sys-prefix --name (\S+)", dry_run
    )
    assert kernel and kernel.group(1) == notebook_kernel()
    assert f"{prefix}/bin/python -m helpers.data fetch" in dry_run


def read_jsonc(path):
    """devcontainer.json allows // comments (whole lines here)."""
    return json.loads(
        "\n".join(
            line for line in path.read_text().splitlines() if not line.lstrip().startswith("//")
        )
    )


# Keys of an image-based dev container, from the spec's schema
# (devcontainers/spec, schemas/devContainer.base.schema.json: devContainerCommon,
# nonComposeBase, imageContainer); the schema rejects any other top-level key.
SPEC_KEYS = {
    "name",
    "features",
    "overrideFeatureInstallOrder",
    "forwardPorts",
    "portsAttributes",
    "otherPortsAttributes",
    "updateRemoteUserUID",
    "containerEnv",
    "containerUser",
    "mounts",
    "init",
    "privileged",
    "capAdd",
    "securityOpt",
    "remoteEnv",
    "remoteUser",
    "initializeCommand",
    "onCreateCommand",
    "updateContentCommand",
    "postCreateCommand",
    "postStartCommand",
    "postAttachCommand",
    "waitFor",
    "userEnvProbe",
    "hostRequirements",
    "customizations",
    "appPort",
    "runArgs",
    "shutdownAction",
    "overrideCommand",
    "workspaceFolder",
    "workspaceMount",
    "image",
}


def test_devcontainer_uses_only_spec_keys_and_sets_up_with_make():
    config = read_jsonc(DEVCONTAINER)
    assert set(config) <= SPEC_KEYS, set(config) - SPEC_KEYS
    _, versions = makefile_install()
    assert re.fullmatch(
        rf"mcr\.microsoft\.com/devcontainers/python:(\d+-)?{re.escape(versions[0])}-\w+",
        config["image"],
    )
    assert config["postCreateCommand"] == "make setup"
    for key in ("memory", "storage"):
        assert re.fullmatch(r"\d+([tgmk]b)?", config["hostRequirements"][key])
    assert isinstance(config["hostRequirements"]["cpus"], int)
    assert all(isinstance(port, int) for port in config["forwardPorts"])
    assert set(config["portsAttributes"]) <= {str(port) for port in config["forwardPorts"]}
    assert config["containerEnv"]["TENSORBOARD_PROXY_URL"] == "/proxy/%PORT%/"
    assert all(isinstance(value, str) for value in config["containerEnv"].values())
