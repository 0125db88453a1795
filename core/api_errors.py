"""Turns service-layer errors into 4xx API answers that name the problem."""

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from core.import_records import ImportRejected


def exception_handler(exc, context):
    # set_rollback: with ATOMIC_REQUESTS, anything the request wrote before the error is undone
    if isinstance(exc, DjangoValidationError):
        set_rollback()
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
        return Response(detail, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, ImportRejected):
        set_rollback()
        return Response(exc.report.as_dict(), status=status.HTTP_400_BAD_REQUEST)
    return drf_exception_handler(exc, context)
