"""Import files sent to the API, as the raw body or as a multipart ``file`` field, and their schema."""

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers

from core.import_records import detect_format
from core.parsers import spool

IMPORT_SCHEMA = dict(
    request={
        "application/x-ndjson": {"type": "string", "format": "binary"},
        "text/csv": {"type": "string", "format": "binary"},
        "multipart/form-data": {"type": "object", "properties": {"file": {"type": "string", "format": "binary"}}},
    },
    responses={
        201: inline_serializer("ImportResult", {"imported": serializers.IntegerField()}),
        400: inline_serializer(
            "ImportErrors",
            {
                "detail": serializers.CharField(),
                "n_errors": serializers.IntegerField(),
                "errors": serializers.ListField(
                    child=inline_serializer(
                        "ImportLineError", {"line": serializers.IntegerField(), "error": serializers.CharField()}
                    )
                ),
            },
        ),
    },
)


def import_upload(request):
    """(seekable binary file, format) from a raw body or a multipart ``file`` field."""
    if isinstance(request.data, dict) or hasattr(request.data, "getlist"):
        upload = request.FILES.get("file")
        if upload is None:
            raise serializers.ValidationError(
                {
                    "file": "send the file as the body (application/x-ndjson or "
                    "text/csv) or as a multipart field named 'file'"
                }
            )
        return spool(upload), detect_format(upload.name, upload.content_type)
    return request.data, detect_format(None, request.content_type)


def upload_name(request) -> str:
    """The uploaded file's name, for the audit log; empty for a raw body."""
    upload = request.FILES.get("file") if hasattr(request.data, "getlist") else None
    return upload.name if upload is not None else ""
