"""Small studies for the export tests, built through the platform's own services: imported raters with
timestamps over three weeks, gold items, a rater with a real account (username and email) who judged
on the rating screens, and a revised judgment."""

import io
import json
import zipfile
from datetime import UTC, datetime, timedelta

from annotation.models import Judgment, Membership
from annotation.services import item_import, judgment_import, project_create
from tests.annotation.factories import JudgmentFactory, UserFactory

MONDAY = datetime(2024, 3, 4, 9, 0, tzinfo=UTC)
ACCOUNT = {"username": "alice.martin", "email": "alice.martin@example.org"}


def lines(records) -> io.BytesIO:
    return io.BytesIO("".join(json.dumps(r) + "\n" for r in records).encode())


def likert_study(lead, *, n_items: int = 24):
    """Two criteria on 1–5, two systems, subgroups news/dialogue, two gold items, three imported raters
    over three weeks, one account rater and one revision. Returns the project."""
    project = project_create(
        created_by=lead,
        name="Summaries study",
        task_type="likert",
        criteria=[
            {
                "name": "fluency",
                "scale_min": 1,
                "scale_max": 5,
                "labels": ["awful", "poor", "fair", "good", "great"],
                "help_text": "How fluent is the summary?",
            },
            {"name": "coherence", "scale_min": 1, "scale_max": 5},
        ],
        instructions="Read the document, then rate each summary.\n\nRate each criterion on its own.",
        raters_per_item=3,
        double_annotation_share=1.0,
        gold_rate=0.1,
    )
    items = [
        {
            "external_id": f"doc{i}",
            "input": f'Document {i}, with a comma, a "quote" and a line\nbreak.',
            "references": [f"reference {i}"],
            "outputs": [
                {"system": "bart", "text": f"bart summary {i}"},
                {"system": "pegasus", "text": f"pegasus {i}"},
            ],
            "subgroup": "news" if i % 3 else "dialogue",
            "meta": {"source": "cnn", "i": i},
        }
        for i in range(n_items)
    ]
    items += [
        {
            "external_id": "gold1",
            "input": "A gold document.",
            "outputs": [{"system": "bart", "text": "good"}, {"system": "pegasus", "text": "bad"}],
            "subgroup": "news",
            "gold": {"fluency": {"bart": 5, "pegasus": 1}},
        },
        {
            "external_id": "gold2",
            "input": "Another gold one.",
            "outputs": [{"system": "bart", "text": "x"}, {"system": "pegasus", "text": "y"}],
            "gold": {"coherence": 4},
        },
    ]
    item_import(project=project, stream=lines(items))
    judgments = []
    for i in range(n_items):
        week = i * 3 // n_items
        for r, rater in enumerate(("worker-7", "worker-12", "worker-31")):
            for c, criterion in enumerate(("fluency", "coherence")):
                for s, system in enumerate(("bart", "pegasus")):
                    value = 1 + (i + s * 2 + c + (r if i % 4 == 0 else 0)) % 5
                    judgments.append(
                        {
                            "item": f"doc{i}",
                            "rater": rater,
                            "criterion": criterion,
                            "system": system,
                            "value": value,
                            "submitted_at": (MONDAY + timedelta(weeks=week, hours=i, minutes=r)).isoformat(),
                            "shown_order": ["pegasus", "bart"] if (i + r) % 2 else ["bart", "pegasus"],
                            "duration_ms": 1000 * (10 + i + r),
                        }
                    )
    for rater in ("worker-7", "worker-12"):
        judgments.append(
            {
                "item": "gold1",
                "rater": rater,
                "criterion": "fluency",
                "system": "bart",
                "value": 5,
                "submitted_at": MONDAY.isoformat(),
            }
        )
    judgment_import(project=project, stream=lines(judgments))
    # a rater with an account judged two outputs on the rating screens, then revised one judgment
    account = UserFactory(**ACCOUNT)
    Membership.objects.create(project=project, user=account, role=Membership.Role.RATER)
    item = project.items.get(external_id="doc1")
    fluency = project.criteria.get(name="fluency")
    for output in item.outputs.order_by("position"):
        JudgmentFactory(
            item=item,
            output=output,
            criterion=fluency,
            rater=account,
            value=4.0,
            submitted_at=MONDAY + timedelta(days=1),
            served_at=MONDAY + timedelta(days=1, seconds=-30),
            duration_ms=30_000,
            shown_order=["bart", "pegasus"],
            source=Judgment.Source.RATER,
        )
    first = Judgment.objects.filter(rater=account).order_by("id").first()
    Judgment.objects.filter(pk=first.pk).update(is_current=False)
    JudgmentFactory(
        item=item,
        output=first.output,
        criterion=fluency,
        rater=account,
        value=3.0,
        submitted_at=MONDAY + timedelta(days=1, minutes=5),
        source=Judgment.Source.RATER,
    )
    return project


