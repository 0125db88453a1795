"""In a browser: a lead reads a best–worst study's results page (counting scores and MaxDiff strengths with their
intervals, the split-half reliability) at desktop, tablet and phone widths, with no serious WCAG 2.1 violation;
the API gives the same figures."""

import io
import json

import numpy as np
import pytest
from scipy import stats

from annotation.models import Membership
from annotation.services.assignment import assignment_next_for_rater
from annotation.services.item_import import item_import
from annotation.services.judgment_submit import judgment_submit
from annotation.services.project import project_create
from annotation.task_types import REGISTRY
from tests.accessibility.test_pages_meet_wcag import problems
from tests.annotation.browser.test_rater_keyboard import PASSWORD
from tests.annotation.factories import UserFactory
from tests.browser_support import at_every_width, log_in
from tests.conftest import client_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STRENGTH = {
    "calm": 1.5,
    "cheerful": 3.0,
    "gloomy": -2.0,
    "furious": -3.0,
    "content": 0.5,
    "ecstatic": 4.0,
    "bored": -0.5,
    "uneasy": -1.0,
}


def test_the_lead_reads_the_best_worst_scores(page, live_server, screenshot):
    lead = UserFactory(username="bws-lead")
    bws = next(slug for slug, t in REGISTRY.items() if t.results.best_worst)
    project = project_create(
        created_by=lead,
        name="How positive is the word?",
        task_type=bws,
        criteria=[{"name": "positivity"}],
        raters_per_item=3,
        double_annotation_share=1.0,
        task_config={"seed": 2},
    )
    lines = [
        {
            "external_id": w,
            "input": "Which word is the most positive, and which the least?",
            "outputs": [{"system": w, "text": w}],
        }
        for w in STRENGTH
    ]
    item_import(project=project, stream=io.BytesIO("\n".join(map(json.dumps, lines)).encode()))
    rng = np.random.default_rng(0)
    for _ in range(3):
        rater = UserFactory()
        Membership.objects.create(project=project, user=rater, role=Membership.Role.RATER)
        while (a := assignment_next_for_rater(project_id=project.pk, rater=rater)) is not None:
            by_position = dict(a.item.outputs.values_list("position", "system"))
            # Noise wide enough that the strongest and weakest words are not always picked (which leaves MaxDiff
            # without a finite estimate: 11% of simulated studies at scale 1, none of 300 at 1.6).
            utility = [STRENGTH[by_position[p]] + rng.gumbel(scale=1.6) for p in a.shown_order]
            judgment_submit(
                rater=rater,
                assignment_id=a.pk,
                values=[
                    {"criterion": "positivity", "position": int(np.argmax(utility)), "value": "best"},
                    {"criterion": "positivity", "position": int(np.argmin(utility)), "value": "worst"},
                ],
            )

    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/results/")
    table = page.locator("table.list").first
    assert table.locator("tbody tr").count() == len(STRENGTH)
    assert "Counting score" in table.inner_text() and "MaxDiff strength" in table.inner_text()
    shown = [row.locator("td").first.inner_text() for row in table.locator("tbody tr").all()]
    # The tuples and the shown order follow database ids, which differ from run to run, so which of the two
    # strongest words comes first hangs on the draws (CI saw both); the page's order must recover the strengths'.
    assert stats.spearmanr([STRENGTH[w] for w in shown], range(len(shown), 0, -1)).statistic >= 0.7, shown
    assert shown[0] in ("ecstatic", "cheerful"), shown
    assert (
        "Split-half reliability (Spearman–Brown corrected, mean of 100 random splits"
        in page.get_by_test_id("split-half").inner_text()
    )
    at_every_width(page, screenshot, "results-bws", check=problems)

    body = client_for(lead).get(f"/api/v1/projects/{project.pk}/results/", {"n_resamples": 50}).json()
    criterion = body["criteria"][0]
    assert [s["system"] for s in criterion["systems"]] == shown
    assert all(s["strength_ci"][0] is not None for s in criterion["systems"])
    assert criterion["best_worst"]["split_half"]["n_splits"] == 100
