# Two commands do everything on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test bench lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,openspiel,torch,ray]'
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
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_core.py

clean:
	rm -rf $(VENV) results .pytest_cache
