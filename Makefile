# The course's commands. Each target sets up what it needs and does no work
# twice: the virtual environment is rebuilt only when requirements.txt changes,
# the datasets are fetched only when a file is missing.
#
#   make lab        open the course in JupyterLab
#   make test       run every test: helpers' unit tests and every notebook (fast mode)
#   make notebooks  re-execute the notebooks in full mode (the committed outputs)
#   make student    write the student copies (solutions blanked) into notebooks/student/
#   make keras-latest  run notebook 10's Keras part on the newest TensorFlow (second venv)
#   make benchmark  measure the course's performance figures (README, Performance)
#
# Offline or in a classroom: make lab DATASETS=/media/usb/datasets

SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
KERNEL := estimator-workbook
KERNEL_SPEC := $(VENV)/share/jupyter/kernels/$(KERNEL)/kernel.json
INSTALLED := $(VENV)/.installed
DATASETS ?=
ifneq ($(strip $(DATASETS)),)
export WORKBOOK_DATASETS := $(abspath $(DATASETS))
endif
NOTEBOOKS := $(sort $(wildcard notebooks/[0-9][0-9]_*.ipynb))
PYTEST_ARGS ?=
NBVAL_ARGS := --nbval-lax --nbval-current-env --nbval-cell-timeout=1200 \
	--nbval-sanitize-with=tests/nbval_sanitize.cfg -p tests.nbval_plugin

.PHONY: setup data lab test notebooks student benchmark clean

setup: $(INSTALLED) $(KERNEL_SPEC) data

$(INSTALLED): requirements.txt
	@test -x $(PY) || { python=$$(tools/find-python) && echo "Creating $(VENV) with $$python" && $$python -m venv $(VENV); }
	$(PY) -m pip install --disable-pip-version-check -q -r requirements.txt
	@# Let every kernel of this venv import the course's helpers package.
	@$(PY) -c 'import pathlib, site, sys; pathlib.Path(site.getsitepackages()[0], "estimator_workbook.pth").write_text(sys.argv[1] + "\n")' "$(CURDIR)"
	@touch $@

$(KERNEL_SPEC): $(INSTALLED)
	$(PY) -m ipykernel install --sys-prefix --name $(KERNEL) --display-name "Estimator workbook (TF 2.15)" > /dev/null
	@echo "Registered the Jupyter kernel '$(KERNEL)'"

data: $(INSTALLED)
	@$(PY) -m helpers.data fetch

# JupyterLab refuses to run as root unless told; containers often run as root.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

lab: setup
	cd notebooks && ../$(VENV)/bin/jupyter lab $(ROOT_FLAG) $(LAB_ARGS)

test: setup
	WORKBOOK_FAST=1 $(PY) -m pytest $(NBVAL_ARGS) $(PYTEST_ARGS) tests $(NOTEBOOKS)

notebooks: setup
	$(PY) tools/run_notebooks.py $(NOTEBOOKS)

student: setup
	$(PY) tools/make_student.py $(NOTEBOOKS)

benchmark: setup
	$(PY) benchmarks/run.py --update-readme $(BENCHMARK_ARGS)

clean:
	rm -rf $(VENV) .venv-latest models .pytest_cache

# The Keras part of notebook 10 on the newest TensorFlow (Keras 3), in a second
# environment: make keras-latest (fast mode), make keras-latest KERAS_LATEST_ARGS=--full
VENV_LATEST := .venv-latest
PY_LATEST := $(VENV_LATEST)/bin/python
INSTALLED_LATEST := $(VENV_LATEST)/.installed
KERAS_LATEST_ARGS ?=

.PHONY: keras-latest

$(INSTALLED_LATEST): requirements-latest.txt
	@test -x $(PY_LATEST) || { python=$$(PYTHON=$${PYTHON:-python3.11} tools/find-python) && $$python -c 'import sys; sys.exit(sys.version_info[:2] < (3, 10))' || { echo "The newest TensorFlow needs Python 3.10 or newer: run make keras-latest PYTHON=/path/to/python3.11" >&2; exit 1; }; echo "Creating $(VENV_LATEST) with $$python" && $$python -m venv $(VENV_LATEST); }
	$(PY_LATEST) -m pip install --disable-pip-version-check -q -r requirements-latest.txt
	@# Let this venv import the course's helpers package.
	@$(PY_LATEST) -c 'import pathlib, site, sys; pathlib.Path(site.getsitepackages()[0], "estimator_workbook.pth").write_text(sys.argv[1] + "\n")' "$(CURDIR)"
	@touch $@

keras-latest: $(INSTALLED_LATEST)
	$(PY_LATEST) tools/keras_latest.py $(KERAS_LATEST_ARGS)
