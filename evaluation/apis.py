"""REST API of the evaluation app: results, metric scores, correlations, calibrators, judges and dataset
exports; one APIView per operation, thin over services and selectors. Everything here is for project leads
(raters get 403, outsiders 404)."""

import json

from django.conf import settings
from django.http import FileResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.fields import SkipField
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.selectors import project_get_for_lead
from core.pagination import StandardPagination, paginated
from core.parsers import CSVParser, JSONLinesParser, JSONLParser, ParquetParser
from core.uploads import IMPORT_SCHEMA, import_upload, upload_name
from evaluation.export.writers import FORMATS
from evaluation.models import Calibrator, Export, MetricInput
from evaluation.selectors import (
    calibrator_summaries,
    judge_list_for_project,
    metric_names_for_project,
    metric_score_list,
    metric_system_summaries,
)
from evaluation.services import (
    ExportOptions,
    ResultOptions,
    calibrator_apply,
    calibrator_fit,
    export_start,
    export_state,
    judge_agreement_report,
    judge_alt_test_report,
    judge_confusion,
    judge_from_metric,
    judge_prediction_powered_report,
    judge_rating_import,
    metric_catalogue,
    metric_correlations,
    metric_input_upload,
    metric_names_check,
    metric_score_import,
    metrics_compute_start,
    rater_models_recompute_start,
    rater_models_stored,
    results_compute,
    study_plan,
    study_plan_apply,
)
from evaluation.services.export import SPLITS, export_path
from evaluation.services.vote_files import FORMATS as VOTE_FORMATS
from evaluation.services.vote_import import detect_vote_format, vote_import_start
from evaluation.stats import WEIGHTINGS, InsufficientDataError
from evaluation.stats.correlation import LEVELS, METHODS
from evaluation.stats.pairwise import TIE_MODELS
from evaluation.stats.significance import TESTS
from evaluation.stats.system_scores import INTERVAL_METHODS, NORMALISATIONS


class LeftOutWhenNone(serializers.CharField):
    """Text left out of the answer where the attribute is None (a figure only some results have)."""

    def get_attribute(self, instance):
        value = super().get_attribute(instance)
        if value is None:
            raise SkipField()
        return value


def interval_field(**kwargs):
    """A fresh [low, high] field (DRF binds a field instance to one name, so each use needs its own)."""
    return serializers.ListField(
        child=serializers.FloatField(allow_null=True),
        min_length=2,
        max_length=2,
        help_text="[low, high] percentile bootstrap interval; nulls without resampling.",
        **kwargs,
    )


DETAIL = inline_serializer("EvaluationDetail", {"detail": serializers.CharField()})


class EvaluationApi(APIView):
    """Turns a service's ValueError (bad option, unknown name) into a 400 naming the problem."""

    def handle_exception(self, exc):
        if isinstance(exc, ValueError) and not isinstance(exc, serializers.ValidationError):
            exc = serializers.ValidationError({"detail": str(exc)})
        return super().handle_exception(exc)


def _list_param(request, name) -> list[str]:
    return [v for value in request.query_params.getlist(name) for v in value.split(",") if v]


# --- Results -----------------------------------------------------------------------------------------


class CalibratorSummarySerializer(serializers.Serializer):
    class MethodSerializer(serializers.Serializer):
        method = serializers.CharField()
        calibrated = serializers.FloatField(allow_null=True, help_text="Held-out correlation with the humans.")
        best_single = serializers.FloatField(allow_null=True)
        gain = serializers.FloatField(allow_null=True, help_text="calibrated − best_single.")
        gain_p_value = serializers.FloatField(
            allow_null=True, help_text="Share of item bootstrap resamples without a gain (one-sided)."
        )
        gain_ci = interval_field()

    name = serializers.CharField()
    criterion = serializers.CharField()
    metrics = serializers.ListField(child=serializers.CharField())
    best_single = serializers.CharField(
        allow_null=True, help_text="The single metric best on the calibration rows (null: the fit failed)."
    )
    n_calibration = serializers.IntegerField(allow_null=True)
    n_held_out = serializers.IntegerField(allow_null=True)
    k_folds = serializers.IntegerField(allow_null=True)
    n_resamples = serializers.IntegerField()
    methods = MethodSerializer(many=True)


class VoteResultSerializer(serializers.Serializer):
    class SystemSerializer(serializers.Serializer):
        system = serializers.CharField()
        n = serializers.IntegerField(help_text="Votes the system took part in.")
        wins = serializers.IntegerField()
        ties = serializers.IntegerField(help_text='Ties, "tie (bothbad)" included.')
        losses = serializers.IntegerField()
        win_rate = serializers.FloatField(allow_null=True, help_text="(wins + ties / 2) / n.")
        strength = serializers.FloatField(allow_null=True, help_text="Bradley–Terry log-strength, mean zero.")
        strength_ci = interval_field()

    criterion = serializers.CharField()
    n_votes = serializers.IntegerField()
    n_imports = serializers.IntegerField(help_text="Files imported on this criterion.")
    n_systems = serializers.IntegerField()
    ties_both_bad = serializers.IntegerField(help_text='Of the ties, those marked "tie (bothbad)".')

    class FitSerializer(serializers.Serializer):
        ties = serializers.CharField(help_text='"half" (a tie is half a win each) or "davidson".')
        tie_parameter = serializers.FloatField(allow_null=True, help_text="Davidson's ν (null with half-wins).")
        log_likelihood = serializers.FloatField(allow_null=True)
        n_resamples = serializers.IntegerField()
        n_resamples_without_mle = serializers.IntegerField(
            help_text="Bootstrap samples without a finite estimate, left out of the intervals."
        )
        bootstrap = serializers.CharField()
        scale = serializers.CharField()

    systems = SystemSerializer(many=True)
    bradley_terry = FitSerializer(allow_null=True, help_text="Null when the fit failed (`error` says why).")
    error = serializers.CharField(allow_null=True)
    weighting = serializers.CharField(
        help_text="How votes with a sampling probability are weighted (the results' `weighting`); "
        '"none" when no vote recorded one.'
    )
    sampling_probabilities = serializers.BooleanField(
        help_text="Whether any vote recorded the probability its pair was drawn with (an adaptive study's): the "
        "fit is then weighted, with sandwich intervals instead of the bootstrap."
    )


