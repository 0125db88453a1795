"""Alerts on a label's weekly agreement: below the project's threshold, or a drop from the week
before that exceeds the margin and leaves the previous week's confidence interval."""

from django.db import transaction

from agreement.models import MIN_RELIABLE_UNITS, AgreementAlert, AgreementSettings, AgreementSnapshot
from agreement.selectors.labels import label_of
from annotation.models import Project
from audit.services import audit_record

from .alert_emails import alert_emails_enqueue


def agreement_settings_get(project: Project) -> AgreementSettings:
    return AgreementSettings.objects.get_or_create(project=project)[0]


def alerts_raise_for_latest_week(*, project: Project) -> list[AgreementAlert]:
    """Creates the alerts of the latest computed week (once each); a job emails the leads about new ones
    once they are committed."""
    rules = agreement_settings_get(project)
    weekly = list(
        AgreementSnapshot.objects.filter(
            project=project,
            scope=AgreementSnapshot.Scope.CRITERION,
            window=AgreementSnapshot.Window.WEEK,
            is_main=True,
            status=AgreementSnapshot.Status.OK,
        )
        .select_related("criterion")
        .order_by("week_start")
    )
    if not weekly:
        return []
    latest = weekly[-1].week_start
    previous_by_label = {}
    for s in weekly:
        if s.week_start < latest:
            previous_by_label[s.criterion_id, s.rating_unit] = s
    delivery = AgreementAlert.Delivery.PENDING if rules.email_leads else AgreementAlert.Delivery.NOT_EMAILED
    created = []
    for s in (s for s in weekly if s.week_start == latest and s.n_units >= MIN_RELIABLE_UNITS):
        before = previous_by_label.get((s.criterion_id, s.rating_unit))
        label = label_of(s.criterion.name, s.rating_unit)
        candidates = []
        if s.value < rules.alert_below:
            candidates.append(
                (
                    AgreementAlert.Kind.BELOW_THRESHOLD,
                    f"{label}: {s.statistic} {s.value:.3f} is below {rules.alert_below:.2f} (n = {s.n_units} units)",
                )
            )
        if (
            before is not None
            and before.n_units >= MIN_RELIABLE_UNITS
            and before.value - s.value > rules.alert_drop
            and (before.ci_low is None or s.value < before.ci_low)
        ):
            candidates.append(
                (
                    AgreementAlert.Kind.DROP,
                    f"{label}: {s.statistic} fell from {before.value:.3f} to {s.value:.3f} (n = {s.n_units} units)",
                )
            )
        for kind, message in candidates:
            alert, new = AgreementAlert.objects.get_or_create(
                project=project,
                criterion=s.criterion,
                rating_unit=s.rating_unit,
                week_start=latest,
                kind=kind,
                statistic=s.statistic,
                defaults={
                    "value": s.value,
                    "previous_value": before.value if before else None,
                    "message": message,
                    "delivery": delivery,
                },
            )
            if new:
                created.append(alert)
    if created and rules.email_leads:
        alert_emails_enqueue(project_id=project.id)
    return created


@transaction.atomic
def agreement_settings_update(*, project: Project, by=None, **fields) -> AgreementSettings:
    rules = agreement_settings_get(project)
    changed = {name: [getattr(rules, name), value] for name, value in fields.items() if getattr(rules, name) != value}
    for name, value in fields.items():
        setattr(rules, name, value)
    rules.full_clean()
    rules.save()
    if changed:
        audit_record(actor=by, action="agreement.settings_update", project=project, detail={"changed": changed})
    return rules
