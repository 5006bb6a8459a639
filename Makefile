# The course's commands: `make help` lists them, one line each (the `## ` comment on a target's
# line). Each target sets up what it needs and does no work twice: the virtual environment is
# updated only when requirements.lock changes, the datasets are fetched only when a file is
# missing, and `make sync` rewrites only the generated files whose sources changed. Tools run as
# `python -m tools.<name>` from the checkout's folder.
#
# Offline or in a classroom: make lab DATASETS=/media/usb/datasets

SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
KERNEL := estimator-workbook
KERNEL_SPEC := $(VENV)/share/jupyter/kernels/$(KERNEL)/kernel.json
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.d/$(KERNEL).json
KERNEL_CONFIG := $(VENV)/etc/ipython/ipython_kernel_config.py
INSTALLED := $(VENV)/.installed
DATASETS ?=
ifneq ($(strip $(DATASETS)),)
export WORKBOOK_DATASETS := $(abspath $(DATASETS))
endif
NOTEBOOKS := $(sort $(wildcard notebooks/[0-9][0-9]_*.ipynb))
# make test also runs every notebook of the zh-TW edition: each from its own folder, where the
# helpers speak zh_TW (helpers/language.py).
ZH_TW_RUN := $(sort $(wildcard notebooks/zh-TW/[0-9][0-9]_*.ipynb))
PYTEST_ARGS ?=
NBVAL_ARGS := --nbval-lax --nbval-current-env --nbval-cell-timeout=1200 \
	--nbval-sanitize-with=tests/nbval_sanitize.cfg -p tests.nbval_plugin

.PHONY: setup help data lab test notebooks student benchmark clean

setup: $(INSTALLED) $(KERNEL_SPEC) $(KERNEL_CONFIG) $(LAB_OVERRIDES) data ## the venv, the kernel, the datasets (make's default)

help: ## this list
	@awk -F ':[^#]*## ' '/^[a-z][a-z-]*:[^#=]*## / { printf "make %-20s %s\n", $$1, $$2 }' \
		$(firstword $(MAKEFILE_LIST))

# tools/make-venv: a Python 3.9-3.11 (found, or provided by uv), the lock installed with uv (else pip).
$(INSTALLED): requirements.lock
	@tools/make-venv $(VENV) requirements.lock 3.11 3.10 3.9
	@# Let every kernel of this venv import the course's helpers package.
	@$(PY) -m tools.link_helpers
	@touch $@

$(KERNEL_SPEC): $(INSTALLED)
	$(PY) -m ipykernel install --sys-prefix --name $(KERNEL) --display-name "Estimator workbook (TF 2.15)" > /dev/null
	@echo "Registered the Jupyter kernel '$(KERNEL)'"

# The course kernel's configuration (tools/ipython_kernel_config.py): the venv's programs on the
# kernel's PATH (%tensorboard finds tensorboard), TensorBoard framed through the server's proxy on
# a JupyterHub, and the TensorBoards a kernel started stopped when it ends.
$(KERNEL_CONFIG): tools/ipython_kernel_config.py $(INSTALLED)
	@mkdir -p $(dir $@)
	@cp $< $@
	@echo "Installed the course kernel's configuration"

# JupyterLab's defaults for the course (tools/jupyterlab_overrides.json): no "Jupyter news" prompt
# and no update check. In overrides.d, so a teacher's own overrides.json still has the last word.
$(LAB_OVERRIDES): tools/jupyterlab_overrides.json $(INSTALLED)
	@mkdir -p $(dir $@)
	@cp $< $@
	@echo "Installed JupyterLab's settings overrides for the course"

data: $(INSTALLED)
	@$(PY) -m helpers.data fetch

# JupyterLab refuses to run as root unless told; containers often run as root.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

lab: setup ## open the course in JupyterLab
	cd notebooks && ../$(VENV)/bin/jupyter lab $(ROOT_FLAG) $(LAB_ARGS)