class ResultsApi(EvaluationApi):
    """Per-system results of every criterion, from current judgments of included raters on non-gold items."""

    class FilterSerializer(serializers.Serializer):
        confidence = serializers.FloatField(min_value=0.5, max_value=0.999, default=0.95)
        n_resamples = serializers.IntegerField(
            min_value=0, max_value=10_000, default=1000, help_text="Bootstrap samples for the intervals."
        )
        test_resamples = serializers.IntegerField(
            min_value=0,
            max_value=100_000,
            default=10_000,
            help_text="Resamples of the significance test (0 skips it).",
        )
        seed = serializers.IntegerField(min_value=0, default=0, help_text="Fixes every random draw.")
        test = serializers.ChoiceField(
            choices=TESTS,
            default="auto",
            help_text="Paired bootstrap or approximate randomisation over items; auto: randomisation below 100 "
            "items (exact when 2^n is small), where the bootstrap test rejects too often, else bootstrap.",
        )
        alpha = serializers.FloatField(
            min_value=0.0001,
            max_value=0.5,
            default=0.05,
            help_text="Family-wise error rate (Holm) for `significant`.",
        )
        normalisation = serializers.ChoiceField(
            choices=[n for n in NORMALISATIONS if n != "modulus"],
            required=False,
            help_text="Per-rater normalisation; default zscore for rankme (log with a RankME modulus), none otherwise.",
        )
        ties = serializers.ChoiceField(
            choices=TIE_MODELS, default="half", help_text="Bradley–Terry ties: half-wins or Davidson's model."
        )
        aggregate = serializers.ChoiceField(
            choices=["none", "majority"],
            default="none",
            help_text="Pairwise: every judgment, or one majority vote per item.",
        )
        weighting = serializers.ChoiceField(
            choices=list(WEIGHTINGS),
            required=False,
            help_text="Pairwise judgments drawn by adaptive allocation: the Bradley–Terry fit weights each judgment "
            "by q / its sampling probability (inverse_probability: a uniform design's fit even if the model is "
            "wrong), by its square root (stabilised), or not at all (none: maximum likelihood, the most precise "
            "while Bradley–Terry holds). Default: the project's adaptive setting, else inverse_probability.",
        )
        segments = serializers.BooleanField(
            default=False,
            help_text="Error-span types: list every segment's (output's) score, the mean over its raters.",
        )
        interval = serializers.ChoiceField(
            choices=INTERVAL_METHODS,
            default="bca",
            help_text="Bootstrap interval of the system means: bias-corrected and accelerated (closer to "
            "its level on few items, see BENCHMARKS.md) or percentile. Medians, ranks and strengths "
            "always get percentile intervals.",
        )

    class OutputSerializer(serializers.Serializer):
        class CriterionSerializer(serializers.Serializer):
            class SystemSerializer(serializers.Serializer):
                system = serializers.CharField()
                n = serializers.IntegerField(help_text="Judgments (likert, rankme) or comparisons (pairwise).")
                n_items = serializers.IntegerField(required=False)
                mean = serializers.FloatField(
                    required=False, allow_null=True, help_text="After the criterion's normalisation."
                )
                mean_ci = interval_field(required=False)
                median = serializers.FloatField(required=False, allow_null=True)
                median_ci = interval_field(required=False)
                distribution = serializers.DictField(
                    child=serializers.IntegerField(),
                    required=False,
                    help_text="likert: ratings per scale point (raw).",
                )
                mean_rank = serializers.FloatField(
                    required=False, allow_null=True, help_text="rankme: mean rank on its screens (1 = best)."
                )
                mean_rank_ci = interval_field(required=False)
                wins = serializers.IntegerField(required=False)
                ties = serializers.IntegerField(required=False)
                losses = serializers.IntegerField(required=False)
                win_rate = serializers.FloatField(
                    required=False, allow_null=True, help_text="pairwise: (wins + ties / 2) / n."
                )
                strength = serializers.FloatField(
                    required=False,
                    allow_null=True,
                    help_text="pairwise: Bradley–Terry log-strength, mean zero; best–worst: MaxDiff log-strength, "
                    "mean zero (`mean` is the counting score, (best − worst) / shown).",
                )
                strength_ci = interval_field(required=False)
                weighted_win_rate = serializers.FloatField(
                    required=False,
                    allow_null=True,
                    help_text="pairwise, adaptive allocation: Horvitz–Thompson estimate of the win rate (ties "
                    "half) against an opponent drawn uniformly, each judgment weighted by the inverse of its "
                    "sampling probability.",
                )
                micro = serializers.FloatField(
                    required=False, allow_null=True, help_text="Error spans: the mean over all segments."
                )
                rank = serializers.ListField(
                    child=serializers.IntegerField(),
                    required=False,
                    allow_null=True,
                    help_text="Error spans: WMT's rank range [significant losses + 1, systems − significant wins].",
                )
                cluster = serializers.IntegerField(
                    required=False, allow_null=True, help_text="Error spans: WMT's significance cluster (1 = best)."
                )
                subgroup_means = serializers.DictField(
                    child=serializers.FloatField(allow_null=True),
                    required=False,
                    help_text="Error spans: mean segment score per subgroup; `mean` is their mean.",
                )
                n_spans = serializers.IntegerField(required=False)
                spans_per_judgment = serializers.FloatField(required=False, allow_null=True)
                severities = serializers.DictField(
                    child=serializers.IntegerField(), required=False, help_text="Error spans per severity."
                )

            class CategorySerializer(serializers.Serializer):
                category = serializers.CharField()
                n_spans = serializers.IntegerField()
                systems = serializers.DictField(
                    child=serializers.FloatField(allow_null=True),
                    help_text="The category's share of each system's mean segment score (they add up to it).",
                )

            class SegmentSerializer(serializers.Serializer):
                item = serializers.CharField()
                system = serializers.CharField()
                score = serializers.FloatField(allow_null=True)
                n_raters = serializers.IntegerField()

            class ComparisonSerializer(serializers.Serializer):
                system_a = serializers.CharField()
                system_b = serializers.CharField()
                difference = serializers.FloatField(help_text="mean(a) − mean(b) over shared items.")
                n_items = serializers.IntegerField()
                p_value = serializers.FloatField()
                p_holm = serializers.FloatField(
                    required=False,
                    help_text="Holm-adjusted across all pairs of the criterion (error spans: not adjusted, as WMT "
                    "reports; `p_value` is the Stouffer-combined Wilcoxon test over subgroups).",
                )
                significant = serializers.BooleanField()

            class BestWorstSerializer(serializers.Serializer):
                class MaxDiffSerializer(serializers.Serializer):
                    n_resamples = serializers.IntegerField()
                    n_resamples_without_mle = serializers.IntegerField()
                    weighting = LeftOutWhenNone(
                        required=False,
                        help_text="Adaptively drawn screens only: how each was weighted (inverse_probability, "
                        "stabilised or none), with sandwich intervals.",
                    )
                    scale = serializers.CharField()
                    systems = serializers.DictField(
                        child=inline_serializer(
                            "MaxDiffStrength",
                            {"strength": serializers.FloatField(allow_null=True), "strength_ci": interval_field()},
                        )
                    )

                class SplitHalfSerializer(serializers.Serializer):
                    correlation = serializers.CharField()
                    n_splits = serializers.IntegerField()
                    half = serializers.FloatField(allow_null=True, help_text="Mean uncorrected correlation.")
                    corrected = serializers.FloatField(allow_null=True, help_text="Mean corrected correlation.")
                    corrected_range = interval_field()

                n_screens = serializers.IntegerField(help_text="Whole answers (one best, one worst).")
                n_left_out = serializers.IntegerField()
                maxdiff = MaxDiffSerializer(allow_null=True)
                split_half = SplitHalfSerializer(allow_null=True)
                maxdiff_error = serializers.CharField(allow_null=True)
                split_half_error = serializers.CharField(allow_null=True)

            class BradleyTerrySerializer(serializers.Serializer):
                ties = serializers.CharField(help_text='"half" (a tie is half a win each) or "davidson".')
                tie_parameter = serializers.FloatField(allow_null=True, help_text="Davidson's ν (null with half-wins).")
                log_likelihood = serializers.FloatField(allow_null=True, help_text="Null in the weighted fit.")
                n_resamples = serializers.IntegerField()
                n_resamples_without_mle = serializers.IntegerField(
                    help_text="Bootstrap samples without a finite maximum-likelihood estimate."
                )
                scale = serializers.CharField()

            class PairSerializer(serializers.Serializer):
                system_a = serializers.CharField()
                system_b = serializers.CharField()
                n = serializers.IntegerField()
                wins = serializers.IntegerField(help_text="Wins of system_a over system_b.")
                ties = serializers.IntegerField()
                losses = serializers.IntegerField()
                win_rate = serializers.FloatField(allow_null=True)
                sign_test_p = serializers.FloatField(help_text="Two-sided exact sign test, ties dropped.")
                p_holm = serializers.FloatField()
                significant = serializers.BooleanField()

            criterion = serializers.CharField()
            n_judgments = serializers.IntegerField()
            n_items = serializers.IntegerField()
            n_raters = serializers.IntegerField()
            normalisation = serializers.CharField(required=False)
            aggregate = serializers.CharField(required=False)
            n_comparisons = serializers.IntegerField(required=False)
            n_without_majority = serializers.IntegerField(required=False)
            systems = SystemSerializer(many=True)
            comparisons = ComparisonSerializer(many=True, required=False)
            pairs = PairSerializer(many=True, required=False)
            bradley_terry = BradleyTerrySerializer(
                required=False, allow_null=True, help_text="pairwise: the fit (null when it failed: see `error`)."
            )
            best_worst = BestWorstSerializer(
                required=False,
                help_text="Best–worst scaling: the MaxDiff fit and the split-half reliability (Spearman–Brown "
                "corrected per random split of each tuple's judgments and averaged), each null with its `…_error` "
                "when the data cannot give it.",
            )
            weighting = serializers.CharField(
                required=False,
                help_text="pairwise: how the Bradley–Terry fit weighted each judgment. When judgments carry the "
                "probability their pair was drawn with (adaptive allocation) the strengths are the bias-reduced "
                "fit with sandwich intervals, weighted as the `weighting` option says (inverse_probability, "
                "stabilised or none); none otherwise.",
            )
            sampling_probabilities = serializers.BooleanField(
                required=False,
                help_text="pairwise: the judgments carry sampling probabilities (adaptive allocation); "
                "weighted_win_rate is then given.",
            )
            higher_is_better = serializers.BooleanField(required=False)
            weights = serializers.JSONField(
                required=False,
                allow_null=True,
                help_text="MQM: the project's weights as ordered [pattern, weight] rules on 'severity:category'.",
            )
            n_spans = serializers.IntegerField(required=False)
            alpha = serializers.FloatField(required=False)
            categories = CategorySerializer(many=True, required=False)
            segments = SegmentSerializer(many=True, required=False)
            error = serializers.CharField(allow_null=True)

        project = serializers.IntegerField()
        task_type = serializers.CharField()
        options = serializers.JSONField()
        excluded = serializers.JSONField(help_text="Judgments left out: on gold items, from excluded raters.")
        retired = serializers.JSONField(
            help_text="Retired items (served no more) and their current judgments, "
            "which the results keep: {items, judgments}."
        )
        n_judgments = serializers.IntegerField()
        criteria = CriterionSerializer(many=True)
        votes = VoteResultSerializer(
            many=True,
            required=False,
            help_text="Pair-comparing projects: the ranking of imported votes per criterion, apart from the "
            "judgments (`POST …/votes/import/`).",
        )
        turns = inline_serializer(
            "TurnMean",
            {
                "criterion": serializers.CharField(),
                "system": serializers.CharField(),
                "turn": serializers.IntegerField(
                    help_text="The assistant turn's index (from 0) in the output's turns."
                ),
                "turn_label": serializers.CharField(
                    help_text='The turn as the screens name it: "assistant turn 2 (message 3)" ("message 3" '
                    "where the system's outputs differ in which assistant turn that message is)."
                ),
                "mean": serializers.FloatField(),
                "n": serializers.IntegerField(),
            },
            many=True,
            required=False,
            help_text="Projects rating each assistant turn: the mean rating per criterion, system and turn position; "
            "`criteria` score whole outputs (a project rating `both`: by their whole-output judgments).",
        )
        calibrators = CalibratorSummarySerializer(many=True)

    @extend_schema(
        parameters=[FilterSerializer],
        responses={200: OutputSerializer, 400: DETAIL, 403: DETAIL, 404: DETAIL},
    )
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        params = self.FilterSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        body = results_compute(project=project, options=ResultOptions(**params.validated_data))
        body["calibrators"] = calibrator_summaries(project)
        return Response(self.OutputSerializer(body).data)


