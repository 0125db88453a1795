"""The golden-file check of the recompute: seeded projects of every task type, and every snapshot row
the recompute stores for them written as canonical text lines (database ids replaced by names, floats
by repr), so that a restructuring of the recompute can be diffed against the rows it stored before.

    DATABASE_URL=... /work/main/.venv/bin/python -m pytest tests/agreement/services/test_snapshot_rows_golden.py
    CONCORD_GOLDEN_WRITE=1 (same command) writes the golden file instead of comparing with it.
"""

import json
import re
from datetime import UTC, datetime, timedelta

import numpy as np

from agreement.models import AgreementSnapshot
from annotation.models import Criterion, ErrorSpan, Judgment
from tests.annotation.factories import ItemFactory, ProjectFactory, UserFactory

MONDAY = datetime(2026, 1, 5, 9, 30, tzinfo=UTC)
N_WEEKS = 5
SUBGROUPS = ("news", "dialogue", "")
# The bootstrap of each scope is seeded by its project's id (agreement.services.scope_bootstrap).
PROJECT_IDS = {
    name: 910_001 + k for k, name in enumerate(("likert", "wide", "rankme", "rankme-modulus", "pairwise", "esa", "bws"))
}
# a row's generation is not its content (a recompute writes under a new one)
COLUMNS = [
    f.name for f in AgreementSnapshot._meta.fields if f.name not in ("id", "project", "computed_at", "generation")
]


def _when(rng: np.random.Generator) -> datetime:
    return MONDAY + timedelta(weeks=int(rng.integers(N_WEEKS)), hours=int(rng.integers(0, 100)))


def _duration(rng: np.random.Generator) -> int | None:
    return None if rng.random() < 0.2 else int(rng.integers(800, 40_000))


def _raters(prefix: str, n: int) -> list:
    return [UserFactory(username=f"{prefix}-rater-{k}") for k in range(n)]


def _rated_values(project, name, criteria, systems, value_of, n_items, rng, *, n_raters=7, spans=False):
    """``n_items`` items in the subgroups by turns, each output rated on each criterion by 1–4 of the raters
    (some ratings missing) in a random week; ``value_of(criterion, quality, rng)`` draws a rating."""
    raters = _raters(name, n_raters)
    judgments = []
    for k in range(n_items):
        item = ItemFactory(project=project, subgroup=SUBGROUPS[k % len(SUBGROUPS)], systems=systems)
        item.outputs.update(text="Das ist ein kleiner Test.")
        outputs = list(item.outputs.order_by("position"))
        if project.task_type == "pairwise":
            outputs = outputs[:1]  # pairwise judgments sit on the item's first output
        for output in outputs:
            quality = rng.random()
            chosen = rng.choice(n_raters, int(rng.integers(1, 5)), replace=False)
            for criterion in criteria:
                for r in chosen:
                    if rng.random() < 0.1:
                        continue
                    judgments.append(
                        Judgment(
                            project=project,
                            item=item,
                            output=output,
                            criterion=criterion,
                            rater=raters[r],
                            value=value_of(criterion, quality, rng),
                            client_token=f"{name}-{len(judgments)}",
                            submitted_at=_when(rng),
                            duration_ms=_duration(rng),
                        )
                    )
    Judgment.objects.bulk_create(judgments)
    if spans:
        ErrorSpan.objects.bulk_create(
            ErrorSpan(judgment=j, start=start, end=start + int(rng.integers(1, 6)), severity=severity)
            for j in Judgment.objects.filter(project=project).order_by("id")
            for start, severity in [
                (int(rng.integers(0, 19)), ("minor", "major")[int(rng.integers(2))])
                for _ in range(int(rng.integers(0, 3)))
            ]
        )


def _points(criterion, quality, rng) -> float:
    low, high = int(criterion.scale_min), int(criterion.scale_max)
    return float(np.clip(round(low + quality * (high - low) + rng.normal(0, 0.7)), low, high))


