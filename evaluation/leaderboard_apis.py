"""REST API of a pairwise project's leaderboard checks: integrity and the style-controlled ranking."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from annotation.selectors import project_get_for_lead
from annotation.task_types import REGISTRY
from annotation.task_types.facts import COMPARED
from core.api_schema import DETAIL
from evaluation.apis import EvaluationApi, interval_field
from evaluation.services.leaderboard import LeaderboardOptions, pairwise_leaderboard


class LeaderboardApi(EvaluationApi):
    """Per criterion: for each pair of neighbours in the Bradley–Terry ranking (ties as half-wins, judgments
    unweighted), how many judgments would have to be removed to swap them (a greedy search that refits after
    each removal: an upper bound on the fewest; null when more than max_removals); the ranking is provisional
    while a system has fewer judgments than the project's min_judgments_per_system (set at
    allocation/adaptive/). With ``style``, the ranking controlled for the length and formatting of each side
    (Chatbot Arena's style control), with percentile bootstrap intervals. Cached until a judgment comes in."""

    class FilterSerializer(serializers.Serializer):
        style = serializers.BooleanField(default=False, help_text="Add the style-controlled ranking.")
        n_resamples = serializers.IntegerField(
            min_value=0, max_value=2000, default=200, help_text="Bootstrap samples of the style-controlled intervals."
        )
        confidence = serializers.FloatField(min_value=0.5, max_value=0.999, default=0.95)
        seed = serializers.IntegerField(min_value=0, max_value=2**32 - 1, default=0)

    class OutputSerializer(serializers.Serializer):
        class CriterionSerializer(serializers.Serializer):
            class IntegritySerializer(serializers.Serializer):
                class SystemSerializer(serializers.Serializer):
                    system = serializers.CharField()
                    strength = serializers.FloatField(allow_null=True, help_text="Log-strength, mean zero.")
                    judgments = serializers.IntegerField()

                class MarginSerializer(serializers.Serializer):
                    upper = serializers.CharField()
                    lower = serializers.CharField()
                    gap = serializers.FloatField(allow_null=True, help_text="Their difference in strength.")
                    removals_to_flip = serializers.IntegerField(
                        allow_null=True,
                        help_text="Judgments removed before they swapped; null: more than max_removals.",
                    )

                provisional = serializers.BooleanField()
                under_minimum = serializers.ListField(child=serializers.CharField())
                systems = SystemSerializer(many=True, help_text="Best first.")
                margins = MarginSerializer(many=True, help_text="One per pair of neighbours, best first.")

            class StyleSerializer(serializers.Serializer):
                class StyleSystemSerializer(serializers.Serializer):
                    system = serializers.CharField()
                    strength = serializers.FloatField(allow_null=True)
                    strength_ci = interval_field()

                class CoefficientSerializer(serializers.Serializer):
                    feature = serializers.CharField()
                    coefficient = serializers.FloatField(allow_null=True)
                    ci = interval_field()

                error = serializers.CharField(allow_null=True)
                left_out = serializers.ListField(
                    child=serializers.CharField(),
                    help_text="Features that never differ between the sides, or move with one listed before.",
                )
                systems = StyleSystemSerializer(many=True, help_text="Best first.")
                coefficients = CoefficientSerializer(
                    many=True,
                    help_text="The change in log-odds of winning per standard deviation of the sides' normalised "
                    "difference in the feature.",
                )

            criterion = serializers.CharField()
            integrity = IntegritySerializer(allow_null=True)
            style = StyleSerializer(allow_null=True, help_text="Null unless asked for (style=true).")
            error = serializers.CharField(allow_null=True)

        project = serializers.IntegerField()
        min_judgments_per_system = serializers.IntegerField()
        max_removals = serializers.IntegerField()
        criteria = CriterionSerializer(many=True)

    @extend_schema(
        parameters=[FilterSerializer], responses={200: OutputSerializer, 400: DETAIL, 403: DETAIL, 404: DETAIL}
    )
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        if REGISTRY[project.task_type].results.kind != COMPARED:
            raise serializers.ValidationError(
                {"detail": "a leaderboard is computed for projects that compare systems in pairs"}
            )
        params = self.FilterSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        body = pairwise_leaderboard(project=project, options=LeaderboardOptions(**params.validated_data))
        return Response(self.OutputSerializer(body).data)