# --- Metric scores ------------------------------------------------------------------------------------


class MetricListApi(EvaluationApi):
    """The metrics scored in the project (computed, imported, calibrated), with how many outputs each."""

    class OutputSerializer(serializers.Serializer):
        name = serializers.CharField()
        source = serializers.CharField()
        n_outputs = serializers.IntegerField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request, pk):
        return paginated(
            request, self, metric_names_for_project(project_get_for_lead(request.user, pk)), self.OutputSerializer
        )


class MetricCatalogueApi(EvaluationApi):
    """The metrics Concord computes: name, one-line definition with its reference, the inputs it needs
    beyond the output, and why it is unavailable on this installation (null when it is available)."""

    class OutputSerializer(serializers.Serializer):
        name = serializers.CharField()
        description = serializers.CharField()
        needs = serializers.ListField(child=serializers.CharField())
        unavailable = serializers.CharField(allow_null=True)

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        return paginated(request, self, metric_catalogue(project), self.OutputSerializer)


class MetricScoreListApi(EvaluationApi):
    class OutputSerializer(serializers.Serializer):
        item = serializers.CharField(source="output.item.external_id")
        system = serializers.CharField(source="output.system")
        name = serializers.CharField()
        value = serializers.FloatField(allow_null=True)
        source = serializers.CharField()

    @extend_schema(
        parameters=[OpenApiParameter("name", str), OpenApiParameter("system", str)],
        responses=OutputSerializer(many=True),
    )
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        scores = metric_score_list(
            project, name=request.query_params.get("name"), system=request.query_params.get("system")
        )
        return paginated(request, self, scores, self.OutputSerializer)


