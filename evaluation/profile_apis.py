"""REST API of results by rater profile: results and agreement per value of a profile field, and results
post-stratified to target shares of its values."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from annotation.selectors import project_get_for_lead
from core.api_schema import DETAIL
from evaluation.apis import EvaluationApi
from evaluation.services import ResultOptions
from evaluation.services.profile_breakdown import post_stratified_results, profile_breakdown


class ProfileResultsApi(EvaluationApi):
    """Results and agreement per value of a rater profile field (leads), and, given target shares of its
    values, each system's post-stratified mean with a bootstrap interval."""

    class InputSerializer(serializers.Serializer):
        field = serializers.CharField(max_length=100, help_text="A profile field's name.")
        target = serializers.DictField(
            child=serializers.FloatField(min_value=0, max_value=1),
            required=False,
            help_text="Share of each value of the field (summing to 1) to re-weight the system means to.",
        )
        confidence = serializers.FloatField(min_value=0.5, max_value=0.999, default=0.95)
        n_resamples = serializers.IntegerField(min_value=0, max_value=10_000, default=1000)
        test_resamples = serializers.IntegerField(
            min_value=0, max_value=100_000, default=0, help_text="Per value: significance resamples (0 skips)."
        )
        seed = serializers.IntegerField(min_value=0, max_value=2**32 - 1, default=0)
        rater_models = serializers.BooleanField(
            default=False, help_text="Also fit the rater models on each value's raters alone (slower)."
        )

    @extend_schema(
        request=InputSerializer,
        responses={
            200: inline_serializer(
                "ProfileResults",
                {
                    "breakdown": serializers.JSONField(
                        help_text="{field, values: [{value, n_raters, results, agreement, rater_models?}]}"
                    ),
                    "post_stratified": serializers.JSONField(
                        allow_null=True,
                        help_text="With a target: per criterion, each "
                        "system's re-weighted mean, interval and raw mean.",
                    ),
                },
            ),
            400: DETAIL,
            403: DETAIL,
            404: DETAIL,
        },
    )
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        params = data.validated_data
        options = ResultOptions(
            confidence=params["confidence"],
            n_resamples=params["n_resamples"],
            test_resamples=params["test_resamples"],
            seed=params["seed"],
        )
        breakdown = profile_breakdown(
            project=project, field=params["field"], options=options, rater_models=params["rater_models"]
        )
        body = {"breakdown": breakdown, "post_stratified": None}
        if "target" in params:
            body["post_stratified"] = post_stratified_results(
                project=project, field=params["field"], target=params["target"], options=options
            )
        return Response(body)
