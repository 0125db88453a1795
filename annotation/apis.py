"""REST API of the annotation app: one APIView per operation, thin over services and selectors."""

import json

from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import APIException, PermissionDenied
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.chat_layouts import EXPORT_LAYOUTS
from annotation.conversations import ROLES
from annotation.error_span_formats import LAYOUTS as ERROR_SPAN_LAYOUTS
from annotation.models import Item, ItemFlag, Membership, Project, TaskType
from annotation.selectors import (
    assignment_screen,
    item_list_for_project,
    items_as_chat_lines,
    judgment_list_for_project,
    judgment_screen_values,
    project_create_allowed,
    project_get_for_lead,
    project_get_for_user,
    project_list_for_user,
    rater_names_for_project,
    rater_progress,
)
from annotation.services import (
    RaterRefused,
    assignment_next_for_rater,
    item_flag_create,
    item_import,
    judgment_import,
    judgment_submit,
    membership_set,
    project_create,
    rater_membership_check,
)
from annotation.services.allocation import MAX_HOLD_MINUTES
from annotation.services.item_changes import item_import_update, item_retire, item_unretire
from annotation.services.project import SETTING_LIMITS
from core.api_schema import DETAIL
from core.authentication import RaterLoopTokenAuthentication
from core.import_records import is_tab_separated
from core.outside_text import validate_outside_json
from core.pagination import paginated
from core.parsers import CSVParser, JSONLinesParser, JSONLParser, TSVParser
from core.uploads import IMPORT_SCHEMA, import_upload, upload_name


class CriterionSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    scale_min = serializers.FloatField(required=False, allow_null=True)
    scale_max = serializers.FloatField(required=False, allow_null=True)
    labels = serializers.ListField(child=serializers.CharField(), required=False)
    help_text = serializers.CharField(required=False, allow_blank=True)


RATING_UNIT_HELP = (
    '"conversation" (default): each criterion is asked of the whole output; "turn": of every assistant turn of '
    'an output that is a conversation (values then carry `turn`); "both": of each assistant turn and of the whole '
    "output. Per turn is for the task types that rate turns (likert) and needs every output to be a conversation."
)


class ProjectOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    task_type = serializers.CharField()
    status = serializers.CharField()
    instructions = serializers.CharField()
    criteria = CriterionSerializer(many=True, source="criteria.all")
    raters_per_item = serializers.IntegerField()
    double_annotation_share = serializers.FloatField()
    gold_rate = serializers.FloatField()
    lease_seconds = serializers.IntegerField()
    show_reference = serializers.BooleanField()
    training_items = serializers.IntegerField()
    training_pass_mark = serializers.FloatField()
    repeat_rate = serializers.FloatField()
    rankme_modulus = serializers.FloatField(allow_null=True)
    randomise_output_order = serializers.BooleanField()
    rating_unit = serializers.CharField(help_text=RATING_UNIT_HELP)
    task_config = serializers.JSONField(
        help_text="Settings only the task type reads, with its defaults filled in "
        "(error spans: severities; MQM: typology and weights)."
    )
    archived_at = serializers.DateTimeField(
        allow_null=True, help_text="When the project was archived (read-only, hidden from the home list); null if not."
    )
    created_at = serializers.DateTimeField()


class AllocationSettingsSerializer(serializers.Serializer):
    max_screens_per_rater = serializers.IntegerField(
        min_value=1,
        allow_null=True,
        required=False,
        help_text="Screens (control screens included) a rater is served at most; null: no cap.",
    )
    expected_screens_per_rater = serializers.IntegerField(
        min_value=1, allow_null=True, required=False, help_text="Screens a rater is expected to do."
    )
    planned_raters = serializers.IntegerField(
        min_value=1,
        max_value=62,
        allow_null=True,
        required=False,
        help_text="Raters the design spreads the work over; null: as many as max_screens_per_rater needs.",
    )
    min_pair_overlap = serializers.IntegerField(
        min_value=0, max_value=10_000, required=False, help_text="Units each pair planned to overlap shares at least."
    )
    replan_excluded_judgments = serializers.BooleanField(
        required=False, help_text="When a rater is excluded, the items they judged want one more rater."
    )
    vacated_hold_minutes = serializers.IntegerField(
        min_value=0,
        max_value=MAX_HOLD_MINUTES,
        required=False,
        help_text="Minutes a vacated place's shared units wait for the rater taking it over before raters with "
        "quota left may take them; 0: at once.",
    )


