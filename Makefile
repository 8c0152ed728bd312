# Two commands do everything on a fresh machine: `make demo` and `make test`; `make docs` builds
# the documentation site into site/.  The demo needs only the core (numpy, numba, scipy,
# scikit-learn, ...); the tests install the extras they run (PyTorch, OpenSpiel, Ray, docs,
# XGBoost, STreeD).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CORE   := $(VENV)/.installed-core
EXTRAS := $(VENV)/.installed-extras
DOCS   := $(VENV)/.installed-docs
# One command for `make docs` and `make test`: warnings are errors, none hidden.
MKDOCS := NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

.PHONY: demo test bench lint docs clean clean-kernels

$(CORE): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(CORE)

$(EXTRAS): $(CORE)
	$(BIN)/python -m pip install --quiet -e '.[test,openspiel,torch,ray,docs,xgboost,optimal]'
	touch $(EXTRAS)

$(DOCS): $(CORE)
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $(DOCS)

demo: $(CORE)
	mkdir -p results
	$(BIN)/rcfr games
	$(BIN)/rcfr solve leduc --algorithm cfr+ --iterations 10000 --eval-every 1000 \
		--out results/leduc_cfr+.npz
	$(BIN)/rcfr lp leduc
	$(BIN)/rcfr solve 'leduc(canonical=true)' --algorithm rcfr+ --leaves 302 --iterations 10000 \
		--out results/leduc_rcfr+_45pct.npz
	$(BIN)/rcfr solve liars_dice --algorithm as --nodes 20000000 --seed 0

test: $(EXTRAS)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/lint-imports --no-cache
	$(MKDOCS)
	$(BIN)/python tests/warm_kernels.py  # numba's cache filled once, not once a worker
	$(BIN)/python -m pytest -n auto --maxprocesses 4

# The documentation site (mkdocs-material + mkdocstrings, MathJax from the docs extra): warnings
# are errors.  `make test` builds it with the same command, so it fails whenever this does.
docs: $(DOCS)
	$(MKDOCS)

bench: $(EXTRAS)
	$(BIN)/python benchmarks/bench_core.py

clean:
	rm -rf $(VENV) results .pytest_cache site

# numba's cache misses a change to a kernel called from another module (docs/architecture.md)
clean-kernels:
	find src -path '*/__pycache__/*' \( -name '*.nbi' -o -name '*.nbc' \) -delete
