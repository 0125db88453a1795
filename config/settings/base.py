"""Settings for every environment, read from environment variables with safe development defaults.

The embedded default (no ``DATABASE_URL``, no broker) is a SQLite file and eager Celery;
setting ``DATABASE_URL`` and ``REDIS_URL`` switches to PostgreSQL and a Redis-backed worker.
"""

import warnings
from datetime import timedelta
from pathlib import Path

from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured
from django.core.management.utils import get_random_secret_key

from config.env import BASE_DIR, env

DEBUG = env.bool("DJANGO_DEBUG", default=False)

SECRET_KEY = env("DJANGO_SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set unless DJANGO_DEBUG=true.")
    warnings.warn(
        "DJANGO_SECRET_KEY is not set; using a random key for this process (sessions will not survive).", stacklevel=1
    )
    SECRET_KEY = get_random_secret_key()

ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "axes",
    "core",
    "annotation",
    "evaluation",
    "agreement",
    "audit",
    "console",
    "staffing",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # After auth and messages, which its 400 page uses; before every view and CsrfViewMiddleware's form read.
    "core.middleware.OutsideTextMiddleware",
    "staffing.middleware.PasswordChangeRequiredMiddleware",
    "console.middleware.ArchivedProjectReadOnlyMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "audit.context.AuditRequestMiddleware",
    # Turns a login refused by django-axes into its lockout page (staffing.views_auth.lockout_response).
    "axes.middleware.AxesMiddleware",
    # Last, so its process_exception is asked first: database or broker down -> 503, not 500.
    "core.middleware.ServiceUnavailableMiddleware",
]

ROOT_URLCONF = "config.urls"
CSRF_FAILURE_VIEW = "annotation.views_errors.csrf_failure"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "OPTIONS": {
            # the task types' packages hold their rater screens (annotation.task_types.loaders)
            "loaders": [
                (
                    "django.template.loaders.cached.Loader",
                    [
                        "django.template.loaders.filesystem.Loader",
                        "django.template.loaders.app_directories.Loader",
                        "annotation.task_types.loaders.TemplateLoader",
                    ],
                )
            ],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = True
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DJANGO_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE transactions take the write lock up front, so concurrent writers queue on the
    # busy timeout instead of failing with "database is locked" when they upgrade a read lock.
    DATABASES["default"]["OPTIONS"] = {"transaction_mode": "IMMEDIATE", "timeout": 30}
    DATABASES["default"]["CONN_MAX_AGE"] = 0

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 10}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# The task types' own scripts (annotation/task_types/static/) beside the site's.
STATICFILES_DIRS = [BASE_DIR / "static", BASE_DIR / "annotation" / "task_types" / "static"]
# Served at the site's root by WhiteNoise: /favicon.ico, which browsers ask for without a link.
WHITENOISE_ROOT = BASE_DIR / "static" / "root"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
MEDIA_ROOT = env.path("CONCORD_MEDIA_ROOT", default=BASE_DIR / "media")
# NLTK data folder METEOR's WordNet 3.0 is assembled in (from Debian's wordnet-base) on first use.
NLTK_DATA_DIR = env.path("CONCORD_NLTK_DATA", default=BASE_DIR / "var" / "nltk_data")
# Folder of a causal language model (Hugging Face format, read locally) for the perplexity metric;
# unset, perplexity says it is unavailable.
CONCORD_CAUSAL_LM = Path(_lm) if (_lm := env("CONCORD_CAUSAL_LM", default="")) else None

# Largest import file accepted (items or judgments); bigger uploads get a 413 naming the limit.
CONCORD_MAX_IMPORT_BYTES = env.int("CONCORD_MAX_IMPORT_BYTES", default=512 * 1024 * 1024)

