# One image for web, worker and beat (docker-compose.yml picks the command).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_SETTINGS_MODULE=config.settings.production
WORKDIR /app
# WordNet 3.0 for METEOR's synonyms (assembled into CONCORD_NLTK_DATA on first use)
RUN apt-get update && apt-get install -y --no-install-recommends wordnet-base wordnet-sense-index \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml README.md ./
COPY config ./config
COPY annotation ./annotation
COPY evaluation ./evaluation
COPY agreement ./agreement
RUN pip install --no-cache-dir .
COPY . .
# A throwaway key: production settings refuse placeholders, and this one is never used again.
RUN DJANGO_SECRET_KEY="$(python -c 'import secrets; print(secrets.token_urlsafe(50))')" \
    DJANGO_ALLOWED_HOSTS=localhost DATABASE_URL=sqlite:////tmp/x.db python manage.py collectstatic --noinput
RUN useradd --create-home concord && mkdir -p /data/media /data/nltk_data && chown concord /data/media /data/nltk_data
USER concord
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "4", "--access-logfile", "-"]
