"""factory_boy factories for the annotation models."""

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone

from annotation.models import Criterion, Item, Judgment, Membership, Output, Project
from annotation.task_types import REGISTRY, TaskTypeError


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("pass-word-1234")


class ProjectFactory(factory.django.DjangoModelFactory):
    """A project with one criterion per name in ``criteria`` (default: fluency on 1–5)."""

    class Meta:
        model = Project
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"project {n}")
    task_type = "likert"
    instructions = "Rate each output."

    @factory.post_generation
    def criteria(self, create, names, **kwargs):
        if not create:
            return
        try:  # the type's default scale (pairwise and MQM: none; RankME and ESA: 0–100), or Likert's 1–5
            scale = REGISTRY[self.task_type].normalise_scale(None, None, [])[:2]
        except TaskTypeError:
            scale = (1.0, 5.0)
        for position, name in enumerate(names or ["fluency"]):
            Criterion.objects.create(project=self, name=name, position=position, scale_min=scale[0], scale_max=scale[1])


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    project = factory.SubFactory(ProjectFactory)
    user = factory.SubFactory(UserFactory)
    role = Membership.Role.RATER


class ItemFactory(factory.django.DjangoModelFactory):
    """An item with one output per system in ``systems`` (default: two for pairwise/rankme, one else)."""

    class Meta:
        model = Item
        skip_postgeneration_save = True

    project = factory.SubFactory(ProjectFactory)
    external_id = factory.Sequence(lambda n: f"item-{n}")
    input = factory.LazyAttribute(lambda o: f"input of {o.external_id}")

    @factory.post_generation
    def systems(self, create, names, **kwargs):
        if not create:
            return
        names = names or (["sysA"] if self.project.task_type == "likert" else ["sysA", "sysB"])
        for position, system in enumerate(names):
            Output.objects.create(item=self, position=position, system=system, text=f"{system} on {self.external_id}")


class JudgmentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Judgment

    item = factory.SubFactory(ItemFactory)
    project = factory.LazyAttribute(lambda o: o.item.project)
    output = factory.LazyAttribute(lambda o: o.item.outputs.order_by("position").first())
    criterion = factory.LazyAttribute(lambda o: o.item.project.criteria.first())
    rater = factory.SubFactory(UserFactory)
    value = 3.0
    submitted_at = factory.LazyFunction(timezone.now)
