"""REST API of rater profiles: the lead's form, and a rater's consent and answers."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.apis import RaterApi
from annotation.selectors import project_get_for_lead
from annotation.selectors.profiles import profile_form, rater_profile_of
from annotation.services import rater_membership_check
from annotation.services.profiles import profile_answer, profile_form_check, profile_form_set
from core.api_schema import DETAIL


class ProfileFieldSerializer(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=["choice", "text", "number"])
    choices = serializers.ListField(child=serializers.CharField())
    required = serializers.BooleanField()
    sensitive = serializers.BooleanField(help_text="Left out of exports unless the lead asks for it.")


FORM = inline_serializer(
    "ProfileForm",
    {
        "consent": serializers.CharField(),
        "fields": ProfileFieldSerializer(many=True),
        "started": serializers.BooleanField(help_text="Raters answered the form or judged: it can no longer change."),
    },
)
ANSWERED = inline_serializer(
    "RaterProfileAnswer",
    {"consented": serializers.BooleanField(), "answers": serializers.DictField(help_text="Field name → answer.")},
)


class ProfileFormApi(APIView):
    """The project's rater profile form (leads): consent text and fields, editable until the study starts."""

    class InputSerializer(serializers.Serializer):
        consent = serializers.JSONField(help_text="The consent text raters agree to (required with fields).")
        fields = serializers.JSONField(
            help_text="[{name, kind: choice|text|number, choices?, required?, "
            "sensitive?}]; an empty list removes the form."
        )

    @extend_schema(
        responses={
            200: FORM,
            403: DETAIL,
            404: DETAIL,
        }
    )
    def get(self, request, pk):
        return Response(profile_form(project_get_for_lead(request.user, pk)))

    @extend_schema(
        request=InputSerializer,
        responses={200: FORM, 400: DETAIL, 403: DETAIL, 404: DETAIL},
        description="Replaces the form; 400 naming the field, or once raters have answered it or judged.",
    )
    def put(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        consent, fields = profile_form_check(data.validated_data["consent"], data.validated_data["fields"])
        profile_form_set(project=project, consent=consent, fields=fields, by=request.user)
        project.refresh_from_db()
        return Response(profile_form(project))


class RaterProfileApi(RaterApi):
    """The profile form a rater answers before their first screen, and their consent and answers."""

    class InputSerializer(serializers.Serializer):
        consent = serializers.JSONField(help_text="true: I agree (answers stored); false: I decline (not served).")
        answers = serializers.JSONField(required=False, default=dict, help_text="Field name → answer.")

    @extend_schema(
        responses={
            200: inline_serializer(
                "RaterProfileForm",
                {
                    "consent": serializers.CharField(),
                    "fields": ProfileFieldSerializer(many=True),
                    "answered": serializers.JSONField(help_text="{consented, answers} once answered, else null."),
                },
            ),
            403: DETAIL,
            404: DETAIL,
        }
    )
    def get(self, request, pk):
        membership = rater_membership_check(project_id=pk, rater=request.user)
        form = profile_form(membership.project)
        return Response(
            {"consent": form["consent"], "fields": form["fields"], "answered": rater_profile_of(membership)}
        )

    @extend_schema(
        request=InputSerializer,
        responses={201: ANSWERED, 400: DETAIL, 403: DETAIL, 404: DETAIL},
        description="Stores the consent and answers (answering again replaces them); 400 names each bad "
        "or missing answer.",
    )
    def post(self, request, pk):
        rater_membership_check(project_id=pk, rater=request.user)  # who may answer, before what they sent
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        profile = profile_answer(project_id=pk, rater=request.user, **data.validated_data)
        return Response({"consented": profile.consented, "answers": profile.answers}, status=status.HTTP_201_CREATED)
