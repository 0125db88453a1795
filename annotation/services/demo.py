"""A demo deployment: a lead, a few raters and one small project per task type, with items and
outputs generated here (seeded), so a new user sees every screen without bringing data."""
import io
import json
import random

from django.contrib.auth import get_user_model
from django.db import transaction

from annotation.models import Membership, Project

from .item_import import item_import
from .project import project_create

SUBJECTS = ["The city council", "A local bakery", "The research team", "The football club", "A small startup",
            "The museum", "The hospital", "A group of students", "The orchestra", "The weather service"]
VERBS = ["announced", "postponed", "celebrated", "criticised", "launched", "reviewed", "expanded", "cancelled"]
OBJECTS = ["a new recycling plan", "its annual festival", "a study on sleep", "the summer schedule",
           "a free app for commuters", "an exhibition of maps", "the night shift rules", "a charity concert"]
DETAILS = ["after months of debate", "despite heavy rain", "with support from volunteers", "to mixed reviews",
           "ahead of the holidays", "following complaints from residents", "at a press conference on Monday"]
SUBGROUPS = ["news", "sports", "science"]
SYSTEMS = ["extractive", "abstractive", "baseline"]

DEMO_PROJECTS = [
    ("Demo: summary quality (Likert)", "likert",
     [{"name": "fluency", "scale_min": 1, "scale_max": 5,
       "labels": ["Unreadable", "Poor", "Fair", "Good", "Perfect"]},
      {"name": "faithfulness", "scale_min": 1, "scale_max": 5,
       "labels": ["Invented", "Mostly wrong", "Mixed", "Mostly right", "Fully supported"]}]),
    ("Demo: RankME sliders", "rankme", [{"name": "overall quality", "scale_min": 0, "scale_max": 100}]),
    ("Demo: A/B preference", "pairwise", [{"name": "overall"}]),
]
INSTRUCTIONS = ("Read the source text, then judge each summary on its own merits.\n\n"
                "Use the whole scale. If a text is broken or offensive, flag it instead of judging it.")


def _sentence(rng: random.Random) -> str:
    return f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(DETAILS)}."


def _summary(system: str, sentences: list[str], rng: random.Random) -> str:
    if system == "extractive":
        return sentences[0]
    if system == "abstractive":
        words = " ".join(sentences[:2]).split()
        return " ".join(words[: max(8, len(words) // 2)]).rstrip(",.") + "."
    shuffled = sentences[:]
    rng.shuffle(shuffled)
    return " ".join(shuffled[-1].split()[:6]) + " ..."


def demo_items(task_type: str, n_items: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    systems = SYSTEMS if task_type == "rankme" else SYSTEMS[:2] if task_type == "pairwise" else SYSTEMS[:1]
    lines = []
    for i in range(n_items):
        sentences = [_sentence(rng) for _ in range(rng.randint(3, 5))]
        lines.append({
            "external_id": f"demo-{task_type}-{i + 1:03d}",
            "input": " ".join(sentences),
            "references": [sentences[0]],
            "outputs": [{"system": s, "text": _summary(s, sentences, rng)} for s in systems],
            "subgroup": SUBGROUPS[i % len(SUBGROUPS)],
            "meta": {"generated": True, "seed": seed},
        })
    return lines


@transaction.atomic
def demo_setup(*, lead_username: str, lead_password: str, rater_password: str, n_raters: int = 3,
               n_items: int = 24) -> list[Project]:
    """Creates the demo accounts and projects, or returns the existing ones (idempotent)."""
    User = get_user_model()
    lead = User.objects.filter(username=lead_username).first()
    if lead is None:
        lead = User.objects.create_superuser(lead_username, password=lead_password)
    raters = []
    for k in range(1, n_raters + 1):
        rater = User.objects.filter(username=f"rater{k}").first()
        if rater is None:
            rater = User.objects.create_user(f"rater{k}", password=rater_password)
        raters.append(rater)
    projects = []
    for seed, (name, task_type, criteria) in enumerate(DEMO_PROJECTS, start=1):
        project = Project.objects.filter(name=name).first()
        if project is None:
            project = project_create(created_by=lead, name=name, task_type=task_type, criteria=criteria,
                                     instructions=INSTRUCTIONS, raters_per_item=2, double_annotation_share=0.5,
                                     show_reference=task_type == "likert")
            body = "\n".join(json.dumps(line) for line in demo_items(task_type, n_items, seed)).encode()
            item_import(project=project, stream=io.BytesIO(body), fmt="jsonl", by=lead, file_name="demo items")
        for rater in raters:
            Membership.objects.get_or_create(project=project, user=rater, defaults={"role": Membership.Role.RATER})
        projects.append(project)
    return projects