# make test, in three parts (WORKBOOK_LANGUAGE empty: each notebook's folder chooses the helpers'
# language; TEST_WORKERS processes of pytest-xdist, each taking a notebook or a test file whole):
# 1. the unit tests that compare TensorFlow's numbers (metrics against scikit-learn, exported
#    models against the Estimator) with oneDNN the other way round from this CPU's default
#    (tests/support/cpu.py: on an Intel CPU with AVX-512 VNNI this is an AMD CPU's rounding);
# 2. every test, the English notebooks but those that assert a speed, and the zh-TW edition as
#    nbgrader grades it, also with oneDNN flipped (tests/nbval_plugin.py), side by side;
# 3. the English notebooks that assert a speed (02, 11), one at a time with nothing beside them.
# Beside the notebooks a unit test runs on a loaded machine (CI's failure: 2 s alone, 41 s there),
# so part 2 lets it take 4 times make unit's 30 s: the limit keeps make unit quick, not CI timed.
TEST_WORKERS ?= 2
TEST_RUN = WORKBOOK_FAST=1 WORKBOOK_LANGUAGE= $(PY) -m pytest $(NBVAL_ARGS) $(PYTEST_ARGS)
NUMERIC_TESTS := tests/helpers/metrics tests/helpers/test_export.py tests/helpers/test_models.py \
	tests/helpers/test_throughput.py
test: setup teacher hub ## every test and every notebook in fast mode, as CI runs them
	TF_ENABLE_ONEDNN_OPTS=$$($(PY) -m tests.support.cpu) TF_CPP_MIN_LOG_LEVEL=3 $(TEST_RUN) \
		-n $(TEST_WORKERS) -m "not slow" -q $(NUMERIC_TESTS)
	WORKBOOK_UNIT_SECONDS=120 $(TEST_RUN) -n $(TEST_WORKERS) --dist loadfile --durations=20 \
		--edition-as-graded --speed-notebooks=apart tests $(NOTEBOOKS) $(ZH_TW_RUN)
	$(TEST_RUN) --durations=10 --speed-notebooks=only $(NOTEBOOKS)

# One notebook in both editions, as make test checks it (CONTRIBUTING.md): make check NB=05 runs
# ruff on the notebook and its checks module, that module's bank of wrong answers, the tests of
# tests/notebooks/ for that notebook (hygiene, student copies, grading-skip, run times) and nbval
# on the English notebook and the zh-TW one (graded, oneDNN flipped), side by side.
.PHONY: check
check: setup ## one notebook in both editions: make check NB=05 (lint, checks' tests, nbval)
	@test -n "$(NB)" || { echo "make check needs the notebook's number: make check NB=05" >&2; exit 2; }
	$(VENV)/bin/ruff check notebooks/$(NB)_*.ipynb $(wildcard helpers/checks/notebook$(NB).py)
	$(TEST_RUN) -n $(TEST_WORKERS) --dist loadfile --edition-as-graded -k "$(NB)_ or notebook$(NB)" \
		tests/notebooks $(wildcard tests/helpers/checks/test_notebook$(NB).py) \
		notebooks/$(NB)_*.ipynb notebooks/zh-TW/$(NB)_*.ipynb

# A new notebook (CONTRIBUTING.md, "Adding a notebook"): make new-notebook N=12 NAME=serving writes
# notebooks/12_serving.ipynb from tools/NN_template.ipynb, its checks module and their test, and a
# row in README.md and TEACHING.md (tools/new_notebook.py); it overwrites nothing.
.PHONY: new-notebook
new-notebook: $(INSTALLED) ## start a notebook from the template: make new-notebook N=12 NAME=serving
	$(PY) -m tools.new_notebook "$(N)" "$(NAME)"

# Without the notebooks and the tests tests/conftest.py calls slow (training for real,
# kernels, Jupyter servers, nbgrader), in UNIT_WORKERS processes (pytest-xdist; 1: in
# this process, e.g. for pdb). TensorFlow's start-up lines are silenced: each worker
# imports it before pytest captures anything.
UNIT_WORKERS ?= 2
.PHONY: unit lint format
# ruff format's folders (the notebooks keep their cells' layout; make lib's blocks are fmt: off).
FORMATTED := helpers tools tests benchmarks
unit: setup ## the unit tests, without the notebooks and the slow tests (about 1 min)
	WORKBOOK_FAST=1 TF_CPP_MIN_LOG_LEVEL=3 $(PY) -m pytest -m "not slow" --durations=15 \
		$(if $(filter-out 1,$(UNIT_WORKERS)),-n $(UNIT_WORKERS)) $(PYTEST_ARGS) tests

lint: $(INSTALLED) ## ruff check, and ruff format --check
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check $(FORMATTED)