# Outgoing mail (agreement alerts) from one URL: smtp://user:password@host:587, smtp+tls://, smtp+ssl://,
# consolemail:// (printed to the log). Unset: the log in development, an MTA on localhost:25 otherwise.
EMAIL_URL = env("EMAIL_URL", default="") or ("consolemail://" if DEBUG else "smtp://localhost:25")
# Leads may email invite links from the invites page once an installation names its mail server.
CONCORD_INVITE_EMAILS = env.bool("CONCORD_INVITE_EMAILS", default=bool(env("EMAIL_URL", default="")))
# An invite email the server refuses is retried this many times, after 1, 2, 4... x BACKOFF seconds, then shown
# as failed with the server's reason on the invites page.
CONCORD_INVITE_EMAIL_RETRIES = env.int("CONCORD_INVITE_EMAIL_RETRIES", default=5)
CONCORD_INVITE_EMAIL_BACKOFF = env.int("CONCORD_INVITE_EMAIL_BACKOFF", default=30)
vars().update(env.email_url_config(EMAIL_URL))
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=30)  # seconds; a hung server must not hold a worker
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="Concord <concord@localhost>")
SERVER_EMAIL = env("SERVER_EMAIL", default="") or DEFAULT_FROM_EMAIL
# An alert email that fails is retried this many times, after 1, 2, 4... x BACKOFF seconds (at most an hour
# apart, with jitter); after that the sweep in CELERY_BEAT_SCHEDULE tries again every 15 minutes.
CONCORD_ALERT_EMAIL_RETRIES = env.int("CONCORD_ALERT_EMAIL_RETRIES", default=8)
CONCORD_ALERT_EMAIL_BACKOFF = env.int("CONCORD_ALERT_EMAIL_BACKOFF", default=30)
# An agreement recompute splits its weeks into this many batches, which Celery workers compute in parallel;
# 1 computes them in one task. More batches than worker processes only add the batches' repeated reads.
CONCORD_RECOMPUTE_BATCHES = env.int("CONCORD_RECOMPUTE_BATCHES", default=2)
# An export job splits its tables into at most this many parts, which Celery workers write in parallel into a
# directory under MEDIA_ROOT (shared by the workers); 1 writes the whole export in one task.
CONCORD_EXPORT_PARTS = env.int("CONCORD_EXPORT_PARTS", default=2)

REDIS_URL = env("REDIS_URL", default="")
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

# Asked before the API hands out a token: each takes the user and answers a reason to refuse (403 with it)
# or None. A setting, so that any app may refuse an account its token (staffing's one-time passwords do).
CONCORD_TOKEN_REFUSALS = ["staffing.selectors.passwords.token_refusal_one_time_password"]

# Takes a user and answers the ids of the projects they lead, whose jobs they may watch besides their own.
# A setting, so that core, which owns the jobs, imports no app above it.
CONCORD_JOB_PROJECTS_LED = "annotation.selectors.projects.project_ids_led_by"

# Proxies in front of Concord that append the address they saw to X-Forwarded-For (0: none, use the
# socket's address). Throttles, the login lockout and the audit log key on the address the nearest trusted
# proxy reports; anything further left in the header was written by the client and is never used.
CONCORD_TRUSTED_PROXIES = env.int("CONCORD_TRUSTED_PROXIES", default=0)

# Failed logins (login page, admin login, token endpoint) are counted by django-axes per account AND
# client address together: one account's failures never lock another account, nor the same account
# from another address, so nobody can lock everyone out. Across accounts, the "auth" rate below caps
# attempts per address. Counts are database rows (the token endpoint answers bad credentials without
# raising, so ATOMIC_REQUESTS keeps them) and lapse after the cool-off.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_FAILURE_LIMIT = env.int("CONCORD_LOGIN_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("CONCORD_LOGIN_COOLOFF_MINUTES", default=15))
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "core.client_address.client_address"
AXES_LOCKOUT_CALLABLE = "staffing.views_auth.lockout_response"
# Successful logins are not logged by axes (a row per login, never pruned); lead and staff actions are
# in the audit log.
AXES_DISABLE_ACCESS_LOG = True

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # An archived project refuses writes (console.middleware explains why this is a default permission).
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "console.middleware.ArchivedProjectReadOnly",
    ],
    "DEFAULT_PAGINATION_CLASS": "core.pagination.StandardPagination",
    "EXCEPTION_HANDLER": "core.api_errors.exception_handler",
    "DEFAULT_THROTTLE_RATES": {"auth": env("CONCORD_AUTH_THROTTLE_RATE", default="300/min")},
    "NUM_PROXIES": CONCORD_TRUSTED_PROXIES,
    "DEFAULT_SCHEMA_CLASS": "core.api_schema.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Concord API",
    "DESCRIPTION": (
        "Human evaluation of generated text: projects, items, assignments, judgments, agreement.\n\n"
        "Bad input gets a 400 that names the field (and the line, for imports), and nothing is written: a NUL "
        "character, a lone surrogate, NaN or Infinity (also nested in JSON such as item meta), integers beyond "
        "64 bits, in bodies, import lines, query parameters and paths. Date-times without a UTC offset are read "
        "as UTC."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Schema and docs are public, as for an open-source API: they describe operations, never data.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    # Swagger UI from the installed drf-spectacular-sidecar, not a CDN: the docs work offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
}