def golden_projects() -> list:
    """The seeded projects: Likert (counts path, with an off-scale value), Likert with a 30-point scale
    (matrix path), RankME with and without a modulus, pairwise, ESA (error spans) and best–worst."""
    rng = np.random.default_rng(20261203)
    projects = []

    likert = ProjectFactory(
        id=PROJECT_IDS["likert"],
        name="golden likert",
        task_type="likert",
        criteria=["fluency", "adequacy", "coherence"],
    )
    Criterion.objects.filter(project=likert, name="adequacy").update(scale_min=1, scale_max=3)
    _rated_values(likert, "likert", list(likert.criteria.order_by("position")), ["s1", "s2"], _points, 30, rng)
    Judgment.objects.filter(pk=Judgment.objects.filter(project=likert).order_by("id")[5].pk).update(value=9)
    projects.append(likert)

    wide = ProjectFactory(id=PROJECT_IDS["wide"], name="golden wide", task_type="likert", criteria=["detail", "style"])
    Criterion.objects.filter(project=wide, name="detail").update(scale_min=1, scale_max=30)
    _rated_values(wide, "wide", list(wide.criteria.order_by("position")), ["s1"], _points, 30, rng)
    projects.append(wide)

    def slider(criterion, quality, rng) -> float:
        return float(np.clip(round(100 * quality + rng.normal(0, 12), 1), 1, 100))

    for name, modulus in (("rankme", None), ("rankme-modulus", 50.0)):
        rankme = ProjectFactory(
            id=PROJECT_IDS[name],
            name=f"golden {name}",
            task_type="rankme",
            criteria=["quality", "naturalness"],
            rankme_modulus=modulus,
        )
        _rated_values(rankme, name, list(rankme.criteria.order_by("position")), ["s1", "s2", "s3"], slider, 20, rng)
        projects.append(rankme)

    def outcome(criterion, quality, rng) -> float:
        return float(np.clip(round(2 * quality + rng.normal(0, 0.5)), 0, 2))

    pairwise = ProjectFactory(
        id=PROJECT_IDS["pairwise"], name="golden pairwise", task_type="pairwise", criteria=["overall", "helpfulness"]
    )
    _rated_values(pairwise, "pairwise", list(pairwise.criteria.order_by("position")), ["a", "b"], outcome, 40, rng)
    projects.append(pairwise)

    esa = ProjectFactory(id=PROJECT_IDS["esa"], name="golden esa", task_type="esa", criteria=["quality"])
    esa.criteria.update(scale_min=None, scale_max=None)
    _rated_values(esa, "esa", list(esa.criteria.all()), ["s1"], slider, 25, rng, spans=True)
    projects.append(esa)

    def best_worst(criterion, quality, rng) -> float:
        return float(rng.choice((-1.0, 0.0, 0.0, 1.0)))

    bws = ProjectFactory(id=PROJECT_IDS["bws"], name="golden bws", task_type="bws", criteria=["overall"])
    _rated_values(bws, "bws", list(bws.criteria.all()), ["p", "q", "r", "s"], best_worst, 15, rng)
    projects.append(bws)
    return projects


def _text(value) -> str:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True)
    return str(value)


def canonical_rows(project) -> list[str]:
    """Every stored snapshot row of ``project`` as one line: its columns (criteria and raters by name, in
    scope keys too), sorted."""
    criteria = {c.id: c.name for c in project.criteria.all()}
    raters = dict(Judgment.objects.filter(project=project).values_list("rater_id", "rater__username").distinct())

    def key(text: str) -> str:
        text = re.sub(r"criterion=(\d+)", lambda m: f"criterion={criteria[int(m[1])]}", text)
        text = re.sub(r"rater=(\d+)", lambda m: f"rater={raters[int(m[1])]}", text)
        return re.sub(r"pair=(\d+)-(\d+)", lambda m: f"pair={raters[int(m[1])]}-{raters[int(m[2])]}", text)

    lines = []
    for row in AgreementSnapshot.objects.filter(project=project).values_list(
        *(c + "_id" if c in ("criterion", "rater_a", "rater_b") else c for c in COLUMNS)
    ):
        named = dict(zip(COLUMNS, row, strict=True))
        named["criterion"] = criteria.get(named["criterion"], "")
        named["rater_a"] = raters.get(named["rater_a"], "")
        named["rater_b"] = raters.get(named["rater_b"], "")
        named["scope_key"] = key(named["scope_key"])
        lines.append(f"{project.name}\t" + "\t".join(f"{c}={_text(v)}" for c, v in named.items()))
    return sorted(lines)