format: $(INSTALLED) ## ruff format over helpers/ tools/ tests/ benchmarks/
	$(VENV)/bin/ruff format $(FORMATTED)

# The #@save cells' generated blocks in helpers/ first (tools/make_lib.py), so that the notebooks
# run, and are stamped with, the helpers their cells define.
.PHONY: lib sync
lib: $(INSTALLED) ## write the notebooks' #@save cells into their helpers modules
	$(PY) -m tools.make_lib

notebooks: setup lib ## re-execute, in full mode, the notebooks whose code or helpers changed
	$(PY) -m tools.run_notebooks $(NOTEBOOKS)
	@# The zh-TW edition runs the English code: a zh-TW notebook whose code or helpers changed
	@# is rebuilt without its run stamp (tools/edition.py), then executed from notebooks/zh-TW/.
	@# The student copies (no outputs) are make sync's.
	$(PY) -m tools.edition
	$(PY) -m tools.run_notebooks $(ZH_TW_NOTEBOOKS)

# Every generated file brought up to date, in order (CONTRIBUTING.md, "A one-line change"): the
# #@save blocks (make lib), the run-time lines from benchmarks/results.json, the catalogues, the
# zh-TW edition (a zh-TW notebook whose code, helpers or helpers' sentences changed loses its run
# stamp), then every stale notebook executed in full mode, the English one and its zh-TW copy side
# by side when both are stale (tools/run_notebooks.py --with-edition: in zh-TW the helpers speak
# zh_TW), and last the student copies of both editions, from the executed notebooks. Each step
# writes only a file whose text changes, so with nothing changed it writes nothing. One sub-make
# per step: in this order even under make -j (the edition needs the merged catalogues).
sync: teacher lib ## bring every generated file up to date, in order; only what changed
	$(PY) -m tools.run_times
	@$(MAKE) --no-print-directory po
	@$(MAKE) --no-print-directory zh-tw
	$(PY) -m tools.run_notebooks --with-edition $(NOTEBOOKS)
	@$(MAKE) --no-print-directory student
	$(PY_TEACHER) -m tools.make_student $(ZH_TW_NOTEBOOKS)

student: .venv-teacher/.installed ## write the student copies of the English notebooks
	$(PY_TEACHER) -m tools.make_student $(NOTEBOOKS)

# The zh-TW edition (translations/README.md). make po merges the English into the gettext
# catalogues (changed blocks fuzzy, removed ones obsolete, new ones empty); make zh-tw builds the
# edition from the English and the catalogues, then its student copies as make student does. It
# keeps each zh-TW notebook's outputs from its own run while its code and helpers are unchanged,
# else it gives it the English outputs and no run stamp: make sync then executes it in zh-TW.
ZH_TW_NOTEBOOKS := $(patsubst notebooks/%,notebooks/zh-TW/%,$(NOTEBOOKS))
.PHONY: po zh-tw
po: .venv-teacher/.installed ## merge the changed English into the zh-TW catalogues, check them
	$(PY_TEACHER) -m tools.catalogues
	@# The helpers' sentences (_("...") in helpers/) into translations/zh_TW/helpers.po.
	$(PY_TEACHER) -m tools.helpers_messages
	$(PY_TEACHER) -m tools.zh_tw_style

zh-tw: .venv-teacher/.installed ## build the zh-TW edition and its student copies
	$(PY_TEACHER) -m tools.edition
	$(PY_TEACHER) -m tools.make_student $(ZH_TW_NOTEBOOKS)

benchmark: setup ## measure the course's performance; rewrite results.md and the run times
	$(PY) benchmarks/performance.py --update-docs $(BENCHMARK_ARGS)
	@# The notebooks' run-time lines and the README's contents column, from the new results.json.
	$(PY) -m tools.run_times
	@# TEACHING.md's run times come from the new results.json (memory and disk stay as measured).
	$(PY) benchmarks/classroom.py --report-only --update-guide
	@# New figures only: the catalogues take them into the translations, and the edition shows them.
	$(PY) -m tools.catalogues
	$(PY) -m tools.edition

clean: ## remove the environments, the models and pytest's cache
	rm -rf $(VENV) .venv-latest .venv-hub models .pytest_cache

