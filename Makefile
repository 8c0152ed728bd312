# Two commands do everything on a fresh machine: `make demo` and `make test`; `make docs` builds
# the documentation site into site/.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test bench lint docs clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,openspiel,torch,ray,docs]'
	touch $(STAMP)

demo: $(STAMP)
	mkdir -p results
	$(BIN)/rcfr games
	$(BIN)/rcfr solve leduc --algorithm cfr+ --iterations 10000 --eval-every 1000 \
		--out results/leduc_cfr+.npz
	$(BIN)/rcfr lp leduc
	$(BIN)/rcfr solve 'leduc(canonical=true)' --algorithm rcfr+ --leaves 302 --iterations 10000 \
		--out results/leduc_rcfr+_45pct.npz
	$(BIN)/rcfr solve liars_dice --algorithm as --nodes 20000000 --seed 0

test: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/lint-imports --no-cache
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir site
	$(BIN)/python -m pytest

# The documentation site (mkdocs-material + mkdocstrings): warnings are errors.  Installs the
# docs extra into the venv if it is missing.
docs: $(STAMP)
	@test -x $(BIN)/mkdocs || $(BIN)/python -m pip install --quiet -e '.[docs]'
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_core.py

clean:
	rm -rf $(VENV) results .pytest_cache site
