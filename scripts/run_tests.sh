#!/usr/bin/env bash
# Runs the whole test suite the way CI does: PostgreSQL and Redis on loopback (started, or installed
# from Debian's packages, when missing), Debian's Chromium for browser tests, the SQLite lane, then pytest.
# With arguments (a selection of tests), only pytest on PostgreSQL with them.
set -euo pipefail
cd "$(dirname "$0")/.."
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/concord}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/15}"
export DJANGO_SETTINGS_MODULE=config.settings.test

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi; }
apt_install() {
  echo "installing $* from Debian's packages" >&2
  as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

command -v pg_ctlcluster >/dev/null || apt_install postgresql
if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  echo "starting PostgreSQL" >&2
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n1)" main start
  for _ in $(seq 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi

command -v redis-server >/dev/null || apt_install redis-server
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "starting Redis" >&2
  as_root mkdir -p /var/lib/redis /var/log/redis
  as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  for _ in $(seq 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
fi

[ -x /usr/bin/chromium ] || apt_install chromium
# METEOR's WordNet 3.0, and XML::DOM for the ROUGE-1.5.5 Perl script the ROUGE tests compare against
[ -f /usr/share/wordnet/index.sense ] || apt_install wordnet-base wordnet-sense-index
perl -MXML::DOM -e 1 2>/dev/null || apt_install libxml-dom-perl

# The whole suite first runs the SQLite lane (the demo's database; scripts/run_sqlite_lane.sh), cheaply, then
# pytest on two worker processes (pytest-xdist; whole files to each, so a module's fixtures are built once), each
# with a test database and a Celery worker of its own (tests/conftest.py says what else is kept apart). The files
# go out slowest first (tests marked `slow`; tests/conftest.py orders them), not in xdist's order by test count.
parallel=()
if [ $# -eq 0 ]; then
  scripts/run_sqlite_lane.sh
  parallel=(-n 2 --dist loadfile --no-loadscope-reorder)
fi

# The Celery worker of the integration tests is started by their fixture (tests/integration/conftest.py)
# against the test database, so it sees exactly what the tests write. The test database is made anew
# (--create-db): one kept from another checkout may hold migrations this one does not have.
exec .venv/bin/python -m pytest --create-db "${parallel[@]}" "$@"
