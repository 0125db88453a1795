from django.urls import path

from . import allocation_apis, apis, qc_apis, views, views_qc, views_qc_setup, views_rater

api_urlpatterns = [
    path("auth/token/", apis.TokenObtainApi.as_view(), name="api-token"),
    path("users/", apis.UserCreateApi.as_view(), name="api-users"),
    path("projects/", apis.ProjectListCreateApi.as_view(), name="api-projects"),
    path("projects/<int:pk>/", apis.ProjectDetailApi.as_view(), name="api-project"),
    path("projects/<int:pk>/members/", apis.MemberListAddApi.as_view(), name="api-members"),
    path("projects/<int:pk>/items/", apis.ItemListApi.as_view(), name="api-items"),
    path("projects/<int:pk>/items/import/", apis.ItemImportApi.as_view(), name="api-items-import"),
    path("projects/<int:pk>/items/retire/", apis.ItemRetireApi.as_view(), name="api-items-retire"),
    path("projects/<int:pk>/judgments/", apis.JudgmentListApi.as_view(), name="api-judgments"),
    path("projects/<int:pk>/judgments/import/", apis.JudgmentImportApi.as_view(), name="api-judgments-import"),
    path("projects/<int:pk>/next/", apis.AssignmentNextApi.as_view(), name="api-next"),
    path("projects/<int:pk>/progress/", apis.RaterProgressApi.as_view(), name="api-rater-progress"),
    path("assignments/<int:pk>/judgment/", apis.JudgmentSubmitApi.as_view(), name="api-judgment"),
    path("assignments/<int:pk>/flag/", apis.ItemFlagCreateApi.as_view(), name="api-flag"),
    path("projects/<int:pk>/allocation/", allocation_apis.AllocationApi.as_view(), name="api-allocation"),
    path("projects/<int:pk>/allocation/raters/", allocation_apis.RaterQuotaApi.as_view(),
         name="api-allocation-raters"),
    path("projects/<int:pk>/qc/rules/", qc_apis.QcRulesApi.as_view(), name="api-qc-rules"),
    path("projects/<int:pk>/qc/actions/", qc_apis.RaterActionListCreateApi.as_view(), name="api-qc-actions"),
    path("projects/<int:pk>/qc/raters/", qc_apis.RaterQualityApi.as_view(), name="api-qc-raters"),
    path("projects/<int:pk>/qc/apply/", qc_apis.QcApplyApi.as_view(), name="api-qc-apply"),
    path("projects/<int:pk>/qc/degraded/", qc_apis.DegradedControlsCreateApi.as_view(), name="api-qc-degraded"),
    path("projects/<int:pk>/qc/repeats/", qc_apis.RepeatControlsCreateApi.as_view(), name="api-qc-repeats"),
]

urlpatterns = [
    path("", views.home, name="home"),
    path("projects/<int:pk>/", views.project_detail, name="project-detail"),
    path("projects/<int:pk>/raters/", views_qc.rater_quality_page, name="rater-quality"),
    path("projects/<int:pk>/raters/action/", views_qc.rater_action, name="rater-action"),
    path("projects/<int:pk>/raters/<int:rater_id>/", views_qc.rater_evidence_page, name="rater-evidence"),
    path("projects/<int:pk>/qc/rules/", views_qc_setup.qc_rules_page, name="qc-rules"),
    path("projects/<int:pk>/qc/controls/", views_qc_setup.qc_controls_page, name="qc-controls"),
    path("projects/<int:pk>/instructions/", views_rater.rater_instructions, name="rater-instructions"),
    path("projects/<int:pk>/rate/", views_rater.rate_next, name="rate-next"),
    path("projects/<int:pk>/rate/ahead/", views_rater.rate_ahead, name="rate-ahead"),
    path("assignments/<int:pk>/", views_rater.rate_assignment, name="rate-assignment"),
    path("assignments/<int:pk>/submit/", views_rater.rate_submit, name="rate-submit"),
    path("assignments/<int:pk>/flag/", views_rater.rate_flag, name="rate-flag"),
]
