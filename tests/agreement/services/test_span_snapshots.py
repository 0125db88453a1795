"""Span agreement through the recompute service: stored per criterion, pair, subgroup and week, and the
degenerate cases (no spans, one rater, one-character, overlapping, zero-length and source-side spans)
each stored with the right value or as insufficient data with the reason."""

from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from agreement.models import AgreementSnapshot
from agreement.services import snapshot_compute_for_project
from agreement.stats.spans import span_agreement, span_set
from annotation.models import ErrorSpan, Judgment
from tests.annotation.factories import ItemFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db
TEXT = "Das ist ein kleiner Test."  # 25 code points


def error_span_project(task_type, **kwargs):
    """An ESA or MQM project with one criterion, without a scale (as the console makes them)."""
    project = ProjectFactory(task_type=task_type, criteria=["quality"], **kwargs)
    project.criteria.update(scale_min=None, scale_max=None)
    return project


@pytest.fixture
def span_project():
    return error_span_project("esa")


def judge(project, rater, item, spans=(), value=3.0, when=None):
    judgment = Judgment.objects.create(
        project=project,
        item=item,
        output=item.outputs.get(),
        criterion=project.criteria.get(),
        rater=rater,
        value=value,
        submitted_at=when or timezone.now(),
    )
    for start, end, severity, *side in spans:
        ErrorSpan.objects.create(
            judgment=judgment, start=start, end=end, severity=severity, side=side[0] if side else "target"
        )
    return judgment


def items(project, n, subgroup=""):
    out = []
    for _ in range(n):
        item = ItemFactory(project=project, subgroup=subgroup, systems=["sysA"])
        item.outputs.update(text=TEXT)
        out.append(item)
    return out


def stored(project, scope="criterion", window="cumulative"):
    """The latest week's figures of a scope (one criterion, one pair) by statistic."""
    rows = AgreementSnapshot.objects.filter(project=project, scope=scope, window=window).order_by("week_start")
    return {s.statistic: s for s in rows}


def test_figures_per_criterion_pair_subgroup_and_week_equal_span_agreement(span_project):
    a, b = UserFactory(username="ann"), UserFactory(username="bob")
    rng = np.random.default_rng(7)
    now = timezone.now()
    marked = {}
    for k, item in enumerate(items(span_project, 12, "news") + items(span_project, 12, "chat")):
        for rater in (a, b):
            spans = []
            for _ in range(rng.integers(0, 3)):
                s, e = sorted(rng.integers(0, 26, size=2))
                spans.append((int(s), int(e), ("minor", "major")[rng.integers(0, 2)]))
            marked[(k, rater.username)] = spans
            judge(span_project, rater, item, spans, value=float(rng.integers(1, 6)), when=now - timedelta(weeks=k % 2))

    snapshot_compute_for_project(project_id=span_project.id)

    ratings = [(k, r) for k in range(24) for r in (0, 1)]
    cols = [
        (k, r, s, e, sev) for k in range(24) for r, name in enumerate(("ann", "bob")) for s, e, sev in marked[(k, name)]
    ]
    seg, rat, st, en, sev = (list(c) for c in zip(*cols, strict=True))
    expected = span_agreement(
        span_set([25] * 24, ratings, segment=seg, rater=rat, start=st, end=en, severity=sev), n_resamples=0
    )
    label = stored(span_project)
    assert label["unitizing_alpha_any"].value == pytest.approx(expected.get("unitizing_alpha", "any").value)
    assert label["char_kappa_major"].value == pytest.approx(expected.get("kappa", "major").value)
    assert label["span_f1_overlap"].value == pytest.approx(expected.get("f1_overlap").value)
    assert label["unitizing_alpha_any"].ci_method == "bca"
    assert label["unitizing_alpha_any"].n_units == 24 and label["unitizing_alpha_any"].n_raters == 2
    assert label["span_counts"].value == len(cols)
    pair = stored(span_project, "pair")
    assert pair["span_precision_exact"].value == pytest.approx(expected.get("precision_exact", pair=(0, 1)).value)
    assert pair["kendall_tau"].n_units == 24 and pair["kendall_tau"].ci_method == "analytic"
    assert {pair["span_f1_exact"].rater_a.username, pair["span_f1_exact"].rater_b.username} == {"ann", "bob"}
    # one criterion: overall is the criterion's figures; subgroups and weeks get their own
    assert stored(span_project, "overall")["unitizing_alpha_any"].value == label["unitizing_alpha_any"].value
    news = AgreementSnapshot.objects.filter(
        project=span_project,
        scope="subgroup_criterion",
        subgroup="news",
        window="cumulative",
        statistic="char_alpha_severity",
    )
    assert news.latest("week_start").n_units == 12
    weeks = AgreementSnapshot.objects.filter(
        project=span_project, scope="criterion", window="week", statistic="unitizing_alpha_any"
    )
    assert sorted(w.n_units for w in weeks) == [12, 12]


