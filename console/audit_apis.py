"""REST API of the audit log: a project's entries, read-only (in the console: audit itself sits below the apps'
services and selectors)."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.views import APIView

from annotation.selectors import project_get_for_lead
from audit.models import ACTIONS
from audit.selectors import audit_list_for_project
from core.pagination import StandardPagination


class AuditListApi(APIView):
    """What the project's leads and staff did, newest first. Entries are never changed or deleted."""

    class FilterSerializer(serializers.Serializer):
        action = serializers.CharField(
            required=False,
            max_length=64,
            help_text=(
                "An action or a group of them by prefix, e.g. rater (pause, resume, exclude, include). Actions: "
                + ", ".join(ACTIONS)
                + "."
            ),
        )
        actor = serializers.CharField(required=False, max_length=150, help_text="A username or command name.")
        since = serializers.DateTimeField(required=False, help_text="Only entries at or after this time (ISO 8601).")

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        created_at = serializers.DateTimeField()
        actor = serializers.CharField(source="actor_name", help_text="Username, or the command that acted.")
        action = serializers.CharField()
        target = serializers.CharField()
        detail = serializers.JSONField()
        source = serializers.CharField(help_text="web, api or command")
        ip = serializers.IPAddressField(allow_null=True)

    @extend_schema(parameters=[FilterSerializer], responses=OutputSerializer(many=True))
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        paginator = StandardPagination()
        page = paginator.paginate_queryset(
            audit_list_for_project(project, **filters.validated_data), request, view=self
        )
        return paginator.get_paginated_response(self.OutputSerializer(page, many=True).data)