class ImportApi(EvaluationApi):
    """An all-or-nothing file import into a project: the body (JSONL or CSV) or a multipart ``file``."""

    parser_classes = [JSONLinesParser, JSONLParser, CSVParser, MultiPartParser, FormParser]
    formats = ("jsonl", "csv")

    def run_import(self, project, stream, fmt, *, by, file_name) -> int:
        raise NotImplementedError

    @extend_schema(**IMPORT_SCHEMA)
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        stream, fmt = import_upload(request)
        if fmt not in self.formats:
            raise serializers.ValidationError({"file": f"this import takes {' or '.join(self.formats)}"})
        with stream:
            imported = self.run_import(project, stream, fmt, by=request.user, file_name=upload_name(request))
        return Response({"imported": imported}, status=status.HTTP_201_CREATED)


class VoteImportApi(EvaluationApi):
    """Import pairwise votes of a study run elsewhere, at arena scale, as a job (poll ``/api/v1/jobs/{job_id}/``):
    CSV, JSON lines or Parquet, as a multipart ``file`` or the body (``text/csv``, ``application/x-ndjson``,
    ``application/vnd.apache.parquet``). Columns in a public arena's layout (``model_a``, ``model_b``,
    ``winner``: `model_a`, `model_b`, `tie` or `tie (bothbad)`; optional ``judge``, ``tstamp`` in seconds since
    1970, ``question_id``) or Concord's (``system_a``, ``system_b``, ``winner``: a system's name, `tie` or
    `tie (bothbad)`; optional ``rater``, ``submitted_at`` in ISO 8601, ``prompt``); both take an optional
    ``sampling_probability``; other columns are ignored. All votes or none: a bad file fails the job with
    ``{detail, errors: [{line, error}], n_errors}`` as its result, each error naming the column (Parquet: the row).
    The votes are ranked apart from the judgments (results' ``votes``) and exported as their own table;
    quality control, allocation and agreement do not read them."""

    parser_classes = [JSONLinesParser, JSONLParser, CSVParser, ParquetParser, MultiPartParser, FormParser]

    @extend_schema(
        parameters=[
            OpenApiParameter("criterion", str, description="Criterion the votes are on; default the first."),
            OpenApiParameter(
                "file_format", str, enum=list(VOTE_FORMATS), description="Default: from the file's name or type."
            ),
        ],
        request={
            "multipart/form-data": inline_serializer("VoteImportUpload", {"file": serializers.FileField()}),
            "text/csv": OpenApiTypes.BINARY,
            "application/x-ndjson": OpenApiTypes.BINARY,
            "application/vnd.apache.parquet": OpenApiTypes.BINARY,
        },
        responses={202: inline_serializer("VoteImportStarted", {"job_id": serializers.IntegerField()}), 400: DETAIL},
    )
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        if hasattr(request.data, "getlist"):
            upload = request.FILES.get("file")
            if upload is None:
                raise serializers.ValidationError(
                    {"file": "send the file as the body or as a multipart field named 'file'"}
                )
            stream, name, content_type = upload, upload.name, upload.content_type
        else:
            stream, name, content_type = request.data, "", request.content_type
        fmt = request.query_params.get("file_format") or detect_vote_format(name, content_type)
        job = vote_import_start(
            project=project,
            upload=stream,
            fmt=fmt,
            criterion=request.query_params.get("criterion"),
            created_by=request.user,
            file_name=name,
        )
        return Response({"job_id": job.id}, status=status.HTTP_202_ACCEPTED)


class MetricImportApi(ImportApi):
    """Import metric scores computed elsewhere: JSONL ``{item, system, metric, score}`` or
    ``{item, system, scores: {...}}``, or CSV with ``item, system`` and one column per metric.
    All lines or none: a bad line gives 400 with every bad line number."""

    def run_import(self, project, stream, fmt, *, by, file_name):
        return metric_score_import(project=project, stream=stream, fmt=fmt, by=by, file_name=file_name)


class MetricComputeApi(EvaluationApi):
    """Start the job that scores every output with automatic metrics; poll ``/api/v1/jobs/{job_id}/``."""

    class InputSerializer(serializers.Serializer):
        metrics = serializers.ListField(
            child=serializers.CharField(),
            required=False,
            allow_empty=False,
            help_text="Default: the usual metrics (not the embedding cosine, slow on CPU: ask for it by name). "
            "Any ROUGE-1.5.5 variant by name: rouge155_<N|L|W|S<gap>|SU<gap>>_<r|p|f>[_stem][_best].",
        )

        def validate_metrics(self, names):
            try:
                return metric_names_check(names)
            except ValueError as exc:
                raise serializers.ValidationError(str(exc)) from exc

    @extend_schema(
        request=InputSerializer,
        responses={202: inline_serializer("MetricComputeStarted", {"job_id": serializers.IntegerField()})},
    )
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = metrics_compute_start(project=project, names=data.validated_data.get("metrics"), created_by=request.user)
        return Response({"job_id": job.id}, status=status.HTTP_202_ACCEPTED)


class MetricSystemSummaryApi(EvaluationApi):
    """Per metric and system, as the dialog-eval toolkit reports them: the mean, the population
    standard deviation and the 95% half-width ``1.97 * std / sqrt(n)`` over the outputs where the
    metric is defined (gold items left out)."""

    class OutputSerializer(serializers.Serializer):
        metric = serializers.CharField()
        system = serializers.CharField()
        n = serializers.IntegerField()
        mean = serializers.FloatField(allow_null=True)
        std = serializers.FloatField(allow_null=True)
        confidence = serializers.FloatField(allow_null=True, help_text="mean ± confidence is the 95% interval.")

    @extend_schema(parameters=[OpenApiParameter("name", str, many=True)], responses=OutputSerializer(many=True))
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        rows = metric_system_summaries(project, _list_param(request, "name"))
        return paginated(request, self, rows, self.OutputSerializer)