def _limits(field: str) -> dict:
    low, high = SETTING_LIMITS[field]
    return {"min_value": low, "max_value": high}


class ProjectListCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200)
        task_type = serializers.ChoiceField(choices=TaskType.values)
        criteria = CriterionSerializer(many=True)
        instructions = serializers.CharField(required=False, allow_blank=True, default="")
        raters_per_item = serializers.IntegerField(**_limits("raters_per_item"), default=1)
        double_annotation_share = serializers.FloatField(**_limits("double_annotation_share"), default=0)
        gold_rate = serializers.FloatField(**_limits("gold_rate"), default=0)
        lease_seconds = serializers.IntegerField(**_limits("lease_seconds"), default=900)
        show_reference = serializers.BooleanField(default=False)
        training_items = serializers.IntegerField(
            **_limits("training_items"),
            default=0,
            help_text="Each rater's first screens are items of the training pool (gold items imported with "
            '"training": true) answered with feedback; no gold item used for checking is ever shown '
            "in training.",
        )
        training_pass_mark = serializers.FloatField(
            **_limits("training_pass_mark"),
            default=0,
            help_text="The qualification gate: the share of training items a rater must answer right (a flagged "
            "one counts as wrong) to be served the real work; 0: no gate.",
        )
        repeat_rate = serializers.FloatField(
            **_limits("repeat_rate"),
            default=0,
            help_text="Share of screens repeating an item the rater judged before (add repeats with qc/repeats/).",
        )
        rankme_modulus = serializers.FloatField(
            required=False,
            allow_null=True,
            default=None,
            help_text="rankme only: the fixed score of the reference output shown first on every screen; outputs "
            "then take any positive score relative to it (magnitude estimation). Every item needs a "
            "reference. Null or omitted: sliders over each criterion's range.",
        )
        randomise_output_order = serializers.BooleanField(
            default=True, help_text="Likert and RankME: shuffle the outputs per rater (else imported order)."
        )
        rating_unit = serializers.CharField(
            max_length=12, default=Project.RatingUnit.CONVERSATION, help_text=RATING_UNIT_HELP
        )
        allocation = AllocationSettingsSerializer(
            required=False, help_text="Quotas and the design (also set later at allocation/)."
        )
        task_config = serializers.JSONField(
            required=False,
            default=None,
            validators=[validate_outside_json],
            help_text="Settings only the task type reads. esa: {severities: [minor, major]}; mqm: {typology: [{name, "
            "children?, whole_segment?, source?}], weights: [{severity?, category?, weight}] (first rule "
            "that fits a span counts)}, defaults: the MQM core typology with WMT's categories and WMT's "
            "weights. Other types take none.",
        )

    @extend_schema(responses=ProjectOutputSerializer(many=True))
    def get(self, request):
        return paginated(request, self, project_list_for_user(request.user), ProjectOutputSerializer)

    @extend_schema(request=InputSerializer, responses={201: ProjectOutputSerializer})
    def post(self, request):
        if not project_create_allowed(request.user):
            raise PermissionDenied("Only staff and users allowed to add projects may create one.")
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        project = project_create(created_by=request.user, **data.validated_data)
        return Response(ProjectOutputSerializer(project).data, status=status.HTTP_201_CREATED)


class ProjectDetailApi(APIView):
    @extend_schema(responses=ProjectOutputSerializer)
    def get(self, request, pk):
        return Response(ProjectOutputSerializer(project_get_for_user(request.user, pk)).data)


class MemberListAddApi(APIView):
    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        role = serializers.ChoiceField(choices=Membership.Role.values, default=Membership.Role.RATER)

    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField(source="user.username")
        role = serializers.CharField()
        external_name = serializers.CharField()
        is_paused = serializers.BooleanField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        members = Membership.objects.filter(project=project).select_related("user").order_by("id")
        return paginated(request, self, members, self.OutputSerializer)

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer})
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership = membership_set(project=project, **data.validated_data, by=request.user)
        return Response(self.OutputSerializer(membership).data, status=status.HTTP_201_CREATED)


class TurnSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=ROLES)
    text = serializers.CharField()


TURNS_HELP = "A conversation: its turns in order; the text field then holds their plain-text rendering. Null: plain."


