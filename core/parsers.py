"""Request parsers for import bodies: the raw body is spooled to a temporary file, never held in memory."""

import tempfile

from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException
from rest_framework.parsers import BaseParser

# Bodies up to 8 MB stay in memory; larger ones go to a temporary file on disk.
SPOOL_IN_MEMORY_BYTES = 8 * 1024 * 1024
CHUNK_BYTES = 1024 * 1024


class ImportTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "import_too_large"


def spool(stream):
    """Copy a binary stream to a seekable temporary file, enforcing CONCORD_MAX_IMPORT_BYTES."""
    limit = settings.CONCORD_MAX_IMPORT_BYTES
    spooled = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY_BYTES)
    size = 0
    while chunk := stream.read(CHUNK_BYTES):
        size += len(chunk)
        if size > limit:
            spooled.close()
            raise ImportTooLarge(f"the import is larger than the limit of {limit} bytes (CONCORD_MAX_IMPORT_BYTES)")
        spooled.write(chunk)
    spooled.seek(0)
    return spooled


class _SpoolingParser(BaseParser):
    def parse(self, stream, media_type=None, parser_context=None):
        if stream is None:
            return tempfile.SpooledTemporaryFile()
        return spool(stream)


class JSONLinesParser(_SpoolingParser):
    media_type = "application/x-ndjson"


class JSONLParser(_SpoolingParser):
    media_type = "application/jsonl"


class CSVParser(_SpoolingParser):
    media_type = "text/csv"


class TSVParser(_SpoolingParser):
    media_type = "text/tab-separated-values"


class ParquetParser(_SpoolingParser):
    media_type = "application/vnd.apache.parquet"