def test_no_spans_at_all_is_insufficient_data_with_the_reason(span_project):
    a, b = UserFactory(), UserFactory()
    for item in items(span_project, 5):
        judge(span_project, a, item)
        judge(span_project, b, item)
    snapshot_compute_for_project(project_id=span_project.id)
    label = stored(span_project)
    assert label["span_counts"].value == 0
    for name, reason in (
        ("span_f1_exact", "no span was marked"),
        ("char_kappa_any", "single label"),
        ("unitizing_alpha_any", "no disagreement is expected"),
    ):
        assert label[name].status == "insufficient_data" and label[name].value is None
        assert reason in label[name].reason


def test_one_rater_is_insufficient_data_for_every_span_statistic(span_project):
    a = UserFactory()
    for item in items(span_project, 5):
        judge(span_project, a, item, [(0, 3, "minor")])
    snapshot_compute_for_project(project_id=span_project.id)
    label = stored(span_project)
    spans = [s for name, s in label.items() if name.startswith(("span_f1", "char_", "unitizing_"))]
    assert len(spans) == 2 + 4 * 3 + 3  # f1 exact/overlap, 4 per binary label (any, minor, major), 3 per severity
    assert all(s.status == "insufficient_data" and "two raters" in s.reason for s in spans)
    assert not AgreementSnapshot.objects.filter(project=span_project, scope="pair").exists()


def test_one_character_spans_marked_alike_agree_perfectly(span_project):
    a, b = UserFactory(), UserFactory()
    for k, item in enumerate(items(span_project, 6)):
        judge(span_project, a, item, [(k, k + 1, "major")])
        judge(span_project, b, item, [(k, k + 1, "major")] if k < 5 else [(20, 21, "minor")])
    snapshot_compute_for_project(project_id=span_project.id)
    pair = stored(span_project, "pair")
    assert pair["span_f1_exact"].value == pytest.approx(5 / 6)
    label = stored(span_project)
    # characters: 6 marked by both of 150 but one each on the last output
    assert label["char_f1_any"].value == pytest.approx(2 * 5 / (6 + 6))
    # major over 150 characters: 5 by both, 1 by a alone, 144 by neither: p_o = 149/150,
    # p_e = (6·5 + 144·145) / 150², kappa = (p_o - p_e) / (1 - p_e)
    p_e = (6 * 5 + 144 * 145) / 150**2
    assert label["char_kappa_major"].value == pytest.approx((149 / 150 - p_e) / (1 - p_e))


def test_overlapping_spans_of_one_rater_count_once_per_character(span_project):
    a, b = UserFactory(), UserFactory()
    for item in items(span_project, 3):
        judge(span_project, a, item, [(0, 5, "minor"), (3, 8, "minor"), (10, 12, "major")])
        judge(span_project, b, item, [(0, 8, "minor"), (10, 12, "major")])
    snapshot_compute_for_project(project_id=span_project.id)
    label, pair = stored(span_project), stored(span_project, "pair")
    assert label["char_kappa_any"].value == pytest.approx(1.0)
    assert label["char_alpha_severity"].value == pytest.approx(1.0)
    assert pair["span_f1_overlap"].value == pytest.approx(1.0)
    # exact: only the major span is marked alike (3 of a's 9 spans, 3 of b's 6)
    assert pair["span_f1_exact"].value == pytest.approx(2 * 3 / (9 + 6))


def test_where_one_raters_spans_of_two_severities_overlap_the_more_severe_counts_on_the_scale(span_project):
    a, b = UserFactory(), UserFactory()
    for item in items(span_project, 3):
        judge(span_project, a, item, [(0, 5, "minor"), (3, 8, "major")])
        judge(span_project, b, item, [(0, 3, "minor"), (3, 8, "major")])
    snapshot_compute_for_project(project_id=span_project.id)
    label = stored(span_project)
    # characters 3 and 4 are minor and major for a, major for b: the same on the severity scale
    assert label["char_alpha_severity"].value == pytest.approx(1.0)
    assert label["char_kappa_major"].value == pytest.approx(1.0)
    assert label["char_kappa_minor"].value < 1


