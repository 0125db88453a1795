"""Page-number pagination with a client-chosen page size, capped."""

from rest_framework.pagination import PageNumberPagination


class StandardPagination(PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000


def paginated(request, view, rows, serializer_class, /, **context):
    """The ``{count, next, previous, results}`` page of ``rows`` the request asks for, serialized with
    ``context``."""
    paginator = StandardPagination()
    page = paginator.paginate_queryset(rows, request, view=view)
    return paginator.get_paginated_response(serializer_class(page, many=True, context=context).data)
