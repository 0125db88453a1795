"""REST API of the allocation, for a project's leads: quotas, the design and its preview, per-rater quotas, and
a pairwise project's adaptive allocation."""

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.apis import AllocationSettingsSerializer
from annotation.selectors import project_get_for_lead
from annotation.selectors.adaptive import adaptive_state_get
from annotation.selectors.allocation import allocation_design_preview, rater_quota_list
from annotation.services.adaptive_allocation import adaptive_config_update
from annotation.services.allocation import allocation_rater_quota_set, allocation_settings_update
from annotation.task_types.adaptive import TARGETS, WEIGHTINGS
from core.api_schema import DETAIL
from core.pagination import paginated


class DesignSerializer(serializers.Serializer):
    class PairSerializer(serializers.Serializer):
        places = serializers.ListField(child=serializers.IntegerField(), help_text="The two places, from 1.")
        shared_units = serializers.IntegerField()
        computable = serializers.BooleanField(help_text="Whether this pair's agreement will be computable.")

    places = serializers.IntegerField(help_text="Raters the design plans for (0: no design).")
    n_items = serializers.IntegerField()
    n_slots = serializers.IntegerField()
    per_rater = serializers.ListField(child=serializers.IntegerField(), help_text="Planned screens per place.")
    holders = serializers.ListField(child=serializers.CharField(allow_blank=True), help_text="Who holds each place.")
    pairs = PairSerializer(many=True)
    connected = serializers.BooleanField()
    warnings = serializers.ListField(child=serializers.CharField())


def _design(preview) -> dict:
    design = preview.design
    computable = {(a, b) for a, b, _ in design.computable_pairs}
    return {
        "places": design.places,
        "n_items": preview.n_items,
        "n_slots": preview.n_slots,
        "per_rater": list(design.per_place),
        "holders": list(preview.holders),
        "pairs": [
            {"places": [a + 1, b + 1], "shared_units": n, "computable": (a, b) in computable}
            for a, b, n in design.pairs
        ],
        "connected": design.connected,
        "warnings": list(preview.warnings),
    }


