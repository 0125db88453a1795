"""The 503 answer while the database or the broker is down: retryable, and it names the failing part
without passing on the driver's message (host, port, user and database name)."""

import pytest
from django.db import OperationalError
from django.test import RequestFactory
from kombu.exceptions import OperationalError as BrokerOperationalError

from core.middleware import RETRY_AFTER_SECONDS, ServiceUnavailableMiddleware

DRIVER_MESSAGE = (
    'connection to server at "10.0.0.7", port 5432 failed: FATAL: password authentication failed '
    'for user "concord_prod"'
)


def answer(path, exception):
    middleware = ServiceUnavailableMiddleware(lambda request: None)
    return middleware.process_exception(RequestFactory().post(path), exception)


@pytest.mark.parametrize(
    ("exception", "named"),
    [
        (OperationalError(DRIVER_MESSAGE), "The database is unavailable"),
        (BrokerOperationalError(DRIVER_MESSAGE), "The job queue is unavailable"),
    ],
)
def test_api_answer_names_the_part_but_not_the_driver_message(exception, named):
    response = answer("/api/v1/projects/1/next/", exception)
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
    body = response.content.decode()
    assert named in body
    assert "10.0.0.7" not in body and "concord_prod" not in body and "OperationalError" not in body


def test_page_answer_is_plain_text_without_the_driver_message():
    response = answer("/projects/1/", OperationalError(DRIVER_MESSAGE))
    assert response.status_code == 503 and response["Content-Type"].startswith("text/plain")
    assert "10.0.0.7" not in response.content.decode()


def test_other_errors_are_left_to_django():
    assert answer("/api/v1/projects/1/next/", ValueError(DRIVER_MESSAGE)) is None
