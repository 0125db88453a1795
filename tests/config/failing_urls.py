"""The site's URLs (and error handlers) plus a page and an API path that fail, to see the 500 answers."""

from django.urls import path

from config.urls import *  # noqa: F403
from config.urls import urlpatterns as site


def fail(request):
    raise RuntimeError("a bug")


urlpatterns = [path("boom/", fail), path("api/v1/boom/", fail), *site]