# Teachers (TEACHING.md): free the disk the notebooks' training runs take, and
# measure each notebook's peak memory and disk in full mode for TEACHING.md's
# table (20-30 minutes on 2 cores; CLASSROOM_ARGS="--modes fast,full" adds fast mode).
.PHONY: clean-models classroom-benchmark
clean-models: ## free the disk the notebooks' training runs take (models/)
	rm -rf models

classroom-benchmark: setup ## each notebook's peak memory and disk, into TEACHING.md
	$(PY) benchmarks/classroom.py --update-guide $(CLASSROOM_ARGS)

# Notebook 10's own Keras cells (tagged keras-latest) on the newest TensorFlow (Keras 3), in a
# second environment: make keras-latest (fast mode), make keras-latest KERAS_LATEST_ARGS=--full
VENV_LATEST := .venv-latest
PY_LATEST := $(VENV_LATEST)/bin/python
INSTALLED_LATEST := $(VENV_LATEST)/.installed
KERAS_LATEST_ARGS ?=

.PHONY: keras-latest

$(INSTALLED_LATEST): requirements-latest.lock
	@tools/make-venv $(VENV_LATEST) requirements-latest.lock 3.11 3.12 3.13
	@# Let this venv import the course's helpers package.
	@$(PY_LATEST) -m tools.link_helpers
	@touch $@

keras-latest: $(INSTALLED_LATEST) ## notebook 10's Keras cells on the newest TensorFlow
	$(PY_LATEST) -m tools.keras_latest $(KERAS_LATEST_ARGS)

# The locks: every package of each environment pinned with hashes, for every
# platform the course supports (tools/lock, with uv; needs the network). Run after
# changing a requirements*.txt; tests/tools/test_lock.py fails until then.
.PHONY: lock
lock: ## re-pin requirements*.lock after a change to requirements*.txt (network)
	tools/lock requirements.txt requirements.lock "3.9 3.10 3.11" \
		"x86_64-manylinux_2_17 aarch64-manylinux_2_17 x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-msvc"
	tools/lock requirements-latest.txt requirements-latest.lock "3.11 3.12 3.13" \
		"x86_64-manylinux_2_28 aarch64-manylinux_2_28 aarch64-apple-darwin x86_64-pc-windows-msvc"
	tools/lock requirements-teacher.txt requirements-teacher.lock "3.11 3.12 3.13" \
		"x86_64-manylinux_2_17 aarch64-manylinux_2_17 x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-msvc"
	tools/lock requirements-hub.txt requirements-hub.lock "3.11 3.12 3.13" \
		"x86_64-manylinux_2_17 aarch64-manylinux_2_17 x86_64-apple-darwin aarch64-apple-darwin"

# Set-up time of .venv from the lock: uv vs pip, cold vs warm cache, on a fresh
# clone of the committed course, into INSTALL.md (the four set-ups of its table one
# after another, most of the time pip's).
.PHONY: benchmark-setup
benchmark-setup: $(INSTALLED) ## set-up times of .venv, uv vs pip, into INSTALL.md
	$(PY) benchmarks/setup_times.py --update-docs

# Teachers: nbgrader in a third environment, .venv-teacher (about 100 packages,
# 250 MB, kept out of the learners' .venv; requirements-teacher.txt, locked in
# requirements-teacher.lock); it grades in the course's kernel.
#   make teacher         build it and give it the kernel "estimator-workbook"
#   make student         (above) writes the student copies with nbgrader's preprocessors
#   make grading-course  lay out an nbgrader course in grading/ (GRADING_DIR=...)
#   make grading-benchmark  seconds to autograde one submission per notebook -> TEACHING.md
VENV_TEACHER := .venv-teacher
PY_TEACHER := $(VENV_TEACHER)/bin/python
INSTALLED_TEACHER := $(VENV_TEACHER)/.installed
TEACHER_KERNEL_SPEC := $(VENV_TEACHER)/share/jupyter/kernels/$(KERNEL)/kernel.json
GRADING_DIR ?= grading

.PHONY: teacher grading-course grading-benchmark

# nbgrader 0.9.6 needs Python 3.11 or newer (the kernel it grades in stays .venv's).
$(INSTALLED_TEACHER): requirements-teacher.lock
	@tools/make-venv $(VENV_TEACHER) requirements-teacher.lock 3.11 3.12 3.13
	@touch $@