class MetricInputSerializer(serializers.Serializer):
    kind = serializers.CharField()
    original_name = serializers.CharField()
    size_bytes = serializers.IntegerField()
    summary = serializers.JSONField(help_text="lines and words (corpus) or vectors and dimension.")
    uploaded_at = serializers.DateTimeField()


class MetricInputListApi(EvaluationApi):
    """The files the project's metrics read: its training corpus and word vectors, when uploaded."""

    @extend_schema(responses=MetricInputSerializer(many=True))
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        return paginated(request, self, MetricInput.objects.filter(project=project), MetricInputSerializer)


class MetricInputUploadApi(EvaluationApi):
    """Upload the training corpus (UTF-8 text, one utterance a line) or word vectors (word2vec or
    fastText text format) as a multipart ``file``; it replaces the earlier one. A file that cannot
    be read gets 400 naming the line, and the earlier file stays."""

    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        request={"multipart/form-data": inline_serializer("MetricInputUpload", {"file": serializers.FileField()})},
        responses={201: MetricInputSerializer, 400: DETAIL},
    )
    def post(self, request, pk, kind):
        project = project_get_for_lead(request.user, pk)
        upload = request.FILES.get("file")
        if upload is None:
            raise serializers.ValidationError({"file": "send the file as a multipart field named 'file'"})
        if upload.size > settings.CONCORD_MAX_IMPORT_BYTES:
            raise serializers.ValidationError(
                {"file": f"the file is larger than the limit of {settings.CONCORD_MAX_IMPORT_BYTES} bytes"}
            )
        row = metric_input_upload(
            project=project, kind=kind, data=upload.read(), file_name=upload.name, by=request.user
        )
        return Response(MetricInputSerializer(row).data, status=status.HTTP_201_CREATED)


# --- Correlations -------------------------------------------------------------------------------------


class CorrelationListApi(EvaluationApi):
    """Metric–human correlations, one row per metric × criterion × level × method (paginated)."""

    class FilterSerializer(serializers.Serializer):
        confidence = serializers.FloatField(min_value=0.5, max_value=0.999, default=0.95)
        n_resamples = serializers.IntegerField(min_value=0, max_value=10_000, default=1000)
        seed = serializers.IntegerField(min_value=0, default=0)
        normalisation = serializers.ChoiceField(choices=[n for n in NORMALISATIONS if n != "modulus"], required=False)

    class OutputSerializer(serializers.Serializer):
        metric = serializers.CharField()
        criterion = serializers.CharField()
        level = serializers.ChoiceField(choices=LEVELS)
        method = serializers.ChoiceField(choices=METHODS, help_text="Kendall is tau-b.")
        label = serializers.CharField(allow_null=True, help_text='E.g. "Kendall tau-b (system level)".')
        value = serializers.FloatField(allow_null=True)
        ci_low = serializers.FloatField(allow_null=True)
        ci_high = serializers.FloatField(allow_null=True)
        n = serializers.IntegerField(help_text="Systems, items or outputs, by level.")
        error = serializers.CharField(allow_null=True)

    @extend_schema(
        parameters=[
            FilterSerializer,
            OpenApiParameter("criterion", str, description="Repeat or comma-separate; default all."),
            OpenApiParameter("metric", str, description="Repeat or comma-separate; default all scored."),
            OpenApiParameter("level", str, enum=list(LEVELS)),
            OpenApiParameter("method", str, enum=list(METHODS)),
            OpenApiParameter("exclude_system", str, description="Systems to leave out (e.g. Human)."),
        ],
        responses=OutputSerializer(many=True),
    )
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        params = self.FilterSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        report = metric_correlations(
            project=project,
            criteria=_list_param(request, "criterion") or None,
            metrics=_list_param(request, "metric") or None,
            levels=_list_param(request, "level") or LEVELS,
            methods=_list_param(request, "method") or METHODS,
            exclude_systems=_list_param(request, "exclude_system"),
            **params.validated_data,
        )
        paginator = StandardPagination()
        page = paginator.paginate_queryset(report["rows"], request, view=self)
        return paginator.get_paginated_response(self.OutputSerializer(page, many=True).data)


# --- Calibrators --------------------------------------------------------------------------------------


class CalibratorOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    criterion = serializers.CharField(source="criterion.name")
    metric_name = serializers.CharField(help_text="Scores written by apply.")
    params = serializers.JSONField(help_text="features, means, scales, weights (standardised), intercept, alpha.")
    report = serializers.JSONField(help_text="Held-out correlations, single metrics, best single, gain.")
    created_at = serializers.DateTimeField()


class CalibratorListCreateApi(EvaluationApi):
    class InputSerializer(serializers.Serializer):
        name = serializers.SlugField(max_length=100)
        criterion = serializers.CharField(max_length=100)
        metrics = serializers.ListField(child=serializers.CharField(max_length=200), allow_empty=False)
        alpha = serializers.FloatField(min_value=0, default=1.0, help_text="Ridge penalty; 0 = least squares.")
        held_out_share = serializers.FloatField(min_value=0.05, max_value=0.9, default=0.3)
        k_folds = serializers.IntegerField(min_value=2, max_value=50, required=False, allow_null=True, default=None)
        seed = serializers.IntegerField(min_value=0, default=0)
        exclude_systems = serializers.ListField(child=serializers.CharField(), required=False, default=list)
        normalisation = serializers.ChoiceField(choices=[n for n in NORMALISATIONS if n != "modulus"], required=False)

    @extend_schema(responses=CalibratorOutputSerializer(many=True))
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        calibrators = Calibrator.objects.filter(project=project).select_related("criterion").order_by("-id")
        return paginated(request, self, calibrators, CalibratorOutputSerializer)

    @extend_schema(request=InputSerializer, responses={201: CalibratorOutputSerializer, 400: DETAIL})
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        calibrator = calibrator_fit(project=project, created_by=request.user, **data.validated_data)
        return Response(CalibratorOutputSerializer(calibrator).data, status=status.HTTP_201_CREATED)


