# The two set-up commands of the README: `make run` (demo) and `make test` (whole suite).
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test test-sqlite lint security soak

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test,embeddings]'
	# irrCAC, the independent check of Gwet's AC2: every release pins scipy==1.12 and pandas<3, which no
	# resolver reconciles with scipy>=1.13, yet it runs on today's scipy and pandas (tests/agreement/stats/test_gwet.py).
	$(BIN)/pip install --quiet --no-deps 'irrCAC==0.4.4'
	# krippendorff-unitized-alpha, the independent check of unitizing alpha (tests/agreement/stats/test_spans.py):
	# its only release pins numpy<2 and pytest<8, but its pure-Python code runs on numpy 2.
	$(BIN)/pip install --quiet --no-deps 'krippendorff-unitized-alpha==0.1.0'
	touch $@ $(VENV)/.installed-run

# The demo: SQLite file, eager Celery, Django's development server; no services needed.
run: $(VENV)/.installed-run
	env -u DATABASE_URL -u REDIS_URL -u CELERY_BROKER_URL -u DJANGO_SETTINGS_MODULE DJANGO_DEBUG=true \
	    DJANGO_SECRET_KEY=demo-only-insecure-key-do-not-deploy-6b1f0e9c2d4a7f3e8b5c1a9d0e7f2b4c \
	    $(BIN)/python manage.py demo $(if $(ADDRPORT),--addrport $(ADDRPORT))

# The whole suite against PostgreSQL, Redis and a real Celery worker (started when not running), after the
# SQLite lane.
test: $(VENV)/.installed-test
	scripts/run_tests.sh

# The SQLite lane alone: the tests of the modules that branch on the database, on the demo's SQLite
# (119 tests, 42 CPU-seconds measured; scripts/run_sqlite_lane.sh says why these).
test-sqlite: $(VENV)/.installed-test
	scripts/run_sqlite_lane.sh

# Style, the import contracts ([tool.importlinter]) and the type checker on its modules ([tool.mypy]); CI runs it.
lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

# Reliability and security checks (issue 9), fast: access matrix, CSRF, throttles, fuzzing, schemathesis,
# stored XSS in the browser, database and Redis faults.
security: $(VENV)/.installed-test
	$(BIN)/python -m pytest tests/security tests/integration/test_faults_db.py tests/integration/test_faults_redis.py -q

# The 64-rater soak with its consistency audit, on demand (5 minutes; SOAK_ARGS="--seconds 60").
soak: $(VENV)/.installed-test
	$(BIN)/python tests/bench/bench_soak.py $(SOAK_ARGS)
