"""Agreement counts the judgments evaluation counts: annotation's ``included_judgments`` decides for both."""

import pytest
from django.utils import timezone

from agreement.selectors.judgment_records import judgment_records_for_project
from annotation.models import Judgment, RaterExclusion
from evaluation.selectors import included_judgments
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_agreement_leaves_out_what_evaluation_leaves_out():
    project = ProjectFactory()
    work = ItemFactory(project=project)
    gold = ItemFactory(project=project, gold={"fluency": 5})
    repeat = ItemFactory(project=project, repeat_of=work)
    degraded = ItemFactory(project=project, degraded_from=work)
    kept, left_out = UserFactory(), UserFactory()
    MembershipFactory(project=project, user=kept)
    MembershipFactory(project=project, user=left_out)
    RaterExclusion.objects.create(project=project, rater=left_out, created_at=timezone.now())
    counted = JudgmentFactory(item=work, rater=kept, value=4.0)
    JudgmentFactory(item=work, rater=left_out)
    for item in (gold, repeat, degraded):
        JudgmentFactory(item=item, rater=kept)
    revised = JudgmentFactory(item=ItemFactory(project=project), rater=kept, value=2.0)
    Judgment.objects.filter(pk=revised.pk).update(is_current=False)

    records = judgment_records_for_project(project)

    assert list(included_judgments(project).values_list("pk", flat=True)) == [counted.pk]
    assert records.unit.tolist() == [counted.output_id] and records.rater.tolist() == [kept.pk]
    assert records.value.tolist() == [4.0]
