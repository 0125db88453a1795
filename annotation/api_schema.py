"""OpenAPI schema generation that names nested serializers after the API view holding them.

Every view nests its own ``InputSerializer``/``OutputSerializer`` (HackSoft style); drf-spectacular
names components by class name only, so they would collide. The component is prefixed with the
outermost class (``ItemListApi.OutputSerializer`` → ``ItemListOutput``).
"""
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema


class AutoSchema(SpectacularAutoSchema):
    def _get_serializer_name(self, serializer, direction, bypass_extensions=False):
        name = super()._get_serializer_name(serializer, direction, bypass_extensions)
        cls = serializer if isinstance(serializer, type) else type(serializer)
        outer, _, _ = cls.__qualname__.partition(".")
        if outer != cls.__qualname__ and not getattr(getattr(cls, "Meta", None), "ref_name", None):
            name = outer.removesuffix("Api") + name
        return name