def test_zero_length_spans_match_at_the_span_level_and_have_no_characters(span_project):
    a, b = UserFactory(), UserFactory()
    for item in items(span_project, 3):
        judge(span_project, a, item, [(4, 4, "major")])
        judge(span_project, b, item, [(4, 4, "major")])
    snapshot_compute_for_project(project_id=span_project.id)
    label = stored(span_project)
    assert label["span_f1_exact"].value == pytest.approx(1.0)
    assert label["unitizing_alpha_any"].status == "insufficient_data"
    assert label["char_f1_any"].reason == "no character was marked with this label"


def test_source_side_spans_are_counted_and_left_out(span_project):
    a, b = UserFactory(), UserFactory()
    for item in items(span_project, 3):
        judge(span_project, a, item, [(0, 3, "major", "source"), (5, 9, "minor")])
        judge(span_project, b, item, [(0, 3, "major", "source"), (5, 9, "minor"), (2, 99, "minor")])
    snapshot_compute_for_project(project_id=span_project.id)
    label = stored(span_project)
    assert label["span_counts"].value == 6
    assert label["span_counts"].detail["left_out"] == {"source side": 6, "beyond the output's text": 3}
    assert label["span_f1_exact"].value == pytest.approx(1.0)
    assert label["char_kappa_major"].status == "insufficient_data"


def test_the_dashboard_names_the_labels_and_shows_pairs_and_left_out_spans(span_project, client):
    lead, a, b = UserFactory(username="span-lead"), UserFactory(username="ann"), UserFactory(username="bob")
    MembershipFactory(project=span_project, user=lead, role="lead")
    for k, item in enumerate(items(span_project, 6, "news")):
        judge(span_project, a, item, [(k, k + 3, "minor"), (0, 2, "major", "source")], value=float(1 + k % 5))
        judge(span_project, b, item, [(k, k + 2, "minor")], value=float(1 + (k + 1) % 5))
    snapshot_compute_for_project(project_id=span_project.id)
    client.force_login(lead)
    html = " ".join(client.get(f"/projects/{span_project.pk}/agreement/").content.decode().split())
    for text in (
        "Agreement on error spans",
        "any error",
        "minor errors",
        "major errors",
        "severity scale (no error &lt; minor &lt; major)",
        "Unitizing α",
        'ann <span class="muted">with</span><br>bob',
        "12 spans compared; 6 left out (source side)",
        "source-side spans (errors in the input)",
    ):
        assert text in html
    # the span figures stay out of the other tables: the pair heatmap is the plan's statistic on the numbers
    assert 'id="pair-data"' in html and "char_kappa_any" not in html and '"statistic": "span_' not in html


def test_the_api_filters_span_figures_by_statistic_pair_and_subgroup(span_project):
    lead, a, b = UserFactory(username="api-span-lead"), UserFactory(username="ann"), UserFactory(username="bob")
    MembershipFactory(project=span_project, user=lead, role="lead")
    for rater in (a, b):
        MembershipFactory(project=span_project, user=rater)
    for k, item in enumerate(items(span_project, 4, "news") + items(span_project, 4, "chat")):
        judge(span_project, a, item, [(k, k + 3, "minor")], value=float(1 + k % 5))
        judge(span_project, b, item, [(k, k + 2, "major")], value=float(1 + (k + 1) % 5))
    snapshot_compute_for_project(project_id=span_project.id)
    client = client_for(lead)
    url = f"/api/v1/projects/{span_project.id}/agreement/"

    pair = client.get(url, {"statistic": "span_f1_overlap", "pair": "bob,ann", "window": "cumulative"}).json()[
        "results"
    ]
    assert [(r["scope"], r["rater_a"], r["rater_b"], r["value"], r["ci_method"]) for r in pair] == [
        ("pair", "ann", "bob", 1.0, "bca")
    ]
    news = client.get(
        url, {"statistic": "char_kappa_major", "subgroup": "news", "scope": "subgroup_criterion", "window": "week"}
    )
    [row] = news.json()["results"]
    # ann never marks a major error: their agreement on major errors is what chance gives
    assert (row["status"], row["value"], row["n_units"]) == ("ok", 0.0, 4)


def test_a_span_projects_recompute_reports_its_two_passes_as_one_progress(span_project):
    a, b = UserFactory(), UserFactory()
    for k, item in enumerate(items(span_project, 3)):
        judge(span_project, a, item, [(k, k + 3, "minor")])
        judge(span_project, b, item, [(k, k + 3, "minor")], when=timezone.now() - timedelta(weeks=1))
    seen = []
    snapshot_compute_for_project(project_id=span_project.id, progress=lambda done, total: seen.append((done, total)))
    # 2 weeks × (week, cumulative) windows, for the scores and then for the spans
    assert seen == [(k, 8) for k in range(1, 9)]
