"""REST API of the agreement app: stored snapshots and on-demand recompute."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from agreement.models import AgreementSnapshot
from agreement.selectors.snapshots import snapshot_list
from agreement.services import (
    agreement_recompute_start,
    agreement_settings_get,
    agreement_settings_update,
    schedule_get,
    schedule_set,
)
from agreement.services.schedule import DAYS
from agreement.services.stale_recompute import MAX_MINUTES as MAX_AUTO_MINUTES
from annotation.selectors import project_get_for_lead, rater_names_for_project
from core.outside_text import validate_outside_json
from core.pagination import paginated


class AgreementListApi(APIView):
    class FilterSerializer(serializers.Serializer):
        week = serializers.DateField(required=False, help_text="Monday of the ISO week; default the latest.")
        all_weeks = serializers.BooleanField(default=False)
        window = serializers.ChoiceField(choices=AgreementSnapshot.Window.values, required=False)
        scope = serializers.ChoiceField(choices=AgreementSnapshot.Scope.values, required=False)
        criterion = serializers.CharField(required=False)
        rating_unit = serializers.ChoiceField(
            choices=AgreementSnapshot.RatingUnit.values,
            required=False,
            help_text="A project rating per turn has its figures over whole outputs (conversation) and over "
            "assistant turns (turn) apart; this keeps one kind.",
        )
        subgroup = serializers.CharField(required=False)
        statistic = serializers.CharField(required=False)
        pair = serializers.CharField(required=False, help_text="Two rater names joined by a comma.")

        def validate_pair(self, value):
            names = [v.strip() for v in value.split(",")]
            if len(names) != 2 or not all(names):
                raise serializers.ValidationError("give two rater names separated by a comma")
            return tuple(names)

    class OutputSerializer(serializers.Serializer):
        week_start = serializers.DateField()
        window = serializers.CharField()
        scope = serializers.CharField()
        criterion = serializers.CharField(source="criterion.name", allow_null=True, default=None)
        rating_unit = serializers.CharField(
            help_text="conversation: the figure's units are whole outputs; turn: single assistant turns."
        )
        subgroup = serializers.CharField()
        rater_a = serializers.SerializerMethodField()
        rater_b = serializers.SerializerMethodField()
        statistic = serializers.CharField(
            help_text="e.g. krippendorff_alpha_ordinal; gwet_ac2_quadratic has quadratic weights on the "
            "positions of the declared categories (equal to their values on a Likert scale). Error-span types "
            "add span_f1_exact, span_f1_overlap (per pair also span_precision_* and span_recall_*), "
            "span_matched_exact, char_f1_<label>, char_kappa_<label>, char_alpha_<label> and "
            "unitizing_alpha_<label> (label: any, a severity, or severity), kendall_tau per pair on the scores, "
            "and span_counts."
        )
        is_main = serializers.BooleanField()
        value = serializers.FloatField(allow_null=True)
        ci_low = serializers.FloatField(allow_null=True)
        ci_high = serializers.FloatField(allow_null=True)
        ci_method = serializers.CharField(
            help_text="What produced the interval: bca or percentile (bootstrap over units), analytic (the "
            "coefficient's standard error); empty without an interval."
        )
        n_units = serializers.IntegerField()
        n_raters = serializers.IntegerField()
        n_pairable = serializers.IntegerField()
        status = serializers.CharField()
        reason = serializers.CharField()
        unreliable = serializers.BooleanField()
        computed_at = serializers.DateTimeField()

        def _name(self, user_id) -> str | None:
            return None if user_id is None else self.context["rater_names"].get(user_id, str(user_id))

        def get_rater_a(self, snapshot) -> str | None:
            return self._name(snapshot.rater_a_id)

        def get_rater_b(self, snapshot) -> str | None:
            return self._name(snapshot.rater_b_id)

    @extend_schema(parameters=[FilterSerializer], responses=OutputSerializer(many=True))
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        snapshots = snapshot_list(project, **filters.validated_data)
        return paginated(request, self, snapshots, self.OutputSerializer, rater_names=rater_names_for_project(project))


class AgreementRecomputeApi(APIView):
    @extend_schema(
        request=None,
        responses={
            202: inline_serializer(
                "RecomputeStarted", {"job_id": serializers.IntegerField(), "state": serializers.CharField()}
            )
        },
    )
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        job = agreement_recompute_start(project=project, user=request.user)
        return Response({"job_id": job.id, "state": job.state}, status=status.HTTP_202_ACCEPTED)


class AgreementSettingsApi(APIView):
    class ScheduleSerializer(serializers.Serializer):
        enabled = serializers.BooleanField()
        day_of_week = serializers.ChoiceField(choices=DAYS, default="mon")
        hour = serializers.IntegerField(min_value=0, max_value=23, default=3, help_text="UTC")

    class InputSerializer(serializers.Serializer):
        alert_below = serializers.FloatField(min_value=-1, max_value=1, required=False)
        alert_drop = serializers.FloatField(min_value=0, max_value=2, required=False)
        email_leads = serializers.BooleanField(required=False)
        auto_recompute_minutes = serializers.IntegerField(
            min_value=0,
            max_value=MAX_AUTO_MINUTES,
            required=False,
            help_text="Recompute by itself after new judgments, at most once in this many minutes (0: off).",
        )
        schedule = serializers.DictField(
            required=False, validators=[validate_outside_json], help_text="{enabled, day_of_week, hour}"
        )

        def validate_schedule(self, value):
            schedule = AgreementSettingsApi.ScheduleSerializer(data=value)
            schedule.is_valid(raise_exception=True)
            return schedule.validated_data

    class OutputSerializer(serializers.Serializer):
        alert_below = serializers.FloatField()
        alert_drop = serializers.FloatField()
        email_leads = serializers.BooleanField()
        auto_recompute_minutes = serializers.IntegerField()
        schedule = serializers.DictField()

    def _out(self, project, rules):
        return {
            "alert_below": rules.alert_below,
            "alert_drop": rules.alert_drop,
            "email_leads": rules.email_leads,
            "auto_recompute_minutes": rules.auto_recompute_minutes,
            "schedule": schedule_get(project),
        }

    @extend_schema(responses=OutputSerializer)
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        return Response(self.OutputSerializer(self._out(project, agreement_settings_get(project))).data)

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def put(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        schedule = fields.pop("schedule", None)
        rules = agreement_settings_update(project=project, by=request.user, **fields)
        if schedule is not None:
            schedule_set(project=project, by=request.user, **schedule)
        return Response(self.OutputSerializer(self._out(project, rules)).data)
