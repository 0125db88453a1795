"""Services queue their app's Celery jobs by name.

A job imports the service it runs; a service that imported its job back to queue it would close an import
cycle (``services -> jobs -> services``). So services look the job up by its Celery name, and each app's
``AppConfig.ready`` imports its ``jobs`` module, which registers the jobs in the web process as the worker's
autodiscovery does in the worker.
"""

from celery import Task, current_app


def queued_job(name: str) -> Task:
    """The Celery task registered under ``name`` (its ``.delay`` honours eager mode like the task itself)."""
    return current_app.tasks[name]
