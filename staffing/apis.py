"""The staffing API for a project's leads: invites (list, create, revoke) and the team."""

from django.urls import reverse
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.selectors import project_get_for_lead
from core.pagination import paginated
from staffing.selectors import invite_get_for_project, invite_list_for_project, team_list_for_project
from staffing.services import TokenRefused, invite_create, invite_revoke, token_issue, user_create
from staffing.views_auth import LoginRateThrottle


class InviteOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.SerializerMethodField()
    max_uses = serializers.IntegerField()
    n_used = serializers.IntegerField()
    expires_at = serializers.DateTimeField()
    revoked_at = serializers.DateTimeField(allow_null=True)
    state = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()

    def get_url(self, invite) -> str:
        return self.context["request"].build_absolute_uri(reverse("staffing-invite-open", args=[invite.token]))

    def get_state(self, invite) -> str:
        return invite.state_at(timezone.now())


class InviteListCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        max_uses = serializers.IntegerField(default=1, help_text="1 for a single-use link.")
        valid_days = serializers.FloatField(default=7, help_text="Days until the link expires.")

    @extend_schema(responses=InviteOutputSerializer(many=True))
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        return paginated(request, self, invite_list_for_project(project), InviteOutputSerializer, request=request)

    @extend_schema(request=InputSerializer, responses={201: InviteOutputSerializer})
    def post(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        invite = invite_create(project=project, by=request.user, **data.validated_data)
        return Response(
            InviteOutputSerializer(invite, context={"request": request}).data, status=status.HTTP_201_CREATED
        )


class InviteRevokeApi(APIView):
    @extend_schema(request=None, responses=InviteOutputSerializer)
    def post(self, request, pk, invite_id):
        project = project_get_for_lead(request.user, pk)
        invite = invite_revoke(invite=invite_get_for_project(project, invite_id), by=request.user)
        return Response(InviteOutputSerializer(invite, context={"request": request}).data)


class TeamListApi(APIView):
    class OutputSerializer(serializers.Serializer):
        user_id = serializers.IntegerField()
        username = serializers.CharField()
        role = serializers.CharField()
        is_paused = serializers.BooleanField()
        is_excluded = serializers.BooleanField()
        judged = serializers.IntegerField(help_text="Screens judged.")
        leased = serializers.IntegerField(help_text="Items leased to them now.")
        worker_id = serializers.CharField(help_text="A crowd worker's platform id; empty for other members.")
        completed_at = serializers.DateTimeField(allow_null=True, help_text="When a crowd worker reached their code.")
        joined_at = serializers.DateTimeField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request, pk):
        project = project_get_for_lead(request.user, pk)
        return paginated(request, self, team_list_for_project(project), self.OutputSerializer, request=request)


class TokenObtainApi(ObtainAuthToken):
    """Exchange a username and password for an API token; an account refused one (a bulk-created
    account still on its one-time password) gets 403 with the reason. Bad credentials count towards the
    login lockout like the login page's (django-axes; 429 once locked out)."""

    throttle_classes = [LoginRateThrottle]

    def get_serializer_context(self):
        # The Django request, not DRF's wrapper: axes marks a lockout on it, where its middleware looks.
        return {**super().get_serializer_context(), "request": self.request._request}

    def post(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        if not serializer.is_valid():
            # Answered, not raised: a raised error would roll back the failure axes just recorded.
            return Response(serializer.errors, status=status.HTTP_400_BAD_REQUEST)
        try:
            token = token_issue(user=serializer.validated_data["user"])
        except TokenRefused as exc:
            # Answered, not raised: a raised error would roll back the deletion of the token held before.
            return Response({"detail": str(exc)}, status=status.HTTP_403_FORBIDDEN)
        return Response({"token": token.key})


class UserCreateApi(APIView):
    permission_classes = [IsAdminUser]

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(write_only=True)
        is_staff = serializers.BooleanField(default=False)

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        username = serializers.CharField()
        is_staff = serializers.BooleanField()

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = user_create(**data.validated_data, by=request.user)
        return Response(self.OutputSerializer(user).data, status=status.HTTP_201_CREATED)
