from django.apps import AppConfig


class StaffingConfig(AppConfig):
    name = "staffing"
