"""Settings come from the environment: each case imports the settings in a fresh interpreter."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# A key of the shape get_random_secret_key() makes (production refuses placeholders and short keys).
RANDOM_KEY = "p9#x2!vQ7m@L4z$K1r&T8w^B3n*Y6c(J0e)H5s_F-aD=gU+iO{kP}lM[oN]qR;tS:uV,yW.xZ/"
CLEAN = {
    k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "CELERY_", "CONCORD_"))
}


def settings_with(env: dict, module: str = "config.settings.base", names=("DEBUG",)):
    code = (
        f"import json, importlib; s = importlib.import_module({module!r}); "
        f"print(json.dumps({{n: str(getattr(s, n)) for n in {list(names)!r}}}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={**CLEAN, **env}, capture_output=True, text=True, timeout=60
    )
    return result.returncode, json.loads(result.stdout) if result.returncode == 0 else result.stderr


def test_the_embedded_default_is_sqlite_and_eager_celery():
    code, values = settings_with(
        {"DJANGO_DEBUG": "true"}, names=("DATABASES", "CELERY_TASK_ALWAYS_EAGER", "CELERY_BROKER_URL")
    )
    assert code == 0, values
    assert "sqlite3" in values["DATABASES"] and values["CELERY_TASK_ALWAYS_EAGER"] == "True"


def test_database_and_redis_urls_switch_to_postgresql_and_a_real_broker():
    code, values = settings_with(
        {
            "DJANGO_SECRET_KEY": "k" * 60,
            "DATABASE_URL": "postgres://u:p@db:5432/concord",
            "REDIS_URL": "redis://cache:6379/2",
        },
        names=("DATABASES", "CELERY_TASK_ALWAYS_EAGER", "CELERY_BROKER_URL", "CACHES"),
    )
    assert code == 0, values
    assert "django.db.backends.postgresql" in values["DATABASES"] and "'HOST': 'db'" in values["DATABASES"]
    assert values["CELERY_TASK_ALWAYS_EAGER"] == "False"
    assert values["CELERY_BROKER_URL"] == "redis://cache:6379/2" and "RedisCache" in values["CACHES"]


def test_an_instance_sharing_a_redis_names_its_own_unacked_keys():
    # kombu's default keys unless set; any idle worker on the database redelivers what is under them
    common = {"DJANGO_SECRET_KEY": "k" * 60, "REDIS_URL": "redis://cache:6379/2"}
    names = ("CELERY_BROKER_TRANSPORT_OPTIONS",)
    for env, key in [({}, "unacked"), ({"CELERY_UNACKED_KEY": "unacked-b"}, "unacked-b")]:
        code, values = settings_with({**common, **env}, names=names)
        assert code == 0, values
        options = values["CELERY_BROKER_TRANSPORT_OPTIONS"]
        assert f"'unacked_key': '{key}'" in options and f"'unacked_index_key': '{key}_index'" in options
        assert f"'unacked_mutex_key': '{key}_mutex'" in options


@pytest.mark.parametrize(("raw", "expected"), [("false", "False"), ("0", "False"), ("true", "True")])
def test_debug_is_a_real_boolean(raw, expected):
    code, values = settings_with({"DJANGO_DEBUG": raw, "DJANGO_SECRET_KEY": "k" * 60})
    assert code == 0 and values["DEBUG"] == expected


def test_a_missing_secret_key_is_refused_unless_debugging():
    code, err = settings_with({"DJANGO_DEBUG": "false"})
    assert code != 0 and "DJANGO_SECRET_KEY must be set" in err


@pytest.mark.parametrize("missing", ["DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "DATABASE_URL"])
def test_production_requires_its_secrets_without_defaults(missing):
    env = {
        "DJANGO_SECRET_KEY": RANDOM_KEY,
        "DJANGO_ALLOWED_HOSTS": "concord.example.org",
        "DATABASE_URL": "postgres://u:p@db:5432/concord",
    }
    del env[missing]
    code, err = settings_with(env, module="config.settings.production")
    assert code != 0 and missing in err


def test_production_settings_pass_the_deploy_check():
    env = {
        **CLEAN,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": RANDOM_KEY,
        "DJANGO_ALLOWED_HOSTS": "concord.example.org",
        "DATABASE_URL": "postgres://u:p@127.0.0.1:5432/x",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def _placeholder(path: str, pattern: str) -> str:
    return re.search(pattern, (ROOT / path).read_text()).group(1)


ENV_EXAMPLE_KEY = _placeholder(".env.example", r"(?m)^DJANGO_SECRET_KEY=(\S+)")
PRODUCTION = {
    "DJANGO_SETTINGS_MODULE": "config.settings.production",
    "DJANGO_ALLOWED_HOSTS": "concord.example.org",
    "DATABASE_URL": "postgres://u:p@127.0.0.1:5432/x",
}


def test_the_deploy_check_refuses_the_placeholder_secret_key_of_env_example():
    env = {**CLEAN, **PRODUCTION, "DJANGO_SECRET_KEY": ENV_EXAMPLE_KEY}
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY is a placeholder or too short" in result.stderr


@pytest.mark.parametrize(
    "key",
    [
        _placeholder("Makefile", r"DJANGO_SECRET_KEY=(\S+)"),
        "django-insecure-" + RANDOM_KEY[:40],
        RANDOM_KEY[:30],
        "ab" * 40,
    ],
    ids=["make-run-demo-key", "startproject-key", "short", "few-characters"],
)
def test_production_refuses_placeholder_and_weak_secret_keys(key):
    code, err = settings_with({**PRODUCTION, "DJANGO_SECRET_KEY": key}, module="config.settings.production")
    assert code != 0 and "DJANGO_SECRET_KEY is a placeholder or too short" in err


def test_collectstatic_runs_with_the_production_storage(tmp_path):
    # As the Dockerfile does at build time: the manifest storage fails on any reference it cannot resolve
    # (a vendored script's source map, the Swagger UI files of drf-spectacular-sidecar).
    code = (
        "import django; from django.conf import settings; django.setup(); "
        f"settings.STATIC_ROOT = {str(tmp_path)!r}; "
        "from django.core.management import call_command; call_command('collectstatic', '--noinput', verbosity=0)"
    )
    env = {**CLEAN, **PRODUCTION, "DJANGO_SECRET_KEY": RANDOM_KEY}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    manifest = json.loads((tmp_path / "staticfiles.json").read_text())["paths"]
    assert "drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in manifest
    assert "vendor/chartjs/chart.umd.min.js" in manifest


def test_every_beat_entry_names_a_registered_task():
    from django.conf import settings

    from config.celery_app import app

    app.loader.import_default_modules()
    for name, entry in settings.CELERY_BEAT_SCHEDULE.items():
        assert entry["task"] in app.tasks, name


def test_email_comes_from_one_url_with_the_senders_beside_it():
    code, values = settings_with(
        {
            "DJANGO_SECRET_KEY": "k" * 60,
            "EMAIL_URL": "smtp+tls://alerts%40example.org:s3cret@mail.example.org:587",
            "DEFAULT_FROM_EMAIL": "Concord <concord@example.org>",
            "EMAIL_TIMEOUT": "7",
        },
        names=(
            "EMAIL_BACKEND",
            "EMAIL_HOST",
            "EMAIL_PORT",
            "EMAIL_HOST_USER",
            "EMAIL_HOST_PASSWORD",
            "EMAIL_USE_TLS",
            "EMAIL_TIMEOUT",
            "DEFAULT_FROM_EMAIL",
            "SERVER_EMAIL",
        ),
    )
    assert code == 0, values
    assert values == {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "mail.example.org",
        "EMAIL_PORT": "587",
        "EMAIL_HOST_USER": "alerts@example.org",
        "EMAIL_HOST_PASSWORD": "s3cret",
        "EMAIL_USE_TLS": "True",
        "EMAIL_TIMEOUT": "7",
        "DEFAULT_FROM_EMAIL": "Concord <concord@example.org>",
        "SERVER_EMAIL": "Concord <concord@example.org>",
    }


@pytest.mark.parametrize(("debug", "backend"), [("true", "console"), ("false", "smtp")])
def test_without_an_email_url_development_prints_mail_and_a_deployment_uses_the_local_mta(debug, backend):
    code, values = settings_with(
        {"DJANGO_DEBUG": debug, "DJANGO_SECRET_KEY": "k" * 60}, names=("EMAIL_BACKEND", "EMAIL_HOST")
    )
    assert code == 0, values
    assert values["EMAIL_BACKEND"] == f"django.core.mail.backends.{backend}.EmailBackend"


def test_tests_keep_mail_in_memory_unless_they_ask_for_a_server():
    names = ("EMAIL_BACKEND", "EMAIL_PORT")
    assert settings_with({}, "config.settings.test", names)[1]["EMAIL_BACKEND"] == (
        "django.core.mail.backends.locmem.EmailBackend"
    )
    assert settings_with({"EMAIL_URL": "smtp://127.0.0.1:2525"}, "config.settings.test", names)[1] == {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_PORT": "2525",
    }


def test_a_bad_email_url_is_refused_at_start():
    code, err = settings_with({"DJANGO_SECRET_KEY": "k" * 60, "EMAIL_URL": "carrier-pigeon://loft"})
    assert code != 0 and "Invalid email schema carrier-pigeon" in err


def _check(extra: dict) -> subprocess.CompletedProcess:
    env = {**CLEAN, **PRODUCTION, "DJANGO_SECRET_KEY": RANDOM_KEY, **extra}
    return subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_a_broker_without_a_result_backend_is_refused_while_jobs_are_split_into_parts():
    result = _check({"CELERY_BROKER_URL": "amqp://guest:guest@127.0.0.1:5672//"})
    assert result.returncode != 0
    assert "concord.E001" in result.stderr
    assert "CONCORD_RECOMPUTE_BATCHES=2 and CONCORD_EXPORT_PARTS=2" in result.stderr
    assert "CELERY_RESULT_BACKEND" in result.stderr
    only_exports = _check(
        {"CELERY_BROKER_URL": "amqp://guest:guest@127.0.0.1:5672//", "CONCORD_RECOMPUTE_BATCHES": "1"}
    )
    assert only_exports.returncode != 0 and "CONCORD_EXPORT_PARTS=2 split" in only_exports.stderr


@pytest.mark.parametrize(
    "extra",
    [
        {
            "CELERY_BROKER_URL": "amqp://guest:guest@127.0.0.1:5672//",
            "CELERY_RESULT_BACKEND": "redis://127.0.0.1:6379/0",
        },
        {"REDIS_URL": "redis://127.0.0.1:6379/0"},
        {"CELERY_BROKER_URL": "amqp://x@127.0.0.1//", "CONCORD_RECOMPUTE_BATCHES": "1", "CONCORD_EXPORT_PARTS": "1"},
        {},  # no broker: jobs run eagerly in the process
    ],
    ids=["result-backend", "redis-url", "single-tasks", "eager"],
)
def test_the_result_backend_check_passes_where_chords_can_finish(extra):
    result = _check(extra)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
