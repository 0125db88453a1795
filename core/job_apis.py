"""REST API for watching background jobs (kept apart from apis.py: jobs are shared by every app)."""

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from core.selectors.jobs import job_get_for_user


@extend_schema_serializer(component_name="JobDetailOutput")  # its name in the schema before it was shared
class JobSerializer(serializers.Serializer):
    """A job's status, as this API and the pages that start a job answer it."""

    id = serializers.IntegerField()
    job_id = serializers.IntegerField(source="id")
    kind = serializers.CharField()
    project = serializers.IntegerField(source="project_id", allow_null=True)
    state = serializers.CharField()
    progress = serializers.FloatField()
    message = serializers.CharField()
    result = serializers.JSONField()
    error = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class JobDetailApi(APIView):
    OutputSerializer = JobSerializer

    @extend_schema(responses=OutputSerializer)
    def get(self, request, pk):
        return Response(self.OutputSerializer(job_get_for_user(request.user, pk)).data)
