from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from agreement.urls import api_urlpatterns as agreement_api
from annotation.urls import api_urlpatterns as annotation_api
from console.urls import api_urlpatterns as console_api
from core.urls import api_urlpatterns as core_api
from staffing.urls import api_urlpatterns as staffing_api
from staffing.views_auth import LoginView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/login/", LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/v1/", include(annotation_api)),
    path("api/v1/", include(agreement_api)),
    path("api/v1/", include(console_api)),
    path("api/v1/", include(staffing_api)),
    path("api/v1/", include(core_api)),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include("annotation.urls")),
    path("", include("evaluation.urls")),
    path("", include("agreement.urls")),
    path("", include("console.urls")),
    path("", include("staffing.urls")),
]

handler400 = "annotation.views_errors.bad_request"
handler403 = "annotation.views_errors.permission_denied"
handler404 = "annotation.views_errors.page_not_found"
handler500 = "annotation.views_errors.server_error"