def pairwise_study(lead, *, n_items: int = 30):
    project = project_create(
        created_by=lead,
        name="Chat duel",
        task_type="pairwise",
        criteria=[{"name": "overall"}, {"name": "safety"}],
        raters_per_item=2,
        double_annotation_share=1.0,
    )
    systems = [("m1", "m2"), ("m2", "m3"), ("m1", "m3")]
    item_import(
        project=project,
        stream=lines(
            {
                "external_id": f"p{i}",
                "input": f"prompt {i}",
                "subgroup": f"app {i % 2}",
                "outputs": [
                    {"system": systems[i % 3][0], "text": "a"},
                    {"system": systems[i % 3][1], "text": "b"},
                ],
            }
            for i in range(n_items)
        ),
    )
    judgments = []
    for i in range(n_items):
        first, second = systems[i % 3]
        for r, rater in enumerate(("ann1", "ann2")):
            for criterion in ("overall", "safety"):
                winner = [first, second, "tie"][(i + (r if i % 5 == 0 else 0)) % 3]
                judgments.append(
                    {
                        "item": f"p{i}",
                        "rater": rater,
                        "criterion": criterion,
                        "value": winner,
                        "submitted_at": (MONDAY + timedelta(days=i)).isoformat(),
                        "shown_order": [second, first] if (i + r) % 2 else [first, second],
                    }
                )
    judgment_import(project=project, stream=lines(judgments))
    return project


def rankme_study(lead, *, n_items: int = 12):
    project = project_create(
        created_by=lead,
        name="Sliders",
        task_type="rankme",
        criteria=[{"name": "quality", "scale_min": 0, "scale_max": 100}],
        raters_per_item=3,
        double_annotation_share=1.0,
    )
    item_import(
        project=project,
        stream=lines(
            {
                "external_id": f"r{i}",
                "input": "x",
                "outputs": [{"system": s, "text": s} for s in ("a", "b", "c")],
            }
            for i in range(n_items)
        ),
    )
    judgment_import(
        project=project,
        stream=lines(
            {
                "item": f"r{i}",
                "rater": f"w{r}",
                "criterion": "quality",
                "system": s,
                "value": (17.5 * (i + k + r)) % 100,
                "submitted_at": (MONDAY + timedelta(days=i)).isoformat(),
            }
            for i in range(n_items)
            for r in range(3)
            for k, s in enumerate(("a", "b", "c"))
        ),
    )
    return project


# Scores of the modulus study, given in turn to outputs a, b, c of each item by raters w0, w1.
MODULUS_SCORES = (5, 20, 100, 150, 700, 2500)


def rankme_modulus_study(lead, *, n_items: int = 4):
    """RankME with a modulus of 100: scores from 5 to 2500, every item with its reference."""
    project = project_create(
        created_by=lead,
        name="Magnitudes",
        task_type="rankme",
        criteria=[{"name": "quality"}],
        raters_per_item=2,
        double_annotation_share=1.0,
        rankme_modulus=100,
    )
    item_import(
        project=project,
        stream=lines(
            {
                "external_id": f"m{i}",
                "input": "x",
                "reference": f"reference {i}",
                "outputs": [{"system": s, "text": s} for s in ("a", "b", "c")],
            }
            for i in range(n_items)
        ),
    )
    judgment_import(
        project=project,
        stream=lines(
            {
                "item": f"m{i}",
                "rater": f"w{r}",
                "criterion": "quality",
                "system": s,
                "value": MODULUS_SCORES[(i + 3 * r + k) % len(MODULUS_SCORES)],
                "submitted_at": (MONDAY + timedelta(days=i)).isoformat(),
            }
            for i in range(n_items)
            for r in range(2)
            for k, s in enumerate(("a", "b", "c"))
        ),
    )
    return project


def read_zip(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def jsonl(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode().splitlines() if line.strip()]
