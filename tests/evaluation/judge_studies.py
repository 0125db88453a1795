"""Small studies imported through the platform's own services, with a judge whose ratings are known,
for the judge tests and study planning."""

import numpy as np

from annotation.services import item_import, judgment_import
from evaluation.services import judge_rating_import
from tests.evaluation.datasets.loaders import lines, new_project

SYSTEMS = ("bart", "pegasus")


def likert_study(lead, *, n_items=100, n_rated=60, seed=0, judge_bias=0.5, judge_noise=0.6, name="likert study"):
    """``n_items`` items with two outputs; the first ``n_rated`` rated by three raters on 1-5; a
    judge ("gpt") rating every output, biased up by ``judge_bias``. Returns (project, records) with
    the records as imported: ``{"humans": [...], "judge": [...]}``."""
    rng = np.random.default_rng(seed)
    project = new_project(lead, name, "likert", [{"name": "fluency", "scale_min": 1, "scale_max": 5}])
    item_import(
        project=project,
        stream=lines(
            {
                "external_id": f"doc{i}",
                "input": f"source {i}",
                "subgroup": "news" if i % 2 else "dialogue",
                "outputs": [{"system": s, "text": f"{s} {i}"} for s in SYSTEMS],
            }
            for i in range(n_items)
        ),
    )
    truth = {(i, s): rng.normal(3.0 + 0.4 * k, 0.9) for i in range(n_items) for k, s in enumerate(SYSTEMS)}
    humans = [
        {
            "item": f"doc{i}",
            "rater": f"r{r}",
            "criterion": "fluency",
            "system": s,
            "value": int(np.clip(np.round(truth[i, s] + rng.normal(0, 0.6)), 1, 5)),
        }
        for i in range(n_rated)
        for s in SYSTEMS
        for r in range(3)
    ]
    judgment_import(project=project, stream=lines(humans))
    judge = [
        {
            "judge": "gpt",
            "item": f"doc{i}",
            "system": s,
            "criterion": "fluency",
            "model": "gpt-4o-2024-08-06",
            "prompt_hash": "9f2c41d0aa",
            "run_date": "2025-03-01",
            "value": float(np.clip(np.round(truth[i, s] + judge_bias + rng.normal(0, judge_noise)), 1, 5)),
        }
        for i in range(n_items)
        for s in SYSTEMS
    ]
    judge_rating_import(project=project, stream=lines(judge))
    return project, {"humans": humans, "judge": judge}


def pairwise_study(lead, *, n_items=90, n_rated=60, seed=0, name="pairwise study"):
    """``n_items`` A/B items, bart first on even items and pegasus first on odd ones; three raters on
    the first ``n_rated``; a judge ("gpt") on every item that favours bart more than the raters do.
    Returns (project, records) with the winner per line as imported."""
    rng = np.random.default_rng(seed)
    project = new_project(lead, name, "pairwise", [{"name": "overall"}])
    order = {i: SYSTEMS if i % 2 == 0 else SYSTEMS[::-1] for i in range(n_items)}
    item_import(
        project=project,
        stream=lines(
            {
                "external_id": f"pair{i}",
                "input": f"prompt {i}",
                "outputs": [{"system": s, "text": f"{s} {i}"} for s in order[i]],
            }
            for i in range(n_items)
        ),
    )
    p_bart = {i: float(np.clip(rng.normal(0.6, 0.2), 0.02, 0.98)) for i in range(n_items)}

    def winner(p):
        u = rng.random()
        return "bart" if u < p * 0.85 else "pegasus" if u < 0.85 else "tie"

    humans = [
        {"item": f"pair{i}", "rater": f"r{r}", "criterion": "overall", "value": winner(p_bart[i])}
        for i in range(n_rated)
        for r in range(3)
    ]
    judgment_import(project=project, stream=lines(humans))
    judge = [
        {"judge": "gpt", "item": f"pair{i}", "criterion": "overall", "value": winner(min(p_bart[i] + 0.2, 1.0))}
        for i in range(n_items)
    ]
    judge_rating_import(project=project, stream=lines(judge))
    return project, {"humans": humans, "judge": judge, "order": order}
