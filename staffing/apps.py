from django.apps import AppConfig


class StaffingConfig(AppConfig):
    name = "staffing"

    def ready(self):
        from django.contrib.auth.signals import user_logged_in

        from staffing import jobs  # noqa: F401  (registers the jobs its services queue by name: core.job_queue)
        from staffing.middleware import must_change_password_on_login

        user_logged_in.connect(must_change_password_on_login, dispatch_uid="staffing-one-time-password")