class AllocationApi(APIView):
    """The project's allocation settings and the design they give for its items as they are now."""

    class OutputSerializer(AllocationSettingsSerializer):
        design = DesignSerializer()

    def _answer(self, project):
        data = {name: getattr(project, name) for name in AllocationSettingsSerializer().fields}
        return Response(self.OutputSerializer({**data, "design": _design(allocation_design_preview(project))}).data)

    @extend_schema(responses={200: OutputSerializer, 403: DETAIL, 404: DETAIL})
    def get(self, request, pk):
        return self._answer(project_get_for_lead(request.user, pk))

    @extend_schema(
        request=AllocationSettingsSerializer, responses={200: OutputSerializer, 400: DETAIL, 403: DETAIL, 404: DETAIL}
    )
    def patch(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = AllocationSettingsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return self._answer(allocation_settings_update(project=project, by=request.user, **data.validated_data))


class RaterQuotaApi(APIView):
    """Each rater's own quota (null fields: the project's), screens served and place in the design."""

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        max_screens = serializers.IntegerField(min_value=1, allow_null=True, default=None)
        expected_screens = serializers.IntegerField(min_value=1, allow_null=True, default=None)

    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        max_screens = serializers.IntegerField(allow_null=True)
        expected_screens = serializers.IntegerField(allow_null=True)
        quota = serializers.IntegerField(allow_null=True, help_text="The maximum that applies to the rater.")
        served = serializers.IntegerField()
        place = serializers.IntegerField(allow_null=True, help_text="Their place in the design, from 1.")

    @staticmethod
    def _rows(project) -> list[dict]:
        return [
            {**row, "place": None if row["place"] is None else row["place"] + 1} for row in rater_quota_list(project)
        ]

    @extend_schema(responses={200: OutputSerializer(many=True), 403: DETAIL, 404: DETAIL})
    def get(self, request, pk):
        return paginated(request, self, self._rows(project_get_for_lead(request.user, pk)), self.OutputSerializer)

    @extend_schema(request=InputSerializer, responses={200: OutputSerializer, 400: DETAIL, 403: DETAIL, 404: DETAIL})
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        rater = get_user_model().objects.filter(username=data.validated_data["username"]).first()
        if rater is None:
            raise serializers.ValidationError({"username": f"no user {data.validated_data['username']!r}"})
        allocation_rater_quota_set(
            project=project,
            rater=rater,
            by=request.user,
            max_screens=data.validated_data["max_screens"],
            expected_screens=data.validated_data["expected_screens"],
        )
        row = next(row for row in self._rows(project) if row["username"] == rater.username)
        return Response(self.OutputSerializer(row).data)


class AdaptiveAllocationApi(APIView):
    """Adaptive allocation of a pairwise or best–worst project (annotation.services.adaptive_allocation): its
    settings, the judgments each system needs before the ranking stops being provisional (pairwise), and the
    cached probabilities the next screens' pairs or tuples are drawn with."""

    class SettingsSerializer(serializers.Serializer):
        target = serializers.ChoiceField(
            choices=TARGETS, required=False, help_text="The whole ranking, or the top top_k."
        )
        top_k = serializers.IntegerField(required=False, allow_null=True, help_text="With target top_k.")
        cold_start = serializers.IntegerField(
            required=False,
            allow_null=True,
            help_text="Judgments drawn uniformly over the pairs (tuples) before adapting; null: two per pair (one "
            "answer per tuple).",
        )
        floor = serializers.FloatField(
            required=False,
            help_text="Share of the uniform design kept in every allocation, in (0, 1] (0.3 weighted back, 0.1 "
            "unweighted).",
        )
        refresh_every = serializers.IntegerField(
            required=False, help_text="New judgments between two recomputations of the probabilities (20)."
        )
        weighting = serializers.ChoiceField(
            choices=WEIGHTINGS,
            required=False,
            help_text="The strengths the results report, and whose uncertainty the allocation shrinks: "
            "inverse_probability (default; each judgment weighted by q / its sampling probability, so the "
            "strengths are a uniform design's Bradley–Terry fit even if the model is wrong) or none (unweighted "
            "maximum likelihood: the most precise when Bradley–Terry holds; a whole ranking of 20 systems then needed "
            "about 30% fewer judgments in the benchmark, see BENCHMARKS.md).",
        )

    class InputSerializer(serializers.Serializer):
        adaptive = serializers.JSONField(
            required=False,
            allow_null=True,
            help_text="The settings (target, top_k, cold_start, floor, refresh_every, weighting), or null to turn "
            "it off.",
        )
        min_judgments_per_system = serializers.IntegerField(
            required=False,
            allow_null=True,
            help_text="The ranking is provisional while a system has fewer judgments; null or 0: never.",
        )

    class OutputSerializer(serializers.Serializer):
        class ProbabilitySerializer(serializers.Serializer):
            systems = serializers.ListField(
                child=serializers.CharField(), help_text="The pair or tuple of systems, names sorted."
            )
            system_a = serializers.CharField(allow_null=True, help_text="A pair's first system; null for a tuple.")
            system_b = serializers.CharField(allow_null=True, help_text="A pair's second system; null for a tuple.")
            probability = serializers.FloatField()

        adaptive = serializers.JSONField(allow_null=True, help_text="The settings with their defaults, or null.")
        min_judgments_per_system = serializers.IntegerField()
        computed_at = serializers.DateTimeField(allow_null=True, help_text="When the probabilities were computed.")
        n_judgments = serializers.IntegerField(help_text="Judgments they were computed from.")
        probabilities = ProbabilitySerializer(
            many=True,
            help_text="Per pair (tuple) of systems, before the draw restricts them to those open to a rater.",
        )

    def _answer(self, project):
        state = adaptive_state_get(project)
        config = project.task_config or {}
        return Response(
            self.OutputSerializer(
                {
                    "adaptive": config.get("adaptive"),
                    "min_judgments_per_system": config.get("min_judgments_per_system", 0),
                    "computed_at": state.computed_at if state else None,
                    "n_judgments": state.n_judgments if state else 0,
                    "probabilities": [
                        {
                            "systems": row[:-1],
                            "system_a": row[0] if len(row) == 3 else None,
                            "system_b": row[1] if len(row) == 3 else None,
                            "probability": row[-1],
                        }
                        for row in (state.probabilities if state else [])
                    ],
                }
            ).data
        )

    @extend_schema(responses={200: OutputSerializer, 403: DETAIL, 404: DETAIL})
    def get(self, request, pk):
        return self._answer(project_get_for_lead(request.user, pk))

    @extend_schema(request=InputSerializer, responses={200: OutputSerializer, 400: DETAIL, 403: DETAIL, 404: DETAIL})
    def patch(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        project.task_config = adaptive_config_update(project=project, changes=data.validated_data, by=request.user)
        return self._answer(project)
