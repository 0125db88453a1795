"""Write paths of the agreement app."""

from .alert_emails import alert_emails_enqueue_pending, alert_emails_send
from .alerts import (
    agreement_settings_get,
    agreement_settings_update,
    alerts_raise_for_latest_week,
)
from .recompute import agreement_recompute_run, agreement_recompute_start
from .schedule import schedule_get, schedule_set
from .snapshots import snapshot_compute_for_project

__all__ = [
    "agreement_recompute_run",
    "agreement_recompute_start",
    "agreement_settings_get",
    "agreement_settings_update",
    "alert_emails_enqueue_pending",
    "alert_emails_send",
    "alerts_raise_for_latest_week",
    "schedule_get",
    "schedule_set",
    "snapshot_compute_for_project",
]