class ItemListApi(APIView):
    class OutputSerializer(serializers.Serializer):
        class ItemOutputSerializer(serializers.Serializer):
            position = serializers.IntegerField()
            system = serializers.CharField()
            text = serializers.CharField()
            turns = TurnSerializer(many=True, allow_null=True, help_text=TURNS_HELP)

        id = serializers.IntegerField()
        external_id = serializers.CharField()
        input = serializers.CharField()
        turns = TurnSerializer(many=True, allow_null=True, help_text=TURNS_HELP)
        references = serializers.ListField(child=serializers.CharField())
        subgroup = serializers.CharField()
        meta = serializers.JSONField()
        gold = serializers.JSONField()
        outputs = ItemOutputSerializer(many=True, source="outputs.all")
        n_target = serializers.IntegerField()
        n_judged = serializers.IntegerField()
        retired_at = serializers.DateTimeField(
            allow_null=True, help_text="When the item was retired (served no more); null while it is served."
        )

    @extend_schema(
        parameters=[
            OpenApiParameter("subgroup", str),
            OpenApiParameter("gold", bool),
            OpenApiParameter("search", str, description="part of the external id"),
        ],
        responses=OutputSerializer(many=True),
    )
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        gold = request.query_params.get("gold")
        items = item_list_for_project(
            project,
            subgroup=request.query_params.get("subgroup"),
            gold=None if gold is None else gold.lower() in ("1", "true", "yes"),
            search=request.query_params.get("search"),
        )
        return paginated(request, self, items, self.OutputSerializer)


class ItemImportApi(APIView):
    parser_classes = [JSONLinesParser, JSONLParser, CSVParser, MultiPartParser, FormParser]

    @extend_schema(
        **IMPORT_SCHEMA,
        parameters=[
            OpenApiParameter(
                "mode",
                str,
                enum=["add", "update"],
                description=(
                    "`add` (default): new items only, an existing external id refuses the file (201 "
                    "`{imported}`). `update`: update existing items: a new external id is added, an existing item "
                    "whose content differs is rewritten if no rater has judged it and refused otherwise, the same "
                    "content is left unchanged; 200 with the counts and `lines`: `{line, external_id, outcome, "
                    "detail}` per line. A malformed line refuses the whole file in either mode."
                ),
            )
        ],
    )
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        mode = request.query_params.get("mode", "add")
        if mode not in ("add", "update"):
            raise serializers.ValidationError({"mode": f"unknown mode {mode!r}; use add or update"})
        stream, fmt = import_upload(request)
        with stream:
            if mode == "update":
                report = item_import_update(
                    project=project, stream=stream, fmt=fmt, by=request.user, file_name=upload_name(request)
                )
                return Response(report.as_dict())
            imported = item_import(
                project=project, stream=stream, fmt=fmt, by=request.user, file_name=upload_name(request)
            )
        return Response({"imported": imported}, status=status.HTTP_201_CREATED)


class ItemChatExportApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "layout",
                str,
                enum=list(EXPORT_LAYOUTS),
                required=True,
                description=(
                    "`messages`: a line per output, `{id, model, messages: [{role, content}]}` (the conversation and "
                    "the output as the last turns); `preference`: `{id, prompt, chosen, rejected}` for items whose "
                    "outputs are the systems chosen and rejected; `arena`: `{id, model_a, model_b, conversation_a, "
                    "conversation_b}` for items of two outputs. Each line re-imports through the item import."
                ),
            )
        ],
        responses={(200, "application/x-ndjson"): {"type": "string", "format": "binary"}},
    )
    def get(self, request, pk):
        """The project's items (not gold, not quality-control copies) as JSON lines in a chat dataset's layout."""
        project = project_get_for_lead(request.user, pk)
        layout = EXPORT_LAYOUTS.get(request.query_params.get("layout", ""))
        if layout is None:
            raise serializers.ValidationError({"layout": f"choose one of {', '.join(EXPORT_LAYOUTS)}"})
        lines = (json.dumps(line, ensure_ascii=False) + "\n" for line in items_as_chat_lines(project, layout))
        response = StreamingHttpResponse(lines, content_type="application/x-ndjson")
        response["Content-Disposition"] = f'attachment; filename="project-{project.pk}-{layout.name}.jsonl"'
        return response


class ItemRetireApi(APIView):
    """Retires an item (``retire``: true; no longer served, its judgments kept and marked), or serves a retired
    one again (``retire``: false)."""

    class InputSerializer(serializers.Serializer):
        external_id = serializers.CharField(max_length=255)
        retire = serializers.BooleanField(default=True)

    class OutputSerializer(serializers.Serializer):
        external_id = serializers.CharField()
        retired_at = serializers.DateTimeField(allow_null=True)

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        item = get_object_or_404(Item, project=project, external_id=data.validated_data["external_id"])
        change = item_retire if data.validated_data["retire"] else item_unretire
        return Response(self.OutputSerializer(change(project=project, item=item, by=request.user)).data)


