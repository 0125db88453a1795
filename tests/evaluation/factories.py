"""factory_boy factories for the evaluation models, and a small rated study built with them."""

import factory
import numpy as np

from annotation.models import Item, Membership
from evaluation.models import Judge, JudgeRating, MetricScore
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, UserFactory


class MetricScoreFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = MetricScore

    output = factory.SubFactory("tests.annotation.factories.JudgmentFactory")
    project = factory.LazyAttribute(lambda o: o.output.item.project)
    name = "bleu"
    value = 0.5
    source = MetricScore.Source.IMPORTED


class JudgeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Judge

    name = factory.Sequence(lambda n: f"judge-{n}")
    kind = Judge.Kind.LLM


class JudgeRatingFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = JudgeRating

    value = 3.0


def rated_study(project, *, n_items=8, systems=("good", "bad"), n_raters=2, seed=0, gold_items=0):
    """Likert/rankme judgments where each system is rated above the next one; returns (raters, items).

    Every rater judges every output of every item on every criterion; gold items get judgments too,
    so tests can check they are left out.
    """
    rng = np.random.default_rng(seed)
    raters = [
        MembershipFactory(project=project, user=UserFactory(), role=Membership.Role.RATER).user for _ in range(n_raters)
    ]
    low, high = (1, 5) if project.task_type == "likert" else (0, 100)
    items = [ItemFactory(project=project, systems=list(systems)) for _ in range(n_items)]
    items += [ItemFactory(project=project, systems=list(systems), gold={"fluency": 5}) for _ in range(gold_items)]
    step = (high - low - 2) / max(len(systems) - 1, 1)
    for item in items:
        for output in item.outputs.all():
            base = high - 1 - step * systems.index(output.system)
            for criterion in project.criteria.all():
                for rater in raters:
                    JudgmentFactory(
                        item=item,
                        output=output,
                        criterion=criterion,
                        rater=rater,
                        value=float(np.clip(base + rng.integers(-1, 2), low, high)),
                    )
    return raters, Item.objects.filter(project=project)


def pairwise_study(project, *, n_items=12, n_raters=3):
    """Three systems in a round robin; "a" beats "b" beats "c", with a tie now and then."""
    raters = [
        MembershipFactory(project=project, user=UserFactory(), role=Membership.Role.RATER).user for _ in range(n_raters)
    ]
    pairs = [("a", "b"), ("b", "c"), ("a", "c")]
    for k in range(n_items):
        first, second = pairs[k % 3]
        item = ItemFactory(project=project, systems=[first, second])
        output = item.outputs.get(position=0)
        for r, rater in enumerate(raters):
            JudgmentFactory(
                item=item,
                output=output,
                criterion=project.criteria.first(),
                rater=rater,
                value=1.0 if (k + r) % 5 == 0 else 2.0,
                label="",
            )
    return raters