class CalibratorApplyApi(EvaluationApi):
    """Score every output having the calibrator's metrics (new outputs too) as ``calibrated:<name>``."""

    @extend_schema(
        request=None,
        responses={200: inline_serializer("CalibratorApplied", {"scored": serializers.IntegerField()})},
    )
    def post(self, request, pk, calibrator_id):
        project = project_get_for_lead(request.user, pk)
        calibrator = Calibrator.objects.filter(project=project, pk=calibrator_id).first()
        if calibrator is None:
            raise NotFound("No such calibrator.")
        return Response({"scored": calibrator_apply(calibrator=calibrator, by=request.user)})


# --- Judges -------------------------------------------------------------------------------------------


class JudgeListApi(EvaluationApi):
    class OutputSerializer(serializers.Serializer):
        name = serializers.CharField()
        kind = serializers.CharField()
        rater_type = serializers.CharField(help_text='Always "model".')
        config = serializers.JSONField()
        model = serializers.CharField(source="model_name", help_text="The run's model, if the import named it.")
        prompt_hash = serializers.CharField()
        run_on = serializers.DateField(allow_null=True)
        version = serializers.CharField(help_text="model · prompt hash (8 characters) · date, what is known.")
        n_ratings = serializers.IntegerField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request, pk):
        return paginated(
            request, self, judge_list_for_project(project_get_for_lead(request.user, pk)), self.OutputSerializer
        )


class JudgeImportApi(ImportApi):
    """Import an automatic judge's ratings: JSONL ``{judge, item, system, criterion, value, kind?}``
    (pairwise: value is the winner's name or "tie"). All lines or none."""

    parser_classes = [JSONLinesParser, JSONLParser, MultiPartParser, FormParser]
    formats = ("jsonl",)

    def run_import(self, project, stream, fmt, *, by, file_name):
        return judge_rating_import(project=project, stream=stream, by=by, file_name=file_name)


class JudgeFromMetricApi(EvaluationApi):
    """Make a judge from a metric and thresholds (likert: one fewer than scale points; pairwise: a margin)."""

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200)
        metric = serializers.CharField(max_length=200)
        criterion = serializers.CharField(max_length=100)
        thresholds = serializers.ListField(child=serializers.FloatField(), allow_empty=False)

    @extend_schema(request=InputSerializer, responses={201: JudgeListApi.OutputSerializer, 400: DETAIL})
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        judge = judge_from_metric(project=project, **data.validated_data, by=request.user)
        judge.n_ratings = judge.ratings.count()
        return Response(JudgeListApi.OutputSerializer(judge).data, status=status.HTTP_201_CREATED)


class JudgeAgreementApi(EvaluationApi):
    """How close each judge is to a human: its agreement with each human and with the consensus of the
    others, beside the human–human agreement (the ceiling), per criterion with intervals."""

    class FilterSerializer(serializers.Serializer):
        confidence = serializers.FloatField(min_value=0.5, max_value=0.999, default=0.95)
        n_resamples = serializers.IntegerField(min_value=0, max_value=10_000, default=1000)
        seed = serializers.IntegerField(min_value=0, default=0)

    class OutputSerializer(serializers.Serializer):
        class CriterionSerializer(serializers.Serializer):
            class JudgeRowSerializer(serializers.Serializer):
                judge = serializers.CharField()
                kind = serializers.CharField()
                rater_type = serializers.CharField(help_text='Always "model".')
                n_units = serializers.IntegerField()
                judge_human = serializers.JSONField(help_text="{statistic: {value, ci}}: mean over humans.")
                judge_consensus = serializers.JSONField(
                    help_text="{statistic: {value, ci}}: against each leave-one-out consensus of the humans."
                )
                per_human = serializers.ListField(
                    child=serializers.JSONField(), help_text="{rater, statistic: {value, ci}} per human."
                )

            criterion = serializers.CharField()
            n_humans = serializers.IntegerField()
            n_units = serializers.IntegerField()
            human_human = serializers.JSONField(help_text="{statistic: {value, ci}}: mean over pairs of humans.")
            human_consensus = serializers.JSONField(
                help_text="{statistic: {value, ci}}: each human against the consensus of the others."
            )
            judges = JudgeRowSerializer(many=True)
            error = serializers.CharField(allow_null=True)

        statistics = serializers.ListField(child=serializers.CharField())
        unit = serializers.CharField(help_text="output (likert, rankme) or item (pairwise).")
        confidence = serializers.FloatField()
        n_resamples = serializers.IntegerField()
        seed = serializers.IntegerField()
        criteria = CriterionSerializer(many=True)

    @extend_schema(
        parameters=[FilterSerializer, OpenApiParameter("judge", str), OpenApiParameter("criterion", str)],
        responses={200: OutputSerializer, 403: DETAIL, 404: DETAIL},
    )
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        params = self.FilterSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        report = judge_agreement_report(
            project=project,
            judges=_list_param(request, "judge") or None,
            criteria=_list_param(request, "criterion") or None,
            **params.validated_data,
        )
        return Response(self.OutputSerializer(report).data)


class JudgeAltTestApi(EvaluationApi):
    """The alternative annotator test (Calderon, Reichart & Dror, ACL 2025) of each judge per criterion
    and subgroup: leave each human out, compare how well the judge and that human represent the others,
    one-sided t-tests (or Wilcoxon signed-rank tests) against the cost margin epsilon, Benjamini–Yekutieli
    over raters; the winning rate (the judge passes at >= 0.5) and the average advantage probability. With
    an expert, the single-expert variant: each other rater and the judge compete to represent the expert."""

    class FilterSerializer(serializers.Serializer):
        epsilon = serializers.FloatField(
            min_value=0.0,
            max_value=0.99,
            default=0.15,
            help_text="Cost margin: 0.2 expert raters, 0.15 skilled, 0.1 crowd workers (the authors' advice).",
        )
        q = serializers.FloatField(min_value=0.001, max_value=0.5, default=0.05, help_text="FDR of the correction.")
        alignment = serializers.ChoiceField(
            choices=["accuracy", "neg_rmse"],
            required=False,
            help_text="Default: accuracy for pairwise outcomes, neg_rmse for ratings.",
        )
        test = serializers.ChoiceField(
            choices=["t", "wilcoxon"],
            default="t",
            help_text="wilcoxon: the signed-rank test the authors advise below 30 items per rater.",
        )
        expert = serializers.CharField(
            max_length=200,
            required=False,
            default="",
            help_text="A rater the other raters and the judge compete to represent (the single-expert test).",
        )

    @extend_schema(
        parameters=[FilterSerializer, OpenApiParameter("judge", str), OpenApiParameter("criterion", str)],
        responses={200: OpenApiTypes.OBJECT, 400: DETAIL, 403: DETAIL, 404: DETAIL},
    )
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        params = self.FilterSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        return Response(
            judge_alt_test_report(
                project=project,
                judges=_list_param(request, "judge") or None,
                criteria=_list_param(request, "criterion") or None,
                **params.validated_data,
            )
        )


