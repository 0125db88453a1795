"""Routes of the evaluation app: the REST API under api/v1/ and the leads' results and export pages."""

from django.urls import include, path

from . import apis, leaderboard_apis, profile_apis, views

api_urlpatterns = [
    path("projects/<int:pk>/results/", apis.ResultsApi.as_view(), name="api-results"),
    path(
        "projects/<int:pk>/results/leaderboard/",
        leaderboard_apis.LeaderboardApi.as_view(),
        name="api-results-leaderboard",
    ),
    path("projects/<int:pk>/results/profile/", profile_apis.ProfileResultsApi.as_view(), name="api-profile-results"),
    path("projects/<int:pk>/metrics/", apis.MetricListApi.as_view(), name="api-metrics"),
    path("projects/<int:pk>/metrics/catalogue/", apis.MetricCatalogueApi.as_view(), name="api-metrics-catalogue"),
    path("projects/<int:pk>/metrics/scores/", apis.MetricScoreListApi.as_view(), name="api-metric-scores"),
    path("projects/<int:pk>/metrics/import/", apis.MetricImportApi.as_view(), name="api-metrics-import"),
    path("projects/<int:pk>/metrics/compute/", apis.MetricComputeApi.as_view(), name="api-metrics-compute"),
    path("projects/<int:pk>/metrics/systems/", apis.MetricSystemSummaryApi.as_view(), name="api-metrics-systems"),
    path("projects/<int:pk>/metrics/inputs/", apis.MetricInputListApi.as_view(), name="api-metric-inputs"),
    path(
        "projects/<int:pk>/metrics/inputs/<str:kind>/",
        apis.MetricInputUploadApi.as_view(),
        name="api-metric-input-upload",
    ),
    path("projects/<int:pk>/correlations/", apis.CorrelationListApi.as_view(), name="api-correlations"),
    path("projects/<int:pk>/calibrators/", apis.CalibratorListCreateApi.as_view(), name="api-calibrators"),
    path(
        "projects/<int:pk>/calibrators/<int:calibrator_id>/apply/",
        apis.CalibratorApplyApi.as_view(),
        name="api-calibrator-apply",
    ),
    path("projects/<int:pk>/judges/", apis.JudgeListApi.as_view(), name="api-judges"),
    path("projects/<int:pk>/judges/import/", apis.JudgeImportApi.as_view(), name="api-judges-import"),
    path(
        "projects/<int:pk>/judges/from-metric/",
        apis.JudgeFromMetricApi.as_view(),
        name="api-judges-from-metric",
    ),
    path("projects/<int:pk>/judges/agreement/", apis.JudgeAgreementApi.as_view(), name="api-judge-agreement"),
    path("projects/<int:pk>/judges/alt-test/", apis.JudgeAltTestApi.as_view(), name="api-judge-alt-test"),
    path(
        "projects/<int:pk>/judges/prediction-powered/",
        apis.JudgePredictionPoweredApi.as_view(),
        name="api-judge-prediction-powered",
    ),
    path("projects/<int:pk>/judges/confusion/", apis.JudgeConfusionApi.as_view(), name="api-judge-confusion"),
    path("projects/<int:pk>/rater-models/", apis.RaterModelsApi.as_view(), name="api-rater-models"),
    path(
        "projects/<int:pk>/rater-models/recompute/",
        apis.RaterModelsRecomputeApi.as_view(),
        name="api-rater-models-recompute",
    ),
    path("projects/<int:pk>/plan/", apis.StudyPlanApi.as_view(), name="api-study-plan"),
    path("projects/<int:pk>/plan/apply/", apis.StudyPlanApplyApi.as_view(), name="api-study-plan-apply"),
    path("projects/<int:pk>/votes/import/", apis.VoteImportApi.as_view(), name="api-votes-import"),
    path("projects/<int:pk>/exports/", apis.ExportListCreateApi.as_view(), name="api-exports"),
    path("exports/<int:pk>/download/", apis.ExportDownloadApi.as_view(), name="api-export-download"),
]

urlpatterns = [
    path("api/v1/", include(api_urlpatterns)),
    path("projects/<int:pk>/results/", views.results_page, name="evaluation-results"),
    path("projects/<int:pk>/export/", views.export_page, name="evaluation-export"),
    path("projects/<int:pk>/metrics/inputs/", views.metric_inputs_page, name="evaluation-metric-inputs"),
    path("projects/<int:pk>/judges/", views.judges_page, name="evaluation-judges"),
    path("projects/<int:pk>/plan/", views.study_plan_page, name="evaluation-plan"),
    path("projects/<int:pk>/rater-models/", views.rater_models_page, name="evaluation-rater-models"),
    path(
        "projects/<int:pk>/rater-models/recompute/",
        views.rater_models_recompute,
        name="evaluation-rater-models-recompute",
    ),
]
