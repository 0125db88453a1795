"""REST API of quality control, for a project's leads: rules (versioned), the action log, pausing,
resuming, excluding and including raters, and the per-rater quality report."""

from django.contrib.auth import get_user_model
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.models import QcRules
from annotation.selectors import (
    project_get_for_lead,
    qc_rules_current,
    qc_rules_defaults,
    rater_action_list,
    rater_quality_report,
)
from annotation.selectors.rater_evidence import rater_in_project
from annotation.services import LEAD_ACTIONS, degraded_controls_create, qc_rules_apply_all, qc_rules_update
from annotation.services.controls import METHODS, repeat_controls_create
from core.api_schema import DETAIL
from core.pagination import paginated


class QcRulesSerializer(serializers.Serializer):
    version = serializers.IntegerField(read_only=True, help_text="0 until the lead first saves rules.")
    min_gold_answered = serializers.IntegerField(
        min_value=0, max_value=10_000, help_text="Gold items answered before the accuracy rule judges a rater."
    )
    gold_accuracy_threshold = serializers.FloatField(
        min_value=0, max_value=1, help_text="Share of gold answers that must be right; 0 turns the rule off."
    )
    action = serializers.ChoiceField(
        choices=QcRules.Action.values, help_text="What a broken rule does: warn (log only), pause or exclude."
    )
    min_seconds_per_judgment = serializers.FloatField(
        min_value=0,
        max_value=3600,
        help_text="Screens answered faster are flagged; the rule fires when most of "
        "the last 20 screens are; 0 turns it off.",
    )
    straight_line_run = serializers.IntegerField(
        min_value=0,
        max_value=10_000,
        help_text="The rule fires after this many identical screens in a row; 0 turns it off.",
    )
    min_degraded_answered = serializers.IntegerField(
        min_value=0,
        max_value=10_000,
        help_text="Degraded copies judged before the degraded-control rule judges a rater.",
    )
    degraded_p_threshold = serializers.FloatField(
        min_value=0,
        max_value=1,
        help_text="The rule fires when the one-sided test that damaged copies score lower "
        "gives a p-value above this; 0 turns it off.",
    )
    control_flag_share = serializers.FloatField(
        min_value=0,
        max_value=1,
        help_text="The rule fires when a rater flagged more than this share of the "
        "control screens served to them (training, gold checks, repeats, "
        "degraded copies), once min_gold_answered were served; 0 turns it off.",
    )
    created_at = serializers.DateTimeField(read_only=True, allow_null=True)


