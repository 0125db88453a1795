"""The lead's quality-control pages, through the pages only: rules set and versioned with their history, the
actions they take explained in words with their version; controls, training and the gate set up; one
rater's evidence; exclusions of raters who left the team still shown and undone there."""

import re

import pytest
from django.test import Client

from annotation.models import Item, Membership, QcRules, RaterAction, RaterExclusion
from annotation.services import degraded_controls_create
from annotation.services.controls import repeat_controls_create
from audit.models import AuditEntry
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, UserFactory
from tests.annotation.rating import add_raters, rating_project

pytestmark = pytest.mark.django_db

RULES = {
    "gold_accuracy_percent": "70",
    "min_gold_answered": "3",
    "min_seconds_per_judgment": "0",
    "straight_line_run": "0",
    "degraded_p_threshold": "0",
    "min_degraded_answered": "5",
    "control_flag_percent": "50",
    "action": "pause",
}


@pytest.fixture
def setup():
    project = rating_project(n_items=6)
    lead = UserFactory(username="qc-page-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    client = Client()
    client.force_login(lead)
    return project, lead, client


def _text(html: str) -> str:
    """The page's words: inline markup dropped, block markup a space."""
    inline = re.sub(r"</?(?:strong|a|span|code|em)\b[^>]*>", "", html)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", inline))


def _gold_answers(project, rater, *, right: int, wrong: int):
    criterion = project.criteria.get()
    for k in range(right + wrong):
        item = ItemFactory(project=project, n_target=0, gold={"fluency": 4}, external_id=f"gold-{rater.pk}-{k}")
        JudgmentFactory(item=item, rater=rater, criterion=criterion, value=4 if k < right else 1)


def test_rules_are_versioned_once_judging_starts_and_actions_cite_their_version(setup):
    project, lead, client = setup
    # Before any judgment, saving edits version 1 in place
    assert client.post(f"/projects/{project.pk}/qc/rules/", RULES).status_code == 302
    assert client.post(f"/projects/{project.pk}/qc/rules/", {**RULES, "gold_accuracy_percent": "60"}).status_code == 302
    assert list(QcRules.objects.filter(project=project).values_list("version", "gold_accuracy_threshold")) == [(1, 0.6)]
    # Once a rater has judged, a save makes version 2 and keeps version 1
    (rater,) = add_raters(project, prefix="versioned")
    _gold_answers(project, rater, right=1, wrong=3)
    assert client.post(f"/projects/{project.pk}/qc/rules/", {**RULES, "gold_accuracy_percent": "80"}).status_code == 302
    assert list(QcRules.objects.filter(project=project).values_list("version", flat=True)) == [1, 2]
    page = _text(client.get(f"/projects/{project.pk}/qc/rules/").content.decode())
    assert "Version 2, since" in page and "by qc-page-lead" in page
    assert "Gold accuracy: at least 60 % of first answers" in page and "→ at least 80 % of first answers" in page
    assert "first version" in page

    # The rule fires (the lead applies the rules); the log says why, in words, with the version
    applied = client.post(f"/projects/{project.pk}/qc/rules/", {"action": "apply"}, follow=True)
    assert "1 action taken" in applied.content.decode()
    log = client.get(f"/projects/{project.pk}/raters/").content.decode()
    assert (
        "Rule gold accuracy of rules version 2: gold accuracy 25 % (1 of 4 first answers right on 4 gold "
        "items), below the 80 % needed."
    ) in _text(log)
    why = re.findall(r'<td class="why">(.*?)</td>', log, re.S)
    assert why and not any("{" in cell for cell in why), "evidence is shown in words, never as a dictionary"
    assert "Actions taken under it" in page


def test_bad_rules_are_refused_beside_their_field_and_nothing_saved(setup):
    project, _, client = setup
    response = client.post(
        f"/projects/{project.pk}/qc/rules/", {**RULES, "gold_accuracy_percent": "150", "straight_line_run": "-1"}
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert page.count('class="errorlist"') == 2 and "less than or equal to 100" in page
    assert not QcRules.objects.filter(project=project).exists()


def test_controls_training_and_the_gate_are_set_on_the_controls_page(setup):
    project, _, client = setup
    saved = client.post(
        f"/projects/{project.pk}/qc/controls/",
        {
            "action": "settings",
            "training_items": "3",
            "training_pass_mark_percent": "66.6667",
            "gold_rate_percent": "10",
            "repeat_rate_percent": "15",
        },
    )
    assert saved.status_code == 302
    project.refresh_from_db()
    assert (project.training_items, round(project.training_pass_mark, 4), project.gold_rate, project.repeat_rate) == (
        3,
        0.6667,
        0.1,
        0.15,
    )
    assert AuditEntry.objects.filter(action="controls.settings", project=project).exists()

    made = client.post(
        f"/projects/{project.pk}/qc/controls/",
        {"action": "degraded", "degraded-n": "2", "degraded-seed": "7", "degraded-methods": ["truncate"]},
    )
    assert made.status_code == 302
    assert (
        client.post(
            f"/projects/{project.pk}/qc/controls/", {"action": "repeats", "repeats-n": "3", "repeats-seed": "1"}
        ).status_code
        == 302
    )
    assert Item.objects.filter(project=project, degraded_from__isnull=False, meta__method="truncate").count() == 2
    assert Item.objects.filter(project=project, repeat_of__isnull=False).count() == 3
    page = client.get(f"/projects/{project.pk}/qc/controls/").content.decode()
    assert re.search(r'data-testid="pool-degraded">2<', page) and re.search(r'data-testid="pool-repeats">3<', page)
    # The training pool is empty: the page says what raters will really get
    assert 'data-testid="pool-short"' in page


@pytest.mark.parametrize(
    "form, message",
    [
        (
            {
                "action": "settings",
                "training_items": "1",
                "training_pass_mark_percent": "50",
                "gold_rate_percent": "60",
                "repeat_rate_percent": "40",
            },
            "must stay below 100 %",
        ),
        (
            {
                "action": "settings",
                "training_items": "1",
                "training_pass_mark_percent": "101",
                "gold_rate_percent": "0",
                "repeat_rate_percent": "0",
            },
            "less than or equal to 100",
        ),
        (
            {"action": "degraded", "degraded-n": "50", "degraded-seed": "0", "degraded-methods": ["truncate"]},
            "the project has 6 real items",
        ),
        (
            {"action": "degraded", "degraded-n": "1", "degraded-seed": "0", "degraded-methods": ["burn"]},
            "not one of the available choices",
        ),
        ({"action": "repeats", "repeats-n": "0", "repeats-seed": "0"}, "greater than or equal to 1"),
        ({"action": "explode"}, "Unknown action"),
    ],
)
def test_bad_control_forms_get_400_with_the_reason_and_change_nothing(setup, form, message):
    project, _, client = setup
    response = client.post(f"/projects/{project.pk}/qc/controls/", form)
    assert response.status_code == 400 and message in response.content.decode()
    project.refresh_from_db()
    assert (project.training_items, project.gold_rate, project.n_degraded) == (0, 0, 0)
    assert not Item.objects.filter(project=project).exclude(degraded_from=None, repeat_of=None).exists()


def test_the_rater_page_shows_each_measure_with_its_evidence(setup):
    project, lead, client = setup
    (rater,) = add_raters(project, prefix="evident")
    _gold_answers(project, rater, right=2, wrong=1)
    page = client.get(f"/projects/{project.pk}/raters/{rater.pk}/").content.decode()
    text = _text(page)
    assert "2 of 3 first answers right on 3 gold items: accuracy 0.67, 95 % interval 0.21 to 0.94 (Wilson)" in text
    # The evidence: which items, the rater's answers against the gold (the lead's page only)
    gold_rows = re.findall(r"<tr><td>(gold-\d+-\d)</td><td>fluency</td><td>sysA</td><td>(\d)</td><td>4</td>", page)
    assert [answer for _, answer in gold_rows] == ["4", "4", "1"]
    for section in ("evidence-degraded", "evidence-repeats", "evidence-position", "evidence-speed", "evidence-flags"):
        assert f'data-testid="{section}"' in page
    # Excluding from this page comes back to it, and the exclusion is undone there
    excluded = client.post(
        f"/projects/{project.pk}/raters/action/",
        {"rater": rater.pk, "action": "exclude", "reason": "random", "back": "rater"},
    )
    assert excluded["Location"] == f"/projects/{project.pk}/raters/{rater.pk}/"
    assert "Undo the exclusion" in client.get(excluded["Location"]).content.decode()
    client.post(
        f"/projects/{project.pk}/raters/action/",
        {"rater": rater.pk, "action": "include", "reason": "checked again", "back": "rater"},
    )
    assert not RaterExclusion.objects.filter(rater=rater).exists()
    refused = client.post(
        f"/projects/{project.pk}/raters/action/", {"rater": rater.pk, "action": "admit", "reason": "x", "back": "rater"}
    )
    assert refused.status_code == 400 and "not kept out by the qualification gate" in refused.content.decode()


def test_a_rater_excluded_then_removed_stays_on_the_page_and_can_be_included(setup):
    project, lead, client = setup
    (rater,) = add_raters(project, prefix="gone")
    client.post(f"/projects/{project.pk}/raters/action/", {"rater": rater.pk, "action": "exclude", "reason": "bot"})
    assert (
        client.post(f"/projects/{project.pk}/team/action/", {"rater": rater.pk, "action": "remove"}).status_code == 302
    )
    page = client.get(f"/projects/{project.pk}/raters/").content.decode()
    assert 'data-testid="former-excluded"' in page and f'data-rater="{rater.username}"' in page
    assert client.get(f"/projects/{project.pk}/raters/{rater.pk}/").status_code == 200
    included = client.post(
        f"/projects/{project.pk}/raters/action/",
        {"rater": rater.pk, "action": "include", "reason": "a person after all"},
    )
    assert included.status_code == 302
    assert not RaterExclusion.objects.filter(project=project, rater=rater).exists()
    assert RaterAction.objects.filter(rater=rater, kind="include", by=lead).exists()
    assert 'data-testid="former-excluded"' not in client.get(f"/projects/{project.pk}/raters/").content.decode()
    # A non-member who was never excluded is no rater of the project here
    stranger = UserFactory(username="stranger")
    assert client.get(f"/projects/{project.pk}/raters/{stranger.pk}/").status_code == 404


@pytest.mark.parametrize("task_type", ["pairwise", "rankme"])
def test_the_rater_page_reads_degraded_copies_and_repeats_of_every_kind(setup, task_type):
    _, lead, client = setup
    project = rating_project(task_type=task_type, n_items=4)
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    (rater,) = add_raters(project, prefix=f"kinds-{task_type}")
    criterion = project.criteria.get()
    copies = degraded_controls_create(project=project, n=2, seed=1) + repeat_controls_create(project=project, n=1)
    for item in [*Item.objects.filter(project=project, degraded_from=None, repeat_of=None), *copies]:
        for output in item.outputs.order_by("position")[: 1 if task_type == "pairwise" else None]:
            first = output.system
            JudgmentFactory(
                item=item,
                output=output,
                rater=rater,
                criterion=criterion,
                value=2 if task_type == "pairwise" else 30 if item.degraded_from_id else 60,
                label=first if task_type == "pairwise" else "",
                shown_order=[o.system for o in item.outputs.order_by("position")],
            )
    page = _text(client.get(f"/projects/{project.pk}/raters/{rater.pk}/").content.decode())
    assert "2 damaged copies judged" in page
    if task_type == "pairwise":
        assert "intact side won 2, damaged side 0, ties 0" in page and "intact vs damaged intact side" in page
    else:
        assert "Mann–Whitney U" in page and "30 60 scored lower" in page
    n = 1 if task_type == "pairwise" else 2  # pairwise: one judgment a screen; rankme: one per output
    assert f"{n} of {n} answers given again were the same" in page
