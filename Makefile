# Two commands do all set-up on a fresh machine: `make run` and `make test`.
# llama-cpp-python is built from source. GGML_NATIVE=OFF avoids CPU instructions
# (AMX tiles) that some virtual CPUs refuse; override for a GPU build, e.g.
#   make run CMAKE_ARGS="-DGGML_CUDA=on"
PYTHON ?= python3
VENV ?= .venv
CMAKE_ARGS ?= -DGGML_NATIVE=OFF
export CMAKE_ARGS
# The CPU build of torch for the transformers backend's tests (see README).
TORCH_SPEC ?= torch==2.13.0
RUN ?= outputs/demo
# Any GGUF instead of the embedded SmolLM2-135M: make run MODEL=~/models/qwen2.5-7b.gguf
MODEL ?=
MODEL_OPTION := $(if $(MODEL),--model $(MODEL))
ENCODER_OPTION := $(if $(MODEL),--encoder $(MODEL))
BIN := $(VENV)/bin
# Label Studio for the `gen review` tests, in a venv of its own so that its pinned
# dependencies never touch gen's (about 2.5 minutes to install on 2 cores), with a
# migrated empty database the tests copy, so that a test server starts in seconds.
VENV_LS ?= .venv-ls
LABEL_STUDIO_SPEC ?= label-studio==1.23.2
LS_DATA := $(abspath $(VENV_LS))/template
LS_TEMPLATE := $(VENV_LS)/template/label_studio.sqlite3
LS_OFFLINE := LATEST_VERSION_CHECK=false COLLECT_ANALYTICS=false SENTRY_DSN= FRONTEND_SENTRY_DSN=

.PHONY: run test lint bench clean-demo label-studio browser

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[train]"
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet "$(TORCH_SPEC)"
	$(BIN)/pip install --quiet -e ".[test,transformers]"
	touch $@ $(VENV)/.installed

$(LS_TEMPLATE):
	$(PYTHON) -m venv $(VENV_LS)
	$(VENV_LS)/bin/pip install --quiet --upgrade pip
	$(VENV_LS)/bin/pip install --quiet "$(LABEL_STUDIO_SPEC)"
	$(LS_OFFLINE) LABEL_STUDIO_BASE_DATA_DIR=$(LS_DATA) \
		$(VENV_LS)/bin/label-studio version --data-dir $(LS_DATA) >/dev/null

label-studio: $(LS_TEMPLATE)

# Headless Chromium and its driver for the two tests marked `browser` (the review page).
# Installed from Debian's packages when missing and this runs as root with apt-get (as CI
# does); otherwise the tests are skipped, and this says how to install them.
browser:
	@if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then \
		:; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing Debian's chromium and chromium-driver for the browser tests"; \
		apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			chromium chromium-driver >/dev/null; \
	else \
		echo "note: chromium or chromedriver not found: the 2 tests marked browser will be" \
			"skipped; install them with 'sudo make browser' (Debian: apt-get install chromium" \
			"chromium-driver), then run them with: $(BIN)/python -m pytest -m browser"; \
	fi

run: $(VENV)/.installed
	$(BIN)/gen documents --run $(RUN) --category all --n 7 --max-tokens 320 $(MODEL_OPTION)
	$(BIN)/gen label --run $(RUN) $(MODEL_OPTION)
	$(BIN)/gen queries --run $(RUN) --n 200
	$(BIN)/gen build --run $(RUN)
	$(BIN)/gen export --run $(RUN) --format jsonl
	$(BIN)/gen stats --run $(RUN)
	$(BIN)/gen inspect --run $(RUN) --out $(RUN)/inspect.html
	$(BIN)/gen train --run $(RUN) --gold bench/gold/gold-test.jsonl
	$(BIN)/gen train --run $(RUN) --trainer encoder --identifiers none --gold bench/gold/gold-test.jsonl $(ENCODER_OPTION)
	@echo
	@echo "Results in $(RUN)/: documents/ labeled/ queries/ dataset/ export/ stats/ inspect.html models/spacy/ models/encoder/"

test: $(VENV)/.installed-test $(LS_TEMPLATE) browser
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check gen labeling scraping tests bench

bench: $(VENV)/.installed-test
	$(BIN)/python bench/bench_align.py
	$(BIN)/python bench/bench_prefix_reuse.py

clean-demo:
	rm -rf $(RUN)
