"""OpenAPI schema generation that names nested serializers after the API view holding them.

Every view nests its own ``InputSerializer``/``OutputSerializer`` (HackSoft style); drf-spectacular
names components by class name only, so they would collide. The component is prefixed with the
outermost class (``ItemListApi.OutputSerializer`` → ``ItemListOutput``).

The views are plain ``APIView``s that paginate their lists themselves (``StandardPagination``), so
list answers are documented with the ``{count, next, previous, results}`` envelope; and a 400 may be
either the documented body or DRF's field → messages map of a refused input.
"""

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers

from core.pagination import StandardPagination

# The body of a refusal that names its reason (403, 404, 409...).
DETAIL = inline_serializer("Detail", {"detail": serializers.CharField()})

FIELD_ERRORS = {
    "type": "object",
    "description": "Each refused input field with its messages.",
    "additionalProperties": {},
}


class AutoSchema(SpectacularAutoSchema):
    def _get_serializer_name(self, serializer, direction, bypass_extensions=False):
        name = super()._get_serializer_name(serializer, direction, bypass_extensions)
        cls = serializer if isinstance(serializer, type) else type(serializer)
        outer, _, _ = cls.__qualname__.partition(".")
        if outer != cls.__qualname__ and not getattr(getattr(cls, "Meta", None), "ref_name", None):
            name = outer.removesuffix("Api") + name
        return name

    def _get_paginator(self):
        paginator = super()._get_paginator()
        if paginator is None and self.method == "GET" and not getattr(self.view, "unpaginated_lists", False):
            return StandardPagination()
        return paginator

    def _get_response_for_code(self, serializer, status_code, media_types=None, direction="response"):
        response = super()._get_response_for_code(serializer, status_code, media_types, direction)
        if str(status_code) == "400":
            for content in response.get("content", {}).values():
                if "schema" in content:
                    content["schema"] = {"anyOf": [content["schema"], FIELD_ERRORS]}
        return response
