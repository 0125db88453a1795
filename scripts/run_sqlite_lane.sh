#!/usr/bin/env bash
# The SQLite lane: the tests of the modules whose code branches on the database, on SQLite (the database of
# `make run`, the demo) with eager Celery, so what the demo runs is tested too. The modules: the rater loop's
# SQL and locks (annotation.services.assignment, annotation.selectors.rater_loop), allocation places, bulk
# inserts of imports (COPY on PostgreSQL), job progress, the export's readers and median, the progress page's
# durations. Tests marked postgresql (row-lock races, a second connection) are deselected. The rest of the
# suite runs on PostgreSQL only: this lane is chosen to stay cheap (119 tests; measured 42 CPU-seconds with
# pytest's start, 6.5 minutes of wall time on this 2-core machine shared at load 16). `make test` runs it before
# the whole suite; `make test-sqlite` runs it alone.
set -euo pipefail
cd "$(dirname "$0")/.."
exec env -u REDIS_URL -u CELERY_BROKER_URL -u CELERY_RESULT_BACKEND DATABASE_URL=sqlite://:memory: \
  DJANGO_SETTINGS_MODULE=config.settings.test "${PYTHON:-.venv/bin/python}" -m pytest -m "not postgresql" -q \
  tests/annotation/services/test_assignment_next_for_rater.py \
  tests/annotation/services/test_lease_ahead.py \
  tests/annotation/allocation/test_allocation_api.py \
  tests/annotation/services/test_item_import.py \
  tests/annotation/services/test_judgment_import.py \
  tests/core/services/test_job.py \
  tests/evaluation/export/test_export_write.py \
  tests/console/selectors/test_progress.py \
  "$@"
