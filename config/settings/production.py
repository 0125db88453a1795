"""Production hardening on top of base: required secrets and hosts, secure cookies, HSTS."""

import re

from django.core.exceptions import ImproperlyConfigured

from config.env import env

from .base import *  # noqa: F403

# Words of the placeholders in .env.example, the Makefile's demo and Django's startproject key.
PLACEHOLDER = re.compile(r"change-?me|insecure|placeholder|do-not-deploy|not-for-production|example", re.IGNORECASE)

DEBUG = False
SECRET_KEY = env("DJANGO_SECRET_KEY")
# Django's deploy check accepts any 50-character key, the placeholder of .env.example too.
if len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5 or PLACEHOLDER.search(SECRET_KEY):
    raise ImproperlyConfigured(
        "DJANGO_SECRET_KEY is a placeholder or too short: set 50+ random characters, e.g. from "
        "python -c 'from django.core.management.utils import get_random_secret_key as k; print(k())'"
    )
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS")
DATABASES = {"default": env.db("DATABASE_URL")}
DATABASES["default"]["ATOMIC_REQUESTS"] = True
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DJANGO_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

STORAGES["staticfiles"] = {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}  # noqa: F405

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=True)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
