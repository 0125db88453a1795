"""Quality control of error-span projects: degraded copies carry the model's proposals clear of their damage and
count a span over the damage against the same place of the original, repeats compare within a tolerance, and the
quality-control pages say position bias does not apply."""

import io
import json

import pytest
from django.db.models import F
from scipy.stats import binomtest

from annotation.models import Assignment, Item, ProposedSpan
from annotation.selectors.quality import degraded_check, position_bias, repeat_consistency
from annotation.services import degraded_controls_create, item_import, project_create
from annotation.services.controls import repeat_controls_create
from annotation.services.judgment_submit import judgment_submit
from tests.annotation.factories import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db

TEXT = "The cat sat on the mat. It was a sunny day in the old town. Then the rain came down hard."


def _own_words(k: int) -> str:
    """An item's text whose every word is its own, so that a phrase swapped in from another item always differs."""
    return " ".join(f"{w}{k}" for w in TEXT.split())


def _project(lead, n=6, proposals=(), text=lambda k: f"{TEXT} Item {k}."):
    project = project_create(
        created_by=lead,
        name="esa controls",
        task_type="esa",
        criteria=[{"name": "quality"}],
        randomise_output_order=False,
    )
    lines = [
        {
            "external_id": f"doc{k}",
            "input": "Die Katze.",
            "outputs": [{"system": "mt", "text": text(k), "proposed_spans": list(proposals)}],
        }
        for k in range(n)
    ]
    item_import(project=project, stream=io.BytesIO("\n".join(map(json.dumps, lines)).encode()))
    return project


def _answer(rater, item, spans, score=50):
    """The rater's answer on ``item`` (leased to them directly: the order of the loop is not under test)."""
    assignment = Assignment.objects.create(
        project=item.project, item=item, rater=rater, expires_at="2100-01-01T00:00:00Z"
    )
    Item.objects.filter(pk=item.pk).update(n_leased=F("n_leased") + 1)
    value = {"spans": spans, "no_error": not spans, "score": score}
    judgment_submit(rater=rater, assignment_id=assignment.pk, values=[{"criterion": "quality", "value": value}])


def test_degraded_copies_keep_the_proposals_clear_of_the_damage():
    lead = UserFactory(username="lead")
    proposals = [
        {"start": 0, "end": 3, "severity": "minor"},
        {"start": len(TEXT) + 1, "end": len(TEXT) + 5, "severity": "major"},
    ]
    project = _project(lead, proposals=proposals)
    copies = degraded_controls_create(project=project, n=4, seed=3, methods=["swap_phrase", "truncate"])
    for copy in copies:
        text = copy.outputs.get().text
        kept = list(ProposedSpan.objects.filter(output__item=copy).values_list("start", "end"))
        # "The" is before every damage; "Item" is cut by a truncation, and moved with the text after a swapped
        # phrase unless the phrase took it
        assert (0, 3) in kept and all(text[s:e] in ("The", "Item") for s, e in kept)
        if copy.meta["method"] == "truncate":
            assert kept == [(0, 3)]
    repeats = repeat_controls_create(project=project, n=2, seed=4)
    assert [ProposedSpan.objects.filter(output__item=r).count() for r in repeats] == [2, 2]


def test_a_span_over_the_damage_counts_against_the_same_place_of_the_original():
    lead, careful, careless = (
        UserFactory(username="lead"),
        UserFactory(username="careful"),
        UserFactory(username="careless"),
    )
    project = _project(lead, text=_own_words)
    for rater in (careful, careless):
        MembershipFactory(project=project, user=rater)
    for item in Item.objects.filter(project=project):
        _answer(careful, item, [{"start": 0, "end": 3, "severity": "minor"}], score=80)
    copies = degraded_controls_create(project=project, n=5, seed=1, methods=["swap_phrase"])
    for copy in copies:
        original, damaged = copy.degraded_from.outputs.get().text, copy.outputs.get().text
        start = next(k for k, (a, b) in enumerate(zip(original, damaged, strict=False)) if a != b)
        _answer(careful, copy, [{"start": start, "end": start + 2, "severity": "major"}], score=20)
        _answer(careless, copy, [{"start": 0, "end": 3, "severity": "minor"}])
        _answer(careless, copy.degraded_from, [{"start": 0, "end": 3, "severity": "minor"}])
    checks = degraded_check(project)
    good, bad = checks[careful.pk], checks[careless.pk]
    assert (good.n_controls, good.marked, good.marked_only_in_copy, good.marked_only_in_original) == (5, 5, 5, 0)
    assert good.p_value == pytest.approx(binomtest(5, 5, 0.5, alternative="greater").pvalue)
    assert (bad.marked, bad.p_value) == (0, None)  # the same marks on copy and original: nothing to tell

    # repeats: the ESA score within a tenth of the scale
    repeats = repeat_controls_create(project=project, n=2, seed=2)
    for repeat, score in zip(repeats, (85, 40), strict=True):  # the first answers scored 80
        _answer(careful, repeat, [{"start": 0, "end": 1, "severity": "minor"}], score=score)
    assert repeat_consistency(project)[careful.pk].as_dict()["consistency"] == 0.5


def test_position_bias_is_said_not_to_apply(client):
    lead = UserFactory(username="lead")
    project = _project(lead, n=2)
    assert position_bias(project) == (None, {})
    client.force_login(lead)
    page = client.get(f"/projects/{project.pk}/raters/").content.decode()
    assert "Position bias does not apply to error spans" in page
    assert Item.objects.filter(project=project).count() == 2