class JudgmentImportApi(APIView):
    parser_classes = [JSONLinesParser, JSONLParser, TSVParser, MultiPartParser, FormParser]

    @extend_schema(
        **IMPORT_SCHEMA,
        parameters=[
            OpenApiParameter(
                "layout",
                str,
                enum=list(ERROR_SPAN_LAYOUTS),
                description=(
                    "TSV only: `marked` (the error between `<v>` and `</v>` in the `source` or `target` column) or "
                    "`offsets` (`span_start`, `span_end`, `span_side`); default: told from the header."
                ),
            )
        ],
        description=(
            "JSON lines of judgments made elsewhere, all or none. `submitted_at` is ISO 8601; without a UTC offset "
            "(`2024-01-01T00:00:00`) it is read as UTC. `duration_ms` is a whole number from 0 to 2147483647. "
            "Error-span projects (esa, mqm) take the answer as the `value` (`{spans: [{start, end, severity, "
            "category?, side?, origin?}], no_error, score?}`, offsets in code points); MQM projects also take a "
            "finished study as a TSV in WMT's layouts (not ESA: they hold no score; `text/tab-separated-values` or "
            "a `.tsv` file): one row per error with `system`, `seg_id` "
            "(the item), `rater`, `severity`, `category` and the span; `No-error` rows for ratings without errors."
        ),
    )
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        stream, fmt = import_upload(request)
        upload = request.FILES.get("file") if hasattr(request.data, "getlist") else None
        if is_tab_separated(upload.name if upload else None, upload.content_type if upload else request.content_type):
            fmt = "tsv"
        elif fmt != "jsonl":
            raise serializers.ValidationError(
                {"file": "judgments are imported as JSON lines (or, for error-span projects, as a TSV of errors)"}
            )
        layout = request.query_params.get("layout")
        if layout is not None and layout not in ERROR_SPAN_LAYOUTS:
            raise serializers.ValidationError({"layout": f"layout must be one of {', '.join(ERROR_SPAN_LAYOUTS)}"})
        with stream:
            imported = judgment_import(
                project=project, stream=stream, by=request.user, file_name=upload_name(request), fmt=fmt, layout=layout
            )
        return Response({"imported": imported}, status=status.HTTP_201_CREATED)


class JudgmentListApi(APIView):
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        item = serializers.CharField(source="item.external_id")
        rater = serializers.SerializerMethodField()
        system = serializers.CharField(source="output.system")
        criterion = serializers.CharField(source="criterion.name")
        turn = serializers.IntegerField(
            allow_null=True, help_text="The assistant turn judged (rating per turn); null: the whole output."
        )
        value = serializers.FloatField()
        label = serializers.CharField()
        shown_order = serializers.JSONField()
        source = serializers.CharField()
        is_current = serializers.BooleanField()
        served_at = serializers.DateTimeField()
        submitted_at = serializers.DateTimeField()
        duration_ms = serializers.IntegerField(allow_null=True)
        item_retired = serializers.BooleanField(
            source="item.is_retired", help_text="The judgment is of an item retired since."
        )

        def get_rater(self, judgment) -> str:
            return self.context["rater_names"].get(judgment.rater_id, judgment.rater.username)

    @extend_schema(
        parameters=[
            OpenApiParameter("rater", str),
            OpenApiParameter("criterion", str),
            OpenApiParameter("include_revised", bool),
        ],
        responses=OutputSerializer(many=True),
    )
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        params = request.query_params
        judgments = judgment_list_for_project(
            project,
            rater=params.get("rater"),
            criterion=params.get("criterion"),
            include_revised=params.get("include_revised", "").lower() in ("1", "true", "yes"),
        )
        return paginated(request, self, judgments, self.OutputSerializer, rater_names=rater_names_for_project(project))


# --- Rater loop (DESIGN.md §5: next, judgment) -------------------------------------------------------------


class Refused(APIException):
    def __init__(self, refusal: RaterRefused):
        super().__init__(refusal.message)
        self.status_code = refusal.status_code


class RaterApi(APIView):
    """Rater endpoints: the services' refusals (paused, not live, lease gone, …) become their 4xx answers."""

    authentication_classes = [RaterLoopTokenAuthentication, SessionAuthentication]

    def handle_exception(self, exc):
        return super().handle_exception(Refused(exc) if isinstance(exc, RaterRefused) else exc)


