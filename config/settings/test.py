"""Test settings: fast hashing and in-memory cache; PostgreSQL from DATABASE_URL (local server by default)."""

import os

from config.env import env

# Set before base reads it; a real DJANGO_SECRET_KEY from the environment wins.
os.environ.setdefault("DJANGO_SECRET_KEY", "test-only-secret-key-not-for-production-0123456789abcdefghijklmnop")

from .base import *  # noqa: E402, F403

DATABASES = {"default": env.db("DATABASE_URL", default="postgres://postgres@127.0.0.1:5432/concord")}
DATABASES["default"]["ATOMIC_REQUESTS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {"transaction_mode": "IMMEDIATE", "timeout": 30}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
if "EMAIL_URL" not in os.environ:  # mail in memory (django.core.mail.outbox) unless a test asks for a server
    EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
# Jobs run in-process; a worker the integration tests start sets false, so its retries go through the broker.
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=True)
CELERY_TASK_EAGER_PROPAGATES = True
