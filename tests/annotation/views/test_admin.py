"""Every model has an admin page with working filters and search."""

import pytest
from django.contrib import admin
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_every_model_of_the_apps_is_registered():
    from django.apps import apps

    missing = [
        m._meta.label
        for app in ("annotation", "agreement", "evaluation")
        for m in apps.get_app_config(app).get_models()
        if m not in admin.site._registry
    ]
    assert missing == []


def test_admin_changelists_render_with_search(client, staff, project):
    staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    for model in admin.site._registry:
        if model._meta.app_label not in ("annotation", "agreement", "evaluation"):
            continue
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        assert client.get(url, {"q": "x"}).status_code == 200, url