class ScreenCriterionSerializer(serializers.Serializer):
    class ChoiceSerializer(serializers.Serializer):
        value = serializers.JSONField(help_text="What to send back: a scale point, or A / tie / B for pairwise.")
        label = serializers.CharField()

    id = serializers.IntegerField()
    name = serializers.CharField()
    help_text = serializers.CharField()
    scale_min = serializers.FloatField(allow_null=True)
    scale_max = serializers.FloatField(allow_null=True)
    labels = serializers.ListField(child=serializers.CharField())
    choices = ChoiceSerializer(
        many=True, allow_null=True, help_text="The answers to choose from; null for a continuous slider (rankme)."
    )


class ScreenValueSerializer(serializers.Serializer):
    criterion = serializers.CharField(max_length=100)
    position = serializers.IntegerField(
        min_value=0,
        required=False,
        allow_null=True,
        help_text="Display position of the output judged (as served by next); omitted for pairwise and for "
        "single-output items.",
    )
    turn = serializers.IntegerField(
        min_value=0,
        max_value=32767,
        required=False,
        allow_null=True,
        help_text="Projects rating per turn (rating_unit turn or both): the index (from 0) of the assistant turn "
        "judged in the output's turns, as next lists them in `rated_turns`; omitted for the whole output.",
    )
    value = serializers.JSONField(
        validators=[validate_outside_json],
        help_text="likert: a whole number on the scale; rankme: a number in the range (any positive number when "
        'the project has a modulus); pairwise: "A" (left output better), "B" (right) or "tie", '
        "as displayed; esa and mqm: {spans: [{start, end, severity, category?, side?, origin?, proposal?}], "
        'no_error, score (esa: 0-100)} with offsets in code points of the output (side "source": of '
        "the input), origin added/accepted/edited/rejected and proposal the index of the output's "
        "proposed span it answers.",
    )


class AssignmentNextApi(RaterApi):
    """Lease the next item to the requesting rater (or resume the one they hold)."""

    class OutputSerializer(serializers.Serializer):
        class ItemSerializer(serializers.Serializer):
            class ShownOutputSerializer(serializers.Serializer):
                class ProposedSpanSerializer(serializers.Serializer):
                    side = serializers.CharField(help_text='"target" (the output) or "source" (the input).')
                    start = serializers.IntegerField(help_text="Code points, [start, end).")
                    end = serializers.IntegerField()
                    severity = serializers.CharField()
                    category = serializers.CharField()

                position = serializers.IntegerField(help_text="Display position; send it back with the value.")
                text = serializers.CharField()
                turns = TurnSerializer(
                    many=True, required=False, help_text="Only on an output that is a whole conversation: its turns."
                )
                proposed_spans = ProposedSpanSerializer(
                    many=True,
                    required=False,
                    help_text="Error-span types only: a model's proposed spans for the rater to accept, edit or reject "
                    "(an answer names each by its index here).",
                )

            class ModulusSerializer(serializers.Serializer):
                text = serializers.CharField(help_text="The item's (first) reference, shown before the outputs.")
                score = serializers.FloatField(help_text="Its fixed score; not judged, not stored as a judgment.")

            input = serializers.CharField()
            turns = TurnSerializer(many=True, allow_null=True, help_text=TURNS_HELP)
            references = serializers.ListField(
                child=serializers.CharField(), help_text="Shown only when the project shows references."
            )
            modulus = ModulusSerializer(
                allow_null=True,
                help_text="rankme with a modulus: the reference output to score against (any positive value, "
                "scale_min and scale_max are then null); null otherwise.",
            )
            outputs = ShownOutputSerializer(many=True)

        assignment_id = serializers.IntegerField()
        item = ItemSerializer()
        criteria = ScreenCriterionSerializer(many=True)
        expires_at = serializers.DateTimeField(help_text="The lease runs out then; judge before.")

    @extend_schema(
        request=None,
        responses={200: OutputSerializer, 204: None, 403: DETAIL, 404: DETAIL, 409: DETAIL},
        description="200 with the screen, in display order, without system names, gold or anyone's answers; "
        "the same assignment again while its lease runs; 204 when nothing is left for this rater. "
        "403 for non-raters and paused raters, 409 when the project is not live.",
    )
    def post(self, request, pk):
        assignment = assignment_next_for_rater(project_id=pk, rater=request.user)
        if assignment is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        # The screen is plain data already shaped as OutputSerializer documents it; serialising it again
        # would cost the loop's hottest request a tenth of its time (BENCHMARKS.md, "Rater loop").
        return Response(assignment_screen(assignment))


