"""REST API of the lead console: one APIView per operation, thin over the console's selectors."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.selectors import project_get_for_lead
from console.selectors.progress import progress_summary
from console.services import project_archive, project_delete, project_delete_allowed, project_restore
from console.services.project_lifecycle import DELETE_REFUSED


class ProjectArchiveStateSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    status = serializers.CharField(help_text="Kept while archived: the project is that again once restored.")
    archived_at = serializers.DateTimeField(allow_null=True)


class ProjectArchiveApi(APIView):
    """Archives the project: hidden from the home list and read-only (every write to it answers 409, raters
    are served nothing) until a lead restores it. Its status is kept for the restore."""

    @extend_schema(request=None, responses=ProjectArchiveStateSerializer)
    def post(self, request, pk):
        project = project_archive(project=project_get_for_lead(request.user, pk), actor=request.user)
        return Response(ProjectArchiveStateSerializer(project).data)


class ProjectRestoreApi(APIView):
    """Takes the project out of the archive, with the status it had."""

    @extend_schema(request=None, responses=ProjectArchiveStateSerializer)
    def post(self, request, pk):
        project = project_restore(project=project_get_for_lead(request.user, pk), actor=request.user)
        return Response(ProjectArchiveStateSerializer(project).data)


class ProjectDeleteApi(APIView):
    """Deletes the project with its items, judgments and members, once ``confirm_name`` is its exact name.
    Takes the admin-level ``annotation.delete_project`` permission (403 without it, even for its lead)."""

    class InputSerializer(serializers.Serializer):
        confirm_name = serializers.CharField(help_text="The project's name, typed out.", trim_whitespace=False)

    class OutputSerializer(serializers.Serializer):
        items = serializers.IntegerField(help_text="Items deleted.")
        judgments = serializers.IntegerField(help_text="Judgments deleted.")
        members = serializers.IntegerField(help_text="Memberships deleted.")

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        if not project_delete_allowed(request.user):
            raise PermissionDenied(DELETE_REFUSED)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        counts = project_delete(project=project, actor=request.user, confirm_name=data.validated_data["confirm_name"])
        return Response(self.OutputSerializer(counts).data)


class ProgressSummaryApi(APIView):
    """A project's progress for its leads: item states, target slots, judgments and screens per day (UTC),
    per-rater throughput and median time per item (serving to submission), leases held now, and the
    estimated time to completion with what it is based on."""

    class OutputSerializer(serializers.Serializer):
        class Items(serializers.Serializer):
            n_items = serializers.IntegerField()
            n_target_items = serializers.IntegerField(
                help_text="Imported work items (neither gold nor quality-control copies): complete + in_progress + "
                "untouched."
            )
            complete = serializers.IntegerField()
            in_progress = serializers.IntegerField()
            untouched = serializers.IntegerField()
            gold = serializers.IntegerField()
            control = serializers.IntegerField(help_text="Quality-control copies (repeats and degraded copies).")
            slots_target = serializers.IntegerField(
                help_text="Raters wanted, summed over non-gold items (degraded copies are queued like work items)."
            )
            slots_filled = serializers.IntegerField()
            slots_remaining = serializers.IntegerField()
            percent_complete = serializers.FloatField(allow_null=True, help_text="Filled slots in percent.")

        class Eta(serializers.Serializer):
            status = serializers.ChoiceField(choices=["done", "estimated", "not_enough_data"])
            seconds = serializers.IntegerField(allow_null=True)
            finish_at = serializers.DateTimeField(allow_null=True)
            slots_per_hour = serializers.FloatField(allow_null=True)
            n_recent = serializers.IntegerField(help_text="Slots filled in the recent window.")
            based_on = serializers.CharField()

        class Day(serializers.Serializer):
            day = serializers.DateField()
            judgments = serializers.IntegerField()
            screens = serializers.IntegerField()

        class Rater(serializers.Serializer):
            rater = serializers.CharField()
            is_paused = serializers.BooleanField()
            judgments = serializers.IntegerField()
            screens = serializers.IntegerField()
            active_days = serializers.IntegerField()
            judgments_per_day = serializers.FloatField(allow_null=True, help_text="Per active day.")
            screens_per_day = serializers.FloatField(allow_null=True, help_text="Per active day.")
            last_active = serializers.DateTimeField(allow_null=True)
            median_seconds_per_item = serializers.FloatField(allow_null=True)

        class Leases(serializers.Serializer):
            class Holder(serializers.Serializer):
                rater = serializers.CharField()
                n = serializers.IntegerField(help_text="Leases this rater holds now.")
                oldest_age_seconds = serializers.IntegerField()

            n_active = serializers.IntegerField()
            oldest_age_seconds = serializers.IntegerField(allow_null=True)
            raters = Holder(many=True)

        generated_at = serializers.DateTimeField()
        items = Items()
        median_seconds_per_item = serializers.FloatField(allow_null=True)
        eta = Eta()
        per_day = Day(many=True)
        raters = Rater(many=True)
        leases = Leases()

    @extend_schema(responses=OutputSerializer)
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        return Response(self.OutputSerializer(progress_summary(project)).data)