class JudgePredictionPoweredApi(EvaluationApi):
    """System means and win rates from the human-rated units plus every unit only the judge rated
    (prediction-powered inference, Angelopoulos et al., Science 2023, power-tuned), beside the
    humans-only and judge-only estimates, with the human judgments the judge is worth."""

    class FilterSerializer(serializers.Serializer):
        judge = serializers.CharField(max_length=200)
        confidence = serializers.FloatField(min_value=0.5, max_value=0.999, default=0.95)

    @extend_schema(
        parameters=[FilterSerializer, OpenApiParameter("criterion", str)],
        responses={200: OpenApiTypes.OBJECT, 400: DETAIL, 403: DETAIL, 404: DETAIL},
    )
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        params = self.FilterSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        return Response(
            judge_prediction_powered_report(
                project=project, criteria=_list_param(request, "criterion") or None, **params.validated_data
            )
        )


class JudgeConfusionApi(EvaluationApi):
    """The judge's label against the human majority on one criterion, each cell with its units."""

    class FilterSerializer(serializers.Serializer):
        judge = serializers.CharField(max_length=200)
        criterion = serializers.CharField(max_length=100)

    @extend_schema(parameters=[FilterSerializer], responses={200: OpenApiTypes.OBJECT, 400: DETAIL})
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        params = self.FilterSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        return Response(judge_confusion(project=project, **params.validated_data))


class RaterModelsApi(EvaluationApi):
    """Rater models of every criterion (or one), as last computed by a rater-models job: Dawid–Skene and MACE
    for categories (per-rater confusion and competence, per-unit posterior and label beside the majority vote
    and the soft label), a Gaussian model for scales (per-rater bias and noise, per-unit adjusted score beside
    the mean). A unit is an output (likert, rankme) or an item (pairwise, its first output's outcome); raters
    under their export pseudonyms. ``computed_at`` and ``n_judgments_seen`` say what the stored result read,
    ``stale`` whether judgments came or went since (``POST .../rater-models/recompute/`` starts a new one);
    before the first computation ``criteria`` is empty."""

    class FilterSerializer(serializers.Serializer):
        criterion = serializers.CharField(max_length=100, required=False)
        seed = serializers.IntegerField(min_value=0, default=0, help_text="Fixes MACE's random restarts.")

    @extend_schema(parameters=[FilterSerializer], responses={200: OpenApiTypes.OBJECT, 400: DETAIL})
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        params = self.FilterSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        seed = params.validated_data["seed"]
        stored = rater_models_stored(project=project, **params.validated_data)
        report = stored.report or {"project": project.id, "task_type": project.task_type, "seed": seed, "criteria": []}
        job = stored.job
        return Response(
            {
                **report,
                "computed_at": stored.computed_at,
                "n_judgments_seen": stored.n_judgments_seen,
                "n_judgments_now": stored.n_judgments_now,
                "stale": stored.stale,
                "job": None if job is None else {"id": job.id, "state": job.state, "progress": job.progress},
            }
        )


class RaterModelsRecomputeApi(EvaluationApi):
    """Start the job that fits the rater models again and stores them; poll ``/api/v1/jobs/{job_id}/``."""

    class InputSerializer(serializers.Serializer):
        seed = serializers.IntegerField(min_value=0, max_value=2**31 - 1, default=0)

    @extend_schema(
        request=InputSerializer,
        responses={202: inline_serializer("RaterModelsStarted", {"job_id": serializers.IntegerField()})},
    )
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = rater_models_recompute_start(project=project, user=request.user, seed=data.validated_data["seed"])
        return Response({"job_id": job.id}, status=status.HTTP_202_ACCEPTED)


class StudyPlanApi(EvaluationApi):
    """Plan a study from a pilot: the variance components (items, item x system, raters, residual,
    systems), power by simulation over items x raters per item for a paired mean difference, a win rate
    or a Bradley–Terry gap, the cheapest design reaching the target power, items for a target interval
    width, and (from the project's own judgments) whether the study already answers its question.
    The pilot is the project's judgments, another project's (``pilot_project``), or ``pilot``: records
    ``{item, system, rater, value}`` (pairwise: the first system's outcome, 0 loses, 0.5 tie, 1 wins)."""

    class InputSerializer(serializers.Serializer):
        criterion = serializers.CharField(max_length=100)
        comparison = serializers.ChoiceField(choices=["mean_difference", "win_rate", "bradley_terry"])
        effect = serializers.FloatField(help_text="The mean difference, win rate (0-1) or BT gap to detect.")
        systems = serializers.ListField(
            child=serializers.CharField(max_length=200), min_length=2, max_length=2, required=False
        )
        target_power = serializers.FloatField(min_value=0.05, max_value=0.999, default=0.8)
        alpha = serializers.FloatField(min_value=0.001, max_value=0.5, default=0.05)
        target_half_width = serializers.FloatField(min_value=1e-6, required=False)
        items_grid = serializers.ListField(
            child=serializers.IntegerField(min_value=2, max_value=20_000),
            required=False,
            allow_empty=False,
            max_length=12,
        )
        raters_grid = serializers.ListField(
            child=serializers.IntegerField(min_value=1, max_value=100), required=False, allow_empty=False, max_length=12
        )
        n_simulations = serializers.IntegerField(min_value=100, max_value=20_000, default=2000)
        seed = serializers.IntegerField(min_value=0, default=0)
        pilot = serializers.ListField(child=serializers.JSONField(), required=False, max_length=1_000_000)
        pilot_project = serializers.IntegerField(
            required=False, help_text="Plan from the judgments of another project you lead (same protocol)."
        )

    @extend_schema(request=InputSerializer, responses={200: OpenApiTypes.OBJECT, 400: DETAIL})
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        options = dict(data.validated_data)
        if "pilot_project" in options:
            options["pilot_project"] = project_get_for_lead(request.user, options["pilot_project"])
        try:
            plan = study_plan(project=project, **options)
        except InsufficientDataError as exc:
            raise serializers.ValidationError({"detail": f"the pilot is too thin to plan from: {exc}"}) from exc
        return Response(plan)


class StudyPlanApplyApi(EvaluationApi):
    """Apply a plan's raters per item to the project (before any judgment): every item gets that many."""

    class InputSerializer(serializers.Serializer):
        raters_per_item = serializers.IntegerField(min_value=1, max_value=100)

    @extend_schema(request=InputSerializer, responses={200: OpenApiTypes.OBJECT, 400: DETAIL})
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        project = study_plan_apply(project=project, by=request.user, **data.validated_data)
        return Response(
            {"raters_per_item": project.raters_per_item, "double_annotation_share": project.double_annotation_share}
        )


