"""REST API of adjudication: the lead's rule and counts, the adjudicator's queue and answer."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.apis import RaterApi, ScreenCriterionSerializer, ScreenValueSerializer
from annotation.selectors import project_get_for_lead
from annotation.selectors.adjudication import adjudication_screen, adjudication_summary
from annotation.services.adjudication import (
    adjudication_case_check,
    adjudication_next,
    adjudication_rule_check,
    adjudication_rule_set,
    adjudication_submit,
)
from core.api_schema import DETAIL


class AdjudicationSerializer(serializers.Serializer):
    enabled = serializers.BooleanField(help_text="Items whose raters disagree under the rule are queued.")
    threshold = serializers.FloatField(
        allow_null=True,
        help_text="Values of one output on one criterion further apart than this disagree; null: "
        "any difference (error spans: the spans alone decide). Task types whose values are categories "
        "(pairwise) take none.",
    )
    n_cases = serializers.IntegerField(help_text="Items queued so far (an item is queued once, ever).")
    n_adjudicated = serializers.IntegerField()
    n_waiting = serializers.IntegerField(help_text="Queued items without an adjudicated answer yet.")
    n_held = serializers.IntegerField(help_text="Of them, leased to an adjudicator now.")


def _summary(project) -> dict:
    summary = adjudication_summary(project)
    return {
        "enabled": summary.enabled,
        "threshold": summary.threshold,
        "n_cases": summary.n_cases,
        "n_adjudicated": summary.n_adjudicated,
        "n_waiting": summary.n_waiting,
        "n_held": summary.n_held,
    }


class AdjudicationRuleApi(APIView):
    """The project's adjudication rule and its queue's counts (leads)."""

    class InputSerializer(serializers.Serializer):
        enabled = serializers.JSONField(help_text="true or false.")
        threshold = serializers.JSONField(
            required=False, default=None, allow_null=True, help_text="A number from 0, or null."
        )

    @extend_schema(responses={200: AdjudicationSerializer, 403: DETAIL, 404: DETAIL})
    def get(self, request, pk):
        return Response(_summary(project_get_for_lead(request.user, pk)))

    @extend_schema(
        request=InputSerializer,
        responses={200: AdjudicationSerializer, 400: DETAIL, 403: DETAIL, 404: DETAIL},
        description="Sets the rule and queues every item that disagrees under it now (and from then on "
        "every item whose judgments come to disagree). Queued items stay queued.",
    )
    def put(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        rule = adjudication_rule_check(project, **data.validated_data)
        adjudication_rule_set(project=project, rule=rule, by=request.user)
        return Response(_summary(project))


class AdjudicationNextApi(RaterApi):
    """Lease the next queued item to the requesting adjudicator (or resume the one they hold)."""

    class OutputSerializer(serializers.Serializer):
        class AnswerSerializer(serializers.Serializer):
            class ShownValueSerializer(ScreenValueSerializer):
                shown = serializers.CharField(help_text="The value as the screen words it.")

            answer = serializers.CharField(help_text="Answer 1, Answer 2…: a rater, unnamed, in a shuffled order.")
            values = ShownValueSerializer(many=True)

        case_id = serializers.IntegerField()
        item = inline_serializer(
            "AdjudicationItem",
            {
                "input": serializers.CharField(),
                "references": serializers.ListField(child=serializers.CharField()),
                "modulus": serializers.JSONField(allow_null=True),
                "outputs": inline_serializer(
                    "AdjudicationOutput",
                    {
                        "position": serializers.IntegerField(),
                        "text": serializers.CharField(),
                        "proposed_spans": serializers.ListField(
                            child=serializers.JSONField(),
                            required=False,
                            help_text="Error-span types: every span the raters marked on the output, pooled and "
                            "unnamed ({side, start, end, severity, category}); the answer accepts, edits or rejects "
                            "each by its index here, as a rater answers a model's proposals.",
                        ),
                        "rated_turns": serializers.ListField(
                            child=serializers.IntegerField(),
                            required=False,
                            help_text="Projects rating per turn: the assistant turns answered, as next lists them.",
                        ),
                    },
                    many=True,
                ),
            },
        )
        criteria = ScreenCriterionSerializer(many=True)
        rating_unit = serializers.CharField(help_text="What each criterion is answered for, as the raters' next says.")
        disagreed_on = serializers.ListField(child=serializers.CharField(), help_text="Criteria that disagreed.")
        answers = AnswerSerializer(many=True)
        expires_at = serializers.DateTimeField()

    @extend_schema(
        request=None,
        responses={200: OutputSerializer, 204: None, 403: DETAIL, 404: DETAIL, 409: DETAIL},
        description="200 with the item, its outputs in imported order (positions as on the screen; "
        "pairwise: A is the first), the criteria and every rater's answers without names, "
        "in a shuffled order; 204 when the queue is empty. 403 for members who are not "
        "adjudicators; 404 for everyone else.",
    )
    def post(self, request, pk):
        case = adjudication_next(project_id=pk, adjudicator=request.user)
        if case is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(adjudication_screen(case))


class AdjudicationAnswerApi(RaterApi):
    """The adjudicator's answer for a queued item: every criterion, for every output (pairwise: per criterion)."""

    class InputSerializer(serializers.Serializer):
        values = ScreenValueSerializer(many=True, allow_empty=False)

    @extend_schema(
        request=InputSerializer,
        responses={
            201: inline_serializer(
                "Adjudicated", {"case_id": serializers.IntegerField(), "n_values": serializers.IntegerField()}
            ),
            400: DETAIL,
            403: DETAIL,
            404: DETAIL,
            409: DETAIL,
        },
        description="201 when stored. 400 names each bad or missing value; 409 when the item was "
        "adjudicated already (one answer per item) or another adjudicator holds it.",
    )
    def post(self, request, pk):
        adjudication_case_check(adjudicator=request.user, case_id=pk)  # who may answer, before what they sent
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        stored = adjudication_submit(adjudicator=request.user, case_id=pk, values=data.validated_data["values"])
        return Response({"case_id": pk, "n_values": len(stored)}, status=status.HTTP_201_CREATED)
