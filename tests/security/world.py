"""A small world for the security tests: two projects, one of each role, sentinel strings that
raters must never see (system names, gold answers, other raters, agreement figures, other projects)."""

import datetime
import io
import json
from dataclasses import dataclass, field

from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from agreement.models import AgreementSnapshot, SnapshotGeneration
from annotation.models import Membership
from annotation.services import assignment_next_for_rater, item_flag_create, item_import, judgment_submit
from core.models import Job
from evaluation.models import Calibrator, Export
from staffing.services import external_link_reset, invite_create
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory
from tests.annotation.rating import full_values

PASSWORD = "pass-word-1234"

# Strings that occur only in data a rater must not receive.
SENTINELS = {
    "system name": "SECRETSYS",
    "gold answer": "GOLDMARKER",
    "other rater": "otherjudge",
    "flag comment": "FLAGSECRET",
    "agreement figure": "0.7654321",
    "other project": "OTHERPROJECTTEXT",
}


@dataclass
class World:
    project: object
    other_project: object
    users: dict
    assignment: object
    ids: dict = field(default_factory=dict)


def _jsonl(records) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def build_world() -> World:
    project = ProjectFactory(name="secure study", criteria=["fluency"], raters_per_item=2)
    other = ProjectFactory(name="OTHERPROJECTTEXT study", criteria=["fluency"], raters_per_item=1)
    users = {
        "lead": UserFactory(username="lead"),
        "rater": UserFactory(username="rater"),
        "other_rater": UserFactory(username="outsider"),
        "staff": UserFactory(username="staff", is_staff=True),
    }
    judge = UserFactory(username="otherjudge")
    MembershipFactory(project=project, user=users["lead"], role=Membership.Role.LEAD)
    MembershipFactory(project=project, user=users["rater"], role=Membership.Role.RATER)
    MembershipFactory(project=project, user=judge, role=Membership.Role.RATER)
    MembershipFactory(project=other, user=users["other_rater"], role=Membership.Role.RATER)
    # The gold item is named GOLDMARKER: raters are never told which items are gold.
    items = [
        {
            "external_id": f"doc{i}",
            "input": f"plain input {i}",
            "outputs": [{"system": "SECRETSYS", "text": f"plain output {i}"}],
        }
        for i in range(3)
    ]
    items.append(
        {
            "external_id": "GOLDMARKER-item",
            "input": "gold input",
            "outputs": [{"system": "SECRETSYS", "text": "gold output"}],
            "gold": {"fluency": 5},
        }
    )
    item_import(project=project, stream=io.BytesIO(_jsonl(items)), fmt="jsonl")
    item_import(
        project=other,
        stream=io.BytesIO(
            _jsonl(
                [
                    {
                        "external_id": "o1",
                        "input": "OTHERPROJECTTEXT input",
                        "outputs": [{"system": "othersys", "text": "OTHERPROJECTTEXT output"}],
                    }
                ]
            )
        ),
        fmt="jsonl",
    )
    # Another rater of the same project judges and flags.
    first = assignment_next_for_rater(project_id=project.pk, rater=judge)
    judgment_submit(rater=judge, assignment_id=first.pk, values=full_values(first, 2))
    second = assignment_next_for_rater(project_id=project.pk, rater=judge)
    item_flag_create(rater=judge, assignment_id=second.pk, reason="broken", comment="FLAGSECRET")
    assignment = assignment_next_for_rater(project_id=project.pk, rater=users["rater"])
    criterion = project.criteria.first()
    SnapshotGeneration.objects.create(project=project)  # the row below is its generation 0, current
    AgreementSnapshot.objects.create(
        project=project,
        window="cumulative",
        week_start=datetime.date(2026, 11, 23),
        scope="overall",
        scope_key="overall",
        criterion=criterion,
        statistic="krippendorff_alpha",
        value=0.7654321,
        n_units=3,
        n_raters=2,
        is_main=True,
        computed_at=timezone.now(),
    )
    job = Job.objects.create(kind="agreement_recompute", project=project, created_by=users["lead"])
    update_job = Job.objects.create(
        kind="item_update",
        project=project,
        created_by=users["lead"],
        state="success",
        result={"added": 0, "updated": 0, "unchanged": 0, "refused": 0, "lines": []},
    )
    export = Export.objects.create(project=project, job=job, created_by=users["lead"])
    calibrator = Calibrator.objects.create(
        project=project,
        name="cal",
        criterion=criterion,
        params={
            "features": ["bleu"],
            "means": [0.0],
            "scales": [1.0],
            "weights": [1.0],
            "intercept": 0.0,
            "alpha": 1.0,
        },
    )
    world = World(project=project, other_project=other, users=users, assignment=assignment)
    invite = invite_create(project=project, by=users["lead"], max_uses=100, valid_days=1)
    link = external_link_reset(project=project, by=users["lead"])
    world.ids = {
        "pk_project": project.pk,
        "pk_assignment": assignment.pk,
        "pk_job": job.pk,
        "pk_export": export.pk,
        "calibrator_id": calibrator.pk,
        "invite_id": invite.pk,
        "external_token": link.token,
        "pk_item": first.item_id,
        "update_job_id": update_job.pk,
    }
    return world


def url_patterns(resolver=None, prefix=""):
    """Every (route, name) the site serves, outside the admin."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            if getattr(entry, "app_name", None) == "admin":
                continue
            yield from url_patterns(entry, route)
        elif isinstance(entry, URLPattern):
            yield route, entry.name