class JudgmentSubmitApi(RaterApi):
    """Submit the answers for an assignment: every criterion, for every output (one per criterion for pairwise)."""

    class InputSerializer(serializers.Serializer):
        values = ScreenValueSerializer(many=True, allow_empty=False)
        client_token = serializers.CharField(
            max_length=64,
            required=False,
            allow_blank=True,
            default="",
            help_text="Make retries safe: the same token again returns the stored judgment (200), never a second.",
        )
        duration_ms = serializers.IntegerField(
            min_value=0, max_value=24 * 3600 * 1000, required=False, allow_null=True, default=None
        )

    class OutputSerializer(serializers.Serializer):
        assignment_id = serializers.IntegerField()
        client_token = serializers.CharField()
        revision = serializers.BooleanField(help_text="It replaced this rater's earlier answers on the item.")
        submitted_at = serializers.DateTimeField()
        values = ScreenValueSerializer(many=True)
        feedback = inline_serializer(
            "TrainingFeedback",
            {"expected": ScreenValueSerializer(many=True), "explanation": serializers.CharField()},
            required=False,
            help_text="Training screens only: the expected answers and why.",
        )

    @extend_schema(
        request=InputSerializer,
        responses={
            201: OutputSerializer,
            200: OutputSerializer,
            400: DETAIL,
            403: DETAIL,
            404: DETAIL,
            409: inline_serializer(
                "JudgmentConflict",
                {
                    "detail": serializers.CharField(),
                    "judgment": OutputSerializer(
                        required=False,
                        help_text="The stored judgment, when client_token was used already with other values.",
                    ),
                },
            ),
            410: DETAIL,
        },
        description="201 when stored; 200 with the stored judgment when client_token was seen already with the "
        "same values; 409 with the stored judgment (`judgment`) when it came with other values, which "
        "are not stored. 400 names each bad or missing value by criterion and position (and "
        "duration_ms outside 0 to 24 h); 403 for another rater's assignment or a paused rater; 409 "
        "when the project is not live; 410 when the lease ran out.",
    )
    def post(self, request, pk):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = judgment_submit(rater=request.user, assignment_id=pk, **data.validated_data)
        judgments = result.judgments
        body = {
            "assignment_id": result.assignment.pk,
            "client_token": judgments[0].client_token,
            "revision": result.revision,
            "submitted_at": judgments[0].submitted_at,
            "values": judgment_screen_values(judgments, result.assignment.project),
        }
        if result.conflict:
            return Response(
                {
                    "detail": "This client_token was used already, with other values; the stored "
                    "judgment (below) was kept. Send new answers with a new client_token.",
                    "judgment": body,
                },
                status=status.HTTP_409_CONFLICT,
            )
        if result.feedback is not None:
            body["feedback"] = result.feedback
        return Response(body, status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK)


class ItemFlagCreateApi(RaterApi):
    """Flag the assigned item (broken, offensive, cannot judge); not a judgment. By default the item is skipped."""

    class InputSerializer(serializers.Serializer):
        reason = serializers.ChoiceField(choices=ItemFlag.Reason.choices)
        comment = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")
        skip = serializers.BooleanField(default=True, help_text="Give the item back and move on.")

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        reason = serializers.CharField()
        comment = serializers.CharField()
        created_at = serializers.DateTimeField()

    @extend_schema(
        request=InputSerializer, responses={201: OutputSerializer, 400: DETAIL, 403: DETAIL, 404: DETAIL, 410: DETAIL}
    )
    def post(self, request, pk):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        flag = item_flag_create(rater=request.user, assignment_id=pk, **data.validated_data)
        return Response(self.OutputSerializer(flag).data, status=status.HTTP_201_CREATED)


class RaterProgressApi(RaterApi):
    """The requesting rater's own progress in a project."""

    class OutputSerializer(serializers.Serializer):
        done = serializers.IntegerField(help_text="Screens judged.")
        assigned = serializers.IntegerField(help_text="Screens leased now, not yet judged.")
        remaining = serializers.IntegerField(
            help_text="Screens still to come for this rater: it drops by one on every screen served, whatever "
            "the screen."
        )
        total = serializers.IntegerField()

    @extend_schema(responses={200: OutputSerializer, 403: DETAIL, 404: DETAIL, 409: DETAIL})
    def get(self, request, pk):
        membership = rater_membership_check(project_id=pk, rater=request.user)
        return Response(self.OutputSerializer(rater_progress(project=membership.project, rater=request.user)).data)
