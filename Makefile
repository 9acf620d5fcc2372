# KernelPath: `make run` serves the app, `make test` runs the whole suite.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PG_URL ?= postgresql://postgres@127.0.0.1:5432/test
PORT   ?= 5000
export FLASK_APP := app

.PHONY: run test db starter system-deps test-system-deps bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: requirements.txt $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements-dev.txt $(VENV)/.installed
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

# Debian packages: bubblewrap (the judge's sandbox), g++ (the CPU backend's compiler), Pango
# (WeasyPrint's text layout, for the PDF exports), Verilator and Yosys (hardware-design tasks:
# simulation models and synthesis), Icarus Verilog (a second simulator for testbenches) and
# Prometheus (its promtool checks and unit-tests alerting-rule tasks); for the tests also
# Chromium and its driver (browser tests of the pages).
APT_INSTALL = \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  elif command -v sudo >/dev/null 2>&1; then sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else echo "please install:$$missing"; exit 1; fi; \
	fi

system-deps:
	@missing=""; \
	command -v bwrap >/dev/null 2>&1 || missing="$$missing bubblewrap"; \
	command -v g++ >/dev/null 2>&1 || missing="$$missing g++"; \
	ldconfig -p 2>/dev/null | grep -q libpangoft2-1.0 || missing="$$missing libpango-1.0-0 libpangoft2-1.0-0"; \
	command -v verilator >/dev/null 2>&1 || missing="$$missing verilator"; \
	command -v yosys >/dev/null 2>&1 || missing="$$missing yosys"; \
	command -v iverilog >/dev/null 2>&1 || missing="$$missing iverilog"; \
	command -v promtool >/dev/null 2>&1 || missing="$$missing prometheus"; \
	$(APT_INSTALL)

test-system-deps: system-deps
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v chromedriver >/dev/null 2>&1 || missing="$$missing chromium-driver"; \
	$(APT_INSTALL)

# The pinned npm packages, installed once for every file vendored from them (one `npm ci`, so
# parallel builds never reinstall node_modules under each other). package.json's scarfSettings
# turns off the download report of Scarf, which swagger-ui-dist depends on.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# The candidates' code editor (CodeMirror 6), bundled from the pinned npm packages in
# package-lock.json into static/vendor/ (gitignored); pages never load scripts from a CDN.
# CodeMirror and Lezer are MIT: their license texts go to static/vendor/editor.js.LICENSE.txt.
EDITOR_BANNER := /*! KernelPath code editor. Bundles CodeMirror 6 and Lezer (MIT License, Marijn Haverbeke and others); license texts: editor.js.LICENSE.txt */
static/vendor/editor.js: node_modules/.installed $(wildcard static/src/*.js static/src/*.mjs)
	mkdir -p static/vendor
	node_modules/.bin/esbuild static/src/editor.js --bundle --minify --format=iife --target=es2020 \
	  --legal-comments=eof --banner:js='$(EDITOR_BANNER)' --metafile=static/vendor/editor.meta.json \
	  --outfile=$@
	node static/src/licenses.mjs static/vendor/editor.meta.json static/vendor/editor.js.LICENSE.txt
	rm -f static/vendor/editor.meta.json
	touch $@

# Swagger UI for the API docs page (/api/v1/docs), Apache-2.0: its bundle and stylesheet with the
# LICENSE and NOTICE, into static/vendor/swagger-ui/. The stylesheet's source-map comment is
# dropped (the map is not copied, so browsers would ask for a missing file).
SWAGGER_UI := static/vendor/swagger-ui
$(SWAGGER_UI)/swagger-ui-bundle.js: node_modules/.installed
	mkdir -p $(SWAGGER_UI)
	cp node_modules/swagger-ui-dist/LICENSE node_modules/swagger-ui-dist/NOTICE $(SWAGGER_UI)/
	sed '/sourceMappingURL=/d' node_modules/swagger-ui-dist/swagger-ui.css > $(SWAGGER_UI)/swagger-ui.css
	cp node_modules/swagger-ui-dist/swagger-ui-bundle.js $@

# axe-core (MPL-2.0) for the accessibility checks of the browser tests (tests/e2e/axe.py).
static/vendor/axe.min.js: node_modules/.installed
	mkdir -p static/vendor
	cp node_modules/axe-core/LICENSE static/vendor/axe.min.js.LICENSE.txt
	cp node_modules/axe-core/axe.min.js $@

# The track classifier trained once from the labelled corpus, and the taxonomy's forms
# tokenized once, so no parse trains, imports scikit-learn or tokenizes 7,000 forms (both files
# are checked when loaded and made again at run time when stale).
TRACK_MODEL := skillmap/data/track_model.npz
$(TRACK_MODEL): $(VENV)/.installed $(wildcard skillmap/data/corpus/*.jsonl) skillmap/data/taxonomy.toml \
		skillmap/corpus.py skillmap/classify.py skillmap/track_model.py skillmap/shipped_model.py \
		skillmap/skills.py skillmap/extract.py
	$(BIN)/python -m skillmap.prepare

db: $(VENV)/.installed $(TRACK_MODEL)
	$(BIN)/flask db upgrade

starter: db
	$(BIN)/flask jobs load-starter
	$(BIN)/flask jobs reparse

run: system-deps starter static/vendor/editor.js $(SWAGGER_UI)/swagger-ui-bundle.js
	$(BIN)/flask run --host 127.0.0.1 --port $(PORT)

# Production server: gunicorn sized to the machine (gunicorn.conf.py; WEB_CONCURRENCY, WEB_THREADS,
# --bind through GUNICORN_CMD_ARGS), on http://127.0.0.1:8000. Same prerequisites as `run`.
.PHONY: serve
serve: system-deps starter static/vendor/editor.js $(SWAGGER_UI)/swagger-ui-bundle.js
	$(BIN)/gunicorn --config gunicorn.conf.py

# The whole suite on SQLite, then every test that touches the database again on PostgreSQL,
# except the browser walks (pages read through the same services; the walks ran on SQLite).
# Both in parallel workers (pytest-xdist), one per core unless TEST_WORKERS says otherwise.
TEST_WORKERS ?= auto
# Bytecode is written during the tests even where the environment says not to: pytest keeps its
# assertion-rewritten test modules there (each worker of each pass would rewrite about 500
# modules again, 13 s apiece), and every server and worker the tests start imports the
# project compiled once instead of from source.
TEST_ENV := env -u PYTHONDONTWRITEBYTECODE
test: test-system-deps $(VENV)/.installed-dev static/vendor/editor.js \
		$(SWAGGER_UI)/swagger-ui-bundle.js static/vendor/axe.min.js $(TRACK_MODEL)
	$(TEST_ENV) $(BIN)/python -m pytest -q -n $(TEST_WORKERS)
	$(TEST_ENV) KERNELPATH_TEST_DATABASE_URL=$(PG_URL) $(BIN)/python -m pytest -q -n $(TEST_WORKERS) -m "db and not browser"

bench: $(VENV)/.installed-dev $(TRACK_MODEL)
	$(BIN)/python bench/parse.py
	$(BIN)/python bench/judge.py
	$(BIN)/python bench/grading_queue.py
	$(BIN)/python bench/match.py

clean:
	rm -rf $(VENV) instance .pytest_cache $(TRACK_MODEL) skillmap/data/pattern_tokens.json