class QcRulesApi(APIView):
    """The project's quality-control rules. Once the project has judgments they are frozen: a PUT then
    stores a new version, and every automatic action names the version it applied."""

    @extend_schema(responses={200: QcRulesSerializer, 403: DETAIL, 404: DETAIL})
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        return Response(QcRulesSerializer(qc_rules_current(project) or qc_rules_defaults(project)).data)

    @extend_schema(
        request=QcRulesSerializer,
        responses={200: QcRulesSerializer, 400: DETAIL, 403: DETAIL, 404: DETAIL},
        description="Fields left out keep their current value (a partial update).",
    )
    def put(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = QcRulesSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        rules = qc_rules_update(project=project, by=request.user, **data.validated_data)
        return Response(QcRulesSerializer(rules).data)


class RaterActionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    rater = serializers.CharField(source="rater.username")
    kind = serializers.CharField()
    rules_version = serializers.IntegerField(source="rules.version", allow_null=True, default=None)
    rule = serializers.CharField(help_text="The rule that fired; empty for a lead's action.")
    evidence = serializers.JSONField()
    by = serializers.CharField(source="by.username", allow_null=True, default=None)
    reason = serializers.CharField()
    created_at = serializers.DateTimeField()


class RaterActionListCreateApi(APIView):
    """The action log (newest first), and a lead's pause / resume / exclude / include of a rater."""

    class InputSerializer(serializers.Serializer):
        rater = serializers.CharField(max_length=150, help_text="The rater's username.")
        action = serializers.ChoiceField(choices=list(LEAD_ACTIONS))
        reason = serializers.CharField(max_length=2000, help_text="Why; it is logged with the action.")

    @extend_schema(
        parameters=[OpenApiParameter("rater", str, description="only this rater's actions")],
        responses={200: RaterActionSerializer(many=True), 403: DETAIL, 404: DETAIL},
    )
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        actions = rater_action_list(project)
        if request.query_params.get("rater"):
            actions = actions.filter(rater__username=request.query_params["rater"])
        return paginated(request, self, actions, RaterActionSerializer)

    @extend_schema(
        request=InputSerializer,
        responses={201: RaterActionSerializer, 400: DETAIL, 403: DETAIL, 404: DETAIL},
        description="pause_for_good pauses and releases the rater's work as exclude does (leases back to "
        "the pool, place in the design vacated; the re-plan is in the evidence); "
        "exclude also pauses and leaves the rater's judgments out of agreement, results and "
        "exports; include counts them again (the rater stays paused until resumed), also for "
        "a rater who has left the team; admit lets a rater the qualification gate kept out "
        "into the real work.",
    )
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        rater = get_user_model().objects.filter(username=data.validated_data["rater"]).first()
        if rater is None or not rater_in_project(project, rater.pk):  # a member, or excluded after leaving
            raise serializers.ValidationError(
                {"rater": f"{data.validated_data['rater']!r} is not a rater of this project"}
            )
        action = LEAD_ACTIONS[data.validated_data["action"]](
            project=project, rater=rater, by=request.user, reason=data.validated_data["reason"]
        )
        return Response(RaterActionSerializer(action).data, status=status.HTTP_201_CREATED)


class RaterQualityApi(APIView):
    """Per rater: gold accuracy (overall, rolling, per week), behaviour flags, position bias, state."""

    @extend_schema(
        responses={
            200: inline_serializer(
                "RaterQualityReport",
                {
                    "rules_version": serializers.IntegerField(allow_null=True),
                    "position_bias": serializers.JSONField(allow_null=True),
                    "raters": serializers.ListField(child=serializers.JSONField()),
                    "former_excluded": serializers.ListField(
                        child=serializers.JSONField(),
                        help_text=(
                            "Excluded raters no longer on the team: the exclusion holds until a lead includes them."
                        ),
                    ),
                },
            ),
            403: DETAIL,
            404: DETAIL,
        }
    )
    def get(self, request, pk):
        report = rater_quality_report(project_get_for_lead(request.user, pk))
        raters = [{k: v for k, v in r.items() if k not in ("last_action", "user_id")} for r in report["raters"]]
        return Response(
            {
                "rules_version": report["rules"].version if report["rules"] else None,
                "position_bias": report["position_bias"],
                "raters": raters,
                "former_excluded": [
                    {"username": f["username"], "excluded_at": f["excluded_at"]} for f in report["former_excluded"]
                ],
            }
        )


class QcApplyApi(APIView):
    """Apply the current rules to every rater now (they also run after every screen and flag of a project
    with controls)."""

    @extend_schema(request=None, responses={200: RaterActionSerializer(many=True), 403: DETAIL, 404: DETAIL})
    def post(self, request, pk):
        actions = qc_rules_apply_all(project=project_get_for_lead(request.user, pk), by=request.user)
        return Response(RaterActionSerializer(actions, many=True).data)


CONTROLS_CREATED = inline_serializer(
    "ControlsCreated",
    {"created": serializers.IntegerField(), "external_ids": serializers.ListField(child=serializers.CharField())},
)


def _created(copies) -> Response:
    return Response(
        {"created": len(copies), "external_ids": [c.external_id for c in copies]}, status=status.HTTP_201_CREATED
    )


class DegradedControlsCreateApi(APIView):
    """Add degraded copies of real items (damaged outputs, seeded), served as ordinary items and never counted
    in agreement or results; each rater's scores on them are tested against the originals'."""

    class InputSerializer(serializers.Serializer):
        n = serializers.IntegerField(min_value=1, max_value=10_000, help_text="Copies to add.")
        seed = serializers.IntegerField(default=0, help_text="The same seed gives the same copies.")
        methods = serializers.ListField(
            child=serializers.ChoiceField(choices=METHODS),
            default=list(METHODS),
            allow_empty=False,
            help_text="Damage methods, used in turn.",
        )

    @extend_schema(request=InputSerializer, responses={201: CONTROLS_CREATED, 400: DETAIL, 403: DETAIL, 404: DETAIL})
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return _created(degraded_controls_create(project=project, **data.validated_data, by=request.user))


class RepeatControlsCreateApi(APIView):
    """Add repeat copies of real items, served at the project's repeat rate to raters who judged the
    original some screens before (pairwise with the sides swapped); consistency is on qc/raters/."""

    class InputSerializer(serializers.Serializer):
        n = serializers.IntegerField(min_value=1, max_value=10_000, help_text="Items to repeat.")
        seed = serializers.IntegerField(default=0, help_text="The same seed picks the same items.")

    @extend_schema(request=InputSerializer, responses={201: CONTROLS_CREATED, 400: DETAIL, 403: DETAIL, 404: DETAIL})
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return _created(repeat_controls_create(project=project, **data.validated_data, by=request.user))
