# Two commands do all the set-up on a fresh clone: `make demo` and `make test`.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
export OMP_THREAD_LIMIT := 1
# apt-get waits (five minutes) for another apt-get or an unattended upgrade to let go of
# the dpkg lock, instead of failing the install at once
APT_WAIT := -o DPkg::Lock::Timeout=300

.PHONY: demo test setup system-deps lint bench fuzz clean mutation defects

$(BIN)/prioris: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@

system-deps:
	@if ! command -v tesseract >/dev/null 2>&1 || ! tesseract --list-langs 2>/dev/null | grep -qx eng; then \
		echo "installing tesseract-ocr (OCR for scanned pages)"; \
		$(SUDO) apt-get $(APT_WAIT) update -qq && $(SUDO) apt-get $(APT_WAIT) install -y -qq tesseract-ocr tesseract-ocr-eng; \
	fi

setup: system-deps $(BIN)/prioris

demo: setup
	$(BIN)/prioris demo

# branch coverage is reported on every run; under the floor the run fails (docs/testing.md)
COVERAGE_FLOOR ?= 92
test: setup
	$(BIN)/python -m pytest --cov --cov-report=term --cov-fail-under=$(COVERAGE_FLOOR)

# mutation testing of the core modules (slow: run by hand, not by CI; docs/testing.md)
MUTATE ?= discovery.routes sources.doi ingest.uploads storage.documents storage.works \
	storage.chunks search.fusion search.protocols engines.sqlite.queries search.service search.request \
	search.candidates sources.http \
	ingest.pipeline ingest.prepare ingest.embed ingest.write \
	engines.sqlite.postings engines.sqlite.postings_rank engines.sqlite.postings_snapshot \
	search.vector_copy search.vector_snapshot storage.work_vectors search.scoring \
	ingest.header:parser ingest.header:pdf_metadata \
	enrichment storage.copy engines.postgres.search \
	interfaces.web.security interfaces.mcp.runtime ingest.reindex \
	engines.postgres.postings engines.postgres.postings_build engines.postgres.postings_snapshot \
	search.bm25_arrays
mutation: setup
	PRIORIS_TEST_SHARED=$${PRIORIS_TEST_SHARED:-$(abspath ..)/shared} \
		$(BIN)/python tools/mutation.py $(MUTATE)

# plant each known past defect in a copy and check a test catches it
defects: setup
	$(BIN)/python tools/plant_defects.py

lint: setup
	$(BIN)/ruff check src tests bench tools setup.py migrations data
	$(BIN)/ruff format --check src tests bench tools setup.py migrations data
	$(BIN)/lint-imports --no-cache

bench: setup
	$(BIN)/python bench/bench_scifact.py
	$(BIN)/python bench/bench_ingest.py
	$(BIN)/python bench/bench_latency.py
	$(BIN)/python bench/bench_metadata.py --enrich recorded
	$(BIN)/python bench/bench_refs.py
	$(BIN)/python bench/bench_zotero_read.py
	$(BIN)/python bench/bench_zotero_sync.py
	$(BIN)/python bench/bench_ocr.py
	$(BIN)/python bench/bench_hostile_pdfs.py
	$(BIN)/python bench/bench_postgres.py

# the fuzz suite runs in `make test` with a short profile; this is the long one
fuzz: setup
	HYPOTHESIS_PROFILE=long PRIORIS_FUZZ_PROFILE=long $(BIN)/python -m pytest -q tests/fuzz

clean:
	rm -rf $(VENV) build *.egg-info bench/out mutants .coverage