# --- Exports ------------------------------------------------------------------------------------------


class ExportOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    export_id = serializers.IntegerField(source="id")
    project = serializers.IntegerField(source="project_id")
    state = serializers.SerializerMethodField(help_text="ready, or the job's state: pending, running, failure.")
    job_id = serializers.IntegerField(allow_null=True)
    options = serializers.JSONField()
    download = serializers.SerializerMethodField(help_text="Link to the zip once ready, else null.")
    size_bytes = serializers.IntegerField(allow_null=True)
    sha256 = serializers.CharField()
    n_judgments = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)

    def get_state(self, export) -> str:
        return export_state(export)

    def get_download(self, export) -> str | None:
        return reverse("api-export-download", args=[export.id]) if export.is_ready else None


class ExportListCreateApi(EvaluationApi):
    """Export the project as a zip: items, outputs, every judgment, per-output scores, raters (JSONL, CSV,
    Parquet), a README.md data card with Hugging Face metadata and a HEDS 3.0 datasheet. POST starts a
    job (poll ``/api/v1/jobs/{job_id}/``; its result holds the download link); GET lists the exports."""

    class InputSerializer(serializers.Serializer):
        formats = serializers.ListField(
            child=serializers.ChoiceField(choices=list(FORMATS)),
            default=list(FORMATS),
            allow_empty=False,
            help_text="Any of jsonl, csv, parquet.",
        )
        split = serializers.ChoiceField(
            choices=list(SPLITS), default="all", help_text="One file per table, or one per item subgroup."
        )
        include_usernames = serializers.BooleanField(
            default=False, help_text="Raters under their usernames instead of pseudonyms (never emails)."
        )
        include_excluded = serializers.BooleanField(
            default=False, help_text="Keep the judgments of raters excluded by quality control, flagged."
        )
        recompute_agreement = serializers.BooleanField(
            default=False,
            help_text="Recompute the agreement snapshots first (always done when there are none).",
        )
        license = serializers.CharField(
            default="unknown", max_length=64, help_text="Hugging Face license id, e.g. cc-by-4.0."
        )
        languages = serializers.ListField(
            child=serializers.CharField(max_length=20), default=list, help_text="ISO 639 codes, e.g. en."
        )
        task_categories = serializers.ListField(
            child=serializers.CharField(max_length=64),
            default=["text-generation"],
            help_text="Hugging Face task categories.",
        )
        pretty_name = serializers.CharField(
            default="", allow_blank=True, max_length=200, help_text="Dataset name (default: the project's)."
        )
        summary = serializers.CharField(default="", allow_blank=True, help_text="Data card: what the dataset is.")
        motivation = serializers.CharField(default="", allow_blank=True, help_text="Data card: why it was made.")
        authors = serializers.CharField(default="", allow_blank=True, help_text="Data card: who made it.")
        contact = serializers.CharField(default="", allow_blank=True, help_text="Data card: whom to write to.")
        citation = serializers.CharField(default="", allow_blank=True, help_text="Data card: BibTeX or plain text.")
        recruitment = serializers.CharField(default="", allow_blank=True, help_text="Data card: how raters were found.")
        compensation = serializers.CharField(default="", allow_blank=True, help_text="Data card: how raters were paid.")
        consent = serializers.CharField(default="", allow_blank=True, help_text="Data card: consent, ethics review.")
        intended_uses = serializers.CharField(default="", allow_blank=True, help_text="Data card: intended uses.")
        limitations = serializers.CharField(default="", allow_blank=True, help_text="Data card: known limitations.")
        csv_raw_text = serializers.BooleanField(
            default=False,
            help_text="Write CSV text as it is. By default a text cell starting with =, +, -, @, tab or carriage "
            "return gets a leading ' so spreadsheets do not run it as a formula (JSONL and Parquet are always raw).",
        )
        soft_labels = serializers.BooleanField(
            default=False,
            help_text="Add lewidi/<criterion>_train.json per categorical criterion: every answer under its rater's "
            "pseudonym and the soft label per unit, in the LeWiDi shared task's layout (see the data card).",
        )

        def validate(self, data):
            unknown = sorted(set(self.initial_data) - set(self.fields)) if hasattr(self.initial_data, "keys") else []
            errors = {name: ["unknown option"] for name in unknown}
            errors.update({k: [v] for k, v in ExportOptions.from_dict(data).errors().items()})
            if errors:
                raise serializers.ValidationError(errors)
            return data

    @extend_schema(responses=ExportOutputSerializer(many=True))
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        exports = Export.objects.filter(project=project).select_related("job").order_by("-id")
        return paginated(request, self, exports, ExportOutputSerializer)

    @extend_schema(
        request=InputSerializer,
        responses={
            202: inline_serializer(
                "ExportStarted",
                {"job_id": serializers.IntegerField(), "export_id": serializers.IntegerField()},
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
        export = export_start(
            project=project, options=ExportOptions.from_dict(data.validated_data), created_by=request.user
        )
        return Response({"job_id": export.job_id, "export_id": export.id}, status=status.HTTP_202_ACCEPTED)


class ZipRenderer(BaseRenderer):
    """Lets a client ask for ``application/zip``; error bodies are still JSON."""

    media_type = "application/zip"
    format = "zip"
    charset = None

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data if isinstance(data, bytes) else json.dumps(data).encode()


class ExportDownloadApi(EvaluationApi):
    """The export's zip, streamed from disk (leads of its project only; 409 while it is being built)."""

    renderer_classes = [JSONRenderer, ZipRenderer]

    @extend_schema(responses={(200, "application/zip"): OpenApiTypes.BINARY, 403: DETAIL, 404: DETAIL, 409: DETAIL})
    def get(self, request, pk):
        export = Export.objects.select_related("job").filter(pk=pk).first()
        if export is None:
            raise NotFound("No such export.")
        project_get_for_lead(request.user, export.project_id)
        if not export.is_ready:
            return Response(
                {
                    "detail": f"The export is not ready: its job is {export_state(export)}.",
                    "job_id": export.job_id,
                },
                status=status.HTTP_409_CONFLICT,
            )
        path = export_path(export)
        if not path.is_file():
            raise NotFound("The export's file is no longer on disk; export again.")
        return FileResponse(
            path.open("rb"),
            as_attachment=True,
            filename=f"concord-project-{export.project_id}-export-{export.id}.zip",
            content_type="application/zip",
        )
