from django.urls import path

from . import apis, views, views_join

api_urlpatterns = [
    path("auth/token/", apis.TokenObtainApi.as_view(), name="api-token"),
    path("users/", apis.UserCreateApi.as_view(), name="api-users"),
    path("projects/<int:pk>/invites/", apis.InviteListCreateApi.as_view(), name="api-invites"),
    path("projects/<int:pk>/invites/<int:invite_id>/revoke/", apis.InviteRevokeApi.as_view(), name="api-invite-revoke"),
    path("projects/<int:pk>/team/", apis.TeamListApi.as_view(), name="api-team"),
]

urlpatterns = [
    path("projects/<int:pk>/team/", views.team_page, name="staffing-team"),
    path("projects/<int:pk>/team/action/", views.team_action, name="staffing-team-action"),
    path("projects/<int:pk>/team/add/", views.team_add, name="staffing-team-add"),
    path("projects/<int:pk>/invites/", views.invites_page, name="staffing-invites"),
    path("projects/<int:pk>/invites/<int:invite_id>/revoke/", views.invite_revoke_view, name="staffing-invite-revoke"),
    path("projects/<int:pk>/invites/<int:invite_id>/email/", views.invite_email_view, name="staffing-invite-email"),
    path("projects/<int:pk>/accounts/", views.accounts_page, name="staffing-accounts"),
    path("projects/<int:pk>/external/", views.external_page, name="staffing-external"),
    path("projects/<int:pk>/external/<str:token>/", views_join.external_entry, name="staffing-external-entry"),
    path("projects/<int:pk>/done/", views_join.worker_done, name="staffing-done"),
    path("invite/<str:token>/", views_join.invite_open, name="staffing-invite-open"),
    path("accounts/password/", views_join.password_change, name="staffing-password-change"),
]
