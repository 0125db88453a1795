"""The agreement dashboard of an error-span project in Chromium: the span section at every width."""

from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from agreement.services import snapshot_compute_for_project
from annotation.models import ErrorSpan, Judgment
from tests.annotation.factories import ItemFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.browser_support import at_every_width, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
TEXT = "The committee approved the budget on Tuesday after a long debate about schools."


def test_span_section_reads_at_every_width(page, live_server, screenshot):
    # Given an MQM project whose three raters marked error spans on 40 outputs over two weeks, and computed snapshots
    span_project = ProjectFactory(name="span study", task_type="mqm", criteria=["errors"])
    lead = UserFactory(username="span-lead")
    MembershipFactory(project=span_project, user=lead, role="lead")
    raters = [UserFactory(username=f"span-rater-{k}") for k in range(3)]
    criterion = span_project.criteria.get()
    rng = np.random.default_rng(3)
    now = timezone.now()
    for i in range(40):
        item = ItemFactory(project=span_project, subgroup=("news", "talks")[i % 2], systems=["sysA"])
        item.outputs.update(text=TEXT)
        errors = [
            (int(s), int(s) + int(rng.integers(2, 9)), ("minor", "major", "critical")[int(rng.integers(0, 3))])
            for s in rng.integers(0, 60, size=2)
        ]
        for k, rater in enumerate(raters):
            judgment = Judgment.objects.create(
                project=span_project,
                item=item,
                output=item.outputs.get(),
                criterion=criterion,
                rater=rater,
                value=float(1 + (i + k * (i % 3 == 0)) % 5),
                submitted_at=now - timedelta(weeks=i % 2),
            )
            for start, end, severity in errors[: 1 + (k + i) % 2]:
                shift = int(rng.integers(-1, 2)) if k == 2 else 0
                ErrorSpan.objects.create(judgment=judgment, start=max(0, start + shift), end=end, severity=severity)
    snapshot_compute_for_project(project_id=span_project.id)

    # When the lead opens the dashboard
    log_in(page, live_server.url, "span-lead", "pass-word-1234", f"/projects/{span_project.id}/agreement/")

    # Then the span section explains its figures, names the labels, lists every pair, and fits every width
    section = page.locator("[data-testid=span-agreement]")
    text = section.inner_text()
    for words in (
        "Span F1 (exact, overlap)",
        "Character κ and α",
        "Unitizing α",
        "Kendall's τ",
        "any error",
        "minor errors",
        "major errors",
        "critical errors",
        "severity scale (no error < minor < major < critical)",
        "talks",
    ):
        assert words in text
    assert page.locator("[data-testid=span-labels] tbody tr").count() == 5
    pairs = page.locator("[data-testid=span-pairs] tbody th").all_inner_texts()
    assert [" ".join(p.split()) for p in pairs] == [
        "span-rater-0 with span-rater-1",
        "span-rater-0 with span-rater-2",
        "span-rater-1 with span-rater-2",
    ]
    section.scroll_into_view_if_needed()
    at_every_width(page, screenshot, "agreement-spans")