# nbgrader runs a notebook in the kernel its metadata names: give it the course's.
$(TEACHER_KERNEL_SPEC): $(KERNEL_SPEC) $(INSTALLED_TEACHER)
	$(VENV_TEACHER)/bin/jupyter kernelspec install --sys-prefix --name $(KERNEL) $(dir $(KERNEL_SPEC)) > /dev/null 2>&1
	@echo "Gave $(VENV_TEACHER) the kernel '$(KERNEL)' of $(VENV)"

teacher: setup $(INSTALLED_TEACHER) $(TEACHER_KERNEL_SPEC) ## nbgrader's environment, .venv-teacher

grading-course: teacher ## lay out an nbgrader course in grading/ (GRADING_DIR=...)
	$(PY_TEACHER) -m tools.nbgrader_course $(GRADING_DIR) $(NOTEBOOKS)

# Grading mode by default; GRADING_ARGS="--no-grading-mode --fast" for the comparison column.
grading-benchmark: teacher ## seconds to autograde one submission per notebook, into TEACHING.md
	$(PY_TEACHER) benchmarks/grading.py --update-guide $(GRADING_ARGS)

# A JupyterHub for the course on this machine, in a fourth environment, .venv-hub
# (requirements-hub.txt, locked in requirements-hub.lock; about 120 packages, 300 MB):
# JupyterHub, its proxy (configurable-http-proxy, the Python implementation), and
# the user servers' JupyterLab and jupyter-server-proxy. Its user servers run the
# course's kernel from .venv. tests/tools/test_hub.py starts it; TEACHING.md, "A
# JupyterHub for the class", gives the steps and the config.
#   make hub             build it, give it the kernel, the JupyterLab overrides
VENV_HUB := .venv-hub
INSTALLED_HUB := $(VENV_HUB)/.installed
HUB_KERNEL_SPEC := $(VENV_HUB)/share/jupyter/kernels/$(KERNEL)/kernel.json
HUB_LAB_OVERRIDES := $(VENV_HUB)/share/jupyter/lab/settings/overrides.d/$(KERNEL).json

.PHONY: hub

# JupyterHub 6 needs Python 3.10 or newer; JupyterHub does not run on Windows.
$(INSTALLED_HUB): requirements-hub.lock
	@tools/make-venv $(VENV_HUB) requirements-hub.lock 3.11 3.12 3.13
	@touch $@

# The user servers list the kernels of their own environment: register the course's there.
$(HUB_KERNEL_SPEC): $(KERNEL_SPEC) $(INSTALLED_HUB)
	$(VENV_HUB)/bin/jupyter kernelspec install --sys-prefix --name $(KERNEL) $(dir $(KERNEL_SPEC)) > /dev/null 2>&1
	@echo "Gave $(VENV_HUB) the kernel '$(KERNEL)' of $(VENV)"

# The user servers' JupyterLab runs from .venv-hub: it reads the overrides there.
$(HUB_LAB_OVERRIDES): tools/jupyterlab_overrides.json $(INSTALLED_HUB)
	@mkdir -p $(dir $@)
	@cp $< $@

hub: setup $(INSTALLED_HUB) $(HUB_KERNEL_SPEC) $(HUB_LAB_OVERRIDES) ## a JupyterHub for the course on this machine

# Mutation testing of helpers/ with mutmut 3 (settings: pyproject.toml; CONTRIBUTING.md, "Mutation
# testing"), a tool for whoever writes tests, not part of make test. MUTANTS narrows the run to the
# mutants whose names match (helpers.metrics.*: one module; every module takes hours); the results
# stay in mutants/ (git-ignored): `.venv/bin/mutmut results`, `.venv/bin/mutmut show NAME`.
#   make mutation MUTANTS='helpers.metrics.*'
MUTANTS ?=
.PHONY: mutation
mutation: setup ## mutation testing of helpers/ with mutmut (MUTANTS='helpers.metrics.*': one module)
	@test -x $(VENV)/bin/mutmut || { echo "make mutation needs mutmut, which needs Python 3.10 or \
	newer and fork() (Linux, macOS, WSL): delete $(VENV) and run make mutation with Python 3.11 on PATH" >&2; exit 1; }
	WORKBOOK_FAST=1 nice -n 19 $(VENV)/bin/mutmut run $(MUTANTS)
