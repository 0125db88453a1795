"""The rater's screen as a lead sets a project up: the real rating template, filled from the settings
being edited (not yet saved) and one of the project's first items, or a sample item before any import."""

from datetime import timedelta

from django.utils import timezone

from annotation.models import Assignment, Criterion, Item, Project
from annotation.selectors import screen_modulus, screen_questions
from annotation.task_types import REGISTRY

PREVIEW_ITEMS = 3
SAMPLE_INPUT = (
    "The city council voted on Tuesday to extend the tram line to the airport. Construction is "
    "expected to start next spring and to take three years."
)
SAMPLE_OUTPUTS = (
    "The council approved a tram extension to the airport; work starts next spring and lasts three years.",
    "A tram line will reach the airport, the council decided, after three years of building.",
    "The council voted on trams on Tuesday.",
)


def preview_items(project: Project | None, task_type: str) -> list[dict]:
    """Up to PREVIEW_ITEMS of the project's first ordinary items ({label, input, references, outputs}),
    or one sample item with as many outputs as the task type wants."""
    items = (
        []
        if project is None or project.pk is None
        else list(
            Item.objects.filter(project=project, gold__isnull=True, degraded_from__isnull=True, repeat_of__isnull=True)
            .order_by("id")
            .prefetch_related("outputs")[:PREVIEW_ITEMS]
        )
    )
    if items:
        return [
            {
                "label": f"Item {i.external_id}",
                "input": i.input,
                "references": list(i.references),
                "outputs": [o.text for o in i.outputs.all()],
            }
            for i in items
        ]
    n_outputs = REGISTRY[task_type].setup.sample_outputs if task_type in REGISTRY else 1
    return [
        {
            "label": "Sample item (no items imported yet)",
            "input": SAMPLE_INPUT,
            "references": ["Council extends the tram line to the airport; three years of works from spring."],
            "outputs": list(SAMPLE_OUTPUTS[:n_outputs]),
        }
    ]


def preview_screen_context(*, project: Project, criteria: list[dict], item: dict) -> dict:
    """The context of the task type's rating template for ``project`` (possibly unsaved) with the
    normalised ``criteria`` specs, showing ``item`` in its imported order; marked ``preview`` so the
    template offers nothing to submit."""
    task_type = REGISTRY[project.task_type]
    rows = [
        Criterion(
            pk=n + 1,
            name=c["name"],
            position=n,
            scale_min=c["scale_min"],
            scale_max=c["scale_max"],
            labels=c["labels"],
            help_text=c["help_text"],
        )
        for n, c in enumerate(criteria)
    ]
    references, screen_criteria = list(item["references"]), [task_type.screen_criterion(c) for c in rows]
    modulus = screen_modulus(project, references, screen_criteria)
    screen = {
        "assignment_id": None,
        "item": {
            "input": item["input"],
            "references": references if project.show_reference else [],
            "modulus": modulus,
            "outputs": [{"position": p, "text": text} for p, text in enumerate(item["outputs"])],
        },
        "criteria": screen_criteria,
    }
    assignment = Assignment(project=project, expires_at=timezone.now() + timedelta(seconds=project.lease_seconds))
    return {
        "project": project,
        "assignment": assignment,
        "screen": screen,
        **screen_questions(screen=screen, task_type=task_type, config=project.task_config),
        "errors": [],
        "revising": False,
        "client_token": "",
        "served_ms": 0,
        "previous": None,
        "flag_reasons": [],
        "progress": {"done": 0, "assigned": 1, "remaining": 9, "total": 10},
        "preview": True,
        "preview_shuffled": project.randomise_output_order and task_type.per_output and len(item["outputs"]) > 1,
    }
