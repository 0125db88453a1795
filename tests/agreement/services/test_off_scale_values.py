"""A stored value off its criterion's scale (a legacy import, a bad repair) is left out of agreement
by both computations alike, counted in its own row, and never stops the recompute."""

import re
from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from agreement.engine import compute
from agreement.engine.rows import SNAPSHOT_FIELDS
from agreement.models import OFF_SCALE, AgreementSnapshot
from agreement.services import snapshot_compute_for_project
from agreement.stats import krippendorff_alpha
from annotation.models import Judgment
from tests.annotation.factories import ItemFactory, JudgmentFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

STORED = [
    f if f not in {"project", "criterion", "rater_a", "rater_b"} else f"{f}_id"
    for f in SNAPSHOT_FIELDS
    if f != "computed_at"
]


@pytest.fixture
def study():
    """Three raters on twelve outputs over two weeks; one rating raised to 7 on a 1-5 scale, and a fourth
    rater's only rating, alone in a later week, stored as 2.5."""
    project = ProjectFactory()
    monday = timezone.now() - timedelta(weeks=6, days=timezone.now().weekday())
    raters = [UserFactory() for _ in range(3)]
    for k in range(12):
        item = ItemFactory(project=project)
        for r, rater in enumerate(raters):
            JudgmentFactory(
                item=item,
                rater=rater,
                value=float(1 + (k + (r == k % 3)) % 5),
                submitted_at=monday + timedelta(weeks=k // 6, hours=r),
            )
    bad = Judgment.objects.filter(project=project).order_by("id")[4]
    Judgment.objects.filter(pk=bad.pk).update(value=7.0)
    lone = JudgmentFactory(item=item, rater=UserFactory(), submitted_at=monday + timedelta(weeks=3))
    Judgment.objects.filter(pk=lone.pk).update(value=2.5)
    return project


def stored(project):
    return list(
        AgreementSnapshot.objects.filter(project=project)
        .order_by("window", "week_start", "scope_key", "statistic")
        .values_list(*STORED)
    )


def test_both_computations_leave_the_value_out_alike_and_count_it(study, monkeypatch):
    summary = snapshot_compute_for_project(project_id=study.id)  # likert: from counts
    by_counts = stored(study)
    monkeypatch.setattr(compute, "counts_suffice", lambda plan, categories: False)
    assert snapshot_compute_for_project(project_id=study.id) == summary
    by_matrix = stored(study)

    assert summary["off_scale"] == 2 and summary["judgments"] == 36 - 1
    assert len(by_counts) == len(by_matrix) > 100
    value = STORED.index("value")
    for mine, theirs in zip(by_counts, by_matrix, strict=True):
        assert mine[:value] == theirs[:value] and mine[value + 3 :] == theirs[value + 3 :]
        for a, b in zip(mine[value : value + 3], theirs[value : value + 3], strict=True):
            assert (a is None and b is None) or a == pytest.approx(b, abs=1e-12)

    ratings = Judgment.objects.filter(project=study, value__in=[1, 2, 3, 4, 5]).values_list(
        "rater_id", "output_id", "value"
    )
    raters, outputs = sorted({r for r, _, _ in ratings}), sorted({o for _, o, _ in ratings})
    matrix = np.full((len(raters), len(outputs)), np.nan)
    for rater, output, v in ratings:
        matrix[raters.index(rater), outputs.index(output)] = v
    latest = AgreementSnapshot.objects.filter(project=study).latest("week_start").week_start
    main = AgreementSnapshot.objects.get(
        project=study, window="cumulative", week_start=latest, scope="criterion", is_main=True
    )
    assert main.value == pytest.approx(krippendorff_alpha(matrix, level_of_measurement="ordinal").value, abs=1e-12)

    counted = {
        (s.window, s.week_start): (s.value, s.detail["values"])
        for s in AgreementSnapshot.objects.filter(project=study, statistic=OFF_SCALE)
    }
    weeks = sorted({week for _, week in counted})
    assert counted == {
        ("week", weeks[0]): (1, ["7"]),
        ("cumulative", weeks[0]): (1, ["7"]),
        ("cumulative", weeks[1]): (1, ["7"]),
        ("week", weeks[2]): (1, ["2.5"]),
        ("cumulative", weeks[2]): (2, ["2.5", "7"]),
    }
    # a week whose only judgment is off the scale has no figures of its own, only the count
    assert list(
        AgreementSnapshot.objects.filter(project=study, window="week", week_start=weeks[2]).values_list(
            "statistic", flat=True
        )
    ) == [OFF_SCALE]


def test_the_dashboard_shows_how_many_were_left_out(study, client):
    snapshot_compute_for_project(project_id=study.id)
    lead = UserFactory()
    study.memberships.create(user=lead, role="lead")
    client.force_login(lead)
    html = client.get(f"/projects/{study.id}/agreement/").content.decode()
    assert "Krippendorff&#x27;s α (ordinal)" in html
    note = re.search(r'data-testid="off-scale">(.*?)</p>', html, re.S)[1]
    assert "2 stored judgments" in note and "values 2.5, 7" in note and "are left out" in note
    assert "Judgments off the scale" not in html  # a count, not a column of coefficients


def test_the_export_card_names_them_among_its_limitations(study, tmp_path):
    from evaluation.services import ExportOptions, export_write
    from tests.evaluation.export.studies import read_zip

    snapshot_compute_for_project(project_id=study.id)
    export_write(project=study, options=ExportOptions(formats=("jsonl",)), destination=tmp_path / "export.zip")
    card = read_zip(tmp_path / "export.zip")["README.md"].decode()
    limitations = card.split("## Known limitations", 1)[1]
    assert "off their label's scale are in the files but left out of every agreement figure" in limitations
    assert "(2: values 2.5, 7)" in limitations


@pytest.mark.parametrize(
    ("modulus", "bad_values", "expected_shown"),
    [
        (None, [150.0, -5.0], ["-5", "150"]),  # a 0-100 slider
        (100.0, [0.0, -20.0], ["-20", "0"]),  # magnitude estimates: agreement is on log(score / modulus)
    ],
)
def test_rankme_scores_outside_what_the_slider_allows_are_left_out(modulus, bad_values, expected_shown):
    project = ProjectFactory(task_type="rankme", rankme_modulus=modulus)
    raters = [UserFactory() for _ in range(3)]
    for k in range(10):
        item = ItemFactory(project=project)
        for r, rater in enumerate(raters):
            for output in item.outputs.all():
                JudgmentFactory(item=item, output=output, rater=rater, value=float(10 + 7 * k + r + output.position))
    kept = list(Judgment.objects.filter(project=project).values_list("value", flat=True))
    for pk, value in zip(
        Judgment.objects.filter(project=project).order_by("id").values_list("pk", flat=True)[:2],
        bad_values,
        strict=True,
    ):
        Judgment.objects.filter(pk=pk).update(value=value)

    summary = snapshot_compute_for_project(project_id=project.id)

    assert summary["off_scale"] == 2 and len(kept) - 2 == summary["judgments"]
    latest = AgreementSnapshot.objects.filter(project=project, window="cumulative").latest("week_start").week_start
    off = AgreementSnapshot.objects.get(project=project, window="cumulative", week_start=latest, statistic=OFF_SCALE)
    assert off.value == 2 and off.detail["values"] == expected_shown
    main = AgreementSnapshot.objects.get(
        project=project, window="cumulative", week_start=latest, scope="criterion", is_main=True
    )
    assert main.value is not None and np.isfinite(main.value)


def test_a_rankme_criterion_without_a_range_bounds_nothing():
    from annotation.models import Criterion

    project = ProjectFactory(task_type="rankme")
    raters = [UserFactory() for _ in range(2)]
    for k in range(4):
        item = ItemFactory(project=project)
        for r, rater in enumerate(raters):
            for output in item.outputs.all():
                JudgmentFactory(item=item, output=output, rater=rater, value=float(20 * k + r + output.position))
    Criterion.objects.filter(project=project).update(scale_min=None, scale_max=None)  # a legacy row

    summary = snapshot_compute_for_project(project_id=project.id)

    assert summary["off_scale"] == 0 and summary["judgments"] == Judgment.objects.filter(project=project).count()