# Celery: a broker is configured by REDIS_URL (or CELERY_BROKER_URL). Without one, jobs run eagerly
# in-process; this is a configuration choice, never a fallback when a configured broker is down.
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="") or REDIS_URL
CELERY_RESULT_BACKEND = env("CELERY_RESULT_BACKEND", default="") or REDIS_URL or None
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
# The queue jobs are sent to and workers read by default: one per instance when several share a Redis.
CELERY_TASK_DEFAULT_QUEUE = env("CELERY_TASK_DEFAULT_QUEUE", default="celery")
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TIMEZONE = TIME_ZONE
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=300)
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=240)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A job whose worker died unacknowledged is redelivered after visibility_timeout seconds (acks_late
# jobs); workers look for such jobs every interval x throttle seconds (kombu's Redis transport). Any idle
# worker on the Redis database redelivers the jobs under the unacked keys, even another instance's running
# ones: each instance sharing a Redis database names its own (.env.example).
unacked_key = env("CELERY_UNACKED_KEY", default="unacked")
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600),
    "unacked_restore_interval": env.int("CELERY_UNACKED_RESTORE_INTERVAL", default=10),
    "unacked_restore_throttle": env.int("CELERY_UNACKED_RESTORE_THROTTLE", default=10),
    "unacked_key": unacked_key,
    "unacked_index_key": f"{unacked_key}_index",
    "unacked_mutex_key": f"{unacked_key}_mutex",
}
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# Fixed entries; each project's weekly agreement recompute is a database entry leads edit.
CELERY_BEAT_SCHEDULE = {
    # Return expired leases of idle projects, so lead-facing counts stay true between rater visits
    # (leasing itself never depends on it). https://crontab.guru/#*/5_*_*_*_*
    "assignment-expire": {"task": "annotation.assignment_expire_job", "schedule": crontab(minute="*/5")},
    # Recompute the allocation probabilities of adaptive pairwise projects that had refresh_every new judgments
    # since (the debounce of adaptive allocation: the rater loop only reads them). https://crontab.guru/#*_*_*_*_*
    "adaptive-allocation-refresh": {"task": "evaluation.adaptive_refresh_stale_job", "schedule": crontab(minute="*")},
    # Send the agreement alerts whose email has not gone out yet (retries exhausted, broker or worker down
    # when they were raised). https://crontab.guru/#*/15_*_*_*_*
    "agreement-alert-emails": {
        "task": "agreement.jobs.alert_emails_send_pending_job",
        "schedule": crontab(minute="*/15"),
    },
    # Recompute the agreement of projects with judgments newer than their last recompute, each at most once per
    # its lead-set interval (so that interval is rounded up to this sweep's 5 minutes).
    # https://crontab.guru/#*/5_*_*_*_*
    "agreement-stale-recompute": {
        "task": "agreement.jobs.agreement_recompute_stale_all_job",
        "schedule": crontab(minute="*/5"),
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env("DJANGO_LOG_LEVEL", default="INFO")},
    # axes: its per-attempt INFO lines are noise; failures and lockouts are WARNING.
    "loggers": {"django.db.backends": {"level": "WARNING"}, "axes": {"level": "WARNING"}},
}
