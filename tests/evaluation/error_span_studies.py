"""Small synthetic error-span studies (MQM, ESA) imported through the judgment import, for results tests."""

import io
import json

import numpy as np

from annotation.models import Membership
from annotation.services import item_import, judgment_import, project_create

TEXT = "Das ist ein kurzer Satz mit einigen Fehlern darin."
CATEGORIES = ("Accuracy/Mistranslation", "Fluency/Grammar", "Fluency/Punctuation", "Style/Awkward")


def error_span_study(lead, task_type: str, *, n_items=30, systems=("alpha", "beta", "gamma", "delta"), seed=0):
    """``n_items`` segments in two subgroups, each system's output judged by two raters; a system's errors grow
    with its position, so the ranking has clear and unclear differences."""
    project = project_create(
        created_by=lead,
        name=f"{task_type} results",
        task_type=task_type,
        criteria=[{"name": "Errors" if task_type == "mqm" else "Quality"}],
        raters_per_item=2,
    )
    criterion = project.criteria.get().name
    assert Membership.objects.filter(project=project, user=lead, role=Membership.Role.LEAD).exists()
    items = [
        {
            "external_id": f"seg{k}",
            "input": "This is a short sentence with a few errors in it.",
            "outputs": [{"system": s, "text": TEXT} for s in systems],
            "subgroup": "news" if k % 2 else "chat",
        }
        for k in range(n_items)
    ]
    item_import(project=project, stream=io.BytesIO("".join(json.dumps(x) + "\n" for x in items).encode()))
    rng = np.random.default_rng(seed)
    lines = []
    for k in range(n_items):
        for s, system in enumerate(systems):
            for rater in ("ann1", "ann2"):
                spans = []
                for _ in range(int(rng.poisson(0.2 + 1.0 * s))):
                    start = int(rng.integers(0, len(TEXT) - 5))
                    span = {
                        "start": start,
                        "end": start + int(rng.integers(1, 5)),
                        "severity": "major" if rng.random() < 0.3 else "minor",
                    }
                    if task_type == "mqm":
                        span["category"] = CATEGORIES[int(rng.integers(0, len(CATEGORIES)))]
                    spans.append(span)
                value = {"spans": spans, "no_error": not spans}
                if task_type == "esa":
                    value["score"] = int(np.clip(95 - 12 * len(spans) + rng.normal(0, 5), 0, 100))
                lines.append(
                    {"item": f"seg{k}", "rater": rater, "criterion": criterion, "system": system, "value": value}
                )
    judgment_import(project=project, stream=io.BytesIO("".join(json.dumps(x) + "\n" for x in lines).encode()))
    return project
